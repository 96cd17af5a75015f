//! State updates: every gauge of a kind replaced from one snapshot of ClusterQueues,
//! LocalQueues or cohorts, so series of queues and cohorts that are gone go with them.
//!
//! Invariants: a family switched off ([`super::Options`]) is never set; the preemption-skip
//! gauge, set by events, loses only the series of ClusterQueues no longer in the snapshot.

use super::series::value;
use super::{CohortState, LocalQueueState, Metrics, QueueState};

impl Metrics {
    /// Replaces every per-ClusterQueue gauge with `queues`.
    pub fn set_queue_state(&self, queues: &[QueueState]) {
        let f = &self.cq;
        let mut pending = Vec::new();
        let mut finished = Vec::new();
        let mut reserving = Vec::new();
        let mut admitted = Vec::new();
        let mut status = Vec::new();
        let mut info = Vec::new();
        for q in queues {
            let cq = q.cluster_queue.as_str();
            let one = |rest: &[(&'static str, &str)]| {
                let mut pairs = vec![("cluster_queue", cq)];
                pairs.extend_from_slice(rest);
                self.with_role(&pairs)
            };
            pending.push((one(&[("status", "active")]), q.pending_active as f64));
            pending.push((
                one(&[("status", "inadmissible")]),
                q.pending_inadmissible as f64,
            ));
            if let Some(n) = q.finished {
                finished.push((one(&[]), n as f64));
            }
            reserving.push((one(&[]), q.reserving as f64));
            admitted.push((one(&[]), q.admitted as f64));
            let now = if q.terminating {
                "terminating"
            } else if q.active {
                "active"
            } else {
                "pending"
            };
            for s in ["pending", "active", "terminating"] {
                status.push((one(&[("status", s)]), if s == now { 1.0 } else { 0.0 }));
            }
            info.push((
                one(&[
                    ("parent_cohort", &q.hierarchy.parent_cohort),
                    ("root_cohort", &q.hierarchy.root_cohort),
                ]),
                1.0,
            ));
        }
        f.pending_workloads.replace(pending);
        f.finished_workloads.replace(finished);
        f.reserving_active_workloads.replace(reserving);
        f.admitted_active_workloads.replace(admitted);
        f.status.replace(status);
        if self.options.cohorts {
            f.info.replace(info);
        }
        let present: std::collections::BTreeSet<&str> =
            queues.iter().map(|q| q.cluster_queue.as_str()).collect();
        f.preemption_skips
            .retain(|l| present.contains(value(l, "cluster_queue")));
        if self.options.cluster_queue_resources {
            self.set_resource_state(queues);
        }
    }

    /// The `metrics.enableClusterQueueResources` gauges.
    fn set_resource_state(&self, queues: &[QueueState]) {
        let f = &self.cq;
        let mut quota = (Vec::new(), Vec::new(), Vec::new());
        let mut reservation = Vec::new();
        let mut usage = Vec::new();
        let mut pending = Vec::new();
        let mut share = Vec::new();
        for q in queues {
            let cq = q.cluster_queue.as_str();
            for r in &q.resources {
                let labels = self.with_role(&[
                    ("cohort", &q.cohort),
                    ("cluster_queue", cq),
                    ("flavor", &r.flavor),
                    ("resource", &r.resource),
                ]);
                quota.0.push((labels.clone(), r.nominal));
                quota.1.push((labels.clone(), r.borrowing_limit));
                quota.2.push((labels.clone(), r.lending_limit));
                reservation.push((labels.clone(), r.reservation));
                usage.push((labels, r.usage));
            }
            for (resource, v) in &q.pending_resources {
                let labels = self.with_role(&[("cluster_queue", cq), ("resource", resource)]);
                pending.push((labels, *v));
            }
            if let Some(v) = q.weighted_share {
                let labels = self.with_role(&[("cluster_queue", cq), ("cohort", &q.cohort)]);
                share.push((labels, v));
            }
        }
        f.nominal_quota.replace(quota.0);
        f.borrowing_limit.replace(quota.1);
        f.lending_limit.replace(quota.2);
        f.resource_reservation.replace(reservation);
        f.resource_usage.replace(usage);
        f.resource_pending.replace(pending);
        f.weighted_share.replace(share);
    }

    /// Replaces every `kueue_local_queue_*` gauge with `queues`. Nothing without LocalQueue
    /// metrics.
    pub fn set_local_queue_state(&self, queues: &[LocalQueueState]) {
        if !self.options.local_queues {
            return;
        }
        let f = &self.lq;
        let mut pending = Vec::new();
        let mut finished = Vec::new();
        let mut reserving = Vec::new();
        let mut admitted = Vec::new();
        let mut status = Vec::new();
        let mut reservation = Vec::new();
        let mut usage = Vec::new();
        for q in queues {
            let lq = &q.queue;
            if !q.stopped {
                for (s, v) in [
                    ("active", q.pending_active),
                    ("inadmissible", q.pending_inadmissible),
                ] {
                    pending.push((self.lq_labels(lq, &[("status", s)]), v as f64));
                }
                if let Some(n) = q.finished {
                    finished.push((self.lq_labels(lq, &[]), n as f64));
                }
            }
            reserving.push((self.lq_labels(lq, &[]), q.reserving as f64));
            admitted.push((self.lq_labels(lq, &[]), q.admitted as f64));
            for s in ["True", "False", "Unknown"] {
                let v = if s == q.active { 1.0 } else { 0.0 };
                status.push((self.lq_labels(lq, &[("active", s)]), v));
            }
            for (flavor, resource, reserved, used) in &q.resources {
                let labels = self.lq_labels(lq, &[("flavor", flavor), ("resource", resource)]);
                reservation.push((labels.clone(), *reserved));
                usage.push((labels, *used));
            }
        }
        f.pending_workloads.replace(pending);
        f.finished_workloads.replace(finished);
        f.reserving_active_workloads.replace(reserving);
        f.admitted_active_workloads.replace(admitted);
        f.status.replace(status);
        f.resource_reservation.replace(reservation);
        f.resource_usage.replace(usage);
    }

    /// Replaces every `kueue_cohort_*` gauge with `cohorts`.
    pub fn set_cohort_state(&self, cohorts: &[CohortState]) {
        let f = &self.cohort;
        let mut info = Vec::new();
        let mut share = Vec::new();
        let mut quota = Vec::new();
        let mut reservations = Vec::new();
        let mut admitted = Vec::new();
        for c in cohorts {
            let name = c.cohort.as_str();
            info.push((
                self.with_role(&[
                    ("cohort", name),
                    ("parent_cohort", &c.hierarchy.parent_cohort),
                    ("root_cohort", &c.hierarchy.root_cohort),
                ]),
                1.0,
            ));
            if let Some(v) = c.weighted_share {
                share.push((self.with_role(&[("cohort", name)]), v));
            }
            let per_resource = |(flavor, resource, v): &(String, String, f64)| {
                let labels =
                    self.with_role(&[("cohort", name), ("flavor", flavor), ("resource", resource)]);
                (labels, *v)
            };
            quota.extend(c.subtree_quota.iter().map(per_resource));
            reservations.extend(c.subtree_reservations.iter().map(per_resource));
            if let Some(n) = c.admitted_active {
                admitted.push((self.with_role(&[("cohort", name)]), n as f64));
            }
        }
        if self.options.cohorts {
            f.info.replace(info);
        }
        f.weighted_share.replace(share);
        f.subtree_quota.replace(quota);
        f.subtree_resource_reservations.replace(reservations);
        f.subtree_admitted_active_workloads.replace(admitted);
    }
}
