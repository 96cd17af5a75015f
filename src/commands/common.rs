//! What the cluster-facing commands share: a runtime to run async kube calls from the
//! synchronous command functions, the cluster snapshot with the engine built on it (queue
//! positions, usage), a workload's state in one word, kubectl-style ages, and the printer
//! of `-o`.
//!
//! Everything here reads the Kueue objects themselves (Workload conditions and admissions,
//! queue specs), so it works the same against our controller and upstream Kueue's.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use kube::Resource;

use crate::api::Workload;
use crate::api::workload_status::condition;
use crate::cli::GlobalArgs;
pub use crate::cli::PrintArgs;
use crate::kube::Connection;
use crate::manifests::{ConvertOptions, Converted, Inventory};
use crate::output::Printer;
use crate::scheduler::Engine;
use crate::scheduler::model::Millis;

/// A printer for commands with `-o` and `--no-headers`.
pub fn printer(global: &GlobalArgs, print: &PrintArgs) -> Printer {
    Printer::new(print.output, print.no_headers, global.color)
}

/// Runs a future to completion on a small runtime of its own.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// Milliseconds since the epoch, now.
pub fn now_millis() -> Millis {
    k8s_openapi::jiff::Timestamp::now().as_millisecond()
}

/// Connects like kubectl (`--kubeconfig`, `--context`, `-n`).
pub async fn connect(global: &GlobalArgs) -> anyhow::Result<Connection> {
    crate::kube::connect(global).await
}

/// When a condition last turned true, in milliseconds.
pub fn condition_time(w: &Workload, type_: &str) -> Option<Millis> {
    let c = w.status.as_ref()?.condition(type_)?;
    (c.status == "True").then(|| crate::manifests::convert::millis(&c.last_transition_time))
}

/// A workload's place in its queues, as upstream's visibility API counts it (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub cluster_queue: String,
    /// Pending workloads ahead of it in the ClusterQueue.
    pub in_cluster_queue: usize,
    /// Pending workloads of the same LocalQueue ahead of it.
    pub in_local_queue: usize,
    /// Pending workloads in the ClusterQueue in total.
    pub queue_length: usize,
}

/// The cluster read once, converted, and the engine built on it.
pub struct Snapshot {
    pub inventory: Inventory,
    pub converted: Converted,
    pub engine: Engine,
    pub now: Millis,
}

impl Snapshot {
    /// Reads every Kueue object, labelled Job, Namespace and Node.
    pub async fn read(client: &kube::Client) -> anyhow::Result<Snapshot> {
        let inventory = crate::kube::read_inventory(client).await?;
        Snapshot::from_inventory(inventory, now_millis())
    }

    pub fn from_inventory(inventory: Inventory, now: Millis) -> anyhow::Result<Snapshot> {
        let converted = crate::manifests::convert(
            &inventory,
            &ConvertOptions {
                now,
                strict_namespace_selector: false,
            },
        )
        .map_err(|e| {
            anyhow::anyhow!("the cluster holds an object the scheduler cannot read: {e}")
        })?;
        let engine = Engine::new(converted.state.clone());
        Ok(Snapshot {
            inventory,
            converted,
            engine,
            now,
        })
    }

    /// Positions of every queued workload, by `namespace/name`.
    pub fn positions(&self) -> BTreeMap<String, Position> {
        let mut out = BTreeMap::new();
        for cq in self.engine.cluster_queues() {
            let mut per_lq: BTreeMap<(String, String), usize> = BTreeMap::new();
            let len = cq.queue.len();
            for (i, key) in cq.queue.iter().enumerate() {
                let lq = self
                    .engine
                    .workload(key)
                    .map(|w| (w.namespace.clone(), w.queue_name.clone()))
                    .unwrap_or_default();
                let n = per_lq.entry(lq).or_default();
                out.insert(
                    key.clone(),
                    Position {
                        cluster_queue: cq.name.clone(),
                        in_cluster_queue: i,
                        in_local_queue: *n,
                        queue_length: len,
                    },
                );
                *n += 1;
            }
        }
        out
    }

    /// The ClusterQueue a LocalQueue points to.
    pub fn cluster_queue_of(&self, namespace: &str, local_queue: &str) -> Option<String> {
        self.converted
            .state
            .local_queues
            .get(&(namespace.to_string(), local_queue.to_string()))
            .map(|lq| lq.cluster_queue.clone())
    }

    /// The engine's reason for a pending workload that is not queued (missing LocalQueue,
    /// stopped queue...), else the reason the controller wrote on the Workload.
    pub fn pending_reason(&self, w: &Workload) -> Option<(String, String)> {
        let key = key_of(w);
        if let Some((r, m, _)) = self.engine.blocked_reason(&key) {
            return Some((r.as_str().to_string(), m));
        }
        let c = w.status.as_ref()?.condition(condition::QUOTA_RESERVED)?;
        (c.status == "False").then(|| (c.reason.clone(), c.message.clone()))
    }
}

/// `namespace/name` of a namespaced object.
pub fn key_of<K: Resource>(obj: &K) -> String {
    let m = obj.meta();
    format!(
        "{}/{}",
        m.namespace.as_deref().unwrap_or("default"),
        m.name.as_deref().unwrap_or("")
    )
}

/// What a workload is doing, in the order upstream decides it (finished > admitted >
/// quota reserved > pending), with eviction and deactivation made visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WorkloadState {
    Pending,
    Inactive,
    QuotaReserved,
    Evicted,
    Admitted,
    Finished,
}

impl WorkloadState {
    pub fn of(w: &Workload) -> WorkloadState {
        let st = w.status.as_ref();
        let is = |t: &str| st.is_some_and(|s| s.condition_is_true(t));
        if is(condition::FINISHED) {
            WorkloadState::Finished
        } else if w.holds_quota() && is(condition::EVICTED) {
            WorkloadState::Evicted
        } else if w.holds_quota() && is(condition::ADMITTED) {
            WorkloadState::Admitted
        } else if w.holds_quota() {
            WorkloadState::QuotaReserved
        } else if !w.spec.active {
            WorkloadState::Inactive
        } else {
            WorkloadState::Pending
        }
    }

    /// Upstream kueuectl's STATUS words (`workload.Status`).
    pub fn upstream_word(self) -> &'static str {
        match self {
            WorkloadState::Finished => "FINISHED",
            WorkloadState::Admitted | WorkloadState::Evicted => "ADMITTED",
            WorkloadState::QuotaReserved => "QUOTARESERVED",
            WorkloadState::Pending | WorkloadState::Inactive => "PENDING",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            WorkloadState::Pending => "Pending",
            WorkloadState::Inactive => "Inactive",
            WorkloadState::QuotaReserved => "QuotaReserved",
            WorkloadState::Evicted => "Evicted",
            WorkloadState::Admitted => "Admitted",
            WorkloadState::Finished => "Finished",
        }
    }
}

/// The flavors a workload was assigned, in first-seen order (`gpu-a100`, or
/// `gpu-a100,cpu-pool` when resources went to different flavors).
pub fn assigned_flavors(w: &Workload) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(adm) = w.status.as_ref().and_then(|s| s.admission.as_ref()) {
        for ps in &adm.pod_set_assignments {
            for f in ps.flavors.values() {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
    }
    out
}

/// Millisecond timestamp of a workload's creation.
pub fn created_at(w: &Workload) -> Option<Millis> {
    w.metadata
        .creation_timestamp
        .as_ref()
        .map(crate::manifests::convert::millis)
}

/// How long the workload has waited: pending, until now (since its last eviction, which
/// requeues it); holding quota, until its reservation.
pub fn wait_time(w: &Workload, now: Millis) -> Option<Millis> {
    let created = created_at(w)?;
    if w.holds_quota() {
        return condition_time(w, condition::QUOTA_RESERVED).map(|t| (t - created).max(0));
    }
    let since = condition_time(w, condition::EVICTED)
        .filter(|t| *t > created)
        .unwrap_or(created);
    Some((now - since).max(0))
}

/// kubectl's short human duration: `45s`, `5m10s`, `3h`, `2d4h`, `1y`.
pub fn human_duration(ms: Millis) -> String {
    let s = ms.max(0) / 1000;
    if s < 60 * 2 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        let rest = s % 60;
        return if rest == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rest}s")
        };
    }
    if m < 60 * 3 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        let rest = m % 60;
        return if rest == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rest}m")
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    let d = h / 24;
    if d < 8 {
        let rest = h % 24;
        return if rest == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{rest}h")
        };
    }
    if d < 365 * 2 {
        return format!("{d}d");
    }
    format!("{}y", d / 365)
}

/// Age of an object, like kubectl's AGE column.
pub fn age<K: Resource>(obj: &K, now: Millis) -> String {
    match &obj.meta().creation_timestamp {
        Some(t) => human_duration(now - crate::manifests::convert::millis(t)),
        None => "<unknown>".to_string(),
    }
}

/// Whether an API error is "not found".
pub fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// Turns a kube error into a message that says what failed, on what, and what to do.
pub fn api_error(e: kube::Error, what: &str) -> anyhow::Error {
    match &e {
        kube::Error::Api(s)
            if s.code == 404
                && s.message
                    .contains("the server could not find the requested resource") =>
        {
            anyhow::anyhow!(
                "{what}: the cluster does not serve kueue.x-k8s.io/v1beta1 (install Kueue's CRDs: kubectl kueue install, or upstream Kueue)"
            )
        }
        kube::Error::Api(s) => anyhow::anyhow!("{what}: {} ({})", s.message, s.reason),
        _ => anyhow::Error::new(e).context(what.to_string()),
    }
}

/// Parses `a=b,c=d` (kubectl's `StringToString` flags).
pub fn parse_key_values(flag: &str, text: &str) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .with_context(|| format!("--{flag} {text:?}: {part:?} is not KEY=VALUE"))?;
        if k.trim().is_empty() {
            anyhow::bail!("--{flag} {text:?}: {part:?} has an empty key");
        }
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// Sleeps, for polling loops.
pub async fn sleep(d: Duration) {
    tokio::time::sleep(d).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_kubectl() {
        assert_eq!(human_duration(0), "0s");
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(119_000), "119s");
        assert_eq!(human_duration(130_000), "2m10s");
        assert_eq!(human_duration(600_000), "10m");
        assert_eq!(human_duration(3 * 3_600_000 + 60_000), "3h1m");
        assert_eq!(human_duration(30 * 3_600_000), "30h");
        assert_eq!(human_duration(50 * 3_600_000), "2d2h");
        assert_eq!(human_duration(800 * 86_400_000), "2y");
    }

    #[test]
    fn key_values() {
        let m = parse_key_values("node-labels", "gpu-type=a100, zone=b").unwrap();
        assert_eq!(m["gpu-type"], "a100");
        assert_eq!(m["zone"], "b");
        assert!(parse_key_values("node-labels", "gpu-type").is_err());
    }
}
