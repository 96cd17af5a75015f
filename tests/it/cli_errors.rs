//! Exit codes and messages of the cluster commands when the command line or the files are
//! wrong, checked before any cluster is contacted (2: usage, 1: error), and the message when
//! there is no cluster to talk to.
#![cfg(feature = "cli")]

use predicates::prelude::*;

use crate::support::cli::kueue;

fn fails(args: &[&str], code: i32, message: &str) {
    kueue()
        .args(args)
        .assert()
        .code(code)
        .stderr(predicate::str::contains(message));
}

#[test]
fn usage_errors_exit_2() {
    fails(
        &["create", "cq", "x", "--queuing-strategy", "Fastest"],
        2,
        "invalid value 'Fastest' for '--queuing-strategy <STRATEGY>'",
    );
    fails(
        &["create", "cq", "x", "--reclaim-within-cohort", "Always"],
        2,
        "invalid value 'Always'",
    );
    fails(
        &["create", "lq", "training"],
        2,
        "--clusterqueue <CLUSTER_QUEUE_NAME>",
    );
    fails(&["create", "wpc", "prod"], 2, "--value <VALUE>");
    fails(&["stop", "cq"], 2, "<NAME>");
    fails(
        &["list", "workload", "--status", "sleeping"],
        2,
        "invalid value 'sleeping' for '--status <STATUS>'",
    );
    fails(
        &["list", "cq", "--active", "maybe"],
        2,
        "invalid value 'maybe'",
    );
    fails(&["status", "-o", "xml"], 2, "invalid value 'xml'");
    fails(
        &["submit", "--wait=sometimes"],
        2,
        "invalid value 'sometimes' for '--wait[=<STATE>]'",
    );
    fails(
        &["submit", "--timeout", "10x"],
        2,
        "is not a duration such as 90s",
    );
    fails(
        &["submit", "-f", "job.yaml", "--image", "busybox"],
        2,
        "cannot be used with",
    );
    fails(
        &["completion", "powershell"],
        2,
        "invalid value 'powershell'",
    );
    fails(&["frobnicate"], 2, "unrecognized subcommand 'frobnicate'");
}

#[test]
fn bad_values_exit_1_naming_the_flag_before_contacting_a_cluster() {
    fails(
        &["create", "cq", "x", "--nominal-quota", "gpu-a100"],
        1,
        "--nominal-quota \"gpu-a100\": expected FLAVOR:RESOURCE=QUANTITY",
    );
    fails(
        &[
            "create",
            "cq",
            "x",
            "--nominal-quota",
            "gpu-a100:nvidia.com/gpu=-1",
        ],
        1,
        "must not be negative",
    );
    fails(
        &[
            "create",
            "cq",
            "x",
            "--nominal-quota",
            "a:cpu=1",
            "--lending-limit",
            "a:cpu=1",
        ],
        1,
        "add --cohort NAME",
    );
    fails(
        &["create", "rf", "x", "--node-taints", "spot"],
        1,
        "--node-taints \"spot\": expected KEY[=VALUE]:EFFECT",
    );
    fails(
        &["create", "rf", "x", "--node-labels", "gpu"],
        1,
        "--node-labels \"gpu\": \"gpu\" is not KEY=VALUE",
    );
    fails(
        &["delete", "workload"],
        1,
        "name the Workloads to delete, or pass --all",
    );
    fails(&["delete", "workload", "a", "--all"], 1, "not both");
    fails(
        &["submit"],
        1,
        "nothing to submit: give -f JOB.yaml, or --image IMAGE",
    );
    fails(
        &[
            "submit",
            "-f",
            "examples/gpu-two-teams/jobs/weekly-retrain.yaml",
            "--gpus",
            "1",
        ],
        1,
        "--gpus builds a Job from flags and needs --image",
    );
    fails(
        &["submit", "--image", "busybox"],
        1,
        "has no queue: pass --queue LOCALQUEUE",
    );
    fails(
        &[
            "submit", "--image", "busybox", "--queue", "q", "--cpu", "lots",
        ],
        1,
        "--cpu \"lots\"",
    );
    fails(
        &["submit", "-f", "tests/fixtures/bad/no-such-job.yaml"],
        1,
        "cannot read tests/fixtures/bad/no-such-job.yaml",
    );
    fails(
        &["submit", "-f", "examples/gpu-two-teams/setup.yaml"],
        1,
        "examples/gpu-two-teams/setup.yaml: document 1: kueue.x-k8s.io/v1beta1 ResourceFlavor: submit takes batch/v1 Jobs only",
    );
    fails(
        &["submit", "-f", "tests/fixtures/bad/bad-yaml.yaml"],
        1,
        "tests/fixtures/bad/bad-yaml.yaml: document 1: invalid YAML",
    );
}

#[test]
fn no_cluster_is_a_clear_error() {
    for args in [
        &["status"][..],
        &["list", "cq"],
        &["stop", "cq", "x"],
        &["create", "cq", "x"],
    ] {
        kueue()
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with(
                "error: no cluster to talk to: set --kubeconfig or KUBECONFIG",
            ));
    }
    fails(
        &["status", "--kubeconfig", "/no/such/kubeconfig"],
        1,
        "cannot read kubeconfig /no/such/kubeconfig",
    );
    // Client-side dry runs need no cluster.
    kueue()
        .args([
            "create",
            "cq",
            "x",
            "--nominal-quota",
            "a:cpu=1",
            "--dry-run",
        ])
        .assert()
        .success()
        .stdout("clusterqueue.kueue.x-k8s.io/x created (dry run)\n");
}

#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    // `kubectl kueue install --print | head -1`: the reader goes away while ~300 KB are still
    // to be written. kubectl ends quietly; so do we (no panic, no error, exit 0).
    for args in [
        &["install", "--print"][..],
        &["simulate", "-o", "yaml"][..],
        &["completion", "bash"][..],
    ] {
        let mut child = crate::support::cli::kueue_process()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run kubectl-kueue");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("kubectl-kueue ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("error"),
            "{args:?}: {stderr}"
        );
    }
}
