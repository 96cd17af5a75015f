//! Upstream's `waitForPodsReady.blockAdmission`: while a workload holding quota is not
//! `PodsReady=True`, no other workload is admitted (`QuotaReserved=False`, reason
//! `WaitingForPodsReady`, "waiting for all admitted workloads to be in PodsReady condition").
//! Upstream's scheduler blocks its loop on that; here the workload stays pending, parked,
//! and every parked workload is retried once the last not-ready one is ready or gone.
//!
//! Invariants: the gate only holds entries that would be admitted (a preemptor still issues
//! its preemptions, as upstream's gate sits after them); a workload just admitted counts as
//! not ready (it has no pods yet) until its `PodsReady` says otherwise; off unless the
//! configuration asks for it. Data in: the engine's workloads; data out: the not-ready keys.

use super::id::WlId;
use super::key::WorkloadKey;
use super::state::Engine;

impl Engine {
    /// Workloads holding quota whose pods are not all ready, in key order; empty unless
    /// `blockAdmission` is on.
    pub fn admitted_not_ready(&self) -> Vec<WorkloadKey> {
        if !self.cfg.blocks_admission() {
            return Vec::new();
        }
        let mut out: Vec<WorkloadKey> = self
            .not_ready_ids()
            .map(|id| self.wl(id).key.clone())
            .collect();
        out.sort();
        out
    }

    fn not_ready_ids(&self) -> impl Iterator<Item = WlId> + '_ {
        self.cqs
            .iter()
            .flat_map(|cq| cq.holding.iter().copied())
            .filter(|&id| !self.wl(id).w.pods_ready)
    }

    /// Would the gate hold an entry that fits now?
    pub(crate) fn admission_blocked(&self) -> bool {
        self.cfg.blocks_admission() && self.not_ready_ids().next().is_some()
    }

    /// After a change: when entries were held and nothing holds them any more, every parked
    /// workload may try again.
    pub(crate) fn lift_pods_ready_block(&mut self) {
        if self.pods_ready_parked && !self.admission_blocked() {
            self.pods_ready_parked = false;
            self.retry_all();
        }
    }
}
