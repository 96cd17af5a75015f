//! `history export`: the cluster's Workloads as trace jobs. Requests per pod are the
//! engine's (the same conversion `simulate` and the controller use: limits as requests,
//! init containers, overhead), the priority is the one the Workload carries, and the times
//! come from the object: `submitted` its creationTimestamp, `admitted` the lastTransitionTime
//! of `QuotaReserved=True` (else `Admitted=True`), `finished` that of `Finished=True`.
//!
//! Invariants: pure (an inventory and its conversion in, jobs out, ordered by submission then
//! namespace and name); a Workload without a creationTimestamp or a queue name is left out
//! (it was never queued as a trace can say).

use super::format::{TraceJob, TracePodSet};
use crate::api::workload_status::condition;
use crate::manifests::{Inventory, ObjectKey};
use crate::scheduler::model::{ClusterState, Millis};

/// Which Workloads to export.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this namespace (None: all).
    pub namespace: Option<String>,
    /// Only Workloads created at or after this time.
    pub since: Option<Millis>,
}

/// The trace jobs of `inventory` (converted as `state`).
pub fn jobs(inventory: &Inventory, state: &ClusterState, filter: &Filter) -> Vec<TraceJob> {
    let engine: std::collections::BTreeMap<_, _> =
        state.workloads.iter().map(|w| (w.key(), w)).collect();
    let mut out = Vec::new();
    for s in &inventory.workloads {
        let wl = &s.obj;
        let key = ObjectKey::workload(&wl.metadata);
        if filter
            .namespace
            .as_ref()
            .is_some_and(|ns| *ns != key.namespace)
        {
            continue;
        }
        let Some(created) = wl.metadata.creation_timestamp.as_ref() else {
            continue;
        };
        let submitted = created.0.as_millisecond();
        if filter.since.is_some_and(|s| submitted < s) {
            continue;
        }
        let (Some(w), Some(queue)) = (engine.get(&key), wl.spec.queue_name.as_ref()) else {
            continue;
        };
        let time_of = |t: &str| {
            wl.status
                .as_ref()
                .and_then(|st| st.condition(t))
                .filter(|c| c.status == "True")
                .map(|c| c.last_transition_time.0.as_millisecond())
        };
        let admitted = time_of(condition::QUOTA_RESERVED)
            .or_else(|| time_of(condition::ADMITTED))
            .map(|a| a.max(submitted));
        let finished = time_of(condition::FINISHED);
        // A Workload finished without ever reserving quota (deleted Job...) has no runtime.
        let finished = finished.map(|f| admitted.map_or(f, |a| f.max(a)));
        out.push(TraceJob {
            name: key.name.clone(),
            namespace: key.namespace.clone(),
            local_queue: queue.clone(),
            priority: w.priority,
            priority_class: wl.spec.priority_class_name.clone(),
            pod_sets: w
                .pod_sets
                .iter()
                .map(|ps| TracePodSet {
                    name: ps.name.clone(),
                    count: ps.count.max(1),
                    per_pod: ps.per_pod.clone(),
                })
                .collect(),
            submitted,
            admitted,
            finished: admitted.and(finished),
            runtime_ms: admitted.zip(finished).map(|(a, f)| (f - a) / 1000 * 1000),
        });
    }
    out.sort_by(|a, b| {
        (a.submitted, &a.namespace, &a.name).cmp(&(b.submitted, &b.namespace, &b.name))
    });
    out
}

/// `--since`: `90s`, `30m`, `24h`, `7d` or a sum such as `1d12h`, in milliseconds.
pub fn parse_duration(text: &str) -> Result<Millis, String> {
    let bad = || format!("{text:?} is not a duration such as 30m, 24h, 7d or 1d12h");
    let mut total: Millis = 0;
    let mut digits = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit: Millis = match c {
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            'w' => 7 * 86_400_000,
            _ => return Err(bad()),
        };
        let n: Millis = digits.parse().map_err(|_| bad())?;
        digits.clear();
        total = total.saturating_add(n.saturating_mul(unit));
    }
    if !digits.is_empty() || total == 0 {
        return Err(bad());
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("7d"), Ok(7 * 86_400_000));
        assert_eq!(parse_duration("1d12h"), Ok(36 * 3_600_000));
        assert_eq!(parse_duration("90s"), Ok(90_000));
        assert!(parse_duration("7").is_err());
        assert!(parse_duration("7x").is_err());
        assert!(parse_duration("").is_err());
    }
}
