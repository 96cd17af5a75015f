//! Tables of `kubectl kueue list ...`: upstream kueuectl's columns, kubectl's look. The rows
//! are data (`view::list`); this module only lays them out. An empty list renders as an empty
//! string (the command then says "No resources found.").

use super::time::human_duration;
use super::{Paint, finish, table};
use crate::scheduler::model::Millis;
use crate::view::list::{CqRow, LqRow, RfRow, WlRow};

fn age(a: Option<Millis>) -> String {
    a.map_or_else(|| "<unknown>".to_string(), human_duration)
}

pub fn cluster_queues(rows: &[CqRow], no_headers: bool, color: bool) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let p = Paint { color };
    let mut t = table(
        &[
            "NAME",
            "COHORT",
            "PENDING WORKLOADS",
            "ADMITTED WORKLOADS",
            "ACTIVE",
            "AGE",
        ],
        no_headers,
        color,
    );
    for r in rows {
        t.add_row(vec![
            p.plain(&r.name),
            p.plain(&r.cohort),
            if r.pending > 0 {
                p.warn(r.pending)
            } else {
                p.plain(r.pending)
            },
            p.plain(r.admitted),
            if r.active {
                p.plain("true")
            } else {
                p.bad("false")
            },
            p.plain(age(r.age)),
        ]);
    }
    finish(&mut t)
}

pub fn local_queues(rows: &[LqRow], namespaces: bool, no_headers: bool, color: bool) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let p = Paint { color };
    let mut headers = Vec::new();
    if namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend([
        "NAME",
        "CLUSTERQUEUE",
        "PENDING WORKLOADS",
        "ADMITTED WORKLOADS",
        "STOP POLICY",
        "AGE",
    ]);
    let mut t = table(&headers, no_headers, color);
    for r in rows {
        let mut row = Vec::new();
        if namespaces {
            row.push(p.plain(&r.namespace));
        }
        row.extend([
            p.plain(&r.name),
            p.plain(&r.cluster_queue),
            if r.pending > 0 {
                p.warn(r.pending)
            } else {
                p.plain(r.pending)
            },
            p.plain(r.admitted),
            if r.stop_policy == "None" {
                p.plain(&r.stop_policy)
            } else {
                p.bad(&r.stop_policy)
            },
            p.plain(age(r.age)),
        ]);
        t.add_row(row);
    }
    finish(&mut t)
}

pub fn workloads(
    rows: &[WlRow],
    now: Millis,
    namespaces: bool,
    wide: bool,
    no_headers: bool,
    color: bool,
) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let p = Paint { color };
    let mut headers = Vec::new();
    if namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend([
        "NAME",
        "JOB TYPE",
        "JOB NAME",
        "LOCALQUEUE",
        "CLUSTERQUEUE",
        "STATUS",
        "POSITION IN QUEUE",
        "ESTIMATED START",
        "EXEC TIME",
        "AGE",
    ]);
    if wide {
        headers.extend(["PRIORITY", "FLAVOR", "POSITION IN CLUSTERQUEUE"]);
    }
    let mut t = table(&headers, no_headers, color);
    for r in rows {
        let mut row = Vec::new();
        if namespaces {
            row.push(p.plain(&r.namespace));
        }
        let status = match r.status {
            "ADMITTED" => p.good(r.status),
            "PENDING" => p.warn(r.status),
            _ => p.plain(r.status),
        };
        let kinds: Vec<String> = r.owners.iter().map(|o| o.kind.to_lowercase()).collect();
        let names: Vec<&str> = r.owners.iter().map(|o| o.name.as_str()).collect();
        row.extend([
            p.plain(&r.name),
            p.plain(kinds.join(", ")),
            p.plain(names.join(", ")),
            p.plain(&r.local_queue),
            p.plain(&r.cluster_queue),
            status,
            p.plain(r.position.map(|x| x.to_string()).unwrap_or_default()),
            p.plain(super::capacity::start_cell(
                super::forecast::cell(r.estimated_start.as_ref(), now),
                r.capacity.as_ref(),
            )),
            p.plain(r.exec_time.map(human_duration).unwrap_or_default()),
            p.plain(age(r.age)),
        ]);
        if wide {
            row.extend([
                p.plain(r.priority),
                p.plain(r.flavors.join(",")),
                p.plain(
                    r.position_in_cluster_queue
                        .map(|x| x.to_string())
                        .unwrap_or_default(),
                ),
            ]);
        }
        t.add_row(row);
    }
    finish(&mut t)
}

pub fn resource_flavors(rows: &[RfRow], no_headers: bool, color: bool) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let p = Paint { color };
    let mut t = table(&["NAME", "NODE LABELS", "AGE"], no_headers, color);
    for r in rows {
        let labels: Vec<String> = r
            .node_labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        t.add_row(vec![
            p.plain(&r.name),
            p.plain(labels.join(", ")),
            p.plain(age(r.age)),
        ]);
    }
    finish(&mut t)
}
