//! Turns that sync every Workload at once (the turn after a re-list; a changed request
//! context) hold few whole Workloads at a time, not one per Workload: 50,000 at upstream's
//! large-scale shape.

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
    fn cluster_queue(&self, key: &ObjectKey) -> Option<Arc<ClusterQueue>> {
        self.inner.cluster_queue(key)
    }
    fn local_queue(&self, key: &ObjectKey) -> Option<Arc<LocalQueue>> {
        self.inner.local_queue(key)
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

fn counting(world: &World) -> CountingCache {
    CountingCache {
        inner: world.cache.clone(),
        alive: RefCell::new(Vec::new()),
        peak: Cell::new(0),
    }
}

/// `n` Workloads of 1 cpu in LocalQueue `ns/queue`, finished when `finished`.
fn many(world: &mut World, n: usize, queue: &str, finished: bool) {
    for i in 0..n {
        let mut w = workload(world, "ns", &format!("w-{i}"), queue, 1);
        if finished {
            let mut st = w.status.clone().unwrap_or_default();
            kubectl_kueue::status::finish(&mut st, "Succeeded", "done", world.now.wall);
            w.status = Some(st);
        }
        world.cache.put_workload(w);
    }
}

/// The re-list's turn syncs every finished Workload without reading it whole: its record
/// keeps no demand, and its head says all the engine keeps.
#[test]
fn the_turn_after_a_relist_reads_no_finished_workload_whole() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    many(&mut world, 3 * READ_KEPT, "lq", true);
    world
        .cache
        .put_workload(workload(&world, "ns", "waiting", "lq", 2));
    let first = world.start();
    world.settle(first);
    assert!(holds_quota(&world, "waiting"));

    let cache = counting(&world);
    world
        .model
        .handle(&cache, Input::Relisted(Kind::Workload), world.now);
    world.model.turn(&cache, world.now);
    let peak = cache.peak.get();
    assert!(peak <= 1, "{peak} whole Workloads alive at once");
    let done = WorkloadKey::new("ns", "w-0");
    assert!(
        world.model.engine().is_finished(&done),
        "still counted as finished"
    );
    assert!(holds_quota(&world, "waiting"), "nothing changed for it");
}

/// A turn that reads every Workload whole (here: a LimitRange changed the requests of all)
/// holds at most `READ_KEPT` of them at once, not one per Workload.
#[test]
fn a_turn_that_reads_every_workload_whole_holds_a_bounded_number_at_once() {
    let n = READ_KEPT + 100;
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    // In a LocalQueue that does not exist: they wait, each told why once.
    many(&mut world, n, "nowhere", false);
    let first = world.start();
    // Their pending writes go out one at a time (as upstream's).
    world.settle_within(first, 4 * n);

    world.cache.limit_ranges.push(Arc::new(
        serde_yaml::from_str(
            "metadata: {name: defaults, namespace: ns}
spec:
  limits:
  - type: Container
    defaultRequest: {memory: 1Gi}
",
        )
        .unwrap(),
    ));
    let cache = counting(&world);
    let input = Input::Changed {
        kind: Kind::LimitRange,
        key: ObjectKey {
            namespace: Some("ns".into()),
            name: "defaults".into(),
        },
    };
    world.model.handle(&cache, input, world.now);
    world.model.turn(&cache, world.now);
    let peak = cache.peak.get();
    assert!(
        peak > READ_KEPT / 2 && peak <= READ_KEPT + 1,
        "{peak} whole Workloads alive at once while {n} were read again"
    );
}
