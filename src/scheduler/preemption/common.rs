//! What classical and fair-sharing preemption share: the fit check, upstream's candidate
//! order, and minimising a victim set.

use std::cmp::{Ordering, Reverse};

use super::Request;
use crate::scheduler::guard::WhatIf;
use crate::scheduler::id::{CqId, WlId};
use crate::scheduler::model::Millis;
use crate::scheduler::tree::Tree;
use crate::scheduler::view::View;

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

/// Upstream's `CandidatesOrdering`: evicted first, other ClusterQueues before the
/// preemptor's, lower priority, most recently reserved, then UID.
pub(crate) fn candidate_order(view: &View, preemptor_cq: CqId, a: WlId, b: WlId) -> Ordering {
    let cq = Some(preemptor_cq);
    candidate_key(view, cq, a).cmp(&candidate_key(view, cq, b))
}

/// [`candidate_order`] as a value: sorting by keys read once is several times faster than
/// comparing through the workloads (at 100 queues a cohort, a search sorts a thousand).
/// With no preemptor's queue, every workload counts as in another queue.
pub(crate) fn candidate_key<'v>(
    view: &'v View,
    preemptor_cq: Option<CqId>,
    wl: WlId,
) -> CandidateKey<'v> {
    let w = view.wl(wl);
    CandidateKey {
        evicted_first: Reverse(w.evicted),
        in_preemptor_cq: w
            .holding
            .as_ref()
            .is_some_and(|h| Some(h.cq) == preemptor_cq),
        priority: w.priority(),
        latest_reserved_first: Reverse(w.reserved_at.unwrap_or_else(|| {
            view.now_read.set(true);
            view.now
        })),
        uid: &w.w.uid,
        tiebreak: w.w.tiebreak,
        wl,
    }
}

/// Field order is the comparison order; `wl` makes it total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct CandidateKey<'v> {
    evicted_first: Reverse<bool>,
    in_preemptor_cq: bool,
    priority: i32,
    latest_reserved_first: Reverse<Millis>,
    uid: &'v str,
    tiebreak: u64,
    wl: WlId,
}

/// `items` sorted in upstream's candidate order (see [`candidate_key`] for `preemptor_cq`).
pub(crate) fn sort_candidates<T: Copy>(
    view: &View,
    preemptor_cq: Option<CqId>,
    items: &mut Vec<T>,
    wl_of: impl Fn(&T) -> WlId,
) {
    if items.len() < 2 {
        return;
    }
    let mut keyed: Vec<(CandidateKey, T)> = items
        .iter()
        .map(|t| (candidate_key(view, preemptor_cq, wl_of(t)), *t))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    items.clear();
    items.extend(keyed.into_iter().map(|(_, t)| t));
}

/// Adds victims back, last-but-one first, keeping out only those still needed (upstream's
/// `fillBackWorkloads`). Upstream swaps the last target into a freed slot; we keep that
/// order. Every victim in `targets` is taken out in `what_if` on entry; the kept ones still
/// are on return.
pub(crate) fn fill_back<'u, T>(
    view: &View<'u>,
    what_if: &mut WhatIf<'_, 'u>,
    req: &Request,
    mut targets: Vec<T>,
    wl_of: impl Fn(&T) -> WlId,
    allow_borrowing: bool,
) -> Vec<T> {
    if targets.len() < 2 {
        return targets;
    }
    let mut i = targets.len() - 1;
    while i > 0 {
        i -= 1;
        what_if.put_back(view, wl_of(&targets[i]));
        if workload_fits(view, what_if, req, allow_borrowing) {
            let last = targets.len() - 1;
            targets.swap(i, last);
            targets.pop();
        } else {
            what_if.take_out(view, wl_of(&targets[i]));
        }
    }
    targets
}
