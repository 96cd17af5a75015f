//! `waitForPodsReady` ([`crate::policy::pods_ready`]) as the controller's writes: the
//! `PodsReady` condition from a Job's status (the job reconciler's step, with the
//! time-to-ready metrics when the pods are ready for the first time), and for the
//! workload controller the `PodsReadyTimeout` eviction (Event `EvictedDueToPodsReadyTimeout`,
//! `kueue_evicted_workloads_total`), the `RequeuingLimitExceeded` mark, the
//! `BackoffFinished` requeue, and a look again when a timeout or a backoff ends (the tick
//! brings the Workload back).
//!
//! Invariants: at most one write per look (the callers check that none is pending); the
//! look-again time is the earlier of this one and the maximum execution time's, turned
//! into the model's monotonic clock once, when it is set; nothing at all while the
//! configuration leaves `waitForPodsReady` off.

use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;

use crate::api::Workload;
use crate::integration::job as jobs;
use crate::policy::pods_ready::{self, PodsReadyStep};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Workload as Model;

use super::Ctx;
use super::plan::{Effect, StatusWrite};

impl Ctx<'_> {
    /// The job reconciler's `PodsReady` write for `job`'s Workload; true when one was
    /// planned (the Job's other steps wait for it, as upstream returns after it).
    pub(super) fn pods_ready_from_job(&mut self, key: &WorkloadKey, job: &Job) -> bool {
        if self.m.engine.config().pods_ready.is_none() || jobs::finished(job).is_some() {
            return false;
        }
        let Some(mut w) = self.effective_workload(key) else {
            return false;
        };
        let view = jobs::WorkloadView::of(&w);
        if view.finished || view.deleting {
            return false;
        }
        if !pods_ready::set_for_job(&mut w, jobs::pods_ready(job), self.now.wall) {
            return false;
        }
        tracing::debug!(workload = %key, ready = pods_ready::is_ready(&w), "PodsReady changed");
        // Upstream's time-to-ready histograms, once the write lands.
        let effects =
            super::measures::pods_ready(&w, self.now.wall, self.exposed_local_queue_of(&w))
                .map(Effect::Metric)
                .into_iter()
                .collect();
        let status = w.status.unwrap_or_default();
        self.set_plan(key, StatusWrite::new(status, effects));
        true
    }

    /// The workload controller's `waitForPodsReady` step for `obj`; true when a write was
    /// planned (nothing else is planned for it on this look).
    pub(super) fn pods_ready_timeout(
        &mut self,
        key: &WorkloadKey,
        obj: &Workload,
        m: &mut Model,
    ) -> bool {
        let Some(cfg) = self.m.engine.config().pods_ready.clone() else {
            return false;
        };
        match pods_ready::step(obj, &cfg, self.now.wall) {
            None => false,
            Some(PodsReadyStep::LookAgainAt(at)) => {
                let wait = Duration::from_millis(u64::try_from(at - self.now.wall).unwrap_or(0));
                let at = self.now.instant + wait;
                let book = self.book(key);
                book.look_at = Some(book.look_at.map_or(at, |t| t.min(at)));
                self.wake(key, at);
                false
            }
            Some(PodsReadyStep::Evict(e)) => {
                tracing::info!(workload = %key, cause = e.cause, "PodsReady timeout, evicting");
                let effects =
                    super::sync::eviction_effects(&e, obj, self.exposed_local_queue_of(obj));
                self.set_plan(key, StatusWrite::new(e.status, effects));
                true
            }
            Some(PodsReadyStep::Mark(status)) => {
                tracing::info!(workload = %key, "requeuing limit exceeded, marking for deactivation");
                self.set_plan(key, StatusWrite::new(*status, Vec::new()));
                true
            }
            Some(PodsReadyStep::BackoffFinished(status)) => {
                self.set_plan(key, StatusWrite::new(*status, Vec::new()));
                // Queued once that is written.
                m.requeue_blocked = true;
                true
            }
        }
    }
}
