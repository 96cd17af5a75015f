//! Serde types of Kueue's `kueue.x-k8s.io/v1beta2` API (upstream's storage version since
//! v0.16) and of `config.kueue.x-k8s.io/v1beta2` in [`config`]: ClusterQueue, LocalQueue,
//! Cohort, ResourceFlavor, WorkloadPriorityClass and Workload, field for field as upstream
//! v0.19 defines them.
//!
//! The house rules of [`crate::api`] hold here too (defaults filled on read, `Default` equals
//! `{}`, unknown fields ignored on the Kueue kinds and rejected on the Configuration). Where
//! v1beta2's JSON is v1beta1's (quota groups, policies, most of the Workload status) the
//! v1beta1 types are reused; a kind's spec and status are their own types because kube-derive
//! ties a root object to one version. The engine never sees these types: documents are
//! converted to the internal (v1beta1) form when read ([`crate::api::convert`]).

pub mod cluster_queue;
pub mod cohort;
pub mod config;
pub mod fair_sharing;
pub mod local_queue;
pub mod resource_flavor;
pub mod workload;
pub mod workload_priority_class;
pub mod workload_status;

pub use cluster_queue::*;
pub use cohort::*;
pub use fair_sharing::*;
pub use local_queue::*;
pub use resource_flavor::*;
pub use workload::*;
pub use workload_priority_class::*;
pub use workload_status::*;

use schemars::{Schema, SchemaGenerator};

/// The version name.
pub const VERSION: &str = "v1beta2";
/// `apiVersion` of every v1beta2 Kueue object.
pub const API_VERSION: &str = "kueue.x-k8s.io/v1beta2";
/// `apiVersion` of a v1beta2 Configuration.
pub const CONFIG_API_VERSION: &str = "config.kueue.x-k8s.io/v1beta2";

/// `status.conditions` with v1beta2's limit of 16 entries.
pub fn conditions_max16(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = crate::api::schema::conditions(generator);
    schema.insert("maxItems".into(), 16.into());
    schema
}
