//! `kubectl kueue simulate` as a user runs it, offline: table output on the example
//! scenarios (clock pinned) as snapshots, and exit codes and messages for bad flags and bad
//! files (tests/fixtures/bad/): every input error names the file, the document, the object
//! and the field; problems a cluster would accept (unknown flavor, missing LocalQueue, other
//! kinds) are reasons or warnings, not errors.
#![cfg(feature = "cli")]

use predicates::prelude::*;

const NOW: &str = "2025-07-22T09:00:00Z";
const SEED: [&str; 3] = [
    "examples/gpu-two-teams/namespaces.yaml",
    "examples/gpu-two-teams/priorities.yaml",
    "examples/gpu-two-teams/setup.yaml",
];
const MONDAY: &str = "examples/gpu-two-teams/monday/running.yaml";
const RETRAIN: &str = "examples/gpu-two-teams/jobs/weekly-retrain.yaml";
const EXPERIMENT: &str = "examples/gpu-two-teams/jobs/experiment-42.yaml";

use crate::support::cli::kueue;

/// `simulate --now NOW -f F...` plus `extra`; stdout of a successful run.
fn simulate(files: &[&str], extra: &[&str]) -> String {
    let mut c = kueue();
    c.args(["simulate", "--now", NOW]);
    for f in files {
        c.args(["-f", f]);
    }
    c.args(extra);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "simulate {files:?} {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn seed_with(more: &[&'static str]) -> Vec<&'static str> {
    SEED.iter().copied().chain(more.iter().copied()).collect()
}

#[test]
fn embedded_seed_scenario() {
    let out = kueue().args(["simulate", "--now", NOW]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("embedded seed scenario"));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // The embedded scenario is the seed's files.
    assert_eq!(stdout, simulate(&seed_with(&[MONDAY, RETRAIN]), &[]));
    insta::assert_snapshot!(stdout);
}

#[test]
fn tuesday_with_a_new_experiment_too() {
    insta::assert_snapshot!(simulate(&seed_with(&[MONDAY, RETRAIN, EXPERIMENT]), &[]));
}

#[test]
fn what_if_team_b_had_six_gpus() {
    insta::assert_snapshot!(simulate(
        &seed_with(&[MONDAY, RETRAIN]),
        &[
            "--set",
            "cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6"
        ]
    ));
}

#[test]
fn monday_morning_from_jobs_only_wide() {
    // No running workloads yet: both jobs fit within the cohort.
    insta::assert_snapshot!(simulate(
        &seed_with(&[RETRAIN, EXPERIMENT]),
        &["-o", "wide"]
    ));
}

#[test]
fn no_headers_drops_every_header_line() {
    let with = simulate(&seed_with(&[MONDAY, RETRAIN]), &[]);
    let without = simulate(&seed_with(&[MONDAY, RETRAIN]), &["--no-headers"]);
    assert!(with.contains("CLUSTERQUEUE   COHORT"));
    assert!(
        !without.contains("CLUSTERQUEUE   COHORT") && !without.contains("WORKLOAD   "),
        "{without}"
    );
    assert_eq!(
        without
            .lines()
            .filter(|l| l.contains("job-experiment-7"))
            .count(),
        with.lines()
            .filter(|l| l.contains("job-experiment-7"))
            .count()
    );
}

#[test]
fn mixed_flavors_scenario() {
    let files = [
        "tests/fixtures/explain/mixed-flavors.yaml",
        "tests/fixtures/explain/mixed-queues.yaml",
        "tests/fixtures/explain/mixed-jobs.yaml",
    ];
    insta::assert_snapshot!(simulate(&files, &[]));
}

#[test]
fn name_output_lists_every_object() {
    let out = simulate(&seed_with(&[MONDAY, RETRAIN]), &["-o", "name"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("workload.kueue.x-k8s.io/job-weekly-retrain-")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l == "clusterqueue.kueue.x-k8s.io/team-a-queue"),
        "{out}"
    );
}

const BAD: &str = "tests/fixtures/bad";

/// (file, document, object, field) every error message must name.
const INPUT_ERRORS: &[(&str, usize, &str, &str)] = &[
    ("bad-yaml.yaml", 1, "", "line 8, column 6"),
    (
        "wrong-type.yaml",
        2,
        "ClusterQueue team-a-queue",
        "spec.resourceGroups[0].coveredResources",
    ),
    (
        "bad-quantity.yaml",
        1,
        "ClusterQueue team-a-queue",
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
    ),
    (
        "negative-quota.yaml",
        1,
        "ClusterQueue team-a-queue",
        "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota",
    ),
    (
        "borrowing-without-cohort.yaml",
        1,
        "ClusterQueue team-b-queue",
        "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit",
    ),
    (
        "lending-over-nominal.yaml",
        1,
        "ClusterQueue team-b-queue",
        "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
    ),
    (
        "duplicate.yaml",
        2,
        "ClusterQueue team-a-queue",
        "document 1",
    ),
    ("missing-name.yaml", 1, "ResourceFlavor", "metadata.name"),
    (
        "missing-kind.yaml",
        1,
        "(object team-a-queue): kind: required field is missing",
        "kind",
    ),
    (
        "covered-mismatch.yaml",
        1,
        "ClusterQueue team-a-queue",
        "spec.resourceGroups[0].flavors[0].resources",
    ),
    (
        "resource-in-two-groups.yaml",
        1,
        "ClusterQueue team-a-queue",
        "spec.resourceGroups[1].coveredResources",
    ),
    (
        "bad-operator.yaml",
        1,
        "ClusterQueue team-a-queue",
        "spec.namespaceSelector.matchExpressions[0].operator",
    ),
    (
        "job-bad-request.yaml",
        1,
        "Job team-a/experiment-9",
        "spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]",
    ),
];

#[test]
fn bad_files_exit_1_naming_file_document_object_and_field() {
    let mut report = String::new();
    for (file, doc, object, field) in INPUT_ERRORS {
        let path = format!("{BAD}/{file}");
        let out = kueue()
            .args([
                "simulate",
                "--now",
                NOW,
                "-f",
                &format!("{BAD}/base.yaml"),
                "-f",
                &path,
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{file}: nothing is half-printed, got {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let line = stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("{file}: no error line in {stderr}"));
        let at = format!("error: {path}: document {doc}");
        assert!(
            line.starts_with(&at),
            "{file}: should start with {at:?}: {line}"
        );
        assert!(
            line.contains(object),
            "{file}: should name the object {object:?}: {line}"
        );
        assert!(
            line.contains(field),
            "{file}: should name {field:?}: {line}"
        );
        report.push_str(&format!("{file}\n  {line}\n"));
    }
    insta::assert_snapshot!(report);
}

#[test]
fn unknown_flavor_is_a_reason_not_an_error() {
    kueue()
        .args([
            "simulate",
            "--now",
            NOW,
            "-f",
            &format!("{BAD}/base.yaml"),
            "-f",
            &format!("{BAD}/unknown-flavor.yaml"),
        ])
        .assert()
        .success()
        .stderr(
            predicate::str::contains("ResourceFlavor gpu-h100")
                .and(predicate::str::contains("FlavorNotFound")),
        )
        .stdout(
            predicate::str::contains("team-a/job-experiment-1-")
                .and(predicate::str::contains("inactive")),
        );
}

#[test]
fn missing_local_queue_is_a_reason_not_an_error() {
    kueue()
        .args([
            "simulate",
            "--now",
            NOW,
            "-f",
            &format!("{BAD}/base.yaml"),
            "-f",
            &format!("{BAD}/missing-localqueue.yaml"),
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Misconfigured").and(predicate::str::contains(
                "LocalQueue no-such-queue doesn't exist",
            )),
        );
}

#[test]
fn other_kinds_are_ignored_with_one_warning() {
    kueue()
        .args([
            "simulate",
            "--now",
            NOW,
            "-f",
            &format!("{BAD}/base.yaml"),
            "-f",
            &format!("{BAD}/unknown-kind.yaml"),
        ])
        .assert()
        .success()
        .stderr(
            predicate::str::contains("warning:")
                .and(predicate::str::contains("ConfigMap"))
                .and(predicate::str::contains("unknown-kind.yaml: document 1")),
        );
}

#[test]
fn bad_stdin_is_named_stdin() {
    kueue()
        .args(["simulate", "-f", "-"])
        .write_stdin("kind: [\n")
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "error: <stdin>: document 1: invalid YAML (line 2, column 1)",
        ));
}

#[test]
fn missing_file_is_an_error_naming_it() {
    kueue()
        .args(["simulate", "-f", "tests/fixtures/bad/no-such-file.yaml"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cannot read tests/fixtures/bad/no-such-file.yaml",
        ));
}

#[test]
fn bad_flags() {
    // Usage errors: exit 2, clap's message.
    kueue()
        .args(["simulate", "-o", "xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'xml' for '--output <OUTPUT>'",
        ));
    kueue()
        .args(["simulate", "--frobnicate"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unexpected argument '--frobnicate'",
        ));
    kueue()
        .args(["simulate", "-f"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a value is required for '--filename <PATH>'",
        ));
    // Bad values the command checks: exit 1, naming the flag and the value.
    kueue()
        .args(["simulate", "--now", "yesterday"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "--now \"yesterday\" is not an RFC 3339 time",
        ));
    kueue()
        .args(["simulate", "--set", "bogus"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "--set \"bogus\": expected TARGET.FIELD=VALUE",
        ));
    kueue()
        .args([
            "simulate",
            "--now",
            NOW,
            "--set",
            "cq/nope.nominalQuota=gpu-a100:nvidia.com/gpu=6",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no ClusterQueue nope in the input",
        ));
}

#[test]
fn a_directory_without_manifests_is_an_error_not_an_empty_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = kueue()
        .args(["simulate", "-f", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has no *.yaml or *.yml files"), "{stderr}");
    assert!(out.stdout.is_empty());
}
