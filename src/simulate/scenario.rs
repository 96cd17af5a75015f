//! A simulation from input objects: apply `--set` edits, convert, release workloads that
//! were already being evicted (no pods to drain offline), run to a fixpoint, and keep
//! everything needed to print the result.

use super::edits::{Edit, EditError};
use super::result::output_list;
use super::runner::{RunReport, run_to_fixpoint};
use crate::manifests::{ConvertOptions, Converted, InputError, Inventory, convert};
use crate::scheduler::Engine;
use crate::scheduler::model::Millis;

#[derive(Debug)]
pub enum SimulateError {
    Input(InputError),
    Edit(EditError),
}

impl std::fmt::Display for SimulateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulateError::Input(e) => e.fmt(f),
            SimulateError::Edit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SimulateError {}

/// The state before and after a run.
pub struct Simulation {
    pub inventory: Inventory,
    pub converted: Converted,
    /// The engine as built from the input, before any cycle.
    pub before: Engine,
    pub after: Engine,
    pub report: RunReport,
    pub now: Millis,
}

impl Simulation {
    /// Runs `inventory` with `edits` applied.
    pub fn run(mut inventory: Inventory, edits: &[Edit], opts: &ConvertOptions) -> Result<Simulation, SimulateError> {
        for e in edits {
            e.apply(&mut inventory).map_err(SimulateError::Edit)?;
        }
        let converted = convert(&inventory, opts).map_err(SimulateError::Input)?;
        let mut engine = Engine::new(converted.state.clone());
        let evicting: Vec<String> = engine.workloads().filter(|w| w.evicted && w.admission.is_some()).map(|w| w.key()).collect();
        for key in &evicting {
            engine.release(key);
        }
        let before = engine.clone();
        let report = run_to_fixpoint(&mut engine, opts.now);
        Ok(Simulation { inventory, converted, before, after: engine, report, now: opts.now })
    }

    /// The resulting objects as a `v1 List` (the `-o json|yaml` output).
    pub fn output(&self) -> serde_json::Value {
        output_list(&self.inventory, &self.converted, &self.after, &self.report, self.now)
    }
}
