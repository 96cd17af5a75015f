//! `simulate` on the trust rules the controller follows too (the same engine and converter):
//! a ClusterQueue being deleted (`metadata.deletionTimestamp`) admits nothing new and keeps
//! what it admitted; a negative request is never admitted and never lowers usage; a
//! Workload's requests count LimitRange defaults, RuntimeClass overhead and pod-level
//! resources as upstream counts them.
#![cfg(feature = "cli")]

use std::io::Write;

use serde_json::Value;

use crate::support::cli::kueue_process;

const NOW: &str = "2025-07-22T09:00:00Z";

const QUEUES: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
";

fn cluster_queue(extra_metadata: &str, cpu: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq{extra_metadata}}}
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: '{cpu}'}}, {{name: memory, nominalQuota: 64Gi}}]
"
    )
}

/// A Workload `name` asking for `resources` (a YAML map) in its one container, with `spec`
/// lines added to the pod spec, and `status` (YAML) when given.
fn workload(name: &str, resources: &str, spec: &str, status: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: '2025-07-22T08:00:00Z'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        {spec}containers:
        - name: c
          image: x
          resources: {resources}
{status}"
    )
}

fn admitted(cpu: &str) -> String {
    format!(
        "status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 1
      flavors: {{cpu: default-flavor}}
      resourceUsage: {{cpu: '{cpu}'}}
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2025-07-22T08:00:00Z'}}
  - {{type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2025-07-22T08:00:00Z'}}
"
    )
}

/// `simulate -f - -o json` on `input`: the resulting objects by kind and name.
fn run(input: &str) -> Vec<Value> {
    let mut child = kueue_process()
        .args(["simulate", "--now", NOW, "-f", "-", "-o", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "simulate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    list["items"].as_array().unwrap().clone()
}

fn object<'a>(items: &'a [Value], kind: &str, name: &str) -> &'a Value {
    items
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("{kind} {name} in the output"))
}

fn condition<'a>(obj: &'a Value, type_: &str) -> &'a Value {
    obj["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == type_))
        .unwrap_or_else(|| panic!("condition {type_} on {}", obj["metadata"]["name"]))
}

#[test]
fn a_terminating_cluster_queue_keeps_what_runs_and_admits_nothing_new() {
    let input = format!(
        "{QUEUES}{}{}{}",
        cluster_queue(
            ", deletionTimestamp: '2025-07-22T08:30:00Z', finalizers: [kueue.x-k8s.io/resource-in-use]",
            "4"
        ),
        workload("running", "{requests: {cpu: '2'}}", "", &admitted("2")),
        workload("new", "{requests: {cpu: '1'}}", "", ""),
    );
    let items = run(&input);
    let running = object(&items, "Workload", "running");
    assert_eq!(condition(running, "QuotaReserved")["status"], "True");
    assert_eq!(running["status"]["admission"]["clusterQueue"], "cq");
    let new = object(&items, "Workload", "new");
    let reserved = condition(new, "QuotaReserved");
    assert_eq!(reserved["status"], "False");
    assert_eq!(reserved["message"], "ClusterQueue cq is inactive");
    let cq = object(&items, "ClusterQueue", "cq");
    let active = condition(cq, "Active");
    assert_eq!(
        (&active["status"], &active["reason"], &active["message"]),
        (
            &Value::from("False"),
            &Value::from("Terminating"),
            &Value::from("Can't admit new workloads; clusterQueue is terminating")
        )
    );
    assert_eq!(cq["status"]["admittedWorkloads"], 1);
}

#[test]
fn a_negative_request_is_never_admitted_and_never_lowers_usage() {
    let input = format!(
        "{QUEUES}{}{}{}{}",
        cluster_queue("", "4"),
        workload("negative", "{requests: {cpu: '-8'}}", "", ""),
        workload("a", "{requests: {cpu: '4'}}", "", ""),
        workload("b", "{requests: {cpu: '4'}}", "", ""),
    );
    let items = run(&input);
    let negative = condition(object(&items, "Workload", "negative"), "QuotaReserved");
    assert_eq!(negative["status"], "False");
    assert_eq!(negative["reason"], "Misconfigured");
    assert_eq!(
        negative["message"],
        "resources validation failed: spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0"
    );
    let admitted: Vec<&Value> = items
        .iter()
        .filter(|o| o["kind"] == "Workload" && o["status"]["admission"].is_object())
        .map(|o| &o["metadata"]["name"])
        .collect();
    assert_eq!(admitted, ["a"], "only 4 of the 4 cpu are taken");
    let cq = object(&items, "ClusterQueue", "cq");
    assert_eq!(
        cq["status"]["flavorsReservation"][0]["resources"][0]["total"],
        "4"
    );
}

#[test]
fn requests_count_limit_range_defaults_runtime_class_overhead_and_pod_level_resources() {
    let input = format!(
        "{QUEUES}{}
---
apiVersion: v1
kind: LimitRange
metadata: {{name: defaults, namespace: ns}}
spec:
  limits:
  - type: Container
    defaultRequest: {{cpu: 500m, memory: 1Gi}}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {{name: kata}}
handler: kata
overhead: {{podFixed: {{cpu: 250m, memory: 128Mi}}}}
{}{}",
        cluster_queue("", "10"),
        // LimitRange default request, plus the RuntimeClass's overhead.
        workload("defaulted", "{}", "runtimeClassName: kata\n        ", ""),
        // Pod-level requests replace the containers' cpu and memory.
        workload(
            "pod-level",
            "{requests: {cpu: '1'}}",
            "resources: {requests: {cpu: '3', memory: 2Gi}}\n        ",
            ""
        ),
    );
    let items = run(&input);
    let usage = |name: &str| {
        object(&items, "Workload", name)["status"]["admission"]["podSetAssignments"][0]
            ["resourceUsage"]
            .clone()
    };
    assert_eq!(
        usage("defaulted"),
        serde_json::json!({"cpu": "750m", "memory": "1152Mi"})
    );
    assert_eq!(
        usage("pod-level"),
        serde_json::json!({"cpu": "3", "memory": "2Gi"})
    );
}
