//! The recorder's arithmetic and the summary: per-class time-to-admission statistics (the
//! watch's milliseconds and upstream's whole-second server timestamps), usage of nominal
//! quota integrated over time, the greedy-ideal schedule, and `summary.yaml`'s shape. Pure,
//! so the offline test covers it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::scenario::{Arrival, Scenario};

/// Average, p50, p95 and max of a class's times to admission, seconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distribution {
    pub count: usize,
    pub avg: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

/// Nearest-rank percentiles over `values` (any order).
pub fn distribution(values: &[f64]) -> Distribution {
    if values.is_empty() {
        return Distribution::default();
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Distribution {
        count: v.len(),
        avg: v.iter().sum::<f64>() / v.len() as f64,
        p50: rank(0.50),
        p95: rank(0.95),
        max: v[v.len() - 1],
    }
}

/// Upstream's (HEAD) definition: `creationTimestamp` to the Admitted condition's
/// `lastTransitionTime`, both whole seconds.
pub fn whole_seconds_tta(created_s: i64, admitted_s: i64) -> f64 {
    (admitted_s - created_s).max(0) as f64
}

/// A level that changes at instants: (time ms, value). The integral over [from, to] of the
/// left-continuous step function (upstream's left-Riemann sum over observed updates).
pub fn integrate_steps(steps: &[(u64, f64)], from: u64, to: u64) -> f64 {
    let mut total = 0.0;
    let mut level = 0.0;
    let mut at = from;
    for &(t, v) in steps {
        let t = t.clamp(from, to);
        total += level * (t - at) as f64;
        at = t;
        level = v;
    }
    total + level * (to.saturating_sub(at)) as f64
}

/// The intervals (start, end, milli-cpu) turned into a step function of the total.
pub fn steps_of(intervals: &[(u64, u64, i64)]) -> Vec<(u64, f64)> {
    let mut deltas: Vec<(u64, i64)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e, m) in intervals {
        deltas.push((s, m));
        deltas.push((e, -m));
    }
    deltas.sort();
    let mut out = Vec::with_capacity(deltas.len());
    let mut level = 0i64;
    for (t, d) in deltas {
        level += d;
        out.push((t, level as f64));
    }
    out
}

/// The fraction of `nominal_milli` that the intervals occupy on average over [from, to].
pub fn usage_fraction(
    intervals: &[(u64, u64, i64)],
    nominal_milli: i64,
    from: u64,
    to: u64,
) -> f64 {
    if to <= from || nominal_milli <= 0 {
        return 0.0;
    }
    integrate_steps(&steps_of(intervals), from, to) / (nominal_milli as f64 * (to - from) as f64)
}

/// What a zero-overhead greedy priority scheduler achieves: at every arrival and finish,
/// each cohort admits its pending workloads in (priority, arrival) order wherever they fit
/// (cohort capacity: its nominal quota; a queue: nominal plus borrowing limit), never
/// preempting.
#[derive(Debug, Clone, PartialEq)]
pub struct Greedy {
    pub wall_seconds: f64,
    pub usage: f64,
    pub tta_avg_seconds: BTreeMap<String, f64>,
}

pub fn greedy_ideal(s: &Scenario, schedule: &[Arrival]) -> Greedy {
    let cohorts: Vec<String> = (0..s.queues.len()).map(|q| s.cohort_of(q)).collect();
    let mut cohort_free: BTreeMap<&str, i64> = BTreeMap::new();
    for (q, c) in s.queues.iter().zip(&cohorts) {
        *cohort_free.entry(c.as_str()).or_default() += q.nominal_milli;
    }
    let queue_cap: Vec<i64> = s
        .queues
        .iter()
        .map(|q| q.nominal_milli + q.borrowing_limit_milli.unwrap_or(0))
        .collect();
    let mut queue_used = vec![0i64; s.queues.len()];
    let mut pending: Vec<usize> = Vec::new();
    // (finish time, arrival index)
    let mut running: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        Default::default();
    let mut waits: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut next = 0;
    let mut last_finish = 0u64;
    let first = schedule.first().map_or(0, |a| a.at_ms);
    while next < schedule.len() || !running.is_empty() {
        let t_arrive = schedule.get(next).map(|a| a.at_ms);
        let t_finish = running.peek().map(|r| r.0.0);
        let now = match (t_arrive, t_finish) {
            (Some(a), Some(f)) => a.min(f),
            (Some(a), None) => a,
            (None, Some(f)) => f,
            (None, None) => break,
        };
        while running.peek().is_some_and(|r| r.0.0 == now) {
            let std::cmp::Reverse((_, i)) = running.pop().unwrap();
            let a = &schedule[i];
            *cohort_free.get_mut(cohorts[a.queue].as_str()).unwrap() += a.cpu_milli;
            queue_used[a.queue] -= a.cpu_milli;
            last_finish = last_finish.max(now);
        }
        while schedule.get(next).is_some_and(|a| a.at_ms == now) {
            pending.push(next);
            next += 1;
        }
        pending.sort_by_key(|&i| {
            (
                std::cmp::Reverse(schedule[i].priority),
                schedule[i].at_ms,
                i,
            )
        });
        pending.retain(|&i| {
            let a = &schedule[i];
            let free = cohort_free.get_mut(cohorts[a.queue].as_str()).unwrap();
            if a.cpu_milli <= *free && queue_used[a.queue] + a.cpu_milli <= queue_cap[a.queue] {
                *free -= a.cpu_milli;
                queue_used[a.queue] += a.cpu_milli;
                running.push(std::cmp::Reverse((now + a.runtime_ms, i)));
                waits
                    .entry(a.class.clone())
                    .or_default()
                    .push((now - a.at_ms) as f64 / 1000.0);
                false
            } else {
                true
            }
        });
        if !pending.is_empty() && running.is_empty() && next >= schedule.len() {
            break; // something can never fit
        }
    }
    let wall_ms = last_finish.saturating_sub(first).max(1);
    let work: f64 = schedule
        .iter()
        .map(|a| a.cpu_milli as f64 * a.runtime_ms as f64)
        .sum();
    Greedy {
        wall_seconds: wall_ms as f64 / 1000.0,
        usage: work / (s.nominal_milli() as f64 * wall_ms as f64),
        tta_avg_seconds: waits
            .into_iter()
            .map(|(c, v)| (c, v.iter().sum::<f64>() / v.len().max(1) as f64))
            .collect(),
    }
}

/// One class's figures in the summary.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClassSummary {
    pub count: usize,
    pub tta_avg_seconds: f64,
    pub tta_p50_seconds: f64,
    pub tta_p95_seconds: f64,
    pub tta_max_seconds: f64,
    /// Upstream's definition: creationTimestamp to Admitted's lastTransitionTime (whole s).
    pub tta_avg_whole_seconds: f64,
    pub replay_tta_avg_seconds: f64,
    pub greedy_tta_avg_seconds: f64,
    pub evictions: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueSummary {
    pub usage_held: f64,
    pub usage_useful: f64,
    pub admissions: u64,
    pub preemptions: u64,
    pub readmissions: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ProcessFigures {
    pub cpu_seconds: f64,
    pub peak_rss_bytes: u64,
}

/// The virtual-time replay's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReplaySummary {
    pub wall_seconds: f64,
    pub usage_useful: f64,
    pub cycles: u64,
    pub admissions: u64,
    pub preemptions: u64,
    pub engine_seconds: f64,
    pub cycle_avg_micros: f64,
    pub admissions_per_engine_second: f64,
}

/// `target/perf/<scenario>/summary.yaml` (documented in the README's Performance section).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub scale: f64,
    pub workloads: usize,
    pub machine_load: String,
    pub wall_seconds: f64,
    pub floor_seconds: f64,
    pub greedy_wall_seconds: f64,
    pub greedy_usage: f64,
    pub replay_wall_seconds: f64,
    pub overhead_ratio: f64,
    pub usage_held: f64,
    pub usage_useful: f64,
    pub admissions: u64,
    pub preemptions: u64,
    pub readmissions: u64,
    pub harness_releases: u64,
    pub classes: BTreeMap<String, ClassSummary>,
    pub controller_cpu_seconds: f64,
    pub controller_peak_rss_bytes: u64,
    pub apiserver: ProcessFigures,
    pub etcd: ProcessFigures,
    /// The API server's own request counters over the run (`apiserver_request_total`), by
    /// "VERB resource[/subresource]", for the kinds the controller writes.
    pub apiserver_requests: BTreeMap<String, u64>,
    pub extra: BTreeMap<String, f64>,
    pub replay: ReplaySummary,
    pub cluster_queues: BTreeMap<String, QueueSummary>,
}
