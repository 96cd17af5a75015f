//! Workload writes and their outcomes: planned statuses sent (one write per Workload at a
//! time, many Workloads at once), the Events and metrics of a successful write, and what a
//! failed one means (NotFound: the Workload is gone; otherwise the engine goes back to what
//! the API server holds and the Workload waits a little before it is tried again).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::api::Workload;
use crate::kube::apply::{self, is_not_found};
use crate::manifests::job::RESOURCE_IN_USE_FINALIZER;
use crate::scheduler::WorkloadKey;

use super::Msg;
use super::state::{Ctl, Effect, Plan};

/// Backoff after a failed write: 1 s doubling to 30 s.
pub(crate) fn backoff(failures: u32) -> Duration {
    Duration::from_secs((1u64 << failures.min(5)).min(30))
}

impl Ctl {
    /// Sends every planned status whose Workload has no write in flight.
    pub fn flush_plans(&mut self) {
        let keys: Vec<String> = std::mem::take(&mut self.planned).into_iter().collect();
        for key in keys {
            let busy = self.wls.get(&key).is_some_and(|b| b.busy);
            if busy {
                self.planned.insert(key);
                continue;
            }
            let Some(plan) = self.wls.get_mut(&key).and_then(|b| b.plan.take()) else {
                continue;
            };
            let Some(obj) = self.latest_workload(&key) else {
                // Deleted meanwhile: nothing to write to.
                self.dirty_wls.insert(key);
                continue;
            };
            let book = self.book(&key);
            book.busy = true;
            book.sending = Some(plan.status.clone());
            let writer = self.writer.clone();
            self.spawn(async move {
                let result = writer.apply_workload_status(&obj, &plan.status).await;
                Some(Msg::WorkloadWritten { key, result, plan })
            });
        }
    }

    pub fn on_workload_written(&mut self, key: String, result: kube::Result<Workload>, plan: Plan) {
        self.dirty_wls.insert(key.clone());
        let book = self.book(&key);
        book.busy = false;
        book.sending = None;
        match result {
            Ok(obj) => {
                book.failures = 0;
                book.retry_at = None;
                let obj = Arc::new(obj);
                book.overlay = Some(obj.clone());
                if let Some(job) = Ctl::owner_job(&obj) {
                    self.dirty_jobs.insert(job);
                }
                for effect in plan.effects {
                    self.apply_effect(&key, &obj, effect);
                }
            }
            Err(e) if is_not_found(&e) => {
                tracing::debug!(
                    workload = key,
                    "workload gone before its status was written"
                );
            }
            Err(e) => {
                if plan.admits {
                    tracing::warn!(workload = key, error = %e, "Could not admit Workload and assign flavors in apiserver");
                } else {
                    tracing::warn!(workload = key, error = %e, "could not update the Workload's status");
                }
                book.failures += 1;
                book.retry_at = Some(Instant::now() + backoff(book.failures));
                book.evicting = false;
                // Whatever the plan did to the engine is undone when the Workload is re-read
                // from the API server (sync_workload) with its retry pending.
                self.book(&key).plan = None;
            }
        }
    }

    fn apply_effect(&mut self, key: &str, obj: &Arc<Workload>, effect: Effect) {
        match effect {
            Effect::WorkloadEvent(warning, reason, note) => {
                self.event(apply::reference(&**obj), warning, reason, note)
            }
            Effect::OtherWorkloadEvent(other, reason, note) => {
                if let Some(o) = self.latest_workload(&other) {
                    self.event(apply::reference(&*o), false, reason, note);
                }
            }
            Effect::JobEvent(reason, note) => {
                if let Some(job) = Ctl::owner_job(obj).and_then(|j| self.latest_job(&j)) {
                    self.event(apply::reference(&*job), false, reason, note);
                }
            }
            Effect::Admitted(cq, pc, wait) => self.metrics.admitted(&cq, &pc, wait),
            Effect::Evicted(cq, pc, first, preempting_cq, reason) => {
                self.metrics.evicted(&cq, "Preempted", &pc, first);
                self.metrics.preempted(&preempting_cq, reason.as_str());
            }
            Effect::Finished(cq) => self.metrics.finished(&cq),
            Effect::EvictedFor(cq, reason, pc, first) => {
                self.metrics.evicted(&cq, &reason, &pc, first)
            }
            Effect::ReleaseNow => self.release(key),
            Effect::EngineRelease => {
                if WorkloadKey::parse(key).is_some_and(|k| self.engine.release(&k)) {
                    tracing::info!(
                        workload = key,
                        "evicted workload's pods are gone; quota released"
                    );
                }
                self.schedule = true;
                self.queues_dirty = true;
            }
            Effect::EngineFinish(reason) => {
                if WorkloadKey::parse(key).is_some_and(|k| self.engine.finish_workload(&k)) {
                    tracing::info!(workload = key, reason, "workload finished; quota released");
                }
                self.schedule = true;
                self.queues_dirty = true;
            }
            Effect::RemoveFinalizer => self.remove_finalizer(key),
        }
    }

    /// Drops our finalizer from a Workload (finished, or being deleted with nothing running).
    pub fn remove_finalizer(&mut self, key: &str) {
        let Some(obj) = self.latest_workload(key) else {
            return;
        };
        let has = obj
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == RESOURCE_IN_USE_FINALIZER);
        let book = self.book(key);
        if !has || book.busy || book.plan.is_some() {
            return;
        }
        book.busy = true;
        let writer = self.writer.clone();
        let key = key.to_string();
        self.spawn(async move {
            let result = writer
                .remove_workload_finalizer(&obj, RESOURCE_IN_USE_FINALIZER)
                .await;
            Some(Msg::WorkloadPatched { key, result })
        });
    }

    /// A guarded merge patch of a Workload's spec or metadata.
    pub fn patch_workload(&mut self, key: &str, patch: serde_json::Value) {
        let Some(obj) = self.latest_workload(key) else {
            return;
        };
        let book = self.book(key);
        if book.busy || book.plan.is_some() {
            return;
        }
        book.busy = true;
        let writer = self.writer.clone();
        let key = key.to_string();
        self.spawn(async move {
            let result = writer.patch_workload(&obj, patch).await;
            Some(Msg::WorkloadPatched { key, result })
        });
    }

    pub fn on_workload_patched(&mut self, key: String, result: kube::Result<Workload>) {
        let book = self.book(&key);
        book.busy = false;
        match result {
            Ok(obj) => book.overlay = Some(Arc::new(obj)),
            Err(e) if is_not_found(&e) => {}
            Err(e) => {
                tracing::debug!(workload = key, error = %e, "could not patch the Workload; will retry");
                book.failures += 1;
                book.retry_at = Some(Instant::now() + backoff(book.failures));
            }
        }
        self.dirty_wls.insert(key);
    }
}

#[cfg(test)]
mod tests {
    use super::backoff;
    use std::time::Duration;

    #[test]
    fn backoff_doubles_to_thirty_seconds() {
        assert_eq!(backoff(1), Duration::from_secs(2));
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(9), Duration::from_secs(30));
    }
}
