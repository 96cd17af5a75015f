//! A workload's identity: its namespace and name.
//!
//! Invariants: `namespace` is never empty for a key made at the edge (the default-namespace
//! rule lives in one place, `manifests::key::ObjectKey`); ordering is by namespace, then name.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct WorkloadKey {
    pub namespace: String,
    pub name: String,
}

impl WorkloadKey {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Reads `namespace/name`; `None` when there is no `/` or either side is empty.
    pub fn parse(text: &str) -> Option<Self> {
        let (ns, name) = text.split_once('/')?;
        (!ns.is_empty() && !name.is_empty()).then(|| Self::new(ns, name))
    }
}

/// Compares with the `namespace/name` text, as [`WorkloadKey::parse`] reads it.
impl PartialEq<str> for WorkloadKey {
    fn eq(&self, text: &str) -> bool {
        text.split_once('/') == Some((self.namespace.as_str(), self.name.as_str()))
    }
}

impl PartialEq<&str> for WorkloadKey {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl fmt::Display for WorkloadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Values by workload key, found through a fixed 64-bit hash of the key: an ordered map of
/// tens of thousands of `namespace/name` keys costs dozens of string comparisons per lookup
/// (the controller looks workloads up many times per turn); ordered by hash, a lookup costs
/// integer comparisons and one string comparison.
///
/// Invariants: deterministic (the hash has no per-process seed); keys whose hashes collide
/// share a bucket, so a crafted name costs a comparison more, never a wrong answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyIndex<V> {
    buckets: BTreeMap<u64, Vec<(WorkloadKey, V)>>,
    len: usize,
}

impl<V> Default for KeyIndex<V> {
    fn default() -> Self {
        KeyIndex {
            buckets: BTreeMap::new(),
            len: 0,
        }
    }
}

fn hash_of(key: &WorkloadKey) -> u64 {
    // `new` has fixed keys (no per-process seed): the same hash every time.
    let mut h = std::hash::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl<V> KeyIndex<V> {
    pub(crate) fn get(&self, key: &WorkloadKey) -> Option<&V> {
        let bucket = self.buckets.get(&hash_of(key))?;
        bucket.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`'s value; the value it had, if any.
    pub(crate) fn insert(&mut self, key: WorkloadKey, value: V) -> Option<V> {
        // Nearly every bucket holds one key: room for one (a first push would make room for
        // four, about 170 bytes more per workload).
        let bucket = self
            .buckets
            .entry(hash_of(&key))
            .or_insert_with(|| Vec::with_capacity(1));
        match bucket.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => Some(std::mem::replace(v, value)),
            None => {
                bucket.push((key, value));
                self.len += 1;
                None
            }
        }
    }

    pub(crate) fn remove(&mut self, key: &WorkloadKey) -> Option<V> {
        let h = hash_of(key);
        let bucket = self.buckets.get_mut(&h)?;
        let i = bucket.iter().position(|(k, _)| k == key)?;
        let (_, v) = bucket.swap_remove(i);
        if bucket.is_empty() {
            self.buckets.remove(&h);
        }
        self.len -= 1;
        Some(v)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Every key and its value, in hash order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&WorkloadKey, &V)> {
        self.buckets.values().flatten().map(|(k, v)| (k, v))
    }

    /// Every key, in key order.
    pub(crate) fn sorted_keys(&self) -> Vec<&WorkloadKey> {
        let mut keys: Vec<&WorkloadKey> = self.buckets.values().flatten().map(|(k, _)| k).collect();
        keys.sort();
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::{KeyIndex, WorkloadKey};

    #[test]
    fn an_index_finds_inserts_replaces_and_removes_by_key() {
        let mut index = KeyIndex::default();
        let keys: Vec<WorkloadKey> = (0..500)
            .map(|i| WorkloadKey::new(format!("ns-{}", i % 7), format!("wl-{i}")))
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(index.insert(k.clone(), i), None);
        }
        assert_eq!(index.len(), 500);
        assert_eq!(index.insert(keys[3].clone(), 1000), Some(3));
        assert_eq!(index.get(&keys[3]), Some(&1000));
        assert_eq!(index.get(&WorkloadKey::new("ns-0", "absent")), None);
        for k in keys.iter().step_by(2) {
            assert!(index.remove(k).is_some());
        }
        assert_eq!(index.remove(&keys[0]), None);
        assert_eq!(index.len(), 250);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(index.get(k).is_some(), i % 2 == 1, "{k}");
        }
        let sorted = index.sorted_keys();
        assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sorted.len(), 250);
    }

    #[test]
    fn parses_and_prints_namespace_slash_name() {
        let k = WorkloadKey::parse("team-a/job-x-1").unwrap();
        assert_eq!(k, WorkloadKey::new("team-a", "job-x-1"));
        assert_eq!(k.to_string(), "team-a/job-x-1");
        assert_eq!(WorkloadKey::parse("no-namespace"), None);
        assert_eq!(WorkloadKey::parse("/x"), None);
        assert_eq!(WorkloadKey::parse("x/"), None);
        // Names cannot hold '/', so the first one splits.
        assert_eq!(WorkloadKey::parse("a/b/c").unwrap().name, "b/c");
        assert_eq!(k, "team-a/job-x-1");
        assert_ne!(k, "team-a");
        assert_ne!(WorkloadKey::new("a", "b/c"), "a/b");
    }

    #[test]
    fn orders_by_namespace_then_name() {
        let mut keys = [
            WorkloadKey::new("b", "a"),
            WorkloadKey::new("a-b", "a"),
            WorkloadKey::new("a", "z"),
        ];
        keys.sort();
        let texts: Vec<String> = keys.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["a/z", "a-b/a", "b/a"]);
    }
}
