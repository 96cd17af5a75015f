//! The durations upstream's metrics report, read off a Workload's conditions the way
//! upstream reads them: pods ready until evicted (`kueue_pods_ready_to_evicted_time_seconds`),
//! queued and admitted until ready (`kueue_ready_wait_time_seconds`,
//! `kueue_admitted_until_ready_wait_time_seconds`), evicted until the quota is released
//! (`kueue_workload_eviction_latency_seconds`), Job until Workload
//! (`kueue_workload_creation_latency_seconds`).
//!
//! Data in: Workload statuses and objects, `now` (wall clock, milliseconds). Data out:
//! seconds, or the [`MetricUpdate`] to record; `None` when upstream records nothing.
//!
//! Invariants: pure; every duration is the difference of two condition (or creation) times,
//! or of one and `now`, exactly as upstream takes them.

use crate::api::workload_status::condition;
use crate::api::{Workload, WorkloadStatus};
use crate::manifests::convert::millis;
use crate::metrics::{LocalQueueRef, MetricUpdate};
use crate::policy::pods_ready::STARTED;
use crate::scheduler::model::Millis;
use crate::status;

fn seconds(ms: Millis) -> f64 {
    ms as f64 / 1000.0
}

/// When condition `type_` last turned true, if it is true.
fn true_since(st: &WorkloadStatus, type_: &str) -> Option<Millis> {
    st.condition(type_)
        .filter(|c| c.status == "True")
        .map(|c| millis(&c.last_transition_time))
}

/// Seconds from `PodsReady=True` to `Evicted=True` in a status that was just evicted; `None`
/// when its pods were not ready.
pub fn pods_ready_to_evicted(st: &WorkloadStatus) -> Option<f64> {
    let ready = true_since(st, condition::PODS_READY)?;
    let evicted = true_since(st, condition::EVICTED)?;
    Some(seconds(evicted - ready))
}

/// The update for a Workload whose `PodsReady` was just set (`w`, its new status) to `True`
/// for the first time since admission (reason `Started`): the waits since queued and since
/// admitted. `None` for any other `PodsReady` change.
pub fn pods_ready(
    w: &Workload,
    now: Millis,
    local_queue: Option<LocalQueueRef>,
) -> Option<MetricUpdate> {
    let st = w.status.as_ref()?;
    let ready = st
        .condition(condition::PODS_READY)
        .filter(|c| c.status == "True" && c.reason == STARTED)?;
    let cluster_queue = st.admission.as_ref()?.cluster_queue.clone();
    let admitted = true_since(st, condition::ADMITTED)?;
    Some(MetricUpdate::PodsReady {
        cluster_queue,
        priority_class: w.spec.priority_class_name.clone().unwrap_or_default(),
        queued_seconds: status::queued_wait_seconds(w, now),
        admitted_seconds: seconds(millis(&ready.last_transition_time) - admitted),
        local_queue,
    })
}

/// The update for an evicted Workload whose release (`written`, no admission any more) just
/// landed, while it held quota in `cluster_queue`: seconds since `Evicted` turned true, for
/// the condition's reason. `None` unless `Evicted` is true.
pub fn eviction_released(
    cluster_queue: &str,
    written: &Workload,
    now: Millis,
) -> Option<MetricUpdate> {
    let st = written.status.as_ref()?;
    if st.admission.is_some() {
        return None;
    }
    let evicted = st
        .condition(condition::EVICTED)
        .filter(|c| c.status == "True")?;
    Some(MetricUpdate::EvictionReleased {
        cluster_queue: cluster_queue.to_string(),
        reason: evicted.reason.clone(),
        seconds: seconds(now - millis(&evicted.last_transition_time)),
    })
}

/// The update for a Workload the job reconciler created for a Job of kind `job_kind`:
/// seconds between their creation times. `None` once the Job's generation is past 1 (upstream
/// records only first versions) or without both times.
pub fn workload_created(
    job_kind: &str,
    job_generation: Option<i64>,
    job_created: Option<Millis>,
    workload: &Workload,
) -> Option<MetricUpdate> {
    if job_generation.unwrap_or(0) > 1 {
        return None;
    }
    let created = workload.metadata.creation_timestamp.as_ref().map(millis)?;
    Some(MetricUpdate::WorkloadCreated {
        job_kind: job_kind.to_string(),
        seconds: seconds(created - job_created?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifests::convert::time_from_millis;
    use crate::status::conditions::set_condition;

    fn status(conditions: &[(&str, bool, &str, Millis)]) -> WorkloadStatus {
        let mut st = WorkloadStatus::default();
        for (t, on, reason, at) in conditions {
            set_condition(&mut st.conditions, t, *on, reason, "", *at);
        }
        st
    }

    #[test]
    fn pods_ready_to_evicted_needs_ready_pods() {
        let st = status(&[
            (condition::PODS_READY, true, STARTED, 10_000),
            (condition::EVICTED, true, "Preempted", 70_500),
        ]);
        assert_eq!(pods_ready_to_evicted(&st), Some(60.5));
        let st = status(&[
            (condition::PODS_READY, false, "WaitForStart", 10_000),
            (condition::EVICTED, true, "Preempted", 70_500),
        ]);
        assert_eq!(pods_ready_to_evicted(&st), None);
    }

    #[test]
    fn eviction_released_reads_the_evicted_condition() {
        let mut w = Workload {
            status: Some(status(&[(
                condition::EVICTED,
                true,
                "PodsReadyTimeout",
                5_000,
            )])),
            ..Default::default()
        };
        assert_eq!(
            eviction_released("cq", &w, 8_000),
            Some(MetricUpdate::EvictionReleased {
                cluster_queue: "cq".into(),
                reason: "PodsReadyTimeout".into(),
                seconds: 3.0,
            })
        );
        w.status = Some(status(&[(condition::EVICTED, false, "Preempted", 5_000)]));
        assert_eq!(eviction_released("cq", &w, 8_000), None);
    }

    #[test]
    fn workload_created_only_for_a_first_generation_job() {
        let mut w = Workload::default();
        w.metadata.creation_timestamp = Some(time_from_millis(12_000));
        let at = |generation| workload_created("Job", generation, Some(10_000), &w);
        assert_eq!(
            at(Some(1)),
            Some(MetricUpdate::WorkloadCreated {
                job_kind: "Job".into(),
                seconds: 2.0,
            })
        );
        assert!(at(None).is_some());
        assert_eq!(at(Some(2)), None);
    }
}
