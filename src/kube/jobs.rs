//! What `submit` does on the cluster after creating a Job: it follows the Job and its
//! Workload, reading both every half second, until the Job reaches a [`Milestone`], fails,
//! or the time is up.
//!
//! Invariants: each read is the newest state (no cache); a pending Workload's place in the
//! queue is read from a fresh snapshot; a deleted Job ends the follow with an error.

use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;

use super::Connection;
use crate::api::{PRIORITY_CLASS_LABEL, Workload, WorkloadPriorityClass};
use crate::manifests::job::{label, workload_name_for_job};
use crate::view::submit::{Ending, Milestone, Phase};

/// A submitted Job and its Workload (none until the Kueue controller creates it).
#[derive(Debug, Clone)]
pub struct Observed {
    pub job: Job,
    pub workload: Option<Workload>,
}

/// A WorkloadPriorityClass a Job names that does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingClass {
    pub name: String,
    /// The classes that do exist (empty when they cannot be listed).
    pub known: Vec<String>,
}

impl Connection {
    /// The first WorkloadPriorityClass the Jobs' priority-class labels name that does not
    /// exist (in name order).
    pub async fn missing_priority_class(
        &self,
        jobs: &[Job],
    ) -> anyhow::Result<Option<MissingClass>> {
        let classes: std::collections::BTreeSet<&str> = jobs
            .iter()
            .filter_map(|j| label(j, PRIORITY_CLASS_LABEL))
            .collect();
        for name in classes {
            if self.get::<WorkloadPriorityClass>(name).await?.is_none() {
                let known = self.names::<WorkloadPriorityClass>(None).await;
                return Ok(Some(MissingClass {
                    name: name.to_string(),
                    known: known.unwrap_or_default(),
                }));
            }
        }
        Ok(None)
    }

    /// The Job `ns/job` and the Workload `ns/workload`; `None` when the Job is gone.
    pub async fn observe_job(
        &self,
        ns: &str,
        job: &str,
        workload: &str,
    ) -> anyhow::Result<Option<Observed>> {
        let workload = self.get_in::<Workload>(ns, workload).await?;
        Ok(self
            .get_in::<Job>(ns, job)
            .await?
            .map(|job| Observed { job, workload }))
    }

    /// Where the Job is now, and whether its Workload exists.
    async fn job_phase(
        &self,
        ns: &str,
        job: &str,
        workload: &str,
    ) -> anyhow::Result<(Phase, bool)> {
        let Some(seen) = self.observe_job(ns, job, workload).await? else {
            anyhow::bail!("Job {ns}/{job} was deleted while waiting");
        };
        let wl = seen.workload.as_ref();
        let mut phase = Phase::of(&seen.job, wl, None);
        if matches!(phase, Phase::Queued { .. }) {
            phase = Phase::of(&seen.job, wl, Some(&self.snapshot().await?));
        }
        Ok((phase, wl.is_some()))
    }

    /// Follows a created Job until `goal` (with none: until its Workload exists, at most 10
    /// seconds) or `timeout`. `changed` hears every new phase while there is a goal.
    pub async fn follow_job(
        &self,
        job: &Job,
        goal: Option<Milestone>,
        timeout: Duration,
        mut changed: impl FnMut(&Phase),
    ) -> anyhow::Result<Ending> {
        let ns = job.metadata.namespace.clone().unwrap_or_default();
        let name = job.metadata.name.clone().unwrap_or_default();
        let uid = job.metadata.uid.clone().unwrap_or_default();
        let wl_name = workload_name_for_job(&name, &uid);
        // Without a goal, give the controller a moment (at most `timeout`) to create the
        // Workload.
        let deadline =
            Instant::now() + goal.map_or(timeout.min(Duration::from_secs(10)), |_| timeout);
        let mut last: Option<Phase> = None;
        loop {
            let (phase, workload_seen) = self.job_phase(&ns, &name, &wl_name).await?;
            let Some(goal) = goal else {
                if phase == Phase::NoWorkload && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    continue;
                }
                return Ok(Ending::Seen {
                    phase,
                    workload_seen,
                });
            };
            if last.as_ref() != Some(&phase) {
                changed(&phase);
                last = Some(phase.clone());
            }
            if phase.reached(goal) {
                return Ok(if phase.failed() {
                    Ending::Failed(phase)
                } else {
                    Ending::Reached(phase)
                });
            }
            if Instant::now() >= deadline {
                return Ok(Ending::TimedOut(phase));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}
