//! The gauges of `/metrics` as state snapshots: every ClusterQueue, every exposed LocalQueue
//! and every cohort, from the engine's figures, each time queue status is recomputed
//! ([`super::queues`]).
//!
//! Data in: the engine, the cached LocalQueues, the turn's [`QueueFigures`]. Data out: one
//! [`MetricUpdate::QueueState`], [`MetricUpdate::LocalQueueState`] (with LocalQueue metrics
//! on) and [`MetricUpdate::CohortState`] per round, amounts in reporting units.
//!
//! Invariants: what upstream leaves out is left out here too: the finished-workloads gauges
//! and the cohorts' admitted-active gauge until upstream would have created them
//! (`lifetimes`); a cohort's subtree quota and reservations are reported only where
//! positive; weighted shares only with fair sharing (a ClusterQueue's +Inf reported as NaN,
//! as upstream does), a cohort's only when a Cohort object defines it; cohorts whose
//! ancestry loops have no gauges.

use std::collections::BTreeMap;

use crate::manifests::key::DEFAULT_NAMESPACE;
use crate::metrics::{
    CohortState, Hierarchy, LocalQueueRef, LocalQueueState, MetricUpdate, QueueState, ResourceState,
};
use crate::scheduler::decision::InactiveReason;
use crate::scheduler::quantity::{Amount, UNLIMITED, is_milli_resource};
use crate::status::{QueueFigures, local_queue_with_figures};

use super::Ctx;

/// An amount in reporting units: CPU in cores, others in base units, unlimited as +Inf.
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

/// (flavor, resource, amount) in reporting units, where positive.
fn positive(amounts: &[(String, String, Amount)]) -> Vec<(String, String, f64)> {
    amounts
        .iter()
        .filter(|(_, _, v)| *v > 0)
        .map(|(f, r, v)| (f.clone(), r.clone(), reported(r, *v)))
        .collect()
}

impl Ctx<'_> {
    pub(super) fn update_gauges(&mut self, figures: &QueueFigures) {
        let finished = self.m.engine.finished_per_local_queue();
        // Per ClusterQueue, the finished workloads of the LocalQueues pointing at it.
        let mut finished_per_cq: BTreeMap<String, i64> = BTreeMap::new();
        for lq in self.cache.local_queues() {
            let Some(cq) = lq.spec.cluster_queue.clone() else {
                continue;
            };
            let key = (
                lq.metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string()),
                lq.metadata.name.clone().unwrap_or_default(),
            );
            *finished_per_cq.entry(cq).or_default() +=
                finished.get(&key).copied().unwrap_or(0) as i64;
        }
        self.update_queue_gauges(&finished_per_cq);
        self.update_local_queue_gauges(figures, &finished);
        self.update_cohort_gauges();
    }

    fn update_queue_gauges(&mut self, finished: &BTreeMap<String, i64>) {
        let engine = &self.m.engine;
        let lifetimes = &mut self.m.lifetimes;
        let fair_sharing = engine.config().fair_sharing.is_some();
        let pending = engine.pending_counts();
        let pending_requests: BTreeMap<String, BTreeMap<String, Amount>> =
            engine.pending_requests().into_iter().collect();
        let states: Vec<QueueState> = engine
            .cluster_queue_figures()
            .into_iter()
            .map(|v| {
                let counts = pending.iter().find(|p| p.cluster_queue == v.name);
                let h = engine.hierarchy(&v.name).unwrap_or_default();
                if lifetimes.holding_changed(&v.name, v.reserving) {
                    lifetimes.cohorts_touched(engine.cohorts_above(&v.name));
                }
                let pointed_at = finished.get(&v.name);
                QueueState {
                    cohort: v.cohort.clone().unwrap_or_default(),
                    hierarchy: Hierarchy {
                        parent_cohort: h.parent,
                        root_cohort: h.root,
                    },
                    active: v.inactive.is_none(),
                    terminating: v.inactive == Some(InactiveReason::Terminating),
                    pending_active: counts.map_or(0, |c| c.active as i64),
                    pending_inadmissible: counts.map_or(0, |c| c.inadmissible as i64),
                    reserving: v.reserving as i64,
                    admitted: v.admitted as i64,
                    finished: lifetimes.cluster_queue_finished(
                        &v.name,
                        pointed_at.is_some(),
                        pointed_at.copied().unwrap_or(0),
                    ),
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
                    pending_resources: pending_requests
                        .get(&v.name)
                        .into_iter()
                        .flatten()
                        .map(|(r, a)| (r.clone(), reported(r, *a)))
                        .collect(),
                    weighted_share: fair_sharing
                        .then(|| engine.weighted_share(&v.name))
                        .flatten()
                        .map(|(_, share, _)| if share.is_infinite() { f64::NAN } else { share }),
                    cluster_queue: v.name,
                }
            })
            .collect();
        self.metric(MetricUpdate::QueueState(states));
    }

    /// The `kueue_local_queue_*` gauges of every exposed LocalQueue (upstream reports a
    /// LocalQueue's resources for every flavor and resource of its ClusterQueue).
    fn update_local_queue_gauges(
        &mut self,
        figures: &QueueFigures,
        finished: &BTreeMap<(String, String), usize>,
    ) {
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
                            let get = |m: Option<&BTreeMap<_, Amount>>| {
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
            let done = finished.get(&key).copied().unwrap_or(0) as i64;
            let stopped = lq.spec.stop_policy.is_stopped();
            let finished_gauge = if stopped {
                None
            } else {
                self.m.lifetimes.local_queue_finished(&queue, done)
            };
            states.push(LocalQueueState {
                stopped,
                pending_active: counts.active as i64,
                pending_inadmissible: counts.inadmissible as i64,
                reserving: local.map_or(0, |l| l.reserving as i64),
                admitted: local.map_or(0, |l| l.admitted as i64),
                finished: finished_gauge,
                queue,
                active,
                resources,
            });
        }
        self.metric(MetricUpdate::LocalQueueState(states));
    }

    /// The `kueue_cohort_*` gauges of every cohort outside a cycle.
    fn update_cohort_gauges(&mut self) {
        let fair_sharing = self.m.engine.config().fair_sharing.is_some();
        let lifetimes = &self.m.lifetimes;
        let states = self
            .m
            .engine
            .cohort_figures()
            .into_iter()
            .map(|c| CohortState {
                hierarchy: Hierarchy {
                    parent_cohort: c.parent,
                    root_cohort: c.root,
                },
                subtree_quota: positive(&c.subtree_quota),
                subtree_reservations: positive(&c.subtree_reservations),
                admitted_active: lifetimes.cohort_admitted(&c.name, c.admitted as i64),
                weighted_share: (fair_sharing && c.explicit).then_some(c.weighted_share),
                cohort: c.name,
            })
            .collect();
        self.metric(MetricUpdate::CohortState(states));
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
