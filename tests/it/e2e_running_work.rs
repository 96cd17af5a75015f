//! run-controller never takes quota from running work, on the real control plane:
//! - a ClusterQueue edited into a shape the converter rejects (a `lendingLimit` above the
//!   `nominalQuota`, which the API server accepts) and then deleted, while its Job runs: the
//!   Job keeps running and its Workload stays admitted, the queue says why it is inactive,
//!   and its `resource-in-use` finalizer goes (and the queue with it) once the Job finished;
//! - a Workload with a negative request (the CRD's quantity pattern allows a sign) is never
//!   admitted and never lowers the queue's usage.
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, DeleteParams};
use kubectl_kueue::api::{ClusterQueue, Workload};

const T: Duration = Duration::from_secs(60);
const FINALIZER: &str = "kueue.x-k8s.io/resource-in-use";

async fn apply(cluster: &Cluster, yaml: &str, ns: &str) {
    crate::support::apply::apply_yaml(&cluster.client(), yaml, ns)
        .await
        .unwrap();
}

fn queues(ns: &str, lending_limit: u32) -> String {
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  cohort: all
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 4, lendingLimit: {lending_limit}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
    )
}

fn active(cq: &ClusterQueue) -> Option<(String, String, String)> {
    cq.status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == "Active")
        .map(|c| (c.status.clone(), c.reason.clone(), c.message.clone()))
}

async fn job_running(client: &kube::Client, ns: &str) -> bool {
    let Ok(j) = Api::<Job>::namespaced(client.clone(), ns)
        .get("train")
        .await
    else {
        return false;
    };
    j.spec.and_then(|s| s.suspend) == Some(false)
        && j.status.is_some_and(|s| s.active.unwrap_or(0) > 0)
}

async fn the_workload(client: &kube::Client, ns: &str) -> Option<Workload> {
    workloads(client, ns).await.into_iter().next()
}

/// For `d`, the Job keeps running and its Workload stays admitted.
async fn stays_running(client: &kube::Client, ns: &str, d: Duration, when: &str) {
    let end = std::time::Instant::now() + d;
    while std::time::Instant::now() < end {
        let w = the_workload(client, ns).await.expect("the Workload");
        assert!(
            holds_quota(&w),
            "{when}: the Workload lost its admission: {w:#?}"
        );
        assert!(job_running(client, ns).await, "{when}: the Job stopped");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breaking_or_deleting_a_cluster_queue_leaves_its_running_job_alone() {
    let cluster = ClusterBuilder::full()
        .job_pods_succeed_after(Duration::from_secs(25))
        .start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("trust").await;
    apply(&cluster, &queues(&ns, 2), &ns).await;
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    let cqs = Api::<ClusterQueue>::all(client.clone());
    eventually(
        Some(&cluster),
        T,
        "the ClusterQueue's finalizer",
        || async {
            let cq = cqs.get("cq").await.ok()?;
            cq.metadata
                .finalizers?
                .iter()
                .any(|f| f == FINALIZER)
                .then_some(())
        },
    )
    .await;
    apply(
        &cluster,
        &format!(
            "apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: {ns}
  labels: {{kueue.x-k8s.io/queue-name: lq}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: '2'}}}}}}]
"
        ),
        &ns,
    )
    .await;
    eventually(
        Some(&cluster),
        T,
        "the Job admitted and running",
        || async {
            let w = the_workload(&client, &ns).await?;
            (holds_quota(&w) && job_running(&client, &ns).await).then_some(())
        },
    )
    .await;

    // An edit the API server accepts and the converter rejects.
    apply(&cluster, &queues(&ns, 8), &ns).await;
    let (_, reason, message) = eventually(Some(&cluster), T, "the queue inactive", || async {
        active(&cqs.get("cq").await.ok()?).filter(|a| a.0 == "False")
    })
    .await;
    assert_eq!(reason, "InvalidSpec");
    assert!(message.contains("lendingLimit"), "{message}");
    stays_running(
        &client,
        &ns,
        Duration::from_secs(3),
        "after the invalid edit",
    )
    .await;

    // Deleted: terminating, held by its finalizer while the Job runs.
    cqs.delete("cq", &DeleteParams::default()).await.unwrap();
    let (_, reason, message) = eventually(Some(&cluster), T, "the queue terminating", || async {
        active(&cqs.get("cq").await.ok()?).filter(|a| a.1 == "Terminating")
    })
    .await;
    assert_eq!(
        message,
        "Can't admit new workloads; clusterQueue is terminating"
    );
    assert_eq!(reason, "Terminating");
    stays_running(&client, &ns, Duration::from_secs(3), "after the deletion").await;
    assert!(cqs.get("cq").await.is_ok(), "kept by its finalizer");

    // The Job finishes: nothing holds quota in the queue any more, so it goes.
    eventually(Some(&cluster), T, "the Workload finished", || async {
        let w = the_workload(&client, &ns).await?;
        is_true(&w, "Finished").then_some(())
    })
    .await;
    eventually(Some(&cluster), T, "the ClusterQueue gone", || async {
        cqs.get_opt("cq").await.ok()?.is_none().then_some(())
    })
    .await;
    assert!(ctl.proc.exited().is_none());
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_negative_request_is_never_admitted_and_never_lowers_usage() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("negative").await;
    apply(&cluster, &queues(&ns, 2), &ns).await;
    let workload = |name: &str, cpu: &str| {
        format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: {ns}}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: x
          resources: {{requests: {{cpu: '{cpu}'}}}}
"
        )
    };
    apply(&cluster, &workload("negative", "-8"), &ns).await;
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    let wls = Api::<Workload>::namespaced(client.clone(), &ns);
    let (_, reason, message) =
        eventually(Some(&cluster), T, "the negative one pending", || async {
            cond(&wls.get("negative").await.ok()?, "QuotaReserved")
        })
        .await;
    assert_eq!(reason, "Misconfigured");
    assert_eq!(
        message,
        "resources validation failed: spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0"
    );
    apply(&cluster, &workload("a", "4"), &ns).await;
    apply(&cluster, &workload("b", "4"), &ns).await;
    eventually(Some(&cluster), T, "a admitted", || async {
        holds_quota(&wls.get("a").await.ok()?).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        !holds_quota(&wls.get("b").await.unwrap()),
        "4 cpu is all there is"
    );
    assert!(!holds_quota(&wls.get("negative").await.unwrap()));
    let cq = Api::<ClusterQueue>::all(client.clone())
        .get("cq")
        .await
        .unwrap();
    let usage = &cq.status.unwrap().flavors_reservation[0].resources[0];
    assert_eq!(usage.total.as_ref().unwrap().0, "4");
    assert!(ctl.proc.exited().is_none());
}
