//! Status of a `Workload`: its conditions, its admission (the ClusterQueue and the flavor of
//! each resource of each pod set), requeue backoff, and the bookkeeping of admission checks and
//! multi-cluster placement that this product keeps only so objects round-trip. Also the
//! condition types and reasons upstream writes, as constants.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Toleration;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ResourceList;

/// Observed state of a [`super::Workload`].
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
    /// Latest observations: `QuotaReserved`, `Admitted`, `Evicted`, `Preempted`, `Requeued`,
    /// `PodsReady`, `Finished`...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "crate::api::schema::conditions")]
    pub conditions: Vec<Condition>,

    /// Where the workload reserved quota. It may be removed but not edited in place.
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

    /// Seconds spent admitted in earlier admit-evict cycles. (The JSON name keeps v1beta1's
    /// misspelling.)
    #[serde(
        rename = "accumulatedPastExexcutionTimeSeconds",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub accumulated_past_execution_time_seconds: Option<i32>,

    /// Eviction counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_stats: Option<SchedulingStats>,

    /// MultiKueue: clusters nominated for the workload (at most 20). Exclusive with
    /// `clusterName`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 20))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub nominated_cluster_names: Vec<String>,

    /// MultiKueue: the cluster the workload is assigned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<String>,

    /// Topology-aware scheduling: failed nodes that ran pods of this workload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unhealthy_nodes: Vec<UnhealthyNode>,
}

impl WorkloadStatus {
    /// The condition of the given type, if present.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// Whether the condition of the given type is present with status `True`.
    pub fn condition_is_true(&self, type_: &str) -> bool {
        self.condition(type_).is_some_and(|c| c.status == "True")
    }
}

/// Where and how a workload reserved quota.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    /// The ClusterQueue that reserved the quota.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub cluster_queue: String,

    /// One assignment per pod set of the spec (at most 18, unique by name).
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

    /// Total of all the pod set's pods (per-pod request times `count`, limit-range defaults and
    /// runtime overhead included), as counted at admission.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_usage: ResourceList,

    /// Pods counted at admission (below the spec's `count` under partial admission). Unset
    /// (objects from before the field existed) means the spec's `count`.
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

/// Values of `podSetAssignments[].delayedTopologyRequest`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum DelayedTopologyRequestState {
    /// Waiting to be computed.
    Pending,
    /// Computed.
    Ready,
}

/// Pods per topology domain at the lowest level.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyAssignment {
    /// Node label keys of the levels, highest first (1 to 16).
    #[schemars(length(min = 1, max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub levels: Vec<String>,

    /// The domains and their pod counts.
    pub domains: Vec<TopologyDomainAssignment>,
}

/// Pods in one topology domain.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyDomainAssignment {
    /// Label values of the domain, one per level, highest first (1 to 16).
    #[schemars(length(min = 1, max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub values: Vec<String>,

    /// Pods to place in the domain.
    #[schemars(range(min = 1))]
    pub count: i32,
}

/// Requeue backoff.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequeueState {
    /// Times the workload was requeued; reset when it is reactivated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub count: Option<i32>,

    /// When the workload goes back to the queue; reset when it is reactivated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeue_at: Option<Time>,
}

/// Pods of one pod set whose quota is no longer needed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReclaimablePod {
    /// Pod set name.
    #[schemars(schema_with = "crate::api::schema::pod_set_name")]
    pub name: String,

    /// Number of such pods.
    #[schemars(range(min = 0))]
    pub count: i32,
}

/// State of one admission check for a workload.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckState {
    /// AdmissionCheck name.
    #[schemars(schema_with = "crate::api::schema::admission_check_name")]
    pub name: String,

    /// Where the check stands.
    pub state: CheckState,

    /// When `state` last changed.
    pub last_transition_time: Time,

    /// Why, for people; may be empty.
    #[schemars(length(max = 32768))]
    pub message: String,

    /// With `Retry`, the least time to wait before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub requeue_after_seconds: Option<i32>,

    /// Times the check went to `Retry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub retry_count: Option<i32>,

    /// Changes the check wants made to the pod sets (at most 18).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub pod_set_updates: Vec<PodSetUpdate>,
}

/// Values of `admissionChecks[].state`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum CheckState {
    /// Not decided yet.
    Pending,
    /// Passed.
    Ready,
    /// Not now: back off and try again.
    Retry,
    /// Will not pass: the workload is deactivated.
    Rejected,
}

/// Additions an admission check wants made to a pod set.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSetUpdate {
    /// Pod set name.
    #[schemars(schema_with = "crate::api::schema::pod_set_name")]
    pub name: String,

    /// Labels to add.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,

    /// Annotations to add.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,

    /// Node selector entries to add.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,

    /// Tolerations to add (at most 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-validations" = crate::api::schema::toleration_rules()))]
    pub tolerations: Vec<Toleration>,
}

/// What one pod set asks for in total.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSetRequest {
    /// Pod set name.
    #[schemars(schema_with = "crate::api::schema::pod_set_name")]
    pub name: String,

    /// Total over all the pod set's pods, after limit-range defaults, runtime overhead and the
    /// configured resource exclusions and transformations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: ResourceList,
}

/// Eviction counts of a workload.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchedulingStats {
    /// One entry per eviction reason and underlying cause.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["reason", "underlyingCause"]))]
    pub evictions: Vec<WorkloadSchedulingStatsEviction>,
}

/// How often a workload was evicted for one reason.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSchedulingStatsEviction {
    /// Eviction reason (as in the `Evicted` condition).
    #[schemars(length(max = 316))]
    pub reason: String,

    /// Finer cause; may be empty.
    #[schemars(length(max = 316))]
    pub underlying_cause: String,

    /// Number of evictions.
    #[schemars(range(min = 0))]
    pub count: i32,
}

/// A failed node.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnhealthyNode {
    /// Node name.
    pub name: String,
}

/// Condition types and reasons of a Workload, as upstream writes them.
pub mod condition {
    /// Quota reserved and every admission check passed.
    pub const ADMITTED: &str = "Admitted";
    /// Quota reserved in a ClusterQueue.
    pub const QUOTA_RESERVED: &str = "QuotaReserved";
    /// The job finished (succeeded or failed).
    pub const FINISHED: &str = "Finished";
    /// Enough pods are ready or succeeded.
    pub const PODS_READY: &str = "PodsReady";
    /// The workload was evicted; the reason says why.
    pub const EVICTED: &str = "Evicted";
    /// The workload was preempted; the reason says where.
    pub const PREEMPTED: &str = "Preempted";
    /// The workload went back to its queue after an eviction.
    pub const REQUEUED: &str = "Requeued";
    /// The workload is to be deactivated.
    pub const DEACTIVATION_TARGET: &str = "DeactivationTarget";

    /// `Preempted` reason: for a higher-priority workload of the same ClusterQueue.
    pub const IN_CLUSTER_QUEUE: &str = "InClusterQueue";
    /// `Preempted` reason: its ClusterQueue reclaimed quota lent in the cohort.
    pub const IN_COHORT_RECLAMATION: &str = "InCohortReclamation";
    /// `Preempted` reason: fair sharing in the cohort.
    pub const IN_COHORT_FAIR_SHARING: &str = "InCohortFairSharing";
    /// `Preempted` reason: reclamation by a queue that borrows.
    pub const IN_COHORT_RECLAIM_WHILE_BORROWING: &str = "InCohortReclaimWhileBorrowing";

    /// `Evicted` reason: preempted.
    pub const EVICTED_BY_PREEMPTION: &str = "Preempted";
    /// `Evicted` reason: pods not ready in time.
    pub const EVICTED_BY_PODS_READY_TIMEOUT: &str = "PodsReadyTimeout";
    /// `Evicted` reason: an admission check turned false.
    pub const EVICTED_BY_ADMISSION_CHECK: &str = "AdmissionCheck";
    /// `Evicted` reason: the ClusterQueue was stopped.
    pub const EVICTED_BY_CLUSTER_QUEUE_STOPPED: &str = "ClusterQueueStopped";
    /// `Evicted` reason: the LocalQueue was stopped.
    pub const EVICTED_BY_LOCAL_QUEUE_STOPPED: &str = "LocalQueueStopped";
    /// `Evicted` reason: `spec.active` was set to false.
    pub const DEACTIVATED: &str = "Deactivated";
    /// `QuotaReserved=False` reason: the queue is missing or inactive.
    pub const INADMISSIBLE: &str = "Inadmissible";
}
