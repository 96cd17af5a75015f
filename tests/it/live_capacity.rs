//! Physical capacity on a real API server: with Node objects in the cluster, `status` says
//! where nominal quota promises more GPUs than the nodes carrying the flavor's labels have,
//! and marks a pending workload whose one pod no node can hold. A private control plane:
//! Nodes are cluster-scoped, and the shared one's other tests must not see them.
#![cfg(feature = "cli")]

use kube::api::{Api, PostParams};

use crate::support::cluster::ClusterBuilder;
use crate::support::kwok::FakeNode;
use crate::support::live::{cell, crds, ok, queues, suffix, workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn status_checks_quota_against_the_nodes() {
    let cluster = ClusterBuilder::apiserver().start();
    crds(&cluster).await;
    let ns = cluster.new_namespace("capacity").await;
    let s = suffix(&ns);
    let (rf, cq_a, cq_b, cohort) = (
        format!("gpu-{s}"),
        format!("a-{s}"),
        format!("b-{s}"),
        format!("co-{s}"),
    );
    queues(&cluster, &rf, &cq_a, Some(&cohort), 4, &ns, "team-a").await;
    queues(&cluster, &rf, &cq_b, Some(&cohort), 4, &ns, "team-b").await;
    // No Nodes yet: no check, no noise.
    workload(&cluster, &ns, "wide", "team-a", 6, 100).await;
    let out = ok(&cluster, &["status", "-n", &ns]);
    assert!(!out.contains("CAPACITY"), "{out}");

    // One 4-GPU node carries the flavor's labels (gpu-type: a100); another type does not count.
    let nodes: Api<k8s_openapi::api::core::v1::Node> = Api::all(cluster.client());
    for n in [
        FakeNode::gpu("gpu-node-1", "a100", 4),
        FakeNode::gpu("gpu-node-2", "h100", 8),
    ] {
        nodes
            .create(&PostParams::default(), &n.to_node())
            .await
            .expect("create Node");
    }
    let out = ok(&cluster, &["status", "-n", &ns]);
    assert!(out.contains("CAPACITY (2 node(s);"), "{out}");
    assert!(
        out.contains(&format!(
            "flavor {rf}: ClusterQueues promise 8 nvidia.com/gpu in nominal quota ({cq_a}, {cq_b}), the 1 matching node(s) have 4 allocatable"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/wide: one pod needs 6 nvidia.com/gpu on flavor {rf} and none of the 1 matching node(s) has that much allocatable (at most 4 nvidia.com/gpu on one node)"
        )),
        "{out}"
    );
    let start = cell(&out, "wide", "ESTIMATED START").unwrap_or_default();
    assert_eq!(start, "no node fits (quota now)", "{out}");

    let json = ok(&cluster, &["status", "-n", &ns, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let findings = v["capacity"]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let kinds: Vec<&str> = findings.iter().filter_map(|f| f["kind"].as_str()).collect();
    assert_eq!(kinds, ["quotaExceedsNodes", "podDoesNotFit"], "{json}");
    assert_eq!(findings[0]["allocatable"], "4", "{json}");
    assert_eq!(findings[1]["workload"], format!("{ns}/wide"), "{json}");
}
