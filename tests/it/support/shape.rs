//! A Workload's status reduced to what the controller and `simulate` must agree on, times
//! left out: the controller's model against `simulate` (`controller_model::parity`) and the
//! real controller against `simulate` (`e2e_parity`) compare these.

use std::collections::BTreeMap;

use kubectl_kueue::api::WorkloadStatus;

/// What a Workload's status says, without times: the admission (ClusterQueue and each
/// podSet's flavors and count), every condition as (type, status, reason, message), the eviction
/// counts by reason (`reason/cause` when there is an underlying cause), the execution
/// time accumulated over earlier admissions, and `requeueState` (count, `requeueAt`).
pub type Shape = (
    Option<(String, Vec<BTreeMap<String, String>>)>,
    Vec<(String, String, String, String)>,
    Vec<(String, i32)>,
    Option<i32>,
    Option<(Option<i32>, Option<String>)>,
);

pub fn shape(st: &WorkloadStatus) -> Shape {
    let admission = st.admission.as_ref().map(|a| {
        (
            a.cluster_queue.clone(),
            a.pod_set_assignments
                .iter()
                .map(|p| {
                    // The flavors, and the pod count under key `#count`.
                    let mut m = p.flavors.clone();
                    m.insert("#count".into(), p.count.unwrap_or_default().to_string());
                    m
                })
                .collect(),
        )
    });
    let mut conditions: Vec<_> = st
        .conditions
        .iter()
        .map(|c| {
            (
                c.type_.clone(),
                c.status.clone(),
                c.reason.clone(),
                without_preemptor_uid(&c.message),
            )
        })
        .collect();
    conditions.sort();
    let evictions = st
        .scheduling_stats
        .iter()
        .flat_map(|s| s.evictions.iter())
        .map(|e| {
            let reason = if e.underlying_cause.is_empty() {
                e.reason.clone()
            } else {
                format!("{}/{}", e.reason, e.underlying_cause)
            };
            (reason, e.count)
        })
        .collect();
    (
        admission,
        conditions,
        evictions,
        st.accumulated_past_execution_time_seconds,
        st.requeue_state
            .as_ref()
            .map(|r| (r.count, r.requeue_at.as_ref().map(|t| t.0.to_string()))),
    )
}

/// A Workload made from a Job offline has no UID (the API server gives it one), so the
/// preemptor's UID in a message is left out.
fn without_preemptor_uid(message: &str) -> String {
    match (message.find("(UID: "), message.find(", JobUID: ")) {
        (Some(a), Some(b)) if a < b => format!("{}(UID: _{}", &message[..a], &message[b..]),
        _ => message.to_string(),
    }
}
