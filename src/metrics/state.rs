//! State updates: every gauge of a kind replaced from one snapshot of ClusterQueues,
//! LocalQueues or cohorts, so series of queues and cohorts that are gone go with them. The
//! series of an item whose state is as in the last snapshot are left as they are
//! ([`super::snapshots`]).
//!
//! Invariants: a family switched off ([`super::Options`]) is never set; the preemption-skip
//! gauge, set by events, loses only the series of ClusterQueues no longer in the snapshot.

use super::series::value;
use super::snapshots::ItemSeries;
use super::{CohortState, LocalQueueState, Metrics, QueueState};

impl Metrics {
    /// Replaces every per-ClusterQueue gauge with `queues`.
    pub fn set_queue_state(&self, queues: &[QueueState]) {
        let f = &self.cq;
        let families = [
            &f.pending_workloads,
            &f.finished_workloads,
            &f.reserving_active_workloads,
            &f.admitted_active_workloads,
            &f.status,
            &f.info,
            &f.nominal_quota,
            &f.borrowing_limit,
            &f.lending_limit,
            &f.resource_reservation,
            &f.resource_usage,
            &f.resource_pending,
            &f.weighted_share,
        ];
        let items = queues.iter().map(|q| (q.cluster_queue.as_str(), q));
        self.items
            .cluster_queues
            .apply(&families, self.role(), items, |q| self.queue_series(q));
        let present: std::collections::BTreeSet<&str> =
            queues.iter().map(|q| q.cluster_queue.as_str()).collect();
        f.preemption_skips
            .retain(|l| present.contains(value(l, "cluster_queue")));
    }

    /// One ClusterQueue's series, families indexed as in [`Metrics::set_queue_state`].
    fn queue_series(&self, q: &QueueState) -> ItemSeries {
        let cq = q.cluster_queue.as_str();
        let one = |rest: &[(&'static str, &str)]| {
            let mut pairs = vec![("cluster_queue", cq)];
            pairs.extend_from_slice(rest);
            self.with_role(&pairs)
        };
        let mut series = vec![
            (0, one(&[("status", "active")]), q.pending_active as f64),
            (
                0,
                one(&[("status", "inadmissible")]),
                q.pending_inadmissible as f64,
            ),
        ];
        if let Some(n) = q.finished {
            series.push((1, one(&[]), n as f64));
        }
        series.push((2, one(&[]), q.reserving as f64));
        series.push((3, one(&[]), q.admitted as f64));
        let now = if q.terminating {
            "terminating"
        } else if q.active {
            "active"
        } else {
            "pending"
        };
        for s in ["pending", "active", "terminating"] {
            series.push((4, one(&[("status", s)]), if s == now { 1.0 } else { 0.0 }));
        }
        if self.options.cohorts {
            series.push((
                5,
                one(&[
                    ("parent_cohort", &q.hierarchy.parent_cohort),
                    ("root_cohort", &q.hierarchy.root_cohort),
                ]),
                1.0,
            ));
        }
        if self.options.cluster_queue_resources {
            self.resource_series(q, &mut series);
        }
        series
    }

    /// The `metrics.enableClusterQueueResources` series of one ClusterQueue.
    fn resource_series(&self, q: &QueueState, series: &mut ItemSeries) {
        let cq = q.cluster_queue.as_str();
        for r in &q.resources {
            let labels = self.with_role(&[
                ("cohort", &q.cohort),
                ("cluster_queue", cq),
                ("flavor", &r.flavor),
                ("resource", &r.resource),
            ]);
            series.push((6, labels.clone(), r.nominal));
            series.push((7, labels.clone(), r.borrowing_limit));
            series.push((8, labels.clone(), r.lending_limit));
            series.push((9, labels.clone(), r.reservation));
            series.push((10, labels, r.usage));
        }
        for (resource, v) in &q.pending_resources {
            let labels = self.with_role(&[("cluster_queue", cq), ("resource", resource)]);
            series.push((11, labels, *v));
        }
        if let Some(v) = q.weighted_share {
            let labels = self.with_role(&[("cluster_queue", cq), ("cohort", &q.cohort)]);
            series.push((12, labels, v));
        }
    }

    /// Replaces every `kueue_local_queue_*` gauge with `queues`. Nothing without LocalQueue
    /// metrics.
    pub fn set_local_queue_state(&self, queues: &[LocalQueueState]) {
        if !self.options.local_queues {
            return;
        }
        let f = &self.lq;
        let families = [
            &f.pending_workloads,
            &f.finished_workloads,
            &f.reserving_active_workloads,
            &f.admitted_active_workloads,
            &f.status,
            &f.resource_reservation,
            &f.resource_usage,
        ];
        let keys: Vec<String> = queues
            .iter()
            .map(|q| format!("{}/{}", q.queue.namespace, q.queue.name))
            .collect();
        let items = keys.iter().map(String::as_str).zip(queues);
        self.items
            .local_queues
            .apply(&families, self.role(), items, |q| {
                self.local_queue_series(q)
            });
    }

    /// One LocalQueue's series, families indexed as in [`Metrics::set_local_queue_state`].
    fn local_queue_series(&self, q: &LocalQueueState) -> ItemSeries {
        let lq = &q.queue;
        let mut series = Vec::new();
        if !q.stopped {
            for (s, v) in [
                ("active", q.pending_active),
                ("inadmissible", q.pending_inadmissible),
            ] {
                series.push((0, self.lq_labels(lq, &[("status", s)]), v as f64));
            }
            if let Some(n) = q.finished {
                series.push((1, self.lq_labels(lq, &[]), n as f64));
            }
        }
        series.push((2, self.lq_labels(lq, &[]), q.reserving as f64));
        series.push((3, self.lq_labels(lq, &[]), q.admitted as f64));
        for s in ["True", "False", "Unknown"] {
            let v = if s == q.active { 1.0 } else { 0.0 };
            series.push((4, self.lq_labels(lq, &[("active", s)]), v));
        }
        for (flavor, resource, reserved, used) in &q.resources {
            let labels = self.lq_labels(lq, &[("flavor", flavor), ("resource", resource)]);
            series.push((5, labels.clone(), *reserved));
            series.push((6, labels, *used));
        }
        series
    }

    /// Replaces every `kueue_cohort_*` gauge with `cohorts`.
    pub fn set_cohort_state(&self, cohorts: &[CohortState]) {
        let f = &self.cohort;
        let families = [
            &f.info,
            &f.weighted_share,
            &f.subtree_quota,
            &f.subtree_resource_reservations,
            &f.subtree_admitted_active_workloads,
        ];
        let items = cohorts.iter().map(|c| (c.cohort.as_str(), c));
        self.items
            .cohorts
            .apply(&families, self.role(), items, |c| self.cohort_series(c));
    }

    /// One cohort's series, families indexed as in [`Metrics::set_cohort_state`].
    fn cohort_series(&self, c: &CohortState) -> ItemSeries {
        let name = c.cohort.as_str();
        let mut series = Vec::new();
        if self.options.cohorts {
            series.push((
                0,
                self.with_role(&[
                    ("cohort", name),
                    ("parent_cohort", &c.hierarchy.parent_cohort),
                    ("root_cohort", &c.hierarchy.root_cohort),
                ]),
                1.0,
            ));
        }
        if let Some(v) = c.weighted_share {
            series.push((1, self.with_role(&[("cohort", name)]), v));
        }
        let per_resource = |(flavor, resource, _): &(String, String, f64)| {
            self.with_role(&[("cohort", name), ("flavor", flavor), ("resource", resource)])
        };
        for r in &c.subtree_quota {
            series.push((2, per_resource(r), r.2));
        }
        for r in &c.subtree_reservations {
            series.push((3, per_resource(r), r.2));
        }
        if let Some(n) = c.admitted_active {
            series.push((4, self.with_role(&[("cohort", name)]), n as f64));
        }
        series
    }
}
