//! The result objects in the version each was read in, or in one version for all: a v1beta2
//! input object comes back as v1beta2 (converted from the internal form by upstream's rules,
//! with the v1beta2-only fields of its document put back, since this is our output and not a
//! v1beta1 client's view), a v1beta1 one as v1beta1. Workloads made from Jobs take the version
//! most Kueue documents of the input were written in, v1beta1 when there are none.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::api::v1beta2 as v2;
use crate::api::{ClusterQueue, KueueVersion, LocalQueue, Workload, convert};
use crate::manifests::{KueueKind, ObjectKey, Sources};

/// Which version `-o json|yaml` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputVersion {
    /// Each object in the version it was read in.
    #[default]
    AsInput,
    /// Every object in this version (`--api-version`).
    Fixed(KueueVersion),
}

impl OutputVersion {
    fn of(self, sources: &Sources, kind: KueueKind, key: &ObjectKey) -> KueueVersion {
        match self {
            OutputVersion::Fixed(v) => v,
            OutputVersion::AsInput => sources
                .version_of(kind, key)
                .unwrap_or_else(|| sources.majority()),
        }
    }
}

/// A resulting Workload as an output item.
pub fn workload(obj: &Workload, sources: &Sources, choice: OutputVersion) -> Value {
    let key = ObjectKey::namespaced(&obj.metadata);
    match choice.of(sources, KueueKind::Workload, &key) {
        KueueVersion::V1beta1 => item(obj, KueueVersion::V1beta1, "Workload"),
        KueueVersion::V1beta2 => {
            let mut out = convert::workload::to_v1beta2(obj);
            if let Some(given) = sources.v1beta2_workload(&key) {
                restore_workload(&mut out, given);
            }
            item(&out, KueueVersion::V1beta2, "Workload")
        }
    }
}

/// A ClusterQueue with its status as an output item.
pub fn cluster_queue(obj: &ClusterQueue, sources: &Sources, choice: OutputVersion) -> Value {
    let key = ObjectKey::cluster_scoped(&obj.metadata);
    match choice.of(sources, KueueKind::ClusterQueue, &key) {
        KueueVersion::V1beta1 => item(obj, KueueVersion::V1beta1, "ClusterQueue"),
        KueueVersion::V1beta2 => {
            let mut out = convert::cluster_queue::to_v1beta2(obj);
            if let Some(given) = sources.v1beta2_cluster_queue(&key) {
                out.spec.concurrent_admission_policy =
                    given.spec.concurrent_admission_policy.clone();
            }
            item(&out, KueueVersion::V1beta2, "ClusterQueue")
        }
    }
}

/// A LocalQueue with its status as an output item.
pub fn local_queue(obj: &LocalQueue, sources: &Sources, choice: OutputVersion) -> Value {
    let key = ObjectKey::namespaced(&obj.metadata);
    match choice.of(sources, KueueKind::LocalQueue, &key) {
        KueueVersion::V1beta1 => item(obj, KueueVersion::V1beta1, "LocalQueue"),
        KueueVersion::V1beta2 => item(
            &convert::local_queue::to_v1beta2(obj),
            KueueVersion::V1beta2,
            "LocalQueue",
        ),
    }
}

/// The fields upstream's conversion to v1beta1 drops, as the v1beta2 document gave them.
fn restore_workload(out: &mut v2::Workload, given: &v2::Workload) {
    out.spec.preemption_gates = given.spec.preemption_gates.clone();
    for pod_set in &mut out.spec.pod_sets {
        let constraints = given
            .spec
            .pod_sets
            .iter()
            .find(|p| p.name == pod_set.name)
            .and_then(|p| p.topology_request.as_ref())
            .map(|t| t.podset_slice_required_topology_constraints.clone())
            .unwrap_or_default();
        if let Some(request) = &mut pod_set.topology_request {
            request.podset_slice_required_topology_constraints = constraints;
        }
    }
    let gates = given
        .status
        .as_ref()
        .map(|s| s.preemption_gates.clone())
        .unwrap_or_default();
    if !gates.is_empty() {
        out.status
            .get_or_insert_with(Default::default)
            .preemption_gates = gates;
    }
}

/// `apiVersion`/`kind` first, as kubectl prints objects.
fn item<T: Serialize>(obj: &T, version: KueueVersion, kind: &str) -> Value {
    let mut out = Map::new();
    out.insert("apiVersion".into(), version.api_version().into());
    out.insert("kind".into(), kind.into());
    if let Ok(Value::Object(fields)) = serde_json::to_value(obj) {
        for (k, v) in fields {
            if k != "apiVersion" && k != "kind" {
                out.insert(k, v);
            }
        }
    }
    Value::Object(out)
}
