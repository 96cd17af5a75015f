//! `simulate` and `explain` on kueue.x-k8s.io/v1beta2 manifests, offline: the seed's
//! manifests converted to v1beta2 by upstream's rules (the fixtures under
//! `tests/fixtures/v1beta2/`, generated here from the v1beta1 originals) give the same result
//! as the originals; a hand-written v1beta2 file in the shape of upstream's docs works; v1beta1
//! and v1beta2 mix; a bad v1beta2 document is named by its v1beta2 field path; `-o yaml` writes
//! each object in its input's version (or `--api-version`'s) and feeding that back is a fixpoint.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};

use kubectl_kueue::api::{self, convert, v1beta2 as v2};
use serde_json::Value;

use crate::support::cli::{kueue, run};

const NOW: &str = "2025-07-22T09:00:00Z";
/// The seed's v1beta1 files (the embedded scenario is the first five).
const ORIGINALS: [&str; 7] = [
    "namespaces.yaml",
    "priorities.yaml",
    "setup.yaml",
    "monday/running.yaml",
    "jobs/weekly-retrain.yaml",
    "jobs/experiment-42.yaml",
    "../../tests/fixtures/explain/base-seed.yaml",
];
const V1: &str = "examples/gpu-two-teams";
const V2: &str = "tests/fixtures/v1beta2/gpu-two-teams";
const HAND_WRITTEN: &str = "tests/fixtures/v1beta2/hand-written/gpu-queues.yaml";

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn v1(file: &str) -> String {
    format!("{V1}/{file}")
}

/// Where the v1beta2 twin of an original lives.
fn v2(file: &str) -> String {
    match file.strip_prefix("../../tests/fixtures/explain/") {
        Some(name) => format!("tests/fixtures/v1beta2/{name}"),
        None => format!("{V2}/{file}"),
    }
}

fn documents(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|d| serde::Deserialize::deserialize(d).expect("valid YAML"))
        .filter(|d: &Value| !d.is_null())
        .collect()
}

/// One v1beta1 document as upstream's conversion webhook would hand it to a v1beta2 client;
/// other kinds unchanged.
fn to_v1beta2(doc: Value) -> Value {
    fn via<A: serde::de::DeserializeOwned, B: serde::Serialize>(
        doc: Value,
        f: fn(&A) -> B,
    ) -> Value {
        serde_json::to_value(f(&api::from_value(doc).expect("a valid v1beta1 object"))).unwrap()
    }
    if doc["apiVersion"] != "kueue.x-k8s.io/v1beta1" {
        return doc;
    }
    match doc["kind"].as_str().unwrap_or_default() {
        "ResourceFlavor" => via(doc, convert::resource_flavor::to_v1beta2),
        "Cohort" => via(doc, convert::cohort::to_v1beta2),
        "ClusterQueue" => via(doc, convert::cluster_queue::to_v1beta2),
        "LocalQueue" => via(doc, convert::local_queue::to_v1beta2),
        "WorkloadPriorityClass" => via(doc, convert::workload_priority_class::to_v1beta2),
        "Workload" => via(doc, convert::workload::to_v1beta2),
        other => panic!("no conversion for {other}"),
    }
}

fn yaml_stream(docs: &[Value]) -> String {
    docs.iter()
        .map(|d| serde_yaml::to_string(d).unwrap())
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The fixture text for one original.
fn converted_fixture(original: &str) -> String {
    let text = std::fs::read_to_string(repo(&v1(original))).unwrap();
    let docs: Vec<Value> = documents(&text).into_iter().map(to_v1beta2).collect();
    format!(
        "# Generated from {} by upstream's v1beta1 -> v1beta2 conversion rules\n# (tests/it/cli_v1beta2.rs; regenerate with KUEUE_UPDATE_FIXTURES=1 cargo test --test it cli_v1beta2).\n{}",
        v1(original).replace("examples/gpu-two-teams/../../", ""),
        yaml_stream(&docs)
    )
}

#[test]
fn the_fixtures_are_the_seed_converted_by_upstreams_rules() {
    let mut stale = Vec::new();
    for original in ORIGINALS {
        let path = repo(&v2(original));
        let generated = converted_fixture(original);
        if std::env::var_os("KUEUE_UPDATE_FIXTURES").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != generated {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale v1beta2 fixtures: {stale:?}; regenerate with KUEUE_UPDATE_FIXTURES=1 cargo test --test it cli_v1beta2"
    );
    // They really are v1beta2.
    let setup = std::fs::read_to_string(repo(&v2("setup.yaml"))).unwrap();
    assert!(setup.contains("cohortName: gpu-cluster") && !setup.contains("kueue.x-k8s.io/v1beta1"));
}

/// `simulate --now NOW -f F... EXTRA`, which must succeed; its stdout.
fn simulate(files: &[String], extra: &[&str]) -> String {
    let mut args = vec!["simulate".to_string(), "--now".into(), NOW.into()];
    for f in files {
        args.push("-f".into());
        args.push(f.clone());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = kueue().current_dir(repo("")).args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn items(json: &str) -> Vec<Value> {
    let list: Value = serde_json::from_str(json).unwrap();
    list["items"].as_array().unwrap().clone()
}

fn files(names: &[&str], version: fn(&str) -> String) -> Vec<String> {
    names.iter().map(|f| version(f)).collect()
}

const SCENARIOS: [&[&str]; 3] = [
    // The embedded seed scenario.
    &[
        "namespaces.yaml",
        "priorities.yaml",
        "setup.yaml",
        "monday/running.yaml",
        "jobs/weekly-retrain.yaml",
    ],
    // Tuesday with another experiment too.
    &[
        "namespaces.yaml",
        "priorities.yaml",
        "setup.yaml",
        "monday/running.yaml",
        "jobs/weekly-retrain.yaml",
        "jobs/experiment-42.yaml",
    ],
    // Monday morning from the Jobs alone.
    &[
        "namespaces.yaml",
        "priorities.yaml",
        "setup.yaml",
        "jobs/experiment-42.yaml",
    ],
];

#[test]
fn the_converted_seed_simulates_like_the_original() {
    for scenario in SCENARIOS {
        let originals = files(scenario, v1);
        let converted = files(scenario, v2);
        // The same table...
        assert_eq!(
            simulate(&converted, &["-o", "wide"]),
            simulate(&originals, &["-o", "wide"]),
            "{scenario:?}"
        );
        // ...and the same objects once written in one version, either way round.
        for version in ["v1beta1", "v1beta2"] {
            let from_v1 = items(&simulate(
                &originals,
                &["-o", "json", "--api-version", version],
            ));
            let from_v2 = items(&simulate(
                &converted,
                &["-o", "json", "--api-version", version],
            ));
            assert_eq!(from_v2, from_v1, "{scenario:?} written as {version}");
            assert!(
                from_v1
                    .iter()
                    .all(|i| i["apiVersion"] == format!("kueue.x-k8s.io/{version}"))
            );
        }
    }
    // The embedded scenario is what the first one simulates.
    assert_eq!(
        simulate(&[], &["-o", "json", "--api-version", "v1beta2"]),
        simulate(&files(SCENARIOS[0], v2), &["-o", "json"])
    );
}

#[test]
fn v1beta2_output_uses_v1beta2_names() {
    let out = items(&simulate(&files(SCENARIOS[0], v2), &["-o", "json"]));
    let cq = out.iter().find(|i| i["kind"] == "ClusterQueue").unwrap();
    assert_eq!(cq["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(cq["spec"]["cohortName"], "gpu-cluster");
    assert!(cq["spec"].get("cohort").is_none());
    let lq = out
        .iter()
        .find(|i| i["kind"] == "LocalQueue" && i["metadata"]["namespace"] == "team-a")
        .unwrap();
    assert!(lq["status"]["flavorsUsage"].is_array());
    assert!(lq["status"].get("flavorUsage").is_none());
    let retrain = out
        .iter()
        .find(|i| {
            i["metadata"]["name"]
                .as_str()
                .unwrap()
                .starts_with("job-weekly-retrain")
        })
        .unwrap();
    // Made from a Job; every Kueue document of the input was v1beta2.
    assert_eq!(retrain["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(
        retrain["spec"]["priorityClassRef"],
        serde_json::json!({"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "production"})
    );
    assert!(retrain["spec"].get("priorityClassSource").is_none());
}

/// The items with the conditions' messages left out: a workload parked with an equivalent one
/// may say so in other words the second time round.
fn without_messages(json: &str) -> Vec<Value> {
    let mut items = items(json);
    for item in &mut items {
        for c in item["status"]["conditions"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            c.as_object_mut().unwrap().remove("message");
        }
    }
    items
}

#[test]
fn v1beta2_output_fed_back_is_a_fixpoint() {
    let dir = tempfile::tempdir().unwrap();
    let first = simulate(&files(SCENARIOS[0], v2), &["-o", "yaml"]);
    assert!(first.contains("apiVersion: kueue.x-k8s.io/v1beta2"));
    assert!(!first.contains("apiVersion: kueue.x-k8s.io/v1beta1"));
    let out = dir.path().join("after.yaml");
    std::fs::write(&out, &first).unwrap();
    let inputs = [
        v2("namespaces.yaml"),
        v2("../../tests/fixtures/explain/base-seed.yaml"),
        out.display().to_string(),
    ];
    let again = |args: &[&str]| without_messages(&simulate(&inputs, args));
    let first_json = simulate(&files(SCENARIOS[0], v2), &["-o", "json"]);
    assert_eq!(
        again(&["-o", "json"]),
        without_messages(&first_json),
        "simulating the v1beta2 output again changes nothing"
    );
}

#[test]
fn v1beta1_and_v1beta2_documents_mix() {
    let mixed = vec![
        v1("namespaces.yaml"),
        v1("priorities.yaml"),
        v2("setup.yaml"),
        v1("monday/running.yaml"),
        v2("jobs/weekly-retrain.yaml"),
    ];
    assert_eq!(
        simulate(&mixed, &[]),
        simulate(&files(SCENARIOS[0], v1), &[])
    );
    let out = items(&simulate(&mixed, &["-o", "json"]));
    let version_of = |kind: &str, name_start: &str| {
        out.iter()
            .find(|i| {
                i["kind"] == kind
                    && i["metadata"]["name"]
                        .as_str()
                        .unwrap()
                        .starts_with(name_start)
            })
            .unwrap()["apiVersion"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Each object in the version it was read in...
    assert_eq!(
        version_of("ClusterQueue", "team-a"),
        "kueue.x-k8s.io/v1beta2"
    );
    assert_eq!(
        version_of("LocalQueue", "training"),
        "kueue.x-k8s.io/v1beta2"
    );
    assert_eq!(
        version_of("Workload", "job-experiment-1"),
        "kueue.x-k8s.io/v1beta1"
    );
    // ...and the Job's Workload in the majority's: 10 v1beta1 Kueue documents, 5 v1beta2.
    assert_eq!(
        version_of("Workload", "job-weekly-retrain"),
        "kueue.x-k8s.io/v1beta1"
    );
}

#[test]
fn a_bad_v1beta2_document_is_named_by_its_v1beta2_field_path() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  cohortName: [1]\n",
            "bad.yaml: document 1 (ClusterQueue cq): spec.cohortName: invalid type",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  flavorFungibility: {whenCanBorrow: Borrow}\n",
            "bad.yaml: document 1 (ClusterQueue cq): spec.flavorFungibility.whenCanBorrow: unknown variant `Borrow`",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: n}\nspec:\n  priorityClassRef: {group: kueue.x-k8s.io, kind: Class, name: p}\n",
            "bad.yaml: document 1 (Workload n/w): spec.priorityClassRef.kind: unknown variant `Class`",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: n}\nspec: {}\nstatus:\n  admission:\n    podSetAssignments:\n    - topologyAssignment:\n        levels: [rack]\n        slices: [{domainCount: 2, valuesPerLevel: [{universal: r}], podCounts: {universal: 1, individual: [1, 1]}}]\n",
            "bad.yaml: document 1 (Workload n/w): status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts: exactly one of the fields in [universal individual] must be set",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources: [{name: cpu, nominalQuota: lots}]\n",
            "bad.yaml: document 2 (ClusterQueue cq): spec.resourceGroups[0].flavors[0].resources[0].nominalQuota:",
        ),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {enable: true}\n",
            "bad.yaml: document 1 (Configuration): fairSharing.enable: unknown field `enable`",
        ),
    ];
    for (text, expected) in cases {
        let path = dir.path().join("bad.yaml");
        std::fs::write(&path, text).unwrap();
        let r = run(&["simulate", "-f", path.to_str().unwrap(), "-o", "yaml"]);
        assert_eq!(r.code, 1, "{text}\n{}", r.stderr);
        assert!(r.stdout.is_empty(), "nothing is half-printed: {}", r.stdout);
        let stderr = r.stderr.replace(&format!("{}/", dir.path().display()), "");
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn api_version_converts_v1beta1_input_and_rejects_unknown_versions() {
    let out = items(&simulate(
        &files(SCENARIOS[0], v1),
        &["-o", "json", "--api-version", "v1beta2"],
    ));
    assert!(
        out.iter()
            .all(|i| i["apiVersion"] == "kueue.x-k8s.io/v1beta2")
    );
    let r = run(&["simulate", "--api-version", "v1", "-o", "json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn explain_reads_v1beta2_files_like_v1beta1_ones() {
    let explain = |files: Vec<String>| {
        let mut args = vec!["explain".to_string(), "--now".into(), NOW.into()];
        for f in files {
            args.push("-f".into());
            args.push(f);
        }
        args.extend(["job/weekly-retrain", "-n", "team-b", "-o", "json"].map(String::from));
        let out = kueue().current_dir(repo("")).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        explain(files(SCENARIOS[0], v2)),
        explain(files(SCENARIOS[0], v1))
    );
}

#[test]
fn a_hand_written_v1beta2_file_simulates_and_matches_its_v1beta1_reading() {
    let out = items(&simulate(&[HAND_WRITTEN.into()], &["-o", "json"]));
    let admitted = |name: &str| {
        let w = out
            .iter()
            .find(|i| {
                i["kind"] == "Workload" && i["metadata"]["name"].as_str().unwrap().contains(name)
            })
            .unwrap_or_else(|| panic!("no workload {name}"));
        assert_eq!(w["apiVersion"], "kueue.x-k8s.io/v1beta2");
        w["status"]["admission"]["clusterQueue"]
            .as_str()
            .map(str::to_string)
    };
    assert_eq!(admitted("fine-tune").as_deref(), Some("research"));
    assert_eq!(admitted("nightly-eval").as_deref(), Some("research"));
    assert_eq!(admitted("huge-sweep"), None);
    let research = out
        .iter()
        .find(|i| i["kind"] == "ClusterQueue" && i["metadata"]["name"] == "research")
        .unwrap();
    assert_eq!(research["spec"]["cohortName"], "org");

    // The same file read as v1beta1 (converted by upstream's rules) gives the same result.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo(HAND_WRITTEN)).unwrap();
    let as_v1: Vec<Value> = documents(&text).into_iter().map(to_v1beta1).collect();
    let path = dir.path().join("as-v1beta1.yaml");
    std::fs::write(&path, yaml_stream(&as_v1)).unwrap();
    assert_eq!(
        simulate(
            &[path.display().to_string()],
            &["-o", "json", "--api-version", "v1beta2"]
        ),
        simulate(&[HAND_WRITTEN.into()], &["-o", "json"])
    );
}

fn to_v1beta1(doc: Value) -> Value {
    fn via<A: serde::de::DeserializeOwned, B: serde::Serialize>(
        doc: Value,
        f: fn(&A) -> B,
    ) -> Value {
        serde_json::to_value(f(&api::from_value(doc).expect("a valid v1beta2 object"))).unwrap()
    }
    if doc["apiVersion"] != "kueue.x-k8s.io/v1beta2" {
        return doc;
    }
    match doc["kind"].as_str().unwrap_or_default() {
        "ResourceFlavor" => via::<v2::ResourceFlavor, _>(doc, convert::resource_flavor::to_v1beta1),
        "Cohort" => via::<v2::Cohort, _>(doc, convert::cohort::to_v1beta1),
        "ClusterQueue" => via::<v2::ClusterQueue, _>(doc, convert::cluster_queue::to_v1beta1),
        "LocalQueue" => via::<v2::LocalQueue, _>(doc, convert::local_queue::to_v1beta1),
        "WorkloadPriorityClass" => {
            via::<v2::WorkloadPriorityClass, _>(doc, convert::workload_priority_class::to_v1beta1)
        }
        "Workload" => via::<v2::Workload, _>(doc, convert::workload::to_v1beta1),
        other => panic!("no conversion for {other}"),
    }
}
