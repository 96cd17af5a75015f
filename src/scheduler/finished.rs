//! Finished workloads kept compact: who they are and the LocalQueue they named, out of the
//! workload records.
//!
//! A finished workload holds no quota and is never queued again; the engine keeps it for the
//! finished counts per LocalQueue (`kueue_local_queue_finished_workloads` and the
//! ClusterQueue's) and to know it. A cluster keeps its finished Workloads until they are
//! deleted: 50,000 at the end of upstream's large-scale shape. As a workload record each
//! takes a slot of the record table (about 730 bytes, the table grown by doubling) and its
//! strings, over 1 KiB; kept here, its key and its LocalQueue's name, about a quarter of
//! that, and its slot goes to the next new workload. Upstream's scheduler cache and queues
//! drop a finished Workload altogether.
//!
//! On only where asked ([`Engine::set_compact_finished`]: the controller); `simulate`,
//! forecasts and `explain` keep finished workloads as records, in the order they list them.
//!
//! Invariants: a key is either a workload record or a compact finished workload, never
//! both; a compact one holds no quota and is in no queue. Data in: a finished workload;
//! data out: its key and LocalQueue.

use std::collections::BTreeMap;

use super::key::{KeyIndex, WorkloadKey};
use super::model::Workload;
use super::state::Engine;

/// The compact finished workloads, by key: the name of the LocalQueue each named.
#[derive(Debug, Clone, Default)]
pub(crate) struct Finished {
    pub(crate) on: bool,
    queues: KeyIndex<Box<str>>,
}

impl Finished {
    pub(crate) fn contains(&self, key: &WorkloadKey) -> bool {
        self.queues.get(key).is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.queues.len()
    }
}

impl Engine {
    /// Keeps finished workloads compact (the `scheduler::finished` module): they leave the
    /// workload records, so [`Engine::workload`] no longer returns them and
    /// [`Engine::is_finished`] answers for them. What a controller needs. Off by default.
    pub fn set_compact_finished(&mut self, on: bool) {
        self.finished.on = on;
        if on {
            let done: Vec<WorkloadKey> = self
                .wls
                .iter()
                .flatten()
                .filter(|s| s.w.finished)
                .map(|s| s.key.clone())
                .collect();
            for key in done {
                self.finish_workload(&key);
            }
        }
    }

    /// Is the workload known to the engine as finished?
    pub fn is_finished(&self, key: &WorkloadKey) -> bool {
        self.finished.contains(key) || self.workload(key).is_some_and(|w| w.finished)
    }

    /// Is the workload finished, naming `queue_name`, as the engine knows it?
    pub fn is_finished_in(&self, key: &WorkloadKey, queue_name: &str) -> bool {
        match self.finished.queues.get(key) {
            Some(q) => **q == *queue_name,
            None => self
                .workload(key)
                .is_some_and(|w| w.finished && w.queue_name == queue_name),
        }
    }

    /// Every workload key the engine knows, finished ones included, in key order.
    pub fn workload_keys(&self) -> Vec<WorkloadKey> {
        let mut keys: Vec<WorkloadKey> = self.workloads().map(Workload::key).collect();
        keys.extend(self.finished.queues.iter().map(|(k, _)| k.clone()));
        keys.sort();
        keys
    }

    /// Keeps `w` compact if it is finished and they are on (a record it had gives back its
    /// quota and its slot); whether it was.
    pub(crate) fn keep_compact_if_finished(&mut self, w: &Workload) -> bool {
        if !self.finished.on || !w.finished {
            return false;
        }
        self.keep_compact(w.key(), &w.queue_name);
        true
    }

    /// Replaces `key`'s record, if any, with a compact finished workload naming
    /// `queue_name`.
    pub(crate) fn keep_compact(&mut self, key: WorkloadKey, queue_name: &str) {
        self.remove_workload(&key);
        self.finished.queues.insert(key, queue_name.into());
    }

    /// Forgets a compact finished workload; whether it was one.
    pub(crate) fn forget_compact(&mut self, key: &WorkloadKey) -> bool {
        self.finished.queues.remove(key).is_some()
    }

    /// Adds the compact finished workloads to `counts` (finished ones per LocalQueue).
    pub(crate) fn count_compact<'a>(&'a self, counts: &mut BTreeMap<(&'a str, &'a str), usize>) {
        for (key, queue) in self.finished.queues.iter() {
            *counts.entry((key.namespace.as_str(), queue)).or_default() += 1;
        }
    }
}
