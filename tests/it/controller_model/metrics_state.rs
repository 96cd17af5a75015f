//! The model's gauge snapshots and the updates upstream records per cycle: the cohort
//! hierarchy (`kueue_cluster_queue_info`, `kueue_cohort_info`), cohort subtree quota,
//! reservations and admitted workloads, weighted shares under fair sharing, pending requests,
//! finished workloads per ClusterQueue and LocalQueue, the cohorts counting an admission,
//! and skipped preemptions.

use std::time::Duration;

use kubectl_kueue::api::Cohort;
use kubectl_kueue::controller::model::Settings;
use kubectl_kueue::metrics::{CohortState, Hierarchy, LocalQueueState, MetricUpdate, QueueState};
use kubectl_kueue::scheduler::labels::LabelSelector;

use super::parity::{
    ADMITTED_AT, FLAVORS, admitted_on, cluster_queue, inventory, local_queue, workload,
};
use super::world::World;

/// `text`'s objects in a world with LocalQueue metrics on for every LocalQueue, and
/// `cohorts` (YAML documents) put as Cohort objects; settled, then the gauges refreshed.
fn settled(text: &str, cohorts: &[&str]) -> World {
    let inv = inventory(text);
    let mut world = World::with(Settings {
        config: inv.config.as_ref().map(|c| c.obj.clone()),
        local_queue_metrics: Some(LabelSelector::default()),
        ..Default::default()
    });
    for f in inv.flavors {
        world.cache.put_flavor(f.obj);
    }
    for c in cohorts {
        let c: Cohort = serde_yaml::from_str(c).unwrap();
        world.cache.put_cohort(c);
    }
    for cq in inv.cluster_queues {
        world.cache.put_cluster_queue(cq.obj);
    }
    for lq in inv.local_queues {
        world.cache.put_local_queue(lq.obj);
    }
    for w in inv.workloads {
        world.cache.put_workload(w.obj);
    }
    let actions = world.start();
    world.settle(actions);
    // The gauges are recomputed at most every second.
    world.advance(Duration::from_secs(2));
    let actions = world.tick();
    world.settle(actions);
    world
}

fn last<T: Clone>(world: &World, pick: impl Fn(&MetricUpdate) -> Option<&Vec<T>>) -> Vec<T> {
    world
        .metrics
        .iter()
        .rev()
        .find_map(pick)
        .cloned()
        .expect("a snapshot")
}

fn queues(world: &World) -> Vec<QueueState> {
    last(world, |m| match m {
        MetricUpdate::QueueState(q) => Some(q),
        _ => None,
    })
}

fn cohorts(world: &World) -> Vec<CohortState> {
    last(world, |m| match m {
        MetricUpdate::CohortState(c) => Some(c),
        _ => None,
    })
}

fn local_queues(world: &World) -> Vec<LocalQueueState> {
    last(world, |m| match m {
        MetricUpdate::LocalQueueState(q) => Some(q),
        _ => None,
    })
}

fn in_cohort(name: &str, cohort: &str, cpu: u32) -> String {
    cluster_queue(name, &[("f1", cpu)], "").replace("cohort: c", &format!("cohort: {cohort}"))
}

const FAIR_SHARING: &str = "---
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing: {enable: true}
";

const FINISHED: &str = "status:
  conditions:
  - {type: Finished, status: 'True', reason: Succeeded, message: done, lastTransitionTime: '2025-12-31T23:00:00Z'}
";

/// Cohort objects `org` (a root) and `team` (under it); ClusterQueues `a` (4 CPUs) and `b`
/// (2) in `team`, `solo` without a cohort. In a: `a1` (2 CPUs, admitted), `big` (10, never
/// fits) and a finished one; in b: `b1` (3 CPUs, borrowing one of a's).
fn story() -> World {
    let text = [
        FLAVORS,
        FAIR_SHARING,
        &in_cohort("a", "team", 4),
        &in_cohort("b", "team", 2),
        &cluster_queue("solo", &[("f1", 1)], "").replace("  cohort: c\n", ""),
        &local_queue("ns-a", "a", ""),
        &local_queue("ns-b", "b", ""),
        &workload("ns-a", "a1", 2, ""),
        &workload("ns-a", "big", 10, "").replace(ADMITTED_AT, "2025-12-31T23:30:00Z"),
        &workload("ns-a", "done", 1, FINISHED),
        &workload("ns-b", "b1", 3, ""),
    ]
    .concat();
    settled(
        &text,
        &[
            "metadata: {name: org}\nspec: {}\n",
            "metadata: {name: team}\nspec: {parentName: org}\n",
        ],
    )
}

#[test]
fn queue_snapshots_carry_hierarchy_pending_requests_finished_and_shares() {
    let world = story();
    let q = queues(&world);
    let get = |name: &str| q.iter().find(|s| s.cluster_queue == name).unwrap().clone();
    let (a, b, solo) = (get("a"), get("b"), get("solo"));
    let team = Hierarchy {
        parent_cohort: "team".into(),
        root_cohort: "org".into(),
    };
    assert_eq!((&a.hierarchy, &b.hierarchy), (&team, &team));
    assert_eq!(solo.hierarchy, Hierarchy::default());
    // `big` waits for 10 CPUs; configured resources are listed at 0.
    assert_eq!(a.pending_resources, [("cpu".to_string(), 10.0)]);
    assert_eq!(b.pending_resources, [("cpu".to_string(), 0.0)]);
    // Finished workloads of the LocalQueues pointing at each; none point at solo.
    assert_eq!(
        (a.finished, b.finished, solo.finished),
        (Some(1), Some(0), None)
    );
    let done: Vec<_> = local_queues(&world)
        .iter()
        .map(|l| (l.queue.namespace.clone(), l.finished))
        .collect();
    // ns-b has had no finished Workload: no series yet, as upstream.
    assert_eq!(
        done,
        [("ns-a".to_string(), Some(1)), ("ns-b".to_string(), None)]
    );
    // Fair sharing: a stays within its quota, b borrows.
    assert_eq!(a.weighted_share, Some(0.0));
    let engine = world.model.engine().weighted_share("b").unwrap().1;
    assert!(engine > 0.0);
    assert_eq!(b.weighted_share, Some(engine));
}

#[test]
fn cohort_snapshots_sum_their_subtrees() {
    let world = story();
    let c = cohorts(&world);
    let names: Vec<&str> = c.iter().map(|s| s.cohort.as_str()).collect();
    assert_eq!(names, ["org", "team"]);
    let (org, team) = (&c[0], &c[1]);
    assert_eq!(
        (
            org.hierarchy.parent_cohort.as_str(),
            org.hierarchy.root_cohort.as_str()
        ),
        ("", "org")
    );
    assert_eq!(
        (
            team.hierarchy.parent_cohort.as_str(),
            team.hierarchy.root_cohort.as_str()
        ),
        ("org", "org")
    );
    let cpu = |v: f64| vec![("f1".to_string(), "cpu".to_string(), v)];
    for s in [org, team] {
        assert_eq!(s.subtree_quota, cpu(6.0), "{}", s.cohort);
        assert_eq!(s.subtree_reservations, cpu(5.0), "{}", s.cohort);
        assert_eq!(s.admitted_active, Some(2), "{}", s.cohort);
    }
    // team borrows nothing from org: both shares 0, reported for Cohort objects.
    assert_eq!(
        (org.weighted_share, team.weighted_share),
        (Some(0.0), Some(0.0))
    );
    // Each admission counts in every cohort above its ClusterQueue.
    let counted: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::Admitted {
                cluster_queue,
                cohorts,
                ..
            } => Some((cluster_queue.clone(), cohorts.clone())),
            _ => None,
        })
        .collect();
    let up = vec!["team".to_string(), "org".to_string()];
    assert_eq!(counted.len(), 2, "{counted:#?}");
    assert!(counted.iter().all(|(_, c)| *c == up), "{counted:#?}");
}

#[test]
fn without_fair_sharing_no_weighted_shares() {
    let text = [
        FLAVORS,
        &in_cohort("a", "team", 4),
        &local_queue("ns-a", "a", ""),
        &workload("ns-a", "a1", 2, ""),
    ]
    .concat();
    let world = settled(&text, &[]);
    assert_eq!(queues(&world)[0].weighted_share, None);
    let c = cohorts(&world);
    // `team` is implicit here (no Cohort object): a root of its own.
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].weighted_share, None);
    assert_eq!(
        (
            c[0].hierarchy.parent_cohort.as_str(),
            c[0].hierarchy.root_cohort.as_str()
        ),
        ("", "team")
    );
}

#[test]
fn a_preemptor_whose_victim_was_taken_is_reported_as_skipped() {
    // `x` in r borrows p's and q's CPU; p1 and q1 (one CPU each) both reclaim theirs from it.
    // p1 (older) preempts; q1's target is taken: one skip for q in that cycle.
    let reclaim = "\n  preemption: {reclaimWithinCohort: Any}";
    let text = [
        FLAVORS,
        &cluster_queue("p", &[("f1", 1)], reclaim),
        &cluster_queue("q", &[("f1", 1)], reclaim),
        &cluster_queue("r", &[("f1", 0)], ""),
        &local_queue("ns-p", "p", ""),
        &local_queue("ns-q", "q", ""),
        &local_queue("ns-r", "r", ""),
        &workload("ns-r", "x", 2, &admitted_on("r", "f1", 2)),
        &workload("ns-p", "p1", 1, "").replace(ADMITTED_AT, "2025-12-31T23:10:00Z"),
        &workload("ns-q", "q1", 1, "").replace(ADMITTED_AT, "2025-12-31T23:20:00Z"),
    ]
    .concat();
    let world = settled(&text, &[]);
    let skips: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::PreemptionSkips(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        skips.first(),
        Some(&vec![("q".to_string(), 1)]),
        "{skips:#?}"
    );
    // x went (no Job: evicted and released at once), then both were admitted.
    let admitted = world
        .metrics
        .iter()
        .filter(|m| matches!(m, MetricUpdate::Admitted { .. }))
        .count();
    assert_eq!(admitted, 2);
    let released: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::EvictionReleased {
                cluster_queue,
                reason,
                seconds,
            } => Some((cluster_queue.as_str(), reason.as_str(), *seconds)),
            _ => None,
        })
        .collect();
    assert_eq!(released, [("r", "Preempted", 0.0)]);
}
