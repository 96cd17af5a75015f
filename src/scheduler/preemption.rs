//! Choosing preemption victims, as upstream Kueue's classical preemption does (fair-sharing
//! preemption lives in [`super::fair_sharing`]).
//!
//! Candidates are workloads holding quota on a (flavor, resource) that needs preemption:
//! in the preemptor's own ClusterQueue per `withinClusterQueue`, and in other ClusterQueues
//! of the cohort tree that are over their nominal quota per `reclaimWithinCohort` (and
//! `borrowWithinCohort`). They are tried in upstream's order (already evicted, other queues,
//! lower priority, most recently reserved) until the preemptor fits, then the set is
//! minimised by adding victims back in reverse. The tree is restored before returning.

use std::cmp::Ordering;

use super::decision::{FitMode, PreemptionReason};
use super::fair_sharing;
use super::flavor_assigner::Fit;
use super::id::{CqId, FrId, NodeId, WlId};
use super::quantity::Amount;
use super::tree::Tree;
use super::view::View;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Victim {
    pub wl: WlId,
    pub reason: PreemptionReason,
}

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
struct Candidate {
    wl: WlId,
    /// Lowest common ancestor with the preemptor, for validity checks.
    lca: Option<NodeId>,
    variant: Variant,
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

/// Removes a workload's usage from the tree (for a what-if); undo with [`add_back`].
pub(crate) fn remove_from_tree(view: &View, tree: &mut Tree, wl: WlId) {
    let st = view.wl(wl);
    if let Some(h) = &st.holding {
        tree.remove_usages(view.cqs[h.cq].node, &h.usage);
    }
}

pub(crate) fn add_back(view: &View, tree: &mut Tree, wl: WlId) {
    let st = view.wl(wl);
    if let Some(h) = &st.holding {
        tree.add_usages(view.cqs[h.cq].node, &h.usage);
    }
}

/// Does the request fit the preemptor's ClusterQueue now (optionally without borrowing)?
pub(crate) fn workload_fits(
    view: &View,
    tree: &Tree,
    req: &Request,
    allow_borrowing: bool,
) -> bool {
    let node = view.cq_node(req.cq);
    req.usage.iter().all(|&(fr, v)| {
        (allow_borrowing || !tree.borrowing_with(node, fr, v)) && v <= tree.available(node, fr)
    })
}

/// Victims for `req`, or none when preemption can't make it fit.
pub(crate) fn get_targets(view: &View, tree: &mut Tree, req: &Request) -> Vec<Victim> {
    if view.fair_sharing() {
        fair_sharing::preemptions(view, tree, req)
    } else {
        classical(view, tree, req)
    }
}

/// Upstream's oracle: can preemption make room for `val` on one (flavor, resource), and
/// with what borrowing level afterwards?
pub(crate) fn simulate(
    view: &View,
    tree: &mut Tree,
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
    let targets = get_targets(view, tree, &req);
    let node = view.cq_node(cq);
    if targets.is_empty() {
        return Fit {
            mode: FitMode::NoCandidates,
            borrow: tree.lowest_subtree_that_fits(node, fr, val).0,
        };
    }
    for t in &targets {
        remove_from_tree(view, tree, t.wl);
    }
    let borrow = tree.lowest_subtree_that_fits(node, fr, val).0;
    for t in &targets {
        add_back(view, tree, t.wl);
    }
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

/// Upstream's `CandidatesOrdering`: evicted first, other ClusterQueues before the
/// preemptor's, lower priority, most recently reserved, then UID.
pub(crate) fn candidate_order(view: &View, preemptor_cq: CqId, a: WlId, b: WlId) -> Ordering {
    let (wa, wb) = (view.wl(a), view.wl(b));
    let in_cq =
        |w: &super::state::WlState| w.holding.as_ref().is_some_and(|h| h.cq == preemptor_cq);
    wb.evicted
        .cmp(&wa.evicted)
        .then_with(|| in_cq(wa).cmp(&in_cq(wb)))
        .then_with(|| wa.priority().cmp(&wb.priority()))
        .then_with(|| {
            let ta = wa.reserved_at.unwrap_or(view.now);
            let tb = wb.reserved_at.unwrap_or(view.now);
            tb.cmp(&ta)
        })
        .then_with(|| wa.w.uid.cmp(&wb.w.uid))
        .then_with(|| wa.w.tiebreak.cmp(&wb.w.tiebreak))
        .then_with(|| a.cmp(&b))
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

fn candidates_of_cq(
    view: &View,
    req: &Request,
    cq: CqId,
    lca: Option<NodeId>,
    adv: bool,
    out: &mut Vec<Candidate>,
) {
    for &wl in &view.cqs[cq].holding {
        if let Some(variant) = classify(view, req, wl, adv) {
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
    out: &mut Vec<Candidate>,
) {
    for &child in &tree.nodes[current].child_cohorts {
        if Some(child) == skip || tree.within_nominal_in(child, req.frs) {
            continue;
        }
        collect_in_subtree(view, tree, req, child, subtree_root, skip, adv, out);
    }
    let own = view.cq_node(req.cq);
    for &child in &tree.nodes[current].child_cqs {
        if child == own || tree.within_nominal_in(child, req.frs) {
            continue;
        }
        if let Some(cq) = view.cq_of_node[child] {
            candidates_of_cq(view, req, cq, Some(subtree_root), adv, out);
        }
    }
}

fn classical(view: &View, tree: &mut Tree, req: &Request) -> Vec<Victim> {
    let cq = &view.cqs[req.cq];
    let node = cq.node;
    let mut same: Vec<Candidate> = Vec::new();
    if cq.spec.preemption.within_cluster_queue != super::model::PreemptionPolicy::Never {
        candidates_of_cq(view, req, req.cq, None, false, &mut same);
    }
    let mut hier: Vec<Candidate> = Vec::new();
    let mut prio: Vec<Candidate> = Vec::new();
    if tree.parent(node).is_some()
        && cq.spec.preemption.reclaim_within_cohort != super::model::PreemptionPolicy::Never
    {
        let (mut adv, mut remaining) = tree.fits_in_quota(node, req.usage);
        let mut previous = None;
        let ancestors: Vec<NodeId> = tree.ancestors(node).collect();
        for current in ancestors {
            let list = if adv { &mut hier } else { &mut prio };
            collect_in_subtree(view, tree, req, current, current, previous, adv, list);
            let (fits, rest) = tree.fits_in_quota(current, &remaining);
            remaining = rest;
            adv = adv || fits;
            previous = Some(current);
        }
    }
    let order = |a: &Candidate, b: &Candidate| candidate_order(view, req.cq, a.wl, b.wl);
    same.sort_by(order);
    hier.sort_by(order);
    prio.sort_by(order);
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
    let attempts: &[bool] = if no_other || (forbidden && !under_nominal) {
        &[true]
    } else if forbidden && no_hier {
        &[false, true]
    } else {
        &[true, false]
    };
    for &allow_borrowing in attempts {
        let mut targets: Vec<Candidate> = Vec::new();
        for c in &all {
            if !candidate_is_valid(view, tree, req, c, allow_borrowing) {
                continue;
            }
            remove_from_tree(view, tree, c.wl);
            targets.push(*c);
            if workload_fits(view, tree, req, allow_borrowing) {
                let kept = fill_back(view, tree, req, targets, allow_borrowing);
                for t in &kept {
                    add_back(view, tree, t.wl);
                }
                return kept
                    .into_iter()
                    .map(|c| Victim {
                        wl: c.wl,
                        reason: c.variant.reason(),
                    })
                    .collect();
            }
        }
        for t in &targets {
            add_back(view, tree, t.wl);
        }
    }
    Vec::new()
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

/// Adds victims back, last-but-one first, keeping out only those still needed. Upstream
/// swaps the last target into a freed slot; we keep that order.
fn fill_back(
    view: &View,
    tree: &mut Tree,
    req: &Request,
    mut targets: Vec<Candidate>,
    allow_borrowing: bool,
) -> Vec<Candidate> {
    if targets.len() < 2 {
        return targets;
    }
    let mut i = targets.len() - 1;
    while i > 0 {
        i -= 1;
        add_back(view, tree, targets[i].wl);
        if workload_fits(view, tree, req, allow_borrowing) {
            let last = targets.len() - 1;
            targets.swap(i, last);
            targets.pop();
        } else {
            remove_from_tree(view, tree, targets[i].wl);
        }
    }
    targets
}

/// Generic fill-back used by fair sharing (borrowing allowed).
pub(crate) fn fill_back_victims(
    view: &View,
    tree: &mut Tree,
    req: &Request,
    targets: Vec<Victim>,
) -> Vec<Victim> {
    let cands: Vec<(Candidate, PreemptionReason)> = targets
        .iter()
        .map(|v| {
            (
                Candidate {
                    wl: v.wl,
                    lca: None,
                    variant: Variant::WithinCq,
                },
                v.reason,
            )
        })
        .collect();
    let reasons: Vec<(WlId, PreemptionReason)> = cands.iter().map(|(c, r)| (c.wl, *r)).collect();
    let kept = fill_back(
        view,
        tree,
        req,
        cands.into_iter().map(|(c, _)| c).collect(),
        true,
    );
    kept.into_iter()
        .map(|c| Victim {
            wl: c.wl,
            reason: reasons
                .iter()
                .find(|(w, _)| *w == c.wl)
                .map(|(_, r)| *r)
                .unwrap_or(PreemptionReason::InClusterQueue),
        })
        .collect()
}
