//! The controller's Prometheus metrics, with upstream Kueue v0.19's names, label names, help
//! texts and histogram buckets (`pkg/metrics/metrics.go`), served as Prometheus text on
//! `/metrics`.
//!
//! Two kinds of series:
//! - events (counters, histograms) are recorded when the thing happens: an admission attempt,
//!   a quota reservation, an admission, an eviction, a preemption, pods becoming ready, an
//!   evicted workload's quota released, a Workload created for a Job (`events`); those of a
//!   queue or cohort go when the model reports it gone (`gone`);
//! - state (gauges) is replaced from the engine's figures after each change
//!   ([`Metrics::set_queue_state`] and its siblings in `state`), which also drops series
//!   of queues and cohorts that are gone.
//!
//! The controller's model says what to record as [`MetricUpdate`]s (data, [`updates`]); only
//! the loop holds the registry and applies them with [`Metrics::record`].
//!
//! Every series carries `replica_role` (`leader`, `follower` or `standalone`) as upstream has
//! since v0.16. CPU is reported in cores, other resources in base units, unlimited as `+Inf`.
//!
//! What is registered follows upstream's switches ([`Options`]): LocalQueue metrics
//! (`kueue_local_queue_*`, labels `name` and `namespace`; the model names a LocalQueue in an
//! update only when its labels match the selector), the ClusterQueue resource gauges
//! (`metrics.enableClusterQueueResources`), the `_info` gauges (`MetricsForCohorts`) and the
//! Workload creation latency (`MetricForWorkloadCreationLatency`). `kueue_build_info` is
//! always 1.
//!
//! Module map: [`updates`] (what the model sends), [`cluster_queue`], [`local_queue`] and
//! [`cohort`] (the families), [`series`] (state gauges, tracked families), `events`, `state`
//! and `gone` (applying updates), [`buckets`], [`help`] (upstream's texts), [`exposition`] (the text format).

pub mod buckets;
pub mod cluster_queue;
pub mod cohort;
mod events;
pub mod exposition;
mod gone;
pub mod help;
pub mod local_queue;
pub mod series;
mod snapshots;
mod state;
pub mod updates;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;

pub use buckets::{Buckets, DEFAULT_BUCKETS, exponential_buckets};
pub use updates::{
    CohortState, Hierarchy, LocalQueueRef, LocalQueueState, MetricUpdate, QueueState, ResourceState,
};

use cluster_queue::ClusterQueueFamilies;
use cohort::CohortFamilies;
use local_queue::LocalQueueFamilies;
use series::{Labels, labels};

/// Role of this replica in the `replica_role` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
    Standalone,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
            Role::Standalone => "standalone",
        }
    }
}

/// Which families upstream's configuration switches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `metrics.enableClusterQueueResources`: quota, usage, pending requests and weighted
    /// share per ClusterQueue (off by default).
    pub cluster_queue_resources: bool,
    /// LocalQueue metrics (on by default).
    pub local_queues: bool,
    /// The `MetricsForCohorts` gate: `kueue_cohort_info` and `kueue_cluster_queue_info` (on
    /// by default).
    pub cohorts: bool,
    /// The `MetricForWorkloadCreationLatency` gate (on by default).
    pub workload_creation_latency: bool,
}

/// The registry and every family the controller reports.
pub struct Metrics {
    registry: Registry,
    role: AtomicU64,
    options: Options,
    pub cq: ClusterQueueFamilies,
    pub lq: LocalQueueFamilies,
    pub cohort: CohortFamilies,
    /// What each queue's and cohort's state gauges were last set from.
    items: ItemMemos,
}

/// See [`snapshots`].
#[derive(Default)]
struct ItemMemos {
    cluster_queues: snapshots::ItemGauges<QueueState>,
    local_queues: snapshots::ItemGauges<LocalQueueState>,
    cohorts: snapshots::ItemGauges<CohortState>,
}

impl Metrics {
    /// With upstream's gates at their defaults.
    pub fn new(role: Role, resources_enabled: bool, local_queues_enabled: bool) -> Metrics {
        Metrics::with_options(
            role,
            Options {
                cluster_queue_resources: resources_enabled,
                local_queues: local_queues_enabled,
                cohorts: true,
                workload_creation_latency: true,
            },
        )
    }

    pub fn with_options(role: Role, options: Options) -> Metrics {
        let mut registry = Registry::with_prefix("kueue");
        let m = Metrics {
            role: AtomicU64::new(role as u64),
            options,
            cq: ClusterQueueFamilies::default(),
            lq: LocalQueueFamilies::default(),
            cohort: CohortFamilies::default(),
            items: ItemMemos::default(),
            registry: Registry::default(),
        };
        m.cq.register(&mut registry, &options);
        m.cohort.register(&mut registry, &options);
        if options.local_queues {
            m.lq.register(&mut registry);
        }
        m.cq.build_info.get_or_create(&build_labels()).set(1.0);
        Metrics { registry, ..m }
    }

    pub fn options(&self) -> Options {
        self.options
    }

    pub fn set_role(&self, role: Role) {
        self.role.store(role as u64, Ordering::Relaxed);
    }

    pub fn role(&self) -> Role {
        match self.role.load(Ordering::Relaxed) {
            0 => Role::Leader,
            1 => Role::Follower,
            _ => Role::Standalone,
        }
    }

    fn role_label(&self) -> (&'static str, String) {
        ("replica_role", self.role().as_str().to_string())
    }

    /// `pairs`, then `replica_role`.
    fn with_role(&self, pairs: &[(&'static str, &str)]) -> Labels {
        let mut v = series::pairs(pairs);
        v.push(self.role_label());
        v.into()
    }

    /// A LocalQueue's `name` and `namespace`, then `rest`, then `replica_role`.
    fn lq_labels(&self, lq: &LocalQueueRef, rest: &[(&'static str, &str)]) -> Labels {
        let mut v = series::pairs(&[("name", &lq.name), ("namespace", &lq.namespace)]);
        v.extend(series::pairs(rest));
        v.push(self.role_label());
        v.into()
    }

    /// The LocalQueue named in an update, when LocalQueue metrics are on.
    fn exposed<'a>(&self, lq: &'a Option<LocalQueueRef>) -> Option<&'a LocalQueueRef> {
        lq.as_ref().filter(|_| self.options.local_queues)
    }

    /// The Prometheus text (format 0.0.4) of every series.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = encode(&mut out, &self.registry);
        exposition::to_prometheus_text(&out)
    }

    /// Applies one [`MetricUpdate`].
    pub fn record(&self, update: &MetricUpdate) {
        match update {
            MetricUpdate::AdmissionAttempt { admitted, seconds } => {
                self.admission_attempt(*admitted, *seconds)
            }
            MetricUpdate::Admitted {
                cluster_queue,
                priority_class,
                wait_seconds,
                local_queue,
                cohorts,
            } => self.admitted(
                cluster_queue,
                priority_class,
                *wait_seconds,
                self.exposed(local_queue),
                cohorts,
            ),
            MetricUpdate::Evicted {
                cluster_queue,
                reason,
                underlying_cause,
                priority_class,
                first,
                local_queue,
                pods_ready_seconds,
            } => self.evicted(
                &events::Eviction {
                    cluster_queue,
                    reason,
                    underlying_cause,
                    priority_class,
                    first: *first,
                    pods_ready_seconds: *pods_ready_seconds,
                },
                self.exposed(local_queue),
            ),
            MetricUpdate::Preempted {
                preempting_cluster_queue,
                reason,
            } => self.preempted(preempting_cluster_queue, reason),
            MetricUpdate::Finished {
                cluster_queue,
                priority_class,
                local_queue,
            } => self.finished(cluster_queue, priority_class, self.exposed(local_queue)),
            MetricUpdate::PreemptionSkips(skips) => self.preemption_skips(skips),
            MetricUpdate::PodsReady {
                cluster_queue,
                priority_class,
                queued_seconds,
                admitted_seconds,
                local_queue,
            } => self.pods_ready(
                cluster_queue,
                priority_class,
                (*queued_seconds, *admitted_seconds),
                self.exposed(local_queue),
            ),
            MetricUpdate::EvictionReleased {
                cluster_queue,
                reason,
                seconds,
            } => self.eviction_released(cluster_queue, reason, *seconds),
            MetricUpdate::WorkloadCreated { job_kind, seconds } => {
                self.workload_created(job_kind, *seconds)
            }
            MetricUpdate::QueueState(queues) => self.set_queue_state(queues),
            MetricUpdate::LocalQueueState(queues) => self.set_local_queue_state(queues),
            MetricUpdate::CohortState(cohorts) => self.set_cohort_state(cohorts),
            MetricUpdate::ClusterQueueGone { cluster_queue } => {
                self.cluster_queue_gone(cluster_queue)
            }
            MetricUpdate::LocalQueueGone(lq) => self.local_queue_gone(lq),
            MetricUpdate::CohortGone { cohort } => self.cohort_gone(cohort),
        }
    }
}

/// `kueue_build_info`'s labels: upstream's names, this binary's values (`go_version` is
/// empty: no Go toolchain built it).
fn build_labels() -> Labels {
    labels(&[
        ("git_version", concat!("v", env!("CARGO_PKG_VERSION"))),
        ("git_commit", option_env!("KUEUE_GIT_COMMIT").unwrap_or("")),
        ("build_date", option_env!("KUEUE_BUILD_DATE").unwrap_or("")),
        ("go_version", ""),
        ("compiler", "rustc"),
        (
            "platform",
            &format!("{}/{}", std::env::consts::OS, go_arch()),
        ),
    ])
}

/// The architecture as Go names it (`GOARCH`).
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}
