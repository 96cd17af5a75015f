//! The `simulate` table: quota per ClusterQueue before and after, what was admitted,
//! what was preempted and by whom, what still waits and why, and, with `--set`, what the
//! edits change compared with the unedited input.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::scheduler::decision::{Blocked, Decision, PendingDetail};
use crate::scheduler::quantity::{Amount, format_amount};
use crate::scheduler::{Engine, WorkloadKey};
use crate::simulate::result::History;
use crate::simulate::{OutputVersion, Simulation};

use super::{Paint, bar, finish, table};

/// Where a workload ends up: holding quota in a ClusterQueue, or pending with a reason.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    Admitted(String),
    Pending(String),
    Finished,
}

fn ends(sim: &Simulation) -> BTreeMap<String, End> {
    let last = sim.report.last_decisions();
    sim.after
        .workloads()
        .map(|w| {
            let key = w.key();
            let end = if w.finished {
                End::Finished
            } else if let Some(cq) = sim.after.holding_queue(&key) {
                End::Admitted(cq.to_string())
            } else if let Some(b) = sim.after.blocked_reason(&key) {
                End::Pending(b.reason.as_str().to_string())
            } else {
                match last.get(&key) {
                    Some(Decision::Pending { reason, .. }) => {
                        End::Pending(reason.as_str().to_string())
                    }
                    Some(Decision::Preempting { .. }) => {
                        End::Pending("WaitingForPreemptedWorkloads".into())
                    }
                    _ => End::Pending("PendingEvaluation".into()),
                }
            };
            (key.to_string(), end)
        })
        .collect()
}

/// The engine's key for a `namespace/name` text, as this module's maps hold them (a text
/// that is no key finds nothing).
fn id(key: &str) -> WorkloadKey {
    WorkloadKey::parse(key).unwrap_or_default()
}

fn pending_message(sim: &Simulation, key: &str) -> (String, String) {
    if let Some(Blocked {
        reason: r,
        message: m,
        detail: d,
    }) = sim.after.blocked_reason(&id(key))
    {
        let m = match d {
            PendingDetail::ClusterQueueInactive { why, .. } => format!("{m}: {}", why.message()),
            _ => m,
        };
        return (r.as_str().to_string(), m);
    }
    match sim.report.last_decisions().get(&id(key)) {
        // Parked along with an equivalent workload: say why that one waits.
        Some(Decision::Pending {
            reason,
            detail: PendingDetail::SameAsEquivalent { workload },
            ..
        }) => {
            let (_, why) = pending_message(sim, &workload.to_string());
            (
                reason.as_str().to_string(),
                format!("like its equivalent {workload}: {why}"),
            )
        }
        Some(Decision::Pending {
            reason, message, ..
        }) => (reason.as_str().to_string(), message.clone()),
        Some(Decision::Preempting { message, .. }) => {
            ("WaitingForPreemptedWorkloads".into(), message.to_string())
        }
        _ => (
            "PendingEvaluation".into(),
            "Workload is pending evaluation in the scheduling queue".into(),
        ),
    }
}

fn flavors_of(engine: &Engine, key: &str) -> String {
    let Some(adm) = engine.workload(&id(key)).and_then(|w| w.admission.as_ref()) else {
        return String::new();
    };
    let mut parts: Vec<String> = Vec::new();
    for ps in &adm.pod_sets {
        for (r, f) in &ps.flavors {
            let v = ps.resource_usage.get(r).copied().unwrap_or_default();
            let item = format!("{r}={} on {f}", format_amount(r, v));
            if !parts.contains(&item) {
                parts.push(item);
            }
        }
    }
    parts.join(", ")
}

fn lq_of(engine: &Engine, key: &str) -> String {
    engine
        .workload(&id(key))
        .map(|w| w.queue_name.clone())
        .unwrap_or_default()
}

/// The `-o json|yaml` document: the resulting objects as a `v1 List`, with the capacity
/// check beside `items` when the input has Nodes (readers of a List take only `items`, so
/// the output still reads back as input).
pub fn data(sim: &Simulation, version: OutputVersion) -> serde_json::Value {
    let mut list = sim.output_in(version);
    if let Some(c) = crate::view::capacity::of_simulation(sim)
        && let Ok(v) = serde_json::to_value(c)
    {
        list["capacity"] = v;
    }
    list
}

pub fn render(
    sim: &Simulation,
    baseline: Option<&Simulation>,
    changes: &[String],
    wide: bool,
    no_headers: bool,
    color: bool,
) -> String {
    let paint = Paint { color };
    let mut out = String::new();
    let history = History::from_report(&sim.report);
    let end = ends(sim);
    let admitted_now: Vec<&String> = history
        .admitted
        .keys()
        .filter(|k| matches!(end.get(*k), Some(End::Admitted(_))))
        .collect();
    let pending: Vec<&String> = end
        .iter()
        .filter(|(_, e)| matches!(e, End::Pending(_)))
        .map(|(k, _)| k)
        .collect();
    let running_before = sim
        .before
        .workloads()
        .filter(|w| sim.before.holding_queue(&w.key()).is_some())
        .count();
    let _ = writeln!(
        out,
        "{} after {} scheduling cycle(s): {} admitted, {} preempted, {} pending ({} were holding quota before).",
        if sim.report.converged {
            "Fixpoint"
        } else {
            "Stopped"
        },
        sim.report.cycles,
        admitted_now.len(),
        history.preempted.len(),
        pending.len(),
        running_before
    );

    // Quota.
    let _ = writeln!(out, "\n{}", paint.title("QUOTA"));
    let mut headers = vec![
        "CLUSTERQUEUE",
        "COHORT",
        "FLAVOR",
        "RESOURCE",
        "NOMINAL",
        "BORROWING LIMIT",
    ];
    if wide {
        headers.push("LENDING LIMIT");
    }
    headers.extend(["BEFORE", "AFTER", "", "BORROWED"]);
    let mut t = table(&headers, no_headers, color);
    let before: BTreeMap<(String, String, String), Amount> = sim
        .before
        .cluster_queues()
        .into_iter()
        .flat_map(|c| {
            c.usage
                .into_iter()
                .map(move |u| ((c.name.clone(), u.flavor, u.resource), u.reserved))
        })
        .collect();
    let mut hidden = 0;
    for cq in sim.after.cluster_queues() {
        for u in &cq.usage {
            let b = before
                .get(&(cq.name.clone(), u.flavor.clone(), u.resource.clone()))
                .copied()
                .unwrap_or_default();
            if !wide && b == 0 && u.reserved == 0 {
                hidden += 1;
                continue;
            }
            let r = &u.resource;
            let cap = u.nominal.saturating_add(if cq.cohort.is_some() {
                u.borrowing_limit.unwrap_or_default()
            } else {
                Amount::ZERO
            });
            let mut row = vec![
                paint.plain(&cq.name),
                paint.plain(cq.cohort.as_deref().unwrap_or("-")),
                paint.plain(&u.flavor),
                paint.plain(r),
                paint.plain(format_amount(r, u.nominal)),
                paint.plain(
                    u.borrowing_limit
                        .map_or("-".into(), |v| format_amount(r, v)),
                ),
            ];
            if wide {
                row.push(paint.plain(u.lending_limit.map_or("-".into(), |v| format_amount(r, v))));
            }
            let after = format_amount(r, u.reserved);
            row.push(paint.plain(format_amount(r, b)));
            row.push(if u.reserved > b {
                paint.good(after)
            } else if u.reserved < b {
                paint.warn(after)
            } else {
                paint.plain(after)
            });
            row.push(paint.plain(bar(u.reserved.get(), cap.max(u.reserved).get(), 10)));
            row.push(if u.borrowed > 0 {
                paint.warn(format_amount(r, u.borrowed))
            } else {
                paint.plain("0")
            });
            t.add_row(row);
        }
    }
    if t.row_count() == 0 {
        let _ = writeln!(out, "No quota in use before or after.");
    } else {
        let _ = writeln!(out, "{}", finish(&mut t));
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "({hidden} resource(s) with no usage before or after not shown; -o wide shows them)"
        );
    }

    // Admitted.
    if !admitted_now.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint.title(&format!("ADMITTED ({})", admitted_now.len()))
        );
        let mut t = table(
            &[
                "WORKLOAD",
                "LOCALQUEUE",
                "CLUSTERQUEUE",
                "PRIORITY",
                "ASSIGNED",
            ],
            no_headers,
            color,
        );
        for key in &admitted_now {
            let cq = sim.after.holding_queue(&id(key)).unwrap_or("");
            let prio = sim.after.workload(&id(key)).map_or(0, |w| w.priority);
            t.add_row(vec![
                paint.good(key),
                paint.plain(lq_of(&sim.after, key)),
                paint.plain(cq),
                paint.plain(prio),
                paint.plain(flavors_of(&sim.after, key)),
            ]);
        }
        let _ = writeln!(out, "{}", finish(&mut t));
    }

    // Preempted.
    if !history.preempted.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint.title(&format!("PREEMPTED ({})", history.preempted.len()))
        );
        let mut t = table(
            &[
                "WORKLOAD",
                "CLUSTERQUEUE",
                "PRIORITY",
                "PREEMPTED BY",
                "REASON",
                "NOW",
            ],
            no_headers,
            color,
        );
        for (key, (by, reason, _)) in &history.preempted {
            let w = sim.after.workload(&id(key));
            let now = match end.get(key) {
                Some(End::Admitted(cq)) => format!("admitted again in {cq}"),
                Some(End::Pending(r)) => format!("pending ({r})"),
                _ => "finished".into(),
            };
            let cq = history.preempted_from.get(key).cloned().unwrap_or_default();
            t.add_row(vec![
                paint.bad(key),
                paint.plain(cq),
                paint.plain(w.map_or(0, |w| w.priority)),
                paint.plain(by),
                paint.plain(reason.as_str()),
                paint.plain(now),
            ]);
        }
        let _ = writeln!(out, "{}", finish(&mut t));
    }

    // Pending.
    if !pending.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint.title(&format!("PENDING ({})", pending.len()))
        );
        let mut t = table(
            &["WORKLOAD", "LOCALQUEUE", "PRIORITY", "REASON", "MESSAGE"],
            no_headers,
            color,
        );
        for key in &pending {
            let (reason, message) = pending_message(sim, key);
            let prio = sim.after.workload(&id(key)).map_or(0, |w| w.priority);
            t.add_row(vec![
                paint.warn(key),
                paint.plain(lq_of(&sim.after, key)),
                paint.plain(prio),
                paint.plain(reason),
                paint.plain(message),
            ]);
        }
        let _ = writeln!(out, "{}", finish(&mut t));
    }

    // Physical capacity, when the input has Nodes.
    if let Some(c) = crate::view::capacity::of_simulation(sim) {
        out.push_str(&super::capacity::section(&c, no_headers, color));
    }

    // What the edits change.
    if let Some(base) = baseline {
        let base_end = ends(base);
        let _ = writeln!(
            out,
            "\n{}",
            paint.title(&format!("WHAT YOUR CHANGES DO ({})", changes.join(" ")))
        );
        let mut t = table(
            &["WORKLOAD", "WITHOUT CHANGES", "WITH CHANGES"],
            no_headers,
            color,
        );
        let mut changes = 0;
        for (key, e) in &end {
            let b = base_end.get(key);
            if b == Some(e) {
                continue;
            }
            changes += 1;
            let show = |x: Option<&End>| match x {
                Some(End::Admitted(cq)) => format!("admitted in {cq}"),
                Some(End::Pending(r)) => format!("pending ({r})"),
                Some(End::Finished) => "finished".into(),
                None => "-".into(),
            };
            let cell = match e {
                End::Admitted(_) => paint.good(show(Some(e))),
                _ => paint.bad(show(Some(e))),
            };
            t.add_row(vec![paint.plain(key), paint.plain(show(b)), cell]);
        }
        if changes == 0 {
            let _ = writeln!(
                out,
                "Nothing: every workload ends up the same with and without the changes."
            );
        } else {
            let _ = writeln!(out, "{}", finish(&mut t));
        }
    }
    out
}
