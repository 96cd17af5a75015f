//! LocalQueue metrics (`kueue_local_queue_*`) on the real control plane: `run-controller`
//! with `metrics.localQueueMetrics` selecting LocalQueues by label reports the selected one
//! (pending split active/inadmissible, reserving and admitted, status, resources, admissions)
//! and not the other; restarted with `enable: false`, it reports none, the ClusterQueue
//! metrics unchanged.
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;

const T: Duration = Duration::from_secs(30);

const SETUP: &str = "apiVersion: v1
kind: Namespace
metadata: {name: lqm}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-a, namespace: lqm, labels: {team: a}}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-b, namespace: lqm}
spec: {clusterQueue: cq}
";

/// Two one-cpu Workloads in lq-a (both admitted), one in lq-b asking for more than the
/// quota (pending).
const WORKLOADS: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: a-0, namespace: lqm}
spec:
  queueName: lq-a
  podSets:
  - {name: main, count: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: a-1, namespace: lqm}
spec:
  queueName: lq-a
  podSets:
  - {name: main, count: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: b-0, namespace: lqm}
spec:
  queueName: lq-b
  podSets:
  - {name: main, count: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '3'}}}]}}}
";

fn config(dir: &tempfile::TempDir, name: &str, metrics: &str) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(
        &path,
        format!(
            "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nmetrics: {metrics}\n"
        ),
    )
    .unwrap();
    path
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_queue_metrics_appear_for_the_selected_queues_only_when_enabled() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    crate::support::apply::apply_yaml(&client, SETUP, "lqm")
        .await
        .unwrap();
    crate::support::apply::apply_yaml(&client, WORKLOADS, "lqm")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let selected = config(
        &dir,
        "selected.yaml",
        "{localQueueMetrics: {enable: true, localQueueSelector: {matchLabels: {team: a}}}}",
    );
    let off = config(&dir, "off.yaml", "{localQueueMetrics: {enable: false}}");

    let mut ctl = start_controller(
        &cluster,
        "controller-lq-selected",
        &["--config", selected.to_str().unwrap()],
    );
    ctl.wait_ready(T);
    let a = [("name", "lq-a"), ("namespace", "lqm")];
    let text = eventually(Some(&cluster), T, "lq-a's metrics", || async {
        let m = ctl.metrics();
        let ok = metric(&m, "kueue_local_queue_admitted_active_workloads", &a)? == 2.0
            && metric(&m, "kueue_local_queue_reserving_active_workloads", &a)? == 2.0
            && metric(&m, "kueue_local_queue_admitted_workloads_total", &a)? == 2.0
            && metric(&m, "kueue_local_queue_quota_reserved_workloads_total", &a)? == 2.0
            && metric(
                &m,
                "kueue_local_queue_resource_usage",
                &[a[0], a[1], ("flavor", "default-flavor"), ("resource", "cpu")],
            )? == 2.0
            && metric(
                &m,
                "kueue_local_queue_status",
                &[a[0], a[1], ("active", "True")],
            )? == 1.0
            && metric(
                &m,
                "kueue_local_queue_pending_workloads",
                &[a[0], a[1], ("status", "active")],
            )? == 0.0
            // The ClusterQueue's own metrics count both LocalQueues.
            && metric(
                &m,
                "kueue_pending_workloads",
                &[("cluster_queue", "cq"), ("status", "inadmissible")],
            )? == 1.0;
        ok.then_some(m)
    })
    .await;
    assert!(!text.contains(r#"name="lq-b""#), "{text}");
    assert!(text.contains("kueue_build_info{"), "{text}");
    drop(ctl);

    let mut ctl = start_controller(
        &cluster,
        "controller-lq-off",
        &["--config", off.to_str().unwrap()],
    );
    ctl.wait_ready(T);
    let text = eventually(Some(&cluster), T, "the ClusterQueue gauges", || async {
        let m = ctl.metrics();
        (metric(
            &m,
            "kueue_admitted_active_workloads",
            &[("cluster_queue", "cq")],
        )? == 2.0)
            .then_some(m)
    })
    .await;
    assert!(!text.contains("kueue_local_queue_"), "{text}");
}
