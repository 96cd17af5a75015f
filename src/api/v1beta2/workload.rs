//! v1beta2 `Workload` and its spec: v1beta1's `priorityClassName` + `priorityClassSource`
//! became one `priorityClassRef {group, kind, name}`, `preemptionGates` is new, a pod set's
//! topology request gained `podsetSliceRequiredTopologyConstraints`, and `podSets` is no longer
//! required. The status lives in [`super::workload_status`].

use k8s_openapi::api::core::v1::PodTemplateSpec;
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workload_status::WorkloadStatus;
use crate::api::macros::optional_spec;

/// Spec of a v1beta2 [`Workload`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta2",
    kind = "Workload",
    plural = "workloads",
    shortname = "kwl",
    shortname = "kueueworkload",
    shortname = "kueueworkloads",
    namespaced,
    status = "WorkloadStatus",
    schema = "disabled",
    derive = "PartialEq",
    derive = "Default",
    doc = "A unit of admission: pod sets that get quota, and run, together.",
    printcolumn(
        name = "Queue",
        type_ = "string",
        json_path = ".spec.queueName",
        description = "LocalQueue the workload was submitted to"
    ),
    printcolumn(
        name = "Reserved in",
        type_ = "string",
        json_path = ".status.admission.clusterQueue",
        description = "ClusterQueue where the workload holds a quota reservation"
    ),
    printcolumn(
        name = "Admitted",
        type_ = "string",
        json_path = ".status.conditions[?(@.type=='Admitted')].status",
        description = "Whether the workload is admitted"
    ),
    printcolumn(
        name = "Finished",
        type_ = "string",
        json_path = ".status.conditions[?(@.type=='Finished')].status",
        description = "Whether the workload has finished"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp",
        description = "When the workload was created"
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
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "!has(self.priorityClassRef) || has(self.priority)",
    "message": "priority should not be nil when priorityClassRef is set",
}]))]
pub struct WorkloadSpec {
    /// Sets of identical pods, 1 to 18, unique by name. Cannot be changed.
    #[serde(default)]
    #[schemars(length(min = 1, max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub pod_sets: Vec<PodSet>,

    /// The LocalQueue (in the workload's namespace) it is submitted to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub queue_name: Option<String>,

    /// The WorkloadPriorityClass or pod PriorityClass the priority comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_ref: Option<PriorityClassRef>,

    /// Priority used to order and preempt workloads; higher is more important. Must be set
    /// when `priorityClassRef` is. Unset counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,

    /// `false` keeps the workload from being admitted and evicts it if it is. Defaults to true.
    #[serde(default = "yes")]
    pub active: bool,

    /// If set, the workload is deactivated after being admitted for this many seconds in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub maximum_execution_time_seconds: Option<i32>,

    /// Gates that must be open (in `status.preemptionGates`) before the workload may trigger
    /// preemptions (at most 8; closed by default; not supported by this product).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub preemption_gates: Vec<PreemptionGate>,
}

optional_spec!(WorkloadSpec, default);

fn yes() -> bool {
    true
}

fn main_pod_set() -> String {
    "main".into()
}

fn one() -> i32 {
    1
}

/// A reference to the class a workload's priority comes from.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [
    {
        "rule": "(self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true",
        "message": "only the PriorityClass kind is allowed for the scheduling.k8s.io group",
    },
    {
        "rule": "(self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true",
        "message": "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group",
    },
]))]
pub struct PriorityClassRef {
    /// `kueue.x-k8s.io` for a WorkloadPriorityClass, `scheduling.k8s.io` for a pod
    /// PriorityClass.
    pub group: PriorityClassGroup,

    /// `WorkloadPriorityClass` or `PriorityClass`.
    pub kind: PriorityClassKind,

    /// Name of the class.
    #[schemars(length(min = 1, max = 253), regex(pattern = crate::api::schema::DNS1123_SUBDOMAIN))]
    pub name: String,
}

impl PriorityClassRef {
    /// A reference to the WorkloadPriorityClass `name`.
    pub fn workload_priority_class(name: &str) -> Self {
        PriorityClassRef {
            group: PriorityClassGroup::Kueue,
            kind: PriorityClassKind::WorkloadPriorityClass,
            name: name.to_owned(),
        }
    }

    /// A reference to the pod PriorityClass `name`.
    pub fn pod_priority_class(name: &str) -> Self {
        PriorityClassRef {
            group: PriorityClassGroup::Scheduling,
            kind: PriorityClassKind::PriorityClass,
            name: name.to_owned(),
        }
    }
}

/// Values of `priorityClassRef.group`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum PriorityClassGroup {
    /// Kueue's WorkloadPriorityClass.
    #[serde(rename = "kueue.x-k8s.io")]
    Kueue,
    /// The pod PriorityClass of Kubernetes.
    #[serde(rename = "scheduling.k8s.io")]
    Scheduling,
}

/// Values of `priorityClassRef.kind`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum PriorityClassKind {
    /// Kueue's WorkloadPriorityClass.
    WorkloadPriorityClass,
    /// The pod PriorityClass of Kubernetes.
    PriorityClass,
}

/// A preemption gate of a workload.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionGate {
    /// Gate name (1 to 63 characters).
    #[schemars(length(min = 1, max = 63))]
    pub name: String,
}

/// A set of identical pods.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "has(self.minCount) ? self.minCount <= self.count : true",
    "message": "minCount should be positive and less or equal to count",
}]))]
pub struct PodSet {
    /// Pod set name, a DNS label. Defaults to `main`.
    #[serde(default = "main_pod_set")]
    #[schemars(schema_with = "crate::api::schema::pod_set_name_default_main")]
    pub name: String,

    /// Template of the pods.
    pub template: PodTemplateSpec,

    /// Number of pods. Defaults to 1.
    #[serde(default = "one")]
    #[schemars(range(min = 0))]
    pub count: i32,

    /// Smallest acceptable number of pods under partial admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub min_count: Option<i32>,

    /// Topology request (topology-aware scheduling; not supported by this product, kept so
    /// such objects round-trip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_request: Option<PodSetTopologyRequest>,
}

/// Topology-aware scheduling request of a pod set (v1beta1's fields and the multi-layer
/// slice constraints).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSetTopologyRequest {
    /// Topology level the pods must fit in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub required: Option<String>,

    /// Topology level the pods should fit in if possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub preferred: Option<String>,

    /// The pods may go anywhere in the available capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<bool>,

    /// Label holding each pod's index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 317))]
    pub pod_index_label: Option<String>,

    /// Label holding the index of each replicated group the pods belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 317))]
    pub sub_group_index_label: Option<String>,

    /// Number of replicated groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_group_count: Option<i32>,

    /// Pod sets with the same group name get the same flavor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    pub pod_set_group_name: Option<String>,

    /// Topology level each slice of pods must fit in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 63))]
    pub pod_set_slice_required_topology: Option<String>,

    /// Number of pods in a slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_set_slice_size: Option<i32>,

    /// Layers of slice constraints, outermost first (at most 3). Exclusive with
    /// `podSetSliceRequiredTopology` and `podSetSliceSize`.
    #[serde(
        rename = "podsetSliceRequiredTopologyConstraints",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(length(max = 3))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub podset_slice_required_topology_constraints: Vec<PodsetSliceRequiredTopologyConstraint>,
}

/// One layer of slice topology constraints.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodsetSliceRequiredTopologyConstraint {
    /// Topology level of this layer (1 to 63 characters).
    #[schemars(length(min = 1, max = 63))]
    pub topology: String,

    /// Pods per group at this layer (at least 1).
    #[schemars(range(min = 1))]
    pub size: i32,
}
