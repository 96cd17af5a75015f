//! The physical capacity check in words ([`crate::view::capacity`]): one line per finding
//! (`status`, `explain`), the table of flavors against their nodes (`simulate`), and the marker
//! in the `ESTIMATED START` cell of a workload whose pods no node can hold (`no node fits`,
//! `too few nodes`) or no node has room for beside the running pods (`no node free`, `too few
//! nodes free`).

use std::fmt::Write;

use super::{Paint, finish, table};
use crate::scheduler::quantity::format_amount;
use crate::view::capacity::{Capacity, Finding, PodFit};

/// The section title, with what every capacity line rests on:
/// `CAPACITY (2 node(s), 2 running pod(s); quota checked on allocatable, pods on what is free)`.
pub fn title(c: &Capacity) -> String {
    let n = c.nodes;
    match c.running_pods {
        None => format!(
            "CAPACITY ({n} node(s); running pods not read: checked on allocatable, as if the nodes were empty)"
        ),
        Some(0) => format!("CAPACITY ({n} node(s), no running pods; checked on allocatable)"),
        Some(p) => format!(
            "CAPACITY ({n} node(s), {p} running pod(s); quota checked on allocatable, pods on what is free)"
        ),
    }
}

/// Why the pods do not fit, then what it means, without the workload's name.
pub fn pod_fit(p: &PodFit) -> String {
    format!("{}: {}", reason(p), consequence(p))
}

/// What it means: `once admitted on quota, its pods would not run`.
pub fn consequence(p: &PodFit) -> &'static str {
    if p.running_pods > 0 {
        return match (p.holds_quota, p.pods_that_fit == 0) {
            (true, true) => "admitted, its pods wait for running pods to end",
            (true, false) => "admitted, some of its pods wait for running pods to end",
            (false, true) => "once admitted on quota, its pods would wait for running pods to end",
            (false, false) => {
                "once admitted on quota, some of its pods would wait for running pods to end"
            }
        };
    }
    match (p.holds_quota, p.pods_that_fit == 0) {
        (true, true) => "admitted, its pods cannot run",
        (true, false) => "admitted, its pods cannot all run",
        (false, true) => "once admitted on quota, its pods would not run",
        (false, false) => "once admitted on quota, its pods would not all run",
    }
}

/// Why the pods do not fit.
pub fn reason(p: &PodFit) -> String {
    let flavors = if p.flavors.len() == 1 {
        format!("flavor {}", p.flavors[0])
    } else {
        format!("flavors {}", p.flavors.join(", "))
    };
    let pod_set = if p.pod_set == "main" {
        String::new()
    } else {
        format!(" of pod set {}", p.pod_set)
    };
    let nodes = p.matching_nodes;
    let running = p.running_pods;
    if nodes > 0 && running > 0 {
        return if p.pods_that_fit == 0 {
            let how = if p.split {
                format!("free capacity fragmented by {running} running pod(s)")
            } else {
                format!("{running} running pod(s) hold the rest")
            };
            format!(
                "one pod{pod_set} needs {} on {flavors} and none of the {nodes} matching node(s) has that much free: {} free on {nodes} node(s) but at most {} on one node ({how})",
                p.per_pod.words(),
                p.total.words(),
                p.largest_node.words()
            )
        } else {
            format!(
                "only {} of its {} pods{pod_set} ({} each) fit at once beside the {running} running pod(s) on the {nodes} matching node(s) of {flavors} ({} free, at most {} on one node)",
                p.pods_that_fit,
                p.count,
                p.per_pod.words(),
                p.total.words(),
                p.largest_node.words()
            )
        };
    }
    if nodes == 0 {
        format!(
            "one pod{pod_set} needs {} on {flavors} and no node carries its labels",
            p.per_pod.words()
        )
    } else if p.pods_that_fit == 0 {
        let mut s = format!(
            "one pod{pod_set} needs {} on {flavors} and none of the {nodes} matching node(s) has that much allocatable (at most {} on one node",
            p.per_pod.words(),
            p.largest_node.words()
        );
        if p.split {
            let _ = write!(s, "; {} together: split across nodes", p.total.words());
        }
        s.push(')');
        s
    } else {
        format!(
            "only {} of its {} pods{pod_set} ({} each) fit at once on the {nodes} matching node(s) of {flavors}",
            p.pods_that_fit,
            p.count,
            p.per_pod.words()
        )
    }
}

/// One finding as a line.
pub fn finding(f: &Finding) -> String {
    match f {
        Finding::QuotaExceedsNodes {
            flavor,
            resource,
            nominal,
            allocatable,
            nodes,
            promised_by,
        } => {
            let who = if promised_by.iter().any(|p| p.starts_with("Cohort ")) {
                "ClusterQueues and Cohorts"
            } else {
                "ClusterQueues"
            };
            let by = if promised_by.is_empty() {
                String::new()
            } else {
                format!(" ({})", promised_by.join(", "))
            };
            format!(
                "flavor {flavor}: {who} promise {nominal} {resource} in nominal quota{by}, the {nodes} matching node(s) have {allocatable} allocatable"
            )
        }
        Finding::PodDoesNotFit(p) => format!("{}: {}", p.workload, pod_fit(p)),
    }
}

/// `status`: the title and one line per finding; nothing when there is nothing to say.
pub fn lines(c: &Capacity) -> Vec<String> {
    if c.findings.is_empty() {
        return Vec::new();
    }
    let mut out = vec![title(c)];
    out.extend(c.findings.iter().map(finding));
    out
}

/// The `ESTIMATED START` cell of a workload whose pods do not fit: the marker first, the quota
/// forecast after it (`no node fits (quota ~40m (14:20 UTC))`).
pub fn start_cell(cell: String, fit: Option<&PodFit>) -> String {
    let Some(p) = fit else {
        return cell;
    };
    let mark = match (p.pods_that_fit == 0, p.running_pods > 0) {
        (true, false) => "no node fits",
        (false, false) => "too few nodes",
        (true, true) => "no node free",
        (false, true) => "too few nodes free",
    };
    if cell.is_empty() {
        mark.to_string()
    } else {
        format!("{mark} (quota {cell})")
    }
}

/// `simulate`: each flavor's nodes against its nominal quota, then the findings.
pub fn section(c: &Capacity, no_headers: bool, color: bool) -> String {
    let paint = Paint { color };
    let mut out = String::new();
    let _ = writeln!(out, "\n{}", paint.title(&title(c)));
    let mut t = table(
        &[
            "FLAVOR",
            "NODES",
            "RESOURCE",
            "NOMINAL QUOTA",
            "ALLOCATABLE",
            "LARGEST NODE",
        ],
        no_headers,
        color,
    );
    for f in &c.flavors {
        let mut nodes = f.nodes.len().to_string();
        if f.cordoned > 0 {
            let _ = write!(nodes, " (+{} cordoned)", f.cordoned);
        }
        if f.unknown_size > 0 {
            let _ = write!(nodes, " (+{} without allocatable)", f.unknown_size);
        }
        if f.nominal.0.is_empty() {
            t.add_row(vec![
                paint.plain(&f.flavor),
                paint.plain(&nodes),
                paint.plain("-"),
                paint.plain(""),
                paint.plain(""),
                paint.plain(""),
            ]);
        }
        for (i, (r, nominal)) in f.nominal.0.iter().enumerate() {
            let have = f.allocatable.get(r);
            let over = f.unknown_size == 0 && *nominal > have;
            t.add_row(vec![
                paint.plain(if i == 0 { f.flavor.as_str() } else { "" }),
                paint.plain(if i == 0 { nodes.as_str() } else { "" }),
                paint.plain(r),
                if over {
                    paint.bad(format_amount(r, *nominal))
                } else {
                    paint.plain(format_amount(r, *nominal))
                },
                paint.plain(format_amount(r, have)),
                paint.plain(format_amount(r, f.largest_node.get(r))),
            ]);
        }
    }
    let _ = writeln!(out, "{}", finish(&mut t));
    if c.findings.is_empty() {
        let _ = writeln!(
            out,
            "Every flavor's nodes hold its nominal quota, and every workload's pods fit them."
        );
    }
    for f in &c.findings {
        let _ = writeln!(out, "! {}", finding(f));
    }
    out
}
