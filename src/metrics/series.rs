//! Label sets, and gauges that hold a state: each update names every series the family
//! should have, and the series set before but not named now go.
//!
//! Invariants: a [`StateGauge`] shows exactly the series of its last [`StateGauge::replace`]
//! plus those [`StateGauge::set`] since, minus those [`StateGauge::retain`] dropped (a
//! family cannot list its own series, so the label sets are remembered here).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

/// One series' labels, in upstream's order.
pub type Labels = Vec<(String, String)>;
/// A float gauge.
pub type GaugeF = Gauge<f64, AtomicU64>;

/// `pairs` as [`Labels`].
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

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
