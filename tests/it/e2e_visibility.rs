//! The visibility API on the real control plane: the API server's aggregation layer proxies
//! `kubectl get --raw /apis/visibility.kueue.x-k8s.io/...` to `run-controller` (an
//! `ExternalName` Service points the APIService at the controller on 127.0.0.1), which
//! authenticates the front proxy's client certificate and authorizes each list with a
//! SubjectAccessReview. Positions as upstream's: the ClusterQueue's order over all its
//! LocalQueues, LocalQueue positions among its own, `limit`/`offset`.

#![cfg(feature = "cli")]

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::apply::apply_yaml;
use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::process::free_port;

const T: Duration = Duration::from_secs(60);
const GROUP: &str = "visibility.kueue.x-k8s.io";

fn names_and_positions(v: &Value) -> Vec<(String, i64, i64, String)> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["metadata"]["name"].as_str().unwrap().to_string(),
                i["positionInClusterQueue"].as_i64().unwrap(),
                i["positionInLocalQueue"].as_i64().unwrap(),
                i["localQueueName"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn workload(ns: &str, name: &str, queue: &str, priority: i32) -> String {
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{ name: {name}, namespace: {ns} }}
spec:
  queueName: {queue}
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: busybox
          resources: {{ requests: {{ cpu: '1' }} }}
---
"
    )
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_workloads_are_served_through_the_aggregation_layer_with_upstreams_positions() {
    let cluster = ClusterBuilder::apiserver().start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let client = cluster.client();
    let port = free_port();
    // What `install` ships in-cluster, pointed at this machine.
    let mut registration = String::from(
        "apiVersion: v1
kind: Service
metadata: { name: kueue-visibility-server, namespace: kueue-system }
spec: { type: ExternalName, externalName: localhost }
---
",
    );
    for v in ["v1beta2", "v1beta1"] {
        registration.push_str(&format!(
            "apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {{ name: {v}.{GROUP} }}
spec:
  group: {GROUP}
  version: {v}
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {{ name: kueue-visibility-server, namespace: kueue-system, port: {port} }}
---
"
        ));
    }
    apply_yaml(&client, &registration, "default").await.unwrap();
    let addr = format!("127.0.0.1:{port}");
    let mut ctl = start_installed_controller(
        &cluster,
        "visibility",
        &["--visibility-bind-address", &addr],
    );
    ctl.wait_ready(T);

    let ns = cluster.new_namespace("vis").await;
    let setup = format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{ name: default }}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{ name: vis }}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{ name: cpu, nominalQuota: '1' }}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{ name: lq1, namespace: {ns} }}
spec: {{ clusterQueue: vis }}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{ name: lq2, namespace: {ns} }}
spec: {{ clusterQueue: vis }}
---
{}",
        workload(&ns, "running", "lq1", 100)
    );
    apply_yaml(&client, &setup, &ns).await.unwrap();
    let cq_path = format!("/apis/{GROUP}/v1beta2/clusterqueues/vis/pendingworkloads");
    eventually(
        Some(&cluster),
        T,
        "the first workload admitted (nothing pending)",
        || {
            let r = get_raw(&cluster, &cq_path, None);
            async move {
                r.ok()
                    .filter(|v| v["items"].as_array().is_some_and(|a| a.is_empty()))
            }
        },
    )
    .await;
    // Created in this order: a (lq1, 0), b (lq2, 0), c (lq1, 10), d (lq1, 0).
    let mut pending = String::new();
    for (name, queue, priority) in [
        ("a", "lq1", 0),
        ("b", "lq2", 0),
        ("c", "lq1", 10),
        ("d", "lq1", 0),
    ] {
        pending.push_str(&workload(&ns, name, queue, priority));
    }
    for doc in pending.split("---\n").filter(|d| !d.trim().is_empty()) {
        apply_yaml(&client, doc, &ns).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1100)).await; // distinct creation seconds
    }
    let want = vec![
        ("c".to_string(), 0, 0, "lq1".to_string()),
        ("a".to_string(), 1, 1, "lq1".to_string()),
        ("b".to_string(), 2, 0, "lq2".to_string()),
        ("d".to_string(), 3, 2, "lq1".to_string()),
    ];
    let answer = eventually(
        Some(&cluster),
        T,
        "four pending workloads in the ClusterQueue's list",
        || {
            let r = get_raw(&cluster, &cq_path, None);
            async move {
                r.ok()
                    .filter(|v| v["items"].as_array().is_some_and(|a| a.len() == 4))
            }
        },
    )
    .await;
    assert_eq!(names_and_positions(&answer), want, "{answer:#}");
    assert_eq!(answer["kind"], "PendingWorkloadsSummary");
    assert_eq!(answer["apiVersion"], format!("{GROUP}/v1beta2"));
    assert_eq!(answer["items"][0]["priority"], 10);
    assert_eq!(answer["items"][0]["metadata"]["namespace"], json!(ns));
    assert!(answer["items"][0]["metadata"]["creationTimestamp"].is_string());

    // v1beta1, a page of the ClusterQueue's list (positions stay the whole list's).
    let page = get_raw(
        &cluster,
        &format!("/apis/{GROUP}/v1beta1/clusterqueues/vis/pendingworkloads?offset=1&limit=2"),
        None,
    )
    .unwrap();
    assert_eq!(page["apiVersion"], format!("{GROUP}/v1beta1"));
    assert_eq!(names_and_positions(&page), want[1..3].to_vec());

    // A LocalQueue's list, and a page of it.
    let lq = get_raw(
        &cluster,
        &format!("/apis/{GROUP}/v1beta2/namespaces/{ns}/localqueues/lq1/pendingworkloads"),
        None,
    )
    .unwrap();
    assert_eq!(
        names_and_positions(&lq),
        vec![want[0].clone(), want[1].clone(), want[3].clone()]
    );
    let lq_page = get_raw(&cluster, &format!("/apis/{GROUP}/v1beta2/namespaces/{ns}/localqueues/lq1/pendingworkloads?offset=1&limit=1"), None).unwrap();
    assert_eq!(names_and_positions(&lq_page), vec![want[1].clone()]);

    // Unknown queues: upstream's NotFound.
    let missing = get_raw(
        &cluster,
        &format!("/apis/{GROUP}/v1beta2/clusterqueues/nope/pendingworkloads"),
        None,
    )
    .unwrap_err();
    assert!(
        missing.contains("NotFound") || missing.contains("not found"),
        "{missing}"
    );

    // Discovery, through the API server.
    let resources = get_raw(&cluster, &format!("/apis/{GROUP}/v1beta2"), None).unwrap();
    let names: Vec<&str> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(
        names.contains(&"clusterqueues/pendingworkloads"),
        "{resources:#}"
    );
    assert!(
        names.contains(&"localqueues/pendingworkloads"),
        "{resources:#}"
    );

    // RBAC decides: a ServiceAccount without a role may not read; with upstream's LocalQueue
    // viewer role bound in its namespace, it reads that namespace's LocalQueues only.
    let sa = format!(
        "apiVersion: v1
kind: ServiceAccount
metadata: {{ name: reader, namespace: {ns} }}
"
    );
    apply_yaml(&client, &sa, &ns).await.unwrap();
    let reader = service_account_kubeconfig(&cluster, &ns, "reader", None).await;
    let lq_path = format!("/apis/{GROUP}/v1beta2/namespaces/{ns}/localqueues/lq2/pendingworkloads");
    let denied = get_raw(&cluster, &lq_path, Some(reader.path())).unwrap_err();
    assert!(
        denied.contains("forbidden") || denied.contains("Forbidden"),
        "{denied}"
    );
    let binding = format!(
        "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{ name: reader, namespace: {ns} }}
roleRef: {{ apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kueue-pending-workloads-lq-viewer-role }}
subjects: [{{ kind: ServiceAccount, name: reader, namespace: {ns} }}]
"
    );
    apply_yaml(&client, &binding, &ns).await.unwrap();
    // A denial may be cached for up to 30 s (as upstream caches them).
    let allowed = eventually(
        Some(&cluster),
        Duration::from_secs(90),
        "the bound reader reads the LocalQueue's list",
        || {
            let r = get_raw(&cluster, &lq_path, Some(reader.path()));
            async move { r.ok() }
        },
    )
    .await;
    assert_eq!(names_and_positions(&allowed), vec![want[2].clone()]);
    let cq_denied = get_raw(&cluster, &cq_path, Some(reader.path())).unwrap_err();
    assert!(
        cq_denied.contains("forbidden") || cq_denied.contains("Forbidden"),
        "{cq_denied}"
    );
    drop(ctl);
}
