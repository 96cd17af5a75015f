//! Typed indices into the engine's dense tables, and [`IdVec`], a vector indexed by one of
//! them.
//!
//! Invariants: an id is only ever made by the table it indexes ([`IdVec::push`],
//! [`IdVec::ids`]...), so a `CqId` cannot index the workloads and a `NodeId` cannot index the
//! ClusterQueues. Ids are `u32`: a table never holds more than `u32::MAX` entries (a cluster
//! of that size is far beyond what the engine is built for; passing it is a bug, not input).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An index type: a `u32` in a newtype, convertible to and from a position.
pub trait Id: Copy + Ord + fmt::Debug {
    fn from_index(index: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(u32);

        impl $name {
            /// The first entry of its table.
            pub const FIRST: Self = Self(0);
        }

        impl Id for $name {
            fn from_index(index: usize) -> Self {
                Self(u32::try_from(index).expect(concat!(stringify!($name), " fits in u32")))
            }

            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self.0)
            }
        }
    };
}

id_type!(
    /// A ClusterQueue, in name order.
    CqId
);
id_type!(
    /// A workload record (a slot is reused when the same key comes back, and a removed
    /// workload's slot by the next new one).
    WlId
);
id_type!(
    /// A node of the quota tree: a ClusterQueue or a Cohort.
    NodeId
);
id_type!(
    /// A Cohort, in name order (explicit and implicit ones alike).
    CohortId
);
id_type!(
    /// An interned ResourceFlavor name.
    FlavorId
);
id_type!(
    /// An interned resource name.
    ResId
);
id_type!(
    /// An interned (flavor, resource) pair: the position in every node's quota and usage.
    FrId
);

/// A `Vec<T>` indexed by `I`.
pub struct IdVec<I, T> {
    raw: Vec<T>,
    _id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    pub fn new() -> Self {
        Self::from_raw(Vec::new())
    }

    pub fn from_raw(raw: Vec<T>) -> Self {
        Self {
            raw,
            _id: PhantomData,
        }
    }

    /// `n` copies of `value`.
    pub fn filled(value: T, n: usize) -> Self
    where
        T: Clone,
    {
        Self::from_raw(vec![value; n])
    }

    pub fn len(&self) -> usize {
        self.raw.len()
    }

    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Appends `value` and returns its id.
    pub fn push(&mut self, value: T) -> I {
        let id = I::from_index(self.raw.len());
        self.raw.push(value);
        id
    }

    pub fn get(&self, id: I) -> Option<&T> {
        self.raw.get(id.index())
    }

    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.raw.get_mut(id.index())
    }

    /// Grows (or shrinks) to `n` entries, filling with `value`.
    pub fn resize(&mut self, n: usize, value: T)
    where
        T: Clone,
    {
        self.raw.resize(n, value);
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        (0..self.raw.len()).map(I::from_index)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.raw.iter_mut()
    }

    /// `(id, value)` pairs, in order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> {
        self.raw
            .iter()
            .enumerate()
            .map(|(i, v)| (I::from_index(i), v))
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, T: Clone> Clone for IdVec<I, T> {
    fn clone(&self) -> Self {
        Self {
            raw: self.raw.clone(),
            _id: PhantomData,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.raw.clone_from(&source.raw);
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;

    fn index(&self, id: I) -> &T {
        &self.raw[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.raw[id.index()]
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        Self::from_raw(iter.into_iter().collect())
    }
}

impl<'a, I: Id, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<'a, I: Id, T> IntoIterator for &'a mut IdVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_their_own_table() {
        let mut v: IdVec<CqId, &str> = IdVec::new();
        let a = v.push("a");
        let b = v.push("b");
        assert_eq!((v[a], v[b]), ("a", "b"));
        assert_eq!(v.ids().collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(v.get(CqId::from_index(2)), None);
        assert_eq!(format!("{b:?}"), "CqId(1)");
    }
}
