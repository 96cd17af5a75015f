//! The controller's model without an API server: fill the cache with objects, run a turn,
//! and look at the plans it decides (status writes with their effects, Job patches, Workload
//! creates and patches, queue status writes, Events, metric updates). [`world::World`]
//! answers each write as the API server would, so a story can go on turn by turn.
#![cfg(feature = "cli")]

mod builders;
mod world;

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kubectl_kueue::api::WorkloadStatus;
use kubectl_kueue::controller::model::{Action, Effect, Input, WriteError};
use kubectl_kueue::integration::job::JobStep;
use kubectl_kueue::manifests::convert::time_from_millis;
use kubectl_kueue::manifests::job::RESOURCE_IN_USE_FINALIZER;
use kubectl_kueue::metrics::MetricUpdate;

use builders::*;
use world::*;

/// `status` of condition `type_`, with its reason.
fn cond(st: &WorkloadStatus, type_: &str) -> Option<(String, String)> {
    st.condition(type_)
        .map(|c| (c.status.clone(), c.reason.clone()))
}

fn is(status: &str, reason: &str) -> Option<(String, String)> {
    Some((status.to_string(), reason.to_string()))
}

/// One ClusterQueue `cq` with `nominal` of `resource` on `flavor`, its LocalQueue `ns/lq`.
fn cluster(world: &mut World, flavor_labels: &str, resource: &str, nominal: &str) {
    world
        .cache
        .put_flavor(builders::flavor("default-flavor", flavor_labels));
    world
        .cache
        .put_cluster_queue(cluster_queue("cq", "default-flavor", resource, nominal));
    world.cache.put_local_queue(local_queue("ns", "lq", "cq"));
}

fn holds_quota(world: &World, name: &str) -> bool {
    world
        .model
        .engine()
        .holding_queue(&format!("ns/{name}"))
        .is_some()
}

#[test]
fn a_pending_workload_with_room_gets_an_admission_write_then_its_events() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "lq", 1));
    let actions = world.start();

    let writes = status_writes(&actions);
    let [write] = writes["w"].as_slice() else {
        panic!("one status write for w: {actions:#?}")
    };
    assert!(write.admits);
    assert_eq!(
        cond(&write.status, "QuotaReserved"),
        is("True", "QuotaReserved")
    );
    assert_eq!(cond(&write.status, "Admitted"), is("True", "Admitted"));
    assert_eq!(write.status.admission.as_ref().unwrap().cluster_queue, "cq");
    assert!(write.effects.contains(&Effect::Event(
        kubectl_kueue::controller::model::EventText::normal(
            "QuotaReserved",
            "Quota reserved in ClusterQueue cq, wait time since queued was 0s"
        )
    )));
    // The quota is held from the decision on; the Events wait for the write.
    assert!(holds_quota(&world, "w"));
    assert!(!actions.iter().any(|a| matches!(a, Action::Event { .. })));

    let write = actions
        .iter()
        .find(|a| matches!(a, Action::WriteWorkloadStatus { .. }))
        .unwrap()
        .clone();
    let mut after = Vec::new();
    for input in world.perform(&write) {
        after.extend(world.input(input));
    }
    for a in &after {
        world.perform(a);
    }
    let reasons: Vec<String> = world.events_of("w").into_iter().map(|(r, _)| r).collect();
    assert_eq!(reasons, ["QuotaReserved", "Admitted"]);
    assert!(world.metrics.iter().any(|m| matches!(m,
        MetricUpdate::Admitted { cluster_queue, .. } if cluster_queue == "cq")));
}

#[test]
fn our_own_write_echoing_back_changes_nothing() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "lq", 1));
    let first = world.start();
    world.settle(first);
    world.advance(Duration::from_secs(1));
    let again = world.input(Input::Changed {
        kind: kubectl_kueue::kube::watch::Kind::Workload,
        key: kubectl_kueue::manifests::ObjectKey {
            namespace: Some("ns".into()),
            name: "w".into(),
        },
    });
    assert!(
        status_writes(&again).is_empty(),
        "an echo is a no-op: {again:#?}"
    );
    assert!(holds_quota(&world, "w"));
}

#[test]
fn a_workload_whose_local_queue_is_missing_is_told_why() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "nowhere", 1));
    let actions = world.start();
    let writes = status_writes(&actions);
    let write = writes["w"][0];
    assert_eq!(
        cond(&write.status, "QuotaReserved"),
        is("False", "Misconfigured")
    );
    assert_eq!(
        write.status.condition("QuotaReserved").unwrap().message,
        "LocalQueue nowhere doesn't exist"
    );
    assert_eq!(
        write.effects,
        [Effect::Event(
            kubectl_kueue::controller::model::EventText::warning(
                "Misconfigured",
                "LocalQueue nowhere doesn't exist"
            )
        )]
    );
    assert!(!write.admits);
}

#[test]
fn a_failed_admission_write_gives_the_quota_back_and_backs_off() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "lq", 1));
    let actions = world.start();
    assert!(status_writes(&actions)["w"][0].admits);
    assert!(holds_quota(&world, "w"));

    let after = world.input(Input::WorkloadWritten {
        key: key("ns", "w"),
        result: Err(WriteError::Failed("etcdserver: request timed out".into())),
    });
    // Re-read from the API server: no admission there, so none in the engine.
    assert!(!holds_quota(&world, "w"), "the quota is given back");
    assert!(status_writes(&after).is_empty(), "{after:#?}");
    let book = world.model.workload_book(&key("ns", "w")).unwrap();
    assert_eq!(book.failures, 1);
    assert!(book.retry_at.is_some());

    // Before the backoff (2 s after the first failure) runs out: nothing.
    world.advance(Duration::from_millis(1500));
    assert!(status_writes(&world.tick()).is_empty());
    world.advance(Duration::from_millis(600));
    let retried = world.tick();
    assert!(
        status_writes(&retried)["w"][0].admits,
        "admitted again after the backoff: {retried:#?}"
    );
}

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
        !eviction.effects.contains(&Effect::ReleaseNow),
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
fn a_preempted_plain_workload_gives_its_quota_back_once_the_eviction_is_written() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "2");
    world.cache.put_priority_class(priority_class("high", 1000));
    world
        .cache
        .put_workload(workload(&world, "ns", "low", "lq", 2));
    let first = world.start();
    world.settle(first);
    world.advance(Duration::from_secs(1));
    let mut high = workload(&world, "ns", "high", "lq", 2);
    high.spec.priority = Some(1000);
    high.spec.priority_class_name = Some("high".into());
    let arrival = world.put_workload(high);
    let eviction = status_writes(&arrival)["low"][0].clone();
    assert!(
        eviction.effects.contains(&Effect::ReleaseNow),
        "no pods to wait for"
    );
    assert!(eviction.effects.iter().any(|e| matches!(e,
        Effect::Metric(MetricUpdate::Preempted { reason, .. }) if reason == "InClusterQueue")));
    world.settle(arrival);
    assert!(!holds_quota(&world, "low"));
    assert!(holds_quota(&world, "high"));
}

#[test]
fn a_deactivated_plain_workload_is_evicted_then_releases_at_once() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "lq", 1));
    let first = world.start();
    world.settle(first);
    let mut off = (*world.workload("ns", "w")).clone();
    off.spec.active = false;
    let a = world.put_workload(off);
    let eviction = status_writes(&a)["w"][0].clone();
    assert_eq!(cond(&eviction.status, "Evicted"), is("True", "Deactivated"));
    assert!(eviction.effects.iter().any(|e| matches!(e,
        Effect::Metric(MetricUpdate::Evicted { reason, first: true, .. }) if reason == "Deactivated")));
    assert!(holds_quota(&world, "w"), "held until released");
    let seen = world.settle(a);
    let release = status_writes(&seen)["w"]
        .iter()
        .find(|w| w.effects == [Effect::ReleaseQuota])
        .copied()
        .expect("a release write")
        .clone();
    assert_eq!(
        cond(&release.status, "Requeued"),
        is("False", "Deactivated")
    );
    assert!(release.status.admission.is_none());
    assert!(!holds_quota(&world, "w"));
    assert!(
        world
            .events_of("w")
            .iter()
            .any(|(r, _)| r == "EvictedDueToDeactivated")
    );
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

#[test]
fn queue_status_follows_admissions() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "a", "lq", 1));
    world
        .cache
        .put_workload(workload(&world, "ns", "b", "lq", 1));
    let actions = world.start();
    let cq = actions
        .iter()
        .find_map(|a| match a {
            Action::WriteClusterQueueStatus { key, status } if key.name == "cq" => Some(status),
            _ => None,
        })
        .expect("a ClusterQueue status write");
    assert_eq!(cq.reserving_workloads, 2);
    assert_eq!(
        cq.flavors_reservation[0].resources[0]
            .total
            .as_ref()
            .unwrap()
            .0,
        "2"
    );
    let lq = actions
        .iter()
        .find_map(|a| match a {
            Action::WriteLocalQueueStatus { key, status } if key.name == "lq" => Some(status),
            _ => None,
        })
        .expect("a LocalQueue status write");
    assert_eq!(lq.admitted_workloads, 2);
    assert!(actions.iter().any(|a| matches!(a,
        Action::Metric(MetricUpdate::QueueState(q)) if q[0].reserving == 2)));
}
