//! The trace file: one workload per line, JSON Lines (`.jsonl`), as `history export` writes it
//! and `simulate --trace` reads it.
//!
//! Columns (camelCase keys; unknown keys are an error, so a typo is not silently ignored):
//!
//! | key | type | meaning |
//! | --- | --- | --- |
//! | `name` | string | the Workload's name |
//! | `namespace` | string | its namespace |
//! | `localQueue` | string | `spec.queueName` |
//! | `priority` | integer, default 0 | `spec.priority` |
//! | `priorityClass` | string, optional | `spec.priorityClassName` (carried, not used) |
//! | `podSets` | list | each `{"name", "count", "requests": {RESOURCE: QUANTITY}}`, requests per pod |
//! | `submitted` | RFC 3339 | `metadata.creationTimestamp` |
//! | `admitted` | RFC 3339, optional | lastTransitionTime of `QuotaReserved=True` (else `Admitted=True`) |
//! | `finished` | RFC 3339, optional | lastTransitionTime of `Finished=True` |
//! | `runtimeSeconds` | integer, optional | admission to finish; when absent, `finished - admitted` |
//!
//! A row with neither `runtimeSeconds` nor both times has no known runtime: replayed, it
//! never finishes. Blank lines and lines starting with `#` are skipped.
//!
//! Invariants: [`write()`] then [`parse`] gives the same jobs back; every error names the file,
//! the line and the field; amounts are in the engine's scheduling units (cpu in millicores).
//! Pure: text in, jobs out (and back).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::scheduler::model::Millis;
use crate::scheduler::quantity::{Amount, is_milli_resource, parse_amount};

/// A trace line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(
                f,
                "{}:{}: field {}: {}",
                self.file, self.line, self.field, self.message
            )
        }
    }
}

impl std::error::Error for TraceError {}

/// One pod set: `count` pods each requesting `per_pod`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePodSet {
    pub name: String,
    pub count: i32,
    /// resource -> amount per pod, in scheduling units.
    pub per_pod: BTreeMap<String, Amount>,
}

/// One workload of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceJob {
    pub name: String,
    pub namespace: String,
    pub local_queue: String,
    pub priority: i32,
    pub priority_class: Option<String>,
    pub pod_sets: Vec<TracePodSet>,
    pub submitted: Millis,
    pub admitted: Option<Millis>,
    pub finished: Option<Millis>,
    /// Admission to finish, in milliseconds (whole seconds in the file).
    pub runtime_ms: Option<Millis>,
}

impl TraceJob {
    /// `namespace/name`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// Total request per resource (every pod of every pod set).
    pub fn total(&self) -> BTreeMap<String, Amount> {
        let mut out: BTreeMap<String, Amount> = BTreeMap::new();
        for ps in &self.pod_sets {
            for (r, v) in &ps.per_pod {
                let e = out.entry(r.clone()).or_default();
                *e = e.saturating_add(v.saturating_mul(i64::from(ps.count)));
            }
        }
        out
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Row {
    name: String,
    namespace: String,
    local_queue: String,
    #[serde(default)]
    priority: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    priority_class: Option<String>,
    pod_sets: Vec<RowPodSet>,
    submitted: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    admitted: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finished: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runtime_seconds: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RowPodSet {
    name: String,
    count: i32,
    requests: BTreeMap<String, String>,
}

/// Milliseconds as RFC 3339 (UTC, to the second when whole).
pub fn rfc3339(ms: Millis) -> String {
    k8s_openapi::jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| ms.to_string())
}

fn time(text: &str) -> Result<Millis, String> {
    text.parse::<k8s_openapi::jiff::Timestamp>()
        .map(|t| t.as_millisecond())
        .map_err(|_| format!("{text:?} is not an RFC 3339 time such as 2025-07-21T09:00:00Z"))
}

/// An amount in scheduling units written back as a quantity.
fn quantity(resource: &str, amount: Amount) -> String {
    if is_milli_resource(resource) {
        let m = amount.get();
        if m % 1000 == 0 {
            (m / 1000).to_string()
        } else {
            format!("{m}m")
        }
    } else {
        amount.get().to_string()
    }
}

/// Reads a trace; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<TraceJob>, TraceError> {
    let mut out = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let err = |field: &str, message: String| TraceError {
            file: file.to_string(),
            line: n,
            field: field.to_string(),
            message,
        };
        let mut de = serde_json::Deserializer::from_str(trimmed);
        let row: Row = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { String::new() } else { path };
            err(&field, e.into_inner().to_string())
        })?;
        let job = job(row, &err)?;
        if let Some(first) = seen.insert(job.id(), n) {
            return Err(err(
                "name",
                format!("{} is already on line {first}", job.id()),
            ));
        }
        out.push(job);
    }
    Ok(out)
}

fn job(row: Row, err: &dyn Fn(&str, String) -> TraceError) -> Result<TraceJob, TraceError> {
    for (field, v) in [
        ("name", &row.name),
        ("namespace", &row.namespace),
        ("localQueue", &row.local_queue),
    ] {
        if v.trim().is_empty() {
            return Err(err(field, "must not be empty".to_string()));
        }
    }
    if row.pod_sets.is_empty() {
        return Err(err("podSets", "needs at least one pod set".to_string()));
    }
    let mut pod_sets = Vec::new();
    for (i, ps) in row.pod_sets.into_iter().enumerate() {
        if ps.count < 1 {
            return Err(err(
                &format!("podSets[{i}].count"),
                format!("{} pods: must be at least 1", ps.count),
            ));
        }
        let mut per_pod = BTreeMap::new();
        for (r, q) in &ps.requests {
            let a = parse_amount(r, q)
                .map_err(|e| err(&format!("podSets[{i}].requests.{r}"), e.to_string()))?;
            if a.get() < 0 {
                return Err(err(
                    &format!("podSets[{i}].requests.{r}"),
                    format!("{q:?} is negative"),
                ));
            }
            per_pod.insert(r.clone(), a);
        }
        pod_sets.push(TracePodSet {
            name: ps.name,
            count: ps.count,
            per_pod,
        });
    }
    let submitted = time(&row.submitted).map_err(|m| err("submitted", m))?;
    let admitted = row
        .admitted
        .as_deref()
        .map(time)
        .transpose()
        .map_err(|m| err("admitted", m))?;
    let finished = row
        .finished
        .as_deref()
        .map(time)
        .transpose()
        .map_err(|m| err("finished", m))?;
    if let Some(a) = admitted.filter(|a| *a < submitted) {
        return Err(err(
            "admitted",
            format!("{} is before submitted {}", rfc3339(a), row.submitted),
        ));
    }
    if let (Some(a), Some(f)) = (admitted, finished)
        && f < a
    {
        return Err(err(
            "finished",
            format!("{} is before admitted {}", rfc3339(f), rfc3339(a)),
        ));
    }
    let runtime_ms = match row.runtime_seconds {
        Some(s) if s < 0 => {
            return Err(err("runtimeSeconds", format!("{s} is negative")));
        }
        Some(s) => Some(s.saturating_mul(1000)),
        None => admitted.zip(finished).map(|(a, f)| f - a),
    };
    Ok(TraceJob {
        name: row.name,
        namespace: row.namespace,
        local_queue: row.local_queue,
        priority: row.priority,
        priority_class: row.priority_class,
        pod_sets,
        submitted,
        admitted,
        finished,
        runtime_ms,
    })
}

/// Writes jobs as a trace (one JSON object per line, in the order given).
pub fn write(jobs: &[TraceJob]) -> String {
    let mut out = String::new();
    for j in jobs {
        let row = Row {
            name: j.name.clone(),
            namespace: j.namespace.clone(),
            local_queue: j.local_queue.clone(),
            priority: j.priority,
            priority_class: j.priority_class.clone(),
            pod_sets: j
                .pod_sets
                .iter()
                .map(|ps| RowPodSet {
                    name: ps.name.clone(),
                    count: ps.count,
                    requests: ps
                        .per_pod
                        .iter()
                        .map(|(r, a)| (r.clone(), quantity(r, *a)))
                        .collect(),
                })
                .collect(),
            submitted: rfc3339(j.submitted),
            admitted: j.admitted.map(rfc3339),
            finished: j.finished.map(rfc3339),
            runtime_seconds: j.runtime_ms.map(|r| r / 1000),
        };
        out.push_str(&serde_json::to_string(&row).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"name":"a","namespace":"team-a","localQueue":"q","priority":100,"priorityClass":"experiment","podSets":[{"name":"main","count":2,"requests":{"cpu":"500m","nvidia.com/gpu":"1"}}],"submitted":"2025-07-21T09:00:00Z","admitted":"2025-07-21T09:10:00Z","finished":"2025-07-21T10:10:00Z"}"#;

    #[test]
    fn reads_a_row_and_derives_the_runtime() {
        let jobs = parse("t.jsonl", LINE).unwrap();
        assert_eq!(jobs.len(), 1);
        let j = &jobs[0];
        assert_eq!(j.runtime_ms, Some(3_600_000));
        assert_eq!(j.pod_sets[0].per_pod["cpu"], Amount::new(500));
        assert_eq!(j.total()["nvidia.com/gpu"], Amount::new(2));
        assert_eq!(j.admitted.unwrap() - j.submitted, 600_000);
    }

    #[test]
    fn write_then_parse_is_the_same() {
        let jobs = parse("t.jsonl", LINE).unwrap();
        let text = write(&jobs);
        let back = parse("again.jsonl", &text).unwrap();
        // The written row carries the runtime explicitly; everything else is as read.
        assert_eq!(back, jobs);
        assert!(text.contains("\"runtimeSeconds\":3600"), "{text}");
        assert!(text.contains("\"cpu\":\"500m\""), "{text}");
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let text = format!(
            "# comment\n{LINE}\n\n{}",
            LINE.replace("\"500m\"", "\"lots\"")
        );
        let e = parse("t.jsonl", &text).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("t.jsonl", 4));
        assert_eq!(e.field, "podSets[0].requests.cpu");
        let e = parse("t.jsonl", &LINE.replace("\"submitted\"", "\"submited\"")).unwrap_err();
        assert!(e.to_string().starts_with("t.jsonl:1:"), "{e}");
        assert!(e.to_string().contains("submited"), "{e}");
        let e = parse("t.jsonl", &LINE.replace("09:10:00Z", "08:10:00Z")).unwrap_err();
        assert_eq!(e.field, "admitted");
        let e = parse("t.jsonl", &format!("{LINE}\n{LINE}")).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "name"));
        let e = parse("t.jsonl", "{not json").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse("t.jsonl", &LINE.replace("\"count\":2", "\"count\":0")).unwrap_err();
        assert_eq!(e.field, "podSets[0].count");
    }
}
