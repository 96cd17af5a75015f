//! The `status` view: per cohort, each ClusterQueue's quota and usage per flavor and
//! resource (with bars), then LocalQueues, then workloads with their state, position, wait
//! and flavor. The view is plain data ([`StatusView`], also the `-o json|yaml` shape); this
//! module only lays it out.

use std::fmt::Write;

use serde::Serialize;

use super::{Paint, bar, finish, table};

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StatusView {
    /// Cohorts in name order; the ClusterQueues without a cohort come last (`cohort: null`).
    pub cohorts: Vec<CohortStatus>,
    pub local_queues: Vec<LocalQueueStatus>,
    pub workloads: Vec<WorkloadStatus>,
    /// Finished workloads left out (`--all` shows them).
    pub finished_not_shown: usize,
    /// The namespace LocalQueues and workloads were read from; None for all namespaces.
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CohortStatus {
    pub cohort: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub cluster_queues: Vec<ClusterQueueStatus>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    pub name: String,
    pub active: bool,
    /// Why not active: upstream's condition reason and message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inactive_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inactive_message: Option<String>,
    pub pending_workloads: usize,
    pub reserving_workloads: usize,
    pub admitted_workloads: usize,
    pub quota: Vec<QuotaStatus>,
}

/// One (flavor, resource) of a ClusterQueue. Quantities are Kubernetes quantity strings;
/// the `*Units` fields are the same in scheduling units (milli for CPU, bytes for memory,
/// units otherwise), for bars and scripts.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QuotaStatus {
    pub flavor: String,
    pub resource: String,
    pub nominal: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<String>,
    /// Held by workloads with a quota reservation.
    pub in_use: String,
    /// Held by admitted workloads only.
    pub admitted: String,
    /// In use beyond the nominal quota (borrowed from the cohort).
    pub borrowed: String,
    /// What the ClusterQueue could still take now, its cohort's unused quota included.
    pub available: String,
    pub in_use_units: i64,
    /// The most it can hold: nominal plus borrowing limit (or plus what the cohort could
    /// lend, when borrowing is unlimited); nominal without a cohort.
    pub capacity_units: i64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    pub namespace: String,
    pub name: String,
    pub cluster_queue: String,
    pub stop_policy: String,
    pub pending_workloads: usize,
    pub reserving_workloads: usize,
    pub admitted_workloads: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    pub namespace: String,
    pub name: String,
    pub local_queue: String,
    pub cluster_queue: String,
    pub priority: i32,
    /// Pending, Inactive, QuotaReserved, Admitted, Evicted or Finished.
    pub state: String,
    /// 0-based place among the ClusterQueue's pending workloads (0 = considered next), as
    /// upstream's visibility API counts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_length: Option<usize>,
    /// Milliseconds waited: until now while pending, until its reservation when admitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_millis: Option<i64>,
    pub flavors: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}

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
                        .map(crate::commands::common::human_duration)
                        .unwrap_or_default(),
                ),
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
