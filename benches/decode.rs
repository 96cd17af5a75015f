//! Decoding benchmark: one Workload as the API server sends it on the controller's watch in
//! the performance baseline (created by the generator, admitted by our status apply, marked
//! `Finished` by the harness: three `managedFields` entries), decoded whole into `Workload`
//! and without its managed fields (`kube::lean::Lean`), as the controller's watch decodes
//! it. Run with `cargo bench --bench decode`; results are in the README (Performance).

use criterion::{Criterion, criterion_group, criterion_main};
use kubectl_kueue::api::Workload;
use kubectl_kueue::kube::lean::Lean;
use serde_json::{Value, json};

fn condition(type_: &str, reason: &str, message: &str) -> Value {
    json!({"type": type_, "status": "True", "reason": reason, "message": message,
           "lastTransitionTime": "2026-12-03T10:00:01Z", "observedGeneration": 1})
}

fn fields_of_conditions(types: &[&str]) -> Value {
    let mut conds = serde_json::Map::new();
    conds.insert(".".into(), json!({}));
    for t in types {
        conds.insert(
            format!("k:{{\"type\":\"{t}\"}}"),
            json!({".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:observedGeneration": {},
                   "f:reason": {}, "f:status": {}, "f:type": {}}),
        );
    }
    Value::Object(conds)
}

/// A baseline Workload after its admission and finish, as the watch sends it.
fn baseline_workload() -> String {
    json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "name": "small-cq-3-117", "namespace": "default",
            "uid": "6f1c2b0e-6a44-4b6f-9c1e-2f5d8e7a9b10", "resourceVersion": "1843027",
            "generation": 1, "creationTimestamp": "2026-12-03T10:00:00Z",
            "labels": {"kueue.x-k8s.io/queue-name": "lq-3", "class": "small"},
            "managedFields": [
                {"manager": "perf-generator", "operation": "Update", "apiVersion": "kueue.x-k8s.io/v1beta1",
                 "time": "2026-12-03T10:00:00Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:class": {}, "f:kueue.x-k8s.io/queue-name": {}}},
                              "f:spec": {".": {}, "f:active": {}, "f:podSets": {}, "f:priority": {},
                                         "f:priorityClassSource": {}, "f:queueName": {}}}},
                {"manager": "kubectl-kueue-admission", "operation": "Apply", "apiVersion": "kueue.x-k8s.io/v1beta1",
                 "time": "2026-12-03T10:00:01Z", "fieldsType": "FieldsV1", "subresource": "status",
                 "fieldsV1": {"f:status": {
                     "f:admission": {"f:clusterQueue": {}, "f:podSetAssignments": {
                         "k:{\"name\":\"main\"}": {".": {}, "f:count": {}, "f:flavors": {"f:cpu": {}},
                                                  "f:name": {}, "f:resourceUsage": {"f:cpu": {}}}}},
                     "f:conditions": fields_of_conditions(&["QuotaReserved", "Admitted"]),
                     "f:resourceRequests": {}, "f:schedulingStats": {}}}},
                {"manager": "perf-harness", "operation": "Apply", "apiVersion": "kueue.x-k8s.io/v1beta1",
                 "time": "2026-12-03T10:00:02Z", "fieldsType": "FieldsV1", "subresource": "status",
                 "fieldsV1": {"f:status": {"f:conditions": fields_of_conditions(&["Finished"])}}}
            ]
        },
        "spec": {
            "active": true, "queueName": "lq-3", "priority": 50, "priorityClassSource": "",
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                "resources": {"requests": {"cpu": "1"}}}]}}}]
        },
        "status": {
            "conditions": [
                condition("QuotaReserved", "QuotaReserved", "Quota reserved in ClusterQueue cq-3"),
                condition("Admitted", "Admitted", "The workload is admitted"),
                condition("Finished", "ByTest", "finished by the harness")
            ],
            "admission": {"clusterQueue": "cq-3", "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}}]},
            "resourceRequests": [{"name": "main", "resources": {"cpu": "1"}}]
        }
    })
    .to_string()
}

fn decode(c: &mut Criterion) {
    let text = baseline_workload();
    let mut group = c.benchmark_group("decode a baseline Workload");
    group.bench_function("whole (ObjectMeta with managedFields)", |b| {
        b.iter(|| serde_json::from_str::<Workload>(&text).unwrap())
    });
    group.bench_function("lean (managedFields skipped)", |b| {
        b.iter(|| serde_json::from_str::<Lean<Workload>>(&text).unwrap())
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
