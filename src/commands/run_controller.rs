//! `kubectl kueue run-controller`: the admission and preemption controller, in-cluster (the
//! Deployment `kubectl kueue install` creates) or from a laptop with a kubeconfig.

use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::{CliResult, Outcome, common};
use crate::cli::GlobalArgs;
use crate::controller::http::parse_address;
use crate::controller::{self, Options};

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  # From a laptop, against the current kubeconfig context:
  kubectl kueue run-controller --metrics-bind-address 127.0.0.1:8080 --metrics-insecure --health-probe-bind-address 127.0.0.1:8081

  # With upstream Kueue's configuration file (fair sharing, leader election, client QPS...):
  kubectl kueue run-controller --config controller_manager_config.yaml --leader-elect

Stops on SIGTERM/SIGINT after in-flight writes finish, giving the leader lease up.
Refuses to start while upstream Kueue's controller manages the cluster, unless --force.")]
pub struct RunControllerArgs {
    /// Upstream's controller configuration (config.kueue.x-k8s.io/v1beta1 Configuration), the
    /// same file `kubectl kueue simulate` reads: fairSharing, manageJobsWithoutQueueName,
    /// metrics and health addresses, leaderElection, clientConnection.
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// Elect one active replica through a Lease (leaderElection in --config sets the lease
    /// name, namespace and timings). Default: the file's leaderElection.leaderElect, else off.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub leader_elect: Option<bool>,
    /// Start even when upstream Kueue's controller seems to run in the cluster.
    #[arg(long)]
    pub force: bool,
    /// Where to serve /metrics (`:PORT`, `HOST:PORT`, `0` to disable), over HTTPS for
    /// callers whose token may `get` the non-resource URL /metrics (TokenReview and
    /// SubjectAccessReview, as upstream). Default: the configuration's metrics.bindAddress
    /// (`:8443`).
    #[arg(long, value_name = "ADDR")]
    pub metrics_bind_address: Option<String>,
    /// Serve /metrics over plain HTTP without authentication; only on a loopback address.
    #[arg(long)]
    pub metrics_insecure: bool,
    /// Directory with the /metrics serving certificate (tls.crt, tls.key), e.g. a mounted
    /// Secret. Default: a self-signed certificate generated in memory.
    #[arg(long, value_name = "DIR")]
    pub metrics_cert_dir: Option<std::path::PathBuf>,
    /// Where to serve /healthz and /readyz. Default: health.healthProbeBindAddress (`:8081`).
    #[arg(long, value_name = "ADDR")]
    pub health_probe_bind_address: Option<String>,
    /// Read a ClusterQueue without namespaceSelector as upstream does (no namespace).
    #[arg(long)]
    pub strict_namespace_selector: bool,
    /// Port of the conversion webhook (HTTPS `/convert`, served when the CRDs convert through
    /// a webhook; `0`: never). Default: the configuration's webhook.port (9443). The
    /// certificate is kept in the Secret internalCertManagement.webhookSecretName
    /// (kueue-webhook-server-cert) of the controller's namespace and its CA injected into the
    /// CRDs; with internalCertManagement.enable false, tls.crt/tls.key are read from
    /// webhook.certDir instead.
    #[arg(long, value_name = "PORT")]
    pub webhook_port: Option<u16>,
    /// Where to serve the visibility API (`visibility.kueue.x-k8s.io`, HTTPS; served when an
    /// APIService registers it; `0`: never). Default: a v1beta2 configuration's
    /// visibilityServer (bindAddress, bindPort; port 8082 when unset), else `:8082`
    /// (upstream's visibilityServer port) in a pod, never elsewhere (the API server reaches
    /// it through the in-cluster Service only).
    #[arg(long, value_name = "ADDR")]
    pub visibility_bind_address: Option<String>,
    /// Directory with the visibility API's serving certificate (tls.crt, tls.key). Default:
    /// a self-signed certificate generated in memory (the APIServices skip verification, as
    /// upstream's).
    #[arg(long, value_name = "DIR")]
    pub visibility_cert_dir: Option<std::path::PathBuf>,
    /// Writes to the API server in flight at once.
    #[arg(long, value_name = "N", default_value_t = 128)]
    pub max_concurrent_writes: usize,
}

pub fn run(global: &GlobalArgs, args: RunControllerArgs) -> CliResult {
    let raw = match &args.config {
        Some(path) => {
            let (config, warnings) = crate::manifests::load_configuration(path)?;
            for w in warnings {
                tracing::warn!("{w}");
            }
            Some(config)
        }
        None => None,
    };
    let leader_elect = args
        .leader_elect
        .or_else(|| {
            raw.as_ref()
                .and_then(|c| c.leader_election.as_ref())
                .and_then(|l| l.leader_elect)
        })
        .unwrap_or(false);
    let config_given = raw.is_some();
    // Upstream's defaults (300/500) would only ever slow admissions down here: a client-side
    // limit applies when the file asks for one.
    let client_rate_limit = raw
        .as_ref()
        .and_then(|c| c.client_connection.as_ref())
        .map(|c| {
            (
                c.qps
                    .unwrap_or(crate::api::config::DEFAULT_CLIENT_CONNECTION_QPS),
                c.burst
                    .unwrap_or(crate::api::config::DEFAULT_CLIENT_CONNECTION_BURST),
            )
        });
    let config = raw
        .unwrap_or_default()
        .with_defaults(controller::own_namespace().as_deref());
    if leader_elect
        && let Some(le) = &config.leader_election
        && let Err(e) = controller::timings(le).validate()
    {
        return Err(
            anyhow::anyhow!("{}: {e}", args.config.as_deref().unwrap_or("--config")).into(),
        );
    }
    let metrics_addr = match &args.metrics_bind_address {
        Some(a) => parse_address(a)?,
        None => parse_address(
            config
                .metrics
                .as_ref()
                .and_then(|m| m.bind_address.as_deref())
                .unwrap_or(":8443"),
        )?,
    };
    let health_addr = match &args.health_probe_bind_address {
        Some(a) => parse_address(a)?,
        None => parse_address(
            config
                .health
                .as_ref()
                .and_then(|h| h.health_probe_bind_address.as_deref())
                .unwrap_or(":8081"),
        )?,
    };
    if args.metrics_insecure {
        crate::controller::http::MetricsSecurity::check_insecure_address(metrics_addr)?;
    }
    let webhook = controller::webhook::WebhookOptions::from_config(&config, args.webhook_port)?;
    let visibility_addr = match (&args.visibility_bind_address, &config.visibility_server) {
        (Some(a), _) => parse_address(a)?,
        // Checked when the file was read (support::visibility_server).
        (None, Some(v)) => v.address(),
        (None, None) if controller::own_namespace().is_some() => parse_address(":8082")?,
        (None, None) => None,
    };
    let visibility = visibility_addr.map(|addr| controller::visibility::VisibilityOptions {
        addr,
        cert_dir: args.visibility_cert_dir.clone(),
    });
    let opts = Options {
        config,
        config_given,
        strict_namespace_selector: args.strict_namespace_selector,
        leader_elect,
        force: args.force,
        metrics_addr,
        metrics_insecure: args.metrics_insecure,
        metrics_cert_dir: args.metrics_cert_dir,
        health_addr,
        max_in_flight: args.max_concurrent_writes,
        client_rate_limit,
        identity: crate::kube::lease::identity(),
        webhook,
        visibility,
    };
    // One thread: the model loop is one task anyway, and the rest is I/O waiting on the API
    // server. Measured at baseline scale 0.2, a multi-thread runtime spent a quarter of the
    // controller's CPU waking and parking its workers (7.3 s against 5.4-5.5 s).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        // Before anything else: a SIGTERM that arrives while connecting or electing must stop
        // the process gracefully, not kill it (the default action) with writes in flight.
        let stop = shutdown_signal()?;
        let conn = common::connect(global).await?;
        tracing::info!(identity = %opts.identity, leader_elect, "starting run-controller");
        controller::run(conn, opts, stop).await
    })?;
    // Background tasks (HTTP servers, finished watches) must not hold the process.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Outcome::Success)
}

/// SIGTERM (what Kubernetes sends) or SIGINT (Ctrl-C). Both handlers are installed when this
/// is called, not when the future is first polled.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        tracing::info!("shutting down");
    })
}
