//! Runs the engine to a fixpoint with no time passing: cycles repeat until nothing changes.
//! A preempted workload releases its quota at once (there are no pods to drain), is
//! requeued, and may be admitted again later in the same run.
//!
//! Parked workloads are normally retried only when quota is released, so when the run
//! settles, every parked workload is retried once more against the final state; the run
//! ends when that changes nothing either. The result is a true fixpoint: simulating it
//! again changes nothing.
//!
//! Two ways a run can fail to settle are detected rather than looped on: a cycle that
//! changes nothing and repeats one seen since the last change, with as many workloads left
//! to try (a StrictFIFO head that keeps failing; that is a fixpoint), and a set of
//! admissions that comes back after preemptions (workloads preempting each other in turn,
//! which upstream Kueue does too; that is an oscillation, reported with the workloads
//! involved).

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use crate::scheduler::Engine;
use crate::scheduler::decision::{Decision, WorkloadDecision};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;

/// What a run did, cycle by cycle.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Every decision with the cycle it was made in, in order.
    pub decisions: Vec<(u64, WorkloadDecision)>,
    pub cycles: u64,
    /// True when the run reached a fixpoint.
    pub converged: bool,
    /// Workloads that kept preempting each other, when the run stopped on an oscillation.
    pub oscillating: Vec<String>,
}

impl RunReport {
    /// The last decision about each workload, by key.
    pub fn last_decisions(&self) -> BTreeMap<&WorkloadKey, &Decision> {
        let mut out = BTreeMap::new();
        for (_, d) in &self.decisions {
            out.insert(&d.workload, &d.decision);
        }
        out
    }
}

/// Runs cycles at `now` until a fixpoint, an oscillation, or a safety limit.
pub fn run_to_fixpoint(engine: &mut Engine, now: Millis) -> RunReport {
    let mut report = RunReport::default();
    let mut quiet_seen: BTreeSet<u64> = BTreeSet::new();
    // Who holds quota where, kept by the engine through every admission and release.
    let state = engine.holding_signature();
    let mut states_seen: BTreeMap<u64, usize> = BTreeMap::new();
    states_seen.insert(state, 0);
    let limit = 100_000 + 20 * engine.workload_count() as u64;
    let mut swept = false;
    while report.cycles < limit {
        let outcome = engine.run_cycle(now);
        report.cycles += 1;
        // Settled: no heads at all, or a quiet cycle like one seen since the last change.
        let mut settled = outcome.decisions.is_empty();
        if !settled {
            let mut progress = false;
            let mut signature = std::hash::DefaultHasher::new();
            for d in &outcome.decisions {
                d.workload.hash(&mut signature);
                match &d.decision {
                    Decision::Admitted { .. } => progress = true,
                    Decision::Preempting { targets, .. } => {
                        progress = true;
                        for t in targets.iter() {
                            engine.release(&t.workload);
                        }
                    }
                    Decision::Pending {
                        reason, message, ..
                    } => {
                        reason.hash(&mut signature);
                        message.hash(&mut signature);
                    }
                }
            }
            let first_new = report.decisions.len();
            report
                .decisions
                .extend(outcome.decisions.into_iter().map(|d| (outcome.cycle, d)));
            if progress {
                let state = engine.holding_signature();
                swept = false;
                quiet_seen.clear();
                if let Some(&since) = states_seen.get(&state) {
                    report.oscillating = involved_since(&report, since);
                    return report;
                }
                states_seen.insert(state, first_new);
            } else {
                // A head retried at once (flavors left to try) fails the same way twice and
                // then parks: only a repeat with as many heads left to try is a loop.
                engine.active_pending().hash(&mut signature);
                settled = !quiet_seen.insert(signature.finish());
            }
        }
        if settled {
            // Once more for everything parked since quota last changed, then done.
            if !swept && engine.retry_stale() > 0 {
                swept = true;
                quiet_seen.clear();
                continue;
            }
            report.converged = true;
            return report;
        }
    }
    report
}

/// Workloads admitted, preempting or preempted in the decisions from `since` on.
fn involved_since(report: &RunReport, since: usize) -> Vec<String> {
    let mut involved: BTreeSet<String> = BTreeSet::new();
    for (_, d) in &report.decisions[since..] {
        match &d.decision {
            Decision::Admitted { .. } => {
                involved.insert(d.workload.to_string());
            }
            Decision::Preempting { targets, .. } => {
                involved.insert(d.workload.to_string());
                involved.extend(targets.iter().map(|t| t.workload.to_string()));
            }
            Decision::Pending { .. } => {}
        }
    }
    involved.into_iter().collect()
}
