//! The objects a run leaves behind, in upstream's status shape: every Workload
//! (admission, QuotaReserved/Admitted/Evicted/Preempted/Requeued conditions, resource
//! requests while pending), then every ClusterQueue and LocalQueue with its status. Fed
//! back as input, they reproduce the same state. Each is written in the version its input
//! used, or the one asked for ([`super::written`]).
//!
//! This module only assembles the run's result (what happened to whom, [`History`], and the
//! output list); the status transitions themselves are [`crate::status`]'s, shared with the
//! controller.

use std::collections::BTreeMap;

use super::runner::RunReport;
use super::written::{self, OutputVersion};
use crate::api::workload_status::condition;
use crate::api::{Workload, WorkloadStatus};
use crate::manifests::key::ObjectKey;
use crate::manifests::{Converted, Inventory};
use crate::scheduler::decision::{Decision, PreemptionReason};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{self, Millis};
use crate::scheduler::{Engine, PendingReason};
use crate::status::{self, QueueFigures, cluster_queue_with_figures, local_queue_with_figures};

/// What happened to each workload over the run.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// Workloads admitted during the run (their last admission).
    pub admitted: BTreeMap<String, String>,
    /// Workloads preempted during the run: (by, reason, message) of the last preemption.
    pub preempted: BTreeMap<String, (String, PreemptionReason, String)>,
    /// ClusterQueue each preempted workload was evicted from.
    pub preempted_from: BTreeMap<String, String>,
}

impl History {
    pub fn from_report(report: &RunReport) -> History {
        let mut h = History::default();
        for (_, d) in &report.decisions {
            match &d.decision {
                Decision::Admitted { cluster_queue, .. } => {
                    h.admitted
                        .insert(d.workload.to_string(), cluster_queue.clone());
                }
                Decision::Preempting { targets, .. } => {
                    for t in targets.iter() {
                        h.preempted.insert(
                            t.workload.to_string(),
                            (d.workload.to_string(), t.reason, t.message.clone()),
                        );
                        h.preempted_from
                            .insert(t.workload.to_string(), t.cluster_queue.clone());
                        h.admitted.remove(&t.workload.to_string());
                    }
                }
                Decision::Pending { .. } => {}
            }
        }
        h
    }
}

/// What the run did to one workload, in order: what the controller writes for each.
#[derive(Debug, Clone)]
enum Step {
    Admitted(model::Admission),
    /// Preempted; offline its pods are gone at once, so the reservation goes too.
    Preempted {
        reason: PreemptionReason,
        message: String,
    },
}

/// Every workload's steps over the run, by key.
fn steps(report: &RunReport) -> BTreeMap<&WorkloadKey, Vec<Step>> {
    let mut out: BTreeMap<&WorkloadKey, Vec<Step>> = BTreeMap::new();
    for (_, d) in &report.decisions {
        match &d.decision {
            Decision::Admitted {
                cluster_queue,
                assignment,
            } => out
                .entry(&d.workload)
                .or_default()
                .push(Step::Admitted(assignment.admission(cluster_queue))),
            Decision::Preempting { targets, .. } => {
                for t in targets.iter() {
                    out.entry(&t.workload).or_default().push(Step::Preempted {
                        reason: t.reason,
                        message: t.message.clone(),
                    });
                }
            }
            Decision::Pending { .. } => {}
        }
    }
    out
}

/// The final status of one Workload object: its status as read, then each step of the run
/// written as the controller writes it (so a workload preempted and admitted again carries
/// `Evicted`/`Preempted` reset with `Previously: ...`, `Requeued` and its eviction count),
/// then, when it ends pending, why.
fn workload_status(
    object: &Workload,
    engine: &Engine,
    report: &RunReport,
    steps: &[Step],
    now: Millis,
) -> WorkloadStatus {
    let id = ObjectKey::workload(&object.metadata);
    let mut st = object.status.clone().unwrap_or_default();
    let Some(w) = engine.workload(&id) else {
        return st;
    };
    if w.finished {
        return st;
    }
    for step in steps {
        match step {
            Step::Admitted(admission) => status::admit(&mut st, admission, now),
            Step::Preempted { reason, message } => {
                status::evict(&mut st, *reason, message, now);
                status::release(&mut st, now);
            }
        }
    }
    if engine.holding_queue(&id).is_some() {
        return st;
    }
    let conds = &mut st.conditions;
    let (reason, message) = match engine.blocked_reason(&id) {
        // The controller writes nothing for a deactivated Workload: its status stays as the
        // eviction left it.
        Some(b) if b.reason == PendingReason::Deactivated => return st,
        Some(b) => (b.reason, b.message),
        None => match report.last_decisions().get(&id) {
            Some(Decision::Pending {
                reason, message, ..
            }) => (*reason, message.clone()),
            Some(Decision::Preempting { message, .. }) => (
                PendingReason::WaitingForPreemptedWorkloads,
                message.to_string(),
            ),
            _ => match conds
                .iter()
                .find(|c| c.type_ == condition::QUOTA_RESERVED && c.status == "False")
            {
                Some(c) => (
                    PendingReason::parse(&c.reason).unwrap_or(PendingReason::PendingEvaluation),
                    c.message.clone(),
                ),
                None => (
                    PendingReason::PendingEvaluation,
                    "Workload is pending evaluation in the scheduling queue".to_string(),
                ),
            },
        },
    };
    // Offline messages are kept whole (nothing is sent to an API server).
    status::not_admitted(conds, reason.as_str(), &message, now);
    st.admission = None;
    st.resource_requests = status::resource_requests(w);
    st
}

/// The `v1 List` of every resulting Workload, ClusterQueue and LocalQueue, each in the version
/// `choice` says ([`super::written`]).
pub fn output_list(
    inv: &Inventory,
    converted: &Converted,
    engine: &Engine,
    report: &RunReport,
    now: Millis,
    choice: OutputVersion,
) -> serde_json::Value {
    let steps = steps(report);
    let mut items = Vec::new();
    for e in &converted.workloads {
        let mut obj = e.object.clone();
        let key = ObjectKey::workload(&obj.metadata);
        let done = steps.get(&key).map(Vec::as_slice).unwrap_or_default();
        obj.status = Some(workload_status(&obj, engine, report, done, now));
        // waitForPodsReady: the job reconciler's `PodsReady` on a Job's Workload (made from
        // the Job here, or given with it), from the status the run ends with: one that lost
        // its admission is back to `WaitForStart`, as upstream's job reconciler writes on its
        // next look.
        if engine.config().pods_ready.is_some()
            && let Some(job) = inv.jobs.iter().find(|s| match &e.job {
                Some(j) => ObjectKey::namespaced(&s.obj.metadata).to_string() == *j,
                None => crate::manifests::job::workload_belongs_to(&obj, &s.obj),
            })
        {
            crate::policy::pods_ready::set_for_job(
                &mut obj,
                crate::integration::job::pods_ready(&job.obj),
                now,
            );
        }
        items.push(written::workload(&obj, &inv.sources, choice));
    }
    let figures = QueueFigures::of(engine);
    for cq in &inv.cluster_queues {
        let obj = cluster_queue_with_figures(&cq.obj, engine, &figures, now);
        items.push(written::cluster_queue(&obj, &inv.sources, choice));
    }
    for lq in &inv.local_queues {
        let obj = local_queue_with_figures(&lq.obj, &figures, now);
        items.push(written::local_queue(&obj, &inv.sources, choice));
    }
    serde_json::json!({ "apiVersion": "v1", "kind": "List", "metadata": {}, "items": items })
}
