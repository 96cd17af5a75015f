//! `simulate --trace` for people: the replay's figures per ClusterQueue and LocalQueue, side
//! by side for two setups, the jobs whose wait changed most, and the forecast accuracy.
//!
//! Durations in `human_duration`'s words; usage as a percentage of nominal quota.

use super::time::human_duration;
use super::{Paint, finish, table};
use crate::simulate::trace::accuracy::Accuracy;
use crate::simulate::trace::summary::{QueueStats, Summary, WaitChange};

fn dur(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |s| human_duration((s * 1000.0) as i64))
}

fn pct(f: Option<f64>) -> String {
    f.map_or("-".to_string(), |f| format!("{:.0}%", f * 100.0))
}

fn borrowed(s: &QueueStats) -> String {
    s.borrowed_average
        .map_or("-".to_string(), |b| format!("{b:.2}"))
}

/// The heading line of a replay.
fn heading(s: &Summary) -> String {
    format!(
        "{} jobs from {} to {}: {} admitted, {} finished, {} preemptions; cluster {} usage {}",
        s.jobs,
        s.start,
        s.end,
        s.admitted,
        s.finished,
        s.preemptions,
        s.resource,
        pct(s.cluster_usage)
    )
}

/// One replay's figures.
pub fn render(s: &Summary, no_headers: bool, color: bool) -> String {
    let p = Paint { color };
    let mut out = format!("{}\n\n", heading(s));
    let mut t = table(
        &[
            "CLUSTERQUEUE",
            "JOBS",
            "WAIT P50",
            "WAIT P90",
            "WAIT MAX",
            "NEVER ADMITTED",
            "USAGE OF NOMINAL",
            "BORROWED (AVG)",
            "ADMITTED BORROWING",
            "PREEMPTED",
        ],
        no_headers,
        color,
    );
    for q in &s.cluster_queues {
        t.add_row(vec![
            p.plain(&q.name),
            p.plain(q.jobs),
            p.plain(dur(q.wait_p50_seconds)),
            p.plain(dur(q.wait_p90_seconds)),
            p.plain(dur(q.wait_max_seconds)),
            p.plain(q.never_admitted),
            p.plain(pct(q.usage_of_nominal)),
            p.plain(borrowed(q)),
            p.plain(q.admitted_borrowing),
            p.plain(q.preemptions),
        ]);
    }
    out.push_str(&finish(&mut t));
    out.push_str("\n\n");
    let mut t = table(
        &[
            "LOCALQUEUE",
            "JOBS",
            "WAIT P50",
            "WAIT P90",
            "WAIT MAX",
            "NEVER ADMITTED",
            "PREEMPTED",
        ],
        no_headers,
        color,
    );
    for q in &s.local_queues {
        t.add_row(vec![
            p.plain(&q.name),
            p.plain(q.jobs),
            p.plain(dur(q.wait_p50_seconds)),
            p.plain(dur(q.wait_p90_seconds)),
            p.plain(dur(q.wait_max_seconds)),
            p.plain(q.never_admitted),
            p.plain(q.preemptions),
        ]);
    }
    out.push_str(&finish(&mut t));
    out.push('\n');
    out
}

fn arrow(a: String, b: String) -> String {
    if a == b { a } else { format!("{a} → {b}") }
}

/// Two replays of the same trace side by side (`before` → `after`).
pub fn render_compare(
    before: &Summary,
    after: &Summary,
    changes: &[WaitChange],
    change_words: &str,
    no_headers: bool,
    color: bool,
) -> String {
    let p = Paint { color };
    let mut out = format!(
        "Before: {}\nAfter ({change_words}): {}\n\n",
        heading(before),
        heading(after)
    );
    let find = |list: &[QueueStats], name: &str| list.iter().find(|q| q.name == name).cloned();
    let mut t = table(
        &[
            "CLUSTERQUEUE",
            "WAIT P50",
            "WAIT P90",
            "WAIT MAX",
            "USAGE OF NOMINAL",
            "BORROWED (AVG)",
            "PREEMPTED",
        ],
        no_headers,
        color,
    );
    let mut names: Vec<String> = before
        .cluster_queues
        .iter()
        .map(|q| q.name.clone())
        .collect();
    for q in &after.cluster_queues {
        if !names.contains(&q.name) {
            names.push(q.name.clone());
        }
    }
    for name in &names {
        let (b, a) = (
            find(&before.cluster_queues, name),
            find(&after.cluster_queues, name),
        );
        let f = |q: &Option<QueueStats>, g: &dyn Fn(&QueueStats) -> String| {
            q.as_ref().map_or("-".to_string(), g)
        };
        let col = |g: &dyn Fn(&QueueStats) -> String| arrow(f(&b, g), f(&a, g));
        t.add_row(vec![
            p.plain(name),
            p.plain(col(&|q| dur(q.wait_p50_seconds))),
            p.plain(col(&|q| dur(q.wait_p90_seconds))),
            p.plain(col(&|q| dur(q.wait_max_seconds))),
            p.plain(col(&|q| pct(q.usage_of_nominal))),
            p.plain(col(&borrowed)),
            p.plain(col(&|q| q.preemptions.to_string())),
        ]);
    }
    out.push_str(&finish(&mut t));
    out.push_str("\n\n");
    let mut t = table(
        &[
            "LOCALQUEUE",
            "WAIT P50",
            "WAIT P90",
            "WAIT MAX",
            "PREEMPTED",
        ],
        no_headers,
        color,
    );
    for b in &before.local_queues {
        let a = find(&after.local_queues, &b.name);
        let col =
            |g: &dyn Fn(&QueueStats) -> String| arrow(g(b), a.as_ref().map_or("-".to_string(), g));
        t.add_row(vec![
            p.plain(&b.name),
            p.plain(col(&|q| dur(q.wait_p50_seconds))),
            p.plain(col(&|q| dur(q.wait_p90_seconds))),
            p.plain(col(&|q| dur(q.wait_max_seconds))),
            p.plain(col(&|q| q.preemptions.to_string())),
        ]);
    }
    out.push_str(&finish(&mut t));
    out.push('\n');
    if !changes.is_empty() {
        out.push_str(&format!("\n{}\n", p.title("Jobs whose wait changed most:")));
        let mut t = table(
            &["WORKLOAD", "WAIT BEFORE", "WAIT AFTER"],
            no_headers,
            color,
        );
        for c in changes {
            t.add_row(vec![
                p.plain(&c.workload),
                p.plain(dur(Some(c.before_seconds))),
                p.plain(dur(Some(c.after_seconds))),
            ]);
        }
        out.push_str(&finish(&mut t));
        out.push('\n');
    }
    out
}

/// The forecast accuracy measurements.
pub fn render_accuracy(all: &[Accuracy], no_headers: bool, color: bool) -> String {
    let p = Paint { color };
    let mut t = table(
        &[
            "RUNTIMES",
            "FORECASTS",
            "MEDIAN ERROR",
            "P90 ERROR",
            "MAX ERROR",
            "EXACT",
            "WAITED",
            "WAITED MEDIAN",
            "WAITED P90",
            "NO TIME",
        ],
        no_headers,
        color,
    );
    for a in all {
        let mode = match a.runtimes {
            crate::simulate::trace::accuracy::Runtimes::Exact => "exact",
            crate::simulate::trace::accuracy::Runtimes::History => "history",
        };
        t.add_row(vec![
            p.plain(mode),
            p.plain(a.all.jobs),
            p.plain(dur(Some(a.all.median_seconds))),
            p.plain(dur(Some(a.all.p90_seconds))),
            p.plain(dur(Some(a.all.max_seconds))),
            p.plain(a.all.exact),
            p.plain(a.waited.jobs),
            p.plain(dur(Some(a.waited.median_seconds))),
            p.plain(dur(Some(a.waited.p90_seconds))),
            p.plain(a.no_time),
        ]);
    }
    let mut out = String::from(
        "Forecast at each submission vs the admission the replay produced (absolute error):\n\n",
    );
    out.push_str(&finish(&mut t));
    out.push('\n');
    out
}
