//! A person editing the setup while work runs: a ClusterQueue's quota lowered below what its
//! running Jobs use, then its ResourceFlavor deleted, then the ClusterQueue deleted, each
//! while Jobs run and wait. Upstream evicts nothing for any of these edits (a lowered quota
//! only holds back new admissions; a flavor or queue in use is kept by its
//! `resource-in-use` finalizer and the queue stops admitting), so neither may we: the test
//! checks that no running Job of the queue is evicted, that nothing is admitted beyond the
//! lowered quota (the invariant checker, on throughout), that the deleted objects stay while
//! work holds them and go once it finished, and, after the setup is restored, that every Job
//! ran to completion exactly once.
//!
//! The queue has no cohort and its Jobs share one priority, so no preemption can happen:
//! every eviction would be the edits' doing.
//!
//! A second test removes the queue-name label from a running and from a waiting Job.

use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kubectl_kueue::api::{ClusterQueue, ResourceFlavor, Workload};
use serde_json::json;

use super::scenario::{self, Supervisor};
use crate::support::cluster::Cluster;
use crate::support::controller::{cond, holds_quota};
use crate::support::eventually;
use crate::support::invariants::rules::owning_job;
use crate::support::invariants::{Checker, assert_every_job_ran_once};
use crate::support::kwok::POD_COMPLETE_DELAY;

const NS: &str = "faults-edit";
const JOBS: usize = 16;
const T: Duration = Duration::from_secs(60);

fn setup(quota: u32) -> String {
    format!(
        "apiVersion: v1
kind: Namespace
metadata: {{name: {NS}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: edit-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: edits}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: edit-flavor
      resources: [{{name: cpu, nominalQuota: {quota}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {NS}}}
spec: {{clusterQueue: edits}}
"
    )
}

async fn submit(client: &kube::Client, n: usize, run_ms: u64) {
    let job: Job = serde_json::from_value(json!({
        "metadata": {"name": format!("edit-{n}"), "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"suspend": true, "template": {
            "metadata": {"annotations": {POD_COMPLETE_DELAY: format!("{run_ms}ms")}},
            "spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}},
    }))
    .unwrap();
    Api::<Job>::namespaced(client.clone(), NS)
        .create(&PostParams::default(), &job)
        .await
        .unwrap();
}

async fn workloads(client: &kube::Client) -> Vec<Workload> {
    Api::<Workload>::namespaced(client.clone(), NS)
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
}

/// Names of the Workloads holding quota now.
async fn holding(client: &kube::Client) -> Vec<String> {
    workloads(client)
        .await
        .iter()
        .filter(|w| holds_quota(w))
        .filter_map(|w| w.metadata.name.clone())
        .collect()
}

/// Evictions recorded on the queue's Workloads, with the first reason seen.
async fn evictions(client: &kube::Client) -> (i64, Option<String>) {
    let mut n = 0;
    let mut reason = None;
    for w in workloads(client).await {
        for e in w
            .status
            .as_ref()
            .and_then(|s| s.scheduling_stats.as_ref())
            .map(|s| s.evictions.clone())
            .unwrap_or_default()
        {
            n += e.count as i64;
            reason.get_or_insert(e.reason.clone());
        }
    }
    (n, reason)
}

/// For `d`, checks every half second that nothing was evicted.
async fn hold_steady(client: &kube::Client, d: Duration, what: &str) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        let (n, reason) = evictions(client).await;
        assert_eq!(n, 0, "{what}: a Workload was evicted ({reason:?})");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Waits until the checker has looked twice more: every admission so far is in its history
/// before an edit, so an admission made just before a quota is lowered is not taken for one
/// made after it.
async fn checker_caught_up(checker: &Checker) {
    let p0 = checker.report().passes;
    let deadline = Instant::now() + T;
    while checker.report().passes < p0 + 2 {
        assert!(
            Instant::now() < deadline,
            "the checker made no pass for {T:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn finalizers<K: kube::Resource>(o: &K) -> Vec<String> {
    o.meta().finalizers.clone().unwrap_or_default()
}

/// The fault cluster with the edits' queue at `quota` CPUs, and the invariant checker on it.
async fn edits_cluster(quota: u32) -> (Cluster, Checker) {
    let cluster = scenario::cluster().await;
    let client = cluster.client();
    crate::support::apply::apply_yaml(&client, &setup(quota), "default")
        .await
        .unwrap();
    let checker = Checker::with_grace(client, Duration::from_millis(500), scenario::POD_GRACE);
    (cluster, checker)
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_lowered_flavor_and_queue_deleted_while_work_runs_evict_nothing() {
    let (cluster, checker) = edits_cluster(6).await;
    let client = cluster.client();
    let mut sup = Supervisor::start(&cluster, &[]);
    let started = Instant::now();
    // Long enough to outlast each edit's observation window.
    for n in 0..JOBS {
        submit(&client, n, 8_000).await;
    }
    eventually(Some(&cluster), T, "6 Jobs admitted", || async {
        (holding(&client).await.len() == 6).then_some(())
    })
    .await;

    // 1. The quota lowered to 2 under 6 running: they all keep running, nothing else starts
    //    until fewer than 2 run (the checker reports any admission beyond it).
    checker_caught_up(&checker).await;
    let cqs = Api::<ClusterQueue>::all(client.clone());
    let lowered = json!({"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "edit-flavor", "resources": [{"name": "cpu", "nominalQuota": 2}]}]}]}});
    cqs.patch("edits", &PatchParams::default(), &Patch::Merge(&lowered))
        .await
        .unwrap();
    let running = holding(&client).await;
    hold_steady(&client, Duration::from_secs(3), "quota lowered").await;
    let still = holding(&client).await;
    assert!(
        running.iter().all(|w| still.contains(w)),
        "the running Workloads {running:?} keep their quota after the edit: {still:?}"
    );
    checker.assert_clean();

    // 2. The flavor deleted: kept by its finalizer while the queue uses it; nothing evicted.
    let rfs = Api::<ResourceFlavor>::all(client.clone());
    rfs.delete("edit-flavor", &DeleteParams::default())
        .await
        .unwrap();
    hold_steady(&client, Duration::from_secs(3), "flavor deleted").await;
    let rf = rfs.get_opt("edit-flavor").await.unwrap();
    assert!(
        rf.as_ref().is_some_and(|rf| !finalizers(rf).is_empty()),
        "the flavor in use stays, held by its finalizer: {:?}",
        rf.map(|rf| finalizers(&rf))
    );
    checker.assert_clean();

    // 3. The queue deleted: kept by its finalizer while Workloads hold its quota; they run
    //    to the end, nothing new is admitted into it.
    //    Checked throughout the window, not once at its end: the running Jobs may finish
    //    within it, and then the queue rightly goes. The queue is read before the holders,
    //    so a queue gone (or unguarded) while someone still holds its quota is never missed.
    let before = holding(&client).await;
    cqs.delete("edits", &DeleteParams::default()).await.unwrap();
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        let cq = cqs.get_opt("edits").await.unwrap();
        let held = holding(&client).await;
        assert!(
            held.is_empty() || cq.as_ref().is_some_and(|cq| !finalizers(cq).is_empty()),
            "the queue in use stays while {held:?} hold its quota (holding at the deletion: {before:?})"
        );
        let (n, reason) = evictions(&client).await;
        assert_eq!(n, 0, "queue deleted: a Workload was evicted ({reason:?})");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Once what held it finished, the queue and then the flavor go.
    let deadline = Instant::now() + T;
    while cqs.get_opt("edits").await.ok().flatten().is_some() {
        sup.keep_running();
        assert!(
            Instant::now() < deadline,
            "the deleted queue is still there after {T:?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let admitted_after: Vec<String> = holding(&client).await;
    assert!(
        admitted_after.is_empty(),
        "nothing admitted into a deleted queue: {admitted_after:?}"
    );
    eventually(Some(&cluster), T, "the deleted flavor gone", || async {
        rfs.get_opt("edit-flavor")
            .await
            .ok()
            .flatten()
            .is_none()
            .then_some(())
    })
    .await;
    let (n, reason) = evictions(&client).await;
    assert_eq!(n, 0, "no eviction through the edits ({reason:?})");
    checker.assert_clean();

    // 4. The setup restored: the Jobs left waiting run, each exactly once.
    crate::support::apply::apply_yaml(&client, &setup(6), "default")
        .await
        .unwrap();
    scenario::drain_in(&mut sup, &client, &[NS], JOBS, Duration::from_secs(180)).await;
    let report = checker.finish(20);
    let (jobs, earlier_runs) = assert_every_job_ran_once(&client, &[NS.to_string()]).await;
    assert_eq!((jobs, earlier_runs), (JOBS, 0));
    eprintln!(
        "FIGURES admin edits: quota lowered 6 -> 2 under 6 running, flavor and queue deleted while \
         {} ran; 0 evictions; all {JOBS} Jobs complete once after {:?} (setup restored), \
         {} admissions, {} checker passes, 0 violations",
        before.len(),
        started.elapsed(),
        report.admissions,
        report.passes,
    );
}

fn workload_of<'a>(wls: &'a [Workload], job: &Job) -> Option<&'a Workload> {
    let uid = job.metadata.uid.as_deref()?;
    wls.iter().find(|w| owning_job(&w.metadata) == Some(uid))
}

/// The reason of the Workload's condition `type_` when it is true.
fn true_reason(w: &Workload, type_: &str) -> Option<String> {
    cond(w, type_).filter(|c| c.0 == "True").map(|c| c.1)
}

/// The queue-name label removed from a running Job and from a waiting one (a cluster without
/// the admission policy `install` adds, which refuses the first edit as upstream's webhook
/// does). Upstream keeps the running Job running; so do we, with its quota, until it ends:
/// then its Workload finishes (upstream's would hold the quota for good). The waiting one's
/// Workload finishes with `QueueNameRemoved` and its Job stays suspended. Nothing is evicted,
/// the checker finds nothing, and the other Jobs run once each.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_label_removed_from_a_running_and_a_waiting_job() {
    const LABELLED: usize = 4;
    let (cluster, checker) = edits_cluster(2).await;
    let client = cluster.client();
    let mut sup = Supervisor::start(&cluster, &[]);
    for n in 0..LABELLED + 2 {
        submit(&client, n, 6_000).await;
    }
    let jobs = Api::<Job>::namespaced(client.clone(), NS);
    let running_job = |j: &Job| j.spec.as_ref().and_then(|s| s.suspend) == Some(false);
    let (running, waiting) = eventually(Some(&cluster), T, "2 Jobs running", || async {
        let all = jobs.list(&ListParams::default()).await.ok()?.items;
        let (run, wait): (Vec<Job>, Vec<Job>) = all.into_iter().partition(running_job);
        (run.len() == 2).then(|| (run[0].clone(), wait[0].clone()))
    })
    .await;
    checker_caught_up(&checker).await;
    let unlabel = json!({"metadata": {"labels": {"kueue.x-k8s.io/queue-name": null}}});
    for j in [&running, &waiting] {
        jobs.patch(
            j.metadata.name.as_deref().unwrap(),
            &PatchParams::default(),
            &Patch::Merge(&unlabel),
        )
        .await
        .unwrap();
    }

    // The waiting one's Workload finishes; the running one keeps running with its quota.
    let wls = eventually(
        Some(&cluster),
        T,
        "the waiting Job's Workload finished",
        || async {
            let wls = workloads(&client).await;
            let reason = true_reason(workload_of(&wls, &waiting)?, "Finished")?;
            (reason == "QueueNameRemoved").then_some(wls)
        },
    )
    .await;
    let held = workload_of(&wls, &running).expect("the running Job's Workload");
    assert!(
        holds_quota(held) && true_reason(held, "Finished").is_none(),
        "the running Job keeps its admitted Workload: {:?}",
        held.status
    );
    hold_steady(&client, Duration::from_secs(2), "labels removed").await;

    // The running one ends: its Workload finishes as a labelled Job's would.
    let name = running.metadata.name.clone().unwrap();
    eventually(
        Some(&cluster),
        T,
        "the unlabelled Job's Workload finished",
        || async {
            let wls = workloads(&client).await;
            let job = jobs.get(&name).await.ok()?;
            (true_reason(workload_of(&wls, &job)?, "Finished")? == "Succeeded").then_some(())
        },
    )
    .await;
    let stays = jobs
        .get(waiting.metadata.name.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        stays.spec.as_ref().and_then(|s| s.suspend),
        Some(true),
        "the Job that left while waiting stays suspended"
    );

    // The labelled ones all run (with the unlabelled one that ran, LABELLED + 1 complete).
    scenario::drain_in(&mut sup, &client, &[NS], LABELLED + 1, T).await;
    let (n, reason) = evictions(&client).await;
    assert_eq!(n, 0, "no eviction through the label removals ({reason:?})");
    let report = checker.finish(10);
    eprintln!(
        "FIGURES label removal: queue-name label removed from 1 running and 1 waiting Job; 0 evictions; \
         the running one finished with its quota, the waiting one's Workload QueueNameRemoved; \
         {} admissions, {} checker passes, 0 violations",
        report.admissions, report.passes
    );
}
