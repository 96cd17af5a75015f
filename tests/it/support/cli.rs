//! The `kubectl-kueue` binary run offline, as the CLI tests use it: no cluster reachable (no
//! KUBECONFIG, no in-cluster variables, an empty HOME so there is no ~/.kube/config), no
//! colors, no RUST_LOG, and a fixed terminal width so wrapped help is stable.

use assert_cmd::Command;

/// `kubectl-kueue` with the clean environment above; add args and run it.
pub fn kueue() -> Command {
    Command::from_std(kueue_process())
}

/// The same as a plain process, for tests that handle its pipes themselves.
pub fn kueue_process() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-kueue"));
    let home = std::env::temp_dir().join("kubectl-kueue-no-home");
    std::fs::create_dir_all(&home).expect("an empty HOME for the CLI tests");
    c.env_remove("KUBECONFIG")
        .env_remove("RUST_LOG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100");
    c
}

/// What a run printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `kubectl-kueue ARGS` offline.
pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let out = kueue().args(args).output().expect("run kubectl-kueue");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
