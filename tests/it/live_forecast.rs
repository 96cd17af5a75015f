//! Estimated starts on a real API server: `status`, `list workload` and `explain` show when
//! a pending workload is expected to start, from the Workload objects alone (a running one
//! with `spec.maximumExecutionTimeSeconds`: an upper bound), "never" for one that cannot
//! fit, and `-o json` carries the estimate as data.
#![cfg(feature = "cli")]

use kube::api::{Api, PostParams};
use serde_json::json;

use crate::support::cluster::shared_apiserver;
use crate::support::live::{admit, cell, crds, ok, queues, suffix, workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn status_list_and_explain_show_the_estimated_start() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("forecast").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("fc-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "team").await;
    // run-1 holds all 4 GPUs and is stopped after an hour at the latest; the pending ones have
    // its priority, so nothing is preempted (a higher one would start now, preempting it).
    let wl = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": "run-1", "namespace": &ns},
        "spec": {
            "queueName": "team",
            "priority": 100,
            "maximumExecutionTimeSeconds": 3600,
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"nvidia.com/gpu": "4"}}}],
            }}}],
        },
    });
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), &ns);
    api.create(&PostParams::default(), &serde_json::from_value(wl).unwrap())
        .await
        .expect("create run-1");
    admit(cluster, &ns, "run-1", &cq, &rf, 4).await;
    workload(cluster, &ns, "next", "team", 2, 100).await;
    workload(cluster, &ns, "too-big", "team", 8, 100).await;

    let out = ok(cluster, &["status", "-n", &ns, &cq]);
    let next = cell(&out, "next", "ESTIMATED START").unwrap_or_default();
    assert!(
        next.starts_with('≤') && next.ends_with("UTC)"),
        "{next:?} in\n{out}"
    );
    assert!(
        next.contains("59m") || next.contains("60m"),
        "about an hour: {next:?}"
    );
    assert_eq!(
        cell(&out, "too-big", "ESTIMATED START").as_deref(),
        Some("never"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "run-1", "ESTIMATED START").as_deref(),
        Some(""),
        "{out}"
    );

    let out = ok(cluster, &["list", "workload", "-n", &ns]);
    let listed = cell(&out, "next", "ESTIMATED START").unwrap_or_default();
    assert!(listed.starts_with('≤'), "{listed:?} in\n{out}");

    let json: serde_json::Value =
        serde_json::from_str(&ok(cluster, &["status", "-n", &ns, &cq, "-o", "json"])).unwrap();
    let est = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "next")
        .map(|w| w["estimatedStart"].clone())
        .unwrap();
    assert_eq!(est["start"]["state"], "at", "{est}");
    assert_eq!(est["waitsFor"], json!([format!("{ns}/run-1")]), "{est}");
    assert_eq!(est["start"]["at"], est["latest"], "an upper bound: {est}");
    let now = json["now"].as_i64().unwrap();
    let at = est["start"]["at"].as_i64().unwrap();
    assert!(
        (3_500_000..=3_600_000).contains(&(at - now)),
        "{}",
        at - now
    );

    let out = ok(cluster, &["explain", "workload/next", "-n", &ns]);
    assert!(out.contains("Estimated start"), "{out}");
    assert!(
        out.contains("expected to start in at most")
            && out.contains(&format!("once {ns}/run-1 finish")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/run-1: at most 60m (spec.maximumExecutionTimeSeconds)"
        )),
        "{out}"
    );
    let out = ok(cluster, &["explain", "workload/too-big", "-n", &ns]);
    assert!(
        out.contains("not expected to start even once everything running now has finished"),
        "{out}"
    );

    // submit --dry-run gives the same estimate for a Job before it exists: 2 GPUs, behind
    // `next`; both fit once run-1 is gone.
    let out = ok(
        cluster,
        &[
            "submit",
            "--image",
            "trainer:1",
            "--name",
            "later",
            "--gpus",
            "2",
            "-n",
            &ns,
            "--queue",
            "team",
            "--dry-run",
        ],
    );
    assert!(out.contains("Estimated start"), "{out}");
    assert!(
        out.contains("expected to start in at most")
            && out.contains(&format!("once {ns}/run-1 finish")),
        "{out}"
    );
}
