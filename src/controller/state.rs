//! The controller loop's state: the engine (one writer), read access to the watched objects,
//! what we wrote and the API server has not echoed yet, writes in flight, and what needs a
//! look. Only the loop task touches it.
//!
//! Invariants:
//! - A Workload with a status write in flight or waiting (`busy`/`plan`) is not re-read into
//!   the engine: the engine already holds the state that write records. When the write ends
//!   the Workload is re-read (and, if the write failed, the engine falls back to what the
//!   API server has).
//! - `latest_*` is the newest version we know: the watch store's, or the response to our own
//!   last write when the watch has not caught up (compared by resourceVersion).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use k8s_openapi::api::batch::v1::Job;
use kube::Resource;
use tokio::sync::mpsc::UnboundedSender;

use super::Msg;
use crate::api::{Workload, WorkloadStatus};
use crate::kube::apply::Writer;
use crate::kube::watch::Stores;
use crate::metrics::Metrics;
use crate::scheduler::model::{ClusterState, Millis};
use crate::scheduler::{Engine, PreemptionReason};

/// Things to do once a Workload status write succeeded.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Event on the Workload: (warning, reason, note).
    WorkloadEvent(bool, String, String),
    /// Event on another Workload (the preemptor): (key, reason, note).
    OtherWorkloadEvent(String, String, String),
    /// Event on the Workload's Job.
    JobEvent(String, String),
    /// Admission metrics: (cluster queue, priority class, wait seconds).
    Admitted(String, String, f64),
    /// Eviction metrics: (victim's cluster queue, priority class, first eviction, preempting
    /// cluster queue, preemption reason).
    Evicted(String, String, bool, String, PreemptionReason),
    /// Finished metrics: (cluster queue).
    Finished(String),
    /// Eviction metrics for other reasons: (cluster queue, reason, priority class, first
    /// eviction for the reason).
    EvictedFor(String, String, String, bool),
    /// A plain Workload (no Job) has no pods to wait for: release its quota right away.
    ReleaseNow,
    /// The reservation was cleared: the engine gives the quota back.
    EngineRelease,
    /// `Finished` was written (with this reason): the engine gives the quota back.
    EngineFinish(String),
    /// Drop the `resource-in-use` finalizer next.
    RemoveFinalizer,
}

/// A Workload status to write and what follows a successful write.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub status: WorkloadStatus,
    pub effects: Vec<Effect>,
    /// The plan admits the workload (a failure gives the quota back).
    pub admits: bool,
}

/// Per-Workload bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct WlBook {
    /// Response to our last write, until the watch catches up.
    pub overlay: Option<Arc<Workload>>,
    /// A write on this Workload is in flight.
    pub busy: bool,
    /// The status to write next (supersedes earlier plans, keeping their effects).
    pub plan: Option<Plan>,
    /// The status of the write in flight: what later plans build on until it lands.
    pub sending: Option<WorkloadStatus>,
    /// Do not retry before this (after a failed write).
    pub retry_at: Option<Instant>,
    /// Failed writes in a row.
    pub failures: u32,
    /// We asked for this workload's eviction and have not seen it released since.
    pub evicting: bool,
    /// We created it and the watch has not shown it yet.
    pub unseen: bool,
}

/// Per-Job bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct JobBook {
    pub overlay: Option<Arc<Job>>,
    pub busy: bool,
    pub retry_at: Option<Instant>,
    pub failures: u32,
    /// A Workload creation is in flight or was refused for this reason (reported once).
    pub reported: Option<String>,
}

/// Settings the loop needs, from the Configuration and the command line.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    pub strict_namespace_selector: bool,
    pub exclude_resource_prefixes: Vec<String>,
    /// Which Jobs the Job integration manages.
    pub managed_jobs: crate::integration::job::ManagedJobs,
}

pub struct Ctl {
    pub stores: Stores,
    pub writer: Writer,
    pub metrics: Arc<Metrics>,
    pub cfg: LoopConfig,
    pub config: Option<crate::api::config::Configuration>,
    pub tx: UnboundedSender<Msg>,
    pub engine: Engine,
    /// The queue/flavor/cohort/namespace picture the engine was last built from.
    pub base: ClusterState,
    pub wls: BTreeMap<String, WlBook>,
    pub jobs: BTreeMap<String, JobBook>,
    /// Job key -> its Workload's key.
    pub owned: BTreeMap<String, String>,
    pub dirty_wls: BTreeSet<String>,
    /// Workloads with a plan not yet sent.
    pub planned: BTreeSet<String>,
    pub dirty_jobs: BTreeSet<String>,
    pub config_dirty: bool,
    /// The engine changed since the last scheduling cycle.
    pub schedule: bool,
    /// Queue status and gauges need recomputing.
    pub queues_dirty: bool,
    pub busy_queues: BTreeSet<String>,
    pub queues_written_at: Option<Instant>,
    /// Nodes or flavors changed: check which flavors match no Node.
    pub nodes_dirty: bool,
    /// Flavors reported as matching no Node.
    pub flavors_without_nodes: BTreeSet<String>,
    /// Invalid queue objects already reported.
    pub reported_invalid: BTreeSet<String>,
    /// Write tasks running (for a graceful shutdown).
    pub in_flight: Arc<AtomicUsize>,
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// resourceVersion as a number, for "which copy is newer" (etcd's are integers; anything
/// else counts as older than what the watch says).
fn rv<K: Resource>(o: &K) -> Option<u64> {
    o.meta().resource_version.as_deref()?.parse().ok()
}

/// The newer of the watch's copy and ours; drops ours once the watch caught up. When the
/// store does not have the object, ours counts only if we created it and the watch has not
/// shown it yet (`unseen`); otherwise the object is gone.
fn newest<K: Resource>(
    store: Option<Arc<K>>,
    overlay: &mut Option<Arc<K>>,
    unseen: bool,
) -> Option<Arc<K>> {
    if store.is_none() && !unseen {
        *overlay = None;
        return None;
    }
    match (store, overlay.as_ref()) {
        (s, None) => s,
        (Some(s), Some(o)) => {
            let same_object = s.meta().uid == o.meta().uid;
            match (rv(&*s), rv(&**o)) {
                (Some(a), Some(b)) if same_object && a < b => Some(o.clone()),
                _ => {
                    *overlay = None;
                    Some(s)
                }
            }
        }
        (None, Some(o)) => Some(o.clone()),
    }
}

impl Ctl {
    pub fn latest_workload(&mut self, key: &str) -> Option<Arc<Workload>> {
        let store = self.stores.workload(key);
        match self.wls.get_mut(key) {
            Some(b) => {
                if store.is_some() {
                    b.unseen = false;
                }
                newest(store, &mut b.overlay, b.unseen)
            }
            None => store,
        }
    }

    pub fn latest_job(&mut self, key: &str) -> Option<Arc<Job>> {
        let store = self.stores.job(key);
        match self.jobs.get_mut(key) {
            // We never create Jobs: not in the store means gone.
            Some(b) => newest(store, &mut b.overlay, false),
            None => store,
        }
    }

    /// The Workload as it will be once its pending write lands (the plan's status).
    pub fn effective_workload(&mut self, key: &str) -> Option<Workload> {
        let mut w = (*self.latest_workload(key)?).clone();
        if let Some(b) = self.wls.get(key)
            && let Some(st) = b.plan.as_ref().map(|p| &p.status).or(b.sending.as_ref())
        {
            w.status = Some(st.clone());
        }
        Some(w)
    }

    pub fn book(&mut self, key: &str) -> &mut WlBook {
        self.wls.entry(key.to_string()).or_default()
    }

    pub fn job_book(&mut self, key: &str) -> &mut JobBook {
        self.jobs.entry(key.to_string()).or_default()
    }

    /// `namespace/name` of the Job owning `wl` (controller reference), if any.
    pub fn owner_job(wl: &Workload) -> Option<String> {
        let ns = wl.metadata.namespace.as_deref().unwrap_or("default");
        wl.metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job" && o.api_version == "batch/v1" && o.controller == Some(true))
            .map(|o| format!("{ns}/{}", o.name))
    }

    /// Runs `fut` as a write task; its result comes back to the loop as a message.
    pub fn spawn<F>(&self, fut: F)
    where
        F: std::future::Future<Output = Option<Msg>> + Send + 'static,
    {
        let tx = self.tx.clone();
        let in_flight = self.in_flight.clone();
        in_flight.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            if let Some(msg) = fut.await {
                let _ = tx.send(msg);
            }
            in_flight.fetch_sub(1, Ordering::SeqCst);
        });
    }

    /// Publishes an Event (fire and forget; a failure is logged).
    pub fn event(
        &self,
        reference: k8s_openapi::api::core::v1::ObjectReference,
        warning: bool,
        reason: String,
        note: String,
    ) {
        let writer = self.writer.clone();
        self.spawn(async move {
            if let Err(e) = writer.event(&reference, warning, &reason, &note).await {
                tracing::debug!(error = %e, reason, "cannot publish event");
            }
            None
        });
    }
}
