//! `explain` and `simulate --live` on a real API server: the cluster's own objects (made
//! here as a Kueue controller would leave them) are read through kube-rs, the workload is
//! explained with the numbers of the live queue, and the what-if is simulated on the live
//! state without changing it.
#![cfg(feature = "cli")]

use crate::support::cluster::shared_apiserver;
use crate::support::live::{admit, crds, fails, ok, queues, suffix, workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn explain_and_simulate_read_the_live_cluster() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("explain").await;
    let s = suffix(&ns);
    let (flavor, cq) = (format!("gpu-{s}"), format!("cq-{s}"));
    queues(cluster, &flavor, &cq, None, 4, &ns, "training").await;
    workload(cluster, &ns, "running", "training", 3, 0).await;
    admit(cluster, &ns, "running", &cq, &flavor, 3).await;
    workload(cluster, &ns, "waiting", "training", 2, 0).await;

    let out = ok(cluster, &["explain", "waiting", "-n", &ns]);
    assert!(
        out.contains(&format!("Workload {ns}/waiting is Pending")),
        "{out}"
    );
    assert!(
        out.contains("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor"),
        "{out}"
    );
    let e: serde_json::Value = serde_json::from_str(&ok(
        cluster,
        &["explain", "workload/waiting", "-n", &ns, "-o", "json"],
    ))
    .unwrap();
    let gpu = &e["evaluation"]["podSets"][0]["flavors"][0]["resources"][0];
    assert_eq!(gpu["inUse"], "3", "{e:#}");
    assert_eq!(gpu["shortBy"], "1", "{e:#}");
    let steps = e["nextSteps"].as_array().unwrap();
    let raise = steps
        .iter()
        .find(|s| s["summary"].as_str().unwrap().starts_with("raise"))
        .expect("a quota raise");
    assert_eq!(raise["verified"], true);
    let finish = steps
        .iter()
        .find(|s| {
            s["summary"]
                .as_str()
                .unwrap()
                .contains(&format!("{ns}/running"))
        })
        .expect("waiting for running");
    assert_eq!(
        finish["simulateArgs"],
        serde_json::json!(["--remove", format!("{ns}/running")])
    );

    // The same what-if on the live state: removing the running workload admits the waiting one.
    let out = ok(
        cluster,
        &[
            "simulate",
            "--live",
            "--remove",
            &format!("{ns}/running"),
            "--now",
            "2025-07-22T09:00:00Z",
        ],
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("{ns}/waiting"))
                && l.contains(&format!("admitted in {cq}"))),
        "{out}"
    );
    let set = format!("cq/{cq}.nominalQuota={flavor}:nvidia.com/gpu=5");
    let list: serde_json::Value = serde_json::from_str(&ok(
        cluster,
        &["simulate", "--live", "--set", &set, "-o", "json"],
    ))
    .unwrap();
    let waiting = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["name"] == "waiting" && i["metadata"]["namespace"] == ns.as_str())
        .unwrap();
    assert_eq!(waiting["status"]["admission"]["clusterQueue"], cq.as_str());

    // Nothing was written to the cluster.
    let e: serde_json::Value = serde_json::from_str(&ok(
        cluster,
        &["explain", "waiting", "-n", &ns, "-o", "json"],
    ))
    .unwrap();
    assert_eq!(e["state"], "Pending");

    let err = fails(cluster, &["explain", "job/nothing-here", "-n", &ns], 1);
    assert!(
        err.contains(&format!("no Job nothing-here in namespace {ns}")),
        "{err}"
    );
}
