//! What `explain` says would admit a pending workload does admit it when applied with
//! `simulate`: for every pending workload of each scenario (after simulating it to its
//! fixpoint), every verified next step is replayed through the CLI and must end with the
//! workload holding quota. Every pending workload here has at least one such step.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};

use serde_json::Value;

const NOW: &str = "2025-07-22T09:00:00Z";

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .to_string_lossy()
        .into_owned()
}

fn kueue(args: &[String]) -> Value {
    let out = crate::support::cli::kueue().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kubectl kueue {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON from {}: {e}", args.join(" ")))
}

fn files(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .flat_map(|p| ["-f".to_string(), p.clone()])
        .collect()
}

fn holds_quota(list: &Value, ns: &str, name: &str) -> bool {
    list["items"].as_array().unwrap().iter().any(|i| {
        i["kind"] == "Workload"
            && i["metadata"]["namespace"] == ns
            && i["metadata"]["name"] == name
            && i["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "QuotaReserved" && c["status"] == "True")
            })
    })
}

/// Simulates `inputs` to a fixpoint, then checks explain's steps for every pending workload.
/// Returns how many steps were replayed.
fn check(inputs: Vec<String>, base: Vec<String>) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let mut args = files(&inputs);
    args.extend([
        "simulate".into(),
        "--now".into(),
        NOW.into(),
        "-o".into(),
        "json".into(),
    ]);
    args.rotate_left(inputs.len() * 2);
    let after = kueue(&args);
    let after_path: PathBuf = dir.path().join("after.json");
    std::fs::write(&after_path, serde_json::to_string(&after).unwrap()).unwrap();
    let mut state = base.clone();
    state.push(after_path.to_string_lossy().into_owned());
    let mut replayed = 0;
    let pending: Vec<(String, String)> = after["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "Workload")
        .filter(|i| {
            !holds_quota(
                &after,
                i["metadata"]["namespace"].as_str().unwrap(),
                i["metadata"]["name"].as_str().unwrap(),
            )
        })
        .map(|i| {
            (
                i["metadata"]["namespace"].as_str().unwrap().to_string(),
                i["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        !pending.is_empty(),
        "the scenario must leave workloads pending"
    );
    for (ns, name) in pending {
        let mut args = vec![
            "explain".to_string(),
            format!("workload/{name}"),
            "-n".into(),
            ns.clone(),
            "--now".into(),
            NOW.into(),
            "-o".into(),
            "json".into(),
        ];
        args.extend(files(&state));
        let e = kueue(&args);
        let steps = e["nextSteps"].as_array().unwrap();
        let verified: Vec<&Value> = steps.iter().filter(|s| s["verified"] == true).collect();
        assert!(
            !verified.is_empty(),
            "explain offers no verified step for {ns}/{name}: {e:#}"
        );
        for step in verified {
            let mut args = vec![
                "simulate".to_string(),
                "--now".into(),
                NOW.into(),
                "-o".into(),
                "json".into(),
            ];
            args.extend(files(&state));
            args.extend(
                step["simulateArgs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string()),
            );
            let result = kueue(&args);
            assert!(
                holds_quota(&result, &ns, &name),
                "explain said {:?} admits {ns}/{name}, but simulate with {:?} does not",
                step["summary"],
                step["simulateArgs"]
            );
            replayed += 1;
        }
    }
    replayed
}

#[test]
fn seed_story_pending_experiments() {
    let replayed = check(
        vec![
            repo("examples/gpu-two-teams"),
            repo("examples/gpu-two-teams/monday"),
            repo("examples/gpu-two-teams/jobs/weekly-retrain.yaml"),
        ],
        vec![
            repo("tests/fixtures/explain/base-seed.yaml"),
            repo("examples/gpu-two-teams/namespaces.yaml"),
        ],
    );
    assert!(
        replayed >= 4,
        "two pending experiments with a quota raise and a finished workload each, got {replayed}"
    );
}

#[test]
fn mixed_flavors_strict_fifo_stopped_queue_and_two_local_queues() {
    let replayed = check(
        vec![
            repo("tests/fixtures/explain/mixed-flavors.yaml"),
            repo("tests/fixtures/explain/mixed-queues.yaml"),
            repo("tests/fixtures/explain/mixed-jobs.yaml"),
        ],
        vec![repo("tests/fixtures/explain/mixed-flavors.yaml")],
    );
    assert!(replayed >= 5, "got {replayed}");
}
