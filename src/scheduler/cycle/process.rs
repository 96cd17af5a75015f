//! Step 4 of a cycle: processing one entry, in order. An entry that fits is admitted; one
//! that needs preemption issues it (unless an earlier entry took its victims or the room it
//! counted on) and holds its capacity for the rest of the cycle; one without candidates may
//! hold capacity too, so lower entries do not take it.

use std::sync::Arc;

use super::memo::Issued;
use super::{CycleState, Entry, Status, add_into};
use crate::scheduler::decision::{
    CycleOutcome, Decision, FitMode, PendingDetail, PendingReason, Target, WorkloadDecision,
};
use crate::scheduler::flavor_assigner::Assigned;
use crate::scheduler::guard::WhatIf;
use crate::scheduler::id::{CqId, FrId, NodeId};
use crate::scheduler::message;
use crate::scheduler::model::{Millis, PreemptionPolicy};
use crate::scheduler::quantity::Amount;
use crate::scheduler::queue::RequeueReason;
use crate::scheduler::state::{Engine, Holding};

impl Engine {
    /// Admits, preempts for, or skips one entry, recording why on the entry.
    pub(super) fn process(
        &mut self,
        e: &mut Entry,
        state: &mut CycleState,
        now: Millis,
        outcome: &mut CycleOutcome,
    ) {
        let Some(assigned) = e.assigned.as_ref() else {
            return;
        };
        let mode = assigned.mode();
        let node = self.cqs[e.cq].node;
        if mode == FitMode::NoFit {
            e.requeue = RequeueReason::NoFit;
            e.reason = assigned
                .no_fit_reason
                .unwrap_or(PendingReason::WaitingForQuota);
            return;
        }
        if mode != FitMode::Fit && e.targets.is_empty() {
            e.requeue = RequeueReason::PreemptionNoCandidates;
            e.reason = PendingReason::WaitingForQuota;
            e.detail = PendingDetail::NoCandidates;
            if self.cqs[e.cq].spec.preemption.reclaim_within_cohort != PreemptionPolicy::Any {
                let reserve = self.capacity_to_reserve(e.cq, assigned);
                self.tree.add_usages(node, &reserve);
                state.reserved.push((node, reserve));
            }
            return;
        }
        if e.targets.iter().any(|t| state.preempted.contains(&t.wl)) {
            e.status = Status::Skipped;
            e.message = message::OVERLAPPING_TARGETS.to_string();
            e.reason = PendingReason::WaitingForQuota;
            e.detail = PendingDetail::OverlappingTargets;
            self.count_preemption_skip(e.cq, outcome);
            return;
        }
        if mode == FitMode::Fit && self.admission_blocked() {
            e.requeue = RequeueReason::WaitingForPodsReady;
            e.reason = PendingReason::WaitingForPodsReady;
            e.message = message::WAITING_FOR_PODS_READY.to_string();
            e.detail = PendingDetail::WaitingForPodsReady {
                workloads: self.admitted_not_ready(),
            };
            e.clear_last = true;
            self.pods_ready_parked = true;
            return;
        }
        let usage = assigned.usage.clone();
        if !self.fits_after_removals(e.cq, &usage, state, e, now) {
            e.status = Status::Skipped;
            e.message = message::NO_LONGER_FITS.to_string();
            e.reason = PendingReason::WaitingForQuota;
            e.detail = PendingDetail::NoLongerFits;
            if mode != FitMode::Fit {
                self.count_preemption_skip(e.cq, outcome);
            }
            return;
        }
        self.record_preempted(state, e);
        self.tree.add_usages(node, &usage);
        if mode != FitMode::Fit {
            state.reserved.push((node, usage));
            self.issue_preemptions(e, now, outcome);
            return;
        }
        self.admit(e, usage, now, outcome);
    }

    /// One more entry of `cq` that needed preemption skipped in this cycle.
    fn count_preemption_skip(&self, cq: CqId, outcome: &mut CycleOutcome) {
        *outcome
            .preemption_skips
            .entry(self.cqs[cq].name.clone())
            .or_default() += 1;
    }

    /// Upstream's `resourcesToReserve` for a preemptor without candidates.
    fn capacity_to_reserve(&self, cq: CqId, assigned: &Assigned) -> Vec<(FrId, Amount)> {
        let node = &self.tree.nodes[self.cqs[cq].node];
        assigned
            .usage
            .iter()
            .map(|&(fr, v)| {
                let q = node.quota[fr];
                let used = node.usage[fr];
                let r = if assigned.borrowing > 0 {
                    match q.borrowing_limit {
                        None => v,
                        Some(bl) => v.min(q.nominal + bl - used),
                    }
                } else {
                    v.min(q.nominal - used)
                };
                (fr, r.max(Amount::ZERO))
            })
            .collect()
    }

    /// Adds the entry's victims to the cycle's (none of them is there yet: the entry would
    /// have been skipped), and the quota they hold to its sums.
    fn record_preempted(&self, state: &mut CycleState, e: &Entry) {
        for t in &e.targets {
            let new = state.preempted.insert(t.wl);
            debug_assert!(new, "a victim named twice in one cycle");
        }
        for (node, usage) in e.target_sums.iter() {
            let key = (self.tree.root(*node), *node);
            add_into(state.preempted_usage.entry(key).or_default(), usage);
        }
    }

    /// Does `usage` still fit with every victim chosen so far in the cycle, and this entry's
    /// own, taken out? Only the victims in the entry's own tree can change what it has room
    /// for; they are taken out as per-queue sums, and so are the entry's own (none of which
    /// an earlier entry chose: it would have been skipped).
    fn fits_after_removals(
        &mut self,
        cq: CqId,
        usage: &[(FrId, Amount)],
        state: &CycleState,
        e: &Entry,
        now: Millis,
    ) -> bool {
        let node = self.cqs[cq].node;
        let root = self.tree.root(node);
        let mut tree = std::mem::take(&mut self.tree);
        let fits = {
            let mut without_victims = WhatIf::new(&mut tree);
            let in_this_tree = state
                .preempted_usage
                .range((root, NodeId::default())..)
                .take_while(|((r, _), _)| *r == root);
            for (&(_, n), sums) in in_this_tree {
                without_victims.remove(n, sums);
            }
            for (n, sums) in e.target_sums.iter() {
                without_victims.remove(*n, sums);
            }
            usage
                .iter()
                .all(|&(fr, v)| without_victims.available(node, fr) >= v)
        };
        // Debug builds (every test run) check the sums against taking out each victim.
        #[cfg(debug_assertions)]
        {
            debug_assert!(!e.targets.iter().any(|t| state.preempted.contains(&t.wl)));
            let view = self.view(now);
            let mut each = WhatIf::new(&mut tree);
            let victims = state.preempted.iter().copied();
            for w in victims.chain(e.targets.iter().map(|t| t.wl)) {
                each.take_out(&view, w);
            }
            let fits_each = usage.iter().all(|&(fr, v)| each.available(node, fr) >= v);
            debug_assert_eq!(fits, fits_each, "victims taken out as sums fit differently");
        }
        #[cfg(not(debug_assertions))]
        let _ = now;
        self.tree = tree;
        fits
    }

    /// Marks the victims evicted and records the `Preempting` decision; the entry waits.
    fn issue_preemptions(&mut self, e: &mut Entry, now: Millis, outcome: &mut CycleOutcome) {
        // A kept nomination's decision is the one it issued before (see `super::memo`).
        let issued = match self.nominations.issued(e.wl) {
            Some(kept) => {
                // Every test (debug builds) checks a kept decision against a new one.
                #[cfg(debug_assertions)]
                assert_eq!(
                    format!("{kept:?}"),
                    format!("{:?}", self.preempting_decision(e, now)),
                    "a Preempting decision kept from an earlier cycle differs from a new one"
                );
                kept
            }
            None => {
                let issued = self.preempting_decision(e, now);
                self.nominations.keep_issued(e.wl, &issued);
                issued
            }
        };
        for v in &e.targets {
            let newly = !std::mem::replace(&mut self.wl_mut(v.wl).evicted, true);
            // Evicted victims are searched first. (A preemptor waiting for its victims
            // names them again every cycle: that changes nothing.)
            if newly && let Some(cq) = self.wl(v.wl).holding.as_ref().map(|h| h.cq) {
                self.searches_changed(cq);
            }
        }
        self.epoch += 1;
        e.preempting = true;
        e.clear_last = true;
        e.requeue = RequeueReason::PendingPreemption;
        e.reason = PendingReason::WaitingForPreemptedWorkloads;
        e.message.clear();
        e.message.push_str(&issued.message);
        outcome.decisions.push(WorkloadDecision {
            workload: self.wl(e.wl).key.clone(),
            decision: Decision::Preempting {
                cluster_queue: self.cqs[e.cq].name.clone(),
                assignment: issued.assignment,
                targets: issued.targets,
                message: issued.message,
            },
        });
    }

    /// What the entry's `Preempting` decision says: each victim with its eviction message,
    /// the assignment, and the preemptor's condition message.
    fn preempting_decision(&self, e: &Entry, now: Millis) -> Issued {
        let preemptor = &self.wl(e.wl).w;
        let preemptor_path = &self.cqs[e.cq].path;
        let targets: Vec<Target> = e
            .targets
            .iter()
            .map(|v| {
                let victim = self.wl(v.wl);
                let victim_cq = victim.holding.as_ref().map_or(e.cq, |h| h.cq);
                Target {
                    workload: victim.key.clone(),
                    cluster_queue: self.cqs[victim_cq].name.clone(),
                    reason: v.reason,
                    priority: victim.priority(),
                    message: message::preempted(
                        &preemptor.uid,
                        preemptor.job_uid.as_deref(),
                        v.reason,
                        preemptor_path,
                        &self.cqs[victim_cq].path,
                    ),
                }
            })
            .collect();
        let view = self.view(now);
        Issued {
            message: message::pending_preemption(&e.message, targets.len()).into(),
            targets: targets.into(),
            assignment: Arc::new(
                e.assigned
                    .as_ref()
                    .map(|a| a.to_report(&view))
                    .unwrap_or_default(),
            ),
        }
    }

    /// Reserves quota: the workload holds `usage` in its ClusterQueue from now on.
    fn admit(
        &mut self,
        e: &mut Entry,
        usage: Vec<(FrId, Amount)>,
        now: Millis,
        outcome: &mut CycleOutcome,
    ) {
        e.status = Status::Admitted;
        let report = {
            let view = self.view(now);
            e.assigned
                .as_ref()
                .map(|a| a.to_report(&view))
                .unwrap_or_default()
        };
        let admission = report.admission(&self.cqs[e.cq].name);
        self.queues[e.cq].remove(&e.key);
        self.cqs[e.cq].holding.insert(e.wl);
        self.toggle_holding(e.wl, e.cq);
        self.epoch += 1;
        let cq = e.cq;
        let st = self.wl_mut(e.wl);
        st.holding = Some(Holding { cq, usage });
        st.evicted = false;
        st.reserved_at = Some(now);
        st.last = None;
        st.w.admission = Some(admission);
        st.w.quota_reserved_at = Some(now);
        st.w.admitted = true;
        st.w.evicted = false;
        // No pods yet: with `blockAdmission`, it holds the next admission until ready.
        st.w.pods_ready = false;
        outcome.decisions.push(WorkloadDecision {
            workload: self.wl(e.wl).key.clone(),
            decision: Decision::Admitted {
                cluster_queue: self.cqs[e.cq].name.clone(),
                assignment: report,
            },
        });
    }
}
