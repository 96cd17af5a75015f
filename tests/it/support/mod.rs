//! What the tests share, in one place:
//!
//! - [`engine`]: small fluent builders for engine table tests (a cluster picture in a few
//!   lines, run to a fixpoint).
//! - [`cli`]: the offline runner of the `kubectl-kueue` binary (no cluster, no colors, a fixed
//!   width).
//! - the control-plane harness, a real Kubernetes control plane (etcd, kube-apiserver and, in
//!   "full" mode, kube-controller-manager, kube-scheduler and kwok) on 127.0.0.1, built by
//!   `scripts/testenv.sh`: [`cluster`] (`shared_apiserver()` / `shared_full()`, one per test
//!   binary, `ClusterBuilder` for a private cluster, the [`cluster::Cluster`] handle: client,
//!   kubeconfig, kubectl, namespaces, logs), [`kwok`] (fake nodes and pod timing
//!   annotations), [`apply`] (apply YAML / install CRDs), [`binaries`] (where the binaries are),
//!   [`process`] (child processes that die with the test process), [`pki`].
//! - [`live`]: the live CLI fixture (`kubectl kueue ...` through kubectl against a test cluster,
//!   Kueue objects made directly with the status a controller would write).
//! - [`controller`]: `kubectl-kueue run-controller` as a separate process, its /metrics, and a
//!   monitor that checks every 100 ms that admitted usage stays within the quotas.
//! - [`invariants`]: the invariant checker (quotas, pods only with admission, one Workload per
//!   Job, no double admission, namespace selectors, admissions lost only by eviction) and the
//!   fault tests' final check (every Job ran to completion exactly once).
//! - [`image`]: the controller image built by `scripts/image.sh` and unpacked; [`pod`]: a
//!   kubelet stand-in that runs a pod template's container from that root filesystem.
//!
//! A test that needs the control plane carries
//! `#[cfg_attr(skip_cluster_tests, ignore = "...")]` (see `build.rs`), so with
//! `KUEUE_SKIP_CLUSTER_TESTS=1` it is reported as ignored, never as passed:
//!
//! ```ignore
//! #[cfg_attr(skip_cluster_tests, ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)")]
//! #[tokio::test]
//! async fn my_test() {
//!     let cluster = crate::support::cluster::shared_full();
//!     let ns = cluster.new_namespace("my-test").await;
//!     crate::support::apply::apply_yaml(&cluster.client(), "...", &ns).await.unwrap();
//! }
//! ```
#![allow(dead_code)]
// Signals and the parent-death signal for child processes need libc calls.
#![allow(unsafe_code)]

pub mod engine;
pub mod shape;

#[cfg(feature = "cli")]
pub mod apply;
#[cfg(feature = "cli")]
pub mod binaries;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod cluster;
#[cfg(feature = "cli")]
pub mod controller;
#[cfg(feature = "cli")]
pub mod https;
#[cfg(feature = "cli")]
pub mod image;
#[cfg(feature = "cli")]
pub mod invariants;
#[cfg(feature = "cli")]
pub mod kwok;
#[cfg(feature = "cli")]
pub mod live;
#[cfg(feature = "cli")]
pub mod pki;
#[cfg(feature = "cli")]
pub mod pod;
#[cfg(feature = "cli")]
pub mod process;
#[cfg(feature = "cli")]
pub mod proxy;

/// The configuration of every property test here: `cases` cases from a fixed seed, so a
/// run is repeatable and CI does not pass or fail by luck. `PROPTEST_CASES` and
/// `PROPTEST_RNG_SEED` override them (a long run, a fresh seed, or a failing seed replayed);
/// cases saved in `tests/proptest-regressions/` run first either way.
pub fn property_config(cases: u32) -> proptest::test_runner::Config {
    let d = proptest::test_runner::Config::default();
    proptest::test_runner::Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            d.cases
        } else {
            cases
        },
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            d.rng_seed
        } else {
            proptest::test_runner::RngSeed::Fixed(11)
        },
        ..d
    }
}

/// The repository root (for reading `examples/...`).
pub fn repo_root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[cfg(feature = "cli")]
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
