//! The controller's Workload status write is guarded by the resourceVersion of the copy it
//! decided on (upstream's strict status apply), proven on the real API server: a write made on
//! a copy someone changed since is refused with 409 and changes nothing; one made on the
//! current copy lands.
#![cfg(feature = "cli")]

use kube::api::{Api, Patch, PatchParams};
use kubectl_kueue::api::{Workload, WorkloadStatus};
use kubectl_kueue::kube::apply::Writer;

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_write_made_on_a_stale_copy_is_refused_and_changes_nothing() {
    let cluster = crate::support::cluster::shared_apiserver();
    crate::support::live::crds(cluster).await;
    let ns = cluster.new_namespace("stale").await;
    let client = cluster.client();
    crate::support::apply::apply_yaml(
        &client,
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]
",
        &ns,
    )
    .await
    .unwrap();
    let api: Api<Workload> = Api::namespaced(client.clone(), &ns);
    let stale = api.get("w").await.unwrap();
    // Someone else writes the Workload (another leader's admission, a label, a finish).
    api.patch(
        "w",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({ "metadata": { "labels": { "touched": "yes" } } })),
    )
    .await
    .unwrap();
    let fresh = api.get("w").await.unwrap();

    let status: WorkloadStatus = serde_json::from_value(serde_json::json!({
        "conditions": [{
            "type": "QuotaReserved", "status": "False", "reason": "Pending",
            "message": "decided on a stale copy", "lastTransitionTime": "2026-01-01T00:00:00Z"
        }]
    }))
    .unwrap();
    let writer = Writer::new(client.clone(), 4, None, "stale-test");
    let refused = writer
        .apply_workload_status(&stale, &status)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, kube::Error::Api(s) if s.code == 409),
        "{refused}"
    );
    let after = api.get("w").await.unwrap();
    assert_eq!(
        after.metadata.resource_version, fresh.metadata.resource_version,
        "nothing changed"
    );
    assert!(after.status.is_none_or(|s| s.conditions.is_empty()));

    let landed = writer.apply_workload_status(&fresh, &status).await.unwrap();
    assert_eq!(
        landed.status.unwrap().conditions[0].message,
        "decided on a stale copy"
    );
}
