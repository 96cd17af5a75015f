//! What the run-controller end-to-end tests share: starting `kubectl-kueue run-controller`
//! as a separate process (exactly as a user would), reading its /metrics, reading Workloads,
//! and a monitor that checks, every 100 ms, that admitted usage stays within the quotas.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use kubectl_kueue::api::Workload;
use kubectl_kueue::scheduler::quantity::parse_amount;

use crate::support::cluster::Cluster;
use crate::support::process::{ManagedProcess, free_port};

pub const GPU: &str = "nvidia.com/gpu";

/// A running `kubectl-kueue run-controller`.
pub struct Controller {
    pub proc: ManagedProcess,
    pub metrics_port: u16,
    pub health_port: u16,
    /// The kubeconfig it was given, when made for it (kept until the controller goes).
    pub kubeconfig: Option<tempfile::NamedTempFile>,
}

/// Namespace and ServiceAccount `kubectl kueue install` creates for the controller.
pub const CONTROLLER_NAMESPACE: &str = "kueue-system";
pub const CONTROLLER_SERVICE_ACCOUNT: &str = "kubectl-kueue-controller";

/// A token of the controller's ServiceAccount (after `kubectl kueue install`): it carries
/// exactly the installed ClusterRole and leader-election Role.
pub fn controller_token(cluster: &Cluster) -> String {
    kubectl(
        cluster,
        &[
            "create",
            "token",
            CONTROLLER_SERVICE_ACCOUNT,
            "-n",
            CONTROLLER_NAMESPACE,
            "--duration=2h",
        ],
    )
    .trim()
    .to_string()
}

/// The admin kubeconfig with its credentials replaced by `token`.
pub fn kubeconfig_with_token(cluster: &Cluster, token: &str) -> tempfile::NamedTempFile {
    let admin = std::fs::read_to_string(cluster.kubeconfig_path()).unwrap();
    assert!(
        admin.contains("token:"),
        "the admin kubeconfig uses a token"
    );
    let kubeconfig: String = admin
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("token:") {
                format!("    token: {token}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), kubeconfig).unwrap();
    f
}

/// Starts the controller as the installed ServiceAccount (no other permission), as the
/// Deployment runs it. Needs `kubectl kueue install` (with or without the controller) first.
pub fn start_installed_controller(cluster: &Cluster, name: &str, extra: &[&str]) -> Controller {
    let kubeconfig = kubeconfig_with_token(cluster, &controller_token(cluster));
    let mut ctl = start_controller_with(cluster, name, kubeconfig.path(), extra);
    ctl.kubeconfig = Some(kubeconfig);
    ctl
}

/// Starts the controller against the cluster's admin kubeconfig. `name` names its log file
/// (and, through POD_NAME, its leader-election identity).
pub fn start_controller(cluster: &Cluster, name: &str, extra: &[&str]) -> Controller {
    start_controller_with(cluster, name, cluster.kubeconfig_path(), extra)
}

/// [`start_controller`] with another kubeconfig (another identity).
pub fn start_controller_with(
    cluster: &Cluster,
    name: &str,
    kubeconfig: &std::path::Path,
    extra: &[&str],
) -> Controller {
    start_controller_logging(cluster, name, kubeconfig, extra, "info,kubectl_kueue=debug")
}

/// [`start_controller_with`] with another `RUST_LOG` filter.
pub fn start_controller_logging(
    cluster: &Cluster,
    name: &str,
    kubeconfig: &std::path::Path,
    extra: &[&str],
    rust_log: &str,
) -> Controller {
    start_controller_process(cluster, name, kubeconfig, extra, rust_log, true)
}

/// Starts `run-controller`; `/metrics` over plain HTTP when `insecure_metrics` (so the tests
/// read it simply), else over HTTPS behind token and access reviews (`e2e_trust` checks it).
pub fn start_controller_process(
    cluster: &Cluster,
    name: &str,
    kubeconfig: &std::path::Path,
    extra: &[&str],
    rust_log: &str,
    insecure_metrics: bool,
) -> Controller {
    let (metrics_port, health_port) = (free_port(), free_port());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"));
    cmd.arg("run-controller")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--metrics-bind-address")
        .arg(format!("127.0.0.1:{metrics_port}"))
        .arg("--health-probe-bind-address")
        .arg(format!("127.0.0.1:{health_port}"))
        .args(insecure_metrics.then_some("--metrics-insecure"))
        .args(extra)
        .env("RUST_LOG", rust_log)
        .env("POD_NAME", name)
        .env("NO_PROXY", "127.0.0.1,localhost");
    let proc = cluster
        .spawn(name, cmd)
        .expect("start kubectl-kueue run-controller");
    Controller {
        proc,
        metrics_port,
        health_port,
        kubeconfig: None,
    }
}

impl Controller {
    pub fn metrics(&self) -> String {
        http_get(self.metrics_port, "/metrics")
            .map(|(_, b)| b)
            .unwrap_or_default()
    }

    pub fn ready(&self) -> bool {
        http_get(self.health_port, "/readyz").is_some_and(|(code, _)| code == 200)
    }

    /// Waits until /readyz answers 200 (caches synced), or panics with the log.
    pub fn wait_ready(&mut self, timeout: Duration) {
        let deadline = std::time::Instant::now() + timeout;
        while !self.ready() {
            if let Some(st) = self.proc.exited() {
                panic!("run-controller exited ({st}):\n{}", self.proc.log_tail(40));
            }
            if std::time::Instant::now() > deadline {
                panic!(
                    "run-controller not ready after {timeout:?}:\n{}",
                    self.proc.log_tail(40)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: a plain kill(2) on our own child.
        unsafe { libc::kill(self.proc.pid() as libc::pid_t, sig) };
    }

    /// Waits for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(st) = self.proc.exited() {
                return Some(st);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.proc.log_path()).unwrap_or_default()
    }
}

/// A plain HTTP/1.1 GET on 127.0.0.1: (status, body).
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    let code = buf.split_whitespace().nth(1)?.parse().ok()?;
    let body = buf
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Some((code, body))
}

/// The value of the series `name{labels...}` (every given label must match).
pub fn metric(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let (series, value) = l.rsplit_once(' ')?;
        let (n, rest) = series.split_once('{').unwrap_or((series, ""));
        if n != name {
            return None;
        }
        labels
            .iter()
            .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")))
            .then(|| value.parse().ok())?
    })
}

/// `kubectl <args>` against the cluster (kubectl finds `kubectl kueue` on PATH); panics with
/// stderr on failure.
pub fn kubectl(cluster: &Cluster, args: &[&str]) -> String {
    let out = cluster.kubectl().args(args).output().expect("run kubectl");
    assert!(
        out.status.success(),
        "kubectl {}: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `kubectl get --raw PATH` (with `kubeconfig`, else the admin's): the parsed answer, or the
/// error text.
pub fn get_raw(
    cluster: &Cluster,
    path: &str,
    kubeconfig: Option<&std::path::Path>,
) -> Result<serde_json::Value, String> {
    let mut cmd = cluster.kubectl();
    if let Some(k) = kubeconfig {
        cmd.env("KUBECONFIG", k);
    }
    let out = cmd
        .args(["get", "--raw", path])
        .output()
        .expect("run kubectl");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

pub fn repo_path(rel: &str) -> PathBuf {
    crate::support::repo_root().join(rel)
}

pub async fn workloads(client: &kube::Client, ns: &str) -> Vec<Workload> {
    Api::<Workload>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
}

pub fn cond(w: &Workload, t: &str) -> Option<(String, String, String)> {
    w.status
        .as_ref()?
        .condition(t)
        .map(|c| (c.status.clone(), c.reason.clone(), c.message.clone()))
}

pub fn is_true(w: &Workload, t: &str) -> bool {
    cond(w, t).is_some_and(|c| c.0 == "True")
}

/// Holding quota: admission set, QuotaReserved=True, not finished.
pub fn holds_quota(w: &Workload) -> bool {
    w.status.as_ref().is_some_and(|s| s.admission.is_some())
        && is_true(w, "QuotaReserved")
        && !is_true(w, "Finished")
}

pub fn job_name(w: &Workload) -> String {
    w.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.kind == "Job")
        .map(|o| o.name.clone())
        .unwrap_or_default()
}

/// GPUs a Workload's admission reserves, per ClusterQueue.
pub fn reserved_gpus(w: &Workload) -> Option<(String, i64)> {
    let adm = w.status.as_ref()?.admission.as_ref()?;
    let mut total = 0;
    for psa in &adm.pod_set_assignments {
        if let Some(q) = psa.resource_usage.get(GPU) {
            total += parse_amount(GPU, &q.0).ok()?.get();
        }
    }
    Some((adm.cluster_queue.clone(), total))
}

/// Running (or pending-bound) pods' GPUs.
pub async fn pods_gpus(client: &kube::Client) -> i64 {
    let pods = Api::<Pod>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default();
    pods.iter()
        .filter(|p| {
            matches!(
                p.status.as_ref().and_then(|s| s.phase.as_deref()),
                Some("Running")
            )
        })
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .flat_map(|p| p.spec.iter().flat_map(|s| s.containers.iter()))
        .filter_map(|c| {
            c.resources
                .as_ref()?
                .requests
                .as_ref()?
                .get(GPU)
                .and_then(|q| parse_amount(GPU, &q.0).ok())
                .map(|a| a.get())
        })
        .sum()
}

/// Checks, every 100 ms until dropped, that the Workloads holding quota never use more GPUs
/// than the seed's quotas allow: at most `per_queue` per ClusterQueue (nominal + borrowing
/// limit) and `cohort` in all (the sum of nominal quotas), and that running pods never use
/// more GPUs than the nodes have.
pub struct QuotaMonitor {
    pub violations: Arc<Mutex<Vec<String>>>,
    pub samples: Arc<Mutex<usize>>,
    task: tokio::task::JoinHandle<()>,
}

impl QuotaMonitor {
    pub fn start(
        client: kube::Client,
        per_queue: i64,
        cohort: i64,
        node_gpus: i64,
    ) -> QuotaMonitor {
        let violations = Arc::new(Mutex::new(Vec::new()));
        let samples = Arc::new(Mutex::new(0));
        let (v, n) = (violations.clone(), samples.clone());
        let task = tokio::spawn(async move {
            loop {
                let all = Api::<Workload>::all(client.clone())
                    .list(&ListParams::default())
                    .await
                    .map(|l| l.items)
                    .unwrap_or_default();
                let mut per: BTreeMap<String, i64> = BTreeMap::new();
                for w in all.iter().filter(|w| holds_quota(w)) {
                    if let Some((cq, g)) = reserved_gpus(w) {
                        *per.entry(cq).or_default() += g;
                    }
                }
                let total: i64 = per.values().sum();
                {
                    let mut out = v.lock().unwrap();
                    for (cq, g) in &per {
                        if *g > per_queue {
                            out.push(format!("{cq} holds {g} GPUs (max {per_queue})"));
                        }
                    }
                    if total > cohort {
                        out.push(format!(
                            "the cohort holds {total} GPUs (max {cohort}): {per:?}"
                        ));
                    }
                }
                let running = pods_gpus(&client).await;
                if running > node_gpus {
                    v.lock().unwrap().push(format!(
                        "running pods use {running} GPUs (nodes have {node_gpus})"
                    ));
                }
                *n.lock().unwrap() += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        QuotaMonitor {
            violations,
            samples,
            task,
        }
    }

    /// Stops and asserts nothing was ever over quota.
    pub fn check(self) {
        self.task.abort();
        let v = self.violations.lock().unwrap();
        assert!(*self.samples.lock().unwrap() > 10, "the monitor hardly ran");
        assert!(v.is_empty(), "usage exceeded the quotas: {v:#?}");
    }
}

/// A kubeconfig like the admin's but for ServiceAccount `namespace/name` (a fresh token) and,
/// when given, another server address (a proxy in front of the API server).
pub async fn service_account_kubeconfig(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    server: Option<&str>,
) -> tempfile::NamedTempFile {
    use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
    use k8s_openapi::api::core::v1::ServiceAccount;
    let sas = Api::<ServiceAccount>::namespaced(cluster.client(), namespace);
    let tr = TokenRequest {
        spec: Some(TokenRequestSpec {
            expiration_seconds: Some(3600),
            ..Default::default()
        }),
        ..Default::default()
    };
    let token = sas
        .create_token_request(name, &Default::default(), &tr)
        .await
        .unwrap()
        .status
        .and_then(|s| s.token)
        .unwrap_or_default();
    with_server(cluster, Some(&token), server)
}

/// The admin kubeconfig with `token` (when given) and `server` (when given) replaced.
pub fn with_server(
    cluster: &Cluster,
    token: Option<&str>,
    server: Option<&str>,
) -> tempfile::NamedTempFile {
    let admin = std::fs::read_to_string(cluster.kubeconfig_path()).unwrap();
    let text: String = admin
        .lines()
        .map(|l| {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            match (token, server) {
                (Some(tok), _) if t.starts_with("token:") => format!("{indent}token: {tok}"),
                (_, Some(s)) if t.starts_with("server:") => format!("{indent}server: {s}"),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}
