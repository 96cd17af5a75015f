//! `kubectl kueue status` on a real API server: usage, counts, positions and reasons come
//! from the Workload objects (as any Kueue controller writes them), and `-w` redraws when
//! something changes.
#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use crate::support::cluster::shared_apiserver;
use crate::support::live::{admit, cell, crds, ok, queues, suffix, workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn status_shows_quota_usage_queues_and_workloads() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("status").await;
    let s = suffix(&ns);
    let (rf, cq_a, cq_b, cohort) = (
        format!("gpu-{s}"),
        format!("a-{s}"),
        format!("b-{s}"),
        format!("co-{s}"),
    );
    queues(cluster, &rf, &cq_a, Some(&cohort), 4, &ns, "team-a").await;
    queues(cluster, &rf, &cq_b, Some(&cohort), 4, &ns, "team-b").await;
    // Team A runs 6 GPUs (2 borrowed from B); two more wait, the higher priority first.
    workload(cluster, &ns, "run-1", "team-a", 4, 100).await;
    admit(cluster, &ns, "run-1", &cq_a, &rf, 4).await;
    workload(cluster, &ns, "run-2", "team-a", 2, 100).await;
    admit(cluster, &ns, "run-2", &cq_a, &rf, 2).await;
    workload(cluster, &ns, "wait-low", "team-a", 1, 10).await;
    workload(cluster, &ns, "wait-high", "team-a", 1, 500).await;
    workload(cluster, &ns, "nowhere", "no-such-queue", 1, 0).await;

    let out = ok(cluster, &["status", "-n", &ns, &cq_a, &cq_b]);
    assert!(out.contains(&format!("COHORT {cohort}")), "{out}");
    // Rows are keyed by ClusterQueue on the first line of each queue.
    assert_eq!(cell(&out, &cq_a, "IN USE").as_deref(), Some("6"), "{out}");
    assert_eq!(cell(&out, &cq_a, "BORROWED").as_deref(), Some("2"), "{out}");
    assert_eq!(cell(&out, &cq_a, "PENDING").as_deref(), Some("2"), "{out}");
    assert_eq!(
        cell(&out, &cq_a, "ADMITTED WORKLOADS").as_deref(),
        Some("2"),
        "{out}"
    );
    assert_eq!(cell(&out, &cq_b, "IN USE").as_deref(), Some("0"), "{out}");
    assert_eq!(
        cell(&out, "wait-high", "POSITION").as_deref(),
        Some("0 of 2"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "wait-low", "POSITION").as_deref(),
        Some("1 of 2"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "run-1", "STATE").as_deref(),
        Some("Admitted"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "run-1", "FLAVOR").as_deref(),
        Some(rf.as_str()),
        "{out}"
    );
    assert_eq!(
        cell(&out, "team-a", "PENDING").as_deref(),
        Some("2"),
        "{out}"
    );
    // Without a ClusterQueue filter, the workload whose LocalQueue is missing shows why.
    let out = ok(cluster, &["status", "-n", &ns]);
    let reason = cell(&out, "nowhere", "REASON").unwrap_or_default();
    assert!(
        !reason.is_empty(),
        "a workload without a LocalQueue should have a reason:\n{out}"
    );

    let json = ok(cluster, &["status", "-n", &ns, &cq_a, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cq = &v["cohorts"][0]["clusterQueues"][0];
    assert_eq!(cq["name"], cq_a.as_str());
    assert_eq!(cq["quota"][0]["inUse"], "6");
    // Unlimited borrowing: what it holds plus what the cohort could still lend (8 in all).
    assert_eq!(cq["quota"][0]["capacityUnits"], 8);
    let high = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "wait-high")
        .unwrap();
    assert_eq!(high["position"], 0);

    // -A adds the NAMESPACE column.
    let out = ok(cluster, &["status", "-A", &cq_a]);
    assert!(
        out.lines()
            .any(|l| l.starts_with(&ns) && l.contains("wait-high")),
        "{out}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn status_watch_redraws_on_change() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("watch").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "training").await;

    let mut cmd = cluster.kubectl();
    cmd.args(["kueue", "status", "-n", &ns, "-w", &cq])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start status -w");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |needle: &str| -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) if line.contains(needle) => return true,
                _ => {}
            }
        }
        false
    };
    let first = wait_for("No workloads");
    workload(cluster, &ns, "newcomer", "training", 1, 0).await;
    let redrawn = wait_for("newcomer");
    admit(cluster, &ns, "newcomer", &cq, &rf, 1).await;
    let admitted = wait_for("Admitted");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "status -w never printed the first view");
    assert!(
        redrawn,
        "status -w did not redraw when a workload was created"
    );
    assert!(
        admitted,
        "status -w did not redraw when the workload was admitted"
    );
}
