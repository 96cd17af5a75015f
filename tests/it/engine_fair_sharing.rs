//! Fair sharing: dominant resource shares, admission order, and preemption strategies.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::PreemptionReason;
use kubectl_kueue::scheduler::model::PreemptionPolicy::{LowerPriority, Never};

fn two(a_weight: f64) -> Scenario {
    scenario()
        .fair_sharing()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "10")
            .weight(a_weight)
            .preemption(LowerPriority, LowerPriority))
        .cq(cq("b")
            .cohort("c")
            .quota("default", "cpu", "10")
            .preemption(LowerPriority, LowerPriority))
}

#[test]
fn dominant_resource_share_matches_upstreams_example() {
    // cohort {A: 10 cpu, B: 10 cpu}; A uses 15 -> borrowed 5 of 20 lendable -> 250.
    let out = two(1.0)
        .wl(wl("ns", "a1", "a")
            .req("cpu", "15")
            .admitted("a", "default"))
        .run();
    let (rounded, precise, dominant) = out.engine.weighted_share("a").unwrap();
    assert_eq!(rounded, 250);
    assert!((precise - 250.0).abs() < 1e-9);
    assert_eq!(dominant.as_deref(), Some("cpu"));
    assert_eq!(
        out.engine.weighted_share("b").unwrap().0,
        0,
        "not borrowing"
    );
    let out = two(2.0)
        .wl(wl("ns", "a1", "a")
            .req("cpu", "15")
            .admitted("a", "default"))
        .run();
    assert_eq!(
        out.engine.weighted_share("a").unwrap().0,
        125,
        "a weight of 2 halves the share"
    );
}

#[test]
fn the_queue_with_the_lower_share_goes_first() {
    // a already borrows 3; both want 3 more; only 4 are left: b wins, a gets the rest later.
    let out = two(1.0)
        .wl(wl("ns", "a-held", "a")
            .req("cpu", "13")
            .admitted("a", "default"))
        .wl(wl("ns", "a1", "a").req("cpu", "3").priority(100).created(1))
        .wl(wl("ns", "b1", "b").req("cpu", "3").created(2))
        .run();
    assert_eq!(out.admission_order()[0], "b1");
}

#[test]
fn a_queue_within_nominal_reclaims_from_the_borrower() {
    let out = two(1.0)
        .wl(wl("ns", "a-big", "a")
            .req("cpu", "8")
            .priority(5)
            .admitted("a", "default")
            .reserved_at(1))
        .wl(wl("ns", "a-more", "a")
            .req("cpu", "8")
            .priority(5)
            .admitted("a", "default")
            .reserved_at(2))
        .wl(wl("ns", "b1", "b").req("cpu", "6").priority(10).created(3))
        .run();
    assert_eq!(
        out.preemptions(),
        vec![(
            "a-more".into(),
            "b1".into(),
            PreemptionReason::InCohortReclamation
        )]
    );
    assert!(out.holding("b").contains(&"b1".to_string()));
}

#[test]
fn fair_sharing_preempts_a_bigger_borrower_for_a_smaller_one() {
    // Both borrow; b's share after admitting stays below a's: a's workload is preempted.
    let out = scenario()
        .fair_sharing()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, LowerPriority))
        .cq(cq("b")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, LowerPriority))
        .cq(cq("lender").cohort("c").quota("default", "cpu", "8"))
        .wl(wl("ns", "a1", "a")
            .req("cpu", "6")
            .priority(1)
            .admitted("a", "default")
            .reserved_at(1))
        .wl(wl("ns", "a2", "a")
            .req("cpu", "6")
            .priority(1)
            .admitted("a", "default")
            .reserved_at(2))
        .wl(wl("ns", "b-held", "b")
            .req("cpu", "4")
            .priority(1)
            .admitted("b", "default")
            .reserved_at(3))
        .wl(wl("ns", "b1", "b").req("cpu", "2").priority(5).created(4))
        .run();
    let p = out.preemptions();
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].1, "b1");
    assert!(p[0].0.starts_with("a"));
    assert_eq!(p[0].2, PreemptionReason::InCohortFairSharing);
}

#[test]
fn fair_sharing_does_not_preempt_when_the_preemptor_would_end_up_above_the_target() {
    let out = scenario()
        .fair_sharing()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, LowerPriority))
        .cq(cq("b")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, LowerPriority))
        .cq(cq("lender").cohort("c").quota("default", "cpu", "2"))
        .wl(wl("ns", "a1", "a")
            .req("cpu", "5")
            .priority(1)
            .admitted("a", "default"))
        .wl(wl("ns", "b-held", "b")
            .req("cpu", "5")
            .priority(1)
            .admitted("b", "default"))
        .wl(wl("ns", "b1", "b").req("cpu", "2").priority(5).created(4))
        .run();
    assert!(out.preemptions().is_empty(), "{:?}", out.preemptions());
}

#[test]
fn workloads_that_preempt_each_other_in_turn_are_reported_instead_of_looping() {
    // Found by the property tests: under fair sharing, a low-priority workload within its
    // nominal reclaims from a borrower, a high-priority one in its own queue preempts it,
    // the borrower comes back first, and so on, as upstream Kueue would do forever.
    use kubectl_kueue::scheduler::model::PreemptionPolicy::{Any, LowerOrNewerEqualPriority};
    let out = scenario()
        .fair_sharing()
        .flavor("f1", &[])
        .flavor("f2", &[])
        .cq(cq("q0")
            .cohort("c")
            .preemption(LowerPriority, Any)
            .quota("f1", "cpu", "0")
            .quota("f2", "cpu", "2")
            .borrow_within_cohort(None))
        .cq(cq("q1")
            .cohort("c")
            .preemption(LowerOrNewerEqualPriority, LowerPriority)
            .quota_limits("f1", "cpu", "3", None, Some("3"))
            .quota("f2", "cpu", "2")
            .borrow_within_cohort(None)
            .strict_fifo())
        .wl(wl("ns", "w0", "q1")
            .req("cpu", "3")
            .priority(100)
            .created(456))
        .wl(wl("ns", "w1", "q1")
            .req("cpu", "2")
            .priority(100)
            .created(113))
        .wl(wl("ns", "w2", "q1")
            .req("cpu", "1")
            .priority(50)
            .created(63))
        .wl(wl("ns", "w3", "q0")
            .req("cpu", "1")
            .priority(50)
            .created(752))
        .wl(wl("ns", "w4", "q0")
            .req("cpu", "3")
            .priority(100)
            .created(895))
        .wl(wl("ns", "w5", "q0")
            .req("cpu", "1")
            .priority(0)
            .created(358));
    let mut engine = out.engine();
    let report = kubectl_kueue::simulate::run_to_fixpoint(&mut engine, NOW);
    assert!(!report.converged);
    assert_eq!(report.oscillating, vec!["ns/w0", "ns/w4", "ns/w5"]);
    assert!(
        report.cycles < 50,
        "detected quickly, not at the safety limit"
    );
}
