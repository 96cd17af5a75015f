//! Classical preemption: each policy, candidate rules, victim order, minimal sets, and the
//! preemptor waiting for its victims.

use crate::support::engine::*;
use kubectl_kueue::scheduler::Decision;
use kubectl_kueue::scheduler::decision::{PendingReason, PreemptionReason};
use kubectl_kueue::scheduler::model::PreemptionPolicy::{
    self, Any, LowerOrNewerEqualPriority, LowerPriority, Never,
};

fn single(within: PreemptionPolicy) -> Scenario {
    scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "4")
            .preemption(within, Never))
        .wl(wl("ns", "low", "q")
            .req("cpu", "2")
            .priority(1)
            .created(1)
            .admitted("q", "default")
            .reserved_at(10))
        .wl(wl("ns", "equal-new", "q")
            .req("cpu", "2")
            .priority(5)
            .created(3)
            .admitted("q", "default")
            .reserved_at(20))
}

/// A preemptor arriving in a scenario built for `policy`, and what comes of it.
struct Case {
    name: &'static str,
    policy: PreemptionPolicy,
    preemptor: Wl,
    /// Victims, by name, all preempted by the preemptor for the table's reason.
    victims: &'static [&'static str],
    /// The preemptor's final pending reason, where it matters.
    pending: Option<PendingReason>,
    /// Who holds quota in each ClusterQueue afterwards, where it matters.
    holding: &'static [(&'static str, &'static [&'static str])],
}

fn case(
    name: &'static str,
    policy: PreemptionPolicy,
    preemptor: Wl,
    victims: &'static [&'static str],
) -> Case {
    Case {
        name,
        policy,
        preemptor,
        victims,
        pending: None,
        holding: &[],
    }
}

impl Case {
    fn check(&self, scenario: Scenario, reason: PreemptionReason) {
        let out = scenario.wl(self.preemptor.clone()).run();
        let preemptor = &self.preemptor.0.name;
        let mut preemptions = out.preemptions();
        preemptions.sort();
        let expected: Vec<_> = self
            .victims
            .iter()
            .map(|v| (v.to_string(), preemptor.clone(), reason))
            .collect();
        assert_eq!(preemptions, expected, "{}", self.name);
        if let Some(reason) = self.pending {
            assert_eq!(out.pending(preemptor).unwrap().0, reason, "{}", self.name);
        }
        for (cq, holders) in self.holding {
            assert_eq!(out.holding(cq), names(holders), "{}: {cq}", self.name);
        }
    }
}

#[test]
fn within_cluster_queue_policies() {
    let p5 = |name| wl("ns", name, "q").priority(5);
    let cases = [
        Case {
            pending: Some(PendingReason::WaitingForQuota),
            ..case(
                "Never preempts nothing",
                Never,
                wl("ns", "high", "q")
                    .req("cpu", "2")
                    .priority(100)
                    .created(5),
                &[],
            )
        },
        case(
            "LowerPriority preempts a strictly lower priority",
            LowerPriority,
            p5("p5").req("cpu", "2").created(2),
            &["low"],
        ),
        case(
            "LowerPriority protects the equal-priority workload, so no partial preemption",
            LowerPriority,
            p5("p5-big").req("cpu", "4").created(2),
            &[],
        ),
        case(
            "LowerOrNewerEqualPriority also preempts a newer equal",
            LowerOrNewerEqualPriority,
            p5("p5-old").req("cpu", "4").created(2),
            &["equal-new", "low"],
        ),
        case(
            "LowerOrNewerEqualPriority: an older equal is not newer than the preemptor",
            LowerOrNewerEqualPriority,
            p5("p5-newest").req("cpu", "4").created(9),
            &[],
        ),
    ];
    for c in cases {
        c.check(single(c.policy), PreemptionReason::InClusterQueue);
    }
}

fn cohort(reclaim: PreemptionPolicy) -> Scenario {
    scenario()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, reclaim))
        .cq(cq("b").cohort("c").quota("default", "cpu", "4"))
        .wl(wl("ns", "b-low", "b")
            .req("cpu", "2")
            .priority(1)
            .admitted("b", "default")
            .reserved_at(1))
        .wl(wl("ns", "b-high", "b")
            .req("cpu", "2")
            .priority(50)
            .admitted("b", "default")
            .reserved_at(2))
        .wl(wl("ns", "b-own", "b")
            .req("cpu", "4")
            .priority(60)
            .admitted("b", "default")
            .reserved_at(3))
}

#[test]
fn reclaim_within_cohort_policies() {
    let a = |name, cpu, priority| {
        wl("ns", name, "a")
            .req("cpu", cpu)
            .priority(priority)
            .created(5)
    };
    let cases = [
        case("Never leaves borrowers alone", Never, a("a1", "4", 10), &[]),
        case(
            "LowerPriority takes only lower-priority borrowed workloads",
            LowerPriority,
            a("a1", "2", 10),
            &["b-low"],
        ),
        case(
            "LowerPriority: b-high is protected and b-low alone is not enough",
            LowerPriority,
            a("a2", "4", 10),
            &[],
        ),
        Case {
            holding: &[("a", &["a1"]), ("b", &["b-own"])],
            ..case(
                "Any takes borrowed workloads whatever their priority; b keeps what fits in its \
                 nominal",
                Any,
                a("a1", "4", 0),
                &["b-high", "b-low"],
            )
        },
    ];
    for c in cases {
        c.check(cohort(c.policy), PreemptionReason::InCohortReclamation);
    }
}

#[test]
fn a_queue_within_its_nominal_is_never_a_reclaim_source() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "4")
            .preemption(Never, Any))
        .cq(cq("b").cohort("c").quota("default", "cpu", "4"))
        .cq(cq("x").cohort("c").quota("default", "cpu", "0"))
        .wl(wl("ns", "b1", "b").req("cpu", "4").admitted("b", "default"))
        .wl(wl("ns", "a-held", "a")
            .req("cpu", "3")
            .admitted("a", "default"))
        .wl(wl("ns", "a1", "a").req("cpu", "2").priority(10).created(5))
        .run();
    assert!(out.preemptions().is_empty());
}

#[test]
fn borrowing_workloads_cannot_preempt_unless_borrow_within_cohort_allows_it() {
    let base = |c: Cq| {
        scenario()
            .flavor("default", &[])
            .cq(c
                .cohort("c")
                .quota("default", "cpu", "2")
                .preemption(Never, LowerPriority))
            .cq(cq("b").cohort("c").quota("default", "cpu", "2"))
            .cq(cq("x").cohort("c").quota("default", "cpu", "2"))
            .wl(wl("ns", "x1", "x")
                .req("cpu", "4")
                .priority(1)
                .admitted("x", "default"))
            .wl(wl("ns", "b1", "b")
                .req("cpu", "2")
                .priority(1)
                .admitted("b", "default"))
            .wl(wl("ns", "a1", "a").req("cpu", "4").priority(10).created(5))
    };
    let out = base(cq("a")).run();
    assert!(
        out.preemptions().is_empty(),
        "a1 needs to borrow, so it just waits"
    );
    let (reason, _) = out.pending("a1").unwrap();
    assert_eq!(reason, PendingReason::WaitingForQuota);
    let out = base(cq("a").borrow_within_cohort(None)).run();
    assert_eq!(
        out.preemptions(),
        vec![(
            "x1".into(),
            "a1".into(),
            PreemptionReason::InCohortReclaimWhileBorrowing
        )]
    );
    let out = base(cq("a").borrow_within_cohort(Some(0))).run();
    assert!(
        out.preemptions().is_empty(),
        "x1's priority 1 is above the threshold 0"
    );
}

#[test]
fn victims_go_most_recently_reserved_first_and_the_set_is_minimal() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "6")
            .preemption(LowerPriority, Never))
        .wl(wl("ns", "small-old", "q")
            .req("cpu", "1")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(1))
        .wl(wl("ns", "big-new", "q")
            .req("cpu", "3")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(3))
        .wl(wl("ns", "mid", "q")
            .req("cpu", "2")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(2))
        .wl(wl("ns", "high", "q")
            .req("cpu", "2")
            .priority(10)
            .created(9))
        .run();
    // Order: big-new (newest) first; removing it alone frees enough.
    assert_eq!(
        out.preemptions(),
        vec![(
            "big-new".into(),
            "high".into(),
            PreemptionReason::InClusterQueue
        )]
    );
}

#[test]
fn fill_back_returns_victims_that_turned_out_unnecessary() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "4")
            .preemption(LowerPriority, Never))
        .wl(wl("ns", "tiny", "q")
            .req("cpu", "1")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(5))
        .wl(wl("ns", "large", "q")
            .req("cpu", "3")
            .priority(2)
            .admitted("q", "default")
            .reserved_at(1))
        .wl(wl("ns", "high", "q")
            .req("cpu", "2")
            .priority(10)
            .created(9))
        .run();
    // tiny goes first (lowest priority) but is not enough; large follows; tiny is put back.
    assert_eq!(
        out.preemptions(),
        vec![(
            "large".into(),
            "high".into(),
            PreemptionReason::InClusterQueue
        )]
    );
    assert_eq!(out.holding("q"), names(&["high", "tiny"]));
}

#[test]
fn the_preemptor_waits_for_its_victims_to_release_quota() {
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "2")
            .preemption(LowerPriority, Never))
        .wl(wl("ns", "low", "q")
            .req("cpu", "2")
            .priority(1)
            .admitted("q", "default"))
        .wl(wl("ns", "high", "q")
            .req("cpu", "2")
            .priority(10)
            .created(9))
        .engine();
    let first = engine.run_cycle(NOW);
    let d = &first.decisions[0];
    let Decision::Preempting {
        targets, message, ..
    } = &d.decision
    else {
        panic!("{d:?}")
    };
    assert_eq!(targets[0].workload, "ns/low");
    assert_eq!(
        &**message,
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. Pending the preemption of 1 workload(s)"
    );
    assert!(targets[0].message.starts_with("Preempted to accommodate a workload (UID: uid-ns-high, JobUID: UNKNOWN) due to prioritization in the ClusterQueue; preemptor path: /q; preemptee path: /q"));
    // The victim still holds its quota: the next cycle preempts nothing new and admits nothing.
    let second = engine.run_cycle(NOW);
    assert_eq!(second.admitted().count(), 0);
    assert!(engine.is_evicted(&key("ns/low")));
    assert!(engine.release(&key("ns/low")));
    let third = engine.run_cycle(NOW);
    assert_eq!(
        third
            .admitted()
            .map(|d| d.workload.clone())
            .collect::<Vec<_>>(),
        vec!["ns/high"]
    );
}

#[test]
fn a_preemptor_without_candidates_holds_capacity_back_unless_reclaim_is_any() {
    // a-new fits a's nominal but a-held is protected and b is not borrowing, so it has no
    // candidates; in that cycle b's borrower may not take the capacity a-new waits for.
    let build = |reclaim: PreemptionPolicy| {
        scenario()
            .flavor("default", &[])
            .cq(cq("a")
                .cohort("c")
                .quota("default", "cpu", "2")
                .preemption(LowerPriority, reclaim))
            .cq(cq("b").cohort("c").quota("default", "cpu", "2"))
            .wl(wl("ns", "a-held", "a")
                .req("cpu", "1")
                .priority(50)
                .admitted("a", "default"))
            .wl(wl("ns", "b-held", "b")
                .req("cpu", "2")
                .priority(50)
                .admitted("b", "default"))
            .wl(wl("ns", "a-new", "a")
                .req("cpu", "2")
                .priority(10)
                .created(1))
            .wl(wl("ns", "b-borrow", "b")
                .req("cpu", "1")
                .priority(0)
                .created(2))
            .engine()
    };
    let mut engine = build(LowerPriority);
    let outcome = engine.run_cycle(NOW);
    assert_eq!(
        outcome.admitted().count(),
        0,
        "a's remaining nominal is held back this cycle"
    );
    let mut engine = build(Any);
    let outcome = engine.run_cycle(NOW);
    assert_eq!(
        outcome
            .admitted()
            .map(|d| d.workload.clone())
            .collect::<Vec<_>>(),
        vec!["ns/b-borrow"]
    );
}

#[test]
fn a_preemptor_whose_victims_were_claimed_first_counts_as_a_skip() {
    // `x` borrows all of a's and e's quota; a1 and e1 both reclaim theirs by preempting it.
    // a1 (older) issues the preemption, e1 finds its victim taken and is skipped, which
    // `kueue_admission_cycle_preemption_skips` counts for e.
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("default", "cpu", "1")
            .preemption(Never, Any))
        .cq(cq("e")
            .cohort("c")
            .quota("default", "cpu", "1")
            .preemption(Never, Any))
        .cq(cq("b").cohort("c").quota("default", "cpu", "0"))
        .wl(wl("ns", "x", "b")
            .req("cpu", "2")
            .created(0)
            .admitted("b", "default"))
        .wl(wl("ns", "a1", "a").req("cpu", "1").created(1))
        .wl(wl("ns", "e1", "e").req("cpu", "1").created(2))
        .engine();
    let outcome = engine.run_cycle(NOW);
    assert_eq!(outcome.preempting().count(), 1, "{outcome:#?}");
    assert_eq!(
        outcome.preemption_skips,
        std::collections::BTreeMap::from([("e".to_string(), 1)]),
        "{outcome:#?}"
    );
    // While the victim holds its quota, the next cycle skips e1 again.
    let outcome = engine.run_cycle(NOW + 1);
    assert_eq!(outcome.preemption_skips.get("e"), Some(&1), "{outcome:#?}");
    // Once it is gone both fit: nothing skipped.
    assert!(engine.release(&key("ns/x")));
    let outcome = engine.run_cycle(NOW + 2);
    assert_eq!(outcome.admitted().count(), 2, "{outcome:#?}");
    assert!(outcome.preemption_skips.is_empty(), "{outcome:#?}");
}

#[test]
fn a_preemptor_that_fits_after_all_is_no_skip() {
    // No preemption needed by anyone: plain admissions, nothing counted.
    let mut engine = single(Never)
        .wl(wl("ns", "fits", "q").req("cpu", "0").created(5))
        .engine();
    let outcome = engine.run_cycle(NOW);
    assert!(outcome.preemption_skips.is_empty(), "{outcome:#?}");
}

#[test]
fn preemptors_in_many_queues_and_cohorts_all_preempt_in_one_cycle() {
    // Every queue is full of two low-priority workloads and has a high-priority head that
    // needs both gone. The cycle counts the victims chosen so far per queue (and only in the
    // entry's own cohort tree): each head still fits after the earlier ones, so every head
    // preempts its own two, whichever cohort it is in, or none.
    let queues = ["c1-a", "c1-b", "c2-a", "c2-b", "solo"];
    let mut s = scenario().flavor("default", &[]);
    for (i, q) in queues.iter().enumerate() {
        let mut c = cq(q)
            .quota("default", "cpu", "2")
            .preemption(LowerPriority, Any);
        if let Some((cohort, _)) = q.split_once('-') {
            c = c.cohort(cohort);
        }
        s = s.cq(c);
        for (j, low) in ["old", "new"].iter().enumerate() {
            s = s.wl(wl("ns", &format!("{q}-{low}"), q)
                .req("cpu", "1")
                .priority(1)
                .admitted(q, "default")
                .reserved_at((i * 2 + j) as i64));
        }
        s = s.wl(wl("ns", &format!("{q}-high"), q)
            .req("cpu", "2")
            .priority(10)
            .created(100 + i as i64));
    }
    let mut engine = s.engine();
    let outcome = engine.run_cycle(NOW);
    assert_eq!(outcome.preempting().count(), queues.len(), "{outcome:#?}");
    assert!(outcome.preemption_skips.is_empty(), "{outcome:#?}");
    for q in queues {
        for low in ["old", "new"] {
            assert!(
                engine.is_evicted(&key(&format!("ns/{q}-{low}"))),
                "{q}-{low}"
            );
        }
    }
}

#[test]
fn a_waiting_preemptor_searches_again_when_its_tree_changes() {
    // The preemptor waits for its victim across cycles; its search is remembered while
    // nothing in its cohort tree changes. The victim then changes (its priority rises above
    // the preemptor's, its quota the same): the next cycle must choose the other holder.
    let low = wl("ns", "low", "q")
        .req("cpu", "1")
        .priority(1)
        .admitted("q", "default")
        .reserved_at(10);
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "2")
            .preemption(LowerPriority, Never))
        .wl(low.clone())
        .wl(wl("ns", "other", "q")
            .req("cpu", "1")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(5))
        .wl(wl("ns", "high", "q")
            .req("cpu", "1")
            .priority(10)
            .created(9))
        .engine();
    let targets = |outcome: &kubectl_kueue::scheduler::CycleOutcome| -> Vec<String> {
        outcome
            .decisions
            .iter()
            .flat_map(|d| match &d.decision {
                Decision::Preempting { targets, .. } => {
                    targets.iter().map(|t| t.workload.to_string()).collect()
                }
                _ => vec![],
            })
            .collect()
    };
    assert_eq!(targets(&engine.run_cycle(NOW)), ["ns/low"]);
    // Nothing changed but the victim's eviction: the same answer, then from memory.
    for _ in 0..2 {
        let again = engine.run_cycle(NOW);
        assert_eq!(targets(&again), ["ns/low"]);
        assert_eq!(again.admitted().count(), 0);
    }
    // The third cycle's nomination is the second's, kept (debug builds, as every test
    // runs, check it against a new nomination, whose search is the one remembered).
    assert_eq!(engine.remembered_nominations(), 1);
    assert_eq!(engine.remembered_searches(), 1);
    assert!(engine.is_evicted(&key("ns/low")));
    let mut raised = low.priority(20).0;
    raised.evicted = false;
    engine.upsert_workload(raised);
    assert!(!engine.is_evicted(&key("ns/low")));
    assert_eq!(targets(&engine.run_cycle(NOW)), ["ns/other"]);
}

#[test]
fn a_waiting_preemptor_fits_when_quota_frees_elsewhere_in_its_cohort() {
    // The preemptor waits for its victim, its nomination kept while its cohort tree stands.
    // A workload of another queue of the cohort finishes: the tree changed, so the kept
    // nomination no longer holds, and the preemptor now fits by borrowing what was freed.
    let mut engine = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .cohort("c")
            .quota("default", "cpu", "2")
            .preemption(LowerPriority, Never))
        .cq(cq("q2").cohort("c").quota("default", "cpu", "2"))
        .wl(wl("ns", "low", "q")
            .req("cpu", "2")
            .priority(1)
            .admitted("q", "default")
            .reserved_at(10))
        .wl(wl("ns", "neighbour", "q2")
            .req("cpu", "2")
            .priority(1)
            .admitted("q2", "default")
            .reserved_at(11))
        .wl(wl("ns", "high", "q")
            .req("cpu", "2")
            .priority(10)
            .created(12))
        .engine();
    for _ in 0..3 {
        let waiting = engine.run_cycle(NOW);
        assert_eq!(waiting.preempting().count(), 1, "{waiting:#?}");
        assert_eq!(waiting.admitted().count(), 0, "{waiting:#?}");
    }
    let kept = engine.remembered_nominations();
    assert!(
        kept >= 1,
        "the waiting preemptor's nomination was never kept"
    );
    assert!(engine.finish_workload(&key("ns/neighbour")));
    let freed = engine.run_cycle(NOW);
    let admitted: Vec<String> = freed.admitted().map(|d| d.workload.to_string()).collect();
    assert_eq!(admitted, ["ns/high"], "{freed:#?}");
    assert_eq!(engine.remembered_nominations(), kept);
}
