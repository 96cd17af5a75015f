//! One scheduling cycle, in upstream's order (`scheduler.go`'s `schedule`):
//!
//! 1. heads (`pop_heads`): one head per active ClusterQueue;
//! 2. nominate (`nominate`): flavor assignment and preemption targets for each head, all
//!    against the same starting state;
//! 3. order the entries (`entry_order`): borrowing last, then priority and age, or the
//!    fair-sharing tournament;
//! 4. process each entry in that order (`process`), so each admission's usage is visible to
//!    the entries after it;
//! 5. requeue what was not admitted, with its pending decision (`requeue_entries`);
//! 6. end the cycle (`end_cycle`): give back the capacity held for this cycle only.
//!
//! Invariants: a head is in exactly one entry and, after step 5, either holds quota or is
//! back in its queue; usage held for the cycle (preemptors waiting for victims, preemptors
//! without candidates) is gone from the tree after step 6.

pub(crate) mod memo;
mod nominate;
mod process;
pub(crate) mod quiet;

use std::collections::{BTreeMap, BTreeSet};

use super::decision::{CycleOutcome, Decision, PendingDetail, PendingReason, WorkloadDecision};
use super::fair_sharing;
use super::flavor_assigner::Assigned;
use super::id::{CqId, FrId, NodeId, WlId};
use super::message;
use super::model::Millis;
use super::preemption::Victim;
use super::quantity::Amount;
use super::queue::{QueueKey, RequeueReason};
use super::state::{Engine, EquivalentDecisions, LastState};
use super::view::View;

/// How far an entry got in this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Never processed, or stopped before choosing to admit or preempt.
    NotNominated,
    /// Nominated, but an earlier entry of the cycle took what it needed.
    Skipped,
    /// Holds quota now.
    Admitted,
}

/// One head's journey through the cycle.
struct Entry {
    /// The ClusterQueue it was popped from.
    cq: CqId,
    /// The workload it is for.
    wl: WlId,
    /// Its place in the queue, to put it back there.
    key: QueueKey,
    /// Its flavor assignment (`None` when it failed before: namespace not selected).
    assigned: Option<std::sync::Arc<Assigned>>,
    /// Victims that would make room for it (empty when it fits, or nothing can be preempted).
    targets: Vec<Victim>,
    /// The quota they hold, summed per ClusterQueue node.
    target_sums: memo::QueueSums,
    /// How far it got.
    status: Status,
    /// Why it goes back to its queue, which decides whether it may be retried at once.
    requeue: RequeueReason,
    /// The `QuotaReserved=False` reason it gets if it stays pending.
    reason: PendingReason,
    /// The condition message that goes with `reason` (from [`message`]).
    message: String,
    /// The numbers behind `reason`, for `explain`.
    detail: PendingDetail,
    /// Failed before flavor assignment (namespace not selected), so it is not ordered or
    /// processed.
    inadmissible: bool,
    /// Waiting for its victims: it has its `Preempting` decision already.
    preempting: bool,
    /// Forget its flavor scan progress (it preempted, so it starts over next time).
    clear_last: bool,
}

impl Entry {
    fn new(cq: CqId, key: QueueKey) -> Self {
        Entry {
            cq,
            wl: key.id,
            key,
            assigned: None,
            targets: Vec::new(),
            target_sums: memo::QueueSums::default(),
            status: Status::NotNominated,
            requeue: RequeueReason::Generic,
            reason: PendingReason::PendingEvaluation,
            message: String::new(),
            detail: PendingDetail::None,
            inadmissible: false,
            preempting: false,
            clear_last: false,
        }
    }
}

/// What the entries processed so far in this cycle have taken.
#[derive(Default)]
struct CycleState {
    /// Victims chosen by earlier entries: a later entry may not count on them too.
    preempted: BTreeSet<WlId>,
    /// The quota those victims hold, summed per ClusterQueue node, keyed by (the node's
    /// root, the node). Tree usage depends only on each ClusterQueue's total, so taking the
    /// sums out leaves the tree as taking out every victim would, with one change per queue
    /// instead of one per victim, and only in the entry's own tree: with a thousand queues
    /// preempting in one cycle, each entry took out every victim so far (quadratic; three
    /// quarters of the controller's CPU at large-scale).
    preempted_usage: BTreeMap<(NodeId, NodeId), Vec<(FrId, Amount)>>,
    /// Usage added to the tree for this cycle only, per ClusterQueue node.
    reserved: Vec<(NodeId, Vec<(FrId, Amount)>)>,
}

/// Adds `usage` to `sums`, pair by pair.
fn add_into(sums: &mut Vec<(FrId, Amount)>, usage: &[(FrId, Amount)]) {
    for &(fr, v) in usage {
        match sums.iter_mut().find(|(f, _)| *f == fr) {
            Some((_, sum)) => *sum += v,
            None => sums.push((fr, v)),
        }
    }
}

impl Engine {
    /// Runs one scheduling cycle at time `now` and applies its decisions to the engine's
    /// state: admitted workloads hold quota, victims are marked evicted (they keep their
    /// quota until [`Engine::release`]), the rest go back to their queues.
    pub fn run_cycle(&mut self, now: Millis) -> CycleOutcome {
        self.cycle += 1;
        let mut outcome = CycleOutcome {
            cycle: self.cycle,
            ..CycleOutcome::default()
        };
        // 1. Heads.
        let heads = self.pop_heads();
        if heads.is_empty() {
            return outcome;
        }
        let versions = self.versions_of(&heads);
        // 2. Nominate.
        let mut entries = self.nominate(&heads, now);
        // 3. Order the entries.
        let order = self.entry_order(&entries, now);
        // 4. Process each entry.
        let mut state = CycleState::default();
        for &i in &order {
            self.process(&mut entries[i], &mut state, now, &mut outcome);
        }
        // 5. Requeue.
        self.requeue_entries(&mut entries, now, &mut outcome);
        self.stamp_quiet(&entries, &versions);
        // 6. End of cycle.
        self.end_cycle(state);
        outcome
    }

    /// One head per active ClusterQueue (the sticky preemptor first, else the queue's
    /// first), counted as admission attempts and marked evaluated now.
    /// Heads of quiet trees ([`quiet`]) are not popped: they get the bookkeeping alone.
    fn pop_heads(&mut self) -> Vec<(CqId, QueueKey)> {
        let quiet = self.quiet_queues();
        let mut heads = Vec::new();
        for cq in self.cqs.ids() {
            if self.cqs[cq].inactive.is_some() {
                continue;
            }
            if quiet.contains(&cq) {
                if let Some(key) = self.queues[cq].head() {
                    self.skip_quiet_head(key);
                }
                continue;
            }
            if let Some(key) = self.queues[cq].pop() {
                heads.push((cq, key));
            }
        }
        self.attempts += heads.len() as u64;
        for &(_, key) in &heads {
            self.mark_evaluated(key.id);
        }
        heads
    }

    /// A head counts as evaluated in this epoch.
    fn mark_evaluated(&mut self, id: WlId) {
        let epoch = self.epoch;
        if self.evaluated_in_epoch.0 != epoch {
            self.evaluated_in_epoch = (epoch, Vec::new());
        }
        let st = self.wls[id].as_mut().expect("live workload id");
        if st.evaluated_at != epoch {
            // Listed again only after a resumed scan reset it: bounded by deduplicating.
            let listed = &mut self.evaluated_in_epoch.1;
            listed.push(id);
            if listed.len() > 2 * self.wl_ids.len() + 64 {
                listed.sort_unstable();
                listed.dedup();
            }
        }
        st.evaluated_at = epoch;
        st.equivalent_reported = None;
    }

    /// Indices of the nominated entries in processing order: by borrowing level, then
    /// priority, then age; under fair sharing, the tournament of [`fair_sharing`].
    fn entry_order(&mut self, entries: &[Entry], now: Millis) -> Vec<usize> {
        let nominated: Vec<usize> = (0..entries.len())
            .filter(|&i| !entries[i].inadmissible)
            .collect();
        if self.cfg.fair_sharing.is_none() {
            let mut order = nominated;
            order.sort_by_key(|&i| {
                let e = &entries[i];
                let st = self.wl(e.wl);
                let borrowing = e.assigned.as_ref().map_or(0, |a| a.borrowing);
                (
                    borrowing,
                    -i64::from(st.priority()),
                    st.w.queue_time,
                    st.w.tiebreak,
                )
            });
            return order;
        }
        // Fair sharing: a tournament per pick, on the live tree (earlier picks are not
        // applied yet; upstream computes shares on the snapshot before processing).
        let mut remaining: BTreeMap<CqId, fair_sharing::Contender> = BTreeMap::new();
        let mut by_cq: BTreeMap<CqId, usize> = BTreeMap::new();
        for &i in &nominated {
            let e = &entries[i];
            let usage = e
                .assigned
                .as_ref()
                .map(|a| a.usage.clone())
                .unwrap_or_default();
            remaining.insert(e.cq, fair_sharing::Contender { wl: e.wl, usage });
            by_cq.insert(e.cq, i);
        }
        let mut order = Vec::with_capacity(remaining.len());
        let mut tree = std::mem::take(&mut self.tree);
        {
            let view = self.view(now);
            while !remaining.is_empty() {
                let cq = fair_sharing::next_entry(&view, &mut tree, &remaining);
                remaining.remove(&cq);
                order.push(by_cq[&cq]);
            }
        }
        self.tree = tree;
        order
    }

    /// Every entry not admitted goes back to its queue (parking its equivalents with it),
    /// and every one not waiting for victims gets its `Pending` decision.
    fn requeue_entries(&mut self, entries: &mut [Entry], now: Millis, outcome: &mut CycleOutcome) {
        for e in entries {
            if e.status == Status::Admitted {
                continue;
            }
            let reason = if e.status != Status::NotNominated && e.requeue == RequeueReason::Generic
            {
                RequeueReason::FailedAfterNomination
            } else {
                e.requeue
            };
            let cycle = self.cycle;
            let st = self.wl_mut(e.wl);
            if e.clear_last {
                st.last = None;
            } else if let Some(a) = &e.assigned {
                st.last = Some(LastState {
                    cycle,
                    ..a.last.clone()
                });
            }
            let pending_flavors = st.last.as_ref().is_some_and(LastState::pending_flavors);
            let hash = st.hash;
            let report = self.equivalent_decisions != EquivalentDecisions::Off && !e.preempting;
            let parked_with =
                self.queues[e.cq].requeue(e.key, hash, reason, pending_flavors, false, report);
            if e.preempting {
                continue;
            }
            let view = self.view(now);
            let assignment = if self.detailed_pending {
                e.assigned.as_ref().map(|a| a.to_report(&view))
            } else {
                None
            };
            let cq_name = self.cqs[e.cq].name.clone();
            let head = self.wl(e.wl).key.clone();
            let mode = self.equivalent_decisions;
            for id in parked_with {
                let reported = &mut self.wl_mut(id).equivalent_reported;
                let said = reported.replace(e.reason) == Some(e.reason);
                if mode == EquivalentDecisions::OnChange && said {
                    continue;
                }
                outcome.decisions.push(WorkloadDecision {
                    workload: self.wl(id).key.clone(),
                    decision: Decision::Pending {
                        cluster_queue: Some(cq_name.clone()),
                        reason: e.reason,
                        message: message::EQUIVALENT_FAILED.to_string(),
                        assignment: None,
                        detail: PendingDetail::SameAsEquivalent {
                            workload: head.clone(),
                        },
                    },
                });
            }
            outcome.decisions.push(WorkloadDecision {
                workload: head,
                decision: Decision::Pending {
                    cluster_queue: Some(cq_name),
                    reason: e.reason,
                    message: std::mem::take(&mut e.message),
                    assignment,
                    detail: std::mem::take(&mut e.detail),
                },
            });
        }
    }

    /// Gives back the capacity held for this cycle only: preemptors waiting for their
    /// victims and preemptors without candidates hold nothing between cycles.
    fn end_cycle(&mut self, state: CycleState) {
        for (node, usage) in state.reserved {
            self.tree.remove_usages(node, &usage);
        }
    }

    pub(crate) fn view(&self, now: Millis) -> View<'_> {
        View {
            cfg: &self.cfg,
            names: &self.names,
            flavors: &self.flavors,
            cqs: &self.cqs,
            wls: &self.wls,
            cq_of_node: &self.cq_of_node,
            now,
            now_read: std::cell::Cell::new(false),
        }
    }
}
