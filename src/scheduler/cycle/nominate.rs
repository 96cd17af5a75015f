//! Step 2 of a cycle, nomination: each head's flavor assignment and preemption targets,
//! with partial admission (`minCount`) as a fallback, all against the cycle's starting state.

use std::sync::Arc;

use super::memo::{Nomination, NominationKey, QueueSums};
use super::{Entry, add_into};
use crate::scheduler::decision::{FitMode, PendingDetail, PendingReason};
use crate::scheduler::flavor_assigner::{Assigned, Assigner};
use crate::scheduler::id::{CqId, FrId, NodeId, WlId};
use crate::scheduler::message;
use crate::scheduler::model::Millis;
use crate::scheduler::preemption::{Request, SearchMemo, Victim};
use crate::scheduler::quantity::Amount;
use crate::scheduler::queue::{QueueKey, RequeueReason};
use crate::scheduler::state::{Engine, LastState};
use crate::scheduler::tree::Tree;

impl Engine {
    /// An entry per head, with its assignment and targets (or why it cannot have one).
    pub(super) fn nominate(&mut self, heads: &[(CqId, QueueKey)], now: Millis) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(heads.len());
        // Nomination changes neither the tree nor what workloads hold: one memo for all
        // heads, with the searches of earlier cycles.
        let searches = SearchMemo::across(std::mem::take(&mut self.searches));
        for &(cq, key) in heads {
            let wl = key.id;
            let mut e = Entry::new(cq, key);
            if !self.namespace_selected(cq, &self.wl(wl).w.namespace) {
                e.inadmissible = true;
                e.reason = PendingReason::Misconfigured;
                e.message = message::NAMESPACE_MISMATCH.to_string();
                e.detail = PendingDetail::NamespaceNotSelected {
                    namespace: self.wl(wl).w.namespace.clone(),
                };
                e.requeue = RequeueReason::NamespaceMismatch;
                entries.push(e);
                continue;
            }
            let nomination = self.nominate_head(wl, cq, now, &searches);
            e.message = nomination.message;
            e.assigned = Some(nomination.assigned);
            e.targets = nomination.targets;
            e.target_sums = nomination.target_sums;
            entries.push(e);
        }
        self.searches = searches.into_cache();
        entries
    }

    /// Flavor assignment plus preemption targets, with partial admission as a fallback.
    pub(crate) fn assignments(
        &mut self,
        wl: WlId,
        cq: CqId,
        now: Millis,
    ) -> (Assigned, Vec<Victim>) {
        self.assignments_with(wl, cq, now, &SearchMemo::default())
    }

    /// A head's assignment and targets: a preemptor's from an earlier cycle while nothing
    /// they were computed from changed (see [`super::memo`]), else computed and, for a
    /// preemptor, kept.
    fn nominate_head(
        &mut self,
        wl: WlId,
        cq: CqId,
        now: Millis,
        searches: &SearchMemo,
    ) -> Nomination {
        let last = self.start_scan(wl, cq);
        let root = self.tree.root(self.cqs[cq].node);
        let inputs = NominationKey {
            cq,
            // The engine's search cache is in `searches` while the cycle nominates.
            version: searches.version(root),
            generation: self.cqs[cq].generation,
            last: last.as_ref(),
        };
        if let Some(kept) = self.nominations.answer(wl, &inputs) {
            // Every test (debug builds) checks a kept nomination against a new one.
            #[cfg(debug_assertions)]
            {
                let (fresh, _) = self.assign_from(wl, cq, now, searches, last.as_ref());
                let sums = self.sums_by_queue(&fresh.1);
                assert_eq!(
                    format!("{:?}", (&*kept.assigned, &kept.targets, &kept.target_sums)),
                    format!("{:?}", (&fresh.0, &fresh.1, &sums)),
                    "a nomination kept from an earlier cycle differs from a new one"
                );
            }
            return kept;
        }
        let ((assigned, targets), read_clock) =
            self.assign_from(wl, cq, now, searches, last.as_ref());
        let nomination = Nomination {
            message: assigned.message(),
            assigned: Arc::new(assigned),
            target_sums: self.sums_by_queue(&targets),
            targets,
        };
        if read_clock {
            self.nominations.forget(wl);
        } else {
            self.nominations.remember(wl, &inputs, &nomination);
        }
        nomination
    }

    /// The quota `targets` hold, summed per ClusterQueue node.
    fn sums_by_queue(&self, targets: &[Victim]) -> QueueSums {
        if targets.is_empty() {
            // Most heads have no victims: an empty shared slice allocates nothing.
            return QueueSums::default();
        }
        let mut sums: Vec<(NodeId, Vec<(FrId, Amount)>)> = Vec::new();
        for t in targets {
            let Some(h) = self.wl(t.wl).holding.as_ref() else {
                continue;
            };
            let node = self.cqs[h.cq].node;
            let i = match sums.iter().position(|(n, _)| *n == node) {
                Some(i) => i,
                None => {
                    sums.push((node, Vec::new()));
                    sums.len() - 1
                }
            };
            add_into(&mut sums[i].1, &h.usage);
        }
        sums.into()
    }

    /// [`Engine::assignments`] with the searches of earlier heads on the same state.
    fn assignments_with(
        &mut self,
        wl: WlId,
        cq: CqId,
        now: Millis,
        searches: &SearchMemo,
    ) -> (Assigned, Vec<Victim>) {
        let last = self.start_scan(wl, cq);
        self.assign_from(wl, cq, now, searches, last.as_ref()).0
    }

    /// Where the head's flavor scan starts: where it stopped last, if that scan still
    /// holds (the cycle right after it, or no quota change since).
    fn start_scan(&mut self, wl: WlId, cq: CqId) -> Option<LastState> {
        let cycle = self.cycle;
        let generation = self.cqs[cq].generation;
        let last = self
            .wl(wl)
            .last
            .clone()
            .filter(|l| cycle.saturating_sub(l.cycle) <= 1 || generation <= l.generation);
        if last.as_ref().is_some_and(LastState::pending_flavors) {
            // A scan resumed past the first flavors is not a full look at this state: the
            // settling sweep must not take it for one.
            self.wl_mut(wl).evaluated_at = 0;
        }
        last
    }

    /// Flavor assignment from scan state `last`, plus preemption targets, with partial
    /// admission as a fallback; and whether any of it read the clock.
    fn assign_from(
        &mut self,
        wl: WlId,
        cq: CqId,
        now: Millis,
        searches: &SearchMemo,
        last: Option<&LastState>,
    ) -> ((Assigned, Vec<Victim>), bool) {
        let mut tree = std::mem::take(&mut self.tree);
        let (result, read_clock) = {
            let view = self.view(now);
            let assigner = Assigner {
                view: &view,
                wl,
                cq,
                last,
                searches,
            };
            let full = assigner.assign(&mut tree, None);
            let result = match full.mode() {
                FitMode::Fit => (full, Vec::new()),
                mode => {
                    let mut chosen = None;
                    if mode != FitMode::NoFit {
                        let targets = targets_for(&assigner, &mut tree, &full);
                        if !targets.is_empty() {
                            chosen = Some((full.clone(), targets));
                        }
                    }
                    match chosen {
                        Some(c) => c,
                        None => partial(&mut tree, &assigner).unwrap_or((full, Vec::new())),
                    }
                }
            };
            (result, view.now_read.get() || searches.read_clock())
        };
        self.tree = tree;
        (result, read_clock)
    }
}

fn targets_for(assigner: &Assigner, tree: &mut Tree, assigned: &Assigned) -> Vec<Victim> {
    let frs = assigned.frs_needing_preemption(assigner.view);
    let req = Request {
        preemptor: assigner.wl,
        cq: assigner.cq,
        frs: &frs,
        usage: &assigned.usage,
    };
    assigner.searches.targets(assigner.view, tree, &req)
}

/// Partial admission: the largest podSet count between `minCount` and `count` that fits,
/// or finds preemption targets (upstream allows `minCount` on one podSet).
fn partial(tree: &mut Tree, assigner: &Assigner) -> Option<(Assigned, Vec<Victim>)> {
    let st = assigner.view.wl(assigner.wl);
    let (idx, ps) = st
        .pod_sets
        .iter()
        .enumerate()
        .find(|(_, p)| p.min_count.is_some_and(|m| m < p.count))?;
    let min = ps.min_count?.max(0);
    let full: Vec<i32> = st.pod_sets.iter().map(|p| p.count).collect();
    let delta = ps.count - min;
    let try_count = |reduction: i32, tree: &mut Tree| -> Option<(Assigned, Vec<Victim>)> {
        let mut counts = full.clone();
        counts[idx] = ps.count - reduction;
        let a = assigner.assign(tree, Some(&counts));
        match a.mode() {
            FitMode::Fit => Some((a, Vec::new())),
            FitMode::NoFit => None,
            _ => {
                let t = targets_for(assigner, tree, &a);
                (!t.is_empty()).then_some((a, t))
            }
        }
    };
    // Smallest reduction in 1..=delta that works (monotonic, as upstream's sort.Search).
    let (mut lo, mut hi) = (1, delta + 1);
    let mut found = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match try_count(mid, tree) {
            Some(r) => {
                found = Some((mid, r));
                hi = mid;
            }
            None => lo = mid + 1,
        }
    }
    match found {
        Some((r, res)) if r == lo => Some(res),
        _ if lo <= delta => try_count(lo, tree),
        _ => None,
    }
}
