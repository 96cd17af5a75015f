//! The what-if guard: usage taken out of (or put into) the quota tree to ask "what if these
//! victims were gone" or "what if this request were admitted", undone when the guard drops.
//!
//! Invariants: when a [`WhatIf`] is dropped, the tree's usage is exactly what it was when the
//! guard was made, whatever happened in between (debug builds check this on every drop).
//! Reads go through the guard (it derefs to the [`Tree`]); the only changes are the guard's
//! own, so none can outlive it. Tree usage is a function of the ClusterQueues' usage alone, so
//! changes may be undone in any order.

use std::ops::Deref;

use super::id::{FrId, NodeId, WlId};
use super::quantity::Amount;
use super::tree::Tree;
use super::view::View;

/// A what-if on the quota tree; everything it changed is restored when it is dropped.
#[must_use = "a what-if ends, and its changes are undone, when the guard is dropped"]
pub(crate) struct WhatIf<'t, 'u> {
    tree: &'t mut Tree,
    changes: Vec<Change<'u>>,
    #[cfg(debug_assertions)]
    before: Vec<Vec<Amount>>,
}

#[derive(Clone, Copy)]
struct Change<'u> {
    node: NodeId,
    usage: &'u [(FrId, Amount)],
    added: bool,
}

impl<'t, 'u> WhatIf<'t, 'u> {
    pub fn new(tree: &'t mut Tree) -> Self {
        Self {
            #[cfg(debug_assertions)]
            before: usage_of(tree),
            tree,
            changes: Vec::new(),
        }
    }

    /// A what-if inside this one: its changes are undone when it drops, this one's stay.
    pub fn nested(&mut self) -> WhatIf<'_, 'u> {
        WhatIf::new(self.tree)
    }

    /// As if `wl` gave back the quota it holds (nothing when it holds none).
    pub fn take_out(&mut self, view: &View<'u>, wl: WlId) {
        if let Some((node, usage)) = view.holding_of(wl) {
            self.tree.remove_usages(node, usage);
            self.changes.push(Change {
                node,
                usage,
                added: false,
            });
        }
    }

    /// Puts `wl`, taken out by this guard, back before the guard ends. Recorded as one more
    /// change (the guard undoes its changes last first, so the drop takes it out again, then
    /// undoes the taking out): the earlier change is not searched for, which at a thousand
    /// victims made minimising a victim set quadratic.
    pub fn put_back(&mut self, view: &View<'u>, wl: WlId) {
        if let Some((node, usage)) = view.holding_of(wl) {
            self.add(node, usage);
        }
    }

    /// As if `usage` were admitted in ClusterQueue node `node`.
    pub fn add(&mut self, node: NodeId, usage: &'u [(FrId, Amount)]) {
        self.tree.add_usages(node, usage);
        self.changes.push(Change {
            node,
            usage,
            added: true,
        });
    }

    /// As if `usage`, already in the tree under `node`, were not.
    pub fn remove(&mut self, node: NodeId, usage: &'u [(FrId, Amount)]) {
        self.tree.remove_usages(node, usage);
        self.changes.push(Change {
            node,
            usage,
            added: false,
        });
    }
}

impl Deref for WhatIf<'_, '_> {
    type Target = Tree;

    fn deref(&self) -> &Tree {
        self.tree
    }
}

impl Drop for WhatIf<'_, '_> {
    fn drop(&mut self) {
        while let Some(c) = self.changes.pop() {
            if c.added {
                self.tree.remove_usages(c.node, c.usage);
            } else {
                self.tree.add_usages(c.node, c.usage);
            }
        }
        #[cfg(debug_assertions)]
        if !std::thread::panicking() {
            assert!(
                usage_of(self.tree) == self.before,
                "a what-if left the quota tree changed"
            );
        }
    }
}

#[cfg(any(debug_assertions, test))]
fn usage_of(tree: &Tree) -> Vec<Vec<Amount>> {
    tree.nodes
        .iter()
        .map(|n| n.usage.iter().copied().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::id::IdVec;
    use crate::scheduler::tree::Quota;

    fn tree() -> (Tree, NodeId, NodeId) {
        let quota = |nominal: i64, lending: Option<i64>| {
            IdVec::filled(
                Quota {
                    nominal: Amount::new(nominal),
                    borrowing_limit: None,
                    lending_limit: lending.map(Amount::new),
                },
                1,
            )
        };
        let mut t = Tree::new(1);
        let cohort = t.add_node(false, quota(0, None), 1.0);
        let a = t.add_node(true, quota(10, None), 1.0);
        let b = t.add_node(true, quota(6, Some(2)), 1.0);
        t.set_parent(a, cohort);
        t.set_parent(b, cohort);
        t.recompute_from(cohort);
        t.add_usage(a, FrId::FIRST, Amount::new(11));
        (t, a, b)
    }

    #[test]
    fn changes_are_undone_in_any_order_when_the_guard_drops() {
        let (mut t, a, b) = tree();
        let before = usage_of(&t);
        let eleven = [(FrId::FIRST, Amount::new(11))];
        let five = [(FrId::FIRST, Amount::new(5))];
        {
            let mut w = WhatIf::new(&mut t);
            w.add(b, &five);
            w.remove(a, &eleven);
            assert_eq!(w.available(a, FrId::FIRST), 11);
            {
                let mut inner = w.nested();
                inner.add(a, &eleven);
                assert_eq!(inner.available(b, FrId::FIRST), 0);
            }
            assert_eq!(w.available(a, FrId::FIRST), 11, "the nested what-if ended");
        }
        assert_eq!(usage_of(&t), before);
    }

    /// Saturated arithmetic cannot be undone exactly; the guard says so instead of leaving
    /// the tree quietly changed.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a what-if left the quota tree changed")]
    fn a_change_that_cannot_be_undone_is_caught() {
        let (mut t, a, _) = tree();
        let unlimited = [(FrId::FIRST, Amount::UNLIMITED)];
        let mut w = WhatIf::new(&mut t);
        w.add(a, &unlimited);
    }
}
