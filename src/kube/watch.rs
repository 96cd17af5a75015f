//! The controller's view of the cluster: one kube-rs reflector per kind (list, then watch,
//! with kube's default backoff on errors), each feeding a [`Store`] that any task can read,
//! and a change notification (`kind`, [`ObjectKey`]) to the controller loop.
//!
//! Notifications are level triggers: the loop reads the store (the newest state) when it
//! handles one, so a burst of updates to one object costs one reconcile. After a re-list the
//! whole kind is reported (objects deleted while the watch was down get no event of their own);
//! a re-list updates the store in place rather than holding it twice ([`reflect_in_place`]).
//!
//! `metadata.managedFields` is dropped before an object enters a store, as controller-runtime's
//! cache does for upstream: the controller never reads it, and it is most of a Workload's size.
//! Workloads, queues and Jobs, which change most, are decoded without it ([`Lean`]), the rest
//! decoded whole and stripped. Workloads are stored with their pod sets as text
//! ([`StoredWorkload`]), finished ones without pod templates at all (`compact_finished`).

use std::fmt::Debug;
use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{LimitRange, Namespace, Node};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use kube::api::{Api, ListParams};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::lean::{Lean, Parts};
use super::relist::reflect_in_place;
use super::stored::StoredWorkload;
use crate::api::{
    ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use crate::manifests::ObjectKey;
use crate::scheduler::key::WorkloadKey;

/// The kinds the controller watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ResourceFlavor,
    Cohort,
    ClusterQueue,
    LocalQueue,
    WorkloadPriorityClass,
    Workload,
    Namespace,
    Job,
    Node,
    /// LimitRange defaults count in a Workload's requests.
    LimitRange,
    /// A RuntimeClass's overhead counts in a Workload's requests.
    RuntimeClass,
    /// A Job's pod template may take its Workload's priority from one.
    PriorityClass,
}

impl Kind {
    pub const ALL: [Kind; 12] = [
        Kind::ResourceFlavor,
        Kind::Cohort,
        Kind::ClusterQueue,
        Kind::LocalQueue,
        Kind::WorkloadPriorityClass,
        Kind::Workload,
        Kind::Namespace,
        Kind::Job,
        Kind::Node,
        Kind::LimitRange,
        Kind::RuntimeClass,
        Kind::PriorityClass,
    ];

    /// Whether objects of this kind live in a namespace.
    pub fn namespaced(self) -> bool {
        matches!(
            self,
            Kind::LocalQueue | Kind::Workload | Kind::Job | Kind::LimitRange
        )
    }

    /// The key of an object of this kind (the default-namespace rule is
    /// [`ObjectKey`]'s).
    pub fn key_of<K: Resource>(self, obj: &K) -> ObjectKey {
        if self.namespaced() {
            ObjectKey::namespaced(obj.meta())
        } else {
            ObjectKey::cluster_scoped(obj.meta())
        }
    }
}

/// What a watch reports to the controller loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMsg {
    /// The object was added, changed or deleted: read the store for its current state.
    Changed(Kind, ObjectKey),
    /// A (re-)list finished: the store holds a complete picture of the kind.
    Relisted(Kind),
}

/// The store lookup for a key (`namespace/name` for namespaced kinds).
pub fn object_ref<K: reflector::Lookup<DynamicType = ()>>(key: &ObjectKey) -> ObjectRef<K> {
    match &key.namespace {
        Some(ns) => ObjectRef::new(&key.name).within(ns),
        None => ObjectRef::new(&key.name),
    }
}

/// Read access to every watched kind.
#[derive(Clone)]
pub struct Stores {
    pub flavors: Store<ResourceFlavor>,
    pub cohorts: Store<Cohort>,
    pub cluster_queues: Store<ClusterQueue>,
    pub local_queues: Store<LocalQueue>,
    pub priority_classes: Store<WorkloadPriorityClass>,
    pub workloads: Store<StoredWorkload>,
    pub namespaces: Store<Namespace>,
    pub jobs: Store<Job>,
    pub nodes: Store<PartialObjectMeta<Node>>,
    pub limit_ranges: Store<LimitRange>,
    pub runtime_classes: Store<RuntimeClass>,
    pub pod_priority_classes: Store<PriorityClass>,
}

impl Stores {
    /// Waits until every kind has been listed once.
    pub async fn wait_until_ready(&self) -> anyhow::Result<()> {
        let err = |k: &str| anyhow::anyhow!("the {k} watch stopped before its first list");
        self.flavors
            .wait_until_ready()
            .await
            .map_err(|_| err("ResourceFlavor"))?;
        self.cohorts
            .wait_until_ready()
            .await
            .map_err(|_| err("Cohort"))?;
        self.cluster_queues
            .wait_until_ready()
            .await
            .map_err(|_| err("ClusterQueue"))?;
        self.local_queues
            .wait_until_ready()
            .await
            .map_err(|_| err("LocalQueue"))?;
        self.priority_classes
            .wait_until_ready()
            .await
            .map_err(|_| err("WorkloadPriorityClass"))?;
        self.workloads
            .wait_until_ready()
            .await
            .map_err(|_| err("Workload"))?;
        self.namespaces
            .wait_until_ready()
            .await
            .map_err(|_| err("Namespace"))?;
        self.jobs.wait_until_ready().await.map_err(|_| err("Job"))?;
        self.nodes
            .wait_until_ready()
            .await
            .map_err(|_| err("Node"))?;
        self.limit_ranges
            .wait_until_ready()
            .await
            .map_err(|_| err("LimitRange"))?;
        self.runtime_classes
            .wait_until_ready()
            .await
            .map_err(|_| err("RuntimeClass"))?;
        self.pod_priority_classes
            .wait_until_ready()
            .await
            .map_err(|_| err("PriorityClass"))?;
        Ok(())
    }

    fn stored_workload(&self, key: &WorkloadKey) -> Option<Arc<StoredWorkload>> {
        self.workloads
            .get(&ObjectRef::new(&key.name).within(&key.namespace))
    }

    /// The Workload as last seen (rebuilt from the store's compact form).
    pub fn workload(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        self.stored_workload(key).map(|w| Arc::new(w.workload()))
    }

    /// The Workload as last seen, maybe without its pod sets ([`StoredWorkload::head`]).
    pub fn workload_head(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        self.stored_workload(key).map(|w| w.head())
    }

    pub fn has_workload(&self, key: &WorkloadKey) -> bool {
        self.stored_workload(key).is_some()
    }

    pub fn workload_keys(&self) -> Vec<WorkloadKey> {
        self.workloads
            .state()
            .iter()
            .map(|w| ObjectKey::workload(w.metadata()))
            .collect()
    }

    pub fn job(&self, key: &ObjectKey) -> Option<Arc<Job>> {
        self.jobs.get(&object_ref(key))
    }
}

/// What to watch beyond the fixed kinds.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    /// Watch every Job (for `manageJobsWithoutQueueName`), not only queue-labelled ones.
    pub all_jobs: bool,
}

/// Starts every watch. Returns the stores and the tasks (abort them to stop watching).
pub async fn start(
    client: &Client,
    opts: &WatchOptions,
    tx: UnboundedSender<WatchMsg>,
) -> (Stores, Vec<JoinHandle<()>>) {
    let mut tasks = Vec::new();
    let cfg = watcher::Config::default;
    let (flavors, t) = spawn(
        Api::all(client.clone()),
        cfg(),
        Kind::ResourceFlavor,
        tx.clone(),
    );
    tasks.push(t);
    // Clusters running an older Kueue may lack the Cohort kind: then there are none.
    let cohorts = if served::<Cohort>(client).await {
        let (s, t) = spawn(Api::all(client.clone()), cfg(), Kind::Cohort, tx.clone());
        tasks.push(t);
        s
    } else {
        tracing::warn!(
            "the Cohort kind is not served: cohorts are only those named by ClusterQueues"
        );
        empty_store()
    };
    let (cluster_queues, t) = spawn_lean(client, cfg(), Kind::ClusterQueue, keep, tx.clone());
    tasks.push(t);
    let (local_queues, t) = spawn_lean(client, cfg(), Kind::LocalQueue, keep, tx.clone());
    tasks.push(t);
    let (priority_classes, t) = spawn(
        Api::all(client.clone()),
        cfg(),
        Kind::WorkloadPriorityClass,
        tx.clone(),
    );
    tasks.push(t);
    let (workloads, t) = spawn_lean(client, cfg(), Kind::Workload, store_workload, tx.clone());
    tasks.push(t);
    let (namespaces, t) = spawn(Api::all(client.clone()), cfg(), Kind::Namespace, tx.clone());
    tasks.push(t);
    let job_cfg = if opts.all_jobs {
        cfg()
    } else {
        cfg().labels(crate::api::QUEUE_NAME_LABEL)
    };
    let (jobs, t) = spawn_lean(client, job_cfg, Kind::Job, keep, tx.clone());
    tasks.push(t);
    let (nodes, t) = spawn(
        Api::<PartialObjectMeta<Node>>::all(client.clone()),
        cfg(),
        Kind::Node,
        tx.clone(),
    );
    tasks.push(t);
    let (limit_ranges, t) = spawn(
        Api::all(client.clone()),
        cfg(),
        Kind::LimitRange,
        tx.clone(),
    );
    tasks.push(t);
    let (runtime_classes, t) = spawn(
        Api::all(client.clone()),
        cfg(),
        Kind::RuntimeClass,
        tx.clone(),
    );
    tasks.push(t);
    let (pod_priority_classes, t) = spawn(Api::all(client.clone()), cfg(), Kind::PriorityClass, tx);
    tasks.push(t);
    let stores = Stores {
        flavors,
        cohorts,
        cluster_queues,
        local_queues,
        priority_classes,
        workloads,
        namespaces,
        jobs,
        nodes,
        limit_ranges,
        runtime_classes,
        pod_priority_classes,
    };
    (stores, tasks)
}

async fn served<K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug>(
    client: &Client,
) -> bool {
    let api: Api<K> = Api::all(client.clone());
    !matches!(api.list(&ListParams::default().limit(1)).await, Err(kube::Error::Api(e)) if e.code == 404)
}

fn empty_store<K: reflector::Lookup + Clone + 'static>() -> Store<K>
where
    K::DynamicType: Default + Eq + std::hash::Hash + Clone,
{
    let (reader, mut writer) = reflector::store::<K>();
    writer.apply_watcher_event(&watcher::Event::Init);
    writer.apply_watcher_event(&watcher::Event::InitDone);
    // The writer may go: readers keep the (empty, ready) state.
    std::mem::forget(writer);
    reader
}

fn spawn<K>(
    api: Api<K>,
    cfg: watcher::Config,
    kind: Kind,
    tx: UnboundedSender<WatchMsg>,
) -> (Store<K>, JoinHandle<()>)
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let (reader, writer) = reflector::store();
    let objects = watcher(api, cfg)
        .default_backoff()
        .modify(|o| o.meta_mut().managed_fields = None);
    let stream = reflect_in_place(writer, reader.clone(), objects);
    (reader, tokio::spawn(forward(stream, kind, tx)))
}

/// [`spawn`] for a kind decoded without its managed fields; the store keeps each object as
/// `store_as` makes it.
fn spawn_lean<K, S>(
    client: &Client,
    cfg: watcher::Config,
    kind: Kind,
    store_as: fn(K) -> S,
    tx: UnboundedSender<WatchMsg>,
) -> (Store<S>, JoinHandle<()>)
where
    K: Parts + Clone + Debug + Send + Sync + 'static,
    S: Resource<DynamicType = ()> + Clone + Debug + Send + Sync + 'static,
{
    let (reader, writer) = reflector::store();
    let api: Api<Lean<K>> = Api::all(client.clone());
    let objects = watcher(api, cfg)
        .default_backoff()
        .map(move |ev| ev.map(|e| unwrap_event(e, store_as)));
    let stream = reflect_in_place(writer, reader.clone(), objects);
    (reader, tokio::spawn(forward(stream, kind, tx)))
}

/// Keeps an object as decoded.
fn keep<K>(o: K) -> K {
    o
}

/// A Workload as the store keeps it: finished ones without pod templates, and pod sets as
/// text ([`StoredWorkload`]).
fn store_workload(mut wl: Workload) -> StoredWorkload {
    compact_finished(&mut wl);
    StoredWorkload::new(wl)
}

/// A finished Workload keeps its pod sets' names and counts but not their pod templates.
///
/// Nothing reads a finished Workload's pods: it holds no quota, its Job is done with it,
/// and the scheduler counts nothing for it. Yet a pod template is most of a decoded Workload
/// (a container alone is over 2 KiB of struct), and a cluster keeps its finished Workloads
/// until they are deleted: at upstream's baseline shape, 15,000 of them. Only the store's
/// copy is trimmed: should the condition ever go, the watch event that shows it brings the
/// whole object again.
fn compact_finished(wl: &mut Workload) {
    if wl.is_finished() {
        for ps in &mut wl.spec.pod_sets {
            ps.template = Default::default();
        }
    }
}

fn unwrap_event<K, S>(e: watcher::Event<Lean<K>>, store_as: fn(K) -> S) -> watcher::Event<S> {
    match e {
        watcher::Event::Apply(o) => watcher::Event::Apply(store_as(o.0)),
        watcher::Event::Delete(o) => watcher::Event::Delete(store_as(o.0)),
        watcher::Event::Init => watcher::Event::Init,
        watcher::Event::InitApply(o) => watcher::Event::InitApply(store_as(o.0)),
        watcher::Event::InitDone => watcher::Event::InitDone,
    }
}

async fn forward<K, S>(stream: S, kind: Kind, tx: UnboundedSender<WatchMsg>)
where
    K: Resource + ResourceExt,
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>>,
{
    futures::pin_mut!(stream);
    let mut failing = false;
    while let Some(ev) = stream.next().await {
        let msg = match ev {
            Ok(watcher::Event::Apply(o)) | Ok(watcher::Event::Delete(o)) => {
                Some(WatchMsg::Changed(kind, kind.key_of(&o)))
            }
            Ok(watcher::Event::InitDone) => Some(WatchMsg::Relisted(kind)),
            Ok(_) => None,
            Err(e) => {
                // The backoff retries; say it once per outage, not once per attempt.
                if !failing {
                    tracing::warn!(kind = ?kind, error = %e, "watch failed; retrying with backoff");
                }
                failing = true;
                None
            }
        };
        if let Some(msg) = msg {
            if failing {
                tracing::info!(kind = ?kind, "watch recovered");
                failing = false;
            }
            if tx.send(msg).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(finished: &str) -> Workload {
        serde_yaml::from_str(&format!(
            r#"
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: w, namespace: ns}}
spec:
  queueName: q
  podSets:
  - name: main
    count: 3
    template:
      spec:
        containers:
        - name: c
          image: busybox
          resources: {{requests: {{cpu: "1"}}}}
status:
  conditions:
  - type: Finished
    status: "{finished}"
    reason: Succeeded
    message: done
    lastTransitionTime: "2026-12-04T00:00:00Z"
"#
        ))
        .expect("test workload")
    }

    #[test]
    fn a_finished_workload_is_kept_without_pod_templates() {
        let mut wl = workload("True");
        compact_finished(&mut wl);
        let ps = &wl.spec.pod_sets[0];
        assert_eq!((ps.name.as_str(), ps.count), ("main", 3));
        assert!(ps.template.spec.is_none());
        assert_eq!(wl.spec.queue_name.as_deref(), Some("q"));
        assert!(wl.status.is_some());
    }

    #[test]
    fn an_unfinished_workload_is_kept_whole() {
        let mut wl = workload("False");
        let before = wl.clone();
        compact_finished(&mut wl);
        assert_eq!(wl, before);
    }
}
