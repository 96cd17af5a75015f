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
use crate::manifests::{Converted, Inventory};
use crate::scheduler::decision::{Decision, PreemptionReason};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;
use crate::scheduler::{Engine, PendingReason};
use crate::status::{self, cluster_queue_with_status, local_queue_with_status, set_condition};

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
                    for t in targets {
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

/// The final status of one Workload object.
pub fn workload_status(
    object: &Workload,
    engine: &Engine,
    report: &RunReport,
    history: &History,
    drained: &BTreeMap<String, (String, String)>,
    now: Millis,
) -> WorkloadStatus {
    let id = WorkloadKey::new(
        object.metadata.namespace.as_deref().unwrap_or("default"),
        object.metadata.name.as_deref().unwrap_or(""),
    );
    let key = id.to_string();
    let mut st = object.status.clone().unwrap_or_default();
    let Some(w) = engine.workload(&id) else {
        return st;
    };
    if w.finished {
        return st;
    }
    let conds = &mut st.conditions;
    if engine.holding_queue(&id).is_some() {
        if history.admitted.contains_key(&key) {
            // The admission names the ClusterQueue that holds the quota.
            let adm = w.admission.as_ref().expect("holding implies admission");
            status::admit(&mut st, adm, now);
        }
        return st;
    }
    // Pending.
    if let Some((reason, message)) = drained.get(&key) {
        st.admission = None;
        set_condition(conds, condition::EVICTED, true, reason, message, now);
        set_condition(conds, condition::REQUEUED, false, reason, message, now);
    }
    if let Some((_, reason, message)) = history.preempted.get(&key) {
        st.admission = None;
        set_condition(conds, condition::EVICTED, true, "Preempted", message, now);
        set_condition(
            conds,
            condition::PREEMPTED,
            true,
            reason.as_str(),
            message,
            now,
        );
        set_condition(conds, condition::REQUEUED, true, "Preempted", message, now);
    }
    let (reason, message) = match engine.blocked_reason(&id) {
        Some(b) => (b.reason, b.message),
        None => match report.last_decisions().get(&id) {
            Some(Decision::Pending {
                reason, message, ..
            }) => (*reason, message.clone()),
            Some(Decision::Preempting { message, .. }) => {
                (PendingReason::WaitingForPreemptedWorkloads, message.clone())
            }
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
    drained: &BTreeMap<String, (String, String)>,
    now: Millis,
    choice: OutputVersion,
) -> serde_json::Value {
    let history = History::from_report(report);
    let mut items = Vec::new();
    for e in &converted.workloads {
        let mut obj = e.object.clone();
        obj.status = Some(workload_status(
            &obj, engine, report, &history, drained, now,
        ));
        items.push(written::workload(&obj, &inv.sources, choice));
    }
    for cq in &inv.cluster_queues {
        let obj = cluster_queue_with_status(&cq.obj, engine, now);
        items.push(written::cluster_queue(&obj, &inv.sources, choice));
    }
    for lq in &inv.local_queues {
        let obj = local_queue_with_status(&lq.obj, engine, now);
        items.push(written::local_queue(&obj, &inv.sources, choice));
    }
    serde_json::json!({ "apiVersion": "v1", "kind": "List", "metadata": {}, "items": items })
}
