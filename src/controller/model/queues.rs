//! ClusterQueue and LocalQueue status (flavorsReservation, flavorsUsage, counts, `Active`),
//! built by the same functions `simulate -o yaml` uses ([`crate::status::queues`]) and
//! written when it changed, plus the gauges of `/metrics` (`gauges`) and the queue
//! finalizers ([`super::finalizers`]).
//!
//! Recomputed at most every [`MIN_INTERVAL`] while things change (the loop's tick flushes
//! the last change), so a burst of admissions costs a few status writes, not one each, and
//! from one [`QueueFigures`] per round (one pass over the workloads for all queues). One
//! write per queue in flight at a time.

use std::time::Duration;

use crate::manifests::ObjectKey;
use crate::status::{
    QueueFigures, cluster_queue_with_figures, local_queue_with_figures, same_ignoring_times,
};

use super::Ctx;
use super::plan::Action;

/// A second: a busy ClusterQueue's status changes with every admission and finish, and each
/// write is an update every watcher of ClusterQueues (or LocalQueues) receives.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);

impl Ctx<'_> {
    pub(super) fn update_queues(&mut self) {
        if !self.m.queues_dirty {
            return;
        }
        let now = self.now;
        if self
            .m
            .queues_written_at
            .is_some_and(|t| now.instant.saturating_duration_since(t) < MIN_INTERVAL)
        {
            return;
        }
        self.m.queues_dirty = false;
        self.m.queues_written_at = Some(now.instant);
        self.queue_finalizers();
        let figures = QueueFigures::of(&self.m.engine);
        self.update_gauges(&figures);
        for cq in self.cache.cluster_queues() {
            let key = ObjectKey::cluster_scoped(&cq.metadata);
            if self.m.busy_queues.contains(&key) {
                self.m.queues_dirty = true;
                continue;
            }
            let status = cluster_queue_with_figures(&cq, &self.m.engine, &figures, now.wall)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&cq.status.clone().unwrap_or_default(), &status) {
                continue;
            }
            self.m.busy_queues.insert(key.clone());
            self.act(Action::WriteClusterQueueStatus { key, status });
        }
        for lq in self.cache.local_queues() {
            let key = ObjectKey::namespaced(&lq.metadata);
            if self.m.busy_queues.contains(&key) {
                self.m.queues_dirty = true;
                continue;
            }
            let status = local_queue_with_figures(&lq, &figures, now.wall)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&lq.status.clone().unwrap_or_default(), &status) {
                continue;
            }
            self.m.busy_queues.insert(key.clone());
            self.act(Action::WriteLocalQueueStatus { key, status });
        }
    }

    pub(super) fn on_queue_written(&mut self, key: ObjectKey, _ok: bool) {
        self.m.busy_queues.remove(&key);
        // Re-check: the state may have moved on while the write was in flight (and a failed
        // write is retried).
        self.m.queues_dirty = true;
    }
}
