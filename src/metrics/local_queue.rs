//! The `kueue_local_queue_*` families (labels `name` and `namespace` first), registered only
//! when LocalQueue metrics are on (upstream's `LocalQueueMetrics` gate and
//! `metrics.localQueueMetrics.enable`).
//!
//! Invariants: as [`super::cluster_queue`]'s: upstream's names and buckets, help filled in
//! when the text is written.

use prometheus_client::registry::Registry;

use super::buckets::Buckets;
use super::cluster_queue::{Counters, Histograms, histograms, register};
use super::series::{StateGauge, Tracked};

/// The `kueue_local_queue_*` families.
pub struct LocalQueueFamilies {
    pub pending_workloads: StateGauge,
    pub finished_workloads: StateGauge,
    pub reserving_active_workloads: StateGauge,
    pub admitted_active_workloads: StateGauge,
    pub status: StateGauge,
    pub resource_reservation: StateGauge,
    pub resource_usage: StateGauge,
    pub quota_reserved_workloads: Counters,
    pub quota_reserved_wait_time: Histograms,
    pub admitted_workloads: Counters,
    pub admission_wait_time: Histograms,
    pub admission_checks_wait_time: Histograms,
    pub ready_wait_time: Histograms,
    pub admitted_until_ready_wait_time: Histograms,
    pub evicted_workloads: Counters,
    pub finished_workloads_total: Counters,
}

impl Default for LocalQueueFamilies {
    fn default() -> LocalQueueFamilies {
        LocalQueueFamilies {
            pending_workloads: StateGauge::default(),
            finished_workloads: StateGauge::default(),
            reserving_active_workloads: StateGauge::default(),
            admitted_active_workloads: StateGauge::default(),
            status: StateGauge::default(),
            resource_reservation: StateGauge::default(),
            resource_usage: StateGauge::default(),
            quota_reserved_workloads: Tracked::default(),
            quota_reserved_wait_time: histograms(Buckets::Kueue(14)),
            admitted_workloads: Tracked::default(),
            admission_wait_time: histograms(Buckets::Kueue(14)),
            admission_checks_wait_time: histograms(Buckets::Kueue(14)),
            ready_wait_time: histograms(Buckets::Kueue(14)),
            admitted_until_ready_wait_time: histograms(Buckets::Kueue(14)),
            evicted_workloads: Tracked::default(),
            finished_workloads_total: Tracked::default(),
        }
    }
}

impl LocalQueueFamilies {
    pub fn register(&self, r: &mut Registry) {
        let gauges = [
            ("local_queue_pending_workloads", &self.pending_workloads),
            ("local_queue_finished_workloads", &self.finished_workloads),
            (
                "local_queue_reserving_active_workloads",
                &self.reserving_active_workloads,
            ),
            (
                "local_queue_admitted_active_workloads",
                &self.admitted_active_workloads,
            ),
            ("local_queue_status", &self.status),
            (
                "local_queue_resource_reservation",
                &self.resource_reservation,
            ),
            ("local_queue_resource_usage", &self.resource_usage),
        ];
        for (name, g) in gauges {
            register(r, name, g.family());
        }
        let counters = [
            (
                "local_queue_quota_reserved_workloads",
                &self.quota_reserved_workloads,
            ),
            ("local_queue_admitted_workloads", &self.admitted_workloads),
            ("local_queue_evicted_workloads", &self.evicted_workloads),
            (
                "local_queue_finished_workloads",
                &self.finished_workloads_total,
            ),
        ];
        for (name, c) in counters {
            register(r, name, c.family());
        }
        let histograms = [
            (
                "local_queue_quota_reserved_wait_time_seconds",
                &self.quota_reserved_wait_time,
            ),
            (
                "local_queue_admission_wait_time_seconds",
                &self.admission_wait_time,
            ),
            (
                "local_queue_admission_checks_wait_time_seconds",
                &self.admission_checks_wait_time,
            ),
            ("local_queue_ready_wait_time_seconds", &self.ready_wait_time),
            (
                "local_queue_admitted_until_ready_wait_time_seconds",
                &self.admitted_until_ready_wait_time,
            ),
        ];
        for (name, h) in histograms {
            register(r, name, h.family());
        }
    }
}
