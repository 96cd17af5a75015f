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
use crate::manifests::{Inventory, ObjectKey, Origin, Sourced};

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
/// status, resourceVersion, managedFields and finalizers. A watch event that leaves it
/// equal (our own status write echoing back, many a second on a busy cluster) needs no
/// rebuild. Each entry remembers the resourceVersion it was last seen at, so a check
/// compares only the objects that changed since (with a thousand ClusterQueues, comparing
/// every one on every status echo was a tenth of the controller's time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueSpecs {
    cluster_queues: BTreeMap<ObjectKey, Seen<ClusterQueueSpec>>,
    local_queues: BTreeMap<ObjectKey, Seen<LocalQueueSpec>>,
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
        // Ours (`kueue.x-k8s.io/resource-in-use`), read from the cache where they matter: a
        // queue's configuration never depends on them, and adding them to a thousand new
        // ClusterQueues converted every queue again after each one.
        finalizers: None,
        ..m.clone()
    }
}

fn seen<S: Clone>(m: &ObjectMeta, spec: &S) -> Seen<S> {
    Seen {
        resource_version: m.resource_version.clone(),
        meta: meta_part(m),
        spec: spec.clone(),
    }
}

/// Brings `known` up to date with `now`'s objects; whether anything the configuration is
/// built from differs.
fn refresh<T, S: Clone + PartialEq>(
    known: &mut BTreeMap<ObjectKey, Seen<S>>,
    now: &[std::sync::Arc<T>],
    meta: impl Fn(&T) -> &ObjectMeta,
    spec: impl Fn(&T) -> &S,
    key: impl Fn(&ObjectMeta) -> ObjectKey,
) -> bool {
    known.len() != now.len()
        || now.iter().any(|obj| {
            let m = meta(obj);
            refresh_one(known, key(m), Some((m, spec(obj))))
        })
}

/// Whether `now` (`None`: gone) differs from what `known` holds for `key` in anything the
/// configuration is built from; if not, its resourceVersion is remembered.
fn refresh_one<S: Clone + PartialEq>(
    known: &mut BTreeMap<ObjectKey, Seen<S>>,
    key: ObjectKey,
    now: Option<(&ObjectMeta, &S)>,
) -> bool {
    let (entry, (m, spec)) = match (known.get_mut(&key), now) {
        (None, None) => return false,
        (Some(entry), Some(now)) => (entry, now),
        _ => return true,
    };
    // The same object (a name deleted and created again has another UID) at the same
    // version; without a resourceVersion (objects made by hand) only the content tells.
    if m.resource_version.is_some()
        && entry.resource_version == m.resource_version
        && entry.meta.uid == m.uid
    {
        return false;
    }
    if entry.spec != *spec || entry.meta != meta_part(m) {
        return true;
    }
    entry.resource_version = m.resource_version.clone();
    false
}

/// The queues whose watch reported a change since the last look: by key, or all of them
/// (a re-list).
#[derive(Debug, Default)]
pub struct StaleQueues {
    all: bool,
    cluster_queues: BTreeSet<ObjectKey>,
    local_queues: BTreeSet<ObjectKey>,
}

impl StaleQueues {
    /// A ClusterQueue (or, `cluster_queue` false, a LocalQueue) changed; `None`: all may
    /// have.
    pub fn mark(&mut self, cluster_queue: bool, key: Option<ObjectKey>) {
        match (key, cluster_queue) {
            (None, _) => self.all = true,
            (Some(k), true) => {
                self.cluster_queues.insert(k);
            }
            (Some(k), false) => {
                self.local_queues.insert(k);
            }
        }
    }

    fn is_empty(&self) -> bool {
        !self.all && self.cluster_queues.is_empty() && self.local_queues.is_empty()
    }
}

impl QueueSpecs {
    pub fn of(cache: &dyn super::Cache) -> QueueSpecs {
        QueueSpecs {
            cluster_queues: cache
                .cluster_queues()
                .iter()
                .map(|c| {
                    let key = ObjectKey::cluster_scoped(&c.metadata);
                    (key, seen(&c.metadata, &c.spec))
                })
                .collect(),
            local_queues: cache
                .local_queues()
                .iter()
                .map(|l| {
                    let key = ObjectKey::namespaced(&l.metadata);
                    (key, seen(&l.metadata, &l.spec))
                })
                .collect(),
        }
    }

    /// Whether the `stale` queues in the cache differ from these in anything the
    /// configuration is built from: only those are looked up (a thousand ClusterQueues'
    /// status writes echo back between two turns of each other, and comparing every queue
    /// at each echo grew with the square of the queues).
    pub fn changed_at(&mut self, cache: &dyn super::Cache, stale: &StaleQueues) -> bool {
        if stale.is_empty() {
            return false;
        }
        if stale.all {
            return self.changed_in(cache);
        }
        stale.cluster_queues.iter().any(|k| {
            let now = cache.cluster_queue(k);
            let now = now.as_deref().map(|c| (&c.metadata, &c.spec));
            refresh_one(&mut self.cluster_queues, k.clone(), now)
        }) || stale.local_queues.iter().any(|k| {
            let now = cache.local_queue(k);
            let now = now.as_deref().map(|l| (&l.metadata, &l.spec));
            refresh_one(&mut self.local_queues, k.clone(), now)
        })
    }

    /// Whether the cache's queues differ from these in anything the configuration is built
    /// from (the resourceVersions seen are remembered either way).
    pub fn changed_in(&mut self, cache: &dyn super::Cache) -> bool {
        refresh(
            &mut self.cluster_queues,
            &cache.cluster_queues(),
            |c| &c.metadata,
            |c| &c.spec,
            ObjectKey::cluster_scoped,
        ) || refresh(
            &mut self.local_queues,
            &cache.local_queues(),
            |l| &l.metadata,
            |l| &l.spec,
            ObjectKey::namespaced,
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

#[cfg(test)]
mod tests {
    use super::super::cache::MemoryCache;
    use super::{QueueSpecs, StaleQueues};
    use crate::api::ClusterQueue;
    use crate::manifests::ObjectKey;

    fn queue(rv: &str) -> ClusterQueue {
        let mut cq = ClusterQueue::new("cq", Default::default());
        cq.metadata.resource_version = Some(rv.into());
        cq.metadata.uid = Some("u1".into());
        cq
    }

    /// Whether the watch's change of `cq` changed the configuration.
    fn changed(specs: &mut QueueSpecs, cache: &MemoryCache) -> bool {
        let mut stale = StaleQueues::default();
        stale.mark(true, Some(ObjectKey::cluster_scoped(&queue("0").metadata)));
        specs.changed_at(cache, &stale)
    }

    /// Only what the queue configuration is built from counts as a change.
    #[test]
    fn status_and_finalizer_writes_are_no_change_of_the_configuration() {
        let mut cache = MemoryCache::default();
        cache.put_cluster_queue(queue("1"));
        let mut specs = QueueSpecs::of(&cache);
        let mut status = queue("2");
        status.status = Some(Default::default());
        cache.put_cluster_queue(status);
        assert!(!changed(&mut specs, &cache), "a status write");
        let mut finalized = queue("3");
        finalized.metadata.finalizers = Some(vec!["kueue.x-k8s.io/resource-in-use".into()]);
        cache.put_cluster_queue(finalized);
        assert!(!changed(&mut specs, &cache), "a finalizer added");
        assert!(!specs.changed_in(&cache), "the same, every queue compared");

        let mut labelled = queue("4");
        labelled.metadata.labels = Some([("team".to_string(), "a".to_string())].into());
        cache.put_cluster_queue(labelled.clone());
        assert!(
            !specs.changed_at(&cache, &StaleQueues::default()),
            "only the queues the watch named are looked at"
        );
        assert!(changed(&mut specs, &cache), "a label added");

        let mut specs = QueueSpecs::of(&cache);
        let mut cohort = labelled.clone();
        cohort.metadata.resource_version = Some("5".into());
        cohort.spec.cohort = Some("c".into());
        cache.put_cluster_queue(cohort);
        assert!(changed(&mut specs, &cache), "the spec changed");

        let mut specs = QueueSpecs::of(&cache);
        let mut again = (*cache.cluster_queues["cq"]).clone();
        again.metadata.uid = Some("u2".into());
        cache.put_cluster_queue(again);
        assert!(changed(&mut specs, &cache), "deleted and created again");

        let mut specs = QueueSpecs::of(&cache);
        cache.cluster_queues.clear();
        assert!(changed(&mut specs, &cache), "deleted");
    }
}
