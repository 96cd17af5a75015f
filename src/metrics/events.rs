//! Event updates: counters incremented and histograms observed when the thing happens, with
//! each family's LocalQueue and cohort twins recorded alongside, as upstream's reporting
//! functions do.
//!
//! Invariants: a LocalQueue twin is recorded only for a LocalQueue the caller passes (the
//! model named it and LocalQueue metrics are on); nothing here drops a series (`gone` does).

use super::{LocalQueueRef, Metrics};

/// An eviction, as [`super::MetricUpdate::Evicted`] gives it.
pub(super) struct Eviction<'a> {
    pub cluster_queue: &'a str,
    pub reason: &'a str,
    pub underlying_cause: &'a str,
    pub priority_class: &'a str,
    pub first: bool,
    pub pods_ready_seconds: Option<f64>,
}

impl Metrics {
    /// One scheduling cycle: `success` when anything was admitted.
    pub fn admission_attempt(&self, admitted: bool, seconds: f64) {
        let result = if admitted { "success" } else { "inadmissible" };
        let labels = self.with_role(&[("result", result)]);
        self.cq.admission_attempts.get_or_create(&labels).inc();
        self.cq
            .admission_attempt_duration
            .get_or_create(&labels)
            .observe(seconds);
    }

    /// A workload reserved quota and, without admission checks, was admitted at once after
    /// waiting `wait_seconds` since it was queued (the admission-checks wait is 0, as
    /// upstream's scheduler records it then); each cohort above its ClusterQueue counts it.
    pub(super) fn admitted(
        &self,
        cluster_queue: &str,
        priority_class: &str,
        wait_seconds: f64,
        local_queue: Option<&LocalQueueRef>,
        cohorts: &[String],
    ) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("priority_class", priority_class),
        ]);
        let f = &self.cq;
        f.quota_reserved_workloads.get_or_create(&labels).inc();
        f.quota_reserved_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admitted_workloads.get_or_create(&labels).inc();
        f.admission_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admission_checks_wait_time
            .get_or_create(&labels)
            .observe(0.0);
        for cohort in cohorts {
            let labels = self.with_role(&[("cohort", cohort), ("priority_class", priority_class)]);
            self.cohort
                .subtree_admitted_workloads
                .get_or_create(&labels)
                .inc();
        }
        let Some(lq) = local_queue else { return };
        let labels = self.lq_labels(lq, &[("priority_class", priority_class)]);
        let f = &self.lq;
        f.quota_reserved_workloads.get_or_create(&labels).inc();
        f.quota_reserved_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admitted_workloads.get_or_create(&labels).inc();
        f.admission_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admission_checks_wait_time
            .get_or_create(&labels)
            .observe(0.0);
    }

    /// A workload was evicted (reason `Preempted`, ...); the `_once` counter on its first
    /// eviction for this reason, the pods-ready-to-evicted time when its pods were ready.
    pub(super) fn evicted(&self, e: &Eviction, local_queue: Option<&LocalQueueRef>) {
        let labels = self.with_role(&[
            ("cluster_queue", e.cluster_queue),
            ("reason", e.reason),
            ("underlying_cause", e.underlying_cause),
            ("priority_class", e.priority_class),
        ]);
        self.cq.evicted_workloads.get_or_create(&labels).inc();
        if e.first {
            self.cq.evicted_workloads_once.get_or_create(&labels).inc();
        }
        if let Some(seconds) = e.pods_ready_seconds {
            let labels = self.with_role(&[
                ("cluster_queue", e.cluster_queue),
                ("reason", e.reason),
                ("underlying_cause", e.underlying_cause),
            ]);
            self.cq
                .pods_ready_to_evicted_time
                .get_or_create(&labels)
                .observe(seconds);
        }
        if let Some(lq) = local_queue {
            let labels = self.lq_labels(
                lq,
                &[
                    ("reason", e.reason),
                    ("underlying_cause", e.underlying_cause),
                    ("priority_class", e.priority_class),
                ],
            );
            self.lq.evicted_workloads.get_or_create(&labels).inc();
        }
    }

    pub(super) fn preempted(&self, preempting_cluster_queue: &str, reason: &str) {
        let labels = self.with_role(&[
            ("preempting_cluster_queue", preempting_cluster_queue),
            ("reason", reason),
        ]);
        self.cq.preempted_workloads.get_or_create(&labels).inc();
    }

    pub(super) fn finished(
        &self,
        cluster_queue: &str,
        priority_class: &str,
        local_queue: Option<&LocalQueueRef>,
    ) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("priority_class", priority_class),
        ]);
        self.cq
            .finished_workloads_total
            .get_or_create(&labels)
            .inc();
        if let Some(lq) = local_queue {
            let labels = self.lq_labels(lq, &[("priority_class", priority_class)]);
            self.lq
                .finished_workloads_total
                .get_or_create(&labels)
                .inc();
        }
    }

    /// One cycle's skipped preemptions: each ClusterQueue named is set to its count (the
    /// others keep theirs, as upstream sets only the ClusterQueues that had skips).
    pub(super) fn preemption_skips(&self, skips: &[(String, u32)]) {
        for (cq, n) in skips {
            self.cq
                .preemption_skips
                .set(self.with_role(&[("cluster_queue", cq)]), f64::from(*n));
        }
    }

    /// Pods ready for the first time: (since queued, since admitted), in seconds.
    pub(super) fn pods_ready(
        &self,
        cluster_queue: &str,
        priority_class: &str,
        (queued, admitted): (f64, f64),
        local_queue: Option<&LocalQueueRef>,
    ) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("priority_class", priority_class),
        ]);
        self.cq
            .ready_wait_time
            .get_or_create(&labels)
            .observe(queued);
        self.cq
            .admitted_until_ready_wait_time
            .get_or_create(&labels)
            .observe(admitted);
        if let Some(lq) = local_queue {
            let labels = self.lq_labels(lq, &[("priority_class", priority_class)]);
            self.lq
                .ready_wait_time
                .get_or_create(&labels)
                .observe(queued);
            self.lq
                .admitted_until_ready_wait_time
                .get_or_create(&labels)
                .observe(admitted);
        }
    }

    /// An evicted workload back to pending, `seconds` after its eviction (never negative:
    /// the eviction time comes from the API server's clock, as upstream clamps it).
    pub(super) fn eviction_released(&self, cluster_queue: &str, reason: &str, seconds: f64) {
        let labels = self.with_role(&[("cluster_queue", cluster_queue), ("reason", reason)]);
        self.cq
            .eviction_latency
            .get_or_create(&labels)
            .observe(seconds.max(0.0));
    }

    /// A Workload created for a Job, `seconds` after the Job (when the latency is reported).
    pub(super) fn workload_created(&self, job_kind: &str, seconds: f64) {
        if !self.options.workload_creation_latency {
            return;
        }
        let labels = self.with_role(&[("job_kind", job_kind)]);
        self.cq
            .workload_creation_latency
            .get_or_create(&labels)
            .observe(seconds);
    }
}
