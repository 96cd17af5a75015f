//! `kubectl kueue init` without a cluster: the non-interactive form writes the seed's setup
//! (same admissions and preemptions when simulated), splits GPUs between teams, and rejects
//! bad flags naming the flag.
#![cfg(feature = "cli")]

use predicates::prelude::*;

use crate::support::cli::kueue;

fn init(args: &[&str]) -> String {
    let out = kueue()
        .arg("init")
        .arg("--non-interactive")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn default_setup_is_the_seeds() {
    insta::assert_snapshot!(init(&[]));
}

/// The generated setup, Monday's running experiments and Tuesday's retraining job simulate
/// to the same Workloads as the seed's own manifests.
#[test]
fn default_setup_behaves_like_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let setup = dir.path().join("setup.yaml");
    std::fs::write(&setup, init(&[])).unwrap();
    let workloads = |files: &[&str]| -> Vec<serde_json::Value> {
        let mut c = kueue();
        c.args(["simulate", "--now", "2025-07-22T09:00:00Z", "-o", "json"]);
        for f in files {
            c.args(["-f", f]);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "Workload")
            .map(|w| serde_json::json!({"name": w["metadata"]["name"], "status": w["status"]}))
            .collect()
    };
    let monday = "examples/gpu-two-teams/monday/running.yaml";
    let retrain = "examples/gpu-two-teams/jobs/weekly-retrain.yaml";
    let ours = workloads(&[setup.to_str().unwrap(), monday, retrain]);
    let seed = workloads(&[
        "examples/gpu-two-teams/namespaces.yaml",
        "examples/gpu-two-teams/priorities.yaml",
        "examples/gpu-two-teams/setup.yaml",
        monday,
        retrain,
    ]);
    assert_eq!(ours.len(), 9);
    assert_eq!(ours, seed);
}

#[test]
fn gpus_split_between_teams_and_quotas_override() {
    let y = init(&[
        "--gpu-types",
        "a100=8,h100=4",
        "--teams",
        "vision,nlp,speech",
        "--quota",
        "speech:h100=0",
        "--cohort",
        "lab",
    ]);
    let docs: Vec<serde_json::Value> = serde_yaml::Deserializer::from_str(&y)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    let cq = |name: &str| {
        docs.iter()
            .find(|d| d["kind"] == "ClusterQueue" && d["metadata"]["name"] == name)
            .unwrap()
            .clone()
    };
    let gpu = |cq: &serde_json::Value, flavor: usize| {
        cq["spec"]["resourceGroups"][0]["flavors"][flavor]["resources"][0].clone()
    };
    // 8 A100s: 3, 3, 2; 4 H100s: 2, 1, 1 but speech gets none.
    assert_eq!(gpu(&cq("vision-queue"), 0)["nominalQuota"], 3);
    assert_eq!(gpu(&cq("speech-queue"), 0)["nominalQuota"], 2);
    assert_eq!(gpu(&cq("vision-queue"), 1)["nominalQuota"], 2);
    assert_eq!(gpu(&cq("nlp-queue"), 1)["nominalQuota"], 1);
    assert_eq!(gpu(&cq("speech-queue"), 1)["nominalQuota"], 0);
    // Borrowing up to what the other teams hold.
    assert_eq!(gpu(&cq("speech-queue"), 1)["borrowingLimit"], 3);
    assert_eq!(cq("nlp-queue")["spec"]["cohort"], "lab");
    let flavors: Vec<&str> = docs
        .iter()
        .filter(|d| d["kind"] == "ResourceFlavor")
        .map(|d| d["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(flavors, ["gpu-a100", "gpu-h100"]);
    let lqs = docs.iter().filter(|d| d["kind"] == "LocalQueue").count();
    assert_eq!(lqs, 3);
    // Without a cohort there is nothing to borrow, so no limits are written.
    let y = init(&["--cohort", ""]);
    assert!(
        !y.contains("cohort:") && !y.contains("borrowingLimit"),
        "{y}"
    );
}

#[test]
fn writes_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("kueue.yaml");
    kueue()
        .args([
            "init",
            "--non-interactive",
            "--output-file",
            f.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("kubectl apply -f"));
    assert!(
        std::fs::read_to_string(&f)
            .unwrap()
            .contains("kind: ClusterQueue")
    );
}

#[test]
fn bad_flags_name_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--teams", "Team_A"], "--teams \"Team_A\""),
        (&["--gpu-types", "a100=eight"], "--gpu-types \"a100=eight\""),
        (&["--gpu-types", "a100=8,a100=4"], "a100 is given twice"),
        (
            &["--quota", "team-c:a100=1"],
            "team-c is not one of --teams",
        ),
        (
            &["--quota", "team-a:h100=1"],
            "h100 is not one of --gpu-types",
        ),
        (
            &["--cohort", "", "--borrowing-limit", "2"],
            "--borrowing-limit needs a --cohort",
        ),
        (&["--priorities", "high"], "--priorities \"high\""),
        (&["--memory", "lots"], "--memory \"lots\""),
    ];
    for (args, msg) in cases {
        kueue()
            .arg("init")
            .arg("--non-interactive")
            .args(*args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(*msg));
    }
}
