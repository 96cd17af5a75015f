//! Where the control-plane binaries are: the one place that decides it.
//!
//! `KUEUE_TESTENV_BIN` (a directory of prebuilt binaries) wins; otherwise the cache entry that
//! `scripts/testenv.sh` builds, `${KUEUE_TESTENV_CACHE:-${XDG_CACHE_HOME:-~/.cache}/kubectl-kueue/testenv}/<versions>/bin`,
//! with `<versions>` read from the pins in `testenv/*/go.mod` exactly as the script reads them.
//! A missing binary is a test failure that says to run the script; the only way to skip the
//! cluster tests is `KUEUE_SKIP_CLUSTER_TESTS=1`.

use std::path::{Path, PathBuf};

const KUBERNETES_GO_MOD: &str = include_str!("../../../testenv/kubernetes/go.mod");
const ETCD_GO_MOD: &str = include_str!("../../../testenv/etcd/go.mod");
const KWOK_GO_MOD: &str = include_str!("../../../testenv/kwok/go.mod");

pub const ALL: [&str; 6] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubectl",
    "kwok",
];

/// The version of `module` pinned in a go.mod (`require module vX` or a line in a require block).
fn pinned(go_mod: &str, module: &str) -> String {
    for line in go_mod.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["require", m, v, ..] if *m == module => return v.to_string(),
            [m, v, ..] if *m == module => return v.to_string(),
            _ => {}
        }
    }
    panic!("testenv: {module} is not pinned in its testenv/*/go.mod")
}

/// The Kubernetes release the test clusters run, e.g. `v1.36.3`.
pub fn kubernetes_version() -> String {
    pinned(KUBERNETES_GO_MOD, "k8s.io/kubernetes")
}

pub fn etcd_version() -> String {
    pinned(ETCD_GO_MOD, "go.etcd.io/etcd/server/v3")
}

pub fn kwok_version() -> String {
    pinned(KWOK_GO_MOD, "sigs.k8s.io/kwok")
}

fn cache_entry() -> PathBuf {
    let cache = match std::env::var_os("KUEUE_TESTENV_CACHE") {
        Some(c) if !c.is_empty() => PathBuf::from(c),
        _ => {
            let base = match std::env::var_os("XDG_CACHE_HOME") {
                Some(x) if !x.is_empty() => PathBuf::from(x),
                _ => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache"),
            };
            base.join("kubectl-kueue").join("testenv")
        }
    };
    cache.join(format!(
        "k8s-{}_etcd-{}_kwok-{}",
        kubernetes_version(),
        etcd_version(),
        kwok_version()
    ))
}

/// The directory holding all of [`ALL`]; panics with what to do when it is incomplete.
pub fn bin_dir() -> PathBuf {
    let (dir, origin) = match std::env::var_os("KUEUE_TESTENV_BIN") {
        Some(d) if !d.is_empty() => (PathBuf::from(d), "KUEUE_TESTENV_BIN"),
        _ => {
            let entry = cache_entry();
            if !entry.join(".complete").is_file() {
                panic!(
                    "testenv: the control-plane binaries are not built ({} has no .complete stamp).\n\
                     Run `scripts/testenv.sh` (a cold build takes a long while; see README), or set \
                     KUEUE_TESTENV_BIN to a directory with {}, or set KUEUE_SKIP_CLUSTER_TESTS=1 to \
                     skip the tests that need a cluster.",
                    entry.display(),
                    ALL.join(", ")
                );
            }
            (entry.join("bin"), "the testenv cache")
        }
    };
    for b in ALL {
        if !is_executable(&dir.join(b)) {
            panic!(
                "testenv: {} ({origin}) has no executable `{b}`. Run `scripts/testenv.sh` to build the \
                 control plane, or set KUEUE_SKIP_CLUSTER_TESTS=1 to skip the tests that need a cluster.",
                dir.display()
            );
        }
    }
    dir
}

/// The path of one control-plane binary (`"kubectl"`, `"kube-apiserver"`, ...).
pub fn binary(name: &str) -> PathBuf {
    bin_dir().join(name)
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
