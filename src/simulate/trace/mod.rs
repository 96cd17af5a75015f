//! Trace replay: a file of past workloads ([`mod@format`], what `history export` writes), replayed
//! on the virtual clock under a setup ([`replay()`]), its figures per queue and between two
//! setups ([`summary`]), the forecast's accuracy measured on it ([`accuracy`]), and a
//! deterministic generator of example traces ([`generate`]).
//!
//! Invariants: everything here is pure and deterministic (files are read and written by the
//! commands); the scheduler is the engine, driven by [`super::runner::run_to_fixpoint`].

pub mod accuracy;
pub mod export;
pub mod format;
pub mod generate;
pub mod replay;
pub mod summary;

pub use format::{TraceError, TraceJob, parse, write};
pub use replay::{Replay, replay};
pub use summary::{Summary, summarize};

use crate::manifests::documents::Document;
use crate::manifests::{ConvertOptions, Inventory, convert};
use crate::scheduler::model::ClusterState;
use crate::simulate::{Edit, SimulateError};

/// The setup a trace is replayed on: `inventory`'s queues, flavors, cohorts and priority
/// classes with `edits` applied; its own Workloads and Jobs are dropped (the trace is the load).
pub fn setup(
    mut inventory: Inventory,
    edits: &[Edit],
    opts: &ConvertOptions,
) -> Result<ClusterState, SimulateError> {
    inventory.workloads.clear();
    inventory.jobs.clear();
    for e in edits {
        e.apply(&mut inventory).map_err(SimulateError::Edit)?;
    }
    Ok(convert(&inventory, opts)
        .map_err(SimulateError::Input)?
        .state)
}

/// Objects added to a trace's setup (`--add`) must be setup: [`setup`] drops Jobs and
/// Workloads (the trace is the load), so an added one would vanish and the edited setup
/// would silently equal the unchanged one. Refused naming the document.
pub fn refuse_added_load(added: &[Document]) -> Result<(), String> {
    match added
        .iter()
        .find(|d| matches!(d.value["kind"].as_str(), Some("Job" | "Workload")))
    {
        Some(d) => Err(format!(
            "{}: --add with --trace takes setup objects (queues, flavors, cohorts, priority classes), not a {}: the trace is the load, add the job to the trace file instead",
            d.origin,
            d.value["kind"].as_str().unwrap_or_default()
        )),
        None => Ok(()),
    }
}
