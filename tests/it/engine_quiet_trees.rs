//! Skipping quiet cohort trees (`Engine::set_skip_quiet_trees`, what the controller runs)
//! decides exactly what evaluating every tree in every cycle decides: over random cohorts,
//! policies, arrivals, finishes and victims released some cycles after their eviction, two
//! engines, one skipping and one not, hold the same quota after every cycle, keep the same
//! queues, and each workload's latest decision is the same in both. The skipping engine
//! only leaves out decisions that repeat the one before.
//!
//! A third engine runs as the controller's does: skipping quiet trees and keeping finished
//! workloads compact (`Engine::set_compact_finished`, their record slots reused by later
//! arrivals). It decides exactly what the skipping engine decides, in every cycle, and
//! counts the same finished workloads per LocalQueue.

use std::collections::BTreeMap;

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::Decision;
use kubectl_kueue::scheduler::model::*;
use kubectl_kueue::scheduler::{Engine, WorkloadKey};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct QueueSpec {
    cohort: Option<u8>,
    nominal: u8,
    borrowing: Option<u8>,
    within: PreemptionPolicy,
    reclaim: PreemptionPolicy,
    strict: bool,
    second_flavor: bool,
}

#[derive(Debug, Clone)]
struct WlSpec {
    queue: usize,
    cpu: u8,
    priority: i32,
    /// The cycle it arrives before.
    arrives: u8,
    /// Cycles it runs once admitted (0: until evicted).
    runs: u8,
}

fn queue_spec() -> impl Strategy<Value = QueueSpec> {
    (
        proptest::option::weighted(0.85, 0u8..3),
        0u8..6,
        proptest::option::of(0u8..6),
        prop_oneof![
            Just(PreemptionPolicy::Never),
            Just(PreemptionPolicy::LowerPriority),
            Just(PreemptionPolicy::LowerOrNewerEqualPriority)
        ],
        prop_oneof![
            Just(PreemptionPolicy::Never),
            Just(PreemptionPolicy::LowerPriority),
            Just(PreemptionPolicy::Any)
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(cohort, nominal, borrowing, within, reclaim, strict, second_flavor)| QueueSpec {
                cohort,
                nominal,
                borrowing,
                within,
                reclaim,
                strict,
                second_flavor,
            },
        )
}

fn wl_spec(queues: usize) -> impl Strategy<Value = WlSpec> {
    (
        0..queues,
        1u8..5,
        prop_oneof![Just(0), Just(50), Just(100)],
        0u8..12,
        0u8..6,
    )
        .prop_map(|(queue, cpu, priority, arrives, runs)| WlSpec {
            queue,
            cpu,
            priority,
            arrives,
            runs,
        })
}

/// Queues, workloads, the cycles an evicted victim keeps its quota, and which workload
/// (by index) the controller asks to reconsider in each cycle.
type World = (Vec<QueueSpec>, Vec<WlSpec>, u8, Vec<usize>);

fn world() -> impl Strategy<Value = World> {
    proptest::collection::vec(queue_spec(), 2..7).prop_flat_map(|qs| {
        let n = qs.len();
        (
            Just(qs),
            proptest::collection::vec(wl_spec(n), 1..40),
            0u8..4,
            proptest::collection::vec(0usize..60, 40),
        )
    })
}

fn build(qs: &[QueueSpec]) -> Scenario {
    let mut s = scenario().flavor("f1", &[]).flavor("f2", &[]);
    for (i, q) in qs.iter().enumerate() {
        let mut c = cq(&format!("q{i}"))
            .preemption(q.within, q.reclaim)
            .quota_limits(
                "f1",
                "cpu",
                &q.nominal.to_string(),
                q.borrowing.map(|b| b.to_string()).as_deref(),
                None,
            );
        if let Some(cohort) = q.cohort {
            c = c.cohort(&format!("c{cohort}"));
        }
        if q.second_flavor {
            c = c.quota("f2", "cpu", "2");
        }
        if q.strict {
            c = c.strict_fifo();
        }
        s = s.cq(c);
    }
    s
}

fn workload(i: usize, w: &WlSpec) -> Workload {
    let mut x = wl("ns", &format!("w{i}"), &format!("q{}", w.queue))
        .req("cpu", &w.cpu.to_string())
        .priority(w.priority)
        .created(NOW + i64::from(w.arrives) * 1000 + i as i64)
        .0;
    x.tiebreak = i as u64;
    x
}

/// How a workload holding quota gives it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// A victim whose pods are gone.
    Release,
    /// Its run ended.
    Finish,
}

/// Who holds quota, and where.
fn holders(e: &Engine) -> Vec<(WorkloadKey, Option<String>)> {
    holdings(e)
        .into_iter()
        .filter(|(_, q)| q.is_some())
        .collect()
}

fn holdings(e: &Engine) -> Vec<(WorkloadKey, Option<String>)> {
    let mut v: Vec<_> = e
        .workloads()
        .map(|w| (w.key(), e.holding_queue(&w.key()).map(str::to_string)))
        .collect();
    v.sort();
    v
}

fn queues(e: &Engine, n: usize) -> Vec<Vec<String>> {
    (0..n)
        .map(|i| {
            e.pending_in_order(&format!("q{i}"))
                .unwrap_or_default()
                .iter()
                .map(|w| w.name.clone())
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(crate::support::property_config(200))]

    #[test]
    fn skipping_quiet_trees_decides_what_evaluating_them_decides(
        (qs, ws, victim_cycles, reconsider) in world()
    ) {
        let mut all = build(&qs).engine();
        let mut skipping = build(&qs).engine();
        skipping.set_skip_quiet_trees(true);
        let mut controller = build(&qs).engine();
        controller.set_skip_quiet_trees(true);
        controller.set_compact_finished(true);
        let mut latest_all: BTreeMap<WorkloadKey, String> = BTreeMap::new();
        let mut latest_skipping: BTreeMap<WorkloadKey, String> = BTreeMap::new();
        // Workloads holding quota, with the cycle they give it back at, and how.
        let mut ends: BTreeMap<WorkloadKey, (u32, End)> = BTreeMap::new();
        for cycle in 0..60u32 {
            for (i, w) in ws.iter().enumerate().filter(|(_, w)| u32::from(w.arrives) == cycle) {
                all.upsert_workload(workload(i, w));
                skipping.upsert_workload(workload(i, w));
                controller.upsert_workload(workload(i, w));
            }
            let due: Vec<(WorkloadKey, End)> = ends
                .iter()
                .filter(|(_, (at, _))| *at <= cycle)
                .map(|(k, (_, how))| (k.clone(), *how))
                .collect();
            for (k, how) in due {
                ends.remove(&k);
                match how {
                    End::Release => {
                        let released = all.release(&k);
                        prop_assert_eq!(released, skipping.release(&k));
                        prop_assert_eq!(released, controller.release(&k));
                    }
                    End::Finish => {
                        prop_assert!(all.finish_workload(&k));
                        prop_assert!(skipping.finish_workload(&k));
                        prop_assert!(controller.finish_workload(&k));
                    }
                }
            }
            // Asked of the skipping engines only: deciding again changes no decision.
            let r = reconsider[cycle as usize % reconsider.len()];
            if r < ws.len() {
                skipping.reconsider(&key(&format!("ns/w{r}")));
                controller.reconsider(&key(&format!("ns/w{r}")));
            }
            let now = NOW + i64::from(cycle) * 1000;
            let before = holdings(&all);
            let a = all.run_cycle(now);
            let b = skipping.run_cycle(now);
            let c = controller.run_cycle(now);
            prop_assert_eq!(
                format!("{:?}", c.decisions),
                format!("{:?}", b.decisions),
                "cycle {}: keeping finished workloads compact changed a decision", cycle
            );
            for d in &b.decisions {
                let same = a.decisions.iter().find(|x| x.workload == d.workload);
                prop_assert_eq!(
                    same.map(|x| format!("{:?}", x.decision)),
                    Some(format!("{:?}", d.decision)),
                    "cycle {}: a decision of the skipping engine differs", cycle
                );
            }
            for d in &a.decisions {
                latest_all.insert(d.workload.clone(), format!("{:?}", d.decision));
                if let Decision::Preempting { targets, .. } = &d.decision {
                    for t in targets.iter() {
                        ends.entry(t.workload.clone())
                            .or_insert((cycle + 1 + u32::from(victim_cycles), End::Release));
                    }
                }
            }
            for d in &b.decisions {
                latest_skipping.insert(d.workload.clone(), format!("{:?}", d.decision));
            }
            prop_assert_eq!(&latest_all, &latest_skipping, "cycle {}", cycle);
            let after = holdings(&all);
            prop_assert_eq!(&after, &holdings(&skipping), "cycle {}", cycle);
            prop_assert_eq!(queues(&all, qs.len()), queues(&skipping, qs.len()), "cycle {}", cycle);
            prop_assert_eq!(holders(&all), holders(&controller), "cycle {}", cycle);
            prop_assert_eq!(queues(&all, qs.len()), queues(&controller, qs.len()), "cycle {}", cycle);
            prop_assert_eq!(
                all.finished_per_local_queue(),
                controller.finished_per_local_queue(),
                "cycle {}", cycle
            );
            prop_assert_eq!(all.workload_count(), controller.workload_count());
            for (k, held) in &after {
                let newly = held.is_some() && !before.contains(&(k.clone(), held.clone()));
                let name = &k.name[1..];
                let runs = name.parse::<usize>().ok().and_then(|i| ws.get(i)).map_or(0, |w| w.runs);
                if newly && runs > 0 {
                    ends.insert(k.clone(), (cycle + u32::from(runs), End::Finish));
                }
            }
        }
        prop_assert!(all.quota_violations().is_empty(), "{:?}", all.quota_violations());
        prop_assert!(controller.quota_violations().is_empty(), "{:?}", controller.quota_violations());
    }
}

/// A preemptor waits for a victim that is never released (its eviction waits in the API
/// server) while the other cohort keeps changing: its tree is skipped, and only the
/// engine that evaluates it repeats its `Preempting` decision.
#[test]
fn a_preemptor_waiting_in_an_unchanged_tree_is_not_evaluated_again() {
    let s = scenario()
        .flavor("f1", &[])
        .cq(cq("q0")
            .cohort("c0")
            .preemption(PreemptionPolicy::LowerPriority, PreemptionPolicy::Never)
            .quota("f1", "cpu", "2"))
        .cq(cq("q1").cohort("c1").quota("f1", "cpu", "100"))
        .wl(wl("ns", "low", "q0")
            .req("cpu", "2")
            .priority(0)
            .admitted("q0", "f1"))
        .wl(wl("ns", "high", "q0").req("cpu", "2").priority(100));
    let (mut all, mut skipping) = (s.engine(), s.engine());
    skipping.set_skip_quiet_trees(true);
    let preempting = |o: &kubectl_kueue::scheduler::decision::CycleOutcome| {
        o.decisions
            .iter()
            .filter(|d| matches!(d.decision, Decision::Preempting { .. }))
            .count()
    };
    let (mut by_all, mut by_skipping) = (0, 0);
    for cycle in 0..5 {
        let arrival = wl("ns", &format!("other{cycle}"), "q1").req("cpu", "1").0;
        all.upsert_workload(arrival.clone());
        skipping.upsert_workload(arrival);
        let now = NOW + cycle * 1000;
        by_all += preempting(&all.run_cycle(now));
        by_skipping += preempting(&skipping.run_cycle(now));
    }
    // The first cycle evicts (the tree changes), the second decides the same on the tree
    // as it is after the eviction and finds it unchanged: the last three skip it.
    assert_eq!((by_all, by_skipping), (5, 2));
    assert_eq!(skipping.quiet_heads_skipped(), 3);
    assert_eq!(all.quiet_heads_skipped(), 0);
    assert_eq!(holdings(&all), holdings(&skipping));
    // Asked to reconsider the preemptor, the skipping engine decides for it again.
    skipping.reconsider(&key("ns/high"));
    assert_eq!(preempting(&skipping.run_cycle(NOW + 5000)), 1);
}
