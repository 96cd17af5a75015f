//! The model's read access to the cluster: the watch stores in the controller, a
//! [`MemoryCache`] in tests. Reads only; the model never writes through it.
//!
//! Invariants: a lookup returns the newest version the watches have seen (the model layers
//! its own not-yet-echoed writes on top); lists may come in any order (the model sorts where
//! order matters).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{LimitRange, Namespace};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::scheduling::v1::PriorityClass;

use crate::api::{
    ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use crate::manifests::ObjectKey;
use crate::scheduler::key::WorkloadKey;

/// Read access to every kind the controller watches.
pub trait Cache {
    fn workload(&self, key: &WorkloadKey) -> Option<Arc<Workload>>;
    /// The Workload's metadata, spec and status; `spec.podSets` may be left out (cheaper
    /// than reading it whole).
    fn workload_head(&self, key: &WorkloadKey) -> Option<Arc<Workload>>;
    /// Whether the Workload is there (cheaper than reading it).
    fn has_workload(&self, key: &WorkloadKey) -> bool;
    fn job(&self, key: &ObjectKey) -> Option<Arc<Job>>;
    fn workload_keys(&self) -> Vec<WorkloadKey>;
    fn jobs(&self) -> Vec<Arc<Job>>;
    fn flavors(&self) -> Vec<Arc<ResourceFlavor>>;
    fn cohorts(&self) -> Vec<Arc<Cohort>>;
    fn cluster_queues(&self) -> Vec<Arc<ClusterQueue>>;
    fn local_queues(&self) -> Vec<Arc<LocalQueue>>;
    /// One ClusterQueue (`key` without a namespace).
    fn cluster_queue(&self, key: &ObjectKey) -> Option<Arc<ClusterQueue>>;
    fn local_queue(&self, key: &ObjectKey) -> Option<Arc<LocalQueue>>;
    fn namespaces(&self) -> Vec<Arc<Namespace>>;
    fn priority_classes(&self) -> Vec<Arc<WorkloadPriorityClass>>;
    /// The labels of one namespace (none when it is unknown).
    fn namespace_labels(&self, name: &str) -> BTreeMap<String, String>;
    /// The labels of every Node.
    fn node_labels(&self) -> Vec<BTreeMap<String, String>>;
    fn limit_ranges(&self) -> Vec<Arc<LimitRange>>;
    fn runtime_classes(&self) -> Vec<Arc<RuntimeClass>>;
    /// scheduling.k8s.io PriorityClasses.
    fn pod_priority_classes(&self) -> Vec<Arc<PriorityClass>>;
}

/// A cache held in memory, filled by hand: the model's tests use it in place of the watches.
#[derive(Debug, Clone, Default)]
pub struct MemoryCache {
    pub workloads: BTreeMap<WorkloadKey, Arc<Workload>>,
    pub jobs: BTreeMap<ObjectKey, Arc<Job>>,
    pub flavors: BTreeMap<String, Arc<ResourceFlavor>>,
    pub cohorts: BTreeMap<String, Arc<Cohort>>,
    pub cluster_queues: BTreeMap<String, Arc<ClusterQueue>>,
    pub local_queues: BTreeMap<ObjectKey, Arc<LocalQueue>>,
    pub namespaces: BTreeMap<String, Arc<Namespace>>,
    pub priority_classes: BTreeMap<String, Arc<WorkloadPriorityClass>>,
    pub nodes: Vec<BTreeMap<String, String>>,
    pub limit_ranges: Vec<Arc<LimitRange>>,
    pub runtime_classes: Vec<Arc<RuntimeClass>>,
    pub pod_priority_classes: Vec<Arc<PriorityClass>>,
}

fn name_of(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

impl MemoryCache {
    /// Stores a Workload, keeping `metadata.generation` as the API server does for a custom
    /// resource with a status subresource: one more when the spec changes, the same
    /// otherwise; a new object keeps its own (1 when it has none).
    pub fn put_workload(&mut self, mut w: Workload) {
        let key = ObjectKey::workload(&w.metadata);
        let before = self
            .workloads
            .get(&key)
            .filter(|b| b.metadata.uid == w.metadata.uid);
        w.metadata.generation = Some(match before {
            None => w.metadata.generation.unwrap_or(1),
            Some(b) => {
                let g = b.metadata.generation.unwrap_or(1);
                if b.spec == w.spec { g } else { g + 1 }
            }
        });
        self.workloads.insert(key, Arc::new(w));
    }

    pub fn put_job(&mut self, j: Job) {
        self.jobs
            .insert(ObjectKey::namespaced(&j.metadata), Arc::new(j));
    }

    pub fn put_flavor(&mut self, f: ResourceFlavor) {
        self.flavors.insert(name_of(&f.metadata), Arc::new(f));
    }

    pub fn put_cohort(&mut self, c: Cohort) {
        self.cohorts.insert(name_of(&c.metadata), Arc::new(c));
    }

    pub fn put_cluster_queue(&mut self, cq: ClusterQueue) {
        self.cluster_queues
            .insert(name_of(&cq.metadata), Arc::new(cq));
    }

    pub fn put_local_queue(&mut self, lq: LocalQueue) {
        self.local_queues
            .insert(ObjectKey::namespaced(&lq.metadata), Arc::new(lq));
    }

    pub fn put_namespace(&mut self, ns: Namespace) {
        self.namespaces.insert(name_of(&ns.metadata), Arc::new(ns));
    }

    pub fn put_priority_class(&mut self, pc: WorkloadPriorityClass) {
        self.priority_classes
            .insert(name_of(&pc.metadata), Arc::new(pc));
    }
}

impl Cache for MemoryCache {
    fn workload(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        self.workloads.get(key).cloned()
    }
    /// Always without the pod sets, so a test fails if a reader of heads needs them.
    fn workload_head(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        self.workloads.get(key).map(|w| {
            let mut head = (**w).clone();
            head.spec.pod_sets.clear();
            Arc::new(head)
        })
    }
    fn job(&self, key: &ObjectKey) -> Option<Arc<Job>> {
        self.jobs.get(key).cloned()
    }
    fn has_workload(&self, key: &WorkloadKey) -> bool {
        self.workloads.contains_key(key)
    }
    fn workload_keys(&self) -> Vec<WorkloadKey> {
        self.workloads.keys().cloned().collect()
    }
    fn jobs(&self) -> Vec<Arc<Job>> {
        self.jobs.values().cloned().collect()
    }
    fn flavors(&self) -> Vec<Arc<ResourceFlavor>> {
        self.flavors.values().cloned().collect()
    }
    fn cohorts(&self) -> Vec<Arc<Cohort>> {
        self.cohorts.values().cloned().collect()
    }
    fn cluster_queues(&self) -> Vec<Arc<ClusterQueue>> {
        self.cluster_queues.values().cloned().collect()
    }
    fn local_queues(&self) -> Vec<Arc<LocalQueue>> {
        self.local_queues.values().cloned().collect()
    }
    fn cluster_queue(&self, key: &ObjectKey) -> Option<Arc<ClusterQueue>> {
        self.cluster_queues.get(&key.name).cloned()
    }
    fn local_queue(&self, key: &ObjectKey) -> Option<Arc<LocalQueue>> {
        self.local_queues.get(key).cloned()
    }
    fn namespaces(&self) -> Vec<Arc<Namespace>> {
        self.namespaces.values().cloned().collect()
    }
    fn priority_classes(&self) -> Vec<Arc<WorkloadPriorityClass>> {
        self.priority_classes.values().cloned().collect()
    }
    fn namespace_labels(&self, name: &str) -> BTreeMap<String, String> {
        self.namespaces
            .get(name)
            .and_then(|n| n.metadata.labels.clone())
            .unwrap_or_default()
    }
    fn node_labels(&self) -> Vec<BTreeMap<String, String>> {
        self.nodes.clone()
    }
    fn limit_ranges(&self) -> Vec<Arc<LimitRange>> {
        self.limit_ranges.clone()
    }
    fn runtime_classes(&self) -> Vec<Arc<RuntimeClass>> {
        self.runtime_classes.clone()
    }
    fn pod_priority_classes(&self) -> Vec<Arc<PriorityClass>> {
        self.pod_priority_classes.clone()
    }
}
