//! Figures of a replay, per ClusterQueue and LocalQueue: jobs, wait from submission to first
//! admission (p50, p90, max), average usage of nominal quota and borrowing for one resource
//! (time-weighted over the replay's span), preemptions; the cluster's usage; and between two
//! replays of the same trace, the jobs whose wait changed the most.
//!
//! Invariants: pure (replays in, figures out); percentiles are nearest-rank over admitted
//! jobs only (jobs never admitted are counted apart); a queue with no nominal quota for the
//! resource has no usage-of-nominal figure rather than a division by zero.

use std::collections::BTreeMap;

use serde::Serialize;

use super::format::TraceJob;
use super::replay::Replay;
use crate::scheduler::model::Millis;
use crate::simulate::forecast::sources::percentile;

/// One queue's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStats {
    /// ClusterQueue name, or `namespace/name` of a LocalQueue.
    pub name: String,
    pub jobs: usize,
    pub admitted: usize,
    pub never_admitted: usize,
    pub wait_p50_seconds: Option<f64>,
    pub wait_p90_seconds: Option<f64>,
    pub wait_max_seconds: Option<f64>,
    /// Jobs admitted (at least once) while borrowing.
    pub admitted_borrowing: usize,
    /// Times its jobs were preempted.
    pub preemptions: u32,
    /// ClusterQueues only: time-weighted average of used / nominal for the resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_of_nominal: Option<f64>,
    /// ClusterQueues only: time-weighted average amount used above nominal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowed_average: Option<f64>,
    /// ClusterQueues only: the nominal quota of the resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominal: Option<f64>,
}

/// A replay's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The resource usage figures are about.
    pub resource: String,
    pub start: String,
    pub end: String,
    pub jobs: usize,
    pub admitted: usize,
    pub finished: usize,
    pub preemptions: u32,
    /// Time-weighted average of used / nominal over the whole cluster (ClusterQueues and
    /// cohorts with quota of their own).
    pub cluster_usage: Option<f64>,
    pub cluster_queues: Vec<QueueStats>,
    pub local_queues: Vec<QueueStats>,
    /// Instants where the engine did not settle (workloads preempting each other).
    pub unsettled_instants: usize,
}

/// A job whose wait differs between two replays.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitChange {
    pub workload: String,
    pub local_queue: String,
    pub before_seconds: f64,
    pub after_seconds: f64,
}

/// The resource figures are about: `nvidia.com/gpu` when some ClusterQueue has quota for it,
/// else the first resource with quota, by name.
pub fn default_resource(replay: &Replay) -> String {
    let all: std::collections::BTreeSet<&String> =
        replay.nominal.values().flat_map(|m| m.keys()).collect();
    if all.iter().any(|r| r.as_str() == "nvidia.com/gpu") {
        return "nvidia.com/gpu".to_string();
    }
    all.into_iter()
        .next()
        .cloned()
        .unwrap_or_else(|| "cpu".to_string())
}

fn seconds(ms: Millis) -> f64 {
    ms as f64 / 1000.0
}

fn waits(replay: &Replay, trace: &[TraceJob], members: &[usize]) -> QueueStats {
    let mut w: Vec<Millis> = members
        .iter()
        .filter_map(|&i| replay.jobs[i].wait(&trace[i]))
        .collect();
    w.sort_unstable();
    let some = |v: Millis| (!w.is_empty()).then(|| seconds(v));
    QueueStats {
        name: String::new(),
        jobs: members.len(),
        admitted: w.len(),
        never_admitted: members.len() - w.len(),
        wait_p50_seconds: some(percentile(&w, 50)),
        wait_p90_seconds: some(percentile(&w, 90)),
        wait_max_seconds: some(w.last().copied().unwrap_or(0)),
        admitted_borrowing: members.iter().filter(|&&i| replay.jobs[i].borrowed).count(),
        preemptions: members.iter().map(|&i| replay.jobs[i].preempted).sum(),
        usage_of_nominal: None,
        borrowed_average: None,
        nominal: None,
    }
}

/// Time-weighted averages over the span: (used of `cq`, used above nominal), in units.
fn averages(replay: &Replay, cq: Option<&str>, resource: &str, nominal: f64) -> (f64, f64) {
    let span = (replay.end - replay.start) as f64;
    let (mut used, mut over) = (0.0, 0.0);
    for (k, p) in replay.usage.iter().enumerate() {
        let until = replay.usage.get(k + 1).map_or(replay.end, |n| n.at);
        let dt = (until - p.at) as f64;
        let u: f64 = p
            .used
            .iter()
            .filter(|(name, _)| cq.is_none_or(|c| c == name.as_str()))
            .map(|(_, m)| m.get(resource).map_or(0.0, |a| a.get() as f64))
            .sum();
        used += u * dt;
        over += (u - nominal).max(0.0) * dt;
    }
    if span <= 0.0 {
        // Everything at one instant: the usage then.
        let u = replay.usage.last().map_or(0.0, |p| {
            p.used
                .iter()
                .filter(|(name, _)| cq.is_none_or(|c| c == name.as_str()))
                .map(|(_, m)| m.get(resource).map_or(0.0, |a| a.get() as f64))
                .sum()
        });
        return (u, (u - nominal).max(0.0));
    }
    (used / span, over / span)
}

/// The usage of `resource` as used / nominal per ClusterQueue over time (for charts):
/// ClusterQueue -> (seconds since the start, fraction), as steps.
pub fn usage_series(replay: &Replay, resource: &str) -> BTreeMap<String, Vec<(f64, f64)>> {
    let mut out: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (cq, quotas) in &replay.nominal {
        let Some(n) = quotas
            .get(resource)
            .map(|a| a.get() as f64)
            .filter(|n| *n > 0.0)
        else {
            continue;
        };
        let pts = out.entry(cq.clone()).or_default();
        for p in &replay.usage {
            let u = p
                .used
                .get(cq)
                .and_then(|m| m.get(resource))
                .map_or(0.0, |a| a.get() as f64);
            pts.push((seconds(p.at - replay.start), u / n));
        }
        pts.push((
            seconds(replay.end - replay.start),
            pts.last().map_or(0.0, |p| p.1),
        ));
    }
    out
}

/// The whole cluster's usage of `resource` as used / nominal over time (ClusterQueues and
/// cohorts with quota of their own), as steps; empty when nothing has nominal quota.
pub fn cluster_series(replay: &Replay, resource: &str) -> Vec<(f64, f64)> {
    let total: f64 = replay
        .nominal
        .values()
        .map(|m| m.get(resource).map_or(0.0, |a| a.get() as f64))
        .sum::<f64>()
        + replay
            .cohort_nominal
            .get(resource)
            .map_or(0.0, |a| a.get() as f64);
    if total <= 0.0 {
        return Vec::new();
    }
    let mut pts: Vec<(f64, f64)> = replay
        .usage
        .iter()
        .map(|p| {
            let u: f64 = p
                .used
                .values()
                .map(|m| m.get(resource).map_or(0.0, |a| a.get() as f64))
                .sum();
            (seconds(p.at - replay.start), u / total)
        })
        .collect();
    pts.push((
        seconds(replay.end - replay.start),
        pts.last().map_or(0.0, |p| p.1),
    ));
    pts
}

/// The figures of `replay` of `trace` for `resource`.
pub fn summarize(replay: &Replay, trace: &[TraceJob], resource: &str) -> Summary {
    let mut by_cq: BTreeMap<String, Vec<usize>> = replay
        .nominal
        .keys()
        .map(|cq| (cq.clone(), Vec::new()))
        .collect();
    let mut by_lq: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, j) in trace.iter().enumerate() {
        by_lq
            .entry(format!("{}/{}", j.namespace, j.local_queue))
            .or_default()
            .push(i);
        let cq = replay.jobs[i].cluster_queue.clone().or_else(|| {
            replay
                .local_queues
                .get(&(j.namespace.clone(), j.local_queue.clone()))
                .cloned()
        });
        by_cq
            .entry(cq.unwrap_or_else(|| "(no ClusterQueue)".to_string()))
            .or_default()
            .push(i);
    }
    let cluster_queues = by_cq
        .iter()
        .map(|(cq, members)| {
            let mut s = waits(replay, trace, members);
            s.name = cq.clone();
            if let Some(quotas) = replay.nominal.get(cq) {
                let n = quotas.get(resource).map_or(0.0, |a| a.get() as f64);
                let (used, over) = averages(replay, Some(cq), resource, n);
                s.nominal = Some(n);
                s.usage_of_nominal = (n > 0.0).then(|| used / n);
                s.borrowed_average = Some(over);
            }
            s
        })
        .collect();
    let local_queues = by_lq
        .iter()
        .map(|(lq, members)| {
            let mut s = waits(replay, trace, members);
            s.name = lq.clone();
            s
        })
        .collect();
    let total: f64 = replay
        .nominal
        .values()
        .map(|m| m.get(resource).map_or(0.0, |a| a.get() as f64))
        .sum::<f64>()
        + replay
            .cohort_nominal
            .get(resource)
            .map_or(0.0, |a| a.get() as f64);
    let (used, _) = averages(replay, None, resource, total);
    Summary {
        resource: resource.to_string(),
        start: super::format::rfc3339(replay.start),
        end: super::format::rfc3339(replay.end),
        jobs: trace.len(),
        admitted: replay.jobs.iter().filter(|j| j.admitted.is_some()).count(),
        finished: replay.jobs.iter().filter(|j| j.finished.is_some()).count(),
        preemptions: replay.jobs.iter().map(|j| j.preempted).sum(),
        cluster_usage: (total > 0.0).then(|| used / total),
        cluster_queues,
        local_queues,
        unsettled_instants: replay.unsettled.len(),
    }
}

/// The `top` jobs admitted in both replays whose wait changed the most (largest change
/// first, then trace order).
pub fn wait_changes(
    before: &Replay,
    after: &Replay,
    trace: &[TraceJob],
    top: usize,
) -> Vec<WaitChange> {
    let mut all: Vec<(Millis, usize, WaitChange)> = Vec::new();
    for (i, j) in trace.iter().enumerate() {
        let (Some(b), Some(a)) = (before.jobs[i].wait(j), after.jobs[i].wait(j)) else {
            continue;
        };
        if a == b {
            continue;
        }
        all.push((
            (a - b).abs(),
            i,
            WaitChange {
                workload: j.id(),
                local_queue: j.local_queue.clone(),
                before_seconds: seconds(b),
                after_seconds: seconds(a),
            },
        ));
    }
    all.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    all.into_iter().take(top).map(|(_, _, c)| c).collect()
}

/// Wait times in seconds of the admitted jobs of each ClusterQueue (for charts).
pub fn wait_samples(replay: &Replay, trace: &[TraceJob]) -> BTreeMap<String, Vec<f64>> {
    let mut out: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (i, j) in trace.iter().enumerate() {
        let o = &replay.jobs[i];
        if let (Some(w), Some(cq)) = (o.wait(j), o.cluster_queue.as_ref()) {
            out.entry(cq.clone()).or_default().push(seconds(w));
        }
    }
    out
}
