//! ClusterQueue and LocalQueue status (flavorsReservation, flavorsUsage, counts, `Active`),
//! built by the same functions `simulate -o yaml` uses ([`crate::status::queues`]) and
//! written when it changed, plus the gauges of `/metrics` (`gauges`) and the queue
//! finalizers ([`super::finalizers`]).
//!
//! Recomputed at most every [`MIN_INTERVAL`] while things change (the loop's tick flushes
//! the last change), so a burst of admissions costs a few status writes, not one each, and
//! from one [`QueueFigures`] per round (one pass over the workloads for all queues). One
//! write per queue in flight at a time. A round that writes many queues delays the next
//! (at [`WRITES_PER_SECOND`]): with a thousand busy queues, rewriting each every second
//! would cost the API server more than the admissions themselves.

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

/// The queue status writes a round may send per second until the next round: a round of
/// 2,000 writes (upstream's large-scale shape, 1,000 ClusterQueues and their LocalQueues)
/// puts the next 20 s later; a few queues keep the one-second rhythm.
pub const WRITES_PER_SECOND: u32 = 100;

/// How long after a round that sent `writes` the next may run.
pub fn interval_after(writes: u32) -> Duration {
    MIN_INTERVAL.max(Duration::from_secs(1) * writes / WRITES_PER_SECOND)
}

impl Ctx<'_> {
    pub(super) fn update_queues(&mut self) {
        if !self.m.queues_dirty {
            return;
        }
        let now = self.now;
        if self.m.queues_next_at.is_some_and(|t| now.instant < t) {
            return;
        }
        self.m.queues_dirty = false;
        let mut writes = 0u32;
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
            writes += 1;
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
            writes += 1;
            self.act(Action::WriteLocalQueueStatus { key, status });
        }
        self.m.queues_next_at = Some(now.instant + interval_after(writes));
    }

    pub(super) fn on_queue_written(&mut self, key: ObjectKey, _ok: bool) {
        self.m.busy_queues.remove(&key);
        // Re-check: the state may have moved on while the write was in flight (and a failed
        // write is retried).
        self.m.queues_dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_of_many_writes_delays_the_next_in_proportion() {
        assert_eq!(interval_after(0), MIN_INTERVAL);
        assert_eq!(interval_after(12), MIN_INTERVAL);
        assert_eq!(interval_after(WRITES_PER_SECOND), MIN_INTERVAL);
        assert_eq!(interval_after(2_000), Duration::from_secs(20));
        assert_eq!(interval_after(250), Duration::from_millis(2_500));
    }
}
