//! A simulation from input objects: apply `--set` edits, convert, apply the workload
//! controller's rules to the Workloads as read (with `waitForPodsReady`: `PodsReady` from a
//! given Job's status, timed out: evicted or past the requeue limit deactivated, backoff
//! over: requeued; past the maximum execution time: marked and
//! deactivated; deactivated or drained by a stopped queue: evicted; back in the queue once the queue runs again: requeued; evicted: the reservation
//! released at once, as there are no pods to wait for offline), run to a fixpoint, and keep
//! everything needed to print the result.
//!
//! The rules are the controller's own ([`crate::policy::workload`] and [`crate::status`]), so
//! a state the controller would change on its next look is changed here the same way.

use super::edits::{Edit, EditError};
use super::result::output_list;
use super::runner::{RunReport, run_to_fixpoint};
use super::written::OutputVersion;
use crate::integration::job::{self as job_integration, Mismatch, mismatch};
use crate::manifests::job::workload_belongs_to;
use crate::manifests::{ConvertOptions, Converted, InputError, Inventory, convert};
use crate::policy::max_exec::{self, MaxExecStep};
use crate::policy::pods_ready::{self, PodsReadyStep};
use crate::policy::workload::{QueueTransition, queue_transition};
use crate::scheduler::Engine;
use crate::scheduler::model::{ClusterState, Millis};
use crate::status::{self, WorkloadView};

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
    pub fn run(
        mut inventory: Inventory,
        edits: &[Edit],
        opts: &ConvertOptions,
    ) -> Result<Simulation, SimulateError> {
        for e in edits {
            e.apply(&mut inventory).map_err(SimulateError::Edit)?;
        }
        jobs_and_their_workloads(&mut inventory);
        let converted = convert(&inventory, opts).map_err(SimulateError::Input)?;
        // The workload controller's rules, level-triggered on the objects as read; when any
        // applies, the picture is read again from the changed objects.
        let converted = if pods_ready_from_jobs(&mut inventory, &converted.state, opts.now)
            | workload_controller(&mut inventory, &converted.state, opts.now)
        {
            convert(&inventory, opts).map_err(SimulateError::Input)?
        } else {
            converted
        };
        let mut engine = Engine::new(converted.state.clone());
        let before = engine.clone();
        let report = run_to_fixpoint(&mut engine, opts.now);
        Ok(Simulation {
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
            self.now,
            choice,
        )
    }
}

/// The job reconciler's rule for a Job given with its Workload: a Workload that no longer
/// stands for its Job is replaced by the one the Job gets now (upstream deletes it and makes
/// a new one; offline no pods hold its quota), or, before quota is reserved for a suspended
/// Job, takes the Job's podSets.
fn jobs_and_their_workloads(inventory: &mut Inventory) {
    for job in &inventory.jobs {
        let Some(i) = inventory
            .workloads
            .iter()
            .position(|w| workload_belongs_to(&w.obj, &job.obj))
        else {
            continue;
        };
        match mismatch(&job.obj, &inventory.workloads[i].obj) {
            None => {}
            Some(Mismatch::Update(pod_sets)) => inventory.workloads[i].obj.spec.pod_sets = pod_sets,
            Some(Mismatch::Recreate) => {
                inventory.workloads.remove(i);
            }
        }
    }
}

/// The job reconciler's `PodsReady` for each Workload given with its Job, from the Job's
/// status (ready and succeeded pods), when `waitForPodsReady` is on. True when any changed.
fn pods_ready_from_jobs(inventory: &mut Inventory, queues: &ClusterState, now: Millis) -> bool {
    if queues.config.pods_ready.is_none() {
        return false;
    }
    let mut changed = false;
    for job in &inventory.jobs {
        if let Some(w) = inventory
            .workloads
            .iter_mut()
            .find(|w| workload_belongs_to(&w.obj, &job.obj))
        {
            changed |=
                pods_ready::set_for_job(&mut w.obj, job_integration::pods_ready(&job.obj), now);
        }
    }
    changed
}

/// Applies the workload controller's transitions to every Workload object in `inventory`
/// (`queues`: the picture converted from it). True when any Workload changed.
fn workload_controller(inventory: &mut Inventory, queues: &ClusterState, now: Millis) -> bool {
    let mut changed = false;
    for w in &mut inventory.workloads {
        // Past its maximum execution time: marked, then deactivated (the controller's two
        // writes), and the deactivation below evicts it.
        let before_exec = (w.obj.spec.active, w.obj.status.clone());
        loop {
            match max_exec::step(&w.obj, now) {
                Some(MaxExecStep::Mark { status, .. }) => w.obj.status = Some(*status),
                Some(MaxExecStep::Deactivate) => w.obj.spec.active = false,
                Some(MaxExecStep::LookAgainAt(_)) | None => break,
            }
        }
        // waitForPodsReady: timed out, evicted (released below) or, past the requeue limit,
        // marked and deactivated; its backoff over, queued again.
        if let Some(cfg) = &queues.config.pods_ready {
            match pods_ready::step(&w.obj, cfg, now) {
                Some(PodsReadyStep::Evict(e)) => w.obj.status = Some(e.status),
                Some(PodsReadyStep::Mark(status)) => {
                    w.obj.status = Some(*status);
                    w.obj.spec.active = false;
                }
                Some(PodsReadyStep::BackoffFinished(status)) => w.obj.status = Some(*status),
                Some(PodsReadyStep::LookAgainAt(_)) | None => {}
            }
        }
        changed |= before_exec != (w.obj.spec.active, w.obj.status.clone());
        let mut status = match queue_transition(&w.obj, queues, now) {
            Some(QueueTransition::Evict(e)) => e.status,
            Some(QueueTransition::Requeue(r)) => r.status,
            None => match w.obj.status.clone() {
                Some(st) => st,
                None => continue,
            },
        };
        let before = w.obj.status.replace(status.clone());
        let view = WorkloadView::of(&w.obj);
        if view.evicted.is_some() && view.has_reservation && !view.finished {
            // No pods to wait for: the reservation goes at once.
            status::release(&mut status, now);
            w.obj.status = Some(status);
        }
        changed |= before != w.obj.status;
    }
    changed
}
