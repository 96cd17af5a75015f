//! The controller's pure model, in the manner of Linkerd's policy controller: an index fed
//! by the watches, decisions out as data. It owns the engine and every piece of bookkeeping
//! (per-Workload and per-Job books, overlays of our own writes, dirty sets), consumes typed
//! [`Input`]s (watch notices, write outcomes, ticks) with the time passed in, reads the
//! cluster through a [`Cache`], and answers with [`Action`]s: Workload status writes with
//! their [`Effect`]s, Workload creates and patches, Job patches, queue status writes, Events
//! and metric updates. It holds no client, channel, store or registry: the shell
//! (`controller::shell`) performs the actions and reports their outcomes back.
//!
//! Each [`Model::turn`]:
//! 1. re-reads the queue configuration if it changed ([`config`]),
//! 2. brings changed Workloads into the engine ([`sync`], policy in [`crate::policy`]),
//! 3. reconciles changed Jobs ([`jobs`], decisions in [`crate::integration::job`]),
//! 4. runs scheduling cycles if anything changed ([`scheduling`]),
//! 5. sends the Workload status writes decided ([`workloads`], shapes in [`crate::status`]),
//! 6. refreshes ClusterQueue/LocalQueue status ([`queues`]) and the gauges (`gauges`); the
//!    series of queues and cohorts gone are dropped as they go (`lifetimes`).
//!
//! Invariants: nothing here waits or performs I/O; the same inputs in the same order with the
//! same cache give the same actions (the engine is deterministic, and every set whose order
//! reaches an action is ordered: the books are a hash map, only looked up or gathered into
//! ordered sets). Quota an admission takes is held from the decision on; a failed write
//! gives it back when the Workload is re-read; freed quota is reused only after the release is
//! written.

pub mod book;
pub mod cache;
pub mod config;
pub mod events;
pub mod finalizers;
mod gauges;
pub mod jobs;
pub mod last_valid;
mod lifetimes;
mod max_exec;
mod measures;
mod ownership;
pub mod plan;
mod pods_ready;
pub mod queues;
pub mod scheduling;
mod sizes;
pub mod sync;
pub mod workloads;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::core::v1::ObjectReference;

pub use book::{JobBook, PENDING_REFRESH, READ_KEPT, WlBook, owner_job};
pub use cache::{Cache, MemoryCache};
pub use plan::{
    Action, Effect, EventText, Input, Now, PendingWords, Plan, StatusWrite, WriteError, WriteResult,
};
pub use sizes::Sizes;
pub use workloads::BACKGROUND_IN_FLIGHT;

use crate::api::Workload;
use crate::api::config::Configuration;
use crate::integration::job::ManagedJobs;
use crate::kube::watch::Kind;
use crate::manifests::ObjectKey;
use crate::manifests::key::DEFAULT_NAMESPACE;
use crate::manifests::requests::RequestContext;
use crate::metrics::{LocalQueueRef, MetricUpdate};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::ClusterState;
use crate::scheduler::{Engine, EquivalentDecisions};
use ownership::Ownership;

/// Settings from the Configuration and the command line.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub strict_namespace_selector: bool,
    pub exclude_resource_prefixes: Vec<String>,
    /// Which Jobs the Job integration manages.
    pub managed_jobs: ManagedJobs,
    /// The Configuration file, when one was given (it then also drives the scheduler).
    pub config: Option<Configuration>,
    /// Which LocalQueues report `kueue_local_queue_*` metrics; `None`: none.
    pub local_queue_metrics: Option<crate::scheduler::labels::LabelSelector>,
}

/// The model's state. Only the loop task holds it.
pub struct Model {
    settings: Settings,
    engine: Engine,
    /// The queue/flavor/cohort/namespace picture the engine was last built from.
    base: ClusterState,
    /// Hashed: looked up several times per Workload a turn touches (a string-keyed ordered
    /// map of tens of thousands of books spent 14% of the controller's CPU at large-scale
    /// comparing keys). Nothing depends on its order.
    wls: HashMap<WorkloadKey, WlBook>,
    jobs: BTreeMap<ObjectKey, JobBook>,
    /// Job <-> its Workload.
    owned: Ownership,
    dirty_wls: BTreeSet<WorkloadKey>,
    /// When a Workload's book has a time that falls due (`Ctx::wake`), so the tick visits
    /// only those books, not all of them (a cluster keeps thousands of finished ones). An
    /// entry can be stale (the time cleared or moved): the tick checks the book itself.
    wakeups: BTreeSet<(Instant, WorkloadKey)>,
    /// Workloads with a status write not yet sent.
    planned: BTreeSet<WorkloadKey>,
    /// Background writes waiting for the lane, oldest first (an entry whose plan was sent
    /// or replaced meanwhile is skipped).
    background_queue: std::collections::VecDeque<WorkloadKey>,
    /// Workloads whose background write is in flight.
    background_sending: BTreeSet<WorkloadKey>,
    dirty_jobs: BTreeSet<ObjectKey>,
    config_dirty: bool,
    /// The engine changed since the last scheduling cycle.
    schedule: bool,
    /// Queue status and gauges need recomputing.
    queues_dirty: bool,
    /// Which queues and cohorts have series, and which gauges appeared.
    lifetimes: lifetimes::Lifetimes,
    /// A queue or cohort changed: look for those gone.
    lifetimes_dirty: bool,
    busy_queues: BTreeSet<ObjectKey>,
    queues_next_at: Option<Instant>,
    /// Nodes or flavors changed: check which flavors match no Node.
    nodes_dirty: bool,
    /// Flavors reported as matching no Node.
    flavors_without_nodes: BTreeSet<String>,
    /// Invalid queue objects already reported.
    reported_invalid: BTreeSet<String>,
    /// ClusterQueue and ResourceFlavor finalizer writes.
    finalizer_writes: finalizers::FinalizerWrites,
    /// The last valid spec of each queue object, for when an edit is rejected.
    last_valid: last_valid::LastValid,
    /// The queue specs the engine was last built from (a status-only change keeps it).
    queue_specs: config::QueueSpecs,
    /// The queues changed since `queue_specs` was compared with the cache.
    stale_queues: config::StaleQueues,
    /// LimitRange defaults and RuntimeClass overheads, for Workload requests.
    requests: RequestContext,
    /// Counts the changes of `requests`: a Workload's demand computed under another version
    /// is computed again.
    requests_version: u64,
    /// LimitRanges or RuntimeClasses changed: recount every Workload's requests.
    requests_dirty: bool,
    /// What the shell has not taken yet.
    actions: Vec<Action>,
    /// Scheduling cycles that admitted a workload (a diagnostic the sizes report).
    admitting_cycles: u64,
}

/// One call into the model: its state, read access to the cluster, and the time.
pub(crate) struct Ctx<'a> {
    m: &'a mut Model,
    cache: &'a dyn Cache,
    now: Now,
    /// Workloads read from the cache during this turn: the watch store keeps them compact
    /// and rebuilds one on every read, and a turn reads the same Workload several times.
    read: HashMap<WorkloadKey, Option<Arc<Workload>>>,
}

/// A namespaced watch key as a Workload key (the default-namespace rule of
/// [`crate::manifests::key`]).
fn workload_key(key: &ObjectKey) -> WorkloadKey {
    WorkloadKey::new(
        key.namespace.as_deref().unwrap_or(DEFAULT_NAMESPACE),
        key.name.clone(),
    )
}

impl Model {
    pub fn new(settings: Settings) -> Model {
        // Only what changes a status is a decision here: a deep queue parked again at every
        // release makes no decision per parked workload.
        let mut engine = Engine::new(ClusterState::default());
        engine.set_equivalent_decisions(EquivalentDecisions::OnChange);
        // Nor does a cohort tree where nothing changed since its last cycle (a thousand
        // preemptors waiting for their victims' releases, at upstream's large-scale shape).
        engine.set_skip_quiet_trees(true);
        // Finished workloads are kept as their key and LocalQueue, out of the workload
        // records (50,000 of them at the end of upstream's large-scale shape).
        engine.set_compact_finished(true);
        Model {
            settings,
            engine,
            base: ClusterState::default(),
            wls: HashMap::new(),
            jobs: BTreeMap::new(),
            owned: Ownership::default(),
            dirty_wls: BTreeSet::new(),
            wakeups: BTreeSet::new(),
            planned: BTreeSet::new(),
            background_queue: Default::default(),
            background_sending: BTreeSet::new(),
            dirty_jobs: BTreeSet::new(),
            config_dirty: true,
            schedule: true,
            queues_dirty: true,
            lifetimes: lifetimes::Lifetimes::default(),
            lifetimes_dirty: true,
            busy_queues: BTreeSet::new(),
            queues_next_at: None,
            nodes_dirty: true,
            flavors_without_nodes: BTreeSet::new(),
            reported_invalid: BTreeSet::new(),
            finalizer_writes: finalizers::FinalizerWrites::default(),
            last_valid: last_valid::LastValid::default(),
            queue_specs: config::QueueSpecs::default(),
            stale_queues: Default::default(),
            requests: RequestContext::default(),
            requests_version: 0,
            requests_dirty: true,
            actions: Vec::new(),
            admitting_cycles: 0,
        }
    }

    fn ctx<'a>(&'a mut self, cache: &'a dyn Cache, now: Now) -> Ctx<'a> {
        Ctx {
            m: self,
            cache,
            now,
            read: HashMap::new(),
        }
    }

    /// Once the caches are synced: the queue configuration, then everything the lists
    /// brought needs a look, Workloads (with their admissions) before the first cycle so
    /// nothing is admitted twice after a restart.
    pub fn start(&mut self, cache: &dyn Cache, now: Now) {
        let mut cx = self.ctx(cache, now);
        cx.sync_config();
        for key in cache.workload_keys() {
            cx.m.dirty_wls.insert(key);
        }
        for j in cache.jobs() {
            cx.m.dirty_jobs.insert(ObjectKey::namespaced(&j.metadata));
        }
    }

    /// Takes one input in. The work it causes happens in the next [`Model::turn`].
    pub fn handle(&mut self, cache: &dyn Cache, input: Input, now: Now) {
        let mut cx = self.ctx(cache, now);
        match input {
            Input::Changed { kind, key } => cx.changed(kind, Some(key)),
            Input::Relisted(kind) => cx.changed(kind, None),
            Input::Tick => cx.tick(),
            Input::WorkloadWritten { key, result } => cx.on_workload_written(key, result),
            Input::WorkloadCreated { job, result } => cx.on_workload_created(job, result),
            Input::WorkloadPatched { key, result } => cx.on_workload_patched(key, result),
            Input::JobWritten { key, result, event } => cx.on_job_written(key, result, event),
            Input::QueueWritten { key, ok } => cx.on_queue_written(key, ok),
            Input::QueueFinalizersWritten { kind, name, result } => {
                cx.on_queue_finalizers_written(kind, name, result)
            }
            Input::WorkloadRead { key, result } => cx.on_workload_read(key, result),
            Input::JobRead {
                key,
                workload,
                result,
            } => cx.on_job_read(key, workload, result),
        }
    }

    /// One turn (see the module docs).
    pub fn turn(&mut self, cache: &dyn Cache, now: Now) {
        let mut cx = self.ctx(cache, now);
        let stale = std::mem::take(&mut cx.m.stale_queues);
        if !cx.m.config_dirty && cx.m.queue_specs.changed_at(cx.cache, &stale) {
            cx.m.config_dirty = true;
        }
        if cx.m.config_dirty {
            // Whatever changed the configuration may have taken a queue or cohort away.
            cx.m.lifetimes_dirty = true;
            cx.sync_config();
        }
        if cx.m.lifetimes_dirty {
            cx.forget_gone();
        }
        if cx.m.requests_dirty {
            cx.sync_request_context();
        }
        for key in std::mem::take(&mut cx.m.dirty_wls) {
            cx.sync_workload(&key);
            cx.forget_finished_book(&key);
        }
        for key in std::mem::take(&mut cx.m.dirty_jobs) {
            cx.reconcile_job(&key);
        }
        cx.schedule();
        cx.flush_plans();
        cx.update_queues();
        if cx.m.nodes_dirty {
            cx.check_flavor_nodes();
        }
    }

    /// The actions decided since the last call, in order.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    /// Scheduling cycles are left over from the last turn (it stopped to let new inputs
    /// in): turn again at once rather than at the next tick.
    pub fn wants_turn(&self) -> bool {
        self.schedule
    }

    /// The engine, to look at (tests, diagnostics).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The bookkeeping of one Workload, to look at.
    pub fn workload_book(&self, key: &WorkloadKey) -> Option<&WlBook> {
        self.wls.get(key)
    }
}

impl Ctx<'_> {
    /// Every Workload in the cache gets looked at again on this turn.
    fn mark_every_cached_workload_dirty(&mut self) {
        let all = self.cache.workload_keys();
        self.m.dirty_wls.extend(all);
    }

    fn act(&mut self, action: Action) {
        self.m.actions.push(action);
    }

    fn event(&mut self, about: ObjectReference, text: EventText) {
        self.act(Action::Event { about, text });
    }

    fn metric(&mut self, update: MetricUpdate) {
        self.m.lifetimes.saw(&update);
        self.act(Action::Metric(update));
    }

    /// The LocalQueue `queue_name` in `namespace`, when it exists and its metrics are
    /// exposed (LocalQueue metrics on, its labels matching the selector).
    fn exposed_local_queue(&self, namespace: &str, queue_name: &str) -> Option<LocalQueueRef> {
        let selector = self.m.settings.local_queue_metrics.as_ref()?;
        self.cache.local_queues().iter().find_map(|lq| {
            let ns = lq
                .metadata
                .namespace
                .as_deref()
                .unwrap_or(DEFAULT_NAMESPACE);
            let name = lq.metadata.name.as_deref().unwrap_or_default();
            let labels = lq.metadata.labels.clone().unwrap_or_default();
            (ns == namespace && name == queue_name && selector.matches(&labels)).then(|| {
                LocalQueueRef {
                    namespace: ns.to_string(),
                    name: name.to_string(),
                }
            })
        })
    }

    /// [`Self::exposed_local_queue`] of a Workload's `spec.queueName`.
    fn exposed_local_queue_of(&self, w: &crate::api::Workload) -> Option<LocalQueueRef> {
        let ns = w.metadata.namespace.as_deref().unwrap_or(DEFAULT_NAMESPACE);
        self.exposed_local_queue(ns, w.spec.queue_name.as_deref().unwrap_or_default())
    }

    /// Re-reads LimitRanges and RuntimeClasses; every Workload is looked at again if what
    /// they add to requests changed.
    fn sync_request_context(&mut self) {
        self.m.requests_dirty = false;
        let limit_ranges = self.cache.limit_ranges();
        let runtime_classes = self.cache.runtime_classes();
        let context = RequestContext::new(
            limit_ranges.iter().map(|l| &**l),
            runtime_classes.iter().map(|r| &**r),
        );
        if context == self.m.requests {
            return;
        }
        self.m.requests = context;
        self.m.requests_version += 1;
        self.mark_every_cached_workload_dirty();
    }

    fn changed(&mut self, kind: Kind, key: Option<ObjectKey>) {
        match (kind, key) {
            (Kind::Workload, Some(k)) => {
                let k = workload_key(&k);
                let stored = self.cache.workload_head(&k);
                if let Some(b) = self.m.wls.get_mut(&k) {
                    match &stored {
                        // Reported but not in the store: deleted. Our copy of it goes too.
                        None => b.overlay = None,
                        // The version we last synced (our own write's echo): nothing new.
                        Some(w) if b.synced_rv != 0 && book::rv(&**w) == Some(b.synced_rv) => {
                            // As on any read: our copy goes once the store caught up with it
                            // (kept, a whole Workload per book would stay for good).
                            b.unseen = false;
                            book::newest(Some(&**w), &mut b.overlay, false);
                            self.forget_finished_book(&k);
                            return;
                        }
                        Some(_) => {}
                    }
                }
                self.m.dirty_wls.insert(k);
            }
            (Kind::Workload, None) => {
                self.mark_every_cached_workload_dirty();
                // And every one we know of, gone from the store or not (not every Workload
                // the engine holds has a book).
                let known: Vec<WorkloadKey> = self.m.wls.keys().cloned().collect();
                self.m.dirty_wls.extend(known);
                self.m.dirty_wls.extend(self.m.engine.workload_keys());
            }
            (Kind::Job, Some(k)) => {
                if self.cache.job(&k).is_none()
                    && let Some(b) = self.m.jobs.get_mut(&k)
                {
                    b.overlay = None;
                }
                self.m.dirty_jobs.insert(k);
            }
            (Kind::Job, None) => {
                let all: Vec<ObjectKey> = self
                    .cache
                    .jobs()
                    .iter()
                    .map(|j| ObjectKey::namespaced(&j.metadata))
                    .collect();
                self.m.dirty_jobs.extend(all);
                let known: Vec<ObjectKey> = self.m.jobs.keys().cloned().collect();
                self.m.dirty_jobs.extend(known);
            }
            (Kind::WorkloadPriorityClass | Kind::PriorityClass, _) => {
                // Jobs refused for a missing class may go now.
                let waiting: Vec<ObjectKey> = self
                    .m
                    .jobs
                    .iter()
                    .filter(|(_, b)| b.reported.is_some())
                    .map(|(k, _)| k.clone())
                    .collect();
                self.m.dirty_jobs.extend(waiting);
            }
            (Kind::ClusterQueue | Kind::LocalQueue, key) => {
                self.m.queues_dirty = true;
                // Compared once per turn, not per event; only a change of what the queue
                // configuration is built from (not our status writes echoing back, many a
                // second) is looked at further, series lifetimes included.
                self.m.stale_queues.mark(kind == Kind::ClusterQueue, key);
            }
            (Kind::ResourceFlavor, _) => {
                self.m.config_dirty = true;
                self.m.queues_dirty = true;
                self.m.nodes_dirty = true;
                // Jobs waiting to start may need a flavor that just appeared.
                let all: Vec<ObjectKey> = self.m.owned.jobs().cloned().collect();
                self.m.dirty_jobs.extend(all);
            }
            (Kind::Cohort, _) => {
                self.m.config_dirty = true;
                self.m.lifetimes_dirty = true;
            }
            (Kind::Namespace, _) => self.m.config_dirty = true,
            (Kind::Node, _) => self.m.nodes_dirty = true,
            (Kind::LimitRange | Kind::RuntimeClass, _) => self.m.requests_dirty = true,
        }
    }

    /// Timers that ran out: backoffs and maximum execution times (look at those Workloads
    /// and Jobs again), read-backs, and pending messages held back for their refresh. One
    /// pass over the books.
    fn tick(&mut self) {
        let now = self.now.instant;
        if self.m.finalizer_writes.due(now) {
            self.m.queues_dirty = true;
        }
        let due = |t: Option<Instant>| t.is_some_and(|t| t <= now);
        let mut woken = BTreeSet::new();
        while let Some((at, _)) = self.m.wakeups.first()
            && *at <= now
        {
            woken.extend(self.m.wakeups.pop_first().map(|(_, k)| k));
        }
        let mut retry = Vec::new();
        let mut reread = Vec::new();
        let mut refresh = Vec::new();
        for k in woken {
            let Some(b) = self.m.wls.get_mut(&k) else {
                continue;
            };
            if due(b.retry_at) {
                b.retry_at = None;
                retry.push(k.clone());
            }
            // Its maximum execution time runs out ([`max_exec`]).
            if due(b.look_at) {
                b.look_at = None;
                retry.push(k.clone());
            }
            if due(b.reread_at) {
                b.reread_at = None;
                reread.push(k.clone());
            }
            // Its Job left the watch running ([`jobs::LEFT_JOB_REREAD`]).
            if due(b.job_reread_at) {
                b.job_reread_at = None;
                b.job_read = false;
                retry.push(k.clone());
            }
            if due(b.held_message.as_ref().map(|h| h.at)) {
                refresh.extend(b.held_message.take().map(|h| (k.clone(), *h)));
            }
        }
        // Every time set in a book came with its wakeup: none is left due.
        #[cfg(debug_assertions)]
        for (k, b) in &self.m.wls {
            let times = [b.retry_at, b.look_at, b.reread_at, b.job_reread_at];
            let held = b.held_message.as_ref().map(|h| h.at);
            assert!(
                !times.into_iter().chain([held]).any(due),
                "{k}: a time in its book fell due without a wakeup"
            );
        }
        self.m.dirty_wls.extend(retry);
        for key in reread {
            self.act(Action::ReadWorkload { key });
        }
        for (key, held) in refresh {
            // Still waiting, as it was when the message was held back.
            if self.m.engine.workload(&key).is_some() && self.m.engine.holding_queue(&key).is_none()
            {
                self.plan_pending(&key, &held.reason, &held.message);
            }
        }
        let mut jobs = Vec::new();
        for (k, b) in self.m.jobs.iter_mut() {
            if due(b.retry_at) {
                b.retry_at = None;
                jobs.push(k.clone());
            }
        }
        self.m.dirty_jobs.extend(jobs);
    }
}
