//! The one way commands write to stdout: a [`Printer`] owns the `-o` format (table, wide,
//! json, yaml, name), `--no-headers`, whether to color, and what a closed pipe means.
//!
//! Invariants: nothing else in the binary writes to stdout; every write returns the I/O error
//! instead of panicking (as `print!` does), so `kubectl kueue list workload | head -1` ends
//! quietly with exit 0, as kubectl does (the error type maps a broken pipe to success).
//! `-o json|yaml` print the same content as the table, as data; `-o name` prints
//! `kind.group/name` lines.

use std::fmt::Display;
use std::io::Write;

use kube_core::Resource;
use serde::Serialize;
use serde_json::Value;

use crate::cli::{ColorChoice, OutputFormat};

/// Where a command's output goes, and in which shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printer {
    format: OutputFormat,
    no_headers: bool,
    color: bool,
}

impl Printer {
    /// `color` is resolved now: `auto` colors only a terminal without `NO_COLOR`.
    pub fn new(format: OutputFormat, no_headers: bool, color: ColorChoice) -> Printer {
        Printer {
            format,
            no_headers,
            color: super::use_color(color),
        }
    }

    /// A printer for commands without `-o`: text, headers, colors as `--color` says.
    pub fn text(color: ColorChoice) -> Printer {
        Printer::new(OutputFormat::Table, false, color)
    }

    pub fn format(&self) -> OutputFormat {
        self.format
    }

    /// `-o wide`.
    pub fn wide(&self) -> bool {
        self.format == OutputFormat::Wide
    }

    pub fn no_headers(&self) -> bool {
        self.no_headers
    }

    pub fn color(&self) -> bool {
        self.color
    }

    /// `-o json` or `-o yaml`: output for scripts, nothing else on stdout.
    pub fn is_data(&self) -> bool {
        matches!(self.format, OutputFormat::Json | OutputFormat::Yaml)
    }

    /// Writes `text` to stdout as it is.
    pub fn write(&self, text: &str) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    }

    /// Writes `text` and a newline to stdout.
    pub fn line(&self, text: impl Display) -> std::io::Result<()> {
        self.write(&format!("{text}\n"))
    }

    /// The JSON or YAML text of `value` for `-o json|yaml`; `None` for the other formats.
    pub fn data_text(&self, value: &impl Serialize) -> anyhow::Result<Option<String>> {
        if !self.is_data() {
            return Ok(None);
        }
        let value = serde_json::to_value(value)?;
        Ok(Some(super::serialize(
            &value,
            self.format == OutputFormat::Yaml,
        )?))
    }

    /// Prints `value` as JSON or YAML when `-o` asks for data; returns whether it did.
    pub fn data(&self, value: &impl Serialize) -> anyhow::Result<bool> {
        match self.data_text(value)? {
            Some(text) => {
                self.write(&text)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Objects as `kubectl get` prints them: with `-o json|yaml` one object alone and several
    /// as a `v1 List`, with `-o name` one `kind.group/name` per line. Returns false (nothing
    /// printed) for the table formats, where the caller prints its table.
    pub fn objects<K>(&self, objects: &[&K]) -> anyhow::Result<bool>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        if self.is_data() && objects.len() == 1 {
            return self.data(&object_json(objects[0])?);
        }
        self.listed(objects)
    }

    /// Listed objects, as `kubectl get` prints a list: like [`Printer::objects`], except that
    /// `-o json|yaml` is a `v1 List` even for one item.
    pub fn listed<K>(&self, objects: &[&K]) -> anyhow::Result<bool>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        match self.format {
            OutputFormat::Json | OutputFormat::Yaml => {
                let items = objects
                    .iter()
                    .map(|o| object_json(*o))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                self.data(&list_of(items))
            }
            OutputFormat::Name => {
                for o in objects {
                    self.line(resource_name(*o))?;
                }
                Ok(true)
            }
            OutputFormat::Table | OutputFormat::Wide => Ok(false),
        }
    }
}

impl Printer {
    /// A list as `kubectl get` prints it: the objects for `-o json|yaml|name`, else the
    /// table `table` makes (an empty table: "No resources found." on stderr).
    pub fn list_or_table<K>(
        &self,
        objects: &[&K],
        table: impl FnOnce(&Printer) -> String,
    ) -> anyhow::Result<()>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        if !self.listed(objects)? {
            let t = table(self);
            if t.is_empty() {
                eprintln!("No resources found.");
            } else {
                self.line(t)?;
            }
        }
        Ok(())
    }
}

/// A `v1 List` of `items`, as kubectl prints several objects.
pub fn list_of(items: Vec<Value>) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

/// An object as JSON with its `apiVersion` and `kind` (typed lists from the API server
/// leave them out of the items), keys in kubectl's order.
pub fn object_json<K>(obj: &K) -> anyhow::Result<Value>
where
    K: Resource<DynamicType = ()> + Serialize,
{
    let mut v = serde_json::to_value(obj)?;
    if let Some(m) = v.as_object_mut() {
        m.insert("apiVersion".into(), K::api_version(&()).to_string().into());
        m.insert("kind".into(), K::kind(&()).to_string().into());
        // kubectl prints objects with these first; serde_json keeps insertion order only with
        // preserve_order, so rebuild the map.
        let mut ordered = serde_json::Map::new();
        for k in ["apiVersion", "kind", "metadata", "spec", "status"] {
            if let Some(x) = m.remove(k) {
                ordered.insert(k.to_string(), x);
            }
        }
        ordered.extend(std::mem::take(m));
        v = Value::Object(ordered);
    }
    Ok(v)
}

/// `kind.group/name`, the `-o name` form (`clusterqueue.kueue.x-k8s.io/team-a-queue`).
pub fn resource_name<K>(obj: &K) -> String
where
    K: Resource<DynamicType = ()>,
{
    let name = obj.meta().name.clone().unwrap_or_default();
    kind_name(&K::kind(&()), &K::group(&()), &name)
}

/// `kind.group/name` from its parts (`job.batch/x`, `namespace/x` for the core group).
pub fn kind_name(kind: &str, group: &str, name: &str) -> String {
    let kind = kind.to_lowercase();
    if group.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind}.{group}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ClusterQueue;

    #[test]
    fn names_and_objects_read_like_kubectl() {
        let cq: ClusterQueue = crate::api::from_yaml_str(
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {}\n",
        )
        .unwrap();
        assert_eq!(resource_name(&cq), "clusterqueue.kueue.x-k8s.io/q");
        let v = object_json(&cq).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys[..3], ["apiVersion", "kind", "metadata"]);
        assert_eq!(kind_name("Job", "batch", "j"), "job.batch/j");
        assert_eq!(kind_name("Pod", "", "p"), "pod/p");
    }
}
