//! Tables of `kubectl kueue list ...`: upstream kueuectl's columns, kubectl's look. An empty
//! list renders as an empty string (the command then says "No resources found.").

use super::{Paint, finish, table};

pub struct CqRow {
    pub name: String,
    pub cohort: String,
    pub pending: usize,
    pub admitted: usize,
    pub active: bool,
    pub age: String,
}

pub struct LqRow {
    pub namespace: String,
    pub name: String,
    pub cluster_queue: String,
    pub pending: usize,
    pub admitted: usize,
    pub stop_policy: String,
    pub age: String,
}

pub struct WlRow {
    pub namespace: String,
    pub name: String,
    pub job_type: String,
    pub job_name: String,
    pub local_queue: String,
    pub cluster_queue: String,
    /// Upstream's words: PENDING, QUOTARESERVED, ADMITTED, FINISHED.
    pub status: String,
    /// 0-based among pending workloads of the same LocalQueue.
    pub position: Option<usize>,
    pub position_in_cluster_queue: Option<usize>,
    pub priority: i32,
    pub flavors: String,
    pub exec_time: String,
    pub age: String,
}

pub struct RfRow {
    pub name: String,
    pub node_labels: String,
    pub age: String,
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
            p.plain(&r.age),
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
            p.plain(&r.age),
        ]);
        t.add_row(row);
    }
    finish(&mut t)
}

pub fn workloads(
    rows: &[WlRow],
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
        let status = match r.status.as_str() {
            "ADMITTED" => p.good(&r.status),
            "PENDING" => p.warn(&r.status),
            _ => p.plain(&r.status),
        };
        row.extend([
            p.plain(&r.name),
            p.plain(&r.job_type),
            p.plain(&r.job_name),
            p.plain(&r.local_queue),
            p.plain(&r.cluster_queue),
            status,
            p.plain(r.position.map(|x| x.to_string()).unwrap_or_default()),
            p.plain(&r.exec_time),
            p.plain(&r.age),
        ]);
        if wide {
            row.extend([
                p.plain(r.priority),
                p.plain(&r.flavors),
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
        t.add_row(vec![
            p.plain(&r.name),
            p.plain(&r.node_labels),
            p.plain(&r.age),
        ]);
    }
    finish(&mut t)
}
