//! Borrowing and lending arithmetic, cohort pools and cohort trees.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::PendingReason;

fn fill(mut s: Scenario, queue: &str, n: usize) -> Scenario {
    for i in 0..n {
        s = s.wl(wl("ns", &format!("{queue}-{i}"), queue)
            .req("cpu", "1")
            .created(i as i64));
    }
    s
}

#[test]
fn a_borrowing_limit_caps_what_a_queue_takes_from_its_cohort() {
    let s = scenario()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota_limits("default", "cpu", "4", Some("2"), None))
        .cq(cq("b").cohort("c").quota("default", "cpu", "10"));
    let out = fill(s, "a", 8).run();
    assert_eq!(
        out.usage("a", "default", "cpu"),
        6000,
        "4 nominal + 2 borrowed (cpu in milli)"
    );
}

#[test]
fn a_lending_limit_keeps_the_rest_for_its_own_queue() {
    let s = scenario()
        .flavor("default", &[])
        .cq(cq("a").cohort("c").quota("default", "cpu", "0"))
        .cq(cq("b")
            .cohort("c")
            .quota_limits("default", "cpu", "6", None, Some("2")));
    let out = fill(s, "a", 5).run();
    assert_eq!(
        out.usage("a", "default", "cpu"),
        2000,
        "only b's lendable 2 cpus"
    );
    let (reason, message) = out.pending("a-2").unwrap();
    assert_eq!(reason, PendingReason::WaitingForQuota);
    assert!(
        message.contains("insufficient unused quota for cpu in flavor default, 1 more needed"),
        "{message}"
    );
}

#[test]
fn a_request_above_what_borrowing_allows_exceeds_max_quota() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota_limits("default", "cpu", "4", Some("2"), None))
        .cq(cq("b").cohort("c").quota("default", "cpu", "10"))
        .wl(wl("ns", "w", "a").req("cpu", "7"))
        .run();
    let (reason, message) = out.pending("w").unwrap();
    assert_eq!(reason, PendingReason::ExceedsMaxQuota);
    assert!(message.ends_with("> maximum capacity (6)"), "{message}");
}

#[test]
fn without_a_cohort_there_is_nothing_to_borrow() {
    let s = scenario()
        .flavor("default", &[])
        .cq(cq("a").quota("default", "cpu", "4"));
    let out = fill(s, "a", 6).run();
    assert_eq!(out.usage("a", "default", "cpu"), 4000);
    let view = out
        .engine
        .cluster_queues()
        .into_iter()
        .find(|c| c.name == "a")
        .unwrap();
    assert_eq!(view.usage[0].borrowed, 0);
}

#[test]
fn a_cohort_with_quota_of_its_own_is_a_shared_pool() {
    let s = scenario()
        .flavor("default", &[])
        .cohort_quota("c", None, "default", "cpu", "3")
        .cq(cq("a").cohort("c").quota("default", "cpu", "1"));
    let out = fill(s, "a", 6).run();
    assert_eq!(out.usage("a", "default", "cpu"), 4000);
    let view = out
        .engine
        .cluster_queues()
        .into_iter()
        .find(|c| c.name == "a")
        .unwrap();
    assert_eq!(view.usage[0].borrowed, 3000);
}

#[test]
fn cohort_trees_lend_across_levels() {
    // root -> {left -> a, right -> b}: a can borrow b's idle quota through the root.
    let s = scenario()
        .flavor("default", &[])
        .cohort("root", None)
        .cohort("left", Some("root"))
        .cohort("right", Some("root"))
        .cq(cq("a").cohort("left").quota("default", "cpu", "2"))
        .cq(cq("b").cohort("right").quota("default", "cpu", "3"));
    let out = fill(s, "a", 7).run();
    assert_eq!(out.usage("a", "default", "cpu"), 5000);
}

#[test]
fn a_cohort_cycle_deactivates_its_queues() {
    let out = scenario()
        .flavor("default", &[])
        .cohort("x", Some("y"))
        .cohort("y", Some("x"))
        .cq(cq("a").cohort("x").quota("default", "cpu", "2"))
        .wl(wl("ns", "w", "a").req("cpu", "1"))
        .run();
    let (reason, message) = out.pending("w").unwrap();
    assert_eq!(reason, PendingReason::Suspended);
    assert_eq!(message, "ClusterQueue a is inactive");
}

#[test]
fn an_implicit_cohort_needs_no_object() {
    let s = scenario()
        .flavor("default", &[])
        .cq(cq("a").cohort("implicit").quota("default", "cpu", "1"))
        .cq(cq("b").cohort("implicit").quota("default", "cpu", "1"));
    let out = fill(s, "a", 3).run();
    assert_eq!(out.usage("a", "default", "cpu"), 2000);
}
