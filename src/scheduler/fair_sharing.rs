//! Fair sharing: dominant resource share (DRS), the admission tournament that orders a
//! cycle's entries, and fair-sharing preemption, with upstream Kueue's rules.
//!
//! DRS of a node with a parent: per resource name, what it borrows beyond its subtree quota
//! (summed over flavors) per 1000 of what its parent could lend; the largest ratio wins,
//! divided by the node's weight. A node that borrows nothing, or a root, has DRS 0; a
//! weight of 0 while borrowing ranks above everything.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::decision::PreemptionReason;
use super::id::{CqId, FrId, NodeId, ResId, WlId};
use super::model::{FairSharingStrategy, PreemptionPolicy};
use super::preemption::{
    Request, Victim, add_back, candidate_order, fill_back_victims, remove_from_tree, workload_fits,
};
use super::quantity::Amount;
use super::tree::Tree;
use super::view::View;

#[derive(Debug, Clone, PartialEq)]
pub struct Drs {
    pub weight: f64,
    pub ratio: f64,
    pub dominant: Option<String>,
    pub borrowing: bool,
    pub borrowed_frs: Vec<FrId>,
}

impl Drs {
    fn negative() -> Self {
        Drs {
            weight: 1.0,
            ratio: -1.0,
            dominant: None,
            borrowing: false,
            borrowed_frs: Vec::new(),
        }
    }

    fn zero_weight_borrows(&self) -> bool {
        self.weight == 0.0 && self.ratio != 0.0
    }

    /// The weighted share as a float (+inf for weight 0 while borrowing).
    pub fn precise(&self) -> f64 {
        if self.ratio == 0.0 {
            0.0
        } else if self.weight == 0.0 {
            f64::INFINITY
        } else {
            self.ratio / self.weight
        }
    }

    /// What upstream reports in `status.fairSharing.weightedShare`.
    pub fn rounded(&self) -> i64 {
        if self.zero_weight_borrows() {
            i64::MAX
        } else {
            self.precise().ceil() as i64
        }
    }

    fn borrowing_on(&self, requested: &[(FrId, Amount)]) -> bool {
        self.borrowed_frs
            .iter()
            .any(|fr| requested.iter().any(|(r, v)| r == fr && *v > 0))
    }
}

pub fn compare(a: &Drs, b: &Drs) -> Ordering {
    match (a.zero_weight_borrows(), b.zero_weight_borrows()) {
        (true, true) => a.ratio.total_cmp(&b.ratio),
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.precise().total_cmp(&b.precise()),
    }
}

/// DRS of `node`, optionally as if `request` were added to it.
pub(crate) fn drs(
    view: &View,
    tree: &Tree,
    node: NodeId,
    request: Option<&[(FrId, Amount)]>,
) -> Drs {
    let n = &tree.nodes[node];
    let mut out = Drs {
        weight: n.fair_weight,
        ratio: 0.0,
        dominant: None,
        borrowing: false,
        borrowed_frs: Vec::new(),
    };
    let Some(parent) = n.parent else {
        return out;
    };
    let mut borrowed: BTreeMap<ResId, Amount> = BTreeMap::new();
    for fr in tree.frs() {
        let req = request
            .and_then(|r| r.iter().find(|(f, _)| *f == fr))
            .map_or(Amount::ZERO, |(_, v)| *v);
        let amount = req + n.usage[fr] - n.subtree_quota[fr];
        if amount > 0 {
            let res = view.names.frs[fr].resource;
            *borrowed.entry(res).or_default() += amount;
            out.borrowed_frs.push(fr);
        }
    }
    if borrowed.is_empty() {
        return out;
    }
    out.borrowing = true;
    let root = tree.root(parent);
    let mut lendable: BTreeMap<ResId, Amount> = BTreeMap::new();
    for fr in tree.frs() {
        if tree.nodes[root].subtree_quota[fr] == 0 && tree.nodes[root].usage[fr] == 0 {
            continue;
        }
        let res = view.names.frs[fr].resource;
        *lendable.entry(res).or_default() += tree.potential_available(parent, fr);
    }
    let mut dominant: Option<&str> = None;
    for (res, b) in borrowed {
        let Some(&l) = lendable.get(&res).filter(|l| **l > 0) else {
            continue;
        };
        let ratio = b.get() as f64 * 1000.0 / l.get() as f64;
        let name = view.names.resources[res].as_str();
        if ratio > out.ratio || (ratio == out.ratio && dominant.is_some_and(|d| name < d)) {
            out.ratio = ratio;
            dominant = Some(name);
        }
    }
    out.dominant = dominant.map(str::to_string);
    out
}

/// An entry competing in the admission tournament.
pub(crate) struct Contender {
    pub wl: WlId,
    pub usage: Vec<(FrId, Amount)>,
}

/// Picks the next entry to process under fair sharing: a tournament from the root of the
/// first remaining ClusterQueue's cohort tree, with shares recomputed at every pick so
/// earlier admissions in the cycle count.
pub(crate) fn next_entry(
    view: &View,
    tree: &mut Tree,
    remaining: &BTreeMap<CqId, Contender>,
) -> CqId {
    let (&first, _) = remaining.iter().next().expect("next_entry on an empty set");
    let node = view.cq_node(first);
    let Some(parent) = tree.parent(node) else {
        return first;
    };
    let root = tree.root(parent);
    let mut cqs = Vec::new();
    tree.subtree_cqs(root, &mut cqs);
    // drs_at[(ancestor, cq)] = the share of the child on cq's path, as seen at ancestor.
    let mut drs_at: BTreeMap<(NodeId, CqId), Drs> = BTreeMap::new();
    for &cq_node in &cqs {
        let Some(cq) = view.cq_of_node[cq_node] else {
            continue;
        };
        let Some(c) = remaining.get(&cq) else {
            continue;
        };
        tree.add_usages(cq_node, &c.usage);
        let mut share = drs(view, tree, cq_node, None);
        let ancestors: Vec<NodeId> = tree.ancestors(cq_node).collect();
        for a in ancestors {
            drs_at.insert((a, cq), share);
            share = drs(view, tree, a, None);
        }
        tree.remove_usages(cq_node, &c.usage);
    }
    tournament(view, tree, root, remaining, &drs_at).expect("a contender under the root")
}

fn tournament(
    view: &View,
    tree: &Tree,
    cohort: NodeId,
    remaining: &BTreeMap<CqId, Contender>,
    drs_at: &BTreeMap<(NodeId, CqId), Drs>,
) -> Option<CqId> {
    let mut candidates: Vec<CqId> = Vec::new();
    for &child in &tree.nodes[cohort].child_cohorts {
        if let Some(c) = tournament(view, tree, child, remaining, drs_at) {
            candidates.push(c);
        }
    }
    for &child in &tree.nodes[cohort].child_cqs {
        if let Some(cq) = view.cq_of_node[child].filter(|cq| remaining.contains_key(cq)) {
            candidates.push(cq);
        }
    }
    let mut best = *candidates.first()?;
    for &cur in &candidates[1..] {
        if less(view, cohort, remaining, drs_at, cur, best) {
            best = cur;
        }
    }
    Some(best)
}

fn less(
    view: &View,
    cohort: NodeId,
    remaining: &BTreeMap<CqId, Contender>,
    drs_at: &BTreeMap<(NodeId, CqId), Drs>,
    a: CqId,
    b: CqId,
) -> bool {
    let (ca, cb) = (&remaining[&a], &remaining[&b]);
    let neg = Drs::negative();
    let da = drs_at.get(&(cohort, a)).unwrap_or(&neg);
    let db = drs_at.get(&(cohort, b)).unwrap_or(&neg);
    let (ba, bb) = (da.borrowing_on(&ca.usage), db.borrowing_on(&cb.usage));
    if ba != bb {
        return !ba;
    }
    match compare(da, db) {
        Ordering::Less => return true,
        Ordering::Greater => return false,
        Ordering::Equal => {}
    }
    let (wa, wb) = (view.wl(ca.wl), view.wl(cb.wl));
    if wa.priority() != wb.priority() {
        return wa.priority() > wb.priority();
    }
    (wa.w.queue_time, wa.w.tiebreak) < (wb.w.queue_time, wb.w.tiebreak)
}

/// Fair-sharing preemption (upstream's `fairPreemptions`).
pub(crate) fn preemptions(view: &View, tree: &mut Tree, req: &Request) -> Vec<Victim> {
    let mut candidates = find_candidates(view, tree, req);
    if candidates.is_empty() {
        return Vec::new();
    }
    candidates.sort_by(|&a, &b| candidate_order(view, req.cq, a, b));
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
    tree.add_usages(node, req.usage);
    let (mut fits, mut targets, retry) =
        first_strategy(view, tree, req, &candidates, strategies[0]);
    if !fits && strategies.len() > 1 {
        fits = second_strategy(view, tree, req, &retry, &mut targets);
    }
    tree.remove_usages(node, req.usage);
    if !fits {
        for t in &targets {
            add_back(view, tree, t.wl);
        }
        return Vec::new();
    }
    let kept = fill_back_victims(view, tree, req, targets);
    for t in &kept {
        add_back(view, tree, t.wl);
    }
    kept
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
fn fits_for_fair_sharing(view: &View, tree: &mut Tree, req: &Request) -> bool {
    let node = view.cq_node(req.cq);
    tree.remove_usages(node, req.usage);
    let fits = workload_fits(view, tree, req, true);
    tree.add_usages(node, req.usage);
    fits
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

fn target_share_after_removal(
    view: &View,
    tree: &mut Tree,
    ordering: &TargetOrdering,
    target: NodeId,
    wl: WlId,
) -> Drs {
    remove_from_tree(view, tree, wl);
    let l = lca(tree, ordering, target);
    let t = almost_lca(tree, target, l);
    let d = drs(view, tree, t, None);
    add_back(view, tree, wl);
    d
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

fn first_strategy(
    view: &View,
    tree: &mut Tree,
    req: &Request,
    candidates: &[WlId],
    strategy: FairSharingStrategy,
) -> (bool, Vec<Victim>, Vec<WlId>) {
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
            remove_from_tree(view, tree, wl);
            targets.push(Victim { wl, reason });
            if fits_for_fair_sharing(view, tree, req) {
                return (true, targets, Vec::new());
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
                remove_from_tree(view, tree, wl);
                targets.push(Victim {
                    wl,
                    reason: PreemptionReason::InCohortFairSharing,
                });
                if fits_for_fair_sharing(view, tree, req) {
                    return (true, targets, Vec::new());
                }
                break;
            }
            retry.push(wl);
        }
    }
    (false, targets, retry)
}

fn second_strategy(
    view: &View,
    tree: &mut Tree,
    req: &Request,
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
            remove_from_tree(view, tree, wl);
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
