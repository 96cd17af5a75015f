//! The batch/v1 Job integration as upstream's job reconciler runs it (pure decisions): a
//! queue-labelled Job gets a Workload owned by it, stays suspended until that Workload is
//! admitted, then starts with the flavors' node labels and tolerations injected; on eviction
//! it is suspended and its pod template restored, and once its pods are gone the Workload's
//! reservation is released; when the Job completes or fails the Workload is finished.
//!
//! [`decide`] looks at one Job, its Workload (the newest known version) and the flavors, and
//! says what to do next; the controller loop performs it and calls `decide` again when
//! anything changes, so each step is idempotent.

mod equivalence;
mod template;

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use serde_json::Value;

use crate::api::{ResourceFlavor, Workload};
use crate::manifests::job::workload_name_for_job;
use crate::manifests::key::namespace_of;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::labels::LabelSelector;
pub use crate::status::WorkloadView;
pub use equivalence::equivalent;
use template::suspend_only;
pub use template::{restore_patch, start_patch, stop};

/// Annotation set while a Job is being stopped (the template is not restored yet).
pub const STOPPING_ANNOTATION: &str = "kueue.x-k8s.io/stopping";
/// Label put on the pods of an admitted podSet.
pub const POD_SET_LABEL: &str = "kueue.x-k8s.io/podset";
/// Template labels the Job controller owns; a restore keeps them.
const MANAGED_LABELS: [&str; 4] = [
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
    "job-name",
    "batch.kubernetes.io/job-name",
];

/// Stop messages and reasons upstream uses.
pub const NOT_ADMITTED: &str = "Not admitted by cluster queue";
pub const WORKLOAD_DELETED: &str = "Workload is deleted";
/// Upstream's stop message when the Job no longer matches its Workload.
pub const NO_MATCHING_WORKLOAD: &str =
    "No matching Workload; restoring pod templates according to existent Workload";
pub const FAILED_TO_START: &str = "FailedToStart";
/// Our `Finished` reason (and Event reason) for the Workload of a Job whose queue-name label
/// was removed while it was suspended (upstream ignores such a Job and leaves its Workload
/// queued, holding quota once admitted, with nobody to start the Job).
pub const QUEUE_NAME_REMOVED: &str = "QueueNameRemoved";
pub const QUEUE_NAME_REMOVED_MESSAGE: &str = "The Job's kueue.x-k8s.io/queue-name label was removed while it was suspended: the Workload gives its quota back and the Job stays suspended (recreate the Job to queue it again)";

/// The Job carries `kueue.x-k8s.io/queue-name`.
fn has_queue_label(job: &Job) -> bool {
    job.metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.contains_key(crate::api::QUEUE_NAME_LABEL))
}

/// `wl` is owned by `job` (this Job, by UID).
fn owns(job: &Job, wl: &Workload) -> bool {
    wl.metadata
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.kind == "Job" && Some(&o.uid) == job.metadata.uid.as_ref())
}

/// Has `job` left Kueue while suspended, leaving `wl` (its Workload) behind? Its queue-name
/// label is gone, it is suspended with no pods, and the Workload has not finished: the
/// Workload then finishes so it holds no quota. A running Job keeps its Workload (its pods
/// use the quota).
pub fn left_by_its_job(job: &Job, wl: &Workload, managed: &ManagedJobs) -> bool {
    let (labelled, owned) = (has_queue_label(job), owns(job, wl));
    !labelled
        && !managed.without_queue_name
        && owned
        && job.spec.as_ref().and_then(|s| s.suspend) == Some(true)
        && live_pods(job) == 0
        && finished(job).is_none()
        && !WorkloadView::of(wl).finished
}

/// What happens to the Workload of a Job that left the watch (its queue-name label is gone).
#[derive(Debug, Clone, PartialEq)]
pub enum LeftJob {
    /// Nothing to do: the Job is labelled again (or unlabelled Jobs are managed), is not the
    /// Workload's owner, or the Workload finished or holds nothing while the Job is not
    /// abandoned.
    Nothing,
    /// Suspended with no pods: the Workload finishes (`QueueNameRemoved`).
    Abandoned,
    /// Still running: it keeps its Workload and quota (upstream keeps it running too); look
    /// at it again later.
    Running,
    /// It ran to the end: the Workload finishes as a labelled Job's would. Upstream ignores an
    /// unlabelled Job for good and its Workload holds the quota forever; nothing runs then.
    Finished { succeeded: bool, message: String },
}

/// [`LeftJob`] for `job`, which left the watch, and its Workload `wl`.
pub fn left_job(job: &Job, wl: &Workload, managed: &ManagedJobs) -> LeftJob {
    if left_by_its_job(job, wl, managed) {
        return LeftJob::Abandoned;
    }
    let (labelled, owned) = (has_queue_label(job), owns(job, wl));
    let view = WorkloadView::of(wl);
    if labelled || managed.without_queue_name || !owned || view.finished || !view.has_reservation {
        return LeftJob::Nothing;
    }
    match finished(job) {
        Some((succeeded, message)) => LeftJob::Finished { succeeded, message },
        None => LeftJob::Running,
    }
}

/// Upstream's `IsSuspended`: suspended and not in the middle of a stop.
pub fn is_suspended(job: &Job) -> bool {
    let suspend = job.spec.as_ref().and_then(|s| s.suspend).unwrap_or(false);
    let stopping = job
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(STOPPING_ANNOTATION))
        .is_some_and(|v| v == "true");
    suspend && !stopping
}

/// Pods that still run or are shutting down.
/// Upstream's `PodsReady()` for a batch Job: ready plus succeeded pods (counted or not yet)
/// reach its pod count, the smaller of `parallelism` (default 1) and `completions`.
pub fn pods_ready(job: &Job) -> bool {
    let spec = job.spec.as_ref();
    let parallelism = spec.and_then(|s| s.parallelism).unwrap_or(1);
    let count = match spec.and_then(|s| s.completions) {
        Some(c) if c < parallelism => c,
        _ => parallelism,
    };
    let st = job.status.as_ref();
    let ready = st.and_then(|s| s.ready).unwrap_or(0);
    let succeeded = st.and_then(|s| s.succeeded).unwrap_or(0);
    let uncounted = st
        .and_then(|s| s.uncounted_terminated_pods.as_ref())
        .and_then(|u| u.succeeded.as_ref())
        .map_or(0, |v| i32::try_from(v.len()).unwrap_or(i32::MAX));
    ready.saturating_add(succeeded).saturating_add(uncounted) >= count
}

pub fn live_pods(job: &Job) -> i32 {
    let st = job.status.as_ref();
    st.and_then(|s| s.active).unwrap_or(0) + st.and_then(|s| s.terminating).unwrap_or(0)
}

/// `Complete` or `Failed`: (succeeded, message).
pub fn finished(job: &Job) -> Option<(bool, String)> {
    job.status
        .as_ref()?
        .conditions
        .iter()
        .flatten()
        .find_map(|c| {
            let done = (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True";
            done.then(|| (c.type_ == "Complete", c.message.clone().unwrap_or_default()))
        })
}

/// A write to a Job, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum JobStep {
    /// JSON merge patch of the Job.
    Patch(Value),
    /// JSON merge patch of the Job's status.
    PatchStatus(Value),
    /// JSON merge patch guarded by the resourceVersion the previous step returned (so a
    /// template restore cannot race the Job controller re-setting `startTime`).
    PatchAfter(Value),
}

/// The next thing to do for a Job.
#[derive(Debug, Clone, PartialEq)]
pub enum JobAction {
    Nothing,
    /// Create the Job's Workload (its pods are gone and it is suspended).
    CreateWorkload,
    /// Suspend the Job and restore its template; `message` goes into the `Stopped` event
    /// when the Job was running.
    Stop {
        steps: Vec<JobStep>,
        message: String,
        was_running: bool,
    },
    /// Inject the admission and unsuspend; `message` goes into the `Started` event.
    Start {
        patch: Value,
        message: String,
    },
    /// The Job cannot start with this admission (conflicting node selector): finish the
    /// Workload with `FailedToStart`.
    FailToStart(String),
    /// The evicted Job's pods are gone: clear the Workload's reservation.
    Release,
    /// The Job completed or failed: finish the Workload.
    Finish {
        succeeded: bool,
        message: String,
    },
    /// The Workload is finished or being deleted and the Job is stopped: drop its finalizer.
    RemoveFinalizer,
    /// The suspended Job moved to another LocalQueue before admission: so does its Workload.
    ChangeQueue(String),
    /// The suspended, unadmitted Job's pods changed (parallelism, template): the Workload's
    /// podSets follow (event `UpdatedWorkload`).
    UpdatePodSets(Vec<crate::api::PodSet>),
    /// The Job no longer matches its Workload, which holds quota (admitted, or the Job runs):
    /// delete it (event `DeletedWorkload`); the Job, stopped, gets a new one.
    DeleteWorkload,
}

/// What a Job that no longer matches its Workload gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// Suspended, no quota reserved: the Workload's podSets become these.
    Update(Vec<crate::api::PodSet>),
    /// The Workload goes (the Job, stopped, gets a new one).
    Recreate,
}

/// Upstream's ensureOneWorkload for one Job and its Workload: nothing when they match.
pub fn mismatch(job: &Job, wl: &Workload) -> Option<Mismatch> {
    if equivalent(job, wl) {
        return None;
    }
    if is_suspended(job) && !WorkloadView::of(wl).has_reservation {
        let want = job_pod_sets(job);
        return (!want.is_empty() && want != wl.spec.pod_sets).then_some(Mismatch::Update(want));
    }
    Some(Mismatch::Recreate)
}

/// The podSets the Job asks for now (as its Workload would be built).
pub fn job_pod_sets(job: &Job) -> Vec<crate::api::PodSet> {
    // The priority does not matter here; any class name resolves.
    let classes = crate::manifests::priority::Priorities::any_class(job);
    crate::manifests::job::workload_for_job(job, &classes)
        .map(|w| w.spec.pod_sets)
        .unwrap_or_default()
}

/// Which Jobs the integration manages: those with a queue name and, with upstream's
/// `manageJobsWithoutQueueName`, the others in the namespaces the selector picks.
#[derive(Debug, Clone, Default)]
pub struct ManagedJobs {
    pub without_queue_name: bool,
    /// `managedJobsNamespaceSelector` (none: every namespace).
    pub namespace_selector: Option<LabelSelector>,
}

/// Does the integration manage `job`? `namespace_labels` is asked only when the answer
/// depends on the Job's namespace.
pub fn is_managed(
    job: &Job,
    managed: &ManagedJobs,
    namespace_labels: impl FnOnce(&str) -> BTreeMap<String, String>,
) -> bool {
    let labelled = has_queue_label(job);
    if labelled {
        return true;
    }
    // Upstream's default selector leaves out kube-system and the controller's namespace.
    if !managed.without_queue_name {
        return false;
    }
    let Some(selector) = &managed.namespace_selector else {
        return true;
    };
    selector.matches(&namespace_labels(namespace_of(&job.metadata)))
}

/// The key of the Workload a Job gets (`job-<name>-<hash>` in the Job's namespace).
pub fn workload_key_for_job(job: &Job) -> WorkloadKey {
    WorkloadKey::new(
        namespace_of(&job.metadata),
        workload_name_for_job(
            job.metadata.name.as_deref().unwrap_or(""),
            job.metadata.uid.as_deref().unwrap_or(""),
        ),
    )
}

/// Decides the next step for `job` given its Workload (None when it has none yet).
pub fn decide(
    job: &Job,
    wl: Option<&Workload>,
    flavors: &BTreeMap<String, ResourceFlavor>,
) -> JobAction {
    let view = wl.map(WorkloadView::of);
    let has_finalizer = wl.is_some_and(|w| {
        w.metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == crate::manifests::job::RESOURCE_IN_USE_FINALIZER)
    });
    if let (Some(w), Some(v)) = (wl, &view) {
        if v.finished {
            return if has_finalizer {
                JobAction::RemoveFinalizer
            } else {
                JobAction::Nothing
            };
        }
        if v.deleting {
            let stop = stop(job, w, WORKLOAD_DELETED);
            if stop != JobAction::Nothing {
                return stop;
            }
            return if has_finalizer {
                JobAction::RemoveFinalizer
            } else {
                JobAction::Nothing
            };
        }
    }
    if let Some((succeeded, message)) = finished(job) {
        return match view {
            Some(_) => JobAction::Finish { succeeded, message },
            None => JobAction::Nothing,
        };
    }
    let (Some(w), Some(v)) = (wl, view) else {
        // No Workload yet: make sure nothing runs, wait for the pods to go, then create it.
        if !is_suspended(job) {
            return suspend_only(job, NOT_ADMITTED);
        }
        return if live_pods(job) == 0 {
            JobAction::CreateWorkload
        } else {
            JobAction::Nothing
        };
    };
    // Upstream's ensureOneWorkload: a Job that no longer matches its Workload (pods changed
    // after admission) is stopped, and the Workload deleted so a new one is made; before
    // any quota is reserved for a suspended Job, the Workload is updated in place.
    match mismatch(job, w) {
        None => {}
        Some(Mismatch::Update(pod_sets)) => return JobAction::UpdatePodSets(pod_sets),
        Some(Mismatch::Recreate) => {
            if !is_suspended(job) {
                let stop = stop(job, w, NO_MATCHING_WORKLOAD);
                if stop != JobAction::Nothing {
                    return stop;
                }
            }
            return JobAction::DeleteWorkload;
        }
    }
    if let Some(message) = &v.evicted {
        let stop = stop(job, w, message);
        if stop != JobAction::Nothing {
            return stop;
        }
        return if v.has_reservation && live_pods(job) == 0 {
            JobAction::Release
        } else {
            JobAction::Nothing
        };
    }
    if is_suspended(job) {
        if v.admitted {
            return match start_patch(job, w, flavors) {
                Ok(patch) => JobAction::Start {
                    patch,
                    message: format!("Admitted by clusterQueue {}", admission_cq(w)),
                },
                Err(e) => JobAction::FailToStart(e),
            };
        }
        let queue = job
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(crate::api::QUEUE_NAME_LABEL));
        if let Some(q) =
            queue.filter(|q| !v.has_reservation && w.spec.queue_name.as_ref() != Some(*q))
        {
            return JobAction::ChangeQueue(q.clone());
        }
        return JobAction::Nothing;
    }
    if !v.admitted {
        return stop(job, w, NOT_ADMITTED);
    }
    // Admitted while a stop was cut short (suspended, the stopping annotation still on): the
    // stop is finished first (template restored, annotation dropped), then the Job starts
    // like any suspended one. Without this it would wait forever, neither running nor
    // counted as suspended.
    if job.spec.as_ref().and_then(|s| s.suspend) == Some(true) {
        return stop(job, w, NOT_ADMITTED);
    }
    JobAction::Nothing
}

fn admission_cq(wl: &Workload) -> String {
    wl.status
        .as_ref()
        .and_then(|s| s.admission.as_ref())
        .map(|a| a.cluster_queue.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
