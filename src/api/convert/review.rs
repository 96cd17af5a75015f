//! The conversion webhook's answer, as a pure function: an `apiextensions.k8s.io/v1`
//! `ConversionReview` request in, the review with its response out (what the API server sends
//! to `run-controller`'s `/convert` and expects back).
//!
//! Data in: the review's JSON. Data out: every object of `request.objects` in
//! `request.desiredAPIVersion`, converted with this module's per-kind functions (upstream's
//! rules, losses included), in the same order, or a `Failure` result naming the object (kind,
//! namespace/name) and the field that could not be read. Invariants: never panics on any
//! input; an object already in the desired version is returned unchanged (byte for byte as
//! JSON); metadata is copied, so the API server's check that only labels and annotations may
//! change always holds; the response's `uid` is the request's.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{cluster_queue, cohort, field_path_to_v1beta2, local_queue, resource_flavor};
use super::{topology, workload, workload_priority_class};
use crate::api::v1beta2 as v2;
use crate::api::{self as v1, KueueVersion};

/// The `apiVersion` and `kind` of a review.
pub const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The kind of a review.
pub const REVIEW_KIND: &str = "ConversionReview";

/// The answer to a review: the response, or a `Failure` naming what could not be converted.
/// A review that is not one (no `request`, no `uid`) fails too, with its `uid` empty.
pub fn review(body: &Value) -> Value {
    let request = &body["request"];
    let uid = request["uid"].as_str().unwrap_or("");
    let response = match convert_request(request) {
        Ok(objects) => json!({
            "uid": uid,
            "convertedObjects": objects,
            "result": { "status": "Success" },
        }),
        Err(message) => json!({
            "uid": uid,
            "convertedObjects": [],
            "result": { "status": "Failure", "message": message },
        }),
    };
    json!({ "apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND, "response": response })
}

fn convert_request(request: &Value) -> Result<Vec<Value>, String> {
    if !request.is_object() {
        return Err("the ConversionReview has no request".to_string());
    }
    if request["uid"].as_str().is_none_or(str::is_empty) {
        return Err("the ConversionReview request has no uid".to_string());
    }
    let desired = request["desiredAPIVersion"]
        .as_str()
        .ok_or("the ConversionReview request has no desiredAPIVersion")?;
    let to = KueueVersion::of_kueue_api_version(desired).ok_or_else(|| {
        format!(
            "desiredAPIVersion {desired:?} is not kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2"
        )
    })?;
    let objects = request["objects"]
        .as_array()
        .ok_or("the ConversionReview request has no objects list")?;
    objects
        .iter()
        .enumerate()
        .map(|(i, object)| convert_object(object, to).map_err(|e| format!("objects[{i}]: {e}")))
        .collect()
}

/// One object in version `to`.
pub fn convert_object(object: &Value, to: KueueVersion) -> Result<Value, String> {
    let kind = object["kind"].as_str().unwrap_or("");
    let api_version = object["apiVersion"].as_str().unwrap_or("");
    let id = identity(kind, object);
    let from = KueueVersion::of_kueue_api_version(api_version).ok_or_else(|| {
        format!("{id}: apiVersion {api_version:?} is not kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2")
    })?;
    if from == to {
        return Ok(object.clone());
    }
    let converted = match (kind, to) {
        ("ClusterQueue", KueueVersion::V1beta2) => {
            via::<v1::ClusterQueue, _>(object, cluster_queue::to_v1beta2)
        }
        ("ClusterQueue", KueueVersion::V1beta1) => {
            via::<v2::ClusterQueue, _>(object, cluster_queue::to_v1beta1)
        }
        ("Cohort", KueueVersion::V1beta2) => via::<v1::Cohort, _>(object, cohort::to_v1beta2),
        ("Cohort", KueueVersion::V1beta1) => via::<v2::Cohort, _>(object, cohort::to_v1beta1),
        ("LocalQueue", KueueVersion::V1beta2) => {
            via::<v1::LocalQueue, _>(object, local_queue::to_v1beta2)
        }
        ("LocalQueue", KueueVersion::V1beta1) => {
            via::<v2::LocalQueue, _>(object, local_queue::to_v1beta1)
        }
        ("ResourceFlavor", KueueVersion::V1beta2) => {
            via::<v1::ResourceFlavor, _>(object, resource_flavor::to_v1beta2)
        }
        ("ResourceFlavor", KueueVersion::V1beta1) => {
            via::<v2::ResourceFlavor, _>(object, resource_flavor::to_v1beta1)
        }
        ("WorkloadPriorityClass", KueueVersion::V1beta2) => {
            via::<v1::WorkloadPriorityClass, _>(object, workload_priority_class::to_v1beta2)
        }
        ("WorkloadPriorityClass", KueueVersion::V1beta1) => {
            via::<v2::WorkloadPriorityClass, _>(object, workload_priority_class::to_v1beta1)
        }
        ("Workload", KueueVersion::V1beta2) => via::<v1::Workload, _>(object, workload::to_v1beta2),
        ("Workload", KueueVersion::V1beta1) => {
            read::<v2::Workload>(object, kind, from).and_then(|wl| {
                check_topology(&wl)?;
                to_json(&workload::to_v1beta1(&wl))
            })
        }
        _ => Err(format!(
            "kind {kind:?} is not a Kueue kind this webhook converts"
        )),
    };
    converted.map_err(|e| format!("{id}: {e}"))
}

/// `Kind namespace/name` (or `Kind name`) for messages.
fn identity(kind: &str, object: &Value) -> String {
    let meta = &object["metadata"];
    let name = meta["name"].as_str().unwrap_or("<unnamed>");
    let kind = if kind.is_empty() { "<no kind>" } else { kind };
    match meta["namespace"].as_str() {
        Some(ns) if !ns.is_empty() => format!("{kind} {ns}/{name}"),
        _ => format!("{kind} {name}"),
    }
}

fn via<From: DeserializeOwned, To: Serialize>(
    object: &Value,
    convert: impl Fn(&From) -> To,
) -> Result<Value, String> {
    let kind = object["kind"].as_str().unwrap_or("");
    let version = KueueVersion::of_kueue_api_version(object["apiVersion"].as_str().unwrap_or(""))
        .unwrap_or_default();
    let typed: From = read(object, kind, version)?;
    to_json(&convert(&typed))
}

fn read<T: DeserializeOwned>(
    object: &Value,
    kind: &str,
    version: KueueVersion,
) -> Result<T, String> {
    v1::from_value(object.clone()).map_err(|e| {
        let path = match version {
            KueueVersion::V1beta1 => e.path.clone(),
            KueueVersion::V1beta2 => field_path_to_v1beta2(kind, &e.path),
        };
        format!("field {path}: {}", e.message)
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("cannot write the converted object: {e}"))
}

fn check_topology(wl: &v2::Workload) -> Result<(), String> {
    let Some(admission) = wl.status.as_ref().and_then(|s| s.admission.as_ref()) else {
        return Ok(());
    };
    for (i, psa) in admission.pod_set_assignments.iter().enumerate() {
        if let Some(ta) = &psa.topology_assignment {
            let path = format!("status.admission.podSetAssignments[{i}].topologyAssignment");
            topology::check(ta, &path).map_err(|e| format!("field {}: {}", e.path, e.message))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(desired: &str, objects: Value) -> Value {
        json!({
            "apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND,
            "request": { "uid": "u-1", "desiredAPIVersion": desired, "objects": objects },
        })
    }

    fn cq_v1() -> Value {
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": { "name": "cq", "uid": "x", "resourceVersion": "7", "labels": { "a": "b" } },
            "spec": { "cohort": "all", "namespaceSelector": {} },
        })
    }

    #[test]
    fn converts_each_object_both_ways_keeping_metadata() {
        let out = review(&request("kueue.x-k8s.io/v1beta2", json!([cq_v1()])));
        let response = &out["response"];
        assert_eq!(response["uid"], "u-1");
        assert_eq!(response["result"]["status"], "Success", "{out}");
        let v2 = &response["convertedObjects"][0];
        assert_eq!(v2["apiVersion"], "kueue.x-k8s.io/v1beta2");
        assert_eq!(v2["spec"]["cohortName"], "all");
        assert!(v2["spec"].get("cohort").is_none());
        assert_eq!(v2["metadata"], cq_v1()["metadata"]);
        let back = review(&request("kueue.x-k8s.io/v1beta1", json!([v2])));
        let v1 = &back["response"]["convertedObjects"][0];
        assert_eq!(v1["apiVersion"], "kueue.x-k8s.io/v1beta1");
        assert_eq!(v1["spec"]["cohort"], "all");
        assert_eq!(v1["metadata"], cq_v1()["metadata"]);
    }

    #[test]
    fn an_object_already_in_the_desired_version_is_unchanged() {
        let odd = json!({ "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": { "name": "cq" }, "spec": { "whatever": [1] } });
        let out = review(&request("kueue.x-k8s.io/v1beta1", json!([odd.clone()])));
        assert_eq!(out["response"]["convertedObjects"][0], odd);
    }

    #[test]
    fn bad_input_fails_naming_the_object_and_field() {
        let bad = json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": { "name": "w", "namespace": "ns" },
            "spec": { "podSets": [{ "name": "main", "count": "many", "template": {} }] },
        });
        let out = review(&request("kueue.x-k8s.io/v1beta1", json!([cq_v1(), bad])));
        let result = &out["response"]["result"];
        assert_eq!(result["status"], "Failure");
        let message = result["message"].as_str().unwrap();
        assert!(
            message.starts_with("objects[1]: Workload ns/w: field spec.podSets[0].count"),
            "{message}"
        );
        assert_eq!(out["response"]["convertedObjects"], json!([]));
        for (body, expected) in [
            (json!({}), "no request"),
            (json!({ "request": { "uid": "" } }), "no uid"),
            (request("v1", json!([])), "desiredAPIVersion \"v1\""),
            (
                json!({ "request": { "uid": "u", "desiredAPIVersion": "kueue.x-k8s.io/v1beta2" } }),
                "no objects",
            ),
            (
                request(
                    "kueue.x-k8s.io/v1beta2",
                    json!([{ "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Topology", "metadata": { "name": "t" } }]),
                ),
                "Topology t: kind \"Topology\"",
            ),
            (
                request("kueue.x-k8s.io/v1beta2", json!([7])),
                "objects[0]: <no kind> <unnamed>: apiVersion \"\"",
            ),
        ] {
            let message = review(&body)["response"]["result"]["message"]
                .as_str()
                .unwrap()
                .to_string();
            assert!(message.contains(expected), "{body}: {message}");
        }
    }

    #[test]
    fn workloads_convert_their_priority_and_topology() {
        let wl = json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": { "name": "w", "namespace": "ns" },
            "spec": {
                "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
                "priorityClassName": "high", "priority": 10,
                "podSets": [{ "name": "main", "count": 2, "template": { "spec": { "containers": [] } } }],
            },
            "status": { "accumulatedPastExexcutionTimeSeconds": 5 },
        });
        let out = review(&request("kueue.x-k8s.io/v1beta2", json!([wl])));
        let v2 = &out["response"]["convertedObjects"][0];
        assert_eq!(
            v2["spec"]["priorityClassRef"],
            json!({ "group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high" }),
            "{out}"
        );
        assert_eq!(v2["status"]["accumulatedPastExecutionTimeSeconds"], 5);
        let back = review(&request("kueue.x-k8s.io/v1beta1", json!([v2])));
        let v1 = &back["response"]["convertedObjects"][0];
        assert_eq!(v1["spec"]["priorityClassName"], "high");
        assert_eq!(v1["status"]["accumulatedPastExexcutionTimeSeconds"], 5);
    }
}
