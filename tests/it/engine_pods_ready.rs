//! `waitForPodsReady.blockAdmission` in the engine: while a workload holding quota is not
//! `PodsReady`, a workload that fits waits (`WaitingForPodsReady`), whatever the queueing
//! strategy; the gate opens as soon as the last not-ready one is ready or gone; a preemptor
//! still issues its preemptions; without `blockAdmission` nothing is held.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::{Decision, PendingReason};
use kubectl_kueue::scheduler::model::PodsReadyConfig;
use kubectl_kueue::scheduler::model::PreemptionPolicy;

const WAITING: &str = "waiting for all admitted workloads to be in PodsReady condition";

fn pods_ready(block: bool) -> PodsReadyConfig {
    PodsReadyConfig {
        timeout_ms: 300_000,
        recovery_timeout_ms: None,
        block_admission: block,
        order_by_eviction: true,
        backoff_limit_count: None,
        backoff_base_seconds: 60,
        backoff_max_seconds: 3600,
    }
}

fn with_gate(c: Cq, block: bool) -> Scenario {
    let mut s = scenario()
        .flavor("default", &[])
        .cq(c.quota("default", "cpu", "8"));
    s.state.config.pods_ready = Some(pods_ready(block));
    s
}

fn ready(mut w: Wl, is_ready: bool) -> Wl {
    w.0.pods_ready = is_ready;
    w
}

#[test]
fn an_admitted_workload_not_ready_holds_one_that_fits() {
    for c in [cq("q"), cq("q").strict_fifo()] {
        let out = with_gate(c, true)
            .wl(ready(
                wl("ns", "running", "q")
                    .req("cpu", "2")
                    .created(1)
                    .admitted("q", "default"),
                false,
            ))
            .wl(wl("ns", "next", "q").req("cpu", "2").created(2))
            .run();
        assert_eq!(out.holding("q"), names(&["running"]));
        assert_eq!(
            out.pending("next"),
            Some((PendingReason::WaitingForPodsReady, WAITING.to_string()))
        );
        assert_eq!(
            out.engine.admitted_not_ready(),
            vec![kubectl_kueue::scheduler::WorkloadKey::new("ns", "running")]
        );
    }
}

#[test]
fn ready_admitted_workloads_hold_nothing_and_the_first_admission_holds_the_rest() {
    let out = with_gate(cq("q"), true)
        .wl(ready(
            wl("ns", "running", "q")
                .req("cpu", "2")
                .created(1)
                .admitted("q", "default"),
            true,
        ))
        .wl(wl("ns", "a", "q").req("cpu", "2").created(2))
        .wl(wl("ns", "b", "q").req("cpu", "2").created(3))
        .run();
    // `a` is admitted (nothing not ready before it); being new, it is not ready, so `b` waits.
    assert_eq!(out.holding("q"), names(&["a", "running"]));
    assert_eq!(
        out.pending("b").map(|p| p.0),
        Some(PendingReason::WaitingForPodsReady)
    );
}

#[test]
fn the_gate_opens_when_the_last_not_ready_workload_is_ready() {
    // The not-ready one is in another ClusterQueue, outside `next`'s cohort tree: only the
    // gate opening retries `next`.
    let s = with_gate(cq("q"), true)
        .cq(cq("other").quota("default", "cpu", "8"))
        .wl(ready(
            wl("ns", "running", "other")
                .req("cpu", "2")
                .created(1)
                .admitted("other", "default"),
            false,
        ))
        .wl(wl("ns", "next", "q").req("cpu", "2").created(2));
    let mut engine = s.engine();
    let report = kubectl_kueue::simulate::run_to_fixpoint(&mut engine, NOW);
    assert!(report.converged);
    assert_eq!(
        engine.holding_queue(&kubectl_kueue::scheduler::WorkloadKey::new("ns", "next")),
        None
    );
    let mut now_ready = engine
        .workload(&kubectl_kueue::scheduler::WorkloadKey::new("ns", "running"))
        .unwrap()
        .clone();
    now_ready.pods_ready = true;
    engine.upsert_workload(now_ready);
    let outcome = engine.run_cycle(NOW);
    assert!(
        outcome.decisions.iter().any(|d| d.workload
            == kubectl_kueue::scheduler::WorkloadKey::new("ns", "next")
            && matches!(d.decision, Decision::Admitted { .. })),
        "{:?}",
        outcome.decisions
    );
}

#[test]
fn a_preemptor_still_preempts_while_admissions_are_held() {
    let out = with_gate(
        cq("q").preemption(PreemptionPolicy::LowerPriority, PreemptionPolicy::Never),
        true,
    )
    .wl(ready(
        wl("ns", "low", "q")
            .req("cpu", "8")
            .created(1)
            .admitted("q", "default"),
        false,
    ))
    .wl(wl("ns", "high", "q")
        .req("cpu", "8")
        .created(2)
        .priority(10))
    .run();
    let victims: Vec<String> = out.preemptions().into_iter().map(|p| p.0).collect();
    assert!(victims.contains(&"low".to_string()), "{victims:?}");
}

#[test]
fn without_block_admission_nothing_is_held() {
    let out = with_gate(cq("q"), false)
        .wl(ready(
            wl("ns", "running", "q")
                .req("cpu", "2")
                .created(1)
                .admitted("q", "default"),
            false,
        ))
        .wl(wl("ns", "next", "q").req("cpu", "2").created(2))
        .run();
    assert_eq!(out.holding("q"), names(&["next", "running"]));
    assert!(out.engine.admitted_not_ready().is_empty());
}
