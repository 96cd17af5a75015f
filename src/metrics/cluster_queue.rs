//! The families not tied to a LocalQueue or a cohort: the scheduler's health
//! (`kueue_admission_attempts_total`, ..., `kueue_workload_creation_latency_seconds`,
//! `kueue_build_info`) and every per-ClusterQueue family, with upstream's names and buckets.
//!
//! Invariants: each family is registered under its upstream name without the `kueue_`
//! prefix (the registry's) and, for counters, without `_total` (the encoder's); help texts
//! come from [`super::help`] when the text is written. Families upstream gates are
//! registered only when switched on ([`super::Options`]). Every counter and histogram
//! labelled with a queue or cohort is [`Tracked`], so its series can go with the queue.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Metric, Registry};

use super::Options;
use super::buckets::Buckets;
use super::series::{GaugeF, Labels, StateGauge, Tracked};

/// A counter family labelled with a queue or cohort.
pub type Counters = Tracked<Counter>;
/// A histogram family labelled with a queue or cohort.
pub type Histograms = Tracked<Histogram, Buckets>;
/// A histogram family of the scheduler's health (no queue label).
pub type HealthHistograms = Family<Labels, Histogram, Buckets>;

/// A histogram family built with `buckets`.
pub fn histograms(buckets: Buckets) -> Histograms {
    Tracked::new(Family::new_with_constructor(buckets))
}

/// Registers `metric` as `name`; its help is filled in when the text is written.
pub fn register(r: &mut Registry, name: &str, metric: impl Metric) {
    r.register(name, "", metric);
}

/// Scheduler health and per-ClusterQueue families.
pub struct ClusterQueueFamilies {
    pub build_info: Family<Labels, GaugeF>,
    pub admission_attempts: Family<Labels, Counter>,
    pub admission_attempt_duration: HealthHistograms,
    pub workload_creation_latency: HealthHistograms,
    pub preemption_skips: StateGauge,
    pub pending_workloads: StateGauge,
    pub finished_workloads: StateGauge,
    pub reserving_active_workloads: StateGauge,
    pub admitted_active_workloads: StateGauge,
    pub status: StateGauge,
    pub info: StateGauge,
    pub quota_reserved_workloads: Counters,
    pub quota_reserved_wait_time: Histograms,
    pub admitted_workloads: Counters,
    pub admission_wait_time: Histograms,
    pub admission_checks_wait_time: Histograms,
    pub ready_wait_time: Histograms,
    pub admitted_until_ready_wait_time: Histograms,
    pub evicted_workloads: Counters,
    pub evicted_workloads_once: Counters,
    pub pods_ready_to_evicted_time: Histograms,
    pub eviction_latency: Histograms,
    pub preempted_workloads: Counters,
    pub finished_workloads_total: Counters,
    pub nominal_quota: StateGauge,
    pub borrowing_limit: StateGauge,
    pub lending_limit: StateGauge,
    pub resource_reservation: StateGauge,
    pub resource_usage: StateGauge,
    pub resource_pending: StateGauge,
    pub weighted_share: StateGauge,
}

impl Default for ClusterQueueFamilies {
    fn default() -> ClusterQueueFamilies {
        ClusterQueueFamilies {
            build_info: Family::default(),
            admission_attempts: Family::default(),
            admission_attempt_duration: Family::new_with_constructor(Buckets::GoDefault),
            workload_creation_latency: Family::new_with_constructor(Buckets::Exponential {
                start: 0.01,
                factor: 2.0,
                count: 11,
            }),
            preemption_skips: StateGauge::default(),
            pending_workloads: StateGauge::default(),
            finished_workloads: StateGauge::default(),
            reserving_active_workloads: StateGauge::default(),
            admitted_active_workloads: StateGauge::default(),
            status: StateGauge::default(),
            info: StateGauge::default(),
            quota_reserved_workloads: Tracked::default(),
            quota_reserved_wait_time: histograms(Buckets::Kueue(14)),
            admitted_workloads: Tracked::default(),
            admission_wait_time: histograms(Buckets::Kueue(16)),
            admission_checks_wait_time: histograms(Buckets::Kueue(14)),
            ready_wait_time: histograms(Buckets::Kueue(14)),
            admitted_until_ready_wait_time: histograms(Buckets::Kueue(14)),
            evicted_workloads: Tracked::default(),
            evicted_workloads_once: Tracked::default(),
            pods_ready_to_evicted_time: histograms(Buckets::Kueue(14)),
            eviction_latency: histograms(Buckets::Kueue(14)),
            preempted_workloads: Tracked::default(),
            finished_workloads_total: Tracked::default(),
            nominal_quota: StateGauge::default(),
            borrowing_limit: StateGauge::default(),
            lending_limit: StateGauge::default(),
            resource_reservation: StateGauge::default(),
            resource_usage: StateGauge::default(),
            resource_pending: StateGauge::default(),
            weighted_share: StateGauge::default(),
        }
    }
}

impl ClusterQueueFamilies {
    pub fn register(&self, r: &mut Registry, options: &Options) {
        register(r, "build_info", self.build_info.clone());
        register(r, "admission_attempts", self.admission_attempts.clone());
        register(
            r,
            "admission_attempt_duration_seconds",
            self.admission_attempt_duration.clone(),
        );
        if options.workload_creation_latency {
            register(
                r,
                "workload_creation_latency_seconds",
                self.workload_creation_latency.clone(),
            );
        }
        let gauges = [
            ("admission_cycle_preemption_skips", &self.preemption_skips),
            ("pending_workloads", &self.pending_workloads),
            ("finished_workloads", &self.finished_workloads),
            (
                "reserving_active_workloads",
                &self.reserving_active_workloads,
            ),
            ("admitted_active_workloads", &self.admitted_active_workloads),
            ("cluster_queue_status", &self.status),
        ];
        for (name, g) in gauges {
            register(r, name, g.family());
        }
        if options.cohorts {
            register(r, "cluster_queue_info", self.info.family());
        }
        let counters = [
            ("quota_reserved_workloads", &self.quota_reserved_workloads),
            ("admitted_workloads", &self.admitted_workloads),
            ("evicted_workloads", &self.evicted_workloads),
            ("evicted_workloads_once", &self.evicted_workloads_once),
            ("preempted_workloads", &self.preempted_workloads),
            ("finished_workloads", &self.finished_workloads_total),
        ];
        for (name, c) in counters {
            register(r, name, c.family());
        }
        let histograms = [
            (
                "quota_reserved_wait_time_seconds",
                &self.quota_reserved_wait_time,
            ),
            ("admission_wait_time_seconds", &self.admission_wait_time),
            (
                "admission_checks_wait_time_seconds",
                &self.admission_checks_wait_time,
            ),
            ("ready_wait_time_seconds", &self.ready_wait_time),
            (
                "admitted_until_ready_wait_time_seconds",
                &self.admitted_until_ready_wait_time,
            ),
            (
                "pods_ready_to_evicted_time_seconds",
                &self.pods_ready_to_evicted_time,
            ),
            ("workload_eviction_latency_seconds", &self.eviction_latency),
        ];
        for (name, h) in histograms {
            register(r, name, h.family());
        }
        if options.cluster_queue_resources {
            let resources = [
                ("cluster_queue_nominal_quota", &self.nominal_quota),
                ("cluster_queue_borrowing_limit", &self.borrowing_limit),
                ("cluster_queue_lending_limit", &self.lending_limit),
                (
                    "cluster_queue_resource_reservation",
                    &self.resource_reservation,
                ),
                ("cluster_queue_resource_usage", &self.resource_usage),
                ("cluster_queue_resource_pending", &self.resource_pending),
                ("cluster_queue_weighted_share", &self.weighted_share),
            ];
            for (name, g) in resources {
                register(r, name, g.family());
            }
        }
    }
}
