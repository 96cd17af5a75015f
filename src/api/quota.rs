//! Quota shapes shared by ClusterQueue and Cohort: resource groups with per-flavor quotas in
//! the spec, per-flavor usage in the status.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A set of resources whose quota is given per flavor, all flavors covering the same resources.
///
/// A resource and a flavor may each appear in only one group of a queue or cohort.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
    "message": "flavors must have the same number of resources as the coveredResources",
}]))]
pub struct ResourceGroup {
    /// Resource names this group gives quota for (for example `cpu`, `memory`,
    /// `nvidia.com/gpu`); 1 to 64 of them.
    #[schemars(length(min = 1, max = 64))]
    pub covered_resources: Vec<String>,

    /// Flavors in the order they are tried during admission; 1 to 64, unique by name. Each lists
    /// quota for the group's covered resources, matched by resource name.
    #[schemars(length(min = 1, max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub flavors: Vec<FlavorQuotas>,
}

/// The quotas one flavor provides for the resources of its group.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlavorQuotas {
    /// Name of a ResourceFlavor. If none exists with this name, the ClusterQueue is inactive.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub name: String,

    /// Quota for each covered resource; 1 to 64, unique by resource name.
    #[schemars(length(min = 1, max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub resources: Vec<ResourceQuota>,
}

/// Quota of one resource in one flavor.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceQuota {
    /// Resource name, one of the group's `coveredResources`.
    pub name: String,

    /// How much of the resource workloads admitted here may use at once without borrowing.
    /// Must not be negative. On a Cohort it is an extra pool shared by the cohort's subtree.
    pub nominal_quota: Quantity,

    /// How much more than `nominalQuota` may be borrowed from the cohort. Unset means no limit.
    /// Only allowed when the queue is in a cohort (or the cohort has a parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Quantity>,

    /// How much of the unused `nominalQuota` others in the cohort may borrow. Unset means all of
    /// it. Only allowed when the queue is in a cohort (or the cohort has a parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Quantity>,
}

/// Quota in use in one flavor (status of a ClusterQueue).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlavorUsage {
    /// Flavor name.
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub name: String,

    /// Usage per resource, unique by resource name.
    #[schemars(length(max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub resources: Vec<ResourceUsage>,
}

/// Usage of one resource in one flavor.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUsage {
    /// Resource name.
    pub name: String,

    /// Total quota in use, borrowed part included. Unset reads as zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Quantity>,

    /// The part of `total` above the nominal quota, that is borrowed from the cohort.
    /// Unset reads as zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowed: Option<Quantity>,
}
