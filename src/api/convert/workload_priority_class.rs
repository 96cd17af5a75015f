//! WorkloadPriorityClass between v1beta1 and v1beta2: identical fields (v1beta2 only limits
//! `description` to 2048 characters; no conversion webhook upstream).

use crate::api::v1beta2 as v2;
use crate::api::{self as v1};

/// A v1beta1 WorkloadPriorityClass as v1beta2.
pub fn to_v1beta2(wpc: &v1::WorkloadPriorityClass) -> v2::WorkloadPriorityClass {
    v2::WorkloadPriorityClass {
        metadata: wpc.metadata.clone(),
        value: wpc.value,
        description: wpc.description.clone(),
    }
}

/// A v1beta2 WorkloadPriorityClass as v1beta1.
pub fn to_v1beta1(wpc: &v2::WorkloadPriorityClass) -> v1::WorkloadPriorityClass {
    v1::WorkloadPriorityClass {
        metadata: wpc.metadata.clone(),
        value: wpc.value,
        description: wpc.description.clone(),
    }
}
