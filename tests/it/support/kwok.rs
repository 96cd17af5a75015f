//! Simulated nodes and pods (kwok): which fake nodes a "full" cluster has, and the kwok Stage
//! configuration that plays their kubelets.
//!
//! kwok manages only nodes annotated `kwok.x-k8s.io/node: fake` (so a test may add other nodes
//! that stay untouched). Its stages, written here for this project:
//! - a managed node becomes `Ready` (addresses point at 127.0.0.1; nothing listens there);
//! - a pod bound to a managed node becomes `Running` after the cluster's `pod_running_after`
//!   delay, or the duration in its annotation [`POD_RUNNING_DELAY`] (Go syntax: `"30s"`, `"2m"`);
//! - a running pod owned by a Job becomes `Succeeded` after `job_pods_succeed_after`, or the
//!   duration in its annotation [`POD_COMPLETE_DELAY`]; other pods keep running;
//! - a pod being deleted is stopped like a kubelet would (phase `Failed`, exit code 143) and, once
//!   it has no finalizers left, removed.
//!
//! Set the annotations on a Job's pod template to give its pods other timings, e.g.
//! `pod-complete.stage.kwok.x-k8s.io/delay: "1h"` for a job that keeps running.

use std::collections::BTreeMap;
use std::time::Duration;

/// Annotation: how long a pod stays Pending on its node before it runs.
pub const POD_RUNNING_DELAY: &str = "pod-ready.stage.kwok.x-k8s.io/delay";
/// Annotation: how long a Job's pod runs before it succeeds.
pub const POD_COMPLETE_DELAY: &str = "pod-complete.stage.kwok.x-k8s.io/delay";
/// Annotation selecting the nodes kwok manages.
pub const MANAGED_NODE_ANNOTATION: (&str, &str) = ("kwok.x-k8s.io/node", "fake");

pub const GPU: &str = "nvidia.com/gpu";

/// A fake node: name, labels and capacity (allocatable is the same).
#[derive(Clone, Debug)]
pub struct FakeNode {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub capacity: BTreeMap<String, String>,
}

impl FakeNode {
    /// A node with 64 CPUs, 512Gi memory and room for 110 pods, and no GPUs.
    pub fn new(name: &str) -> FakeNode {
        let mut labels = BTreeMap::new();
        labels.insert("kubernetes.io/hostname".to_string(), name.to_string());
        labels.insert("kubernetes.io/os".to_string(), "linux".to_string());
        labels.insert("kubernetes.io/arch".to_string(), "amd64".to_string());
        labels.insert("type".to_string(), "kwok".to_string());
        let mut capacity = BTreeMap::new();
        capacity.insert("cpu".to_string(), "64".to_string());
        capacity.insert("memory".to_string(), "512Gi".to_string());
        capacity.insert("pods".to_string(), "110".to_string());
        FakeNode {
            name: name.to_string(),
            labels,
            capacity,
        }
    }

    /// The seed's GPU node: `gpus` x `nvidia.com/gpu`, labelled `gpu-type: <gpu_type>`.
    pub fn gpu(name: &str, gpu_type: &str, gpus: u32) -> FakeNode {
        FakeNode::new(name)
            .label("gpu-type", gpu_type)
            .capacity(GPU, &gpus.to_string())
    }

    pub fn label(mut self, key: &str, value: &str) -> FakeNode {
        self.labels.insert(key.to_string(), value.to_string());
        self
    }

    pub fn capacity(mut self, resource: &str, quantity: &str) -> FakeNode {
        self.capacity
            .insert(resource.to_string(), quantity.to_string());
        self
    }

    /// The Node object to create (status included: the API server keeps a Node's status on create).
    pub fn to_node(&self) -> k8s_openapi::api::core::v1::Node {
        serde_json::from_value(self.to_json()).expect("a valid Node")
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "labels": self.labels,
                "annotations": { MANAGED_NODE_ANNOTATION.0: MANAGED_NODE_ANNOTATION.1 },
            },
            "spec": {},
            "status": {
                "capacity": self.capacity,
                "allocatable": self.capacity,
            },
        })
    }
}

/// The default nodes of a "full" cluster: `count` nodes `gpu-a100-<i>`, each with `gpus` GPUs,
/// labelled `gpu-type: a100` (the seed's `gpu-a100` ResourceFlavor selects them).
pub fn a100_nodes(count: usize, gpus: u32) -> Vec<FakeNode> {
    (1..=count)
        .map(|i| FakeNode::gpu(&format!("gpu-a100-{i}"), "a100", gpus))
        .collect()
}

/// kwok's configuration file: the Stage objects described in the module docs.
pub fn stages_yaml(
    pod_running_after: Duration,
    job_pods_succeed_after: Duration,
    kubelet_version: &str,
) -> String {
    let running_ms = pod_running_after.as_millis();
    let complete_ms = job_pods_succeed_after.as_millis();
    format!(
        r#"apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kueue-test-node-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{{{ $now := Now }}}}
      phase: Running
      conditions:
      - type: Ready
        status: "True"
        reason: KubeletReady
        message: "simulated by kwok"
        lastHeartbeatTime: {{{{ $now | Quote }}}}
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: MemoryPressure
        status: "False"
        reason: KubeletHasSufficientMemory
        message: "simulated by kwok"
        lastHeartbeatTime: {{{{ $now | Quote }}}}
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: DiskPressure
        status: "False"
        reason: KubeletHasNoDiskPressure
        message: "simulated by kwok"
        lastHeartbeatTime: {{{{ $now | Quote }}}}
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: PIDPressure
        status: "False"
        reason: KubeletHasSufficientPID
        message: "simulated by kwok"
        lastHeartbeatTime: {{{{ $now | Quote }}}}
        lastTransitionTime: {{{{ $now | Quote }}}}
      addresses:
      - type: InternalIP
        address: 127.0.0.1
      - type: Hostname
        address: {{{{ .metadata.name | Quote }}}}
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {kubelet_version}
        containerRuntimeVersion: kwok
        kernelVersion: kwok
        osImage: kwok
        machineID: ""
        systemUUID: ""
        bootID: ""
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kueue-test-pod-running
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ["Pending"]
  delay:
    durationMilliseconds: {running_ms}
    durationFrom:
      expressionFrom: '.metadata.annotations["{POD_RUNNING_DELAY}"]'
  next:
    statusTemplate: |
      {{{{ $now := Now }}}}
      phase: Running
      hostIP: 127.0.0.1
      hostIPs:
      - ip: 127.0.0.1
      startTime: {{{{ $now | Quote }}}}
      conditions:
      - type: PodReadyToStartContainers
        status: "True"
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: Initialized
        status: "True"
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: ContainersReady
        status: "True"
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: Ready
        status: "True"
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      containerStatuses:
      {{{{ range .spec.containers }}}}
      - name: {{{{ .name | Quote }}}}
        image: {{{{ .image | Quote }}}}
        imageID: ""
        containerID: ""
        ready: true
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{{{ $now | Quote }}}}
      {{{{ end }}}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kueue-test-job-pod-succeeded
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ["Running"]
    - key: '.metadata.ownerReferences.[].kind'
      operator: In
      values: ["Job"]
  delay:
    durationMilliseconds: {complete_ms}
    durationFrom:
      expressionFrom: '.metadata.annotations["{POD_COMPLETE_DELAY}"]'
  next:
    statusTemplate: |
      {{{{ $now := Now }}}}
      phase: Succeeded
      conditions:
      - type: PodReadyToStartContainers
        status: "False"
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: ContainersReady
        status: "False"
        reason: PodCompleted
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: Ready
        status: "False"
        reason: PodCompleted
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      containerStatuses:
      {{{{ range .spec.containers }}}}
      - name: {{{{ .name | Quote }}}}
        image: {{{{ .image | Quote }}}}
        imageID: ""
        containerID: ""
        ready: false
        started: false
        restartCount: 0
        state:
          running: null
          terminated:
            exitCode: 0
            reason: Completed
            startedAt: {{{{ $now | Quote }}}}
            finishedAt: {{{{ $now | Quote }}}}
      {{{{ end }}}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kueue-test-pod-stopped
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.status.phase'
      operator: In
      values: ["Pending", "Running"]
  next:
    statusTemplate: |
      {{{{ $now := Now }}}}
      phase: Failed
      conditions:
      - type: ContainersReady
        status: "False"
        reason: PodFailed
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      - type: Ready
        status: "False"
        reason: PodFailed
        lastProbeTime: null
        lastTransitionTime: {{{{ $now | Quote }}}}
      containerStatuses:
      {{{{ range .spec.containers }}}}
      - name: {{{{ .name | Quote }}}}
        image: {{{{ .image | Quote }}}}
        imageID: ""
        containerID: ""
        ready: false
        started: false
        restartCount: 0
        state:
          running: null
          terminated:
            exitCode: 143
            reason: Error
            startedAt: {{{{ $now | Quote }}}}
            finishedAt: {{{{ $now | Quote }}}}
      {{{{ end }}}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kueue-test-pod-removed
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.metadata.finalizers'
      operator: DoesNotExist
  next:
    delete: true
"#
    )
}
