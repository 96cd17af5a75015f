//! Per-ClusterQueue pending queues: an ordered set of active workloads (the "heap"), the
//! parked (inadmissible) ones, the sticky preemptor, and equivalence classes parked together.
//!
//! Order is upstream's: sticky preemptor (BestEffortFIFO) first, then higher priority, then
//! earlier queue-order time, then the stable tie-break. Both StrictFIFO and BestEffortFIFO
//! order by priority first; they differ only in what happens to a head that does not fit
//! (see [`CqQueue::requeue`]).

use std::collections::{BTreeMap, BTreeSet};

use super::id::WlId;
use super::model::{Millis, QueueingStrategy};

/// Sort key of a pending workload in its ClusterQueue: fields compare in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct QueueKey {
    /// Minus the priority, so higher priority sorts first.
    pub neg_priority: i64,
    /// Queue-order time: earlier sorts first.
    pub time: Millis,
    /// The workload's stable tie-break, between equal times.
    pub tiebreak: u64,
    pub id: WlId,
}

/// Why a workload goes back to its queue, deciding whether it may be retried at once (see
/// [`CqQueue::requeue`]): under StrictFIFO every reason but `NamespaceMismatch` goes straight
/// back to the heap; under BestEffortFIFO only `FailedAfterNomination` and
/// `PendingPreemption` do, and the others park until capacity frees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequeueReason {
    /// Nothing more specific is known. A cycle never requeues with it: an entry still
    /// carrying it when the cycle ends was skipped after nomination, and is requeued as
    /// `FailedAfterNomination`.
    Generic,
    /// Nominated, then skipped while processing: an earlier entry of the cycle took the
    /// quota it counted on, or one of its preemption targets. Retried at once, since the next
    /// cycle may decide differently.
    FailedAfterNomination,
    /// The workload's namespace does not match the ClusterQueue's `namespaceSelector`. Never
    /// retried at once, not even under StrictFIFO: nothing but a namespace or selector change
    /// can help.
    NamespaceMismatch,
    /// It issued preemptions and waits for its victims to release their quota. Retried at
    /// once, and under BestEffortFIFO it stays the queue's head (the sticky preemptor).
    PendingPreemption,
    /// No flavor can hold it, even with preemption. Under BestEffortFIFO it parks, with its
    /// equivalent workloads.
    NoFit,
    /// It would fit by preempting, but no workload may be preempted for it. Under
    /// BestEffortFIFO it parks, with its equivalent workloads.
    PreemptionNoCandidates,
    /// It fits, but `blockAdmission` holds it while an admitted workload is not
    /// `PodsReady`. Parked under both strategies, alone, until the gate opens.
    WaitingForPodsReady,
}

/// One ClusterQueue's pending workloads.
#[derive(Debug, Clone, Default)]
pub struct CqQueue {
    pub strategy: QueueingStrategy,
    /// The workloads that may be popped, in queue order.
    pub heap: BTreeSet<QueueKey>,
    /// Parked workloads, waiting for capacity to free before they are tried again.
    pub inadmissible: BTreeMap<WlId, QueueKey>,
    /// The workload waiting for its preemptions (sticky head under BestEffortFIFO).
    pub preemptor: Option<QueueKey>,
    /// Heap members per equivalence hash, for bulk parking.
    heap_by_hash: BTreeSet<(u64, QueueKey)>,
    /// Hashes parked since the last retry: new arrivals with them park at once.
    parked_hashes: BTreeSet<u64>,
    /// Hash of each queued workload.
    hash_of: BTreeMap<WlId, u64>,
}

impl CqQueue {
    pub fn new(strategy: QueueingStrategy) -> Self {
        Self {
            strategy,
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.inadmissible.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, key: &QueueKey) -> bool {
        self.heap.contains(key) || self.inadmissible.contains_key(&key.id)
    }

    fn heap_insert(&mut self, key: QueueKey, hash: u64) {
        self.heap.insert(key);
        self.heap_by_hash.insert((hash, key));
    }

    fn heap_remove(&mut self, key: &QueueKey) -> bool {
        if !self.heap.remove(key) {
            return false;
        }
        if let Some(&hash) = self.hash_of.get(&key.id) {
            self.heap_by_hash.remove(&(hash, *key));
        }
        true
    }

    /// A new or updated pending workload.
    pub fn push(&mut self, key: QueueKey, hash: u64) {
        self.remove(&key);
        self.hash_of.insert(key.id, hash);
        if self.strategy == QueueingStrategy::BestEffortFifo && self.parked_hashes.contains(&hash) {
            self.inadmissible.insert(key.id, key);
        } else {
            self.heap_insert(key, hash);
        }
    }

    /// Forgets a workload (admitted, deleted, moved).
    pub fn remove(&mut self, key: &QueueKey) {
        if !self.heap_remove(key) {
            self.inadmissible.remove(&key.id);
        }
        self.hash_of.remove(&key.id);
        if self.preemptor.is_some_and(|p| p.id == key.id) {
            self.preemptor = None;
        }
    }

    /// Takes the head: the sticky preemptor if it is queued, else the first in order.
    pub fn pop(&mut self) -> Option<QueueKey> {
        let sticky = self
            .preemptor
            .filter(|k| self.strategy == QueueingStrategy::BestEffortFifo && self.heap.contains(k));
        let key = sticky.or_else(|| self.heap.first().copied())?;
        self.heap_remove(&key);
        Some(key)
    }

    /// Puts a popped head back. Under StrictFIFO every reason but a namespace mismatch
    /// retries at once; under BestEffortFIFO only nominated-then-skipped entries and
    /// preemptors do, and the rest park until capacity frees (with their equivalents).
    ///
    /// Returns the equivalent workloads parked along with it.
    pub fn requeue(
        &mut self,
        key: QueueKey,
        hash: u64,
        reason: RequeueReason,
        pending_flavors: bool,
        retry_pending: bool,
    ) -> Vec<WlId> {
        if reason == RequeueReason::PendingPreemption {
            self.preemptor = Some(key);
        }
        self.hash_of.insert(key.id, hash);
        let immediate = match self.strategy {
            QueueingStrategy::StrictFifo => !matches!(
                reason,
                RequeueReason::NamespaceMismatch | RequeueReason::WaitingForPodsReady
            ),
            QueueingStrategy::BestEffortFifo => {
                matches!(
                    reason,
                    RequeueReason::FailedAfterNomination | RequeueReason::PendingPreemption
                )
            }
        };
        let gated = reason == RequeueReason::WaitingForPodsReady;
        if immediate || ((pending_flavors || retry_pending) && !gated) {
            self.heap_insert(key, hash);
            return Vec::new();
        }
        self.inadmissible.insert(key.id, key);
        let mut moved = Vec::new();
        if self.strategy == QueueingStrategy::BestEffortFifo
            && matches!(
                reason,
                RequeueReason::NoFit | RequeueReason::PreemptionNoCandidates
            )
        {
            self.parked_hashes.insert(hash);
            let lowest = QueueKey {
                neg_priority: i64::MIN,
                time: i64::MIN,
                tiebreak: 0,
                id: WlId::FIRST,
            };
            while let Some(&e) = self
                .heap_by_hash
                .range((hash, lowest)..)
                .next()
                .filter(|(h, _)| *h == hash)
            {
                let k = e.1;
                self.heap_by_hash.remove(&e);
                self.heap.remove(&k);
                self.inadmissible.insert(k.id, k);
                moved.push(k.id);
            }
        }
        moved
    }

    /// Capacity freed somewhere in the cohort tree: every parked workload may try again
    /// (those for which `still_parked` says otherwise stay).
    pub fn retry_inadmissible(&mut self, mut still_parked: impl FnMut(WlId) -> bool) -> usize {
        self.parked_hashes.clear();
        let parked = std::mem::take(&mut self.inadmissible);
        let mut moved = 0;
        for (id, key) in parked {
            if still_parked(id) {
                self.inadmissible.insert(id, key);
                continue;
            }
            let hash = self.hash_of.get(&id).copied().unwrap_or(0);
            self.heap_insert(key, hash);
            moved += 1;
        }
        moved
    }

    /// Pending workloads in queue order (heap, parked and all), for positions.
    pub fn ordered(&self) -> Vec<QueueKey> {
        let mut all: Vec<QueueKey> = self
            .heap
            .iter()
            .copied()
            .chain(self.inadmissible.values().copied())
            .collect();
        all.sort();
        if self.strategy == QueueingStrategy::BestEffortFifo
            && let Some(p) = self.preemptor
            && let Some(pos) = all.iter().position(|k| k.id == p.id)
        {
            let k = all.remove(pos);
            all.insert(0, k);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::id::Id;

    fn key(id: usize, priority: i64, time: Millis) -> QueueKey {
        QueueKey {
            neg_priority: -priority,
            time,
            tiebreak: id as u64,
            id: WlId::from_index(id),
        }
    }

    fn ids(keys: impl Iterator<Item = QueueKey>) -> Vec<usize> {
        keys.map(|k| k.id.index()).collect()
    }

    #[test]
    fn priority_then_time_then_tiebreak() {
        let mut q = CqQueue::new(QueueingStrategy::StrictFifo);
        q.push(key(0, 0, 10), 1);
        q.push(key(1, 100, 20), 2);
        q.push(key(2, 0, 5), 3);
        q.push(key(3, 0, 5), 4);
        let order = ids(std::iter::from_fn(|| q.pop()));
        assert_eq!(
            order,
            vec![1, 2, 3, 0],
            "StrictFIFO still orders by priority first"
        );
    }

    #[test]
    fn strict_fifo_head_blocks_best_effort_parks() {
        let mut strict = CqQueue::new(QueueingStrategy::StrictFifo);
        strict.push(key(0, 0, 1), 1);
        strict.push(key(1, 0, 2), 2);
        let head = strict.pop().unwrap();
        strict.requeue(head, 1, RequeueReason::NoFit, false, false);
        assert_eq!(
            strict.pop().unwrap().id.index(),
            0,
            "the same head comes back"
        );

        let mut best = CqQueue::new(QueueingStrategy::BestEffortFifo);
        best.push(key(0, 0, 1), 1);
        best.push(key(1, 0, 2), 2);
        let head = best.pop().unwrap();
        best.requeue(head, 1, RequeueReason::NoFit, false, false);
        assert_eq!(
            best.pop().unwrap().id.index(),
            1,
            "the next workload becomes head"
        );
        assert_eq!(best.inadmissible.len(), 1);
    }

    #[test]
    fn equivalent_workloads_park_together_and_retry_together() {
        let mut q = CqQueue::new(QueueingStrategy::BestEffortFifo);
        for i in 0..5 {
            q.push(key(i, 0, i as i64), 7);
        }
        q.push(key(9, 0, 100), 8);
        let head = q.pop().unwrap();
        q.requeue(head, 7, RequeueReason::NoFit, false, false);
        assert_eq!(
            q.heap.len(),
            1,
            "only the different workload is left to try"
        );
        q.push(key(10, 0, 200), 7);
        assert_eq!(q.inadmissible.len(), 6, "a new equivalent parks at once");
        assert_eq!(q.retry_inadmissible(|_| false), 6);
        assert_eq!(q.pop().unwrap().id.index(), 0);
    }

    #[test]
    fn sticky_preemptor_stays_head() {
        let mut q = CqQueue::new(QueueingStrategy::BestEffortFifo);
        q.push(key(0, 0, 10), 1);
        let p = q.pop().unwrap();
        q.requeue(p, 1, RequeueReason::PendingPreemption, false, false);
        q.push(key(1, 500, 1), 2);
        assert_eq!(
            q.pop().unwrap().id.index(),
            0,
            "the preemptor keeps its place ahead of higher priority"
        );
    }
}
