//! The objects a run leaves behind, in upstream's v1beta1 status shape: every Workload
//! (admission, QuotaReserved/Admitted/Evicted/Preempted/Requeued conditions, resource
//! requests while pending), then every ClusterQueue and LocalQueue with its status. Fed
//! back as input, they reproduce the same state.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::runner::RunReport;
use crate::api::workload_status::condition;
use crate::api::{self, ClusterQueue, LocalQueue, Workload, WorkloadStatus};
use crate::manifests::convert::time_from_millis;
use crate::manifests::{Converted, Inventory};
use crate::scheduler::decision::{Decision, PreemptionReason};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;
use crate::scheduler::quantity::{Amount, format_amount};
use crate::scheduler::{Engine, PendingReason};

/// upstream's `apimeta.SetStatusCondition`: the transition time moves only when the status
/// flips; reason and message always follow.
pub fn set_condition(
    conds: &mut Vec<Condition>,
    type_: &str,
    status: bool,
    reason: &str,
    message: &str,
    now: Millis,
) {
    let status = if status { "True" } else { "False" };
    match conds.iter_mut().find(|c| c.type_ == type_) {
        Some(c) => {
            if c.status != status {
                c.status = status.to_string();
                c.last_transition_time = time_from_millis(now);
            }
            c.reason = reason.to_string();
            c.message = message.to_string();
        }
        None => conds.push(Condition {
            type_: type_.to_string(),
            status: status.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
            last_transition_time: time_from_millis(now),
            observed_generation: None,
        }),
    }
}

/// Upstream's limit on condition messages.
pub const MAX_CONDITION_MESSAGE: usize = 32 * 1024;

/// Cuts `message` to `limit` bytes (on a character boundary), ending in " ..." when cut.
pub fn truncate_message(message: &str, limit: usize) -> String {
    if message.len() <= limit {
        return message.to_string();
    }
    let suffix = " ...";
    let mut cut = limit - suffix.len();
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &message[..cut])
}

/// `Evicted`/`Preempted` go back to False with "Previously: ..." on a new reservation.
pub fn reset_active(conds: &mut Vec<Condition>, type_: &str, now: Millis) {
    if let Some(c) = conds
        .iter()
        .find(|c| c.type_ == type_ && c.status == "True")
    {
        let message =
            truncate_message(&format!("Previously: {}", c.message), MAX_CONDITION_MESSAGE);
        set_condition(conds, type_, false, "QuotaReserved", &message, now);
    }
}

/// The engine's admission in `status.admission` form.
pub fn admission_to_api(adm: &crate::scheduler::model::Admission) -> api::Admission {
    api::Admission {
        cluster_queue: adm.cluster_queue.clone(),
        pod_set_assignments: adm
            .pod_sets
            .iter()
            .map(|ps| api::PodSetAssignment {
                name: ps.name.clone(),
                flavors: ps.flavors.clone(),
                resource_usage: ps
                    .resource_usage
                    .iter()
                    .map(|(r, v)| (r.clone(), quantity(r, *v)))
                    .collect(),
                count: Some(ps.count),
                topology_assignment: None,
                delayed_topology_request: None,
            })
            .collect(),
    }
}

/// An amount of `resource` as a Kubernetes quantity, formatted as upstream formats it.
pub fn quantity(resource: &str, v: Amount) -> Quantity {
    Quantity(format_amount(resource, v))
}

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
    if let Some(cq) = engine.holding_queue(&id) {
        if history.admitted.contains_key(&key) {
            let adm = w.admission.as_ref().expect("holding implies admission");
            st.admission = Some(admission_to_api(adm));
            set_condition(
                conds,
                condition::QUOTA_RESERVED,
                true,
                "QuotaReserved",
                &format!("Quota reserved in ClusterQueue {cq}"),
                now,
            );
            set_condition(
                conds,
                condition::ADMITTED,
                true,
                "Admitted",
                "The workload is admitted",
                now,
            );
            reset_active(conds, condition::EVICTED, now);
            reset_active(conds, condition::PREEMPTED, now);
            st.resource_requests.clear();
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
    set_condition(
        conds,
        condition::QUOTA_RESERVED,
        false,
        reason.as_str(),
        &message,
        now,
    );
    set_condition(
        conds,
        condition::ADMITTED,
        false,
        "NoReservation",
        "The workload has no reservation",
        now,
    );
    st.resource_requests = w
        .pod_sets
        .iter()
        .map(|ps| api::PodSetRequest {
            name: ps.name.clone(),
            resources: ps
                .per_pod
                .iter()
                .map(|(r, v)| {
                    (
                        r.clone(),
                        quantity(r, v.saturating_mul(i64::from(ps.count))),
                    )
                })
                .collect(),
        })
        .collect();
    st
}

fn flavor_usage(
    usage: &[crate::scheduler::inspect::FlavorResourceUsage],
    admitted_only: bool,
    with_borrowed: bool,
) -> Vec<api::FlavorUsage> {
    let mut out: Vec<api::FlavorUsage> = Vec::new();
    for u in usage {
        let total = if admitted_only {
            u.admitted
        } else {
            u.reserved
        };
        // upstream: max(0, total - nominal), forced to 0 without a cohort.
        let borrowed = if with_borrowed {
            (total - u.nominal).max(Amount::ZERO)
        } else {
            Amount::ZERO
        };
        let r = api::ResourceUsage {
            name: u.resource.clone(),
            total: Some(quantity(&u.resource, total)),
            borrowed: Some(quantity(&u.resource, borrowed)),
        };
        match out.iter_mut().find(|f| f.name == u.flavor) {
            Some(f) => f.resources.push(r),
            None => out.push(api::FlavorUsage {
                name: u.flavor.clone(),
                resources: vec![r],
            }),
        }
    }
    out
}

/// The ClusterQueue object with the status the run leaves.
pub fn cluster_queue_with_status(cq: &ClusterQueue, engine: &Engine, now: Millis) -> ClusterQueue {
    let mut out = cq.clone();
    let name = cq.metadata.name.clone().unwrap_or_default();
    let Some(view) = engine.cluster_queues().into_iter().find(|v| v.name == name) else {
        return out;
    };
    let mut st = out.status.clone().unwrap_or_default();
    let has_cohort = view.cohort.is_some();
    st.flavors_reservation = flavor_usage(&view.usage, false, has_cohort);
    st.flavors_usage = flavor_usage(&view.usage, true, has_cohort);
    st.pending_workloads = view.pending as i32;
    st.reserving_workloads = view.reserving as i32;
    st.admitted_workloads = view.admitted as i32;
    match &view.inactive {
        None => set_condition(
            &mut st.conditions,
            "Active",
            true,
            "Ready",
            "Can admit new workloads",
            now,
        ),
        Some(why) => set_condition(
            &mut st.conditions,
            "Active",
            false,
            why.condition_reason(),
            &why.message(),
            now,
        ),
    }
    if engine.config().fair_sharing.is_some()
        && let Some((share, _, _)) = engine.weighted_share(&name)
    {
        st.fair_sharing = Some(api::FairSharingStatus {
            weighted_share: share,
            admission_fair_sharing_status: None,
        });
    }
    out.status = Some(st);
    out
}

/// The LocalQueue object with the status the run leaves.
pub fn local_queue_with_status(lq: &LocalQueue, engine: &Engine, now: Millis) -> LocalQueue {
    let mut out = lq.clone();
    let ns = lq
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let name = lq.metadata.name.clone().unwrap_or_default();
    let mut st = out.status.clone().unwrap_or_default();
    let (mut pending, mut reserving, mut admitted) = (0, 0, 0);
    let mut reserved: BTreeMap<(String, String), Amount> = BTreeMap::new();
    let mut used: BTreeMap<(String, String), Amount> = BTreeMap::new();
    for w in engine
        .workloads()
        .filter(|w| w.namespace == ns && w.queue_name == name && !w.finished)
    {
        match (engine.holding_queue(&w.key()), &w.admission) {
            (Some(_), Some(adm)) => {
                reserving += 1;
                if w.admitted {
                    admitted += 1;
                }
                for ps in &adm.pod_sets {
                    for (r, f) in &ps.flavors {
                        let v = ps.resource_usage.get(r).copied().unwrap_or_default();
                        *reserved.entry((f.clone(), r.clone())).or_default() += v;
                        if w.admitted {
                            *used.entry((f.clone(), r.clone())).or_default() += v;
                        }
                    }
                }
            }
            _ if engine.blocked_reason(&w.key()).is_none() => pending += 1,
            _ => {}
        }
    }
    let to_usage = |m: &BTreeMap<(String, String), Amount>| {
        let mut out: Vec<api::LocalQueueFlavorUsage> = Vec::new();
        for ((f, r), v) in m {
            let ru = api::LocalQueueResourceUsage {
                name: r.clone(),
                total: Some(quantity(r, *v)),
            };
            match out.iter_mut().find(|x| &x.name == f) {
                Some(x) => x.resources.push(ru),
                None => out.push(api::LocalQueueFlavorUsage {
                    name: f.clone(),
                    resources: vec![ru],
                }),
            }
        }
        out
    };
    st.pending_workloads = pending;
    st.reserving_workloads = reserving;
    st.admitted_workloads = admitted;
    st.flavors_reservation = to_usage(&reserved);
    st.flavor_usage = to_usage(&used);
    let cq = lq.spec.cluster_queue.clone().unwrap_or_default();
    let cq_active = engine
        .cluster_queues()
        .iter()
        .any(|v| v.name == cq && v.inactive.is_none());
    if lq.spec.stop_policy.is_stopped() {
        set_condition(
            &mut st.conditions,
            "Active",
            false,
            "Stopped",
            "LocalQueue is stopped",
            now,
        );
    } else if cq_active {
        set_condition(
            &mut st.conditions,
            "Active",
            true,
            "Ready",
            "Can submit new workloads to localQueue",
            now,
        );
    } else {
        set_condition(
            &mut st.conditions,
            "Active",
            false,
            "ClusterQueueIsInactive",
            "Can't submit new workloads to clusterQueue",
            now,
        );
    }
    out.status = Some(st);
    out
}

/// The `v1 List` of every resulting Workload, ClusterQueue and LocalQueue.
pub fn output_list(
    inv: &Inventory,
    converted: &Converted,
    engine: &Engine,
    report: &RunReport,
    drained: &BTreeMap<String, (String, String)>,
    now: Millis,
) -> serde_json::Value {
    let history = History::from_report(report);
    let mut items = Vec::new();
    for e in &converted.workloads {
        let mut obj = e.object.clone();
        obj.status = Some(workload_status(
            &obj, engine, report, &history, drained, now,
        ));
        items.push(with_type_meta(
            serde_json::to_value(&obj).unwrap_or_default(),
            "Workload",
        ));
    }
    for cq in &inv.cluster_queues {
        let obj = cluster_queue_with_status(&cq.obj, engine, now);
        items.push(with_type_meta(
            serde_json::to_value(&obj).unwrap_or_default(),
            "ClusterQueue",
        ));
    }
    for lq in &inv.local_queues {
        let obj = local_queue_with_status(&lq.obj, engine, now);
        items.push(with_type_meta(
            serde_json::to_value(&obj).unwrap_or_default(),
            "LocalQueue",
        ));
    }
    serde_json::json!({ "apiVersion": "v1", "kind": "List", "metadata": {}, "items": items })
}

/// `apiVersion`/`kind` first, as kubectl prints objects.
fn with_type_meta(value: serde_json::Value, kind: &str) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "apiVersion".into(),
        serde_json::Value::String(api::API_VERSION.to_string()),
    );
    out.insert("kind".into(), serde_json::Value::String(kind.to_string()));
    if let serde_json::Value::Object(m) = value {
        for (k, v) in m {
            if k != "apiVersion" && k != "kind" {
                out.insert(k, v);
            }
        }
    }
    serde_json::Value::Object(out)
}
