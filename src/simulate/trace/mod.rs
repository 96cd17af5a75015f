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
