//! batch/v1 Jobs turned into Workloads the way upstream's Job integration builds them:
//! name `job-<name>-<hash>`, one podSet `main` from the pod template, count
//! `min(parallelism, completions)`, owner reference, job-uid label, and priority from the
//! `kueue.x-k8s.io/priority-class` label.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use sha1::{Digest, Sha1};

use crate::api::{
    PRIORITY_CLASS_LABEL, PodSet, PriorityClassSource, QUEUE_NAME_LABEL, Workload, WorkloadSpec,
};

/// Label carrying the owning Job's UID on its Workload.
pub const JOB_UID_LABEL: &str = "kueue.x-k8s.io/job-uid";
/// Annotation enabling partial admission down to this parallelism.
pub const MIN_PARALLELISM_ANNOTATION: &str = "kueue.x-k8s.io/job-min-parallelism";
/// Finalizer upstream puts on Workloads that hold quota.
pub const RESOURCE_IN_USE_FINALIZER: &str = "kueue.x-k8s.io/resource-in-use";

/// Labels the Job controller adds to pod templates; upstream drops them from the podSet.
const JOB_CONTROLLER_LABELS: [&str; 2] = ["controller-uid", "batch.kubernetes.io/controller-uid"];

/// Upstream's Workload name for a Job: `job-<name>-<first 5 hex of sha1(kind, group, name, uid)>`,
/// with the prefix cut to fit a 253-character name.
pub fn workload_name_for_job(job_name: &str, job_uid: &str) -> String {
    let mut h = Sha1::new();
    h.update(format!("Job\nbatch\n{job_name}\n{job_uid}").as_bytes());
    let digest = h.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let mut prefix = format!("job-{job_name}").to_lowercase();
    prefix.truncate(253 - 1 - 5);
    format!("{prefix}-{}", &hex[..5])
}

/// Why a Job gets no Workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobProblem {
    /// The priority-class label names a WorkloadPriorityClass that does not exist.
    PriorityClassNotFound(String),
}

/// The Workload upstream would create for `job`, given the WorkloadPriorityClasses by name.
pub fn workload_for_job(
    job: &Job,
    priority_classes: &BTreeMap<String, i32>,
) -> Result<Workload, JobProblem> {
    let meta = &job.metadata;
    let name = meta.name.clone().unwrap_or_default();
    let uid = meta.uid.clone().unwrap_or_default();
    let labels = meta.labels.clone().unwrap_or_default();
    let spec = job.spec.clone().unwrap_or_default();
    let mut template = spec.template.clone();
    if let Some(l) = template.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        for k in JOB_CONTROLLER_LABELS {
            l.remove(k);
        }
    }
    let parallelism = spec.parallelism.unwrap_or(1);
    let count = match spec.completions {
        Some(c) => parallelism.min(c),
        None => parallelism,
    };
    let mut pod_set = PodSet::new("main", count, template);
    pod_set.min_count = meta
        .annotations
        .as_ref()
        .and_then(|a| a.get(MIN_PARALLELISM_ANNOTATION))
        .and_then(|v| v.parse::<i32>().ok());
    let (priority_class_name, priority, priority_class_source) =
        match labels.get(PRIORITY_CLASS_LABEL) {
            Some(pc) => {
                let value = *priority_classes
                    .get(pc)
                    .ok_or_else(|| JobProblem::PriorityClassNotFound(pc.clone()))?;
                (
                    Some(pc.clone()),
                    Some(value),
                    PriorityClassSource::WorkloadPriorityClass,
                )
            }
            None => (None, None, PriorityClassSource::Unset),
        };
    let mut wl_labels = BTreeMap::new();
    if !uid.is_empty() {
        wl_labels.insert(JOB_UID_LABEL.to_string(), uid.clone());
    }
    let metadata = ObjectMeta {
        name: Some(workload_name_for_job(&name, &uid)),
        namespace: Some(
            meta.namespace
                .clone()
                .unwrap_or_else(|| "default".to_string()),
        ),
        labels: (!wl_labels.is_empty()).then_some(wl_labels),
        creation_timestamp: meta.creation_timestamp.clone(),
        owner_references: Some(vec![OwnerReference {
            api_version: "batch/v1".to_string(),
            kind: "Job".to_string(),
            name: name.clone(),
            uid,
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]),
        finalizers: Some(vec![RESOURCE_IN_USE_FINALIZER.to_string()]),
        ..Default::default()
    };
    let spec = WorkloadSpec {
        pod_sets: vec![pod_set],
        queue_name: labels.get(QUEUE_NAME_LABEL).cloned(),
        priority_class_name,
        priority,
        priority_class_source,
        active: true,
        maximum_execution_time_seconds: labels
            .get("kueue.x-k8s.io/max-exec-time-seconds")
            .and_then(|v| v.parse().ok()),
    };
    Ok(Workload {
        metadata,
        spec,
        status: None,
    })
}

/// Does `wl` belong to `job` (owner reference, or the name upstream would give it)?
pub fn workload_belongs_to(wl: &Workload, job: &Job) -> bool {
    let job_name = job.metadata.name.as_deref().unwrap_or("");
    let job_uid = job.metadata.uid.as_deref().unwrap_or("");
    if wl.metadata.namespace.as_deref().unwrap_or("default")
        != job.metadata.namespace.as_deref().unwrap_or("default")
    {
        return false;
    }
    let owned = wl.metadata.owner_references.iter().flatten().any(|o| {
        o.kind == "Job"
            && o.name == job_name
            && (job_uid.is_empty() || o.uid.is_empty() || o.uid == job_uid)
    });
    owned || wl.metadata.name.as_deref() == Some(workload_name_for_job(job_name, job_uid).as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_upstreams_test_vectors() {
        assert_eq!(workload_name_for_job("name", "uid"), "job-name-ef3a1");
    }

    #[test]
    fn count_is_min_of_parallelism_and_completions() {
        let job: Job = serde_yaml::from_str(
            "metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}\nspec:\n  parallelism: 4\n  completions: 2\n  template: {spec: {containers: [{name: c}]}}\n",
        )
        .unwrap();
        let wl = workload_for_job(&job, &BTreeMap::new()).unwrap();
        assert_eq!(wl.spec.pod_sets[0].count, 2);
        assert_eq!(wl.spec.queue_name.as_deref(), Some("q"));
    }

    #[test]
    fn a_missing_priority_class_gives_no_workload() {
        let job: Job = serde_yaml::from_str(
            "metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: gold}}\nspec: {template: {spec: {containers: [{name: c}]}}}\n",
        )
        .unwrap();
        assert_eq!(
            workload_for_job(&job, &BTreeMap::new()),
            Err(JobProblem::PriorityClassNotFound("gold".into()))
        );
    }
}
