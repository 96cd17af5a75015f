//! The invariant checker itself is tested: for each invariant, a cluster state that breaks it,
//! written straight to a real API server (no controller), makes a pass report it, named; the
//! nearest valid state (a cohort's pool used exactly, an eviction with its reason) passes clean.
#![cfg(feature = "cli")]

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubectl_kueue::api::Workload;
use serde_json::{Value, json};

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::repo_path;
use crate::support::invariants::{History, check_once};

async fn apply(cluster: &Cluster, v: Value, ns: &str) {
    crate::support::apply::apply_objects(&cluster.client(), &[v], ns)
        .await
        .unwrap();
}

fn cq(
    name: &str,
    cohort: Option<&str>,
    nominal: u32,
    borrowing: Option<u32>,
    lending: Option<u32>,
) -> Value {
    let mut r = json!({"name": "cpu", "nominalQuota": nominal});
    if let Some(b) = borrowing {
        r["borrowingLimit"] = json!(b);
    }
    if let Some(l) = lending {
        r["lendingLimit"] = json!(l);
    }
    let mut spec = json!({"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [r]}]}]});
    if let Some(c) = cohort {
        spec["cohort"] = json!(c);
    }
    json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec})
}

/// A Workload (owned by `job` when given: (name, uid)) asking for `cpu`.
async fn workload(cluster: &Cluster, ns: &str, name: &str, cpu: u32, job: Option<(&str, &str)>) {
    let mut wl = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu.to_string()}}}]}}}]},
    });
    if let Some((j, uid)) = job {
        wl["metadata"]["ownerReferences"] = json!([{"apiVersion": "batch/v1", "kind": "Job", "name": j, "uid": uid, "controller": true}]);
    }
    Api::<Workload>::namespaced(cluster.client(), ns)
        .create(&PostParams::default(), &serde_json::from_value(wl).unwrap())
        .await
        .unwrap();
}

fn when(s: u32) -> String {
    format!("2026-01-01T00:00:{s:02}Z")
}

/// Status holding `cpu` in `cq` since second `at` (with `evictions` counted).
fn held(cq: &str, cpu: u32, at: u32, evictions: i32) -> Value {
    let mut st = json!({
        "admission": {"clusterQueue": cq, "podSetAssignments": [{
            "name": "main", "count": 1, "flavors": {"cpu": "f"}, "resourceUsage": {"cpu": cpu.to_string()}}]},
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "reserved", "lastTransitionTime": when(at)},
            {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "admitted", "lastTransitionTime": when(at)}],
    });
    if evictions > 0 {
        st["schedulingStats"] = json!({"evictions": [{"reason": "Preempted", "underlyingCause": "", "count": evictions}]});
    }
    st
}

fn released(evicted_reason: Option<&str>) -> Value {
    let mut conds = vec![
        json!({"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "waiting", "lastTransitionTime": when(30)}),
    ];
    if let Some(r) = evicted_reason {
        conds.push(json!({"type": "Evicted", "status": "True", "reason": r, "message": "evicted", "lastTransitionTime": when(30)}));
    }
    json!({"admission": null, "conditions": conds})
}

async fn set_status(cluster: &Cluster, ns: &str, name: &str, status: Value) {
    Api::<Workload>::namespaced(cluster.client(), ns)
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(&json!({"status": status})),
        )
        .await
        .unwrap();
}

async fn pass(cluster: &Cluster, hist: &mut History) -> Vec<String> {
    let (mut v, pods) = check_once(&cluster.client(), hist)
        .await
        .expect("a snapshot of the cluster");
    v.extend(pods.into_iter().map(|p| p.why));
    v
}

/// One violation, of the invariant `name`.
async fn violates(cluster: &Cluster, hist: &mut History, name: &str) -> String {
    let v = pass(cluster, hist).await;
    assert!(
        v.len() == 1 && v[0].starts_with(&format!("{name}: ")),
        "expected one {name} violation, got {v:#?}"
    );
    v[0].clone()
}

async fn clean(cluster: &Cluster, hist: &mut History, when: &str) {
    let v = pass(cluster, hist).await;
    assert!(v.is_empty(), "{when}: expected no violation, got {v:#?}");
}

/// Removes every Workload, Job, pod and ClusterQueue (apiserver mode: deletion is immediate).
fn reset(cluster: &Cluster) {
    for what in [
        &[
            "delete",
            "workloads,jobs,pods",
            "--all",
            "-A",
            "--grace-period=0",
            "--force",
            "--wait=true",
        ][..],
        &["delete", "clusterqueues,cohorts", "--all", "--wait=true"][..],
    ] {
        let out = cluster.kubectl().args(what).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

async fn job(cluster: &Cluster, ns: &str, name: &str) -> String {
    let j: Job = serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "x"}]}}},
    }))
    .unwrap();
    Api::<Job>::namespaced(cluster.client(), ns)
        .create(&PostParams::default(), &j)
        .await
        .unwrap()
        .metadata
        .uid
        .unwrap()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_invariant_broken_on_the_api_server_is_reported() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("checker").await;
    let mut h = History::default();
    clean(&cluster, &mut h, "an empty cluster").await;

    // quota, cohort pool: two queues lend 1 each; a uses 3 of its own + 2 borrowed: exact fit.
    apply(&cluster, cq("a", Some("c"), 4, None, Some(1)), &ns).await;
    apply(&cluster, cq("b", Some("c"), 4, None, Some(1)), &ns).await;
    workload(&cluster, &ns, "w1", 5, None).await;
    set_status(&cluster, &ns, "w1", held("a", 5, 1, 0)).await;
    clean(&cluster, &mut h, "the pool used exactly").await;
    workload(&cluster, &ns, "w2", 1, None).await;
    set_status(&cluster, &ns, "w2", held("a", 1, 1, 0)).await;
    let v = violates(&cluster, &mut h, "quota").await;
    assert!(v.contains("cohort c"), "{v}");
    reset(&cluster);

    // quota, borrowing limit: nominal 2 + borrowing limit 1, 4 held (the cohort has room).
    apply(&cluster, cq("a", Some("d"), 2, Some(1), None), &ns).await;
    apply(&cluster, cq("b", Some("d"), 10, None, None), &ns).await;
    workload(&cluster, &ns, "w1", 4, None).await;
    set_status(&cluster, &ns, "w1", held("a", 4, 1, 0)).await;
    let v = violates(&cluster, &mut h, "quota").await;
    assert!(v.contains("borrowing limit 1"), "{v}");
    reset(&cluster);

    // quota, no cohort: nominal 2, 3 held.
    apply(&cluster, cq("a", None, 2, None, None), &ns).await;
    workload(&cluster, &ns, "w1", 3, None).await;
    set_status(&cluster, &ns, "w1", held("a", 3, 1, 0)).await;
    let v = violates(&cluster, &mut h, "quota").await;
    assert!(v.contains("(no cohort)"), "{v}");
    reset(&cluster);

    // pod-without-admission: a labelled Job's pod alive while its Workload is pending.
    apply(&cluster, cq("a", None, 10, None, None), &ns).await;
    let uid = job(&cluster, &ns, "j").await;
    workload(&cluster, &ns, "job-j", 1, Some(("j", &uid))).await;
    clean(&cluster, &mut h, "a pending Job without pods").await;
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "j-pod", "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": uid, "controller": true}]},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]},
    }))
    .unwrap();
    Api::<Pod>::namespaced(client.clone(), &ns)
        .create(&PostParams::default(), &pod)
        .await
        .unwrap();
    violates(&cluster, &mut h, "pod-without-admission").await;
    set_status(&cluster, &ns, "job-j", held("a", 1, 1, 0)).await;
    clean(&cluster, &mut h, "the pod once its Workload holds quota").await;
    reset(&cluster);

    // one-workload-per-job.
    let uid = job(&cluster, &ns, "j").await;
    workload(&cluster, &ns, "job-j-1", 1, Some(("j", &uid))).await;
    clean(&cluster, &mut h, "one Workload").await;
    workload(&cluster, &ns, "job-j-2", 1, Some(("j", &uid))).await;
    violates(&cluster, &mut h, "one-workload-per-job").await;
    reset(&cluster);

    // admitted-twice: an admission edited in place...
    apply(&cluster, cq("a", None, 10, None, None), &ns).await;
    workload(&cluster, &ns, "w1", 1, None).await;
    set_status(&cluster, &ns, "w1", held("a", 1, 1, 0)).await;
    clean(&cluster, &mut h, "one admission").await;
    set_status(&cluster, &ns, "w1", held("a", 2, 1, 0)).await;
    let v = violates(&cluster, &mut h, "admitted-twice").await;
    assert!(v.contains("changed in place"), "{v}");
    // ... and a second admission with no eviction recorded between (unseen in between) ...
    workload(&cluster, &ns, "w2", 1, None).await;
    set_status(&cluster, &ns, "w2", held("a", 1, 1, 0)).await;
    clean(&cluster, &mut h, "w2 admitted").await;
    set_status(&cluster, &ns, "w2", held("a", 1, 5, 0)).await;
    let v = violates(&cluster, &mut h, "admitted-twice").await;
    assert!(v.contains("2 times with 0 eviction"), "{v}");
    // ... while one with an eviction counted is fine.
    workload(&cluster, &ns, "w3", 1, None).await;
    set_status(&cluster, &ns, "w3", held("a", 1, 1, 0)).await;
    clean(&cluster, &mut h, "w3 admitted").await;
    set_status(&cluster, &ns, "w3", held("a", 1, 5, 1)).await;
    clean(&cluster, &mut h, "w3 admitted again after an eviction").await;
    reset(&cluster);

    // namespace-selector.
    let mut sel = cq("a", None, 10, None, None);
    sel["spec"]["namespaceSelector"] = json!({"matchLabels": {"team": "elsewhere"}});
    apply(&cluster, sel, &ns).await;
    workload(&cluster, &ns, "w1", 1, None).await;
    set_status(&cluster, &ns, "w1", held("a", 1, 1, 0)).await;
    violates(&cluster, &mut h, "namespace-selector").await;
    reset(&cluster);

    // admission-lost: released with no eviction; the same with `Evicted=True` is fine.
    apply(&cluster, cq("a", None, 10, None, None), &ns).await;
    workload(&cluster, &ns, "w1", 1, None).await;
    workload(&cluster, &ns, "w2", 1, None).await;
    set_status(&cluster, &ns, "w1", held("a", 1, 1, 0)).await;
    set_status(&cluster, &ns, "w2", held("a", 1, 1, 0)).await;
    clean(&cluster, &mut h, "two admitted").await;
    set_status(&cluster, &ns, "w2", released(Some("Preempted"))).await;
    clean(&cluster, &mut h, "an eviction with its reason").await;
    set_status(&cluster, &ns, "w1", released(None)).await;
    violates(&cluster, &mut h, "admission-lost").await;
}
