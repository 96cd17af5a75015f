//! The Job integration's decisions ([`crate::integration::job::decide`]) turned into writes:
//! one write sequence per Job at a time, Events on the Job, and the Workload-side steps
//! (creation, release, finish, patches) through the same paths as the scheduler's writes. A
//! Workload created for a Job reports upstream's creation latency.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use kube_core::Resource;

use crate::api::Workload;
use crate::integration::job::{self as jobs, JobAction, JobStep, LeftJob};
use crate::kube::stored::StoredWorkload;
use crate::manifests::ObjectKey;
use crate::manifests::convert::millis;
use crate::manifests::job::workload_for_job;
use crate::manifests::priority::Priorities;
use crate::scheduler::key::WorkloadKey;

use super::Ctx;
use super::events;
use super::plan::{Action, EventText, WriteError, WriteResult};
use super::workloads::backoff;

/// How often a running Job that lost its queue-name label is read again: it is outside the
/// Job watch, so its end is learnt only by asking.
pub const LEFT_JOB_REREAD: Duration = Duration::from_secs(10);

impl Ctx<'_> {
    fn managed(&self, job: &Job) -> bool {
        jobs::is_managed(job, &self.m.settings.managed_jobs, |ns| {
            self.cache.namespace_labels(ns)
        })
    }

    /// The key of the Workload of `job_key`: the one it owns, else the name we would give it.
    fn workload_of(&self, job_key: &ObjectKey, job: &Job) -> WorkloadKey {
        match self.m.owned.workload_of(job_key) {
            Some(k) => k.clone(),
            None => jobs::workload_key_for_job(job),
        }
    }

    pub(super) fn reconcile_job(&mut self, key: &ObjectKey) {
        let now = self.now.instant;
        if let Some(b) = self.m.jobs.get(key)
            && (b.busy || b.retry_at.is_some_and(|t| t > now))
        {
            return;
        }
        let Some(job) = self.latest_job(key) else {
            self.m.jobs.remove(key);
            // Its Workload has a look: the Job may have lost its label, not been deleted.
            if let Some(wl) = self.m.owned.remove_job(key) {
                self.m.dirty_wls.insert(wl);
            }
            return;
        };
        if !self.managed(&job) {
            return;
        }
        let wl_key = self.workload_of(key, &job);
        // While the Workload has a write pending, its newest state is not known yet; after a
        // failed one, wait for the backoff (the Workload's retry brings this Job back).
        if self
            .m
            .wls
            .get(&wl_key)
            .is_some_and(|b| b.writing() || b.backing_off(now))
        {
            return;
        }
        let wl = self.latest_workload(&wl_key).filter(|w| {
            let uid = job.metadata.uid.as_deref().unwrap_or("");
            w.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.kind == "Job" && o.uid == uid)
        });
        let flavors: BTreeMap<String, crate::api::ResourceFlavor> = self
            .cache
            .flavors()
            .into_iter()
            .map(|f| (f.metadata.name.clone().unwrap_or_default(), (*f).clone()))
            .collect();
        // waitForPodsReady: the Workload's PodsReady follows the Job's pods first.
        if wl.is_some() && self.pods_ready_from_job(&wl_key, &job) {
            return;
        }
        let action = jobs::decide(&job, wl.as_deref(), &flavors);
        if action != JobAction::Nothing {
            tracing::debug!(job = %key, action = ?std::mem::discriminant(&action), "job action");
        }
        match action {
            JobAction::Nothing => {}
            JobAction::CreateWorkload => self.create_workload(key, &job),
            JobAction::Stop {
                steps,
                message,
                was_running,
            } => {
                if was_running {
                    tracing::info!(job = %key, reason = message, "stopping job");
                }
                let event = was_running.then(|| EventText::normal("Stopped", message));
                self.write_job(key, steps, event);
            }
            JobAction::Start { patch, message } => {
                tracing::info!(job = %key, "starting job");
                self.write_job(
                    key,
                    vec![JobStep::Patch(patch)],
                    Some(EventText::normal("Started", message)),
                );
            }
            JobAction::FailToStart(message) => {
                tracing::warn!(
                    job = %key,
                    error = message,
                    "job cannot start with its admission"
                );
                self.finish(&wl_key, jobs::FAILED_TO_START, &message, None);
            }
            JobAction::Release => self.release(&wl_key),
            JobAction::Finish { succeeded, message } => {
                let reason = if succeeded { "Succeeded" } else { "Failed" };
                let note = events::finished_workload(&wl_key.to_string());
                self.finish(&wl_key, reason, &message, Some(note));
            }
            JobAction::RemoveFinalizer => self.remove_finalizer(&wl_key),
            JobAction::UpdatePodSets(pod_sets) => {
                tracing::info!(
                    job = %key,
                    workload = %wl_key,
                    "job's pods changed before admission, updating workload"
                );
                let note = format!("Updated not matching Workload for suspended job: {wl_key}");
                self.event(
                    job.object_ref(&()),
                    EventText::normal("UpdatedWorkload", note),
                );
                self.patch_workload(
                    &wl_key,
                    serde_json::json!({ "spec": { "podSets": pod_sets } }),
                );
            }
            JobAction::DeleteWorkload => {
                tracing::info!(
                    job = %key,
                    workload = %wl_key,
                    "job no longer matches its workload, deleting it"
                );
                self.delete_workload(&wl_key, job.object_ref(&()));
            }
            JobAction::ChangeQueue(queue) => {
                tracing::info!(
                    job = %key,
                    workload = %wl_key,
                    queue,
                    "job changed queue-name, updating workload"
                );
                self.patch_workload(
                    &wl_key,
                    serde_json::json!({ "spec": { "queueName": queue } }),
                );
            }
        }
    }

    fn create_workload(&mut self, key: &ObjectKey, job: &Arc<Job>) {
        let priorities = Priorities::new(
            self.cache.priority_classes().iter().map(|p| &**p),
            self.cache.pod_priority_classes().iter().map(|p| &**p),
        );
        let workload = match workload_for_job(job, &priorities) {
            Ok(w) => w,
            Err(problem) => {
                let message = problem.message();
                let book = self.job_book(key);
                if book.reported.as_deref() != Some(message.as_str()) {
                    book.reported = Some(message.clone());
                    tracing::warn!(job = %key, message, "cannot create the job's Workload");
                    self.event(
                        job.object_ref(&()),
                        EventText::warning(problem.reason(), message),
                    );
                }
                return;
            }
        };
        self.job_book(key).busy = true;
        self.act(Action::CreateWorkload {
            job: key.clone(),
            workload: Box::new(workload),
        });
    }

    pub(super) fn on_workload_created(
        &mut self,
        job_key: ObjectKey,
        result: WriteResult<Workload>,
    ) {
        let now = self.now.instant;
        let book = self.job_book(&job_key);
        book.busy = false;
        match result {
            Ok(wl) => {
                book.failures = 0;
                book.reported = None;
                let key = ObjectKey::workload(&wl.metadata);
                tracing::info!(job = %job_key, workload = %key, "created workload");
                if let Some(job) = self.latest_job(&job_key) {
                    self.event(
                        job.object_ref(&()),
                        EventText::normal(
                            "CreatedWorkload",
                            events::created_workload(&key.to_string()),
                        ),
                    );
                    let created = super::measures::workload_created(
                        "Job",
                        job.metadata.generation,
                        job.metadata.creation_timestamp.as_ref().map(millis),
                        &wl,
                    );
                    if let Some(update) = created {
                        self.metric(update);
                    }
                }
                self.m.owned.insert(job_key.clone(), key.clone());
                let unseen = !self.cache.has_workload(&key);
                let book = self.book(&key);
                book.overlay = Some(Box::new(StoredWorkload::new(wl)));
                book.unseen = unseen;
                self.m.dirty_wls.insert(key);
            }
            // Created earlier (by us before a restart): the watch brings it.
            Err(WriteError::Conflict) => {}
            Err(e) => {
                tracing::warn!(job = %job_key, error = %e, "could not create the job's Workload");
                book.failures += 1;
                book.retry_at = Some(now + backoff(book.failures));
                // The Job stays suspended; say why on it (once per distinct refusal), and
                // try again with the backoff.
                let message = format!("Could not create the Workload (retrying): {e}");
                if book.reported.as_deref() != Some(message.as_str()) {
                    book.reported = Some(message.clone());
                    if let Some(job) = self.latest_job(&job_key) {
                        self.event(
                            job.object_ref(&()),
                            EventText::warning(events::FAILED_CREATE_WORKLOAD, message),
                        );
                    }
                }
            }
        }
        self.m.dirty_jobs.insert(job_key);
    }

    /// A Job that left the watch, read from the API server: if it lost its queue-name label
    /// while suspended, its Workload finishes (it must not hold quota nobody uses); if it
    /// still runs, it is read again every [`LEFT_JOB_REREAD`] until it ends, and then its
    /// Workload finishes.
    pub(super) fn on_job_read(
        &mut self,
        key: ObjectKey,
        workload: WorkloadKey,
        result: WriteResult<Option<Job>>,
    ) {
        let job = match result {
            Ok(Some(job)) => job,
            Ok(None) => return,
            Err(e) => {
                tracing::debug!(job = %key, error = %e, "cannot read the Job; will ask again");
                // No book is made for a Workload that went meanwhile (nothing would drop it).
                if let Some(b) = self.m.wls.get_mut(&workload) {
                    b.job_read = false;
                }
                return;
            }
        };
        let Some(wl) = self.latest_workload(&workload) else {
            return;
        };
        if self.m.wls.get(&workload).is_some_and(|b| b.writing()) {
            return;
        }
        match jobs::left_job(&job, &wl, &self.m.settings.managed_jobs) {
            LeftJob::Nothing => {}
            LeftJob::Abandoned => {
                tracing::info!(job = %key, workload = %workload, "the Job's queue-name label was removed while it was suspended; finishing its Workload");
                self.event(
                    job.object_ref(&()),
                    EventText::warning(jobs::QUEUE_NAME_REMOVED, jobs::QUEUE_NAME_REMOVED_MESSAGE),
                );
                self.finish(
                    &workload,
                    jobs::QUEUE_NAME_REMOVED,
                    jobs::QUEUE_NAME_REMOVED_MESSAGE,
                    None,
                );
            }
            LeftJob::Running => {
                tracing::debug!(job = %key, workload = %workload, "the running Job lost its queue-name label; it keeps its quota until it ends");
                // `job_read` stays set until then (the tick clears it).
                let at = self.now.instant + LEFT_JOB_REREAD;
                self.book(&workload).job_reread_at = Some(at);
                self.wake(&workload, at);
            }
            LeftJob::Finished { succeeded, message } => {
                let reason = if succeeded { "Succeeded" } else { "Failed" };
                let note = events::finished_workload(&workload.to_string());
                self.finish(&workload, reason, &message, Some(note));
            }
        }
    }

    /// Job writes in order; the Event follows once the first one succeeded.
    fn write_job(&mut self, key: &ObjectKey, steps: Vec<JobStep>, event: Option<EventText>) {
        self.job_book(key).busy = true;
        self.act(Action::WriteJob {
            key: key.clone(),
            steps,
            event,
        });
    }

    pub(super) fn on_job_written(
        &mut self,
        key: ObjectKey,
        result: WriteResult<Option<Job>>,
        event: Option<EventText>,
    ) {
        if let Ok(Some(job)) = &result {
            self.job_book(&key).overlay = Some(Arc::new(job.clone()));
        }
        if let (Some(text), Some(job)) = (event, self.latest_job(&key)) {
            self.event(job.object_ref(&()), text);
        }
        let now = self.now.instant;
        let book = self.job_book(&key);
        book.busy = false;
        match result {
            Ok(_) => book.failures = 0,
            Err(WriteError::NotFound) => {}
            // Someone else changed the Job meanwhile (409), or it is not yet in a state that
            // allows the change (422: the Job controller has not caught up): decide again
            // shortly, from its newest version.
            Err(e @ (WriteError::Conflict | WriteError::Invalid)) if book.failures < 5 => {
                tracing::debug!(job = %key, error = %e, "job changed meanwhile; reconciling again");
                book.failures += 1;
                book.retry_at = Some(now + Duration::from_millis(200));
            }
            Err(e) => {
                tracing::warn!(job = %key, error = %e, "could not update the Job");
                book.failures += 1;
                book.retry_at = Some(now + backoff(book.failures));
            }
        }
        self.m.dirty_jobs.insert(key);
    }
}
