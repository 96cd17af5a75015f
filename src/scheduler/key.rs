//! A workload's identity: its namespace and name.
//!
//! Invariants: `namespace` is never empty for a key made at the edge (the default-namespace
//! rule lives in one place, `manifests::key::ObjectKey`); ordering is by namespace, then name.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct WorkloadKey {
    pub namespace: String,
    pub name: String,
}

impl WorkloadKey {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Reads `namespace/name`; `None` when there is no `/` or either side is empty.
    pub fn parse(text: &str) -> Option<Self> {
        let (ns, name) = text.split_once('/')?;
        (!ns.is_empty() && !name.is_empty()).then(|| Self::new(ns, name))
    }
}

/// Compares with the `namespace/name` text, as [`WorkloadKey::parse`] reads it.
impl PartialEq<str> for WorkloadKey {
    fn eq(&self, text: &str) -> bool {
        text.split_once('/') == Some((self.namespace.as_str(), self.name.as_str()))
    }
}

impl PartialEq<&str> for WorkloadKey {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl fmt::Display for WorkloadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::WorkloadKey;

    #[test]
    fn parses_and_prints_namespace_slash_name() {
        let k = WorkloadKey::parse("team-a/job-x-1").unwrap();
        assert_eq!(k, WorkloadKey::new("team-a", "job-x-1"));
        assert_eq!(k.to_string(), "team-a/job-x-1");
        assert_eq!(WorkloadKey::parse("no-namespace"), None);
        assert_eq!(WorkloadKey::parse("/x"), None);
        assert_eq!(WorkloadKey::parse("x/"), None);
        // Names cannot hold '/', so the first one splits.
        assert_eq!(WorkloadKey::parse("a/b/c").unwrap().name, "b/c");
        assert_eq!(k, "team-a/job-x-1");
        assert_ne!(k, "team-a");
        assert_ne!(WorkloadKey::new("a", "b/c"), "a/b");
    }

    #[test]
    fn orders_by_namespace_then_name() {
        let mut keys = [
            WorkloadKey::new("b", "a"),
            WorkloadKey::new("a-b", "a"),
            WorkloadKey::new("a", "z"),
        ];
        keys.sort();
        let texts: Vec<String> = keys.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["a/z", "a-b/a", "b/a"]);
    }
}
