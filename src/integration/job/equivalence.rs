//! Upstream's `EquivalentToWorkload` for a batch/v1 Job: does the Workload still stand for
//! the Job? The maximum execution time must be the same, and each podSet the same count,
//! `minCount`, containers and init containers, and tolerations (not compared once admitted:
//! admission adds the flavors'). A podSet with quota reserved is compared with what runs:
//! under partial admission, the count admitted (or, for a Job still suspended, the count
//! asked for).
//!
//! Invariant: labels, annotations and the node selector of the template are never compared
//! (admission changes them; upstream ignores them too).

use k8s_openapi::api::batch::v1::Job;

use crate::api::{PodSet, Workload};
use crate::manifests::job::MAX_EXEC_TIME_LABEL;
use crate::status::WorkloadView;

/// Does `wl` match `job` as upstream's job reconciler compares them?
pub fn equivalent(job: &Job, wl: &Workload) -> bool {
    let max_exec = job
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(MAX_EXEC_TIME_LABEL))
        .and_then(|v| v.parse::<i32>().ok());
    if max_exec != wl.spec.maximum_execution_time_seconds {
        return false;
    }
    let view = WorkloadView::of(wl);
    let want = super::job_pod_sets(job);
    if want.len() != wl.spec.pod_sets.len() {
        return false;
    }
    let admitted_counts: Vec<Option<i32>> = wl
        .spec
        .pod_sets
        .iter()
        .map(|ps| {
            let assignment = wl
                .status
                .as_ref()
                .and_then(|s| s.admission.as_ref())
                .filter(|_| view.has_reservation && ps.min_count.is_some())?
                .pod_set_assignments
                .iter()
                .find(|a| a.name == ps.name)?;
            assignment.count
        })
        .collect();
    let compare = |running: &[Option<i32>]| {
        want.iter()
            .zip(&wl.spec.pod_sets)
            .zip(running)
            .all(|((a, b), r)| same_pod_set(a, b, *r, view.admitted))
    };
    // A suspended Job (admitted, not started yet) is also compared with the Workload's own
    // counts, as upstream does.
    compare(&admitted_counts)
        || (super::is_suspended(job) && compare(&vec![None; admitted_counts.len()]))
}

fn same_pod_set(job: &PodSet, wl: &PodSet, running: Option<i32>, admitted: bool) -> bool {
    if job.count != running.unwrap_or(wl.count) || job.min_count != wl.min_count {
        return false;
    }
    let spec = |p: &PodSet| p.template.spec.clone().unwrap_or_default();
    let (a, b) = (spec(job), spec(wl));
    (admitted || a.tolerations == b.tolerations)
        && a.init_containers == b.init_containers
        && a.containers == b.containers
}
