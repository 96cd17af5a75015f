//! The maximum execution time ([`crate::policy::max_exec`]) as the controller's writes: the
//! `DeactivationTarget` status write with its Warning event, the `spec.active: false`
//! patch, and a look again when the limit will run out (the tick brings the Workload back).
//!
//! Invariants: at most one write per look, and none while one is pending for the Workload
//! (the callers check); the look-again time is a wall-clock moment turned into the
//! model's monotonic clock once, when it is set.

use std::time::Duration;

use crate::api::Workload;
use crate::policy::max_exec::{self, MAXIMUM_EXECUTION_TIME_EXCEEDED, MaxExecStep};
use crate::scheduler::key::WorkloadKey;

use super::Ctx;
use super::plan::{Effect, EventText, StatusWrite};

impl Ctx<'_> {
    /// True when a write was planned (nothing else is planned for `key` on this look).
    pub(super) fn max_execution_time(&mut self, key: &WorkloadKey, obj: &Workload) -> bool {
        match max_exec::step(obj, self.now.wall) {
            None => {
                // (No book is made for this: a Workload without one has no time set.)
                if let Some(b) = self.m.wls.get_mut(key) {
                    b.look_at = None;
                }
                false
            }
            Some(MaxExecStep::LookAgainAt(at)) => {
                let wait = Duration::from_millis(u64::try_from(at - self.now.wall).unwrap_or(0));
                let at = self.now.instant + wait;
                self.book(key).look_at = Some(at);
                self.wake(key, at);
                false
            }
            Some(MaxExecStep::Mark { status, event }) => {
                tracing::info!(workload = %key, "maximum execution time exceeded");
                self.book(key).look_at = None;
                let effects = vec![Effect::Event(EventText::warning(
                    MAXIMUM_EXECUTION_TIME_EXCEEDED,
                    event,
                ))];
                self.set_plan(key, StatusWrite::new(*status, effects));
                true
            }
            Some(MaxExecStep::Deactivate) => {
                tracing::info!(workload = %key, "deactivating (DeactivationTarget)");
                self.patch_workload(key, serde_json::json!({ "spec": { "active": false } }));
                true
            }
        }
    }
}
