//! When the model's series of a queue or cohort begin and end, as upstream's: a LocalQueue
//! deleted or deselected, a ClusterQueue deleted, a Cohort object deleted and an implicit
//! cohort left without children each get their `*Gone` update (their counters and histograms
//! go); the LocalQueue finished gauge and the cohort admitted-active gauge appear only once a
//! Workload finished / took quota, then stay.

use std::collections::BTreeMap;
use std::time::Duration;

use kubectl_kueue::api::{Cohort, WorkloadStatus};
use kubectl_kueue::controller::model::{Input, Settings};
use kubectl_kueue::kube::watch::Kind;
use kubectl_kueue::manifests::ObjectKey;
use kubectl_kueue::metrics::{CohortState, LocalQueueRef, LocalQueueState, MetricUpdate};
use kubectl_kueue::scheduler::labels::LabelSelector;

use super::builders::*;
use super::world::*;

fn lq(name: &str) -> LocalQueueRef {
    LocalQueueRef {
        namespace: "ns".into(),
        name: name.into(),
    }
}

fn cluster_scoped(name: &str) -> ObjectKey {
    ObjectKey {
        namespace: None,
        name: name.into(),
    }
}

/// LocalQueue metrics for LocalQueues labelled `metrics: on`. ClusterQueues `cq` (4 CPUs,
/// in the implicit cohort `team`) and `other` (in the Cohort object `org`); LocalQueues
/// `ns/a` -> cq and `ns/b` -> other, both selected. `workloads` in ns/a, settled, gauges
/// refreshed.
fn story(workloads: &[(&str, u32)]) -> World {
    let mut world = World::with(Settings {
        local_queue_metrics: Some(LabelSelector {
            match_labels: BTreeMap::from([("metrics".into(), "on".into())]),
            ..Default::default()
        }),
        ..Settings::default()
    });
    world.cache.put_flavor(flavor("default-flavor", ""));
    let org: Cohort =
        serde_yaml::from_str("metadata: {name: org, uid: org-1}\nspec: {}\n").unwrap();
    world.cache.put_cohort(org);
    for (name, cohort) in [("cq", "team"), ("other", "org")] {
        let mut cq = cluster_queue(name, "default-flavor", "cpu", "4");
        cq.metadata.uid = Some(format!("{name}-1"));
        cq.spec.cohort = Some(cohort.into());
        world.cache.put_cluster_queue(cq);
    }
    for (name, cq) in [("a", "cq"), ("b", "other")] {
        let mut q = local_queue("ns", name, cq);
        q.metadata.labels = Some(BTreeMap::from([("metrics".into(), "on".into())]));
        world.cache.put_local_queue(q);
    }
    for (name, cpu) in workloads {
        let w = workload(&world, "ns", name, "a", *cpu);
        world.cache.put_workload(w);
    }
    let first = world.start();
    world.settle(first);
    refresh(&mut world);
    world
}

/// Past the gauges' one-second pacing, a tick.
fn refresh(world: &mut World) {
    world.advance(Duration::from_secs(2));
    let tick = world.tick();
    world.settle(tick);
}

/// A notice for `kind`/`key` (the cache already changed), settled; the `*Gone` updates it
/// caused.
fn notice(world: &mut World, kind: Kind, key: ObjectKey) -> Vec<MetricUpdate> {
    let seen = world.metrics.len();
    let actions = world.input(Input::Changed { kind, key });
    world.settle(actions);
    world.metrics[seen..]
        .iter()
        .filter(|m| {
            matches!(
                m,
                MetricUpdate::ClusterQueueGone { .. }
                    | MetricUpdate::LocalQueueGone(_)
                    | MetricUpdate::CohortGone { .. }
            )
        })
        .cloned()
        .collect()
}

fn last_local_queues(world: &World) -> Vec<LocalQueueState> {
    world
        .metrics
        .iter()
        .rev()
        .find_map(|m| match m {
            MetricUpdate::LocalQueueState(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a LocalQueue snapshot")
}

fn last_cohorts(world: &World) -> Vec<CohortState> {
    world
        .metrics
        .iter()
        .rev()
        .find_map(|m| match m {
            MetricUpdate::CohortState(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a cohort snapshot")
}

#[test]
fn queues_and_cohorts_gone_get_their_gone_updates() {
    let mut world = story(&[("w", 1)]);
    let nothing_gone: Vec<MetricUpdate> = Vec::new();
    assert!(
        !world.metrics.iter().any(|m| matches!(
            m,
            MetricUpdate::ClusterQueueGone { .. }
                | MetricUpdate::LocalQueueGone(_)
                | MetricUpdate::CohortGone { .. }
        )),
        "nothing gone at the start"
    );

    // ns/a deleted.
    world.cache.local_queues.remove(&job_key("ns", "a"));
    assert_eq!(
        notice(&mut world, Kind::LocalQueue, job_key("ns", "a")),
        [MetricUpdate::LocalQueueGone(lq("a"))]
    );
    // ns/b's labels no longer match the selector.
    let mut b = (*world.cache.local_queues[&job_key("ns", "b")]).clone();
    b.metadata.labels = None;
    world.cache.put_local_queue(b);
    assert_eq!(
        notice(&mut world, Kind::LocalQueue, job_key("ns", "b")),
        [MetricUpdate::LocalQueueGone(lq("b"))]
    );
    // A status-only change: nothing gone.
    assert_eq!(
        notice(&mut world, Kind::ClusterQueue, cluster_scoped("other")),
        nothing_gone
    );

    // cq deleted: it, and `team` (implicit, cq was its only child), are gone.
    world.cache.cluster_queues.remove("cq");
    assert_eq!(
        notice(&mut world, Kind::ClusterQueue, cluster_scoped("cq")),
        [
            MetricUpdate::ClusterQueueGone {
                cluster_queue: "cq".into()
            },
            MetricUpdate::CohortGone {
                cohort: "team".into()
            },
        ]
    );

    // The Cohort object `org` deleted while `other` still names it: gone all the same
    // (upstream's `DeleteCohort` clears it).
    world.cache.cohorts.remove("org");
    assert_eq!(
        notice(&mut world, Kind::Cohort, cluster_scoped("org")),
        [MetricUpdate::CohortGone {
            cohort: "org".into()
        }]
    );
    // Its gauges are recomputed: `org` is implicit now.
    refresh(&mut world);
    let names: Vec<String> = last_cohorts(&world).into_iter().map(|c| c.cohort).collect();
    assert_eq!(names, ["org"]);
}

#[test]
fn a_queue_replaced_under_the_same_name_is_gone() {
    let mut world = story(&[]);
    // Deleted and created again between two notices: another UID.
    let mut cq = (*world.cache.cluster_queues["other"]).clone();
    cq.metadata.uid = Some("other-2".into());
    world.cache.put_cluster_queue(cq);
    assert_eq!(
        notice(&mut world, Kind::ClusterQueue, cluster_scoped("other")),
        [MetricUpdate::ClusterQueueGone {
            cluster_queue: "other".into()
        }]
    );
}

#[test]
fn a_local_queue_stopped_is_gone_and_has_no_pending_gauge_meanwhile() {
    let mut world = story(&[]);
    let mut b = (*world.cache.local_queues[&job_key("ns", "b")]).clone();
    b.spec.stop_policy = kubectl_kueue::api::policies::StopPolicy::Hold;
    world.cache.put_local_queue(b);
    assert_eq!(
        notice(&mut world, Kind::LocalQueue, job_key("ns", "b")),
        [MetricUpdate::LocalQueueGone(lq("b"))]
    );
    refresh(&mut world);
    let states = last_local_queues(&world);
    let b = states.iter().find(|s| s.queue == lq("b")).unwrap();
    assert!(b.stopped);
    assert_eq!(b.finished, None);
    assert!(!states.iter().find(|s| s.queue == lq("a")).unwrap().stopped);
}

#[test]
fn finished_and_admitted_active_gauges_appear_when_upstream_creates_them() {
    let mut world = story(&[]);
    // Nothing finished, nothing admitted yet: no series (`None`); the ClusterQueue's
    // finished gauge is there (a LocalQueue points at it).
    let a = |world: &World| {
        last_local_queues(world)
            .into_iter()
            .find(|s| s.queue == lq("a"))
            .unwrap()
    };
    let team = |world: &World| {
        last_cohorts(world)
            .into_iter()
            .find(|c| c.cohort == "team")
            .unwrap()
    };
    assert_eq!(a(&world).finished, None);
    assert_eq!(team(&world).admitted_active, None);
    assert_eq!(last_cohorts(&world)[0].admitted_active, None, "org");

    // A Workload admitted in cq: team's gauge appears (org's does not: nothing below it).
    let w = workload(&world, "ns", "w", "a", 1);
    let actions = world.put_workload(w);
    world.settle(actions);
    refresh(&mut world);
    assert_eq!(team(&world).admitted_active, Some(1));
    let org = last_cohorts(&world)
        .into_iter()
        .find(|c| c.cohort == "org")
        .unwrap();
    assert_eq!(org.admitted_active, None);
    assert_eq!(a(&world).finished, None);

    // A finished Workload naming ns/a: its finished gauge appears.
    let mut done = workload(&world, "ns", "done", "a", 1);
    done.status = Some(
        serde_yaml::from_str::<WorkloadStatus>(
            "conditions:\n- {type: Finished, status: 'True', reason: Succeeded, message: done, lastTransitionTime: '2025-12-31T23:00:00Z'}\n",
        )
        .unwrap(),
    );
    let actions = world.put_workload(done);
    world.settle(actions);
    refresh(&mut world);
    assert_eq!(a(&world).finished, Some(1));

    // Both gone again: the gauges stay, at 0.
    world.cache.workloads.remove(&key("ns", "done"));
    world.cache.workloads.remove(&key("ns", "w"));
    for name in ["done", "w"] {
        let actions = world.input(changed(Kind::Workload, &key("ns", name)));
        world.settle(actions);
    }
    refresh(&mut world);
    assert_eq!(a(&world).finished, Some(0));
    assert_eq!(team(&world).admitted_active, Some(0));
}
