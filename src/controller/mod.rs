//! `run-controller`: upstream Kueue's controller manager for Workloads and batch/v1 Jobs, on
//! top of the pure engine.
//!
//! Two halves, as Linkerd's policy controller is built:
//! - [`model`]: pure. The engine and all bookkeeping; takes typed inputs (watch notices,
//!   write outcomes, ticks) with the time, and decides writes, Events and metric updates as
//!   data. Tested without an API server (`tests/it/controller_model`).
//! - `shell`: I/O. The watches, the `tokio::select!` loop (one task owns the model: the
//!   single writer; with leader election only the leader runs it), the
//!   [`Writer`](crate::kube::apply::Writer) that performs the model's writes as separate
//!   tasks, many at once, reporting back; nothing in the loop waits on the network.
//!
//! Also here: [`run`] (leader election, probes and `/metrics` through [`http`], then the
//! loop), and reading the Configuration file.

pub mod http;
pub mod metrics_auth;
pub mod model;
mod shell;
mod tls;
pub mod visibility;
pub mod webhook;
pub mod webhook_cert;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::kube::client::{Connection, Timeouts};

use crate::api::config::Configuration;
use crate::kube::lease::{self, Election, ElectionConfig, Timings};
use crate::metrics::{Metrics, Role};

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
    /// Serve `/metrics` over plain HTTP without authentication (checked to be on loopback).
    pub metrics_insecure: bool,
    /// Where `tls.crt`/`tls.key` for `/metrics` are; unset: controller-runtime's default
    /// directory if it holds them, else a self-signed certificate made in memory.
    pub metrics_cert_dir: Option<std::path::PathBuf>,
    pub health_addr: Option<SocketAddr>,
    /// Writes in flight at most.
    pub max_in_flight: usize,
    /// `(qps, burst)` when the configuration file sets `clientConnection`: a client-side rate
    /// limit. Without it the API server's own flow control sets the pace.
    pub client_rate_limit: Option<(f32, i32)>,
    pub identity: String,
    /// The conversion webhook (served when the CRDs convert through one); `None`: never.
    pub webhook: Option<webhook::WebhookOptions>,
    /// The visibility API (served when an APIService registers it); `None`: never.
    pub visibility: Option<visibility::VisibilityOptions>,
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
            timings: timings(&le),
        }
    }
}

/// The Configuration's timings, upstream's defaults for those it leaves out.
pub fn timings(le: &crate::api::config::LeaderElection) -> Timings {
    let d = Timings::default();
    Timings {
        lease_duration: le.lease_duration.map(|d| d.0).unwrap_or(d.lease_duration),
        renew_deadline: le.renew_deadline.map(|d| d.0).unwrap_or(d.renew_deadline),
        retry_period: le.retry_period.map(|d| d.0).unwrap_or(d.retry_period),
    }
}

/// Runs the controller until `shutdown` resolves (then finishes in-flight writes and gives the
/// lease up) or, with leader election, until leadership is lost (an error: the process should
/// exit so a fresh replica can take over).
pub async fn run(
    conn: Connection,
    opts: Options,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let election_cfg = opts.election();
    let client = conn.client.clone();
    // Without the CRDs the watches would retry forever: say what is missing instead. The
    // controller reads and writes v1beta1 (the cluster's webhook converts to the stored v1beta2).
    let served = crate::kube::versions::served(&client).await?;
    if !served.contains(&crate::api::KueueVersion::V1beta1) {
        if served.is_empty() {
            anyhow::bail!(
                "the cluster does not serve kueue.x-k8s.io/v1beta1 ClusterQueues: install the CRDs first (`kubectl kueue install`, or `kubectl kueue install --without-controller` to run the controller yourself)"
            );
        }
        let names: Vec<&str> = served.iter().map(|v| v.name()).collect();
        anyhow::bail!(
            "the cluster serves kueue.x-k8s.io {} but not v1beta1, which run-controller reads and writes: install CRDs that serve both (`kubectl kueue install`)",
            names.join(", ")
        );
    }
    // Before anything reads Kueue objects: with v1beta2 stored, every v1beta1 read and write
    // goes through this webhook (every replica serves it, leader or not).
    if let Some(w) = &opts.webhook {
        webhook::start(&client, w).await?;
    }
    if !opts.force
        && let Some(evidence) =
            lease::detect_upstream(&client, &election_cfg.namespace, &election_cfg.name).await
    {
        anyhow::bail!(
            "upstream Kueue's controller is already managing this cluster ({evidence}); two controllers would fight over the same Workloads and Jobs. Stop it first (for example `kubectl -n kueue-system scale deployment kueue-controller-manager --replicas=0`), or pass --force to start anyway"
        );
    }
    // A controller without leader election next to one that leads (a laptop next to the
    // Deployment) would act on the same objects unfenced.
    if !opts.leader_elect
        && let Some(why) =
            lease::held_by_another(&client, &election_cfg.namespace, &election_cfg.name).await
    {
        anyhow::bail!(why);
    }
    // Every replica serves the visibility API: the leader from its loop, the others from
    // the cluster read per request.
    let mut hub = None;
    if let Some(v) = &opts.visibility {
        let h = visibility::Hub::new();
        if visibility::start(&conn, v, h.clone()).await?.is_some() {
            hub = Some(h);
        }
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
    // Upstream's metric switches; both gates are on by default in v0.19.
    let metric_options = crate::metrics::Options {
        cluster_queue_resources: resources_enabled,
        local_queues: opts.config.local_queue_metrics().is_some(),
        cohorts: opts.config.feature_enabled("MetricsForCohorts", true),
        workload_creation_latency: opts
            .config
            .feature_enabled("MetricForWorkloadCreationLatency", true),
    };
    let metrics = Arc::new(Metrics::with_options(
        if opts.leader_elect {
            Role::Follower
        } else {
            Role::Standalone
        },
        metric_options,
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
    let security = if opts.metrics_insecure || opts.metrics_addr.is_none() {
        http::MetricsSecurity::Insecure
    } else {
        let (tls, source) = tls::server_config(opts.metrics_cert_dir.as_deref())?;
        tracing::info!(certificate = %source, "metrics serving certificate");
        http::MetricsSecurity::Secure {
            tls,
            auth: Arc::new(metrics_auth::MetricsAuth::new(client.clone())),
        }
    };
    http::serve(
        opts.metrics_addr,
        opts.health_addr,
        (metrics.clone(), security),
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
        // The lock has a client of its own, every request bounded as upstream bounds it.
        let lock_client =
            conn.client_with(Timeouts::all(election_cfg.timings.request_timeout()))?;
        let mut e = Election::start(lock_client, &election_cfg).await?;
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

    // Leadership can be lost while the shell waits on the network (its first lists, say):
    // watch for it here too, so the process exits whatever the shell is doing.
    let mut leader_rx = election.as_ref().map(|e| e.leader.clone());
    let lost = async {
        match leader_rx.as_mut() {
            Some(rx) => {
                let _ = rx.wait_for(|l| !*l).await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    let result = tokio::select! {
        r = shell::lead(&conn, &opts, metrics, health, hub.as_deref(), &mut stop_rx, election.as_mut()) => r,
        _ = lost => Err(anyhow::anyhow!(shell::LOST)),
    };
    if let Some(e) = election {
        e.release().await;
    }
    result
}

/// The namespace the controller runs in: the service account's, when in a pod.
pub fn own_namespace() -> Option<String> {
    std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}
