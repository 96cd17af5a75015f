//! A simulation from input objects: apply `--set` edits, convert, release workloads that
//! were already being evicted (no pods to drain offline), run to a fixpoint, and keep
//! everything needed to print the result.

use super::edits::{Edit, EditError};
use super::result::output_list;
use super::runner::{RunReport, run_to_fixpoint};
use super::written::OutputVersion;
use crate::manifests::{ConvertOptions, Converted, InputError, Inventory, convert};
use crate::scheduler::Engine;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{Millis, StopPolicy};

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
    /// Workloads drained before the run because their queue is stopped with HoldAndDrain:
    /// key -> (Evicted reason, message).
    pub drained: std::collections::BTreeMap<String, (String, String)>,
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
    pub fn run(
        mut inventory: Inventory,
        edits: &[Edit],
        opts: &ConvertOptions,
    ) -> Result<Simulation, SimulateError> {
        for e in edits {
            e.apply(&mut inventory).map_err(SimulateError::Edit)?;
        }
        let converted = convert(&inventory, opts).map_err(SimulateError::Input)?;
        let mut engine = Engine::new(converted.state.clone());
        let evicting: Vec<WorkloadKey> = engine
            .workloads()
            .filter(|w| w.evicted && w.admission.is_some())
            .map(|w| w.key())
            .collect();
        for key in &evicting {
            engine.release(key);
        }
        // HoldAndDrain evicts what a stopped queue admitted; offline there are no pods to wait for.
        let mut drained = std::collections::BTreeMap::new();
        let state = &converted.state;
        let holding: Vec<(WorkloadKey, String, String, String)> = engine
            .workloads()
            .filter_map(|w| {
                Some((
                    w.key(),
                    w.admission.as_ref()?.cluster_queue.clone(),
                    w.namespace.clone(),
                    w.queue_name.clone(),
                ))
            })
            .collect();
        for (key, cq, ns, lq) in holding {
            let cq_drains = state
                .cluster_queues
                .get(&cq)
                .is_some_and(|c| c.stop_policy == StopPolicy::HoldAndDrain);
            let lq_drains = state
                .local_queues
                .get(&(ns, lq))
                .is_some_and(|l| l.stop_policy == StopPolicy::HoldAndDrain);
            let why = if cq_drains {
                Some(("ClusterQueueStopped", "The ClusterQueue is stopped"))
            } else if lq_drains {
                Some(("LocalQueueStopped", "The LocalQueue is stopped"))
            } else {
                None
            };
            if let Some((reason, message)) = why {
                engine.release(&key);
                drained.insert(key.to_string(), (reason.to_string(), message.to_string()));
            }
        }
        let before = engine.clone();
        let report = run_to_fixpoint(&mut engine, opts.now);
        Ok(Simulation {
            drained,
            inventory,
            converted,
            before,
            after: engine,
            report,
            now: opts.now,
        })
    }

    /// The resulting objects as a `v1 List` (the `-o json|yaml` output), each in the version
    /// its input used.
    pub fn output(&self) -> serde_json::Value {
        self.output_in(OutputVersion::AsInput)
    }

    /// The resulting objects as a `v1 List`, in the versions `choice` says.
    pub fn output_in(&self, choice: OutputVersion) -> serde_json::Value {
        output_list(
            &self.inventory,
            &self.converted,
            &self.after,
            &self.report,
            &self.drained,
            self.now,
            choice,
        )
    }
}
