//! ClusterQueue between v1beta1 and v1beta2.
//!
//! | v1beta1 | v1beta2 | going to v1beta2 | going to v1beta1 |
//! |---|---|---|---|
//! | `spec.cohort` | `spec.cohortName` | renamed | renamed |
//! | `spec.admissionChecks: [a]` | — | replaces `admissionChecksStrategy` with `{admissionChecks: [{name: a}]}` | never filled back |
//! | `whenCanBorrow: Borrow`, `whenCanPreempt: Preempt` | — | become `MayStopSearch` | — |
//! | — | `spec.concurrentAdmissionPolicy` | — | dropped |
//! | `status.pendingWorkloadsStatus` | — | dropped | — |
//! | `status.fairSharing.admissionFairSharingStatus` | — | dropped | — |

use crate::api::v1beta2 as v2;
use crate::api::{
    self as v1, AdmissionCheckStrategyRule, AdmissionChecksStrategy, FairSharingStatus,
    WhenCanBorrow, WhenCanPreempt,
};

/// A v1beta1 ClusterQueue as v1beta2.
pub fn to_v1beta2(cq: &v1::ClusterQueue) -> v2::ClusterQueue {
    v2::ClusterQueue {
        metadata: cq.metadata.clone(),
        spec: spec_to_v1beta2(&cq.spec),
        status: cq.status.as_ref().map(status_to_v1beta2),
    }
}

/// A v1beta2 ClusterQueue as v1beta1.
pub fn to_v1beta1(cq: &v2::ClusterQueue) -> v1::ClusterQueue {
    v1::ClusterQueue {
        metadata: cq.metadata.clone(),
        spec: spec_to_v1beta1(&cq.spec),
        status: cq.status.as_ref().map(status_to_v1beta1),
    }
}

pub fn spec_to_v1beta2(spec: &v1::ClusterQueueSpec) -> v2::ClusterQueueSpec {
    let mut admission_checks_strategy = spec.admission_checks_strategy.clone();
    // Upstream overwrites the strategy with the list form whenever the list is given.
    if !spec.admission_checks.is_empty() {
        admission_checks_strategy = Some(AdmissionChecksStrategy {
            admission_checks: spec
                .admission_checks
                .iter()
                .map(|name| AdmissionCheckStrategyRule {
                    name: name.clone(),
                    on_flavors: Vec::new(),
                })
                .collect(),
        });
    }
    let fungibility = &spec.flavor_fungibility;
    v2::ClusterQueueSpec {
        resource_groups: spec.resource_groups.clone(),
        cohort_name: spec.cohort.clone(),
        queueing_strategy: spec.queueing_strategy,
        namespace_selector: spec.namespace_selector.clone(),
        flavor_fungibility: v2::FlavorFungibility {
            when_can_borrow: match fungibility.when_can_borrow {
                WhenCanBorrow::MayStopSearch | WhenCanBorrow::Borrow => {
                    v2::FlavorFungibilityPolicy::MayStopSearch
                }
                WhenCanBorrow::TryNextFlavor => v2::FlavorFungibilityPolicy::TryNextFlavor,
            },
            when_can_preempt: match fungibility.when_can_preempt {
                WhenCanPreempt::MayStopSearch | WhenCanPreempt::Preempt => {
                    v2::FlavorFungibilityPolicy::MayStopSearch
                }
                WhenCanPreempt::TryNextFlavor => v2::FlavorFungibilityPolicy::TryNextFlavor,
            },
            preference: fungibility.preference,
        },
        preemption: spec.preemption.clone(),
        admission_checks_strategy,
        stop_policy: spec.stop_policy,
        fair_sharing: spec.fair_sharing.clone(),
        admission_scope: spec.admission_scope.clone(),
        concurrent_admission_policy: None,
    }
}

pub fn spec_to_v1beta1(spec: &v2::ClusterQueueSpec) -> v1::ClusterQueueSpec {
    let fungibility = &spec.flavor_fungibility;
    v1::ClusterQueueSpec {
        resource_groups: spec.resource_groups.clone(),
        cohort: spec.cohort_name.clone(),
        queueing_strategy: spec.queueing_strategy,
        namespace_selector: spec.namespace_selector.clone(),
        flavor_fungibility: v1::FlavorFungibility {
            when_can_borrow: match fungibility.when_can_borrow {
                v2::FlavorFungibilityPolicy::MayStopSearch => WhenCanBorrow::MayStopSearch,
                v2::FlavorFungibilityPolicy::TryNextFlavor => WhenCanBorrow::TryNextFlavor,
            },
            when_can_preempt: match fungibility.when_can_preempt {
                v2::FlavorFungibilityPolicy::MayStopSearch => WhenCanPreempt::MayStopSearch,
                v2::FlavorFungibilityPolicy::TryNextFlavor => WhenCanPreempt::TryNextFlavor,
            },
            preference: fungibility.preference,
        },
        preemption: spec.preemption.clone(),
        admission_checks: Vec::new(),
        admission_checks_strategy: spec.admission_checks_strategy.clone(),
        stop_policy: spec.stop_policy,
        fair_sharing: spec.fair_sharing.clone(),
        admission_scope: spec.admission_scope.clone(),
    }
}

pub fn status_to_v1beta2(status: &v1::ClusterQueueStatus) -> v2::ClusterQueueStatus {
    v2::ClusterQueueStatus {
        conditions: status.conditions.clone(),
        flavors_reservation: status.flavors_reservation.clone(),
        flavors_usage: status.flavors_usage.clone(),
        pending_workloads: status.pending_workloads,
        reserving_workloads: status.reserving_workloads,
        admitted_workloads: status.admitted_workloads,
        fair_sharing: status.fair_sharing.as_ref().map(fair_sharing_to_v1beta2),
    }
}

pub fn status_to_v1beta1(status: &v2::ClusterQueueStatus) -> v1::ClusterQueueStatus {
    v1::ClusterQueueStatus {
        conditions: status.conditions.clone(),
        flavors_reservation: status.flavors_reservation.clone(),
        flavors_usage: status.flavors_usage.clone(),
        pending_workloads: status.pending_workloads,
        reserving_workloads: status.reserving_workloads,
        admitted_workloads: status.admitted_workloads,
        pending_workloads_status: None,
        fair_sharing: status.fair_sharing.as_ref().map(fair_sharing_to_v1beta1),
    }
}

/// The fair sharing status of a ClusterQueue or Cohort: only the weighted share carries over.
pub fn fair_sharing_to_v1beta2(status: &FairSharingStatus) -> v2::FairSharingStatus {
    v2::FairSharingStatus {
        weighted_share: status.weighted_share,
    }
}

/// The fair sharing status of a ClusterQueue or Cohort, with no admission fair sharing state.
pub fn fair_sharing_to_v1beta1(status: &v2::FairSharingStatus) -> FairSharingStatus {
    FairSharingStatus {
        weighted_share: status.weighted_share,
        admission_fair_sharing_status: None,
    }
}
