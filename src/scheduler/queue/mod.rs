//! Per-ClusterQueue pending queues: an ordered set of active workloads (the "heap"), the
//! parked (inadmissible) ones, the sticky preemptor, and equivalence classes parked together.
//!
//! Order is upstream's: sticky preemptor (BestEffortFIFO) first, then higher priority, then
//! earlier queue-order time, then the stable tie-break. Both StrictFIFO and BestEffortFIFO
//! order by priority first; they differ only in what happens to a head that does not fit
//! (see [`CqQueue::requeue`]).
//!
//! Equivalent workloads (same equivalence hash) parked together stay together in a
//! `Group`, and go back as a group: a retry only marks the group active and puts its first
//! member in the heap; each further member enters the heap when the one before it leaves
//! (popped or removed), and the whole group parks again when its head fails. A deep queue of
//! identical workloads thus costs one heap move per retry and per parking, not one per
//! workload, while every observable order stays what moving each workload would give.
//!
//! Invariants: every queued workload is in exactly one of the heap, `inadmissible` (parked
//! alone) or one group's members; an active group with members has a member in the heap
//! whose key is below all of them (so the heap's first key is the logical first); the
//! sticky preemptor, when queued and not parked, is in the heap; a parked group's hash
//! parks new arrivals with it at once (BestEffortFIFO only).

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

/// Equivalent workloads kept out of the heap together (see the module comment).
#[derive(Debug, Clone, Default)]
struct Group {
    /// Members not in the heap, in queue order.
    members: BTreeSet<QueueKey>,
    /// Parked (waiting for capacity), or active (members enter the heap one at a time).
    parked: bool,
}

/// The lowest key of a hash in `heap_by_hash`.
const LOWEST: QueueKey = QueueKey {
    neg_priority: i64::MIN,
    time: i64::MIN,
    tiebreak: 0,
    id: WlId::FIRST,
};

/// One ClusterQueue's pending workloads.
#[derive(Debug, Clone, Default)]
pub struct CqQueue {
    pub strategy: QueueingStrategy,
    /// The workloads that may be popped now, in queue order.
    heap: BTreeSet<QueueKey>,
    /// Workloads parked alone, waiting for capacity to free before they are tried again.
    inadmissible: BTreeMap<WlId, QueueKey>,
    /// The workload waiting for its preemptions (sticky head under BestEffortFIFO).
    pub preemptor: Option<QueueKey>,
    /// Heap members per equivalence hash, for bulk parking.
    heap_by_hash: BTreeSet<(u64, QueueKey)>,
    /// Equivalence classes outside the heap, by hash.
    groups: BTreeMap<u64, Group>,
    /// Members of active groups (queued, not in the heap yet) and of parked groups.
    active_in_groups: usize,
    parked_in_groups: usize,
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
        self.active_len() + self.parked_len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Workloads that may be tried now (upstream's "active" pending workloads).
    pub fn active_len(&self) -> usize {
        self.heap.len() + self.active_in_groups
    }

    /// Parked workloads (upstream's "inadmissible" pending workloads).
    pub fn parked_len(&self) -> usize {
        self.inadmissible.len() + self.parked_in_groups
    }

    pub fn contains(&self, key: &QueueKey) -> bool {
        self.heap.contains(key)
            || self.inadmissible.contains_key(&key.id)
            || self
                .hash_of
                .get(&key.id)
                .and_then(|h| self.groups.get(h))
                .is_some_and(|g| g.members.contains(key))
    }

    /// Every queued workload with whether it may be tried now (true) or is parked, in no
    /// particular order.
    pub fn entries(&self) -> impl Iterator<Item = (QueueKey, bool)> + '_ {
        let grouped = self
            .groups
            .values()
            .flat_map(|g| g.members.iter().map(move |k| (*k, !g.parked)));
        self.heap
            .iter()
            .map(|k| (*k, true))
            .chain(self.inadmissible.values().map(|k| (*k, false)))
            .chain(grouped)
    }

    fn heap_insert(&mut self, key: QueueKey, hash: u64) {
        self.heap.insert(key);
        self.heap_by_hash.insert((hash, key));
    }

    fn heap_remove(&mut self, key: &QueueKey, hash: Option<u64>) -> bool {
        if !self.heap.remove(key) {
            return false;
        }
        if let Some(hash) = hash {
            self.heap_by_hash.remove(&(hash, *key));
        }
        true
    }

    /// Keeps an active group's invariant after a member left the heap: its first member
    /// enters the heap unless a member already there is ahead of it.
    fn refill(&mut self, hash: u64) {
        let Some(g) = self.groups.get_mut(&hash) else {
            return;
        };
        if g.parked {
            return;
        }
        let Some(&first) = g.members.first() else {
            self.groups.remove(&hash);
            return;
        };
        let ahead = self
            .heap_by_hash
            .range((hash, LOWEST)..)
            .next()
            .is_some_and(|&(h, k)| h == hash && k < first);
        if ahead {
            return;
        }
        g.members.pop_first();
        if g.members.is_empty() {
            self.groups.remove(&hash);
        }
        self.active_in_groups -= 1;
        self.heap_insert(first, hash);
    }

    /// A new or updated pending workload.
    pub fn push(&mut self, key: QueueKey, hash: u64) {
        self.remove(&key);
        self.hash_of.insert(key.id, hash);
        match self.groups.get_mut(&hash) {
            Some(g) if g.parked && self.strategy == QueueingStrategy::BestEffortFifo => {
                g.members.insert(key);
                self.parked_in_groups += 1;
            }
            _ => self.heap_insert(key, hash),
        }
    }

    /// Forgets a workload (admitted, deleted, moved).
    pub fn remove(&mut self, key: &QueueKey) {
        let hash = self.hash_of.remove(&key.id);
        if self.heap_remove(key, hash) {
            if let Some(hash) = hash {
                self.refill(hash);
            }
        } else if self.inadmissible.remove(&key.id).is_none()
            && let Some(hash) = hash
            && let Some(g) = self.groups.get_mut(&hash)
            && g.members.remove(key)
        {
            if g.parked {
                self.parked_in_groups -= 1;
            } else {
                self.active_in_groups -= 1;
                if g.members.is_empty() {
                    self.groups.remove(&hash);
                }
            }
        }
        if self.preemptor.is_some_and(|p| p.id == key.id) {
            self.preemptor = None;
        }
    }

    /// Takes the head: the sticky preemptor if it is queued, else the first in order.
    pub fn pop(&mut self) -> Option<QueueKey> {
        let key = self.head()?;
        let hash = self.hash_of.get(&key.id).copied();
        self.heap_remove(&key, hash);
        if let Some(hash) = hash {
            self.refill(hash);
        }
        Some(key)
    }

    /// What [`CqQueue::pop`] would take: the sticky preemptor, else the heap's first.
    pub fn head(&self) -> Option<QueueKey> {
        let sticky = self
            .preemptor
            .filter(|k| self.strategy == QueueingStrategy::BestEffortFifo && self.heap.contains(k));
        sticky.or_else(|| self.heap.first().copied())
    }

    /// Puts a popped head back. Under StrictFIFO every reason but a namespace mismatch
    /// retries at once; under BestEffortFIFO only nominated-then-skipped entries and
    /// preemptors do, and the rest park until capacity frees (with their equivalents).
    ///
    /// With `report`, returns the equivalent workloads parked along with it, in queue order
    /// (empty otherwise: reporting them is the only per-workload work of a parking).
    pub fn requeue(
        &mut self,
        key: QueueKey,
        hash: u64,
        reason: RequeueReason,
        pending_flavors: bool,
        retry_pending: bool,
        report: bool,
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
        let with_equivalents = self.strategy == QueueingStrategy::BestEffortFifo
            && matches!(
                reason,
                RequeueReason::NoFit | RequeueReason::PreemptionNoCandidates
            );
        if !with_equivalents {
            self.inadmissible.insert(key.id, key);
            return Vec::new();
        }
        let mut parked: Vec<QueueKey> = Vec::new();
        let g = self.groups.entry(hash).or_default();
        if !g.parked {
            g.parked = true;
            self.active_in_groups -= g.members.len();
            self.parked_in_groups += g.members.len();
            if report {
                parked.extend(g.members.iter().copied());
            }
        }
        while let Some(&e) = self
            .heap_by_hash
            .range((hash, LOWEST)..)
            .next()
            .filter(|(h, _)| *h == hash)
        {
            self.heap_by_hash.remove(&e);
            self.heap.remove(&e.1);
            g.members.insert(e.1);
            self.parked_in_groups += 1;
            if report {
                parked.push(e.1);
            }
        }
        g.members.insert(key);
        self.parked_in_groups += 1;
        parked.sort();
        parked.into_iter().map(|k| k.id).collect()
    }

    /// Capacity freed somewhere in the cohort tree: every parked workload may try again,
    /// but those in `keep` and those `stays` keeps parked. `stays` is asked about what
    /// equivalent workloads share (such as their namespace): about each workload parked
    /// alone, and once per parked equivalence class, about its first member, for the whole
    /// class. Returns how many may be tried again.
    pub fn retry_inadmissible(
        &mut self,
        mut stays: impl FnMut(WlId) -> bool,
        keep: &[QueueKey],
    ) -> usize {
        // Kept members of parked classes are parked alone from now on.
        for k in keep {
            if let Some(hash) = self.hash_of.get(&k.id)
                && let Some(g) = self.groups.get_mut(hash)
                && g.parked
                && g.members.remove(k)
            {
                self.parked_in_groups -= 1;
                self.inadmissible.insert(k.id, *k);
            }
        }
        let keep: BTreeSet<WlId> = keep.iter().map(|k| k.id).collect();
        let alone = std::mem::take(&mut self.inadmissible);
        let mut moved = 0;
        for (id, key) in alone {
            if stays(id) || keep.contains(&id) {
                self.inadmissible.insert(id, key);
                continue;
            }
            let hash = self.hash_of.get(&id).copied().unwrap_or(0);
            self.heap_insert(key, hash);
            moved += 1;
        }
        let parked: Vec<u64> = self
            .groups
            .iter()
            .filter(|(_, g)| g.parked)
            .map(|(h, _)| *h)
            .collect();
        for hash in parked {
            let Some(mut g) = self.groups.remove(&hash) else {
                continue;
            };
            self.parked_in_groups -= g.members.len();
            if g.members.first().is_some_and(|k| stays(k.id)) {
                for k in std::mem::take(&mut g.members) {
                    self.inadmissible.insert(k.id, k);
                }
                continue;
            }
            if g.members.is_empty() {
                continue;
            }
            moved += g.members.len();
            // The sticky preemptor is popped before its place in order: it must be in the heap.
            if let Some(p) = self.preemptor
                && g.members.remove(&p)
            {
                self.heap_insert(p, hash);
            }
            self.active_in_groups += g.members.len();
            g.parked = false;
            if !g.members.is_empty() {
                self.groups.insert(hash, g);
                self.refill(hash);
            }
        }
        moved
    }

    /// Pending workloads in queue order (heap, parked and all), for positions.
    pub fn ordered(&self) -> Vec<QueueKey> {
        let mut all: Vec<QueueKey> = self.entries().map(|(k, _)| k).collect();
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
mod tests;
