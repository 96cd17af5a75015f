//! A Job's Workload priority as upstream's job framework resolves it (`ExtractPriority`):
//! the `kueue.x-k8s.io/priority-class` label names a WorkloadPriorityClass; without the
//! label, the pod template's `priorityClassName` names a scheduling.k8s.io PriorityClass;
//! without either, the PriorityClass marked `globalDefault` (the lowest value when several
//! are); with none of these, priority 0 and no class.
//!
//! Invariants: a named class that does not exist is a [`JobProblem`] (upstream's reconcile
//! fails and the Job gets no Workload until it exists), never a silent 0; the result is the
//! same for the controller and `simulate` because both call [`Priorities::resolve`].

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::job::JobProblem;
use crate::api::{PRIORITY_CLASS_LABEL, PriorityClassSource, WorkloadPriorityClass};

/// The priority classes a Workload's priority can come from, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Priorities {
    /// WorkloadPriorityClass values.
    pub workload: BTreeMap<String, i32>,
    /// scheduling.k8s.io PriorityClass values and whether each is `globalDefault`.
    pub pod: BTreeMap<String, (i32, bool)>,
}

/// What a Workload's spec says about its priority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPriority {
    pub class_name: Option<String>,
    pub value: i32,
    pub source: PriorityClassSource,
}

impl Priorities {
    /// From the objects (any order).
    pub fn new<'a>(
        workload: impl IntoIterator<Item = &'a WorkloadPriorityClass>,
        pod: impl IntoIterator<Item = &'a PriorityClass>,
    ) -> Priorities {
        let name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.name.clone().unwrap_or_default()
        };
        Priorities {
            workload: workload
                .into_iter()
                .map(|p| (name(&p.metadata), p.value))
                .collect(),
            pod: pod
                .into_iter()
                .map(|p| {
                    (
                        name(&p.metadata),
                        (p.value.unwrap_or(0), p.global_default == Some(true)),
                    )
                })
                .collect(),
        }
    }

    /// The classes `job` names, each with value 0: where the priority does not matter, only
    /// that the Workload can be built.
    pub fn any_class(job: &Job) -> Priorities {
        let mut p = Priorities::default();
        if let Some(pc) = label(job) {
            p.workload.insert(pc.to_string(), 0);
        }
        if let Some(pc) = pod_class_name(job) {
            p.pod.insert(pc.to_string(), (0, false));
        }
        p
    }

    /// The priority of `job`'s Workload.
    pub fn resolve(&self, job: &Job) -> Result<ResolvedPriority, JobProblem> {
        if let Some(pc) = label(job) {
            let value = *self
                .workload
                .get(pc)
                .ok_or_else(|| JobProblem::PriorityClassNotFound(pc.to_string()))?;
            return Ok(ResolvedPriority {
                class_name: Some(pc.to_string()),
                value,
                source: PriorityClassSource::WorkloadPriorityClass,
            });
        }
        if let Some(pc) = pod_class_name(job) {
            let (value, _) = *self
                .pod
                .get(pc)
                .ok_or_else(|| JobProblem::PodPriorityClassNotFound(pc.to_string()))?;
            return Ok(pod_class(pc, value));
        }
        // The global default with the lowest value (several may exist after a race).
        let default = self
            .pod
            .iter()
            .filter(|(_, (_, global))| *global)
            .min_by_key(|(name, (value, _))| (*value, (*name).clone()));
        Ok(match default {
            Some((name, (value, _))) => pod_class(name, *value),
            None => ResolvedPriority {
                class_name: None,
                value: 0,
                source: PriorityClassSource::Unset,
            },
        })
    }
}

fn pod_class(name: &str, value: i32) -> ResolvedPriority {
    ResolvedPriority {
        class_name: Some(name.to_string()),
        value,
        source: PriorityClassSource::PodPriorityClass,
    }
}

fn label(job: &Job) -> Option<&str> {
    job.metadata
        .labels
        .as_ref()?
        .get(PRIORITY_CLASS_LABEL)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// The pod template's `priorityClassName` (upstream takes the first podSet that has one;
/// a Job has one podSet).
fn pod_class_name(job: &Job) -> Option<&str> {
    job.spec
        .as_ref()?
        .template
        .spec
        .as_ref()?
        .priority_class_name
        .as_deref()
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(yaml: &str) -> Job {
        serde_yaml::from_str(yaml).unwrap()
    }

    fn classes() -> Priorities {
        let mut p = Priorities::default();
        p.workload.insert("gold".into(), 1000);
        p.pod.insert("high".into(), (500, false));
        p.pod.insert("base".into(), (10, true));
        p.pod.insert("base-low".into(), (5, true));
        p
    }

    #[test]
    fn the_label_wins_then_the_pod_class_then_the_global_default() {
        let labelled = job(
            "metadata: {name: j, labels: {kueue.x-k8s.io/priority-class: gold}}\nspec: {template: {spec: {priorityClassName: high, containers: []}}}",
        );
        let r = classes().resolve(&labelled).unwrap();
        assert_eq!(
            (r.class_name.as_deref(), r.value, r.source),
            (
                Some("gold"),
                1000,
                PriorityClassSource::WorkloadPriorityClass
            )
        );
        let pod = job(
            "metadata: {name: j}\nspec: {template: {spec: {priorityClassName: high, containers: []}}}",
        );
        let r = classes().resolve(&pod).unwrap();
        assert_eq!(
            (r.class_name.as_deref(), r.value, r.source),
            (Some("high"), 500, PriorityClassSource::PodPriorityClass)
        );
        let plain = job("metadata: {name: j}\nspec: {template: {spec: {containers: []}}}");
        let r = classes().resolve(&plain).unwrap();
        assert_eq!(
            (r.class_name.as_deref(), r.value, r.source),
            (Some("base-low"), 5, PriorityClassSource::PodPriorityClass)
        );
        let r = Priorities::default().resolve(&plain).unwrap();
        assert_eq!(
            (r.class_name, r.value, r.source),
            (None, 0, PriorityClassSource::Unset)
        );
    }

    #[test]
    fn a_missing_pod_class_is_a_problem() {
        let pod = job(
            "metadata: {name: j}\nspec: {template: {spec: {priorityClassName: nope, containers: []}}}",
        );
        assert_eq!(
            classes().resolve(&pod),
            Err(JobProblem::PodPriorityClassNotFound("nope".into()))
        );
        assert!(Priorities::any_class(&pod).resolve(&pod).is_ok());
    }
}
