//! run-controller end to end on the real control plane (full mode: Jobs get pods on fake A100
//! nodes), with the controller running as its own process exactly as a user starts it:
//! - the seed article's story with real Jobs, from `kubectl apply` of the article's files to
//!   preemption, completion and the metrics at the end;
//! - killing the controller (SIGKILL) in the middle of the story and starting it again.
//!
//! The controller runs as the ServiceAccount `kubectl kueue install` creates, with nothing but
//! the installed roles. Throughout, a monitor checks every 100 ms that the Workloads holding quota never exceed the
//! quotas and running pods never exceed the nodes' GPUs.
#![cfg(feature = "cli")]

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};

const T: Duration = Duration::from_secs(60);

/// The article's eight A100 GPUs, on one fake node: quota decides who runs, and a 2-GPU job
/// never waits because the freed GPUs sit on two different nodes (placement is the
/// kube-scheduler's business; without topology-aware scheduling, upstream Kueue does not look
/// at it either).
fn seed_cluster() -> Cluster {
    ClusterBuilder::full()
        .nodes(vec![crate::support::kwok::FakeNode::gpu(
            "gpu-a100-1",
            "a100",
            8,
        )])
        .start()
}

/// The seed's namespaces, priorities, flavor, ClusterQueues and LocalQueues, plus the
/// admission policy (and CRDs, RBAC) from `kubectl kueue install`.
fn setup(cluster: &Cluster) {
    kubectl(cluster, &["kueue", "install", "--without-controller"]);
    let dir = repo_path("examples/gpu-two-teams");
    kubectl(
        cluster,
        &[
            "apply",
            "-f",
            dir.join("namespaces.yaml").to_str().unwrap(),
            "-f",
            dir.join("priorities.yaml").to_str().unwrap(),
            "-f",
            dir.join("setup.yaml").to_str().unwrap(),
        ],
    );
}

fn config_file() -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        f.path(),
        "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nmetrics:\n  enableClusterQueueResources: true\n",
    )
    .unwrap();
    f
}

/// A GPU Job as the article writes them (requests only), with a priority class and a run
/// time for the fake nodes.
fn job_yaml(ns: &str, name: &str, priority: &str, gpus: u32, runs_for: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  labels:
    kueue.x-k8s.io/queue-name: training-queue
    kueue.x-k8s.io/priority-class: {priority}
spec:
  template:
    metadata:
      annotations:
        pod-complete.stage.kwok.x-k8s.io/delay: \"{runs_for}\"
    spec:
      containers:
      - name: train
        image: training:latest
        resources:
          requests:
            nvidia.com/gpu: {gpus}
      restartPolicy: Never
---
"
    )
}

fn apply_text(cluster: &Cluster, yaml: &str) {
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(f.path(), yaml).unwrap();
    kubectl(cluster, &["apply", "-f", f.path().to_str().unwrap()]);
}

fn experiments(cluster: &Cluster) {
    let yaml: String = (1..=8)
        .map(|i| job_yaml("team-a", &format!("experiment-{i}"), "experiment", 1, "1h"))
        .collect();
    apply_text(cluster, &yaml);
}

async fn pods(client: &kube::Client, ns: &str) -> Vec<Pod> {
    Api::<Pod>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
}

fn running(p: &Pod) -> bool {
    p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
        && p.metadata.deletion_timestamp.is_none()
}

fn pod_job(p: &Pod) -> String {
    p.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("job-name"))
        .cloned()
        .unwrap_or_default()
}

/// Workloads holding quota in `cq`, by Job name.
async fn holding(client: &kube::Client, ns: &str, cq: &str) -> Vec<String> {
    let mut v: Vec<String> = workloads(client, ns)
        .await
        .iter()
        .filter(|w| holds_quota(w) && reserved_gpus(w).is_some_and(|(q, _)| q == cq))
        .map(job_name)
        .collect();
    v.sort();
    v
}

async fn running_jobs(client: &kube::Client, ns: &str) -> Vec<String> {
    let mut v: Vec<String> = pods(client, ns)
        .await
        .iter()
        .filter(|p| running(p))
        .map(pod_job)
        .collect();
    v.sort();
    v
}

/// How often each Workload of `ns` was preempted, by Job name (from schedulingStats).
async fn evictions(client: &kube::Client, ns: &str) -> BTreeMap<String, i32> {
    workloads(client, ns)
        .await
        .iter()
        .map(|w| {
            let n = w
                .status
                .as_ref()
                .and_then(|s| s.scheduling_stats.as_ref())
                .map(|s| {
                    s.evictions
                        .iter()
                        .filter(|e| e.reason == "Preempted")
                        .map(|e| e.count)
                        .sum()
                })
                .unwrap_or(0);
            (job_name(w), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Events (reason, note) about an object.
async fn events_of(
    client: &kube::Client,
    ns: &str,
    kind: &str,
    name: &str,
) -> Vec<(String, String)> {
    let evs = Api::<k8s_openapi::api::events::v1::Event>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default();
    evs.into_iter()
        .filter(|e| {
            e.regarding
                .as_ref()
                .is_some_and(|r| r.kind.as_deref() == Some(kind) && r.name.as_deref() == Some(name))
        })
        .flat_map(|e| {
            // An event repeated by the same reporter is one object with a series count.
            let n = e.series.as_ref().map_or(1, |s| s.count.max(1)) as usize;
            std::iter::repeat_n(
                (e.reason.unwrap_or_default(), e.note.unwrap_or_default()),
                n,
            )
        })
        .collect()
}

async fn workload_of(
    client: &kube::Client,
    ns: &str,
    job: &str,
) -> Option<kubectl_kueue::api::Workload> {
    workloads(client, ns)
        .await
        .into_iter()
        .find(|w| job_name(w) == job)
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_story_with_real_jobs() {
    let cluster = seed_cluster();
    let client = cluster.client();
    setup(&cluster);
    let jobs_dir = repo_path("examples/gpu-two-teams/jobs");
    let article = [
        jobs_dir.join("experiment-42.yaml"),
        jobs_dir.join("weekly-retrain.yaml"),
    ];

    // 1. The article's Jobs, applied exactly as printed (GPU requests without limits), are
    //    accepted, held suspended, and get no pod while nothing has admitted them.
    kubectl(
        &cluster,
        &[
            "apply",
            "-f",
            article[0].to_str().unwrap(),
            "-f",
            article[1].to_str().unwrap(),
        ],
    );
    for (ns, name) in [("team-a", "experiment-42"), ("team-b", "weekly-retrain")] {
        let job = Api::<Job>::namespaced(client.clone(), ns)
            .get(name)
            .await
            .unwrap();
        let spec = job.spec.unwrap();
        assert_eq!(spec.suspend, Some(true), "{name} is suspended at creation");
        let c = &spec.template.spec.unwrap().containers[0];
        let limits = c
            .resources
            .as_ref()
            .unwrap()
            .limits
            .clone()
            .unwrap_or_default();
        assert_eq!(
            limits.get(GPU),
            c.resources
                .as_ref()
                .unwrap()
                .requests
                .as_ref()
                .unwrap()
                .get(GPU),
            "limits filled from requests"
        );
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        pods(&client, "team-a").await.is_empty() && pods(&client, "team-b").await.is_empty(),
        "no pod before admission"
    );

    // 2. The controller admits and starts them; they run on the A100 nodes and finish.
    let config = config_file();
    let mut ctl = start_installed_controller(
        &cluster,
        "controller",
        &["--config", config.path().to_str().unwrap()],
    );
    ctl.wait_ready(T);
    let monitor = QuotaMonitor::start(client.clone(), 8, 8, 8);
    for (ns, job) in [("team-a", "experiment-42"), ("team-b", "weekly-retrain")] {
        // Finished workloads also lose the resource-in-use finalizer.
        let w = eventually(
            Some(&cluster),
            T,
            &format!("{job} finished, without finalizer"),
            || async {
                workload_of(&client, ns, job).await.filter(|w| {
                    is_true(w, "Finished")
                        && w.metadata.finalizers.as_ref().is_none_or(|f| f.is_empty())
                })
            },
        )
        .await;
        assert_eq!(cond(&w, "Finished").unwrap().1, "Succeeded");
        eventually(Some(&cluster), T, &format!("{job}'s events"), || async {
            let events = events_of(&client, ns, "Job", job).await;
            ["CreatedWorkload", "Started", "FinishedWorkload"]
                .iter()
                .all(|r| events.iter().any(|(e, _)| e == r))
                .then_some(())
        })
        .await;
    }
    let retrain_pod = pods(&client, "team-b")
        .await
        .into_iter()
        .find(|p| pod_job(p) == "weekly-retrain")
        .expect("weekly-retrain's pod");
    let spec = retrain_pod.spec.unwrap();
    assert!(spec.node_name.unwrap_or_default().starts_with("gpu-a100-"));
    assert_eq!(
        spec.node_selector
            .unwrap_or_default()
            .get("gpu-type")
            .map(String::as_str),
        Some("a100"),
        "the flavor's node labels are injected"
    );
    assert_eq!(
        retrain_pod
            .metadata
            .labels
            .unwrap()
            .get("kueue.x-k8s.io/podset")
            .map(String::as_str),
        Some("main")
    );
    kubectl(
        &cluster,
        &["delete", "job", "-n", "team-a", "experiment-42", "--wait"],
    );
    kubectl(
        &cluster,
        &["delete", "job", "-n", "team-b", "weekly-retrain", "--wait"],
    );
    eventually(
        Some(&cluster),
        T,
        "the finished Workloads garbage-collected",
        || async {
            (workloads(&client, "team-a").await.is_empty()
                && workloads(&client, "team-b").await.is_empty())
            .then_some(())
        },
    )
    .await;

    // 3. Team A's eight one-GPU experiments fill the eight GPUs, four of them borrowed.
    experiments(&cluster);
    let eight: Vec<String> = (1..=8).map(|i| format!("experiment-{i}")).collect();
    let mut eight_sorted = eight.clone();
    eight_sorted.sort();
    eventually(
        Some(&cluster),
        T,
        "8 experiments admitted and running",
        || async {
            (holding(&client, "team-a", "team-a-queue").await == eight_sorted
                && running_jobs(&client, "team-a").await == eight_sorted)
                .then_some(())
        },
    )
    .await;
    let cq = eventually(
        Some(&cluster),
        T,
        "team-a-queue status shows 8 GPUs, 4 borrowed",
        || async {
            let cq = Api::<kubectl_kueue::api::ClusterQueue>::all(client.clone())
                .get("team-a-queue")
                .await
                .ok()?;
            let st = cq.status.clone()?;
            let gpu = st
                .flavors_reservation
                .iter()
                .find(|f| f.name == "gpu-a100")?
                .resources
                .iter()
                .find(|r| r.name == GPU)?
                .clone();
            (gpu.total.as_ref()?.0 == "8"
                && gpu.borrowed.as_ref()?.0 == "4"
                && st.admitted_workloads == 8)
                .then_some(st)
        },
    )
    .await;
    assert_eq!(cq.reserving_workloads, 8);
    assert!(
        cq.conditions
            .iter()
            .any(|c| c.type_ == "Active" && c.status == "True" && c.reason == "Ready")
    );
    let before: BTreeMap<String, String> = pods(&client, "team-a")
        .await
        .into_iter()
        .map(|p| (pod_job(&p), p.metadata.name.unwrap_or_default()))
        .collect();

    // 4. Team B's production job arrives (the article's file again): two borrowed experiments
    //    are preempted, their pods deleted; the job runs on an A100 node; when it completes
    //    the two experiments start again.
    kubectl(&cluster, &["apply", "-f", article[1].to_str().unwrap()]);
    let victims = eventually(Some(&cluster), T, "two experiments preempted", || async {
        let e = evictions(&client, "team-a").await;
        (e.len() == 2).then_some(e)
    })
    .await;
    for (job, n) in &victims {
        assert_eq!(*n, 1, "{job} was preempted once");
        let w = workload_of(&client, "team-a", job).await.unwrap();
        // Still out (True, upstream's reason) or already admitted again (False, below).
        let (status, reason, message) = cond(&w, "Preempted").unwrap();
        assert!(
            match status.as_str() {
                "True" => reason == "InCohortReclamation",
                _ => reason == "QuotaReserved" && message.starts_with("Previously: "),
            },
            "{status} {reason}: {message}"
        );
        assert!(message.contains("due to reclamation within the cohort; preemptor path: /gpu-cluster/team-b-queue; preemptee path: /gpu-cluster/team-a-queue"), "{message}");
        let wl_name = w.metadata.name.clone().unwrap();
        eventually(
            Some(&cluster),
            T,
            "EvictedDueToPreempted and Preempted events on the victim",
            || async {
                let events = events_of(&client, "team-a", "Workload", &wl_name).await;
                ["EvictedDueToPreempted", "Preempted"]
                    .iter()
                    .all(|r| events.iter().any(|(e, _)| e == r))
                    .then_some(())
            },
        )
        .await;
        eventually(
            Some(&cluster),
            T,
            "a Stopped event on the victim's Job",
            || async {
                events_of(&client, "team-a", "Job", job)
                    .await
                    .iter()
                    .any(|(r, n)| r == "Stopped" && n.starts_with("Preempted to accommodate"))
                    .then_some(())
            },
        )
        .await;
        let old_pod = &before[job];
        eventually(Some(&cluster), T, "the victim's pod deleted", || async {
            Api::<Pod>::namespaced(client.clone(), "team-a")
                .get_opt(old_pod)
                .await
                .ok()
                .flatten()
                .is_none()
                .then_some(())
        })
        .await;
    }
    let retrain = eventually(Some(&cluster), T, "weekly-retrain admitted", || async {
        workload_of(&client, "team-b", "weekly-retrain")
            .await
            .filter(|w| is_true(w, "QuotaReserved") || is_true(w, "Finished"))
    })
    .await;
    assert_eq!(
        retrain.status.unwrap().admission.unwrap().cluster_queue,
        "team-b-queue"
    );
    // The Events follow the status write that admitted it: wait for them.
    let retrain_name = retrain.metadata.name.clone().unwrap();
    let events = eventually(
        Some(&cluster),
        T,
        "weekly-retrain's QuotaReserved Event",
        || async {
            let events = events_of(&client, "team-b", "Workload", &retrain_name).await;
            events
                .iter()
                .any(|(r, n)| {
                    r == "QuotaReserved"
                    && n.starts_with(
                        "Quota reserved in ClusterQueue team-b-queue, wait time since queued was ",
                    )
                })
                .then_some(events)
        },
    )
    .await;
    assert!(
        events
            .iter()
            .any(|(r, n)| r == "PreemptedWorkload" && n.starts_with("Preempted workload team-a/")),
        "{events:?}"
    );
    let pod = eventually(
        Some(&cluster),
        T,
        "weekly-retrain's pod on an A100 node",
        || async {
            pods(&client, "team-b").await.into_iter().find(|p| {
                pod_job(p) == "weekly-retrain"
                    && p.spec.as_ref().is_some_and(|s| s.node_name.is_some())
            })
        },
    )
    .await;
    assert!(
        pod.spec
            .unwrap()
            .node_name
            .unwrap()
            .starts_with("gpu-a100-")
    );
    eventually(Some(&cluster), T, "weekly-retrain finished", || async {
        workload_of(&client, "team-b", "weekly-retrain")
            .await
            .filter(|w| is_true(w, "Finished"))
    })
    .await;
    eventually(
        Some(&cluster),
        T,
        "the preempted experiments start again",
        || async {
            (holding(&client, "team-a", "team-a-queue").await == eight_sorted
                && running_jobs(&client, "team-a").await == eight_sorted)
                .then_some(())
        },
    )
    .await;
    // Re-admitted, each victim's status keeps its history as upstream writes it: Evicted
    // and Preempted False for `QuotaReserved` with the eviction's message "Previously: ...",
    // Requeued for the preemption, the eviction counted.
    for job in victims.keys() {
        let w = workload_of(&client, "team-a", job).await.unwrap();
        let requeued = cond(&w, "Requeued").expect("Requeued condition");
        assert_eq!(
            (requeued.0.as_str(), requeued.1.as_str()),
            ("True", "Preempted"),
            "{job}"
        );
        for type_ in ["Evicted", "Preempted"] {
            let (status, reason, message) =
                cond(&w, type_).unwrap_or_else(|| panic!("{job}: no {type_} condition"));
            assert_eq!(
                (status.as_str(), reason.as_str()),
                ("False", "QuotaReserved"),
                "{job}: {type_} after re-admission"
            );
            assert!(
                message.starts_with("Previously: Preempted to accommodate a workload (UID: ")
                    && message.contains("due to reclamation within the cohort; preemptor path: /gpu-cluster/team-b-queue; preemptee path: /gpu-cluster/team-a-queue"),
                "{job}: {type_}: {message}"
            );
        }
        let evictions: Vec<_> = w
            .status
            .as_ref()
            .and_then(|s| s.scheduling_stats.as_ref())
            .map(|s| {
                s.evictions
                    .iter()
                    .map(|e| (e.reason.clone(), e.underlying_cause.clone(), e.count))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            evictions,
            [("Preempted".to_string(), String::new(), 1)],
            "{job}"
        );
    }

    // 5. Team B reclaims its four GPUs for a long production job, then a production job in
    //    team A's own queue preempts one of its experiments.
    apply_text(
        &cluster,
        &job_yaml("team-b", "serving", "production", 4, "1h"),
    );
    eventually(
        Some(&cluster),
        T,
        "team B's serving job runs with its 4 GPUs",
        || async {
            (holding(&client, "team-b", "team-b-queue").await == ["serving"]
                && running_jobs(&client, "team-b").await == ["serving"])
            .then_some(())
        },
    )
    .await;
    eventually(
        Some(&cluster),
        T,
        "team A back to its nominal 4",
        || async { (holding(&client, "team-a", "team-a-queue").await.len() == 4).then_some(()) },
    )
    .await;
    apply_text(
        &cluster,
        &job_yaml("team-a", "urgent-fix", "production", 1, "1h"),
    );
    eventually(
        Some(&cluster),
        T,
        "urgent-fix runs in team A's queue",
        || async {
            (holding(&client, "team-a", "team-a-queue")
                .await
                .contains(&"urgent-fix".to_string())
                && running_jobs(&client, "team-a")
                    .await
                    .contains(&"urgent-fix".to_string()))
            .then_some(())
        },
    )
    .await;
    let in_queue: Vec<String> = workloads(&client, "team-a")
        .await
        .iter()
        .filter(|w| cond(w, "Preempted").is_some_and(|c| c.0 == "True" && c.1 == "InClusterQueue"))
        .map(job_name)
        .collect();
    assert_eq!(
        in_queue.len(),
        1,
        "exactly one experiment preempted within the queue: {in_queue:?}"
    );
    assert!(in_queue[0].starts_with("experiment-"));

    // 6. The metrics reflect the final state.
    eventually(Some(&cluster), T, "metrics reflect the state", || async {
        let m = ctl.metrics();
        let a = [("cluster_queue", "team-a-queue")];
        let b = [("cluster_queue", "team-b-queue")];
        let gpu_a = [
            ("cluster_queue", "team-a-queue"),
            ("flavor", "gpu-a100"),
            ("resource", GPU),
        ];
        let gpu_b = [
            ("cluster_queue", "team-b-queue"),
            ("flavor", "gpu-a100"),
            ("resource", GPU),
        ];
        let pending_a = metric(
            &m,
            "kueue_pending_workloads",
            &[("cluster_queue", "team-a-queue"), ("status", "active")],
        )? + metric(
            &m,
            "kueue_pending_workloads",
            &[
                ("cluster_queue", "team-a-queue"),
                ("status", "inadmissible"),
            ],
        )?;
        let ok = metric(&m, "kueue_admitted_active_workloads", &a)? == 4.0
            && metric(&m, "kueue_admitted_active_workloads", &b)? == 1.0
            && pending_a == 5.0
            && metric(&m, "kueue_cluster_queue_resource_usage", &gpu_a)? == 4.0
            && metric(&m, "kueue_cluster_queue_resource_usage", &gpu_b)? == 4.0
            && metric(&m, "kueue_cluster_queue_resource_reservation", &gpu_a)? == 4.0
            && metric(&m, "kueue_cluster_queue_nominal_quota", &gpu_a)? == 4.0
            && metric(
                &m,
                "kueue_preempted_workloads_total",
                &[
                    ("preempting_cluster_queue", "team-b-queue"),
                    ("reason", "InCohortReclamation"),
                ],
            )? == 6.0
            && metric(
                &m,
                "kueue_preempted_workloads_total",
                &[
                    ("preempting_cluster_queue", "team-a-queue"),
                    ("reason", "InClusterQueue"),
                ],
            )? == 1.0
            && metric(
                &m,
                "kueue_evicted_workloads_total",
                &[("cluster_queue", "team-a-queue"), ("reason", "Preempted")],
            )? == 7.0
            && metric(&m, "kueue_admission_wait_time_seconds_count", &b)? >= 3.0
            && metric(
                &m,
                "kueue_admission_attempts_total",
                &[("result", "success")],
            )? >= 1.0;
        ok.then_some(())
    })
    .await;
    // 7. Deleting a running Job: its Workload goes too (the controller lets its finalizer go)
    //    and the GPU it held admits a waiting experiment.
    kubectl(
        &cluster,
        &[
            "delete",
            "job",
            "-n",
            "team-a",
            "urgent-fix",
            "--wait=false",
        ],
    );
    let deadline = std::time::Instant::now() + T;
    loop {
        let holding = holding(&client, "team-a", "team-a-queue").await;
        let left = workload_of(&client, "team-a", "urgent-fix").await;
        if left.is_none()
            && holding.len() == 4
            && holding.iter().all(|j| j.starts_with("experiment-"))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "urgent-fix's Workload not gone or its GPU not reused: {:?} holding {holding:?}\n{}",
            left.map(|w| (
                w.metadata.deletion_timestamp,
                w.metadata.finalizers,
                w.metadata.owner_references
            )),
            ctl.log()
                .lines()
                .filter(|l| l.contains("urgent"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    monitor.check();
    assert!(
        !ctl.log()
            .contains("no Node has this ResourceFlavor's node labels"),
        "gpu-a100 matches the A100 node"
    );
    assert!(
        ctl.proc.exited().is_none(),
        "the controller is still running:\n{}",
        ctl.proc.log_tail(30)
    );
    let log = ctl.log();
    assert!(
        !log.contains("forbidden") && !log.contains("Forbidden"),
        "the installed roles lack a permission the story needs:\n{log}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_mid_story_loses_nothing_and_double_admits_nothing() {
    let cluster = seed_cluster();
    let client = cluster.client();
    setup(&cluster);
    let config = config_file();
    let args = ["--config", config.path().to_str().unwrap()];
    let mut ctl = start_installed_controller(&cluster, "controller-1", &args);
    ctl.wait_ready(T);
    let monitor = QuotaMonitor::start(client.clone(), 8, 8, 8);
    experiments(&cluster);
    let mut eight: Vec<String> = (1..=8).map(|i| format!("experiment-{i}")).collect();
    eight.sort();
    eventually(Some(&cluster), T, "8 experiments running", || async {
        (running_jobs(&client, "team-a").await == eight).then_some(())
    })
    .await;

    // Killed with work in flight: the production job arrives as the controller dies, and the
    // next controller is killed as soon as it has evicted the first victim.
    ctl.proc.kill();
    let retrain = repo_path("examples/gpu-two-teams/jobs/weekly-retrain.yaml");
    kubectl(&cluster, &["apply", "-f", retrain.to_str().unwrap()]);
    let mut ctl = start_installed_controller(&cluster, "controller-2", &args);
    eventually(Some(&cluster), T, "a victim evicted", || async {
        workloads(&client, "team-a")
            .await
            .iter()
            .any(|w| is_true(w, "Evicted"))
            .then_some(())
    })
    .await;
    ctl.proc.kill();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut ctl = start_installed_controller(&cluster, "controller-3", &args);
    ctl.wait_ready(T);

    eventually(Some(&cluster), T, "weekly-retrain finished", || async {
        workload_of(&client, "team-b", "weekly-retrain")
            .await
            .filter(|w| is_true(w, "Finished"))
    })
    .await;
    eventually(Some(&cluster), T, "the 8 experiments run again", || async {
        (holding(&client, "team-a", "team-a-queue").await == eight
            && running_jobs(&client, "team-a").await == eight)
            .then_some(())
    })
    .await;
    let victims = evictions(&client, "team-a").await;
    assert_eq!(
        victims.len(),
        2,
        "exactly two experiments preempted across the restarts: {victims:?}"
    );
    assert!(victims.values().all(|n| *n == 1), "{victims:?}");
    // One Workload per Job, none lost or duplicated.
    let mut owners: Vec<String> = workloads(&client, "team-a")
        .await
        .iter()
        .map(job_name)
        .collect();
    owners.sort();
    assert_eq!(owners, eight);
    assert_eq!(workloads(&client, "team-b").await.len(), 1);
    // Nothing admitted twice: an experiment left alone reserved quota once, a victim twice.
    for job in &eight {
        let w = workload_of(&client, "team-a", job).await.unwrap();
        let reservations = events_of(
            &client,
            "team-a",
            "Workload",
            w.metadata.name.as_deref().unwrap(),
        )
        .await
        .iter()
        .filter(|(r, _)| r == "QuotaReserved")
        .count();
        let expected = if victims.contains_key(job) { 2 } else { 1 };
        assert_eq!(reservations, expected, "{job}: QuotaReserved events");
    }
    monitor.check();
    assert!(ctl.proc.exited().is_none());
}
