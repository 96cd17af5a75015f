//! Upstream's `waitForPodsReady` in the workload controller and the job reconciler
//! (`pkg/controller/core/workload_controller.go`, `pkg/controller/jobframework/reconciler.go`):
//!
//! - the `PodsReady` condition a Job's status gives its Workload ([`condition_for_job`]):
//!   `True` (`Started`, or `Recovered` after a recovery) once ready plus succeeded pods reach
//!   the Job's pod count, else `False` (`WaitForStart`, or `WaitForRecovery` once it had
//!   been ready);
//! - an admitted Workload not ready within `timeout` of `Admitted` (or, waiting for
//!   recovery, within `recoveryTimeout` of losing readiness) is evicted with reason
//!   `PodsReadyTimeout`, message "Exceeded the PodsReady timeout NS/NAME", underlying
//!   cause `WaitForStart` or `WaitForRecovery`, and `requeueState` counts one more requeue
//!   with `requeueAt` = now + `backoffBaseSeconds`·2^(count−1), capped at
//!   `backoffMaxSeconds`;
//! - a timeout beyond `backoffLimitCount` requeues marks it instead: `DeactivationTarget=True`,
//!   reason `RequeuingLimitExceeded` (the deactivation then follows as for the maximum
//!   execution time, [`super::max_exec`]);
//! - once its pods are gone and `requeueAt` has passed, `Requeued=True` (`BackoffFinished`)
//!   and `requeueAt` cleared: it queues again.
//!
//! Invariants: pure (the Workload, the settings and `now` in, at most one step out); nothing
//! for a finished, inactive or already evicted Workload; no jitter on the backoff (upstream
//! adds up to 0.01%), so the same input gives the same `requeueAt`.

use crate::api::Workload;
use crate::api::WorkloadStatus;
use crate::api::workload_status::{RequeueState, condition};
use crate::manifests::convert::{millis, time_from_millis};
use crate::scheduler::model::{Millis, PodsReadyConfig};
use crate::status::conditions::set_condition;
use crate::status::{self, WorkloadView};

use super::workload::Eviction;

/// `PodsReady` reasons.
pub const STARTED: &str = "Started";
pub const RECOVERED: &str = "Recovered";
pub const WAIT_FOR_START: &str = "WaitForStart";
pub const WAIT_FOR_RECOVERY: &str = "WaitForRecovery";
/// `PodsReady` messages.
pub const NOT_READY_MESSAGE: &str = "Not all pods are ready or succeeded";
pub const WAITING_FOR_RECOVERY_MESSAGE: &str = "At least one pod has failed, waiting for recovery";
pub const READY_MESSAGE: &str = "All pods reached readiness and the workload is running";
/// The `DeactivationTarget` reason and message after too many requeues.
pub const REQUEUING_LIMIT_EXCEEDED: &str = "RequeuingLimitExceeded";
pub const REQUEUING_LIMIT_MESSAGE: &str = "exceeding the maximum number of re-queuing retries";
/// `Requeued=True` once the backoff is over.
pub const BACKOFF_FINISHED: &str = "BackoffFinished";
pub const BACKOFF_FINISHED_MESSAGE: &str = "The workload backoff was finished";

/// The next step `waitForPodsReady` asks of the workload controller.
#[derive(Debug, Clone, PartialEq)]
pub enum PodsReadyStep {
    /// Nothing yet: look again at this wall-clock moment (a timeout or a backoff ends).
    LookAgainAt(Millis),
    /// Timed out: evicted (`PodsReadyTimeout`), `requeueState` updated.
    Evict(Box<Eviction>),
    /// Timed out once more than `backoffLimitCount` allows: marked for deactivation.
    Mark(Box<WorkloadStatus>),
    /// Backoff over: back to the queue (`Requeued=True`, `BackoffFinished`).
    BackoffFinished(Box<WorkloadStatus>),
}

/// Is `PodsReady=True`?
pub fn is_ready(wl: &Workload) -> bool {
    wl.status
        .as_ref()
        .is_some_and(|s| s.condition_is_true(condition::PODS_READY))
}

/// The backoff before requeue number `count` (1-based), in milliseconds: upstream's
/// `base·2^(count−1)` capped at `max` (a zero `max` is no cap), without the jitter.
pub fn backoff_ms(cfg: &PodsReadyConfig, count: i32) -> Millis {
    let base = i64::from(cfg.backoff_base_seconds.max(0)) * 1000;
    let cap = if cfg.backoff_max_seconds > 0 {
        i64::from(cfg.backoff_max_seconds) * 1000
    } else {
        i64::MAX
    };
    let mut d = base;
    for _ in 1..count.max(1) {
        d = d.saturating_mul(2);
        if d >= cap {
            break;
        }
    }
    d.min(cap)
}

/// What `waitForPodsReady` asks for `wl` at `now`, if anything.
pub fn step(wl: &Workload, cfg: &PodsReadyConfig, now: Millis) -> Option<PodsReadyStep> {
    let view = WorkloadView::of(wl);
    if view.finished || !wl.spec.active {
        return None;
    }
    let st = wl.status.as_ref()?;
    if !view.has_reservation {
        return backoff_step(st, now);
    }
    if view.evicted.is_some() || !view.admitted {
        return None;
    }
    let ready = st.condition(condition::PODS_READY);
    if ready.is_some_and(|c| c.status == "True") {
        return None;
    }
    let (cause, ends) = match ready {
        None => (WAIT_FOR_START, admitted_at(st)? + cfg.timeout_ms),
        Some(c) if c.reason == WAIT_FOR_START || c.reason == condition::PODS_READY => {
            (WAIT_FOR_START, admitted_at(st)? + cfg.timeout_ms)
        }
        Some(c) if c.reason == WAIT_FOR_RECOVERY => (
            WAIT_FOR_RECOVERY,
            millis(&c.last_transition_time) + cfg.recovery_timeout_ms?,
        ),
        Some(_) => return None,
    };
    if ends > now {
        return Some(PodsReadyStep::LookAgainAt(ends));
    }
    let count = st.requeue_state.as_ref().and_then(|r| r.count).unwrap_or(0);
    if cfg
        .backoff_limit_count
        .is_some_and(|limit| count.saturating_add(1) > limit)
    {
        if super::max_exec::deactivation_target(wl).is_some() {
            return None;
        }
        let mut status = st.clone();
        set_condition(
            &mut status.conditions,
            condition::DEACTIVATION_TARGET,
            true,
            REQUEUING_LIMIT_EXCEEDED,
            REQUEUING_LIMIT_MESSAGE,
            now,
        );
        return Some(PodsReadyStep::Mark(Box::new(status)));
    }
    let mut status = st.clone();
    let count = count.saturating_add(1);
    let requeue_at = now.saturating_add(backoff_ms(cfg, count));
    let rs = status
        .requeue_state
        .get_or_insert_with(RequeueState::default);
    // Never moves an existing, later requeueAt back (upstream's SetRequeueState).
    if rs
        .requeue_at
        .as_ref()
        .is_none_or(|t| millis(t) < requeue_at)
    {
        rs.requeue_at = Some(time_from_millis(requeue_at));
    }
    rs.count = Some(count);
    let message = format!(
        "Exceeded the PodsReady timeout {}/{}",
        wl.metadata.namespace.as_deref().unwrap_or("default"),
        wl.metadata.name.as_deref().unwrap_or_default()
    );
    let first = status::evict_with_cause(
        &mut status,
        condition::EVICTED_BY_PODS_READY_TIMEOUT,
        cause,
        &message,
        now,
    );
    let cluster_queue = status.admission.as_ref().map(|a| a.cluster_queue.clone());
    Some(PodsReadyStep::Evict(Box::new(Eviction {
        reason: condition::EVICTED_BY_PODS_READY_TIMEOUT,
        message,
        cause: cause.to_string(),
        status,
        first,
        cluster_queue,
    })))
}

fn admitted_at(st: &WorkloadStatus) -> Option<Millis> {
    st.condition(condition::ADMITTED)
        .filter(|c| c.status == "True")
        .map(|c| millis(&c.last_transition_time))
}

/// A pending Workload evicted for `PodsReadyTimeout`: back to the queue once `requeueAt`
/// has passed.
fn backoff_step(st: &WorkloadStatus, now: Millis) -> Option<PodsReadyStep> {
    let requeued = st.condition(condition::REQUEUED)?;
    if requeued.status != "False" || requeued.reason != condition::EVICTED_BY_PODS_READY_TIMEOUT {
        return None;
    }
    let at = st
        .requeue_state
        .as_ref()
        .and_then(|r| r.requeue_at.as_ref())
        .map(millis);
    if let Some(at) = at.filter(|&at| at > now) {
        return Some(PodsReadyStep::LookAgainAt(at));
    }
    let mut status = st.clone();
    if let Some(rs) = status.requeue_state.as_mut() {
        rs.requeue_at = None;
    }
    status::requeue(&mut status, BACKOFF_FINISHED, BACKOFF_FINISHED_MESSAGE, now);
    Some(PodsReadyStep::BackoffFinished(Box::new(status)))
}

/// The job reconciler's `PodsReady` condition for a Workload whose Job has `ready` pods
/// ready and `succeeded` succeeded out of `pods` (the smaller of parallelism and
/// completions): (status, reason, message). `None` when the Workload already says so.
pub fn condition_for_job(
    wl: &Workload,
    pods_ready: bool,
) -> Option<(bool, &'static str, &'static str)> {
    let view = WorkloadView::of(wl);
    let current = wl
        .status
        .as_ref()
        .and_then(|s| s.condition(condition::PODS_READY));
    let want = if !view.admitted {
        (false, WAIT_FOR_START, NOT_READY_MESSAGE)
    } else if pods_ready {
        let recovered =
            current.is_some_and(|c| c.reason == WAIT_FOR_RECOVERY || c.reason == RECOVERED);
        (
            true,
            if recovered { RECOVERED } else { STARTED },
            READY_MESSAGE,
        )
    } else {
        match current {
            Some(c) if c.status == "True" || c.reason == WAIT_FOR_RECOVERY => {
                (false, WAIT_FOR_RECOVERY, WAITING_FOR_RECOVERY_MESSAGE)
            }
            _ => (false, WAIT_FOR_START, NOT_READY_MESSAGE),
        }
    };
    let same = current.is_some_and(|c| {
        (c.status == "True") == want.0 && c.reason == want.1 && c.message == want.2
    });
    (!same).then_some(want)
}

/// Writes `PodsReady` as [`condition_for_job`] asks; true when it changed.
pub fn set_for_job(wl: &mut Workload, pods_ready: bool, now: Millis) -> bool {
    let Some((ready, reason, message)) = condition_for_job(wl, pods_ready) else {
        return false;
    };
    let st = wl.status.get_or_insert_with(WorkloadStatus::default);
    set_condition(
        &mut st.conditions,
        condition::PODS_READY,
        ready,
        reason,
        message,
        now,
    );
    true
}

#[cfg(test)]
#[path = "pods_ready_tests.rs"]
mod tests;
