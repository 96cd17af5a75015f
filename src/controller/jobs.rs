//! The batch/v1 Job integration as upstream's job reconciler runs it (pure decisions): a
//! queue-labelled Job gets a Workload owned by it, stays suspended until that Workload is
//! admitted, then starts with the flavors' node labels and tolerations injected; on eviction
//! it is suspended and its pod template restored, and once its pods are gone the Workload's
//! reservation is released; when the Job completes or fails the Workload is finished.
//!
//! [`decide`] looks at one Job, its Workload (the newest known version) and the flavors, and
//! says what to do next; the controller loop performs it and calls `decide` again when
//! anything changes, so each step is idempotent.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{PodTemplateSpec, Toleration};
use serde_json::{Map, Value, json};

use crate::api::workload_status::condition;
use crate::api::{ResourceFlavor, Workload};

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
pub const FAILED_TO_START: &str = "FailedToStart";

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

/// What the Workload says, for the Job's sake.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkloadView {
    /// `QuotaReserved=True` with an admission, `Admitted=True`.
    pub admitted: bool,
    pub has_reservation: bool,
    /// `Evicted=True`, with its message.
    pub evicted: Option<String>,
    pub finished: bool,
    pub deleting: bool,
}

impl WorkloadView {
    pub fn of(wl: &Workload) -> WorkloadView {
        let st = wl.status.clone().unwrap_or_default();
        let has_reservation =
            st.admission.is_some() && st.condition_is_true(condition::QUOTA_RESERVED);
        WorkloadView {
            admitted: has_reservation && st.condition_is_true(condition::ADMITTED),
            has_reservation,
            evicted: st
                .condition(condition::EVICTED)
                .filter(|c| c.status == "True")
                .map(|c| c.message.clone()),
            finished: st.condition_is_true(condition::FINISHED),
            deleting: wl.metadata.deletion_timestamp.is_some(),
        }
    }
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
}

/// The podSets the Job asks for now (as its Workload would be built).
pub fn job_pod_sets(job: &Job) -> Vec<crate::api::PodSet> {
    // The priority does not matter here; any class name resolves.
    let mut classes = BTreeMap::new();
    if let Some(pc) = job
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(crate::api::PRIORITY_CLASS_LABEL))
    {
        classes.insert(pc.clone(), 0);
    }
    crate::manifests::job::workload_for_job(job, &classes)
        .map(|w| w.spec.pod_sets)
        .unwrap_or_default()
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
        if !v.has_reservation {
            let want = job_pod_sets(job);
            if !want.is_empty() && want != w.spec.pod_sets {
                return JobAction::UpdatePodSets(want);
            }
        }
        return JobAction::Nothing;
    }
    if !v.admitted {
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

fn rv(job: &Job) -> Value {
    json!(job.metadata.resource_version)
}

/// Suspends a Job that has no Workload to restore from.
fn suspend_only(job: &Job, message: &str) -> JobAction {
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

/// The patch that puts back the Workload's original template (node selector, tolerations,
/// labels and annotations), keeping the labels the Job controller owns. None when equal.
pub fn restore_patch(job: &Job, wl: &Workload) -> Option<Value> {
    let original = wl.spec.pod_sets.first()?.template.clone();
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
    if meta.is_empty() && spec.is_empty() {
        return None;
    }
    let mut tpl = Map::new();
    if !meta.is_empty() {
        tpl.insert("metadata".into(), Value::Object(meta));
    }
    if !spec.is_empty() {
        tpl.insert("spec".into(), Value::Object(spec));
    }
    Some(json!({ "spec": { "template": tpl } }))
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
    Ok(json!({
        "metadata": { "resourceVersion": rv(job) },
        "spec": { "suspend": false, "template": tpl },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifests::job::workload_for_job;

    fn job(yaml: &str) -> Job {
        serde_yaml::from_str(yaml).unwrap()
    }

    const JOB: &str = r#"
metadata: {name: exp, namespace: team-a, uid: u1, resourceVersion: "7", labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  suspend: true
  template:
    metadata: {labels: {job-name: exp, controller-uid: u1, app: x}}
    spec:
      nodeSelector: {zone: a}
      containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
"#;

    fn flavors() -> BTreeMap<String, ResourceFlavor> {
        let f: ResourceFlavor = serde_yaml::from_str(
            "metadata: {name: gpu-a100}\nspec:\n  nodeLabels: {gpu-type: a100}\n  tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n",
        )
        .unwrap();
        BTreeMap::from([("gpu-a100".to_string(), f)])
    }

    fn workload(j: &Job) -> Workload {
        workload_for_job(j, &BTreeMap::new()).unwrap()
    }

    fn admitted(mut w: Workload) -> Workload {
        let mut st = crate::api::WorkloadStatus::default();
        let adm = crate::scheduler::model::Admission {
            cluster_queue: "team-a-queue".into(),
            pod_sets: vec![crate::scheduler::model::PodSetAdmission {
                name: "main".into(),
                flavors: BTreeMap::from([("nvidia.com/gpu".to_string(), "gpu-a100".to_string())]),
                resource_usage: BTreeMap::from([("nvidia.com/gpu".to_string(), 1)]),
                count: 1,
            }],
        };
        crate::status::admit(&mut st, &adm, 0);
        w.status = Some(st);
        w
    }

    #[test]
    fn a_suspended_job_without_workload_gets_one() {
        let j = job(JOB);
        assert_eq!(decide(&j, None, &flavors()), JobAction::CreateWorkload);
    }

    #[test]
    fn a_running_job_without_workload_is_suspended_first() {
        let mut j = job(JOB);
        j.spec.as_mut().unwrap().suspend = Some(false);
        match decide(&j, None, &flavors()) {
            JobAction::Stop { steps, message, .. } => {
                assert_eq!(message, NOT_ADMITTED);
                assert_eq!(
                    steps[0],
                    JobStep::Patch(
                        json!({"metadata": {"resourceVersion": "7"}, "spec": {"suspend": true}})
                    )
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn admission_injects_flavor_and_unsuspends() {
        let j = job(JOB);
        let w = admitted(workload(&j));
        let JobAction::Start { patch, message } = decide(&j, Some(&w), &flavors()) else {
            panic!()
        };
        assert_eq!(message, "Admitted by clusterQueue team-a-queue");
        assert_eq!(patch["spec"]["suspend"], json!(false));
        assert_eq!(
            patch["spec"]["template"]["spec"]["nodeSelector"],
            json!({"gpu-type": "a100"})
        );
        assert_eq!(
            patch["spec"]["template"]["spec"]["tolerations"][0]["key"],
            json!("gpu")
        );
        assert_eq!(
            patch["spec"]["template"]["metadata"]["labels"][POD_SET_LABEL],
            json!("main")
        );
        assert_eq!(patch["metadata"]["resourceVersion"], json!("7"));
    }

    #[test]
    fn a_conflicting_node_selector_cannot_start() {
        let mut j = job(JOB);
        j.spec
            .as_mut()
            .unwrap()
            .template
            .spec
            .as_mut()
            .unwrap()
            .node_selector = Some(BTreeMap::from([(
            "gpu-type".to_string(),
            "h100".to_string(),
        )]));
        let w = admitted(workload(&j));
        assert!(
            matches!(decide(&j, Some(&w), &flavors()), JobAction::FailToStart(m) if m.contains("key=gpu-type, value1=h100, value2=a100"))
        );
    }

    fn running_injected(j: &Job) -> Job {
        let mut r = j.clone();
        let spec = r.spec.as_mut().unwrap();
        spec.suspend = Some(false);
        let t = spec.template.spec.as_mut().unwrap();
        t.node_selector
            .as_mut()
            .unwrap()
            .insert("gpu-type".into(), "a100".into());
        t.tolerations = Some(vec![
            serde_json::from_value(
                json!({"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}),
            )
            .unwrap(),
        ]);
        spec.template
            .metadata
            .as_mut()
            .unwrap()
            .labels
            .as_mut()
            .unwrap()
            .insert(POD_SET_LABEL.into(), "main".into());
        r.status = Some(
            serde_json::from_value(json!({"active": 1, "startTime": "2026-01-01T00:00:00Z"}))
                .unwrap(),
        );
        r
    }

    #[test]
    fn eviction_stops_restores_and_then_releases() {
        let j = job(JOB);
        let mut w = admitted(workload(&j));
        crate::status::evict(
            w.status.as_mut().unwrap(),
            crate::scheduler::PreemptionReason::InClusterQueue,
            "Preempted to accommodate",
            0,
        );
        let running = running_injected(&j);
        let JobAction::Stop {
            steps,
            message,
            was_running,
        } = decide(&running, Some(&w), &flavors())
        else {
            panic!()
        };
        assert!(was_running);
        assert_eq!(message, "Preempted to accommodate");
        assert_eq!(
            steps,
            vec![
                JobStep::Patch(
                    json!({"metadata": {"resourceVersion": "7", "annotations": {STOPPING_ANNOTATION: "true"}}, "spec": {"suspend": true}})
                ),
                JobStep::PatchStatus(json!({"status": {"startTime": null}})),
            ]
        );

        // Suspended, pods still active: the template cannot change yet.
        let mut suspending = running.clone();
        suspending.spec.as_mut().unwrap().suspend = Some(true);
        suspending.metadata.annotations = Some(BTreeMap::from([(
            STOPPING_ANNOTATION.to_string(),
            "true".to_string(),
        )]));
        suspending.status = Some(serde_json::from_value(json!({"active": 1})).unwrap());
        assert_eq!(
            decide(&suspending, Some(&w), &flavors()),
            JobAction::Nothing
        );
        // No active pods: restore the template and end the stop.
        suspending.status =
            Some(serde_json::from_value(json!({"active": 0, "terminating": 1})).unwrap());
        let JobAction::Stop {
            steps, was_running, ..
        } = decide(&suspending, Some(&w), &flavors())
        else {
            panic!()
        };
        assert!(!was_running);
        let JobStep::Patch(restore) = &steps[0] else {
            panic!()
        };
        assert_eq!(
            restore["spec"]["template"]["spec"]["nodeSelector"],
            json!({"gpu-type": null})
        );
        assert_eq!(
            restore["spec"]["template"]["spec"]["tolerations"],
            json!([])
        );
        assert_eq!(
            restore["spec"]["template"]["metadata"]["labels"],
            json!({POD_SET_LABEL: null})
        );
        assert_eq!(
            restore["metadata"]["annotations"],
            json!({STOPPING_ANNOTATION: null})
        );
        assert_eq!(restore["metadata"]["resourceVersion"], json!("7"));

        // Stopped and restored, pods still terminating: wait. Pods gone: release.
        let mut stopped = j.clone();
        stopped.status =
            Some(serde_json::from_value(json!({"active": 0, "terminating": 1})).unwrap());
        assert_eq!(decide(&stopped, Some(&w), &flavors()), JobAction::Nothing);
        stopped.status =
            Some(serde_json::from_value(json!({"active": 0, "terminating": 0})).unwrap());
        assert_eq!(decide(&stopped, Some(&w), &flavors()), JobAction::Release);
    }

    #[test]
    fn a_running_job_whose_workload_lost_its_admission_is_stopped() {
        let j = job(JOB);
        let w = workload(&j);
        let running = running_injected(&j);
        assert!(
            matches!(decide(&running, Some(&w), &flavors()), JobAction::Stop { message, .. } if message == NOT_ADMITTED)
        );
    }

    #[test]
    fn completion_finishes_the_workload_then_drops_the_finalizer() {
        let mut j = running_injected(&job(JOB));
        j.status = Some(
            serde_json::from_value(
                json!({"conditions": [{"type": "Complete", "status": "True", "message": "done"}]}),
            )
            .unwrap(),
        );
        let mut w = admitted(workload(&j));
        assert_eq!(
            decide(&j, Some(&w), &flavors()),
            JobAction::Finish {
                succeeded: true,
                message: "done".into()
            }
        );
        crate::status::finish(w.status.as_mut().unwrap(), "Succeeded", "done", 0);
        assert_eq!(decide(&j, Some(&w), &flavors()), JobAction::RemoveFinalizer);
        w.metadata.finalizers = None;
        assert_eq!(decide(&j, Some(&w), &flavors()), JobAction::Nothing);
    }

    #[test]
    fn a_queue_change_before_admission_moves_the_workload() {
        let mut j = job(JOB);
        let w = workload(&j);
        assert_eq!(decide(&j, Some(&w), &flavors()), JobAction::Nothing);
        j.metadata
            .labels
            .as_mut()
            .unwrap()
            .insert(crate::api::QUEUE_NAME_LABEL.into(), "other".into());
        assert_eq!(
            decide(&j, Some(&w), &flavors()),
            JobAction::ChangeQueue("other".into())
        );
        // Once quota is reserved the queue is what it was admitted through.
        assert_eq!(
            decide(&j, Some(&admitted(w)), &flavors()),
            JobAction::Start {
                patch: start_patch(&j, &admitted(workload(&job(JOB))), &flavors()).unwrap(),
                message: "Admitted by clusterQueue team-a-queue".into(),
            }
        );
    }

    #[test]
    fn a_resized_job_before_admission_updates_its_workload() {
        let mut j = job(JOB);
        let w = workload(&j);
        j.spec.as_mut().unwrap().parallelism = Some(3);
        match decide(&j, Some(&w), &flavors()) {
            JobAction::UpdatePodSets(ps) => assert_eq!(ps[0].count, 3),
            other => panic!("{other:?}"),
        }
        // Once quota is reserved, the Workload is what was admitted.
        let adm = admitted(w);
        assert!(matches!(
            decide(&j, Some(&adm), &flavors()),
            JobAction::Start { .. }
        ));
    }

    #[test]
    fn an_admitted_running_job_is_left_alone() {
        let j = job(JOB);
        let w = admitted(workload(&j));
        assert_eq!(
            decide(&running_injected(&j), Some(&w), &flavors()),
            JobAction::Nothing
        );
    }
}
