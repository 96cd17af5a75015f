//! Upstream's batch-Job behaviour on the real API server (issue 12), one control plane and
//! one installed controller (its ServiceAccount's roles only) for every part, each part in
//! its own namespace and ClusterQueue:
//! - a Job's pod template `priorityClassName` (a scheduling.k8s.io PriorityClass) gives its
//!   Workload the priority (`priorityClassSource: scheduling.k8s.io/priorityclass`), enough
//!   to preempt a lower one;
//! - a Job labelled `kueue.x-k8s.io/max-exec-time-seconds` is deactivated once admitted that
//!   long (`Evicted` reason `DeactivatedDueToMaximumExecutionTimeExceeded`), suspended again,
//!   and its quota returns;
//! - a Job resized after admission is stopped, its Workload deleted (event
//!   `DeletedWorkload`) and a new one made and admitted for the new size;
//! - a Job with `kueue.x-k8s.io/job-min-parallelism` is admitted with the pods that fit and
//!   runs with that parallelism; evicted, it gets the parallelism it asked for back.
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::apply::apply_yaml;
use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use kube::api::Api;
use kubectl_kueue::api::Workload;

const T: Duration = Duration::from_secs(40);

/// Namespace `ns` with ClusterQueue `ns` (4 cpu on flavor `default`, lower priorities
/// preempted in the queue) and LocalQueue `lq`.
fn queues(ns: &str) -> String {
    format!(
        "apiVersion: v1
kind: Namespace
metadata: {{name: {ns}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {ns}}}
spec:
  namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}
  preemption: {{withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{name: cpu, nominalQuota: 4}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: {ns}}}
"
    )
}

/// A queue-labelled Job of one pod asking for `cpu`; `pod_extra` goes into the pod spec,
/// `labels_extra` into the Job's labels.
fn job(ns: &str, name: &str, cpu: u32, labels_extra: &str, pod_extra: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  labels: {{kueue.x-k8s.io/queue-name: lq{labels_extra}}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never{pod_extra}
      containers:
      - name: c
        image: x
        resources: {{requests: {{cpu: '{cpu}'}}}}
"
    )
}

fn plain_workload(ns: &str, name: &str, cpu: u32) -> String {
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
        containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{cpu}'}}}}}}]
"
    )
}

async fn workload_of_job(client: &kube::Client, ns: &str, job: &str) -> Option<Workload> {
    workloads(client, ns)
        .await
        .into_iter()
        .find(|w| job_name(w) == job)
}

async fn workload_named(client: &kube::Client, ns: &str, name: &str) -> Option<Workload> {
    Api::<Workload>::namespaced(client.clone(), ns)
        .get(name)
        .await
        .ok()
}

/// Item 5: priority from the pod template's PriorityClass.
async fn pod_priority_class(cluster: &Cluster) {
    let client = cluster.client();
    let ns = "fid-priority";
    apply_yaml(&client, &queues(ns), ns).await.unwrap();
    apply_yaml(
        &client,
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: fid-high}\nvalue: 100\n",
        ns,
    )
    .await
    .unwrap();
    apply_yaml(&client, &plain_workload(ns, "low", 4), ns)
        .await
        .unwrap();
    eventually(Some(cluster), T, "low is admitted", || async {
        let w = workload_named(&client, ns, "low").await?;
        holds_quota(&w).then_some(())
    })
    .await;
    apply_yaml(
        &client,
        &job(ns, "urgent", 4, "", "\n      priorityClassName: fid-high"),
        ns,
    )
    .await
    .unwrap();
    let w = eventually(
        Some(cluster),
        T,
        "urgent's Workload is admitted",
        || async {
            let w = workload_of_job(&client, ns, "urgent").await?;
            holds_quota(&w).then_some(w)
        },
    )
    .await;
    assert_eq!(w.spec.priority, Some(100));
    assert_eq!(w.spec.priority_class_name.as_deref(), Some("fid-high"));
    assert_eq!(
        serde_json::to_value(w.spec.priority_class_source).unwrap(),
        "scheduling.k8s.io/priorityclass"
    );
    let low = workload_named(&client, ns, "low").await.unwrap();
    assert_eq!(
        cond(&low, "Preempted").map(|c| c.1),
        Some("InClusterQueue".to_string())
    );
}

/// Item 8: the maximum execution time.
async fn maximum_execution_time(cluster: &Cluster, ctl: &Controller) {
    let client = cluster.client();
    let ns = "fid-max-exec";
    apply_yaml(&client, &queues(ns), ns).await.unwrap();
    apply_yaml(
        &client,
        &job(
            ns,
            "bounded",
            2,
            ", kueue.x-k8s.io/max-exec-time-seconds: '2'",
            "",
        ),
        ns,
    )
    .await
    .unwrap();
    let admitted = eventually(Some(cluster), T, "bounded is admitted", || async {
        let w = workload_of_job(&client, ns, "bounded").await?;
        holds_quota(&w).then_some(w)
    })
    .await;
    assert_eq!(admitted.spec.maximum_execution_time_seconds, Some(2));
    let w = eventually(
        Some(cluster),
        T,
        "bounded is deactivated and gives its quota back",
        || async {
            let w = workload_of_job(&client, ns, "bounded").await?;
            (!w.spec.active && !holds_quota(&w)).then_some(w)
        },
    )
    .await;
    let (status, reason, message) = cond(&w, "Evicted").unwrap();
    assert_eq!(
        (status.as_str(), reason.as_str(), message.as_str()),
        (
            "True",
            "DeactivatedDueToMaximumExecutionTimeExceeded",
            "The workload is deactivated due to exceeding the maximum execution time"
        )
    );
    assert!(cond(&w, "DeactivationTarget").is_none(), "{w:#?}");
    let stats = w.status.as_ref().unwrap().scheduling_stats.clone().unwrap();
    assert_eq!(
        (
            stats.evictions[0].reason.as_str(),
            stats.evictions[0].underlying_cause.as_str()
        ),
        ("Deactivated", "MaximumExecutionTimeExceeded")
    );
    let ran = w
        .status
        .as_ref()
        .unwrap()
        .accumulated_past_execution_time_seconds;
    assert!(ran.is_some_and(|s| s >= 2), "{ran:?}");
    let job = Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), ns)
        .get("bounded")
        .await
        .unwrap();
    assert_eq!(job.spec.unwrap().suspend, Some(true), "suspended again");
    let text = ctl.metrics();
    let evicted = metric(
        &text,
        "kueue_evicted_workloads_total",
        &[
            ("cluster_queue", ns),
            ("reason", "Deactivated"),
            ("underlying_cause", "MaximumExecutionTimeExceeded"),
        ],
    );
    assert_eq!(evicted, Some(1.0), "{text}");
}

/// Item 6: a Job that no longer matches its admitted Workload.
async fn resized_after_admission(cluster: &Cluster) {
    let client = cluster.client();
    let ns = "fid-resized";
    apply_yaml(&client, &queues(ns), ns).await.unwrap();
    // Four completions, one pod at a time (the API server would default completions to the
    // parallelism, which caps the count).
    let grows = job(ns, "grows", 1, "", "").replace(
        "  suspend: true\n",
        "  suspend: true\n  completions: 4\n  parallelism: 1\n",
    );
    apply_yaml(&client, &grows, ns).await.unwrap();
    let jobs = Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), ns);
    let old = eventually(Some(cluster), T, "grows runs", || async {
        let w = workload_of_job(&client, ns, "grows").await?;
        let running = jobs.get("grows").await.ok()?.spec?.suspend == Some(false);
        (holds_quota(&w) && running).then_some(w)
    })
    .await;
    jobs.patch(
        "grows",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(serde_json::json!({ "spec": { "parallelism": 2 } })),
    )
    .await
    .unwrap();
    let new = eventually(
        Some(cluster),
        T,
        "a new Workload for two pods, admitted, the Job running again",
        || async {
            let w = workload_of_job(&client, ns, "grows").await?;
            let running = jobs.get("grows").await.ok()?.spec?.suspend == Some(false);
            (w.metadata.uid != old.metadata.uid && holds_quota(&w) && running).then_some(w)
        },
    )
    .await;
    assert_eq!(new.spec.pod_sets[0].count, 2);
    let events = kubectl(
        cluster,
        &[
            "get",
            "events",
            "-n",
            ns,
            "-o",
            "jsonpath={.items[*].reason}",
        ],
    );
    assert!(events.contains("DeletedWorkload"), "{events}");
}

/// Item 7: partial admission.
async fn partial_admission(cluster: &Cluster) {
    let client = cluster.client();
    let ns = "fid-partial";
    apply_yaml(&client, &queues(ns), ns).await.unwrap();
    // Six pods of one cpu, at least two; four cpus.
    let partial = job(ns, "wide", 1, "", "")
        .replace(
            "  labels: {kueue.x-k8s.io/queue-name: lq}\n",
            "  labels: {kueue.x-k8s.io/queue-name: lq}\n  annotations: {kueue.x-k8s.io/job-min-parallelism: '2'}\n",
        )
        .replace(
            "  suspend: true\n",
            "  suspend: true\n  parallelism: 6\n  completions: 6\n",
        );
    apply_yaml(&client, &partial, ns).await.unwrap();
    let jobs = Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), ns);
    let w = eventually(Some(cluster), T, "wide runs with four pods", || async {
        let w = workload_of_job(&client, ns, "wide").await?;
        let spec = jobs.get("wide").await.ok()?.spec?;
        (holds_quota(&w) && spec.suspend == Some(false) && spec.parallelism == Some(4)).then_some(w)
    })
    .await;
    let psa = &w
        .status
        .as_ref()
        .unwrap()
        .admission
        .as_ref()
        .unwrap()
        .pod_set_assignments[0];
    assert_eq!(psa.count, Some(4));
    assert_eq!(w.spec.pod_sets[0].count, 6);
    // Deactivated: the Job is suspended and asks for its six pods again.
    Api::<Workload>::namespaced(client.clone(), ns)
        .patch(
            w.metadata.name.as_deref().unwrap(),
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({ "spec": { "active": false } })),
        )
        .await
        .unwrap();
    eventually(
        Some(cluster),
        T,
        "wide is back to six pods, suspended",
        || async {
            let spec = jobs.get("wide").await.ok()?.spec?;
            (spec.suspend == Some(true) && spec.parallelism == Some(6)).then_some(())
        },
    )
    .await;
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstreams_job_behaviour_on_a_real_api_server() {
    let cluster = ClusterBuilder::apiserver().start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    apply_yaml(
        &cluster.client(),
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default}\nspec: {}\n",
        "default",
    )
    .await
    .unwrap();
    let mut ctl = start_installed_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    pod_priority_class(&cluster).await;
    maximum_execution_time(&cluster, &ctl).await;
    resized_after_admission(&cluster).await;
    partial_admission(&cluster).await;
    assert!(ctl.proc.exited().is_none(), "{}", ctl.log());
}
