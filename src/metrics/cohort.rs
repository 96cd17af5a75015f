//! The `kueue_cohort_*` families (label `cohort` first): subtree quota, reservations and
//! admitted workloads, the weighted share under fair sharing, and `kueue_cohort_info`
//! (upstream's `MetricsForCohorts` gate, with `kueue_cluster_queue_info`).
//!
//! Invariants: as [`super::cluster_queue`]'s: upstream's names, help filled in when the text
//! is written; `kueue_cohort_info` is registered only when switched on.

use prometheus_client::registry::Registry;

use super::Options;
use super::cluster_queue::{Counters, register};
use super::series::StateGauge;

/// The `kueue_cohort_*` families.
#[derive(Default)]
pub struct CohortFamilies {
    pub info: StateGauge,
    pub weighted_share: StateGauge,
    pub subtree_quota: StateGauge,
    pub subtree_resource_reservations: StateGauge,
    pub subtree_admitted_active_workloads: StateGauge,
    pub subtree_admitted_workloads: Counters,
}

impl CohortFamilies {
    pub fn register(&self, r: &mut Registry, options: &Options) {
        if options.cohorts {
            register(r, "cohort_info", self.info.family());
        }
        let gauges = [
            ("cohort_weighted_share", &self.weighted_share),
            ("cohort_subtree_quota", &self.subtree_quota),
            (
                "cohort_subtree_resource_reservations",
                &self.subtree_resource_reservations,
            ),
            (
                "cohort_subtree_admitted_active_workloads",
                &self.subtree_admitted_active_workloads,
            ),
        ];
        for (name, g) in gauges {
            register(r, name, g.family());
        }
        register(
            r,
            "cohort_subtree_admitted_workloads",
            self.subtree_admitted_workloads.family(),
        );
    }
}
