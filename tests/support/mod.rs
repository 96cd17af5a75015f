//! Test harness: a real Kubernetes control plane (etcd, kube-apiserver and, in "full" mode,
//! kube-controller-manager, kube-scheduler and kwok) on 127.0.0.1, built by `scripts/testenv.sh`.
//!
//! Include it from a test file with `mod support;`. Typical use:
//!
//! ```ignore
//! mod support;
//! use support::cluster::shared_full;
//!
//! #[tokio::test]
//! async fn my_test() {
//!     let Some(cluster) = shared_full() else { return }; // None only with KUEUE_SKIP_CLUSTER_TESTS=1
//!     let ns = cluster.new_namespace("my-test").await;
//!     let client = cluster.client();
//!     support::apply::apply_yaml(&client, "...", &ns).await.unwrap();
//!     let out = cluster.kubectl().args(["kueue", "status", "-n", &ns]).output().unwrap();
//! }
//! ```
//!
//! - [`cluster`]: `shared_apiserver()` / `shared_full()` (one per test binary), `ClusterBuilder` for a
//!   private cluster, and the [`cluster::Cluster`] handle (client, kubeconfig, kubectl, namespaces, logs).
//! - [`kwok`]: fake nodes ([`kwok::FakeNode`]) and the pod timing annotations.
//! - [`apply`]: apply YAML / install CRDs through kube-rs.
//! - [`binaries`]: where the binaries are (`KUEUE_TESTENV_BIN` overrides the cache) and the pinned versions.
//! - [`process`]: child processes that die with the test process.
#![allow(dead_code)]

pub mod apply;
pub mod binaries;
pub mod cluster;
pub mod kwok;
pub mod pki;
pub mod process;

/// The repository root (for reading `examples/...`).
pub fn repo_root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Polls an async condition every 100 ms until it returns `Some`, or panics after `timeout` with
/// `what` and, when given, the cluster's log tails.
pub async fn eventually<T, F, Fut>(
    cluster: Option<&cluster::Cluster>,
    timeout: std::time::Duration,
    what: &str,
    mut f: F,
) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(v) = f().await {
            return v;
        }
        if std::time::Instant::now() > deadline {
            if let Some(c) = cluster {
                c.print_logs(30);
            }
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
