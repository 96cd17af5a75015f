//! Classical preemption (upstream's `preemption.go` without fair sharing).
//!
//! Candidates are workloads holding quota on a (flavor, resource) that needs preemption:
//! in the preemptor's own ClusterQueue per `withinClusterQueue`, and in other ClusterQueues
//! of the cohort tree that are over their nominal quota per `reclaimWithinCohort` (and
//! `borrowWithinCohort`). They are tried in upstream's order (already evicted, other queues,
//! lower priority, most recently reserved) until the preemptor fits, then the set is
//! minimised by adding victims back in reverse. The tree is restored before returning.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::common::{fill_back, sort_candidates, workload_fits};
use super::{Request, Victim};
use crate::scheduler::decision::PreemptionReason;
use crate::scheduler::guard::WhatIf;
use crate::scheduler::id::WlId;
use crate::scheduler::id::{CqId, FrId, NodeId};
use crate::scheduler::model::PreemptionPolicy;
use crate::scheduler::tree::Tree;
use crate::scheduler::view::View;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    WithinCq,
    HierarchicalReclaim,
    ReclaimWithoutBorrowing,
    ReclaimWhileBorrowing,
}

impl Variant {
    fn reason(self) -> PreemptionReason {
        match self {
            Variant::WithinCq => PreemptionReason::InClusterQueue,
            Variant::HierarchicalReclaim | Variant::ReclaimWithoutBorrowing => {
                PreemptionReason::InCohortReclamation
            }
            Variant::ReclaimWhileBorrowing => PreemptionReason::InCohortReclaimWhileBorrowing,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    wl: WlId,
    /// Lowest common ancestor with the preemptor, for validity checks.
    lca: Option<NodeId>,
    variant: Variant,
}

/// Other ClusterQueues' candidates in one subtree, sorted, shared by every head of a
/// nomination (the tree and the workloads do not change in it). Only for the policy where
/// whom a preemptor may take from other queues does not depend on the preemptor:
/// `reclaimWithinCohort: Any` without `borrowWithinCohort`. Keyed by the subtree, the
/// subtree skipped (the preemptor's side of it), the hierarchical advantage and the
/// (flavor, resource) pairs; the lists include the preemptor's own queue, which each
/// search leaves out.
#[derive(Debug, Default)]
pub(super) struct CohortLists {
    lists: RefCell<BTreeMap<ListKey, Rc<Vec<Candidate>>>>,
}

type ListKey = (NodeId, Option<NodeId>, bool, Vec<FrId>);

fn preemptor_independent(view: &View, req: &Request) -> bool {
    let p = &view.cqs[req.cq].spec.preemption;
    p.reclaim_within_cohort == PreemptionPolicy::Any
        && p.borrow_within_cohort
            .as_ref()
            .is_none_or(|b| !b.lower_priority)
}

/// Appends the candidates of the subtree `current` (less `skip`) to `out`, from `lists`
/// when the policy allows sharing them.
#[allow(clippy::too_many_arguments)]
fn collect_level(
    view: &View,
    tree: &Tree,
    req: &Request,
    lists: &CohortLists,
    current: NodeId,
    skip: Option<NodeId>,
    adv: bool,
    out: &mut Vec<Candidate>,
) {
    // This search's own list, unsorted: the preemptor's queue left out.
    let own_list = |out: &mut Vec<Candidate>| {
        collect_in_subtree(
            view,
            tree,
            req,
            current,
            current,
            skip,
            adv,
            Some(req.cq),
            out,
        )
    };
    if !preemptor_independent(view, req) {
        own_list(out);
        return;
    }
    let key = (current, skip, adv, req.frs.to_vec());
    let shared = lists.lists.borrow().get(&key).cloned();
    let shared = shared.unwrap_or_else(|| {
        let mut all = Vec::new();
        collect_in_subtree(view, tree, req, current, current, skip, adv, None, &mut all);
        // Sorted as seen from another queue (a search leaves its own queue's out).
        sort_candidates(view, None, &mut all, |c| c.wl);
        let all = Rc::new(all);
        lists.lists.borrow_mut().insert(key, all.clone());
        all
    });
    let own = |c: &Candidate| {
        view.wl(c.wl)
            .holding
            .as_ref()
            .is_some_and(|h| h.cq == req.cq)
    };
    #[cfg(debug_assertions)]
    let from = out.len();
    out.extend(shared.iter().filter(|c| !own(c)).copied());
    // Every test (debug builds) checks the shared list against this search's own.
    #[cfg(debug_assertions)]
    {
        let mut fresh = Vec::new();
        own_list(&mut fresh);
        sort_candidates(view, Some(req.cq), &mut fresh, |c| c.wl);
        let key = |c: &Candidate| (c.wl, c.lca, c.variant);
        debug_assert!(
            out[from..].iter().map(key).eq(fresh.iter().map(key)),
            "a shared candidate list differs from the search's own"
        );
    }
}

fn classify(view: &View, req: &Request, wl: WlId, hierarchical_advantage: bool) -> Option<Variant> {
    let st = view.wl(wl);
    if !st.uses_any(req.frs) {
        return None;
    }
    let cq = &view.cqs[req.cq];
    let same_cq = st.holding.as_ref().is_some_and(|h| h.cq == req.cq);
    let policy = if same_cq {
        cq.spec.preemption.within_cluster_queue
    } else {
        cq.spec.preemption.reclaim_within_cohort
    };
    if !view.satisfies_policy(policy, req.preemptor, wl) {
        return None;
    }
    if same_cq {
        return Some(Variant::WithinCq);
    }
    if hierarchical_advantage {
        return Some(Variant::HierarchicalReclaim);
    }
    let Some(bwc) = cq
        .spec
        .preemption
        .borrow_within_cohort
        .as_ref()
        .filter(|b| b.lower_priority)
    else {
        return Some(Variant::ReclaimWithoutBorrowing);
    };
    let candidate = st.priority();
    let incoming = view.wl(req.preemptor).priority();
    let above = candidate >= incoming || bwc.max_priority_threshold.is_some_and(|t| candidate > t);
    Some(if above {
        Variant::ReclaimWithoutBorrowing
    } else {
        Variant::ReclaimWhileBorrowing
    })
}

/// The holders of `cq` that are candidates for `req`, as [`classify`] says; with `shared`,
/// as it says of a workload in another queue than the preemptor's under a policy that does
/// not depend on the preemptor (see [`CohortLists`]).
fn candidates_of_cq(
    view: &View,
    req: &Request,
    cq: CqId,
    lca: Option<NodeId>,
    adv: bool,
    shared: bool,
    out: &mut Vec<Candidate>,
) {
    let other_queue = if adv {
        Variant::HierarchicalReclaim
    } else {
        Variant::ReclaimWithoutBorrowing
    };
    for &wl in &view.cqs[cq].holding {
        let variant = if shared {
            view.wl(wl).uses_any(req.frs).then_some(other_queue)
        } else {
            classify(view, req, wl, adv)
        };
        if let Some(variant) = variant {
            out.push(Candidate { wl, lca, variant });
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn collect_in_subtree(
    view: &View,
    tree: &Tree,
    req: &Request,
    current: NodeId,
    subtree_root: NodeId,
    skip: Option<NodeId>,
    adv: bool,
    leave_out: Option<CqId>,
    out: &mut Vec<Candidate>,
) {
    for &child in &tree.nodes[current].child_cohorts {
        if Some(child) == skip || tree.within_nominal_in(child, req.frs) {
            continue;
        }
        collect_in_subtree(
            view,
            tree,
            req,
            child,
            subtree_root,
            skip,
            adv,
            leave_out,
            out,
        );
    }
    // No queue left out: a shared list, classified as seen from any other queue.
    let own = leave_out.map(|cq| view.cq_node(cq));
    for &child in &tree.nodes[current].child_cqs {
        if Some(child) == own || tree.within_nominal_in(child, req.frs) {
            continue;
        }
        if let Some(cq) = view.cq_of_node[child] {
            let shared = leave_out.is_none();
            candidates_of_cq(view, req, cq, Some(subtree_root), adv, shared, out);
        }
    }
}

/// Victims for `req`, or none when classical preemption cannot make it fit.
pub(super) fn targets(
    view: &View,
    tree: &mut Tree,
    req: &Request,
    lists: &CohortLists,
) -> Vec<Victim> {
    let cq = &view.cqs[req.cq];
    let node = cq.node;
    let mut same: Vec<Candidate> = Vec::new();
    if cq.spec.preemption.within_cluster_queue != PreemptionPolicy::Never {
        candidates_of_cq(view, req, req.cq, None, false, false, &mut same);
    }
    let forbidden = cq
        .spec
        .preemption
        .borrow_within_cohort
        .as_ref()
        .is_none_or(|b| !b.lower_priority);
    let under_nominal = req
        .frs
        .iter()
        .all(|&fr| tree.nodes[node].quota[fr].nominal > tree.nodes[node].usage[fr]);
    // Borrowing is then the only attempt, and a candidate without hierarchical advantage is
    // `ReclaimWithoutBorrowing` (no `borrowWithinCohort`), never valid while borrowing: such
    // candidates are not collected (at 100 queues a cohort, sorting them was most of a cycle).
    let only_borrowing = forbidden && !under_nominal;
    let mut hier: Vec<Candidate> = Vec::new();
    let mut prio: Vec<Candidate> = Vec::new();
    let (mut hier_levels, mut prio_levels) = (0, 0);
    if tree.parent(node).is_some()
        && cq.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never
    {
        let (mut adv, mut remaining) = tree.fits_in_quota(node, req.usage);
        let mut previous = None;
        let ancestors: Vec<NodeId> = tree.ancestors(node).collect();
        for current in ancestors {
            if adv || !only_borrowing {
                let (list, levels) = if adv {
                    (&mut hier, &mut hier_levels)
                } else {
                    (&mut prio, &mut prio_levels)
                };
                collect_level(view, tree, req, lists, current, previous, adv, list);
                *levels += 1;
            }
            let (fits, rest) = tree.fits_in_quota(current, &remaining);
            remaining = rest;
            adv = adv || fits;
            previous = Some(current);
        }
    }
    sort_candidates(view, Some(req.cq), &mut same, |c| c.wl);
    // A shared list from one level came sorted; from several, they are merged by sorting.
    let shared = preemptor_independent(view, req);
    if !shared || hier_levels > 1 {
        sort_candidates(view, Some(req.cq), &mut hier, |c| c.wl);
    }
    if !shared || prio_levels > 1 {
        sort_candidates(view, Some(req.cq), &mut prio, |c| c.wl);
    }
    let no_other = hier.is_empty() && prio.is_empty();
    let no_hier = hier.is_empty();
    let evicted = |c: &Candidate| view.wl(c.wl).evicted;
    let mut all: Vec<Candidate> = Vec::with_capacity(same.len() + hier.len() + prio.len());
    for list in [&hier, &prio, &same] {
        all.extend(list.iter().filter(|c| evicted(c)).copied());
    }
    for list in [&hier, &prio, &same] {
        all.extend(list.iter().filter(|c| !evicted(c)).copied());
    }
    let attempts: &[bool] = if no_other || only_borrowing {
        &[true]
    } else if forbidden && no_hier {
        &[false, true]
    } else {
        &[true, false]
    };
    for &allow_borrowing in attempts {
        if !allow_borrowing && !can_stop_borrowing(view, tree, req, &same) {
            continue;
        }
        let mut without = WhatIf::new(tree);
        let mut targets: Vec<Candidate> = Vec::new();
        for c in &all {
            if !candidate_is_valid(view, &without, req, c, allow_borrowing) {
                continue;
            }
            without.take_out(view, c.wl);
            targets.push(*c);
            if workload_fits(view, &without, req, allow_borrowing) {
                let kept = fill_back(view, &mut without, req, targets, |c| c.wl, allow_borrowing);
                return kept
                    .into_iter()
                    .map(|c| Victim {
                        wl: c.wl,
                        reason: c.variant.reason(),
                    })
                    .collect();
            }
        }
    }
    Vec::new()
}

/// Can the preemptor's queue stop borrowing for the request at all? Only taking out its
/// own workloads lowers its usage, and a search without borrowing takes out every one of
/// them before it gives up: if the request still borrows with all of them out, that search
/// cannot succeed, and walking the cohort's candidates for it is skipped.
fn can_stop_borrowing(view: &View, tree: &mut Tree, req: &Request, same: &[Candidate]) -> bool {
    let node = view.cq_node(req.cq);
    let mut without_own = WhatIf::new(tree);
    for c in same {
        without_own.take_out(view, c.wl);
    }
    req.usage
        .iter()
        .all(|&(fr, v)| !without_own.borrowing_with(node, fr, v))
}

fn candidate_is_valid(
    view: &View,
    tree: &Tree,
    req: &Request,
    c: &Candidate,
    allow_borrowing: bool,
) -> bool {
    let Some(h) = view.wl(c.wl).holding.as_ref() else {
        return false;
    };
    if h.cq == req.cq {
        return true;
    }
    if allow_borrowing && c.variant == Variant::ReclaimWithoutBorrowing {
        return false;
    }
    let node = view.cq_node(h.cq);
    if tree.within_nominal_in(node, req.frs) {
        return false;
    }
    for a in tree.ancestors(node) {
        if Some(a) == c.lca {
            break;
        }
        if tree.within_nominal_in(a, req.frs) {
            return false;
        }
    }
    true
}
