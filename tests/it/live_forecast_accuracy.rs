//! The start-time forecast against the real controller (issue 14's accuracy, live): a window
//! of the example week (`examples/traces/seed-week.jsonl`) on the seed's two-team setup,
//! compressed `speedup` times, is submitted as plain Workloads to a private API server with
//! `run-controller` admitting them; a job side marks each admitted Workload `Finished` its
//! runtime later (a preempted one starts over on its next admission).
//!
//! At each submission the forecast `status` shows is made as `submit --dry-run` makes it: on
//! the cluster read live, with the arriving Workloads added as pending, and with every job's
//! runtime known exactly (the trace's), so what is measured is the forecast's model of the
//! controller plus what it cannot know (later arrivals), not a runtime guess. The forecast
//! admission is compared with the admission the controller then made, seen on a watch;
//! errors are reported on the trace's clock (real error x `speedup`), next to the offline
//! replay's on the same window (`simulate --trace --forecast-accuracy`'s measurement).
//!
//! One compression artefact is corrected: a Workload's `QuotaReserved` time has whole-second
//! resolution (minutes of trace time here), so the running workloads' admissions in the
//! forecast's picture are the ones the watch saw, to the millisecond.
//!
//! The suite runs Monday 09:00-10:30 at 180x (30 s); the long run, behind `--ignored`, three
//! hours of Monday morning at 60x (README, Forecast accuracy):
//! `cargo test --test it live_forecast_accuracy -- --ignored --nocapture`.
#![cfg(feature = "cli")]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kubectl_kueue::api::Workload;
use kubectl_kueue::manifests::{ConvertOptions, Inventory};
use kubectl_kueue::scheduler::key::WorkloadKey;
use kubectl_kueue::scheduler::model::Millis;
use kubectl_kueue::scheduler::quantity::format_amount;
use kubectl_kueue::simulate::forecast::{Runtime, RuntimeSource, Start, forecast};
use kubectl_kueue::simulate::trace::accuracy::{self, Runtimes};
use kubectl_kueue::simulate::trace::{self, TraceJob};
use kubectl_kueue::view::snapshot::Snapshot;
use serde_json::json;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::{repo_path, start_controller};

fn now_ms() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as Millis)
}

/// The example week's jobs submitted in `[from, from + len)` (trace clock).
fn window(from: &str, len_minutes: i64) -> Vec<TraceJob> {
    let path = repo_path("examples/traces/seed-week.jsonl");
    let text = std::fs::read_to_string(&path).expect("the example week");
    let all = trace::parse("seed-week.jsonl", &text).expect("the example week parses");
    let start = from
        .parse::<k8s_openapi::jiff::Timestamp>()
        .expect("window start")
        .as_millisecond();
    all.into_iter()
        .filter(|j| j.submitted >= start && j.submitted < start + len_minutes * 60_000)
        .collect()
}

/// What the watch saw of one job.
#[derive(Debug, Default, Clone)]
struct Seen {
    /// First admission (real ms).
    first: Option<Millis>,
    /// The current admission, while it holds quota (real ms), and how many it had.
    current: Option<Millis>,
    admissions: u32,
}

struct Measured {
    speedup: i64,
    /// Per job (trace order): forecast admission and actual first admission, both real ms
    /// since the window's real start, and the actual submission.
    rows: Vec<(Option<Millis>, Option<Millis>, Millis)>,
    offline: accuracy::Accuracy,
}

fn workload_body(j: &TraceJob) -> serde_json::Value {
    let ps: Vec<serde_json::Value> = j
        .pod_sets
        .iter()
        .map(|ps| {
            let requests: serde_json::Map<String, serde_json::Value> = ps
                .per_pod
                .iter()
                .map(|(r, v)| (r.clone(), json!(format_amount(r, *v))))
                .collect();
            json!({"name": ps.name, "count": ps.count, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}],
            }}})
        })
        .collect();
    let mut spec = json!({"queueName": j.local_queue, "priority": j.priority, "podSets": ps});
    if let Some(pc) = &j.priority_class {
        spec["priorityClassName"] = json!(pc);
        spec["priorityClassSource"] = json!("kueue.x-k8s.io/workloadpriorityclass");
    }
    json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": j.name, "namespace": j.namespace},
        "spec": spec,
    })
}

async fn mark_finished(client: kube::Client, ns: String, name: String) {
    let api: Api<Workload> = Api::namespaced(client, &ns);
    let ts = trace::format::rfc3339(now_ms() / 1000 * 1000);
    let body = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns},
        "status": {"conditions": [{
            "type": "Finished", "status": "True", "reason": "JobFinished",
            "message": "Finished by the forecast accuracy run", "lastTransitionTime": ts,
        }]},
    });
    let pp = PatchParams::apply("forecast-accuracy-job-side").force();
    if let Err(e) = api.patch_status(&name, &pp, &Patch::Apply(&body)).await {
        eprintln!("forecast-accuracy: finish {ns}/{name}: {e}");
    }
}

/// The job side and the recorder: admissions as the watch sees them, and `Finished` each
/// admitted job's (compressed) runtime after its admission.
fn watch(
    client: kube::Client,
    jobs: Arc<BTreeMap<(String, String), Millis>>,
    seen: Arc<Mutex<BTreeMap<(String, String), Seen>>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let api: Api<Workload> = Api::all(client.clone());
        let mut events = watcher(api, watcher::Config::default())
            .default_backoff()
            .applied_objects()
            .boxed();
        while let Some(event) = events.next().await {
            // A dropped watch is re-established by the backoff; its errors are skipped.
            let Ok(w) = event else { continue };
            let key = (
                w.metadata.namespace.clone().unwrap_or_default(),
                w.metadata.name.clone().unwrap_or_default(),
            );
            let Some(&runtime) = jobs.get(&key) else {
                continue;
            };
            let status = w.status.as_ref();
            let holds = status.is_some_and(|s| {
                s.admission.is_some()
                    && s.condition_is_true("QuotaReserved")
                    && !s.condition_is_true("Finished")
            });
            let now = now_ms();
            let mut all = seen.lock().unwrap();
            let s = all.entry(key.clone()).or_default();
            match (holds, s.current) {
                (true, None) => {
                    s.current = Some(now);
                    s.first.get_or_insert(now);
                    s.admissions += 1;
                    let (generation, seen, client) = (s.admissions, seen.clone(), client.clone());
                    drop(all);
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(runtime as u64)).await;
                        let still = seen
                            .lock()
                            .unwrap()
                            .get(&key)
                            .is_some_and(|s| s.admissions == generation && s.current.is_some());
                        if still {
                            mark_finished(client, key.0, key.1).await;
                        }
                    });
                }
                (false, Some(_)) => s.current = None,
                _ => {}
            }
        }
    })
}

/// The forecast `submit --dry-run` would show for `arriving` at `now`.
async fn forecast_for(
    client: &kube::Client,
    arriving: &[(usize, &TraceJob)],
    runtimes_real: &BTreeMap<WorkloadKey, Millis>,
    seen: &Mutex<BTreeMap<(String, String), Seen>>,
) -> BTreeMap<usize, Option<Millis>> {
    let inventory = kubectl_kueue::kube::snapshot::read_inventory(client)
        .await
        .expect("read the cluster");
    // Taken after the read: every admission the read shows is in it.
    let seen = seen.lock().unwrap().clone();
    let now = now_ms();
    let snap = Snapshot::from_inventory(inventory, now).expect("convert the cluster");
    let mut state = snap.converted.state;
    for w in &mut state.workloads {
        if let Some(at) = seen
            .get(&(w.namespace.clone(), w.name.clone()))
            .and_then(|s| s.current)
            .filter(|_| w.admission.is_some())
        {
            w.quota_reserved_at = Some(at);
        }
    }
    for &(i, j) in arriving {
        let mut w = trace::replay::workload(j, i);
        w.queue_time = now;
        w.uid = format!("dry-run-{i}");
        state.workloads.push(w);
    }
    let runtimes: BTreeMap<WorkloadKey, Runtime> = state
        .workloads
        .iter()
        .filter_map(|w| {
            let k = w.key();
            let r = *runtimes_real.get(&k)?;
            Some((k, Runtime::limit(RuntimeSource::Unknown, r)))
        })
        .collect();
    // Off the async workers, so the watch and the job side keep their timing.
    let f = tokio::task::spawn_blocking(move || forecast(&state, &runtimes, now))
        .await
        .expect("the forecast");
    arriving
        .iter()
        .map(|&(i, j)| {
            let key = WorkloadKey::new(&j.namespace, &j.name);
            let at = f.estimate(&key).and_then(|e| match e.start {
                Start::At { at } => Some(at),
                _ => None,
            });
            (i, at)
        })
        .collect()
}

async fn measure(cluster: &Cluster, jobs: &[TraceJob], speedup: i64, drain: Duration) -> Measured {
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    for f in ["namespaces.yaml", "priorities.yaml", "setup.yaml"] {
        let path = repo_path(&format!("examples/gpu-two-teams/{f}"));
        let yaml = std::fs::read_to_string(&path).unwrap();
        crate::support::apply::apply_yaml(&client, &yaml, "default")
            .await
            .unwrap();
    }
    let mut ctl = start_controller(cluster, "forecast-accuracy", &[]);
    ctl.wait_ready(Duration::from_secs(60));

    let runtime_real = |j: &TraceJob| j.runtime_ms.unwrap_or(0) / speedup;
    let by_name: BTreeMap<(String, String), Millis> = jobs
        .iter()
        .map(|j| ((j.namespace.clone(), j.name.clone()), runtime_real(j)))
        .collect();
    let runtimes_real: BTreeMap<WorkloadKey, Millis> = jobs
        .iter()
        .map(|j| (WorkloadKey::new(&j.namespace, &j.name), runtime_real(j)))
        .collect();
    let seen: Arc<Mutex<BTreeMap<(String, String), Seen>>> = Arc::default();
    let watcher = watch(client.clone(), Arc::new(by_name), seen.clone());

    let first = jobs.first().map_or(0, |j| j.submitted);
    let start = Instant::now();
    let start_ms = now_ms();
    let mut predicted: BTreeMap<usize, Option<Millis>> = BTreeMap::new();
    let mut submitted: BTreeMap<usize, Millis> = BTreeMap::new();
    let mut i = 0;
    while i < jobs.len() {
        let at = jobs[i].submitted;
        let batch: Vec<(usize, &TraceJob)> = jobs
            .iter()
            .enumerate()
            .skip(i)
            .take_while(|(_, j)| j.submitted == at)
            .collect();
        i += batch.len();
        let due = Duration::from_millis(((at - first) / speedup) as u64);
        tokio::time::sleep(due.saturating_sub(start.elapsed())).await;
        predicted.extend(forecast_for(&client, &batch, &runtimes_real, &seen).await);
        for &(k, j) in &batch {
            let api: Api<Workload> = Api::namespaced(client.clone(), &j.namespace);
            let w: Workload = serde_json::from_value(workload_body(j)).unwrap();
            api.create(&PostParams::default(), &w)
                .await
                .unwrap_or_else(|e| panic!("create {}/{}: {e}", j.namespace, j.name));
            submitted.insert(k, now_ms() - start_ms);
        }
    }
    // Until every job was admitted once (or the drain limit).
    let deadline = Instant::now() + drain;
    loop {
        let done = seen
            .lock()
            .unwrap()
            .values()
            .filter(|s| s.first.is_some())
            .count();
        if done == jobs.len() || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    watcher.abort();
    ctl.signal(libc::SIGTERM);
    ctl.wait_exit(Duration::from_secs(20));
    let seen = seen.lock().unwrap().clone();
    let rows = jobs
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let actual = seen
                .get(&(j.namespace.clone(), j.name.clone()))
                .and_then(|s| s.first)
                .map(|a| a - start_ms);
            let forecast = predicted
                .get(&k)
                .copied()
                .flatten()
                .map(|p| (p - start_ms).max(0));
            (forecast, actual, submitted.get(&k).copied().unwrap_or(0))
        })
        .collect();
    let docs = kubectl_kueue::simulate::embedded::setup_documents().unwrap();
    let setup = trace::setup(
        Inventory::from_documents(docs).unwrap(),
        &[],
        &ConvertOptions {
            now: first,
            strict_namespace_selector: false,
        },
    )
    .unwrap();
    let (_, offline) = accuracy::measure(&setup, jobs, Runtimes::Exact);
    Measured {
        speedup,
        rows,
        offline,
    }
}

/// Nearest-rank percentile of sorted `v`.
fn pct(v: &[Millis], p: usize) -> Millis {
    if v.is_empty() {
        return 0;
    }
    v[((p * v.len()).div_ceil(100)).clamp(1, v.len()) - 1]
}

/// Absolute errors in trace minutes: (count, median, p90, max), over all jobs with a
/// forecast time and an admission, and over those that waited (admitted a trace minute or
/// more after submission).
fn errors(m: &Measured) -> [(usize, f64, f64, f64); 2] {
    let mut all = Vec::new();
    let mut waited = Vec::new();
    for &(f, a, s) in &m.rows {
        let (Some(f), Some(a)) = (f, a) else {
            continue;
        };
        let e = (f - a).abs() * m.speedup;
        all.push(e);
        if (a - s) * m.speedup >= 60_000 {
            waited.push(e);
        }
    }
    [all, waited].map(|mut v| {
        v.sort_unstable();
        let min = |ms: Millis| ms as f64 / 60_000.0;
        (
            v.len(),
            min(pct(&v, 50)),
            min(pct(&v, 90)),
            min(v.last().copied().unwrap_or(0)),
        )
    })
}

fn report(label: &str, m: &Measured) -> String {
    let [all, waited] = errors(m);
    let o = &m.offline;
    format!(
        "{label}: {} jobs, {} with a forecast time, {} admitted\n\
         live (controller):  median {:.1} min, p90 {:.1} min, max {:.1} min over {} forecasts; waited: median {:.1}, p90 {:.1} over {}\n\
         offline (replay):   median {:.1} min, p90 {:.1} min, max {:.1} min over {} forecasts; waited: median {:.1}, p90 {:.1} over {}",
        m.rows.len(),
        m.rows.iter().filter(|r| r.0.is_some()).count(),
        m.rows.iter().filter(|r| r.1.is_some()).count(),
        all.1,
        all.2,
        all.3,
        all.0,
        waited.1,
        waited.2,
        waited.0,
        o.all.median_seconds / 60.0,
        o.all.p90_seconds / 60.0,
        o.all.max_seconds / 60.0,
        o.all.jobs,
        o.waited.median_seconds / 60.0,
        o.waited.p90_seconds / 60.0,
        o.waited.jobs,
    )
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forecasts_made_at_submission_match_the_controllers_admissions() {
    // Monday 09:00-10:30: the morning queue builds up (8 GPUs, jobs of 5-40 minutes).
    let jobs = window("2025-07-21T09:00:00Z", 90);
    assert!(jobs.len() >= 30, "a busy window: {} jobs", jobs.len());
    let cluster = ClusterBuilder::apiserver().start();
    let m = measure(&cluster, &jobs, 180, Duration::from_secs(120)).await;
    let text = report("Monday 09:00-10:30 at 180x", &m);
    eprintln!("{text}");
    assert!(
        m.rows.iter().all(|r| r.0.is_some() && r.1.is_some()),
        "every job got a forecast time and was admitted:\n{text}\n{:?}",
        m.rows
    );
    let [all, _] = errors(&m);
    // Exact runtimes: what remains is later arrivals and the controller's latency (a real
    // second is three trace minutes here). A wrong model (order, flavors, preemption) misses
    // by the jobs' runtimes, tens of minutes.
    assert!(all.1 <= 5.0, "median error within 5 trace minutes:\n{text}");
}

#[ignore = "long run (about 5 minutes): cargo test --test it live_forecast_accuracy -- --ignored --nocapture"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forecast_accuracy_on_a_monday_morning() {
    let jobs = window("2025-07-21T09:00:00Z", 180);
    let cluster = ClusterBuilder::apiserver().start();
    let m = measure(&cluster, &jobs, 60, Duration::from_secs(600)).await;
    println!("{}", report("Monday 09:00-12:00 at 60x", &m));
}
