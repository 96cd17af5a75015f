//! Queue ordering and the cycle's entry order.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::PendingReason;

fn one_queue(c: Cq) -> Scenario {
    scenario()
        .flavor("default", &[])
        .cq(c.quota("default", "cpu", "4"))
}

#[test]
fn priority_comes_before_creation_time_even_under_strict_fifo() {
    let out = one_queue(cq("q").strict_fifo())
        .wl(wl("ns", "old-low", "q").req("cpu", "4").created(1))
        .wl(wl("ns", "new-high", "q")
            .req("cpu", "4")
            .created(2)
            .priority(10))
        .run();
    assert_eq!(out.holding("q"), names(&["new-high"]));
}

#[test]
fn older_first_at_equal_priority_then_input_order() {
    let out = one_queue(cq("q"))
        .wl(wl("ns", "second", "q").req("cpu", "2").created(20))
        .wl(wl("ns", "first", "q").req("cpu", "2").created(10))
        .wl(wl("ns", "third-a", "q").req("cpu", "2").created(30))
        .wl(wl("ns", "third-b", "q").req("cpu", "2").created(30))
        .run();
    assert_eq!(out.admission_order(), vec!["first", "second"]);
}

#[test]
fn strict_fifo_head_that_does_not_fit_blocks_its_queue() {
    let out = one_queue(cq("q").strict_fifo())
        .wl(wl("ns", "big", "q").req("cpu", "3").created(1).priority(5))
        .wl(wl("ns", "held", "q")
            .req("cpu", "2")
            .created(0)
            .priority(5)
            .admitted("q", "default"))
        .wl(wl("ns", "small", "q").req("cpu", "1").created(2))
        .run();
    assert_eq!(
        out.holding("q"),
        names(&["held"]),
        "small waits behind the blocked head"
    );
    assert!(
        out.pending("small").is_none(),
        "small is never even evaluated"
    );
}

#[test]
fn best_effort_fifo_lets_the_next_workload_through() {
    let out = one_queue(cq("q"))
        .wl(wl("ns", "big", "q").req("cpu", "3").created(1).priority(5))
        .wl(wl("ns", "held", "q")
            .req("cpu", "2")
            .created(0)
            .priority(5)
            .admitted("q", "default"))
        .wl(wl("ns", "small", "q").req("cpu", "1").created(2))
        .run();
    assert_eq!(out.holding("q"), names(&["held", "small"]));
    let (reason, message) = out.pending("big").unwrap();
    assert_eq!(reason, PendingReason::WaitingForQuota);
    // Re-evaluated against the final state, after small took one more cpu.
    assert_eq!(
        message,
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"
    );
}

#[test]
fn within_a_cycle_entries_that_do_not_borrow_go_first() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("a").cohort("c").quota("default", "cpu", "2"))
        .cq(cq("b").cohort("c").quota("default", "cpu", "2"))
        .wl(wl("ns", "a-borrower", "a")
            .req("cpu", "3")
            .priority(100)
            .created(1))
        .wl(wl("ns", "b-nominal", "b").req("cpu", "2").created(2))
        .run();
    assert_eq!(
        out.admission_order(),
        vec!["b-nominal"],
        "the borrower's capacity was taken first"
    );
    let (reason, _) = out.pending("a-borrower").unwrap();
    assert_eq!(reason, PendingReason::WaitingForQuota);
}

#[test]
fn a_later_entry_sees_usage_admitted_earlier_in_the_same_cycle() {
    // Both heads are nominated against the same starting state; the second to be processed
    // no longer fits once the first took the cohort's spare capacity.
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("a").cohort("c").quota("default", "cpu", "2"))
        .cq(cq("b").cohort("c").quota("default", "cpu", "2"))
        .wl(wl("ns", "a1", "a").req("cpu", "3").created(1))
        .wl(wl("ns", "b1", "b").req("cpu", "3").created(2))
        .engine();
    let outcome = engine.run_cycle(NOW);
    let admitted: Vec<_> = outcome.admitted().map(|d| d.workload.clone()).collect();
    assert_eq!(admitted, vec!["ns/a1"]);
    let b = outcome
        .decisions
        .iter()
        .find(|d| d.workload == "ns/b1")
        .unwrap();
    match &b.decision {
        kubectl_kueue::scheduler::Decision::Pending {
            message, reason, ..
        } => {
            assert_eq!(
                message,
                "Workload no longer fits after processing another workload"
            );
            assert_eq!(*reason, PendingReason::WaitingForQuota);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn two_borrowers_can_share_the_cohort_in_one_cycle_when_both_fit() {
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("a").cohort("c").quota("default", "cpu", "2"))
        .cq(cq("b").cohort("c").quota("default", "cpu", "2"))
        .cq(cq("lender").cohort("c").quota("default", "cpu", "4"))
        .wl(wl("ns", "a1", "a").req("cpu", "4").created(1))
        .wl(wl("ns", "b1", "b").req("cpu", "4").created(2))
        .engine();
    let outcome = engine.run_cycle(NOW);
    assert_eq!(outcome.admitted().count(), 2);
}

/// The workloads a cycle made a decision about, sorted.
fn decided(out: &kubectl_kueue::scheduler::CycleOutcome) -> Vec<String> {
    let mut v: Vec<String> = out
        .decisions
        .iter()
        .map(|d| d.workload.name.clone())
        .collect();
    v.sort();
    v
}

#[test]
fn parked_equivalents_are_reported_once_until_they_have_been_heads_again() {
    use kubectl_kueue::scheduler::{EquivalentDecisions, WorkloadKey};
    let key = |n: &str| WorkloadKey::new("ns", n);
    // One cpu free of four; the big ones ask for five, so they never fit.
    let s = one_queue(cq("q"))
        .wl(wl("ns", "held-1", "q")
            .req("cpu", "1")
            .admitted("q", "default"))
        .wl(wl("ns", "held-2", "q")
            .req("cpu", "1")
            .admitted("q", "default"))
        .wl(wl("ns", "held-3", "q")
            .req("cpu", "1")
            .admitted("q", "default"))
        .wl(wl("ns", "big-1", "q").req("cpu", "5").created(1))
        .wl(wl("ns", "big-2", "q").req("cpu", "5").created(2))
        .wl(wl("ns", "big-3", "q").req("cpu", "5").created(3));

    let mut always = s.engine();
    assert_eq!(decided(&always.run_cycle(0)), ["big-1", "big-2", "big-3"]);
    assert!(always.remove_workload(&key("held-1")));
    assert_eq!(decided(&always.run_cycle(0)), ["big-1", "big-2", "big-3"]);

    let mut e = s.engine();
    e.set_equivalent_decisions(EquivalentDecisions::OnChange);
    assert_eq!(decided(&e.run_cycle(0)), ["big-1", "big-2", "big-3"]);
    // Capacity freed (still not enough): the head is evaluated again, its equivalents are
    // parked again for the same reason and say nothing new.
    assert!(e.remove_workload(&key("held-1")));
    assert_eq!(decided(&e.run_cycle(0)), ["big-1"]);
    // big-2 becomes the head: its own decision; big-3 still has nothing new to say.
    assert!(e.remove_workload(&key("big-1")));
    assert!(e.remove_workload(&key("held-2")));
    assert_eq!(decided(&e.run_cycle(0)), ["big-2"]);
    // An older one arrives and fails first: big-2, a head since it was last parked, is
    // reported parked again; big-3 is not.
    e.upsert_workload(wl("ns", "big-0", "q").req("cpu", "5").created(0).0);
    assert!(e.remove_workload(&key("held-3")));
    assert_eq!(decided(&e.run_cycle(0)), ["big-0", "big-2"]);
    // big-3's status write failed (the controller says so): its next parking reports again.
    e.forget_equivalent_report(&key("big-3"));
    assert!(e.remove_workload(&key("big-0")));
    e.upsert_workload(wl("ns", "big-00", "q").req("cpu", "5").created(0).0);
    e.retry_all();
    assert_eq!(decided(&e.run_cycle(0)), ["big-00", "big-3"]);
}
