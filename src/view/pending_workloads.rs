//! The answers of upstream's visibility API (`pendingworkloads` of a ClusterQueue or of a
//! LocalQueue), from the engine's queue order.
//!
//! Invariants, as upstream's (`pkg/visibility/storage`):
//! - a ClusterQueue's list is its pending workloads in the order the scheduler tries them,
//!   queued and parked alike; `positionInClusterQueue` is the index in that order and
//!   `positionInLocalQueue` the count of earlier entries of the same LocalQueue, both over
//!   the whole order whatever the page;
//! - a LocalQueue's list is its own entries of its ClusterQueue's order; `offset` skips its
//!   own entries, and `positionInLocalQueue` is the index among them; `positionInClusterQueue`
//!   stays the index in the whole ClusterQueue;
//! - an unknown ClusterQueue, or an unknown LocalQueue, is `None` (404); a LocalQueue whose
//!   ClusterQueue does not exist has an empty list.
//!
//! Data in: the engine, the page, and a lookup of a workload's object metadata. Data out: the
//! items. Pure.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use crate::api::visibility::{Page, PendingWorkload};
use crate::scheduler::Engine;
use crate::scheduler::model::Workload;

/// Which list a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Queue {
    ClusterQueue(String),
    LocalQueue { namespace: String, name: String },
}

/// The metadata upstream copies into an item: name, namespace, the owner references'
/// apiVersion, kind, name and uid, and the creation time.
pub fn item_metadata(meta: &ObjectMeta) -> ObjectMeta {
    ObjectMeta {
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        creation_timestamp: meta.creation_timestamp.clone(),
        owner_references: meta.owner_references.as_ref().map(|refs| {
            refs.iter()
                .map(|r| OwnerReference {
                    api_version: r.api_version.clone(),
                    kind: r.kind.clone(),
                    name: r.name.clone(),
                    uid: r.uid.clone(),
                    ..OwnerReference::default()
                })
                .collect()
        }),
        ..ObjectMeta::default()
    }
}

/// The items of `queue`'s list, or `None` when the queue does not exist. `metadata` gives a
/// workload's item metadata ([`item_metadata`]) by (namespace, name); the item holds only
/// its name and namespace when it gives none.
pub fn pending_workloads(
    engine: &Engine,
    queue: &Queue,
    page: Page,
    metadata: &dyn Fn(&str, &str) -> Option<ObjectMeta>,
) -> Option<Vec<PendingWorkload>> {
    let item = |w: &Workload, in_cq: usize, in_lq: usize| PendingWorkload {
        metadata: metadata(&w.namespace, &w.name).unwrap_or_else(|| ObjectMeta {
            name: Some(w.name.clone()),
            namespace: Some(w.namespace.clone()),
            ..ObjectMeta::default()
        }),
        priority: w.priority,
        local_queue_name: w.queue_name.clone(),
        position_in_cluster_queue: to_i32(in_cq),
        position_in_local_queue: to_i32(in_lq),
    };
    match queue {
        Queue::ClusterQueue(cq) => {
            let order = engine.pending_in_order(cq)?;
            let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
            let mut out = Vec::new();
            let end = page.offset.saturating_add(page.limit);
            for (i, w) in order.into_iter().enumerate().take(end) {
                let n = seen
                    .entry((w.namespace.as_str(), w.queue_name.as_str()))
                    .or_default();
                if i >= page.offset {
                    out.push(item(w, i, *n));
                }
                *n += 1;
            }
            Some(out)
        }
        Queue::LocalQueue { namespace, name } => {
            let cq = engine.local_queue_target(namespace, name)?;
            let order = engine.pending_in_order(cq).unwrap_or_default();
            let out = order
                .into_iter()
                .enumerate()
                .filter(|(_, w)| w.namespace == *namespace && w.queue_name == *name)
                .skip(page.offset)
                .take(page.limit)
                .enumerate()
                .map(|(j, (i, w))| item(w, i, page.offset + j))
                .collect();
            Some(out)
        }
    }
}

fn to_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
