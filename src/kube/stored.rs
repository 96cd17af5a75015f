//! A Workload as the controller's watch store keeps it: its pod sets as JSON text.
//!
//! Decoded, a pod set is mostly struct: Kubernetes' `PodTemplateSpec` is 1.8 KiB and each
//! `Container` 2.1 KiB however few of their fields are set, so a one-container Workload takes
//! over 4 KiB before any of its strings. A cluster holds thousands of pending Workloads (at
//! upstream's baseline shape, 15,000 at once), and the controller reads a Workload's pods only
//! when it converts it for the scheduler or compares it with its Job. Kept as the JSON they
//! encode to, the same pod sets take a few hundred bytes, decoded again on each read.
//!
//! Invariants: [`StoredWorkload::workload`] returns exactly the Workload it was made from (the
//! text is checked to decode back to the same pod sets when stored; where it would not, the
//! pod sets stay decoded). Metadata and status are kept decoded: the store's readers look at
//! them directly. Data in: a decoded Workload; data out: the same Workload.

use std::borrow::Cow;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;

use crate::api::{PodSet, Workload};

/// A Workload with its pod sets kept as text.
#[derive(Clone, Debug)]
pub struct StoredWorkload {
    /// The Workload, with `spec.podSets` empty when `pod_sets` holds them.
    head: Arc<Workload>,
    /// `spec.podSets` as JSON.
    pod_sets: Option<Box<str>>,
}

impl StoredWorkload {
    pub fn new(mut wl: Workload) -> StoredWorkload {
        shrink(&mut wl);
        let text = serde_json::to_string(&wl.spec.pod_sets).ok();
        let round_trips = text.as_deref().is_some_and(|t| {
            serde_json::from_str::<Vec<PodSet>>(t).is_ok_and(|back| back == wl.spec.pod_sets)
        });
        if !round_trips {
            return StoredWorkload {
                head: Arc::new(wl),
                pod_sets: None,
            };
        }
        wl.spec.pod_sets = Vec::new();
        StoredWorkload {
            head: Arc::new(wl),
            pod_sets: text.map(String::into_boxed_str),
        }
    }

    /// The Workload it was made from.
    pub fn workload(&self) -> Workload {
        let mut wl = (*self.head).clone();
        if let Some(text) = &self.pod_sets {
            wl.spec.pod_sets = serde_json::from_str(text)
                .expect("a stored Workload's pod sets were checked to decode when stored");
        }
        wl
    }

    /// [`StoredWorkload::workload`], shared.
    pub fn workload_arc(&self) -> Arc<Workload> {
        Arc::new(self.workload())
    }

    /// The Workload without rebuilding its pod sets: `spec.podSets` may be empty. For
    /// readers of its metadata, spec and status only.
    pub fn head(&self) -> Arc<Workload> {
        self.head.clone()
    }

    pub fn metadata(&self) -> &ObjectMeta {
        &self.head.metadata
    }
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
        &self.head.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut Arc::make_mut(&mut self.head).metadata
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
        assert!(stored.pod_sets.is_some(), "pod sets kept as text");
        assert!(stored.head.spec.pod_sets.is_empty());
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

    #[test]
    fn a_workload_without_pod_sets_round_trips_too() {
        let mut wl = workload();
        wl.spec.pod_sets.clear();
        assert_eq!(StoredWorkload::new(wl.clone()).workload(), wl);
    }
}
