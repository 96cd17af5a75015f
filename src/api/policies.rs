//! The policy enums and small policy structs of a ClusterQueue (and LocalQueue): queueing
//! strategy, stop policy, flavor fungibility and preemption, with upstream's defaults.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::macros::default_from_empty_map;

/// How a ClusterQueue orders its pending workloads.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum QueueingStrategy {
    /// By priority, then creation time; an older workload that does not fit blocks newer ones.
    StrictFIFO,
    /// By priority, then creation time; a workload that does not fit does not block newer ones
    /// that do. The default.
    #[default]
    BestEffortFIFO,
}

/// Whether a queue takes new reservations and what happens to its admitted workloads.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum StopPolicy {
    /// Active. The default.
    #[default]
    None,
    /// Inactive; admitted workloads run to completion, reservations not yet admitted are dropped.
    Hold,
    /// Inactive; admitted workloads are evicted and reservations dropped.
    HoldAndDrain,
}

impl StopPolicy {
    /// Whether the queue stops taking new reservations.
    pub fn is_stopped(self) -> bool {
        self != StopPolicy::None
    }
}

/// When to look at the next flavor instead of settling for the current one.
///
/// Upstream checks that `preference` is only set when both policies are `TryNextFlavor`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor')",
    "message": "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor",
}]))]
pub struct FlavorFungibility {
    /// What to do when the workload fits the current flavor only by borrowing.
    /// Defaults to `MayStopSearch`.
    #[serde(default)]
    pub when_can_borrow: WhenCanBorrow,

    /// What to do when the workload fits the current flavor only by preempting.
    /// Defaults to `TryNextFlavor`.
    #[serde(default)]
    pub when_can_preempt: WhenCanPreempt,

    /// Which to prefer when every candidate flavor needs borrowing, preemption or both.
    /// Without it, borrowing is preferred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<FlavorFungibilityPreference>,
}

default_from_empty_map!(FlavorFungibility);

/// Values of `flavorFungibility.whenCanBorrow`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum WhenCanBorrow {
    /// Stop at this flavor if the workload fits or fits by borrowing. The default.
    #[default]
    MayStopSearch,
    /// Try the next flavor if the workload needs to borrow here.
    TryNextFlavor,
    /// Deprecated spelling of `MayStopSearch`, still accepted by v1beta1.
    Borrow,
}

impl WhenCanBorrow {
    /// Folds the deprecated alias: `Borrow` behaves as `MayStopSearch`.
    pub fn normalized(self) -> Self {
        match self {
            WhenCanBorrow::Borrow => WhenCanBorrow::MayStopSearch,
            other => other,
        }
    }
}

/// Values of `flavorFungibility.whenCanPreempt`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum WhenCanPreempt {
    /// Stop at this flavor if the workload fits or fits by preempting.
    MayStopSearch,
    /// Try the next flavor if the workload needs preemption here. The default.
    #[default]
    TryNextFlavor,
    /// Deprecated spelling of `MayStopSearch`, still accepted by v1beta1.
    Preempt,
}

impl WhenCanPreempt {
    /// Folds the deprecated alias: `Preempt` behaves as `MayStopSearch`.
    pub fn normalized(self) -> Self {
        match self {
            WhenCanPreempt::Preempt => WhenCanPreempt::MayStopSearch,
            other => other,
        }
    }
}

/// Values of `flavorFungibility.preference`.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema,
)]
pub enum FlavorFungibilityPreference {
    /// Prefer the flavor that borrows least (closest in the cohort tree), then the better
    /// preemption mode.
    BorrowingOverPreemption,
    /// Prefer the better preemption mode, then the flavor that borrows least.
    PreemptionOverBorrowing,
}

/// Which admitted workloads a pending workload of this ClusterQueue may preempt.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "rule": "!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never')",
    "message": "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
}]))]
pub struct ClusterQueuePreemption {
    /// Whether a workload that fits within this queue's nominal quota may preempt workloads of
    /// other queues in the cohort that use more than their nominal quota. Defaults to `Never`.
    #[serde(default)]
    pub reclaim_within_cohort: ReclaimWithinCohortPolicy,

    /// Whether a workload that needs to borrow may preempt workloads of other queues in the
    /// cohort (classical preemption only, not fair sharing).
    #[serde(default)]
    pub borrow_within_cohort: BorrowWithinCohort,

    /// Whether a workload that does not fit within this queue's nominal quota may preempt
    /// admitted workloads of this queue. Defaults to `Never`.
    #[serde(default)]
    pub within_cluster_queue: WithinClusterQueuePolicy,
}

default_from_empty_map!(ClusterQueuePreemption);

/// Values of `preemption.reclaimWithinCohort`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum ReclaimWithinCohortPolicy {
    /// Never preempt in the cohort. The default.
    #[default]
    Never,
    /// Only workloads of lower priority than the pending one (and, with fair sharing, that the
    /// preemption strategies allow).
    LowerPriority,
    /// Any workload, whatever its priority (with fair sharing, as the strategies allow).
    Any,
}

/// Values of `preemption.withinClusterQueue`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum WithinClusterQueuePolicy {
    /// Never preempt in the ClusterQueue. The default.
    #[default]
    Never,
    /// Only workloads of lower priority.
    LowerPriority,
    /// Workloads of lower priority, or of equal priority that are newer.
    LowerOrNewerEqualPriority,
}

/// Preemption in the cohort on behalf of a workload that borrows.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BorrowWithinCohort {
    /// Whether a borrowing workload may preempt in other queues of the cohort.
    /// Defaults to `Never`.
    #[serde(default)]
    pub policy: BorrowWithinCohortPolicy,

    /// If set, only workloads with a priority at or below this value may be preempted by a
    /// borrowing workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_priority_threshold: Option<i32>,
}

default_from_empty_map!(BorrowWithinCohort);

/// Values of `preemption.borrowWithinCohort.policy`.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    JsonSchema,
)]
pub enum BorrowWithinCohortPolicy {
    /// A borrowing workload never preempts in other queues. The default.
    #[default]
    Never,
    /// A borrowing workload may preempt lower-priority workloads in other queues.
    LowerPriority,
}
