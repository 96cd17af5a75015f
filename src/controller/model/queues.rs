//! ClusterQueue and LocalQueue status (flavorsReservation, flavorsUsage, counts, `Active`),
//! built by the same functions `simulate -o yaml` uses ([`crate::status::queues`]) and
//! written when it changed, plus the queue gauges of `/metrics` and the queue finalizers
//! ([`super::finalizers`]).
//!
//! Recomputed at most every [`MIN_INTERVAL`] while things change (the loop's tick flushes
//! the last change), so a burst of admissions costs a few status writes, not one each, and
//! from one [`QueueFigures`] per round (one pass over the workloads for all queues). One
//! write per queue in flight at a time.

use std::time::Duration;

use crate::manifests::ObjectKey;
use crate::manifests::key::DEFAULT_NAMESPACE;
use crate::metrics::{LocalQueueRef, LocalQueueState, MetricUpdate, QueueState, ResourceState};
use crate::scheduler::decision::InactiveReason;
use crate::scheduler::quantity::{Amount, UNLIMITED, is_milli_resource};
use crate::status::{
    QueueFigures, cluster_queue_with_figures, local_queue_with_figures, same_ignoring_times,
};

use super::Ctx;
use super::plan::Action;

/// A second: a busy ClusterQueue's status changes with every admission and finish, and each
/// write is an update every watcher of ClusterQueues (or LocalQueues) receives.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);

fn reported(resource: &str, v: Amount) -> f64 {
    if v == UNLIMITED {
        return f64::INFINITY;
    }
    if is_milli_resource(resource) {
        v.get() as f64 / 1000.0
    } else {
        v.get() as f64
    }
}

impl Ctx<'_> {
    pub(super) fn update_queues(&mut self) {
        if !self.m.queues_dirty {
            return;
        }
        let now = self.now;
        if self
            .m
            .queues_written_at
            .is_some_and(|t| now.instant.saturating_duration_since(t) < MIN_INTERVAL)
        {
            return;
        }
        self.m.queues_dirty = false;
        self.m.queues_written_at = Some(now.instant);
        self.queue_finalizers();
        let figures = QueueFigures::of(&self.m.engine);
        self.update_gauges();
        self.update_local_queue_gauges(&figures);
        for cq in self.cache.cluster_queues() {
            let key = ObjectKey::cluster_scoped(&cq.metadata);
            if self.m.busy_queues.contains(&key) {
                self.m.queues_dirty = true;
                continue;
            }
            let status = cluster_queue_with_figures(&cq, &self.m.engine, &figures, now.wall)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&cq.status.clone().unwrap_or_default(), &status) {
                continue;
            }
            self.m.busy_queues.insert(key.clone());
            self.act(Action::WriteClusterQueueStatus { key, status });
        }
        for lq in self.cache.local_queues() {
            let key = ObjectKey::namespaced(&lq.metadata);
            if self.m.busy_queues.contains(&key) {
                self.m.queues_dirty = true;
                continue;
            }
            let status = local_queue_with_figures(&lq, &figures, now.wall)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&lq.status.clone().unwrap_or_default(), &status) {
                continue;
            }
            self.m.busy_queues.insert(key.clone());
            self.act(Action::WriteLocalQueueStatus { key, status });
        }
    }

    pub(super) fn on_queue_written(&mut self, key: ObjectKey, _ok: bool) {
        self.m.busy_queues.remove(&key);
        // Re-check: the state may have moved on while the write was in flight (and a failed
        // write is retried).
        self.m.queues_dirty = true;
    }

    fn update_gauges(&mut self) {
        let engine = &self.m.engine;
        let pending = engine.pending_counts();
        let states: Vec<QueueState> = engine
            .cluster_queue_figures()
            .into_iter()
            .map(|v| {
                let counts = pending.iter().find(|p| p.cluster_queue == v.name);
                QueueState {
                    cohort: v.cohort.clone().unwrap_or_default(),
                    active: v.inactive.is_none(),
                    terminating: v.inactive == Some(InactiveReason::Terminating),
                    pending_active: counts.map_or(0, |c| c.active as i64),
                    pending_inadmissible: counts.map_or(0, |c| c.inadmissible as i64),
                    reserving: v.reserving as i64,
                    admitted: v.admitted as i64,
                    resources: v
                        .usage
                        .iter()
                        .map(|u| ResourceState {
                            flavor: u.flavor.clone(),
                            resource: u.resource.clone(),
                            nominal: reported(&u.resource, u.nominal),
                            borrowing_limit: u
                                .borrowing_limit
                                .map_or(f64::INFINITY, |b| reported(&u.resource, b)),
                            lending_limit: u
                                .lending_limit
                                .map_or(f64::INFINITY, |b| reported(&u.resource, b)),
                            reservation: reported(&u.resource, u.reserved),
                            usage: reported(&u.resource, u.admitted),
                        })
                        .collect(),
                    cluster_queue: v.name,
                }
            })
            .collect();
        self.metric(MetricUpdate::QueueState(states));
    }

    /// The `kueue_local_queue_*` gauges of every exposed LocalQueue (upstream reports a
    /// LocalQueue's resources for every flavor and resource of its ClusterQueue).
    fn update_local_queue_gauges(&mut self, figures: &QueueFigures) {
        let Some(selector) = self.m.settings.local_queue_metrics.as_ref() else {
            return;
        };
        let pending = self.m.engine.local_pending_counts();
        let now = self.now.wall;
        let mut states = Vec::new();
        for lq in self.cache.local_queues() {
            if !selector.matches(&lq.metadata.labels.clone().unwrap_or_default()) {
                continue;
            }
            let queue = LocalQueueRef {
                namespace: lq
                    .metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string()),
                name: lq.metadata.name.clone().unwrap_or_default(),
            };
            let key = (queue.namespace.clone(), queue.name.clone());
            let counts = pending.get(&key).cloned().unwrap_or_default();
            let local = figures.local(&queue.namespace, &queue.name);
            let active = local_queue_with_figures(&lq, figures, now)
                .status
                .and_then(|s| {
                    s.conditions
                        .iter()
                        .find(|c| c.type_ == "Active")
                        .map(|c| c.status.clone())
                })
                .unwrap_or_else(|| "Unknown".to_string());
            let cq = lq.spec.cluster_queue.clone().unwrap_or_default();
            let resources = figures
                .view(&cq)
                .map(|v| {
                    v.usage
                        .iter()
                        .map(|u| {
                            let fr = (u.flavor.clone(), u.resource.clone());
                            let get = |m: Option<&std::collections::BTreeMap<_, Amount>>| {
                                reported(
                                    &u.resource,
                                    m.and_then(|m| m.get(&fr)).copied().unwrap_or_default(),
                                )
                            };
                            (
                                u.flavor.clone(),
                                u.resource.clone(),
                                get(local.map(|l| &l.reserved)),
                                get(local.map(|l| &l.used)),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            states.push(LocalQueueState {
                queue,
                pending_active: counts.active as i64,
                pending_inadmissible: counts.inadmissible as i64,
                reserving: local.map_or(0, |l| l.reserving as i64),
                admitted: local.map_or(0, |l| l.admitted as i64),
                active,
                resources,
            });
        }
        self.metric(MetricUpdate::LocalQueueState(states));
    }
}

#[cfg(test)]
mod tests {
    use super::reported;

    #[test]
    fn cpu_in_cores_unlimited_as_inf() {
        assert_eq!(reported("cpu", 1500.into()), 1.5);
        assert_eq!(reported("nvidia.com/gpu", 4.into()), 4.0);
        assert!(reported("memory", crate::scheduler::quantity::UNLIMITED).is_infinite());
    }
}
