//! `Workload` and its spec: the unit of admission, a set of pod sets with their pod templates
//! and counts, the LocalQueue it waits in and its priority. The status lives in
//! [`super::workload_status`].

use k8s_openapi::api::core::v1::PodTemplateSpec;
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::macros::optional_spec;
use super::workload_status::WorkloadStatus;

/// Spec of a [`Workload`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta1",
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
    "rule": "has(self.priorityClassName) ? has(self.priority) : true",
    "message": "priority should not be nil when priorityClassName is set",
}]))]
pub struct WorkloadSpec {
    /// Sets of identical pods, 1 to 18, unique by name. Cannot be changed.
    #[schemars(length(min = 1, max = 18))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub pod_sets: Vec<PodSet>,

    /// The LocalQueue (in the workload's namespace) it is submitted to. Cannot be changed while
    /// quota is reserved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub queue_name: Option<String>,

    /// The WorkloadPriorityClass or pod PriorityClass the priority comes from (see
    /// `priorityClassSource`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub priority_class_name: Option<String>,

    /// Priority used to order and preempt workloads; higher is more important. Must be set
    /// when `priorityClassName` is. Unset counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,

    /// Which kind of class `priorityClassName` names. Defaults to empty.
    #[serde(default, skip_serializing_if = "PriorityClassSource::is_unset")]
    #[schemars(extend("default" = ""))]
    pub priority_class_source: PriorityClassSource,

    /// `false` keeps the workload from being admitted and evicts it if it is. Defaults to true.
    #[serde(default = "yes")]
    pub active: bool,

    /// If set, the workload is deactivated after being admitted for this many seconds in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub maximum_execution_time_seconds: Option<i32>,
}

optional_spec!(WorkloadSpec);

impl WorkloadSpec {
    /// The priority, 0 when unset (upstream's default priority).
    pub fn priority_or_default(&self) -> i32 {
        self.priority.unwrap_or(0)
    }

    /// The LocalQueue, if named.
    pub fn queue(&self) -> Option<&str> {
        self.queue_name.as_deref().filter(|name| !name.is_empty())
    }
}

impl Workload {
    /// Whether the workload holds quota: it has an admission and `QuotaReserved` is true.
    pub fn holds_quota(&self) -> bool {
        self.status.as_ref().is_some_and(|status| {
            status.admission.is_some()
                && status.condition_is_true(super::workload_status::condition::QUOTA_RESERVED)
        })
    }

    /// Whether `Finished` is true: it holds no quota and never queues again.
    pub fn is_finished(&self) -> bool {
        self.status
            .as_ref()
            .is_some_and(|s| s.condition_is_true(super::workload_status::condition::FINISHED))
    }
}

/// An empty spec with upstream's defaults. It has no pod set, so it is not a valid workload
/// by itself: fill `pod_sets`.
impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            pod_sets: Vec::new(),
            queue_name: None,
            priority_class_name: None,
            priority: None,
            priority_class_source: PriorityClassSource::Unset,
            active: true,
            maximum_execution_time_seconds: None,
        }
    }
}

fn yes() -> bool {
    true
}

fn main_pod_set() -> String {
    "main".into()
}

fn one() -> i32 {
    1
}

/// Values of `spec.priorityClassSource`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum PriorityClassSource {
    /// `priorityClassName` names a WorkloadPriorityClass.
    #[serde(rename = "kueue.x-k8s.io/workloadpriorityclass")]
    WorkloadPriorityClass,
    /// `priorityClassName` names a pod PriorityClass (scheduling.k8s.io).
    #[serde(rename = "scheduling.k8s.io/priorityclass")]
    PodPriorityClass,
    /// Not said. The default.
    #[default]
    #[serde(rename = "")]
    Unset,
}

impl PriorityClassSource {
    /// Whether the source is left empty.
    pub fn is_unset(&self) -> bool {
        *self == PriorityClassSource::Unset
    }
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

    /// Template of the pods. Its metadata may only carry labels and annotations. Resource
    /// requests left out default to the limits. Flavors are matched against its node selector
    /// and required node affinity.
    pub template: PodTemplateSpec,

    /// Number of pods. Defaults to 1.
    #[serde(default = "one")]
    #[schemars(range(min = 0))]
    pub count: i32,

    /// Smallest acceptable number of pods under partial admission (at most one pod set of a
    /// workload may set it). Unset: all `count` pods or nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub min_count: Option<i32>,

    /// Topology request (topology-aware scheduling; not supported by this product, kept so
    /// such objects round-trip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_request: Option<PodSetTopologyRequest>,
}

impl PodSet {
    /// A pod set of `count` pods from `template`.
    pub fn new(name: &str, count: i32, template: PodTemplateSpec) -> Self {
        PodSet {
            name: name.to_owned(),
            template,
            count,
            min_count: None,
            topology_request: None,
        }
    }
}

/// Topology-aware scheduling request of a pod set, as set by the job integration from the
/// pod set's annotations.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSetTopologyRequest {
    /// Topology level the pods must fit in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<String>,

    /// Topology level the pods should fit in if possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred: Option<String>,

    /// The pods may go anywhere in the available capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<bool>,

    /// Label holding each pod's index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index_label: Option<String>,

    /// Label holding the index of each replicated group the pods belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_group_index_label: Option<String>,

    /// Number of replicated groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_group_count: Option<i32>,

    /// Pod sets with the same group name get the same flavor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_set_group_name: Option<String>,

    /// Topology level each slice of pods must fit in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_set_slice_required_topology: Option<String>,

    /// Number of pods in a slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_set_slice_size: Option<i32>,
}
