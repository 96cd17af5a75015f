//! Quiet cohort trees: with [`Engine::set_skip_quiet_trees`], a cohort tree whose last
//! cycle changed nothing is not evaluated again until something it reads changes.
//!
//! What a cycle decides in one cohort tree depends on that tree alone: its heads (one per
//! ClusterQueue), their workloads, and the quota and who holds it there (entries of other
//! trees neither take its quota nor its victims, and the order between trees changes
//! nothing). When a cycle evaluated a tree and admitted nothing there, evicted nothing new
//! (the tree's version is the one it started with), every head went straight back as its
//! queue's head (a preemptor waiting for its victims, an entry skipped after nomination),
//! and every head's nomination is kept (so none read the clock), the next cycle would decide
//! the very same for it: the same nominations from the cache, the same processing, the same
//! requeues, and decisions that only repeat ones already made. Such a tree is stamped, and
//! while its stamp holds, a cycle does not pop its heads: it does the bookkeeping a pop and
//! a requeue would (the scan state's cycle, the evaluation epoch) and decides nothing for
//! them. At upstream's large-scale shape, most of a thousand heads a cycle are preemptors
//! waiting in trees where nothing changed since the cycle before.
//!
//! Invariants: a stamp holds only while its tree's version is the stamped one, each active
//! ClusterQueue of the tree has the stamped head (none where none was), and each stamped
//! head's nomination is still kept (a workload that changes loses it). A caller that wants
//! a workload decided again for reasons of its own (its status was written by someone
//! else) clears its tree's stamp with [`Engine::reconsider`]. Nothing is stamped under fair
//! sharing (its entry order reads every tree) or `blockAdmission` (its gate reads every
//! tree's holders), and rebuilding the engine starts without stamps. Off by default: a
//! replay, a forecast and `simulate` see every decision of every cycle.

use std::collections::{BTreeMap, BTreeSet};

use super::memo::NominationKey;
use super::{Entry, Status};
use crate::scheduler::id::{CqId, NodeId, WlId};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::queue::QueueKey;
use crate::scheduler::state::Engine;

/// Stamps of quiet trees, by the tree's root.
#[derive(Debug, Clone, Default)]
pub(crate) struct QuietTrees {
    stamps: BTreeMap<NodeId, Stamp>,
    /// Heads not popped because their tree was quiet, over all cycles (a diagnostic).
    pub(crate) skipped: u64,
}

/// What a quiet tree looked like after the cycle that found it quiet.
#[derive(Debug, Clone)]
struct Stamp {
    version: u64,
    /// Each ClusterQueue with a head then, and the head, in ClusterQueue order.
    heads: Vec<(CqId, WlId)>,
}

impl Engine {
    /// Cycles skip cohort trees whose last evaluation changed nothing (the engine's
    /// `scheduler::cycle::quiet` module says when): what a controller needs, which acts on
    /// what changes. Off by default.
    pub fn set_skip_quiet_trees(&mut self, on: bool) {
        self.skip_quiet = on;
        self.quiet = QuietTrees::default();
    }

    /// Heads not popped so far because their tree was quiet.
    pub fn quiet_heads_skipped(&self) -> u64 {
        self.quiet.skipped
    }

    /// `key` is decided again in the next cycle, with the rest of its cohort tree, even if
    /// nothing the engine holds about that tree changed.
    pub fn reconsider(&mut self, key: &WorkloadKey) {
        if self.quiet.stamps.is_empty() {
            return;
        }
        let Some(&id) = self.wl_ids.get(key) else {
            return;
        };
        let st = self.wl(id);
        let cqs = [st.target_cq, st.holding.as_ref().map(|h| h.cq)];
        for cq in cqs.into_iter().flatten() {
            let root = self.tree.root(self.cqs[cq].node);
            self.quiet.stamps.remove(&root);
        }
    }

    fn may_skip_quiet(&self) -> bool {
        self.skip_quiet && self.cfg.fair_sharing.is_none() && !self.cfg.blocks_admission()
    }

    /// The ClusterQueues whose head is a stamped one of a tree whose stamp still holds; the
    /// other stamps are dropped.
    pub(super) fn quiet_queues(&mut self) -> BTreeSet<CqId> {
        if !self.may_skip_quiet() || self.quiet.stamps.is_empty() {
            self.quiet.stamps.clear();
            return BTreeSet::new();
        }
        let mut broken: BTreeSet<NodeId> = BTreeSet::new();
        let mut matched: BTreeMap<NodeId, usize> = BTreeMap::new();
        for cq in self.cqs.ids() {
            if self.cqs[cq].inactive.is_some() {
                continue;
            }
            let root = self.tree.root(self.cqs[cq].node);
            let Some(stamp) = self.quiet.stamps.get(&root) else {
                continue;
            };
            let head = self.queues[cq].head().map(|k| k.id);
            let stamped = stamp
                .heads
                .binary_search_by_key(&cq, |&(c, _)| c)
                .ok()
                .map(|i| stamp.heads[i].1);
            if head != stamped || head.is_some_and(|wl| !self.answers_again(wl, cq, root)) {
                broken.insert(root);
            } else if head.is_some() {
                *matched.entry(root).or_default() += 1;
            }
        }
        let searches = &self.searches;
        self.quiet.stamps.retain(|root, stamp| {
            !broken.contains(root)
                && stamp.version == searches.version(*root)
                && matched.get(root).copied().unwrap_or(0) == stamp.heads.len()
        });
        self.quiet
            .stamps
            .values()
            .flat_map(|stamp| stamp.heads.iter().map(|&(cq, _)| cq))
            .collect()
    }

    /// Would the next cycle's nomination of head `wl` come from its kept one? Its scan
    /// starts from its last state then (left in the cycle before: it is resumed).
    fn answers_again(&self, wl: WlId, cq: CqId, root: NodeId) -> bool {
        let inputs = NominationKey {
            cq,
            version: self.searches.version(root),
            generation: self.cqs[cq].generation,
            last: self.wl(wl).last.as_ref(),
        };
        self.nominations.would_answer(wl, &inputs)
    }

    /// What popping and requeueing `head` would have done to it: it counts as evaluated now,
    /// and its scan state as left in this cycle.
    pub(super) fn skip_quiet_head(&mut self, head: QueueKey) {
        self.quiet.skipped += 1;
        self.mark_evaluated(head.id);
        let cycle = self.cycle;
        let st = self.wl_mut(head.id);
        if let Some(last) = st.last.as_mut() {
            last.cycle = cycle;
            // As its resumed scan would (see `start_scan`).
            if last.pending_flavors() {
                st.evaluated_at = 0;
            }
        }
    }

    /// The versions of the trees of `heads`, before the cycle changes anything.
    pub(super) fn versions_of(&self, heads: &[(CqId, QueueKey)]) -> BTreeMap<NodeId, u64> {
        if !self.may_skip_quiet() {
            return BTreeMap::new();
        }
        heads
            .iter()
            .map(|&(cq, _)| {
                let root = self.tree.root(self.cqs[cq].node);
                (root, self.searches.version(root))
            })
            .collect()
    }

    /// After the requeue: stamps each tree of this cycle's entries that it left as it found
    /// it (see the module comment). `before` is [`Engine::versions_of`] the heads.
    pub(super) fn stamp_quiet(&mut self, entries: &[Entry], before: &BTreeMap<NodeId, u64>) {
        if before.is_empty() {
            return;
        }
        let mut trees: BTreeMap<NodeId, Option<Vec<(CqId, WlId)>>> = BTreeMap::new();
        for e in entries {
            let root = self.tree.root(self.cqs[e.cq].node);
            let quiet = e.status != Status::Admitted
                && !e.inadmissible
                && self.queues[e.cq].head().map(|k| k.id) == Some(e.wl)
                && self.answers_again(e.wl, e.cq, root);
            let heads = trees.entry(root).or_insert_with(|| Some(Vec::new()));
            match heads {
                Some(h) if quiet => h.push((e.cq, e.wl)),
                _ => *heads = None,
            }
        }
        for (root, heads) in trees {
            let unchanged = before.get(&root) == Some(&self.searches.version(root));
            match heads.filter(|_| unchanged) {
                Some(mut heads) => {
                    heads.sort_unstable();
                    let version = self.searches.version(root);
                    self.quiet.stamps.insert(root, Stamp { version, heads });
                }
                None => {
                    self.quiet.stamps.remove(&root);
                }
            }
        }
    }
}
