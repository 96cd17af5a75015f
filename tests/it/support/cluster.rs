//! A real Kubernetes control plane on 127.0.0.1 for a test.
//!
//! Two modes:
//! - **apiserver**: etcd + kube-apiserver. RBAC on, upstream's default admission plugins
//!   (MutatingAdmissionPolicy included: GA in 1.36), static-token authentication, an admin
//!   kubeconfig. Nothing runs controllers, so a Job stays a Job (no pods).
//! - **full**: adds kube-controller-manager (Job, garbage collector, namespace, service account,
//!   node lifecycle, ReplicaSet/Deployment, CronJob, TTL and pod-GC controllers), kube-scheduler and
//!   kwok with fake nodes
//!   (by default 2 nodes with 4 `nvidia.com/gpu` each, labelled `gpu-type: a100`) whose pods run
//!   and, for Jobs, succeed after configurable delays (see [`super::kwok`]).
//!
//! Use [`shared_apiserver`] / [`shared_full`] (one control plane per test binary, started on first
//! use, then one namespace per test via [`Cluster::new_namespace`]) or [`ClusterBuilder`] for a
//! private cluster (other nodes, other timings, a test that changes cluster-scoped state).
//!
//! Every port is a random free port on 127.0.0.1; every file lives in a fresh directory under
//! `$TMPDIR/kubectl-kueue-testenv/`. Processes are killed when the cluster is dropped, when the test
//! binary exits, and (parent-death signal) when it is killed; see [`super::process`]. Control-plane
//! logs are in `<dir>/logs/`; when a test panics their last lines are printed and the directory is
//! kept (`KUEUE_TESTENV_KEEP=1` keeps it always).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, Node, ServiceAccount};
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

use super::binaries;
use super::kwok::{self, FakeNode};
use super::pki::Pki;
use super::process::{self, ManagedProcess};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    ApiServer,
    Full,
}

/// Options for a private cluster. `ClusterBuilder::full().nodes(...).start()`.
#[derive(Clone, Debug)]
pub struct ClusterBuilder {
    mode: Mode,
    nodes: Vec<FakeNode>,
    pod_running_after: Duration,
    job_pods_succeed_after: Duration,
    apiserver_args: Vec<String>,
    startup_timeout: Duration,
}

impl ClusterBuilder {
    /// etcd + kube-apiserver.
    pub fn apiserver() -> ClusterBuilder {
        ClusterBuilder {
            mode: Mode::ApiServer,
            nodes: Vec::new(),
            pod_running_after: Duration::from_millis(500),
            job_pods_succeed_after: Duration::from_secs(2),
            apiserver_args: Vec::new(),
            startup_timeout: Duration::from_secs(120),
        }
    }

    /// Everything, with two 4-GPU A100 nodes, pods running after 0.5 s and Job pods succeeding
    /// 2 s later.
    pub fn full() -> ClusterBuilder {
        ClusterBuilder {
            mode: Mode::Full,
            nodes: kwok::a100_nodes(2, 4),
            ..ClusterBuilder::apiserver()
        }
    }

    /// Replaces the fake nodes (full mode).
    pub fn nodes(mut self, nodes: Vec<FakeNode>) -> ClusterBuilder {
        self.nodes = nodes;
        self
    }

    /// How long a pod bound to a fake node stays Pending before it runs (full mode).
    pub fn pod_running_after(mut self, d: Duration) -> ClusterBuilder {
        self.pod_running_after = d;
        self
    }

    /// How long a Job's pod runs before it succeeds (full mode).
    pub fn job_pods_succeed_after(mut self, d: Duration) -> ClusterBuilder {
        self.job_pods_succeed_after = d;
        self
    }

    /// An extra kube-apiserver flag, e.g. `--feature-gates=...`.
    pub fn apiserver_arg(mut self, arg: &str) -> ClusterBuilder {
        self.apiserver_args.push(arg.to_string());
        self
    }

    pub fn startup_timeout(mut self, d: Duration) -> ClusterBuilder {
        self.startup_timeout = d;
        self
    }

    /// Starts the cluster and waits until it is ready. Panics (with the control-plane logs) when
    /// it cannot; binds only 127.0.0.1. Blocking: fine to call from a `#[tokio::test]`.
    pub fn start(self) -> Cluster {
        self.try_start().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`start`](Self::start), with the failure as a message.
    pub fn try_start(self) -> Result<Cluster, String> {
        install_panic_hook();
        install_crypto_provider();
        let bin_dir = binaries::bin_dir();
        // A random port can be taken between picking and binding it: retry once on failure.
        let mut last = String::new();
        for attempt in 1..=2 {
            let b = self.clone();
            let bins = bin_dir.clone();
            // Own thread and runtime: the caller may be inside a tokio runtime, which must not block_on.
            let r = std::thread::spawn(move || start_cluster(b, bins))
                .join()
                .unwrap_or_else(|p| Err(panic_message(&p)));
            match r {
                Ok(c) => return Ok(c),
                Err(e) if attempt == 1 && e.contains("address already in use") => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }
}

/// kube-rs talks TLS through rustls, which needs a process-wide crypto provider; with none chosen
/// by features (or more than one), pick ring explicitly.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic while starting the cluster".into())
}

/// A running control plane. Dropping it kills its processes and removes its directory.
pub struct Cluster {
    mode: Mode,
    dir: PathBuf,
    kubeconfig: PathBuf,
    server: String,
    config: kube::Config,
    bin_dir: PathBuf,
    nodes: Vec<FakeNode>,
    procs: Mutex<Vec<ManagedProcess>>,
    /// How each control-plane process was started, for [`Cluster::restart`].
    specs: Vec<Spec>,
    namespaces: AtomicU64,
    id: u64,
}

/// A control-plane process's command line, kept to start it again the same way (same data
/// directory, same ports).
#[derive(Clone, Debug)]
struct Spec {
    name: String,
    bin: PathBuf,
    args: Vec<String>,
    env: Vec<(String, PathBuf)>,
    dir: PathBuf,
    log: PathBuf,
}

impl Spec {
    fn spawn(&self) -> std::io::Result<ManagedProcess> {
        let mut cmd = Command::new(&self.bin);
        cmd.args(&self.args).current_dir(&self.dir);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        ManagedProcess::spawn(&self.name, cmd, &self.log)
    }
}

impl Cluster {
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// A new kube client authenticated as the admin (`system:masters`). Call it inside the test's
    /// tokio runtime (a client belongs to the runtime that made it).
    pub fn client(&self) -> kube::Client {
        kube::Client::try_from(self.config.clone())
            .expect("build a kube client for the test cluster")
    }

    /// The client configuration behind [`client`](Self::client).
    pub fn kube_config(&self) -> kube::Config {
        self.config.clone()
    }

    /// Admin kubeconfig (default namespace `default`).
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig
    }

    /// The CA that signed the API server's serving certificate (PEM): what a pod finds at
    /// `/var/run/secrets/kubernetes.io/serviceaccount/ca.crt`.
    pub fn ca_cert_path(&self) -> PathBuf {
        self.dir.join("pki").join("ca.crt")
    }

    /// `https://127.0.0.1:<port>`.
    pub fn server_url(&self) -> &str {
        &self.server
    }

    /// The directory with the control-plane binaries (kubectl among them).
    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    pub fn kubectl_path(&self) -> PathBuf {
        self.bin_dir.join("kubectl")
    }

    /// `<work dir>/logs`: one `<process>.log` per control-plane process.
    pub fn log_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }

    /// `(name, pid)` of each control-plane process.
    pub fn pids(&self) -> Vec<(String, u32)> {
        let procs = self.procs.lock().unwrap_or_else(|p| p.into_inner());
        procs
            .iter()
            .map(|p| (p.name().to_string(), p.pid()))
            .collect()
    }

    /// Kills (SIGKILL) the control-plane process `name` (`etcd`, `kube-apiserver`, ...) and
    /// starts it again with the same command line: same data directory, same ports. Returns at
    /// once; [`wait_apiserver_ready`](Self::wait_apiserver_ready) waits for the API server.
    pub fn restart(&self, name: &str) {
        let spec = self
            .specs
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no control-plane process {name}"));
        let mut procs = self.procs.lock().unwrap_or_else(|p| p.into_inner());
        let i = procs
            .iter()
            .position(|p| p.name() == name)
            .unwrap_or_else(|| panic!("no control-plane process {name}"));
        procs[i].kill();
        // The ports are ours alone (nobody else binds them); a killed process frees them at once.
        procs[i] = spec
            .spawn()
            .unwrap_or_else(|e| panic!("restart {name}: {e}"));
    }

    /// Sends `sig` (e.g. `libc::SIGSTOP`, `libc::SIGCONT`) to the control-plane process `name`.
    pub fn signal(&self, name: &str, sig: i32) {
        let pid = self
            .pids()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no control-plane process {name}"))
            .1;
        // SAFETY: a plain kill(2) on our own child.
        unsafe { libc::kill(pid as libc::pid_t, sig) };
    }

    /// Waits until kube-apiserver's /readyz says ok, or panics after `timeout` with the logs.
    pub async fn wait_apiserver_ready(&self, timeout: Duration) {
        let client = self.client();
        super::eventually(Some(self), timeout, "kube-apiserver /readyz", || async {
            let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
            matches!(client.request_text(req).await, Ok(t) if t.trim() == "ok").then_some(())
        })
        .await
    }

    /// The fake nodes (empty in apiserver mode).
    pub fn nodes(&self) -> &[FakeNode] {
        &self.nodes
    }

    /// Environment for running kubectl (and `kubectl kueue`, through kubectl's plugin lookup):
    /// `KUBECONFIG` set to the admin kubeconfig, `PATH` starting with this crate's built binaries
    /// (where `kubectl-kueue` is) and the control-plane binaries, no proxy for loopback, and a
    /// kubectl cache inside the cluster's directory.
    pub fn kubectl_env(&self) -> Vec<(OsString, OsString)> {
        let mut path: Vec<PathBuf> = Vec::new();
        if let Some(dir) = plugin_dir() {
            path.push(dir);
        }
        path.push(self.bin_dir.clone());
        if let Some(p) = std::env::var_os("PATH") {
            path.extend(std::env::split_paths(&p));
        }
        vec![
            ("KUBECONFIG".into(), self.kubeconfig.clone().into()),
            (
                "PATH".into(),
                std::env::join_paths(path).expect("PATH entries without ':'"),
            ),
            ("KUBECACHEDIR".into(), self.dir.join("kube-cache").into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ("no_proxy".into(), "127.0.0.1,localhost".into()),
        ]
    }

    /// A `kubectl` command with [`kubectl_env`](Self::kubectl_env) applied. Add args and run it.
    pub fn kubectl(&self) -> Command {
        let mut cmd = Command::new(self.kubectl_path());
        // No global flags here: kubectl finds a plugin (`kubectl kueue`) only when the plugin name
        // comes before any flag. KUBECACHEDIR (in the env) moves its cache instead.
        cmd.envs(self.kubectl_env());
        cmd
    }

    /// Creates a namespace `<prefix>-<n>-<random>` (a valid name even from a test function name)
    /// and returns its name. In full mode it also waits for its `default` ServiceAccount (made by
    /// the service-account controller; pods cannot be created before it exists). In apiserver mode
    /// it creates that ServiceAccount itself, so pods can be created there too.
    pub async fn new_namespace(&self, prefix: &str) -> String {
        let mut clean: String = prefix
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        clean.truncate(40);
        let clean = clean.trim_matches('-');
        let clean = if clean.is_empty() { "test" } else { clean };
        let name = format!(
            "{clean}-{}-{}",
            self.namespaces.fetch_add(1, Ordering::SeqCst),
            process::random_hex(3)
        );
        let client = self.client();
        let ns: Namespace = serde_json::from_value(serde_json::json!({
            "metadata": { "name": name, "labels": { "kueue-test/namespace": "true" } }
        }))
        .unwrap();
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await
            .unwrap_or_else(|e| panic!("create namespace {name}: {e}"));
        let sas: Api<ServiceAccount> = Api::namespaced(client, &name);
        match self.mode {
            Mode::ApiServer => {
                let sa: ServiceAccount = serde_json::from_value(
                    serde_json::json!({ "metadata": { "name": "default" } }),
                )
                .unwrap();
                if let Err(e) = sas.create(&PostParams::default(), &sa).await
                    && !matches!(&e, kube::Error::Api(s) if s.code == 409)
                {
                    panic!("create ServiceAccount {name}/default: {e}");
                }
            }
            Mode::Full => {
                let deadline = Instant::now() + Duration::from_secs(60);
                while sas.get_opt("default").await.ok().flatten().is_none() {
                    if Instant::now() > deadline {
                        self.print_logs(30);
                        panic!(
                            "namespace {name}: no `default` ServiceAccount after 60s (kube-controller-manager down?)"
                        );
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        name
    }

    /// Starts another process (for example `kubectl-kueue run-controller`) as part of this cluster:
    /// output goes to `logs/<name>.log`, and it is killed with the cluster or when the returned
    /// handle is dropped, whichever comes first.
    pub fn spawn(&self, name: &str, cmd: Command) -> std::io::Result<ManagedProcess> {
        ManagedProcess::spawn(name, cmd, &self.log_dir().join(format!("{name}.log")))
    }

    /// Prints the last `lines` lines of every control-plane log to stderr (captured by libtest and
    /// shown for failing tests).
    pub fn print_logs(&self, lines: usize) {
        eprintln!("{}", self.logs_report(lines));
    }

    fn logs_report(&self, lines: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "==== control-plane logs in {} ====",
            self.log_dir().display()
        );
        let mut files: Vec<PathBuf> = fs::read_dir(self.log_dir())
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let _ = writeln!(out, "---- {} (last {lines} lines) ----", f.display());
            let _ = writeln!(out, "{}", process::tail(&f, lines));
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        unregister(self.id);
        let panicking = std::thread::panicking();
        if panicking {
            self.print_logs(40);
        }
        let mut procs = self.procs.lock().unwrap_or_else(|p| p.into_inner());
        // Reverse start order: clients of the API server first, etcd last.
        while let Some(mut p) = procs.pop() {
            p.kill();
        }
        process::remove_work_dir(&self.dir);
    }
}

/// The directory of this crate's built binaries (`kubectl-kueue`), when the test binary sits in
/// `target/<profile>/deps/`.
fn plugin_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    let profile = if deps.file_name()? == "deps" {
        deps.parent()?
    } else {
        deps
    };
    Some(profile.to_path_buf())
}

// ---- shared clusters --------------------------------------------------------------------------

static SHARED_APISERVER: OnceLock<Result<Cluster, String>> = OnceLock::new();
static SHARED_FULL: OnceLock<Result<Cluster, String>> = OnceLock::new();

fn shared(
    cell: &'static OnceLock<Result<Cluster, String>>,
    b: fn() -> ClusterBuilder,
) -> &'static Cluster {
    match cell.get_or_init(|| b().try_start()) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

/// The test binary's apiserver-mode cluster (started on first use). Use a namespace per test
/// ([`Cluster::new_namespace`]); cluster-scoped objects are shared with every other test of the
/// binary, so give them unique names or use a private cluster.
pub fn shared_apiserver() -> &'static Cluster {
    shared(&SHARED_APISERVER, ClusterBuilder::apiserver)
}

/// The test binary's full-mode cluster with the default nodes (see [`ClusterBuilder::full`]).
pub fn shared_full() -> &'static Cluster {
    shared(&SHARED_FULL, ClusterBuilder::full)
}

// ---- failure reporting ------------------------------------------------------------------------

/// Live clusters by id -> log directory, for the panic hook.
static LIVE: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn register(dir: &Path) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
    LIVE.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((id, dir.join("logs")));
    id
}

fn unregister(id: u64) {
    LIVE.lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|(i, _)| *i != id);
}

/// On any panic (a failing test): keep the work directories and print where the logs are plus
/// their last lines, into the failing test's captured output.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            process::mark_failed();
            let dirs: Vec<PathBuf> = match LIVE.try_lock() {
                Ok(l) => l.iter().map(|(_, d)| d.clone()).collect(),
                Err(_) => return,
            };
            for d in dirs {
                let mut files: Vec<PathBuf> = fs::read_dir(&d)
                    .map(|rd| rd.flatten().map(|e| e.path()).collect())
                    .unwrap_or_default();
                files.sort();
                eprintln!("==== control-plane logs (kept) in {} ====", d.display());
                for f in files {
                    eprintln!(
                        "---- {} (last 15 lines) ----\n{}",
                        f.display(),
                        process::tail(&f, 15)
                    );
                }
            }
        }));
    });
}

// ---- startup ----------------------------------------------------------------------------------

struct Starting {
    dir: PathBuf,
    logs: PathBuf,
    procs: Vec<ManagedProcess>,
    specs: Vec<Spec>,
}

impl Starting {
    fn spawn(
        &mut self,
        name: &str,
        bin: &Path,
        args: &[String],
        env: &[(&str, &Path)],
    ) -> Result<(), String> {
        let spec = Spec {
            name: name.to_string(),
            bin: bin.to_path_buf(),
            args: args.to_vec(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_path_buf()))
                .collect(),
            dir: self.dir.clone(),
            log: self.logs.join(format!("{name}.log")),
        };
        let p = spec
            .spawn()
            .map_err(|e| format!("testenv: cannot start {}: {e}", bin.display()))?;
        self.procs.push(p);
        self.specs.push(spec);
        Ok(())
    }

    /// An error naming the processes that died, with their log tails.
    fn check_alive(&mut self) -> Result<(), String> {
        for p in self.procs.iter_mut() {
            if let Some(status) = p.exited() {
                return Err(format!(
                    "testenv: {} exited during startup ({status}); last lines of {}:\n{}",
                    p.name(),
                    p.log_path().display(),
                    p.log_tail(40)
                ));
            }
        }
        Ok(())
    }

    fn failure(&self, what: &str) -> String {
        let mut msg = format!("testenv: {what}\n");
        for p in &self.procs {
            let _ = writeln!(
                msg,
                "---- {} (last 25 lines) ----\n{}",
                p.log_path().display(),
                p.log_tail(25)
            );
        }
        msg
    }
}

fn start_cluster(b: ClusterBuilder, bin_dir: PathBuf) -> Result<Cluster, String> {
    let dir =
        process::work_dir().map_err(|e| format!("testenv: cannot create a work directory: {e}"))?;
    let logs = dir.join("logs");
    fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    let mut s = Starting {
        dir: dir.clone(),
        logs,
        procs: Vec::new(),
        specs: Vec::new(),
    };
    let r = start_in(&b, &bin_dir, &mut s);
    match r {
        Ok((server, kubeconfig, config)) => {
            let id = register(&dir);
            Ok(Cluster {
                mode: b.mode,
                dir,
                kubeconfig,
                server,
                config,
                bin_dir,
                nodes: if b.mode == Mode::Full {
                    b.nodes
                } else {
                    Vec::new()
                },
                procs: Mutex::new(std::mem::take(&mut s.procs)),
                specs: std::mem::take(&mut s.specs),
                namespaces: AtomicU64::new(0),
                id,
            })
        }
        Err(e) => {
            // Keep the logs of a failed start.
            process::mark_failed();
            Err(format!("{e}\n(work directory kept: {})", dir.display()))
        }
    }
}

fn arg(k: &str, v: impl std::fmt::Display) -> String {
    format!("--{k}={v}")
}

fn start_in(
    b: &ClusterBuilder,
    bins: &Path,
    s: &mut Starting,
) -> Result<(String, PathBuf, kube::Config), String> {
    let started = Instant::now();
    let deadline = started + b.startup_timeout;
    let dir = s.dir.clone();
    let pki = Pki::create(&dir.join("pki"))
        .map_err(|e| format!("testenv: cannot write the test PKI: {e}"))?;

    // etcd
    let (etcd_client, etcd_peer) = (process::free_port(), process::free_port());
    let client_url = format!("http://127.0.0.1:{etcd_client}");
    let peer_url = format!("http://127.0.0.1:{etcd_peer}");
    s.spawn(
        "etcd",
        &bins.join("etcd"),
        &[
            arg("name", "kueue-test"),
            arg("data-dir", dir.join("etcd").display()),
            arg("listen-client-urls", &client_url),
            arg("advertise-client-urls", &client_url),
            arg("listen-peer-urls", &peer_url),
            arg("initial-advertise-peer-urls", &peer_url),
            arg("initial-cluster", format!("kueue-test={peer_url}")),
            arg("initial-cluster-state", "new"),
            // Throwaway data: durability buys nothing and fsync is the slow part.
            "--unsafe-no-fsync".into(),
            arg("log-level", "warn"),
        ],
        &[],
    )?;

    // kube-apiserver
    let port = process::free_port();
    let server = format!("https://127.0.0.1:{port}");
    let mut args = vec![
        arg("etcd-servers", &client_url),
        arg("bind-address", "127.0.0.1"),
        arg("advertise-address", "127.0.0.1"),
        arg("secure-port", port),
        arg("tls-cert-file", pki.serving_cert.display()),
        arg("tls-private-key-file", pki.serving_key.display()),
        arg("client-ca-file", pki.ca_cert.display()),
        arg("token-auth-file", pki.token_file.display()),
        arg("authorization-mode", "Node,RBAC"),
        arg(
            "service-account-issuer",
            "https://kubernetes.default.svc.cluster.local",
        ),
        arg("service-account-key-file", pki.sa_pub.display()),
        arg("service-account-signing-key-file", pki.sa_key.display()),
        arg("service-cluster-ip-range", "10.96.0.0/16"),
        arg("cert-dir", dir.join("apiserver-certs").display()),
        arg("allow-privileged", "true"),
        arg("profiling", "false"),
        // The reconciler would publish 127.0.0.1 as the `kubernetes` Service's endpoint, which
        // validation rejects (loopback); nothing in a test cluster uses that Service.
        arg("endpoint-reconciler-type", "none"),
        // The aggregation layer (the visibility API), as kubeadm configures it.
        arg("requestheader-client-ca-file", pki.front_proxy_ca.display()),
        arg("requestheader-allowed-names", "front-proxy-client"),
        arg("requestheader-username-headers", "X-Remote-User"),
        arg("requestheader-group-headers", "X-Remote-Group"),
        arg("requestheader-extra-headers-prefix", "X-Remote-Extra-"),
        arg("proxy-client-cert-file", pki.front_proxy_cert.display()),
        arg("proxy-client-key-file", pki.front_proxy_key.display()),
    ];
    args.extend(b.apiserver_args.iter().cloned());
    s.spawn("kube-apiserver", &bins.join("kube-apiserver"), &args, &[])?;

    let write = |name: &str, text: String| -> Result<PathBuf, String> {
        let p = dir.join(name);
        fs::write(&p, text).map_err(|e| format!("testenv: write {}: {e}", p.display()))?;
        Ok(p)
    };
    let kubeconfig = write(
        "admin.kubeconfig",
        pki.kubeconfig(&server, &pki.admin, "default"),
    )?;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let config = rt.block_on(async {
        let kc = Kubeconfig::read_from(&kubeconfig)
            .map_err(|e| format!("testenv: read {}: {e}", kubeconfig.display()))?;
        kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .map_err(|e| format!("testenv: kubeconfig {}: {e}", kubeconfig.display()))
    })?;
    let client = rt
        .block_on(async { kube::Client::try_from(config.clone()) })
        .map_err(|e| e.to_string())?;

    // Ready = /readyz says ok (etcd reachable, RBAC bootstrap policy written, ...).
    wait(s, deadline, "kube-apiserver /readyz", || {
        rt.block_on(async {
            let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
            matches!(client.request_text(req).await, Ok(t) if t.trim() == "ok")
        })
    })?;

    if b.mode == Mode::Full {
        let kcm_kc = write(
            "controller-manager.kubeconfig",
            pki.kubeconfig(&server, &pki.controller_manager, "kube-system"),
        )?;
        let sched_kc = write(
            "scheduler.kubeconfig",
            pki.kubeconfig(&server, &pki.scheduler, "kube-system"),
        )?;
        let kwok_kc = write(
            "kwok.kubeconfig",
            pki.kubeconfig(&server, &pki.kwok, "default"),
        )?;
        let kwok_cfg = write(
            "kwok.yaml",
            kwok::stages_yaml(
                b.pod_running_after,
                b.job_pods_succeed_after,
                &binaries::kubernetes_version(),
            ),
        )?;

        let kcm_port = process::free_port();
        s.spawn(
            "kube-controller-manager",
            &bins.join("kube-controller-manager"),
            &[
                arg("kubeconfig", kcm_kc.display()),
                arg("bind-address", "127.0.0.1"),
                arg("secure-port", kcm_port),
                arg("cert-dir", dir.join("kcm-certs").display()),
                arg("leader-elect", "false"),
                arg(
                    "controllers",
                    "job-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,\
                     node-lifecycle-controller,replicaset-controller,deployment-controller,\
                     ttl-after-finished-controller,pod-garbage-collector-controller,cronjob-controller",
                ),
                arg("use-service-account-credentials", "true"),
                arg("service-account-private-key-file", pki.sa_key.display()),
                arg("root-ca-file", pki.ca_cert.display()),
                arg("cluster-name", "kueue-test"),
            ],
            &[],
        )?;

        let sched_port = process::free_port();
        s.spawn(
            "kube-scheduler",
            &bins.join("kube-scheduler"),
            &[
                arg("kubeconfig", sched_kc.display()),
                arg("bind-address", "127.0.0.1"),
                arg("secure-port", sched_port),
                arg("cert-dir", dir.join("scheduler-certs").display()),
                arg("leader-elect", "false"),
            ],
            &[],
        )?;

        let kwok_home = dir.join("kwok-home");
        fs::create_dir_all(&kwok_home).map_err(|e| e.to_string())?;
        s.spawn(
            "kwok",
            &bins.join("kwok"),
            &[
                arg("kubeconfig", kwok_kc.display()),
                arg("config", kwok_cfg.display()),
                "--manage-all-nodes=false".into(),
                arg(
                    "manage-nodes-with-annotation-selector",
                    format!(
                        "{}={}",
                        kwok::MANAGED_NODE_ANNOTATION.0,
                        kwok::MANAGED_NODE_ANNOTATION.1
                    ),
                ),
                arg("node-ip", "127.0.0.1"),
                // Pod IPs are only strings in pod status; keep even those on loopback.
                arg("cidr", "127.245.0.0/16"),
                arg("node-lease-duration-seconds", 40),
            ],
            // kwok also reads ~/.kwok/kwok.yaml: give it an empty home.
            &[("HOME", &kwok_home)],
        )?;

        let insecure = |port: u16| -> Result<kube::Client, String> {
            let mut c = kube::Config::new(format!("https://127.0.0.1:{port}").parse().unwrap());
            c.accept_invalid_certs = true;
            rt.block_on(async { kube::Client::try_from(c) })
                .map_err(|e| e.to_string())
        };
        let kcm = insecure(kcm_port)?;
        let sched = insecure(sched_port)?;
        for (what, c) in [
            ("kube-controller-manager /healthz", &kcm),
            ("kube-scheduler /healthz", &sched),
        ] {
            wait(s, deadline, what, || {
                rt.block_on(async {
                    let req = http::Request::get("/healthz").body(Vec::new()).unwrap();
                    matches!(c.request_text(req).await, Ok(t) if t.trim() == "ok")
                })
            })?;
        }

        let nodes: Api<Node> = Api::all(client.clone());
        for n in &b.nodes {
            let node = n.to_node();
            rt.block_on(nodes.create(&PostParams::default(), &node))
                .map_err(|e| s.failure(&format!("create fake node {}: {e}", n.name)))?;
        }
        // kwok plays each node's kubelet (Ready, lease heartbeats); the node-lifecycle controller
        // then lifts the `not-ready` taint the API server put on the new node.
        wait(
            s,
            deadline,
            "fake nodes Ready and untainted (kwok, node-lifecycle controller)",
            || {
                b.nodes.iter().all(|n| {
                    rt.block_on(nodes.get_opt(&n.name))
                        .ok()
                        .flatten()
                        .is_some_and(|node| {
                            let ready = node
                                .status
                                .and_then(|st| st.conditions)
                                .unwrap_or_default()
                                .iter()
                                .any(|c| c.type_ == "Ready" && c.status == "True");
                            let not_ready_taint = node
                                .spec
                                .and_then(|sp| sp.taints)
                                .unwrap_or_default()
                                .iter()
                                .any(|t| t.key.starts_with("node.kubernetes.io/"));
                            ready && !not_ready_taint
                        })
                })
            },
        )?;
        // The service-account controller works: pods can be created in `default`.
        let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
        wait(
            s,
            deadline,
            "ServiceAccount default/default (kube-controller-manager)",
            || rt.block_on(sas.get_opt("default")).ok().flatten().is_some(),
        )?;
    }
    drop(client);
    eprintln!(
        "testenv: {} cluster ready at {} in {:.1}s (work dir {})",
        if b.mode == Mode::Full {
            "full"
        } else {
            "apiserver"
        },
        server,
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok((server, kubeconfig, config))
}

fn wait(
    s: &mut Starting,
    deadline: Instant,
    what: &str,
    mut ready: impl FnMut() -> bool,
) -> Result<(), String> {
    loop {
        s.check_alive()?;
        if ready() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(s.failure(&format!("timed out waiting for {what}")));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
