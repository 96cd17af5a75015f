//! Bad input never panics: the seed's manifests, mangled at random (lines dropped or
//! duplicated, values replaced by junk, characters cut), go through reading, conversion and
//! simulation; every run must end in a result or an error, never a panic.

use kubectl_kueue::api::KueueVersion;
use kubectl_kueue::manifests::documents::parse_documents;
use kubectl_kueue::manifests::{ConvertOptions, Inventory};
use kubectl_kueue::simulate::{OutputVersion, Simulation};
use proptest::prelude::*;

pub(crate) const SEED: &str = concat!(
    include_str!("../../examples/gpu-two-teams/namespaces.yaml"),
    "---\n",
    include_str!("../../examples/gpu-two-teams/priorities.yaml"),
    "---\n",
    include_str!("../../examples/gpu-two-teams/setup.yaml"),
    "---\n",
    include_str!("../../examples/gpu-two-teams/jobs/weekly-retrain.yaml"),
    "---\n",
    include_str!("../../examples/gpu-two-teams/jobs/experiment-42.yaml"),
);

/// The same in v1beta2, plus a Workload with what only v1beta2 has (a sliced topology
/// assignment, preemption gates), so the v1beta2 reading and writing get mangled too.
const SEED_V1BETA2: &str = concat!(
    include_str!("../fixtures/v1beta2/gpu-two-teams/namespaces.yaml"),
    "---\n",
    include_str!("../fixtures/v1beta2/gpu-two-teams/priorities.yaml"),
    "---\n",
    include_str!("../fixtures/v1beta2/gpu-two-teams/setup.yaml"),
    "---\n",
    include_str!("../fixtures/v1beta2/gpu-two-teams/jobs/weekly-retrain.yaml"),
    "---\n",
    "apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: placed
  namespace: team-a
spec:
  queueName: training-queue
  preemptionGates:
  - name: example.com/gate
  podSets:
  - count: 2
    template:
      spec:
        containers:
        - name: c
          resources:
            requests:
              nvidia.com/gpu: 1
status:
  preemptionGates:
  - name: example.com/gate
    position: Open
  conditions:
  - type: QuotaReserved
    status: 'True'
    reason: QuotaReserved
    message: reserved
    lastTransitionTime: '2025-07-22T08:00:00Z'
  admission:
    clusterQueue: team-a-queue
    podSetAssignments:
    - name: main
      count: 2
      flavors:
        nvidia.com/gpu: gpu-a100
      resourceUsage:
        nvidia.com/gpu: 2
      topologyAssignment:
        levels: [rack, kubernetes.io/hostname]
        slices:
        - domainCount: 2
          valuesPerLevel:
          - universal: r1
          - individual:
              prefix: node-
              roots: ['1', '2']
          podCounts:
            individual: [1, 1]
",
);

const JUNK: &[&str] = &[
    "-1",
    "1e400",
    "[]",
    "{}",
    "null",
    "\"\"",
    "lots",
    "4Zi",
    "0.0001m",
    "true",
    "~",
    "&a",
    "*a",
    "[1, 2",
    "'",
    "Any",
    "99999999999999999999",
];

#[derive(Debug, Clone)]
enum Mangle {
    DropLine(usize),
    DuplicateLine(usize),
    ReplaceValue(usize, usize),
    Cut(usize, usize),
}

fn mangle() -> impl Strategy<Value = Mangle> {
    prop_oneof![
        any::<usize>().prop_map(Mangle::DropLine),
        any::<usize>().prop_map(Mangle::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(l, j)| Mangle::ReplaceValue(l, j)),
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Mangle::Cut(at, len)),
    ]
}

fn apply(text: &str, edits: &[Mangle]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match *e {
            Mangle::DropLine(i) => {
                lines.remove(i % n);
            }
            Mangle::DuplicateLine(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mangle::ReplaceValue(i, j) => {
                let l = &mut lines[i % n];
                if let Some(pos) = l.find(": ") {
                    l.truncate(pos + 2);
                    l.push_str(JUNK[j % JUNK.len()]);
                }
            }
            Mangle::Cut(at, len) => {
                let joined = lines.join("\n");
                let chars: Vec<char> = joined.chars().collect();
                let start = at % chars.len().max(1);
                let end = (start + len).min(chars.len());
                let cut: String = chars[..start].iter().chain(chars[end..].iter()).collect();
                lines = cut.lines().map(str::to_string).collect();
            }
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(crate::support::property_config(400))]

    #[test]
    fn mangled_manifests_give_a_result_or_an_error(edits in proptest::collection::vec(mangle(), 1..6)) {
        let text = apply(SEED, &edits);
        let mut order = 0;
        let Ok(docs) = parse_documents("mangled.yaml", &text, &mut order) else { return Ok(()) };
        let Ok(inv) = Inventory::from_documents(docs) else { return Ok(()) };
        let opts = ConvertOptions { now: 1_753_174_800_000, strict_namespace_selector: false };
        if let Ok(sim) = Simulation::run(inv, &[], &opts) {
            let _ = sim.output();
        }
    }

    #[test]
    fn mangled_v1beta2_manifests_give_a_result_or_an_error(edits in proptest::collection::vec(mangle(), 1..6)) {
        let text = apply(SEED_V1BETA2, &edits);
        let mut order = 0;
        let Ok(docs) = parse_documents("mangled.yaml", &text, &mut order) else { return Ok(()) };
        let Ok(inv) = Inventory::from_documents(docs) else { return Ok(()) };
        let opts = ConvertOptions { now: 1_753_174_800_000, strict_namespace_selector: false };
        if let Ok(sim) = Simulation::run(inv, &[], &opts) {
            let _ = sim.output();
            let _ = sim.output_in(OutputVersion::Fixed(KueueVersion::V1beta1));
        }
    }
}

/// The documents of a mangled text that still parse as YAML, as JSON.
fn json_documents(text: &str) -> Vec<serde_json::Value> {
    serde_yaml::Deserializer::from_str(text)
        .map_while(|doc| serde::Deserialize::deserialize(doc).ok())
        .collect()
}

proptest! {
    #![proptest_config(crate::support::property_config(200))]

    /// The conversion webhook's answer to mangled objects: a well-formed review, all objects
    /// converted or a Failure with a message, never a panic.
    #[test]
    fn mangled_objects_give_the_webhook_a_review_answer(
        edits in proptest::collection::vec(mangle(), 1..6),
        v2 in any::<bool>(),
    ) {
        let text = apply(if v2 { SEED_V1BETA2 } else { SEED }, &edits);
        // The Kueue objects (the API server sends nothing else).
        let objects: Vec<serde_json::Value> = json_documents(&text)
            .into_iter()
            .filter(|o| o["apiVersion"].as_str().is_some_and(|v| v.starts_with("kueue.x-k8s.io/")))
            .collect();
        for desired in ["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"] {
            let body = serde_json::json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "request": { "uid": "u", "desiredAPIVersion": desired, "objects": objects },
            });
            let answer = kubectl_kueue::api::convert::review::review(&body);
            let response = &answer["response"];
            prop_assert_eq!(&response["uid"], "u");
            match response["result"]["status"].as_str() {
                Some("Success") => prop_assert_eq!(
                    response["convertedObjects"].as_array().map(Vec::len),
                    Some(objects.len())
                ),
                Some("Failure") => prop_assert!(response["result"]["message"].as_str().is_some_and(|m| m.starts_with("objects["))),
                other => prop_assert!(false, "status {:?}", other),
            }
        }
    }
}

#[test]
fn the_unmangled_seeds_convert_through_the_webhook() {
    for (text, desired) in [
        (SEED, "kueue.x-k8s.io/v1beta2"),
        (SEED_V1BETA2, "kueue.x-k8s.io/v1beta1"),
    ] {
        let objects: Vec<serde_json::Value> = json_documents(text)
            .into_iter()
            .filter(|o| {
                o["apiVersion"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("kueue.x-k8s.io/"))
            })
            .collect();
        assert!(objects.len() >= 4);
        let body = serde_json::json!({
            "request": { "uid": "u", "desiredAPIVersion": desired, "objects": objects },
        });
        let answer = kubectl_kueue::api::convert::review::review(&body);
        assert_eq!(
            answer["response"]["result"]["status"], "Success",
            "{answer}"
        );
        for o in answer["response"]["convertedObjects"].as_array().unwrap() {
            assert_eq!(o["apiVersion"], desired);
        }
    }
}

#[test]
fn the_v1beta2_corpus_reads_unmangled() {
    let mut order = 0;
    let docs = parse_documents("seed.yaml", SEED_V1BETA2, &mut order).unwrap();
    let inv = Inventory::from_documents(docs).unwrap();
    let opts = ConvertOptions {
        now: 1_753_174_800_000,
        strict_namespace_selector: false,
    };
    let out = Simulation::run(inv, &[], &opts).unwrap().output();
    let placed = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["name"] == "placed")
        .unwrap();
    assert_eq!(
        placed["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]["slices"][0]["valuesPerLevel"]
            [1]["individual"]["roots"],
        serde_json::json!(["1", "2"])
    );
}
