//! One scheduling cycle, as upstream's `schedule`: pop one head per active ClusterQueue,
//! nominate each (flavor assignment and preemption targets, all against the same starting
//! state), order the entries, then process them one at a time so each admission's usage is
//! visible to the entries after it, and finally requeue what was not admitted.

use std::collections::{BTreeMap, BTreeSet};

use super::decision::{
    CycleOutcome, Decision, FitMode, PendingDetail, PendingReason, Target, WorkloadDecision,
};
use super::fair_sharing;
use super::flavor_assigner::{Assigned, Assigner};
use super::guard::WhatIf;
use super::id::{CqId, FrId, NodeId, WlId};
use super::message;
use super::model::{Admission, Millis, PodSetAdmission, PreemptionPolicy};
use super::preemption::{self, Request, Victim};
use super::quantity::Amount;
use super::queue::{QueueKey, RequeueReason};
use super::state::{Engine, Holding, LastState};
use super::view::View;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    NotNominated,
    Skipped,
    Admitted,
}

struct Entry {
    cq: CqId,
    wl: WlId,
    key: QueueKey,
    assigned: Option<Assigned>,
    targets: Vec<Victim>,
    status: Status,
    requeue: RequeueReason,
    reason: PendingReason,
    message: String,
    detail: PendingDetail,
    /// Failed before flavor assignment (namespace not selected...).
    inadmissible: bool,
    preempting: bool,
    clear_last: bool,
}

impl Engine {
    /// Runs one scheduling cycle at time `now` and applies its decisions to the engine's
    /// state: admitted workloads hold quota, victims are marked evicted (they keep their
    /// quota until [`Engine::release`]), the rest go back to their queues.
    pub fn run_cycle(&mut self, now: Millis) -> CycleOutcome {
        self.cycle += 1;
        let mut heads = Vec::new();
        for cq in self.cqs.ids() {
            if self.cqs[cq].inactive.is_some() {
                continue;
            }
            if let Some(key) = self.queues[cq].pop() {
                heads.push((cq, key));
            }
        }
        let mut outcome = CycleOutcome {
            cycle: self.cycle,
            decisions: Vec::new(),
        };
        if heads.is_empty() {
            return outcome;
        }
        self.attempts += heads.len() as u64;
        let epoch = self.epoch;
        for &(_, key) in &heads {
            self.wl_mut(key.id).evaluated_at = epoch;
        }
        let mut entries = self.nominate(&heads, now);
        let order = self.entry_order(&entries, now);
        let mut preempted: BTreeSet<WlId> = BTreeSet::new();
        let mut temporary: Vec<(NodeId, Vec<(FrId, Amount)>)> = Vec::new();
        for &i in &order {
            self.process(
                &mut entries[i],
                &mut preempted,
                &mut temporary,
                now,
                &mut outcome,
            );
        }
        for (node, usage) in temporary {
            self.tree.remove_usages(node, &usage);
        }
        for e in &mut entries {
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
            let parked_with =
                self.queues[e.cq].requeue(e.key, hash, reason, pending_flavors, false);
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
            for id in parked_with {
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
        outcome
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
        }
    }

    fn nominate(&mut self, heads: &[(CqId, QueueKey)], now: Millis) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(heads.len());
        for &(cq, key) in heads {
            let wl = key.id;
            let mut e = Entry {
                cq,
                wl,
                key,
                assigned: None,
                targets: Vec::new(),
                status: Status::NotNominated,
                requeue: RequeueReason::Generic,
                reason: PendingReason::PendingEvaluation,
                message: String::new(),
                detail: PendingDetail::None,
                inadmissible: false,
                preempting: false,
                clear_last: false,
            };
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
            let (assigned, targets) = self.assignments(wl, cq, now);
            e.message = assigned.message();
            e.assigned = Some(assigned);
            e.targets = targets;
            entries.push(e);
        }
        entries
    }

    /// Flavor assignment plus preemption targets, with partial admission as a fallback.
    pub(crate) fn assignments(
        &mut self,
        wl: WlId,
        cq: CqId,
        now: Millis,
    ) -> (Assigned, Vec<Victim>) {
        let cycle = self.cycle;
        let generation = self.cqs[cq].generation;
        let last = self
            .wl(wl)
            .last
            .clone()
            .filter(|l| cycle.saturating_sub(l.cycle) <= 1 || generation <= l.generation);
        let mut tree = std::mem::take(&mut self.tree);
        let result = {
            let view = self.view(now);
            let assigner = Assigner {
                view: &view,
                wl,
                cq,
                last: last.as_ref(),
            };
            let full = assigner.assign(&mut tree, None);
            match full.mode() {
                FitMode::Fit => (full, Vec::new()),
                mode => {
                    let mut chosen = None;
                    if mode != FitMode::NoFit {
                        let targets = targets_for(&view, &mut tree, wl, cq, &full);
                        if !targets.is_empty() {
                            chosen = Some((full.clone(), targets));
                        }
                    }
                    match chosen {
                        Some(c) => c,
                        None => partial(&view, &mut tree, &assigner, wl, cq)
                            .unwrap_or((full, Vec::new())),
                    }
                }
            }
        };
        self.tree = tree;
        result
    }

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

    fn process(
        &mut self,
        e: &mut Entry,
        preempted: &mut BTreeSet<WlId>,
        temporary: &mut Vec<(NodeId, Vec<(FrId, Amount)>)>,
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
                temporary.push((node, reserve));
            }
            return;
        }
        if e.targets.iter().any(|t| preempted.contains(&t.wl)) {
            e.status = Status::Skipped;
            e.message = message::OVERLAPPING_TARGETS.to_string();
            e.reason = PendingReason::WaitingForQuota;
            e.detail = PendingDetail::OverlappingTargets;
            return;
        }
        let usage = assigned.usage.clone();
        if !self.fits_after_removals(e.cq, &usage, preempted, &e.targets, now) {
            e.status = Status::Skipped;
            e.message = message::NO_LONGER_FITS.to_string();
            e.reason = PendingReason::WaitingForQuota;
            e.detail = PendingDetail::NoLongerFits;
            return;
        }
        preempted.extend(e.targets.iter().map(|t| t.wl));
        self.tree.add_usages(node, &usage);
        if mode != FitMode::Fit {
            temporary.push((node, usage));
            self.issue_preemptions(e, now, outcome);
            return;
        }
        self.admit(e, usage, now, outcome);
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

    fn fits_after_removals(
        &mut self,
        cq: CqId,
        usage: &[(FrId, Amount)],
        preempted: &BTreeSet<WlId>,
        targets: &[Victim],
        now: Millis,
    ) -> bool {
        let removed: Vec<WlId> = preempted
            .iter()
            .copied()
            .chain(
                targets
                    .iter()
                    .map(|t| t.wl)
                    .filter(|w| !preempted.contains(w)),
            )
            .collect();
        let mut tree = std::mem::take(&mut self.tree);
        let fits = {
            let view = self.view(now);
            let mut without_victims = WhatIf::new(&mut tree);
            for &w in &removed {
                without_victims.take_out(&view, w);
            }
            let node = view.cq_node(cq);
            usage
                .iter()
                .all(|&(fr, v)| without_victims.available(node, fr) >= v)
        };
        self.tree = tree;
        fits
    }

    fn issue_preemptions(&mut self, e: &mut Entry, now: Millis, outcome: &mut CycleOutcome) {
        let preemptor = &self.wl(e.wl).w;
        let preemptor_path = &self.cqs[e.cq].path;
        let mut targets = Vec::with_capacity(e.targets.len());
        for v in &e.targets {
            let victim = self.wl(v.wl);
            let victim_cq = victim.holding.as_ref().map_or(e.cq, |h| h.cq);
            let message = message::preempted(
                &preemptor.uid,
                preemptor.job_uid.as_deref(),
                v.reason,
                preemptor_path,
                &self.cqs[victim_cq].path,
            );
            targets.push(Target {
                workload: victim.key.clone(),
                cluster_queue: self.cqs[victim_cq].name.clone(),
                reason: v.reason,
                priority: victim.priority(),
                message,
            });
        }
        for v in &e.targets {
            self.wl_mut(v.wl).evicted = true;
        }
        self.epoch += 1;
        let message = message::pending_preemption(&e.message, targets.len());
        e.preempting = true;
        e.clear_last = true;
        e.requeue = RequeueReason::PendingPreemption;
        e.reason = PendingReason::WaitingForPreemptedWorkloads;
        e.message = message.clone();
        let view = self.view(now);
        let assignment = e
            .assigned
            .as_ref()
            .map(|a| a.to_report(&view))
            .unwrap_or_default();
        outcome.decisions.push(WorkloadDecision {
            workload: self.wl(e.wl).key.clone(),
            decision: Decision::Preempting {
                cluster_queue: self.cqs[e.cq].name.clone(),
                assignment,
                targets,
                message,
            },
        });
    }

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
        let admission = Admission {
            cluster_queue: self.cqs[e.cq].name.clone(),
            pod_sets: report
                .pod_sets
                .iter()
                .map(|ps| PodSetAdmission {
                    name: ps.name.clone(),
                    flavors: ps
                        .flavors
                        .iter()
                        .map(|(r, f, _)| (r.clone(), f.clone()))
                        .collect(),
                    resource_usage: ps.resource_usage.iter().cloned().collect(),
                    count: ps.count,
                })
                .collect(),
        };
        self.queues[e.cq].remove(&e.key);
        self.cqs[e.cq].holding.insert(e.wl);
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
        outcome.decisions.push(WorkloadDecision {
            workload: self.wl(e.wl).key.clone(),
            decision: Decision::Admitted {
                cluster_queue: self.cqs[e.cq].name.clone(),
                assignment: report,
            },
        });
    }
}

fn targets_for(
    view: &View,
    tree: &mut super::tree::Tree,
    wl: WlId,
    cq: CqId,
    assigned: &Assigned,
) -> Vec<Victim> {
    let frs = assigned.frs_needing_preemption(view);
    let req = Request {
        preemptor: wl,
        cq,
        frs: &frs,
        usage: &assigned.usage,
    };
    preemption::get_targets(view, tree, &req)
}

/// Partial admission: the largest podSet count between `minCount` and `count` that fits,
/// or finds preemption targets (upstream allows `minCount` on one podSet).
fn partial(
    view: &View,
    tree: &mut super::tree::Tree,
    assigner: &Assigner,
    wl: WlId,
    cq: CqId,
) -> Option<(Assigned, Vec<Victim>)> {
    let st = view.wl(wl);
    let (idx, ps) = st
        .pod_sets
        .iter()
        .enumerate()
        .find(|(_, p)| p.min_count.is_some_and(|m| m < p.count))?;
    let min = ps.min_count?.max(0);
    let full: Vec<i32> = st.pod_sets.iter().map(|p| p.count).collect();
    let delta = ps.count - min;
    let try_count =
        |reduction: i32, tree: &mut super::tree::Tree| -> Option<(Assigned, Vec<Victim>)> {
            let mut counts = full.clone();
            counts[idx] = ps.count - reduction;
            let a = assigner.assign(tree, Some(&counts));
            match a.mode() {
                FitMode::Fit => Some((a, Vec::new())),
                FitMode::NoFit => None,
                _ => {
                    let t = targets_for(view, tree, wl, cq, &a);
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
