//! The Configuration's leader-election timings, checked before anything connects: client-go's
//! rules, with the file and the field in the message, exit 1.
#![cfg(feature = "cli")]

use std::process::Command;

fn run_controller(config: &str) -> (Option<i32>, String) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), config).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .args(["run-controller", "--config"])
        .arg(file.path())
        // Nothing to connect to: the check must come first.
        .args(["--kubeconfig", "/nonexistent"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (
        out.status.code(),
        stderr.replace(&file.path().display().to_string(), "FILE"),
    )
}

#[test]
fn bad_leader_election_timings_are_refused_naming_the_field() {
    let cfg = |lease: &str, renew: &str, retry: &str| {
        format!(
            "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
leaderElection:
  leaderElect: true
  leaseDuration: {lease}
  renewDeadline: {renew}
  retryPeriod: {retry}
"
        )
    };
    let (code, err) = run_controller(&cfg("10s", "10s", "2s"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("FILE: leaderElection.leaseDuration (10s) must be greater than leaderElection.renewDeadline (10s)"),
        "{err}"
    );
    let (code, err) = run_controller(&cfg("15s", "2s", "2s"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("FILE: leaderElection.renewDeadline (2s) must be greater than leaderElection.retryPeriod (2s) × 1.2"),
        "{err}"
    );
}
