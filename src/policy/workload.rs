//! Upstream's workload controller, besides preemption: `spec.active: false` evicts
//! (`Deactivated`), a ClusterQueue or LocalQueue with `stopPolicy: HoldAndDrain` drains
//! (`ClusterQueueStopped`, `LocalQueueStopped`); reactivated, or with the queue running
//! again, the Workload is marked `Requeued` so it queues again (`Reactivated`,
//! `ClusterQueueRestarted`, `LocalQueueRestarted`). A Workload no Job owns has no pods to wait
//! for: evicted, it gives its quota back at once; finished or being deleted, it loses the
//! `resource-in-use` finalizer at once.
//!
//! Invariants: an eviction keeps the reservation (in the engine too) until the pods are gone;
//! a finished Workload is never evicted or requeued; at most one transition per look, and a
//! Workload already evicted is not evicted again.

use crate::api::Workload;
use crate::api::WorkloadStatus;
use crate::api::workload_status::condition;
use crate::manifests::job::RESOURCE_IN_USE_FINALIZER;
use crate::manifests::key::namespace_of;
use crate::scheduler::model::{self, Admission, ClusterState, Millis, StopPolicy};
use crate::status::{self, WorkloadView};

/// Upstream's message for a Workload with `spec.active: false`.
pub const DEACTIVATED_MESSAGE: &str = "The workload is deactivated";
/// Upstream's eviction messages when a queue with `stopPolicy: HoldAndDrain` drains.
pub const CLUSTER_QUEUE_STOPPED_MESSAGE: &str = "The ClusterQueue is stopped";
pub const LOCAL_QUEUE_STOPPED_MESSAGE: &str = "The LocalQueue is stopped";

/// An eviction the workload controller makes (not a preemption).
#[derive(Debug, Clone, PartialEq)]
pub struct Eviction {
    /// `Deactivated`, `ClusterQueueStopped`, `LocalQueueStopped` or `PodsReadyTimeout`.
    pub reason: &'static str,
    pub message: String,
    /// Upstream's underlying cause: a deactivation's `DeactivationTarget` reason (e.g.
    /// `MaximumExecutionTimeExceeded`), else empty.
    pub cause: String,
    /// The Workload's status with the eviction recorded.
    pub status: WorkloadStatus,
    /// The Workload's first eviction for this reason (`evicted_workloads_once_total`).
    pub first: bool,
    /// The ClusterQueue holding the reservation, when there is one.
    pub cluster_queue: Option<String>,
}

impl Eviction {
    /// The Event's reason: `EvictedDueTo<reason>`, with `DueTo<cause>` after a cause.
    pub fn event_reason(&self) -> String {
        // Upstream names the cause in the reason of deactivations only.
        if self.cause.is_empty() || self.reason != condition::DEACTIVATED {
            format!("EvictedDueTo{}", self.reason)
        } else {
            format!("EvictedDueTo{}DueTo{}", self.reason, self.cause)
        }
    }
}

/// Back to the queue after an eviction that turned `Requeued` off.
#[derive(Debug, Clone, PartialEq)]
pub struct Requeue {
    /// `Reactivated`, `ClusterQueueRestarted` or `LocalQueueRestarted`.
    pub reason: &'static str,
    pub message: &'static str,
    /// The Workload's status with `Requeued=True`.
    pub status: WorkloadStatus,
}

/// What the workload controller does to a Workload because of its own `spec.active` or its
/// queues' `stopPolicy`.
#[derive(Debug, Clone, PartialEq)]
pub enum QueueTransition {
    Evict(Eviction),
    /// The engine should leave it out of the queues until this is written.
    Requeue(Requeue),
}

/// The transition `wl` needs given the queues it uses (`queues`: the converted picture), or
/// none.
pub fn queue_transition(
    wl: &Workload,
    queues: &ClusterState,
    now: Millis,
) -> Option<QueueTransition> {
    let view = WorkloadView::of(wl);
    if view.finished {
        return None;
    }
    let st = wl.status.clone().unwrap_or_default();
    let lq = queues.local_queues.get(&(
        namespace_of(&wl.metadata).to_string(),
        wl.spec.queue_name.clone().unwrap_or_default(),
    ));
    let lq_stop = lq.map(|l| l.stop_policy);
    let target_cq = lq.map(|l| l.cluster_queue.clone());
    let reserved_cq = st
        .admission
        .as_ref()
        .filter(|_| view.has_reservation)
        .map(|a| a.cluster_queue.clone());
    let cq_stop = |name: Option<&String>| {
        name.and_then(|n| queues.cluster_queues.get(n))
            .map(|c| c.stop_policy)
    };
    let eviction = if view.evicted.is_some() {
        None
    } else if !wl.spec.active {
        Some((condition::DEACTIVATED, DEACTIVATED_MESSAGE))
    } else if view.has_reservation
        && cq_stop(reserved_cq.as_ref()) == Some(StopPolicy::HoldAndDrain)
    {
        Some((
            condition::EVICTED_BY_CLUSTER_QUEUE_STOPPED,
            CLUSTER_QUEUE_STOPPED_MESSAGE,
        ))
    } else if view.has_reservation && lq_stop == Some(StopPolicy::HoldAndDrain) {
        Some((
            condition::EVICTED_BY_LOCAL_QUEUE_STOPPED,
            LOCAL_QUEUE_STOPPED_MESSAGE,
        ))
    } else {
        None
    };
    if let Some((reason, message)) = eviction {
        let mut status = st;
        // A deactivation asked for by the workload controller (the maximum execution time)
        // says why, and the mark goes.
        let (cause, message) = match super::max_exec::deactivation_target(wl) {
            Some((cause, why)) if reason == condition::DEACTIVATED => {
                status
                    .conditions
                    .retain(|c| c.type_ != condition::DEACTIVATION_TARGET);
                // Upstream clears the requeue state of a deactivated Workload.
                status.requeue_state = None;
                (cause, format!("{message} due to {why}"))
            }
            _ => (String::new(), message.to_string()),
        };
        let first = status::evict_with_cause(&mut status, reason, &cause, &message, now);
        return Some(QueueTransition::Evict(Eviction {
            reason,
            message,
            cause,
            status,
            first,
            cluster_queue: reserved_cq,
        }));
    }
    let requeued_off = st
        .condition(condition::REQUEUED)
        .filter(|c| c.status == "False")
        .map(|c| c.reason.clone());
    let (reason, message) = match requeued_off.as_deref() {
        Some(condition::DEACTIVATED) if wl.spec.active => {
            ("Reactivated", "The workload was reactivated")
        }
        Some(condition::EVICTED_BY_CLUSTER_QUEUE_STOPPED)
            if cq_stop(target_cq.as_ref()) == Some(StopPolicy::None) =>
        {
            (
                "ClusterQueueRestarted",
                "The ClusterQueue was restarted after being stopped",
            )
        }
        Some(condition::EVICTED_BY_LOCAL_QUEUE_STOPPED) if lq_stop == Some(StopPolicy::None) => (
            "LocalQueueRestarted",
            "The LocalQueue was restarted after being stopped",
        ),
        _ => return None,
    };
    let mut status = st;
    status::requeue(&mut status, reason, message, now);
    Some(QueueTransition::Requeue(Requeue {
        reason,
        message,
        status,
    }))
}

/// How the engine holds a deactivated Workload that still has its reservation: admitted (with
/// the admission the engine already gave it, if any) and out of the queues, until released.
pub fn hold_while_deactivated(
    wl: &Workload,
    m: &mut model::Workload,
    engine_admission: Option<&Admission>,
) {
    let view = WorkloadView::of(wl);
    if view.finished || wl.spec.active || !view.has_reservation {
        return;
    }
    m.active = true;
    m.requeue_blocked = true;
    m.admission = engine_admission.cloned().or(m.admission.take());
}

/// The next step for a Workload that no Job owns (or whose Job is gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainWorkloadStep {
    Nothing,
    /// Finished or being deleted: drop the `resource-in-use` finalizer.
    RemoveFinalizer,
    /// Evicted with quota still reserved: clear the reservation now (no pods to wait for).
    Release,
}

pub fn plain_workload_step(wl: &Workload) -> PlainWorkloadStep {
    let view = WorkloadView::of(wl);
    let has_finalizer = wl
        .metadata
        .finalizers
        .iter()
        .flatten()
        .any(|f| f == RESOURCE_IN_USE_FINALIZER);
    if (view.deleting || view.finished) && has_finalizer {
        return PlainWorkloadStep::RemoveFinalizer;
    }
    if view.evicted.is_some() && view.has_reservation && !view.finished {
        return PlainWorkloadStep::Release;
    }
    PlainWorkloadStep::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::model::{ClusterQueue, LocalQueue, PodSetAdmission};
    use std::collections::BTreeMap;

    fn queues(cq_stop: StopPolicy, lq_stop: StopPolicy) -> ClusterState {
        let mut s = ClusterState::default();
        s.cluster_queues.insert(
            "cq".into(),
            ClusterQueue {
                stop_policy: cq_stop,
                ..Default::default()
            },
        );
        s.local_queues.insert(
            ("ns".into(), "lq".into()),
            LocalQueue {
                cluster_queue: "cq".into(),
                stop_policy: lq_stop,
            },
        );
        s
    }

    fn workload(active: bool) -> Workload {
        let mut w: Workload = serde_yaml::from_str(
            "metadata: {name: w, namespace: ns, finalizers: [kueue.x-k8s.io/resource-in-use]}\nspec: {queueName: lq, podSets: []}\n",
        )
        .unwrap();
        w.spec.active = active;
        w
    }

    fn admitted(mut w: Workload) -> Workload {
        let mut st = WorkloadStatus::default();
        let adm = Admission {
            cluster_queue: "cq".into(),
            pod_sets: vec![PodSetAdmission {
                name: "main".into(),
                flavors: BTreeMap::new(),
                resource_usage: BTreeMap::new(),
                count: 1,
            }],
        };
        status::admit(&mut st, &adm, 0);
        w.status = Some(st);
        w
    }

    fn run(w: &Workload, q: &ClusterState) -> Option<QueueTransition> {
        queue_transition(w, q, 1_000)
    }

    #[test]
    fn a_deactivated_workload_is_evicted_and_held_until_released() {
        let q = queues(StopPolicy::None, StopPolicy::None);
        let w = admitted(workload(false));
        let Some(QueueTransition::Evict(e)) = run(&w, &q) else {
            panic!("expected an eviction");
        };
        assert_eq!(
            (e.reason, e.message.as_str()),
            ("Deactivated", DEACTIVATED_MESSAGE)
        );
        assert_eq!(e.cluster_queue.as_deref(), Some("cq"));
        assert!(e.first);
        assert!(e.status.condition_is_true(condition::EVICTED));
        let mut m = model::Workload::default();
        hold_while_deactivated(&w, &mut m, None);
        assert!(m.active && m.requeue_blocked);
        // Already evicted: not evicted again.
        let mut again = w.clone();
        again.status = Some(e.status);
        assert_eq!(run(&again, &q), None);
    }

    #[test]
    fn hold_and_drain_evicts_reserved_workloads_only() {
        let w = admitted(workload(true));
        let cq_stopped = queues(StopPolicy::HoldAndDrain, StopPolicy::None);
        assert!(
            matches!(run(&w, &cq_stopped), Some(QueueTransition::Evict(e)) if e.reason == "ClusterQueueStopped")
        );
        let lq_stopped = queues(StopPolicy::None, StopPolicy::HoldAndDrain);
        assert!(
            matches!(run(&w, &lq_stopped), Some(QueueTransition::Evict(e)) if e.message == LOCAL_QUEUE_STOPPED_MESSAGE)
        );
        // Pending: nothing to drain.
        assert_eq!(run(&workload(true), &cq_stopped), None);
        assert_eq!(
            run(&w, &queues(StopPolicy::Hold, StopPolicy::Hold)),
            None,
            "Hold keeps what runs"
        );
    }

    #[test]
    fn a_restarted_queue_requeues_what_it_drained() {
        let mut w = admitted(workload(true));
        let Some(QueueTransition::Evict(e)) =
            run(&w, &queues(StopPolicy::HoldAndDrain, StopPolicy::None))
        else {
            panic!()
        };
        let mut st = e.status;
        status::release(&mut st, 2_000);
        w.status = Some(st);
        // Still stopped: it waits.
        assert_eq!(
            run(&w, &queues(StopPolicy::HoldAndDrain, StopPolicy::None)),
            None
        );
        let Some(QueueTransition::Requeue(r)) =
            run(&w, &queues(StopPolicy::None, StopPolicy::None))
        else {
            panic!("expected a requeue")
        };
        assert_eq!(r.reason, "ClusterQueueRestarted");
        assert!(r.status.condition_is_true(condition::REQUEUED));
    }

    #[test]
    fn a_plain_workload_releases_at_once_and_drops_the_finalizer_when_done() {
        let q = queues(StopPolicy::None, StopPolicy::None);
        let mut w = admitted(workload(false));
        assert_eq!(plain_workload_step(&w), PlainWorkloadStep::Nothing);
        let Some(QueueTransition::Evict(e)) = run(&w, &q) else {
            panic!()
        };
        w.status = Some(e.status);
        assert_eq!(plain_workload_step(&w), PlainWorkloadStep::Release);
        status::finish(w.status.as_mut().unwrap(), "Succeeded", "done", 3_000);
        assert_eq!(plain_workload_step(&w), PlainWorkloadStep::RemoveFinalizer);
        assert_eq!(run(&w, &q), None, "finished workloads are left alone");
    }
}
