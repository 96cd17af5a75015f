//! Label sets; gauges that hold a state (each update names every series the family should
//! have, and the series set before but not named now go); and counter and histogram
//! families whose series can be dropped by label, for a queue or cohort that is gone.
//!
//! Invariants: a family cannot list its own series, so the label sets are remembered here. A
//! [`StateGauge`] shows exactly the series of its last [`StateGauge::replace`] plus those
//! [`StateGauge::set`] since, minus those [`StateGauge::retain`] or [`StateGauge::remove`]
//! dropped; a [`Tracked`]
//! family shows every series [`Tracked::get_or_create`] made, minus those
//! [`Tracked::retain`] dropped.

use std::collections::BTreeSet;
use std::ops::Deref;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use prometheus_client::encoding::{EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::family::{Family, MetricConstructor};
use prometheus_client::metrics::gauge::Gauge;

/// One series' labels, in upstream's order. The names are upstream's (static); the set is
/// shared, so the family's key and the set remembering it are one allocation (a series per
/// ClusterQueue and family: tens of thousands at upstream's large-scale shape, where each
/// set held twice, names and all, came to about 30 MB).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Labels(Arc<[(&'static str, String)]>);

impl Deref for Labels {
    type Target = [(&'static str, String)];

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl From<Vec<(&'static str, String)>> for Labels {
    fn from(pairs: Vec<(&'static str, String)>) -> Labels {
        Labels(pairs.into())
    }
}

impl EncodeLabelSet for Labels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        (&*self.0).encode(encoder)
    }
}

/// A float gauge.
pub type GaugeF = Gauge<f64, AtomicU64>;

/// `pairs` as label pairs, to make [`Labels`] of (`.into()`) or to add to.
pub fn pairs(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, (*v).to_string())).collect()
}

/// `pairs` as [`Labels`].
pub fn labels(pairs: &[(&'static str, &str)]) -> Labels {
    self::pairs(pairs).into()
}

/// A gauge family whose series are set from state snapshots.
#[derive(Default)]
pub struct StateGauge {
    family: Family<Labels, GaugeF>,
    last: Mutex<BTreeSet<Labels>>,
}

impl StateGauge {
    /// The family, to register.
    pub fn family(&self) -> Family<Labels, GaugeF> {
        self.family.clone()
    }

    fn last(&self) -> std::sync::MutexGuard<'_, BTreeSet<Labels>> {
        self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets every series in `series`; drops every other series it holds.
    pub fn replace(&self, series: impl IntoIterator<Item = (Labels, f64)>) {
        let mut keep = BTreeSet::new();
        for (labels, v) in series {
            self.family.get_or_create(&labels).set(v);
            keep.insert(labels);
        }
        let mut last = self.last();
        for gone in last.difference(&keep) {
            self.family.remove(gone);
        }
        *last = keep;
    }

    /// Sets one series, keeping the others.
    pub fn set(&self, labels: Labels, v: f64) {
        self.family.get_or_create(&labels).set(v);
        self.last().insert(labels);
    }

    /// Drops one series.
    pub fn remove(&self, labels: &Labels) {
        self.family.remove(labels);
        self.last().remove(labels);
    }

    /// Drops the series `keep` says no to.
    pub fn retain(&self, keep: impl Fn(&Labels) -> bool) {
        let mut last = self.last();
        let gone: Vec<Labels> = last.iter().filter(|l| !keep(l)).cloned().collect();
        for labels in gone {
            self.family.remove(&labels);
            last.remove(&labels);
        }
    }
}

/// A counter or histogram family that remembers its series, so those of a queue or cohort
/// that is gone can be dropped.
pub struct Tracked<M, C = fn() -> M> {
    family: Family<Labels, M, C>,
    made: Mutex<BTreeSet<Labels>>,
}

impl<M: Default> Default for Tracked<M> {
    fn default() -> Tracked<M> {
        Tracked::new(Family::default())
    }
}

impl<M, C: MetricConstructor<M> + Clone> Tracked<M, C> {
    pub fn new(family: Family<Labels, M, C>) -> Tracked<M, C> {
        Tracked {
            family,
            made: Mutex::new(BTreeSet::new()),
        }
    }

    /// The family, to register.
    pub fn family(&self) -> Family<Labels, M, C> {
        self.family.clone()
    }

    fn made(&self) -> std::sync::MutexGuard<'_, BTreeSet<Labels>> {
        self.made.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The series of `labels`, made if new (remembered and made under one lock, so a
    /// concurrent [`Tracked::retain`] cannot miss it; the lock order is always ours, then
    /// the family's).
    pub fn get_or_create(&self, labels: &Labels) -> impl Deref<Target = M> + '_ {
        let mut made = self.made();
        if !made.contains(labels) {
            made.insert(labels.clone());
        }
        let series = self.family.get_or_create(labels);
        drop(made);
        series
    }

    /// Drops the series `keep` says no to.
    pub fn retain(&self, keep: impl Fn(&Labels) -> bool) {
        let mut made = self.made();
        made.retain(|labels| {
            let kept = keep(labels);
            if !kept {
                self.family.remove(labels);
            }
            kept
        });
    }
}

/// The value of label `name`, "" without it.
pub fn value<'a>(labels: &'a Labels, name: &str) -> &'a str {
    labels
        .iter()
        .find(|(k, _)| *k == name)
        .map_or("", |(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;

    #[test]
    fn tracked_drops_by_label() {
        let c: Tracked<Counter> = Tracked::default();
        c.get_or_create(&labels(&[("q", "a"), ("p", "x")])).inc();
        c.get_or_create(&labels(&[("q", "a"), ("p", "y")])).inc();
        c.get_or_create(&labels(&[("q", "b"), ("p", "x")])).inc();
        c.retain(|l| value(l, "q") != "a");
        assert!(c.family().get(&labels(&[("q", "a"), ("p", "x")])).is_none());
        assert!(c.family().get(&labels(&[("q", "a"), ("p", "y")])).is_none());
        assert!(c.family().get(&labels(&[("q", "b"), ("p", "x")])).is_some());
        // Made again: from zero.
        c.get_or_create(&labels(&[("q", "a"), ("p", "x")])).inc();
        let again = c.family();
        assert_eq!(
            again.get(&labels(&[("q", "a"), ("p", "x")])).unwrap().get(),
            1
        );
    }

    #[test]
    fn replace_drops_what_is_no_longer_named() {
        let g = StateGauge::default();
        g.replace([(labels(&[("q", "a")]), 1.0), (labels(&[("q", "b")]), 2.0)]);
        g.set(labels(&[("q", "c")]), 3.0);
        g.retain(|l| l[0].1 != "a");
        assert!(g.family().get(&labels(&[("q", "a")])).is_none());
        assert!(g.family().get(&labels(&[("q", "c")])).is_some());
        g.replace([(labels(&[("q", "b")]), 4.0)]);
        assert!(g.family().get(&labels(&[("q", "c")])).is_none());
        assert_eq!(g.family().get(&labels(&[("q", "b")])).unwrap().get(), 4.0);
    }
}
