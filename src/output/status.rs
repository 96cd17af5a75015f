//! The `status` view: per cohort, each ClusterQueue's quota and usage per flavor and
//! resource (with bars), then LocalQueues, then workloads with their state, position, wait
//! and flavor. The view is plain data ([`StatusView`], built in `view::status`, also the
//! `-o json|yaml` shape); this module only lays it out.

use std::fmt::Write;

use super::{Paint, Printer, bar, finish, table};
use crate::cli::OutputFormat;
use crate::view::status::StatusView;

fn state_cell(p: &Paint, state: &str) -> comfy_table::Cell {
    match state {
        "Admitted" | "Finished" => p.good(state),
        "Pending" | "QuotaReserved" => p.warn(state),
        "Evicted" | "Inactive" => p.bad(state),
        _ => p.plain(state),
    }
}

/// The whole view as text.
pub fn render(v: &StatusView, wide: bool, no_headers: bool, color: bool) -> String {
    let p = Paint { color };
    let mut out = String::new();
    if v.cohorts.is_empty() {
        let _ = writeln!(out, "No ClusterQueues found.");
    }
    for c in &v.cohorts {
        let title = match (&c.cohort, &c.parent) {
            (Some(n), Some(parent)) => format!("COHORT {n} (in {parent})"),
            (Some(n), None) => format!("COHORT {n}"),
            (None, _) => "NO COHORT".to_string(),
        };
        let _ = writeln!(out, "{}", p.title(&title));
        let mut headers = vec![
            "CLUSTERQUEUE",
            "FLAVOR",
            "RESOURCE",
            "NOMINAL",
            "BORROWING LIMIT",
        ];
        if wide {
            headers.push("LENDING LIMIT");
        }
        headers.extend(["IN USE", "", "BORROWED"]);
        if wide {
            headers.extend(["ADMITTED", "AVAILABLE"]);
        }
        headers.extend(["PENDING", "ADMITTED WORKLOADS"]);
        let mut t = table(&headers, no_headers, color);
        let mut notes = Vec::new();
        for cq in &c.cluster_queues {
            if let (Some(r), Some(m)) = (&cq.inactive_reason, &cq.inactive_message) {
                notes.push(format!("{} is inactive ({r}): {m}", cq.name));
            }
            let name_cell = || {
                if cq.active {
                    p.plain(&cq.name)
                } else {
                    p.bad(format!("{} (inactive)", cq.name))
                }
            };
            if cq.quota.is_empty() {
                let mut row = vec![
                    name_cell(),
                    p.plain("-"),
                    p.plain("-"),
                    p.plain(""),
                    p.plain(""),
                ];
                if wide {
                    row.push(p.plain(""));
                }
                row.extend([p.plain(""), p.plain(""), p.plain("")]);
                if wide {
                    row.extend([p.plain(""), p.plain("")]);
                }
                row.extend([
                    p.plain(cq.pending_workloads),
                    p.plain(cq.admitted_workloads),
                ]);
                t.add_row(row);
                continue;
            }
            let mut last_flavor = "";
            for (i, q) in cq.quota.iter().enumerate() {
                let first = i == 0;
                let mut row = vec![
                    if first { name_cell() } else { p.plain("") },
                    p.plain(if first || q.flavor != last_flavor {
                        q.flavor.as_str()
                    } else {
                        ""
                    }),
                    p.plain(&q.resource),
                    p.plain(&q.nominal),
                    p.plain(q.borrowing_limit.as_deref().unwrap_or("-")),
                ];
                last_flavor = &q.flavor;
                if wide {
                    row.push(p.plain(q.lending_limit.as_deref().unwrap_or("-")));
                }
                let full = q.capacity_units > 0 && q.in_use_units >= q.capacity_units;
                row.push(if full {
                    p.warn(&q.in_use)
                } else {
                    p.plain(&q.in_use)
                });
                row.push(p.plain(bar(
                    q.in_use_units,
                    q.capacity_units.max(q.in_use_units),
                    10,
                )));
                row.push(if q.borrowed != "0" {
                    p.warn(&q.borrowed)
                } else {
                    p.plain(&q.borrowed)
                });
                if wide {
                    row.extend([p.plain(&q.admitted), p.plain(&q.available)]);
                }
                if first {
                    row.push(if cq.pending_workloads > 0 {
                        p.warn(cq.pending_workloads)
                    } else {
                        p.plain(cq.pending_workloads)
                    });
                    row.push(p.plain(cq.admitted_workloads));
                } else {
                    row.extend([p.plain(""), p.plain("")]);
                }
                t.add_row(row);
            }
        }
        let _ = writeln!(out, "{}", finish(&mut t));
        for n in notes {
            let _ = writeln!(out, "{n}");
        }
        let _ = writeln!(out);
    }

    if let Some(c) = &v.capacity {
        let lines = super::capacity::lines(c);
        if let Some((title, findings)) = lines.split_first() {
            let _ = writeln!(out, "{}", p.title(title));
            for l in findings {
                let _ = writeln!(out, "{l}");
            }
            let _ = writeln!(out);
        }
    }

    let scope = v
        .namespace
        .as_deref()
        .map(|n| format!(" in namespace {n}"))
        .unwrap_or_default();
    let all_ns = v.namespace.is_none();
    let _ = writeln!(out, "{}", p.title(&format!("LOCALQUEUES{scope}")));
    if v.local_queues.is_empty() {
        let _ = writeln!(out, "No LocalQueues{scope}.");
    } else {
        let mut headers = Vec::new();
        if all_ns {
            headers.push("NAMESPACE");
        }
        headers.extend([
            "LOCALQUEUE",
            "CLUSTERQUEUE",
            "PENDING",
            "ADMITTED",
            "STOP POLICY",
        ]);
        if wide {
            headers.push("RESERVING");
        }
        let mut t = table(&headers, no_headers, color);
        for lq in &v.local_queues {
            let mut row = Vec::new();
            if all_ns {
                row.push(p.plain(&lq.namespace));
            }
            row.extend([
                p.plain(&lq.name),
                p.plain(&lq.cluster_queue),
                if lq.pending_workloads > 0 {
                    p.warn(lq.pending_workloads)
                } else {
                    p.plain(lq.pending_workloads)
                },
                p.plain(lq.admitted_workloads),
                if lq.stop_policy == "None" {
                    p.plain(&lq.stop_policy)
                } else {
                    p.bad(&lq.stop_policy)
                },
            ]);
            if wide {
                row.push(p.plain(lq.reserving_workloads));
            }
            t.add_row(row);
        }
        let _ = writeln!(out, "{}", finish(&mut t));
    }

    let _ = writeln!(out, "\n{}", p.title(&format!("WORKLOADS{scope}")));
    if v.workloads.is_empty() {
        let _ = writeln!(out, "No workloads{scope}.");
    } else {
        let mut headers = Vec::new();
        if all_ns {
            headers.push("NAMESPACE");
        }
        headers.extend([
            "WORKLOAD",
            "LOCALQUEUE",
            "CLUSTERQUEUE",
            "PRIORITY",
            "STATE",
            "POSITION",
            "WAIT",
            "ESTIMATED START",
            "FLAVOR",
            "REASON",
        ]);
        if wide {
            headers.push("MESSAGE");
        }
        let mut t = table(&headers, no_headers, color);
        for w in &v.workloads {
            let mut row = Vec::new();
            if all_ns {
                row.push(p.plain(&w.namespace));
            }
            let position = match (w.position, w.queue_length) {
                (Some(pos), Some(len)) => format!("{pos} of {len}"),
                (Some(pos), None) => pos.to_string(),
                _ => String::new(),
            };
            row.extend([
                p.plain(&w.name),
                p.plain(&w.local_queue),
                p.plain(&w.cluster_queue),
                p.plain(w.priority),
                state_cell(&p, &w.state),
                p.plain(position),
                p.plain(
                    w.wait_millis
                        .map(super::time::human_duration)
                        .unwrap_or_default(),
                ),
                p.plain(super::capacity::start_cell(
                    super::forecast::cell(w.estimated_start.as_ref(), v.now),
                    w.capacity.as_ref(),
                )),
                p.plain(w.flavors.join(",")),
                p.plain(&w.reason),
            ]);
            if wide {
                row.push(p.plain(&w.message));
            }
            t.add_row(row);
        }
        let _ = writeln!(out, "{}", finish(&mut t));
    }
    if v.finished_not_shown > 0 {
        let _ = writeln!(
            out,
            "({} finished workload(s) not shown; --all shows them)",
            v.finished_not_shown
        );
    }
    out
}

/// The view as the chosen output format.
pub fn text(view: &StatusView, printer: &Printer) -> anyhow::Result<String> {
    if let Some(text) = printer.data_text(view)? {
        return Ok(text);
    }
    Ok(match printer.format() {
        OutputFormat::Name => {
            let mut s = String::new();
            for c in &view.cohorts {
                for cq in &c.cluster_queues {
                    s.push_str(&format!("clusterqueue.kueue.x-k8s.io/{}\n", cq.name));
                }
            }
            for lq in &view.local_queues {
                s.push_str(&format!("localqueue.kueue.x-k8s.io/{}\n", lq.name));
            }
            for w in &view.workloads {
                s.push_str(&format!("workload.kueue.x-k8s.io/{}\n", w.name));
            }
            s
        }
        _ => render(view, printer.wide(), printer.no_headers(), printer.color()),
    })
}
