//! `run-controller --config` reads the same `Configuration` document `simulate` reads, and
//! live and offline reach the same result: on a real API server, two ClusterQueues borrowing
//! from a Cohort's pool with fair sharing on (weights 2 and 1), the Workloads the controller
//! admits, the reasons of those it does not, and the ClusterQueue status (usage, counts,
//! `fairSharing.weightedShare`) equal `kubectl kueue simulate -o json` on the same files.
#![cfg(feature = "cli")]

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;
use kube::api::Api;
use kubectl_kueue::api::{ClusterQueue, Workload};

const T: Duration = Duration::from_secs(30);

const SETUP: &str = "apiVersion: v1
kind: Namespace
metadata: {name: fs}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: pool}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 6}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohort: pool
  fairSharing: {weight: '2'}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 0}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  cohort: pool
  fairSharing: {weight: '1'}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 0}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-a, namespace: fs}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq-b, namespace: fs}
spec: {clusterQueue: cq-b}
";

const CONFIG: &str = "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing:
  enable: true
";

/// Six one-cpu Workloads per queue, distinct priorities so the order does not hang on
/// creation times.
fn workload_yaml() -> String {
    let mut out = String::new();
    for q in ["a", "b"] {
        for i in 0..6 {
            out.push_str(&format!(
                "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {q}-{i}, namespace: fs}}
spec:
  queueName: lq-{q}
  priority: {}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]
",
                100 - i
            ));
        }
    }
    out
}

/// Per Workload: (holds quota, QuotaReserved reason, message).
type Outcome = BTreeMap<String, (bool, String, String)>;

fn outcome(ws: &[Workload]) -> Outcome {
    ws.iter()
        .map(|w| {
            let c = cond(w, "QuotaReserved").unwrap_or_default();
            (
                w.metadata.name.clone().unwrap_or_default(),
                (holds_quota(w), c.1, c.2),
            )
        })
        .collect()
}

/// What a ClusterQueue's status says, without timestamps.
fn queue_status(cq: &ClusterQueue) -> serde_json::Value {
    let st = cq.status.clone().unwrap_or_default();
    serde_json::json!({
        "flavorsReservation": st.flavors_reservation,
        "flavorsUsage": st.flavors_usage,
        "pending": st.pending_workloads,
        "reserving": st.reserving_workloads,
        "admitted": st.admitted_workloads,
        "fairSharing": st.fair_sharing,
    })
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_and_simulate_agree_under_the_same_configuration() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (setup, wls, config) = (
        dir.path().join("setup.yaml"),
        dir.path().join("workloads.yaml"),
        dir.path().join("config.yaml"),
    );
    std::fs::write(&setup, SETUP).unwrap();
    std::fs::write(&wls, workload_yaml()).unwrap();
    std::fs::write(&config, CONFIG).unwrap();

    // Offline.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .args(["simulate", "-o", "json", "-f"])
        .arg(&setup)
        .arg("-f")
        .arg(&wls)
        .arg("-f")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = list["items"].as_array().unwrap();
    let offline_wls: Vec<Workload> = items
        .iter()
        .filter(|i| i["kind"] == "Workload")
        .map(|i| serde_json::from_value(i.clone()).unwrap())
        .collect();
    let offline_cqs: BTreeMap<String, serde_json::Value> = items
        .iter()
        .filter(|i| i["kind"] == "ClusterQueue")
        .map(|i| {
            let cq: ClusterQueue = serde_json::from_value(i.clone()).unwrap();
            (cq.metadata.name.clone().unwrap(), queue_status(&cq))
        })
        .collect();
    let expected = outcome(&offline_wls);
    assert_eq!(
        expected.values().filter(|o| o.0).count(),
        6,
        "the pool's six cpus are used: {expected:?}"
    );
    assert!(
        offline_cqs
            .values()
            .all(|s| s["fairSharing"]["weightedShare"].as_i64().is_some()),
        "{offline_cqs:?}"
    );

    // Live: the same objects, everything pending when the controller starts.
    crate::support::apply::apply_yaml(&client, SETUP, "fs")
        .await
        .unwrap();
    crate::support::apply::apply_yaml(&client, &workload_yaml(), "fs")
        .await
        .unwrap();
    let mut ctl = start_controller(
        &cluster,
        "controller",
        &["--config", config.to_str().unwrap()],
    );
    ctl.wait_ready(T);
    let deadline = std::time::Instant::now() + T;
    loop {
        let live = outcome(&workloads(&client, "fs").await);
        if live == expected {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "live {live:#?}\nsimulate {expected:#?}\n{}",
            ctl.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for (name, offline) in &offline_cqs {
        eventually(
            Some(&cluster),
            T,
            &format!("{name}'s status as simulate writes it"),
            || async {
                let cq = Api::<ClusterQueue>::all(client.clone())
                    .get(name)
                    .await
                    .ok()?;
                (&queue_status(&cq) == offline).then_some(())
            },
        )
        .await;
    }
    assert!(ctl.proc.exited().is_none());
}
