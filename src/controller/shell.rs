//! The controller's I/O shell around the pure [`model`](super::model): the watches feed it,
//! the `tokio::select!` loop hands it inputs with the time, and every [`Action`] it decides
//! is performed here: writes through the [`Writer`] as separate tasks (many at once, never
//! awaited by the loop; beyond their lane's limit they wait as data, in order) whose
//! outcomes come back as inputs, Events fire and forget, metric
//! updates applied to the registry. Nothing here decides anything.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::kube::client::Connection;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Namespace;
use tokio::sync::mpsc::{self, UnboundedSender};

use super::model::{
    Action, Cache, EventText, Input, Model, Now, Settings, WriteError, WriteResult,
};
use super::{Options, http};
use crate::api::{
    ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use crate::integration::job::JobStep;
use crate::kube::apply::Writer;
use crate::kube::lease::Election;
use crate::kube::watch::{self, Kind, Stores, WatchMsg, WatchOptions};
use crate::manifests::ObjectKey;
use crate::metrics::Metrics;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;

/// Milliseconds since the epoch, now.
pub(super) fn now_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// The system clock, for the model.
fn now() -> Now {
    Now {
        wall: now_ms(),
        instant: Instant::now(),
    }
}

impl Cache for Stores {
    fn workload(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        Stores::workload(self, key)
    }
    fn workload_head(&self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        Stores::workload_head(self, key)
    }
    fn job(&self, key: &ObjectKey) -> Option<Arc<Job>> {
        Stores::job(self, key)
    }
    fn has_workload(&self, key: &WorkloadKey) -> bool {
        Stores::has_workload(self, key)
    }
    fn workload_keys(&self) -> Vec<WorkloadKey> {
        Stores::workload_keys(self)
    }
    fn jobs(&self) -> Vec<Arc<Job>> {
        self.jobs.state()
    }
    fn flavors(&self) -> Vec<Arc<ResourceFlavor>> {
        self.flavors.state()
    }
    fn cohorts(&self) -> Vec<Arc<Cohort>> {
        self.cohorts.state()
    }
    fn cluster_queues(&self) -> Vec<Arc<ClusterQueue>> {
        self.cluster_queues.state()
    }
    fn local_queues(&self) -> Vec<Arc<LocalQueue>> {
        self.local_queues.state()
    }
    fn cluster_queue(&self, key: &ObjectKey) -> Option<Arc<ClusterQueue>> {
        self.cluster_queues.get(&watch::object_ref(key))
    }
    fn local_queue(&self, key: &ObjectKey) -> Option<Arc<LocalQueue>> {
        self.local_queues.get(&watch::object_ref(key))
    }
    fn namespaces(&self) -> Vec<Arc<Namespace>> {
        self.namespaces.state()
    }
    fn priority_classes(&self) -> Vec<Arc<WorkloadPriorityClass>> {
        self.priority_classes.state()
    }
    fn namespace_labels(&self, name: &str) -> BTreeMap<String, String> {
        let key = ObjectKey {
            namespace: None,
            name: name.to_string(),
        };
        self.namespaces
            .get(&watch::object_ref(&key))
            .and_then(|n| n.metadata.labels.clone())
            .unwrap_or_default()
    }
    fn node_labels(&self) -> Vec<BTreeMap<String, String>> {
        self.nodes
            .state()
            .iter()
            .map(|n| n.metadata.labels.clone().unwrap_or_default())
            .collect()
    }
    fn limit_ranges(&self) -> Vec<Arc<k8s_openapi::api::core::v1::LimitRange>> {
        self.limit_ranges.state()
    }
    fn runtime_classes(&self) -> Vec<Arc<k8s_openapi::api::node::v1::RuntimeClass>> {
        self.runtime_classes.state()
    }
    fn pod_priority_classes(&self) -> Vec<Arc<k8s_openapi::api::scheduling::v1::PriorityClass>> {
        self.pod_priority_classes.state()
    }
}

/// What the model cares about in a failed write. An answer that does not say the write was
/// refused (no answer at all, a timeout, a 504, a 500 timeout from etcd) is an unknown
/// outcome: the API server may have committed it.
fn write_error(e: kube::Error) -> WriteError {
    match &e {
        kube::Error::Api(s) if s.code == 404 => WriteError::NotFound,
        kube::Error::Api(s) if s.code == 409 => WriteError::Conflict,
        kube::Error::Api(s) if s.code == 422 => WriteError::Invalid,
        kube::Error::Api(s)
            if s.code == 504
                || s.reason == "Timeout"
                || (s.code == 500 && s.message.contains("timed out")) =>
        {
            WriteError::Unknown(e.to_string())
        }
        kube::Error::Api(_) => WriteError::Failed(e.to_string()),
        _ => WriteError::Unknown(e.to_string()),
    }
}

fn outcome<T>(r: kube::Result<T>) -> WriteResult<T> {
    r.map_err(write_error)
}

/// A Workload creation's outcome: a refusal keeps the API server's words (they go into an
/// Event on the Job).
fn create_outcome<T>(r: kube::Result<T>) -> WriteResult<T> {
    r.map_err(|e| {
        let words = match &e {
            kube::Error::Api(s) => Some(s.message.clone()),
            _ => None,
        };
        match (write_error(e), words) {
            (WriteError::Invalid | WriteError::Failed(_), Some(m)) => WriteError::Failed(m),
            (other, _) => other,
        }
    })
}

/// Actions waiting for a slot in one lane, and the tasks running in it. A waiting write is
/// data (its action), not a task: at large-scale, with the API server saturated, ten
/// thousand writes can wait at once, and a spawned task waiting on the Writer's semaphore
/// held about 3 KiB of future each.
struct Lane {
    limit: usize,
    running: Arc<AtomicUsize>,
    waiting: VecDeque<Action>,
    /// The reads at the front of `waiting` ([`Lane::push`]).
    reads_waiting: usize,
}

/// Room a drained lane keeps for its next waiting writes.
const DRAINED_CAPACITY: usize = 1024;

impl Lane {
    fn new(limit: usize) -> Lane {
        Lane {
            limit: limit.max(1),
            running: Arc::new(AtomicUsize::new(0)),
            waiting: VecDeque::new(),
            reads_waiting: 0,
        }
    }

    /// Queues an action: a read waits ahead of every waiting write, behind earlier reads. A
    /// read is cheap for the API server, and a decision waits on it (its Workload stays busy
    /// until it answers): behind thousands of waiting writes, a read-back after a refused
    /// eviction held the victim, and its preemptor, as long as they all took.
    fn push(&mut self, action: Action) {
        if matches!(action, Action::ReadWorkload { .. } | Action::ReadJob { .. }) {
            self.waiting.insert(self.reads_waiting, action);
            self.reads_waiting += 1;
        } else {
            self.waiting.push_back(action);
        }
    }

    fn busy(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0 || !self.waiting.is_empty()
    }

    /// The oldest waiting action if the lane has room, with the lane's counter.
    fn next_ready(&mut self) -> Option<(Action, Arc<AtomicUsize>)> {
        if self.running.load(Ordering::SeqCst) >= self.limit {
            return None;
        }
        let action = self.waiting.pop_front()?;
        self.reads_waiting = self.reads_waiting.saturating_sub(1);
        if self.waiting.is_empty() && self.waiting.capacity() > DRAINED_CAPACITY {
            // A drained backlog gives its room back (a queue never shrinks by itself: tens
            // of thousands of slots would stay for good after one burst).
            self.waiting = VecDeque::new();
        }
        Some((action, self.running.clone()))
    }
}

/// A running task's place in its lane, given back when the task ends (or unwinds).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Performs actions: writes as tasks, at most a lane's limit of them at once (the rest wait
/// in order, reads ahead of writes), their outcomes back to the loop; every task sends one input when it ends, so
/// the loop wakes and starts the next waiting ones ([`Executor::start_waiting`]).
struct Executor {
    writer: Writer,
    metrics: Arc<Metrics>,
    tx: UnboundedSender<Input>,
    main: Lane,
    queue_status: Lane,
}

impl Executor {
    /// Lanes as wide as the Writer's (its own bound then never makes a task wait).
    fn new(writer: Writer, metrics: Arc<Metrics>, tx: UnboundedSender<Input>) -> Executor {
        let (main, queue_status) = writer.lane_limits();
        Executor {
            writer,
            metrics,
            tx,
            main: Lane::new(main),
            queue_status: Lane::new(queue_status),
        }
    }

    /// Performs Events and metric updates at once; queues a write in its lane.
    fn perform(&mut self, action: Action) {
        match action {
            Action::Event { about, text } => {
                self.writer
                    .event(&about, text.warning, &text.reason, &text.note)
            }
            Action::Metric(update) => self.metrics.record(&update),
            Action::WriteClusterQueueStatus { .. } | Action::WriteLocalQueueStatus { .. } => {
                self.queue_status.push(action)
            }
            other => self.main.push(other),
        }
    }

    /// Starts waiting writes, oldest first, as far as their lanes have room.
    fn start_waiting(&mut self) {
        while let Some((action, running)) = self.main.next_ready() {
            self.start(action, running);
        }
        while let Some((action, running)) = self.queue_status.next_ready() {
            self.start(action, running);
        }
    }

    /// Writes waiting and running per lane, and Events queued: `name=count` pairs for the
    /// sizes log.
    fn sizes(&self) -> String {
        let lane = |l: &Lane| (l.waiting.len(), l.running.load(Ordering::SeqCst));
        let ((mw, mr), (qw, qr)) = (lane(&self.main), lane(&self.queue_status));
        format!(
            "writes_waiting={mw} writes_running={mr} queue_writes_waiting={qw} \
             queue_writes_running={qr} events_queued={}",
            self.writer.events_pending()
        )
    }

    /// Writes started or waiting (for a graceful shutdown).
    fn busy(&self) -> bool {
        self.main.busy() || self.queue_status.busy() || self.writer.events_pending() > 0
    }

    /// Runs `fut` as a task counted in `running`; its input, if any, comes back to the loop.
    fn spawn<F>(&self, running: Arc<AtomicUsize>, fut: F)
    where
        F: std::future::Future<Output = Option<Input>> + Send + 'static,
    {
        let tx = self.tx.clone();
        running.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(running);
        tokio::spawn(async move {
            let input = fut.await;
            // The slot is free before the loop hears of it, so it can start the next one.
            drop(slot);
            if let Some(input) = input {
                let _ = tx.send(input);
            }
        });
    }

    /// Starts one write as a task in the lane counted by `running`.
    fn start(&self, action: Action, running: Arc<AtomicUsize>) {
        let writer = self.writer.clone();
        match action {
            Action::WriteWorkloadStatus { key, object, write } => self.spawn(running, async move {
                if tracing::enabled!(tracing::Level::TRACE) {
                    tracing::trace!(workload = %key, write = %write_summary(&object, &write.status), "status write");
                }
                let result = outcome(writer.apply_workload_status(&object, &write.status).await);
                Some(Input::WorkloadWritten { key, result })
            }),
            Action::CreateWorkload { job, workload } => self.spawn(running, async move {
                let result = create_outcome(writer.create_workload(&workload).await);
                Some(Input::WorkloadCreated { job, result })
            }),
            Action::RemoveFinalizer {
                key,
                object,
                finalizer,
            } => self.spawn(running, async move {
                let result = outcome(writer.remove_workload_finalizer(&object, finalizer).await);
                Some(Input::WorkloadPatched { key, result })
            }),
            Action::PatchWorkload { key, object, patch } => self.spawn(running, async move {
                let result = outcome(writer.patch_workload(&object, patch).await);
                Some(Input::WorkloadPatched { key, result })
            }),
            Action::DeleteWorkload { key, object } => self.spawn(running, async move {
                let result = outcome(writer.delete_workload(&object).await);
                Some(Input::WorkloadPatched { key, result })
            }),
            Action::WriteJob { key, steps, event } => self.spawn(running, async move {
                Some(write_job(&writer, key, steps, event).await)
            }),
            Action::WriteClusterQueueStatus { key, status } => self.spawn(running, async move {
                let r = writer.apply_cluster_queue_status(&key.name, &status).await;
                if let Err(e) = &r {
                    tracing::debug!(cluster_queue = %key, error = %e, "could not write ClusterQueue status");
                }
                Some(Input::QueueWritten { key, ok: r.is_ok() })
            }),
            Action::WriteLocalQueueStatus { key, status } => self.spawn(running, async move {
                let ns = key.namespace.clone().unwrap_or_default();
                let r = writer
                    .apply_local_queue_status(&ns, &key.name, &status)
                    .await;
                if let Err(e) = &r {
                    tracing::debug!(local_queue = %key, error = %e, "could not write LocalQueue status");
                }
                Some(Input::QueueWritten { key, ok: r.is_ok() })
            }),
            Action::WriteQueueFinalizers {
                kind,
                name,
                resource_version,
                finalizers,
            } => self.spawn(running, async move {
                let rv = resource_version.as_deref();
                let r = match kind {
                    Kind::ClusterQueue => {
                        writer
                            .set_finalizers::<ClusterQueue>(&name, rv, &finalizers)
                            .await
                    }
                    _ => {
                        writer
                            .set_finalizers::<ResourceFlavor>(&name, rv, &finalizers)
                            .await
                    }
                };
                Some(Input::QueueFinalizersWritten {
                    kind,
                    name,
                    result: outcome(r),
                })
            }),
            Action::ReadWorkload { key } => self.spawn(running, async move {
                let r = writer.read_workload(&key.namespace, &key.name).await;
                Some(Input::WorkloadRead {
                    key,
                    result: outcome(r),
                })
            }),
            Action::ReadJob { key, workload } => self.spawn(running, async move {
                let ns = key.namespace.clone().unwrap_or_default();
                let r = writer.read_job(&ns, &key.name).await;
                Some(Input::JobRead {
                    key,
                    workload,
                    result: outcome(r),
                })
            }),
            // Performed at once by `perform`, never queued.
            Action::Event { .. } | Action::Metric(_) => {}
        }
    }
}

/// Runs Job writes in order. The event belongs to the first step (suspending or starting):
/// upstream reports a stop as soon as the Job is suspended, even if restoring its template
/// fails.
async fn write_job(
    writer: &Writer,
    key: ObjectKey,
    steps: Vec<JobStep>,
    mut event: Option<EventText>,
) -> Input {
    let ns = key.namespace.clone().unwrap_or_default();
    let name = key.name.clone();
    let mut last: Option<Job> = None;
    let mut happened = None;
    for step in steps {
        let r = match step {
            JobStep::Patch(p) => writer.patch_job(&ns, &name, &p).await,
            JobStep::PatchStatus(p) => writer.patch_job_status(&ns, &name, &p).await,
            JobStep::PatchAfter(mut p) => {
                let rv = last
                    .as_ref()
                    .and_then(|j| j.metadata.resource_version.clone());
                p["metadata"]["resourceVersion"] = serde_json::json!(rv);
                writer.patch_job(&ns, &name, &p).await
            }
        };
        match r {
            Ok(j) => {
                last = Some(j);
                happened = happened.or_else(|| event.take());
            }
            Err(e) => {
                return Input::JobWritten {
                    key,
                    result: Err(write_error(e)),
                    event: happened,
                };
            }
        }
    }
    Input::JobWritten {
        key,
        result: Ok(last),
        event: happened,
    }
}

/// How often the loop logs what it holds (at debug level): the counts that show which of
/// its collections grew when its memory does.
const SIZES_EVERY: Duration = Duration::from_secs(10);

pub(super) const LOST: &str = "leader election lost (the lease was not renewed within the renew deadline); exiting so that another replica can lead";

/// Resolves when this replica stops leading (never without leader election).
async fn leadership_lost(election: Option<&mut Election>) {
    match election {
        Some(e) => {
            let _ = e.leader.wait_for(|l| !*l).await;
        }
        None => std::future::pending::<()>().await,
    }
}

/// The next visibility question, or never.
async fn next_question(
    questions: Option<&mut mpsc::Receiver<super::visibility::Question>>,
) -> Option<super::visibility::Question> {
    match questions {
        Some(q) => q.recv().await,
        None => std::future::pending().await,
    }
}

/// The leader's (or the only replica's) work: watch, then loop.
pub(super) async fn lead(
    conn: &Connection,
    opts: &Options,
    metrics: Arc<Metrics>,
    health: Arc<http::Health>,
    hub: Option<&super::visibility::Hub>,
    stop_rx: &mut tokio::sync::watch::Receiver<bool>,
    mut election: Option<&mut Election>,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Input>();
    let (wtx, mut wrx) = mpsc::unbounded_channel::<WatchMsg>();
    let watch_opts = WatchOptions {
        all_jobs: opts.config.manage_jobs_without_queue_name,
    };
    let (stores, watch_tasks) = watch::start(&conn.watch_client, &watch_opts, wtx).await;
    {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(m) = wrx.recv().await {
                let input = match m {
                    WatchMsg::Changed(kind, key) => Input::Changed { kind, key },
                    WatchMsg::Relisted(kind) => Input::Relisted(kind),
                };
                if tx.send(input).is_err() {
                    return;
                }
            }
        });
    }
    tracing::info!("listing the cluster");
    tokio::select! {
        r = stores.wait_until_ready() => r?,
        _ = stop_rx.wait_for(|s| *s) => return Ok(()),
    }
    tracing::info!(
        workloads = stores.workloads.len(),
        jobs = stores.jobs.len(),
        cluster_queues = stores.cluster_queues.len(),
        "caches synced; scheduling"
    );
    health.ready.store(true, Ordering::Relaxed);

    // With leader election, writes go out on connections of their own that check the fence
    // before every byte (a process stopped between the Writer's check and the send, then
    // continued after its term, sends nothing).
    let fence = election.as_deref().map(Election::fence);
    let write_client = match &fence {
        Some(f) => crate::kube::fenced_io::fenced_client(
            &conn.config,
            crate::kube::client::Timeouts::REQUESTS,
            f.clone(),
        )?,
        None => conn.client.clone(),
    };
    let writer = Writer::new(
        write_client,
        opts.max_in_flight,
        opts.client_rate_limit,
        &opts.identity,
    )
    .fenced(fence);
    let mut exec = Executor::new(writer, metrics, tx);
    let mut model = Model::new(settings(opts));
    model.start(&stores, now());
    let mut questions = hub.and_then(|h| h.take_questions());
    if let Some(h) = hub {
        h.set_answering(questions.is_some());
    }

    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lost = false;
    let mut sizes_logged_at = Instant::now();
    loop {
        tokio::select! {
            biased;
            _ = stop_rx.wait_for(|s| *s) => break,
            _ = leadership_lost(election.as_deref_mut()) => {
                lost = true;
                break;
            }
            // Before the inputs: under load they never run dry.
            Some(q) = next_question(questions.as_mut()) => {
                super::visibility::answer(model.engine(), &stores.workloads, q);
                continue;
            }
            input = rx.recv() => {
                let Some(input) = input else { break };
                model.handle(&stores, input, now());
                // Take everything already waiting, up to a bound, before doing the work.
                for _ in 0..4096 {
                    match rx.try_recv() {
                        Ok(input) => model.handle(&stores, input, now()),
                        Err(_) => break,
                    }
                }
            }
            _ = tick.tick() => model.handle(&stores, Input::Tick, now()),
            // Cycles left over from the last turn (it stopped to look at new events): go on
            // at once rather than at the next tick.
            _ = std::future::ready(()), if model.wants_turn() => {}
        }
        model.turn(&stores, now());
        for action in model.take_actions() {
            exec.perform(action);
        }
        exec.start_waiting();
        health.beat();
        if sizes_logged_at.elapsed() >= SIZES_EVERY && tracing::enabled!(tracing::Level::DEBUG) {
            sizes_logged_at = Instant::now();
            tracing::debug!(
                "holding: {} {} inputs_queued={} stored_workloads={}",
                model.sizes(),
                exec.sizes(),
                rx.len(),
                stores.workloads.len()
            );
        }
    }
    if let Some(h) = hub {
        h.set_answering(false);
    }
    for t in watch_tasks {
        t.abort();
    }
    if lost {
        // Upstream exits at once; writes not yet sent are stopped by the fence.
        anyhow::bail!(LOST);
    }
    // Let writes already sent finish (their results no longer matter to us), Events
    // queued included: the lease is released only after, so nothing of ours lands in the
    // next leader's term.
    let deadline = Instant::now() + Duration::from_secs(10);
    while exec.busy() && Instant::now() < deadline {
        exec.start_waiting();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// The model's settings from the command line and the Configuration.
fn settings(opts: &Options) -> Settings {
    Settings {
        strict_namespace_selector: opts.strict_namespace_selector,
        exclude_resource_prefixes: opts
            .config
            .resources
            .as_ref()
            .map(|r| r.exclude_resource_prefixes.clone())
            .unwrap_or_default(),
        managed_jobs: crate::integration::job::ManagedJobs {
            without_queue_name: opts.config.manage_jobs_without_queue_name,
            namespace_selector: opts
                .config
                .managed_jobs_namespace_selector
                .as_ref()
                .map(crate::manifests::pod::label_selector),
        },
        local_queue_metrics: opts.config.local_queue_metrics().map(|sel| {
            sel.map(crate::manifests::pod::label_selector)
                .unwrap_or_default()
        }),
        config: opts.config_given.then(|| opts.config.clone()),
    }
}

/// What a status write changes against the copy it builds on (conditions as
/// `Type=Status/Reason`, `~` for a message-only change, `+admission`/`-admission`): the trace
/// log that tells which kinds of writes a run sends.
fn write_summary(before: &Workload, after: &crate::api::WorkloadStatus) -> String {
    let old = before.status.as_ref();
    let mut out = Vec::new();
    for c in &after.conditions {
        match old.and_then(|s| s.condition(&c.type_)) {
            Some(o) if o.status == c.status && o.reason == c.reason => {
                if o.message != c.message {
                    out.push(format!("~{}", c.type_));
                }
            }
            _ => out.push(format!("{}={}/{}", c.type_, c.status, c.reason)),
        }
    }
    let had = old.is_some_and(|s| s.admission.is_some());
    match (had, after.admission.is_some()) {
        (false, true) => out.push("+admission".into()),
        (true, false) => out.push("-admission".into()),
        _ => {}
    }
    if out.is_empty() {
        out.push("other".into());
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(i: usize) -> Action {
        Action::ReadWorkload {
            key: WorkloadKey::new("ns", format!("w{i}")),
        }
    }

    fn write(i: usize) -> Action {
        Action::WriteQueueFinalizers {
            kind: Kind::ClusterQueue,
            name: format!("cq{i}"),
            resource_version: None,
            finalizers: Vec::new(),
        }
    }

    /// Reads go ahead of the waiting writes, in their own order; writes keep theirs.
    #[test]
    fn a_read_waits_ahead_of_the_writes() {
        let mut lane = Lane::new(1);
        for i in 0..3 {
            lane.push(write(i));
        }
        lane.push(read(0));
        lane.push(write(3));
        lane.push(read(1));
        let order: Vec<Action> = std::iter::from_fn(|| {
            let (action, running) = lane.next_ready()?;
            drop(running);
            Some(action)
        })
        .collect();
        assert_eq!(
            order,
            [read(0), read(1), write(0), write(1), write(2), write(3)]
        );
    }

    /// A burst of waiting writes is sent in order, and once the lane drains it keeps no
    /// more than `DRAINED_CAPACITY` slots of room.
    #[test]
    fn a_drained_lane_gives_its_room_back() {
        let mut lane = Lane::new(1);
        lane.waiting.extend((0..5_000).map(read));
        assert!(lane.waiting.capacity() >= 5_000);
        for i in 0..5_000 {
            let (action, _) = lane.next_ready().expect("room in the lane");
            assert_eq!(action, read(i), "in order");
        }
        assert!(lane.next_ready().is_none());
        assert!(
            lane.waiting.capacity() <= DRAINED_CAPACITY,
            "capacity {} after draining",
            lane.waiting.capacity()
        );
    }
}
