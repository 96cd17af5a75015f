//! The queue configuration, kept in step with the cluster: ResourceFlavors, Cohorts,
//! ClusterQueues, LocalQueues, Namespaces and the Configuration are converted with the same
//! code `simulate` uses, and the engine is rebuilt only when that picture changed (status
//! writes and unrelated edits leave it alone). A ClusterQueue, Cohort or ResourceFlavor the
//! conversion rejects keeps its last valid version and makes the ClusterQueues it concerns
//! inactive ([`super::last_valid`]); a LocalQueue or Namespace it rejects is left out. Either
//! way a warning, instead of stopping the controller.
//! Also: the warning when a flavor's node labels match no Node.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Ctx;
use super::last_valid::{Rejections, Substitution};
use crate::api::{ClusterQueueSpec, LocalQueueSpec};
use crate::manifests::convert::{self, ConvertOptions};
use crate::manifests::{Inventory, Origin, Sourced};

fn sourced<T: Clone>(
    items: Vec<std::sync::Arc<T>>,
    kind: &str,
    order: &mut usize,
) -> Vec<Sourced<T>> {
    let mut out: Vec<Sourced<T>> = Vec::with_capacity(items.len());
    for obj in items {
        *order += 1;
        out.push(Sourced {
            obj: (*obj).clone(),
            origin: Origin {
                file: format!("cluster ({kind})"),
                document: *order,
                order: *order,
            },
        });
    }
    out
}

fn by_name<T: kube::Resource>(v: &mut [Sourced<T>]) {
    v.sort_by(|a, b| {
        (a.obj.meta().namespace.clone(), a.obj.meta().name.clone())
            .cmp(&(b.obj.meta().namespace.clone(), b.obj.meta().name.clone()))
    });
}

/// What of the ClusterQueues and LocalQueues the queue configuration is built from: all but
/// status and resourceVersion. A watch event that leaves it equal (our own status write
/// echoing back, many a second on a busy cluster) needs no rebuild. Each entry remembers
/// the resourceVersion it was last seen at, so a check compares only the objects that
/// changed since (with a thousand ClusterQueues, comparing every one on every status echo
/// was a tenth of the controller's time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueSpecs {
    cluster_queues: BTreeMap<(Option<String>, Option<String>), Seen<ClusterQueueSpec>>,
    local_queues: BTreeMap<(Option<String>, Option<String>), Seen<LocalQueueSpec>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Seen<S> {
    resource_version: Option<String>,
    meta: ObjectMeta,
    spec: S,
}

fn meta_part(m: &ObjectMeta) -> ObjectMeta {
    ObjectMeta {
        resource_version: None,
        managed_fields: None,
        ..m.clone()
    }
}

fn key_of(m: &ObjectMeta) -> (Option<String>, Option<String>) {
    (m.namespace.clone(), m.name.clone())
}

fn seen<S: Clone>(m: &ObjectMeta, spec: &S) -> Seen<S> {
    Seen {
        resource_version: m.resource_version.clone(),
        meta: meta_part(m),
        spec: spec.clone(),
    }
}

/// Brings `known` up to date with `now`'s objects; whether anything but status and
/// resourceVersion differs.
fn refresh<T, S: Clone + PartialEq>(
    known: &mut BTreeMap<(Option<String>, Option<String>), Seen<S>>,
    now: &[std::sync::Arc<T>],
    meta: impl Fn(&T) -> &ObjectMeta,
    spec: impl Fn(&T) -> &S,
) -> bool {
    if known.len() != now.len() {
        return true;
    }
    for obj in now {
        let m = meta(obj);
        let Some(entry) = known.get_mut(&key_of(m)) else {
            return true;
        };
        // Without a resourceVersion (objects made by hand) only the content tells.
        if m.resource_version.is_some() && entry.resource_version == m.resource_version {
            continue;
        }
        if entry.spec != *spec(obj) || entry.meta != meta_part(m) {
            return true;
        }
        entry.resource_version = m.resource_version.clone();
    }
    false
}

impl QueueSpecs {
    pub fn of(cache: &dyn super::Cache) -> QueueSpecs {
        QueueSpecs {
            cluster_queues: cache
                .cluster_queues()
                .iter()
                .map(|c| (key_of(&c.metadata), seen(&c.metadata, &c.spec)))
                .collect(),
            local_queues: cache
                .local_queues()
                .iter()
                .map(|l| (key_of(&l.metadata), seen(&l.metadata, &l.spec)))
                .collect(),
        }
    }

    /// Whether the cache's queues differ from these in anything but status and
    /// resourceVersion (the resourceVersions seen are remembered either way).
    pub fn changed_in(&mut self, cache: &dyn super::Cache) -> bool {
        refresh(
            &mut self.cluster_queues,
            &cache.cluster_queues(),
            |c| &c.metadata,
            |c| &c.spec,
        ) || refresh(
            &mut self.local_queues,
            &cache.local_queues(),
            |l| &l.metadata,
            |l| &l.spec,
        )
    }
}

impl Ctx<'_> {
    /// Re-reads queues, flavors, cohorts and namespaces; rebuilds the engine if they changed.
    pub(super) fn sync_config(&mut self) {
        self.m.config_dirty = false;
        self.m.queue_specs = QueueSpecs::of(self.cache);
        let mut order = 0;
        let mut inv = Inventory {
            flavors: sourced(self.cache.flavors(), "ResourceFlavor", &mut order),
            cohorts: sourced(self.cache.cohorts(), "Cohort", &mut order),
            cluster_queues: sourced(self.cache.cluster_queues(), "ClusterQueue", &mut order),
            local_queues: sourced(self.cache.local_queues(), "LocalQueue", &mut order),
            namespaces: sourced(self.cache.namespaces(), "Namespace", &mut order),
            config: self.m.settings.config.clone().map(|c| Sourced {
                obj: c,
                origin: Origin {
                    file: "--config".into(),
                    document: 1,
                    order: 0,
                },
            }),
            ..Default::default()
        };
        by_name(&mut inv.flavors);
        by_name(&mut inv.cohorts);
        by_name(&mut inv.cluster_queues);
        by_name(&mut inv.local_queues);
        by_name(&mut inv.namespaces);
        let opts = ConvertOptions {
            now: self.now.wall,
            strict_namespace_selector: self.m.settings.strict_namespace_selector,
        };
        let mut rejections = Rejections::default();
        let mut left_out = BTreeSet::new();
        let mut converted = loop {
            match convert::convert(&inv, &opts) {
                Ok(c) => break c,
                Err(e) => {
                    let Some(object) = e.object.clone() else {
                        tracing::error!(error = %e, "cannot read the cluster's queues");
                        return;
                    };
                    let Some((kind, name)) = object.split_once(' ') else {
                        tracing::error!(error = %e, "cannot read the cluster's queues");
                        return;
                    };
                    let (kind, name) = (kind.to_string(), name.to_string());
                    let substitution =
                        self.m
                            .last_valid
                            .substitute(&mut inv, &kind, &name, &e, &mut rejections);
                    // Said once per object and problem (queues are re-read on every change).
                    let report = format!("{object}: {e}");
                    if self.m.reported_invalid.insert(report) {
                        match substitution {
                            Substitution::Substituted => {
                                tracing::warn!(object = %object, error = %e, "keeping the last valid version of an object the scheduler cannot use; the ClusterQueues it concerns admit nothing new")
                            }
                            Substitution::LeaveOut => {
                                tracing::warn!(object = %object, error = %e, "ignoring an object the scheduler cannot use")
                            }
                        }
                    }
                    if substitution == Substitution::Substituted {
                        continue;
                    }
                    if !left_out.insert(object.clone()) {
                        tracing::error!(error = %e, "cannot read the cluster's queues");
                        return;
                    }
                    let is = |meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
                        let full = match &meta.namespace {
                            Some(ns) => format!("{ns}/{}", meta.name.as_deref().unwrap_or("")),
                            None => meta.name.clone().unwrap_or_default(),
                        };
                        full == name
                    };
                    match kind.as_str() {
                        "ClusterQueue" => inv.cluster_queues.retain(|s| !is(&s.obj.metadata)),
                        "LocalQueue" => inv.local_queues.retain(|s| !is(&s.obj.metadata)),
                        "Namespace" => inv.namespaces.retain(|s| !is(&s.obj.metadata)),
                        _ => {
                            tracing::error!(error = %e, "cannot read the cluster's queues");
                            return;
                        }
                    }
                }
            }
        };
        self.m.last_valid.remember(&inv, &rejections);
        rejections.mark(&mut converted.state);
        if converted.state == self.m.base {
            return;
        }
        tracing::info!(
            cluster_queues = converted.state.cluster_queues.len(),
            local_queues = converted.state.local_queues.len(),
            flavors = converted.state.flavors.len(),
            "queue configuration changed; rebuilding the scheduler's picture"
        );
        self.m.base = converted.state.clone();
        self.mark_every_cached_workload_dirty();
        self.m.engine.set_cluster_config(converted.state);
        self.m.schedule = true;
        self.m.queues_dirty = true;
    }

    /// Says (once per change) when a ResourceFlavor's node labels match no Node: what it
    /// admits would then wait at the kube-scheduler.
    pub(super) fn check_flavor_nodes(&mut self) {
        self.m.nodes_dirty = false;
        let nodes = self.cache.node_labels();
        for f in self.cache.flavors() {
            let name = f.metadata.name.clone().unwrap_or_default();
            let labels = &f.spec.node_labels;
            let matched = labels.is_empty()
                || nodes
                    .iter()
                    .any(|nl| labels.iter().all(|(k, v)| nl.get(k) == Some(v)));
            let known = self.m.flavors_without_nodes.contains(&name);
            if !matched && !known {
                tracing::warn!(flavor = name, node_labels = ?labels, "no Node has this ResourceFlavor's node labels: workloads admitted on it will wait for such a node");
                self.m.flavors_without_nodes.insert(name);
            } else if matched && known {
                tracing::info!(
                    flavor = name,
                    "a Node now has this ResourceFlavor's node labels"
                );
                self.m.flavors_without_nodes.remove(&name);
            }
        }
    }
}
