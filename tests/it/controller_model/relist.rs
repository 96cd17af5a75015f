//! The turn after a re-list syncs every Workload in the store at once: it holds a bounded
//! number of whole Workloads at a time, not one per Workload (50,000 at upstream's
//! large-scale shape, whose finished ones the engine keeps without demand, so each is read
//! whole again).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{LimitRange, Namespace};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use kubectl_kueue::api::{
    ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use kubectl_kueue::controller::model::{Cache, Input, MemoryCache, READ_KEPT};
use kubectl_kueue::kube::watch::Kind;
use kubectl_kueue::manifests::ObjectKey;
use kubectl_kueue::scheduler::WorkloadKey;

use super::builders::*;
use super::world::*;
use super::{cluster, holds_quota};

/// A cache whose every whole read is a copy of its own (as the watch store rebuilds one from
/// its compact form), counting how many of them are alive at once.
struct CountingCache {
    inner: MemoryCache,
    alive: RefCell<Vec<Weak<Workload>>>,
    peak: Cell<usize>,
}

impl Cache for CountingCache {
    fn workload(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        let copy = Arc::new((*self.inner.workload(key)?).clone());
        let mut alive = self.alive.borrow_mut();
        alive.retain(|w| w.strong_count() > 0);
        alive.push(Arc::downgrade(&copy));
        self.peak.set(self.peak.get().max(alive.len()));
        Some(copy)
    }
    fn workload_head(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        self.inner.workload_head(key)
    }
    fn has_workload(&self, key: &WorkloadKey) -> bool {
        self.inner.has_workload(key)
    }
    fn job(&self, key: &ObjectKey) -> Option<Arc<Job>> {
        self.inner.job(key)
    }
    fn workload_keys(&self) -> Vec<WorkloadKey> {
        self.inner.workload_keys()
    }
    fn jobs(&self) -> Vec<Arc<Job>> {
        self.inner.jobs()
    }
    fn flavors(&self) -> Vec<Arc<ResourceFlavor>> {
        self.inner.flavors()
    }
    fn cohorts(&self) -> Vec<Arc<Cohort>> {
        self.inner.cohorts()
    }
    fn cluster_queues(&self) -> Vec<Arc<ClusterQueue>> {
        self.inner.cluster_queues()
    }
    fn local_queues(&self) -> Vec<Arc<LocalQueue>> {
        self.inner.local_queues()
    }
    fn namespaces(&self) -> Vec<Arc<Namespace>> {
        self.inner.namespaces()
    }
    fn priority_classes(&self) -> Vec<Arc<WorkloadPriorityClass>> {
        self.inner.priority_classes()
    }
    fn namespace_labels(&self, name: &str) -> BTreeMap<String, String> {
        self.inner.namespace_labels(name)
    }
    fn node_labels(&self) -> Vec<BTreeMap<String, String>> {
        self.inner.node_labels()
    }
    fn limit_ranges(&self) -> Vec<Arc<LimitRange>> {
        self.inner.limit_ranges()
    }
    fn runtime_classes(&self) -> Vec<Arc<RuntimeClass>> {
        self.inner.runtime_classes()
    }
    fn pod_priority_classes(&self) -> Vec<Arc<PriorityClass>> {
        self.inner.pod_priority_classes()
    }
}

#[test]
fn the_turn_after_a_relist_holds_a_bounded_number_of_whole_workloads() {
    const FINISHED: usize = 3 * READ_KEPT;
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    for i in 0..FINISHED {
        let mut w = workload(&world, "ns", &format!("done-{i}"), "lq", 1);
        let mut st = w.status.clone().unwrap_or_default();
        kubectl_kueue::status::finish(&mut st, "Succeeded", "done", world.now.wall);
        w.status = Some(st);
        world.cache.put_workload(w);
    }
    world
        .cache
        .put_workload(workload(&world, "ns", "waiting", "lq", 2));
    let first = world.start();
    world.settle(first);
    assert!(holds_quota(&world, "waiting"));

    let counting = CountingCache {
        inner: world.cache.clone(),
        alive: RefCell::new(Vec::new()),
        peak: Cell::new(0),
    };
    world
        .model
        .handle(&counting, Input::Relisted(Kind::Workload), world.now);
    world.model.turn(&counting, world.now);
    let peak = counting.peak.get();
    assert!(
        peak > 0 && peak <= READ_KEPT + 1,
        "{peak} whole Workloads alive at once while {FINISHED} were synced"
    );
    assert!(holds_quota(&world, "waiting"), "nothing changed for it");
}
