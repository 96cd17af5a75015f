//! The help text of every family `/metrics` exposes, as upstream Kueue v0.19 registers it
//! (`pkg/metrics/metrics.go`, line breaks included), keyed by the exposed name without the
//! `kueue_` prefix (counters with their `_total`). [`super::exposition`] writes it into each
//! family's `# HELP` line, escaped as the text format wants.
//!
//! Invariants: one entry per family the registry can hold (a unit test checks that every
//! registered family finds its text here); texts are upstream's, word for word.

/// Upstream's help text of the family exposed as `kueue_<name>`.
pub fn upstream(name: &str) -> Option<&'static str> {
    HELP.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

const HELP: &[(&str, &str)] = &[
    (
        "admission_attempts_total",
        r#"The total number of attempts to admit workloads.
Each admission attempt might try to admit more than one workload.
The label 'result' can have the following values:
- 'success' means that at least one workload was admitted.,
- 'inadmissible' means that no workload was admitted."#,
    ),
    (
        "admission_attempt_duration_seconds",
        r#"The latency of an admission attempt.
The label 'result' can have the following values:
- 'success' means that at least one workload was admitted.,
- 'inadmissible' means that no workload was admitted."#,
    ),
    (
        "admission_cycle_preemption_skips",
        r#"The number of Workloads in the ClusterQueue that got preemption candidates but had to be skipped because other ClusterQueues needed the same resources in the same cycle"#,
    ),
    (
        "build_info",
        r#"Kueue build information. 1 labeled by git version, git commit, build date, go version, compiler, platform"#,
    ),
    (
        "pending_workloads",
        r#"The number of pending workloads, per 'cluster_queue' and 'status'.
'status' can have the following values:
- "active" means that the workloads are in the admission queue.
- "inadmissible" means there was a failed admission attempt for these workloads and they won't be retried until cluster conditions, which could make this workload admissible, change"#,
    ),
    (
        "finished_workloads",
        r#"The number of finished workloads per 'cluster_queue'."#,
    ),
    (
        "quota_reserved_workloads_total",
        r#"The total number of quota reserved workloads per 'cluster_queue'"#,
    ),
    (
        "finished_workloads_total",
        r#"The total number of finished workloads per 'cluster_queue'"#,
    ),
    (
        "quota_reserved_wait_time_seconds",
        r#"The time between a workload was created or requeued until it got quota reservation, per 'cluster_queue'"#,
    ),
    (
        "pods_ready_to_evicted_time_seconds",
        r#"The number of seconds between a workload's pods being ready and eviction workloads per 'cluster_queue',
The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false.
The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded."#,
    ),
    (
        "admitted_workloads_total",
        r#"The total number of admitted workloads per 'cluster_queue'"#,
    ),
    (
        "admission_wait_time_seconds",
        r#"The time between a workload was created or requeued until admission, per 'cluster_queue'"#,
    ),
    (
        "admission_checks_wait_time_seconds",
        r#"The time from when a workload got the quota reservation until admission, per 'cluster_queue'"#,
    ),
    (
        "ready_wait_time_seconds",
        r#"The time between a workload was created or requeued until ready, per 'cluster_queue'"#,
    ),
    (
        "admitted_until_ready_wait_time_seconds",
        r#"The time between a workload was admitted until ready, per 'cluster_queue'"#,
    ),
    (
        "evicted_workloads_total",
        r#"The number of evicted workloads per 'cluster_queue',
The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false.
The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded."#,
    ),
    (
        "evicted_workloads_once_total",
        r#"The number of unique workload evictions per 'cluster_queue',
The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false.
The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "WaitForStart" means that the pods have not been ready since admission, or the workload is not admitted.
- "WaitForRecovery" means that the Pods were ready since the workload admission, but some pod has failed.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded."#,
    ),
    (
        "preempted_workloads_total",
        r#"The number of preempted workloads per 'preempting_cluster_queue',
The label 'reason' can have the following values:
- "InClusterQueue" means that the workload was preempted by a workload in the same ClusterQueue.
- "InCohortReclamation" means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota.
- "InCohortFairSharing" means that the workload was preempted by a workload in the same cohort Fair Sharing.
- "InCohortReclaimWhileBorrowing" means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota while borrowing."#,
    ),
    (
        "workload_eviction_latency_seconds",
        r#"The time from workload eviction (WorkloadEvicted condition becomes True) until the workload returns to Pending (quota released).
Observed on status transition from admitted or quota-reserved to pending while WorkloadEvicted remains True.
Each matching update observes one latency sample (seconds) into this histogram; Prometheus aggregates samples across workloads.
Uses the eviction condition LastTransitionTime on the updated object as the start time; cluster_queue is taken from status.admission.cluster_queue on the pre-update object when set and non-empty (otherwise no sample is recorded for that update).
The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false."#,
    ),
    (
        "workload_creation_latency_seconds",
        r#"The time between a job was created until its workload was created, per 'job_kind'. Entries are only recorded for objects with generation 1."#,
    ),
    (
        "reserving_active_workloads",
        r#"The number of Workloads that are reserving quota, per 'cluster_queue'"#,
    ),
    (
        "admitted_active_workloads",
        r#"The number of admitted Workloads that are active, per 'cluster_queue'"#,
    ),
    (
        "cluster_queue_status",
        r#"Reports 'cluster_queue' with its 'status' (with possible values 'pending', 'active' or 'terminated').
For a ClusterQueue, the metric only reports a value of 1 for one of the statuses."#,
    ),
    (
        "cluster_queue_resource_reservation",
        r#"Reports the cluster_queue's total resource reservation within all the flavors"#,
    ),
    (
        "cluster_queue_resource_pending",
        r#"Reports the cluster_queue's total pending resource requests. Unlike resource_reservation, pending workloads have not yet been assigned to flavors."#,
    ),
    (
        "cluster_queue_resource_usage",
        r#"Reports the cluster_queue's total resource usage within all the flavors"#,
    ),
    (
        "cluster_queue_nominal_quota",
        r#"Reports the cluster_queue's resource nominal quota within all the flavors"#,
    ),
    (
        "cluster_queue_borrowing_limit",
        r#"Reports the cluster_queue's resource borrowing limit within all the flavors. If borrowingLimit is unset, this metric reports +Inf."#,
    ),
    (
        "cluster_queue_lending_limit",
        r#"Reports the cluster_queue's resource lending limit within all the flavors. If lendingLimit is unset, this metric reports +Inf."#,
    ),
    (
        "cluster_queue_weighted_share",
        r#"Reports a value that representing the maximum of the ratios of usage above nominal
quota to the lendable resources in the cohort, among all the resources provided by
the ClusterQueue, and divided by the weight.
If zero, it means that the usage of the ClusterQueue is below the nominal quota.
If the ClusterQueue has a weight of zero and is borrowing, this will return NaN."#,
    ),
    (
        "cluster_queue_info",
        r#"Reports ClusterQueue hierarchy information. The metric has value 1 and can be joined using labels."#,
    ),
    (
        "cohort_info",
        r#"Reports Cohort hierarchy information. The metric has value 1 and can be joined using labels."#,
    ),
    (
        "cohort_weighted_share",
        r#"Reports a value that representing the maximum of the ratios of usage above nominal
quota to the lendable resources in the Cohort, among all the resources provided by
the Cohort, and divided by the weight.
If zero, it means that the usage of the Cohort is below the nominal quota.
If the Cohort has a weight of zero and is borrowing, this will return NaN."#,
    ),
    (
        "cohort_subtree_quota",
        r#"Reports the cohort's nominal quota aggregated within the cohort's subtree. The values are reported per resource and flavor"#,
    ),
    (
        "cohort_subtree_admitted_workloads_total",
        r#"The total number of admitted workloads per cohort's subtree"#,
    ),
    (
        "cohort_subtree_resource_reservations",
        r#"Reports the cohort's resource reservations aggregated within the cohort's subtree. The values are reported per resource and flavor"#,
    ),
    (
        "cohort_subtree_admitted_active_workloads",
        r#"The number of admitted Workloads that are active, per cohort's subtree"#,
    ),
    (
        "local_queue_pending_workloads",
        r#"The number of pending workloads, per 'local_queue' and 'status'.
'status' can have the following values:
- "active" means that the workloads are in the admission queue.
- "inadmissible" means there was a failed admission attempt for these workloads and they won't be retried until cluster conditions, which could make this workload admissible, change"#,
    ),
    (
        "local_queue_finished_workloads",
        r#"The number of finished workloads, per 'local_queue'."#,
    ),
    (
        "local_queue_quota_reserved_workloads_total",
        r#"The total number of quota reserved workloads per 'local_queue'"#,
    ),
    (
        "local_queue_finished_workloads_total",
        r#"The total number of finished workloads per 'local_queue'"#,
    ),
    (
        "local_queue_quota_reserved_wait_time_seconds",
        r#"The time between a workload was created or requeued until it got quota reservation, per 'local_queue'"#,
    ),
    (
        "local_queue_admitted_workloads_total",
        r#"The total number of admitted workloads per 'local_queue'"#,
    ),
    (
        "local_queue_admission_wait_time_seconds",
        r#"The time between a workload was created or requeued until admission, per 'local_queue'"#,
    ),
    (
        "local_queue_admission_checks_wait_time_seconds",
        r#"The time from when a workload got the quota reservation until admission, per 'local_queue'"#,
    ),
    (
        "local_queue_ready_wait_time_seconds",
        r#"The time between a workload was created or requeued until ready, per 'local_queue'"#,
    ),
    (
        "local_queue_admitted_until_ready_wait_time_seconds",
        r#"The time between a workload was admitted until ready, per 'local_queue'"#,
    ),
    (
        "local_queue_evicted_workloads_total",
        r#"The number of evicted workloads per 'local_queue',
The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false.
The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded."#,
    ),
    (
        "local_queue_reserving_active_workloads",
        r#"The number of Workloads that are reserving quota, per 'localQueue'"#,
    ),
    (
        "local_queue_admitted_active_workloads",
        r#"The number of admitted Workloads that are active, per 'localQueue'"#,
    ),
    (
        "local_queue_status",
        r#"Reports 'localQueue' with its 'active' status (with possible values 'True', 'False', or 'Unknown').
For a LocalQueue, the metric only reports a value of 1 for one of the statuses."#,
    ),
    (
        "local_queue_resource_reservation",
        r#"Reports the localQueue's total resource reservation within all the flavors"#,
    ),
    (
        "local_queue_resource_usage",
        r#"Reports the localQueue's total resource usage within all the flavors"#,
    ),
];
