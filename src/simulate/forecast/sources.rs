//! Expected runtimes read from the objects: per workload the best source available.
//!
//! Order: a limit from the Workload's `spec.maximumExecutionTimeSeconds`, else its Job's label
//! `kueue.x-k8s.io/max-exec-time-seconds`, else the Job's `spec.activeDeadlineSeconds` (the
//! first present is the limit); the typical runtime from the history of finished Workloads of
//! the same LocalQueue (`Admitted` to `Finished`, finished within [`HISTORY_WINDOW_MS`] before
//! `now`): the median of those of similar size (every resource within a factor of 2, at
//! least [`MIN_SAMPLES`]), else of all of them, never above the limit. No history: the limit
//! is the expectation; neither: unknown.
//!
//! Pure: objects and `now` in, a runtime per unfinished workload out.

use std::collections::BTreeMap;

use super::{Runtime, RuntimeSource};
use crate::api::workload_status::condition;
use crate::manifests::{Inventory, key::ObjectKey, key::namespace_of};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{ClusterState, Millis, Workload};
use crate::scheduler::quantity::Amount;

/// The Job label upstream copies into `spec.maximumExecutionTimeSeconds`.
pub const MAX_EXEC_LABEL: &str = "kueue.x-k8s.io/max-exec-time-seconds";
/// How far back finished Workloads count: a week.
pub const HISTORY_WINDOW_MS: Millis = 7 * 24 * 3600 * 1000;
/// Fewer finished Workloads than this are no history.
pub const MIN_SAMPLES: usize = 3;

/// A finished run: its size and how long it ran.
struct Sample {
    size: BTreeMap<String, Amount>,
    ran_ms: Millis,
}

/// Runtimes of every unfinished workload of `state` (converted from `inventory`).
pub fn runtimes(
    inventory: &Inventory,
    state: &ClusterState,
    now: Millis,
) -> BTreeMap<WorkloadKey, Runtime> {
    let engine_wl: BTreeMap<WorkloadKey, &Workload> =
        state.workloads.iter().map(|w| (w.key(), w)).collect();
    let mut history: BTreeMap<(String, String), Vec<Sample>> = BTreeMap::new();
    for s in &inventory.workloads {
        let wl = &s.obj;
        let Some(status) = wl.status.as_ref() else {
            continue;
        };
        let Some(finished) = status
            .condition(condition::FINISHED)
            .filter(|c| c.status == "True")
        else {
            continue;
        };
        let started = status
            .condition(condition::ADMITTED)
            .or_else(|| status.condition(condition::QUOTA_RESERVED))
            .filter(|c| c.status == "True");
        let (Some(started), Some(w)) = (started, engine_wl.get(&ObjectKey::workload(&wl.metadata)))
        else {
            continue;
        };
        let end = finished.last_transition_time.0.as_millisecond();
        let ran_ms = end - started.last_transition_time.0.as_millisecond();
        if ran_ms < 0 || now - end > HISTORY_WINDOW_MS {
            continue;
        }
        history
            .entry((w.namespace.clone(), w.queue_name.clone()))
            .or_default()
            .push(Sample {
                size: size(w),
                ran_ms,
            });
    }
    let jobs: BTreeMap<(String, String), &k8s_openapi::api::batch::v1::Job> = inventory
        .jobs
        .iter()
        .map(|j| {
            let ns = namespace_of(&j.obj.metadata).to_string();
            (
                (ns, j.obj.metadata.name.clone().unwrap_or_default()),
                &j.obj,
            )
        })
        .collect();
    let mut out = BTreeMap::new();
    for s in &inventory.workloads {
        let wl = &s.obj;
        let key = ObjectKey::workload(&wl.metadata);
        let Some(w) = engine_wl.get(&key).filter(|w| !w.finished) else {
            continue;
        };
        let job = wl
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job")
            .and_then(|o| jobs.get(&(key.namespace.clone(), o.name.clone())));
        let limit = limit(wl.spec.maximum_execution_time_seconds, job.copied());
        let samples = history.get(&(w.namespace.clone(), w.queue_name.clone()));
        let runtime = match samples.and_then(|ss| typical(ss, &size(w), &w.queue_name)) {
            Some((median, source)) => Runtime::typical(median, limit, source),
            None => match limit {
                Some((l, source)) => Runtime::limit(source, l),
                None => Runtime::unknown(),
            },
        };
        out.insert(key, runtime);
    }
    out
}

fn limit(
    max_exec: Option<i32>,
    job: Option<&k8s_openapi::api::batch::v1::Job>,
) -> Option<(Millis, RuntimeSource)> {
    if let Some(s) = max_exec.filter(|s| *s > 0) {
        return Some((i64::from(s) * 1000, RuntimeSource::MaximumExecutionTime));
    }
    let job = job?;
    let label = job
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(MAX_EXEC_LABEL))
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|s| *s > 0);
    if let Some(s) = label {
        return Some((s * 1000, RuntimeSource::MaxExecTimeLabel));
    }
    job.spec
        .as_ref()
        .and_then(|s| s.active_deadline_seconds)
        .filter(|s| *s > 0)
        .map(|s| (s * 1000, RuntimeSource::ActiveDeadline))
}

/// Total request per resource (every pod of every podSet).
fn size(w: &Workload) -> BTreeMap<String, Amount> {
    let mut out: BTreeMap<String, Amount> = BTreeMap::new();
    for ps in &w.pod_sets {
        for (r, v) in &ps.per_pod {
            let total = Amount::new(v.get().saturating_mul(i64::from(ps.count)));
            let e = out.entry(r.clone()).or_default();
            *e = Amount::new(e.get().saturating_add(total.get()));
        }
    }
    out
}

fn similar(a: &BTreeMap<String, Amount>, b: &BTreeMap<String, Amount>) -> bool {
    a.len() == b.len()
        && a.iter().all(|(r, x)| {
            b.get(r).is_some_and(|y| {
                let (x, y) = (x.get().max(0) as i128, y.get().max(0) as i128);
                x <= 2 * y && y <= 2 * x
            })
        })
}

/// The median runtime of the similar samples (or all, when too few are similar).
fn typical(
    samples: &[Sample],
    size: &BTreeMap<String, Amount>,
    local_queue: &str,
) -> Option<(Millis, RuntimeSource)> {
    let mut close: Vec<Millis> = samples
        .iter()
        .filter(|s| similar(&s.size, size))
        .map(|s| s.ran_ms)
        .collect();
    let similar_size = close.len() >= MIN_SAMPLES;
    if !similar_size {
        close = samples.iter().map(|s| s.ran_ms).collect();
    }
    if close.len() < MIN_SAMPLES {
        return None;
    }
    close.sort_unstable();
    let median = percentile(&close, 50);
    Some((
        median,
        RuntimeSource::History {
            local_queue: local_queue.to_string(),
            samples: close.len(),
            median_ms: median,
            p90_ms: percentile(&close, 90),
            similar_size,
        },
    ))
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[Millis], p: usize) -> Millis {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}
