//! What the controller's model tells the registry, as data: [`MetricUpdate`]s, each either an
//! event (a counter or histogram sample, upstream recording it when the thing happens), a
//! state snapshot (every gauge of a kind, replaced as a whole) or a queue or cohort gone (its
//! counters and histograms dropped).
//!
//! Invariants: plain values, already in reporting units (CPU in cores, other resources in
//! base units, unlimited as `+Inf`, durations in seconds); a LocalQueue is named only when
//! its metrics are exposed (or, when gone, were); a gauge upstream has no series for yet is
//! `None`; the registry decides nothing from them beyond which families are switched on.

/// A LocalQueue whose metrics are exposed, as upstream's `name` and `namespace` labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct LocalQueueRef {
    pub namespace: String,
    pub name: String,
}

/// A LocalQueue's state for the `kueue_local_queue_*` gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalQueueState {
    pub queue: LocalQueueRef,
    /// Stopped (`stopPolicy` set): upstream's queue manager drops it, so it has no pending
    /// or finished gauge meanwhile.
    pub stopped: bool,
    pub pending_active: i64,
    pub pending_inadmissible: i64,
    pub reserving: i64,
    pub admitted: i64,
    /// Finished Workloads that name it; `None` until one was seen (upstream has no series
    /// then).
    pub finished: Option<i64>,
    /// The `Active` condition's status: `True`, `False` or `Unknown`.
    pub active: String,
    /// Per flavor and resource of its ClusterQueue: (flavor, resource, reserved, admitted
    /// usage), in reporting units.
    pub resources: Vec<(String, String, f64, f64)>,
}

/// A ClusterQueue's or cohort's place in the cohort hierarchy, as the `_info` gauges label it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hierarchy {
    /// The direct parent cohort, "" without one.
    pub parent_cohort: String,
    /// The root cohort of its tree, "" without a cohort.
    pub root_cohort: String,
}

/// A ClusterQueue's state, as the engine reports it, for the gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueState {
    pub cluster_queue: String,
    /// Direct parent cohort, "" without one.
    pub cohort: String,
    /// `kueue_cluster_queue_info`'s labels ("" and "" when its cohort's ancestry loops).
    pub hierarchy: Hierarchy,
    pub active: bool,
    /// Being deleted (reported as `terminating`, whatever else holds).
    pub terminating: bool,
    pub pending_active: i64,
    pub pending_inadmissible: i64,
    pub reserving: i64,
    pub admitted: i64,
    /// Finished Workloads of its LocalQueues; `None` until a LocalQueue pointed at it
    /// (upstream has no series then; once there, it stays until the ClusterQueue goes).
    pub finished: Option<i64>,
    /// Per flavor and resource, already in reporting units.
    pub resources: Vec<ResourceState>,
    /// What its pending Workloads request, per resource (configured ones included at 0).
    pub pending_resources: Vec<(String, f64)>,
    /// Fair sharing's weighted share (NaN for weight 0 while borrowing); `None` without
    /// fair sharing.
    pub weighted_share: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceState {
    pub flavor: String,
    pub resource: String,
    pub nominal: f64,
    pub borrowing_limit: f64,
    pub lending_limit: f64,
    pub reservation: f64,
    pub usage: f64,
}

/// A cohort's state (one outside any cycle) for the `kueue_cohort_*` gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CohortState {
    pub cohort: String,
    pub hierarchy: Hierarchy,
    /// (flavor, resource, amount): its subtree quota, only where positive.
    pub subtree_quota: Vec<(String, String, f64)>,
    /// (flavor, resource, amount): what the ClusterQueues below it reserve, only where
    /// positive.
    pub subtree_reservations: Vec<(String, String, f64)>,
    /// Admitted Workloads in the ClusterQueues below it; `None` until a Workload took or gave
    /// back quota below it (upstream has no series then).
    pub admitted_active: Option<i64>,
    /// Fair sharing's weighted share, for a cohort a Cohort object defines; `None` otherwise
    /// or without fair sharing.
    pub weighted_share: Option<f64>,
}

/// One change to record, as data: the controller's model decides these and the loop applies
/// them to the registry ([`super::Metrics::record`]).
#[derive(Debug, Clone, PartialEq)]
pub enum MetricUpdate {
    /// One scheduling cycle: `admitted` when anything was admitted.
    AdmissionAttempt { admitted: bool, seconds: f64 },
    /// Quota reserved and admitted after waiting `wait_seconds` since queued.
    Admitted {
        cluster_queue: String,
        priority_class: String,
        wait_seconds: f64,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
        /// The cohorts above the ClusterQueue, its own first (each subtree counts the
        /// admission).
        cohorts: Vec<String>,
    },
    /// Evicted from `cluster_queue` for `reason`; `first` for the workload's first eviction
    /// for this reason.
    Evicted {
        cluster_queue: String,
        reason: String,
        /// Upstream's `underlying_cause` (a deactivation's cause, e.g.
        /// `MaximumExecutionTimeExceeded`), "" without one.
        underlying_cause: String,
        priority_class: String,
        first: bool,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
        /// Seconds from `PodsReady=True` to this eviction, when its pods were ready.
        pods_ready_seconds: Option<f64>,
    },
    /// A preemption issued by `preempting_cluster_queue`.
    Preempted {
        preempting_cluster_queue: String,
        reason: String,
    },
    Finished {
        cluster_queue: String,
        priority_class: String,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
    },
    /// One scheduling cycle's skipped preemptions, per ClusterQueue that had some.
    PreemptionSkips(Vec<(String, u32)>),
    /// A Workload's pods became ready for the first time since its admission
    /// (`PodsReady=True`, reason `Started`).
    PodsReady {
        cluster_queue: String,
        priority_class: String,
        /// Since it was queued (created or requeued).
        queued_seconds: f64,
        /// Since it was admitted.
        admitted_seconds: f64,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
    },
    /// An evicted Workload's quota was released (back to pending), `seconds` after its
    /// `Evicted` condition turned true for `reason` (the condition's reason).
    EvictionReleased {
        cluster_queue: String,
        reason: String,
        seconds: f64,
    },
    /// The job reconciler created a Workload `seconds` after its Job (of kind `job_kind`,
    /// still at generation 1) was created.
    WorkloadCreated { job_kind: String, seconds: f64 },
    /// Every ClusterQueue's state, replacing the gauges.
    QueueState(Vec<QueueState>),
    /// Every exposed LocalQueue's state, replacing the `kueue_local_queue_*` gauges.
    LocalQueueState(Vec<LocalQueueState>),
    /// Every cohort's state (those outside a cycle), replacing the `kueue_cohort_*` gauges.
    CohortState(Vec<CohortState>),
    /// A ClusterQueue was deleted: its counters and histograms go (upstream's
    /// `ClearClusterQueueMetrics`; its gauges leave the next snapshot).
    ClusterQueueGone { cluster_queue: String },
    /// A LocalQueue's metrics stopped being exposed (deleted, or its labels no longer match
    /// the selector): its counters and histograms go (upstream's `ClearLocalQueueMetrics`).
    LocalQueueGone(LocalQueueRef),
    /// A cohort went (its Cohort object deleted, or no ClusterQueue or Cohort names it any
    /// more): its subtree admission counter goes (upstream's
    /// `ClearCohortAdmittedWorkloadsMetrics`).
    CohortGone { cohort: String },
}
