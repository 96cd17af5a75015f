//! Start-time forecasts: from the cluster as it is now, the scheduler run forward on a
//! virtual clock where every workload holding quota finishes at its expected end and nothing
//! new arrives; per pending workload, when it would be admitted, on which flavors, which
//! workloads it waits for and which it would preempt.
//!
//! Invariants:
//! - Pure and deterministic: the picture, the runtimes and `now` in, a [`Forecast`] out; the
//!   same input gives the same output (every map is ordered, time is a parameter).
//! - The scheduler is the engine itself, driven by [`super::runner::run_to_fixpoint`] at each
//!   instant something finishes, so a forecast is what `simulate` would decide at that time.
//! - A workload whose runtime is unknown never finishes in the forecast; whoever waits only
//!   for it is [`Start::Unknown`], never given an invented time.
//! - Two passes: one with the expected runtimes, one with every runtime at its limit (the
//!   "at the latest" answer, given only where every runtime involved has a limit).
//! - A preempted workload queues again and, when re-admitted, runs its whole runtime again.

mod run;
pub mod runtime;
pub mod sources;

use serde::Serialize;

use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;

pub use run::forecast;
pub use runtime::{Runtime, RuntimeSource};

/// When a pending workload would start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Start {
    /// Admitted at `at` (milliseconds since the epoch; `now` when it would be admitted at once).
    At { at: Millis },
    /// Never admitted even once everything else has finished: the last pending reason.
    Never { reason: String, message: String },
    /// It waits for workloads whose runtime is unknown (`blockedBy`), so no time is given.
    #[serde(rename_all = "camelCase")]
    Unknown {
        #[serde(serialize_with = "keys")]
        blocked_by: Vec<WorkloadKey>,
    },
}

/// The forecast for one workload pending now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    #[serde(serialize_with = "key")]
    pub workload: WorkloadKey,
    pub start: Start,
    /// With every runtime at its limit: admitted by then at the latest. `None` when a
    /// runtime involved has no limit.
    pub latest: Option<Millis>,
    /// The ClusterQueue and flavors of the forecast admission.
    pub cluster_queue: Option<String>,
    pub flavors: Vec<String>,
    /// The workloads whose finish (at the admission instant, in the same cohort tree) admits
    /// it; shared by every workload admitted at that instant in that tree.
    #[serde(serialize_with = "keys")]
    pub waits_for: std::sync::Arc<[WorkloadKey]>,
    /// The workloads it would preempt to be admitted.
    #[serde(serialize_with = "keys")]
    pub preempts: Vec<WorkloadKey>,
}

impl Estimate {
    /// The start is an upper bound: the time comes from runtime limits alone.
    pub fn is_upper_bound(&self) -> bool {
        matches!(self.start, Start::At { at } if self.latest == Some(at))
    }

    pub fn at(&self) -> Option<Millis> {
        match self.start {
            Start::At { at } => Some(at),
            _ => None,
        }
    }
}

/// What a forecast assumed about one workload holding quota now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningAssumption {
    #[serde(serialize_with = "key")]
    pub workload: WorkloadKey,
    pub runtime: Runtime,
    /// Its expected end; `None` when its runtime is unknown (assumed to run past the horizon).
    pub expected_end: Option<Millis>,
    /// Its expected end was already past at `now`: assumed to finish now.
    pub overdue: bool,
}

/// A forecast: per pending workload, in key order, and what it assumed.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    pub now: Millis,
    pub estimates: Vec<Estimate>,
    pub running: Vec<RunningAssumption>,
    /// False when the run hit its safety limit or an oscillation (estimates not reached are
    /// then unknown).
    pub complete: bool,
    /// Instants visited and scheduling cycles run, over both passes.
    pub steps: usize,
    pub cycles: u64,
}

impl Forecast {
    pub fn estimate(&self, key: &WorkloadKey) -> Option<&Estimate> {
        self.estimates
            .binary_search_by(|e| e.workload.cmp(key))
            .ok()
            .map(|i| &self.estimates[i])
    }
}

fn key<S: serde::Serializer>(k: &WorkloadKey, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(k)
}

fn keys<S: serde::Serializer>(ks: &[WorkloadKey], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ks.iter().map(|k| k.to_string()))
}
