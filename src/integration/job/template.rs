//! The writes that change a Job's pod template: upstream's `startJob` (the flavors' node
//! labels and tolerations injected, the podset label set, unsuspended) and `Job.Stop`
//! (suspended, `startTime` cleared, the template restored from the Workload once no pod is
//! active), as JSON merge patches guarded by the Job's resourceVersion. Under partial
//! admission (`kueue.x-k8s.io/job-min-parallelism`) the start sets the parallelism to the
//! admitted count and the restore puts back the count asked for.
//!
//! Invariants: a restore keeps the labels the Job controller owns ([`MANAGED_LABELS`]); a
//! node-selector key the Job already sets to another value is an error, never overwritten.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{PodTemplateSpec, Toleration};
use serde_json::{Map, Value, json};

use super::{JobAction, JobStep, MANAGED_LABELS, POD_SET_LABEL, STOPPING_ANNOTATION};
use crate::api::{ResourceFlavor, Workload};
use crate::manifests::job::{COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION, MIN_PARALLELISM_ANNOTATION};

fn rv(job: &Job) -> Value {
    json!(job.metadata.resource_version)
}

/// Suspends a Job that has no Workload to restore from.
pub(super) fn suspend_only(job: &Job, message: &str) -> JobAction {
    let steps = vec![JobStep::Patch(
        json!({ "metadata": { "resourceVersion": rv(job) }, "spec": { "suspend": true } }),
    )];
    JobAction::Stop {
        steps,
        message: message.to_string(),
        was_running: true,
    }
}

/// Upstream's `Job.Stop`: suspend (marking the stop in progress), clear `startTime`, and
/// restore the template from the Workload. The API server accepts the restore only once the
/// suspended Job has no active pods, so that part waits for a later pass. Nothing when all is
/// done (or when only the pods are still going).
pub fn stop(job: &Job, wl: &Workload, message: &str) -> JobAction {
    let mut steps = Vec::new();
    let suspended = job.spec.as_ref().and_then(|s| s.suspend).unwrap_or(false);
    if !suspended {
        steps.push(JobStep::Patch(json!({
            "metadata": { "resourceVersion": rv(job), "annotations": { STOPPING_ANNOTATION: "true" } },
            "spec": { "suspend": true },
        })));
    }
    let started = job
        .status
        .as_ref()
        .and_then(|s| s.start_time.as_ref())
        .is_some();
    if started || !suspended {
        steps.push(JobStep::PatchStatus(
            json!({ "status": { "startTime": null } }),
        ));
    }
    let active = job.status.as_ref().and_then(|s| s.active).unwrap_or(0);
    let stopping = job
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(STOPPING_ANNOTATION));
    if suspended && active == 0 {
        let restore = restore_patch(job, wl);
        if restore.is_some() || stopping {
            let mut patch = restore.unwrap_or_else(|| json!({}));
            let meta = patch
                .as_object_mut()
                .expect("object")
                .entry("metadata")
                .or_insert_with(|| json!({}));
            if stopping {
                meta["annotations"] = json!({ STOPPING_ANNOTATION: null });
            }
            if steps.is_empty() {
                meta["resourceVersion"] = rv(job);
                steps.push(JobStep::Patch(patch));
            } else {
                steps.push(JobStep::PatchAfter(patch));
            }
        }
    }
    if steps.is_empty() {
        return JobAction::Nothing;
    }
    JobAction::Stop {
        steps,
        message: message.to_string(),
        was_running: !suspended,
    }
}

/// A merge patch that turns map `from` into map `to` (null removes a key).
fn map_patch(from: &BTreeMap<String, String>, to: &BTreeMap<String, String>) -> Option<Value> {
    if from == to {
        return None;
    }
    let mut m = Map::new();
    for k in from.keys().filter(|k| !to.contains_key(*k)) {
        m.insert(k.clone(), Value::Null);
    }
    for (k, v) in to {
        if from.get(k) != Some(v) {
            m.insert(k.clone(), Value::String(v.clone()));
        }
    }
    Some(Value::Object(m))
}

fn template(job: &Job) -> PodTemplateSpec {
    job.spec
        .as_ref()
        .map(|s| s.template.clone())
        .unwrap_or_default()
}

fn labels(t: &PodTemplateSpec) -> BTreeMap<String, String> {
    t.metadata
        .as_ref()
        .and_then(|m| m.labels.clone())
        .unwrap_or_default()
}

fn annotations(t: &PodTemplateSpec) -> BTreeMap<String, String> {
    t.metadata
        .as_ref()
        .and_then(|m| m.annotations.clone())
        .unwrap_or_default()
}

fn node_selector(t: &PodTemplateSpec) -> BTreeMap<String, String> {
    t.spec
        .as_ref()
        .and_then(|s| s.node_selector.clone())
        .unwrap_or_default()
}

fn tolerations(t: &PodTemplateSpec) -> Vec<Toleration> {
    t.spec
        .as_ref()
        .and_then(|s| s.tolerations.clone())
        .unwrap_or_default()
}

/// Partial admission: the Job's `kueue.x-k8s.io/job-min-parallelism` annotation, and whether
/// `kueue.x-k8s.io/job-completions-equal-parallelism` asks completions to follow.
fn partial_admission(job: &Job) -> Option<bool> {
    let a = job.metadata.annotations.as_ref()?;
    a.get(MIN_PARALLELISM_ANNOTATION)?.parse::<i32>().ok()?;
    Some(
        a.get(COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION)
            .is_some_and(|v| parse_go_bool(v) == Some(true)),
    )
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Upstream's parallelism (and, when asked, completions) of a partially admissible Job set
/// to `count`; nothing for other Jobs or when it is already so.
fn parallelism_patch(job: &Job, count: i32, spec: &mut Map<String, Value>) {
    let Some(sync_completions) = partial_admission(job) else {
        return;
    };
    let current = job.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1);
    if current == count {
        return;
    }
    spec.insert("parallelism".into(), json!(count));
    if sync_completions {
        spec.insert("completions".into(), json!(count));
    }
}

/// The patch that puts back the Workload's original template (node selector, tolerations,
/// labels and annotations), keeping the labels the Job controller owns, and, after a partial
/// admission, the parallelism asked for. None when equal.
pub fn restore_patch(job: &Job, wl: &Workload) -> Option<Value> {
    let original = wl.spec.pod_sets.first()?.template.clone();
    let mut job_spec = Map::new();
    parallelism_patch(job, wl.spec.pod_sets.first()?.count, &mut job_spec);
    let current = template(job);
    let mut want_labels = labels(&original);
    for k in MANAGED_LABELS {
        if let Some(v) = labels(&current).get(k) {
            want_labels.insert(k.to_string(), v.clone());
        }
    }
    let mut meta = Map::new();
    if let Some(p) = map_patch(&labels(&current), &want_labels) {
        meta.insert("labels".into(), p);
    }
    if let Some(p) = map_patch(&annotations(&current), &annotations(&original)) {
        meta.insert("annotations".into(), p);
    }
    let mut spec = Map::new();
    if let Some(p) = map_patch(&node_selector(&current), &node_selector(&original)) {
        spec.insert("nodeSelector".into(), p);
    }
    if tolerations(&current) != tolerations(&original) {
        spec.insert("tolerations".into(), json!(tolerations(&original)));
    }
    if meta.is_empty() && spec.is_empty() && job_spec.is_empty() {
        return None;
    }
    let mut tpl = Map::new();
    if !meta.is_empty() {
        tpl.insert("metadata".into(), Value::Object(meta));
    }
    if !spec.is_empty() {
        tpl.insert("spec".into(), Value::Object(spec));
    }
    if !tpl.is_empty() {
        job_spec.insert("template".into(), Value::Object(tpl));
    }
    Some(json!({ "spec": job_spec }))
}

/// Upstream's `startJob` for a batch/v1 Job: merge the assigned flavors' node labels into the
/// node selector, add their tolerations (no duplicates) and the podset label, unsuspend. A
/// node-selector key the Job already sets to another value is a permanent error.
pub fn start_patch(
    job: &Job,
    wl: &Workload,
    flavors: &BTreeMap<String, ResourceFlavor>,
) -> Result<Value, String> {
    let admission = wl
        .status
        .as_ref()
        .and_then(|s| s.admission.as_ref())
        .ok_or("the workload has no admission")?;
    let psa = admission
        .pod_set_assignments
        .first()
        .ok_or("the admission has no podSet")?;
    let current = template(job);
    let mut selector = node_selector(&current);
    let mut tols = tolerations(&current);
    let mut seen = std::collections::BTreeSet::new();
    for flavor in psa.flavors.values() {
        if !seen.insert(flavor.clone()) {
            continue;
        }
        let Some(f) = flavors.get(flavor) else {
            return Err(format!("ResourceFlavor {flavor} not found"));
        };
        for (k, v) in &f.spec.node_labels {
            match selector.get(k) {
                Some(old) if old != v => {
                    return Err(format!(
                        "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for key={k}, value1={old}, value2={v}"
                    ));
                }
                _ => {
                    selector.insert(k.clone(), v.clone());
                }
            }
        }
        for t in &f.spec.tolerations {
            if !tols.contains(t) {
                tols.push(t.clone());
            }
        }
    }
    let mut tpl_spec = Map::new();
    if let Some(p) = map_patch(&node_selector(&current), &selector) {
        tpl_spec.insert("nodeSelector".into(), p);
    }
    if tols != tolerations(&current) {
        tpl_spec.insert("tolerations".into(), json!(tols));
    }
    let mut tpl = Map::new();
    tpl.insert(
        "metadata".into(),
        json!({ "labels": { POD_SET_LABEL: psa.name } }),
    );
    if !tpl_spec.is_empty() {
        tpl.insert("spec".into(), Value::Object(tpl_spec));
    }
    let mut job_spec = Map::new();
    job_spec.insert("suspend".into(), json!(false));
    job_spec.insert("template".into(), Value::Object(tpl));
    // Partial admission: as many pods as were admitted.
    if let Some(count) = psa.count {
        parallelism_patch(job, count, &mut job_spec);
    }
    Ok(json!({
        "metadata": { "resourceVersion": rv(job) },
        "spec": job_spec,
    }))
}
