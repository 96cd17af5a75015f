//! A `run-controller` started without `--leader-elect` (from a laptop, say) next to one of
//! ours that leads (the Deployment): it refuses to start, naming the holder and the Lease,
//! and starts once the Lease is handed back. (Upstream Kueue's Lease and Deployment are
//! still refused as before: `e2e_leader`.)
#![cfg(feature = "cli")]

use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;

use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;

const T: Duration = Duration::from_secs(30);

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_controller_without_leader_election_refuses_to_run_next_to_a_leader() {
    let cluster = ClusterBuilder::apiserver().start();
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
    let mut deployment = start_controller(&cluster, "in-cluster", &["--leader-elect"]);
    let holder = eventually(
        Some(&cluster),
        T,
        "the Deployment's replica leads",
        || async {
            Api::<Lease>::namespaced(client.clone(), "kueue-system")
                .get_opt("c1f6bfd2.kueue.x-k8s.io")
                .await
                .ok()??
                .spec?
                .holder_identity
                .filter(|h| h.starts_with("kubectl-kueue-in-cluster"))
        },
    )
    .await;

    let mut laptop = start_controller(&cluster, "laptop", &[]);
    let status = laptop.wait_exit(T).expect("the laptop controller exits");
    assert_eq!(status.code(), Some(1), "{}", laptop.log());
    let log = laptop.log();
    assert!(
        log.contains(&format!(
            "another kubectl-kueue controller ({holder}) holds lease kueue-system/c1f6bfd2.kueue.x-k8s.io, renewed "
        )),
        "{log}"
    );
    assert!(
        log.contains("s ago; pass --leader-elect to join as a follower, or stop it first"),
        "{log}"
    );
    assert!(deployment.proc.exited().is_none(), "the leader runs on");

    // Stopped cleanly, the leader hands the Lease back: now the laptop may run.
    deployment.signal(libc::SIGTERM);
    assert!(deployment.wait_exit(T).is_some_and(|s| s.success()));
    let mut laptop = start_controller(&cluster, "laptop-2", &[]);
    laptop.wait_ready(T);
    assert!(laptop.proc.exited().is_none());
}
