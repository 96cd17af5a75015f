//! The scenario through the engine alone on a virtual clock: no API server, no controller.
//! Workloads arrive on the generator's schedule, run for their runtime from admission and
//! finish; a preempted one releases its quota at once and queues again (the harness's
//! job side clears an evicted reservation the same way), starting its runtime over when
//! re-admitted. Cycles run at every instant something changed, until they decide nothing.
//! What comes out is the ideal schedule for our scheduling rules; the live run's ratio to it
//! is the controller's overhead.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::time::Instant;

use kubectl_kueue::scheduler::decision::Decision;
use kubectl_kueue::scheduler::key::WorkloadKey;
use kubectl_kueue::scheduler::labels::LabelSelector;
use kubectl_kueue::scheduler::model::*;
use kubectl_kueue::scheduler::quantity::Amount;
use kubectl_kueue::scheduler::{Engine, EquivalentDecisions};

use super::scenario::{Arrival, Scenario};
use super::stats::{ReplaySummary, usage_fraction};

/// Virtual epoch: the engine's clock is milliseconds since this plus the schedule's offset.
const EPOCH: Millis = 1_750_000_000_000;

pub struct Replay {
    pub summary: ReplaySummary,
    /// Per class: times from creation to the last admission, seconds.
    pub tta: BTreeMap<String, Vec<f64>>,
}

/// The engine's picture of the scenario's queues (no workloads yet).
pub fn cluster_state(s: &Scenario) -> ClusterState {
    let mut st = ClusterState::default();
    st.flavors.insert("rf".into(), ResourceFlavor::default());
    for q in &s.queues {
        st.cluster_queues.insert(
            q.name.clone(),
            ClusterQueue {
                cohort: q.cohort.clone(),
                namespace_selector: Some(LabelSelector::default()),
                resource_groups: vec![ResourceGroup {
                    covered_resources: vec!["cpu".into()],
                    flavors: vec![FlavorQuotas {
                        name: "rf".into(),
                        resources: vec![ResourceQuota {
                            name: "cpu".into(),
                            nominal: Amount::new(q.nominal_milli),
                            borrowing_limit: q.borrowing_limit_milli.map(Amount::new),
                            lending_limit: None,
                        }],
                    }],
                }],
                preemption: Preemption {
                    reclaim_within_cohort: PreemptionPolicy::Any,
                    within_cluster_queue: PreemptionPolicy::LowerPriority,
                    borrow_within_cohort: None,
                },
                ..Default::default()
            },
        );
        st.local_queues.insert(
            (q.name.clone(), q.name.clone()),
            LocalQueue {
                cluster_queue: q.name.clone(),
                ..Default::default()
            },
        );
        st.namespaces.insert(q.name.clone(), BTreeMap::new());
    }
    st
}

fn workload(a: &Arrival, order: u64) -> Workload {
    Workload {
        namespace: a.namespace.clone(),
        name: a.name.clone(),
        uid: format!("uid-{order}"),
        queue_name: a.namespace.clone(),
        priority: a.priority,
        queue_time: EPOCH + a.at_ms as i64,
        tiebreak: order,
        active: true,
        pod_sets: vec![PodSet {
            name: "main".into(),
            count: 1,
            per_pod: BTreeMap::from([("cpu".into(), Amount::new(a.cpu_milli))]),
            ..Default::default()
        }],
        ..Default::default()
    }
}

pub fn replay(s: &Scenario, schedule: &[Arrival]) -> Replay {
    let mut engine = Engine::new(cluster_state(s));
    // As `run-controller` runs it: a parked equivalent's Pending decision only when it says
    // something new.
    engine.set_equivalent_decisions(EquivalentDecisions::OnChange);
    let index: BTreeMap<WorkloadKey, usize> = schedule
        .iter()
        .enumerate()
        .map(|(i, a)| (WorkloadKey::new(&a.namespace, &a.name), i))
        .collect();
    // Per workload: current run's admission time and generation (a finish is stale when
    // the workload was evicted and re-admitted since).
    let mut admitted_at: Vec<Option<u64>> = vec![None; schedule.len()];
    let mut generation = vec![0u32; schedule.len()];
    let mut last_admission = vec![0u64; schedule.len()];
    let mut finishes: BinaryHeap<Reverse<(u64, usize, u32)>> = BinaryHeap::new();
    let mut useful: Vec<(u64, u64, i64)> = Vec::with_capacity(schedule.len());
    let mut sum = ReplaySummary::default();
    let mut engine_time = std::time::Duration::ZERO;
    let mut cycle_time = std::time::Duration::ZERO;
    let mut next = 0usize;
    let mut last_finish = 0u64;
    loop {
        let now = match (
            schedule.get(next).map(|a| a.at_ms),
            finishes.peek().map(|f| f.0.0),
        ) {
            (Some(a), Some(f)) => a.min(f),
            (Some(a), None) => a,
            (None, Some(f)) => f,
            (None, None) => break,
        };
        let t0 = Instant::now();
        while finishes.peek().is_some_and(|f| f.0.0 == now) {
            let Reverse((_, i, g)) = finishes.pop().unwrap();
            if g != generation[i] {
                continue;
            }
            let a = &schedule[i];
            engine.finish_workload(&WorkloadKey::new(&a.namespace, &a.name));
            useful.push((admitted_at[i].take().unwrap_or(now), now, a.cpu_milli));
            last_finish = last_finish.max(now);
        }
        while schedule.get(next).is_some_and(|a| a.at_ms == now) {
            engine.upsert_workload(workload(&schedule[next], next as u64));
            next += 1;
        }
        engine_time += t0.elapsed();
        for _ in 0..100_000 {
            let t0 = Instant::now();
            let outcome = engine.run_cycle(EPOCH + now as i64);
            let mut took = t0.elapsed();
            sum.cycles += 1;
            if outcome.decisions.is_empty() {
                cycle_time += took;
                engine_time += took;
                break;
            }
            for d in &outcome.decisions {
                let Some(&i) = index.get(&d.workload) else {
                    continue;
                };
                match &d.decision {
                    Decision::Admitted { .. } => {
                        sum.admissions += 1;
                        generation[i] += 1;
                        admitted_at[i] = Some(now);
                        last_admission[i] = now;
                        finishes.push(Reverse((now + schedule[i].runtime_ms, i, generation[i])));
                    }
                    Decision::Preempting { targets, .. } => {
                        for t in targets.iter() {
                            let t1 = Instant::now();
                            let released = engine.release(&t.workload);
                            took += t1.elapsed();
                            if released && let Some(&v) = index.get(&t.workload) {
                                sum.preemptions += 1;
                                generation[v] += 1;
                                admitted_at[v] = None;
                            }
                        }
                    }
                    Decision::Pending { .. } => {}
                }
            }
            cycle_time += took;
            engine_time += took;
        }
    }
    let first = schedule.first().map_or(0, |a| a.at_ms);
    let wall_ms = last_finish.saturating_sub(first).max(1);
    sum.wall_seconds = wall_ms as f64 / 1000.0;
    sum.usage_useful = usage_fraction(&useful, s.nominal_milli(), first, last_finish);
    sum.engine_seconds = engine_time.as_secs_f64();
    sum.cycle_avg_micros = cycle_time.as_secs_f64() * 1e6 / sum.cycles.max(1) as f64;
    sum.admissions_per_engine_second = sum.admissions as f64 / engine_time.as_secs_f64().max(1e-9);
    let mut tta: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (i, a) in schedule.iter().enumerate() {
        tta.entry(a.class.clone())
            .or_default()
            .push((last_admission[i].saturating_sub(a.at_ms)) as f64 / 1000.0);
    }
    Replay { summary: sum, tta }
}
