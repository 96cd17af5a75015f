//! What-if evaluation of one workload against the current state, without changing it:
//! the flavor assignment it would get now, whom it would preempt, or why it would wait.
//! The basis of `explain` and `submit --dry-run`.

use super::decision::{
    Assignment, Blocked, FitMode, PendingDetail, PendingReason, PreemptionReason,
};
use super::key::WorkloadKey;
use super::model::Millis;
use super::state::Engine;

/// A victim the workload would preempt.
#[derive(Debug, Clone, PartialEq)]
pub struct WouldPreempt {
    pub workload: WorkloadKey,
    pub cluster_queue: String,
    pub priority: i32,
    pub reason: PreemptionReason,
}

/// The outcome of evaluating one workload now.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub cluster_queue: Option<String>,
    /// Flavor assignment as it would be computed now (None when never assigned: blocked).
    pub assignment: Option<Assignment>,
    /// Fit, Preempt (with or without victims) or NoFit.
    pub mode: FitMode,
    pub would_preempt: Vec<WouldPreempt>,
    /// The QuotaReserved=False reason and message it would get if it stays pending.
    pub reason: Option<PendingReason>,
    pub message: String,
    pub detail: PendingDetail,
}

impl Engine {
    /// Evaluates `key` as if it were the only head this cycle. A workload holding quota is
    /// evaluated as if it gave its quota back first (how it would be admitted now).
    pub fn evaluate(&self, key: &WorkloadKey, now: Millis) -> Option<Evaluation> {
        let mut engine = self.clone();
        let id = engine.workload_id(key)?;
        if engine.wl(id).holding.is_some() {
            engine.release(key);
        }
        if let Some(Blocked {
            reason,
            message,
            detail,
        }) = engine.blocked_reason(key)
        {
            let cq = engine.wl(id).target_cq.map(|c| engine.cqs[c].name.clone());
            return Some(Evaluation {
                cluster_queue: cq,
                assignment: None,
                mode: FitMode::NoFit,
                would_preempt: vec![],
                reason: Some(reason),
                message,
                detail,
            });
        }
        let cq = engine.wl(id).target_cq?;
        let cq_name = engine.cqs[cq].name.clone();
        let namespace = engine.wl(id).w.namespace.clone();
        if !engine.namespace_selected(cq, &namespace) {
            return Some(Evaluation {
                cluster_queue: Some(cq_name),
                assignment: None,
                mode: FitMode::NoFit,
                would_preempt: vec![],
                reason: Some(PendingReason::Misconfigured),
                message: super::message::NAMESPACE_MISMATCH.to_string(),
                detail: PendingDetail::NamespaceNotSelected { namespace },
            });
        }
        engine.wl_mut(id).last = None;
        let (assigned, victims) = engine.assignments(id, cq, now);
        let view = engine.view(now);
        let assignment = assigned.to_report(&view);
        let mode = assigned.mode();
        let would_preempt: Vec<WouldPreempt> = victims
            .iter()
            .map(|v| {
                let st = view.wl(v.wl);
                WouldPreempt {
                    workload: st.key.clone(),
                    cluster_queue: st
                        .holding
                        .as_ref()
                        .map_or(cq_name.clone(), |h| engine.cqs[h.cq].name.clone()),
                    priority: st.priority(),
                    reason: v.reason,
                }
            })
            .collect();
        let message = assigned.message();
        let (reason, detail) = match mode {
            FitMode::Fit => (None, PendingDetail::None),
            FitMode::NoFit => (
                Some(
                    assigned
                        .no_fit_reason
                        .unwrap_or(PendingReason::WaitingForQuota),
                ),
                PendingDetail::None,
            ),
            _ if would_preempt.is_empty() => (
                Some(PendingReason::WaitingForQuota),
                PendingDetail::NoCandidates,
            ),
            _ => (
                Some(PendingReason::WaitingForPreemptedWorkloads),
                PendingDetail::None,
            ),
        };
        Some(Evaluation {
            cluster_queue: Some(cq_name),
            assignment: Some(assignment),
            mode,
            would_preempt,
            reason,
            message,
            detail,
        })
    }

    /// Pending workloads ahead of `key` in its ClusterQueue, in queue order (upstream's
    /// visibility order: heap and parked together).
    pub fn ahead_of(&self, key: &WorkloadKey) -> Vec<WorkloadKey> {
        let Some(id) = self.workload_id(key) else {
            return vec![];
        };
        let Some(cq) = self.wl(id).target_cq else {
            return vec![];
        };
        let mut out = Vec::new();
        for k in self.queues[cq].ordered() {
            if k.id == id {
                return out;
            }
            if let Some(st) = self.wls[k.id].as_ref() {
                out.push(st.key.clone());
            }
        }
        Vec::new()
    }

    /// Is the ClusterQueue of `key` StrictFIFO?
    pub fn strict_fifo(&self, cq: &str) -> bool {
        self.cq_ids.get(cq).is_some_and(|&c| {
            self.cqs[c].spec.queueing_strategy == super::model::QueueingStrategy::StrictFifo
        })
    }
}

impl Engine {
    /// Why preemption finds no victims for `key` on the (flavor, resource) pairs it needs,
    /// one sentence per policy, with the numbers (for `explain`).
    pub fn why_no_candidates(&self, key: &WorkloadKey, needed: &[(String, String)]) -> Vec<String> {
        use super::model::PreemptionPolicy;
        let Some(id) = self.workload_id(key) else {
            return vec![];
        };
        let Some(cq) = self.wl(id).target_cq else {
            return vec![];
        };
        let me = self.wl(id);
        let frs: Vec<super::id::FrId> = needed
            .iter()
            .filter_map(|(f, r)| {
                self.names
                    .find_fr(self.names.find_flavor(f)?, self.names.find_resource(r)?)
            })
            .collect();
        let what: Vec<String> = needed.iter().map(|(f, r)| format!("{r} on {f}")).collect();
        let what = what.join(", ");
        let spec = &self.cqs[cq].spec.preemption;
        let mut out = Vec::new();
        let users: Vec<&super::state::WlState> = self.cqs[cq]
            .holding
            .iter()
            .filter_map(|&w| self.wls[w].as_ref())
            .filter(|s| s.uses_any(&frs))
            .collect();
        match spec.within_cluster_queue {
            PreemptionPolicy::Never => out.push(format!(
                "withinClusterQueue is Never: the {} workload(s) of {} using {what} cannot be preempted by it",
                users.len(),
                self.cqs[cq].name
            )),
            policy => {
                let eligible = users.iter().filter(|s| {
                    s.priority() < me.priority()
                        || (policy == PreemptionPolicy::LowerOrNewerEqualPriority && s.priority() == me.priority() && me.w.queue_time < s.w.queue_time)
                });
                let n = eligible.count();
                let rule = if policy == PreemptionPolicy::LowerPriority { "a lower priority" } else { "a lower priority, or equal priority and newer" };
                out.push(format!(
                    "withinClusterQueue is {policy:?}: {n} of the {} workload(s) of {} using {what} have {rule} than its {}{}",
                    users.len(),
                    self.cqs[cq].name,
                    me.priority(),
                    if n > 0 { ", but preempting them would not free enough" } else { "" }
                ));
            }
        }
        let node = self.cqs[cq].node;
        if self.tree.parent(node).is_none() {
            out.push(format!(
                "{} has no cohort, so there is nothing to reclaim from other queues",
                self.cqs[cq].name
            ));
        } else if spec.reclaim_within_cohort == PreemptionPolicy::Never {
            out.push("reclaimWithinCohort is Never: workloads of other ClusterQueues are never preempted for it".to_string());
        } else {
            let root = self.tree.root(node);
            let mut nodes = Vec::new();
            self.tree.subtree_cqs(root, &mut nodes);
            for n in nodes.into_iter().filter(|&n| n != node) {
                let Some(other) = self.cq_of_node[n] else {
                    continue;
                };
                for &fr in &frs {
                    let usage = self.tree.nodes[n].usage[fr];
                    let nominal = self.tree.nodes[n].quota[fr].nominal;
                    let (f, r) = (self.names.fr_flavor(fr), self.names.fr_resource(fr));
                    if usage <= nominal {
                        out.push(format!(
                            "{} uses {} of its nominal {} {r} on {f}: it is not borrowing, so nothing can be reclaimed from it",
                            self.cqs[other].name,
                            super::quantity::format_amount(r, usage),
                            super::quantity::format_amount(r, nominal)
                        ));
                    } else {
                        out.push(format!(
                            "{} borrows {} {r} on {f}, but reclaimWithinCohort={:?} protects its workloads from this one (priority {})",
                            self.cqs[other].name,
                            super::quantity::format_amount(r, usage - nominal),
                            spec.reclaim_within_cohort,
                            me.priority()
                        ));
                    }
                }
            }
        }
        out
    }
}
