//! Objects decoded without `metadata.managedFields`.
//!
//! Server-side apply records, per field manager, every field it owns as a JSON tree
//! (`managedFields[].fieldsV1`): most of a Workload's bytes, and allocated and dropped again on
//! every watch event and every write answer if decoded into `ObjectMeta`. The controller never
//! reads them (controller-runtime drops them from its caches too), so [`Lean<K>`] decodes an
//! object with the same fields as `K` except that one, which the JSON reader skips without
//! building anything.
//!
//! Invariants: a `Lean<K>` decodes to exactly what `K` decodes to with `managedFields` set to
//! `None` (tested against `K`'s own decoding); it names the same API resource as `K`, so an
//! `Api<Lean<K>>` talks to the same URLs. Data in: an API server's JSON; data out: `K`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{Job, JobSpec, JobStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use kube::Resource;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};

use crate::api::{
    ClusterQueue, ClusterQueueSpec, ClusterQueueStatus, LocalQueue, LocalQueueSpec,
    LocalQueueStatus, Workload, WorkloadSpec, WorkloadStatus,
};

/// `K`, decoded without its managed fields. `Api<Lean<K>>` reads and writes what `Api<K>`
/// does.
#[derive(Clone, Debug)]
pub struct Lean<K>(pub K);

/// An object made of metadata, a spec and a status, as most Kubernetes kinds are.
pub trait Parts: Resource<DynamicType = ()> + Sized {
    type Spec: DeserializeOwned;
    type Status: DeserializeOwned;
    /// The object from its parts; `None` when a required spec is missing.
    fn assemble(
        metadata: ObjectMeta,
        spec: Option<Self::Spec>,
        status: Option<Self::Status>,
    ) -> Option<Self>;
}

/// A custom resource: `spec` is required, `status` optional.
macro_rules! custom_resource_parts {
    ($($kind:ty => $spec:ty, $status:ty;)*) => {$(
        impl Parts for $kind {
            type Spec = $spec;
            type Status = $status;
            fn assemble(
                metadata: ObjectMeta,
                spec: Option<$spec>,
                status: Option<$status>,
            ) -> Option<Self> {
                Some(Self { metadata, spec: spec?, status })
            }
        }
    )*};
}

custom_resource_parts! {
    Workload => WorkloadSpec, WorkloadStatus;
    ClusterQueue => ClusterQueueSpec, ClusterQueueStatus;
    LocalQueue => LocalQueueSpec, LocalQueueStatus;
}

impl Parts for Job {
    type Spec = JobSpec;
    type Status = JobStatus;
    fn assemble(
        metadata: ObjectMeta,
        spec: Option<JobSpec>,
        status: Option<JobStatus>,
    ) -> Option<Self> {
        Some(Job {
            metadata,
            spec,
            status,
        })
    }
}

/// `ObjectMeta`'s fields but `managedFields`, which the decoder skips as an unknown field.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MetaWithoutManagedFields {
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<Time>,
    deletion_grace_period_seconds: Option<i64>,
    deletion_timestamp: Option<Time>,
    finalizers: Option<Vec<String>>,
    generate_name: Option<String>,
    generation: Option<i64>,
    labels: Option<BTreeMap<String, String>>,
    name: Option<String>,
    namespace: Option<String>,
    owner_references: Option<Vec<OwnerReference>>,
    resource_version: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
}

impl From<MetaWithoutManagedFields> for ObjectMeta {
    fn from(m: MetaWithoutManagedFields) -> ObjectMeta {
        ObjectMeta {
            annotations: m.annotations,
            creation_timestamp: m.creation_timestamp,
            deletion_grace_period_seconds: m.deletion_grace_period_seconds,
            deletion_timestamp: m.deletion_timestamp,
            finalizers: m.finalizers,
            generate_name: m.generate_name,
            generation: m.generation,
            labels: m.labels,
            managed_fields: None,
            name: m.name,
            namespace: m.namespace,
            owner_references: m.owner_references,
            resource_version: m.resource_version,
            self_link: m.self_link,
            uid: m.uid,
        }
    }
}

#[derive(Deserialize)]
#[serde(bound = "S: DeserializeOwned, T: DeserializeOwned")]
struct Wire<S, T> {
    #[serde(default)]
    metadata: MetaWithoutManagedFields,
    spec: Option<S>,
    status: Option<T>,
}

impl<'de, K: Parts> Deserialize<'de> for Lean<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = Wire::<K::Spec, K::Status>::deserialize(d)?;
        K::assemble(wire.metadata.into(), wire.spec, wire.status)
            .map(Lean)
            .ok_or_else(|| D::Error::missing_field("spec"))
    }
}

impl<K: Parts> Resource for Lean<K> {
    type DynamicType = ();
    type Scope = K::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        K::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        K::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        K::version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        K::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        self.0.meta()
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.0.meta_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn workload_json() -> serde_json::Value {
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "Workload",
            "metadata": {
                "name": "w", "namespace": "ns", "uid": "u-1", "resourceVersion": "42",
                "generation": 3, "creationTimestamp": "2025-07-21T09:00:00Z",
                "labels": {"a": "b"}, "annotations": {"c": "d"},
                "finalizers": ["kueue.x-k8s.io/resource-in-use"],
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j",
                                     "uid": "u-j", "controller": true}],
                "managedFields": [{"manager": "m", "operation": "Apply", "apiVersion": "v1",
                                   "fieldsType": "FieldsV1",
                                   "fieldsV1": {"f:status": {"f:conditions": {".": {}}}}}]
            },
            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 2,
                "template": {"spec": {"containers": [{"name": "c", "image": "i",
                    "resources": {"requests": {"cpu": "1"}}}]}}}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True",
                "reason": "QuotaReserved", "message": "m",
                "lastTransitionTime": "2025-07-21T09:00:01Z"}]}
        })
    }

    #[test]
    fn decodes_as_the_kind_does_but_for_the_managed_fields() {
        let text = workload_json().to_string();
        let mut full: Workload = serde_json::from_str(&text).unwrap();
        assert!(full.metadata.managed_fields.is_some());
        full.metadata.managed_fields = None;
        let lean: Lean<Workload> = serde_json::from_str(&text).unwrap();
        assert_eq!(lean.0, full);
    }

    #[test]
    fn a_job_without_spec_or_status_decodes_and_a_workload_without_spec_does_not() {
        let job: Lean<Job> =
            serde_json::from_str(r#"{"metadata":{"name":"j","managedFields":[]}}"#).unwrap();
        assert_eq!(job.0.metadata.name.as_deref(), Some("j"));
        assert!(job.0.metadata.managed_fields.is_none());
        let err = serde_json::from_str::<Lean<Workload>>(r#"{"metadata":{"name":"w"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("spec"), "{err}");
    }

    #[test]
    fn names_the_same_resource() {
        assert_eq!(
            Lean::<Workload>::url_path(&(), Some("ns")),
            Workload::url_path(&(), Some("ns"))
        );
        assert_eq!(Lean::<Job>::kind(&()), "Job");
    }
}
