//! Fair-sharing preemption (upstream's `fairPreemptions`): victims come from the ClusterQueues
//! with the highest dominant resource share first, and a victim is taken only while the
//! preemptor's share stays at or below the target's (strategy S2-a,
//! `LessThanOrEqualToFinalShare`) or below its share before (S2-b, `LessThanInitialShare`).
//! Shares come from [`crate::scheduler::fair_sharing`].

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::common::{candidate_order, fill_back, sort_candidates, workload_fits};
use super::{Request, Victim};
use crate::scheduler::decision::PreemptionReason;
use crate::scheduler::fair_sharing::{Drs, compare, drs};
use crate::scheduler::guard::WhatIf;
use crate::scheduler::id::{CqId, NodeId, WlId};
use crate::scheduler::model::{FairSharingStrategy, PreemptionPolicy};
use crate::scheduler::tree::Tree;
use crate::scheduler::view::View;

/// Fair-sharing preemption (upstream's `fairPreemptions`).
pub(super) fn preemptions(view: &View, tree: &mut Tree, req: &Request) -> Vec<Victim> {
    let mut candidates = find_candidates(view, tree, req);
    if candidates.is_empty() {
        return Vec::new();
    }
    sort_candidates(view, Some(req.cq), &mut candidates, |&wl| wl);
    let node = view.cq_node(req.cq);
    let strategies: Vec<FairSharingStrategy> = view
        .cfg
        .fair_sharing
        .as_ref()
        .map(|f| f.strategies.clone())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            vec![
                FairSharingStrategy::LessThanOrEqualToFinalShare,
                FairSharingStrategy::LessThanInitialShare,
            ]
        });
    let (fits, targets) = {
        // Shares are computed as if the preemptor were admitted.
        let mut admitted = WhatIf::new(tree);
        admitted.add(node, req.usage);
        let mut first = first_strategy(view, &mut admitted, req, &candidates, strategies[0]);
        if !first.fits && strategies.len() > 1 {
            first.fits =
                second_strategy(view, &mut admitted, req, &first.retry, &mut first.targets);
        }
        (first.fits, first.targets)
    };
    if !fits {
        return Vec::new();
    }
    let mut without = WhatIf::new(tree);
    for t in &targets {
        without.take_out(view, t.wl);
    }
    fill_back(view, &mut without, req, targets, |v| v.wl, true)
}

fn find_candidates(view: &View, tree: &Tree, req: &Request) -> Vec<WlId> {
    let cq = &view.cqs[req.cq];
    let mut out = Vec::new();
    let take = |cq_id: CqId, policy: PreemptionPolicy, out: &mut Vec<WlId>| {
        for &wl in &view.cqs[cq_id].holding {
            if view.satisfies_policy(policy, req.preemptor, wl) && view.wl(wl).uses_any(req.frs) {
                out.push(wl);
            }
        }
    };
    if cq.spec.preemption.within_cluster_queue != PreemptionPolicy::Never {
        take(req.cq, cq.spec.preemption.within_cluster_queue, &mut out);
    }
    if let Some(parent) = tree.parent(cq.node)
        && cq.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never
    {
        let mut nodes = Vec::new();
        tree.subtree_cqs(tree.root(parent), &mut nodes);
        for n in nodes {
            let Some(other) = view.cq_of_node[n] else {
                continue;
            };
            if other == req.cq || !req.frs.iter().any(|&fr| tree.borrowing(n, fr)) {
                continue;
            }
            take(other, cq.spec.preemption.reclaim_within_cohort, &mut out);
        }
    }
    out
}

/// Fits with the preemptor's own usage (added for share computations) taken out again.
fn fits_for_fair_sharing<'u>(
    view: &View<'u>,
    admitted: &mut WhatIf<'_, 'u>,
    req: &Request<'u>,
) -> bool {
    let mut not_yet = admitted.nested();
    not_yet.remove(view.cq_node(req.cq), req.usage);
    workload_fits(view, &not_yet, req, true)
}

/// Orders target ClusterQueues: from the root, the child with the highest share.
struct TargetOrdering {
    preemptor_node: NodeId,
    ancestors: BTreeSet<NodeId>,
    per_cq: BTreeMap<NodeId, VecDeque<WlId>>,
    pruned_cqs: BTreeSet<NodeId>,
    pruned_cohorts: BTreeSet<NodeId>,
}

impl TargetOrdering {
    fn new(view: &View, tree: &Tree, req: &Request, candidates: &[WlId]) -> Self {
        let preemptor_node = view.cq_node(req.cq);
        let mut per_cq: BTreeMap<NodeId, VecDeque<WlId>> = BTreeMap::new();
        for &c in candidates {
            if let Some(h) = &view.wl(c).holding {
                per_cq.entry(view.cq_node(h.cq)).or_default().push_back(c);
            }
        }
        Self {
            preemptor_node,
            ancestors: tree.ancestors(preemptor_node).collect(),
            per_cq,
            pruned_cqs: BTreeSet::new(),
            pruned_cohorts: BTreeSet::new(),
        }
    }

    fn has_workload(&self, node: NodeId) -> bool {
        self.per_cq.get(&node).is_some_and(|q| !q.is_empty())
    }

    fn pop(&mut self, node: NodeId) -> Option<WlId> {
        self.per_cq.get_mut(&node).and_then(|q| q.pop_front())
    }

    /// The next target ClusterQueue node, or None when everything is pruned.
    fn next(&mut self, view: &View, tree: &Tree) -> Option<NodeId> {
        let Some(parent) = tree.parent(self.preemptor_node) else {
            let n = self.preemptor_node;
            return (!self.pruned_cqs.contains(&n) && self.has_workload(n)).then_some(n);
        };
        let root = tree.root(parent);
        while !self.pruned_cohorts.contains(&root) {
            if let Some(t) = self.next_in(view, tree, root) {
                return Some(t);
            }
        }
        None
    }

    fn next_in(&mut self, view: &View, tree: &Tree, cohort: NodeId) -> Option<NodeId> {
        let mut best_cq: Option<NodeId> = None;
        let mut best_cq_drs = Drs::negative();
        for &cq in &tree.nodes[cohort].child_cqs {
            if self.pruned_cqs.contains(&cq) {
                continue;
            }
            let d = drs(view, tree, cq, None);
            if (!d.borrowing && cq != self.preemptor_node) || !self.has_workload(cq) {
                self.pruned_cqs.insert(cq);
                continue;
            }
            match compare(&d, &best_cq_drs) {
                Ordering::Equal => {
                    if let Some(cur) = best_cq {
                        let a = self.per_cq[&cq][0];
                        let b = self.per_cq[&cur][0];
                        let pcq = view.cq_of_node[self.preemptor_node].unwrap_or_default();
                        if candidate_order(view, pcq, a, b) == Ordering::Less {
                            best_cq = Some(cq);
                        }
                    }
                }
                Ordering::Greater => {
                    best_cq_drs = d;
                    best_cq = Some(cq);
                }
                Ordering::Less => {}
            }
        }
        let mut best_cohort: Option<NodeId> = None;
        let mut best_cohort_drs = Drs::negative();
        for &child in &tree.nodes[cohort].child_cohorts {
            if self.pruned_cohorts.contains(&child) {
                continue;
            }
            let d = drs(view, tree, child, None);
            if !d.borrowing && !self.ancestors.contains(&child) {
                self.pruned_cohorts.insert(child);
            } else if compare(&d, &best_cohort_drs) != Ordering::Less {
                best_cohort_drs = d;
                best_cohort = Some(child);
            }
        }
        if best_cq.is_none() && best_cohort.is_none() {
            self.pruned_cohorts.insert(cohort);
            return None;
        }
        if let Some(c) = best_cohort
            && compare(&best_cohort_drs, &best_cq_drs) != Ordering::Less
        {
            return self.next_in(view, tree, c);
        }
        best_cq
    }
}

/// The child of the lowest common ancestor on `node`'s side (or `node` itself).
fn almost_lca(tree: &Tree, node: NodeId, lca: NodeId) -> NodeId {
    let mut prev = node;
    for a in tree.ancestors(node) {
        if a == lca {
            return prev;
        }
        prev = a;
    }
    prev
}

fn lca(tree: &Tree, ordering: &TargetOrdering, target: NodeId) -> NodeId {
    tree.ancestors(target)
        .find(|a| ordering.ancestors.contains(a))
        .unwrap_or_else(|| tree.root(target))
}

fn shares(view: &View, tree: &Tree, ordering: &TargetOrdering, target: NodeId) -> (Drs, Drs) {
    let l = lca(tree, ordering, target);
    let p = almost_lca(tree, ordering.preemptor_node, l);
    let t = almost_lca(tree, target, l);
    (drs(view, tree, p, None), drs(view, tree, t, None))
}

fn target_share_after_removal<'u>(
    view: &View<'u>,
    what_if: &mut WhatIf<'_, 'u>,
    ordering: &TargetOrdering,
    target: NodeId,
    wl: WlId,
) -> Drs {
    let mut without = what_if.nested();
    without.take_out(view, wl);
    let l = lca(&without, ordering, target);
    let t = almost_lca(&without, target, l);
    drs(view, &without, t, None)
}

fn passes(
    strategy: FairSharingStrategy,
    preemptor_new: &Drs,
    target_old: &Drs,
    target_new: &Drs,
) -> bool {
    match strategy {
        FairSharingStrategy::LessThanOrEqualToFinalShare => {
            compare(preemptor_new, target_new) != Ordering::Greater
        }
        FairSharingStrategy::LessThanInitialShare => {
            compare(preemptor_new, target_old) == Ordering::Less
        }
    }
}

/// What the first strategy found: victims taken out so far, and the candidates it passed
/// over for the second strategy.
struct FirstPass {
    fits: bool,
    targets: Vec<Victim>,
    retry: Vec<WlId>,
}

/// Takes victims out in `tree` as it goes; they stay out on return.
fn first_strategy<'u>(
    view: &View<'u>,
    tree: &mut WhatIf<'_, 'u>,
    req: &Request<'u>,
    candidates: &[WlId],
    strategy: FairSharingStrategy,
) -> FirstPass {
    let mut ordering = TargetOrdering::new(view, tree, req, candidates);
    let mut targets = Vec::new();
    let mut retry = Vec::new();
    let preemptor_node = ordering.preemptor_node;
    let within_nominal = req
        .frs
        .iter()
        .all(|&fr| !tree.borrowing(preemptor_node, fr));
    while let Some(target) = ordering.next(view, tree) {
        if target == preemptor_node || within_nominal {
            let reason = if target == preemptor_node {
                PreemptionReason::InClusterQueue
            } else {
                PreemptionReason::InCohortReclamation
            };
            let Some(wl) = ordering.pop(target) else {
                continue;
            };
            tree.take_out(view, wl);
            targets.push(Victim { wl, reason });
            if fits_for_fair_sharing(view, tree, req) {
                return FirstPass {
                    fits: true,
                    targets,
                    retry: Vec::new(),
                };
            }
            continue;
        }
        let (preemptor_new, target_old) = shares(view, tree, &ordering, target);
        if preemptor_new.precise().is_infinite() && !target_old.precise().is_infinite() {
            while let Some(wl) = ordering.pop(target) {
                retry.push(wl);
            }
            continue;
        }
        while let Some(wl) = ordering.pop(target) {
            let target_new = target_share_after_removal(view, tree, &ordering, target, wl);
            if passes(strategy, &preemptor_new, &target_old, &target_new) {
                tree.take_out(view, wl);
                targets.push(Victim {
                    wl,
                    reason: PreemptionReason::InCohortFairSharing,
                });
                if fits_for_fair_sharing(view, tree, req) {
                    return FirstPass {
                        fits: true,
                        targets,
                        retry: Vec::new(),
                    };
                }
                break;
            }
            retry.push(wl);
        }
    }
    FirstPass {
        fits: false,
        targets,
        retry,
    }
}

/// Takes further victims out in `tree`; they stay out on return.
fn second_strategy<'u>(
    view: &View<'u>,
    tree: &mut WhatIf<'_, 'u>,
    req: &Request<'u>,
    retry: &[WlId],
    targets: &mut Vec<Victim>,
) -> bool {
    let mut ordering = TargetOrdering::new(view, tree, req, retry);
    while let Some(target) = ordering.next(view, tree) {
        let (preemptor_new, target_old) = shares(view, tree, &ordering, target);
        let passed = passes(
            FairSharingStrategy::LessThanInitialShare,
            &preemptor_new,
            &target_old,
            &target_old,
        );
        if let Some(wl) = ordering.pop(target)
            && passed
        {
            tree.take_out(view, wl);
            targets.push(Victim {
                wl,
                reason: PreemptionReason::InCohortFairSharing,
            });
            if fits_for_fair_sharing(view, tree, req) {
                return true;
            }
        }
        ordering.pruned_cqs.insert(target);
    }
    false
}
