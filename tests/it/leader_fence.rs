//! A leader that can no longer renew its Lease, on a real API server: it stops writing within
//! the renew deadline and exits non-zero ("leader election lost"); the follower then takes
//! over, and no write of the old leader reaches the API server after the new leader's first.
//!
//! The renewals alone are blocked, and honestly: each replica runs as its own ServiceAccount,
//! and the test deletes the RoleBinding that lets replica A touch Leases, so A's Lease requests
//! get 403 while every other write of A would still be accepted: only A's fence stops them.
//! What reached the API server, and when, comes from the API server's own audit log.
//!
//! What each test proves: with the Writer's fence check removed, the first test still passes
//! (the process exits within milliseconds of its deadline, so the exit alone stops A's writes:
//! 7 ms past the deadline in that run, inside the margin); the second, which checks the fence
//! at the send point directly, is the one that fails then.
#![cfg(feature = "cli")]

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::rbac::v1::RoleBinding;
use k8s_openapi::jiff::Timestamp;
use kube::api::Api;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;

const T: Duration = Duration::from_secs(30);
const LEASE: &str = "c1f6bfd2.kueue.x-k8s.io";
const RENEW_DEADLINE: Duration = Duration::from_secs(4);

const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete]
- level: None
";

fn setup(ns: &str) -> String {
    format!(
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
      resources: [{{name: cpu, nominalQuota: 1000}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {{name: replica-a, namespace: kueue-system}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {{name: replica-b, namespace: kueue-system}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: replica-work}}
rules:
- apiGroups: ['', batch, apps, kueue.x-k8s.io, events.k8s.io, scheduling.k8s.io, node.k8s.io]
  resources: ['*']
  verbs: ['*']
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {{name: replica-work}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: replica-work}}
subjects:
- {{kind: ServiceAccount, name: replica-a, namespace: kueue-system}}
- {{kind: ServiceAccount, name: replica-b, namespace: kueue-system}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: leases, namespace: kueue-system}}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: ['*']
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: leases-a, namespace: kueue-system}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases}}
subjects: [{{kind: ServiceAccount, name: replica-a, namespace: kueue-system}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: leases-b, namespace: kueue-system}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases}}
subjects: [{{kind: ServiceAccount, name: replica-b, namespace: kueue-system}}]
"
    )
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

async fn holder(client: &kube::Client) -> Option<String> {
    Api::<Lease>::namespaced(client.clone(), "kueue-system")
        .get_opt(LEASE)
        .await
        .ok()??
        .spec?
        .holder_identity
        .filter(|h| !h.is_empty())
}

/// One write as the audit log recorded it.
#[derive(Debug)]
struct Write {
    user: String,
    resource: String,
    subresource: String,
    code: i64,
    received: Timestamp,
}

fn audit(path: &std::path::Path) -> Vec<Write> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|e| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            Some(Write {
                user: s(&e["user"]["username"]),
                resource: s(&e["objectRef"]["resource"]),
                subresource: s(&e["objectRef"]["subresource"]),
                code: e["responseStatus"]["code"].as_i64().unwrap_or(0),
                received: e["requestReceivedTimestamp"].as_str()?.parse().ok()?,
            })
        })
        .collect()
}

const USER_A: &str = "system:serviceaccount:kueue-system:replica-a";
const USER_B: &str = "system:serviceaccount:kueue-system:replica-b";

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_cannot_renew_stops_writing_and_exits_before_the_next_leader_writes() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("audit-policy.yaml");
    std::fs::write(&policy, AUDIT_POLICY).unwrap();
    let log = dir.path().join("audit.log");
    let cluster = ClusterBuilder::apiserver()
        .apiserver_arg(&format!("--audit-policy-file={}", policy.display()))
        .apiserver_arg(&format!("--audit-log-path={}", log.display()))
        .start();
    let client = cluster.client();
    let ns = cluster.new_namespace("fence").await;
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    crate::support::apply::apply_yaml(&client, &setup(&ns), &ns)
        .await
        .unwrap();
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        config.path(),
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: kueue-system
leaderElection:
  leaderElect: true
  leaseDuration: 6s
  renewDeadline: 4s
  retryPeriod: 1s
",
    )
    .unwrap();
    let args = ["--config", config.path().to_str().unwrap()];
    let kc_a = service_account_kubeconfig(&cluster, "kueue-system", "replica-a", None).await;
    let kc_b = service_account_kubeconfig(&cluster, "kueue-system", "replica-b", None).await;
    let mut a = start_controller_with(&cluster, "replica-a", kc_a.path(), &args);
    eventually(Some(&cluster), T, "replica A leads", || async {
        holder(&client)
            .await
            .filter(|h| h.starts_with("kubectl-kueue-replica-a"))
    })
    .await;
    let mut b = start_controller_with(&cluster, "replica-b", kc_b.path(), &args);
    b.wait_ready(T);

    // A steady stream of work, so the leader always has writes to send.
    let churn = {
        let ns = ns.clone();
        let cluster_client = client.clone();
        tokio::spawn(async move {
            for i in 0.. {
                let wl = serde_json::json!({
                    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                    "metadata": { "name": format!("w{i}"), "namespace": ns },
                    "spec": { "queueName": "lq", "podSets": [{ "name": "main", "count": 1, "template": { "spec": {
                        "restartPolicy": "Never",
                        "containers": [{ "name": "c", "image": "x", "resources": { "requests": { "cpu": "1" } } }] } } }] },
                });
                let api = Api::<kube::api::DynamicObject>::namespaced_with(
                    cluster_client.clone(),
                    &ns,
                    &kube::discovery::ApiResource::erase::<kubectl_kueue::api::Workload>(&()),
                );
                let obj: kube::api::DynamicObject = serde_json::from_value(wl).unwrap();
                let _ = api.create(&Default::default(), &obj).await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    eventually(Some(&cluster), T, "A admits work", || async {
        let w = Api::<kubectl_kueue::api::Workload>::namespaced(client.clone(), &ns)
            .get("w3")
            .await
            .ok()?;
        holds_quota(&w).then_some(())
    })
    .await;

    // A may no longer touch Leases; everything else it may still write.
    Api::<RoleBinding>::namespaced(client.clone(), "kueue-system")
        .delete("leases-a", &Default::default())
        .await
        .unwrap();
    let revoked = Instant::now();
    let status = a.wait_exit(T).expect("a leader that cannot renew exits");
    let exited = revoked.elapsed();
    assert_eq!(status.code(), Some(1), "{}", a.log());
    assert!(a.log().contains("leader election lost"), "{}", a.log());
    assert!(
        exited < RENEW_DEADLINE + Duration::from_secs(4),
        "A exited {exited:?} after its renewals started failing (renew deadline {RENEW_DEADLINE:?})"
    );

    // B takes over and admits new work.
    eventually(Some(&cluster), T, "replica B leads", || async {
        holder(&client)
            .await
            .filter(|h| h.starts_with("kubectl-kueue-replica-b"))
    })
    .await;
    workload(&cluster, &ns, "after").await;
    eventually(Some(&cluster), T, "B admits new work", || async {
        let w = Api::<kubectl_kueue::api::Workload>::namespaced(client.clone(), &ns)
            .get("after")
            .await
            .ok()?;
        holds_quota(&w).then_some(())
    })
    .await;
    churn.abort();
    b.signal(libc::SIGTERM);
    b.wait_exit(T);

    let writes = audit(&log);
    let lease_ok = |w: &&Write| w.resource == "leases" && (200..300).contains(&w.code);
    let a_renewed = writes
        .iter()
        .filter(|w| w.user == USER_A)
        .filter(lease_ok)
        .map(|w| w.received)
        .max()
        .expect("A renewed its Lease before");
    let a_writes: Vec<&Write> = writes
        .iter()
        .filter(|w| w.user == USER_A && w.resource != "leases")
        .collect();
    let b_first = writes
        .iter()
        .filter(|w| w.user == USER_B)
        .map(|w| w.received)
        .min()
        .expect("B wrote");
    assert!(
        a_writes.iter().any(|w| w.subresource == "status"),
        "A wrote Workload status while it led: {a_writes:?}"
    );
    // A's fence closes at (start of its last successful renewal) + renew deadline; that start
    // is before the server received the renewal. The margin covers one request's trip.
    let fence = a_renewed
        .checked_add(
            k8s_openapi::jiff::SignedDuration::try_from(
                RENEW_DEADLINE + Duration::from_millis(250),
            )
            .unwrap(),
        )
        .unwrap();
    let a_last = a_writes.iter().map(|w| w.received).max().unwrap();
    assert!(
        a_last <= fence,
        "A wrote at {a_last}, after its last renewal ({a_renewed}) plus the renew deadline"
    );
    assert!(
        a_last < b_first,
        "A wrote at {a_last}, after B's first write at {b_first}"
    );
    eprintln!(
        "A: last renewal {a_renewed}, last write {a_last}, exited {exited:?} after the revocation; B: first write {b_first}; {} writes of A in all",
        a_writes.len()
    );
}

/// The fence at the send point, against the real API server: a write checked while the fence
/// is open goes out; once it is closed, or its deadline has passed, the write (and an Event)
/// is refused before anything is sent, and the object is left as it was.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_or_expired_fence_sends_nothing() {
    use k8s_openapi::api::batch::v1::Job;
    use kubectl_kueue::kube::apply::{Writer, reference};
    use kubectl_kueue::kube::lease::Fence;
    let cluster = crate::support::cluster::shared_apiserver();
    let ns = cluster.new_namespace("fenced").await;
    let client = cluster.client();
    crate::support::apply::apply_yaml(
        &client,
        "apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x}]
",
        &ns,
    )
    .await
    .unwrap();
    let label = |k: &str| serde_json::json!({ "metadata": { "labels": { k: "1" } } });
    let fence = Fence::new();
    let writer = Writer::new(client.clone(), 4, None, "fence-test").fenced(Some(fence.clone()));
    let closed = writer
        .patch_job(&ns, "j", &label("before"))
        .await
        .unwrap_err();
    assert!(
        closed
            .to_string()
            .contains("no longer holds the leader-election lease"),
        "{closed}"
    );
    fence.extend(Instant::now() + Duration::from_secs(60));
    writer.patch_job(&ns, "j", &label("open")).await.unwrap();
    let job = Api::<Job>::namespaced(client.clone(), &ns)
        .get("j")
        .await
        .unwrap();
    // Events are queued, not awaited: one sent while the fence is open arrives...
    let events = Api::<k8s_openapi::api::events::v1::Event>::namespaced(client.clone(), &ns);
    let notes = || async {
        events
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|e| e.note)
            .collect::<Vec<String>>()
    };
    writer.event(&reference(&job), false, "Test", "open");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !notes().await.iter().any(|n| n == "open") {
        assert!(
            Instant::now() < deadline,
            "the open-fence event never arrived"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    fence.close();
    writer
        .patch_job(&ns, "j", &label("closed"))
        .await
        .unwrap_err();
    // ...and one sent once it closed never goes out.
    writer.event(&reference(&job), false, "Test", "fenced");

    let expiring = Fence::new();
    expiring.extend(Instant::now() + Duration::from_millis(50));
    let writer = Writer::new(client.clone(), 4, None, "fence-test").fenced(Some(expiring));
    tokio::time::sleep(Duration::from_millis(100)).await;
    writer
        .patch_job(&ns, "j", &label("expired"))
        .await
        .unwrap_err();

    let labels = Api::<Job>::namespaced(client, &ns)
        .get("j")
        .await
        .unwrap()
        .metadata
        .labels
        .unwrap_or_default();
    let keys: Vec<&str> = labels.keys().map(String::as_str).collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sent = notes().await;
    assert!(
        !sent.iter().any(|n| n == "fenced"),
        "a fenced event went out: {sent:?}"
    );
    assert!(keys.contains(&"open"), "{keys:?}");
    for k in ["before", "closed", "expired"] {
        assert!(!keys.contains(&k), "a fenced write went out: {keys:?}");
    }
}

/// The fence at the socket: the leader's write client refuses to send a byte once the fence
/// is closed, even for a request that got past every earlier check (here: sent straight to
/// the client, as a request already inside the client when the process was stopped would be),
/// and on a pooled connection that was opened while the fence was open.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leaders_write_client_sends_nothing_once_the_fence_is_closed() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Patch, PatchParams, PostParams};
    use kubectl_kueue::kube::client::Timeouts;
    use kubectl_kueue::kube::fenced_io::fenced_client;
    use kubectl_kueue::kube::lease::Fence;
    let cluster = crate::support::cluster::shared_apiserver();
    let ns = cluster.new_namespace("socket-fence").await;
    let fence = Fence::new();
    fence.extend(Instant::now() + Duration::from_secs(60));
    let fenced = fenced_client(&cluster.kube_config(), Timeouts::REQUESTS, fence.clone()).unwrap();
    let maps = Api::<ConfigMap>::namespaced(fenced, &ns);
    let cm: ConfigMap =
        serde_json::from_value(serde_json::json!({ "metadata": { "name": "c" } })).unwrap();
    maps.create(&PostParams::default(), &cm).await.unwrap();

    fence.close();
    let patch = serde_json::json!({ "data": { "sent": "after the fence closed" } });
    let refused = maps
        .patch("c", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap_err();
    let chain = format!("{refused:?}");
    assert!(chain.contains("Fenced"), "{chain}");
    // A fresh connection is refused the same way (its TLS handshake is never sent).
    let fresh = fenced_client(&cluster.kube_config(), Timeouts::REQUESTS, fence.clone()).unwrap();
    Api::<ConfigMap>::namespaced(fresh, &ns)
        .patch("c", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap_err();

    let stored = Api::<ConfigMap>::namespaced(cluster.client(), &ns)
        .get("c")
        .await
        .unwrap();
    assert!(stored.data.is_none(), "a fenced write arrived: {stored:?}");
}
