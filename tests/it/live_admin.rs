//! Queue administration on a real API server: `create`, `list`, `stop`, `resume`, `delete`,
//! run as `kubectl kueue ...` through kubectl's plugin lookup. Workloads are made directly
//! with the status a controller writes, so nothing here depends on which controller runs.
#![cfg(feature = "cli")]

use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, PostParams};
use serde_json::json;

use crate::support::cluster::shared_apiserver;
use crate::support::live::{admit, cell, crds, fails, kueue, ok, queues, suffix, workload};
use kubectl_kueue::api::{ClusterQueue, LocalQueue, ResourceFlavor, Workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn create_writes_what_kueuectl_would_and_checks_flags_first() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("create").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));

    let out = ok(
        cluster,
        &[
            "create",
            "resourceflavor",
            &rf,
            "--node-labels",
            "gpu-type=a100",
            "--node-taints",
            "nvidia.com/gpu=present:NoSchedule",
            "--tolerations",
            "nvidia.com/gpu:NoSchedule",
        ],
    );
    assert_eq!(
        out.trim(),
        format!("resourceflavor.kueue.x-k8s.io/{rf} created")
    );
    let stored = Api::<ResourceFlavor>::all(cluster.client())
        .get(&rf)
        .await
        .unwrap();
    assert_eq!(
        stored.spec.node_labels.get("gpu-type").map(String::as_str),
        Some("a100")
    );
    assert_eq!(stored.spec.node_taints[0].value.as_deref(), Some("present"));
    assert_eq!(
        stored.spec.tolerations[0].operator.as_deref(),
        Some("Exists")
    );

    let out = ok(
        cluster,
        &[
            "create",
            "clusterqueue",
            &cq,
            "--cohort",
            &format!("co-{s}"),
            "--nominal-quota",
            &format!("{rf}:nvidia.com/gpu=4;cpu=32;memory=128Gi"),
            "--borrowing-limit",
            &format!("{rf}:nvidia.com/gpu=4"),
            "--reclaim-within-cohort",
            "Any",
            "--preemption-within-cluster-queue",
            "LowerPriority",
        ],
    );
    assert_eq!(
        out.trim(),
        format!("clusterqueue.kueue.x-k8s.io/{cq} created")
    );
    let stored = serde_json::to_value(
        Api::<ClusterQueue>::all(cluster.client())
            .get(&cq)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(stored["spec"]["cohort"], format!("co-{s}"));
    assert_eq!(stored["spec"]["preemption"]["reclaimWithinCohort"], "Any");
    assert_eq!(
        stored["spec"]["preemption"]["withinClusterQueue"],
        "LowerPriority"
    );
    let group = &stored["spec"]["resourceGroups"][0];
    assert_eq!(
        group["coveredResources"],
        json!(["nvidia.com/gpu", "cpu", "memory"])
    );
    assert_eq!(
        group["flavors"][0]["resources"][0],
        json!({"name": "nvidia.com/gpu", "nominalQuota": "4", "borrowingLimit": "4"})
    );

    // Client dry run prints the object and stores nothing.
    let out = ok(
        cluster,
        &[
            "create",
            "cq",
            &format!("{cq}-dry"),
            "--nominal-quota",
            &format!("{rf}:cpu=1"),
            "--dry-run",
            "-o",
            "json",
        ],
    );
    let printed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed["kind"], "ClusterQueue");
    assert!(
        Api::<ClusterQueue>::all(cluster.client())
            .get_opt(&format!("{cq}-dry"))
            .await
            .unwrap()
            .is_none()
    );
    // Server dry run goes through the API server (which checks it) and stores nothing either.
    let out = ok(
        cluster,
        &[
            "create",
            "cq",
            &format!("{cq}-dry"),
            "--nominal-quota",
            &format!("{rf}:cpu=1"),
            "--dry-run=server",
        ],
    );
    assert!(out.contains("created (server dry run)"), "{out}");
    assert!(
        Api::<ClusterQueue>::all(cluster.client())
            .get_opt(&format!("{cq}-dry"))
            .await
            .unwrap()
            .is_none()
    );

    // Mistakes are caught before the API server, naming the flag.
    let err = fails(
        cluster,
        &[
            "create",
            "cq",
            "x",
            "--nominal-quota",
            "gpu:nvidia.com/gpu=4",
            "--borrowing-limit",
            "gpu:nvidia.com/gpu=4",
        ],
        1,
    );
    assert!(
        err.contains("--borrowing-limit") && err.contains("--cohort"),
        "{err}"
    );
    let err = fails(
        cluster,
        &[
            "create",
            "cq",
            "x",
            "--nominal-quota",
            "gpu:nvidia.com/gpu=lots",
        ],
        1,
    );
    assert!(
        err.contains("--nominal-quota") && err.contains("nvidia.com/gpu=lots"),
        "{err}"
    );
    let err = fails(
        cluster,
        &["create", "cq", "x", "--queuing-strategy", "Fastest"],
        2,
    );
    assert!(err.contains("Fastest"), "{err}");
    // An existing name is the API server's conflict, said plainly.
    let err = fails(cluster, &["create", "rf", &rf], 1);
    assert!(err.contains("already exists"), "{err}");

    // LocalQueue: the ClusterQueue must exist unless told otherwise.
    let out = ok(
        cluster,
        &["create", "localqueue", "training", "-n", &ns, "-c", &cq],
    );
    assert_eq!(out.trim(), "localqueue.kueue.x-k8s.io/training created");
    let lq = Api::<LocalQueue>::namespaced(cluster.client(), &ns)
        .get("training")
        .await
        .unwrap();
    assert_eq!(lq.spec.cluster_queue_name(), Some(cq.as_str()));
    let err = fails(
        cluster,
        &["create", "lq", "orphan", "-n", &ns, "-c", "no-such-cq"],
        1,
    );
    assert!(
        err.contains("no-such-cq") && err.contains("--ignore-unknown-cq"),
        "{err}"
    );
    ok(
        cluster,
        &[
            "create",
            "lq",
            "orphan",
            "-n",
            &ns,
            "-c",
            "no-such-cq",
            "--ignore-unknown-cq",
        ],
    );

    let out = ok(
        cluster,
        &[
            "create",
            "workloadpriorityclass",
            &format!("prod-{s}"),
            "--value",
            "1000",
            "--description",
            "Production",
        ],
    );
    assert!(
        out.contains("workloadpriorityclass.kueue.x-k8s.io/prod-"),
        "{out}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn list_shows_counts_status_and_positions() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("list").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "training").await;
    workload(cluster, &ns, "running", "training", 4, 100).await;
    admit(cluster, &ns, "running", &cq, &rf, 4).await;
    workload(cluster, &ns, "low", "training", 1, 100).await;
    workload(cluster, &ns, "high", "training", 1, 1000).await;
    workload(cluster, &ns, "lost", "no-such-queue", 1, 0).await;

    let out = ok(cluster, &["list", "clusterqueue"]);
    assert_eq!(
        cell(&out, &cq, "PENDING WORKLOADS").as_deref(),
        Some("2"),
        "{out}"
    );
    assert_eq!(
        cell(&out, &cq, "ADMITTED WORKLOADS").as_deref(),
        Some("1"),
        "{out}"
    );
    assert_eq!(cell(&out, &cq, "ACTIVE").as_deref(), Some("true"), "{out}");

    let out = ok(cluster, &["list", "localqueue", "-n", &ns]);
    assert_eq!(
        cell(&out, "training", "CLUSTERQUEUE").as_deref(),
        Some(cq.as_str()),
        "{out}"
    );
    assert_eq!(
        cell(&out, "training", "PENDING WORKLOADS").as_deref(),
        Some("2"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "training", "ADMITTED WORKLOADS").as_deref(),
        Some("1"),
        "{out}"
    );

    // Priority first: `high` is next in line although it came last.
    let out = ok(cluster, &["list", "workload", "-n", &ns]);
    assert_eq!(
        cell(&out, "high", "POSITION IN QUEUE").as_deref(),
        Some("0"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "low", "POSITION IN QUEUE").as_deref(),
        Some("1"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "running", "STATUS").as_deref(),
        Some("ADMITTED"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "running", "POSITION IN QUEUE").as_deref(),
        Some(""),
        "{out}"
    );
    assert_eq!(
        cell(&out, "low", "STATUS").as_deref(),
        Some("PENDING"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "low", "CLUSTERQUEUE").as_deref(),
        Some(cq.as_str()),
        "{out}"
    );
    assert_eq!(
        cell(&out, "lost", "CLUSTERQUEUE").as_deref(),
        Some(""),
        "{out}"
    );

    let out = ok(
        cluster,
        &[
            "list", "workload", "-n", &ns, "--status", "admitted", "-o", "name",
        ],
    );
    assert_eq!(out.trim(), "workload.kueue.x-k8s.io/running");
    let out = ok(
        cluster,
        &[
            "list",
            "workload",
            "-n",
            &ns,
            "-c",
            &cq,
            "--status",
            "pending",
            "--no-headers",
        ],
    );
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["high", "low"], "{out}");
    let out = ok(cluster, &["list", "workload", "-A", "-o", "wide"]);
    let head = out.lines().next().unwrap_or("");
    assert!(
        head.starts_with("NAMESPACE")
            && head.contains("PRIORITY")
            && head.contains("POSITION IN CLUSTERQUEUE"),
        "{out}"
    );
    let high = out
        .lines()
        .find(|l| l.starts_with(&ns) && l.split_whitespace().nth(1) == Some("high"))
        .expect("high in -A -o wide");
    assert!(high.contains("1000"), "{out}");

    let out = ok(cluster, &["list", "resourceflavor"]);
    assert_eq!(
        cell(&out, &rf, "NODE LABELS").as_deref(),
        Some("gpu-type=a100"),
        "{out}"
    );
    let out = ok(cluster, &["list", "rf", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "List");
    assert!(
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["metadata"]["name"] == rf.as_str() && i["kind"] == "ResourceFlavor")
    );

    let err = fails(cluster, &["list", "workload", "--status", "sleeping"], 2);
    assert!(err.contains("sleeping"), "{err}");
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn stop_and_resume_queues_and_workloads() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("stop").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "training").await;
    workload(cluster, &ns, "wl", "training", 1, 0).await;
    let cqs: Api<ClusterQueue> = Api::all(cluster.client());
    let lqs: Api<LocalQueue> = Api::namespaced(cluster.client(), &ns);
    let wls: Api<Workload> = Api::namespaced(cluster.client(), &ns);
    let policy = |v: serde_json::Value| v["spec"]["stopPolicy"].as_str().unwrap_or("").to_string();

    let out = ok(cluster, &["stop", "clusterqueue", &cq]);
    assert_eq!(
        out.trim(),
        format!("clusterqueue.kueue.x-k8s.io/{cq} stopped")
    );
    assert_eq!(
        policy(serde_json::to_value(cqs.get(&cq).await.unwrap()).unwrap()),
        "HoldAndDrain"
    );
    let out = ok(cluster, &["list", "cq", "--active=false"]);
    assert_eq!(cell(&out, &cq, "ACTIVE").as_deref(), Some("false"), "{out}");
    ok(cluster, &["stop", "cq", &cq, "--keep-already-running"]);
    assert_eq!(
        policy(serde_json::to_value(cqs.get(&cq).await.unwrap()).unwrap()),
        "Hold"
    );
    ok(cluster, &["resume", "cq", &cq]);
    assert_eq!(
        policy(serde_json::to_value(cqs.get(&cq).await.unwrap()).unwrap()),
        "None"
    );
    let out = ok(cluster, &["list", "cq", "--active=true"]);
    assert_eq!(cell(&out, &cq, "ACTIVE").as_deref(), Some("true"), "{out}");

    ok(
        cluster,
        &[
            "stop",
            "localqueue",
            "training",
            "-n",
            &ns,
            "--keep-already-running",
        ],
    );
    assert_eq!(
        policy(serde_json::to_value(lqs.get("training").await.unwrap()).unwrap()),
        "Hold"
    );
    let out = ok(cluster, &["resume", "lq", "training", "-n", &ns]);
    assert_eq!(out.trim(), "localqueue.kueue.x-k8s.io/training resumed");
    assert_eq!(
        policy(serde_json::to_value(lqs.get("training").await.unwrap()).unwrap()),
        "None"
    );

    ok(cluster, &["stop", "workload", "wl", "-n", &ns]);
    assert!(!wls.get("wl").await.unwrap().spec.active);
    // A dry run changes nothing.
    let out = ok(
        cluster,
        &["resume", "workload", "wl", "-n", &ns, "--dry-run=client"],
    );
    assert!(out.contains("resumed (dry run)"), "{out}");
    assert!(!wls.get("wl").await.unwrap().spec.active);
    ok(cluster, &["resume", "workload", "wl", "-n", &ns]);
    assert!(wls.get("wl").await.unwrap().spec.active);

    let err = fails(cluster, &["stop", "cq", &format!("missing-{s}")], 1);
    assert!(err.contains("not found"), "{err}");
    let err = fails(cluster, &["stop", "workload", "missing", "-n", &ns], 1);
    assert!(err.contains("missing") && err.contains(&ns), "{err}");
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn delete_asks_first_and_deletes_the_owning_job() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("delete").await;
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
    workload(cluster, &ns, "plain", "training", 1, 0).await;
    let wls: Api<Workload> = Api::namespaced(cluster.client(), &ns);

    // No terminal to ask on and no --yes: nothing is deleted, and the message says what would be.
    let err = fails(cluster, &["delete", "workload", "plain", "-n", &ns], 1);
    assert!(
        err.contains("--yes") && err.contains(&format!("Workload {ns}/plain")),
        "{err}"
    );
    assert!(wls.get_opt("plain").await.unwrap().is_some());
    let out = ok(
        cluster,
        &["delete", "workload", "plain", "-n", &ns, "--yes"],
    );
    assert_eq!(out.trim(), "workload.kueue.x-k8s.io/plain deleted");
    assert!(
        wls.get_opt("plain")
            .await
            .unwrap()
            .is_none_or(|w| w.metadata.deletion_timestamp.is_some())
    );

    // A Workload owned by a Job goes with its Job.
    let job: Job = serde_json::from_value(json!({
        "metadata": {"name": "trainer", "labels": {"kueue.x-k8s.io/queue-name": "training"}},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    }))
    .unwrap();
    let jobs: Api<Job> = Api::namespaced(cluster.client(), &ns);
    let job = jobs.create(&PostParams::default(), &job).await.unwrap();
    let owned = workload(cluster, &ns, "owned", "training", 1, 0).await;
    let mut owned: Workload = serde_json::from_value(owned).unwrap();
    owned.metadata.owner_references = Some(vec![
        k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
            api_version: "batch/v1".into(),
            kind: "Job".into(),
            name: "trainer".into(),
            uid: job.metadata.uid.clone().unwrap(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        },
    ]);
    wls.replace("owned", &PostParams::default(), &owned)
        .await
        .unwrap();
    let out = ok(
        cluster,
        &["delete", "workload", "owned", "-n", &ns, "--yes"],
    );
    assert_eq!(out.trim(), "job.batch/trainer deleted");
    let job_left = jobs.get_opt("trainer").await.unwrap();
    assert!(
        job_left.is_none_or(|j| j.metadata.deletion_timestamp.is_some()),
        "the Job should be gone"
    );

    let err = fails(cluster, &["delete", "workload", "-n", &ns, "--yes"], 1);
    assert!(err.contains("--all"), "{err}");
    let err = fails(
        cluster,
        &["delete", "workload", "nope", "-n", &ns, "--yes"],
        1,
    );
    assert!(err.contains("nope") && err.contains("not found"), "{err}");
    let _ = kueue(
        cluster,
        &["delete", "workload", "--all", "-n", &ns, "--yes"],
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn init_apply_creates_a_working_setup() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("init").await;
    let s = suffix(&ns);
    let (x, y) = (format!("x-{s}"), format!("y-{s}"));
    let out = ok(
        cluster,
        &[
            "init",
            "--non-interactive",
            "--teams",
            &format!("{x},{y}"),
            "--gpu-types",
            &format!("t{s}=4"),
            "--cohort",
            &format!("co-{s}"),
            "--priorities",
            &format!("p-{s}=10"),
            "--apply",
        ],
    );
    assert!(
        out.contains(&format!("clusterqueue.kueue.x-k8s.io/{x}-queue configured")),
        "{out}"
    );
    assert!(out.contains(&format!("namespace/{y} configured")), "{out}");
    let cq = Api::<ClusterQueue>::all(cluster.client())
        .get(&format!("{y}-queue"))
        .await
        .unwrap();
    assert_eq!(cq.spec.cohort_name(), Some(format!("co-{s}").as_str()));
    let lq = Api::<LocalQueue>::namespaced(cluster.client(), &x)
        .get("training-queue")
        .await
        .unwrap();
    assert_eq!(
        lq.spec.cluster_queue_name(),
        Some(format!("{x}-queue").as_str())
    );
    // status reads it back: two ClusterQueues in the cohort, 2 GPUs each.
    let out = ok(
        cluster,
        &[
            "status",
            "-n",
            &x,
            &format!("{x}-queue"),
            &format!("{y}-queue"),
        ],
    );
    assert!(out.contains(&format!("COHORT co-{s}")), "{out}");
    assert_eq!(
        cell(&out, &format!("{x}-queue"), "FLAVOR").as_deref(),
        Some(format!("gpu-t{s}").as_str()),
        "{out}"
    );
    // Applying again changes nothing and succeeds (server-side apply).
    ok(
        cluster,
        &[
            "init",
            "--non-interactive",
            "--teams",
            &format!("{x},{y}"),
            "--gpu-types",
            &format!("t{s}=4"),
            "--cohort",
            &format!("co-{s}"),
            "--priorities",
            &format!("p-{s}=10"),
            "--apply",
        ],
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn version_reports_the_server_and_the_kueue_api() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let out = ok(cluster, &["version"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!("kubectl-kueue {}", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(
        lines.contains(
            &format!(
                "Server: Kubernetes {}",
                crate::support::binaries::kubernetes_version()
            )
            .as_str()
        ),
        "{out}"
    );
    assert!(
        lines.contains(&"Kueue API: kueue.x-k8s.io/v1beta1 is served"),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.starts_with("Controller: ")), "{out}");
    let out = ok(cluster, &["version", "--client"]);
    assert_eq!(out.lines().count(), 1, "{out}");
}
