//! Client timeouts on a real API server behind a proxy that black-holes everything (a stalled
//! API server, as the client sees it): a command fails within its timeout, with a clear
//! message and a non-zero exit, instead of hanging; with the proxy forwarding, the same
//! command works.
#![cfg(feature = "cli")]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::cluster::shared_apiserver;
use crate::support::controller::with_server;
use crate::support::proxy::Proxy;

fn list(kubeconfig: &std::path::Path) -> (std::process::Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .args(["list", "clusterqueues", "--kubeconfig"])
        .arg(kubeconfig)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("run kubectl-kueue");
    (out, started.elapsed())
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[test]
fn a_command_against_a_stalled_api_server_fails_within_its_timeout() {
    let cluster = shared_apiserver();
    let upstream = cluster
        .server_url()
        .trim_start_matches("https://")
        .to_string();
    let proxy = Proxy::start(&upstream);
    let kubeconfig = with_server(cluster, None, Some(&proxy.url()));

    let (out, _) = list(kubeconfig.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The CRDs may not be installed on the shared cluster: either way the server answered.
    assert!(
        out.status.success() || stderr.contains("404"),
        "through the proxy: {stderr}"
    );

    proxy.pause();
    let (out, took) = list(kubeconfig.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a stalled API server is an error");
    assert!(
        took < Duration::from_secs(25),
        "failed after {took:?}, not within the connect timeout: {stderr}"
    );
    eprintln!("stalled API server: failed after {took:?}: {stderr}");
    assert!(
        stderr.contains("timed out") && stderr.contains(&proxy.url()),
        "the message says what happened and where: {stderr}"
    );
}

/// The controller's side: a leader whose API server stalls (every request hangs, renewals
/// included) does not hang with it: its lock requests time out and it exits 1 within the
/// renew deadline.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_behind_a_stalled_api_server_exits_within_its_renew_deadline() {
    use crate::support::controller::{repo_path, start_controller_with};
    use k8s_openapi::api::coordination::v1::Lease;
    let cluster = crate::support::cluster::ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    crate::support::apply::apply_yaml(
        &client,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: kueue-system}\n",
        "default",
    )
    .await
    .unwrap();
    let upstream = cluster
        .server_url()
        .trim_start_matches("https://")
        .to_string();
    let proxy = Proxy::start(&upstream);
    let kubeconfig = with_server(&cluster, None, Some(&proxy.url()));
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
    let mut ctl = start_controller_with(
        &cluster,
        "stalled",
        kubeconfig.path(),
        &["--config", config.path().to_str().unwrap()],
    );
    crate::support::eventually(
        Some(&cluster),
        Duration::from_secs(30),
        "it leads",
        || async {
            let lease = kube::Api::<Lease>::namespaced(client.clone(), "kueue-system")
                .get_opt("c1f6bfd2.kueue.x-k8s.io")
                .await
                .ok()??;
            lease
                .spec?
                .holder_identity
                .filter(|h| h.starts_with("kubectl-kueue-stalled"))
        },
    )
    .await;
    proxy.pause();
    let paused = Instant::now();
    let status = ctl
        .wait_exit(Duration::from_secs(30))
        .expect("a leader behind a stalled API server exits");
    let took = paused.elapsed();
    assert_eq!(status.code(), Some(1), "{}", ctl.log());
    assert!(ctl.log().contains("leader election lost"), "{}", ctl.log());
    assert!(
        took < Duration::from_secs(8),
        "exited {took:?} after the API server stalled (renew deadline 4s)"
    );
    eprintln!("stalled leader exited after {took:?}");
}
