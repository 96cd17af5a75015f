//! The engine's input: a plain-data picture of the cluster, keyed by names.
//!
//! Adapters (manifest loader, API server watches) build a [`ClusterState`]; the engine never
//! sees Kubernetes types. Every map is a `BTreeMap` so iteration order is by name, and every
//! quantity is already an [`Amount`] in the resource's scheduling unit.

use std::collections::BTreeMap;

use super::key::WorkloadKey;
use super::labels::{LabelSelector, NodeSelectorTerm, Taint, Toleration};
use super::quantity::Amount;

/// Milliseconds since the Unix epoch. Time is always a parameter, never read from a clock.
pub type Millis = i64;

/// Scheduler-wide settings, from upstream's `Configuration` plus our documented differences.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerConfig {
    /// `fairSharing.enable`; when set, admission order and preemption follow fair sharing.
    pub fair_sharing: Option<FairSharingConfig>,
    /// `resources.quotaCheckStrategy`: whether resources the ClusterQueue doesn't cover block.
    pub quota_check: QuotaCheckStrategy,
    /// How a ClusterQueue without `namespaceSelector` is read (see README: the seed omits it).
    pub missing_namespace_selector: MissingSelector,
    /// `waitForPodsReady`, when on.
    pub pods_ready: Option<PodsReadyConfig>,
}

/// Upstream's `waitForPodsReady`, defaults applied. The engine reads `block_admission`; the
/// workload controller's rules ([`crate::policy::pods_ready`]) read the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct PodsReadyConfig {
    /// `timeout`: how long an admitted workload has to get all its pods ready.
    pub timeout_ms: Millis,
    /// `recoveryTimeout`: how long a workload that lost readiness has to recover (`None`: no
    /// limit).
    pub recovery_timeout_ms: Option<Millis>,
    /// `blockAdmission`: no admission while an admitted workload is not `PodsReady`.
    pub block_admission: bool,
    /// `requeuingStrategy.timestamp: Eviction`: a workload evicted for `PodsReadyTimeout`
    /// queues by its eviction time (else by its creation time).
    pub order_by_eviction: bool,
    /// `requeuingStrategy.backoffLimitCount` (`None`: requeued forever).
    pub backoff_limit_count: Option<i32>,
    pub backoff_base_seconds: i32,
    pub backoff_max_seconds: i32,
}

impl SchedulerConfig {
    /// Does a workload evicted for `PodsReadyTimeout` queue by its eviction time? Upstream's
    /// ordering defaults to yes, with `waitForPodsReady` off too.
    pub fn orders_by_eviction(&self) -> bool {
        self.pods_ready.as_ref().is_none_or(|p| p.order_by_eviction)
    }

    /// Is admission held while an admitted workload is not `PodsReady`?
    pub fn blocks_admission(&self) -> bool {
        self.pods_ready.as_ref().is_some_and(|p| p.block_admission)
    }
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        Self {
            fair_sharing: None,
            quota_check: QuotaCheckStrategy::BlockUndeclared,
            missing_namespace_selector: MissingSelector::MatchAll,
            pods_ready: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FairSharingConfig {
    /// Preemption strategies in order; empty means upstream's default (both, S2-a then S2-b).
    pub strategies: Vec<FairSharingStrategy>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FairSharingStrategy {
    LessThanOrEqualToFinalShare,
    LessThanInitialShare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaCheckStrategy {
    BlockUndeclared,
    IgnoreUndeclared,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingSelector {
    /// Our default: a ClusterQueue without a selector admits from every namespace.
    MatchAll,
    /// Upstream's reading: no selector selects no namespace.
    MatchNone,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterState {
    pub config: SchedulerConfig,
    pub flavors: BTreeMap<String, ResourceFlavor>,
    pub cohorts: BTreeMap<String, Cohort>,
    pub cluster_queues: BTreeMap<String, ClusterQueue>,
    /// Keyed by (namespace, name).
    pub local_queues: BTreeMap<(String, String), LocalQueue>,
    /// Namespace labels. A namespace that is only referenced exists with no labels.
    pub namespaces: BTreeMap<String, BTreeMap<String, String>>,
    /// In input order; order only matters through each workload's `tiebreak`.
    pub workloads: Vec<Workload>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceFlavor {
    pub node_labels: BTreeMap<String, String>,
    pub node_taints: Vec<Taint>,
    pub tolerations: Vec<Toleration>,
    /// Topology-aware scheduling is out of scope: a flavor with a topology is unsupported.
    pub topology_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResourceQuota {
    pub name: String,
    pub nominal: Amount,
    pub borrowing_limit: Option<Amount>,
    pub lending_limit: Option<Amount>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlavorQuotas {
    pub name: String,
    pub resources: Vec<ResourceQuota>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResourceGroup {
    pub covered_resources: Vec<String>,
    pub flavors: Vec<FlavorQuotas>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cohort {
    pub parent: Option<String>,
    pub resource_groups: Vec<ResourceGroup>,
    pub fair_weight: f64,
}

impl Default for Cohort {
    fn default() -> Self {
        Self {
            parent: None,
            resource_groups: Vec::new(),
            fair_weight: 1.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueingStrategy {
    StrictFifo,
    #[default]
    BestEffortFifo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum PreemptionPolicy {
    #[default]
    Never,
    LowerPriority,
    LowerOrNewerEqualPriority,
    Any,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preemption {
    /// `reclaimWithinCohort`: `Never`, `LowerPriority` or `Any`.
    pub reclaim_within_cohort: PreemptionPolicy,
    /// `withinClusterQueue`: `Never`, `LowerPriority` or `LowerOrNewerEqualPriority`.
    pub within_cluster_queue: PreemptionPolicy,
    /// `borrowWithinCohort`; `None` means policy `Never`.
    pub borrow_within_cohort: Option<BorrowWithinCohort>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BorrowWithinCohort {
    /// Only `LowerPriority` allows anything; kept as a flag for clarity.
    pub lower_priority: bool,
    pub max_priority_threshold: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenCanBorrow {
    #[default]
    MayStopSearch,
    TryNextFlavor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenCanPreempt {
    MayStopSearch,
    #[default]
    TryNextFlavor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FungibilityPreference {
    #[default]
    BorrowingOverPreemption,
    PreemptionOverBorrowing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlavorFungibility {
    pub when_can_borrow: WhenCanBorrow,
    pub when_can_preempt: WhenCanPreempt,
    pub preference: FungibilityPreference,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopPolicy {
    #[default]
    None,
    Hold,
    HoldAndDrain,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClusterQueue {
    pub cohort: Option<String>,
    pub resource_groups: Vec<ResourceGroup>,
    /// `None`: no selector in the spec (read per [`MissingSelector`]).
    pub namespace_selector: Option<LabelSelector>,
    pub queueing_strategy: QueueingStrategy,
    pub preemption: Preemption,
    pub flavor_fungibility: FlavorFungibility,
    pub stop_policy: StopPolicy,
    pub fair_weight: f64,
    /// Features we knowingly do not implement (admission checks, ...), by field path.
    pub unsupported: Vec<String>,
    /// `metadata.deletionTimestamp` is set: held by its finalizer while workloads still hold
    /// quota in it, it admits nothing new (upstream's `Terminating`).
    pub terminating: bool,
    /// The object as it is now was rejected (the controller keeps its last valid picture, or
    /// an empty one, for the workloads holding quota in it): the problem, in words. It admits
    /// nothing new while this is set.
    pub invalid: Option<String>,
}

impl Default for ClusterQueue {
    fn default() -> Self {
        Self {
            cohort: None,
            resource_groups: Vec::new(),
            namespace_selector: None,
            queueing_strategy: QueueingStrategy::BestEffortFifo,
            preemption: Preemption::default(),
            flavor_fungibility: FlavorFungibility::default(),
            stop_policy: StopPolicy::None,
            fair_weight: 1.0,
            unsupported: Vec::new(),
            terminating: false,
            invalid: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LocalQueue {
    pub cluster_queue: String,
    pub stop_policy: StopPolicy,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PodSet {
    pub name: String,
    pub count: i32,
    pub min_count: Option<i32>,
    /// Requests of one pod, in scheduling units.
    pub per_pod: BTreeMap<String, Amount>,
    pub node_selector: BTreeMap<String, String>,
    /// Required node affinity terms (ORed); `None` when the pod has none.
    pub required_affinity: Option<Vec<NodeSelectorTerm>>,
    pub tolerations: Vec<Toleration>,
}

/// One podSet's part of an existing admission, as written in `status.admission`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PodSetAdmission {
    pub name: String,
    /// resource -> flavor
    pub flavors: BTreeMap<String, String>,
    /// resource -> total usage of the podSet
    pub resource_usage: BTreeMap<String, Amount>,
    pub count: i32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Admission {
    pub cluster_queue: String,
    pub pod_sets: Vec<PodSetAdmission>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Workload {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// Label `kueue.x-k8s.io/job-uid`, quoted in eviction messages.
    pub job_uid: Option<String>,
    pub queue_name: String,
    pub priority: i32,
    pub priority_class: Option<String>,
    /// Queue-order time (creation, or eviction time where upstream uses it).
    pub queue_time: Millis,
    /// Stable tie-break after priority and time (document order offline, UID order live).
    pub tiebreak: u64,
    pub pod_sets: Vec<PodSet>,
    /// `spec.active`.
    pub active: bool,
    /// `Finished=True`: holds no quota and is never queued.
    pub finished: bool,
    /// `status.admission` with `QuotaReserved=True`.
    pub admission: Option<Admission>,
    /// lastTransitionTime of `QuotaReserved=True`, for victim ordering.
    pub quota_reserved_at: Option<Millis>,
    /// `Admitted=True` (counts for usage metrics; we have no admission checks, so it follows
    /// the reservation).
    pub admitted: bool,
    /// `Evicted=True`: being evicted, still holding quota until its pods are gone.
    pub evicted: bool,
    /// `Requeued=False`, or a `requeueAt` in the future: not queued for now.
    pub requeue_blocked: bool,
    pub requeue_at: Option<Millis>,
    /// `PodsReady=True`: with `blockAdmission`, an admitted workload without it holds every
    /// other admission.
    pub pods_ready: bool,
    /// podSet name -> pods that finished and no longer need quota.
    pub reclaimable: BTreeMap<String, i32>,
    /// Features we do not implement, by field path (topologyRequest, admission checks...).
    pub unsupported: Vec<String>,
    /// Requests that can never be admitted (negative, above their limits), each with its
    /// field path in upstream's words: the workload stays pending (`Misconfigured`).
    pub invalid_requests: Vec<String>,
    /// What `pod_sets`, `unsupported` and `invalid_requests` were computed from, opaque to
    /// the engine: a caller that sees the same version again may keep them (the controller:
    /// the object's `metadata.generation` and its request context's version). `None`: not
    /// known, computed every time.
    pub spec_version: Option<(i64, u64)>,
}

impl Workload {
    pub fn key(&self) -> WorkloadKey {
        WorkloadKey::new(&self.namespace, &self.name)
    }
}
