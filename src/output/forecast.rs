//! Estimated starts in words: the `ESTIMATED START` cell ("now", "~40m (14:20 UTC)",
//! "≤1h (15:00 UTC)" for an upper bound, "?" when a runtime it depends on is unknown,
//! "never") and the `explain` section with the runtimes it assumes.
//!
//! Times are UTC; a start on another day than `now` carries its date.

use crate::scheduler::model::Millis;
use crate::simulate::forecast::{Estimate, Runtime, RuntimeSource, Start};
use crate::view::forecast::StartEstimate;

use super::time::human_duration;

/// `14:20 UTC`, or `Dec 02 14:20 UTC` on another day than `now`.
pub fn clock(at: Millis, now: Millis) -> String {
    let ts = |ms: Millis| k8s_openapi::jiff::Timestamp::from_millisecond(ms).ok();
    let (Some(t), Some(n)) = (ts(at), ts(now)) else {
        return format!("{at} ms");
    };
    let day = |t: k8s_openapi::jiff::Timestamp| t.strftime("%Y-%m-%d").to_string();
    if day(t) == day(n) {
        t.strftime("%H:%M UTC").to_string()
    } else {
        t.strftime("%b %d %H:%M UTC").to_string()
    }
}

/// The table cell; empty for a workload without an estimate (not pending).
pub fn cell(e: Option<&Estimate>, now: Millis) -> String {
    let Some(e) = e else {
        return String::new();
    };
    match &e.start {
        Start::At { at } if *at <= now => "now".to_string(),
        Start::At { at } => {
            let mark = if e.is_upper_bound() { "≤" } else { "~" };
            format!("{mark}{} ({})", human_duration(at - now), clock(*at, now))
        }
        Start::Unknown { .. } => "?".to_string(),
        Start::Never { .. } => "never".to_string(),
    }
}

/// The estimate without a relative part (for progress lines that must not change as time
/// passes): "~14:20 UTC", "≤14:20 UTC", "?", "never".
pub fn wait_cell(e: &Estimate) -> String {
    match &e.start {
        Start::At { at } => {
            let mark = if e.is_upper_bound() { "≤" } else { "~" };
            format!("{mark}{}", clock(*at, *at))
        }
        Start::Unknown { .. } => "?".to_string(),
        Start::Never { .. } => "never".to_string(),
    }
}

/// At most this many names in a sentence; the rest are counted.
const NAMES_SHOWN: usize = 5;

fn list(names: &[String]) -> String {
    if names.len() > NAMES_SHOWN {
        return format!(
            "{} and {} more",
            names[..NAMES_SHOWN].join(", "),
            names.len() - NAMES_SHOWN
        );
    }
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Where a runtime comes from, in words.
pub fn runtime_words(r: &Runtime) -> String {
    let limit = |ms: Option<Millis>| ms.map(human_duration).unwrap_or_default();
    let base = match &r.source {
        RuntimeSource::MaximumExecutionTime => {
            format!(
                "at most {} (spec.maximumExecutionTimeSeconds)",
                limit(r.limit_ms)
            )
        }
        RuntimeSource::MaxExecTimeLabel => format!(
            "at most {} (Job label kueue.x-k8s.io/max-exec-time-seconds)",
            limit(r.limit_ms)
        ),
        RuntimeSource::ActiveDeadline => {
            format!(
                "at most {} (Job spec.activeDeadlineSeconds)",
                limit(r.limit_ms)
            )
        }
        RuntimeSource::History {
            local_queue,
            samples,
            median_ms,
            p90_ms,
            similar_size,
        } => format!(
            "about {} (median of {samples} finished {}in LocalQueue {local_queue}; p90 {})",
            human_duration(*median_ms),
            if *similar_size {
                "of similar size "
            } else {
                ""
            },
            human_duration(*p90_ms)
        ),
        RuntimeSource::Unknown => {
            "unknown (no time limit, no finished workloads in its LocalQueue): assumed to run past every other finish"
                .to_string()
        }
    };
    match (&r.limit_source, r.limit_ms) {
        (Some(_), Some(l)) => format!("{base}, limit {}", human_duration(l)),
        _ => base,
    }
}

/// The `explain` section's lines (without the title).
pub fn section(s: &StartEstimate) -> Vec<String> {
    let e = &s.estimate;
    let now = s.now;
    let waits: Vec<String> = e.waits_for.iter().map(|k| k.to_string()).collect();
    let mut lines = Vec::new();
    match &e.start {
        Start::At { at } if *at <= now => lines.push("expected to start now".to_string()),
        Start::At { at } => {
            let when = format!("{} ({})", human_duration(at - now), clock(*at, now));
            let mut line = if s.upper_bound {
                format!("expected to start in at most {when}")
            } else {
                format!("expected to start in about {when}")
            };
            if !waits.is_empty() {
                line.push_str(&format!(", once {} finish", list(&waits)));
            }
            match e.latest {
                Some(l) if !s.upper_bound => line.push_str(&format!(
                    "; at the latest by {} if they use their full time limit",
                    clock(l, now)
                )),
                Some(_) => line.push_str(" (at the latest, when their time limits run out)"),
                None => {}
            }
            lines.push(line);
        }
        Start::Unknown { blocked_by } => {
            let names: Vec<String> = blocked_by.iter().map(|k| k.to_string()).collect();
            lines.push(if names.is_empty() {
                "no estimate: the forecast could not settle".to_string()
            } else {
                format!(
                    "no estimate: it waits for {}, whose runtime is unknown",
                    list(&names)
                )
            });
        }
        Start::Never { reason, message } => lines.push(format!(
            "not expected to start even once everything running now has finished: {reason}: {message}"
        )),
    }
    if let Some(p) = &s.capacity {
        lines.push(format!(
            "but {}: {}",
            super::capacity::consequence(p),
            super::capacity::reason(p)
        ));
    }
    if let Some(cq) = &e.cluster_queue {
        let mut line = format!("in ClusterQueue {cq} on flavor {}", e.flavors.join(", "));
        if !e.preempts.is_empty() {
            let victims: Vec<String> = e.preempts.iter().map(|k| k.to_string()).collect();
            line.push_str(&format!(", preempting {}", list(&victims)));
        }
        lines.push(line);
    }
    if !s.assumptions.is_empty() {
        lines.push("assuming (no new arrivals):".to_string());
        // The workloads it waits for (at most NAMES_SHOWN), then its own runtime (last).
        let n = s.assumptions.len();
        for (i, a) in s.assumptions.iter().enumerate() {
            if i >= NAMES_SHOWN && i + 1 < n {
                if i == NAMES_SHOWN {
                    lines.push(format!("  ... and {} more", n - 1 - NAMES_SHOWN));
                }
                continue;
            }
            let end = a
                .expected_end
                .map(|t| format!(", expected to end {}", clock(t.max(now), now)))
                .unwrap_or_default();
            lines.push(format!(
                "  {}: {}{end}",
                a.workload,
                runtime_words(&a.runtime)
            ));
        }
    }
    lines
}
