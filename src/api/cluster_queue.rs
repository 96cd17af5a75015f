//! `ClusterQueue`: a cluster-scoped pool of quota with its queueing, borrowing and preemption
//! policies, and the usage it reports in its status.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, Time};
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fair_sharing::{AdmissionScope, FairSharing, FairSharingStatus};
use super::macros::optional_spec;
use super::policies::{ClusterQueuePreemption, FlavorFungibility, QueueingStrategy, StopPolicy};
use super::quota::{FlavorUsage, ResourceGroup};

/// Spec of a [`ClusterQueue`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta1",
    kind = "ClusterQueue",
    plural = "clusterqueues",
    shortname = "cq",
    status = "ClusterQueueStatus",
    schema = "disabled",
    derive = "PartialEq",
    derive = "Default",
    doc = "A pool of quota per flavor and resource, shared by the LocalQueues that point to it.",
    printcolumn(
        name = "Cohort",
        type_ = "string",
        json_path = ".spec.cohort",
        description = "Cohort this ClusterQueue belongs to"
    ),
    printcolumn(
        name = "Strategy",
        type_ = "string",
        json_path = ".spec.queueingStrategy",
        description = "How pending workloads are ordered",
        priority = 1
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
        description = "Admitted workloads that have not finished",
        priority = 1
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
#[schemars(extend("x-kubernetes-validations" = [
    {
        "rule": "!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
        "message": "borrowingLimit must be nil when cohort is empty",
    },
]))]
pub struct ClusterQueueSpec {
    /// Groups of resources with their quota per flavor (at most 16 groups).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub resource_groups: Vec<ResourceGroup>,

    /// Cohort this queue belongs to. Queues of a cohort borrow each other's unused quota. The
    /// Cohort object need not exist. Unset (or empty): no borrowing or lending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub cohort: Option<String>,

    /// How pending workloads are ordered. Defaults to `BestEffortFIFO`.
    #[serde(default)]
    pub queueing_strategy: QueueingStrategy,

    /// Namespaces whose workloads may use this queue. Unset selects no namespace; an empty
    /// selector selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-map-type" = "atomic"))]
    pub namespace_selector: Option<LabelSelector>,

    /// When to try the next flavor instead of borrowing or preempting in the current one.
    #[serde(default)]
    pub flavor_fungibility: FlavorFungibility,

    /// Which workloads may be preempted on behalf of this queue's pending workloads.
    #[serde(default)]
    pub preemption: ClusterQueuePreemption,

    /// Names of the AdmissionChecks every workload of this queue needs (not supported by this
    /// product; kept so such objects round-trip). Exclusive with `admissionChecksStrategy`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = { "type": "string", "maxLength": 316 }))]
    pub admission_checks: Vec<String>,

    /// AdmissionChecks per flavor (not supported by this product; kept so such objects
    /// round-trip). Exclusive with `admissionChecks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_checks_strategy: Option<AdmissionChecksStrategy>,

    /// Anything but `None` stops new reservations. Defaults to `None`.
    #[serde(default)]
    pub stop_policy: StopPolicy,

    /// Weight of this queue in fair sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,

    /// Whether this queue orders workloads with admission fair sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_scope: Option<AdmissionScope>,
}

optional_spec!(ClusterQueueSpec, default);

impl ClusterQueueSpec {
    /// The cohort, if any: an empty name means none, as upstream reads it.
    pub fn cohort_name(&self) -> Option<&str> {
        self.cohort.as_deref().filter(|name| !name.is_empty())
    }
}

/// AdmissionChecks chosen per flavor.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionChecksStrategy {
    /// One rule per AdmissionCheck.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admission_checks: Vec<AdmissionCheckStrategyRule>,
}

/// Which flavors one AdmissionCheck applies to.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStrategyRule {
    /// AdmissionCheck name.
    #[schemars(schema_with = "crate::api::schema::admission_check_name")]
    pub name: String,

    /// Flavors the check runs for; empty means every workload of the queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "crate::api::schema::object_names")]
    pub on_flavors: Vec<String>,
}

/// Observed state of a [`ClusterQueue`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    /// Latest observations; Kueue maintains `Active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "crate::api::schema::conditions")]
    pub conditions: Vec<Condition>,

    /// Quota reserved per flavor by the workloads holding a reservation here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors_reservation: Vec<FlavorUsage>,

    /// Quota used per flavor by the admitted workloads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors_usage: Vec<FlavorUsage>,

    /// Workloads waiting for admission.
    #[serde(default)]
    pub pending_workloads: i32,

    /// Workloads holding a quota reservation.
    #[serde(default)]
    pub reserving_workloads: i32,

    /// Admitted workloads that have not finished.
    #[serde(default)]
    pub admitted_workloads: i32,

    /// Deprecated and no longer written since Kueue v0.14; kept so old objects round-trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_workloads_status: Option<ClusterQueuePendingWorkloadsStatus>,

    /// Fair sharing state, when fair sharing is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}

/// Deprecated list of the first pending workloads.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueuePendingWorkloadsStatus {
    /// The first pending workloads.
    #[serde(
        rename = "clusterQueuePendingWorkload",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub head: Vec<ClusterQueuePendingWorkload>,

    /// When the list last changed.
    pub last_change_time: Time,
}

/// A pending workload in the deprecated pending workloads status.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueuePendingWorkload {
    /// Workload name.
    pub name: String,
    /// Workload namespace.
    pub namespace: String,
}
