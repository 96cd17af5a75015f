//! The Job integration's decisions, one scenario per test.

use super::*;
use crate::manifests::job::workload_for_job;
use serde_json::json;

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
    workload_for_job(j, &crate::manifests::priority::Priorities::default()).unwrap()
}

fn admitted(mut w: Workload) -> Workload {
    let mut st = crate::api::WorkloadStatus::default();
    let adm = crate::scheduler::model::Admission {
        cluster_queue: "team-a-queue".into(),
        pod_sets: vec![crate::scheduler::model::PodSetAdmission {
            name: "main".into(),
            flavors: BTreeMap::from([("nvidia.com/gpu".to_string(), "gpu-a100".to_string())]),
            resource_usage: BTreeMap::from([("nvidia.com/gpu".to_string(), 1.into())]),
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
        serde_json::from_value(json!({"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}))
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
        serde_json::from_value(json!({"active": 1, "startTime": "2026-01-01T00:00:00Z"})).unwrap(),
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
    stopped.status = Some(serde_json::from_value(json!({"active": 0, "terminating": 1})).unwrap());
    assert_eq!(decide(&stopped, Some(&w), &flavors()), JobAction::Nothing);
    stopped.status = Some(serde_json::from_value(json!({"active": 0, "terminating": 0})).unwrap());
    assert_eq!(decide(&stopped, Some(&w), &flavors()), JobAction::Release);
}

#[test]
fn a_running_job_whose_workload_lost_its_admission_is_stopped() {
    let j = job(JOB);
    let w = workload(&j);
    let running = running_injected(&j);
    // Its injected tolerations no longer match an unadmitted Workload: upstream's "no
    // matching Workload" stop.
    assert!(
        matches!(decide(&running, Some(&w), &flavors()), JobAction::Stop { message, .. } if message == NO_MATCHING_WORKLOAD)
    );
    // Without the tolerations it is the plain "not admitted" stop.
    let mut plain = running.clone();
    plain
        .spec
        .as_mut()
        .unwrap()
        .template
        .spec
        .as_mut()
        .unwrap()
        .tolerations = None;
    assert!(
        matches!(decide(&plain, Some(&w), &flavors()), JobAction::Stop { message, .. } if message == NOT_ADMITTED)
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
    // Once quota is reserved, the Workload no longer stands for the Job: it is deleted (a
    // new one is made for the Job as it is now).
    let adm = admitted(w);
    assert_eq!(
        decide(&j, Some(&adm), &flavors()),
        JobAction::DeleteWorkload
    );
}

#[test]
fn a_running_job_resized_after_admission_is_stopped_and_its_workload_deleted() {
    let j = job(JOB);
    let w = admitted(workload(&j));
    let mut resized = running_injected(&j);
    resized.spec.as_mut().unwrap().parallelism = Some(2);
    assert!(matches!(
        decide(&resized, Some(&w), &flavors()),
        JobAction::Stop { message, was_running: true, .. } if message == NO_MATCHING_WORKLOAD
    ));
    // Suspended (the pods go): the Workload is deleted.
    let mut stopped = resized.clone();
    stopped.spec.as_mut().unwrap().suspend = Some(true);
    assert_eq!(
        decide(&stopped, Some(&w), &flavors()),
        JobAction::DeleteWorkload
    );
    // A different maximum execution time does not match either.
    let mut labelled = running_injected(&j);
    labelled.metadata.labels.as_mut().unwrap().insert(
        crate::manifests::job::MAX_EXEC_TIME_LABEL.into(),
        "60".into(),
    );
    assert!(!equivalent(&labelled, &w));
    assert!(
        equivalent(&running_injected(&j), &w),
        "admission's changes are not compared"
    );
    // Upstream never compares the node selector: a suspended Job whose selector changed keeps
    // its unadmitted Workload as it is.
    let mut moved = j.clone();
    let pod = moved.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
    pod.node_selector = Some(BTreeMap::from([("disk".into(), "ssd".into())]));
    assert_eq!(
        decide(&moved, Some(&workload(&j)), &flavors()),
        JobAction::Nothing
    );
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

#[test]
fn an_admission_during_an_interrupted_stop_finishes_the_stop_then_starts() {
    let mut j = job(JOB);
    j.metadata.annotations = Some(BTreeMap::from([(
        STOPPING_ANNOTATION.to_string(),
        "true".to_string(),
    )]));
    let w = admitted(workload(&j));
    let JobAction::Stop {
        steps, was_running, ..
    } = decide(&j, Some(&w), &flavors())
    else {
        panic!("the stop is finished first")
    };
    assert!(!was_running);
    let [JobStep::Patch(p)] = steps.as_slice() else {
        panic!("{steps:?}")
    };
    assert_eq!(
        p["metadata"]["annotations"][STOPPING_ANNOTATION],
        json!(null)
    );
    // Once the annotation is gone, the admitted Job starts.
    j.metadata.annotations = None;
    assert!(matches!(
        decide(&j, Some(&w), &flavors()),
        JobAction::Start { .. }
    ));
}

#[test]
fn a_partially_admitted_job_runs_with_the_admitted_count_and_gets_its_own_back() {
    let mut j = job(JOB);
    j.metadata.annotations = Some(BTreeMap::from([
        (
            crate::manifests::job::MIN_PARALLELISM_ANNOTATION.to_string(),
            "1".to_string(),
        ),
        (
            crate::manifests::job::COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION.to_string(),
            "true".to_string(),
        ),
    ]));
    j.spec.as_mut().unwrap().parallelism = Some(4);
    j.spec.as_mut().unwrap().completions = Some(4);
    let mut w = admitted(workload(&j));
    assert_eq!(w.spec.pod_sets[0].min_count, Some(1));
    // Two of the four pods fit.
    w.status
        .as_mut()
        .unwrap()
        .admission
        .as_mut()
        .unwrap()
        .pod_set_assignments[0]
        .count = Some(2);
    let JobAction::Start { patch, .. } = decide(&j, Some(&w), &flavors()) else {
        panic!("starts");
    };
    assert_eq!(patch["spec"]["parallelism"], 2);
    assert_eq!(patch["spec"]["completions"], 2);
    // Running with two pods it still matches its Workload.
    let mut running = running_injected(&j);
    running.metadata.annotations = j.metadata.annotations.clone();
    let spec = running.spec.as_mut().unwrap();
    (spec.parallelism, spec.completions) = (Some(2), Some(2));
    assert!(equivalent(&running, &w));
    assert_eq!(decide(&running, Some(&w), &flavors()), JobAction::Nothing);
    // Evicted and its pods gone: the restore puts back the four asked for.
    let mut stopped = running.clone();
    stopped.spec.as_mut().unwrap().suspend = Some(true);
    stopped.status = None;
    let restore = restore_patch(&stopped, &w).expect("a restore");
    assert_eq!(restore["spec"]["parallelism"], 4);
    assert_eq!(restore["spec"]["completions"], 4);
}
