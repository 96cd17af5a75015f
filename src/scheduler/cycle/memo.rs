//! Nominations remembered across cycles. A preemptor waiting for its victims stays its
//! queue's head and is nominated again in every cycle (as upstream's), assigning flavors and
//! searching targets on a cohort tree that, while the victims' releases wait in the API
//! server's queue, has not changed since: the same inputs, the same answer, and at
//! large-scale flavor assignment and the target search were a quarter of the controller's
//! CPU. A preemptor's assignment and targets are kept, stamped with what they were
//! computed from, and used while all of it stands.
//!
//! Invariants: a kept nomination answers only the same workload (its answers are forgotten
//! whenever it changes: `Engine::forget_answers`) in the same ClusterQueue, at the same
//! version of its cohort tree (the version [`SearchCache`] keeps: bumped on every change of
//! who holds quota there, and how much, and on a holder marked evicted), the same
//! ClusterQueue generation, and from the same flavor scan state. A nomination that read the
//! clock is not kept. Only nominations with targets are kept, one per workload.
//!
//! With a kept nomination the preemptor's `Preempting` decision is the one it had before
//! (the same victims, holding the same quota in the same queues, named for the same
//! preemptor): that decision is kept with it, shared, rather than its victims' messages and
//! the assignment's report being written again in every cycle.
//!
//! [`SearchCache`]: crate::scheduler::preemption::SearchCache

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::scheduler::decision::{Assignment, Target};
use crate::scheduler::flavor_assigner::Assigned;
use crate::scheduler::id::{CqId, FrId, NodeId, WlId};
use crate::scheduler::preemption::Victim;
use crate::scheduler::quantity::Amount;
use crate::scheduler::state::{FlavorScan, LastState};

/// What a kept nomination was computed from.
#[derive(Debug, Clone)]
struct NominationInputs {
    cq: CqId,
    /// The cohort tree's version.
    version: u64,
    /// The ClusterQueue's generation.
    generation: u64,
    /// The flavor scan it started from (its cycle aside, which only decides whether the
    /// scan is resumed at all).
    scan: Option<(Vec<Vec<FlavorScan>>, u64)>,
}

/// The same inputs, borrowed: every head of every cycle is looked up with them, and only a
/// nomination kept copies them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NominationKey<'a> {
    pub cq: CqId,
    pub version: u64,
    pub generation: u64,
    pub last: Option<&'a LastState>,
}

impl NominationKey<'_> {
    fn owned(&self) -> NominationInputs {
        NominationInputs {
            cq: self.cq,
            version: self.version,
            generation: self.generation,
            scan: self.last.map(|l| (l.tried.clone(), l.generation)),
        }
    }
}

impl NominationInputs {
    fn is(&self, key: &NominationKey) -> bool {
        let same_scan = match (&self.scan, key.last) {
            (None, None) => true,
            (Some((tried, generation)), Some(l)) => {
                *tried == l.tried && *generation == l.generation
            }
            _ => false,
        };
        self.cq == key.cq
            && self.version == key.version
            && self.generation == key.generation
            && same_scan
    }
}

/// Usage per ClusterQueue node, the node's pairs in any order.
pub(crate) type QueueSums = Arc<[(NodeId, Vec<(FrId, Amount)>)]>;

/// A nomination: the assignment, its condition message, and the victims, with the quota
/// they hold summed per ClusterQueue (taking the sums out of the tree leaves it as taking
/// out each victim would: tree usage depends only on each queue's total).
#[derive(Debug, Clone)]
pub(crate) struct Nomination {
    pub assigned: Arc<Assigned>,
    pub message: String,
    pub targets: Vec<Victim>,
    pub target_sums: QueueSums,
}

/// What a kept nomination's `Preempting` decision said.
#[derive(Debug, Clone)]
pub(crate) struct Issued {
    pub targets: Arc<[Target]>,
    pub assignment: Arc<Assignment>,
    pub message: Arc<str>,
}

#[derive(Debug, Clone)]
struct Kept {
    inputs: NominationInputs,
    nomination: Nomination,
    issued: Option<Issued>,
}

/// Preemptors' nominations of earlier cycles (see the module comment).
#[derive(Debug, Clone, Default)]
pub(crate) struct NominationCache {
    kept: BTreeMap<WlId, Kept>,
    /// Nominations answered from here.
    pub(crate) hits: u64,
}

impl NominationCache {
    /// The nomination `wl` had from the same inputs, if kept.
    pub(crate) fn answer(&mut self, wl: WlId, inputs: &NominationKey) -> Option<Nomination> {
        let kept = self.kept.get(&wl).filter(|k| k.inputs.is(inputs))?;
        self.hits += 1;
        Some(kept.nomination.clone())
    }

    /// Would [`NominationCache::answer`] answer `wl` with these inputs?
    pub(crate) fn would_answer(&self, wl: WlId, inputs: &NominationKey) -> bool {
        self.kept.get(&wl).is_some_and(|k| k.inputs.is(inputs))
    }

    /// Keeps a preemptor's nomination; any other result forgets what `wl` had.
    pub(crate) fn remember(&mut self, wl: WlId, inputs: &NominationKey, nomination: &Nomination) {
        if nomination.targets.is_empty() {
            self.kept.remove(&wl);
            return;
        }
        self.kept.insert(
            wl,
            Kept {
                inputs: inputs.owned(),
                nomination: nomination.clone(),
                issued: None,
            },
        );
    }

    /// The decision `wl`'s kept nomination issued, if it issued one.
    pub(crate) fn issued(&self, wl: WlId) -> Option<Issued> {
        self.kept.get(&wl)?.issued.clone()
    }

    /// Keeps the decision `wl`'s nomination, kept in this cycle, issued.
    pub(crate) fn keep_issued(&mut self, wl: WlId, issued: &Issued) {
        if let Some(k) = self.kept.get_mut(&wl) {
            k.issued = Some(issued.clone());
        }
    }

    /// `wl` changed, or is gone.
    pub(crate) fn forget(&mut self, wl: WlId) {
        self.kept.remove(&wl);
    }

    /// Workloads with a nomination kept.
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}
