//! Fair sharing: dominant resource share (DRS) and the admission tournament that orders a
//! cycle's entries, with upstream Kueue's rules. Fair-sharing preemption, which reads these
//! shares, is [`super::preemption`]'s; this module never depends on it.
//!
//! DRS of a node with a parent: per resource name, what it borrows beyond its subtree quota
//! (summed over flavors) per 1000 of what its parent could lend; the largest ratio wins,
//! divided by the node's weight. A node that borrows nothing, or a root, has DRS 0; a
//! weight of 0 while borrowing ranks above everything.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::guard::WhatIf;
use super::id::{CqId, FrId, NodeId, ResId, WlId};
use super::quantity::Amount;
use super::tree::Tree;
use super::view::View;

/// A node's dominant resource share, as the module's doc defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct Drs {
    /// The node's fair-sharing weight.
    pub weight: f64,
    /// The largest borrowed-per-lendable ratio (per 1000), before the weight.
    pub ratio: f64,
    /// The resource name with that ratio.
    pub dominant: Option<String>,
    /// Does the node borrow anything?
    pub borrowing: bool,
    /// The (flavor, resource) pairs it borrows on.
    pub borrowed_frs: Vec<FrId>,
}

impl Drs {
    pub(crate) fn negative() -> Self {
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

    pub(crate) fn borrowing_on(&self, requested: &[(FrId, Amount)]) -> bool {
        self.borrowed_frs
            .iter()
            .any(|fr| requested.iter().any(|(r, v)| r == fr && *v > 0))
    }
}

/// Orders shares, lowest first; weight 0 while borrowing ranks above every other share.
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
        let mut admitted = WhatIf::new(tree);
        admitted.add(cq_node, &c.usage);
        let mut share = drs(view, &admitted, cq_node, None);
        for a in admitted.ancestors(cq_node) {
            drs_at.insert((a, cq), share);
            share = drs(view, &admitted, a, None);
        }
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
