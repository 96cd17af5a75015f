//! Splitting input into documents: YAML files (multi-document), directories (every
//! `*.yaml`/`*.yml` in lexical order), stdin (`-`), and `kind: List` unpacked in place.

use std::path::Path;

use serde::Deserialize;

use super::error::{InputError, LoadError, Origin, ReadError};

/// One document, parsed to a JSON value, with where it came from.
#[derive(Debug, Clone)]
pub struct Document {
    pub origin: Origin,
    pub value: serde_json::Value,
}

/// Expands a PATH argument into files: a directory gives its YAML files in lexical order.
pub fn expand_path(path: &str) -> Result<Vec<String>, LoadError> {
    if path == "-" {
        return Ok(vec!["-".to_string()]);
    }
    let p = Path::new(path);
    let meta = std::fs::metadata(p).map_err(|source| {
        LoadError::Read(ReadError {
            path: path.to_string(),
            source,
        })
    })?;
    if !meta.is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let entries = std::fs::read_dir(p).map_err(|source| {
        LoadError::Read(ReadError {
            path: path.to_string(),
            source,
        })
    })?;
    let mut files: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
        })
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    Ok(files)
}

/// Reads a file (or stdin for `-`) as text.
pub fn read_text(file: &str) -> Result<String, LoadError> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|source| {
            LoadError::Read(ReadError {
                path: "<stdin>".to_string(),
                source,
            })
        })?;
        return Ok(s);
    }
    std::fs::read_to_string(file).map_err(|source| {
        LoadError::Read(ReadError {
            path: file.to_string(),
            source,
        })
    })
}

/// Parses every document of `text`; `order` continues across files.
pub fn parse_documents(
    file: &str,
    text: &str,
    order: &mut usize,
) -> Result<Vec<Document>, LoadError> {
    let mut out = Vec::new();
    for (i, de) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let index = i + 1;
        let origin = Origin {
            file: display_name(file),
            document: index,
            order: *order,
        };
        let value = match serde_yaml::Value::deserialize(de) {
            Ok(v) => v,
            Err(e) => {
                let at = e
                    .location()
                    .map(|l| format!(" (line {}, column {})", l.line(), l.column()))
                    .unwrap_or_default();
                return Err(InputError::new(&origin, format!("invalid YAML{at}: {e}")).into());
            }
        };
        if value.is_null() {
            continue;
        }
        let json: serde_json::Value = serde_json::to_value(&value).map_err(|e| {
            InputError::new(
                &origin,
                format!("document cannot be represented as JSON: {e}"),
            )
        })?;
        if !json.is_object() {
            return Err(InputError::new(
                &origin,
                "expected a Kubernetes object (a mapping with apiVersion and kind)",
            )
            .into());
        }
        if json.get("kind").and_then(|k| k.as_str()) == Some("List") {
            let items = json
                .get("items")
                .and_then(|i| i.as_array())
                .cloned()
                .unwrap_or_default();
            for (i, item) in items.into_iter().enumerate() {
                *order += 1;
                let o = Origin {
                    file: display_name(file),
                    document: index,
                    order: *order,
                };
                if !item.is_object() {
                    return Err(InputError::new(&o, format!("items[{i}] is not an object")).into());
                }
                out.push(Document {
                    origin: o,
                    value: item,
                });
            }
            continue;
        }
        *order += 1;
        out.push(Document {
            origin: Origin {
                order: *order,
                ..origin
            },
            value: json,
        });
    }
    Ok(out)
}

fn display_name(file: &str) -> String {
    if file == "-" {
        "<stdin>".to_string()
    } else {
        file.to_string()
    }
}

/// Reads every PATH into documents, in argument order then file order.
pub fn read_all(paths: &[String]) -> Result<Vec<Document>, LoadError> {
    let mut order = 0;
    let mut docs = Vec::new();
    for path in paths {
        let files = expand_path(path)?;
        if files.is_empty() {
            return Err(LoadError::Read(ReadError {
                path: path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the directory has no *.yaml or *.yml files",
                ),
            }));
        }
        for file in files {
            let text = read_text(&file)?;
            docs.extend(parse_documents(&file, &text, &mut order)?);
        }
    }
    if docs.is_empty() && !paths.is_empty() {
        return Err(LoadError::Read(ReadError {
            path: paths.join(", "),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "no objects in the input"),
        }));
    }
    Ok(docs)
}
