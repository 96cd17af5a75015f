//! Workload writes and their outcomes: planned statuses sent (one write per Workload at a
//! time, many Workloads at once; pending-only ones through a narrow lane of their own), the Events, metrics and engine updates of a successful
//! write ([`Effect`]), and what a failed one means (NotFound: the Workload is gone; a first
//! conflict: the Workload is read back and decided again on that newer copy; otherwise the
//! engine goes back to what the API server holds and the Workload waits a little before it
//! is tried again). A write whose outcome is unknown (timeout, connection reset) keeps
//! what it decided (quota stays held) and reads the Workload back from the API server: the
//! write landed if the server holds what it wrote, else it failed. Also the Workload-side steps others ask for: release a reservation,
//! finish, drop the finalizer, patch the spec.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_core::Resource;

use crate::api::Workload;
use crate::kube::stored::StoredWorkload;
use crate::manifests::job::RESOURCE_IN_USE_FINALIZER;
use crate::metrics::MetricUpdate;
use crate::scheduler::key::WorkloadKey;
use crate::status;

use super::book::WlBook;
use super::plan::{
    Action, Effect, EventText, PendingWords, Plan, StatusWrite, WriteError, WriteResult,
    drop_warnings_of,
};
use super::{Ctx, owner_job};

/// Background writes (a pending workload's reason and message, nothing that reserves,
/// releases or evicts) in flight at once. When the API server is slow they wait here, not
/// in front of admissions, and a waiting one is replaced by the workload's next decision
/// (its admission, or newer words), so a saturated API server gets fewer of them; when it is
/// fast they go out without delay, as upstream writes them. One at a time, as upstream's
/// scheduler writes them (in its cycle, one after the other): at half the baseline, four in flight
/// took about a tenth of the wall from the admissions.
pub const BACKGROUND_IN_FLIGHT: usize = 1;

/// The retry after a status write refused with 409 (a stale copy) whose read-back failed.
const CONFLICT_RETRY: Duration = Duration::from_millis(200);

/// Backoff after a failed write: 1 s doubling to 30 s.
pub(crate) fn backoff(failures: u32) -> Duration {
    Duration::from_secs((1u64 << failures.min(5)).min(30))
}

fn has_finalizer(obj: &Workload) -> bool {
    obj.metadata
        .finalizers
        .iter()
        .flatten()
        .any(|f| f == RESOURCE_IN_USE_FINALIZER)
}

impl Ctx<'_> {
    /// Queues a status write, merging with one not yet sent. A pending message held back
    /// for its refresh is dropped: this write (or the evaluation after it) says more.
    pub(super) fn set_plan(&mut self, key: &WorkloadKey, write: StatusWrite) {
        self.merge_plan(key, Plan::Write(Box::new(write)));
    }

    /// Plans `QuotaReserved=False` with this reason and message (and its Warning Event) as
    /// words, built into a status when sent ([`Plan::Pending`]). For a caller that knows,
    /// from [`Ctx::pending_change`], that it changes something.
    pub(super) fn plan_pending_words(&mut self, key: &WorkloadKey, reason: &str, message: &str) {
        let words = PendingWords {
            reason: reason.to_string(),
            message: message.to_string(),
            at: self.now.wall,
            earlier_effects: Vec::new(),
        };
        self.merge_plan(key, Plan::Pending(Box::new(words)));
    }

    /// [`Ctx::set_plan`] for either kind of plan. The later status wins and effects add up
    /// ([`StatusWrite::supersede`]), but for the Warning Events of the later words' reason,
    /// which they say anew ([`drop_warnings_of`]); words after a built write are built on
    /// its status.
    fn merge_plan(&mut self, key: &WorkloadKey, later: Plan) {
        let book = self.book(key);
        book.held_message = None;
        book.pending_verified = 0;
        let earlier = book.plan.take();
        let merged = match (earlier, later) {
            (None, later) => later,
            (Some(Plan::Pending(old)), Plan::Pending(mut new)) => {
                // Built in turn, the earlier words' condition would have stood since their
                // time: a later status of the same condition keeps that transition time.
                let at = old.at;
                let mut effects = old.effects_before(&new);
                effects.append(&mut new.earlier_effects);
                new.earlier_effects = effects;
                new.at = at;
                Plan::Pending(new)
            }
            (Some(earlier), Plan::Write(new)) => {
                let mut write = self.plan_built(key, earlier).unwrap_or_default();
                write.supersede(*new);
                Plan::Write(Box::new(write))
            }
            (Some(Plan::Write(mut old)), Plan::Pending(new)) => {
                drop_warnings_of(&mut old.effects, &new.reason);
                let st = self
                    .words_on(key, Some(&old.status), &new)
                    .unwrap_or_else(|| old.status.clone());
                old.supersede(StatusWrite::pending(st, new.effects()));
                Plan::Write(old)
            }
        };
        self.book(key).plan = Some(merged);
        self.m.planned.insert(key.clone());
    }

    /// `plan` as a status write: built now if it is words. None when the Workload or its
    /// engine record is gone.
    fn plan_built(&mut self, key: &WorkloadKey, plan: Plan) -> Option<StatusWrite> {
        match plan {
            Plan::Write(w) => Some(*w),
            Plan::Pending(words) => {
                let newest = self.latest_head(key)?;
                let st = self.pending_words_status(key, &newest, &words)?;
                Some(StatusWrite::pending(st, words.effects()))
            }
        }
    }

    /// Sends every planned status whose Workload has no write in flight; background writes
    /// as far as their lane has room, the rest queued for it. A busy Workload's plan is left
    /// out until its write ends ([`Ctx::not_busy`]): looked at in every turn, thousands of
    /// them, each waiting for a saturated API server, took 5% of the controller's CPU at
    /// large-scale.
    pub(super) fn flush_plans(&mut self) {
        for key in std::mem::take(&mut self.m.planned) {
            if self.m.wls.get(&key).is_some_and(|b| b.busy) {
                continue;
            }
            let background = self.background_plan(&key);
            if background && self.m.background_sending.len() >= BACKGROUND_IN_FLIGHT {
                let book = self.book(&key);
                if !std::mem::replace(&mut book.queued_background, true) {
                    self.m.background_queue.push_back(key);
                }
                continue;
            }
            self.send_plan(key, background);
        }
        while self.m.background_sending.len() < BACKGROUND_IN_FLIGHT
            && let Some(key) = self.m.background_queue.pop_front()
        {
            let Some(book) = self.m.wls.get_mut(&key) else {
                continue;
            };
            book.queued_background = false;
            if book.busy {
                // Sent when its write ends (`Ctx::not_busy`).
            } else if book.plan.is_none() {
                // Its words were replaced by a write that has gone out (an admission):
                // nothing waits. Its Workload may have finished meanwhile, and then this was
                // all that kept its book (nothing else would look at it again).
                self.forget_finished_book(&key);
            } else {
                // No longer a background write (the Workload was deleted, or holds a
                // reservation now): it goes out in the ordinary lane, or, deleted, is dropped
                // and its Workload looked at again. Left here, its plan would block the
                // Workload's every later sync.
                let background = self.background_plan(&key);
                self.send_plan(key, background);
            }
        }
    }

    /// The Workload's planned write is a background one, and its newest copy holds no
    /// reservation (a write on top of one is never background).
    fn background_plan(&mut self, key: &WorkloadKey) -> bool {
        let planned = self.m.wls.get(key).and_then(|b| b.plan.as_ref());
        planned.is_some_and(Plan::background)
            && self
                .latest_head(key)
                .is_some_and(|o| o.status.as_ref().is_none_or(|s| s.admission.is_none()))
    }

    /// Sends the Workload's plan; `background` (what `background_plan` said) puts it in
    /// the background lane.
    fn send_plan(&mut self, key: WorkloadKey, background: bool) {
        let Some(plan) = self.m.wls.get_mut(&key).and_then(|b| b.plan.take()) else {
            return;
        };
        let built = self.plan_built(&key, plan);
        let (Some(write), Some(object)) = (
            built,
            self.latest_head(&key).map(|w| Arc::new(write_base(&w))),
        ) else {
            // Deleted meanwhile: nothing to write to.
            self.m.dirty_wls.insert(key);
            return;
        };
        if background {
            self.m.background_sending.insert(key.clone());
        }
        let write = Arc::<StatusWrite>::from(write);
        let book = self.book(&key);
        book.busy = true;
        book.sending = Some(write.clone());
        self.act(Action::WriteWorkloadStatus { key, object, write });
    }

    pub(super) fn on_workload_written(&mut self, key: WorkloadKey, result: WriteResult<Workload>) {
        match result {
            Ok(obj) => self.write_landed(key, obj),
            Err(WriteError::Unknown(e)) => {
                // It may have landed: the quota stays held (the Workload stays busy, so it is
                // not re-read from the cache) until the API server says which.
                tracing::warn!(workload = %key, error = %e, "the Workload status write's outcome is unknown; reading it back");
                self.act(Action::ReadWorkload { key });
            }
            Err(e) => self.write_failed(key, e),
        }
    }

    /// The re-read after an unknown outcome: the write landed if the API server holds what
    /// it wrote; a failed read is tried again (the quota stays held meanwhile).
    pub(super) fn on_workload_read(
        &mut self,
        key: WorkloadKey,
        result: WriteResult<Option<Workload>>,
    ) {
        if self.m.wls.get(&key).is_some_and(|b| b.conflict_read) {
            self.on_conflict_read(key, result);
            return;
        }
        let written = self
            .m
            .wls
            .get(&key)
            .and_then(|b| b.sending.as_ref())
            .map(|w| w.status.clone());
        match (result, written) {
            (Ok(Some(obj)), Some(written)) if status::holds(&obj.status, &written) => {
                tracing::info!(workload = %key, "the status write had landed");
                self.write_landed(key, obj)
            }
            (Ok(Some(_)), _) => self.write_failed(
                key,
                WriteError::Failed("the status write had not landed".into()),
            ),
            (Ok(None), _) => self.write_failed(key, WriteError::NotFound),
            (Err(e), _) => {
                tracing::warn!(workload = %key, error = %e, "cannot read the Workload back; trying again");
                let now = self.now.instant;
                let book = self.book(&key);
                book.failures += 1;
                let at = now + backoff(book.failures);
                book.reread_at = Some(at);
                self.wake(&key, at);
            }
        }
    }

    /// The read-back after a conflict: its answer is the newest copy we know (kept as our
    /// copy until the watch catches up, as a write's answer is), and the Workload is synced
    /// from it. A status decided while the read was out was built on the refused copy: it is
    /// dropped (what it did to the engine is undone by the sync), and the Workload decided
    /// again. A failed read falls back to deciding again on the watch's copy a little later.
    fn on_conflict_read(&mut self, key: WorkloadKey, result: WriteResult<Option<Workload>>) {
        let now = self.now.instant;
        self.m.dirty_wls.insert(key.clone());
        // Decided again in a cycle, even when the newer copy differs in nothing the engine
        // holds (a preemptor skipped its victim while it was read).
        self.m.schedule = true;
        let book = self.not_busy(&key);
        book.conflict_read = false;
        if matches!(book.plan, Some(Plan::Write(_))) {
            book.plan = None;
            book.evicting = false;
        }
        match result {
            Ok(Some(obj)) => book.overlay = Some(Box::new(StoredWorkload::new(obj))),
            // Gone: the watch says so in its turn; a write meanwhile is answered NotFound.
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(workload = %key, error = %e, "cannot read the Workload back after a conflict");
                let at = now + CONFLICT_RETRY;
                book.retry_at = Some(at);
                self.wake(&key, at);
            }
        }
    }

    /// The Workload's write, patch or read has ended: it is busy no more, and a plan made
    /// meanwhile goes out at the end of the turn.
    fn not_busy(&mut self, key: &WorkloadKey) -> &mut WlBook {
        let book = self.book(key);
        book.busy = false;
        if book.plan.is_some() {
            self.m.planned.insert(key.clone());
        }
        self.book(key)
    }

    fn write_landed(&mut self, key: WorkloadKey, obj: Workload) {
        self.m.background_sending.remove(&key);
        self.m.dirty_wls.insert(key.clone());
        let book = self.not_busy(&key);
        book.reread_at = None;
        // Ours alone by now: the write's task has ended.
        let write = book
            .sending
            .take()
            .map(Arc::unwrap_or_clone)
            .unwrap_or_default();
        book.failures = 0;
        book.retry_at = None;
        let stored = StoredWorkload::new(obj);
        // What the effects read: metadata and status (Events, metrics), never pods.
        let obj = stored.head();
        book.overlay = Some(Box::new(stored));
        if let Some(job) = owner_job(&obj) {
            self.m.dirty_jobs.insert(job);
        }
        for effect in write.effects {
            self.apply_effect(&key, &obj, effect);
        }
    }

    fn write_failed(&mut self, key: WorkloadKey, e: WriteError) {
        self.m.background_sending.remove(&key);
        self.m.dirty_wls.insert(key.clone());
        let now = self.now.instant;
        let book = self.not_busy(&key);
        book.reread_at = None;
        let write = book.sending.take().unwrap_or_default();
        if e == WriteError::NotFound {
            tracing::debug!(
                workload = %key,
                "workload gone before its status was written"
            );
            return;
        }
        // A pending message that did not land is said again at the next parking.
        self.m.engine.forget_equivalent_report(&key);
        let book = self.book(&key);
        if write.admits {
            tracing::warn!(workload = %key, error = %e, "Could not admit Workload and assign flavors in apiserver");
        } else {
            tracing::warn!(workload = %key, error = %e, "could not update the Workload's status");
        }
        book.failures += 1;
        // A conflict means a newer copy exists. The watch brings it, but when the API server
        // is saturated the watch lags by minutes, and every decision made again on the copy
        // it has is refused again: at large-scale, evictions of victims that had finished
        // meanwhile were refused 18,000 times in one run, each a status apply on a saturated
        // API server. So the first conflict reads the Workload back (one GET), and the
        // Workload is decided again on the newer copy; repeated ones back off as any failure.
        if e == WriteError::Conflict && book.failures == 1 {
            book.busy = true;
            book.conflict_read = true;
            book.evicting = false;
            book.plan = None;
            self.act(Action::ReadWorkload { key });
            return;
        }
        let at = now + backoff(book.failures);
        book.retry_at = Some(at);
        book.evicting = false;
        // Whatever the plan did to the engine is undone when the Workload is re-read
        // from the API server (sync_workload) with its retry pending.
        book.plan = None;
        self.wake(&key, at);
    }

    fn apply_effect(&mut self, key: &WorkloadKey, obj: &Arc<Workload>, effect: Effect) {
        match effect {
            Effect::Event(text) => self.event(obj.object_ref(&()), text),
            Effect::EventOn { workload, text } => {
                if let Some(o) = self.latest_head(&workload) {
                    self.event(o.object_ref(&()), text);
                }
            }
            Effect::JobEvent(text) => {
                if let Some(job) = owner_job(obj).and_then(|j| self.latest_job(&j)) {
                    self.event(job.object_ref(&()), text);
                }
            }
            Effect::Metric(update) => self.metric(update),
            Effect::ReleaseQuota => {
                // Back to pending while evicted: upstream's eviction latency.
                let released = self
                    .m
                    .engine
                    .holding_queue(key)
                    .and_then(|cq| super::measures::eviction_released(cq, obj, self.now.wall));
                if let Some(update) = released {
                    self.metric(update);
                }
                if self.m.engine.release(key) {
                    tracing::info!(
                        workload = %key,
                        "evicted workload's pods are gone; quota released"
                    );
                }
                self.m.schedule = true;
                self.m.queues_dirty = true;
            }
            Effect::FinishQuota { reason } => {
                if self.m.engine.finish_workload(key) {
                    tracing::info!(workload = %key, reason, "workload finished; quota released");
                }
                self.m.schedule = true;
                self.m.queues_dirty = true;
            }
            Effect::RemoveFinalizer => self.remove_finalizer(key),
        }
    }

    /// Clears an evicted Workload's reservation (its pods are gone). The engine gives the
    /// quota back once that is written, so nobody is ever seen admitted into capacity the
    /// API server still shows as reserved.
    pub(super) fn release(&mut self, key: &WorkloadKey) {
        let Some(w) = self.effective_head(key) else {
            return;
        };
        let mut st = w.status.clone().unwrap_or_default();
        status::release(&mut st, self.now.wall);
        self.set_plan(key, StatusWrite::new(st, vec![Effect::ReleaseQuota]));
        self.book(key).evicting = false;
    }

    /// Finishes a Workload (its Job completed, failed, or cannot start); its quota returns
    /// to the engine once `Finished` is written.
    pub(super) fn finish(
        &mut self,
        key: &WorkloadKey,
        reason: &str,
        message: &str,
        job_event: Option<String>,
    ) {
        let Some(w) = self.effective_head(key) else {
            return;
        };
        let cq = w
            .status
            .as_ref()
            .and_then(|s| s.admission.as_ref())
            .map(|a| a.cluster_queue.clone());
        let mut st = w.status.clone().unwrap_or_default();
        status::finish(&mut st, reason, message, self.now.wall);
        let mut effects = vec![Effect::FinishQuota {
            reason: reason.to_string(),
        }];
        if let Some(note) = job_event {
            effects.push(Effect::JobEvent(super::EventText::normal(
                "FinishedWorkload",
                note,
            )));
        }
        if let Some(cluster_queue) = cq {
            effects.push(Effect::Metric(MetricUpdate::Finished {
                cluster_queue,
                priority_class: w.spec.priority_class_name.clone().unwrap_or_default(),
                local_queue: self.exposed_local_queue_of(&w),
            }));
        }
        effects.push(Effect::RemoveFinalizer);
        self.set_plan(key, StatusWrite::new(st, effects));
    }

    /// Drops our finalizer from a Workload (finished, or being deleted with nothing running).
    pub(super) fn remove_finalizer(&mut self, key: &WorkloadKey) {
        let Some(object) = self.latest_head(key) else {
            return;
        };
        let book = self.book(key);
        if !has_finalizer(&object) || book.writing() {
            return;
        }
        book.busy = true;
        self.act(Action::RemoveFinalizer {
            key: key.clone(),
            object,
            finalizer: RESOURCE_IN_USE_FINALIZER,
        });
    }

    /// A guarded merge patch of a Workload's spec or metadata.
    pub(super) fn patch_workload(&mut self, key: &WorkloadKey, patch: serde_json::Value) {
        let Some(object) = self.latest_head(key) else {
            return;
        };
        let book = self.book(key);
        if book.writing() {
            return;
        }
        book.busy = true;
        self.act(Action::PatchWorkload {
            key: key.clone(),
            object,
            patch,
        });
    }

    /// Deletes a Workload (guarded by its UID and resourceVersion), with upstream's
    /// `DeletedWorkload` event on its Job.
    pub(super) fn delete_workload(
        &mut self,
        key: &WorkloadKey,
        job: k8s_openapi::api::core::v1::ObjectReference,
    ) {
        let Some(object) = self.latest_head(key) else {
            return;
        };
        if object.metadata.deletion_timestamp.is_some() {
            return;
        }
        let book = self.book(key);
        if book.writing() {
            return;
        }
        book.busy = true;
        self.event(
            job,
            EventText::normal(
                "DeletedWorkload",
                format!("Deleted not matching Workload: {key}"),
            ),
        );
        self.act(Action::DeleteWorkload {
            key: key.clone(),
            object,
        });
    }

    pub(super) fn on_workload_patched(&mut self, key: WorkloadKey, result: WriteResult<Workload>) {
        let now = self.now.instant;
        let book = self.not_busy(&key);
        match result {
            Ok(obj) => book.overlay = Some(Box::new(StoredWorkload::new(obj))),
            Err(WriteError::NotFound) => {}
            Err(e) => {
                tracing::debug!(workload = %key, error = %e, "could not patch the Workload; will retry");
                book.failures += 1;
                let at = now + backoff(book.failures);
                book.retry_at = Some(at);
                self.wake(&key, at);
            }
        }
        self.m.dirty_wls.insert(key);
    }
}

/// What a status write needs of the copy it builds on: which object (name, namespace, uid),
/// the resourceVersion the decision was made on, and the status (the write's trace line
/// compares with it). A write may wait long for a slot when the API server is saturated,
/// and the copy at hand may be whole, its pod sets rebuilt by the turn's sync: carrying it
/// held a decoded Workload per waiting write (10,000 at once at a fifth of large-scale).
fn write_base(w: &Workload) -> Workload {
    let m = &w.metadata;
    Workload {
        metadata: ObjectMeta {
            name: m.name.clone(),
            namespace: m.namespace.clone(),
            uid: m.uid.clone(),
            resource_version: m.resource_version.clone(),
            ..ObjectMeta::default()
        },
        spec: Default::default(),
        status: w.status.clone(),
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
