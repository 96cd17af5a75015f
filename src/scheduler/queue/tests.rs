//! The queue's table tests, and a property test against a queue that moves every parked
//! workload one by one (the lazy groups must be indistinguishable from it).

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
    strict.requeue(head, 1, RequeueReason::NoFit, false, false, true);
    assert_eq!(
        strict.pop().unwrap().id.index(),
        0,
        "the same head comes back"
    );

    let mut best = CqQueue::new(QueueingStrategy::BestEffortFifo);
    best.push(key(0, 0, 1), 1);
    best.push(key(1, 0, 2), 2);
    let head = best.pop().unwrap();
    best.requeue(head, 1, RequeueReason::NoFit, false, false, true);
    assert_eq!(
        best.pop().unwrap().id.index(),
        1,
        "the next workload becomes head"
    );
    assert_eq!(best.parked_len(), 1);
}

#[test]
fn equivalent_workloads_park_together_and_retry_together() {
    let mut q = CqQueue::new(QueueingStrategy::BestEffortFifo);
    for i in 0..5 {
        q.push(key(i, 0, i as i64), 7);
    }
    q.push(key(9, 0, 100), 8);
    let head = q.pop().unwrap();
    q.requeue(head, 7, RequeueReason::NoFit, false, false, true);
    assert_eq!(
        q.active_len(),
        1,
        "only the different workload is left to try"
    );
    q.push(key(10, 0, 200), 7);
    assert_eq!(q.parked_len(), 6, "a new equivalent parks at once");
    assert_eq!(q.retry_inadmissible(|_| false, &[]), 6);
    assert_eq!(q.pop().unwrap().id.index(), 0);
}

#[test]
fn sticky_preemptor_stays_head() {
    let mut q = CqQueue::new(QueueingStrategy::BestEffortFifo);
    q.push(key(0, 0, 10), 1);
    let p = q.pop().unwrap();
    q.requeue(p, 1, RequeueReason::PendingPreemption, false, false, true);
    q.push(key(1, 500, 1), 2);
    assert_eq!(
        q.pop().unwrap().id.index(),
        0,
        "the preemptor keeps its place ahead of higher priority"
    );
}

#[test]
fn a_retried_group_enters_the_heap_one_member_at_a_time() {
    let mut q = CqQueue::new(QueueingStrategy::BestEffortFifo);
    for i in 0..1000 {
        q.push(key(i, 0, i as i64), 7);
    }
    let head = q.pop().unwrap();
    let parked = q.requeue(head, 7, RequeueReason::NoFit, false, false, false);
    assert!(parked.is_empty(), "nothing reported when not asked");
    assert_eq!((q.active_len(), q.parked_len()), (0, 1000));
    assert_eq!(q.retry_inadmissible(|_| false, &[]), 1000);
    assert_eq!((q.active_len(), q.parked_len()), (1000, 0));
    assert_eq!(
        q.heap.len(),
        1,
        "only the group's first member is in the heap"
    );
    let order = ids(std::iter::from_fn(|| q.pop()));
    assert_eq!(
        order,
        (0..1000).collect::<Vec<_>>(),
        "and all come out in order"
    );
}

/// The queue as it was before lazy groups: every parking and retry moves each workload.
#[derive(Default)]
struct Eager {
    strategy: QueueingStrategy,
    heap: BTreeSet<QueueKey>,
    inadmissible: BTreeMap<WlId, QueueKey>,
    preemptor: Option<QueueKey>,
    parked_hashes: BTreeSet<u64>,
    hash_of: BTreeMap<WlId, u64>,
}

impl Eager {
    fn push(&mut self, key: QueueKey, hash: u64) {
        self.remove(&key);
        self.hash_of.insert(key.id, hash);
        if self.strategy == QueueingStrategy::BestEffortFifo && self.parked_hashes.contains(&hash) {
            self.inadmissible.insert(key.id, key);
        } else {
            self.heap.insert(key);
        }
    }

    fn remove(&mut self, key: &QueueKey) {
        if !self.heap.remove(key) {
            self.inadmissible.remove(&key.id);
        }
        self.hash_of.remove(&key.id);
        if self.preemptor.is_some_and(|p| p.id == key.id) {
            self.preemptor = None;
        }
    }

    fn pop(&mut self) -> Option<QueueKey> {
        let sticky = self
            .preemptor
            .filter(|k| self.strategy == QueueingStrategy::BestEffortFifo && self.heap.contains(k));
        let key = sticky.or_else(|| self.heap.first().copied())?;
        self.heap.remove(&key);
        Some(key)
    }

    fn requeue(&mut self, key: QueueKey, hash: u64, reason: RequeueReason) -> Vec<WlId> {
        if reason == RequeueReason::PendingPreemption {
            self.preemptor = Some(key);
        }
        self.hash_of.insert(key.id, hash);
        let immediate = match self.strategy {
            QueueingStrategy::StrictFifo => !matches!(
                reason,
                RequeueReason::NamespaceMismatch | RequeueReason::WaitingForPodsReady
            ),
            QueueingStrategy::BestEffortFifo => matches!(
                reason,
                RequeueReason::FailedAfterNomination | RequeueReason::PendingPreemption
            ),
        };
        if immediate {
            self.heap.insert(key);
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
            let same: Vec<QueueKey> = self
                .heap
                .iter()
                .filter(|k| self.hash_of.get(&k.id) == Some(&hash))
                .copied()
                .collect();
            for k in same {
                self.heap.remove(&k);
                self.inadmissible.insert(k.id, k);
                moved.push(k.id);
            }
        }
        moved
    }

    fn retry(&mut self, mut stays: impl FnMut(WlId) -> bool) -> usize {
        self.parked_hashes.clear();
        let parked = std::mem::take(&mut self.inadmissible);
        let mut moved = 0;
        for (id, key) in parked {
            if stays(id) {
                self.inadmissible.insert(id, key);
            } else {
                self.heap.insert(key);
                moved += 1;
            }
        }
        moved
    }

    fn ordered(&self) -> Vec<QueueKey> {
        let mut all: Vec<QueueKey> = self
            .heap
            .iter()
            .chain(self.inadmissible.values())
            .copied()
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

#[derive(Debug, Clone)]
enum Op {
    /// Workload `id` (priority, time, hash class) arrives or is updated.
    Push(usize, i64, i64, u64),
    /// The head is popped and put back for a reason (index into REASONS), or admitted.
    Cycle(Option<usize>),
    Remove(usize),
    /// A retry; `true`: the runner's stale sweep (members asked one by one).
    Retry(bool),
}

const REASONS: [RequeueReason; 6] = [
    RequeueReason::FailedAfterNomination,
    RequeueReason::NamespaceMismatch,
    RequeueReason::PendingPreemption,
    RequeueReason::NoFit,
    RequeueReason::PreemptionNoCandidates,
    RequeueReason::WaitingForPodsReady,
];

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (0usize..40, 0i64..3, 0i64..50, 0u64..4).prop_map(|(i, p, t, h)| Op::Push(i, p, t, h)),
        4 => proptest::option::weighted(0.8, 0usize..REASONS.len()).prop_map(Op::Cycle),
        1 => (0usize..40).prop_map(Op::Remove),
        1 => any::<bool>().prop_map(Op::Retry),
    ]
}

proptest::proptest! {
    // A fixed seed unless PROPTEST_RNG_SEED names one (as the integration tests' properties).
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 512,
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            proptest::prelude::ProptestConfig::default().rng_seed
        } else {
            proptest::test_runner::RngSeed::Fixed(11)
        },
        ..Default::default()
    })]

    /// Whatever happens, the lazy queue pops, parks, reports and orders exactly as the queue
    /// that moves every workload.
    #[test]
    fn lazy_groups_behave_as_moving_every_workload(
        best_effort: bool,
        ops in proptest::collection::vec(op(), 1..200),
    ) {
        let strategy = if best_effort {
            QueueingStrategy::BestEffortFifo
        } else {
            QueueingStrategy::StrictFifo
        };
        let mut lazy = CqQueue::new(strategy);
        let mut eager = Eager { strategy, ..Eager::default() };
        // The queued key of each id, as the engine keeps it.
        let mut keys: BTreeMap<usize, QueueKey> = BTreeMap::new();
        let mut hashes: BTreeMap<usize, u64> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Push(i, p, t, h) => {
                    if let Some(old) = keys.remove(&i) {
                        lazy.remove(&old);
                        eager.remove(&old);
                    }
                    let k = key(i, p, t);
                    lazy.push(k, h);
                    eager.push(k, h);
                    keys.insert(i, k);
                    hashes.insert(i, h);
                }
                Op::Cycle(reason) => {
                    let (a, b) = (lazy.pop(), eager.pop());
                    proptest::prop_assert_eq!(a, b);
                    let Some(k) = a else { continue };
                    let i = k.id.index();
                    match reason {
                        Some(r) => {
                            let h = hashes[&i];
                            let x = lazy.requeue(k, h, REASONS[r], false, false, true);
                            let y = eager.requeue(k, h, REASONS[r]);
                            proptest::prop_assert_eq!(x, y);
                        }
                        None => {
                            keys.remove(&i);
                        }
                    }
                }
                Op::Remove(i) => {
                    if let Some(old) = keys.remove(&i) {
                        lazy.remove(&old);
                        eager.remove(&old);
                    }
                }
                Op::Retry(stale) => {
                    // Classes with hash 3 stay as a whole; in a stale sweep, odd ids stay too.
                    let class = |id: WlId, hashes: &BTreeMap<usize, u64>| hashes.get(&id.index()) == Some(&3);
                    let member = |id: WlId| stale && id.index() % 2 == 1;
                    let keep: Vec<QueueKey> = keys
                        .values()
                        .filter(|k| member(k.id))
                        .copied()
                        .collect();
                    let x = lazy.retry_inadmissible(|id| class(id, &hashes), &keep);
                    let y = eager.retry(|id| class(id, &hashes) || member(id));
                    proptest::prop_assert_eq!(x, y);
                }
            }
            proptest::prop_assert_eq!(lazy.ordered(), eager.ordered());
            proptest::prop_assert_eq!(lazy.active_len(), eager.heap.len());
            proptest::prop_assert_eq!(lazy.parked_len(), eager.inadmissible.len());
            for k in keys.values() {
                proptest::prop_assert!(lazy.contains(k));
            }
        }
        loop {
            let (a, b) = (lazy.pop(), eager.pop());
            proptest::prop_assert_eq!(a, b);
            if a.is_none() {
                break;
            }
        }
    }
}
