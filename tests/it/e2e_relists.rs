//! How the controller's watches list again after the API server answers 410 Gone: streamed
//! from the watch cache where the API server serves streaming lists (its WatchList feature,
//! on in the pinned release), in pages where it does not. Both on a real API server: the
//! probe's answer with the feature on and off, and, with it off, a controller that still
//! admits before and after kube-apiserver restarts (its new watch cache answers the old
//! watches 410 Gone, so every watch lists again).
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use kube::api::Api;
use kubectl_kueue::api::Workload;
use kubectl_kueue::kube::watch::Relists;

const T: Duration = Duration::from_secs(60);

async fn apply(cluster: &Cluster, yaml: &str, ns: &str) {
    crate::support::apply::apply_yaml(&cluster.client(), yaml, ns)
        .await
        .unwrap();
}

async fn with_crds(cluster: &Cluster) {
    crate::support::apply::install_crds(
        &cluster.client(),
        &repo_path("examples/deploy/crds-v1beta1"),
    )
    .await
    .unwrap();
}

fn workload(ns: &str, name: &str) -> String {
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
          resources: {{requests: {{cpu: '1'}}}}
"
    )
}

async fn admitted(cluster: &Cluster, ns: &str, name: &str) {
    let api = Api::<Workload>::namespaced(cluster.client(), ns);
    eventually(Some(cluster), T, &format!("{name} admitted"), || async {
        let w = api.get(name).await.ok()?;
        holds_quota(&w).then_some(())
    })
    .await;
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pinned_api_server_streams_relists() {
    let cluster = ClusterBuilder::apiserver().start();
    with_crds(&cluster).await;
    assert_eq!(
        Relists::served_by(&cluster.client()).await,
        Relists::Streamed
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_streaming_lists_the_controller_lists_in_pages_and_admits_across_restarts() {
    let cluster = ClusterBuilder::apiserver()
        .apiserver_arg("--feature-gates=WatchList=false")
        .start();
    with_crds(&cluster).await;
    assert_eq!(Relists::served_by(&cluster.client()).await, Relists::Paged);

    let ns = cluster.new_namespace("paged").await;
    apply(
        &cluster,
        &format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 10}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
        ),
        &ns,
    )
    .await;
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    apply(&cluster, &workload(&ns, "before"), &ns).await;
    admitted(&cluster, &ns, "before").await;

    // A new API server starts a new watch cache: the controller's watches, resumed at the
    // versions they had reached, are answered 410 Gone and list again (in pages here).
    for round in 0..2 {
        cluster.restart("kube-apiserver");
        cluster.wait_apiserver_ready(T).await;
        let name = format!("after-{round}");
        apply(&cluster, &workload(&ns, &name), &ns).await;
        admitted(&cluster, &ns, &name).await;
    }
    assert!(
        ctl.log().contains("serves no streaming lists"),
        "the controller did not say it lists in pages:\n{}",
        ctl.log()
    );
}
