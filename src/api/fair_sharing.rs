//! Fair sharing settings and status shared by ClusterQueue, Cohort and LocalQueue, and the
//! admission fair sharing scope of a ClusterQueue.

use k8s_openapi::apimachinery::pkg::{api::resource::Quantity, apis::meta::v1::Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ResourceList;
use super::macros::default_from_empty_map;

/// How a ClusterQueue, Cohort or LocalQueue takes part in fair sharing. Only used when fair
/// sharing (or admission fair sharing, for a LocalQueue) is enabled in the Configuration.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FairSharing {
    /// Relative advantage when competing for unused quota: the share (dominant resource usage
    /// above nominal quota) is divided by this weight. Zero means an infinite share whenever it
    /// borrows; otherwise it must be above 1e-9. Defaults to 1.
    #[serde(default = "weight_one")]
    pub weight: Quantity,
}

default_from_empty_map!(FairSharing);

fn weight_one() -> Quantity {
    Quantity("1".into())
}

/// Fair sharing state reported in a status.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FairSharingStatus {
    /// The largest ratio, over the resources, of usage above nominal quota to what the cohort
    /// can lend, divided by the weight and rounded up; 0 when within nominal quota, and
    /// `i64::MAX` for a zero weight that borrows.
    pub weighted_share: i64,

    /// Admission fair sharing state, when that feature is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_fair_sharing_status: Option<AdmissionFairSharingStatus>,
}

/// Decayed resource consumption used by admission fair sharing.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionFairSharingStatus {
    /// Usage aggregated over time with a decay applied.
    pub consumed_resources: ResourceList,

    /// When `consumedResources` was last updated.
    pub last_update: Time,
}

/// Whether a ClusterQueue orders its workloads with admission fair sharing.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionScope {
    /// The admission fair sharing mode.
    pub admission_mode: AdmissionMode,
}

/// Values of `admissionScope.admissionMode`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum AdmissionMode {
    /// Order by LocalQueue usage, then by the ClusterQueue's queueing strategy.
    UsageBasedAdmissionFairSharing,
    /// Admission fair sharing is off for this ClusterQueue.
    NoAdmissionFairSharing,
}
