//! Upstream's maximum execution time (`spec.maximumExecutionTimeSeconds`, from a Job's
//! `kueue.x-k8s.io/max-exec-time-seconds` label): an admitted Workload that has run longer
//! than that, counting `status.accumulatedPastExexcutionTimeSeconds` from earlier
//! admissions plus the time since `Admitted` turned True, is marked
//! `DeactivationTarget=True` (reason `MaximumExecutionTimeExceeded`, Warning event of that
//! reason) with the accumulated time cleared; a Workload so marked gets `spec.active: false`;
//! the deactivation then evicts it as [`super::workload`] says, with the mark as its cause.
//!
//! Invariants: one step per look, in upstream's order (an active Workload already marked is
//! deactivated before anything else); an unexceeded limit gives the moment to look again;
//! nothing for a Workload that is not admitted, has no limit, is inactive, or has finished.

use crate::api::Workload;
use crate::api::WorkloadStatus;
use crate::api::workload_status::condition;
use crate::scheduler::model::Millis;
use crate::status::WorkloadView;
use crate::status::conditions::set_condition;

/// The `DeactivationTarget` reason and the eviction's underlying cause.
pub const MAXIMUM_EXECUTION_TIME_EXCEEDED: &str = "MaximumExecutionTimeExceeded";
/// The `DeactivationTarget` message (the eviction says "... deactivated due to" it).
pub const DEACTIVATION_MESSAGE: &str = "exceeding the maximum execution time";

/// The next step for a Workload's maximum execution time.
#[derive(Debug, Clone, PartialEq)]
pub enum MaxExecStep {
    /// Still within its limit: look again at this wall-clock moment.
    LookAgainAt(Millis),
    /// Exceeded: write this status (marked, the accumulated time cleared) and send a
    /// Warning event `MaximumExecutionTimeExceeded` with this message.
    Mark {
        status: Box<WorkloadStatus>,
        event: String,
    },
    /// Marked and still active: set `spec.active: false`.
    Deactivate,
}

/// Is `wl` marked for deactivation (`DeactivationTarget=True`)?
pub fn deactivation_target(wl: &Workload) -> Option<(String, String)> {
    wl.status
        .as_ref()?
        .condition(condition::DEACTIVATION_TARGET)
        .filter(|c| c.status == "True")
        .map(|c| (c.reason.clone(), c.message.clone()))
}

/// What `wl`'s maximum execution time asks for at `now`, if anything.
pub fn step(wl: &Workload, now: Millis) -> Option<MaxExecStep> {
    if WorkloadView::of(wl).finished {
        return None;
    }
    if wl.spec.active && deactivation_target(wl).is_some() {
        return Some(MaxExecStep::Deactivate);
    }
    // Inactive already (its eviction follows): not looked at. Upstream's reconcile may mark
    // it again while its pods stop, a race whose outcome depends on timing.
    if !wl.spec.active {
        return None;
    }
    let max = wl.spec.maximum_execution_time_seconds?;
    let st = wl.status.as_ref()?;
    let admitted = st
        .condition(condition::ADMITTED)
        .filter(|c| c.status == "True")?;
    let budget_ms = (i64::from(max)
        - i64::from(st.accumulated_past_execution_time_seconds.unwrap_or(0)))
        * 1000;
    let ends = admitted.last_transition_time.0.as_millisecond() + budget_ms;
    if ends > now {
        return Some(MaxExecStep::LookAgainAt(ends));
    }
    if deactivation_target(wl).is_some() {
        return None;
    }
    let mut status = st.clone();
    set_condition(
        &mut status.conditions,
        condition::DEACTIVATION_TARGET,
        true,
        MAXIMUM_EXECUTION_TIME_EXCEEDED,
        DEACTIVATION_MESSAGE,
        now,
    );
    status.accumulated_past_execution_time_seconds = None;
    Some(MaxExecStep::Mark {
        status: Box::new(status),
        event: format!("The maximum execution time ({max}s) exceeded"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::model::{Admission, PodSetAdmission};
    use std::collections::BTreeMap;

    fn admitted_at(at: Millis, max: Option<i32>, accumulated: Option<i32>) -> Workload {
        let mut w: Workload =
            serde_yaml::from_str("metadata: {name: w, namespace: ns}\nspec: {podSets: []}\n")
                .unwrap();
        w.spec.maximum_execution_time_seconds = max;
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
        crate::status::admit(&mut st, &adm, at);
        st.accumulated_past_execution_time_seconds = accumulated;
        w.status = Some(st);
        w
    }

    #[test]
    fn the_limit_counts_the_time_of_earlier_admissions() {
        // 60 s allowed, 50 s used before, admitted again at t=100 s: ends at 110 s.
        let w = admitted_at(100_000, Some(60), Some(50));
        assert_eq!(step(&w, 105_000), Some(MaxExecStep::LookAgainAt(110_000)));
        let Some(MaxExecStep::Mark { status, event }) = step(&w, 110_000) else {
            panic!("exceeded at 110 s");
        };
        assert_eq!(event, "The maximum execution time (60s) exceeded");
        let c = status.condition(condition::DEACTIVATION_TARGET).unwrap();
        assert_eq!(
            (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
            (
                "True",
                MAXIMUM_EXECUTION_TIME_EXCEEDED,
                DEACTIVATION_MESSAGE
            )
        );
        assert_eq!(status.accumulated_past_execution_time_seconds, None);
        // Marked: deactivated next; once inactive, this policy has nothing more to do.
        let mut marked = w.clone();
        marked.status = Some(*status);
        assert_eq!(step(&marked, 111_000), Some(MaxExecStep::Deactivate));
        marked.spec.active = false;
        assert_eq!(step(&marked, 111_000), None);
    }

    #[test]
    fn nothing_without_a_limit_or_an_admission() {
        assert_eq!(step(&admitted_at(0, None, None), 1_000_000), None);
        let mut pending = admitted_at(0, Some(1), None);
        pending.status = None;
        assert_eq!(step(&pending, 1_000_000), None);
    }
}
