//! The live run: a fresh etcd + kube-apiserver (upstream's harness flags), the CRDs, the
//! release `kubectl-kueue run-controller` as a child process, the generator creating the
//! scenario on its schedule, the job side (a workload seen admitted is marked Finished after
//! its runtime; an evicted one still holding its reservation a second later has it cleared,
//! as upstream's fake job controller does) and the recorder on the Workload watch.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};

use super::record::{Observation, Track, format_rfc3339, parse_rfc3339};
use super::scenario::{Arrival, Scenario};
use super::stats::ProcessFigures;
use super::support::cluster::{Cluster, ClusterBuilder};
use super::support::kwok::FakeNode;

/// Creations in flight at once. Each creation is still sent at its time or as soon as one
/// of these is free (its time to admission counts from its time either way): at large-scale
/// the schedule asks for about 20,000 creations a second at first, and sent all at once they
/// only overload kube-apiserver's admission ("resource quota evaluation timed out": 147,424
/// failed creations in four minutes before this limit).
const CREATES_IN_FLIGHT: usize = 500;

pub struct LiveRun {
    pub tracks: Vec<Track>,
    pub created_ms: Vec<u64>,
    pub controller: ProcessFigures,
    pub apiserver: ProcessFigures,
    pub etcd: ProcessFigures,
    pub harness_releases: u64,
    pub timed_out: bool,
    /// The API server's request counters, after minus before (see [`request_counts`]).
    pub requests: BTreeMap<String, u64>,
}

/// How the live run is set up.
pub struct Options {
    /// The controller binary.
    pub controller: String,
    pub timeout: Duration,
    /// Keep the ValidatingAdmissionPolicies `install` adds; upstream's harness has no
    /// admission checks at all, so by default only the mutating Job policy stays.
    pub with_policies: bool,
    /// No controller: the API server's floor (see [`super::floor`]).
    pub api_floor: bool,
}

/// The kinds whose requests the summary counts.
const COUNTED: [&str; 6] = [
    "workloads",
    "clusterqueues",
    "localqueues",
    "events",
    "jobs",
    "leases",
];

/// `apiserver_request_total` from the API server's /metrics, summed by verb, resource and
/// subresource, for the [`COUNTED`] kinds.
async fn request_counts(client: &kube::Client) -> BTreeMap<String, u64> {
    let req = http::Request::get("/metrics")
        .body(Vec::new())
        .expect("request");
    let Ok(text) = client.request_text(req).await else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with("apiserver_request_total{"))
    {
        let Some((labels, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let label = |name: &str| {
            let key = format!("{name}=\"");
            labels.split(',').find_map(|kv| {
                let kv = kv.trim_start_matches("apiserver_request_total{");
                kv.strip_prefix(&key)
                    .map(|v| v.trim_end_matches('}').trim_end_matches('"').to_string())
            })
        };
        let (Some(verb), Some(resource)) = (label("verb"), label("resource")) else {
            continue;
        };
        if !COUNTED.contains(&resource.as_str()) || verb == "WATCH" || verb == "LIST" {
            continue;
        }
        let sub = label("subresource").filter(|s| !s.is_empty());
        let key = match sub {
            Some(sub) => format!("{verb} {resource}/{sub}"),
            None => format!("{verb} {resource}"),
        };
        *out.entry(key).or_insert(0) += value.parse::<f64>().unwrap_or(0.0) as u64;
    }
    out
}

pub fn workload_resource() -> ApiResource {
    ApiResource {
        group: "kueue.x-k8s.io".into(),
        version: "v1beta1".into(),
        api_version: "kueue.x-k8s.io/v1beta1".into(),
        kind: "Workload".into(),
        plural: "workloads".into(),
    }
}

/// CPU seconds (user + system) and peak RSS of a live process, from /proc.
pub fn proc_figures(pid: u32) -> ProcessFigures {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let hwm_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    // USER_HZ is 100 on Linux whatever the kernel's tick.
    ProcessFigures {
        cpu_seconds: (ticks(11) + ticks(12)) as f64 / 100.0,
        peak_rss_bytes: hwm_kib * 1024,
    }
}

fn queues_yaml(s: &Scenario) -> String {
    let mut y = String::from(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: rf}\n",
    );
    for q in &s.queues {
        let cohort = q
            .cohort
            .as_ref()
            .map_or(String::new(), |c| format!("  cohort: {c}\n"));
        let borrowing = q
            .borrowing_limit_milli
            .map_or(String::new(), |b| format!(", borrowingLimit: {}m", b));
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: {n}}}\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {{name: {n}}}\nspec:\n{cohort}  namespaceSelector: {{}}\n  queueingStrategy: BestEffortFIFO\n  flavorFungibility: {{whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}}\n  preemption: {{reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: rf\n      resources: [{{name: cpu, nominalQuota: {nom}m{borrowing}}}]\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {{name: {n}, namespace: {n}}}\nspec: {{clusterQueue: {n}}}\n",
            n = q.name,
            nom = q.nominal_milli,
        ));
    }
    y
}

fn workload_body(a: &Arrival) -> Value {
    json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": { "name": a.name, "namespace": a.namespace, "labels": {
            "kueue.x-k8s.io/performance-scheduler-running-ms": a.runtime_ms.to_string(),
            "kueue.x-k8s.io/performance-scheduler-class": a.class,
        } },
        "spec": { "queueName": a.namespace, "priority": a.priority, "podSets": [{
            "name": "main", "count": 1,
            "template": { "spec": { "restartPolicy": "Never", "containers": [{
                "name": "c", "image": "registry.k8s.io/pause:3.9",
                "resources": { "requests": { "cpu": format!("{}m", a.cpu_milli) } },
            }] } },
        }] },
    })
}

fn job_body(a: &Arrival) -> Value {
    json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": { "name": a.name, "namespace": a.namespace, "labels": {
            "kueue.x-k8s.io/queue-name": a.namespace,
            "kueue.x-k8s.io/performance-scheduler-class": a.class,
        } },
        "spec": { "template": { "spec": { "restartPolicy": "Never", "containers": [{
            "name": "c", "image": "x",
            "resources": { "requests": { "cpu": format!("{}m", a.cpu_milli) } },
        }] } } },
    })
}

fn condition<'a>(obj: &'a Value, ty: &str) -> Option<&'a Value> {
    obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == ty)
}

fn is_true(obj: &Value, ty: &str) -> bool {
    condition(obj, ty).is_some_and(|c| c["status"] == "True")
}

fn observe(obj: &Value) -> Observation {
    Observation {
        quota_reserved: is_true(obj, "QuotaReserved"),
        admitted: is_true(obj, "Admitted"),
        admitted_since_s: condition(obj, "Admitted")
            .and_then(|c| c["lastTransitionTime"].as_str())
            .and_then(parse_rfc3339),
        evicted: is_true(obj, "Evicted"),
        finished: is_true(obj, "Finished"),
        created_s: obj["metadata"]["creationTimestamp"]
            .as_str()
            .and_then(parse_rfc3339),
        cluster_queue: obj["status"]["admission"]["clusterQueue"]
            .as_str()
            .map(String::from),
    }
}

pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    format_rfc3339(secs)
}

struct Shared {
    start: Instant,
    tracks: Vec<Track>,
    /// (namespace, name) -> schedule index; Jobs' Workloads resolve through their owner.
    index: BTreeMap<(String, String), usize>,
    releases: u64,
    /// `--api-floor`: the Workloads the floor admitter was asked to admit.
    floor_admitted: Option<Vec<bool>>,
}

/// `KUEUE_PERF_RESTART_APISERVER_AT=<seconds>`, a diagnostic: kube-apiserver is killed and
/// started again that long into the run, so every watch lists again (its new watch cache
/// answers the old resource versions 410 Gone), as a saturated API server makes it do at
/// upstream's large-scale shape. It shows what a re-list costs the controller; the API
/// server's figures then cover its first life only, and the run is not comparable to others.
struct PlannedRestart {
    at: Option<Duration>,
}

impl PlannedRestart {
    fn from_env() -> PlannedRestart {
        let at = std::env::var("KUEUE_PERF_RESTART_APISERVER_AT")
            .ok()
            .map(|v| match v.parse::<f64>() {
                Ok(secs) if secs >= 0.0 => Duration::from_secs_f64(secs),
                _ => panic!("KUEUE_PERF_RESTART_APISERVER_AT={v}: not a number of seconds"),
            });
        PlannedRestart { at }
    }

    /// Restarts kube-apiserver once its time came.
    fn when_due(&mut self, cluster: &Cluster, start: Instant) {
        if self.at.is_some_and(|at| start.elapsed() >= at) {
            self.at = None;
            eprintln!(
                "perf: restarting kube-apiserver {:.1} s into the run",
                start.elapsed().as_secs_f64()
            );
            cluster.restart("kube-apiserver");
        }
    }
}

pub fn start_cluster(s: &Scenario) -> Cluster {
    let mut b = if s.jobs {
        let node = |i: usize| {
            FakeNode::new(&format!("perf-node-{i}"))
                .capacity("cpu", "64")
                .capacity("pods", "1000")
        };
        ClusterBuilder::full()
            .nodes((0..4).map(node).collect())
            .pod_running_after(Duration::from_millis(100))
            .job_pods_succeed_after(Duration::from_millis(500))
    } else {
        ClusterBuilder::apiserver()
    };
    // KUEUE_PERF_APISERVER_PROFILING=1 serves /debug/pprof on the API server, for
    // `kubectl get --raw '/debug/pprof/profile?seconds=30'` during a run.
    if std::env::var_os("KUEUE_PERF_APISERVER_PROFILING").is_some() {
        b = b.apiserver_arg("--profiling=true");
    }
    b.apiserver_arg("--max-requests-inflight=5000")
        .apiserver_arg("--max-mutating-requests-inflight=2500")
        .start()
}

pub async fn run(s: &Scenario, schedule: &[Arrival], cluster: &Cluster, opts: &Options) -> LiveRun {
    let timeout = opts.timeout;
    let client = cluster.client();
    let out = cluster
        .kubectl()
        .args(["kueue", "install", "--without-controller"])
        .output()
        .expect("kubectl kueue install");
    assert!(
        out.status.success(),
        "install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if !opts.with_policies {
        let out = cluster
            .kubectl()
            .args(["delete", "validatingadmissionpolicybindings", "--all"])
            .output()
            .expect("kubectl delete");
        assert!(
            out.status.success(),
            "delete the validation policies: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let requests0 = request_counts(&client).await;
    // The API server stops enforcing a deleted binding only once its informer saw the
    // deletion: retry for a while.
    let mut tries = 0;
    while let Err(e) = super::support::apply::apply_yaml(&client, &queues_yaml(s), "default").await
    {
        tries += 1;
        assert!(tries < 60, "queues: {e}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    let mut cmd = Command::new(&opts.controller);
    cmd.args(["run-controller", "--kubeconfig"])
        .arg(cluster.kubeconfig_path())
        .args([
            "--metrics-bind-address",
            "0",
            "--health-probe-bind-address",
            "0",
        ])
        // KUEUE_PERF_CONTROLLER_LOG=<filter> (for example
        // `kubectl_kueue::controller::shell=trace`, one line per Workload status write) with
        // KUEUE_TESTENV_KEEP=1 keeps the controller's log in the work directory.
        .env(
            "RUST_LOG",
            std::env::var("KUEUE_PERF_CONTROLLER_LOG").unwrap_or_else(|_| "warn".into()),
        );
    let mut ctl = (!opts.api_floor).then(|| {
        cluster
            .spawn("controller", cmd)
            .expect("start the controller")
    });
    let pid_of = |n: &str| {
        cluster
            .pids()
            .into_iter()
            .find(|(p, _)| p == n)
            .map(|(_, pid)| pid)
    };
    let (api_pid, etcd_pid) = (pid_of("kube-apiserver"), pid_of("etcd"));
    let api0 = api_pid.map(proc_figures).unwrap_or_default();
    let etcd0 = etcd_pid.map(proc_figures).unwrap_or_default();

    let index = schedule
        .iter()
        .enumerate()
        .map(|(i, a)| ((a.namespace.clone(), a.name.clone()), i))
        .collect();
    let mut restart = PlannedRestart::from_env();
    let start = Instant::now();
    let shared = Arc::new(Mutex::new(Shared {
        start,
        tracks: vec![Track::default(); schedule.len()],
        index,
        releases: 0,
        floor_admitted: opts.api_floor.then(|| vec![false; schedule.len()]),
    }));
    let ar = workload_resource();
    let all: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
    let arrivals: Arc<Vec<Arrival>> = Arc::new(schedule.to_vec());
    let watch = {
        let shared = shared.clone();
        let client = client.clone();
        let arrivals = arrivals.clone();
        let jobs = s.jobs;
        tokio::spawn(async move {
            let cfg = watcher::Config::default();
            let stream = watcher(all, cfg).default_backoff().applied_objects();
            futures::pin_mut!(stream);
            while let Some(ev) = stream.next().await {
                let Ok(obj) = ev else { continue };
                on_workload(&shared, &client, &arrivals, obj, jobs);
            }
        })
    };

    // The generator: each creation at its time, never waiting for an earlier one.
    let mut created_ms = vec![0u64; schedule.len()];
    let sent: Arc<Mutex<Vec<u64>>> = Arc::new(Mutex::new(vec![0; schedule.len()]));
    let gen_start = Instant::now();
    let mut creates = Vec::with_capacity(schedule.len());
    let in_flight = Arc::new(tokio::sync::Semaphore::new(CREATES_IN_FLIGHT));
    for (i, a) in schedule.iter().enumerate() {
        tokio::time::sleep_until((gen_start + Duration::from_millis(a.at_ms)).into()).await;
        restart.when_due(cluster, start);
        let (body, resource) = if s.jobs {
            (
                job_body(a),
                ApiResource {
                    group: "batch".into(),
                    version: "v1".into(),
                    api_version: "batch/v1".into(),
                    kind: "Job".into(),
                    plural: "jobs".into(),
                },
            )
        } else {
            (workload_body(a), ar.clone())
        };
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), &a.namespace, &resource);
        let sent = sent.clone();
        let t = start.elapsed().as_millis() as u64;
        let in_flight = in_flight.clone();
        creates.push(tokio::spawn(async move {
            sent.lock().unwrap()[i] = t;
            let obj: DynamicObject = serde_json::from_value(body).expect("object");
            let _permit = in_flight.acquire_owned().await.expect("never closed");
            let mut pause = Duration::from_millis(100);
            // About two minutes of retries at most: then the API server is not coming back.
            for _ in 0..60 {
                match api.create(&PostParams::default(), &obj).await {
                    Ok(_) => return,
                    Err(kube::Error::Api(e)) if e.code == 409 => return,
                    Err(e) => {
                        eprintln!(
                            "perf: create {}: {e}; retrying in {pause:?}",
                            obj.metadata.name.clone().unwrap_or_default()
                        );
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_secs(2));
                    }
                }
            }
        }));
    }
    for c in creates {
        let _ = c.await;
    }
    created_ms.copy_from_slice(&sent.lock().unwrap());

    let deadline = start + timeout;
    let mut timed_out = false;
    loop {
        let done = shared
            .lock()
            .unwrap()
            .tracks
            .iter()
            .all(|t| t.finished_ms.is_some());
        if done {
            break;
        }
        if Instant::now() > deadline {
            timed_out = true;
            break;
        }
        restart.when_due(cluster, start);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let controller = ctl
        .as_ref()
        .map(|c| proc_figures(c.pid()))
        .unwrap_or_default();
    let sub = |now: ProcessFigures, before: ProcessFigures| ProcessFigures {
        cpu_seconds: now.cpu_seconds - before.cpu_seconds,
        peak_rss_bytes: now.peak_rss_bytes,
    };
    let apiserver = sub(api_pid.map(proc_figures).unwrap_or_default(), api0);
    let etcd = sub(etcd_pid.map(proc_figures).unwrap_or_default(), etcd0);
    let mut requests = request_counts(&client).await;
    for (k, v) in &requests0 {
        if let Some(n) = requests.get_mut(k) {
            *n = n.saturating_sub(*v);
        }
    }
    if let Some(c) = ctl.as_mut() {
        c.kill();
    }
    watch.abort();
    let sh = shared.lock().unwrap();
    LiveRun {
        tracks: sh.tracks.clone(),
        created_ms,
        controller,
        apiserver,
        etcd,
        harness_releases: sh.releases,
        timed_out,
        requests,
    }
}

/// One watch event: record it, and play the job side.
fn on_workload(
    shared: &Arc<Mutex<Shared>>,
    client: &kube::Client,
    arrivals: &Arc<Vec<Arrival>>,
    obj: DynamicObject,
    jobs: bool,
) {
    let ns = obj.metadata.namespace.clone().unwrap_or_default();
    let name = obj.metadata.name.clone().unwrap_or_default();
    let owner = obj
        .metadata
        .owner_references
        .as_ref()
        .and_then(|o| o.first())
        .map(|o| o.name.clone());
    let rv = obj.metadata.resource_version.clone().unwrap_or_default();
    let value = serde_json::to_value(&obj).unwrap_or_default();
    let o = observe(&value);
    let mut sh = shared.lock().unwrap();
    let key = (
        ns.clone(),
        if jobs {
            owner.unwrap_or_default()
        } else {
            name.clone()
        },
    );
    let Some(&i) = sh.index.get(&key) else { return };
    let at = sh.start.elapsed().as_millis() as u64;
    let evicted_and_held = o.evicted && o.quota_reserved && !o.finished;
    let was_evicted_and_held = sh.tracks[i].last.evicted && sh.tracks[i].last.quota_reserved;
    let unreserved = !o.quota_reserved && !o.finished;
    let admitted = sh.tracks[i].observe(at, o);
    let generation = sh.tracks[i].admissions;
    let evictions = sh.tracks[i].evictions;
    let floor_admit = unreserved
        && sh
            .floor_admitted
            .as_mut()
            .is_some_and(|asked| !std::mem::replace(&mut asked[i], true));
    drop(sh);
    if floor_admit {
        let (client, arrivals) = (client.clone(), arrivals.clone());
        tokio::spawn(async move { super::floor::admit(client, &arrivals[i]).await });
        return;
    }
    let ar = workload_resource();
    if admitted && !jobs {
        let runtime = Duration::from_millis(arrivals[i].runtime_ms);
        let (shared, client) = (shared.clone(), client.clone());
        tokio::spawn(async move {
            tokio::time::sleep(runtime).await;
            {
                let sh = shared.lock().unwrap();
                let t = &sh.tracks[i];
                if t.admissions != generation || t.admitted_since.is_none() {
                    return; // evicted meanwhile: the next admission starts over
                }
            }
            let api: Api<DynamicObject> = Api::namespaced_with(client, &ns, &ar);
            let body = json!({
                "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                "metadata": { "name": name, "namespace": ns },
                "status": { "conditions": [{
                    "type": "Finished", "status": "True", "reason": "ByTest",
                    "message": "By test runner", "lastTransitionTime": now_rfc3339(),
                }] },
            });
            let pp = PatchParams::apply("kueue-job-controller-Finished").force();
            // Retried while the API server cannot be reached (a restart), as the creates are.
            let mut pause = Duration::from_millis(100);
            for _ in 0..60 {
                match api.patch_status(&name, &pp, &Patch::Apply(&body)).await {
                    Ok(_) => return,
                    Err(e @ kube::Error::Api(_)) => {
                        eprintln!("perf: finish {ns}/{name}: {e}");
                        return;
                    }
                    Err(e) => {
                        eprintln!("perf: finish {ns}/{name}: {e}; retrying in {pause:?}");
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_secs(2));
                    }
                }
            }
        });
    } else if evicted_and_held && !was_evicted_and_held && !jobs {
        // Our controller releases an ownerless evicted Workload itself; a job side would
        // otherwise do it once its pods are gone. Give the controller a second first.
        let (shared, client) = (shared.clone(), client.clone());
        let conditions = value["status"]["conditions"].clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            {
                let sh = shared.lock().unwrap();
                let t = &sh.tracks[i];
                if t.evictions != evictions || !(t.last.evicted && t.last.quota_reserved) {
                    return;
                }
            }
            let now = now_rfc3339();
            let mut conds: Vec<Value> = conditions.as_array().cloned().unwrap_or_default();
            for c in conds.iter_mut() {
                if c["type"] == "QuotaReserved" || c["type"] == "Admitted" {
                    c["status"] = "False".into();
                    c["reason"] = if c["type"] == "QuotaReserved" {
                        "Pending"
                    } else {
                        "NoReservation"
                    }
                    .into();
                    c["message"] = "Evicted by the test runner".into();
                    c["lastTransitionTime"] = now.clone().into();
                }
            }
            let api: Api<DynamicObject> = Api::namespaced_with(client, &ns, &ar);
            let body = json!({ "metadata": { "resourceVersion": rv }, "status": { "admission": null, "conditions": conds } });
            if api
                .patch_status(&name, &PatchParams::default(), &Patch::Merge(&body))
                .await
                .is_ok()
            {
                shared.lock().unwrap().releases += 1;
            }
        });
    }
}
