//! Cohort between v1beta1 and v1beta2: the same spec; only
//! `status.fairSharing.admissionFairSharingStatus` is lost going to v1beta2.

use super::cluster_queue::{fair_sharing_to_v1beta1, fair_sharing_to_v1beta2};
use crate::api::v1beta2 as v2;
use crate::api::{self as v1};

/// A v1beta1 Cohort as v1beta2.
pub fn to_v1beta2(cohort: &v1::Cohort) -> v2::Cohort {
    let spec = &cohort.spec;
    v2::Cohort {
        metadata: cohort.metadata.clone(),
        spec: v2::CohortSpec {
            parent_name: spec.parent_name.clone(),
            resource_groups: spec.resource_groups.clone(),
            fair_sharing: spec.fair_sharing.clone(),
        },
        status: cohort.status.as_ref().map(|s| v2::CohortStatus {
            fair_sharing: s.fair_sharing.as_ref().map(fair_sharing_to_v1beta2),
        }),
    }
}

/// A v1beta2 Cohort as v1beta1.
pub fn to_v1beta1(cohort: &v2::Cohort) -> v1::Cohort {
    let spec = &cohort.spec;
    v1::Cohort {
        metadata: cohort.metadata.clone(),
        spec: v1::CohortSpec {
            parent_name: spec.parent_name.clone(),
            resource_groups: spec.resource_groups.clone(),
            fair_sharing: spec.fair_sharing.clone(),
        },
        status: cohort.status.as_ref().map(|s| v1::CohortStatus {
            fair_sharing: s.fair_sharing.as_ref().map(fair_sharing_to_v1beta1),
        }),
    }
}
