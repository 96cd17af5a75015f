//! Metrics on the real control plane.
//!
//! LocalQueue metrics (`kueue_local_queue_*`): `run-controller` with
//! `metrics.localQueueMetrics` selecting LocalQueues by label reports the selected one
//! (pending split active/inadmissible, reserving and admitted, status, resources, admissions)
//! and not the other; a LocalQueue deleted loses its series, a ClusterQueue deleted all of
//! its own (counters and histograms included, as upstream clears them), and no LocalQueue
//! has a finished-workloads gauge before a Workload of it finishes; restarted with
//! `enable: false`, it reports none, the ClusterQueue metrics unchanged.
//!
//! Cohorts, fair sharing, `waitForPodsReady` and eviction (kube-controller-manager and kwok
//! running the Jobs' pods): a Job borrowing in a Cohort object's tree reports the hierarchy
//! (`kueue_cluster_queue_info`, `kueue_cohort_info`), the subtree gauges, its weighted share,
//! its time to ready and its Workload's creation latency; a finished Job the finished gauges
//! next to the counters; a reclaiming Job preempting the ready borrower the pods-ready-to-evicted
//! time and the eviction latency once its pods are gone.
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::apply::apply_yaml;
use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::kwok::FakeNode;

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

/// A ClusterQueue, LocalQueue (selected) and Workload to delete while the controller runs.
const GONE: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq-gone}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 1}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-gone, namespace: lqm, labels: {team: a}}
spec: {clusterQueue: cq-gone}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: g-0, namespace: lqm}
spec:
  queueName: lq-gone
  podSets:
  - {name: main, count: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}
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
    crate::support::apply::apply_yaml(&client, GONE, "lqm")
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
    // Nothing finished: no LocalQueue finished gauge yet (upstream creates it with the first).
    assert!(
        !text.contains("kueue_local_queue_finished_workloads{"),
        "{text}"
    );

    // Deleted while the controller runs: the LocalQueue's series go, then the ClusterQueue's.
    let gone_lq = [("name", "lq-gone"), ("namespace", "lqm")];
    let gone_cq = [("cluster_queue", "cq-gone")];
    eventually(Some(&cluster), T, "g-0 admitted", || async {
        let m = ctl.metrics();
        (metric(&m, "kueue_admitted_workloads_total", &gone_cq)? == 1.0
            && metric(&m, "kueue_local_queue_admitted_workloads_total", &gone_lq)? == 1.0)
            .then_some(())
    })
    .await;
    kubectl(
        &cluster,
        &["delete", "workload", "g-0", "-n", "lqm", "--wait=false"],
    );
    kubectl(
        &cluster,
        &[
            "delete",
            "localqueue",
            "lq-gone",
            "-n",
            "lqm",
            "--wait=false",
        ],
    );
    let text = eventually(Some(&cluster), T, "lq-gone's series gone", || async {
        let m = ctl.metrics();
        (m.contains("kueue_build_info") && !m.contains(r#"name="lq-gone""#)).then_some(m)
    })
    .await;
    assert_eq!(
        metric(&text, "kueue_admitted_workloads_total", &gone_cq),
        Some(1.0),
        "the ClusterQueue's counters stay while it does:\n{text}"
    );
    kubectl(
        &cluster,
        &["delete", "clusterqueue", "cq-gone", "--wait=false"],
    );
    let text = eventually(Some(&cluster), T, "cq-gone's series gone", || async {
        let m = ctl.metrics();
        (m.contains("kueue_build_info") && !m.contains(r#"cluster_queue="cq-gone""#)).then_some(m)
    })
    .await;
    // The other queues' series are untouched.
    assert_eq!(
        metric(
            &text,
            "kueue_admitted_workloads_total",
            &[("cluster_queue", "cq")]
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        metric(&text, "kueue_local_queue_admitted_workloads_total", &a),
        Some(2.0),
        "{text}"
    );
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

const COHORTS: &str = "apiVersion: v1
kind: Namespace
metadata: {name: mx}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {gpu-type: a100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: org}
spec: {}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohort: org
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohort: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-a, namespace: mx}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-b, namespace: mx}
spec: {clusterQueue: team-b}
";

const FAIR_READY: &str = "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
metrics: {enableClusterQueueResources: true}
fairSharing: {enable: true}
waitForPodsReady: {enable: true, timeout: 10m, blockAdmission: false}
";

/// A Job of `pods` one-GPU pods in LocalQueue `queue`, each running `runs_for`.
fn gpu_job(name: &str, queue: &str, pods: u32, runs_for: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: mx
  labels: {{kueue.x-k8s.io/queue-name: {queue}}}
spec:
  parallelism: {pods}
  completions: {pods}
  suspend: true
  template:
    metadata:
      annotations: {{pod-complete.stage.kwok.x-k8s.io/delay: '{runs_for}'}}
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: training:latest
        resources: {{requests: {{nvidia.com/gpu: 1}}, limits: {{nvidia.com/gpu: 1}}}}
"
    )
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cohort_fair_sharing_readiness_and_eviction_metrics() {
    const T: Duration = Duration::from_secs(60);
    let cluster = ClusterBuilder::full()
        .nodes(vec![FakeNode::gpu("gpu-a100-1", "a100", 8)])
        .start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let client = cluster.client();
    apply_yaml(&client, COHORTS, "mx").await.unwrap();
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), FAIR_READY).unwrap();
    let mut ctl = start_installed_controller(
        &cluster,
        "controller-cohorts",
        &["--config", config.path().to_str().unwrap()],
    );
    ctl.wait_ready(T);

    // 1. `borrower` takes 6 GPUs in team-b (2 of team-a's); `quick` runs 2 s in team-a.
    apply_yaml(&client, &gpu_job("borrower", "lq-b", 6, "1h"), "mx")
        .await
        .unwrap();
    apply_yaml(&client, &gpu_job("quick", "lq-a", 1, "2s"), "mx")
        .await
        .unwrap();
    let gpu = [("flavor", "a100"), ("resource", "nvidia.com/gpu")];
    let b = [("cluster_queue", "team-b")];
    let text = eventually(
        Some(&cluster),
        T,
        "borrower ready, quick finished",
        || async {
            let m = ctl.metrics();
            let ok = metric(&m, "kueue_ready_wait_time_seconds_count", &b)? == 1.0
                && metric(&m, "kueue_admitted_until_ready_wait_time_seconds_count", &b)? == 1.0
                && metric(
                    &m,
                    "kueue_local_queue_ready_wait_time_seconds_count",
                    &[("name", "lq-b")],
                )? == 1.0
                && metric(
                    &m,
                    "kueue_finished_workloads",
                    &[("cluster_queue", "team-a")],
                )? == 1.0
                && metric(
                    &m,
                    "kueue_cohort_subtree_resource_reservations",
                    &[("cohort", "org"), gpu[0], gpu[1]],
                )? == 6.0;
            ok.then_some(m)
        },
    )
    .await;
    let expect = |name: &str, labels: &[(&str, &str)], want: f64| {
        assert_eq!(metric(&text, name, labels), Some(want), "{name} in\n{text}");
    };
    expect(
        "kueue_cluster_queue_info",
        &[
            ("cluster_queue", "team-b"),
            ("parent_cohort", "org"),
            ("root_cohort", "org"),
        ],
        1.0,
    );
    expect(
        "kueue_cohort_info",
        &[
            ("cohort", "org"),
            ("parent_cohort", ""),
            ("root_cohort", "org"),
        ],
        1.0,
    );
    expect(
        "kueue_cohort_subtree_quota",
        &[("cohort", "org"), gpu[0], gpu[1]],
        8.0,
    );
    expect(
        "kueue_cohort_subtree_admitted_active_workloads",
        &[("cohort", "org")],
        1.0,
    );
    expect(
        "kueue_cohort_subtree_admitted_workloads_total",
        &[("cohort", "org")],
        2.0,
    );
    expect(
        "kueue_finished_workloads_total",
        &[("cluster_queue", "team-a")],
        1.0,
    );
    expect(
        "kueue_local_queue_finished_workloads",
        &[("name", "lq-a")],
        1.0,
    );
    expect(
        "kueue_cluster_queue_resource_pending",
        &[("cluster_queue", "team-a"), ("resource", "nvidia.com/gpu")],
        0.0,
    );
    expect(
        "kueue_workload_creation_latency_seconds_count",
        &[("job_kind", "Job")],
        2.0,
    );
    expect("kueue_cohort_weighted_share", &[("cohort", "org")], 0.0);
    let share = metric(&text, "kueue_cluster_queue_weighted_share", &b);
    assert!(
        share.is_some_and(|s| s > 0.0),
        "team-b borrows: {share:?}\n{text}"
    );
    // The gauge and the counter of finished workloads are two families, each named once.
    for family in ["kueue_finished_workloads", "kueue_finished_workloads_total"] {
        assert_eq!(
            text.matches(&format!("# TYPE {family} ")).count(),
            1,
            "{family} in\n{text}"
        );
    }

    // 2. `reclaimer` needs team-a's 4 GPUs: the ready borrower is preempted, its pods go,
    // its quota is released.
    apply_yaml(&client, &gpu_job("reclaimer", "lq-a", 4, "1h"), "mx")
        .await
        .unwrap();
    let preempted = [("cluster_queue", "team-b"), ("reason", "Preempted")];
    let text = eventually(
        Some(&cluster),
        T,
        "borrower evicted and released",
        || async {
            let m = ctl.metrics();
            let ok = metric(
                &m,
                "kueue_pods_ready_to_evicted_time_seconds_count",
                &preempted,
            )? == 1.0
                && metric(
                    &m,
                    "kueue_workload_eviction_latency_seconds_count",
                    &preempted,
                )? == 1.0
                && metric(
                    &m,
                    "kueue_cohort_subtree_admitted_workloads_total",
                    &[("cohort", "org")],
                )? == 3.0;
            ok.then_some(m)
        },
    )
    .await;
    // One sample each, its `+Inf` bucket spelled as the 0.0.4 text format spells it.
    for (family, le) in [
        ("kueue_pods_ready_to_evicted_time_seconds_bucket", "+Inf"),
        ("kueue_workload_eviction_latency_seconds_bucket", "+Inf"),
    ] {
        let mut labels = preempted.to_vec();
        labels.push(("le", le));
        assert_eq!(
            metric(&text, family, &labels),
            Some(1.0),
            "{family} in\n{text}"
        );
    }
    assert_eq!(
        metric(
            &text,
            "kueue_evicted_workloads_total",
            &[("cluster_queue", "team-b"), ("reason", "Preempted")]
        ),
        Some(1.0),
        "{text}"
    );
    assert!(ctl.proc.exited().is_none(), "{}", ctl.log());
}
