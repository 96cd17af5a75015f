//! v1beta2 `Cohort`: the same spec as v1beta1; the status's fair sharing has no
//! `admissionFairSharingStatus`.

use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fair_sharing::FairSharingStatus;
use crate::api::macros::optional_spec;
use crate::api::{FairSharing, ResourceGroup};

/// Spec of a v1beta2 [`Cohort`], field for field v1beta1's [`crate::api::CohortSpec`].
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta2",
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
    /// Parent cohort. Unset: this cohort is a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub parent_name: Option<String>,

    /// Quota of the cohort itself (at most 16 groups).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub resource_groups: Vec<ResourceGroup>,

    /// Weight of this cohort in fair sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
}

optional_spec!(CohortSpec, default);

/// Observed state of a v1beta2 [`Cohort`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CohortStatus {
    /// Fair sharing state, when fair sharing is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}
