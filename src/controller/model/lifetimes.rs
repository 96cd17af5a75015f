//! When the series of a queue or cohort begin and end, as upstream Kueue v0.19's: the
//! counters and histograms of a ClusterQueue, LocalQueue or cohort that is gone are dropped
//! (`MetricUpdate::*Gone`), and three gauges upstream creates only once something happened
//! are left out of the snapshots until then.
//!
//! Data in: what exists in the cluster ([`Present`], read from the cache on each turn after
//! a queue or cohort changed), the event updates the model records, each snapshot's figures.
//! Data out: the `*Gone` updates; per gauge, whether it has a series yet.
//!
//! Invariants, upstream's:
//! - a ClusterQueue is gone when its object is (or was replaced: another UID;
//!   `ClearClusterQueueMetrics` from the queue manager's `DeleteClusterQueue`); a selected
//!   LocalQueue when its object is, when its labels stop matching the LocalQueue metrics
//!   selector, or when it is stopped (`stopPolicy` set: `ClearLocalQueueMetrics`, from the
//!   manager's `DeleteLocalQueue` and the LocalQueue reconciler's `Update`); a cohort when its Cohort object is deleted, even while
//!   ClusterQueues still name it (`Cache.DeleteCohort`), or when nothing names it any more
//!   (an implicit cohort's last child left: `handleParentUpdate`);
//! - `kueue_finished_workloads` appears once a LocalQueue points at the ClusterQueue
//!   (`AddFromLocalQueue`); `kueue_local_queue_finished_workloads` once a finished Workload
//!   names the LocalQueue (`addFinishedWorkloadWithoutLock`), or at once when the LocalQueue
//!   becomes selected (the reconciler's gauge resync);
//!   `kueue_cohort_subtree_admitted_active_workloads` once a Workload takes or gives back
//!   quota in a ClusterQueue below the cohort (`reportActiveWorkloads`). Each then stays, 0
//!   included, until its queue or cohort is gone.

use std::collections::{BTreeMap, BTreeSet};

use crate::manifests::key::DEFAULT_NAMESPACE;
use crate::metrics::{LocalQueueRef, MetricUpdate};
use crate::scheduler::labels::LabelSelector;

use super::{Cache, Ctx};

/// A LocalQueue in the cluster.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalQueuePresence {
    pub uid: String,
    /// LocalQueue metrics are on and its labels match the selector.
    pub selected: bool,
    /// Its `stopPolicy` is set (upstream's queue manager drops it).
    pub stopped: bool,
}

/// The queues and cohorts in the cluster, as far as their series go.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Present {
    /// ClusterQueue name -> UID.
    pub cluster_queues: BTreeMap<String, String>,
    pub local_queues: BTreeMap<LocalQueueRef, LocalQueuePresence>,
    /// Cohort object name -> UID.
    pub cohort_objects: BTreeMap<String, String>,
    /// Every cohort: the Cohort objects and the cohorts ClusterQueues and Cohorts name.
    pub cohorts: BTreeSet<String>,
}

impl Present {
    /// Read from the cache; LocalQueues are exposed when `selector` (LocalQueue metrics on)
    /// matches their labels.
    pub fn of(cache: &dyn Cache, selector: Option<&LabelSelector>) -> Present {
        let mut p = Present::default();
        let uid = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.uid.clone().unwrap_or_default()
        };
        for cq in cache.cluster_queues() {
            let name = cq.metadata.name.clone().unwrap_or_default();
            p.cohorts
                .extend(cq.spec.cohort.clone().filter(|c| !c.is_empty()));
            p.cluster_queues.insert(name, uid(&cq.metadata));
        }
        for c in cache.cohorts() {
            let name = c.metadata.name.clone().unwrap_or_default();
            p.cohorts.insert(name.clone());
            p.cohorts
                .extend(c.spec.parent_name.clone().filter(|c| !c.is_empty()));
            p.cohort_objects.insert(name, uid(&c.metadata));
        }
        for lq in cache.local_queues() {
            let queue = LocalQueueRef {
                namespace: lq
                    .metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string()),
                name: lq.metadata.name.clone().unwrap_or_default(),
            };
            let labels = lq.metadata.labels.clone().unwrap_or_default();
            let presence = LocalQueuePresence {
                uid: uid(&lq.metadata),
                selected: selector.is_some_and(|s| s.matches(&labels)),
                stopped: lq.spec.stop_policy.is_stopped(),
            };
            p.local_queues.insert(queue, presence);
        }
        p
    }
}

/// What the model remembers about series beginnings and ends.
#[derive(Debug, Default)]
pub struct Lifetimes {
    present: Present,
    /// ClusterQueues whose finished gauge appeared.
    cq_finished: BTreeSet<String>,
    /// LocalQueues whose finished gauge appeared.
    lq_finished: BTreeSet<LocalQueueRef>,
    /// Cohorts whose admitted-active gauge appeared.
    cohort_admitted: BTreeSet<String>,
    /// Per ClusterQueue, the Workloads holding quota in it at the last snapshot.
    holding: BTreeMap<String, usize>,
}

impl Lifetimes {
    /// Compares `now` with what existed before: the updates for every queue and cohort gone.
    pub fn update(&mut self, now: Present) -> Vec<MetricUpdate> {
        let mut out = Vec::new();
        let before = std::mem::replace(&mut self.present, now);
        let now = &self.present;
        for (name, uid) in &before.cluster_queues {
            if now.cluster_queues.get(name) != Some(uid) {
                self.cq_finished.remove(name);
                self.holding.remove(name);
                out.push(MetricUpdate::ClusterQueueGone {
                    cluster_queue: name.clone(),
                });
            }
        }
        for (lq, was) in &before.local_queues {
            let Some(is) = now.local_queues.get(lq).filter(|is| is.uid == was.uid) else {
                if was.selected {
                    self.lq_finished.remove(lq);
                    out.push(MetricUpdate::LocalQueueGone(lq.clone()));
                }
                continue;
            };
            if was.selected && (!is.selected || (is.stopped && !was.stopped)) {
                self.lq_finished.remove(lq);
                out.push(MetricUpdate::LocalQueueGone(lq.clone()));
            }
            if !was.selected && is.selected && !is.stopped {
                // Selected by a label change: upstream resyncs its gauges at once.
                self.lq_finished.insert(lq.clone());
            }
        }
        for cohort in &before.cohorts {
            let object_gone = before
                .cohort_objects
                .get(cohort)
                .is_some_and(|uid| now.cohort_objects.get(cohort) != Some(uid));
            if object_gone || !now.cohorts.contains(cohort) {
                self.cohort_admitted.remove(cohort);
                out.push(MetricUpdate::CohortGone {
                    cohort: cohort.clone(),
                });
            }
        }
        out
    }

    /// An event update the model records: an admission makes the admitted-active gauge of
    /// every cohort above its ClusterQueue appear, a finish the finished gauge of its
    /// LocalQueue.
    pub fn saw(&mut self, update: &MetricUpdate) {
        match update {
            MetricUpdate::Admitted { cohorts, .. } => {
                self.cohort_admitted.extend(cohorts.iter().cloned());
            }
            MetricUpdate::Finished {
                local_queue: Some(lq),
                ..
            } => {
                self.lq_finished.insert(lq.clone());
            }
            _ => {}
        }
    }

    /// A ClusterQueue's finished gauge in a snapshot: `finished` once a LocalQueue pointed
    /// at it (`pointed_at` now, or before).
    pub fn cluster_queue_finished(
        &mut self,
        cluster_queue: &str,
        pointed_at: bool,
        finished: i64,
    ) -> Option<i64> {
        if pointed_at && !self.cq_finished.contains(cluster_queue) {
            self.cq_finished.insert(cluster_queue.to_string());
        }
        self.cq_finished.contains(cluster_queue).then_some(finished)
    }

    /// A LocalQueue's finished gauge in a snapshot: `finished` once a finished Workload named
    /// it (any now, or before).
    pub fn local_queue_finished(&mut self, lq: &LocalQueueRef, finished: i64) -> Option<i64> {
        if finished > 0 && !self.lq_finished.contains(lq) {
            self.lq_finished.insert(lq.clone());
        }
        self.lq_finished.contains(lq).then_some(finished)
    }

    /// The Workloads holding quota in a ClusterQueue at this snapshot; true when that
    /// changed since the last one (the cohorts above it then have their admitted-active
    /// gauge: [`Lifetimes::cohorts_touched`]).
    pub fn holding_changed(&mut self, cluster_queue: &str, holding: usize) -> bool {
        let before = self
            .holding
            .insert(cluster_queue.to_string(), holding)
            .unwrap_or(0);
        before != holding
    }

    /// A Workload took or gave back quota below these cohorts.
    pub fn cohorts_touched(&mut self, cohorts: impl IntoIterator<Item = String>) {
        self.cohort_admitted.extend(cohorts);
    }

    /// A cohort's admitted-active gauge in a snapshot: `admitted` once a Workload took or
    /// gave back quota below it.
    pub fn cohort_admitted(&self, cohort: &str, admitted: i64) -> Option<i64> {
        self.cohort_admitted.contains(cohort).then_some(admitted)
    }
}

impl Ctx<'_> {
    /// After a queue or cohort changed: the updates for those gone, and a snapshot due.
    pub(super) fn forget_gone(&mut self) {
        self.m.lifetimes_dirty = false;
        let now = Present::of(self.cache, self.m.settings.local_queue_metrics.as_ref());
        let gone = self.m.lifetimes.update(now);
        if !gone.is_empty() {
            self.m.queues_dirty = true;
        }
        for update in gone {
            self.metric(update);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lq(name: &str) -> LocalQueueRef {
        LocalQueueRef {
            namespace: "ns".into(),
            name: name.into(),
        }
    }

    fn present(cqs: &[(&str, &str)], lqs: &[(&str, bool)], cohorts: &[&str]) -> Present {
        Present {
            cluster_queues: cqs
                .iter()
                .map(|(n, u)| (n.to_string(), u.to_string()))
                .collect(),
            local_queues: lqs
                .iter()
                .map(|(n, selected)| {
                    let p = LocalQueuePresence {
                        selected: *selected,
                        ..Default::default()
                    };
                    (lq(n), p)
                })
                .collect(),
            cohort_objects: BTreeMap::new(),
            cohorts: cohorts.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn queues_deleted_replaced_or_deselected_are_gone() {
        let mut l = Lifetimes::default();
        let first = present(
            &[("a", "1"), ("b", "1")],
            &[("x", true), ("y", true)],
            &["t"],
        );
        assert_eq!(l.update(first), []);
        let now = present(&[("a", "2")], &[("x", true), ("y", false)], &[]);
        assert_eq!(
            l.update(now),
            [
                MetricUpdate::ClusterQueueGone {
                    cluster_queue: "a".into()
                },
                MetricUpdate::ClusterQueueGone {
                    cluster_queue: "b".into()
                },
                MetricUpdate::LocalQueueGone(lq("y")),
                MetricUpdate::CohortGone { cohort: "t".into() },
            ]
        );
    }

    #[test]
    fn a_deleted_cohort_object_is_gone_even_while_named() {
        let mut l = Lifetimes::default();
        let mut with_object = present(&[], &[], &["t"]);
        with_object.cohort_objects.insert("t".into(), "u".into());
        l.update(with_object);
        l.cohorts_touched(["t".to_string()]);
        assert_eq!(l.cohort_admitted("t", 2), Some(2));
        // Still named by a ClusterQueue: implicit now, but its object went.
        assert_eq!(
            l.update(present(&[], &[], &["t"])),
            [MetricUpdate::CohortGone { cohort: "t".into() }]
        );
        assert_eq!(l.cohort_admitted("t", 2), None);
        // Implicit and still named: stays.
        assert_eq!(l.update(present(&[], &[], &["t"])), []);
    }

    #[test]
    fn gauges_appear_once_something_happened_and_stay() {
        let mut l = Lifetimes::default();
        l.update(present(&[("a", "")], &[("x", true)], &[]));
        assert_eq!(l.cluster_queue_finished("a", false, 0), None);
        assert_eq!(l.cluster_queue_finished("a", true, 0), Some(0));
        assert_eq!(l.cluster_queue_finished("a", false, 0), Some(0));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), None);
        assert_eq!(l.local_queue_finished(&lq("x"), 1), Some(1));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), Some(0));
        assert!(l.holding_changed("a", 1));
        assert!(!l.holding_changed("a", 1));
        assert!(l.holding_changed("a", 0));
        // Gone: they start over.
        l.update(present(&[], &[], &[]));
        assert_eq!(l.cluster_queue_finished("a", false, 0), None);
        assert_eq!(l.local_queue_finished(&lq("x"), 0), None);
        assert!(!l.holding_changed("a", 0));
    }

    #[test]
    fn a_local_queue_selected_by_a_label_change_has_its_finished_gauge_at_once() {
        let mut l = Lifetimes::default();
        l.update(present(&[], &[("x", false)], &[]));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), None);
        l.update(present(&[], &[("x", true)], &[]));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), Some(0));
    }

    #[test]
    fn a_local_queue_stopped_is_gone_and_its_gauge_starts_over() {
        let mut l = Lifetimes::default();
        l.update(present(&[], &[("x", true)], &[]));
        assert_eq!(l.local_queue_finished(&lq("x"), 1), Some(1));
        let mut stopped = present(&[], &[("x", true)], &[]);
        stopped.local_queues.get_mut(&lq("x")).unwrap().stopped = true;
        assert_eq!(
            l.update(stopped.clone()),
            [MetricUpdate::LocalQueueGone(lq("x"))]
        );
        // Still stopped, then deleted: gone again (upstream skips a stopped one; clearing
        // what events recorded since is harmless).
        assert_eq!(l.update(stopped), []);
        assert_eq!(
            l.update(present(&[], &[], &[])),
            [MetricUpdate::LocalQueueGone(lq("x"))]
        );
        l.update(present(&[], &[("x", true)], &[]));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), None);
    }

    #[test]
    fn events_make_gauges_appear() {
        let mut l = Lifetimes::default();
        l.saw(&MetricUpdate::Admitted {
            cluster_queue: "a".into(),
            priority_class: String::new(),
            wait_seconds: 0.0,
            local_queue: None,
            cohorts: vec!["t".into(), "org".into()],
        });
        l.saw(&MetricUpdate::Finished {
            cluster_queue: "a".into(),
            priority_class: String::new(),
            local_queue: Some(lq("x")),
        });
        assert_eq!(l.cohort_admitted("org", 0), Some(0));
        assert_eq!(l.local_queue_finished(&lq("x"), 0), Some(0));
    }
}
