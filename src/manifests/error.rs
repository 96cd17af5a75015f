//! Errors about input files: every one names the file, the document, the object and the
//! field, so a person can go straight to the line that needs fixing.

use std::fmt;

/// Where an object came from: a file (or `-` for stdin) and its 1-based document number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Origin {
    pub file: String,
    /// 1-based position of the document in the file (after unpacking `kind: List`).
    pub document: usize,
    /// Global order over all inputs, for "earlier document = older".
    pub order: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: document {}", self.file, self.document)
    }
}

/// A problem with the input that stops the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub origin: Origin,
    /// `Kind name` or `Kind namespace/name`, when known.
    pub object: Option<String>,
    /// Dotted field path, when the problem is in a field.
    pub field: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn new(origin: &Origin, message: impl Into<String>) -> Self {
        Self {
            origin: origin.clone(),
            object: None,
            field: None,
            message: message.into(),
        }
    }

    pub fn object(mut self, object: impl Into<String>) -> Self {
        self.object = Some(object.into());
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Self {
        let f = field.into();
        if !f.is_empty() && f != "." {
            self.field = Some(f);
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(o) = &self.object {
            write!(f, " ({o})")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// Reading a file failed (missing, unreadable, not UTF-8).
#[derive(Debug)]
pub struct ReadError {
    pub path: String,
    pub source: std::io::Error,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read {}: {}", self.path, self.source)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Anything that stops loading.
#[derive(Debug)]
pub enum LoadError {
    Read(ReadError),
    Input(Box<InputError>),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Read(e) => e.fmt(f),
            LoadError::Input(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<InputError> for LoadError {
    fn from(e: InputError) -> Self {
        LoadError::Input(Box::new(e))
    }
}
