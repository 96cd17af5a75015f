//! Workload status transitions as upstream writes them: quota reserved and admitted, evicted
//! (by preemption or for another reason), pending with a reason, the reservation released
//! after an eviction, requeued, finished. The controller writes these; `simulate` builds its
//! resulting Workloads from the same functions.
//!
//! Invariants: an eviction keeps `status.admission` (the quota stays held until the pods are
//! gone); only [`release`] clears it. Condition messages are cut to
//! [`MAX_CONDITION_MESSAGE`] except by [`not_admitted`], which writes the message as given.

use crate::api::workload_status::condition;
use crate::api::{self, Workload, WorkloadSchedulingStatsEviction, WorkloadStatus};
use crate::manifests::convert::millis;
use crate::scheduler::decision::PreemptionReason;
use crate::scheduler::model::{self, Millis};
use crate::scheduler::quantity::{Amount, format_amount, parse_amount};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::conditions::{MAX_CONDITION_MESSAGE, reset_active, set_condition, truncate_message};

/// The engine's admission in `status.admission` form.
pub fn admission_to_api(adm: &model::Admission) -> api::Admission {
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

fn msg(m: &str) -> String {
    truncate_message(m, MAX_CONDITION_MESSAGE)
}

/// Quota reserved and, with no admission checks, admitted at once.
pub fn admit(st: &mut WorkloadStatus, admission: &model::Admission, now: Millis) {
    st.admission = Some(admission_to_api(admission));
    let message = format!("Quota reserved in ClusterQueue {}", admission.cluster_queue);
    set_condition(
        &mut st.conditions,
        condition::QUOTA_RESERVED,
        true,
        "QuotaReserved",
        &message,
        now,
    );
    reset_active(&mut st.conditions, condition::EVICTED, now);
    reset_active(&mut st.conditions, condition::PREEMPTED, now);
    set_condition(
        &mut st.conditions,
        condition::ADMITTED,
        true,
        "Admitted",
        "The workload is admitted",
        now,
    );
    st.resource_requests.clear();
}

/// Evicted to make room for a preemptor (`Evicted` reason `Preempted`, `Preempted` with where).
/// The admission stays until the workload's pods are gone. Returns whether this is the
/// workload's first eviction for this reason (`evicted_workloads_once_total`).
pub fn evict(
    st: &mut WorkloadStatus,
    reason: PreemptionReason,
    message: &str,
    now: Millis,
) -> bool {
    let m = msg(message);
    set_condition(
        &mut st.conditions,
        condition::PREEMPTED,
        true,
        reason.as_str(),
        &m,
        now,
    );
    set_condition(
        &mut st.conditions,
        condition::EVICTED,
        true,
        condition::EVICTED_BY_PREEMPTION,
        &m,
        now,
    );
    count_eviction(st, condition::EVICTED_BY_PREEMPTION, "")
}

/// `schedulingStats.evictions` counts one more eviction for `reason` and `cause`; true when
/// it is the first (`evicted_workloads_once_total`).
fn count_eviction(st: &mut WorkloadStatus, reason: &str, cause: &str) -> bool {
    let stats = st.scheduling_stats.get_or_insert_with(Default::default);
    match stats
        .evictions
        .iter_mut()
        .find(|e| e.reason == reason && e.underlying_cause == cause)
    {
        Some(e) => {
            e.count += 1;
            false
        }
        None => {
            stats.evictions.push(WorkloadSchedulingStatsEviction {
                reason: reason.to_string(),
                underlying_cause: cause.to_string(),
                count: 1,
            });
            true
        }
    }
}

/// Evicted for a reason other than preemption (`Deactivated`, `ClusterQueueStopped`,
/// `LocalQueueStopped`): a reservation stays until the pods are gone. Returns whether it is
/// the first eviction for this reason.
pub fn evict_for(st: &mut WorkloadStatus, reason: &str, message: &str, now: Millis) -> bool {
    evict_with_cause(st, reason, "", message, now)
}

/// [`evict_for`] with upstream's underlying cause: a `Deactivated` eviction with a cause
/// (the `DeactivationTarget` reason, e.g. `MaximumExecutionTimeExceeded`) is written
/// `Evicted` reason `DeactivatedDueTo<cause>` and counted as (`Deactivated`, cause).
pub fn evict_with_cause(
    st: &mut WorkloadStatus,
    reason: &str,
    cause: &str,
    message: &str,
    now: Millis,
) -> bool {
    let condition_reason = if reason == condition::DEACTIVATED && !cause.is_empty() {
        format!("{reason}DueTo{cause}")
    } else {
        reason.to_string()
    };
    set_condition(
        &mut st.conditions,
        condition::EVICTED,
        true,
        &condition_reason,
        &msg(message),
        now,
    );
    count_eviction(st, reason, cause)
}

/// May queue again after an eviction that turned `Requeued` off (reactivated, queue
/// restarted): `Requeued=True` with upstream's reason and message.
pub fn requeue(st: &mut WorkloadStatus, reason: &str, message: &str, now: Millis) {
    set_condition(
        &mut st.conditions,
        condition::REQUEUED,
        true,
        reason,
        message,
        now,
    );
}

/// Not admitted: `QuotaReserved=False` with the reason and message, `Admitted=False`, and the
/// requests of each podSet.
pub fn pending(
    st: &mut WorkloadStatus,
    reason: &str,
    message: &str,
    w: &model::Workload,
    now: Millis,
) {
    st.admission = None;
    not_admitted(&mut st.conditions, reason, &msg(message), now);
    st.resource_requests = resource_requests(w);
}

/// Would [`pending`] change anything but condition times? Answered without building the new
/// status: the scheduler asks it of every workload it looks at in every cycle.
pub fn pending_changes(
    st: &WorkloadStatus,
    reason: &str,
    message: &str,
    w: &model::Workload,
) -> bool {
    let holds = |type_: &str, reason: &str, message: &str| {
        st.condition(type_)
            .is_some_and(|c| c.status == "False" && c.reason == reason && c.message == message)
    };
    // No allocation on the common answer ("nothing changes"): the message is truncated
    // only when it is too long, and the requests are compared in place.
    let message: std::borrow::Cow<str> = if message.len() <= MAX_CONDITION_MESSAGE {
        std::borrow::Cow::Borrowed(message)
    } else {
        std::borrow::Cow::Owned(msg(message))
    };
    st.admission.is_some()
        || !holds(condition::ADMITTED, NO_RESERVATION, NO_RESERVATION_MESSAGE)
        || !holds(condition::QUOTA_RESERVED, reason, &message)
        || !same_resource_requests(&st.resource_requests, w)
}

/// `written` equals `resource_requests(w)` as quantities (as upstream compares them), without
/// building the latter or formatting a number.
pub fn same_resource_requests(written: &[api::PodSetRequest], w: &model::Workload) -> bool {
    written.len() == w.pod_sets.len()
        && written.iter().zip(&w.pod_sets).all(|(r, ps)| {
            r.name == ps.name
                && r.resources.len() == ps.per_pod.len()
                && ps.per_pod.iter().all(|(res, v)| {
                    r.resources.get(res.as_str()).is_some_and(|q| {
                        parse_amount(res, &q.0)
                            .is_ok_and(|a| a == v.saturating_mul(i64::from(ps.count)))
                    })
                })
        })
}

/// `Admitted=False`: its reason and message while a workload holds no reservation.
const NO_RESERVATION: &str = "NoReservation";
const NO_RESERVATION_MESSAGE: &str = "The workload has no reservation";

/// `QuotaReserved=False` with the reason and message (as given), `Admitted=False`.
pub fn not_admitted(conds: &mut Vec<Condition>, reason: &str, message: &str, now: Millis) {
    set_condition(
        conds,
        condition::QUOTA_RESERVED,
        false,
        reason,
        message,
        now,
    );
    set_condition(
        conds,
        condition::ADMITTED,
        false,
        NO_RESERVATION,
        NO_RESERVATION_MESSAGE,
        now,
    );
}

/// Totals per podSet, as upstream's `PropagateResourceRequests`.
pub fn resource_requests(w: &model::Workload) -> Vec<api::PodSetRequest> {
    w.pod_sets
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
        .collect()
}

/// An evicted workload's pods are gone: the reservation is cleared and the workload goes back
/// to its queue (`Requeued=True` with the eviction reason).
pub fn release(st: &mut WorkloadStatus, now: Millis) {
    let (reason, message) = st
        .condition(condition::EVICTED)
        .filter(|c| c.status == "True")
        .map(|c| (c.reason.clone(), c.message.clone()))
        .unwrap_or_else(|| (condition::EVICTED_BY_PREEMPTION.to_string(), String::new()));
    // Upstream requeues only after preemption (and node failures); other evictions wait.
    let requeue = reason == condition::EVICTED_BY_PREEMPTION || reason == "NodeFailures";
    set_condition(
        &mut st.conditions,
        condition::REQUEUED,
        requeue,
        &reason,
        &msg(&message),
        now,
    );
    set_condition(
        &mut st.conditions,
        condition::QUOTA_RESERVED,
        false,
        "PendingEvaluation",
        &msg(&message),
        now,
    );
    st.admission = None;
    accumulate_admitted_time(st, now);
    set_condition(
        &mut st.conditions,
        condition::ADMITTED,
        false,
        NO_RESERVATION,
        NO_RESERVATION_MESSAGE,
        now,
    );
}

/// Upstream's `SyncAdmittedCondition` on `Admitted` turning False: the seconds since it
/// turned True (whole, rounded down) are added to `accumulatedPastExexcutionTimeSeconds`,
/// so a maximum execution time counts across re-admissions.
fn accumulate_admitted_time(st: &mut WorkloadStatus, now: Millis) {
    let Some(since) = st
        .condition(condition::ADMITTED)
        .filter(|c| c.status == "True")
        .map(|c| c.last_transition_time.0.as_millisecond())
    else {
        return;
    };
    let seconds = i32::try_from(now.saturating_sub(since).max(0) / 1000).unwrap_or(i32::MAX);
    let acc = st.accumulated_past_execution_time_seconds.get_or_insert(0);
    *acc = acc.saturating_add(seconds);
}

/// The job finished (`Succeeded`/`Failed`, or `FailedToStart`).
pub fn finish(st: &mut WorkloadStatus, reason: &str, message: &str, now: Millis) {
    set_condition(
        &mut st.conditions,
        condition::FINISHED,
        true,
        reason,
        &msg(message),
        now,
    );
}

/// Seconds a workload waited since it was queued: from creation, or from the last `Requeued`
/// transition (upstream's `QueuedWaitTime`).
pub fn queued_wait_seconds(wl: &Workload, now: Millis) -> f64 {
    let st = wl.status.as_ref();
    let since = st
        .and_then(|s| s.condition(condition::REQUEUED))
        .map(|c| millis(&c.last_transition_time))
        .or_else(|| wl.metadata.creation_timestamp.as_ref().map(millis))
        .unwrap_or(now);
    ((now - since).max(0) as f64) / 1000.0
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::status::same_ignoring_times;

    fn adm() -> model::Admission {
        model::Admission {
            cluster_queue: "team-a-queue".into(),
            pod_sets: vec![model::PodSetAdmission {
                name: "main".into(),
                flavors: BTreeMap::from([("nvidia.com/gpu".to_string(), "gpu-a100".to_string())]),
                resource_usage: BTreeMap::from([("nvidia.com/gpu".to_string(), 2.into())]),
                count: 1,
            }],
        }
    }

    fn cond<'a>(
        st: &'a WorkloadStatus,
        t: &str,
    ) -> &'a k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
        st.condition(t)
            .unwrap_or_else(|| panic!("no {t} condition"))
    }

    #[test]
    fn admission_sets_quota_reserved_and_admitted() {
        let mut st = WorkloadStatus::default();
        admit(&mut st, &adm(), 1_000);
        assert_eq!(
            cond(&st, "QuotaReserved").message,
            "Quota reserved in ClusterQueue team-a-queue"
        );
        assert_eq!(cond(&st, "Admitted").reason, "Admitted");
        let a = st.admission.as_ref().unwrap();
        assert_eq!(
            a.pod_set_assignments[0].resource_usage["nvidia.com/gpu"].0,
            "2"
        );
        assert_eq!(a.pod_set_assignments[0].count, Some(1));
    }

    #[test]
    fn eviction_then_release_then_readmission() {
        let mut st = WorkloadStatus::default();
        admit(&mut st, &adm(), 1_000);
        assert!(evict(
            &mut st,
            PreemptionReason::InCohortReclamation,
            "Preempted to accommodate a workload",
            2_000
        ));
        assert_eq!(cond(&st, "Evicted").reason, "Preempted");
        assert_eq!(cond(&st, "Preempted").reason, "InCohortReclamation");
        assert!(
            st.admission.is_some(),
            "the admission stays until the pods are gone"
        );
        release(&mut st, 3_000);
        assert!(st.admission.is_none());
        let q = cond(&st, "QuotaReserved");
        assert_eq!(
            (q.status.as_str(), q.reason.as_str()),
            ("False", "PendingEvaluation")
        );
        let r = cond(&st, "Requeued");
        assert_eq!(
            (r.status.as_str(), r.reason.as_str()),
            ("True", "Preempted")
        );
        assert_eq!(cond(&st, "Admitted").reason, "NoReservation");
        admit(&mut st, &adm(), 4_000);
        let e = cond(&st, "Evicted");
        assert_eq!(
            (e.status.as_str(), e.reason.as_str()),
            ("False", "QuotaReserved")
        );
        assert_eq!(e.message, "Previously: Preempted to accommodate a workload");
        assert!(
            !evict(&mut st, PreemptionReason::InClusterQueue, "again", 5_000),
            "second eviction is not the first"
        );
        assert_eq!(st.scheduling_stats.as_ref().unwrap().evictions[0].count, 2);
    }

    /// One pod set "main" of 2 pods, 500m cpu each.
    fn two_pods_of_half_a_cpu() -> model::Workload {
        model::Workload {
            pod_sets: vec![model::PodSet {
                name: "main".into(),
                count: 2,
                per_pod: BTreeMap::from([("cpu".into(), 500.into())]),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn unchanged_pending_status_compares_equal() {
        let w = two_pods_of_half_a_cpu();
        let mut a = WorkloadStatus::default();
        pending(&mut a, "WaitingForQuota", "m", &w, 1_000);
        assert_eq!(a.resource_requests[0].resources["cpu"].0, "1");
        let mut b = a.clone();
        pending(&mut b, "WaitingForQuota", "m", &w, 9_000);
        assert!(same_ignoring_times(&a, &b));
        pending(&mut b, "WaitingForQuota", "other", &w, 9_000);
        assert!(!same_ignoring_times(&a, &b));
    }

    #[test]
    fn written_requests_compare_as_quantities() {
        let w = two_pods_of_half_a_cpu();
        let mut st = WorkloadStatus::default();
        pending(&mut st, "Pending", "m", &w, 1_000);
        assert!(!pending_changes(&st, "Pending", "m", &w));
        // Another spelling of one cpu is the same quantity (as upstream compares them).
        let cpu = |st: &mut WorkloadStatus, text: &str| {
            st.resource_requests[0]
                .resources
                .insert("cpu".into(), Quantity(text.into()));
        };
        cpu(&mut st, "1000m");
        assert!(!pending_changes(&st, "Pending", "m", &w));
        for other in ["1500m", "not a number", "-1"] {
            cpu(&mut st, other);
            assert!(pending_changes(&st, "Pending", "m", &w), "{other}");
        }
        st.resource_requests[0].resources.clear();
        assert!(pending_changes(&st, "Pending", "m", &w));
    }
}
