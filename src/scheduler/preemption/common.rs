//! What classical and fair-sharing preemption share: the fit check, upstream's candidate
//! order, and minimising a victim set.

use std::cmp::Ordering;

use super::Request;
use crate::scheduler::guard::WhatIf;
use crate::scheduler::id::{CqId, WlId};
use crate::scheduler::state::WlState;
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
    let (wa, wb) = (view.wl(a), view.wl(b));
    let in_cq = |w: &WlState| w.holding.as_ref().is_some_and(|h| h.cq == preemptor_cq);
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
        what_if.put_back(wl_of(&targets[i]));
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
