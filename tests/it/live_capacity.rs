//! Physical capacity on a real API server: with Node objects in the cluster, `status` says
//! where nominal quota promises more GPUs than the nodes carrying the flavor's labels have,
//! and marks a pending workload whose one pod no node can hold; with Pods bound to the nodes,
//! one whose pod fits the free quota but no node's free capacity; a user who may not list
//! Pods gets the check on empty nodes, and a warning. A private control plane: Nodes are
//! cluster-scoped, and the shared one's other tests must not see them.
#![cfg(feature = "cli")]

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, PostParams};

use crate::support::cluster::ClusterBuilder;
use crate::support::controller::service_account_kubeconfig;
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
    assert!(
        out.contains("CAPACITY (2 node(s), no running pods; checked on allocatable)"),
        "{out}"
    );
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

    // Running pods: a third 4-GPU A100 node, and a 3-GPU pod bound to each (pods of no
    // Workload, created with spec.nodeName as the scheduler would bind them). 2 GPUs of pair's
    // quota are free, 1 GPU on each node.
    nodes
        .create(
            &PostParams::default(),
            &FakeNode::gpu("gpu-node-3", "a100", 4).to_node(),
        )
        .await
        .expect("create Node");
    let pods: Api<Pod> = Api::namespaced(cluster.client(), &ns);
    for (name, node) in [("busy-1", "gpu-node-1"), ("busy-3", "gpu-node-3")] {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name},
            "spec": {
                "nodeName": node,
                "containers": [{"name": "c", "image": "busybox", "resources": {
                    "requests": {"nvidia.com/gpu": "3"}, "limits": {"nvidia.com/gpu": "3"},
                }}],
            },
        }))
        .unwrap();
        pods.create(&PostParams::default(), &pod)
            .await
            .expect("create Pod");
    }
    workload(&cluster, &ns, "pair", "team-b", 2, 100).await;
    let fragmented = format!(
        "{ns}/pair: one pod needs 2 nvidia.com/gpu on flavor {rf} and none of the 2 matching node(s) has that much free: 2 nvidia.com/gpu free on 2 node(s) but at most 1 nvidia.com/gpu on one node (free capacity fragmented by 2 running pod(s)): once admitted on quota, its pods would wait for running pods to end"
    );
    let out = ok(&cluster, &["status", "-n", &ns]);
    assert!(
        out.contains(
            "CAPACITY (3 node(s), 2 running pod(s); quota checked on allocatable, pods on what is free)"
        ),
        "{out}"
    );
    assert!(out.contains(&fragmented), "{out}");
    // wide's pod is larger than any node: still said on allocatable.
    assert!(
        out.contains(&format!(
            "{ns}/wide: one pod needs 6 nvidia.com/gpu on flavor {rf} and none of the 2 matching node(s) has that much allocatable (at most 4 nvidia.com/gpu on one node; 8 nvidia.com/gpu together: split across nodes)"
        )),
        "{out}"
    );
    let start = cell(&out, "pair", "ESTIMATED START").unwrap_or_default();
    assert_eq!(start, "no node free (quota now)", "{out}");
    let explain = ok(&cluster, &["explain", "workload/pair", "-n", &ns]);
    assert!(
        explain.contains(
            "  but once admitted on quota, its pods would wait for running pods to end: one pod needs 2 nvidia.com/gpu"
        ),
        "{explain}"
    );

    // A user who may read the queues, Nodes and the rest but not list Pods: status works, on
    // empty nodes, and says so in the title.
    let role: ClusterRole = serde_json::from_value(serde_json::json!({
        "metadata": {"name": format!("capacity-reader-{s}")},
        "rules": [
            {"apiGroups": ["kueue.x-k8s.io"], "resources": ["*"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["namespaces", "nodes"], "verbs": ["get", "list"]},
            {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list"]},
            {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"], "verbs": ["list"]},
        ],
    }))
    .unwrap();
    Api::<ClusterRole>::all(cluster.client())
        .create(&PostParams::default(), &role)
        .await
        .expect("create ClusterRole");
    let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": {"name": format!("capacity-reader-{s}")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": format!("capacity-reader-{s}")},
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": ns}],
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(cluster.client())
        .create(&PostParams::default(), &binding)
        .await
        .expect("create ClusterRoleBinding");
    let kubeconfig = service_account_kubeconfig(&cluster, &ns, "default", None).await;
    let out = cluster
        .kubectl()
        .env("KUBECONFIG", kubeconfig.path())
        .env("NO_COLOR", "1")
        .args(["kueue", "status", "-n", &ns])
        .output()
        .expect("run kubectl kueue");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "CAPACITY (3 node(s); running pods not read: checked on allocatable, as if the nodes were empty)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("running pods to end"), "{stdout}");
}
