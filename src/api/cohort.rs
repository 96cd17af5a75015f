//! `Cohort`: a node of the cohort tree that ClusterQueues borrow through, with optional quota
//! of its own and limits on what its subtree borrows from or lends to its parent.

use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fair_sharing::{FairSharing, FairSharingStatus};
use super::macros::optional_spec;
use super::quota::ResourceGroup;

/// Spec of a [`Cohort`].
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta1",
    kind = "Cohort",
    plural = "cohorts",
    shortname = "co",
    status = "CohortStatus",
    schema = "disabled",
    derive = "PartialEq",
    derive = "Default",
    doc = "A node of the cohort tree through which ClusterQueues share unused quota.",
    crates(
        kube_core = "::kube_core",
        k8s_openapi = "::k8s_openapi",
        schemars = "::schemars",
        serde = "::serde",
        serde_json = "::serde_json"
    )
)]
#[serde(rename_all = "camelCase", remote = "Self")]
pub struct CohortSpec {
    /// Parent cohort. Unset: this cohort is a root. A parent that does not exist acts as an
    /// empty cohort without limits. A cycle disables every ClusterQueue in it until removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub parent_name: Option<String>,

    /// Quota of the cohort itself (at most 16 groups): its `nominalQuota` is a pool on top of
    /// its members' quotas; `borrowingLimit` and `lendingLimit` bound what the subtree takes
    /// from and gives to the parent, and need a parent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub resource_groups: Vec<ResourceGroup>,

    /// Weight of this cohort in fair sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
}

optional_spec!(CohortSpec, default);

impl CohortSpec {
    /// The parent cohort, if any: an empty name means none.
    pub fn parent(&self) -> Option<&str> {
        self.parent_name.as_deref().filter(|name| !name.is_empty())
    }
}

/// Observed state of a [`Cohort`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CohortStatus {
    /// Fair sharing state, when fair sharing is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}
