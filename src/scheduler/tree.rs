//! The quota tree: ClusterQueues and Cohorts as nodes holding quota and usage per
//! (flavor, resource), with upstream Kueue's lending, borrowing and availability arithmetic.
//!
//! Invariants:
//! - A node's `subtree_quota` is its own nominal plus, per child, what the child lends
//!   upward (`child.subtree_quota - child.local_quota`).
//! - A node's `usage` is, for a ClusterQueue, the sum of its quota-holding workloads; for a
//!   Cohort, the sum over children of the usage that spills past each child's held-back
//!   (`local_quota`) part. [`Tree::add_usage`] and [`Tree::remove_usage`] keep this true up
//!   to the root, so a change in one ClusterQueue is visible to the whole tree at once.
//! - All arithmetic saturates (see [`super::quantity`]).

use super::id::{FrId, Id, IdVec, NodeId};
use super::quantity::Amount;

/// One node's quota for one (flavor, resource), as its spec gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Quota {
    pub nominal: Amount,
    pub borrowing_limit: Option<Amount>,
    pub lending_limit: Option<Amount>,
}

/// A ClusterQueue or Cohort in the tree.
#[derive(Debug, Clone)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub child_cqs: Vec<NodeId>,
    pub child_cohorts: Vec<NodeId>,
    pub is_cq: bool,
    pub quota: IdVec<FrId, Quota>,
    /// Its nominal plus what its children lend upward (see the module's invariants).
    pub subtree_quota: IdVec<FrId, Amount>,
    /// Its usage, as the module's invariants define it.
    pub usage: IdVec<FrId, Amount>,
    /// Distance to the furthest leaf (a ClusterQueue has 0, a cohort of queues 1).
    pub height: u32,
    pub fair_weight: f64,
}

/// The forest of cohort trees (a ClusterQueue without a cohort is a root of its own).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    pub nodes: IdVec<NodeId, Node>,
    /// How many (flavor, resource) pairs every node is sized for.
    pub num_fr: usize,
}

impl Tree {
    pub fn new(num_fr: usize) -> Self {
        Self {
            nodes: IdVec::new(),
            num_fr,
        }
    }

    /// Every (flavor, resource) id the nodes are sized for.
    pub fn frs(&self) -> impl Iterator<Item = FrId> + use<> {
        (0..self.num_fr).map(FrId::from_index)
    }

    /// Sizes every node for `num_fr` (flavor, resource) pairs; new pairs have no quota.
    pub fn resize_frs(&mut self, num_fr: usize) {
        self.num_fr = num_fr;
        for n in &mut self.nodes {
            n.quota.resize(num_fr, Quota::default());
            n.subtree_quota.resize(num_fr, Amount::ZERO);
            n.usage.resize(num_fr, Amount::ZERO);
        }
    }

    pub fn add_node(&mut self, is_cq: bool, quota: IdVec<FrId, Quota>, fair_weight: f64) -> NodeId {
        debug_assert_eq!(quota.len(), self.num_fr);
        self.nodes.push(Node {
            parent: None,
            child_cqs: Vec::new(),
            child_cohorts: Vec::new(),
            is_cq,
            quota,
            subtree_quota: IdVec::filled(Amount::ZERO, self.num_fr),
            usage: IdVec::filled(Amount::ZERO, self.num_fr),
            height: 0,
            fair_weight,
        })
    }

    pub fn set_parent(&mut self, child: NodeId, parent: NodeId) {
        self.nodes[child].parent = Some(parent);
        if self.nodes[child].is_cq {
            self.nodes[parent].child_cqs.push(child);
        } else {
            self.nodes[parent].child_cohorts.push(child);
        }
    }

    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        self.nodes[n].parent
    }

    pub fn root(&self, mut n: NodeId) -> NodeId {
        while let Some(p) = self.nodes[n].parent {
            n = p;
        }
        n
    }

    /// Ancestors from the parent up to the root.
    pub fn ancestors(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[n].parent, move |&p| self.nodes[p].parent)
    }

    /// Recomputes heights and subtree quotas bottom-up from `root`, and usage of cohorts
    /// from the usage already recorded on ClusterQueues.
    pub fn recompute_from(&mut self, root: NodeId) {
        let children_cohorts = self.nodes[root].child_cohorts.clone();
        let children_cqs = self.nodes[root].child_cqs.clone();
        let mut height = u32::from(!children_cqs.is_empty() || !children_cohorts.is_empty());
        for &c in &children_cohorts {
            self.recompute_from(c);
            height = height.max(self.nodes[c].height + 1);
        }
        for &c in &children_cqs {
            let node = &mut self.nodes[c];
            node.height = 0;
            node.subtree_quota = node.quota.iter().map(|q| q.nominal).collect();
        }
        let mut subtree: IdVec<FrId, Amount> =
            self.nodes[root].quota.iter().map(|q| q.nominal).collect();
        let mut usage = IdVec::filled(Amount::ZERO, self.num_fr);
        if self.nodes[root].is_cq {
            usage.clone_from(&self.nodes[root].usage);
        }
        for c in children_cohorts.iter().chain(children_cqs.iter()) {
            for fr in self.frs() {
                let lq = self.local_quota(*c, fr);
                let child = &self.nodes[*c];
                subtree[fr] += child.subtree_quota[fr] - lq;
                usage[fr] += (child.usage[fr] - lq).max(Amount::ZERO);
            }
        }
        let node = &mut self.nodes[root];
        node.height = if node.is_cq { 0 } else { height };
        node.subtree_quota = subtree;
        node.usage = usage;
    }

    /// Capacity only this subtree sees: held back from the parent by the lending limit.
    pub fn local_quota(&self, n: NodeId, fr: FrId) -> Amount {
        let node = &self.nodes[n];
        match node.quota[fr].lending_limit {
            Some(lending) => (node.subtree_quota[fr] - lending).max(Amount::ZERO),
            None => Amount::ZERO,
        }
    }

    /// What is left of [`Tree::local_quota`] after `n`'s usage.
    pub fn local_available(&self, n: NodeId, fr: FrId) -> Amount {
        (self.local_quota(n, fr) - self.nodes[n].usage[fr]).max(Amount::ZERO)
    }

    fn available_raw(&self, n: NodeId, fr: FrId) -> Amount {
        let node = &self.nodes[n];
        let Some(parent) = node.parent else {
            return node.subtree_quota[fr] - node.usage[fr];
        };
        let mut parent_available = self.available_raw(parent, fr);
        if let Some(borrowing) = node.quota[fr].borrowing_limit {
            let lq = self.local_quota(n, fr);
            let stored_in_parent = node.subtree_quota[fr] - lq;
            let used_in_parent = (node.usage[fr] - lq).max(Amount::ZERO);
            let with_max_from_parent = stored_in_parent - used_in_parent + borrowing;
            parent_available = parent_available.min(with_max_from_parent);
        }
        self.local_available(n, fr) + parent_available
    }

    /// Like [`Tree::available`] but negative when usage along the path exceeds quota.
    pub fn available_unclamped(&self, n: NodeId, fr: FrId) -> Amount {
        self.available_raw(n, fr)
    }

    /// What `n` can still take on `fr` without preempting, borrowing included.
    pub fn available(&self, n: NodeId, fr: FrId) -> Amount {
        self.available_raw(n, fr).max(Amount::ZERO)
    }

    /// The largest request `n` could ever fit on `fr`, with every usage gone.
    pub fn potential_available(&self, n: NodeId, fr: FrId) -> Amount {
        let node = &self.nodes[n];
        let Some(parent) = node.parent else {
            return node.subtree_quota[fr];
        };
        let mut avail = self.local_quota(n, fr) + self.potential_available(parent, fr);
        if let Some(borrowing) = node.quota[fr].borrowing_limit {
            avail = avail.min(node.subtree_quota[fr] + borrowing);
        }
        avail
    }

    /// Adds `v` to `n`'s usage, and what does not fit in its held-back part to its parent's,
    /// up to the root.
    pub fn add_usage(&mut self, n: NodeId, fr: FrId, v: Amount) {
        let local_available = self.local_available(n, fr);
        let node = &mut self.nodes[n];
        node.usage[fr] += v;
        if let Some(parent) = node.parent
            && v > local_available
        {
            self.add_usage(parent, fr, v - local_available);
        }
    }

    /// Undoes [`Tree::add_usage`].
    pub fn remove_usage(&mut self, n: NodeId, fr: FrId, v: Amount) {
        let stored_in_parent = self.nodes[n].usage[fr] - self.local_quota(n, fr);
        let node = &mut self.nodes[n];
        node.usage[fr] -= v;
        if stored_in_parent <= 0 {
            return;
        }
        if let Some(parent) = node.parent {
            self.remove_usage(parent, fr, v.min(stored_in_parent));
        }
    }

    pub fn add_usages(&mut self, n: NodeId, usage: &[(FrId, Amount)]) {
        for &(fr, v) in usage {
            self.add_usage(n, fr, v);
        }
    }

    pub fn remove_usages(&mut self, n: NodeId, usage: &[(FrId, Amount)]) {
        for &(fr, v) in usage {
            self.remove_usage(n, fr, v);
        }
    }

    /// Would `n` be over its (subtree) quota on `fr` with `v` more?
    pub fn borrowing_with(&self, n: NodeId, fr: FrId, v: Amount) -> bool {
        let node = &self.nodes[n];
        node.subtree_quota[fr] < node.usage[fr] + v
    }

    /// Is `n` over its subtree quota on `fr`?
    pub fn borrowing(&self, n: NodeId, fr: FrId) -> bool {
        self.borrowing_with(n, fr, Amount::ZERO)
    }

    /// Is `n` within its subtree quota on every one of `frs`?
    pub fn within_nominal_in(&self, n: NodeId, frs: &[FrId]) -> bool {
        frs.iter().all(|&fr| !self.borrowing(n, fr))
    }

    /// Upstream's borrowing level: 0 when `val` fits in `cq`'s nominal (or it has no
    /// parent), else the height of the lowest ancestor whose quota holds the remainder
    /// (the root's height when none does). The flag is true when that ancestor is below the
    /// root, which upstream calls a hierarchical-reclaim path.
    pub fn lowest_subtree_that_fits(&self, cq: NodeId, fr: FrId, val: Amount) -> (u32, bool) {
        let has_parent = self.nodes[cq].parent.is_some();
        if !self.borrowing_with(cq, fr, val) || !has_parent {
            return (0, has_parent);
        }
        let mut remaining = val - self.local_available(cq, fr);
        for a in self.ancestors(cq) {
            if !self.borrowing_with(a, fr, remaining) {
                return (self.nodes[a].height, self.nodes[a].parent.is_some());
            }
            remaining -= self.local_available(a, fr);
        }
        (self.nodes[self.root(cq)].height, false)
    }

    /// Whether `requests` fit in `n`'s quota with its current usage, and what remains to be
    /// found higher up after `n`'s held-back capacity.
    pub fn fits_in_quota(
        &self,
        n: NodeId,
        requests: &[(FrId, Amount)],
    ) -> (bool, Vec<(FrId, Amount)>) {
        let mut fits = true;
        let mut remaining = Vec::with_capacity(requests.len());
        let node = &self.nodes[n];
        for &(fr, v) in requests {
            if node.subtree_quota[fr] < node.usage[fr] + v {
                fits = false;
            }
            remaining.push((fr, (v - self.local_available(n, fr)).max(Amount::ZERO)));
        }
        (fits, remaining)
    }

    /// Every ClusterQueue in the subtree of `n`, in tree order.
    pub fn subtree_cqs(&self, n: NodeId, out: &mut Vec<NodeId>) {
        out.extend(self.nodes[n].child_cqs.iter().copied());
        for &c in &self.nodes[n].child_cohorts {
            self.subtree_cqs(c, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one (flavor, resource) of these trees.
    const FR: FrId = FrId::FIRST;

    fn q(nominal: i64, borrowing: Option<i64>, lending: Option<i64>) -> IdVec<FrId, Quota> {
        IdVec::filled(
            Quota {
                nominal: Amount::new(nominal),
                borrowing_limit: borrowing.map(Amount::new),
                lending_limit: lending.map(Amount::new),
            },
            1,
        )
    }

    /// The digest's worked example: A nominal 10, B nominal 6 lending 2, A uses 11.
    #[test]
    fn lending_limit_holds_capacity_back() {
        let mut t = Tree::new(1);
        let cohort = t.add_node(false, q(0, None, None), 1.0);
        let a = t.add_node(true, q(10, None, None), 1.0);
        let b = t.add_node(true, q(6, None, Some(2)), 1.0);
        t.set_parent(a, cohort);
        t.set_parent(b, cohort);
        t.recompute_from(cohort);
        assert_eq!(t.nodes[cohort].subtree_quota[FR], 12);
        assert_eq!(t.local_quota(b, FR), 4);
        t.add_usage(a, FR, Amount::new(11));
        assert_eq!(t.nodes[cohort].usage[FR], 11);
        assert_eq!(t.available(a, FR), 1);
        assert_eq!(t.potential_available(a, FR), 12);
        assert_eq!(t.available(b, FR), 5);
        assert_eq!(t.potential_available(b, FR), 16);
        t.remove_usage(a, FR, Amount::new(11));
        assert_eq!(t.nodes[cohort].usage[FR], 0);
    }

    #[test]
    fn borrowing_limit_caps_what_a_queue_takes() {
        let mut t = Tree::new(1);
        let cohort = t.add_node(false, q(0, None, None), 1.0);
        let a = t.add_node(true, q(4, Some(2), None), 1.0);
        let b = t.add_node(true, q(4, None, None), 1.0);
        t.set_parent(a, cohort);
        t.set_parent(b, cohort);
        t.recompute_from(cohort);
        assert_eq!(t.available(a, FR), 6);
        assert_eq!(t.potential_available(a, FR), 6);
        assert_eq!(t.available(b, FR), 8);
        t.add_usage(b, FR, Amount::new(3));
        assert_eq!(t.available(a, FR), 5, "only 5 left in the cohort");
        assert_eq!(
            t.lowest_subtree_that_fits(a, FR, Amount::new(5)),
            (1, false)
        );
        assert_eq!(t.lowest_subtree_that_fits(a, FR, Amount::new(4)), (0, true));
    }

    #[test]
    fn usage_held_back_does_not_reach_the_parent() {
        let mut t = Tree::new(1);
        let cohort = t.add_node(false, q(0, None, None), 1.0);
        let b = t.add_node(true, q(6, None, Some(2)), 1.0);
        t.set_parent(b, cohort);
        t.recompute_from(cohort);
        t.add_usage(b, FR, Amount::new(3));
        assert_eq!(t.nodes[cohort].usage[FR], 0);
        t.add_usage(b, FR, Amount::new(3));
        assert_eq!(t.nodes[cohort].usage[FR], 2);
        t.remove_usage(b, FR, Amount::new(4));
        assert_eq!(t.nodes[cohort].usage[FR], 0);
        assert_eq!(t.nodes[b].usage[FR], 2);
    }
}
