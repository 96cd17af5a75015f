//! `kubectl kueue submit` on a real API server: the Job it creates (queue label, suspended,
//! GPU limits filled), Jobs from flags, the errors that need a cluster, and `--wait`
//! following the Workload. The Workload is made here the way a Kueue controller makes it, so
//! the test depends on no controller; with `run-controller` built, the last test runs the
//! whole story through ours.
#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, ListParams, PostParams};

use crate::support::cluster::{shared_apiserver, shared_full};
use crate::support::live::{admit, crds, fails, ok, queues, suffix};
use kubectl_kueue::api::{Workload, WorkloadPriorityClass};

const SEED_JOB: &str = include_str!("../../examples/gpu-two-teams/jobs/weekly-retrain.yaml");

/// The seed's Job without its namespace (so it goes to the test's) and its priority label
/// (`production` is cluster-wide; tests that want a priority pass --priority).
fn seed_job_file() -> tempfile::NamedTempFile {
    let mut v: serde_json::Value = serde_yaml::from_str(SEED_JOB).unwrap();
    v["metadata"].as_object_mut().unwrap().remove("namespace");
    v["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .remove("kueue.x-k8s.io/priority-class");
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(f.path(), serde_yaml::to_string(&v).unwrap()).unwrap();
    f
}

async fn priority_class(cluster: &crate::support::cluster::Cluster, name: &str, value: i32) {
    let api: Api<WorkloadPriorityClass> = Api::all(cluster.client());
    let _ = api
        .create(
            &PostParams::default(),
            &WorkloadPriorityClass::new(name, value),
        )
        .await;
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn submit_from_a_file_makes_the_job_ready_for_kueue() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-file").await;
    let s = suffix(&ns);
    queues(
        cluster,
        &format!("gpu-{s}"),
        &format!("cq-{s}"),
        None,
        4,
        &ns,
        "training",
    )
    .await;
    let prio = format!("production-{s}");
    priority_class(cluster, &prio, 1000).await;
    let file = seed_job_file();
    let path = file.path().to_str().unwrap();

    // No controller here: submit says which Workload to expect and returns.
    let out = ok(
        cluster,
        &[
            "submit",
            "-f",
            path,
            "-n",
            &ns,
            "--queue",
            "training",
            "--priority",
            &prio,
            "--timeout",
            "1s",
        ],
    );
    assert!(out.contains("job.batch/weekly-retrain created"), "{out}");
    assert!(
        out.contains("workload.kueue.x-k8s.io/job-weekly-retrain-")
            && out.contains(&format!("LocalQueue {ns}/training")),
        "{out}"
    );
    let job = Api::<Job>::namespaced(cluster.client(), &ns)
        .get("weekly-retrain")
        .await
        .unwrap();
    let labels = job.metadata.labels.clone().unwrap();
    assert_eq!(labels["kueue.x-k8s.io/queue-name"], "training");
    assert_eq!(labels["kueue.x-k8s.io/priority-class"], prio);
    let spec = job.spec.unwrap();
    assert_eq!(spec.suspend, Some(true));
    let res = spec.template.spec.unwrap().containers[0]
        .resources
        .clone()
        .unwrap();
    assert_eq!(res.limits.unwrap()["nvidia.com/gpu"].0, "2");
    assert_eq!(res.requests.unwrap()["nvidia.com/gpu"].0, "2");

    // Errors that need the cluster: unknown priority class, namespace mismatch.
    let err = fails(
        cluster,
        &[
            "submit",
            "-f",
            path,
            "-n",
            &ns,
            "--priority",
            "no-such-class",
        ],
        1,
    );
    assert!(
        err.contains("no-such-class") && err.contains(&prio),
        "{err}"
    );
    let err = fails(
        cluster,
        &[
            "submit",
            "-f",
            "examples/gpu-two-teams/jobs/weekly-retrain.yaml",
            "-n",
            &ns,
        ],
        1,
    );
    assert!(err.contains("team-b") && err.contains(&ns), "{err}");
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn submit_from_flags_builds_the_job() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-flags").await;
    let s = suffix(&ns);
    queues(
        cluster,
        &format!("gpu-{s}"),
        &format!("cq-{s}"),
        None,
        4,
        &ns,
        "training",
    )
    .await;
    let out = ok(
        cluster,
        &[
            "submit",
            "--image",
            "registry.example/ml/trainer:v2",
            "--gpus",
            "1",
            "--cpu",
            "500m",
            "--memory",
            "2Gi",
            "--parallelism",
            "2",
            "--completions",
            "4",
            "--queue",
            "training",
            "-n",
            &ns,
            "--timeout",
            "1s",
            "-o",
            "name",
            "--",
            "python",
            "train.py",
            "--lr",
            "0.1",
        ],
    );
    let name = out
        .lines()
        .next()
        .unwrap()
        .trim()
        .strip_prefix("job.batch/")
        .expect("-o name prints job.batch/NAME")
        .to_string();
    assert!(name.starts_with("trainer-"), "{name}");
    let job = Api::<Job>::namespaced(cluster.client(), &ns)
        .get(&name)
        .await
        .unwrap();
    let spec = job.spec.unwrap();
    assert_eq!(
        (spec.parallelism, spec.completions, spec.suspend),
        (Some(2), Some(4), Some(true))
    );
    let c = &spec.template.spec.as_ref().unwrap().containers[0];
    assert_eq!(c.image.as_deref(), Some("registry.example/ml/trainer:v2"));
    assert_eq!(
        c.command.clone().unwrap(),
        ["python", "train.py", "--lr", "0.1"]
    );
    let res = c.resources.clone().unwrap();
    let req = res.requests.unwrap();
    assert_eq!(
        (
            req["cpu"].0.as_str(),
            req["memory"].0.as_str(),
            req["nvidia.com/gpu"].0.as_str()
        ),
        ("500m", "2Gi", "1")
    );
    let lim = res.limits.unwrap();
    assert_eq!(
        lim.len(),
        1,
        "only the extended resource gets a limit: {lim:?}"
    );
    assert_eq!(lim["nvidia.com/gpu"].0, "1");
}

/// Lines of a child's stream, on a channel.
fn lines(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_line(rx: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            let hit = l.contains(needle);
            seen.push(l);
            if hit {
                return true;
            }
        }
    }
    false
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn submit_wait_follows_the_workload_until_admitted() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-wait").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "training").await;
    let file = seed_job_file();

    let mut cmd = cluster.kubectl();
    cmd.args([
        "kueue",
        "submit",
        "-f",
        file.path().to_str().unwrap(),
        "-n",
        &ns,
        "--queue",
        "training",
        "--wait",
        "--timeout",
        "120s",
    ])
    .env("NO_COLOR", "1")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let out = lines(child.stdout.take().unwrap());
    let err = lines(child.stderr.take().unwrap());
    let mut seen = Vec::new();

    // Play the controller: the Job's Workload appears, is queued, then admitted.
    let jobs: Api<Job> = Api::namespaced(cluster.client(), &ns);
    let job = crate::support::eventually(
        Some(cluster),
        Duration::from_secs(60),
        "the submitted Job",
        || {
            let jobs = jobs.clone();
            async move {
                jobs.list(&ListParams::default())
                    .await
                    .ok()?
                    .items
                    .into_iter()
                    .next()
            }
        },
    )
    .await;
    assert!(
        wait_line(&err, "waiting for its Workload", &mut seen),
        "{seen:#?}"
    );
    let wl = kubectl_kueue::manifests::job::workload_for_job(
        &job,
        &kubectl_kueue::manifests::priority::Priorities {
            workload: [("production".to_string(), 1000)].into_iter().collect(),
            ..Default::default()
        },
    )
    .unwrap();
    let wl_name = wl.metadata.name.clone().unwrap();
    let minute = |t: k8s_openapi::jiff::Timestamp| t.strftime("%H:%M").to_string();
    let before = minute(k8s_openapi::jiff::Timestamp::now());
    Api::<Workload>::namespaced(cluster.client(), &ns)
        .create(&PostParams::default(), &wl)
        .await
        .unwrap();
    let queued = format!("queued in ClusterQueue {cq}: position 0 of 1");
    assert!(wait_line(&err, &queued, &mut seen), "{seen:#?}");
    // The estimate while waiting: it fits the empty queue, so the forecast admits it at the
    // snapshot's `now`, in both passes (a start equal to its "at the latest" is shown as an
    // upper bound), and the progress line carries the clock time alone.
    let after = minute(k8s_openapi::jiff::Timestamp::now());
    let line = seen.last().unwrap().trim();
    assert!(
        [&before, &after]
            .iter()
            .any(|m| line == format!("{queued}; estimated start ≤{m} UTC")),
        "expected `{queued}; estimated start ≤{before} UTC` (or {after}), got {line:?}"
    );
    admit(cluster, &ns, &wl_name, &cq, &rf, 2).await;

    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    let mut stdout = Vec::new();
    while let Ok(l) = out.recv_timeout(Duration::from_secs(5)) {
        stdout.push(l);
    }
    assert!(
        status.success(),
        "submit --wait: {status}\n{seen:#?}\n{stdout:#?}"
    );
    let stdout = stdout.join("\n");
    assert!(
        stdout.contains("job.batch/weekly-retrain created"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "workload.kueue.x-k8s.io/{wl_name}: admitted on flavor {rf} in ClusterQueue {cq}"
        )),
        "{stdout}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn submit_wait_gives_up_at_the_timeout_with_exit_code_3() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-timeout").await;
    let s = suffix(&ns);
    queues(
        cluster,
        &format!("gpu-{s}"),
        &format!("cq-{s}"),
        None,
        4,
        &ns,
        "training",
    )
    .await;
    let file = seed_job_file();
    let out = crate::support::live::kueue(
        cluster,
        &[
            "submit",
            "-f",
            file.path().to_str().unwrap(),
            "-n",
            &ns,
            "--queue",
            "training",
            "--wait",
            "--timeout",
            "2s",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("still waiting for its Workload") && stdout.contains("--timeout"),
        "{stdout}"
    );
}

/// The whole story through our controller, once `kubectl-kueue run-controller` exists: the
/// Job is admitted, unsuspended, its pods run on the fake A100 nodes and it finishes.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn submit_wait_finished_with_run_controller() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .arg("--help")
        .output()
        .unwrap();
    if !String::from_utf8_lossy(&help.stdout).contains("run-controller") {
        eprintln!("skipped: kubectl-kueue has no run-controller subcommand yet");
        return;
    }
    let cluster = shared_full();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-e2e").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &rf, &cq, None, 8, &ns, "training").await;
    // On free ports: the defaults (:8443, :8081) are the in-cluster pod's in `e2e_in_cluster`.
    let _controller =
        crate::support::controller::start_controller(cluster, &format!("controller-{s}"), &[]);
    let file = seed_job_file();
    let out = crate::support::live::kueue(
        cluster,
        &[
            "submit",
            "-f",
            file.path().to_str().unwrap(),
            "-n",
            &ns,
            "--queue",
            "training",
            "--wait=finished",
            "--timeout",
            "180s",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("finished"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // Polling may see it admitted or already running; both lines name the flavor.
        stderr.contains(&format!("on flavor {rf}")),
        "{stderr}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn dry_run_says_what_would_happen_and_creates_nothing() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("submit-dry").await;
    let s = suffix(&ns);
    let (flavor, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &flavor, &cq, None, 4, &ns, "training").await;
    let file = seed_job_file();
    let path = file.path().to_str().unwrap();

    let out = ok(
        cluster,
        &[
            "submit",
            "-f",
            path,
            "-n",
            &ns,
            "--queue",
            "training",
            "--dry-run",
        ],
    );
    assert!(
        out.contains(&format!(
            "would be admitted now in ClusterQueue {cq} on flavor {flavor}"
        )),
        "{out}"
    );

    // Six GPUs can never fit a queue of four.
    let out = ok(
        cluster,
        &[
            "submit",
            "--image",
            "trainer:1",
            "--name",
            "too-big",
            "--gpus",
            "6",
            "-n",
            &ns,
            "--queue",
            "training",
            "--dry-run",
            "-o",
            "json",
        ],
    );
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["evaluation"]["mode"], "NoFit", "{e:#}");
    assert_eq!(e["evaluation"]["reason"], "ExceedsMaxQuota", "{e:#}");
    assert!(
        e["evaluation"]["message"]
            .as_str()
            .unwrap()
            .contains("> maximum capacity (4)"),
        "{e:#}"
    );

    let jobs: Api<Job> = Api::namespaced(cluster.client(), &ns);
    assert!(
        jobs.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty(),
        "a dry run creates no Job"
    );
}
