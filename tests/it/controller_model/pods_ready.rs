//! `waitForPodsReady`, both ways: `simulate` on the objects as files and the controller's
//! model with a pretend API server must write the same Workloads (admission, conditions
//! with reasons and messages, eviction counts, `requeueState`): `blockAdmission` holding the
//! next admission, the `PodsReadyTimeout` eviction with its backoff, the deactivation past
//! `backoffLimitCount`, the requeue once the backoff is over, `PodsReady` from a Job's
//! status, step by step, and `recoveryTimeout` once a ready Job loses a pod; and the metric updates on the way (time to ready, pods ready until
//! evicted, eviction until release, Workload creation latency).

use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use kubectl_kueue::metrics::MetricUpdate;

use super::parity::{
    ADMITTED_AT, FLAVORS, Shape, admitted_on, both_ways, cluster_queue, condition, files_of, job,
    local_queue, shapes, simulated, workload, world_of,
};
use super::world::World;

/// The Configuration: 10 minutes to get ready, one requeue allowed, 60 s base backoff.
fn config(block: bool) -> String {
    format!(
        "---
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  timeout: 10m
  blockAdmission: {block}
  requeuingStrategy: {{backoffLimitCount: 1, backoffBaseSeconds: 60, backoffMaxSeconds: 3600}}
"
    )
}

/// `workload` created `minutes` after [`ADMITTED_AT`] (queue order).
fn created_later(ns: &str, name: &str, cpu: u32, minutes: u32, status: &str) -> String {
    workload(ns, name, cpu, status).replace(
        &format!("creationTimestamp: '{ADMITTED_AT}'"),
        &format!("creationTimestamp: '2025-12-31T23:{minutes:02}:00Z'"),
    )
}

const WAITING: &str = "waiting for all admitted workloads to be in PodsReady condition";

#[test]
fn block_admission_holds_the_next_admission_until_the_admitted_are_ready() {
    let story = [
        config(true),
        cluster_queue("a", &[("f1", 8)], ""),
        local_queue("ns-a", "a", ""),
        created_later("ns-a", "first", 2, 1, ""),
        created_later("ns-a", "second", 2, 2, ""),
        created_later("ns-a", "third", 2, 3, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    assert!(ends["first"].0.is_some(), "the first is admitted");
    for held in ["second", "third"] {
        let s = &ends[held];
        assert!(s.0.is_none(), "{held} is held: {s:#?}");
        assert_eq!(
            condition(s, "QuotaReserved"),
            ("False", "WaitingForPodsReady", WAITING)
        );
    }
    // Without blockAdmission all three fit.
    let free = both_ways(&story.replace("blockAdmission: true", "blockAdmission: false"));
    assert!(free.values().all(|s| s.0.is_some()), "{free:#?}");
}

#[test]
fn a_workload_not_ready_in_time_is_evicted_with_a_backoff_and_its_quota_reused() {
    // Admitted an hour ago, never ready: past the 10 minutes.
    let story = [
        config(true),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        workload("ns-a", "slow", 4, &admitted_on("a", "f1", 4)),
        created_later("ns-a", "next", 4, 5, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    let slow = &ends["slow"];
    assert!(slow.0.is_none(), "released: {slow:#?}");
    let message = "Exceeded the PodsReady timeout ns-a/slow";
    assert_eq!(
        condition(slow, "Evicted"),
        ("True", "PodsReadyTimeout", message)
    );
    assert_eq!(
        condition(slow, "Requeued"),
        ("False", "PodsReadyTimeout", message)
    );
    assert_eq!(
        slow.2,
        vec![("PodsReadyTimeout/WaitForStart".to_string(), 1)]
    );
    // One requeue counted, 60 s from now (the world's clock: 2026-01-01T00:00:00Z).
    assert_eq!(
        slow.4,
        Some((Some(1), Some("2026-01-01T00:01:00Z".to_string())))
    );
    assert!(ends["next"].0.is_some(), "the freed quota is used");
}

#[test]
fn past_the_requeue_limit_the_workload_is_deactivated() {
    let story = [
        config(false),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        workload(
            "ns-a",
            "slow",
            4,
            &admitted_on("a", "f1", 4)
                .replace("status:\n", "status:\n  requeueState: {count: 1}\n"),
        ),
    ]
    .concat();
    let ends = both_ways(&story);
    let slow = &ends["slow"];
    assert!(slow.0.is_none(), "{slow:#?}");
    assert_eq!(
        condition(slow, "Evicted"),
        (
            "True",
            "DeactivatedDueToRequeuingLimitExceeded",
            "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
        )
    );
    assert_eq!(
        slow.2,
        vec![("Deactivated/RequeuingLimitExceeded".to_string(), 1)]
    );
    assert_eq!(slow.4, None, "the requeue state goes with the deactivation");
    assert!(!slow.1.iter().any(|c| c.0 == "DeactivationTarget"));
}

#[test]
fn once_the_backoff_is_over_the_workload_queues_again() {
    let evicted = format!(
        "status:
  requeueState: {{count: 1, requeueAt: '{ADMITTED_AT}'}}
  conditions:
  - {{type: Evicted, status: 'True', reason: PodsReadyTimeout, message: Exceeded the PodsReady timeout ns-a/back, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: Requeued, status: 'False', reason: PodsReadyTimeout, message: Exceeded the PodsReady timeout ns-a/back, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: QuotaReserved, status: 'False', reason: PendingEvaluation, message: Exceeded the PodsReady timeout ns-a/back, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: Admitted, status: 'False', reason: NoReservation, message: The workload has no reservation, lastTransitionTime: '{ADMITTED_AT}'}}
"
    );
    let story = [
        config(false),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        workload("ns-a", "back", 4, &evicted),
    ]
    .concat();
    let ends = both_ways(&story);
    let back = &ends["back"];
    assert!(back.0.is_some(), "admitted again: {back:#?}");
    assert_eq!(
        condition(back, "Requeued"),
        (
            "True",
            "BackoffFinished",
            "The workload backoff was finished"
        )
    );
    assert_eq!(back.4, Some((Some(1), None)), "the count stays");
}

fn workload_of<'a>(s: &'a std::collections::BTreeMap<String, Shape>, job: &str) -> &'a Shape {
    s.iter()
        .find(|(n, _)| n.starts_with(&format!("job-{job}-")))
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no Workload for Job {job}: {s:#?}"))
}

#[test]
fn a_jobs_ready_pods_make_its_workload_ready_and_let_the_next_one_in() {
    let base = [
        FLAVORS.to_string(),
        config(true),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
    ]
    .concat();
    // Step 1: `one` is queued, admitted and started, its pod not ready.
    let mut world = world_of(&format!("{base}{}", job("ns-a", "one", 2, "")));
    let actions = world.start();
    world.settle(actions);
    // Step 2, a second later: `two` comes and is held.
    world.advance(Duration::from_secs(1));
    let two = job("ns-a", "two", 2, "");
    let before = files_of(&world, &base, None);
    let two_obj: Job = serde_yaml::from_str(two.trim_start_matches("---\n")).unwrap();
    let actions = world.put_job(two_obj);
    world.settle(actions);
    let live = shapes(&world);
    let offline = simulated(&format!("{before}{two}"), world.now.wall);
    assert_eq!(offline, live, "step 2 differs");
    let one = workload_of(&live, "one");
    assert!(one.0.is_some());
    assert_eq!(
        condition(one, "PodsReady"),
        (
            "False",
            "WaitForStart",
            "Not all pods are ready or succeeded"
        )
    );
    assert_eq!(
        condition(workload_of(&live, "two"), "QuotaReserved"),
        ("False", "WaitingForPodsReady", WAITING)
    );
    // Step 3, a minute later: `one`'s pod is ready.
    world.advance(Duration::from_secs(60));
    let mut running: Job = (*world.job("ns-a", "one")).clone();
    assert_eq!(
        running.spec.as_ref().unwrap().suspend,
        Some(false),
        "started"
    );
    running.status.get_or_insert_with(Default::default).ready = Some(1);
    let before = files_of(&world, &base, Some(&running));
    let actions = world.put_job(running);
    world.settle(actions);
    let live = shapes(&world);
    let offline = simulated(&before, world.now.wall);
    assert_eq!(offline, live, "step 3 differs");
    assert_eq!(
        condition(workload_of(&live, "one"), "PodsReady"),
        (
            "True",
            "Started",
            "All pods reached readiness and the workload is running"
        )
    );
    assert!(workload_of(&live, "two").0.is_some(), "let in: {live:#?}");
    // Upstream's time-to-ready histograms, once: 61 s after its creation and admission.
    let ready: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::PodsReady {
                cluster_queue,
                queued_seconds,
                admitted_seconds,
                ..
            } => Some((cluster_queue.as_str(), *queued_seconds, *admitted_seconds)),
            _ => None,
        })
        .collect();
    assert_eq!(ready, [("a", 61.0, 61.0)]);
    // Each Workload was created an hour (and a second) after its Job.
    let created: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::WorkloadCreated { job_kind, seconds } => {
                Some((job_kind.as_str(), *seconds))
            }
            _ => None,
        })
        .collect();
    assert_eq!(created, [("Job", 3600.0), ("Job", 3601.0)]);

    // Step 4, 30 s later: `one` is deactivated; its pods had been ready for 30 s.
    world.advance(Duration::from_secs(30));
    let name = world
        .cache
        .workloads
        .keys()
        .find(|k| k.name.starts_with("job-one-"))
        .unwrap()
        .name
        .clone();
    let mut w = (*world.workload("ns-a", &name)).clone();
    w.spec.active = false;
    let actions = world.put_workload(w);
    world.settle(actions);
    let evicted: Vec<_> = world
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricUpdate::Evicted {
                reason,
                pods_ready_seconds,
                ..
            } => Some((reason.as_str(), *pods_ready_seconds)),
            _ => None,
        })
        .collect();
    assert_eq!(evicted, [("Deactivated", Some(30.0))]);
    // Its readiness does not count again.
    assert_eq!(
        world
            .metrics
            .iter()
            .filter(|m| matches!(m, MetricUpdate::PodsReady { .. }))
            .count(),
        1
    );
}

#[test]
fn the_controller_evicts_when_the_timeout_runs_out_and_requeues_after_the_backoff() {
    let text = [
        FLAVORS.to_string(),
        config(false),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        job("ns-a", "stuck", 2, ""),
    ]
    .concat();
    let mut world = world_of(&text);
    let actions = world.start();
    world.settle(actions);
    let wl_name = |world: &World| {
        world
            .cache
            .workloads
            .values()
            .next()
            .unwrap()
            .metadata
            .name
            .clone()
            .unwrap()
    };
    let name = wl_name(&world);
    let evicted = |world: &World| {
        world.workload("ns-a", &name).status.as_ref().and_then(|s| {
            s.condition("Evicted")
                .map(|c| (c.status.clone(), c.reason.clone()))
        })
    };
    world.advance(Duration::from_secs(599));
    let actions = world.tick();
    world.settle(actions);
    assert_eq!(evicted(&world), None, "one second left");
    world.advance(Duration::from_secs(1));
    let actions = world.tick();
    world.settle(actions);
    assert_eq!(
        evicted(&world),
        Some(("True".into(), "PodsReadyTimeout".into()))
    );
    assert_eq!(
        world
            .events_of(&name)
            .iter()
            .find(|e| e.0.starts_with("Evicted"))
            .map(|e| e.0.as_str()),
        Some("EvictedDueToPodsReadyTimeout")
    );
    // The Job is stopped with no pods: the quota goes, Requeued=False for 60 s.
    let w = world.workload("ns-a", &name);
    let st = w.status.as_ref().unwrap();
    assert!(st.admission.is_none(), "released");
    // Never ready: no pods-ready-to-evicted time; released at once after the eviction.
    let metrics: Vec<_> = world
        .metrics
        .iter()
        .filter(|m| {
            matches!(
                m,
                MetricUpdate::Evicted { .. } | MetricUpdate::EvictionReleased { .. }
            )
        })
        .collect();
    assert!(
        matches!(
            metrics.as_slice(),
            [
                MetricUpdate::Evicted {
                    pods_ready_seconds: None,
                    ..
                },
                MetricUpdate::EvictionReleased {
                    cluster_queue,
                    reason,
                    seconds,
                }
            ] if cluster_queue == "a" && reason == "PodsReadyTimeout" && *seconds == 0.0
        ),
        "{metrics:#?}"
    );
    assert_eq!(st.requeue_state.as_ref().and_then(|r| r.count), Some(1));
    world.advance(Duration::from_secs(59));
    let actions = world.tick();
    world.settle(actions);
    assert!(
        world
            .workload("ns-a", &name)
            .status
            .as_ref()
            .unwrap()
            .admission
            .is_none()
    );
    world.advance(Duration::from_secs(1));
    let actions = world.tick();
    world.settle(actions);
    let w = world.workload("ns-a", &name);
    let st = w.status.as_ref().unwrap();
    assert_eq!(
        st.condition("Requeued").map(|c| c.reason.as_str()),
        Some("BackoffFinished")
    );
    assert!(st.admission.is_some(), "admitted again after the backoff");
    // Not ready again within 10 minutes: one requeue was allowed, so it is deactivated.
    world.advance(Duration::from_secs(600));
    let actions = world.tick();
    world.settle(actions);
    let w = world.workload("ns-a", &name);
    assert!(!w.spec.active, "deactivated");
    assert_eq!(
        w.status
            .as_ref()
            .unwrap()
            .condition("Evicted")
            .map(|c| c.reason.as_str()),
        Some("DeactivatedDueToRequeuingLimitExceeded")
    );
}

#[test]
fn requeuing_timestamp_decides_where_a_timed_out_workload_queues() {
    // `old` was created first but evicted for the timeout after `young` was created; its
    // backoff is over. One fits.
    let requeued = "status:
  requeueState: {count: 1}
  conditions:
  - {type: Evicted, status: 'True', reason: PodsReadyTimeout, message: Exceeded the PodsReady timeout ns-a/old, lastTransitionTime: '2025-12-31T23:30:00Z'}
  - {type: Requeued, status: 'True', reason: BackoffFinished, message: The workload backoff was finished, lastTransitionTime: '2025-12-31T23:31:00Z'}
  - {type: QuotaReserved, status: 'False', reason: PendingEvaluation, message: Exceeded the PodsReady timeout ns-a/old, lastTransitionTime: '2025-12-31T23:30:00Z'}
";
    let story = |timestamp: &str| {
        [
            config(false).replace(
                "backoffLimitCount: 1,",
                &format!("timestamp: {timestamp}, backoffLimitCount: 1,"),
            ),
            cluster_queue("a", &[("f1", 4)], ""),
            local_queue("ns-a", "a", ""),
            workload("ns-a", "old", 4, requeued),
            created_later("ns-a", "young", 4, 10, ""),
        ]
        .concat()
    };
    let by_eviction = both_ways(&story("Eviction"));
    assert!(by_eviction["young"].0.is_some(), "{by_eviction:#?}");
    assert!(by_eviction["old"].0.is_none());
    let by_creation = both_ways(&story("Creation"));
    assert!(by_creation["old"].0.is_some(), "{by_creation:#?}");
    assert!(by_creation["young"].0.is_none());
}

#[test]
fn a_workload_that_loses_readiness_is_evicted_after_the_recovery_timeout() {
    // Ready a minute after it started, then a pod fails: `recoveryTimeout` (3 minutes, not
    // the 10 of `timeout`) counts from the moment `PodsReady` turned False. Each step is
    // compared with `simulate` on the objects the controller left, at the same time.
    let base = [
        FLAVORS.to_string(),
        config(false).replace(
            "  timeout: 10m\n",
            "  timeout: 10m\n  recoveryTimeout: 3m\n",
        ),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
    ]
    .concat();
    let mut world = world_of(&format!("{base}{}", job("ns-a", "one", 2, "")));
    let actions = world.start();
    world.settle(actions);
    // A change to the Job `seconds` later, both ways.
    let job_step = |world: &mut World, seconds: u64, ready: i32| {
        world.advance(Duration::from_secs(seconds));
        let mut j: Job = (*world.job("ns-a", "one")).clone();
        j.status.get_or_insert_with(Default::default).ready = Some(ready);
        let before = files_of(world, &base, Some(&j));
        let actions = world.put_job(j);
        world.settle(actions);
        let live = shapes(world);
        assert_eq!(
            simulated(&before, world.now.wall),
            live,
            "ready {ready}: simulate and the controller disagree"
        );
        live
    };
    // Only time passing, both ways.
    let time_step = |world: &mut World, seconds: u64| {
        let before = files_of(world, &base, None);
        world.advance(Duration::from_secs(seconds));
        let actions = world.tick();
        world.settle(actions);
        let live = shapes(world);
        assert_eq!(
            simulated(&before, world.now.wall),
            live,
            "after {seconds} s: simulate and the controller disagree"
        );
        live
    };
    let live = job_step(&mut world, 60, 1);
    assert_eq!(
        condition(workload_of(&live, "one"), "PodsReady").1,
        "Started"
    );
    let live = job_step(&mut world, 60, 0);
    let one = workload_of(&live, "one");
    assert_eq!(
        condition(one, "PodsReady"),
        (
            "False",
            "WaitForRecovery",
            "At least one pod has failed, waiting for recovery"
        )
    );
    // 2 minutes after it was admitted, the 10-minute `timeout` is not what counts now:
    // one second short of the recovery timeout, still admitted.
    let live = time_step(&mut world, 179);
    let one = workload_of(&live, "one");
    assert!(one.0.is_some(), "one second left: {one:#?}");
    assert!(!one.1.iter().any(|c| c.0 == "Evicted"));
    let live = time_step(&mut world, 1);
    let (name, one) = live
        .iter()
        .find(|(n, _)| n.starts_with("job-one-"))
        .unwrap();
    assert!(one.0.is_none(), "released: {one:#?}");
    let message = format!("Exceeded the PodsReady timeout ns-a/{name}");
    assert_eq!(
        condition(one, "Evicted"),
        ("True", "PodsReadyTimeout", message.as_str())
    );
    assert_eq!(
        condition(one, "Requeued"),
        ("False", "PodsReadyTimeout", message.as_str())
    );
    assert_eq!(
        one.2,
        vec![("PodsReadyTimeout/WaitForRecovery".to_string(), 1)]
    );
    // No longer admitted: the job reconciler starts over (simulate did not, before).
    assert_eq!(
        condition(one, "PodsReady"),
        (
            "False",
            "WaitForStart",
            "Not all pods are ready or succeeded"
        )
    );
    // One requeue counted, 60 s from now (the world's clock began at 2026-01-01T00:00:00Z).
    assert_eq!(
        one.4,
        Some((Some(1), Some("2026-01-01T00:06:00Z".to_string())))
    );
    assert_eq!(
        world
            .events_of(name)
            .iter()
            .find(|e| e.0.starts_with("Evicted"))
            .map(|e| e.0.as_str()),
        Some("EvictedDueToPodsReadyTimeout")
    );
}
