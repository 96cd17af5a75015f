//! LocalQueue between v1beta1 and v1beta2: the same spec; `status.flavorUsage` is
//! `status.flavorsUsage` in v1beta2, and v1beta1's deprecated `status.flavors` is dropped going
//! to v1beta2 (and left empty coming back).

use crate::api::v1beta2 as v2;
use crate::api::{self as v1};

/// A v1beta1 LocalQueue as v1beta2.
pub fn to_v1beta2(lq: &v1::LocalQueue) -> v2::LocalQueue {
    let spec = &lq.spec;
    v2::LocalQueue {
        metadata: lq.metadata.clone(),
        spec: v2::LocalQueueSpec {
            cluster_queue: spec.cluster_queue.clone(),
            stop_policy: spec.stop_policy,
            fair_sharing: spec.fair_sharing.clone(),
        },
        status: lq.status.as_ref().map(status_to_v1beta2),
    }
}

/// A v1beta2 LocalQueue as v1beta1.
pub fn to_v1beta1(lq: &v2::LocalQueue) -> v1::LocalQueue {
    let spec = &lq.spec;
    v1::LocalQueue {
        metadata: lq.metadata.clone(),
        spec: v1::LocalQueueSpec {
            cluster_queue: spec.cluster_queue.clone(),
            stop_policy: spec.stop_policy,
            fair_sharing: spec.fair_sharing.clone(),
        },
        status: lq.status.as_ref().map(status_to_v1beta1),
    }
}

pub fn status_to_v1beta2(status: &v1::LocalQueueStatus) -> v2::LocalQueueStatus {
    v2::LocalQueueStatus {
        conditions: status.conditions.clone(),
        pending_workloads: status.pending_workloads,
        reserving_workloads: status.reserving_workloads,
        admitted_workloads: status.admitted_workloads,
        flavors_reservation: status.flavors_reservation.clone(),
        flavors_usage: status.flavor_usage.clone(),
        fair_sharing: status.fair_sharing.clone(),
    }
}

pub fn status_to_v1beta1(status: &v2::LocalQueueStatus) -> v1::LocalQueueStatus {
    v1::LocalQueueStatus {
        conditions: status.conditions.clone(),
        pending_workloads: status.pending_workloads,
        reserving_workloads: status.reserving_workloads,
        admitted_workloads: status.admitted_workloads,
        flavors_reservation: status.flavors_reservation.clone(),
        flavor_usage: status.flavors_usage.clone(),
        flavors: Vec::new(),
        fair_sharing: status.fair_sharing.clone(),
    }
}
