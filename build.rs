//! Build-time settings for the test binary: `KUEUE_SKIP_CLUSTER_TESTS=1` (see
//! `scripts/test.sh`) compiles the tests that need the test control plane as ignored, so a run
//! without one reports them as skipped ("ignored") rather than as passed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(skip_cluster_tests)");
    println!("cargo::rerun-if-env-changed=KUEUE_SKIP_CLUSTER_TESTS");
    println!("cargo::rerun-if-changed=build.rs");
    let skip = std::env::var("KUEUE_SKIP_CLUSTER_TESTS").is_ok_and(|v| !v.is_empty() && v != "0");
    if skip {
        println!("cargo::rustc-cfg=skip_cluster_tests");
    }
}
