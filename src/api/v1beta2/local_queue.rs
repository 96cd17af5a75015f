//! v1beta2 `LocalQueue`: the same spec as v1beta1; in the status `flavorUsage` is spelled
//! `flavorsUsage` (like the ClusterQueue's) and the deprecated `flavors` list is gone.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::macros::optional_spec;
use crate::api::{FairSharing, FairSharingStatus, LocalQueueFlavorUsage, StopPolicy};

/// Spec of a v1beta2 [`LocalQueue`], field for field v1beta1's [`crate::api::LocalQueueSpec`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta2",
    kind = "LocalQueue",
    plural = "localqueues",
    shortname = "queue",
    shortname = "queues",
    shortname = "lq",
    namespaced,
    status = "LocalQueueStatus",
    schema = "disabled",
    derive = "PartialEq",
    derive = "Default",
    doc = "A namespaced queue that workloads are submitted to; it feeds one ClusterQueue.",
    printcolumn(
        name = "ClusterQueue",
        type_ = "string",
        json_path = ".spec.clusterQueue",
        description = "ClusterQueue behind this queue"
    ),
    printcolumn(
        name = "Pending Workloads",
        type_ = "integer",
        json_path = ".status.pendingWorkloads",
        description = "Workloads waiting for admission"
    ),
    printcolumn(
        name = "Admitted Workloads",
        type_ = "integer",
        json_path = ".status.admittedWorkloads",
        description = "Admitted workloads that have not finished"
    ),
    crates(
        kube_core = "::kube_core",
        k8s_openapi = "::k8s_openapi",
        schemars = "::schemars",
        serde = "::serde",
        serde_json = "::serde_json"
    )
)]
#[serde(rename_all = "camelCase", remote = "Self")]
pub struct LocalQueueSpec {
    /// The ClusterQueue this queue feeds. Cannot be changed once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    #[schemars(extend("x-kubernetes-validations" = [{ "rule": "self == oldSelf", "message": "field is immutable" }]))]
    pub cluster_queue: Option<String>,

    /// Anything but `None` stops new reservations from this queue. Defaults to `None`.
    #[serde(default)]
    pub stop_policy: StopPolicy,

    /// Weight of this queue in admission fair sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
}

optional_spec!(LocalQueueSpec, default);

/// Observed state of a v1beta2 [`LocalQueue`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    /// Latest observations (at most 16); Kueue maintains `Active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::conditions_max16")]
    pub conditions: Vec<Condition>,

    /// Workloads of this queue waiting for admission.
    #[serde(default)]
    pub pending_workloads: i32,

    /// Workloads of this queue holding a quota reservation that have not finished.
    #[serde(default)]
    pub reserving_workloads: i32,

    /// Admitted workloads of this queue that have not finished.
    #[serde(default)]
    pub admitted_workloads: i32,

    /// Quota reserved per flavor by this queue's workloads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors_reservation: Vec<LocalQueueFlavorUsage>,

    /// Quota used per flavor by this queue's admitted workloads (v1beta1's `flavorUsage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors_usage: Vec<LocalQueueFlavorUsage>,

    /// Admission fair sharing state (the same shape as in v1beta1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}
