//! v1beta2's fair sharing status of a ClusterQueue or Cohort: the weighted share alone
//! (v1beta1's never-used `admissionFairSharingStatus` is gone there; a LocalQueue keeps it).
//! The spec side, `fairSharing.weight`, is v1beta1's [`crate::api::FairSharing`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Fair sharing state reported in a ClusterQueue's or Cohort's status.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FairSharingStatus {
    /// The largest ratio, over the resources, of usage above nominal quota to what the cohort
    /// can lend, divided by the weight; 0 within nominal quota, `i64::MAX` for a zero weight
    /// that borrows.
    pub weighted_share: i64,
}
