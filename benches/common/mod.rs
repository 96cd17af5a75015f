//! Generators for the benchmark scenarios: the shape of upstream Kueue's scheduler
//! performance baseline (test/performance/scheduler/configs/baseline), all pending at once.
#![allow(dead_code)]

use std::collections::BTreeMap;

use kubectl_kueue::scheduler::model::*;
use kubectl_kueue::scheduler::quantity::Amount;

pub const NOW: Millis = 1_750_000_000_000;

/// `cohorts` cohorts of `per_cohort` ClusterQueues (nominal 20 cpu, borrowing limit 100,
/// reclaimWithinCohort Any, withinClusterQueue LowerPriority); per ClusterQueue the
/// baseline's mix scaled to `per_cq` workloads: 70% small (1 cpu, priority 50), 20% medium
/// (5, 100), 10% large (20, 200), created in interleaved order.
pub fn baseline(cohorts: usize, per_cohort: usize, per_cq: usize) -> ClusterState {
    scenario(cohorts, per_cohort, per_cq, false)
}

/// Like [`baseline`], but every workload's request differs by a few milli-cpu, so no two
/// are equivalent and each one is evaluated on its own (no parking by equivalence class).
pub fn distinct(cohorts: usize, per_cohort: usize, per_cq: usize) -> ClusterState {
    scenario(cohorts, per_cohort, per_cq, true)
}

fn scenario(cohorts: usize, per_cohort: usize, per_cq: usize, distinct: bool) -> ClusterState {
    let mut s = ClusterState::default();
    s.flavors
        .insert("default".into(), ResourceFlavor::default());
    let mut order = 0u64;
    for c in 0..cohorts {
        for q in 0..per_cohort {
            let name = format!("cq-{c}-{q}");
            s.cluster_queues.insert(
                name.clone(),
                ClusterQueue {
                    cohort: Some(format!("cohort-{c}")),
                    resource_groups: vec![ResourceGroup {
                        covered_resources: vec!["cpu".into()],
                        flavors: vec![FlavorQuotas {
                            name: "default".into(),
                            resources: vec![ResourceQuota {
                                name: "cpu".into(),
                                nominal: Amount::new(20_000),
                                borrowing_limit: Some(Amount::new(100_000)),
                                lending_limit: None,
                            }],
                        }],
                    }],
                    preemption: Preemption {
                        reclaim_within_cohort: PreemptionPolicy::Any,
                        within_cluster_queue: PreemptionPolicy::LowerPriority,
                        borrow_within_cohort: None,
                    },
                    ..Default::default()
                },
            );
            s.local_queues.insert(
                ("ns".into(), name.clone()),
                LocalQueue {
                    cluster_queue: name.clone(),
                    ..Default::default()
                },
            );
            let small = per_cq * 7 / 10;
            let medium = per_cq * 2 / 10;
            let large = per_cq - small - medium;
            let mut classes: Vec<(&str, i64, i32)> = Vec::new();
            classes.extend(std::iter::repeat_n(("small", 1000, 50), small));
            classes.extend(std::iter::repeat_n(("medium", 5000, 100), medium));
            classes.extend(std::iter::repeat_n(("large", 20000, 200), large));
            for (i, (class, cpu, prio)) in classes.into_iter().enumerate() {
                order += 1;
                let cpu = if distinct { cpu + (i as i64 % 97) } else { cpu };
                s.workloads.push(Workload {
                    namespace: "ns".into(),
                    name: format!("{name}-{class}-{i}"),
                    uid: format!("uid-{order}"),
                    queue_name: name.clone(),
                    priority: prio,
                    queue_time: NOW - 1_000_000 + (order as i64) * 10,
                    tiebreak: order,
                    active: true,
                    pod_sets: vec![PodSet {
                        name: "main".into(),
                        count: 1,
                        per_pod: BTreeMap::from([("cpu".into(), Amount::new(cpu))]),
                        ..Default::default()
                    }],
                    ..Default::default()
                });
            }
        }
    }
    s
}

/// The same scenario as YAML manifests (one file of queues, one of workloads).
pub fn baseline_yaml(cohorts: usize, per_cohort: usize, per_cq: usize) -> (String, String) {
    let state = baseline(cohorts, per_cohort, per_cq);
    let mut queues = String::from(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: default\n",
    );
    for (name, cq) in &state.cluster_queues {
        queues.push_str(&format!(
            "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: {name}\nspec:\n  cohort: {}\n  namespaceSelector: {{}}\n  preemption:\n    reclaimWithinCohort: Any\n    withinClusterQueue: LowerPriority\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n      - name: cpu\n        nominalQuota: 20\n        borrowingLimit: 100\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: {name}\n  namespace: ns\nspec:\n  clusterQueue: {name}\n",
            cq.cohort.as_deref().unwrap_or("")
        ));
    }
    let mut workloads = String::new();
    for w in &state.workloads {
        let cpu = w.pod_sets[0].per_pod["cpu"] / 1000;
        workloads.push_str(&format!(
            "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: {}\n  namespace: ns\n  uid: {}\nspec:\n  queueName: {}\n  priority: {}\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n        containers:\n        - name: c\n          image: x\n          resources:\n            requests:\n              cpu: \"{cpu}\"\n",
            w.name, w.uid, w.queue_name, w.priority
        ));
    }
    (queues, workloads)
}
