use super::*;
use crate::scheduler::model::{Admission, PodSetAdmission};
use std::collections::BTreeMap;

fn cfg(limit: Option<i32>) -> PodsReadyConfig {
    PodsReadyConfig {
        timeout_ms: 10_000,
        recovery_timeout_ms: Some(4_000),
        block_admission: true,
        order_by_eviction: true,
        backoff_limit_count: limit,
        backoff_base_seconds: 5,
        backoff_max_seconds: 12,
    }
}

fn admitted_at(at: Millis) -> Workload {
    let mut w: Workload =
        serde_yaml::from_str("metadata: {name: w, namespace: ns}\nspec: {podSets: []}\n").unwrap();
    let mut st = WorkloadStatus::default();
    let adm = Admission {
        cluster_queue: "cq".into(),
        pod_sets: vec![PodSetAdmission {
            name: "main".into(),
            flavors: BTreeMap::new(),
            resource_usage: BTreeMap::new(),
            count: 1,
        }],
    };
    crate::status::admit(&mut st, &adm, at);
    w.status = Some(st);
    w
}

fn cond(w: &Workload, t: &str) -> (String, String, String) {
    let c = w.status.as_ref().unwrap().condition(t).unwrap();
    (c.status.clone(), c.reason.clone(), c.message.clone())
}

#[test]
fn the_backoff_doubles_from_the_base_up_to_the_cap() {
    let c = cfg(None);
    assert_eq!(
        (1..=4).map(|n| backoff_ms(&c, n)).collect::<Vec<_>>(),
        [5_000, 10_000, 12_000, 12_000]
    );
    let uncapped = PodsReadyConfig {
        backoff_max_seconds: 0,
        ..cfg(None)
    };
    assert_eq!(backoff_ms(&uncapped, 4), 40_000);
}

#[test]
fn an_admitted_workload_not_ready_in_time_is_evicted_and_counted() {
    let w = admitted_at(1_000);
    let c = cfg(None);
    assert_eq!(
        step(&w, &c, 5_000),
        Some(PodsReadyStep::LookAgainAt(11_000))
    );
    let Some(PodsReadyStep::Evict(e)) = step(&w, &c, 11_000) else {
        panic!("timed out at 11 s");
    };
    assert_eq!(e.reason, "PodsReadyTimeout");
    assert_eq!(e.cause, WAIT_FOR_START);
    assert_eq!(e.message, "Exceeded the PodsReady timeout ns/w");
    assert_eq!(e.event_reason(), "EvictedDueToPodsReadyTimeout");
    assert!(e.first);
    let rs = e.status.requeue_state.clone().unwrap();
    assert_eq!(rs.count, Some(1));
    assert_eq!(rs.requeue_at.map(|t| millis(&t)), Some(16_000));
    let stats = e.status.scheduling_stats.clone().unwrap();
    assert_eq!(
        (
            stats.evictions[0].reason.as_str(),
            stats.evictions[0].underlying_cause.as_str()
        ),
        ("PodsReadyTimeout", WAIT_FOR_START)
    );
    // Evicted: not evicted again while its pods stop.
    let mut evicted = w.clone();
    evicted.status = Some(e.status.clone());
    assert_eq!(step(&evicted, &c, 12_000), None);
    // Released: Requeued=False until requeueAt, then BackoffFinished.
    let mut st = e.status;
    crate::status::release(&mut st, 12_000);
    evicted.status = Some(st);
    assert_eq!(
        cond(&evicted, condition::REQUEUED).0,
        "False",
        "no requeue before the backoff"
    );
    assert_eq!(
        step(&evicted, &c, 13_000),
        Some(PodsReadyStep::LookAgainAt(16_000))
    );
    let Some(PodsReadyStep::BackoffFinished(done)) = step(&evicted, &c, 16_000) else {
        panic!("backoff over at 16 s");
    };
    let r = done.condition(condition::REQUEUED).unwrap();
    assert_eq!(
        (r.status.as_str(), r.reason.as_str(), r.message.as_str()),
        ("True", BACKOFF_FINISHED, BACKOFF_FINISHED_MESSAGE)
    );
    let rs = done.requeue_state.clone().unwrap();
    assert_eq!((rs.count, rs.requeue_at), (Some(1), None));
    evicted.status = Some(*done);
    assert_eq!(step(&evicted, &c, 17_000), None);
}

#[test]
fn a_ready_workload_is_left_alone_and_a_lost_one_gets_the_recovery_timeout() {
    let mut w = admitted_at(0);
    let c = cfg(None);
    assert!(set_for_job(&mut w, true, 2_000));
    assert_eq!(
        cond(&w, condition::PODS_READY),
        ("True".into(), STARTED.into(), READY_MESSAGE.into())
    );
    assert!(is_ready(&w));
    assert_eq!(step(&w, &c, 100_000), None);
    assert!(!set_for_job(&mut w, true, 3_000), "nothing new to write");
    // A pod fails at 20 s: 4 s to recover.
    assert!(set_for_job(&mut w, false, 20_000));
    assert_eq!(cond(&w, condition::PODS_READY).1, WAIT_FOR_RECOVERY);
    assert_eq!(
        step(&w, &c, 21_000),
        Some(PodsReadyStep::LookAgainAt(24_000))
    );
    let Some(PodsReadyStep::Evict(e)) = step(&w, &c, 24_000) else {
        panic!("recovery timed out");
    };
    assert_eq!(e.cause, WAIT_FOR_RECOVERY);
    // Recovered in time instead: `Recovered`.
    assert!(set_for_job(&mut w, true, 22_000));
    assert_eq!(cond(&w, condition::PODS_READY).1, RECOVERED);
    // Without a recovery timeout, it waits for ever.
    let mut lost = w.clone();
    set_for_job(&mut lost, false, 30_000);
    let no_recovery = PodsReadyConfig {
        recovery_timeout_ms: None,
        ..cfg(None)
    };
    assert_eq!(step(&lost, &no_recovery, 1_000_000), None);
}

#[test]
fn beyond_the_limit_the_workload_is_marked_for_deactivation() {
    let mut w = admitted_at(0);
    w.status.as_mut().unwrap().requeue_state = Some(RequeueState {
        count: Some(2),
        requeue_at: None,
    });
    let Some(PodsReadyStep::Mark(st)) = step(&w, &cfg(Some(2)), 10_000) else {
        panic!("two requeues allowed, a third timeout deactivates");
    };
    let c = st.condition(condition::DEACTIVATION_TARGET).unwrap();
    assert_eq!(
        (c.reason.as_str(), c.message.as_str()),
        (REQUEUING_LIMIT_EXCEEDED, REQUEUING_LIMIT_MESSAGE)
    );
    assert!(matches!(
        step(&w, &cfg(Some(3)), 10_000),
        Some(PodsReadyStep::Evict(_))
    ));
    // Marked: the maximum-execution-time path deactivates it, and the deactivation
    // names the cause and drops the requeue state.
    w.status = Some(*st);
    assert_eq!(
        super::super::max_exec::step(&w, 10_000),
        Some(super::super::max_exec::MaxExecStep::Deactivate)
    );
}

#[test]
fn a_pending_workload_waits_for_start() {
    let mut w: Workload =
        serde_yaml::from_str("metadata: {name: w, namespace: ns}\nspec: {podSets: []}\n").unwrap();
    assert!(set_for_job(&mut w, true, 0), "not admitted: WaitForStart");
    assert_eq!(
        cond(&w, condition::PODS_READY),
        (
            "False".into(),
            WAIT_FOR_START.into(),
            NOT_READY_MESSAGE.into()
        )
    );
    assert_eq!(step(&w, &cfg(None), 1_000_000), None);
}
