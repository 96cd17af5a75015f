//! The API types read real manifests (the two-team example, the seed article's manifests),
//! round-trip rich upstream-shaped objects without loss, fill upstream's defaults, and name the
//! field path when a document has the wrong shape.

use std::path::{Path, PathBuf};

use k8s_openapi::api::{batch::v1::Job, core::v1::Namespace};
use kubectl_kueue::api::{
    self, ClusterQueue, Cohort, LocalQueue, PriorityClassSource, QueueingStrategy,
    ReclaimWithinCohortPolicy, ResourceFlavor, StopPolicy, WhenCanBorrow, WhenCanPreempt,
    WithinClusterQueuePolicy, Workload, WorkloadPriorityClass,
    config::{self, Configuration, GoDuration, PreemptionStrategy},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn documents(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| serde::Deserialize::deserialize(doc).expect("valid YAML"))
        .filter(|doc: &Value| !doc.is_null())
        .collect()
}

/// Deserializes, serializes and deserializes again; both reads must agree.
fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(doc: &Value) -> T {
    let first: T = api::from_value(doc.clone()).unwrap_or_else(|err| panic!("{err}\nin {doc}"));
    let written = serde_json::to_value(&first).unwrap();
    let second: T = api::from_value(written.clone())
        .unwrap_or_else(|err| panic!("re-read: {err}\nin {written}"));
    assert_eq!(first, second, "round trip changed the object");
    first
}

/// Reads one document with the type its `apiVersion`/`kind` names; returns the kind.
fn read_any(doc: &Value) -> String {
    let api_version = doc["apiVersion"].as_str().unwrap_or_default();
    let kind = doc["kind"].as_str().unwrap_or_default().to_owned();
    match (api_version, kind.as_str()) {
        ("kueue.x-k8s.io/v1beta1", "ResourceFlavor") => drop(round_trip::<ResourceFlavor>(doc)),
        ("kueue.x-k8s.io/v1beta1", "Cohort") => drop(round_trip::<Cohort>(doc)),
        ("kueue.x-k8s.io/v1beta1", "ClusterQueue") => drop(round_trip::<ClusterQueue>(doc)),
        ("kueue.x-k8s.io/v1beta1", "LocalQueue") => drop(round_trip::<LocalQueue>(doc)),
        ("kueue.x-k8s.io/v1beta1", "WorkloadPriorityClass") => {
            drop(round_trip::<WorkloadPriorityClass>(doc))
        }
        ("kueue.x-k8s.io/v1beta1", "Workload") => drop(round_trip::<Workload>(doc)),
        ("batch/v1", "Job") => drop(api::from_value::<Job>(doc.clone()).unwrap()),
        ("v1", "Namespace") => drop(api::from_value::<Namespace>(doc.clone()).unwrap()),
        other => panic!("unexpected kind {other:?}"),
    }
    kind
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

#[test]
fn every_two_team_example_manifest_reads() {
    let mut files = Vec::new();
    yaml_files(&repo_path("examples/gpu-two-teams"), &mut files);
    let mut kinds = Vec::new();
    for file in &files {
        for doc in documents(&std::fs::read_to_string(file).unwrap()) {
            kinds.push(read_any(&doc));
        }
    }
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "ClusterQueue",
            "Job",
            "LocalQueue",
            "Namespace",
            "ResourceFlavor",
            "Workload",
            "WorkloadPriorityClass"
        ]
    );
}

#[test]
fn the_two_team_setup_reads_as_the_article_describes() {
    let docs = documents(
        &std::fs::read_to_string(repo_path("examples/gpu-two-teams/setup.yaml")).unwrap(),
    );
    let queues: Vec<ClusterQueue> = docs
        .iter()
        .filter(|d| d["kind"] == "ClusterQueue")
        .map(|d| api::from_value(d.clone()).unwrap())
        .collect();
    assert_eq!(queues.len(), 2);
    for queue in &queues {
        let spec = &queue.spec;
        assert_eq!(spec.cohort.as_deref(), Some("gpu-cluster"));
        assert_eq!(
            spec.preemption.reclaim_within_cohort,
            ReclaimWithinCohortPolicy::Any
        );
        assert_eq!(
            spec.preemption.within_cluster_queue,
            WithinClusterQueuePolicy::LowerPriority
        );
        // Upstream's defaults fill what the manifest leaves out.
        assert_eq!(spec.queueing_strategy, QueueingStrategy::BestEffortFIFO);
        assert_eq!(spec.stop_policy, StopPolicy::None);
        assert_eq!(
            spec.flavor_fungibility.when_can_borrow,
            WhenCanBorrow::MayStopSearch
        );
        assert_eq!(
            spec.flavor_fungibility.when_can_preempt,
            WhenCanPreempt::TryNextFlavor
        );
        let group = &spec.resource_groups[0];
        assert_eq!(group.covered_resources, ["cpu", "memory", "nvidia.com/gpu"]);
        let gpu = &group.flavors[0].resources[0];
        assert_eq!(gpu.name, "nvidia.com/gpu");
        assert_eq!(gpu.nominal_quota.0, "4");
        assert_eq!(
            gpu.borrowing_limit.as_ref().map(|q| q.0.as_str()),
            Some("4")
        );
        assert_eq!(gpu.lending_limit, None);
        assert_eq!(group.flavors[0].resources[2].nominal_quota.0, "128Gi");
    }
    let flavor: ResourceFlavor = api::from_value(docs[0].clone()).unwrap();
    assert_eq!(
        flavor.spec.node_labels.get("gpu-type").map(String::as_str),
        Some("a100")
    );

    let priorities = documents(
        &std::fs::read_to_string(repo_path("examples/gpu-two-teams/priorities.yaml")).unwrap(),
    );
    let production: WorkloadPriorityClass = api::from_value(priorities[0].clone()).unwrap();
    assert_eq!(production.value, 1000);
    assert_eq!(
        production.description.as_deref(),
        Some("Production retraining jobs")
    );
}

/// The complete manifests of the seed article ("GPU Scheduling on Kubernetes with Kueue"),
/// kept here so the test does not depend on a file outside the repository.
const SEED_ARTICLE_MANIFESTS: &str = r#"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: gpu-a100
spec:
  nodeLabels:
    gpu-type: a100
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a-queue
spec:
  cohort: gpu-cluster
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: gpu-a100
      resources:
      - name: "nvidia.com/gpu"
        nominalQuota: 4
      - name: "cpu"
        nominalQuota: 32
      - name: "memory"
        nominalQuota: 128Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: training-queue
  namespace: team-a
spec:
  clusterQueue: team-a-queue
---
apiVersion: batch/v1
kind: Job
metadata:
  name: experiment-42
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training-queue
spec:
  template:
    spec:
      containers:
      - name: train
        image: training:latest
        resources:
          requests:
            nvidia.com/gpu: 1
      restartPolicy: Never
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: production
value: 1000
description: "Production retraining jobs"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: experiment
value: 100
description: "Experimental training runs"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: weekly-retrain
  namespace: team-b
  labels:
    kueue.x-k8s.io/queue-name: training-queue
    kueue.x-k8s.io/priority-class: production
spec:
  template:
    spec:
      containers:
      - name: train
        image: training:latest
        resources:
          requests:
            nvidia.com/gpu: 2
      restartPolicy: Never
"#;

#[test]
fn the_seed_articles_manifests_read() {
    let kinds: Vec<String> = documents(SEED_ARTICLE_MANIFESTS)
        .iter()
        .map(read_any)
        .collect();
    assert_eq!(kinds.len(), 7);
}

/// When the project's shared folder sits beside the repository (as on developer machines and
/// in CI), read every YAML block of the article itself: whole manifests by kind, and the
/// `spec:` fragments as ClusterQueue specs.
#[test]
fn the_seed_article_itself_reads_when_present() {
    let path = repo_path("../shared/seed/gpu-scheduling-kubernetes-kueue.md");
    let Ok(article) = std::fs::read_to_string(&path) else {
        eprintln!(
            "{} not found; the embedded copy is tested instead",
            path.display()
        );
        return;
    };
    let mut blocks = 0;
    for block in article.split("```yaml").skip(1) {
        let block = block.split("```").next().unwrap();
        for doc in documents(block) {
            blocks += 1;
            if doc.get("apiVersion").is_some() {
                read_any(&doc);
            } else {
                let spec = doc.get("spec").expect("a fragment is a spec");
                let queue = json!({ "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
                    "metadata": { "name": "fragment" }, "spec": spec });
                round_trip::<ClusterQueue>(&queue);
            }
        }
    }
    assert!(
        blocks >= 15,
        "only {blocks} YAML documents found in the article"
    );
}

const RICH_CLUSTER_QUEUE: &str = r#"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: research
  labels: { team: research }
  annotations: { owner: ml-platform }
  uid: 0b5e5c1e-3b0c-4d8e-9b0e-3f3c2a1b0c9d
  resourceVersion: "4242"
  generation: 3
  creationTimestamp: "2026-01-05T10:00:00Z"
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - { name: cpu, nominalQuota: "64", borrowingLimit: "16", lendingLimit: "8" }
      - { name: memory, nominalQuota: 256Gi }
    - name: spot
      resources:
      - { name: memory, nominalQuota: 512Gi, lendingLimit: 512Gi }
      - { name: cpu, nominalQuota: "128" }
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu-a100
      resources:
      - { name: nvidia.com/gpu, nominalQuota: "8", borrowingLimit: "0" }
  cohort: gpu-cluster
  queueingStrategy: StrictFIFO
  namespaceSelector:
    matchLabels: { kueue-enabled: "true" }
    matchExpressions:
    - { key: team, operator: In, values: [research, platform] }
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: TryNextFlavor
    preference: PreemptionOverBorrowing
  preemption:
    reclaimWithinCohort: LowerPriority
    borrowWithinCohort: { policy: LowerPriority, maxPriorityThreshold: 100 }
    withinClusterQueue: LowerOrNewerEqualPriority
  admissionChecksStrategy:
    admissionChecks:
    - { name: provisioning, onFlavors: [gpu-a100] }
  stopPolicy: Hold
  fairSharing: { weight: "2" }
  admissionScope: { admissionMode: UsageBasedAdmissionFairSharing }
status:
  conditions:
  - type: Active
    status: "True"
    reason: Ready
    message: Can admit new workloads
    observedGeneration: 3
    lastTransitionTime: "2026-01-05T10:00:01Z"
  flavorsReservation:
  - name: on-demand
    resources:
    - { name: cpu, total: "70", borrowed: "6" }
    - { name: memory, total: 100Gi, borrowed: "0" }
  flavorsUsage:
  - name: on-demand
    resources:
    - { name: cpu, total: "60", borrowed: "0" }
  pendingWorkloads: 4
  reservingWorkloads: 3
  admittedWorkloads: 2
  pendingWorkloadsStatus:
    clusterQueuePendingWorkload:
    - { name: job-a-1, namespace: team-a }
    lastChangeTime: "2026-01-05T10:00:02Z"
  fairSharing:
    weightedShare: 120
    admissionFairSharingStatus:
      consumedResources: { cpu: "12" }
      lastUpdate: "2026-01-05T10:00:03Z"
"#;

#[test]
fn a_cluster_queue_with_every_field_round_trips_without_loss() {
    let doc = documents(RICH_CLUSTER_QUEUE).remove(0);
    let queue: ClusterQueue = round_trip(&doc);
    assert_eq!(
        serde_json::to_value(&queue).unwrap(),
        doc,
        "serialized form differs from the input"
    );
    assert_eq!(
        queue.spec.flavor_fungibility.preference,
        Some(api::FlavorFungibilityPreference::PreemptionOverBorrowing)
    );
    assert_eq!(
        queue
            .spec
            .preemption
            .borrow_within_cohort
            .max_priority_threshold,
        Some(100)
    );
    assert_eq!(queue.spec.stop_policy, StopPolicy::Hold);
    // Resources are listed in another order than coveredResources in the spot flavor: kept as is.
    assert_eq!(
        queue.spec.resource_groups[0].flavors[1].resources[0].name,
        "memory"
    );
    let status = queue.status.as_ref().unwrap();
    assert_eq!(status.pending_workloads, 4);
    assert_eq!(status.fair_sharing.as_ref().unwrap().weighted_share, 120);
}

const RICH_WORKLOAD: &str = r#"
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: job-train-3f2a1
  namespace: team-a
  labels: { kueue.x-k8s.io/job-uid: 6c1c3c22-1d3e-4a5b-8c9d-0e1f2a3b4c5d }
  ownerReferences:
  - apiVersion: batch/v1
    kind: Job
    name: train
    uid: 6c1c3c22-1d3e-4a5b-8c9d-0e1f2a3b4c5d
    controller: true
    blockOwnerDeletion: true
  creationTimestamp: "2026-01-05T11:00:00Z"
spec:
  podSets:
  - name: launcher
    count: 1
    template:
      metadata:
        labels: { role: launcher }
      spec:
        restartPolicy: Never
        containers:
        - name: launcher
          image: trainer:1.0
          resources:
            requests: { cpu: "1", memory: 2Gi }
  - name: workers
    count: 4
    minCount: 2
    template:
      spec:
        restartPolicy: Never
        nodeSelector: { gpu-type: a100 }
        tolerations:
        - { key: nvidia.com/gpu, operator: Exists, effect: NoSchedule }
        containers:
        - name: worker
          image: trainer:1.0
          resources:
            requests: { cpu: "8", memory: 32Gi, nvidia.com/gpu: "2" }
            limits: { nvidia.com/gpu: "2" }
    topologyRequest: { preferred: cloud.provider.com/rack, podIndexLabel: kubernetes.io/job-completion-index }
  queueName: training-queue
  priorityClassName: production
  priority: 1000
  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
  active: true
  maximumExecutionTimeSeconds: 86400
status:
  conditions:
  - type: QuotaReserved
    status: "True"
    reason: QuotaReserved
    message: Quota reserved in ClusterQueue team-a-queue
    lastTransitionTime: "2026-01-05T11:00:05Z"
  - type: Admitted
    status: "True"
    reason: Admitted
    message: The workload is admitted
    lastTransitionTime: "2026-01-05T11:00:05Z"
  - type: Evicted
    status: "False"
    reason: Preempted
    message: Preempted to accommodate a workload (UID 1) due to prioritization in the ClusterQueue
    observedGeneration: 1
    lastTransitionTime: "2026-01-05T10:59:00Z"
  admission:
    clusterQueue: team-a-queue
    podSetAssignments:
    - name: launcher
      flavors: { cpu: default, memory: default }
      resourceUsage: { cpu: "1", memory: 2Gi }
      count: 1
    - name: workers
      flavors: { cpu: gpu-a100, memory: gpu-a100, nvidia.com/gpu: gpu-a100 }
      resourceUsage: { cpu: "24", memory: 96Gi, nvidia.com/gpu: "6" }
      count: 3
      topologyAssignment:
        levels: [cloud.provider.com/rack]
        domains:
        - { values: [rack-1], count: 3 }
  requeueState: { count: 1, requeueAt: "2026-01-05T11:00:00Z" }
  reclaimablePods:
  - { name: workers, count: 1 }
  admissionChecks:
  - name: provisioning
    state: Ready
    lastTransitionTime: "2026-01-05T11:00:04Z"
    message: ""
    retryCount: 0
    podSetUpdates:
    - name: workers
      nodeSelector: { pool: a100-pool }
      tolerations:
      - { key: pool, operator: Equal, value: a100, effect: NoExecute, tolerationSeconds: 30 }
  resourceRequests:
  - name: workers
    resources: { nvidia.com/gpu: "8" }
  accumulatedPastExexcutionTimeSeconds: 120
  schedulingStats:
    evictions:
    - { reason: Preempted, underlyingCause: InClusterQueue, count: 1 }
  unhealthyNodes:
  - name: node-7
"#;

#[test]
fn a_workload_with_admission_and_conditions_round_trips_without_loss() {
    let doc = documents(RICH_WORKLOAD).remove(0);
    let workload: Workload = round_trip(&doc);
    assert_eq!(
        serde_json::to_value(&workload).unwrap(),
        doc,
        "serialized form differs from the input"
    );
    let spec = &workload.spec;
    assert_eq!(
        spec.priority_class_source,
        PriorityClassSource::WorkloadPriorityClass
    );
    assert_eq!(spec.pod_sets[1].min_count, Some(2));
    let status = workload.status.as_ref().unwrap();
    let admission = status.admission.as_ref().unwrap();
    assert_eq!(admission.cluster_queue, "team-a-queue");
    let workers = &admission.pod_set_assignments[1];
    assert_eq!(workers.flavors["nvidia.com/gpu"], "gpu-a100");
    assert_eq!(workers.resource_usage["nvidia.com/gpu"].0, "6");
    assert_eq!(workers.count, Some(3));
    assert_eq!(status.accumulated_past_execution_time_seconds, Some(120));
    assert!(status.condition_is_true(api::condition::QUOTA_RESERVED));
    assert!(!status.condition_is_true(api::condition::EVICTED));
    assert!(workload.holds_quota());
    assert_eq!(workload.spec.queue(), Some("training-queue"));
    assert_eq!(workload.spec.priority_or_default(), 1000);
}

#[test]
fn a_sparse_workload_gets_upstreams_defaults() {
    let doc = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": { "name": "w", "namespace": "ns" },
        "spec": { "podSets": [{ "template": { "spec": { "containers": [] } } }] },
    });
    let workload: Workload = round_trip(&doc);
    let pod_set = &workload.spec.pod_sets[0];
    assert_eq!(pod_set.name, "main");
    assert_eq!(pod_set.count, 1);
    assert!(workload.spec.active);
    assert_eq!(
        workload.spec.priority_class_source,
        PriorityClassSource::Unset
    );
    assert_eq!(workload.spec.priority, None);
    assert!(workload.status.is_none());
    assert!(!workload.holds_quota());
    assert_eq!(workload.spec.priority_or_default(), 0);
    let written = serde_json::to_value(&workload).unwrap();
    assert_eq!(written["spec"]["podSets"][0]["count"], json!(1));
    assert_eq!(written["spec"]["active"], json!(true));
    assert!(
        written["spec"].get("priorityClassSource").is_none(),
        "an empty source is omitted, as Go does"
    );
    assert!(written.get("status").is_none());
}

#[test]
fn a_missing_spec_reads_as_the_defaults() {
    let flavor: ResourceFlavor =
        api::from_yaml_str("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n")
            .unwrap();
    assert_eq!(flavor.spec, Default::default());
    let cohort: Cohort =
        api::from_yaml_str("kind: Cohort\nmetadata: {name: root}\nspec: null\n").unwrap();
    assert_eq!(cohort.spec, Default::default());
    let queue: ClusterQueue =
        api::from_yaml_str("kind: ClusterQueue\nmetadata: {name: q}\nspec: {}\n").unwrap();
    assert_eq!(queue.spec, Default::default());
    assert_eq!(queue.spec.cohort_name(), None);
    assert_eq!(api::FairSharing::default().weight.0, "1");
    assert_eq!(
        queue.spec.queueing_strategy,
        QueueingStrategy::BestEffortFIFO
    );
    assert_eq!(
        queue.spec.preemption.borrow_within_cohort.policy,
        api::BorrowWithinCohortPolicy::Never
    );
    assert_eq!(
        queue.spec.namespace_selector, None,
        "no selector means no namespace, unlike {{}}"
    );
    // A Workload cannot do without pod sets.
    let err = api::from_yaml_str::<Workload>("kind: Workload\nmetadata: {name: w}\n").unwrap_err();
    assert!(err.to_string().contains("podSets"), "{err}");
}

#[test]
fn objects_write_their_api_version_and_kind() {
    let written = serde_json::to_value(WorkloadPriorityClass::new("batch", 10)).unwrap();
    assert_eq!(
        written,
        json!({ "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
                "metadata": { "name": "batch" }, "value": 10 })
    );
    let queue = LocalQueue::new(
        "training-queue",
        api::LocalQueueSpec {
            cluster_queue: Some("team-a-queue".into()),
            ..Default::default()
        },
    );
    let written = serde_json::to_value(&queue).unwrap();
    assert_eq!(written["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(written["kind"], "LocalQueue");
    assert_eq!(
        written["spec"],
        json!({ "clusterQueue": "team-a-queue", "stopPolicy": "None" })
    );
}

#[test]
fn deprecated_fungibility_aliases_are_kept_and_fold_to_may_stop_search() {
    let queue: ClusterQueue = api::from_yaml_str(
        "kind: ClusterQueue\nmetadata: {name: q}\nspec:\n  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}\n",
    )
    .unwrap();
    let fungibility = &queue.spec.flavor_fungibility;
    assert_eq!(fungibility.when_can_borrow, WhenCanBorrow::Borrow);
    assert_eq!(
        fungibility.when_can_borrow.normalized(),
        WhenCanBorrow::MayStopSearch
    );
    assert_eq!(
        fungibility.when_can_preempt.normalized(),
        WhenCanPreempt::MayStopSearch
    );
    let written = serde_json::to_value(&queue).unwrap();
    assert_eq!(
        written["spec"]["flavorFungibility"],
        json!({ "whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt" })
    );
}

fn error_of<T: DeserializeOwned + std::fmt::Debug>(yaml: &str) -> api::FieldError {
    api::from_yaml_str::<T>(yaml).expect_err("the document must be rejected")
}

const QUEUE_HEAD: &str =
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\n";

#[test]
fn a_wrong_type_names_its_field_path() {
    let err = error_of::<ClusterQueue>(&format!(
        "{QUEUE_HEAD}spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n      - name: cpu\n        nominalQuota: [1]\n"
    ));
    assert_eq!(
        err.path,
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
    );
    assert!(err.message.contains("Quantity"), "{err}");

    let err = error_of::<ClusterQueue>(&format!(
        "{QUEUE_HEAD}spec:\n  queueingStrategy: Sideways\n"
    ));
    assert_eq!(err.path, "spec.queueingStrategy");
    assert!(
        err.message.contains("Sideways") && err.message.contains("BestEffortFIFO"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("spec.queueingStrategy: "),
        "{err}"
    );

    let err = error_of::<ClusterQueue>(&format!(
        "{QUEUE_HEAD}spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n      - name: cpu\n"
    ));
    assert_eq!(err.path, "spec.resourceGroups[0].flavors[0].resources[0]");
    assert!(
        err.message.contains("missing field `nominalQuota`"),
        "{err}"
    );

    let err = error_of::<Workload>(
        "kind: Workload\nmetadata: {name: w}\nspec:\n  podSets:\n  - name: main\n    count: two\n    template: {}\n",
    );
    assert_eq!(err.path, "spec.podSets[0].count");

    let err = error_of::<WorkloadPriorityClass>(
        "kind: WorkloadPriorityClass\nmetadata: {name: p}\nvalue: high\n",
    );
    assert_eq!(err.path, "value");

    let err = error_of::<ClusterQueue>(&format!(
        "{QUEUE_HEAD}spec:\n  preemption:\n    withinClusterQueue: Any\n"
    ));
    assert_eq!(err.path, "spec.preemption.withinClusterQueue");

    let value_err = api::from_value::<LocalQueue>(
        json!({ "metadata": { "name": "l" }, "spec": { "stopPolicy": 3 } }),
    )
    .unwrap_err();
    assert_eq!(value_err.path, "spec.stopPolicy");
}

const CONFIGURATION: &str = r#"
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: kueue-system
health:
  healthProbeBindAddress: :8081
metrics:
  bindAddress: :8443
  enableClusterQueueResources: true
leaderElection:
  leaderElect: true
  resourceName: c1f6bfd2.kueue.x-k8s.io
  leaseDuration: 30s
controller:
  groupKindConcurrency:
    Job.batch: 5
    Workload.kueue.x-k8s.io: 5
clientConnection:
  qps: 50
  burst: 100
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector:
  matchExpressions:
  - { key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kueue-system] }
waitForPodsReady:
  enable: true
  timeout: 10m
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob]
fairSharing:
  enable: true
  preemptionStrategies: [LessThanOrEqualToFinalShare]
resources:
  excludeResourcePrefixes: [example.com/]
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Replace
    outputs: { example.com/accelerator-memory: 5Gi }
featureGates:
  PartialAdmission: false
tls:
  minVersion: VersionTLS13
"#;

#[test]
fn a_configuration_reads_and_round_trips() {
    let config: Configuration = api::from_yaml_str(CONFIGURATION).unwrap();
    assert!(config.fair_sharing_enabled());
    assert_eq!(
        config.fair_sharing.as_ref().unwrap().preemption_strategies,
        [PreemptionStrategy::LessThanOrEqualToFinalShare]
    );
    assert_eq!(config.client_connection.as_ref().unwrap().qps, Some(50.0));
    assert_eq!(
        config.leader_election.as_ref().unwrap().lease_duration,
        Some(GoDuration::from_secs(30))
    );
    assert_eq!(config.feature_gate("PartialAdmission"), Some(false));
    assert_eq!(
        config.controller.as_ref().unwrap()["groupKindConcurrency"]["Job.batch"],
        json!(5)
    );
    assert_eq!(config.tls.as_ref().unwrap()["minVersion"], "VersionTLS13");
    let again: Configuration = api::from_value(serde_json::to_value(&config).unwrap()).unwrap();
    assert_eq!(again, config);
}

#[test]
fn a_configuration_rejects_unknown_fields_like_upstream() {
    let err = api::from_yaml_str::<Configuration>("fairsharing: {enable: true}\n").unwrap_err();
    assert!(err.message.contains("unknown field `fairsharing`"), "{err}");
    let err = api::from_yaml_str::<Configuration>("fairSharing: {enabled: true}\n").unwrap_err();
    assert_eq!(err.path, "fairSharing.enabled");
    let err =
        api::from_yaml_str::<Configuration>("waitForPodsReady: {enable: true, timeout: 10}\n")
            .unwrap_err();
    assert_eq!(err.path, "waitForPodsReady.timeout");
}

#[test]
fn configuration_defaults_are_upstreams() {
    let config = config::default_configuration();
    assert_eq!(config.namespace.as_deref(), Some("kueue-system"));
    assert!(!config.fair_sharing_enabled());
    assert!(!config.manage_jobs_without_queue_name);
    let client = config.client_connection.as_ref().unwrap();
    assert_eq!((client.qps, client.burst), (Some(300.0), Some(500)));
    let election = config.leader_election.as_ref().unwrap();
    assert_eq!(election.leader_elect, Some(true));
    assert_eq!(
        election.resource_name.as_deref(),
        Some("c1f6bfd2.kueue.x-k8s.io")
    );
    assert_eq!(election.resource_lock.as_deref(), Some("leases"));
    assert_eq!(election.lease_duration, Some(GoDuration::from_secs(15)));
    assert_eq!(election.renew_deadline, Some(GoDuration::from_secs(10)));
    assert_eq!(election.retry_period, Some(GoDuration::from_secs(2)));
    assert_eq!(
        config.metrics.as_ref().unwrap().bind_address.as_deref(),
        Some(":8443")
    );
    assert!(
        config
            .metrics
            .as_ref()
            .unwrap()
            .local_queue_metrics
            .as_ref()
            .unwrap()
            .enable
    );
    assert_eq!(
        config
            .health
            .as_ref()
            .unwrap()
            .health_probe_bind_address
            .as_deref(),
        Some(":8081")
    );
    assert_eq!(
        config.integrations.as_ref().unwrap().frameworks,
        ["batch/job"]
    );
    let ready = config.wait_for_pods_ready.as_ref().unwrap();
    assert!(!ready.enable && ready.timeout.is_none());
    let selector = config.managed_jobs_namespace_selector.as_ref().unwrap();
    let requirement = &selector.match_expressions.as_ref().unwrap()[0];
    assert_eq!(requirement.key, "kubernetes.io/metadata.name");
    assert_eq!(requirement.operator, "NotIn");
    assert_eq!(
        requirement.values.as_deref().unwrap(),
        ["kube-system", "kueue-system"]
    );
    let written = serde_json::to_value(&config).unwrap();
    assert_eq!(written["leaderElection"]["leaseDuration"], "15s");
    assert_eq!(written["multiKueue"]["gcInterval"], "1m0s");

    // Defaults only fill what is missing, and follow what is there.
    let config: Configuration = api::from_yaml_str(CONFIGURATION).unwrap();
    let config = config.with_defaults(Some("elsewhere"));
    assert_eq!(config.namespace.as_deref(), Some("kueue-system"));
    assert_eq!(
        config.leader_election.as_ref().unwrap().lease_duration,
        Some(GoDuration::from_secs(30))
    );
    let ready = config.wait_for_pods_ready.as_ref().unwrap();
    assert_eq!(ready.timeout, Some(GoDuration::from_secs(600)));
    assert_eq!(
        ready.recovery_timeout, ready.timeout,
        "recovery timeout follows the timeout"
    );
    assert_eq!(ready.block_admission, Some(true));
    let strategy = ready.requeuing_strategy.as_ref().unwrap();
    assert_eq!(
        (strategy.backoff_base_seconds, strategy.backoff_max_seconds),
        (Some(60), Some(3600))
    );
    assert_eq!(
        config
            .fair_sharing
            .as_ref()
            .unwrap()
            .preemption_strategies
            .len(),
        1
    );
    let fair: Configuration =
        api::from_yaml_str::<Configuration>("fairSharing: {enable: true}\n").unwrap();
    let fair = fair.with_defaults(Some("kueue"));
    assert_eq!(
        fair.fair_sharing.unwrap().preemption_strategies,
        [
            PreemptionStrategy::LessThanOrEqualToFinalShare,
            PreemptionStrategy::LessThanInitialShare
        ]
    );
    assert_eq!(fair.namespace.as_deref(), Some("kueue"));
}
