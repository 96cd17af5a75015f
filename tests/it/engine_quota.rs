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

/// How much of `queue` its workloads fill, one cpu each, when `submitted` of them arrive.
struct Case {
    name: &'static str,
    scenario: Scenario,
    queue: &'static str,
    submitted: usize,
    /// cpu in milli.
    usage: i64,
    /// How much of it is borrowed, where it matters.
    borrowed: Option<i64>,
}

#[test]
fn how_much_a_queue_can_take() {
    let cases = [
        Case {
            name: "a borrowing limit caps what a queue takes from its cohort: 4 nominal + 2 \
                   borrowed",
            scenario: scenario()
                .flavor("default", &[])
                .cq(cq("a")
                    .cohort("c")
                    .quota_limits("default", "cpu", "4", Some("2"), None))
                .cq(cq("b").cohort("c").quota("default", "cpu", "10")),
            queue: "a",
            submitted: 8,
            usage: 6000,
            borrowed: None,
        },
        Case {
            name: "without a cohort there is nothing to borrow",
            scenario: scenario()
                .flavor("default", &[])
                .cq(cq("a").quota("default", "cpu", "4")),
            queue: "a",
            submitted: 6,
            usage: 4000,
            borrowed: Some(0),
        },
        Case {
            name: "a cohort with quota of its own is a shared pool",
            scenario: scenario()
                .flavor("default", &[])
                .cohort_quota("c", None, "default", "cpu", "3")
                .cq(cq("a").cohort("c").quota("default", "cpu", "1")),
            queue: "a",
            submitted: 6,
            usage: 4000,
            borrowed: Some(3000),
        },
        Case {
            // root -> {left -> a, right -> b}: a borrows b's idle quota through the root.
            name: "cohort trees lend across levels",
            scenario: scenario()
                .flavor("default", &[])
                .cohort("root", None)
                .cohort("left", Some("root"))
                .cohort("right", Some("root"))
                .cq(cq("a").cohort("left").quota("default", "cpu", "2"))
                .cq(cq("b").cohort("right").quota("default", "cpu", "3")),
            queue: "a",
            submitted: 7,
            usage: 5000,
            borrowed: None,
        },
        Case {
            name: "an implicit cohort needs no object",
            scenario: scenario()
                .flavor("default", &[])
                .cq(cq("a").cohort("implicit").quota("default", "cpu", "1"))
                .cq(cq("b").cohort("implicit").quota("default", "cpu", "1")),
            queue: "a",
            submitted: 3,
            usage: 2000,
            borrowed: None,
        },
    ];
    for case in cases {
        let out = fill(case.scenario, case.queue, case.submitted).run();
        assert_eq!(
            out.usage(case.queue, "default", "cpu"),
            case.usage,
            "{}",
            case.name
        );
        if let Some(borrowed) = case.borrowed {
            let view = out
                .engine
                .cluster_queues()
                .into_iter()
                .find(|c| c.name == case.queue)
                .unwrap();
            assert_eq!(view.usage[0].borrowed, borrowed, "{}", case.name);
        }
    }
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
