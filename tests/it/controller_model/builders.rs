//! Small builders for the objects a model test puts in the cache, as `kubectl apply` would
//! send them (the API server's fields, uid and creation time, filled in).

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kubectl_kueue::api::{
    ClusterQueue, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use kubectl_kueue::manifests::convert::time_from_millis;

use super::world::World;

fn yaml<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

pub fn flavor(name: &str, node_labels: &str) -> ResourceFlavor {
    yaml(&format!(
        "metadata: {{name: {name}}}\nspec: {{nodeLabels: {{{node_labels}}}}}\n"
    ))
}

/// A ClusterQueue with one flavor and one resource, preempting lower priorities within itself.
pub fn cluster_queue(name: &str, flavor: &str, resource: &str, nominal: &str) -> ClusterQueue {
    yaml(&format!(
        "metadata: {{name: {name}}}
spec:
  preemption: {{withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: ['{resource}']
    flavors:
    - name: {flavor}
      resources: [{{name: '{resource}', nominalQuota: '{nominal}'}}]
"
    ))
}

pub fn local_queue(ns: &str, name: &str, cq: &str) -> LocalQueue {
    yaml(&format!(
        "metadata: {{name: {name}, namespace: {ns}}}\nspec: {{clusterQueue: {cq}}}\n"
    ))
}

pub fn priority_class(name: &str, value: i32) -> WorkloadPriorityClass {
    yaml(&format!("metadata: {{name: {name}}}\nvalue: {value}\n"))
}

/// A Workload created directly (no Job) asking for `cpu` in one pod.
pub fn workload(world: &World, ns: &str, name: &str, queue: &str, cpu: u32) -> Workload {
    let mut w: Workload = yaml(&format!(
        "metadata: {{name: {name}, namespace: {ns}, uid: uid-{name}}}
spec:
  queueName: {queue}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '{cpu}'}}}}
"
    ));
    w.metadata.creation_timestamp = Some(time_from_millis(world.now.wall));
    w
}

/// A suspended, queue-labelled Job with one pod asking for `gpus` GPUs.
pub fn job(
    world: &World,
    ns: &str,
    name: &str,
    queue: &str,
    gpus: u32,
    priority: Option<&str>,
) -> Job {
    let priority = priority
        .map(|p| format!(", kueue.x-k8s.io/priority-class: {p}"))
        .unwrap_or_default();
    let mut j: Job = yaml(&format!(
        "metadata: {{name: {name}, namespace: {ns}, uid: uid-{name}, labels: {{kueue.x-k8s.io/queue-name: {queue}{priority}}}}}
spec:
  suspend: true
  template:
    metadata: {{labels: {{job-name: {name}}}}}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        resources:
          requests: {{nvidia.com/gpu: '{gpus}'}}
          limits: {{nvidia.com/gpu: '{gpus}'}}
"
    ));
    j.metadata.creation_timestamp = Some(time_from_millis(world.now.wall));
    j
}

/// The cache's copy of Workload `ns/name` with `Finished=True` added (as a Job's finish
/// writes it).
pub fn finished(world: &World, name: &str) -> Workload {
    let mut w = (*world.workload("ns", name)).clone();
    let st = w.status.get_or_insert_with(Default::default);
    st.conditions.push(Condition {
        type_: "Finished".into(),
        status: "True".into(),
        reason: "Succeeded".into(),
        message: "done".into(),
        last_transition_time: Time(k8s_openapi::jiff::Timestamp::now()),
        observed_generation: None,
    });
    w
}
