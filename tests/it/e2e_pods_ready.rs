//! `waitForPodsReady` on the real control plane (kube-controller-manager, kube-scheduler,
//! kwok with one 8-GPU A100 node), the controller started with a Configuration that turns
//! it on (5 s timeout, `blockAdmission`, one requeue with a 1 s base backoff):
//! - a two-pod GPU Job whose pods run gets `PodsReady=True` (`Started`);
//! - a two-pod GPU Job whose pods cannot be scheduled (a nodeSelector no node has) is
//!   evicted after the timeout (`PodsReadyTimeout`, underlying cause `WaitForStart`,
//!   `requeueState.count: 1`), and while it was admitted and not ready the next Job was held
//!   (`QuotaReserved=False`, `WaitingForPodsReady`), admitted once the stuck one let go;
//! - after its backoff the stuck Job is admitted again, times out again and, past the limit,
//!   is deactivated (`DeactivatedDueToRequeuingLimitExceeded`, `spec.active: false`).
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::apply::apply_yaml;
use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::kwok::FakeNode;
use kubectl_kueue::api::Workload;

const T: Duration = Duration::from_secs(40);
const NS: &str = "ready";

const SETUP: &str = "apiVersion: v1
kind: Namespace
metadata: {name: ready}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {gpu-type: a100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ready}
spec: {clusterQueue: gpus}
";

const CONFIG: &str = "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  timeout: 5s
  blockAdmission: true
  requeuingStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 1, backoffMaxSeconds: 10}
";

/// A two-pod Job of one GPU per pod, running an hour; `pod_extra` goes into the pod spec.
fn job(name: &str, pod_extra: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {NS}
  labels: {{kueue.x-k8s.io/queue-name: lq}}
spec:
  parallelism: 2
  completions: 2
  suspend: true
  template:
    metadata:
      annotations: {{pod-complete.stage.kwok.x-k8s.io/delay: 1h}}
    spec:
      restartPolicy: Never{pod_extra}
      containers:
      - name: train
        image: training:latest
        resources: {{requests: {{nvidia.com/gpu: 1}}, limits: {{nvidia.com/gpu: 1}}}}
"
    )
}

async fn workload_of(client: &kube::Client, job: &str) -> Option<Workload> {
    workloads(client, NS)
        .await
        .into_iter()
        .find(|w| job_name(w) == job)
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pods_ready_timeout_backoff_block_and_deactivation_on_the_real_control_plane() {
    let cluster = ClusterBuilder::full()
        .nodes(vec![FakeNode::gpu("gpu-a100-1", "a100", 8)])
        .start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let client = cluster.client();
    apply_yaml(&client, SETUP, NS).await.unwrap();
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), CONFIG).unwrap();
    let mut ctl = start_installed_controller(
        &cluster,
        "controller",
        &["--config", config.path().to_str().unwrap()],
    );
    ctl.wait_ready(T);

    // 1. Pods that run: PodsReady=True.
    apply_yaml(&client, &job("healthy", ""), NS).await.unwrap();
    let healthy = eventually(Some(&cluster), T, "healthy is PodsReady", || async {
        workload_of(&client, "healthy")
            .await
            .filter(|w| is_true(w, "PodsReady"))
    })
    .await;
    assert_eq!(
        cond(&healthy, "PodsReady").map(|c| (c.1, c.2)),
        Some((
            "Started".into(),
            "All pods reached readiness and the workload is running".into()
        ))
    );

    // 2. Pods that cannot be scheduled: admitted, never ready; meanwhile `next` is held.
    let nowhere = "\n      nodeSelector: {example.com/nowhere: 'true'}";
    apply_yaml(&client, &job("stuck", nowhere), NS)
        .await
        .unwrap();
    eventually(Some(&cluster), T, "stuck admitted", || async {
        workload_of(&client, "stuck")
            .await
            .filter(|w| holds_quota(w) && cond(w, "PodsReady").is_some())
    })
    .await;
    apply_yaml(&client, &job("next", ""), NS).await.unwrap();
    let held = eventually(Some(&cluster), T, "next held", || async {
        workload_of(&client, "next").await.filter(|w| {
            cond(w, "QuotaReserved").is_some_and(|c| c.1 == "WaitingForPodsReady") || holds_quota(w)
        })
    })
    .await;
    assert!(
        !holds_quota(&held),
        "next must wait while stuck is admitted and not ready: {:?}",
        held.status
    );
    let stuck = eventually(
        Some(&cluster),
        T,
        "stuck evicted for the timeout",
        || async {
            workload_of(&client, "stuck").await.filter(|w| {
                w.status
                    .as_ref()
                    .and_then(|s| s.scheduling_stats.as_ref())
                    .is_some_and(|s| s.evictions.iter().any(|e| e.reason == "PodsReadyTimeout"))
            })
        },
    )
    .await;
    let st = stuck.status.as_ref().unwrap();
    let eviction = &st.scheduling_stats.as_ref().unwrap().evictions[0];
    assert_eq!(
        (eviction.underlying_cause.as_str(), eviction.count),
        ("WaitForStart", 1)
    );
    assert_eq!(st.requeue_state.as_ref().and_then(|r| r.count), Some(1));
    eventually(
        Some(&cluster),
        T,
        "next admitted once stuck let go",
        || async { workload_of(&client, "next").await.filter(holds_quota) },
    )
    .await;

    // 3. After the backoff, admitted again; timed out again past the limit: deactivated.
    let gone = eventually(Some(&cluster), T, "stuck deactivated", || async {
        workload_of(&client, "stuck").await.filter(|w| {
            !w.spec.active
                && cond(w, "Evicted")
                    .is_some_and(|c| c.1 == "DeactivatedDueToRequeuingLimitExceeded")
        })
    })
    .await;
    assert_eq!(
        cond(&gone, "Evicted").map(|c| c.2),
        Some(
            "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
                .into()
        )
    );
    let requeued = cond(&gone, "Requeued");
    assert!(requeued.is_some(), "{:?}", gone.status);
    let metrics = ctl.metrics();
    assert_eq!(
        metric(
            &metrics,
            "kueue_evicted_workloads_total",
            &[
                ("cluster_queue", "gpus"),
                ("reason", "PodsReadyTimeout"),
                ("underlying_cause", "WaitForStart")
            ]
        ),
        Some(1.0),
        "{metrics}"
    );
    assert!(ctl.proc.exited().is_none(), "{}", ctl.log());
}
