//! v1beta2 `ClusterQueue`: v1beta1's fields with `cohort` renamed `cohortName`, the list form
//! of `admissionChecks` gone (only `admissionChecksStrategy` remains), the deprecated
//! fungibility aliases `Borrow`/`Preempt` gone, `concurrentAdmissionPolicy` new, and in the
//! status neither `pendingWorkloadsStatus` nor `fairSharing.admissionFairSharingStatus`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fair_sharing::FairSharingStatus;
use crate::api::macros::{default_from_empty_map, optional_spec};
use crate::api::{
    AdmissionChecksStrategy, AdmissionScope, ClusterQueuePreemption, FairSharing,
    FlavorFungibilityPreference, FlavorUsage, QueueingStrategy, ResourceGroup, StopPolicy,
};

/// Spec of a v1beta2 [`ClusterQueue`].
// The printer columns repeat `type_`/`priority` keys, which clippy mistakes for duplicates.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta2",
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
        json_path = ".spec.cohortName",
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
        "rule": "!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
        "message": "borrowingLimit must be nil when cohort is empty",
    },
]))]
pub struct ClusterQueueSpec {
    /// Groups of resources with their quota per flavor (at most 16 groups).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub resource_groups: Vec<ResourceGroup>,

    /// Cohort this queue belongs to (v1beta1's `cohort`). Unset or empty: no borrowing or
    /// lending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub cohort_name: Option<String>,

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

    /// AdmissionChecks per flavor (not supported by this product; kept so such objects
    /// round-trip).
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

    /// Concurrent admission (feature gate `ConcurrentAdmission`, off by default; not
    /// supported by this product).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_admission_policy: Option<ConcurrentAdmissionPolicy>,
}

optional_spec!(ClusterQueueSpec, default);

/// When to look at the next flavor instead of settling for the current one (v1beta2: without
/// the deprecated aliases).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor')",
    "message": "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor",
}]))]
pub struct FlavorFungibility {
    /// What to do when the workload fits the current flavor only by borrowing.
    /// Defaults to `MayStopSearch`.
    #[serde(default = "may_stop_search")]
    pub when_can_borrow: FlavorFungibilityPolicy,

    /// What to do when the workload fits the current flavor only by preempting.
    /// Defaults to `TryNextFlavor`.
    #[serde(default = "try_next_flavor")]
    pub when_can_preempt: FlavorFungibilityPolicy,

    /// Which to prefer when every candidate flavor needs borrowing, preemption or both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<FlavorFungibilityPreference>,
}

default_from_empty_map!(FlavorFungibility);

fn may_stop_search() -> FlavorFungibilityPolicy {
    FlavorFungibilityPolicy::MayStopSearch
}

fn try_next_flavor() -> FlavorFungibilityPolicy {
    FlavorFungibilityPolicy::TryNextFlavor
}

/// Values of `flavorFungibility.whenCanBorrow` and `whenCanPreempt` in v1beta2.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum FlavorFungibilityPolicy {
    /// Stop at this flavor if the workload fits there (by borrowing or preempting).
    MayStopSearch,
    /// Try the next flavor first.
    TryNextFlavor,
}

/// Concurrent admission: a workload pursues several flavors at once and may migrate to a
/// preferred one after admission.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConcurrentAdmissionPolicy {
    /// Constraints on migrating between flavors.
    pub migration: ConcurrentAdmissionMigration,
}

/// How a concurrently admitted workload migrates.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConcurrentAdmissionMigration {
    /// `TryPreferredFlavors` or `RetainFirstAdmission`.
    pub mode: ConcurrentAdmissionMigrationMode,

    /// Limits of the migration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<ConcurrentAdmissionConstraints>,
}

/// Values of `concurrentAdmissionPolicy.migration.mode`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum ConcurrentAdmissionMigrationMode {
    /// Keep trying the more preferred flavors after admission.
    TryPreferredFlavors,
    /// Stay on the first flavor admitted to.
    RetainFirstAdmission,
}

/// Limits of a concurrent admission migration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConcurrentAdmissionConstraints {
    /// The last flavor (in the ClusterQueue's order) a workload may migrate to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub last_acceptable_flavor_name: Option<String>,
}

/// Observed state of a v1beta2 [`ClusterQueue`].
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    /// Latest observations (at most 16); Kueue maintains `Active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::conditions_max16")]
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

    /// Fair sharing state, when fair sharing is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharingStatus>,
}
