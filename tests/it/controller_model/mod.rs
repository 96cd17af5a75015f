//! The controller's model without an API server: fill the cache with objects, run a turn,
//! and look at the plans it decides (status writes with their effects, Job patches, Workload
//! creates and patches, queue status writes, Events, metric updates). [`world::World`]
//! answers each write as the API server would, so a story can go on turn by turn. Workloads
//! without Jobs here, Job stories in [`jobs`].
#![cfg(feature = "cli")]

mod builders;
mod jobs;
mod metrics;
mod metrics_lifetimes;
mod metrics_state;
mod parity;
mod pending;
mod pods_ready;
mod relist;
mod trust;
mod world;

use std::time::Duration;

use kubectl_kueue::api::WorkloadStatus;
use kubectl_kueue::controller::model::{Action, Effect, Input, WriteError};
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
        .holding_queue(&kubectl_kueue::scheduler::WorkloadKey::new("ns", name))
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

/// One ClusterQueue of 2 cpu and the priority class `high` (1000), not yet started.
fn preemption_cluster() -> World {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "2");
    world.cache.put_priority_class(priority_class("high", 1000));
    world
}

/// `low` (2 cpu) admitted in a 2-cpu ClusterQueue, where priority class `high` exists.
fn low_admitted() -> World {
    let mut world = preemption_cluster();
    world
        .cache
        .put_workload(workload(&world, "ns", "low", "lq", 2));
    let first = world.start();
    world.settle(first);
    world
}

/// `high` (2 cpu, priority class `high`): it preempts `low` of [`low_admitted`].
fn high_priority(world: &World) -> kubectl_kueue::api::Workload {
    let mut high = workload(world, "ns", "high", "lq", 2);
    high.spec.priority = Some(1000);
    high.spec.priority_class_name = Some("high".into());
    high
}

#[test]
fn a_preempted_plain_workload_is_evicted_and_released_in_one_write() {
    let mut world = low_admitted();
    world.advance(Duration::from_secs(1));
    let arrival = world.put_workload(high_priority(&world));
    let writes = status_writes(&arrival);
    assert_eq!(writes["low"].len(), 1, "{writes:#?}");
    let eviction = writes["low"][0].clone();
    assert!(
        eviction.effects.contains(&Effect::ReleaseQuota),
        "no pods to wait for"
    );
    assert_eq!(cond(&eviction.status, "Evicted"), is("True", "Preempted"));
    assert_eq!(
        cond(&eviction.status, "Preempted"),
        is("True", "InClusterQueue")
    );
    assert_eq!(cond(&eviction.status, "Requeued"), is("True", "Preempted"));
    assert_eq!(
        cond(&eviction.status, "QuotaReserved"),
        is("False", "PendingEvaluation")
    );
    assert!(eviction.status.admission.is_none());
    assert_eq!(
        eviction
            .status
            .scheduling_stats
            .as_ref()
            .map(|s| s.evictions.len()),
        Some(1)
    );
    assert!(eviction.effects.iter().any(|e| matches!(e,
        Effect::Metric(MetricUpdate::Preempted { reason, .. }) if reason == "InClusterQueue")));
    assert!(holds_quota(&world, "low"), "held until the write lands");
    let seen = world.settle(arrival);
    let low_writes = &status_writes(&seen)["low"];
    let releases = low_writes
        .iter()
        .filter(|w| w.effects.contains(&Effect::ReleaseQuota))
        .count();
    assert_eq!(releases, 1, "no second (release) write: {seen:#?}");
    assert!(
        low_writes[1..]
            .iter()
            .all(|w| w.background && w.status.admission.is_none()),
        "after it only why it waits again: {low_writes:#?}"
    );
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
