//! What a scheduling cycle decided, as data: admissions, preemptions and pending workloads,
//! each with the numbers behind it. Wording lives in [`super::message`] (upstream's exact
//! condition messages) and in the CLI's output layer (explanations for people).

use super::key::WorkloadKey;
use super::labels::Taint;
use super::model::{Admission, PodSetAdmission};
use super::quantity::Amount;

/// Upstream v0.19's `QuotaReserved=False` reasons, plus `Unsupported` for features we
/// knowingly do not implement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PendingReason {
    NoMatchingFlavor,
    WaitingForQuota,
    ExceedsMaxQuota,
    WaitingForPreemptedWorkloads,
    Misconfigured,
    Suspended,
    PendingEvaluation,
    /// `spec.active: false`.
    Deactivated,
    Unsupported,
    /// `waitForPodsReady.blockAdmission` holds it.
    WaitingForPodsReady,
}

impl PendingReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PendingReason::NoMatchingFlavor => "NoMatchingFlavor",
            PendingReason::WaitingForQuota => "WaitingForQuota",
            PendingReason::ExceedsMaxQuota => "ExceedsMaxQuota",
            PendingReason::WaitingForPreemptedWorkloads => "WaitingForPreemptedWorkloads",
            PendingReason::Misconfigured => "Misconfigured",
            PendingReason::Suspended => "Suspended",
            PendingReason::PendingEvaluation => "PendingEvaluation",
            PendingReason::Deactivated => "Deactivated",
            PendingReason::Unsupported => "Unsupported",
            PendingReason::WaitingForPodsReady => "WaitingForPodsReady",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "NoMatchingFlavor" => PendingReason::NoMatchingFlavor,
            "WaitingForQuota" => PendingReason::WaitingForQuota,
            "ExceedsMaxQuota" => PendingReason::ExceedsMaxQuota,
            "WaitingForPreemptedWorkloads" => PendingReason::WaitingForPreemptedWorkloads,
            "Misconfigured" => PendingReason::Misconfigured,
            "Suspended" => PendingReason::Suspended,
            "PendingEvaluation" => PendingReason::PendingEvaluation,
            "Deactivated" => PendingReason::Deactivated,
            "Unsupported" => PendingReason::Unsupported,
            "WaitingForPodsReady" => PendingReason::WaitingForPodsReady,
            _ => return None,
        })
    }

    /// Upstream ranks flavor-assignment failures to pick one reason for a workload.
    pub(crate) fn severity(self) -> u8 {
        match self {
            PendingReason::NoMatchingFlavor => 4,
            PendingReason::ExceedsMaxQuota => 3,
            PendingReason::WaitingForQuota => 2,
            _ => 0,
        }
    }
}

/// `Preempted` condition reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PreemptionReason {
    InClusterQueue,
    InCohortReclamation,
    InCohortFairSharing,
    InCohortReclaimWhileBorrowing,
}

impl PreemptionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PreemptionReason::InClusterQueue => "InClusterQueue",
            PreemptionReason::InCohortReclamation => "InCohortReclamation",
            PreemptionReason::InCohortFairSharing => "InCohortFairSharing",
            PreemptionReason::InCohortReclaimWhileBorrowing => "InCohortReclaimWhileBorrowing",
        }
    }

    /// The phrase upstream puts into the eviction message
    /// ([`super::message::preemption_phrase`]).
    pub fn human(self) -> &'static str {
        super::message::preemption_phrase(self)
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "InClusterQueue" => PreemptionReason::InClusterQueue,
            "InCohortReclamation" => PreemptionReason::InCohortReclamation,
            "InCohortFairSharing" => PreemptionReason::InCohortFairSharing,
            "InCohortReclaimWhileBorrowing" => PreemptionReason::InCohortReclaimWhileBorrowing,
            _ => return None,
        })
    }
}

/// How a flavor (or one resource on it) can hold a request, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FitMode {
    NoFit,
    /// Preemption would be needed but finds no victims.
    NoCandidates,
    /// Preemption with some victims in the workload's own ClusterQueue.
    Preempt,
    /// Preemption with victims only in other ClusterQueues of the cohort.
    Reclaim,
    Fit,
}

/// Why preemption was or was not considered for a resource that lacks unused quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreemptionGate {
    /// The ClusterQueue's nominal quota alone could hold the request.
    WithinNominal,
    /// The request fits in a cohort subtree below the root.
    HierarchicalReclaim,
    /// `borrowWithinCohort` (or fair sharing with reclaim) allows preempting while borrowing.
    WhileBorrowing,
    /// None of the above: the workload waits for quota to be released.
    NotAllowed,
}

/// The quota check of one resource on one flavor.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceCheck {
    pub resource: String,
    /// Assigned to this flavor by earlier podSets of the same workload.
    pub previously_assigned: Amount,
    /// This podSet's request.
    pub requested: Amount,
    /// Unused quota the ClusterQueue can reach without preempting, borrowing included.
    pub available: Amount,
    /// The most it could ever get, with every workload gone; a larger total is
    /// `ExceedsMaxQuota`.
    pub potential_available: Amount,
    /// The ClusterQueue's own quota for this flavor and resource.
    pub nominal: Amount,
    pub borrowing_limit: Option<Amount>,
    pub lending_limit: Option<Amount>,
    /// What the ClusterQueue's workloads use of it now.
    pub cq_usage: Amount,
    /// How the total fits: in unused quota, by preempting, or not at all.
    pub mode: FitMode,
    /// Upstream's borrowing level: 0 within nominal quota, else the height of the lowest
    /// cohort subtree whose quota holds the rest.
    pub borrow_level: u32,
    /// Set when the resource did not fit in unused quota.
    pub preemption_gate: Option<PreemptionGate>,
}

impl ResourceCheck {
    /// What the workload asks of this flavor and resource: earlier podSets' and this one's.
    pub fn total(&self) -> Amount {
        self.previously_assigned + self.requested
    }

    /// How much unused quota the total lacks (zero when it fits).
    pub fn short_by(&self) -> Amount {
        (self.total() - self.available).max(Amount::ZERO)
    }
}

/// Why one flavor was or was not chosen for a podSet's resource group.
#[derive(Debug, Clone, PartialEq)]
pub enum FlavorOutcome {
    /// No ResourceFlavor of that name exists.
    NotFound,
    /// The flavor has a taint the podSet does not tolerate.
    UntoleratedTaint(Taint),
    /// The podSet's node selector or required node affinity excludes the flavor's labels.
    AffinityMismatch,
    /// Checked against quota: the worst mode and borrowing level over the group's resources,
    /// and each resource's check.
    Quota {
        mode: FitMode,
        borrow_level: u32,
        checks: Vec<ResourceCheck>,
    },
}

/// One flavor tried for a podSet's resource group, and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct FlavorAttempt {
    pub flavor: String,
    pub outcome: FlavorOutcome,
}

/// Assignment of one podSet, chosen or best-effort.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PodSetAssignment {
    pub name: String,
    pub count: i32,
    /// (resource, flavor, mode), sorted by resource.
    pub flavors: Vec<(String, String, FitMode)>,
    /// (resource, total usage of the podSet), sorted by resource.
    pub resource_usage: Vec<(String, Amount)>,
    /// Upstream's status reasons for this podSet (rendered strings, unsorted), empty on Fit.
    pub reasons: Vec<String>,
    /// Every flavor tried, in order, per resource group.
    pub attempts: Vec<FlavorAttempt>,
    /// Resources requested that no resource group covers.
    pub uncovered: Vec<String>,
}

/// A workload's flavor assignment as decisions report it (names, not ids).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assignment {
    pub pod_sets: Vec<PodSetAssignment>,
    /// Worst mode over podSets: NoFit < (NoCandidates|Preempt|Reclaim) < Fit.
    pub mode: Option<FitMode>,
    /// Borrowing level (0: within nominal).
    pub borrowing: u32,
    /// (flavor, resource, amount) the admission would use, sorted.
    pub usage: Vec<(String, String, Amount)>,
    /// The pending reason when some podSet fits nowhere (`ExceedsMaxQuota`...).
    pub no_fit_reason: Option<PendingReason>,
}

impl Assignment {
    /// The `status.admission` this assignment makes in `cluster_queue`.
    pub fn admission(&self, cluster_queue: &str) -> Admission {
        Admission {
            cluster_queue: cluster_queue.to_string(),
            pod_sets: self
                .pod_sets
                .iter()
                .map(|ps| PodSetAdmission {
                    name: ps.name.clone(),
                    flavors: ps
                        .flavors
                        .iter()
                        .map(|(r, f, _)| (r.clone(), f.clone()))
                        .collect(),
                    resource_usage: ps.resource_usage.iter().cloned().collect(),
                    count: ps.count,
                })
                .collect(),
        }
    }
}

/// A workload chosen for preemption.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub workload: WorkloadKey,
    pub cluster_queue: String,
    pub reason: PreemptionReason,
    pub priority: i32,
    /// The eviction message upstream writes into `Evicted`/`Preempted`.
    pub message: String,
}

/// What a cycle decided for one workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Quota reserved: `status.admission` and `QuotaReserved=True`.
    Admitted {
        cluster_queue: String,
        assignment: Assignment,
    },
    /// Victims are being evicted; the workload waits for them. A preemptor waiting for its
    /// victims names them again in every cycle: the list is shared between those cycles.
    Preempting {
        cluster_queue: String,
        /// Shared, as `targets` are, between the cycles that repeat the decision.
        assignment: std::sync::Arc<Assignment>,
        targets: std::sync::Arc<[Target]>,
        message: std::sync::Arc<str>,
    },
    /// Not admitted this time. `assignment` is set when the engine records details
    /// (`Engine::set_detailed_pending`); `Engine::evaluate` gives it on demand.
    Pending {
        cluster_queue: Option<String>,
        reason: PendingReason,
        message: String,
        assignment: Option<Assignment>,
        detail: PendingDetail,
    },
}

/// Why a pending workload is in no queue at all (no LocalQueue, an inactive ClusterQueue,
/// deactivated...): the `QuotaReserved=False` reason and message it carries meanwhile.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    pub reason: PendingReason,
    pub message: String,
    pub detail: PendingDetail,
}

impl Blocked {
    pub fn new(reason: PendingReason, message: impl Into<String>, detail: PendingDetail) -> Self {
        Self {
            reason,
            message: message.into(),
            detail,
        }
    }
}

/// Extra structured context for a pending outcome.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum PendingDetail {
    #[default]
    None,
    /// Another entry of the same cycle took the capacity first.
    NoLongerFits,
    /// Its preemption targets overlap with an earlier preemptor's.
    OverlappingTargets,
    /// Preemption is needed but no workload may be preempted.
    NoCandidates,
    /// Parked without evaluation: an equivalent workload (same priority and podSets) just
    /// failed with this reason.
    SameAsEquivalent {
        workload: WorkloadKey,
    },
    NoLocalQueue {
        local_queue: String,
    },
    NoClusterQueue {
        cluster_queue: String,
    },
    ClusterQueueInactive {
        cluster_queue: String,
        why: InactiveReason,
    },
    LocalQueueStopped {
        local_queue: String,
    },
    Deactivated,
    NamespaceNotSelected {
        namespace: String,
    },
    Unsupported {
        fields: Vec<String>,
    },
    /// Requests that can never be admitted (negative, above their limits).
    InvalidRequests {
        problems: Vec<String>,
    },
    /// It fits, but `blockAdmission` holds it until these admitted workloads are `PodsReady`.
    WaitingForPodsReady {
        workloads: Vec<WorkloadKey>,
    },
}

/// Why a ClusterQueue is not active (upstream's `Active` condition reasons and ours).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InactiveReason {
    /// Being deleted (upstream's `Terminating`): its admitted workloads keep their quota.
    Terminating,
    /// Its object (or a Cohort or ResourceFlavor it uses) was edited into something we
    /// reject: the last valid picture is kept for what holds quota, nothing new is admitted.
    InvalidSpec(String),
    Stopped,
    FlavorNotFound(Vec<String>),
    CohortCycle(String),
    Unsupported(Vec<String>),
}

impl InactiveReason {
    pub fn condition_reason(&self) -> &'static str {
        match self {
            InactiveReason::Terminating => "Terminating",
            InactiveReason::InvalidSpec(_) => "InvalidSpec",
            InactiveReason::Stopped => "Stopped",
            InactiveReason::FlavorNotFound(_) => "FlavorNotFound",
            InactiveReason::CohortCycle(_) => "CohortHasCycle",
            InactiveReason::Unsupported(_) => "Unsupported",
        }
    }

    /// The `Active=False` message ([`super::message::cluster_queue_not_active`]).
    pub fn message(&self) -> String {
        super::message::cluster_queue_not_active(self)
    }
}

/// One decision about one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadDecision {
    pub workload: WorkloadKey,
    pub decision: Decision,
}

/// Everything one scheduling cycle decided, in processing order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CycleOutcome {
    pub cycle: u64,
    pub decisions: Vec<WorkloadDecision>,
    /// Per ClusterQueue (by name), how many of its entries had preemption targets but were
    /// skipped because an earlier entry of the cycle claimed the same victims or capacity
    /// (upstream's `kueue_admission_cycle_preemption_skips`); ClusterQueues without skips
    /// are absent.
    pub preemption_skips: std::collections::BTreeMap<String, u32>,
}

impl CycleOutcome {
    pub fn admitted(&self) -> impl Iterator<Item = &WorkloadDecision> {
        self.decisions
            .iter()
            .filter(|d| matches!(d.decision, Decision::Admitted { .. }))
    }

    pub fn preempting(&self) -> impl Iterator<Item = &WorkloadDecision> {
        self.decisions
            .iter()
            .filter(|d| matches!(d.decision, Decision::Preempting { .. }))
    }
}
