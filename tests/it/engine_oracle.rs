//! Brute-force oracles on small clusters: two or three ClusterQueues in one flat cohort, one
//! flavor, one resource, a handful of workloads with small integer requests. The oracle knows
//! nothing of the engine's quota tree: it checks sets of workloads against the quota rules as
//! the API defines them, and enumerates every set.
//!
//! The quota rules (`admissible`), for a flat cohort: a ClusterQueue with a `lendingLimit`
//! keeps `nominal - lendingLimit` for itself alone, the rest of its nominal quota (all of it
//! without a lending limit) is the cohort's to share, together with the cohort's own quota.
//! A set of workloads fits when, summed per ClusterQueue, what each queue uses beyond what it
//! keeps fits in what the cohort shares, and no queue uses more than `nominal +
//! borrowingLimit`. Both are monotone: a subset of a set that fits fits too.
//!
//! Why each property is exactly true of upstream's semantics (not only usually):
//!
//! - Maximality, with preemption off (`withinClusterQueue` and `reclaimWithinCohort`
//!   `Never`), BestEffortFIFO and one flavor. A workload is admitted when its request fits
//!   what its ClusterQueue can reach, which for one flavor is "the admitted set plus it
//!   fits". One that does not fit is parked (`NoFit` or `PreemptionNoCandidates`, with its
//!   equivalents, which request the same in the same queue) and comes back only when quota is
//!   freed. With preemption off nothing is ever freed, so usage only grows: a workload that
//!   did not fit when it was parked never fits later. One that was skipped in a cycle (an
//!   earlier entry took the quota, or a preemptor without candidates held it for that cycle)
//!   goes straight back to the heap and is tried again. So at the fixpoint no pending
//!   workload fits: the admitted set is maximal among the admissible sets. StrictFIFO is left
//!   out on purpose: a head that does not fit blocks its queue, so a smaller workload behind
//!   it may stay pending although it would fit.
//! - Minimality of victims, classical preemption, each ClusterQueue either preempting only
//!   within itself (`withinClusterQueue` `LowerPriority` or `LowerOrNewerEqualPriority`,
//!   `reclaimWithinCohort` `Never`) or only reclaiming (`withinClusterQueue` `Never`,
//!   `reclaimWithinCohort` `LowerPriority` or `Any`), no `borrowWithinCohort`, no fair
//!   sharing. Victims are chosen greedily until the preemptor fits, then every victim but the
//!   last is tried back, last-but-one first, and stays back if the preemptor still fits
//!   (upstream's `fillBackWorkloads`). A victim that stays a victim did not fit back when it
//!   was tried, and the ones put back after it only add usage, so it does not fit back at the
//!   end either: no victim can be spared. This holds for the fit test the attempt used.
//!   Preempting only within the queue, upstream makes a single attempt that allows borrowing,
//!   which is the oracle's fit test. Only reclaiming, an attempt that forbids borrowing adds
//!   "the preemptor's own queue stays within nominal", which depends on the preemptor's queue
//!   alone, and no victim is in it; so with that attempt too, sparing a victim fits exactly
//!   when the oracle says it does. Mixing both in one queue is left out on purpose: upstream
//!   may then preempt within the queue to avoid borrowing, and a victim could be spared by
//!   borrowing instead.
//!
//! Victims are chosen against the state at the start of the cycle (every head is nominated
//! against it), so each `Preempting` decision is checked against the holdings before the
//! cycle; victims are released right after it, as `simulate` does.
//!
//! Checked to fail: skipping the fill-back (`common::fill_back` returning its input) fails
//! the minimality property ("w2 preempted [0, 1] but {1} were enough"); keeping the capacity
//! a preemptor without candidates holds for one cycle (`end_cycle` not giving it back) fails
//! both; StrictFIFO instead of BestEffortFIFO fails maximality, and letting one queue both
//! preempt within itself and reclaim fails minimality, as the reasoning above predicts
//! (upstream preempts three workloads to stay within nominal where two would do by
//! borrowing).

use std::collections::BTreeSet;

use crate::support::engine::*;
use kubectl_kueue::scheduler::Engine;
use kubectl_kueue::scheduler::decision::Decision;
use kubectl_kueue::scheduler::model::PreemptionPolicy::{
    self, Any, LowerOrNewerEqualPriority, LowerPriority, Never,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Queue {
    nominal: i64,
    borrowing_limit: Option<i64>,
    lending_limit: Option<i64>,
    within: PreemptionPolicy,
    reclaim: PreemptionPolicy,
}

#[derive(Debug, Clone)]
struct Cluster {
    /// The cohort's own quota (0: no Cohort object, an implicit cohort).
    cohort_quota: i64,
    queues: Vec<Queue>,
}

#[derive(Debug, Clone)]
struct Job {
    queue: usize,
    cpu: i64,
    priority: i32,
    created: i64,
    /// In the preemption property, submitted after the first fixpoint (so that there is
    /// something to preempt).
    late: bool,
}

/// Which preemption each queue may do.
#[derive(Debug, Clone, Copy)]
enum Preemption {
    Off,
    /// Each queue either preempts within itself or reclaims, never both.
    WithinOrReclaim,
}

fn queue(preemption: Preemption) -> impl Strategy<Value = Queue> {
    let policies = match preemption {
        Preemption::Off => Just((Never, Never)).boxed(),
        Preemption::WithinOrReclaim => prop_oneof![
            Just((LowerPriority, Never)),
            Just((LowerOrNewerEqualPriority, Never)),
            Just((Never, LowerPriority)),
            Just((Never, Any)),
        ]
        .boxed(),
    };
    (
        0i64..=4,
        proptest::option::of(0i64..=3),
        proptest::option::of(0i64..=4),
        policies,
    )
        .prop_map(
            |(nominal, borrowing_limit, lending, (within, reclaim))| Queue {
                nominal,
                borrowing_limit,
                // Upstream's validation: a lending limit is at most the nominal quota.
                lending_limit: lending.map(|l| l.min(nominal)),
                within,
                reclaim,
            },
        )
}

fn job(queues: usize) -> impl Strategy<Value = Job> {
    (0..queues, 1i64..=2, 0i32..=2, 0i64..100, any::<bool>()).prop_map(
        |(queue, cpu, priority, created, late)| Job {
            queue,
            // Late arrivals are a little larger and rank a little higher, so that there is
            // more to preempt, and more than one victim at a time.
            cpu: cpu + 2 * i64::from(late),
            priority: priority + i32::from(late),
            created,
            late,
        },
    )
}

fn world(preemption: Preemption) -> impl Strategy<Value = (Cluster, Vec<Job>)> {
    (
        0i64..=2,
        proptest::collection::vec(queue(preemption), 2..=3),
    )
        .prop_flat_map(|(cohort_quota, queues)| {
            let n = queues.len();
            (
                Just(Cluster {
                    cohort_quota,
                    queues,
                }),
                proptest::collection::vec(job(n), 4..=10),
            )
        })
}

fn name(i: usize) -> String {
    format!("w{i}")
}

fn build(cluster: &Cluster) -> Scenario {
    let mut s = scenario().flavor("default", &[]);
    if cluster.cohort_quota > 0 {
        s = s.cohort_quota(
            "c",
            None,
            "default",
            "cpu",
            &cluster.cohort_quota.to_string(),
        );
    }
    for (i, q) in cluster.queues.iter().enumerate() {
        s = s.cq(cq(&format!("q{i}"))
            .cohort("c")
            .preemption(q.within, q.reclaim)
            .quota_limits(
                "default",
                "cpu",
                &q.nominal.to_string(),
                q.borrowing_limit.map(|b| b.to_string()).as_deref(),
                q.lending_limit.map(|l| l.to_string()).as_deref(),
            ));
    }
    s
}

fn workload(i: usize, j: &Job) -> Wl {
    wl("ns", &name(i), &format!("q{}", j.queue))
        .req("cpu", &j.cpu.to_string())
        .priority(j.priority)
        .created(j.created)
}

/// Does this set of workloads (indices into `jobs`) fit the quota, as the API defines it?
fn admissible(cluster: &Cluster, jobs: &[Job], set: &BTreeSet<usize>) -> bool {
    let mut usage = vec![0i64; cluster.queues.len()];
    for &i in set {
        usage[jobs[i].queue] += jobs[i].cpu;
    }
    let mut shared = cluster.cohort_quota;
    let mut used_from_cohort = 0;
    for (q, &used) in cluster.queues.iter().zip(&usage) {
        if q.borrowing_limit.is_some_and(|b| used > q.nominal + b) {
            return false;
        }
        let kept = q.lending_limit.map_or(0, |l| q.nominal - l);
        shared += q.nominal - kept;
        used_from_cohort += (used - kept).max(0);
    }
    used_from_cohort <= shared
}

/// Every admissible subset of `among`, by brute force.
fn admissible_sets(cluster: &Cluster, jobs: &[Job], among: &[usize]) -> Vec<BTreeSet<usize>> {
    (0u32..1 << among.len())
        .map(|bits| {
            among
                .iter()
                .enumerate()
                .filter(|(b, _)| bits & (1 << b) != 0)
                .map(|(_, &i)| i)
                .collect::<BTreeSet<usize>>()
        })
        .filter(|set| admissible(cluster, jobs, set))
        .collect()
}

/// Indices of the workloads holding quota now.
fn holding(engine: &Engine, jobs: &[Job]) -> BTreeSet<usize> {
    (0..jobs.len())
        .filter(|&i| {
            engine
                .holding_queue(&key(&format!("ns/{}", name(i))))
                .is_some()
        })
        .collect()
}

fn index_of(workload: &kubectl_kueue::scheduler::WorkloadKey) -> usize {
    workload.name[1..].parse().expect("a w<i> test workload")
}

/// Runs cycles until one decides nothing (or `cap` cycles), checking every `Preempting`
/// decision against the holdings before its cycle, then releasing its victims.
fn run_checking_victims(
    engine: &mut Engine,
    cluster: &Cluster,
    jobs: &[Job],
    cap: usize,
) -> Result<(), TestCaseError> {
    for _ in 0..cap {
        let before = holding(engine, jobs);
        prop_assert!(
            admissible(cluster, jobs, &before),
            "the engine holds more than the quota allows: {before:?}"
        );
        let outcome = engine.run_cycle(NOW);
        if outcome.decisions.is_empty() {
            return Ok(());
        }
        for d in &outcome.decisions {
            let Decision::Preempting { targets, .. } = &d.decision else {
                continue;
            };
            let preemptor = index_of(&d.workload);
            let victims: BTreeSet<usize> = targets.iter().map(|t| index_of(&t.workload)).collect();
            check_minimal(cluster, jobs, &before, preemptor, &victims)?;
            for t in targets.iter() {
                engine.release(&t.workload);
            }
        }
    }
    Ok(())
}

/// The preemptor did not fit, fits once the victims are gone, and fits with no proper
/// subset of them gone (every subset enumerated).
fn check_minimal(
    cluster: &Cluster,
    jobs: &[Job],
    before: &BTreeSet<usize>,
    preemptor: usize,
    victims: &BTreeSet<usize>,
) -> Result<(), TestCaseError> {
    let with_preemptor = |gone: &BTreeSet<usize>| -> BTreeSet<usize> {
        before
            .difference(gone)
            .copied()
            .chain([preemptor])
            .collect()
    };
    prop_assert!(
        !admissible(cluster, jobs, &with_preemptor(&BTreeSet::new())),
        "w{preemptor} preempted although it fit: holdings {before:?}"
    );
    prop_assert!(
        victims.is_subset(before),
        "victims {victims:?} must hold quota: {before:?}"
    );
    prop_assert!(
        admissible(cluster, jobs, &with_preemptor(victims)),
        "w{preemptor} does not fit even with {victims:?} gone: holdings {before:?}"
    );
    let victims: Vec<usize> = victims.iter().copied().collect();
    for bits in 0u32..(1 << victims.len()) - 1 {
        let gone: BTreeSet<usize> = victims
            .iter()
            .enumerate()
            .filter(|(b, _)| bits & (1 << b) != 0)
            .map(|(_, &i)| i)
            .collect();
        prop_assert!(
            !admissible(cluster, jobs, &with_preemptor(&gone)),
            "w{preemptor} preempted {victims:?} but {gone:?} were enough: holdings {before:?}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::support::property_config(1000))]

    /// Preemption off: the engine's fixpoint is an admissible set that no admissible set
    /// strictly contains.
    #[test]
    fn without_preemption_the_fixpoint_is_a_maximal_admissible_set(
        (cluster, jobs) in world(Preemption::Off)
    ) {
        let mut s = build(&cluster);
        for (i, j) in jobs.iter().enumerate() {
            s = s.wl(workload(i, j));
        }
        let mut engine = s.engine();
        let report = kubectl_kueue::simulate::run_to_fixpoint(&mut engine, NOW);
        prop_assert!(report.converged, "no fixpoint after {} cycles", report.cycles);
        let admitted = holding(&engine, &jobs);
        let all: Vec<usize> = (0..jobs.len()).collect();
        let sets = admissible_sets(&cluster, &jobs, &all);
        prop_assert!(
            sets.contains(&admitted),
            "the engine admitted {admitted:?}, which the quota does not allow"
        );
        let larger = sets.iter().find(|s| s.is_superset(&admitted) && s.len() > admitted.len());
        prop_assert!(
            larger.is_none(),
            "the engine stopped at {admitted:?}, but {larger:?} fits too"
        );
    }

    /// Preemption on: every victim set is minimal, and the engine never holds more than
    /// the quota allows.
    #[test]
    fn preemption_victims_are_a_minimal_set(
        (cluster, jobs) in world(Preemption::WithinOrReclaim)
    ) {
        let mut s = build(&cluster);
        for (i, j) in jobs.iter().enumerate().filter(|(_, j)| !j.late) {
            s = s.wl(workload(i, j));
        }
        let mut engine = s.engine();
        run_checking_victims(&mut engine, &cluster, &jobs, 200)?;
        for (i, j) in jobs.iter().enumerate().filter(|(_, j)| j.late) {
            engine.upsert_workload(workload(i, j).0);
        }
        run_checking_victims(&mut engine, &cluster, &jobs, 200)?;
    }
}

/// The oracle itself, on cases worked by hand.
#[test]
fn the_oracle_reads_the_quota_rules_as_the_api_defines_them() {
    let q = |nominal, borrowing_limit, lending_limit| Queue {
        nominal,
        borrowing_limit,
        lending_limit,
        within: Never,
        reclaim: Never,
    };
    let job = |queue, cpu| Job {
        queue,
        cpu,
        priority: 0,
        created: 0,
        late: false,
    };
    let set = |v: &[usize]| v.iter().copied().collect::<BTreeSet<usize>>();
    // a: nominal 4 lending 1 (keeps 3); b: nominal 2 borrowing limit 1. Shared: 1 + 2 = 3.
    let cluster = Cluster {
        cohort_quota: 0,
        queues: vec![q(4, None, Some(1)), q(2, Some(1), None)],
    };
    let jobs = [job(0, 3), job(1, 3), job(0, 1), job(1, 1)];
    assert!(
        admissible(&cluster, &jobs, &set(&[0, 1])),
        "3 kept + 3 shared"
    );
    assert!(
        !admissible(&cluster, &jobs, &set(&[1, 3])),
        "b over nominal 2 + borrowing limit 1"
    );
    assert!(
        !admissible(&cluster, &jobs, &set(&[0, 1, 2])),
        "a's fourth cpu comes out of the 3 shared, all taken"
    );
    let with_pool = Cluster {
        cohort_quota: 1,
        ..cluster.clone()
    };
    assert!(admissible(&with_pool, &jobs, &set(&[0, 1, 2])));
    assert_eq!(
        admissible_sets(&cluster, &jobs, &[0, 1, 2, 3]).len(),
        11,
        "16 subsets minus {{1,3}}, {{0,1,2}}, {{0,1,3}}, {{1,2,3}}, {{0,1,2,3}}"
    );
}
