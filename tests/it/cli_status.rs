//! The `status` view, offline: built from the seed's manifests (Monday's eight admitted
//! experiments plus team B's pending retraining job) exactly as the live command builds it
//! from the cluster, with the clock pinned.
#![cfg(feature = "cli")]

use kubectl_kueue::cli::{ColorChoice, OutputFormat};
use kubectl_kueue::output::Printer;
use kubectl_kueue::output::status::text as format;
use kubectl_kueue::view::Snapshot;
use kubectl_kueue::view::status::{StatusView, build};

const NOW: &str = "2025-07-22T09:00:00Z";

fn seed_tuesday() -> Snapshot {
    let root = env!("CARGO_MANIFEST_DIR");
    let paths: Vec<String> = [
        "examples/gpu-two-teams/namespaces.yaml",
        "examples/gpu-two-teams/priorities.yaml",
        "examples/gpu-two-teams/setup.yaml",
        "examples/gpu-two-teams/monday/running.yaml",
        "examples/gpu-two-teams/jobs/weekly-retrain.yaml",
        "examples/gpu-two-teams/jobs/experiment-42.yaml",
    ]
    .iter()
    .map(|p| format!("{root}/{p}"))
    .collect();
    let inv = kubectl_kueue::manifests::load(&paths).expect("seed manifests load");
    let now: k8s_openapi::jiff::Timestamp = NOW.parse().unwrap();
    Snapshot::from_inventory(inv, now.as_millisecond()).expect("seed converts")
}

fn print(output: OutputFormat) -> Printer {
    Printer::new(output, false, ColorChoice::Never)
}

fn view(ns: Option<&str>, only: &[&str]) -> StatusView {
    let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
    build(&seed_tuesday(), ns, &only, false)
}

#[test]
fn seed_status_table() {
    let v = view(None, &[]);
    insta::assert_snapshot!(format(&v, &print(OutputFormat::Table)).unwrap());
}

#[test]
fn seed_status_wide_for_one_namespace() {
    let v = view(Some("team-b"), &[]);
    insta::assert_snapshot!(format(&v, &print(OutputFormat::Wide)).unwrap());
}

#[test]
fn usage_counts_and_positions_follow_the_workloads() {
    let v = view(None, &[]);
    let cqs: Vec<_> = v
        .cohorts
        .iter()
        .flat_map(|c| c.cluster_queues.iter())
        .collect();
    assert_eq!(v.cohorts.len(), 1);
    assert_eq!(v.cohorts[0].cohort.as_deref(), Some("gpu-cluster"));
    let a = cqs.iter().find(|c| c.name == "team-a-queue").unwrap();
    let b = cqs.iter().find(|c| c.name == "team-b-queue").unwrap();
    // Monday: eight one-GPU experiments hold team A's 4 GPUs and 4 borrowed ones.
    let gpu = a
        .quota
        .iter()
        .find(|q| q.resource == "nvidia.com/gpu")
        .unwrap();
    assert_eq!(
        (
            gpu.in_use.as_str(),
            gpu.borrowed.as_str(),
            gpu.capacity_units
        ),
        ("8", "4", 8)
    );
    assert_eq!((a.admitted_workloads, a.pending_workloads), (8, 1));
    assert_eq!((b.admitted_workloads, b.pending_workloads), (0, 1));
    // Nothing has been scheduled yet: the retraining job is next in team B's queue, the new
    // experiment next in team A's.
    let retrain = v
        .workloads
        .iter()
        .find(|w| w.name.starts_with("job-weekly-retrain-"))
        .unwrap();
    assert_eq!(
        (
            retrain.state.as_str(),
            retrain.position,
            retrain.queue_length,
            retrain.priority
        ),
        ("Pending", Some(0), Some(1), 1000)
    );
    let running: Vec<_> = v
        .workloads
        .iter()
        .filter(|w| w.state == "Admitted")
        .collect();
    assert_eq!(running.len(), 8);
    assert!(
        running
            .iter()
            .all(|w| w.flavors == ["gpu-a100"] && w.position.is_none())
    );
    // Monday's experiments waited two seconds each for their reservation.
    assert!(
        running.iter().all(|w| w.wait_millis == Some(2000)),
        "{running:?}"
    );
}

#[test]
fn one_cluster_queue_and_json() {
    let v = view(None, &["team-b-queue"]);
    let names: Vec<&str> = v
        .cohorts
        .iter()
        .flat_map(|c| c.cluster_queues.iter())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["team-b-queue"]);
    assert!(
        v.workloads
            .iter()
            .all(|w| w.cluster_queue == "team-b-queue")
    );
    assert!(v.local_queues.iter().all(|l| l.namespace == "team-b"));
    let json: serde_json::Value =
        serde_json::from_str(&format(&v, &print(OutputFormat::Json)).unwrap()).unwrap();
    let quota = json["cohorts"][0]["clusterQueues"][0]["quota"]
        .as_array()
        .unwrap();
    let gpu = quota
        .iter()
        .find(|q| q["resource"] == "nvidia.com/gpu")
        .unwrap();
    assert_eq!(
        (
            gpu["nominal"].as_str(),
            gpu["inUse"].as_str(),
            gpu["available"].as_str()
        ),
        (Some("4"), Some("0"), Some("0"))
    );
    assert_eq!(json["workloads"][0]["position"], 0);
}
