//! How good the start-time forecast is: during a replay, at every instant jobs arrive, the
//! forecast ([`crate::simulate::forecast::forecast`], what `status`/`submit` show) is made on
//! the cluster as it is at that instant; each arriving job's forecast admission is compared
//! with the admission the replay then actually produced. Later arrivals (a higher priority job
//! jumping ahead, another team reclaiming its quota) are what the forecast cannot know.
//!
//! Runtimes the forecast uses, two ways: `exact` (each job's runtime from the trace, so only
//! the unknown future arrivals make errors) and `history` (the forecast's history rule: the
//! median runtime of the same LocalQueue's jobs finished in the replay within the week
//! before, at least [`MIN_SAMPLES`] of them; fewer: unknown, so no time is given).
//!
//! Invariants: pure and deterministic; the replay is the same as without the measurement (the
//! forecast looks at a copy of the state); percentiles are nearest-rank over the jobs that got
//! a time.

use std::collections::BTreeMap;

use serde::Serialize;

use super::format::TraceJob;
use super::replay::{Moment, Replay, replay};
use crate::scheduler::model::{ClusterState, Millis};
use crate::simulate::forecast::sources::{HISTORY_WINDOW_MS, MIN_SAMPLES, percentile};
use crate::simulate::forecast::{Runtime, RuntimeSource, Start, forecast};

/// Which runtimes the forecasts use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Runtimes {
    Exact,
    History,
}

/// Absolute errors over a set of jobs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Errors {
    pub jobs: usize,
    pub median_seconds: f64,
    pub p90_seconds: f64,
    pub max_seconds: f64,
    /// Forecast exactly right (to the millisecond).
    pub exact: usize,
}

/// The measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Accuracy {
    pub runtimes: Runtimes,
    pub jobs: usize,
    /// Jobs whose forecast gave a time and that the replay admitted.
    pub all: Errors,
    /// Of those, the jobs that were not admitted at once (the forecasts that matter).
    pub waited: Errors,
    /// The forecast gave no time: a runtime unknown, never admitted by it, or its run forward
    /// did not settle (workloads preempting each other).
    pub no_time: usize,
    /// The forecast gave a time but the replay never admitted the job.
    pub not_admitted: usize,
    /// Forecast earlier than the real admission / later.
    pub early: usize,
    pub late: usize,
}

fn errors(mut v: Vec<Millis>, exact: usize) -> Errors {
    v.sort_unstable();
    let s = |ms: Millis| ms as f64 / 1000.0;
    Errors {
        jobs: v.len(),
        median_seconds: s(percentile(&v, 50)),
        p90_seconds: s(percentile(&v, 90)),
        max_seconds: s(v.last().copied().unwrap_or(0)),
        exact,
    }
}

fn runtimes_at(
    m: &Moment<'_>,
    trace: &[TraceJob],
    mode: Runtimes,
) -> BTreeMap<crate::scheduler::key::WorkloadKey, Runtime> {
    let mut history: BTreeMap<(&str, &str), Vec<Millis>> = BTreeMap::new();
    if mode == Runtimes::History {
        for &(i, ran, end) in m.finished {
            if m.at - end > HISTORY_WINDOW_MS {
                continue;
            }
            let j = &trace[i];
            history
                .entry((j.namespace.as_str(), j.local_queue.as_str()))
                .or_default()
                .push(ran);
        }
    }
    let mut medians: BTreeMap<(&str, &str), Option<Millis>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (&i, key) in m.keys {
        let j = &trace[i];
        let expected = match mode {
            Runtimes::Exact => j.runtime_ms,
            Runtimes::History => *medians
                .entry((j.namespace.as_str(), j.local_queue.as_str()))
                .or_insert_with(|| {
                    let mut v = history
                        .get(&(j.namespace.as_str(), j.local_queue.as_str()))
                        .cloned()
                        .unwrap_or_default();
                    (v.len() >= MIN_SAMPLES).then(|| {
                        v.sort_unstable();
                        percentile(&v, 50)
                    })
                }),
        };
        if let Some(r) = expected {
            // Known (or assumed) exactly: the expectation is also the bound, one pass.
            out.insert(key.clone(), Runtime::limit(RuntimeSource::Unknown, r));
        }
    }
    out
}

/// Replays `trace` on `setup` and measures the forecasts made at each arrival.
pub fn measure(setup: &ClusterState, trace: &[TraceJob], mode: Runtimes) -> (Replay, Accuracy) {
    let mut predicted: BTreeMap<usize, Option<Millis>> = BTreeMap::new();
    let mut observe = |m: &Moment<'_>| {
        let runtimes = runtimes_at(m, trace, mode);
        let f = forecast(m.state, &runtimes, m.at);
        let by_key: BTreeMap<_, _> = f.estimates.iter().map(|e| (&e.workload, e)).collect();
        for &i in m.arrived {
            let at = m
                .keys
                .get(&i)
                .and_then(|k| by_key.get(k))
                .and_then(|e| match e.start {
                    Start::At { at } => Some(at),
                    _ => None,
                });
            predicted.insert(i, at);
        }
    };
    let r = replay(setup, trace, Some(&mut observe));
    let (mut all, mut waited) = (Vec::new(), Vec::new());
    let (mut all_exact, mut waited_exact) = (0, 0);
    let (mut no_time, mut not_admitted, mut early, mut late) = (0, 0, 0, 0);
    for (&i, p) in &predicted {
        let Some(p) = *p else {
            no_time += 1;
            continue;
        };
        let Some(actual) = r.jobs[i].admitted else {
            not_admitted += 1;
            continue;
        };
        let e = (p - actual).abs();
        if p < actual {
            early += 1;
        } else if p > actual {
            late += 1;
        }
        all.push(e);
        all_exact += usize::from(e == 0);
        if actual > trace[i].submitted {
            waited.push(e);
            waited_exact += usize::from(e == 0);
        }
    }
    let acc = Accuracy {
        runtimes: mode,
        jobs: trace.len(),
        all: errors(all, all_exact),
        waited: errors(waited, waited_exact),
        no_time,
        not_admitted,
        early,
        late,
    };
    (r, acc)
}
