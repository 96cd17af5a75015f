//! batch/v1 Jobs turned into Workloads the way upstream's Job integration builds them:
//! name `job-<name>-<hash>`, one podSet `main` from the pod template, count
//! `min(parallelism, completions)`, owner reference, job-uid label, and priority as
//! [`Priorities::resolve`] says (WorkloadPriorityClass label, pod PriorityClass, default). And Jobs made ready for Kueue, as `submit` sends
//! them: read from files or built from flags ([`JobFlags`]), then [`prepare_job`]: the queue
//! label, `suspend: true`, limits of extended resources filled from their requests.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use sha1::{Digest, Sha1};

use crate::api::{PRIORITY_CLASS_LABEL, PodSet, QUEUE_NAME_LABEL, Workload, WorkloadSpec};
use crate::manifests::key::namespace_of;
use crate::manifests::priority::Priorities;

/// Label carrying the owning Job's UID on its Workload.
pub const JOB_UID_LABEL: &str = "kueue.x-k8s.io/job-uid";
/// Annotation enabling partial admission down to this parallelism.
pub const MIN_PARALLELISM_ANNOTATION: &str = "kueue.x-k8s.io/job-min-parallelism";
/// Annotation making a partially admitted Job's completions follow its parallelism.
pub const COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION: &str =
    "kueue.x-k8s.io/job-completions-equal-parallelism";
/// Label giving a Job's Workload its `spec.maximumExecutionTimeSeconds`.
pub const MAX_EXEC_TIME_LABEL: &str = "kueue.x-k8s.io/max-exec-time-seconds";
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
    /// The pod template's `priorityClassName` names a PriorityClass that does not exist.
    PodPriorityClassNotFound(String),
}

impl JobProblem {
    /// The reason (simulate's rejected Job, the controller's Warning event).
    pub fn reason(&self) -> &'static str {
        match self {
            JobProblem::PriorityClassNotFound(_) => "WorkloadPriorityClassNotFound",
            JobProblem::PodPriorityClassNotFound(_) => "PriorityClassNotFound",
        }
    }

    /// The message: the API server's NotFound for the class upstream's lookup fails on.
    pub fn message(&self) -> String {
        match self {
            JobProblem::PriorityClassNotFound(pc) => {
                format!("workloadPriorityClass \"{pc}\" not found")
            }
            JobProblem::PodPriorityClassNotFound(pc) => {
                format!("priorityclasses.scheduling.k8s.io \"{pc}\" not found")
            }
        }
    }
}

/// The Workload upstream would create for `job`, given the priority classes.
pub fn workload_for_job(job: &Job, priorities: &Priorities) -> Result<Workload, JobProblem> {
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
    let priority = priorities.resolve(job)?;
    let mut wl_labels = BTreeMap::new();
    if !uid.is_empty() {
        wl_labels.insert(JOB_UID_LABEL.to_string(), uid.clone());
    }
    let metadata = ObjectMeta {
        name: Some(workload_name_for_job(&name, &uid)),
        namespace: Some(namespace_of(meta).to_string()),
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
        priority_class_name: priority.class_name,
        priority: Some(priority.value),
        priority_class_source: priority.source,
        active: true,
        maximum_execution_time_seconds: labels
            .get(MAX_EXEC_TIME_LABEL)
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
    if namespace_of(&wl.metadata) != namespace_of(&job.metadata) {
        return false;
    }
    let owned = wl.metadata.owner_references.iter().flatten().any(|o| {
        o.kind == "Job"
            && o.name == job_name
            && (job_uid.is_empty() || o.uid.is_empty() || o.uid == job_uid)
    });
    owned || wl.metadata.name.as_deref() == Some(workload_name_for_job(job_name, job_uid).as_str())
}

/// A Job that cannot be submitted as given, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JobError(pub String);

fn fail<T>(message: String) -> Result<T, JobError> {
    Err(JobError(message))
}

/// Resources whose requests need equal limits: extended resources (a domain-prefixed name
/// outside `kubernetes.io`), as the API server's validation defines them.
pub fn is_extended(resource: &str) -> bool {
    match resource.split_once('/') {
        Some((domain, _)) => {
            !(domain == "kubernetes.io"
                || domain.ends_with(".kubernetes.io")
                || domain.starts_with("requests."))
        }
        None => false,
    }
}

/// Makes a Job ready for Kueue: queue (and priority) label, `suspend: true`, limits of
/// extended resources from requests. Returns what was changed (`spec.suspend=true`, ...).
pub fn prepare_job(
    job: &mut Job,
    queue: Option<&str>,
    priority: Option<&str>,
) -> Result<Vec<String>, JobError> {
    let name = job
        .metadata
        .name
        .clone()
        .or_else(|| job.metadata.generate_name.clone())
        .unwrap_or_default();
    let labels = job.metadata.labels.get_or_insert_with(BTreeMap::new);
    if let Some(q) = queue {
        labels.insert(QUEUE_NAME_LABEL.to_string(), q.to_string());
    }
    if !labels.contains_key(QUEUE_NAME_LABEL) {
        return fail(format!(
            "Job {name} has no queue: pass --queue LOCALQUEUE or set the label {QUEUE_NAME_LABEL} (kubectl kueue list localqueue shows the queues)"
        ));
    }
    if let Some(p) = priority {
        labels.insert(PRIORITY_CLASS_LABEL.to_string(), p.to_string());
    }
    let Some(spec) = job.spec.as_mut() else {
        return fail(format!("Job {name} has no spec"));
    };
    let mut changes = Vec::new();
    if spec.suspend != Some(true) {
        spec.suspend = Some(true);
        changes.push("spec.suspend=true".to_string());
    }
    let Some(pod) = spec.template.spec.as_mut() else {
        return fail(format!("Job {name} has no spec.template.spec"));
    };
    let mut fill = |kind: &str, cs: &mut Vec<Container>| {
        for (i, c) in cs.iter_mut().enumerate() {
            let Some(res) = c.resources.as_mut() else {
                continue;
            };
            let requests = res.requests.clone().unwrap_or_default();
            let limits = res.limits.get_or_insert_with(BTreeMap::new);
            for (r, q) in requests.iter().filter(|(r, _)| is_extended(r)) {
                if !limits.contains_key(r) {
                    limits.insert(r.clone(), q.clone());
                    changes.push(format!(
                        "spec.template.spec.{kind}[{i}].resources.limits[{r}]={}",
                        q.0
                    ));
                }
            }
        }
    };
    fill("containers", &mut pod.containers);
    if let Some(init) = pod.init_containers.as_mut() {
        fill("initContainers", init);
    }
    Ok(changes)
}

/// A Job described by `submit`'s flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobFlags {
    /// Without an image there is no Job from flags (it comes from files).
    pub image: Option<String>,
    /// The Job's name; without one, `generateName` from the image.
    pub name: Option<String>,
    /// GPUs per pod (none or 0: no GPU request).
    pub gpus: Option<u32>,
    pub gpu_resource: String,
    /// CPU and memory requests per pod, as Kubernetes quantities.
    pub cpu: Option<String>,
    pub memory: Option<String>,
    pub parallelism: Option<i32>,
    pub completions: Option<i32>,
    /// The container's command and arguments.
    pub command: Vec<String>,
}

impl JobFlags {
    /// The first flag given that describes a Job from flags, other than the image (they are
    /// an error with `-f`).
    pub fn first_given(&self) -> Option<&'static str> {
        [
            ("--name", self.name.is_some()),
            ("--gpus", self.gpus.is_some()),
            ("--cpu", self.cpu.is_some()),
            ("--memory", self.memory.is_some()),
            ("--parallelism", self.parallelism.is_some()),
            ("--completions", self.completions.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }

    /// The Job: one container `main`, `restartPolicy: Never`, the requests given. Quantities
    /// are checked here, so a mistake names the flag.
    pub fn job(&self) -> Result<Job, JobError> {
        let Some(image) = &self.image else {
            return fail("a Job from flags needs --image".into());
        };
        let mut requests = BTreeMap::new();
        for (flag, resource, value) in [
            ("--cpu", "cpu", &self.cpu),
            ("--memory", "memory", &self.memory),
        ] {
            if let Some(v) = value {
                crate::scheduler::quantity::parse_amount(resource, v)
                    .map_err(|e| JobError(format!("{flag} {v:?}: {e}")))?;
                requests.insert(resource.to_string(), Quantity(v.clone()));
            }
        }
        if let Some(g) = self.gpus.filter(|g| *g > 0) {
            requests.insert(self.gpu_resource.clone(), Quantity(g.to_string()));
        }
        let container = Container {
            name: "main".into(),
            image: Some(image.clone()),
            command: (!self.command.is_empty()).then(|| self.command.clone()),
            resources: (!requests.is_empty()).then(|| ResourceRequirements {
                requests: Some(requests),
                ..Default::default()
            }),
            ..Default::default()
        };
        let metadata = match &self.name {
            Some(n) => ObjectMeta {
                name: Some(n.clone()),
                ..Default::default()
            },
            None => ObjectMeta {
                generate_name: Some(format!("{}-", name_base(image))),
                ..Default::default()
            },
        };
        Ok(Job {
            metadata,
            spec: Some(JobSpec {
                parallelism: self.parallelism,
                completions: self.completions,
                template: PodTemplateSpec {
                    metadata: None,
                    spec: Some(PodSpec {
                        restart_policy: Some("Never".into()),
                        containers: vec![container],
                        ..Default::default()
                    }),
                },
                ..Default::default()
            }),
            status: None,
        })
    }
}

/// A name from an image (`registry/team/training:v2` gives `training`), at most 40
/// characters of `a-z0-9-`; `job` when nothing is left.
fn name_base(image: &str) -> String {
    let base = image.rsplit('/').next().unwrap_or(image);
    let base = base.split([':', '@']).next().unwrap_or(base);
    let mut base: String = base
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    base.truncate(40);
    let base = base.trim_matches('-');
    if base.is_empty() {
        "job".into()
    } else {
        base.to_string()
    }
}

/// The batch/v1 Jobs in documents read from files: any other kind, or a Job without a name,
/// is an error naming the file and document.
pub fn jobs_in(docs: Vec<super::documents::Document>) -> Result<Vec<Job>, JobError> {
    let mut jobs = Vec::new();
    for d in docs {
        let field = |k: &str| d.value.get(k).and_then(|v| v.as_str()).unwrap_or("");
        let (api_version, kind) = (field("apiVersion"), field("kind"));
        if (api_version, kind) != ("batch/v1", "Job") {
            let what = if kind.is_empty() {
                "a document without kind".to_string()
            } else {
                format!("{api_version} {kind}")
            };
            return fail(format!(
                "{}: {what}: submit takes batch/v1 Jobs only (apply other objects with kubectl apply)",
                d.origin
            ));
        }
        let job: Job = crate::api::from_value(d.value.clone())
            .map_err(|e| JobError(format!("{}: Job: {}: {}", d.origin, e.path, e.message)))?;
        if job.metadata.name.is_none() && job.metadata.generate_name.is_none() {
            return fail(format!(
                "{}: Job: metadata.name: missing required field",
                d.origin
            ));
        }
        jobs.push(job);
    }
    Ok(jobs)
}

/// The value of one of a Job's labels.
pub fn label<'a>(job: &'a Job, key: &str) -> Option<&'a str> {
    job.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

/// The namespace a Job is submitted to: its own, which must match `-n` when both are given,
/// else the connection's `default`.
pub fn submit_namespace(job: &Job, flag: Option<&str>, default: &str) -> Result<String, JobError> {
    match (job.metadata.namespace.as_deref(), flag) {
        (Some(j), Some(flag)) if j != flag => fail(format!(
            "the namespace of Job {} ({j}) does not match -n {flag}: drop metadata.namespace from the file or -n",
            job.metadata.name.as_deref().unwrap_or("")
        )),
        (Some(j), _) => Ok(j.to_string()),
        (None, _) => Ok(default.to_string()),
    }
}

/// A Job as the `index`-th document (1-based) of `file`, ordered after everything else:
/// how `submit --dry-run` adds it to the cluster's picture.
pub fn job_document(job: &Job, file: &str, index: usize) -> super::documents::Document {
    let mut value = serde_json::to_value(job).unwrap_or_default();
    value["apiVersion"] = "batch/v1".into();
    value["kind"] = "Job".into();
    super::documents::Document {
        origin: super::Origin {
            file: file.into(),
            document: index,
            order: usize::MAX - 1,
        },
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_job() -> Job {
        serde_yaml::from_str(include_str!(
            "../../examples/gpu-two-teams/jobs/weekly-retrain.yaml"
        ))
        .unwrap()
    }

    #[test]
    fn prepares_the_seed_job_for_kueue() {
        let mut job = seed_job();
        let changes = prepare_job(&mut job, None, None).unwrap();
        let spec = job.spec.as_ref().unwrap();
        assert_eq!(spec.suspend, Some(true));
        let c = &spec.template.spec.as_ref().unwrap().containers[0];
        let limits = c.resources.as_ref().unwrap().limits.as_ref().unwrap();
        assert_eq!(limits["nvidia.com/gpu"], Quantity("2".into()));
        assert!(
            changes
                .iter()
                .any(|c| c.contains("limits[nvidia.com/gpu]=2")),
            "{changes:?}"
        );
        assert_eq!(
            job.metadata.labels.as_ref().unwrap()[QUEUE_NAME_LABEL],
            "training-queue"
        );
    }

    #[test]
    fn flags_override_labels_and_a_queue_is_required() {
        let mut job = seed_job();
        prepare_job(&mut job, Some("other"), Some("experiment")).unwrap();
        let l = job.metadata.labels.as_ref().unwrap();
        assert_eq!(
            (
                l[QUEUE_NAME_LABEL].as_str(),
                l[PRIORITY_CLASS_LABEL].as_str()
            ),
            ("other", "experiment")
        );
        let mut job = seed_job();
        job.metadata.labels = None;
        let e = prepare_job(&mut job, None, None).unwrap_err().to_string();
        assert!(e.contains("--queue") && e.contains("weekly-retrain"), "{e}");
    }

    #[test]
    fn only_extended_resources_get_limits() {
        assert!(is_extended("nvidia.com/gpu"));
        assert!(is_extended("example.com/fpga"));
        assert!(!is_extended("cpu"));
        assert!(!is_extended("memory"));
        assert!(!is_extended("kubernetes.io/something"));
    }

    #[test]
    fn a_job_from_flags_is_what_the_flags_say() {
        let flags = JobFlags {
            image: Some("registry.example/team/Training:v2".into()),
            gpus: Some(1),
            gpu_resource: "nvidia.com/gpu".into(),
            cpu: Some("4".into()),
            parallelism: Some(2),
            command: vec!["python".into(), "train.py".into()],
            ..Default::default()
        };
        let job = flags.job().unwrap();
        assert_eq!(job.metadata.generate_name.as_deref(), Some("training-"));
        let spec = job.spec.unwrap();
        assert_eq!(spec.parallelism, Some(2));
        let pod = spec.template.spec.unwrap();
        assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
        let c = &pod.containers[0];
        assert_eq!(c.command.as_ref().unwrap(), &["python", "train.py"]);
        let req = c.resources.as_ref().unwrap().requests.as_ref().unwrap();
        assert_eq!(req["nvidia.com/gpu"].0, "1");
        assert_eq!(req["cpu"].0, "4");
        let bad = JobFlags {
            memory: Some("lots".into()),
            ..flags
        };
        assert!(
            bad.job()
                .unwrap_err()
                .to_string()
                .contains("--memory \"lots\"")
        );
        assert_eq!(name_base("///"), "job");
        assert_eq!(bad.first_given(), Some("--gpus"));
        assert_eq!(JobFlags::default().first_given(), None);
    }

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
        let wl = workload_for_job(&job, &Priorities::default()).unwrap();
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
            workload_for_job(&job, &Priorities::default()),
            Err(JobProblem::PriorityClassNotFound("gold".into()))
        );
    }
}
