//! Least privilege, proven on a real API server, with the controller running as the
//! ServiceAccount `kubectl kueue install` creates (nothing but the installed roles) and logging
//! at trace level:
//! - a user who may create Jobs only in namespace team-a cannot get quota from team-b's
//!   ClusterQueue: not by a Job or Workload in team-b, not by a LocalQueue of their own, not by
//!   naming team-b's queues from team-a;
//! - the controller's token never appears in its log, at any verbosity;
//! - the controller reads upstream's controller Deployment by name only, nothing else of apps;
//! - `/metrics` is HTTPS (a self-signed certificate, or the one in `--metrics-cert-dir`) and
//!   answers as upstream's filter: 401 without a valid token, 403 without `get` on
//!   `/metrics`, 200 for a ServiceAccount bound to `kueue-metrics-reader`; plain HTTP only on
//!   loopback.
#![cfg(feature = "cli")]

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::https::https_get;
use kube::api::Api;
use kubectl_kueue::api::ClusterQueue;

const T: Duration = Duration::from_secs(60);
const ALICE: &str = "alice";
const CONTROLLER_USER: &str = "system:serviceaccount:kueue-system:kubectl-kueue-controller";

/// `kubectl --as USER ARGS` with `stdin`: (success, stdout + stderr).
fn kubectl_as(cluster: &Cluster, user: &str, args: &[&str], stdin: &str) -> (bool, String) {
    let mut child = cluster
        .kubectl()
        .arg(format!("--as={user}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn job(name: &str, ns: &str, queue: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  labels: {{kueue.x-k8s.io/queue-name: {queue:?}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: training:latest
        resources:
          requests: {{nvidia.com/gpu: 1}}
"
    )
}

/// Jobs in team-a, and nothing else anywhere.
const ALICE_RBAC: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: job-submitter, namespace: team-a}
rules:
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-submits-jobs, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: job-submitter}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
";

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_a_user_gets_no_team_b_quota_and_no_secret_is_logged() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let seed = repo_path("examples/gpu-two-teams");
    for part in ["namespaces.yaml", "priorities.yaml", "setup.yaml"] {
        kubectl(
            &cluster,
            &["apply", "-f", seed.join(part).to_str().unwrap()],
        );
    }
    crate::support::apply::apply_yaml(&client, ALICE_RBAC, "team-a")
        .await
        .unwrap();

    let token = controller_token(&cluster);
    let kubeconfig = kubeconfig_with_token(&cluster, &token);
    let mut ctl = start_controller_logging(
        &cluster,
        "controller-trace",
        kubeconfig.path(),
        &["-vvv"],
        "trace",
    );
    ctl.wait_ready(T);

    // Straight at team-b, or around it through objects alice may not create.
    let forbidden = |what: &str, manifest: &str| {
        let (ok, out) = kubectl_as(&cluster, ALICE, &["create", "-f", "-"], manifest);
        assert!(!ok && out.contains("forbidden"), "{what}: {out}");
        assert!(
            out.contains("User \"alice\" cannot create resource"),
            "{what}: {out}"
        );
    };
    forbidden(
        "a Job in team-b",
        &job("sneaky", "team-b", "training-queue"),
    );
    forbidden(
        "a Workload in team-b",
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: sneaky, namespace: team-b}
spec:
  queueName: training-queue
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 1}}}]}}
",
    );
    forbidden(
        "a LocalQueue in team-a pointing at team-b's ClusterQueue",
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-b-queue, namespace: team-a}
spec: {clusterQueue: team-b-queue}
",
    );
    // A queue name cannot leave the Job's namespace.
    let (ok, out) = kubectl_as(
        &cluster,
        ALICE,
        &["create", "-f", "-"],
        &job("cross-namespace", "team-a", "team-b/training-queue"),
    );
    assert!(!ok && out.contains("metadata.labels"), "{out}");

    // From team-a, with team-b's names: nothing reserves team-b's quota.
    for (name, queue) in [("own", "training-queue"), ("named-like-b", "team-b-queue")] {
        let (ok, out) = kubectl_as(
            &cluster,
            ALICE,
            &["create", "-f", "-"],
            &job(name, "team-a", queue),
        );
        assert!(ok, "alice may create Jobs in team-a: {out}");
    }
    let admitted = eventually(Some(&cluster), T, "alice's own Job admitted", || async {
        workloads(&client, "team-a")
            .await
            .into_iter()
            .find(|w| job_name(w) == "own" && holds_quota(w))
    })
    .await;
    assert_eq!(
        admitted.status.unwrap().admission.unwrap().cluster_queue,
        "team-a-queue"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    for w in workloads(&client, "team-a").await {
        if job_name(&w) == "named-like-b" {
            assert!(
                !holds_quota(&w),
                "a Job naming no LocalQueue of team-a waits"
            );
        }
    }
    let team_b = Api::<ClusterQueue>::all(client.clone())
        .get("team-b-queue")
        .await
        .unwrap();
    let status = team_b.status.unwrap_or_default();
    assert_eq!(
        (status.admitted_workloads, status.reserving_workloads),
        (0, 0),
        "team-b's quota is untouched"
    );

    // The controller read upstream's Deployment by name and needed nothing else.
    let by_name = [
        "get",
        "deployments",
        "-A",
        "--field-selector",
        "metadata.name=kueue-controller-manager",
    ];
    let (ok, out) = kubectl_as(&cluster, CONTROLLER_USER, &by_name, "");
    assert!(ok, "the upstream check is allowed: {out}");
    let (ok, out) = kubectl_as(&cluster, CONTROLLER_USER, &["get", "deployments", "-A"], "");
    assert!(
        !ok && out.contains("forbidden"),
        "other Deployments are not: {out}"
    );
    assert_eq!(
        kubectl_kueue::manifests::install::UPSTREAM_DEPLOYMENT,
        kubectl_kueue::kube::lease::UPSTREAM_DEPLOYMENT,
        "the role names the Deployment the check reads"
    );

    let log = ctl.log();
    assert!(
        log.contains("TRACE"),
        "the controller logged at trace level"
    );
    assert!(
        !log.contains("forbidden") && !log.contains("Forbidden"),
        "a permission is missing:\n{}",
        log.lines()
            .filter(|l| l.contains("orbidden"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The whole token, and its signature alone (a JWT's last part), appear nowhere.
    let signature = token.rsplit('.').next().unwrap();
    assert!(signature.len() > 20);
    for secret in [token.as_str(), signature] {
        assert!(
            !log.contains(secret),
            "the controller's token is in its log:\n{}",
            log.lines()
                .filter(|l| l.contains(secret))
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    assert!(
        !log.contains("Bearer "),
        "an Authorization header is in the log"
    );
    ctl.proc.kill();
}

#[test]
fn plain_http_metrics_are_refused_off_loopback() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .args([
            "run-controller",
            "--metrics-insecure",
            "--metrics-bind-address",
            ":8080",
        ])
        .env("KUBECONFIG", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("only on a loopback address") && stderr.contains("0.0.0.0:8080"),
        "{stderr}"
    );
}

/// The reader and a ServiceAccount without the role, in namespace monitoring: their tokens.
fn scrapers(cluster: &Cluster) -> (String, String) {
    kubectl(cluster, &["create", "namespace", "monitoring"]);
    for sa in ["prometheus", "nobody"] {
        kubectl(
            cluster,
            &["create", "serviceaccount", sa, "-n", "monitoring"],
        );
    }
    kubectl(
        cluster,
        &[
            "create",
            "clusterrolebinding",
            "prometheus-reads-kueue-metrics",
            "--clusterrole=kueue-metrics-reader",
            "--serviceaccount=monitoring:prometheus",
        ],
    );
    let token = |sa: &str| {
        kubectl(cluster, &["create", "token", sa, "-n", "monitoring"])
            .trim()
            .to_string()
    };
    (token("prometheus"), token("nobody"))
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_https_behind_token_and_access_reviews() {
    let cluster = ClusterBuilder::apiserver().start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let (reader, nobody) = scrapers(&cluster);
    let kubeconfig = kubeconfig_with_token(&cluster, &controller_token(&cluster));
    let mut ctl = start_controller_process(
        &cluster,
        "controller-https",
        kubeconfig.path(),
        &[],
        "info,kubectl_kueue=debug",
        false,
    );
    ctl.wait_ready(T);
    let port = ctl.metrics_port;

    assert!(
        http_get(port, "/metrics").is_none_or(|(code, _)| code != 200),
        "no plain HTTP on the metrics port"
    );
    let get = |token: Option<&str>| https_get(port, "/metrics", token, None).unwrap();
    assert_eq!(
        get(None),
        (401, "Unauthorized".to_string()),
        "anonymous is off"
    );
    assert_eq!(get(Some("not-a-token")).0, 401);
    let (code, body) = get(Some(&nobody));
    assert_eq!(
        (code, body.as_str()),
        (
            403,
            "Authorization denied for user system:serviceaccount:monitoring:nobody"
        )
    );
    let (code, body) = get(Some(&reader));
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("# TYPE kueue_build_info gauge\nkueue_build_info{"),
        "the metrics text: {body}"
    );
    // Cached answers give the same result.
    assert_eq!(get(Some(&nobody)).0, 403);
    assert_eq!(get(Some(&reader)).0, 200);
    let log = ctl.log();
    assert!(
        log.contains("self-signed certificate generated in memory"),
        "{log}"
    );
    assert!(
        !log.contains(&reader) && !log.contains(&nobody),
        "a token is in the log"
    );
    ctl.proc.kill();

    // A mounted certificate (here the API server's, for localhost, from the test CA).
    let pki = cluster.log_dir().parent().unwrap().join("pki");
    let certs = tempfile::tempdir().unwrap();
    std::fs::copy(pki.join("apiserver.crt"), certs.path().join("tls.crt")).unwrap();
    std::fs::copy(pki.join("apiserver.key"), certs.path().join("tls.key")).unwrap();
    let dir = certs.path().to_str().unwrap();
    let mut ctl = start_controller_process(
        &cluster,
        "controller-cert-dir",
        kubeconfig.path(),
        &["--metrics-cert-dir", dir],
        "info",
        false,
    );
    ctl.wait_ready(T);
    let ca = pki.join("ca.crt");
    let (code, body) = https_get(ctl.metrics_port, "/metrics", Some(&reader), Some(&ca)).unwrap();
    assert_eq!(code, 200, "verified against the CA: {body}");
    ctl.proc.kill();
}
