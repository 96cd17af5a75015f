//! run-controller replicas on a real API server (Workloads created directly, no Jobs):
//! - two replicas with `--leader-elect`: exactly one acts, the other takes over when it is
//!   killed, and SIGTERM stops a leader cleanly, giving the Lease up;
//! - the controller refuses to start without the CRDs, and while upstream Kueue's controller
//!   manages the cluster (its Lease or its Deployment) unless `--force`.
#![cfg(feature = "cli")]

use std::time::{Duration, Instant};

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, Patch, PatchParams, PostParams};

const T: Duration = Duration::from_secs(30);

async fn queues(cluster: &Cluster, ns: &str) {
    let yaml = format!(
        "apiVersion: v1
kind: Namespace
metadata: {{name: kueue-system}}
---
apiVersion: kueue.x-k8s.io/v1beta1
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
    );
    crate::support::apply::install_crds(
        &cluster.client(),
        &repo_path("examples/deploy/crds-v1beta1"),
    )
    .await
    .unwrap();
    crate::support::apply::apply_yaml(&cluster.client(), &yaml, ns)
        .await
        .unwrap();
}

async fn workload(cluster: &Cluster, ns: &str, name: &str) {
    let yaml = format!(
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
    );
    crate::support::apply::apply_yaml(&cluster.client(), &yaml, ns)
        .await
        .unwrap();
}

async fn admitted(client: &kube::Client, ns: &str, name: &str) -> Option<()> {
    let w = Api::<kubectl_kueue::api::Workload>::namespaced(client.clone(), ns)
        .get(name)
        .await
        .ok()?;
    holds_quota(&w).then_some(())
}

const LEASE: &str = "c1f6bfd2.kueue.x-k8s.io";

async fn holder(client: &kube::Client) -> Option<String> {
    let lease = Api::<Lease>::namespaced(client.clone(), "kueue-system")
        .get_opt(LEASE)
        .await
        .ok()??;
    lease.spec?.holder_identity
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_replica_leads_and_the_other_takes_over() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    let ns = cluster.new_namespace("leader").await;
    queues(&cluster, &ns).await;
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        config.path(),
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: kueue-system
leaderElection:
  leaderElect: true
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 1s
",
    )
    .unwrap();
    let args = ["--config", config.path().to_str().unwrap()];
    let mut a = start_controller(&cluster, "replica-a", &args);
    a.wait_ready(T);
    let mut b = start_controller(&cluster, "replica-b", &args);
    b.wait_ready(T);

    let first = eventually(Some(&cluster), T, "a leader", || async {
        holder(&client).await.filter(|h| !h.is_empty())
    })
    .await;
    assert!(first.starts_with("kubectl-kueue-replica-"), "{first}");
    let (mut leader, follower) = if first.starts_with("kubectl-kueue-replica-a") {
        (a, b)
    } else {
        (b, a)
    };
    workload(&cluster, &ns, "w1").await;
    eventually(Some(&cluster), T, "w1 admitted by the leader", || {
        admitted(&client, &ns, "w1")
    })
    .await;
    eventually(
        Some(&cluster),
        T,
        "the leader reports replica_role=leader",
        || async {
            metric(
                &leader.metrics(),
                "kueue_admission_attempts_total",
                &[("replica_role", "leader")],
            )
            .map(|_| ())
        },
    )
    .await;
    // The follower watches nothing and decides nothing: it has no scheduling series at all,
    // and never writes (only one replica's log shows admissions).
    assert!(follower.ready(), "a waiting replica is ready");
    assert!(
        metric(&follower.metrics(), "kueue_admission_attempts_total", &[]).is_none(),
        "{}",
        follower.metrics()
    );
    assert!(
        !follower.log().contains("quota reserved"),
        "the follower admitted something:\n{}",
        follower.log()
    );

    // The leader dies: the follower takes the Lease and admits new work.
    leader.proc.kill();
    let killed = Instant::now();
    workload(&cluster, &ns, "w2").await;
    let mut follower = follower;
    eventually(Some(&cluster), T, "w2 admitted by the new leader", || {
        admitted(&client, &ns, "w2")
    })
    .await;
    let took = killed.elapsed();
    let second = holder(&client).await.unwrap_or_default();
    assert_ne!(second, first, "the Lease changed hands");
    assert!(follower.log().contains("became the leader"));
    eprintln!("takeover after SIGKILL: {took:?} (lease duration 3s)");

    // SIGTERM: a clean stop that gives the Lease up at once.
    follower.signal(libc::SIGTERM);
    let status = follower
        .wait_exit(T)
        .expect("the controller stops on SIGTERM");
    assert!(
        status.success(),
        "exit status {status}:\n{}",
        follower.log()
    );
    let after = holder(&client).await;
    assert!(
        after.as_deref().is_none_or(str::is_empty),
        "the Lease is released on SIGTERM, held by {after:?}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_to_start_next_to_upstream_kueue_unless_forced() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    let ns = cluster.new_namespace("upstream").await;
    // No CRDs yet: a clear error instead of watches retrying forever.
    let mut early = start_controller(&cluster, "no-crds", &[]);
    assert_eq!(
        early.wait_exit(T).and_then(|s| s.code()),
        Some(1),
        "{}",
        early.log()
    );
    assert!(
        early
            .log()
            .contains("install the CRDs first (`kubectl kueue install`"),
        "{}",
        early.log()
    );
    queues(&cluster, &ns).await;
    let now = k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(
        k8s_openapi::jiff::Timestamp::now(),
    );
    let lease = Lease {
        metadata: kube::api::ObjectMeta {
            name: Some(LEASE.into()),
            namespace: Some("kueue-system".into()),
            ..Default::default()
        },
        spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
            holder_identity: Some(
                "kueue-controller-manager-6d5c9b8b4-x7k2p_6f1d2c3b-aaaa-bbbb-cccc-0123456789ab"
                    .into(),
            ),
            lease_duration_seconds: Some(15),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            ..Default::default()
        }),
    };
    let leases = Api::<Lease>::namespaced(client.clone(), "kueue-system");
    leases.create(&PostParams::default(), &lease).await.unwrap();

    let mut refused = start_controller(&cluster, "refused", &[]);
    let status = refused.wait_exit(T).expect("run-controller exits");
    assert_eq!(status.code(), Some(1), "{}", refused.log());
    let log = refused.log();
    assert!(
        log.contains("upstream Kueue's controller is already managing this cluster"),
        "{log}"
    );
    assert!(
        log.contains("kueue-controller-manager-6d5c9b8b4-x7k2p"),
        "the evidence is named: {log}"
    );
    assert!(log.contains("--force"), "{log}");

    // Its Deployment is evidence too.
    leases.delete(LEASE, &Default::default()).await.unwrap();
    let deploy: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(serde_json::json!({
        "metadata": { "name": "kueue-controller-manager", "namespace": "kueue-system" },
        "spec": {
            "replicas": 1,
            "selector": { "matchLabels": { "app": "kueue" } },
            "template": { "metadata": { "labels": { "app": "kueue" } }, "spec": { "containers": [{ "name": "manager", "image": "kueue" }] } },
        },
    }))
    .unwrap();
    let deployments =
        Api::<k8s_openapi::api::apps::v1::Deployment>::namespaced(client.clone(), "kueue-system");
    deployments
        .create(&PostParams::default(), &deploy)
        .await
        .unwrap();
    let status = serde_json::json!({ "status": { "replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1 } });
    deployments
        .patch_status(
            "kueue-controller-manager",
            &PatchParams::default(),
            &Patch::Merge(&status),
        )
        .await
        .unwrap();
    let mut refused = start_controller(&cluster, "refused-2", &[]);
    assert_eq!(
        refused.wait_exit(T).and_then(|s| s.code()),
        Some(1),
        "{}",
        refused.log()
    );
    assert!(
        refused
            .log()
            .contains("Deployment kueue-system/kueue-controller-manager has 1 ready replica(s)"),
        "{}",
        refused.log()
    );

    // --force: it runs anyway.
    let mut forced = start_controller(&cluster, "forced", &["--force"]);
    forced.wait_ready(T);
    workload(&cluster, &ns, "w").await;
    eventually(Some(&cluster), T, "w admitted", || {
        admitted(&client, &ns, "w")
    })
    .await;
    assert!(forced.proc.exited().is_none());
}
