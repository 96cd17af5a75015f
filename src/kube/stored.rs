//! A Workload as the controller's watch store keeps it: its pod sets as JSON text, and a
//! finished one's spec and status as JSON too.
//!
//! Decoded, a pod set is mostly struct: Kubernetes' `PodTemplateSpec` is 1.8 KiB and each
//! `Container` 2.1 KiB however few of their fields are set, so a one-container Workload takes
//! over 4 KiB before any of its strings. A cluster holds thousands of pending Workloads (at
//! upstream's baseline shape, 15,000 at once), and the controller reads a Workload's pods only
//! when it converts it for the scheduler or compares it with its Job. Kept as the JSON they
//! encode to, the same pod sets take a few hundred bytes, decoded again on each read.
//!
//! A finished Workload is read only when an event about it comes (its deletion, a finalizer
//! going), yet the store keeps every one until it is deleted: 50,000 at the end of upstream's
//! large-scale shape. Decoded, its status is mostly struct and map nodes (each one-entry map
//! of its admission and requests allocates room for eleven): about 4.6 KiB, against under
//! 1 KiB as JSON. Only its identity stays decoded (name, namespace, UID and resourceVersion:
//! what the store's index reads); the rest of its metadata (its labels alone are a map node
//! with room for eleven entries, over 500 bytes), its spec and its status are kept as the
//! JSON they encode to, compressed (DEFLATE: its conditions repeat the same keys, words and
//! times), and decoded on each read.
//!
//! Invariants: [`StoredWorkload::workload`] returns exactly the Workload it was made from (the
//! text is checked to decode back to the same pod sets, or the same metadata, spec and
//! status, when stored; where it would not, they stay decoded). [`StoredWorkload::metadata`]
//! is the whole metadata of a Workload that has not finished, and the identity alone of one
//! that has. Data in: a decoded Workload; data out: the same Workload.

use std::borrow::Cow;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use serde::{Deserialize, Serialize};

use crate::api::{PodSet, Workload, WorkloadSpec, WorkloadStatus};

/// A Workload with its pod sets kept as text, or a finished one's spec and status packed.
#[derive(Clone, Debug)]
pub struct StoredWorkload {
    form: Form,
}

#[derive(Clone, Debug)]
enum Form {
    /// The Workload, with `spec.podSets` empty when `pod_sets` holds them (as JSON).
    Decoded {
        head: Arc<Workload>,
        pod_sets: Option<Box<str>>,
    },
    /// A finished Workload: its identity ([`identity`]), and the rest of its metadata, its
    /// spec and its status as the JSON of a [`Body`], compressed.
    Finished {
        identity: Box<ObjectMeta>,
        body: Box<[u8]>,
    },
}

/// A Workload's metadata but its identity, spec and status, as a finished one keeps them.
#[derive(Serialize, Deserialize)]
struct Body {
    #[serde(default)]
    metadata: ObjectMeta,
    spec: WorkloadSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<WorkloadStatus>,
}

/// Takes a Workload's identity out of its metadata: name, namespace, UID, resourceVersion.
fn identity(metadata: &mut ObjectMeta) -> ObjectMeta {
    ObjectMeta {
        name: metadata.name.take(),
        namespace: metadata.namespace.take(),
        uid: metadata.uid.take(),
        resource_version: metadata.resource_version.take(),
        ..ObjectMeta::default()
    }
}

/// Puts an identity back into the rest of a metadata.
fn with_identity(identity: &ObjectMeta, mut rest: ObjectMeta) -> ObjectMeta {
    rest.name.clone_from(&identity.name);
    rest.namespace.clone_from(&identity.namespace);
    rest.uid.clone_from(&identity.uid);
    rest.resource_version.clone_from(&identity.resource_version);
    rest
}

impl StoredWorkload {
    pub fn new(mut wl: Workload) -> StoredWorkload {
        shrink(&mut wl);
        if wl.is_finished() {
            return finished_form(wl);
        }
        let text = serde_json::to_string(&wl.spec.pod_sets).ok();
        let round_trips = text.as_deref().is_some_and(|t| {
            serde_json::from_str::<Vec<PodSet>>(t).is_ok_and(|back| back == wl.spec.pod_sets)
        });
        if !round_trips {
            return StoredWorkload::decoded(wl, None);
        }
        wl.spec.pod_sets = Vec::new();
        StoredWorkload::decoded(wl, text.map(String::into_boxed_str))
    }

    fn decoded(wl: Workload, pod_sets: Option<Box<str>>) -> StoredWorkload {
        StoredWorkload {
            form: Form::Decoded {
                head: Arc::new(wl),
                pod_sets,
            },
        }
    }

    /// The Workload it was made from.
    pub fn workload(&self) -> Workload {
        match &self.form {
            Form::Decoded { head, pod_sets } => {
                let mut wl = (**head).clone();
                if let Some(text) = pod_sets {
                    wl.spec.pod_sets = serde_json::from_str(text)
                        .expect("a stored Workload's pod sets were checked to decode when stored");
                }
                wl
            }
            Form::Finished { identity, body } => {
                let Body {
                    metadata,
                    spec,
                    status,
                } = unpack(body).expect("a finished Workload's body was checked to decode");
                Workload {
                    metadata: with_identity(identity, metadata),
                    spec,
                    status,
                }
            }
        }
    }

    /// [`StoredWorkload::workload`], shared.
    pub fn workload_arc(&self) -> Arc<Workload> {
        Arc::new(self.workload())
    }

    /// The Workload without rebuilding its pod sets: `spec.podSets` may be empty. For
    /// readers of its metadata, spec and status only. A finished one is decoded whole.
    pub fn head(&self) -> Arc<Workload> {
        match &self.form {
            Form::Decoded { head, .. } => head.clone(),
            Form::Finished { .. } => self.workload_arc(),
        }
    }

    /// The Workload's metadata; of a finished one, its identity alone (name, namespace, UID,
    /// resourceVersion): what the store's index and its key readers need. Other readers of a
    /// finished Workload's metadata read [`StoredWorkload::head`].
    pub fn metadata(&self) -> &ObjectMeta {
        match &self.form {
            Form::Decoded { head, .. } => &head.metadata,
            Form::Finished { identity, .. } => identity,
        }
    }

    /// The whole metadata, to change: a finished Workload is decoded again first, so a
    /// change of any field lands in what [`StoredWorkload::workload`] returns.
    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        if let Form::Finished { .. } = self.form {
            *self = StoredWorkload::decoded(self.workload(), None);
        }
        match &mut self.form {
            Form::Decoded { head, .. } => &mut Arc::make_mut(head).metadata,
            // Not reached: decoded above.
            Form::Finished { identity, .. } => identity,
        }
    }
}

/// A finished Workload's identity decoded and the rest packed, when it decodes back the same.
fn finished_form(wl: Workload) -> StoredWorkload {
    let Workload {
        mut metadata,
        spec,
        status,
    } = wl;
    let identity = identity(&mut metadata);
    let body = Body {
        metadata,
        spec,
        status,
    };
    let packed = serde_json::to_vec(&body)
        .ok()
        .map(|json| miniz_oxide::deflate::compress_to_vec(&json, PACK_LEVEL).into_boxed_slice());
    let round_trips = packed.as_deref().is_some_and(|p| {
        unpack(p).is_some_and(|back| {
            back.metadata == body.metadata && back.spec == body.spec && back.status == body.status
        })
    });
    match packed {
        Some(packed) if round_trips => StoredWorkload {
            form: Form::Finished {
                identity: Box::new(identity),
                body: packed,
            },
        },
        _ => StoredWorkload::decoded(
            Workload {
                metadata: with_identity(&identity, body.metadata),
                spec: body.spec,
                status: body.status,
            },
            None,
        ),
    }
}

/// DEFLATE's fastest level: a baseline-shaped finished Workload's 848 bytes of JSON pack to
/// 389 (365 at levels 6 and 9), in 34 µs (unpacked and decoded again in 8 µs); it is packed
/// once per watch event or write answer, and a finished Workload sees one or two.
const PACK_LEVEL: u8 = 1;

/// A finished Workload's [`Body`] from its packed JSON (`None` if it does not decode).
fn unpack(packed: &[u8]) -> Option<Body> {
    let json = miniz_oxide::inflate::decompress_to_vec(packed).ok()?;
    serde_json::from_slice(&json).ok()
}

/// Gives back the spare capacity decoding left in the lists a stored Workload keeps for
/// long: a decoded list grows by doubling (a one-condition list holds room for four
/// conditions, 600 bytes), and the store holds thousands of Workloads.
fn shrink(wl: &mut Workload) {
    if let Some(refs) = &mut wl.metadata.owner_references {
        refs.shrink_to_fit();
    }
    if let Some(f) = &mut wl.metadata.finalizers {
        f.shrink_to_fit();
    }
    let Some(st) = &mut wl.status else {
        return;
    };
    st.conditions.shrink_to_fit();
    st.resource_requests.shrink_to_fit();
    st.reclaimable_pods.shrink_to_fit();
    st.admission_checks.shrink_to_fit();
    if let Some(a) = &mut st.admission {
        a.pod_set_assignments.shrink_to_fit();
    }
}

impl Resource for StoredWorkload {
    type DynamicType = ();
    type Scope = <Workload as Resource>::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        Workload::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        Workload::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        Workload::version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        Workload::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        self.metadata()
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.metadata_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> Workload {
        serde_yaml::from_str(
            r#"
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns, uid: u-1, resourceVersion: "7"}
spec:
  queueName: q
  priority: 100
  podSets:
  - name: driver
    count: 1
    template:
      metadata: {labels: {role: driver}}
      spec:
        nodeSelector: {gpu: a100}
        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
        containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {nvidia.com/gpu: "1"}}
  - name: workers
    count: 8
    minCount: 4
    template:
      spec:
        initContainers: [{name: i, image: busybox, resources: {requests: {cpu: "2"}}}]
        containers: [{name: c, image: busybox, env: [{name: A, value: "1"}]}]
status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok,
     lastTransitionTime: "2026-12-04T00:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: driver, flavors: {cpu: default}, resourceUsage: {cpu: 500m}, count: 1}
"#,
        )
        .expect("test workload")
    }

    #[test]
    fn gives_back_the_workload_it_was_made_from() {
        let wl = workload();
        let stored = StoredWorkload::new(wl.clone());
        let Form::Decoded { head, pod_sets } = &stored.form else {
            panic!("a running Workload stays decoded: {stored:?}")
        };
        assert!(pod_sets.is_some(), "pod sets kept as text");
        assert!(head.spec.pod_sets.is_empty());
        assert_eq!(stored.workload(), wl);
        assert_eq!(stored.clone().workload(), wl);
        assert_eq!(stored.meta().name.as_deref(), Some("w"));
        let head = stored.head();
        assert_eq!(head.metadata, wl.metadata);
        assert_eq!(head.status, wl.status);
        assert!(
            head.spec.pod_sets.is_empty(),
            "the head leaves the pod sets out"
        );
    }

    /// Finished: the identity decoded for the store's index, the rest of the metadata, the
    /// spec and the status packed, and the same Workload back whole from every reader; a
    /// change of metadata (as the reflector makes none, but the trait allows) lands in it.
    #[test]
    fn a_finished_workload_keeps_its_identity_and_packs_the_rest() {
        let mut wl = workload();
        wl.metadata.labels = Some([("kueue.x-k8s.io/queue-name".into(), "q".into())].into());
        wl.metadata.generation = Some(1);
        let st = wl.status.as_mut().unwrap();
        st.conditions
            .push(k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
                type_: "Finished".into(),
                status: "True".into(),
                reason: "Succeeded".into(),
                message: "Job finished successfully".into(),
                last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                    "2026-12-04T00:10:00Z".parse().unwrap(),
                ),
                observed_generation: Some(1),
            });
        let mut stored = StoredWorkload::new(wl.clone());
        let Form::Finished { body, .. } = &stored.form else {
            panic!("a finished Workload is kept packed: {stored:?}")
        };
        let json = miniz_oxide::inflate::decompress_to_vec(body).expect("packed JSON");
        let text = String::from_utf8(json).expect("JSON is text");
        assert!(text.contains("\"Finished\""), "{text}");
        assert!(body.len() < text.len(), "packed smaller than the text");
        assert_eq!(stored.workload(), wl);
        assert_eq!(*stored.head(), wl);
        assert_eq!(*stored.clone().workload_arc(), wl);
        let identity = ObjectMeta {
            name: Some("w".into()),
            namespace: Some("ns".into()),
            uid: Some("u-1".into()),
            resource_version: Some("7".into()),
            ..ObjectMeta::default()
        };
        assert_eq!(stored.meta(), &identity, "the identity alone stays decoded");
        assert!(text.contains("queue-name"), "the labels are packed: {text}");
        stored.meta_mut().resource_version = Some("8".into());
        assert_eq!(
            stored.workload().metadata.resource_version.as_deref(),
            Some("8")
        );
        assert_eq!(stored.workload().status, wl.status);
    }

    #[test]
    fn a_workload_without_pod_sets_round_trips_too() {
        let mut wl = workload();
        wl.spec.pod_sets.clear();
        assert_eq!(StoredWorkload::new(wl.clone()).workload(), wl);
    }
}
