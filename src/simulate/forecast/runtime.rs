//! Expected runtimes and where they come from.
//!
//! Invariants: a runtime always carries its source; a limit (a time after which the
//! workload is stopped) is an upper bound, and when it is the only thing known the expected
//! runtime is the limit (the forecast then says "at the latest"); `Unknown` has neither.

use serde::Serialize;

use crate::scheduler::model::Millis;

/// Where a runtime comes from, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RuntimeSource {
    /// The Workload's `spec.maximumExecutionTimeSeconds`.
    MaximumExecutionTime,
    /// The Job's label `kueue.x-k8s.io/max-exec-time-seconds`.
    MaxExecTimeLabel,
    /// The Job's `spec.activeDeadlineSeconds`.
    ActiveDeadline,
    /// Finished Workloads of the same LocalQueue (and similar size): the median of
    /// `Admitted` to `Finished`, with the p90 and the sample count.
    #[serde(rename_all = "camelCase")]
    History {
        local_queue: String,
        samples: usize,
        median_ms: Millis,
        p90_ms: Millis,
        similar_size: bool,
    },
    /// Nothing known: the forecast assumes it runs past the horizon.
    Unknown,
}

/// One workload's runtime as the forecast uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Runtime {
    /// Expected time from admission to finish.
    pub expected_ms: Option<Millis>,
    /// The most it may run before it is stopped.
    pub limit_ms: Option<Millis>,
    /// Where `expected_ms` comes from.
    pub source: RuntimeSource,
    /// Where `limit_ms` comes from, when it is not `source` itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_source: Option<RuntimeSource>,
}

impl Runtime {
    pub fn unknown() -> Self {
        Self {
            expected_ms: None,
            limit_ms: None,
            source: RuntimeSource::Unknown,
            limit_source: None,
        }
    }

    /// A limit only: expected to use all of it.
    pub fn limit(source: RuntimeSource, limit_ms: Millis) -> Self {
        Self {
            expected_ms: Some(limit_ms),
            limit_ms: Some(limit_ms),
            source,
            limit_source: None,
        }
    }

    /// A typical runtime (from history), with a limit and its source if one is known too;
    /// never expected past its limit.
    pub fn typical(
        expected_ms: Millis,
        limit: Option<(Millis, RuntimeSource)>,
        source: RuntimeSource,
    ) -> Self {
        let (limit_ms, limit_source) = limit.unzip();
        Self {
            expected_ms: Some(limit_ms.map_or(expected_ms, |l| expected_ms.min(l))),
            limit_ms,
            source,
            limit_source,
        }
    }
}
