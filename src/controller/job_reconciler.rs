//! Runs the Job integration's decisions ([`crate::integration::job::decide`]) against the cluster: one
//! write sequence per Job at a time, Events on the Job, and the Workload-side steps
//! (creation, release, finish) through the same paths as the scheduler's writes.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::batch::v1::Job;

use crate::api::Workload;
use crate::kube::apply::{self, is_conflict, is_invalid, is_not_found};
use crate::manifests::job::{JobProblem, workload_for_job};

use super::Msg;
use super::events;
use super::state::Ctl;
use super::workloads::backoff;
use crate::integration::job::{self as jobs, JobAction, JobStep};

impl Ctl {
    fn managed(&self, job: &Job) -> bool {
        jobs::is_managed(job, &self.cfg.managed_jobs, |ns| {
            self.stores
                .namespaces
                .get(&crate::kube::watch::object_ref(ns))
                .and_then(|n| n.metadata.labels.clone())
                .unwrap_or_default()
        })
    }

    /// The key of the Workload of `job_key`: the one it owns, else the name we would give it.
    fn workload_of(&mut self, job_key: &str, job: &Job) -> String {
        if let Some(k) = self.owned.get(job_key) {
            return k.clone();
        }
        jobs::workload_key_for_job(job).to_string()
    }

    pub fn reconcile_job(&mut self, key: &str) {
        if let Some(b) = self.jobs.get(key)
            && (b.busy || b.retry_at.is_some_and(|t| t > Instant::now()))
        {
            return;
        }
        let Some(job) = self.latest_job(key) else {
            self.jobs.remove(key);
            self.owned.remove(key);
            return;
        };
        if !self.managed(&job) {
            return;
        }
        let wl_key = self.workload_of(key, &job);
        // While the Workload has a write pending, its newest state is not known yet; after a
        // failed one, wait for the backoff (the Workload's retry brings this Job back).
        if self.wls.get(&wl_key).is_some_and(|b| {
            b.busy || b.plan.is_some() || b.retry_at.is_some_and(|t| t > Instant::now())
        }) {
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
            .stores
            .flavors
            .state()
            .into_iter()
            .map(|f| (f.metadata.name.clone().unwrap_or_default(), (*f).clone()))
            .collect();
        let action = jobs::decide(&job, wl.as_deref(), &flavors);
        if action != JobAction::Nothing {
            tracing::debug!(job = key, action = ?std::mem::discriminant(&action), "job action");
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
                    tracing::info!(job = key, reason = message, "stopping job");
                }
                let event = was_running.then(|| ("Stopped".to_string(), message));
                self.job_steps(key, &job, steps, event);
            }
            JobAction::Start { patch, message } => {
                tracing::info!(job = key, "starting job");
                self.job_steps(
                    key,
                    &job,
                    vec![JobStep::Patch(patch)],
                    Some(("Started".to_string(), message)),
                );
            }
            JobAction::FailToStart(message) => {
                tracing::warn!(
                    job = key,
                    error = message,
                    "job cannot start with its admission"
                );
                self.finish(&wl_key, jobs::FAILED_TO_START, &message, None);
            }
            JobAction::Release => self.release(&wl_key),
            JobAction::Finish { succeeded, message } => {
                let reason = if succeeded { "Succeeded" } else { "Failed" };
                self.finish(
                    &wl_key,
                    reason,
                    &message,
                    Some(events::finished_workload(&wl_key)),
                );
            }
            JobAction::RemoveFinalizer => self.remove_finalizer(&wl_key),
            JobAction::UpdatePodSets(pod_sets) => {
                tracing::info!(
                    job = key,
                    workload = wl_key,
                    "job's pods changed before admission, updating workload"
                );
                let note = format!("Updated not matching Workload for suspended job: {wl_key}");
                self.event(
                    apply::reference(&*job),
                    false,
                    "UpdatedWorkload".into(),
                    note,
                );
                self.patch_workload(
                    &wl_key,
                    serde_json::json!({ "spec": { "podSets": pod_sets } }),
                );
            }
            JobAction::ChangeQueue(queue) => {
                tracing::info!(
                    job = key,
                    workload = wl_key,
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

    fn create_workload(&mut self, key: &str, job: &Arc<Job>) {
        let priorities: BTreeMap<String, i32> = self
            .stores
            .priority_classes
            .state()
            .iter()
            .map(|p| (p.metadata.name.clone().unwrap_or_default(), p.value))
            .collect();
        let wl = match workload_for_job(job, &priorities) {
            Ok(w) => w,
            Err(JobProblem::PriorityClassNotFound(pc)) => {
                let message = format!("workloadPriorityClass \"{pc}\" not found");
                let book = self.job_book(key);
                if book.reported.as_deref() != Some(message.as_str()) {
                    book.reported = Some(message.clone());
                    tracing::warn!(job = key, message, "cannot create the job's Workload");
                    self.event(
                        apply::reference(&**job),
                        true,
                        "WorkloadPriorityClassNotFound".into(),
                        message,
                    );
                }
                return;
            }
        };
        self.job_book(key).busy = true;
        let writer = self.writer.clone();
        let job_key = key.to_string();
        self.spawn(async move {
            let result = writer.create_workload(&wl).await;
            Some(Msg::WorkloadCreated {
                job: job_key,
                result,
            })
        });
    }

    pub fn on_workload_created(&mut self, job_key: String, result: kube::Result<Workload>) {
        let book = self.job_book(&job_key);
        book.busy = false;
        match result {
            Ok(wl) => {
                book.failures = 0;
                book.reported = None;
                let key = crate::kube::watch::key_of(&wl);
                tracing::info!(job = job_key, workload = key, "created workload");
                if let Some(job) = self.latest_job(&job_key) {
                    self.event(
                        apply::reference(&*job),
                        false,
                        "CreatedWorkload".into(),
                        events::created_workload(&key),
                    );
                }
                self.owned.insert(job_key.clone(), key.clone());
                let unseen = self.stores.workload(&key).is_none();
                let book = self.book(&key);
                book.overlay = Some(Arc::new(wl));
                book.unseen = unseen;
                self.dirty_wls.insert(key);
            }
            // Created earlier (by us before a restart): the watch brings it.
            Err(e) if is_conflict(&e) => {}
            Err(e) => {
                tracing::warn!(job = job_key, error = %e, "could not create the job's Workload");
                book.failures += 1;
                book.retry_at = Some(Instant::now() + backoff(book.failures));
            }
        }
        self.dirty_jobs.insert(job_key);
    }

    /// Runs Job writes in order; an Event follows when all succeeded.
    fn job_steps(
        &mut self,
        key: &str,
        job: &Arc<Job>,
        steps: Vec<JobStep>,
        event: Option<(String, String)>,
    ) {
        self.job_book(key).busy = true;
        let writer = self.writer.clone();
        let ns = job
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        let name = job.metadata.name.clone().unwrap_or_default();
        let key = key.to_string();
        self.spawn(async move {
            let mut last: Option<Job> = None;
            // The event belongs to the first step (suspending or starting): upstream reports a
            // stop as soon as the Job is suspended, even if restoring its template fails.
            let mut event = event;
            let mut happened = None;
            for step in steps {
                let r = match step {
                    JobStep::Patch(p) => writer.patch_job(&ns, &name, &p).await,
                    JobStep::PatchStatus(p) => writer.patch_job_status(&ns, &name, &p).await,
                    JobStep::PatchAfter(mut p) => {
                        let rv = last
                            .as_ref()
                            .and_then(|j| j.metadata.resource_version.clone());
                        p["metadata"]["resourceVersion"] = serde_json::json!(rv);
                        writer.patch_job(&ns, &name, &p).await
                    }
                };
                match r {
                    Ok(j) => {
                        last = Some(j);
                        happened = happened.or_else(|| event.take());
                    }
                    Err(e) => {
                        return Some(Msg::JobWritten {
                            key,
                            result: Err(e),
                            event: happened,
                        });
                    }
                }
            }
            Some(Msg::JobWritten {
                key,
                result: Ok(last),
                event: happened,
            })
        });
    }

    pub fn on_job_written(
        &mut self,
        key: String,
        result: kube::Result<Option<Job>>,
        event: Option<(String, String)>,
    ) {
        if let Ok(Some(job)) = &result {
            self.job_book(&key).overlay = Some(Arc::new(job.clone()));
        }
        if let (Some((reason, note)), Some(job)) = (event, self.latest_job(&key)) {
            self.event(apply::reference(&*job), false, reason, note);
        }
        let book = self.job_book(&key);
        book.busy = false;
        match result {
            Ok(_) => book.failures = 0,
            Err(e) if is_not_found(&e) => {}
            // Someone else changed the Job meanwhile (409), or it is not yet in a state that
            // allows the change (422: the Job controller has not caught up): decide again
            // shortly, from its newest version.
            Err(e) if (is_conflict(&e) || is_invalid(&e)) && book.failures < 5 => {
                tracing::debug!(job = key, error = %e, "job changed meanwhile; reconciling again");
                book.failures += 1;
                book.retry_at = Some(Instant::now() + std::time::Duration::from_millis(200));
            }
            Err(e) => {
                tracing::warn!(job = key, error = %e, "could not update the Job");
                book.failures += 1;
                book.retry_at = Some(Instant::now() + backoff(book.failures));
            }
        }
        self.dirty_jobs.insert(key);
    }
}
