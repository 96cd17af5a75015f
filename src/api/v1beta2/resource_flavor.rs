//! v1beta2 `ResourceFlavor`: field for field v1beta1's (upstream changed nothing but the
//! version; the API server converts it without a webhook).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Taint, Toleration};
use kube_derive::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::macros::optional_spec;

/// Spec of a v1beta2 [`ResourceFlavor`], the same as [`crate::api::ResourceFlavorSpec`].
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "kueue.x-k8s.io",
    version = "v1beta2",
    kind = "ResourceFlavor",
    plural = "resourceflavors",
    shortname = "flavor",
    shortname = "flavors",
    shortname = "rf",
    schema = "disabled",
    derive = "PartialEq",
    derive = "Default",
    doc = "A kind of node that ClusterQueues give quota for, matched to nodes by labels and taints.",
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
        "rule": "!has(self.topologyName) || self.nodeLabels.size() >= 1",
        "message": "at least one nodeLabel is required when topology is set",
    },
    {
        "rule": "!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && (!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))",
        "message": "nodeLabels are immutable when topologyName is set",
    },
    {
        "rule": "!has(oldSelf.topologyName) || (has(self.tolerations) == has(oldSelf.tolerations) && (!has(self.tolerations) || self.tolerations == oldSelf.tolerations))",
        "message": "tolerations are immutable when topologyName is set",
    },
    {
        "rule": "!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName)",
        "message": "topologyName is immutable when topologyName is set",
    },
]))]
pub struct ResourceFlavorSpec {
    /// Labels of the nodes this flavor stands for (at most 8). A pod set can only get this
    /// flavor if its node selector and required node affinity agree with them; once admitted,
    /// they are added to the pods' node selector.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("maxProperties" = 8, "x-kubernetes-map-type" = "atomic"))]
    pub node_labels: BTreeMap<String, String>,

    /// Taints of the nodes this flavor stands for (at most 8). A pod set must tolerate the
    /// `NoSchedule` and `NoExecute` ones (`PreferNoSchedule` is ignored) to get this flavor,
    /// unless the flavor's own `tolerations` cover them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend(
        "x-kubernetes-list-type" = "atomic",
        "x-kubernetes-validations" = [{
            "rule": "self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
            "message": "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
        }],
    ))]
    pub node_taints: Vec<Taint>,

    /// Tolerations added to the pods admitted on this flavor (at most 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    #[schemars(extend(
        "x-kubernetes-list-type" = "atomic",
        "x-kubernetes-validations" = crate::api::schema::toleration_rules(),
    ))]
    pub tolerations: Vec<Toleration>,

    /// Topology of this flavor for topology-aware scheduling (not supported by this product;
    /// kept so such objects round-trip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::api::schema::object_name")]
    pub topology_name: Option<String>,
}

optional_spec!(ResourceFlavorSpec, default);
