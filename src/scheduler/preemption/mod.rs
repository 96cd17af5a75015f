//! Preemption: which workloads must be evicted so a preemptor fits, as upstream Kueue chooses
//! them, classical (`classical`) or with fair sharing (`fair_sharing`), and the oracle
//! flavor assignment asks (`simulate`).
//!
//! Invariants: every function here leaves the quota tree as it found it (what-ifs remove
//! victims' usage and put it back); victims are workloads holding quota on a (flavor,
//! resource) that needs preemption, chosen per the preemptor's ClusterQueue policies.
//! Classical and fair-sharing preemption share only what is in `common`; fair-sharing
//! preemption reads shares from [`super::fair_sharing`], which never depends on this module.

use std::cell::RefCell;

mod classical;
mod common;
mod fair_sharing;

use super::decision::{FitMode, PreemptionReason};
use super::flavor_assigner::Fit;
use super::guard::WhatIf;
use super::id::{CqId, FrId, WlId};
use super::quantity::Amount;
use super::tree::Tree;
use super::view::View;

/// A workload to evict, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Victim {
    pub wl: WlId,
    pub reason: PreemptionReason,
}

/// The preemption problem: who needs room, where, for how much.
pub(crate) struct Request<'r> {
    pub preemptor: WlId,
    pub cq: CqId,
    /// (flavor, resource) pairs whose assignment needs preemption.
    pub frs: &'r [FrId],
    /// The whole request of the workload, per (flavor, resource).
    pub usage: &'r [(FrId, Amount)],
}

/// Victims for `req`, or none when preemption can't make it fit. `lists` may be shared by
/// every search of a nomination, on one tree.
fn get_targets(
    view: &View,
    tree: &mut Tree,
    req: &Request,
    lists: &classical::CohortLists,
) -> Vec<Victim> {
    if view.fair_sharing() {
        fair_sharing::preemptions(view, tree, req)
    } else {
        classical::targets(view, tree, req, lists)
    }
}

/// The preemption searches of one nomination (one head's, or every head's of a cycle),
/// remembered for the rest of it: the flavor oracle ([`simulate`]) searches first, then
/// nomination searches for the targets of the assignment, for a single-resource workload
/// the very same request; and every head of a cohort sorts the same candidates from other
/// queues. A memo lives while the tree and the workloads do not change (every what-if is
/// undone), so the same request has the same answer.
#[derive(Debug, Default)]
pub(crate) struct SearchMemo {
    last: RefCell<Option<Remembered>>,
    lists: classical::CohortLists,
}

#[derive(Debug)]
struct Remembered {
    preemptor: WlId,
    cq: CqId,
    frs: Vec<FrId>,
    usage: Vec<(FrId, Amount)>,
    victims: Vec<Victim>,
}

impl SearchMemo {
    /// [`get_targets`], or its answer to the same request last time.
    pub(crate) fn targets(&self, view: &View, tree: &mut Tree, req: &Request) -> Vec<Victim> {
        if let Some(r) = self.last.borrow().as_ref()
            && (r.preemptor, r.cq) == (req.preemptor, req.cq)
            && r.frs == req.frs
            && r.usage == req.usage
        {
            return r.victims.clone();
        }
        let victims = get_targets(view, tree, req, &self.lists);
        *self.last.borrow_mut() = Some(Remembered {
            preemptor: req.preemptor,
            cq: req.cq,
            frs: req.frs.to_vec(),
            usage: req.usage.to_vec(),
            victims: victims.clone(),
        });
        victims
    }
}

/// Upstream's oracle: can preemption make room for `val` on one (flavor, resource), and
/// with what borrowing level afterwards?
pub(crate) fn simulate(
    view: &View,
    tree: &mut Tree,
    memo: &SearchMemo,
    preemptor: WlId,
    cq: CqId,
    fr: FrId,
    val: Amount,
) -> Fit {
    let usage = [(fr, val)];
    let frs = [fr];
    let req = Request {
        preemptor,
        cq,
        frs: &frs,
        usage: &usage,
    };
    let targets = memo.targets(view, tree, &req);
    let node = view.cq_node(cq);
    if targets.is_empty() {
        return Fit {
            mode: FitMode::NoCandidates,
            borrow: tree.lowest_subtree_that_fits(node, fr, val).0,
        };
    }
    let borrow = {
        let mut without_victims = WhatIf::new(tree);
        for t in &targets {
            without_victims.take_out(view, t.wl);
        }
        without_victims.lowest_subtree_that_fits(node, fr, val).0
    };
    let in_cq = targets
        .iter()
        .any(|t| view.wl(t.wl).holding.as_ref().is_some_and(|h| h.cq == cq));
    Fit {
        mode: if in_cq {
            FitMode::Preempt
        } else {
            FitMode::Reclaim
        },
        borrow,
    }
}
