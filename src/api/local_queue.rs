//! `LocalQueue`: the namespaced queue users submit to, pointing at one ClusterQueue, and the
//! usage it reports in its status.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Taint;
use k8s_openapi::apimachinery::pkg::{api::resource::Quantity, apis::meta::v1::Condition};
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fair_sharing::{FairSharing, FairSharingStatus};
use super::macros::optional_spec;
use super::policies::StopPolicy;

/// Spec of a [`LocalQueue`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta1",
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

impl LocalQueueSpec {
    /// The ClusterQueue this queue feeds, if named.
    pub fn cluster_queue_name(&self) -> Option<&str> {
        self.cluster_queue
            .as_deref()
            .filter(|name| !name.is_empty())
    }
}

/// Observed state of a [`LocalQueue`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    /// Latest observations; Kueue maintains `Active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "crate::api::schema::conditions")]
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

    /// Quota used per flavor by this queue's admitted workloads. (v1beta1 spells it
    /// `flavorUsage`, unlike the ClusterQueue's `flavorsUsage`.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavor_usage: Vec<LocalQueueFlavorUsage>,

    /// Deprecated: the flavors of the ClusterQueue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors: Vec<LocalQueueFlavorStatus>,

    /// Admission fair sharing state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}

/// Quota in use in one flavor, for a LocalQueue.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueFlavorUsage {
    /// Flavor name.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub name: String,

    /// Usage per resource, unique by resource name.
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub resources: Vec<LocalQueueResourceUsage>,
}

/// Usage of one resource in one flavor, for a LocalQueue.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueResourceUsage {
    /// Resource name.
    pub name: String,

    /// Quota in use. Unset reads as zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Quantity>,
}

/// Deprecated description of one flavor of the ClusterQueue behind a LocalQueue.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueFlavorStatus {
    /// Flavor name.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub name: String,

    /// Resources the flavor has quota for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    pub resources: Vec<String>,

    /// The flavor's node labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("maxProperties" = 8, "x-kubernetes-map-type" = "atomic"))]
    pub node_labels: BTreeMap<String, String>,

    /// The flavor's node taints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub node_taints: Vec<Taint>,

    /// The flavor's topology (topology-aware scheduling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologyInfo>,
}

/// A topology name and its levels.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyInfo {
    /// Topology name.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub name: String,

    /// Node label keys of the levels, highest first (1 to 16).
    #[schemars(length(min = 1, max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub levels: Vec<String>,
}
