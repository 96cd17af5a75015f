//! Generated documents and raw mutations through the loader, the conversion and a simulation.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

const KINDS: [&str; 7] = [
    "ClusterQueue",
    "LocalQueue",
    "ResourceFlavor",
    "Workload",
    "Cohort",
    "WorkloadPriorityClass",
    "Job",
];

/// Field names the loader and conversion read, so generated objects reach deep code.
const KEYS: [&str; 24] = [
    "spec",
    "resourceGroups",
    "coveredResources",
    "flavors",
    "name",
    "resources",
    "nominalQuota",
    "borrowingLimit",
    "lendingLimit",
    "cohort",
    "podSets",
    "count",
    "template",
    "containers",
    "requests",
    "limits",
    "queueName",
    "clusterQueue",
    "status",
    "admission",
    "conditions",
    "namespaceSelector",
    "parentName",
    "preemption",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        prop_oneof![
            Just("0"),
            Just("1e18"),
            Just("1Ei"),
            Just("0.0001m"),
            Just("-1"),
            Just("1e400"),
            Just("9223372036854775807"),
            Just("99999999999999999999Ei"),
            Just("nvidia.com/gpu"),
            Just("cpu"),
            Just(""),
            Just("\u{0}"),
            Just("💥"),
            Just("Any"),
            Just("LowerPriority"),
        ]
        .prop_map(|s| json!(s)),
        "[a-z0-9./-]{0,20}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(&KEYS[..]), inner), 0..6).prop_map(
                |kv| Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>()
                )
            ),
        ]
    })
}

fn document() -> impl Strategy<Value = Value> {
    (
        proptest::sample::select(&KINDS[..]),
        any::<bool>(),
        value(),
        value(),
    )
        .prop_map(|(kind, v1beta2, spec, status)| {
            let api = if kind == "Job" {
                "batch/v1"
            } else if v1beta2 {
                "kueue.x-k8s.io/v1beta2"
            } else {
                "kueue.x-k8s.io/v1beta1"
            };
            json!({"apiVersion": api, "kind": kind,
                   "metadata": {"name": "x", "namespace": "team-a"},
                   "spec": spec, "status": status})
        })
}

fn yaml(docs: &[Value]) -> String {
    docs.iter()
        .map(|d| serde_yaml::to_string(d).unwrap())
        .collect::<Vec<_>>()
        .join("---\n")
}

proptest! {
    #![proptest_config(super::config())]

    /// Objects of every kind with any shape: a result or an error naming the document.
    #[test]
    fn generated_documents_give_a_result_or_a_named_error(docs in proptest::collection::vec(document(), 1..5)) {
        let _ = super::run(&yaml(&docs));
    }

    /// The seed's manifests with random bytes inserted, replaced or removed.
    #[test]
    fn byte_mutations_give_a_result_or_a_named_error(
        edits in proptest::collection::vec((any::<usize>(), 0usize..3, any::<u8>()), 1..8)
    ) {
        let mut bytes = crate::bad_input_fuzz::SEED.as_bytes().to_vec();
        for (at, op, b) in edits {
            let at = at % bytes.len().max(1);
            match op {
                0 => bytes.insert(at, b),
                1 => bytes[at] = b,
                _ => { bytes.remove(at); }
            }
        }
        // The loader reads text: invalid UTF-8 is the reader's error, before any YAML.
        if let Ok(text) = String::from_utf8(bytes) {
            let _ = super::run(&text);
        }
    }

    /// The seed with one more generated document appended (reaches the cross-object rules:
    /// queues referring to flavors, workloads to queues).
    #[test]
    fn the_seed_plus_a_generated_document(doc in document()) {
        let text = format!("{}\n---\n{}", crate::bad_input_fuzz::SEED, yaml(&[doc]));
        let _ = super::run(&text);
    }
}
