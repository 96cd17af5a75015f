//! Histogram buckets, as upstream Kueue v0.19 gives them: its `generateExponentialBuckets`
//! (1, then 2.5 doubling), the Go client's `DefBuckets` where upstream gives none, and the
//! Go client's `ExponentialBuckets(start, factor, count)`.
//!
//! Invariants: the bounds are upstream's, exactly (the `+Inf` bucket is the encoder's).

use prometheus_client::metrics::family::MetricConstructor;
use prometheus_client::metrics::histogram::Histogram;

/// Upstream's `generateExponentialBuckets(count)`: 1, then 2.5 doubling.
pub fn exponential_buckets(count: usize) -> Vec<f64> {
    let mut out = vec![1.0];
    out.extend(go_exponential(2.5, 2.0, count.saturating_sub(1)));
    out
}

/// The Go client's `ExponentialBuckets(start, factor, count)`.
fn go_exponential(start: f64, factor: f64, count: usize) -> Vec<f64> {
    std::iter::successors(Some(start), |v| Some(v * factor))
        .take(count)
        .collect()
}

/// The Go client's `prometheus.DefBuckets`, for histograms upstream gives no buckets.
pub const DEFAULT_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How a histogram family's members are built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buckets {
    /// [`exponential_buckets`]`(n)`.
    Kueue(usize),
    /// [`DEFAULT_BUCKETS`].
    GoDefault,
    /// The Go client's `ExponentialBuckets(start, factor, count)`.
    Exponential {
        start: f64,
        factor: f64,
        count: usize,
    },
}

impl Buckets {
    /// The finite upper bounds.
    pub fn bounds(self) -> Vec<f64> {
        match self {
            Buckets::Kueue(n) => exponential_buckets(n),
            Buckets::GoDefault => DEFAULT_BUCKETS.to_vec(),
            Buckets::Exponential {
                start,
                factor,
                count,
            } => go_exponential(start, factor, count),
        }
    }
}

impl MetricConstructor<Histogram> for Buckets {
    fn new_metric(&self) -> Histogram {
        Histogram::new(self.bounds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_upstream() {
        assert_eq!(exponential_buckets(4), vec![1.0, 2.5, 5.0, 10.0]);
        assert_eq!(exponential_buckets(16).len(), 16);
        assert_eq!(
            *exponential_buckets(14).last().unwrap(),
            2.5 * 2f64.powi(12)
        );
        let creation = Buckets::Exponential {
            start: 0.01,
            factor: 2.0,
            count: 11,
        }
        .bounds();
        assert_eq!(creation.len(), 11);
        assert_eq!((creation[0], creation[10]), (0.01, 10.24));
        assert_eq!(Buckets::GoDefault.bounds().len(), 11);
    }
}
