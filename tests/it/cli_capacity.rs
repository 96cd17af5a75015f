//! Physical capacity, offline: the seed's two teams with the Node objects of
//! `examples/gpu-nodes` (two nodes of 4 A100s). `simulate` prints the flavors against their
//! nodes and the findings (and carries them beside `items` in `-o json`), `explain` annotates
//! the estimated start of a pod no node can hold, `status` says so under the quota tables and
//! in the ESTIMATED START column. Without Node objects nothing changes.
#![cfg(feature = "cli")]

use kubectl_kueue::cli::{ColorChoice, OutputFormat};
use kubectl_kueue::output::Printer;
use kubectl_kueue::output::status::text;
use kubectl_kueue::view::Snapshot;
use kubectl_kueue::view::status::build;

use crate::support::cli::run;

const NOW: &str = "2025-07-22T09:00:00Z";
const NODES: &str = "examples/gpu-nodes/two-a100-nodes.yaml";
const SIX: &str = "examples/gpu-nodes/jobs/six-gpu-retrain.yaml";

fn simulate(extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "simulate",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        "examples/gpu-two-teams/monday",
    ];
    args.extend(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    (r.stdout, r.stderr)
}

#[test]
fn simulate_shows_the_flavors_nodes_and_a_pod_no_node_can_hold() {
    let (out, _) = simulate(&["-f", NODES, "--add", SIX]);
    assert!(
        out.contains("CAPACITY (2 node(s), no running pods; checked on allocatable)"),
        "{out}"
    );
    let row = crate::support::live::row(&out, "gpu-a100").expect("a row for gpu-a100");
    assert_eq!(row, ["gpu-a100", "2", "cpu", "64", "64", "32"], "{out}");
    let gpu = crate::support::live::row(&out, "nvidia.com/gpu").expect("the gpu row");
    assert_eq!(gpu, ["nvidia.com/gpu", "8", "8", "4"], "{out}");
    assert!(
        out.contains("! team-b/job-six-gpu-retrain-b9166: one pod needs 6 nvidia.com/gpu on flavor gpu-a100 and none of the 2 matching node(s) has that much allocatable (at most 4 nvidia.com/gpu on one node; 8 nvidia.com/gpu together: split across nodes): once admitted on quota, its pods would not run"),
        "{out}"
    );
}

#[test]
fn simulate_says_when_quota_promises_more_than_the_nodes_have() {
    let (out, _) = simulate(&[
        "-f",
        NODES,
        "--set",
        "cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6",
    ]);
    assert!(
        out.contains("! flavor gpu-a100: ClusterQueues promise 10 nvidia.com/gpu in nominal quota (team-a-queue, team-b-queue), the 2 matching node(s) have 8 allocatable"),
        "{out}"
    );
    // Without the edit the nodes hold the quota.
    let (out, _) = simulate(&["-f", NODES]);
    assert!(
        out.contains(
            "Every flavor's nodes hold its nominal quota, and every workload's pods fit them."
        ),
        "{out}"
    );
}

#[test]
fn simulate_json_carries_the_check_beside_the_items() {
    let (out, _) = simulate(&["-f", NODES, "--add", SIX, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "List");
    assert!(!v["items"].as_array().unwrap().is_empty());
    let c = &v["capacity"];
    assert_eq!(c["nodes"], 2, "{c}");
    let f = &c["flavors"][0];
    assert_eq!(f["flavor"], "gpu-a100", "{c}");
    assert_eq!(
        f["nodes"],
        serde_json::json!(["gpu-node-1", "gpu-node-2"]),
        "{c}"
    );
    assert_eq!(f["allocatable"]["nvidia.com/gpu"], "8", "{c}");
    assert_eq!(f["largestNode"]["memory"], "128Gi", "{c}");
    assert_eq!(f["nominal"]["nvidia.com/gpu"], "8", "{c}");
    let finding = &c["findings"][0];
    assert_eq!(finding["kind"], "podDoesNotFit", "{c}");
    assert_eq!(
        finding["workload"], "team-b/job-six-gpu-retrain-b9166",
        "{c}"
    );
    assert_eq!(finding["perPod"]["nvidia.com/gpu"], "6", "{c}");
    assert_eq!(finding["podsThatFit"], 0, "{c}");
    assert_eq!(finding["split"], true, "{c}");
    // The output still reads back as input.
    let f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(f.path(), &out).unwrap();
    let r = run(&["simulate", "--now", NOW, "-f", f.path().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn without_nodes_there_is_no_check() {
    let (out, _) = simulate(&["--add", SIX]);
    assert!(!out.contains("CAPACITY"), "{out}");
    let (out, _) = simulate(&["--add", SIX, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("capacity").is_none());
}

#[test]
fn a_node_with_a_bad_quantity_is_an_error_naming_it() {
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(
        f.path(),
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: broken\nstatus:\n  allocatable:\n    nvidia.com/gpu: four\n",
    )
    .unwrap();
    let path = f.path().to_str().unwrap();
    let r = run(&[
        "simulate",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        path,
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("(Node broken): status.allocatable.nvidia.com/gpu: not a quantity"),
        "{}",
        r.stderr
    );
}

#[test]
fn explain_annotates_the_estimated_start() {
    let args = [
        "explain",
        "job/six-gpu-retrain",
        "-n",
        "team-b",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        NODES,
        "-f",
        SIX,
    ];
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let section = r
        .stdout
        .split("Estimated start")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(section.contains("expected to start now"), "{}", r.stdout);
    assert!(
        section.contains("\n  but once admitted on quota, its pods would not run: one pod needs 6 nvidia.com/gpu on flavor gpu-a100 and none of the 2 matching node(s) has that much allocatable"),
        "{}",
        r.stdout
    );
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let r = run(&json_args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let c = &v["estimatedStart"]["capacity"];
    assert_eq!(c["podsThatFit"], 0, "{v}");
    assert_eq!(c["largestNode"]["nvidia.com/gpu"], "4", "{v}");
}

fn status_snapshot(extra: &[&str]) -> Snapshot {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut paths: Vec<&str> = vec![
        "examples/gpu-two-teams/namespaces.yaml",
        "examples/gpu-two-teams/priorities.yaml",
        "examples/gpu-two-teams/setup.yaml",
        "examples/gpu-two-teams/monday/running.yaml",
    ];
    paths.extend(extra);
    let paths: Vec<String> = paths.iter().map(|p| format!("{root}/{p}")).collect();
    let inv = kubectl_kueue::manifests::load(&paths).expect("manifests load");
    let now: k8s_openapi::jiff::Timestamp = NOW.parse().unwrap();
    Snapshot::from_inventory(inv, now.as_millisecond()).expect("converts")
}

#[test]
fn status_says_so_under_the_quota_and_marks_the_estimated_start() {
    let v = build(&status_snapshot(&[NODES, SIX]), None, &[], false);
    let table = text(
        &v,
        &Printer::new(OutputFormat::Table, false, ColorChoice::Never),
    )
    .unwrap();
    let capacity = table.find("CAPACITY (2 node(s)").expect(&table);
    assert!(capacity < table.find("LOCALQUEUES").unwrap(), "{table}");
    assert!(
        table.contains(
            "team-b/job-six-gpu-retrain-b9166: one pod needs 6 nvidia.com/gpu on flavor gpu-a100"
        ),
        "{table}"
    );
    // Team A's experiments have no time limit: the quota forecast is "?", the marker comes first.
    let in_ns = |ns| {
        let v = build(&status_snapshot(&[NODES, SIX]), Some(ns), &[], false);
        text(
            &v,
            &Printer::new(OutputFormat::Table, false, ColorChoice::Never),
        )
        .unwrap()
    };
    let b = in_ns("team-b");
    let cell = crate::support::live::cell(&b, "job-six-gpu-retrain-b9166", "ESTIMATED START");
    assert_eq!(cell.as_deref(), Some("no node fits (quota ?)"), "{b}");
    // Monday's one-GPU experiments fit: no finding, no marker.
    let a = in_ns("team-a");
    let cell = crate::support::live::cell(&a, "job-experiment-1-9f7b8", "ESTIMATED START");
    assert_eq!(cell.as_deref(), Some(""), "{a}");

    let json = text(
        &v,
        &Printer::new(OutputFormat::Json, false, ColorChoice::Never),
    )
    .unwrap();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        j["capacity"]["findings"][0]["kind"], "podDoesNotFit",
        "{json}"
    );
    let w = j["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "job-six-gpu-retrain-b9166")
        .unwrap();
    assert_eq!(w["capacity"]["split"], true, "{w}");
    assert_eq!(w["estimatedStart"]["start"]["state"], "unknown", "{w}");
}

#[test]
fn status_without_nodes_or_findings_says_nothing() {
    let plain = |v| {
        text(
            &v,
            &Printer::new(OutputFormat::Table, false, ColorChoice::Never),
        )
        .unwrap()
    };
    let without = plain(build(&status_snapshot(&[]), None, &[], false));
    assert!(!without.contains("CAPACITY"), "{without}");
    let fits = build(&status_snapshot(&[NODES]), None, &[], false);
    assert_eq!(fits.capacity.as_ref().map(|c| c.findings.len()), Some(0));
    assert_eq!(plain(fits), without);
}

const FRAGMENTED: &str = "examples/gpu-nodes/fragmented";
const TWO: &str = "examples/gpu-nodes/jobs/two-gpu-eval.yaml";
/// The finding on `examples/gpu-nodes/fragmented`: team A's two 3-GPU pods leave 1 GPU free
/// on each 4-GPU node, the cohort 2 GPUs of quota.
const TWO_DOES_NOT_FIT: &str = "one pod needs 2 nvidia.com/gpu on flavor gpu-a100 and none of the 2 matching node(s) has that much free: 2 nvidia.com/gpu free on 2 node(s) but at most 1 nvidia.com/gpu on one node (free capacity fragmented by 2 running pod(s))";

#[test]
fn pods_in_the_files_fragment_the_free_capacity() {
    let r = run(&[
        "simulate",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        NODES,
        "-f",
        FRAGMENTED,
        "--add",
        TWO,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.stdout;
    assert!(
        out.contains("CAPACITY (2 node(s), 2 running pod(s); quota checked on allocatable, pods on what is free)"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "! team-b/job-two-gpu-eval-15a35: {TWO_DOES_NOT_FIT}: admitted, its pods wait for running pods to end"
        )),
        "{out}"
    );

    // explain: the quota admits it now, no node has room for its pod.
    let explain = |job: &str, file: &str| {
        let r = run(&[
            "explain",
            job,
            "-n",
            "team-b",
            "--now",
            NOW,
            "-f",
            "examples/gpu-two-teams",
            "-f",
            NODES,
            "-f",
            FRAGMENTED,
            "-f",
            file,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let out = explain("job/two-gpu-eval", TWO);
    assert!(
        out.contains(&format!(
            "  expected to start now\n  but once admitted on quota, its pods would wait for running pods to end: {TWO_DOES_NOT_FIT}\n"
        )),
        "{out}"
    );
    // A 4-GPU job is admitted by preempting one of team A's trainings (reclaiming the 2
    // GPUs team A borrows): that pod is gone, its node has 4 free, and nothing is said.
    let four = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    let job = std::fs::read_to_string(TWO)
        .unwrap()
        .replace("two-gpu-eval", "four-gpu-eval")
        .replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 4");
    std::fs::write(four.path(), job).unwrap();
    let out = explain("job/four-gpu-eval", four.path().to_str().unwrap());
    assert!(
        out.contains("preempting team-a/job-train-a2-8e2d4"),
        "{out}"
    );
    assert!(!out.contains("running pods"), "{out}");

    // status: under the quota tables, and the marker in the estimate cell; -o json.
    let root = env!("CARGO_MANIFEST_DIR");
    let paths: Vec<String> = [
        "examples/gpu-two-teams/namespaces.yaml",
        "examples/gpu-two-teams/priorities.yaml",
        "examples/gpu-two-teams/setup.yaml",
        NODES,
        FRAGMENTED,
        TWO,
    ]
    .iter()
    .map(|p| format!("{root}/{p}"))
    .collect();
    let inv = kubectl_kueue::manifests::load(&paths).expect("manifests load");
    let now: k8s_openapi::jiff::Timestamp = NOW.parse().unwrap();
    let snap = Snapshot::from_inventory(inv, now.as_millisecond()).expect("converts");
    let v = build(&snap, None, &[], false);
    let table = text(
        &v,
        &Printer::new(OutputFormat::Table, false, ColorChoice::Never),
    )
    .unwrap();
    assert!(
        table.contains(&format!(
            "CAPACITY (2 node(s), 2 running pod(s); quota checked on allocatable, pods on what is free)\nteam-b/job-two-gpu-eval-15a35: {TWO_DOES_NOT_FIT}: once admitted on quota, its pods would wait for running pods to end\n"
        )),
        "{table}"
    );
    let b = text(
        &build(&snap, Some("team-b"), &[], false),
        &Printer::new(OutputFormat::Table, false, ColorChoice::Never),
    )
    .unwrap();
    let cell = crate::support::live::cell(&b, "job-two-gpu-eval-15a35", "ESTIMATED START");
    assert_eq!(cell.as_deref(), Some("no node free (quota now)"), "{b}");
    // Team A's trainings run: their own pods fit, no finding.
    assert!(!table.contains("team-a/job-train"), "{table}");
    let json = text(
        &v,
        &Printer::new(OutputFormat::Json, false, ColorChoice::Never),
    )
    .unwrap();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["capacity"]["runningPods"], 2, "{json}");
    let f = &j["capacity"]["findings"][0];
    assert_eq!(f["kind"], "podDoesNotFit", "{json}");
    assert_eq!(f["runningPods"], 2, "{json}");
    assert_eq!(f["total"]["nvidia.com/gpu"], "2", "{json}");
    assert_eq!(f["largestNode"]["nvidia.com/gpu"], "1", "{json}");
    assert_eq!(f["split"], true, "{json}");
    assert_eq!(f["podsThatFit"], 0, "{json}");
}
