//! Runs the engine to a fixpoint with no time passing: cycles repeat until nothing changes.
//! A preempted workload releases its quota at once (there are no pods to drain), is
//! requeued, and may be admitted again later in the same run.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

use crate::scheduler::decision::{Decision, WorkloadDecision};
use crate::scheduler::model::Millis;
use crate::scheduler::Engine;

/// What a run did, cycle by cycle.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Every decision with the cycle it was made in, in order.
    pub decisions: Vec<(u64, WorkloadDecision)>,
    pub cycles: u64,
    /// False when the run stopped at the safety limit instead of a fixpoint.
    pub converged: bool,
}

impl RunReport {
    /// The last decision about each workload, by key.
    pub fn last_decisions(&self) -> std::collections::BTreeMap<&str, &Decision> {
        let mut out = std::collections::BTreeMap::new();
        for (_, d) in &self.decisions {
            out.insert(d.workload.as_str(), &d.decision);
        }
        out
    }
}

/// Runs cycles at `now` until a fixpoint: no heads left, or a cycle that admitted and
/// preempted nothing repeats one seen since the last change (a StrictFIFO head that keeps
/// failing, or a scan over flavors that wrapped around).
pub fn run_to_fixpoint(engine: &mut Engine, now: Millis) -> RunReport {
    let mut report = RunReport::default();
    let mut seen: BTreeSet<u64> = BTreeSet::new();
    let limit = 100_000 + 20 * engine.workloads().count() as u64;
    loop {
        if report.cycles >= limit {
            return report;
        }
        let outcome = engine.run_cycle(now);
        report.cycles += 1;
        if outcome.decisions.is_empty() {
            report.converged = true;
            return report;
        }
        let mut progress = false;
        let mut signature = std::hash::DefaultHasher::new();
        for d in &outcome.decisions {
            d.workload.hash(&mut signature);
            match &d.decision {
                Decision::Admitted { .. } => progress = true,
                Decision::Preempting { targets, .. } => {
                    progress = true;
                    for t in targets {
                        engine.release(&t.workload);
                    }
                }
                Decision::Pending { reason, message, .. } => {
                    reason.hash(&mut signature);
                    message.hash(&mut signature);
                }
            }
        }
        report.decisions.extend(outcome.decisions.into_iter().map(|d| (outcome.cycle, d)));
        if progress {
            seen.clear();
        } else if !seen.insert(signature.finish()) {
            report.converged = true;
            return report;
        }
    }
}
