//! Queues and cohorts gone: their counters and histograms dropped, as upstream v0.19's
//! `ClearClusterQueueMetrics`, `ClearLocalQueueMetrics` and
//! `ClearCohortAdmittedWorkloadsMetrics` (`pkg/metrics/metrics.go`) drop them when the queue
//! controllers see the deletion.
//!
//! Data in: the name of what went. Data out: every series labelled with it gone from the
//! event families (a later event for the same name starts a series from zero).
//!
//! Invariants: the families and the label each is matched by are upstream's: a
//! ClusterQueue's by `cluster_queue` (the preemption counter by `preempting_cluster_queue`),
//! a LocalQueue's by `name` and `namespace`, a cohort's subtree admission counter by
//! `cohort`. Gauges are not touched here: the next state snapshot leaves the queue out. The
//! scheduler's health families carry no queue label and stay.

use super::series::{Labels, value};
use super::{LocalQueueRef, Metrics};

impl Metrics {
    /// A ClusterQueue deleted.
    pub(super) fn cluster_queue_gone(&self, cluster_queue: &str) {
        let other = |l: &Labels| value(l, "cluster_queue") != cluster_queue;
        let f = &self.cq;
        for c in [
            &f.quota_reserved_workloads,
            &f.admitted_workloads,
            &f.evicted_workloads,
            &f.evicted_workloads_once,
            &f.finished_workloads_total,
        ] {
            c.retain(other);
        }
        for h in [
            &f.quota_reserved_wait_time,
            &f.admission_wait_time,
            &f.admission_checks_wait_time,
            &f.ready_wait_time,
            &f.admitted_until_ready_wait_time,
            &f.pods_ready_to_evicted_time,
            &f.eviction_latency,
        ] {
            h.retain(other);
        }
        f.preempted_workloads
            .retain(|l| value(l, "preempting_cluster_queue") != cluster_queue);
    }

    /// A LocalQueue whose metrics are no longer exposed.
    pub(super) fn local_queue_gone(&self, lq: &LocalQueueRef) {
        let other =
            |l: &Labels| value(l, "name") != lq.name || value(l, "namespace") != lq.namespace;
        let f = &self.lq;
        for c in [
            &f.quota_reserved_workloads,
            &f.admitted_workloads,
            &f.evicted_workloads,
            &f.finished_workloads_total,
        ] {
            c.retain(other);
        }
        for h in [
            &f.quota_reserved_wait_time,
            &f.admission_wait_time,
            &f.admission_checks_wait_time,
            &f.ready_wait_time,
            &f.admitted_until_ready_wait_time,
        ] {
            h.retain(other);
        }
    }

    /// A cohort gone.
    pub(super) fn cohort_gone(&self, cohort: &str) {
        self.cohort
            .subtree_admitted_workloads
            .retain(|l| value(l, "cohort") != cohort);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MetricUpdate, Role};
    use super::*;

    fn lq(name: &str) -> LocalQueueRef {
        LocalQueueRef {
            namespace: "ns".into(),
            name: name.into(),
        }
    }

    /// Every event family that names a queue or cohort gets a series for `cq`, `local` and
    /// `cohort`.
    fn events(m: &Metrics, cq: &str, local: &str, cohort: &str) {
        let q = Some(lq(local));
        for u in [
            MetricUpdate::Admitted {
                cluster_queue: cq.into(),
                priority_class: "p".into(),
                wait_seconds: 1.0,
                local_queue: q.clone(),
                cohorts: vec![cohort.into()],
            },
            MetricUpdate::Evicted {
                cluster_queue: cq.into(),
                reason: "Preempted".into(),
                underlying_cause: String::new(),
                priority_class: "p".into(),
                first: true,
                local_queue: q.clone(),
                pods_ready_seconds: Some(1.0),
            },
            MetricUpdate::Preempted {
                preempting_cluster_queue: cq.into(),
                reason: "InClusterQueue".into(),
            },
            MetricUpdate::Finished {
                cluster_queue: cq.into(),
                priority_class: "p".into(),
                local_queue: q.clone(),
            },
            MetricUpdate::PodsReady {
                cluster_queue: cq.into(),
                priority_class: "p".into(),
                queued_seconds: 1.0,
                admitted_seconds: 1.0,
                local_queue: q,
            },
            MetricUpdate::EvictionReleased {
                cluster_queue: cq.into(),
                reason: "Preempted".into(),
                seconds: 1.0,
            },
        ] {
            m.record(&u);
        }
    }

    /// The series lines (not `# HELP`/`# TYPE`) of `text` containing `needle`.
    fn series_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|l| !l.starts_with('#') && l.contains(needle))
            .collect()
    }

    #[test]
    fn the_event_series_of_a_queue_or_cohort_gone_go_and_the_others_stay() {
        let m = Metrics::new(Role::Standalone, false, true);
        events(&m, "gone-cq", "gone-lq", "gone-cohort");
        events(&m, "cq", "lq", "cohort");
        m.record(&MetricUpdate::AdmissionAttempt {
            admitted: true,
            seconds: 0.1,
        });
        let before = m.encode();
        // Six counters and seven histograms (a line per bucket) have it.
        assert!(series_with(&before, r#""gone-cq""#).len() > 12, "{before}");
        m.record(&MetricUpdate::ClusterQueueGone {
            cluster_queue: "gone-cq".into(),
        });
        m.record(&MetricUpdate::LocalQueueGone(lq("gone-lq")));
        m.record(&MetricUpdate::CohortGone {
            cohort: "gone-cohort".into(),
        });
        let after = m.encode();
        for gone in [r#""gone-cq""#, r#""gone-lq""#, r#""gone-cohort""#] {
            assert_eq!(series_with(&after, gone), Vec::<&str>::new(), "{gone}");
        }
        // The others, and the scheduler's health, are as they were.
        for stays in [
            r#""cq""#,
            r#"name="lq""#,
            r#""cohort""#,
            "admission_attempt",
        ] {
            assert_eq!(
                series_with(&after, stays),
                series_with(&before, stays),
                "{stays}"
            );
        }
        // Recorded again: from zero.
        events(&m, "gone-cq", "gone-lq", "gone-cohort");
        let text = m.encode();
        for line in [
            r#"kueue_admitted_workloads_total{cluster_queue="gone-cq",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_preempted_workloads_total{preempting_cluster_queue="gone-cq",reason="InClusterQueue",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_finished_workloads_total{name="gone-lq",namespace="ns",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_cohort_subtree_admitted_workloads_total{cohort="gone-cohort",priority_class="p",replica_role="standalone"} 1"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }

    #[test]
    fn a_local_queue_is_matched_by_name_and_namespace() {
        let m = Metrics::new(Role::Standalone, false, true);
        events(&m, "cq", "a", "c");
        m.record(&MetricUpdate::LocalQueueGone(LocalQueueRef {
            namespace: "elsewhere".into(),
            name: "a".into(),
        }));
        assert!(!series_with(&m.encode(), r#"name="a""#).is_empty());
        m.record(&MetricUpdate::LocalQueueGone(lq("a")));
        assert!(series_with(&m.encode(), r#"name="a""#).is_empty());
    }
}
