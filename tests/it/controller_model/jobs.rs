//! Job stories: a Workload created for a suspended Job, the Job started on admission with
//! its flavor's node selector, stopped on eviction with the release waiting for its pods,
//! finished on completion, and a deleted Job's Workload losing its finalizer.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kubectl_kueue::controller::model::{Action, Effect};
use kubectl_kueue::integration::job::JobStep;
use kubectl_kueue::manifests::convert::time_from_millis;
use kubectl_kueue::manifests::job::RESOURCE_IN_USE_FINALIZER;
use kubectl_kueue::metrics::MetricUpdate;

use super::builders::*;
use super::world::*;
use super::{cluster, cond, holds_quota, is};

#[test]
fn a_suspended_job_gets_a_workload_then_starts_with_the_flavors_node_selector() {
    let mut world = World::new();
    cluster(&mut world, "gpu-type: a100", "nvidia.com/gpu", "4");
    world
        .cache
        .put_job(job(&world, "ns", "train", "lq", 2, None));
    let actions = world.start();
    let Some(Action::CreateWorkload { workload, .. }) = actions
        .iter()
        .find(|a| matches!(a, Action::CreateWorkload { .. }))
    else {
        panic!("a Workload for the Job: {actions:#?}")
    };
    let wl_name = workload.metadata.name.clone().unwrap();
    assert!(wl_name.starts_with("job-train-"));

    let seen = world.settle(actions);
    let start = seen
        .iter()
        .find_map(|a| match a {
            Action::WriteJob { steps, event, .. } => Some((steps, event)),
            _ => None,
        })
        .expect("a Job write");
    let [JobStep::Patch(patch)] = start.0.as_slice() else {
        panic!("one patch: {start:#?}")
    };
    assert_eq!(patch["spec"]["suspend"], false);
    assert_eq!(
        patch["spec"]["template"]["spec"]["nodeSelector"]["gpu-type"],
        "a100"
    );
    assert_eq!(
        patch["spec"]["template"]["metadata"]["labels"]["kueue.x-k8s.io/podset"],
        "main"
    );
    assert_eq!(start.1.as_ref().unwrap().reason, "Started");
    let job_events: Vec<String> = world
        .events_of("train")
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(job_events, ["CreatedWorkload", "Started"]);
    assert_eq!(
        world.job("ns", "train").spec.as_ref().unwrap().suspend,
        Some(false)
    );
}

/// Two Jobs of one GPU each on a ClusterQueue of one GPU: `low` runs, `high` arrives.
fn low_running_high_arrives(world: &mut World) -> Vec<Action> {
    cluster(world, "gpu-type: a100", "nvidia.com/gpu", "1");
    world.cache.put_priority_class(priority_class("low", 10));
    world.cache.put_priority_class(priority_class("high", 1000));
    world
        .cache
        .put_job(job(world, "ns", "low", "lq", 1, Some("low")));
    let first = world.start();
    world.settle(first);
    // Its pod runs.
    let mut running = (*world.job("ns", "low")).clone();
    running.status = Some(
        serde_json::from_value(
            serde_json::json!({"active": 1, "startTime": "2026-01-01T00:00:00Z"}),
        )
        .unwrap(),
    );
    let a = world.put_job(running);
    world.settle(a);
    world.advance(Duration::from_secs(1));
    let high = job(world, "ns", "high", "lq", 1, Some("high"));
    world.put_job(high)
}

fn workload_of_job(world: &World, job: &str) -> String {
    world
        .cache
        .workloads
        .keys()
        .find(|k| k.name.starts_with(&format!("job-{job}-")))
        .unwrap()
        .name
        .clone()
}

#[test]
fn an_evicted_jobs_workload_is_released_only_once_its_pods_are_gone() {
    let mut world = World::new();
    let arrival = low_running_high_arrives(&mut world);
    let seen = world.settle(arrival);
    let low_wl = workload_of_job(&world, "low");
    let high_wl = workload_of_job(&world, "high");

    // The victim's eviction write, then its Job suspended; the quota stays held.
    let evictions = status_writes(&seen);
    let eviction = evictions[&low_wl][0];
    assert_eq!(cond(&eviction.status, "Evicted"), is("True", "Preempted"));
    assert_eq!(
        cond(&eviction.status, "Preempted"),
        is("True", "InClusterQueue")
    );
    assert!(
        !eviction.effects.contains(&Effect::ReleaseQuota) && eviction.status.admission.is_some(),
        "a Job's Workload waits for its pods"
    );
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::WriteJob { event: Some(e), .. } if e.reason == "Stopped"))
    );
    assert!(holds_quota(&world, &low_wl), "pods still active");
    assert!(!holds_quota(&world, &high_wl));
    assert!(
        evictions[&low_wl]
            .iter()
            .all(|w| w.status.admission.is_some()),
        "no release while pods run"
    );

    // The pod goes: the reservation is cleared, and once that is written the quota returns
    // and the preemptor is admitted.
    let mut stopped = (*world.job("ns", "low")).clone();
    stopped.status = Some(serde_json::from_value(serde_json::json!({"active": 0})).unwrap());
    let a = world.put_job(stopped);
    let is_release = |a: &Action| {
        matches!(a, Action::WriteWorkloadStatus { key, write, .. }
            if key.name == low_wl && write.effects == [Effect::ReleaseQuota])
    };
    let a = world.settle_until(a, is_release);
    let release = match a.iter().find(|a| is_release(a)) {
        Some(Action::WriteWorkloadStatus { write, .. }) => write.clone(),
        _ => unreachable!(),
    };
    assert_eq!(
        cond(&release.status, "QuotaReserved"),
        is("False", "PendingEvaluation")
    );
    assert_eq!(cond(&release.status, "Requeued"), is("True", "Preempted"));
    assert_eq!(release.effects, [Effect::ReleaseQuota]);
    assert!(
        holds_quota(&world, &low_wl),
        "held until the release is written"
    );
    world.settle(a);
    assert!(!holds_quota(&world, &low_wl));
    assert!(holds_quota(&world, &high_wl));
    let preemptor_events: Vec<String> = world
        .events_of(&high_wl)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert!(preemptor_events.contains(&"PreemptedWorkload".to_string()));
}

#[test]
fn a_deleted_jobs_workload_loses_the_finalizer() {
    let mut world = World::new();
    cluster(&mut world, "", "nvidia.com/gpu", "4");
    let j = job(&world, "ns", "gone", "lq", 1, None);
    let mut w = kubectl_kueue::manifests::job::workload_for_job(&j, &Default::default()).unwrap();
    w.metadata.uid = Some("uid-w".into());
    w.metadata.resource_version = Some("5".into());
    w.metadata.deletion_timestamp = Some(time_from_millis(world.now.wall));
    assert!(
        w.metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == RESOURCE_IN_USE_FINALIZER)
    );
    assert!(matches!(
        w.metadata.owner_references.as_deref(),
        Some([OwnerReference { kind, .. }]) if kind == "Job"
    ));
    let name = w.metadata.name.clone().unwrap();
    world.cache.put_workload(w);
    // The Job is not in the cache: deleted, the garbage collector is deleting its Workload.
    let actions = world.start();
    assert!(
        actions.iter().any(|a| matches!(a,
            Action::RemoveFinalizer { key, finalizer, .. } if key.name == name && *finalizer == RESOURCE_IN_USE_FINALIZER)),
        "{actions:#?}"
    );
    world.settle(actions);
    assert!(
        world.cache.workloads.is_empty(),
        "deleted once the finalizer is gone"
    );
}

#[test]
fn a_completed_job_finishes_its_workload_then_drops_the_finalizer() {
    let mut world = World::new();
    cluster(&mut world, "", "nvidia.com/gpu", "4");
    world
        .cache
        .put_job(job(&world, "ns", "train", "lq", 1, None));
    let first = world.start();
    world.settle(first);
    let wl = workload_of_job(&world, "train");
    assert!(holds_quota(&world, &wl));
    let mut done = (*world.job("ns", "train")).clone();
    done.status = Some(
        serde_json::from_value(serde_json::json!({
            "conditions": [{"type": "Complete", "status": "True", "message": "Reached expected number of succeeded pods"}]
        }))
        .unwrap(),
    );
    let a = world.put_job(done);
    let finish = status_writes(&a)[&wl][0].clone();
    assert_eq!(cond(&finish.status, "Finished"), is("True", "Succeeded"));
    assert!(finish.effects.contains(&Effect::FinishQuota {
        reason: "Succeeded".into()
    }));
    assert!(finish.effects.contains(&Effect::RemoveFinalizer));
    let seen = world.settle(a);
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::RemoveFinalizer { .. }))
    );
    assert!(!holds_quota(&world, &wl));
    assert!(
        world
            .events_of("train")
            .iter()
            .any(|(r, n)| r == "FinishedWorkload"
                && n == &format!("Workload 'ns/{wl}' is declared finished"))
    );
    assert!(
        world
            .metrics
            .iter()
            .any(|m| matches!(m, MetricUpdate::Finished { .. }))
    );
}
