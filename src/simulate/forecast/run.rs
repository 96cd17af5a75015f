//! The forecast's event loop: at each instant something finishes, the finishes are applied
//! and the engine runs to a fixpoint at that instant ([`run_to_fixpoint`]); admissions
//! schedule their own finishes. Time only moves to the next finish, so the number of steps
//! is the number of distinct finish instants, not the length of the horizon.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{Estimate, Forecast, RunningAssumption, Runtime, Start};
use crate::scheduler::decision::{Decision, PendingReason};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{ClusterState, Millis};
use crate::scheduler::{Engine, EquivalentDecisions};
use crate::simulate::runner::run_to_fixpoint;

/// Forecasts every pending workload of `state` from `now`, with `runtimes` per workload
/// (missing: unknown).
pub fn forecast(
    state: &ClusterState,
    runtimes: &BTreeMap<WorkloadKey, Runtime>,
    now: Millis,
) -> Forecast {
    let expected = Pass::run(state, now, |k| runtimes.get(k).and_then(|r| r.expected_ms));
    // With every runtime at its limit already, the second pass would be the first again.
    let same = runtimes.values().all(|r| r.expected_ms == r.limit_ms)
        && state
            .workloads
            .iter()
            .all(|w| w.finished || runtimes.contains_key(&w.key()));
    let second;
    let latest = if same {
        &expected
    } else {
        second = Pass::run(state, now, |k| runtimes.get(k).and_then(|r| r.limit_ms));
        &second
    };
    let roots = roots(state);
    let mut estimates = Vec::new();
    for w in &state.workloads {
        if w.finished || w.admission.is_some() {
            continue;
        }
        let key = w.key();
        let admit = expected.first.get(&key);
        let start = match admit {
            Some(a) => Start::At { at: a.at },
            None => expected.not_admitted(state, &key, &roots),
        };
        estimates.push(Estimate {
            latest: latest.first.get(&key).map(|a| a.at),
            cluster_queue: admit.map(|a| a.cluster_queue.clone()),
            flavors: admit.map(|a| a.flavors.clone()).unwrap_or_default(),
            waits_for: admit.map(|a| a.waits_for.clone()).unwrap_or_default(),
            preempts: expected
                .preempts
                .get(&key)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
            workload: key,
            start,
        });
    }
    estimates.sort_by(|a, b| a.workload.cmp(&b.workload));
    let running = state
        .workloads
        .iter()
        .filter(|w| !w.finished && w.admission.is_some())
        .map(|w| {
            let key = w.key();
            let runtime = runtimes.get(&key).cloned().unwrap_or_else(Runtime::unknown);
            let end = runtime
                .expected_ms
                .map(|r| w.quota_reserved_at.unwrap_or(now) + r);
            RunningAssumption {
                overdue: end.is_some_and(|e| e < now) || w.evicted,
                expected_end: end,
                workload: key,
                runtime,
            }
        })
        .collect();
    Forecast {
        now,
        estimates,
        running,
        complete: expected.complete,
        steps: expected.steps + if same { 0 } else { latest.steps },
        cycles: expected.cycles + if same { 0 } else { latest.cycles },
    }
}

/// A forecast admission.
struct Admit {
    at: Millis,
    cluster_queue: String,
    flavors: Vec<String>,
    waits_for: Arc<[WorkloadKey]>,
}

/// One run forward with one runtime per workload.
struct Pass {
    first: BTreeMap<WorkloadKey, Admit>,
    preempts: BTreeMap<WorkloadKey, BTreeSet<WorkloadKey>>,
    /// The last pending reason of each workload pending at the start.
    last_pending: BTreeMap<WorkloadKey, Option<(PendingReason, String)>>,
    steps: usize,
    cycles: u64,
    engine: Engine,
    /// Workloads holding quota at the end whose runtime is unknown, by ClusterQueue.
    endless: BTreeMap<String, Vec<WorkloadKey>>,
    complete: bool,
}

impl Pass {
    fn run(
        state: &ClusterState,
        now: Millis,
        runtime: impl Fn(&WorkloadKey) -> Option<Millis>,
    ) -> Pass {
        let roots = roots(state);
        let mut engine = Engine::new(state.clone());
        engine.set_equivalent_decisions(EquivalentDecisions::Off);
        // (end, key) -> ClusterQueue, and key -> end for cancelling on preemption.
        let mut finishes: BTreeMap<(Millis, WorkloadKey), String> = BTreeMap::new();
        let mut ends: BTreeMap<WorkloadKey, Millis> = BTreeMap::new();
        let mut endless: BTreeMap<WorkloadKey, String> = BTreeMap::new();
        for w in &state.workloads {
            let Some(adm) = w.admission.as_ref().filter(|_| !w.finished) else {
                continue;
            };
            let key = w.key();
            let end = match runtime(&key) {
                _ if w.evicted => Some(now),
                Some(r) => Some((w.quota_reserved_at.unwrap_or(now) + r).max(now)),
                None => None,
            };
            match end {
                Some(e) => {
                    finishes.insert((e, key.clone()), adm.cluster_queue.clone());
                    ends.insert(key, e);
                }
                None => {
                    endless.insert(key, adm.cluster_queue.clone());
                }
            }
        }
        let pending: BTreeSet<WorkloadKey> = state
            .workloads
            .iter()
            .filter(|w| !w.finished && w.admission.is_none())
            .map(|w| w.key())
            .collect();
        let mut pass = Pass {
            first: BTreeMap::new(),
            preempts: BTreeMap::new(),
            last_pending: pending.iter().map(|k| (k.clone(), None)).collect(),
            steps: 0,
            cycles: 0,
            engine: Engine::new(ClusterState::default()),
            endless: BTreeMap::new(),
            complete: true,
        };
        let limit = 1_000 + 4 * state.workloads.len();
        let mut t = now;
        for step in 0.. {
            pass.steps = step + 1;
            if step > limit {
                pass.complete = false;
                break;
            }
            // Finishes at `t`, with the root of their ClusterQueue.
            let mut finished: Vec<(WorkloadKey, String)> = Vec::new();
            while let Some(entry) = finishes.first_entry() {
                if entry.key().0 != t {
                    break;
                }
                let ((_, key), cq) = entry.remove_entry();
                ends.remove(&key);
                engine.finish_workload(&key);
                finished.push((key, root_of(&roots, &cq)));
            }
            // What admissions at `t` waited for, per cohort tree, built once each.
            let mut waits_by_root: BTreeMap<String, Arc<[WorkloadKey]>> = BTreeMap::new();
            let report = run_to_fixpoint(&mut engine, t);
            let converged = report.converged;
            pass.cycles += report.cycles;
            for (_, d) in report.decisions {
                match d.decision {
                    Decision::Admitted {
                        cluster_queue,
                        assignment,
                    } => {
                        match runtime(&d.workload) {
                            Some(r) => {
                                finishes.insert((t + r, d.workload.clone()), cluster_queue.clone());
                                ends.insert(d.workload.clone(), t + r);
                            }
                            None => {
                                endless.insert(d.workload.clone(), cluster_queue.clone());
                            }
                        }
                        if !pending.contains(&d.workload) || pass.first.contains_key(&d.workload) {
                            continue;
                        }
                        let root = root_of(&roots, &cluster_queue);
                        let waits_for = waits_by_root
                            .entry(root)
                            .or_insert_with_key(|root| {
                                finished
                                    .iter()
                                    .filter(|(_, r)| r == root)
                                    .map(|(k, _)| k.clone())
                                    .collect()
                            })
                            .clone();
                        let mut flavors: Vec<String> = assignment
                            .pod_sets
                            .iter()
                            .flat_map(|ps| ps.flavors.iter().map(|(_, f, _)| f.clone()))
                            .collect();
                        flavors.sort();
                        flavors.dedup();
                        pass.first.insert(
                            d.workload.clone(),
                            Admit {
                                at: t,
                                cluster_queue: cluster_queue.clone(),
                                flavors,
                                waits_for,
                            },
                        );
                    }
                    Decision::Preempting { targets, .. } => {
                        for target in targets.iter() {
                            if let Some(end) = ends.remove(&target.workload) {
                                finishes.remove(&(end, target.workload.clone()));
                            }
                            endless.remove(&target.workload);
                        }
                        if pending.contains(&d.workload) && !pass.first.contains_key(&d.workload) {
                            pass.preempts
                                .entry(d.workload.clone())
                                .or_default()
                                .extend(targets.iter().map(|t| t.workload.clone()));
                        }
                    }
                    Decision::Pending {
                        reason, message, ..
                    } => {
                        if let Some(slot) = pass.last_pending.get_mut(&d.workload) {
                            *slot = Some((reason, message));
                        }
                    }
                }
            }
            if !converged {
                pass.complete = false;
                break;
            }
            match finishes.keys().next() {
                Some((next, _)) => t = *next,
                None => break,
            }
        }
        // Every workload still pending gets its reason: once more at the last instant, with
        // a decision for each (equivalents included), from the final state.
        engine.set_equivalent_decisions(EquivalentDecisions::Always);
        engine.retry_all();
        for (_, d) in run_to_fixpoint(&mut engine, t).decisions {
            if let Decision::Pending {
                reason, message, ..
            } = d.decision
                && let Some(slot) = pass.last_pending.get_mut(&d.workload)
            {
                *slot = Some((reason, message));
            }
        }
        for (key, cq) in endless {
            pass.endless.entry(cq).or_default().push(key);
        }
        pass.engine = engine;
        pass
    }

    /// Why a pending workload is not admitted by the end of the pass.
    fn not_admitted(
        &self,
        state: &ClusterState,
        key: &WorkloadKey,
        roots: &BTreeMap<String, String>,
    ) -> Start {
        let cq = self.engine.workload(key).and_then(|w| {
            state
                .local_queues
                .get(&(w.namespace.clone(), w.queue_name.clone()))
                .map(|lq| lq.cluster_queue.clone())
        });
        if let Some(b) = self.engine.blocked_reason(key) {
            return Start::Never {
                reason: b.reason.as_str().to_string(),
                message: b.message,
            };
        }
        let last = self.last_pending.get(key).and_then(Option::as_ref);
        let waits = last.is_none_or(|(reason, _)| {
            matches!(
                reason,
                PendingReason::WaitingForQuota | PendingReason::WaitingForPreemptedWorkloads
            )
        });
        if let Some(cq) = cq.as_deref().filter(|_| waits) {
            let root = root_of(roots, cq);
            let blocked_by: Vec<WorkloadKey> = self
                .endless
                .iter()
                .filter(|(c, _)| root_of(roots, c) == root)
                .flat_map(|(_, ks)| ks.iter().cloned())
                .collect();
            if !blocked_by.is_empty() || !self.complete {
                return Start::Unknown { blocked_by };
            }
        }
        match last {
            Some((reason, message)) => Start::Never {
                reason: reason.as_str().to_string(),
                message: message.clone(),
            },
            None => Start::Unknown {
                blocked_by: Vec::new(),
            },
        }
    }
}

/// ClusterQueue -> the name of the root of its cohort tree (itself when it has no cohort).
fn roots(state: &ClusterState) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, cq) in &state.cluster_queues {
        let mut root = match &cq.cohort {
            Some(c) => format!("cohort/{c}"),
            None => format!("cq/{name}"),
        };
        let mut cohort = cq.cohort.clone();
        let mut seen = BTreeSet::new();
        while let Some(c) = cohort {
            if !seen.insert(c.clone()) {
                break;
            }
            root = format!("cohort/{c}");
            cohort = state.cohorts.get(&c).and_then(|co| co.parent.clone());
        }
        out.insert(name.clone(), root);
    }
    out
}

fn root_of(roots: &BTreeMap<String, String>, cq: &str) -> String {
    roots.get(cq).cloned().unwrap_or_else(|| format!("cq/{cq}"))
}
