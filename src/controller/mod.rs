//! `run-controller`: upstream Kueue's controller manager for Workloads and batch/v1 Jobs, on
//! top of the pure engine.
//!
//! One task, the loop in [`run`], owns the engine and everything it decides (the single
//! writer; with leader election only the leader runs it). Watches feed it change notices;
//! writes run as separate tasks, many at once, and report back; nothing in the loop waits on
//! the network. Each turn of the loop:
//! 1. re-reads the queue configuration if it changed ([`sync`]),
//! 2. brings changed Workloads into the engine ([`sync`]),
//! 3. reconciles changed Jobs ([`job_reconciler`], decisions in [`crate::integration::job`]),
//! 4. runs scheduling cycles if anything changed ([`scheduling`]),
//! 5. sends the Workload status writes decided ([`workloads`], shapes in [`crate::status`]),
//! 6. refreshes ClusterQueue/LocalQueue status and gauges ([`queues`]).
//!
//! Files: [`state`] (what the loop holds), [`events`] (Event texts), [`http`] (/metrics,
//! /healthz, /readyz).

pub mod events;
pub mod http;
pub mod job_reconciler;
pub mod queues;
pub mod scheduling;
pub mod state;
pub mod sync;
pub mod workloads;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use k8s_openapi::api::batch::v1::Job;
use kube::Client;
use tokio::sync::mpsc;

use crate::api::Workload;
use crate::api::config::Configuration;
use crate::kube::apply::Writer;
use crate::kube::lease::{self, Election, ElectionConfig};
use crate::kube::watch::{self, Kind, WatchMsg, WatchOptions};
use crate::metrics::{Metrics, Role};
use crate::scheduler::Engine;
use crate::scheduler::model::ClusterState;

use state::{Ctl, LoopConfig, Plan};

/// What reaches the loop. (Short-lived, one per event or write: their size does not matter.)
#[allow(clippy::large_enum_variant)]
pub enum Msg {
    Watch(WatchMsg),
    WorkloadWritten {
        key: String,
        result: kube::Result<Workload>,
        plan: Plan,
    },
    WorkloadCreated {
        job: String,
        result: kube::Result<Workload>,
    },
    /// A Workload's metadata or spec patched (finalizer removed, queue changed).
    WorkloadPatched {
        key: String,
        result: kube::Result<Workload>,
    },
    JobWritten {
        key: String,
        result: kube::Result<Option<Job>>,
        event: Option<(String, String)>,
    },
    QueueWritten {
        key: String,
        ok: bool,
    },
}

/// Everything `run` needs, resolved from the command line and the Configuration.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Configuration with upstream's defaults applied.
    pub config: Configuration,
    /// Whether a Configuration file was given (it then also drives the scheduler settings).
    pub config_given: bool,
    pub strict_namespace_selector: bool,
    pub leader_elect: bool,
    pub force: bool,
    pub metrics_addr: Option<SocketAddr>,
    pub health_addr: Option<SocketAddr>,
    /// Writes in flight at most.
    pub max_in_flight: usize,
    /// `(qps, burst)` when the configuration file sets `clientConnection`: a client-side rate
    /// limit. Without it the API server's own flow control sets the pace.
    pub client_rate_limit: Option<(f32, i32)>,
    pub identity: String,
}

impl Options {
    fn election(&self) -> ElectionConfig {
        let le = self.config.leader_election.clone().unwrap_or_default();
        let namespace = le
            .resource_namespace
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| self.config.namespace.clone())
            .unwrap_or_else(|| crate::api::config::DEFAULT_NAMESPACE.to_string());
        ElectionConfig {
            namespace,
            name: le
                .resource_name
                .clone()
                .unwrap_or_else(|| crate::api::config::DEFAULT_LEADER_ELECTION_ID.to_string()),
            identity: self.identity.clone(),
            lease_duration: le
                .lease_duration
                .map(|d| d.0)
                .unwrap_or(Duration::from_secs(15)),
            renew_deadline: le
                .renew_deadline
                .map(|d| d.0)
                .unwrap_or(Duration::from_secs(10)),
        }
    }
}

/// Runs the controller until `shutdown` resolves (then finishes in-flight writes and gives the
/// lease up) or, with leader election, until leadership is lost (an error: the process should
/// exit so a fresh replica can take over).
pub async fn run(
    client: Client,
    opts: Options,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let election_cfg = opts.election();
    // Without the CRDs the watches would retry forever: say what is missing instead.
    let cqs: kube::Api<crate::api::ClusterQueue> = kube::Api::all(client.clone());
    if let Err(kube::Error::Api(e)) = cqs.list(&kube::api::ListParams::default().limit(1)).await
        && e.code == 404
    {
        anyhow::bail!(
            "the cluster does not serve kueue.x-k8s.io/v1beta1 ClusterQueues: install the CRDs first (`kubectl kueue install`, or `kubectl kueue install --without-controller` to run the controller yourself)"
        );
    }
    if !opts.force
        && let Some(evidence) =
            lease::detect_upstream(&client, &election_cfg.namespace, &election_cfg.name).await
    {
        anyhow::bail!(
            "upstream Kueue's controller is already managing this cluster ({evidence}); two controllers would fight over the same Workloads and Jobs. Stop it first (for example `kubectl -n kueue-system scale deployment kueue-controller-manager --replicas=0`), or pass --force to start anyway"
        );
    }
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });

    let resources_enabled = opts
        .config
        .metrics
        .as_ref()
        .is_some_and(|m| m.enable_cluster_queue_resources);
    let metrics = Arc::new(Metrics::new(
        if opts.leader_elect {
            Role::Follower
        } else {
            Role::Standalone
        },
        resources_enabled,
    ));
    let health = Arc::new(http::Health::default());
    let h = opts.config.health.clone().unwrap_or_default();
    let live_path = h
        .liveness_endpoint_name
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "healthz".into());
    let ready_path = h
        .readiness_endpoint_name
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "readyz".into());
    http::serve(
        opts.metrics_addr,
        opts.health_addr,
        metrics.clone(),
        health.clone(),
        &live_path,
        &ready_path,
    )
    .await?;

    let mut election = None;
    if opts.leader_elect {
        // A follower is ready (it serves probes and metrics) while it waits for the lease.
        health.ready.store(true, Ordering::Relaxed);
        tracing::info!(lease = %format!("{}/{}", election_cfg.namespace, election_cfg.name), identity = %opts.identity, "waiting for leadership");
        let mut e = Election::start(client.clone(), &election_cfg).await?;
        tokio::select! {
            r = e.acquired() => r?,
            _ = stop_rx.wait_for(|s| *s) => {
                e.release().await;
                return Ok(());
            }
        }
        tracing::info!(identity = %opts.identity, "became the leader");
        metrics.set_role(Role::Leader);
        health.ready.store(false, Ordering::Relaxed);
        election = Some(e);
    }

    let result = lead(
        client,
        &opts,
        metrics,
        health,
        &mut stop_rx,
        election.as_mut(),
    )
    .await;
    if let Some(e) = election {
        e.release().await;
    }
    result
}

/// The leader's (or the only replica's) work: watch, then loop.
async fn lead(
    client: Client,
    opts: &Options,
    metrics: Arc<Metrics>,
    health: Arc<http::Health>,
    stop_rx: &mut tokio::sync::watch::Receiver<bool>,
    mut election: Option<&mut Election>,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (wtx, mut wrx) = mpsc::unbounded_channel::<WatchMsg>();
    let watch_opts = WatchOptions {
        all_jobs: opts.config.manage_jobs_without_queue_name,
    };
    let (stores, watch_tasks) = watch::start(&client, &watch_opts, wtx).await;
    {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(m) = wrx.recv().await {
                if tx.send(Msg::Watch(m)).is_err() {
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

    let writer = Writer::new(
        client.clone(),
        opts.max_in_flight,
        opts.client_rate_limit,
        &opts.identity,
    );
    let mut ctl = Ctl {
        stores: stores.clone(),
        writer,
        metrics,
        cfg: LoopConfig {
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
        },
        config: opts.config_given.then(|| opts.config.clone()),
        tx,
        engine: Engine::new(ClusterState::default()),
        base: ClusterState::default(),
        wls: BTreeMap::new(),
        jobs: BTreeMap::new(),
        owned: BTreeMap::new(),
        dirty_wls: Default::default(),
        planned: Default::default(),
        dirty_jobs: Default::default(),
        config_dirty: true,
        schedule: true,
        queues_dirty: true,
        busy_queues: Default::default(),
        queues_written_at: None,
        reported_invalid: Default::default(),
        nodes_dirty: true,
        flavors_without_nodes: Default::default(),
        in_flight: Arc::new(AtomicUsize::new(0)),
    };
    // Everything the lists brought needs a look, workloads (with their admissions) before
    // the first cycle so nothing is admitted twice after a restart.
    ctl.sync_config();
    for w in stores.workloads.state() {
        ctl.dirty_wls.insert(watch::key_of(&*w));
    }
    for j in stores.jobs.state() {
        ctl.dirty_jobs.insert(watch::key_of(&*j));
    }

    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lost = false;
    loop {
        tokio::select! {
            biased;
            _ = stop_rx.wait_for(|s| *s) => break,
            _ = async {
                match election.as_deref_mut() {
                    Some(e) => { let _ = e.leader.wait_for(|l| !*l).await; }
                    None => std::future::pending::<()>().await,
                }
            } => {
                lost = true;
                break;
            }
            msg = rx.recv() => {
                let Some(msg) = msg else { break };
                ctl.handle(msg);
                // Take everything already waiting, up to a bound, before doing the work.
                for _ in 0..4096 {
                    match rx.try_recv() {
                        Ok(m) => ctl.handle(m),
                        Err(_) => break,
                    }
                }
            }
            _ = tick.tick() => ctl.on_tick(),
            // Cycles left over from the last turn (it stopped to look at new events): go on
            // at once rather than at the next tick.
            _ = std::future::ready(()), if ctl.schedule => {}
        }
        ctl.turn();
        health.beat();
    }
    for t in watch_tasks {
        t.abort();
    }
    // Let writes already sent finish (their results no longer matter to us).
    let deadline = Instant::now() + Duration::from_secs(10);
    while ctl.in_flight.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if lost {
        anyhow::bail!("lost the leader-election lease; exiting so that another replica can lead");
    }
    tracing::info!("stopped");
    Ok(())
}

impl Ctl {
    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Watch(WatchMsg::Changed(kind, key)) => self.changed(kind, Some(key)),
            Msg::Watch(WatchMsg::Relisted(kind)) => self.changed(kind, None),
            Msg::WorkloadWritten { key, result, plan } => {
                self.on_workload_written(key, result, plan)
            }
            Msg::WorkloadCreated { job, result } => self.on_workload_created(job, result),
            Msg::WorkloadPatched { key, result } => self.on_workload_patched(key, result),
            Msg::JobWritten { key, result, event } => self.on_job_written(key, result, event),
            Msg::QueueWritten { key, ok } => self.on_queue_written(key, ok),
        }
    }

    fn changed(&mut self, kind: Kind, key: Option<String>) {
        match (kind, key) {
            (Kind::Workload, Some(k)) => {
                // Reported but not in the store: deleted. Our copy of it goes too.
                if self.stores.workload(&k).is_none()
                    && let Some(b) = self.wls.get_mut(&k)
                {
                    b.overlay = None;
                }
                self.dirty_wls.insert(k);
            }
            (Kind::Workload, None) => {
                let all: Vec<String> = self
                    .stores
                    .workloads
                    .state()
                    .iter()
                    .map(|w| watch::key_of(&**w))
                    .collect();
                self.dirty_wls.extend(all);
                self.dirty_wls.extend(self.wls.keys().cloned());
            }
            (Kind::Job, Some(k)) => {
                if self.stores.job(&k).is_none()
                    && let Some(b) = self.jobs.get_mut(&k)
                {
                    b.overlay = None;
                }
                self.dirty_jobs.insert(k);
            }
            (Kind::Job, None) => {
                let all: Vec<String> = self
                    .stores
                    .jobs
                    .state()
                    .iter()
                    .map(|j| watch::key_of(&**j))
                    .collect();
                self.dirty_jobs.extend(all);
                self.dirty_jobs.extend(self.jobs.keys().cloned());
            }
            (Kind::WorkloadPriorityClass, _) => {
                // Jobs refused for a missing class may go now.
                let waiting: Vec<String> = self
                    .jobs
                    .iter()
                    .filter(|(_, b)| b.reported.is_some())
                    .map(|(k, _)| k.clone())
                    .collect();
                self.dirty_jobs.extend(waiting);
            }
            (Kind::ClusterQueue | Kind::LocalQueue, _) => {
                self.config_dirty = true;
                self.queues_dirty = true;
            }
            (Kind::ResourceFlavor, _) => {
                self.config_dirty = true;
                self.nodes_dirty = true;
                // Jobs waiting to start may need a flavor that just appeared.
                let all: Vec<String> = self.owned.keys().cloned().collect();
                self.dirty_jobs.extend(all);
            }
            (Kind::Cohort | Kind::Namespace, _) => self.config_dirty = true,
            (Kind::Node, _) => self.nodes_dirty = true,
        }
    }

    fn on_tick(&mut self) {
        let now = Instant::now();
        let due: Vec<String> = self
            .wls
            .iter()
            .filter(|(_, b)| b.retry_at.is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .collect();
        for k in due {
            self.book(&k).retry_at = None;
            self.dirty_wls.insert(k);
        }
        let due: Vec<String> = self
            .jobs
            .iter()
            .filter(|(_, b)| b.retry_at.is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .collect();
        for k in due {
            self.job_book(&k).retry_at = None;
            self.dirty_jobs.insert(k);
        }
    }

    /// One turn of the loop (see the module docs).
    fn turn(&mut self) {
        if self.config_dirty {
            self.sync_config();
        }
        for key in std::mem::take(&mut self.dirty_wls) {
            self.sync_workload(&key);
        }
        for key in std::mem::take(&mut self.dirty_jobs) {
            self.reconcile_job(&key);
        }
        self.schedule();
        self.flush_plans();
        self.update_queues();
        if self.nodes_dirty {
            self.check_flavor_nodes();
        }
    }

    /// Says (once per change) when a ResourceFlavor's node labels match no Node: what it
    /// admits would then wait at the kube-scheduler.
    fn check_flavor_nodes(&mut self) {
        self.nodes_dirty = false;
        let nodes = self.stores.nodes.state();
        for f in self.stores.flavors.state() {
            let name = f.metadata.name.clone().unwrap_or_default();
            let labels = &f.spec.node_labels;
            let matched = labels.is_empty()
                || nodes.iter().any(|n| {
                    let nl = n.metadata.labels.clone().unwrap_or_default();
                    labels.iter().all(|(k, v)| nl.get(k) == Some(v))
                });
            let known = self.flavors_without_nodes.contains(&name);
            if !matched && !known {
                tracing::warn!(flavor = name, node_labels = ?labels, "no Node has this ResourceFlavor's node labels: workloads admitted on it will wait for such a node");
                self.flavors_without_nodes.insert(name);
            } else if matched && known {
                tracing::info!(
                    flavor = name,
                    "a Node now has this ResourceFlavor's node labels"
                );
                self.flavors_without_nodes.remove(&name);
            }
        }
    }
}

/// The namespace the controller runs in: the service account's, when in a pod.
pub fn own_namespace() -> Option<String> {
    std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Reads a Configuration file (`config.kueue.x-k8s.io/v1beta1`), strictly like upstream.
pub fn read_config(path: &str) -> anyhow::Result<Configuration> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let cfg: Configuration =
        crate::api::from_yaml_str(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    if let Some(v) = cfg.api_version.as_deref()
        && v != crate::api::config::CONFIG_API_VERSION
    {
        anyhow::bail!(
            "{path}: apiVersion {v} is not supported (use {})",
            crate::api::config::CONFIG_API_VERSION
        );
    }
    if let Some(k) = cfg.kind.as_deref()
        && k != crate::api::config::CONFIG_KIND
    {
        anyhow::bail!("{path}: kind {k} is not a Configuration");
    }
    Ok(cfg)
}
