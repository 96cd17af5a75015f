//! Status of a v1beta2 `Workload`: v1beta1's, with the typo of
//! `accumulatedPastExexcutionTimeSeconds` fixed, the topology assignment re-encoded as
//! slices, `preemptionGates` new, and an admission whose fields are no longer required.
//! Condition types and reasons are the same strings in both versions
//! ([`crate::api::workload_status::condition`]).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::{
    AdmissionCheckState, DelayedTopologyRequestState, PodSetRequest, ReclaimablePod, RequeueState,
    ResourceList, SchedulingStats, UnhealthyNode,
};

/// Observed state of a v1beta2 [`super::Workload`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [
    {
        "rule": "!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName",
        "message": "clusterName is immutable once set",
    },
    {
        "rule": "!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0))",
        "message": "clusterName and nominatedClusterNames are mutually exclusive",
    },
]))]
pub struct WorkloadStatus {
    /// Latest observations (at most 16): `QuotaReserved`, `Admitted`, `Evicted`...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::conditions_max16")]
    pub conditions: Vec<Condition>,

    /// Where the workload reserved quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,

    /// Backoff state after an eviction that requeues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeue_state: Option<RequeueState>,

    /// Per pod set, pods whose quota is no longer needed (at most 18, unique by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub reclaimable_pods: Vec<ReclaimablePod>,

    /// State of the admission checks the workload needs (at most 8, unique by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub admission_checks: Vec<AdmissionCheckState>,

    /// What each pod set asked for when last considered, while not admitted (at most 18).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub resource_requests: Vec<PodSetRequest>,

    /// Seconds spent admitted in earlier admit-evict cycles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accumulated_past_execution_time_seconds: Option<i32>,

    /// Eviction counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_stats: Option<SchedulingStats>,

    /// MultiKueue: clusters nominated for the workload (at most 20).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 20))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub nominated_cluster_names: Vec<String>,

    /// MultiKueue: the cluster the workload is assigned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    pub cluster_name: Option<String>,

    /// Topology-aware scheduling: failed nodes that ran pods of this workload (at most 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub unhealthy_nodes: Vec<UnhealthyNode>,

    /// Where each of the spec's preemption gates stands (at most 8, unique by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub preemption_gates: Vec<PreemptionGateState>,
}

/// Where and how a workload reserved quota. Unlike v1beta1, neither field is required.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    /// The ClusterQueue that reserved the quota.
    #[serde(default)]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub cluster_queue: String,

    /// One assignment per pod set of the spec (at most 18, unique by name).
    #[serde(default)]
    #[schemars(length(max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

/// The quota given to one pod set.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSetAssignment {
    /// Name of the pod set in `spec.podSets`. Defaults to `main`.
    #[serde(default = "main_pod_set")]
    #[schemars(schema_with = "crate::api::schema::pod_set_name_default_main")]
    pub name: String,

    /// Flavor assigned to each resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "crate::api::schema::flavor_by_resource")]
    pub flavors: BTreeMap<String, String>,

    /// Total of all the pod set's pods, as counted at admission.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_usage: ResourceList,

    /// Pods counted at admission. Unset means the spec's `count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub count: Option<i32>,

    /// Topology-aware scheduling: pods per topology domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_assignment: Option<TopologyAssignment>,

    /// Topology-aware scheduling: the assignment is delayed until an admission check is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_topology_request: Option<DelayedTopologyRequestState>,
}

fn main_pod_set() -> String {
    "main".into()
}

/// Pods per topology domain at the lowest level, as slices of domains whose label values
/// and pod counts are written compactly. The domain sequence is the slices concatenated.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "self.slices.all(x, size(x.valuesPerLevel) == size(self.levels))",
    "message": "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment",
}]))]
pub struct TopologyAssignment {
    /// Node label keys of the levels, highest first (1 to 16).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1, max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub levels: Vec<String>,

    /// The domains, in slices (at most 1000).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 1000))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub slices: Vec<TopologyAssignmentSlice>,
}

/// A run of `domainCount` domains.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [
    {
        "rule": "!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount",
        "message": "podCounts.individual must have length equal to domainCount",
    },
    {
        "rule": "self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount)",
        "message": "valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this TopologyAssignmentSlice",
    },
]))]
pub struct TopologyAssignmentSlice {
    /// Number of domains in the slice (at least 1).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub domain_count: i32,

    /// The domains' label values, one entry per level.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1, max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub values_per_level: Vec<TopologyAssignmentSliceLevelValues>,

    /// The domains' pod counts.
    #[serde(default)]
    pub pod_counts: TopologyAssignmentSlicePodCounts,
}

/// The values of one level for every domain of a slice: one value for all, or one each.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "has(self.universal) != has(self.individual)",
    "message": "exactly one of the fields in [universal individual] must be set",
}]))]
pub struct TopologyAssignmentSliceLevelValues {
    /// The value every domain of the slice has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub universal: Option<String>,

    /// One value per domain, as `prefix + root + suffix`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub individual: Option<TopologyAssignmentSliceLevelIndividualValues>,
}

/// Per-domain values sharing a prefix and a suffix.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyAssignmentSliceLevelIndividualValues {
    /// Common start of the values; unset or non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub prefix: Option<String>,

    /// Common end of the values; unset or non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub suffix: Option<String>,

    /// What is between, one per domain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1, max = 100000))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub roots: Vec<String>,
}

/// The pod counts of a slice's domains: one count for all, or one each.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyAssignmentSlicePodCounts {
    /// The count every domain of the slice has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub universal: Option<i32>,

    /// One count per domain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1, max = 100000))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub individual: Vec<i32>,
}

/// Where one preemption gate stands.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionGateState {
    /// Gate name (1 to 63 characters).
    #[schemars(length(min = 1, max = 63))]
    pub name: String,

    /// `Open` lets the workload preempt; `Closed` (or no entry) does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PreemptionGatePosition>,

    /// When `position` last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
}

/// Values of `preemptionGates[].position`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum PreemptionGatePosition {
    /// The gate blocks preemption.
    Closed,
    /// The gate lets preemption through.
    Open,
}
