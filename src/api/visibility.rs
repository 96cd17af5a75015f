//! `visibility.kueue.x-k8s.io` (v1beta1 and v1beta2, the same shape): the pending workloads
//! of a ClusterQueue or LocalQueue, as upstream's visibility API serves them under
//! `.../clusterqueues/NAME/pendingworkloads` and
//! `.../namespaces/NS/localqueues/NAME/pendingworkloads`.
//!
//! Data only; the answers are made in `view::pending_workloads` and served by the
//! controller. Field names are upstream's.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

pub const GROUP: &str = "visibility.kueue.x-k8s.io";
/// The versions served, preferred first (as upstream's).
pub const VERSIONS: [&str; 2] = ["v1beta2", "v1beta1"];
/// Items returned when the request sets no `limit`.
pub const DEFAULT_LIMIT: i64 = 1000;
/// The most items one request returns.
pub const MAX_LIMIT: i64 = 100_000;

/// One pending workload and its places in its queues (0-based).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingWorkload {
    /// Name, namespace, owner references (apiVersion, kind, name, uid) and creation time.
    pub metadata: ObjectMeta,
    pub priority: i32,
    pub local_queue_name: String,
    pub position_in_cluster_queue: i32,
    pub position_in_local_queue: i32,
}

/// The answer of a `pendingworkloads` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingWorkloadsSummary {
    pub kind: String,
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub items: Vec<PendingWorkload>,
}

impl PendingWorkloadsSummary {
    pub fn new(version: &str, items: Vec<PendingWorkload>) -> PendingWorkloadsSummary {
        PendingWorkloadsSummary {
            kind: "PendingWorkloadsSummary".into(),
            api_version: format!("{GROUP}/{version}"),
            metadata: ObjectMeta::default(),
            items,
        }
    }
}

/// Which items a request asks for (`?limit=&offset=`), bounded as upstream bounds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub limit: usize,
    pub offset: usize,
}

impl Page {
    /// Negative values count as 0; `limit` is at most [`MAX_LIMIT`], [`DEFAULT_LIMIT`] when
    /// not given.
    pub fn bounded(limit: Option<i64>, offset: Option<i64>) -> Page {
        Page {
            limit: limit.unwrap_or(DEFAULT_LIMIT).clamp(0, MAX_LIMIT) as usize,
            offset: offset.unwrap_or(0).max(0) as usize,
        }
    }
}

impl Default for Page {
    fn default() -> Page {
        Page::bounded(None, None)
    }
}
