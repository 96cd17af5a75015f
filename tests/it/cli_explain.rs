//! `kubectl kueue explain` offline, as a user reads it: snapshots on the seed story (after
//! simulating Tuesday) and on the mixed scenario, an admitted workload, a misconfigured one,
//! and the errors for things that are not there.
#![cfg(feature = "cli")]

const NOW: &str = "2025-07-22T09:00:00Z";

fn run(args: &[&str]) -> (i32, String, String) {
    let r = crate::support::cli::run(args);
    (r.code, r.stdout, r.stderr)
}

/// Simulates Tuesday on the seed cluster and returns the file of its result.
fn tuesday() -> tempfile::NamedTempFile {
    let (code, out, err) = run(&["simulate", "--now", NOW, "-o", "yaml"]);
    assert_eq!(code, 0, "{err}");
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(f.path(), out).unwrap();
    f
}

/// `explain TARGET -n NS [extra]` on the seed cluster after Tuesday's simulation.
fn explain_after_tuesday(target: &str, ns: &str, extra: &[&str]) -> String {
    let after = tuesday();
    let mut args = vec![
        "explain",
        target,
        "-n",
        ns,
        "--now",
        NOW,
        "-f",
        "tests/fixtures/explain/base-seed.yaml",
        "-f",
    ];
    args.push(after.path().to_str().unwrap());
    args.extend(extra);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn a_preempted_experiment_after_tuesday() {
    let out = explain_after_tuesday("job/experiment-7", "team-a", &[]);
    assert!(out.contains("is Pending"), "{out}");
    assert!(
        out.contains("team-b-queue uses 2 of its nominal 4 nvidia.com/gpu on gpu-a100"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn the_admitted_retraining_job_after_tuesday() {
    let out = explain_after_tuesday("job/weekly-retrain", "team-b", &[]);
    assert!(out.contains("is Admitted"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_workload_needing_more_than_one_resource_raised() {
    let (code, after, err) = run(&[
        "simulate",
        "--now",
        NOW,
        "-o",
        "yaml",
        "-f",
        "tests/fixtures/explain/mixed-flavors.yaml",
        "-f",
        "tests/fixtures/explain/mixed-queues.yaml",
        "-f",
        "tests/fixtures/explain/mixed-jobs.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(f.path(), after).unwrap();
    let (code, out, err) = run(&[
        "explain",
        "bigger-train",
        "-n",
        "research",
        "--now",
        NOW,
        "-f",
        "tests/fixtures/explain/mixed-flavors.yaml",
        "-f",
        f.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("untolerated taint"), "{out}");
    assert!(out.contains("[verified by simulation]"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_job_sent_to_a_local_queue_that_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: lost, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: nope}}\nspec: {template: {spec: {containers: [{name: c, image: x}], restartPolicy: Never}}}\n",
    )
    .unwrap();
    let (code, out, err) = run(&[
        "explain",
        "job/lost",
        "-n",
        "team-a",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        job.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("LocalQueue nope doesn't exist"), "{out}");
    assert!(
        out.contains("kubectl kueue create localqueue nope -n team-a --clusterqueue team-a-queue"),
        "{out}"
    );
}

#[test]
fn explaining_something_that_is_not_there_fails_clearly() {
    let (code, _, err) = run(&[
        "explain",
        "job/ghost",
        "-n",
        "team-a",
        "-f",
        "examples/gpu-two-teams",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error: no Job ghost in namespace team-a"),
        "{err}"
    );
    let (code, _, err) = run(&["explain", "pod/x", "-f", "examples/gpu-two-teams"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot explain a pod"), "{err}");
}

#[test]
fn json_output_carries_the_same_content() {
    let out = explain_after_tuesday("job/experiment-7", "team-a", &["-o", "json"]);
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["state"], "Pending");
    assert_eq!(e["clusterQueue"], "team-a-queue");
    assert_eq!(e["evaluation"]["reason"], "WaitingForQuota");
    let gpu = &e["evaluation"]["podSets"][0]["flavors"][0]["resources"][0];
    assert_eq!(gpu["resource"], "nvidia.com/gpu");
    assert_eq!(gpu["shortBy"], "1");
    assert_eq!(gpu["inUse"], "6");
    // Outcomes and reasons are stable tokens; the words are the table's.
    let flavor = &e["evaluation"]["podSets"][0]["flavors"][0];
    assert_eq!(flavor["outcome"], "NoPreemptionCandidates");
    assert_eq!(gpu["preemption"], "WithinNominal");
    assert_eq!(e["preemption"]["whyNot"], "NoVictims");
    assert!(
        e["nextSteps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["verified"] == true)
    );
}
