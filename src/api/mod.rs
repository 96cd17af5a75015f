//! Serde types of Kueue's `kueue.x-k8s.io` API in both versions, the conversion between them,
//! and the CRDs generated from them.
//!
//! This module owns the wire format: ResourceFlavor, Cohort, ClusterQueue, LocalQueue,
//! WorkloadPriorityClass and Workload, field for field as upstream Kueue v0.19 defines them in
//! v1beta1 (camelCase JSON names, upstream's enum strings, the deprecated aliases v1beta1 still
//! accepts), plus the controller's `config.kueue.x-k8s.io/v1beta1` `Configuration` in [`config`].
//! The v1beta1 types at this module's root are the internal form every other module works on;
//! [`v1beta2`] holds upstream's current version and [`convert`] upstream's conversion rules
//! between the two (pure functions). It holds no behaviour: the engine converts these types
//! into its own model elsewhere.
//!
//! How optional fields map:
//! - A field that upstream's CRD defaults (for example `queueingStrategy: BestEffortFIFO`,
//!   `stopPolicy: None`, `podSets[].count: 1`, `spec.active: true`) is a plain value filled with
//!   that default when absent, so an object read from a file equals what the API server would
//!   store. It is always serialized (except an empty `priorityClassSource`, which Go omits too).
//! - Any other optional scalar or object is an `Option`, skipped when `None`.
//! - Optional lists and maps are plain `Vec`/`BTreeMap`, skipped when empty (Go treats a nil and
//!   an empty list alike there).
//! - A missing or `null` `spec` reads as the spec's defaults, as upstream's `spec,omitempty` does.
//! - Unknown fields are ignored on the Kueue kinds (the API server prunes them anyway); the
//!   `Configuration`, like upstream's strict decoder, rejects them.
//!
//! Invariants: `Default::default()` of every spec type equals what `{}` deserializes to (tested),
//! and every generated CRD is a structural schema (tested in `tests/crds.rs`).

mod macros;

pub mod cluster_queue;
pub mod cohort;
pub mod config;
pub mod convert;
pub mod crd;
pub mod fair_sharing;
pub mod local_queue;
pub mod policies;
pub mod quota;
pub mod resource_flavor;
pub mod schema;
pub mod v1beta2;
pub mod version;
pub mod visibility;
pub mod workload;
pub mod workload_priority_class;
pub mod workload_status;

pub use cluster_queue::*;
pub use cohort::*;
pub use crd::{CrdConversion, crd_file_name, crds, crds_v1beta1_only, crds_with, crds_yaml};
pub use fair_sharing::*;
pub use local_queue::*;
pub use policies::*;
pub use quota::*;
pub use resource_flavor::*;
pub use version::KueueVersion;
pub use workload::*;
pub use workload_priority_class::*;
pub use workload_status::*;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// The API group of every Kueue kind.
pub const GROUP: &str = "kueue.x-k8s.io";
/// The version of the internal form (and of the CRDs we install today).
pub const VERSION: &str = "v1beta1";
/// `apiVersion` of every v1beta1 Kueue object.
pub const API_VERSION: &str = "kueue.x-k8s.io/v1beta1";

/// Label of a Job (or pod) naming the LocalQueue it is submitted to.
pub const QUEUE_NAME_LABEL: &str = "kueue.x-k8s.io/queue-name";
/// Label of a Job (or pod) naming its WorkloadPriorityClass.
pub const PRIORITY_CLASS_LABEL: &str = "kueue.x-k8s.io/priority-class";

/// Resource name to quantity, like core/v1 `ResourceList`.
pub type ResourceList = BTreeMap<String, Quantity>;

/// A deserialization error that knows where in the document it happened.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// Dotted field path from the document root, e.g. `spec.resourceGroups[0].flavors`;
    /// `.` when the error is about the document itself.
    pub path: String,
    /// serde's description of what was wrong.
    pub message: String,
}

impl FieldError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Deserializes `T` from an already-parsed document, reporting the field path of any error.
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|err| FieldError {
        path: err.path().to_string(),
        message: err.into_inner().to_string(),
    })
}

/// Deserializes `T` from one YAML (or JSON) document, reporting the field path of any error.
pub fn from_yaml_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, FieldError> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let path = err.path().to_string();
        // serde_yaml already prefixes its message with the path; keep it once.
        let inner = err.into_inner().to_string();
        let message = inner
            .strip_prefix(&format!("{path}: "))
            .map(str::to_owned)
            .unwrap_or(inner);
        FieldError { path, message }
    })
}
