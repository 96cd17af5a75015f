//! Typed objects read from documents, by kind, each with its origin. Reading checks types
//! (serde, with the field path of any error); meaning is checked in [`super::convert`](mod@super::convert).

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{LimitRange, Namespace, Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::documents::Document;
use super::error::{InputError, Origin};
use super::kueue_documents::{read, read_config, typed};
use super::sources::{KueueKind, Sources};
use crate::api::config::Configuration;
use crate::api::{
    ClusterQueue, Cohort, KueueVersion, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};

/// An object and where it came from.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    pub obj: T,
    pub origin: Origin,
}

/// Everything the input holds, by kind, in input order.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    pub flavors: Vec<Sourced<ResourceFlavor>>,
    pub cohorts: Vec<Sourced<Cohort>>,
    pub cluster_queues: Vec<Sourced<ClusterQueue>>,
    pub local_queues: Vec<Sourced<LocalQueue>>,
    pub priority_classes: Vec<Sourced<WorkloadPriorityClass>>,
    /// scheduling.k8s.io PriorityClasses: a Job's pod template may name one.
    pub pod_priority_classes: Vec<Sourced<PriorityClass>>,
    pub workloads: Vec<Sourced<Workload>>,
    pub jobs: Vec<Sourced<Job>>,
    pub namespaces: Vec<Sourced<Namespace>>,
    pub nodes: Vec<Sourced<Node>>,
    /// Pods: those bound to a Node count against its free capacity ([`super::nodes`]).
    pub pods: Vec<Sourced<Pod>>,
    /// Why the Pods could not be read (live: `list pods` forbidden), when they could not.
    pub pods_unread: Option<String>,
    /// LimitRange defaults and RuntimeClass overheads count in Workload requests.
    pub limit_ranges: Vec<Sourced<LimitRange>>,
    pub runtime_classes: Vec<Sourced<RuntimeClass>>,
    pub config: Option<Sourced<Configuration>>,
    /// The API version each Kueue object was written in (and its v1beta2 document).
    pub sources: Sources,
    /// Things worth a line on stderr (ignored kinds, Jobs without a queue label...).
    pub warnings: Vec<String>,
}

fn describe(value: &serde_json::Value) -> (String, String) {
    let kind = value
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("")
        .to_string();
    let meta = value.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or("");
    let ns = meta
        .and_then(|m| m.get("namespace"))
        .and_then(|n| n.as_str());
    let what = if kind.is_empty() {
        "object".to_string()
    } else {
        kind.clone()
    };
    let id = match (ns, name.is_empty()) {
        (Some(ns), _) => format!("{what} {ns}/{name}"),
        (None, true) => what,
        (None, false) => format!("{what} {name}"),
    };
    (kind, id)
}

impl Inventory {
    /// The priority classes a Job's Workload priority comes from.
    pub fn priorities(&self) -> crate::manifests::priority::Priorities {
        crate::manifests::priority::Priorities::new(
            self.priority_classes.iter().map(|p| &p.obj),
            self.pod_priority_classes.iter().map(|p| &p.obj),
        )
    }

    /// Adds the Workloads and Jobs of `added` (read from other documents), as `simulate
    /// --add` does.
    pub fn add_workloads_and_jobs(&mut self, added: Inventory) {
        self.workloads.extend(added.workloads);
        self.jobs.extend(added.jobs);
        self.sources.extend(added.sources);
    }

    /// Sorts documents into kinds. Unknown kinds give one warning each and are skipped.
    pub fn from_documents(docs: Vec<Document>) -> Result<Inventory, InputError> {
        let mut inv = Inventory::default();
        let mut ignored: BTreeMap<String, (usize, Origin)> = BTreeMap::new();
        let mut unlabelled_jobs = Vec::new();
        for doc in docs {
            let api_version = doc
                .value
                .get("apiVersion")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string();
            let (kind, id) = describe(&doc.value);
            if api_version.is_empty() || kind.is_empty() {
                let missing = if api_version.is_empty() {
                    "apiVersion"
                } else {
                    "kind"
                };
                return Err(InputError::new(&doc.origin, "required field is missing")
                    .object(id)
                    .field(missing));
            }
            if doc
                .value
                .get("metadata")
                .and_then(|m| m.get("name"))
                .is_none()
                && kind != "Configuration"
            {
                return Err(InputError::new(&doc.origin, "required field is missing")
                    .object(id)
                    .field("metadata.name"));
            }
            let origin = doc.origin.clone();
            let kueue_version = KueueVersion::of_kueue_api_version(&api_version);
            let config_version = KueueVersion::of_config_api_version(&api_version);
            match (api_version.as_str(), kind.as_str()) {
                _ if let Some(version) = kueue_version
                    && let Some(kueue_kind) = KueueKind::parse(&kind) =>
                {
                    read(&mut inv, &doc, &id, kueue_kind, version)?;
                }
                ("batch/v1", "Job") => {
                    let job: Job = typed(&doc, &id)?;
                    let labelled = job
                        .metadata
                        .labels
                        .as_ref()
                        .is_some_and(|l| l.contains_key(crate::api::QUEUE_NAME_LABEL));
                    if labelled {
                        inv.jobs.push(Sourced { obj: job, origin });
                    } else {
                        unlabelled_jobs.push(id);
                    }
                }
                ("v1", "Namespace") => inv.namespaces.push(Sourced {
                    obj: typed(&doc, &id)?,
                    origin,
                }),
                ("v1", "Node") => inv.nodes.push(Sourced {
                    obj: typed(&doc, &id)?,
                    origin,
                }),
                ("v1", "Pod") => inv.pods.push(Sourced {
                    obj: typed(&doc, &id)?,
                    origin,
                }),
                ("v1", "LimitRange") => inv.limit_ranges.push(Sourced {
                    obj: typed(&doc, &id)?,
                    origin,
                }),
                ("node.k8s.io/v1", "RuntimeClass") => inv.runtime_classes.push(Sourced {
                    obj: typed(&doc, &id)?,
                    origin,
                }),
                ("scheduling.k8s.io/v1", "PriorityClass") => {
                    inv.pod_priority_classes.push(Sourced {
                        obj: typed(&doc, &id)?,
                        origin,
                    })
                }
                (_, "Configuration") if let Some(version) = config_version => {
                    if let Some(previous) = &inv.config {
                        return Err(InputError::new(
                            &origin,
                            format!(
                                "a second Configuration (the first is at {})",
                                previous.origin
                            ),
                        )
                        .object(id));
                    }
                    inv.config = Some(Sourced {
                        obj: read_config(&doc, &id, version, &mut inv.warnings)?,
                        origin,
                    });
                }
                (v, _) if v.starts_with("kueue.x-k8s.io/") && kueue_version.is_none() => {
                    return Err(InputError::new(
                        &origin,
                        format!("apiVersion {v} is not supported: kubectl-kueue reads kueue.x-k8s.io/v1beta1 and kueue.x-k8s.io/v1beta2"),
                    )
                    .object(id)
                    .field("apiVersion"));
                }
                _ => {
                    let e = ignored
                        .entry(format!("{api_version} {kind}"))
                        .or_insert((0, origin));
                    e.0 += 1;
                }
            }
        }
        for (what, (count, first)) in ignored {
            let n = if count == 1 {
                "1 object".to_string()
            } else {
                format!("{count} objects")
            };
            inv.warnings.push(format!(
                "ignored {n} of kind {what} (first at {first}): simulate does not read this kind"
            ));
        }
        if !unlabelled_jobs.is_empty() {
            inv.warnings.push(format!(
                "ignored {} Job(s) without the label {}: {}",
                unlabelled_jobs.len(),
                crate::api::QUEUE_NAME_LABEL,
                unlabelled_jobs.join(", ")
            ));
        }
        Ok(inv)
    }
}
