//! The gauges' figures on a small hierarchy: root cohort `org` (explicit, 1 CPU of its own)
//! over implicit `team`, which holds ClusterQueues `a` (3 CPUs) and `b` (2 CPUs, lending at
//! most 1); a cyclic pair `x` <-> `y` with ClusterQueue `c` under `x`.

use std::collections::BTreeMap;

use crate::scheduler::model::*;
use crate::scheduler::quantity::Amount;
use crate::scheduler::state::Engine;

fn cpu(nominal: i64, lending: Option<i64>) -> Vec<ResourceGroup> {
    vec![ResourceGroup {
        covered_resources: vec!["cpu".into()],
        flavors: vec![FlavorQuotas {
            name: "f".into(),
            resources: vec![ResourceQuota {
                name: "cpu".into(),
                nominal: Amount::new(nominal),
                borrowing_limit: None,
                lending_limit: lending.map(Amount::new),
            }],
        }],
    }]
}

fn cq(cohort: &str, nominal: i64, lending: Option<i64>) -> ClusterQueue {
    ClusterQueue {
        cohort: Some(cohort.into()),
        resource_groups: cpu(nominal, lending),
        ..Default::default()
    }
}

fn workload(name: &str, queue: &str, cpu_millis: i64, t: i64) -> Workload {
    Workload {
        namespace: "ns".into(),
        name: name.into(),
        queue_name: queue.into(),
        active: true,
        queue_time: t,
        tiebreak: t as u64,
        pod_sets: vec![PodSet {
            name: "main".into(),
            count: 2,
            per_pod: BTreeMap::from([("cpu".into(), Amount::new(cpu_millis))]),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn state() -> ClusterState {
    let mut s = ClusterState::default();
    s.flavors.insert("f".into(), ResourceFlavor::default());
    s.cohorts.insert(
        "org".into(),
        Cohort {
            resource_groups: cpu(1000, None),
            ..Default::default()
        },
    );
    s.cohorts.insert(
        "team".into(),
        Cohort {
            parent: Some("org".into()),
            ..Default::default()
        },
    );
    s.cohorts.insert(
        "x".into(),
        Cohort {
            parent: Some("y".into()),
            ..Default::default()
        },
    );
    s.cohorts.insert(
        "y".into(),
        Cohort {
            parent: Some("x".into()),
            ..Default::default()
        },
    );
    s.cluster_queues.insert("a".into(), cq("team", 3000, None));
    s.cluster_queues
        .insert("b".into(), cq("team", 2000, Some(1000)));
    s.cluster_queues.insert("c".into(), cq("x", 1000, None));
    for q in ["a", "b"] {
        s.local_queues.insert(
            ("ns".into(), q.into()),
            LocalQueue {
                cluster_queue: q.into(),
                ..Default::default()
            },
        );
    }
    s.workloads.push(workload("big", "a", 1000, 1));
    s.workloads.push(workload("small", "b", 250, 2));
    // Asks for more than the whole tree has: stays pending.
    s.workloads.push(workload("huge", "b", 4000, 3));
    let mut done = workload("done", "a", 100, 4);
    done.finished = true;
    s.workloads.push(done);
    s
}

#[test]
fn cohort_figures_sum_the_subtree_and_name_the_hierarchy() {
    let mut e = Engine::new(state());
    e.run_cycle(10);
    let figures = e.cohort_figures();
    let names: Vec<&str> = figures.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["org", "team"], "x and y loop: no figures");
    let org = &figures[0];
    let team = &figures[1];
    assert_eq!((org.parent.as_str(), org.root.as_str()), ("", "org"));
    assert_eq!((team.parent.as_str(), team.root.as_str()), ("org", "org"));
    assert!(org.explicit && team.explicit);
    let f = |v: i64| vec![("f".to_string(), "cpu".to_string(), Amount::new(v))];
    // team: a's 3 plus b's lendable 1; org adds its own 1.
    assert_eq!(team.subtree_quota, f(4000));
    assert_eq!(org.subtree_quota, f(5000));
    // Both admitted workloads reserve in the subtree: 2 + 0.5 CPUs.
    assert_eq!(team.subtree_reservations, f(2500));
    assert_eq!(org.subtree_reservations, f(2500));
    assert_eq!((team.admitted, org.admitted), (2, 2));
    assert_eq!(team.weighted_share, 0.0);
}

#[test]
fn queues_know_their_hierarchy_and_the_cohorts_above() {
    let e = Engine::new(state());
    let h = e.hierarchy("a").unwrap();
    assert_eq!((h.parent.as_str(), h.root.as_str()), ("team", "org"));
    assert_eq!(e.cohorts_above("a"), ["team", "org"]);
    // Its cohort's ancestry loops: no hierarchy, no cohorts.
    assert_eq!(e.hierarchy("c").unwrap(), Default::default());
    assert!(e.cohorts_above("c").is_empty());
    assert!(e.hierarchy("nope").is_none());
}

#[test]
fn pending_requests_cover_configured_resources_and_count_pods() {
    let mut e = Engine::new(state());
    e.run_cycle(10);
    let pending: BTreeMap<String, BTreeMap<String, Amount>> =
        e.pending_requests().into_iter().collect();
    assert_eq!(pending["a"], BTreeMap::from([("cpu".into(), Amount::ZERO)]));
    // `huge`: two pods of 4 CPUs.
    assert_eq!(
        pending["b"],
        BTreeMap::from([("cpu".into(), Amount::new(8000))])
    );
    assert_eq!(
        e.finished_per_local_queue(),
        BTreeMap::from([(("ns".to_string(), "a".to_string()), 1)])
    );
}
