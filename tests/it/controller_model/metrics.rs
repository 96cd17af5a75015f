//! The model's LocalQueue metric updates (`kueue_local_queue_*`): named only for LocalQueues
//! whose labels match `metrics.localQueueMetrics.localQueueSelector`, none at all when
//! LocalQueue metrics are off; and the registry rendering them with upstream's names and
//! labels.

use std::collections::BTreeMap;

use kubectl_kueue::controller::model::Settings;
use kubectl_kueue::metrics::{LocalQueueRef, MetricUpdate, Metrics, Role};
use kubectl_kueue::scheduler::labels::LabelSelector;

use super::builders::*;
use super::world::*;

/// ClusterQueue `cq` (4 CPUs) with LocalQueues `ns/a` (labelled `team: a`) and `ns/b`, one
/// 1-CPU Workload in each, settled.
fn story(local_queue_metrics: Option<LabelSelector>) -> World {
    let mut world = World::with(Settings {
        local_queue_metrics,
        ..Settings::default()
    });
    world.cache.put_flavor(flavor("default-flavor", ""));
    world
        .cache
        .put_cluster_queue(cluster_queue("cq", "default-flavor", "cpu", "4"));
    let mut a = local_queue("ns", "a", "cq");
    a.metadata.labels = Some(BTreeMap::from([("team".into(), "a".into())]));
    world.cache.put_local_queue(a);
    world.cache.put_local_queue(local_queue("ns", "b", "cq"));
    world
        .cache
        .put_workload(workload(&world, "ns", "wa", "a", 1));
    world
        .cache
        .put_workload(workload(&world, "ns", "wb", "b", 1));
    let first = world.start();
    world.settle(first);
    // The queue gauges are recomputed at most every second.
    world.advance(std::time::Duration::from_secs(2));
    let tick = world.tick();
    world.settle(tick);
    world
}

fn team_a() -> LabelSelector {
    LabelSelector {
        match_labels: BTreeMap::from([("team".into(), "a".into())]),
        ..Default::default()
    }
}

fn admitted_local_queues(world: &World) -> Vec<Option<LocalQueueRef>> {
    world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::Admitted { local_queue, .. } => Some(local_queue.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn local_queue_metrics_name_only_the_selected_local_queues() {
    let world = story(Some(team_a()));
    let a = LocalQueueRef {
        namespace: "ns".into(),
        name: "a".into(),
    };
    let mut admitted = admitted_local_queues(&world);
    admitted.sort();
    assert_eq!(admitted, [None, Some(a.clone())]);
    let last = world
        .metrics
        .iter()
        .rev()
        .find_map(|m| match m {
            MetricUpdate::LocalQueueState(s) => Some(s.clone()),
            _ => None,
        })
        .expect("LocalQueue gauges");
    let [state] = last.as_slice() else {
        panic!("only ns/a: {last:#?}")
    };
    assert_eq!(state.queue, a);
    assert_eq!((state.reserving, state.admitted), (1, 1));
    assert_eq!(state.active, "True");
    assert_eq!(
        state.resources,
        [("default-flavor".to_string(), "cpu".to_string(), 1.0, 1.0)]
    );

    // The registry renders them with upstream's names and labels.
    let metrics = Metrics::new(Role::Standalone, false, true);
    for m in &world.metrics {
        metrics.record(m);
    }
    let text = metrics.encode();
    for line in [
        r#"kueue_local_queue_admitted_workloads_total{name="a",namespace="ns",priority_class="",replica_role="standalone"} 1"#,
        r#"kueue_local_queue_quota_reserved_workloads_total{name="a",namespace="ns",priority_class="",replica_role="standalone"} 1"#,
        r#"kueue_local_queue_admission_wait_time_seconds_count{name="a",namespace="ns",priority_class="",replica_role="standalone"} 1"#,
        r#"kueue_local_queue_reserving_active_workloads{name="a",namespace="ns",replica_role="standalone"} 1"#,
        r#"kueue_local_queue_status{name="a",namespace="ns",active="True",replica_role="standalone"} 1"#,
        r#"kueue_local_queue_status{name="a",namespace="ns",active="False",replica_role="standalone"} 0"#,
        r#"kueue_local_queue_pending_workloads{name="a",namespace="ns",status="active",replica_role="standalone"} 0"#,
        r#"kueue_local_queue_resource_usage{name="a",namespace="ns",flavor="default-flavor",resource="cpu",replica_role="standalone"} 1"#,
        r#"kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 2"#,
        r#"kueue_admission_checks_wait_time_seconds_count{cluster_queue="cq",priority_class="",replica_role="standalone"} 2"#,
    ] {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
    assert!(!text.contains(r#"name="b""#), "{text}");
}

#[test]
fn without_local_queue_metrics_the_model_names_no_local_queue() {
    let world = story(None);
    assert_eq!(admitted_local_queues(&world), [None, None]);
    assert!(
        !world
            .metrics
            .iter()
            .any(|m| matches!(m, MetricUpdate::LocalQueueState(_)))
    );
    let metrics = Metrics::new(Role::Standalone, false, false);
    for m in &world.metrics {
        metrics.record(m);
    }
    let text = metrics.encode();
    assert!(!text.contains("kueue_local_queue_"), "{text}");
    assert!(text.contains("kueue_admitted_workloads_total"), "{text}");
}
