//! The cluster (or a set of files) read once, converted, and the engine built on it: queue
//! positions as upstream's visibility API counts them, the ClusterQueue behind a LocalQueue,
//! and why a pending workload waits.
//!
//! Invariants: positions are 0-based and counted over the engine's queue order (the order
//! the scheduler would try them); a workload that is not queued has no position.

use std::collections::BTreeMap;

use crate::api::Workload;
use crate::api::workload_status::condition;
use crate::manifests::{ConvertOptions, Converted, Inventory, ObjectKey};
use crate::scheduler::Engine;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;

/// A workload's place in its queues (0-based).
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

/// A condition's (or the engine's) reason for a state, with its message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reason {
    pub reason: String,
    pub message: String,
}

/// The objects could not be read by the scheduler.
#[derive(Debug, thiserror::Error)]
#[error("the cluster holds an object the scheduler cannot read: {0}")]
pub struct SnapshotError(#[from] pub crate::manifests::InputError);

/// The objects read once, converted, and the engine built on them.
pub struct Snapshot {
    pub inventory: Inventory,
    pub converted: Converted,
    pub engine: Engine,
    /// When the objects were read, in milliseconds since the epoch.
    pub now: Millis,
}

impl Snapshot {
    /// Converts the objects as the controller reads them (a ClusterQueue without a
    /// namespaceSelector selects every namespace, as the seed article expects).
    pub fn from_inventory(inventory: Inventory, now: Millis) -> Result<Snapshot, SnapshotError> {
        let converted = crate::manifests::convert(
            &inventory,
            &ConvertOptions {
                now,
                strict_namespace_selector: false,
            },
        )?;
        let engine = Engine::new(converted.state.clone());
        Ok(Snapshot {
            inventory,
            converted,
            engine,
            now,
        })
    }

    /// Positions of every queued workload.
    pub fn positions(&self) -> BTreeMap<WorkloadKey, Position> {
        let mut out = BTreeMap::new();
        for cq in self.engine.cluster_queues() {
            let mut per_local_queue: BTreeMap<(String, String), usize> = BTreeMap::new();
            let len = cq.queue.len();
            for (i, key) in cq.queue.iter().enumerate() {
                let local_queue = self
                    .engine
                    .workload(key)
                    .map(|w| (w.namespace.clone(), w.queue_name.clone()))
                    .unwrap_or_default();
                let n = per_local_queue.entry(local_queue).or_default();
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

    /// The ClusterQueue of a workload: the one it was admitted to, else the one its
    /// LocalQueue points to.
    pub fn cluster_queue_of_workload(&self, w: &Workload) -> Option<String> {
        w.status
            .as_ref()
            .and_then(|s| s.admission.as_ref())
            .map(|a| a.cluster_queue.clone())
            .or_else(|| {
                self.cluster_queue_of(
                    crate::manifests::key::namespace_of(&w.metadata),
                    w.spec.queue().unwrap_or(""),
                )
            })
    }

    /// The engine's reason for a pending workload that is not queued (missing LocalQueue,
    /// stopped queue...), else the reason the controller wrote on the Workload.
    pub fn pending_reason(&self, w: &Workload) -> Option<Reason> {
        let key = ObjectKey::workload(&w.metadata);
        if let Some(b) = self.engine.blocked_reason(&key) {
            return Some(Reason {
                reason: b.reason.as_str().to_string(),
                message: b.message,
            });
        }
        let c = w.status.as_ref()?.condition(condition::QUOTA_RESERVED)?;
        (c.status == "False").then(|| Reason {
            reason: c.reason.clone(),
            message: c.message.clone(),
        })
    }
}
