//! The controller's Prometheus metrics, with upstream Kueue v0.19's names, label names and
//! histogram buckets (`pkg/metrics/metrics.go`), served as text on `/metrics`.
//!
//! Two kinds of series:
//! - events (counters, histograms) are recorded when the thing happens: an admission attempt,
//!   a quota reservation, an admission, an eviction, a preemption;
//! - state (gauges) is recomputed from the engine after each change by
//!   [`Metrics::set_queue_state`], which also drops series of queues that are gone.
//!
//! The controller's model says what to record as [`MetricUpdate`]s (data); only the loop
//! holds the registry and applies them with [`Metrics::record`].
//!
//! Every series carries `replica_role` (`leader`, `follower` or `standalone`) as upstream has
//! since v0.16. CPU is reported in cores, other resources in base units, unlimited as `+Inf`.
//!
//! LocalQueue metrics (`kueue_local_queue_*`, labels `name` and `namespace`) are registered
//! only when enabled (upstream's `LocalQueueMetrics` gate and `metrics.localQueueMetrics`);
//! the model names a LocalQueue in an update only when its labels match the selector.
//! `kueue_build_info` is always 1.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::{Family, MetricConstructor};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;
type GaugeF = Gauge<f64, AtomicU64>;

/// Upstream's `generateExponentialBuckets(count)`: 1, then 2.5 doubling.
pub fn exponential_buckets(count: usize) -> Vec<f64> {
    let mut out = vec![1.0];
    let mut v = 2.5;
    for _ in 1..count {
        out.push(v);
        v *= 2.0;
    }
    out
}

/// The Go client's `prometheus.DefBuckets`, for histograms upstream gives no buckets.
pub const DEFAULT_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Builds histograms with [`exponential_buckets`]`(n)`, or [`DEFAULT_BUCKETS`] for `0`.
#[derive(Clone)]
pub struct Buckets(pub usize);

impl MetricConstructor<Histogram> for Buckets {
    fn new_metric(&self) -> Histogram {
        if self.0 == 0 {
            return Histogram::new(DEFAULT_BUCKETS);
        }
        Histogram::new(exponential_buckets(self.0))
    }
}

/// A LocalQueue whose metrics are exposed, as upstream's `name` and `namespace` labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct LocalQueueRef {
    pub namespace: String,
    pub name: String,
}

/// A LocalQueue's state for the `kueue_local_queue_*` gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalQueueState {
    pub queue: LocalQueueRef,
    pub pending_active: i64,
    pub pending_inadmissible: i64,
    pub reserving: i64,
    pub admitted: i64,
    /// The `Active` condition's status: `True`, `False` or `Unknown`.
    pub active: String,
    /// Per flavor and resource of its ClusterQueue: (flavor, resource, reserved, admitted
    /// usage), in reporting units.
    pub resources: Vec<(String, String, f64, f64)>,
}

/// A ClusterQueue's state, as the engine reports it, for the gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueState {
    pub cluster_queue: String,
    /// Direct parent cohort, "" without one.
    pub cohort: String,
    pub active: bool,
    /// Being deleted (reported as `terminating`, whatever else holds).
    pub terminating: bool,
    pub pending_active: i64,
    pub pending_inadmissible: i64,
    pub reserving: i64,
    pub admitted: i64,
    /// (flavor, resource, nominal, borrowing limit, lending limit, reserved, admitted usage),
    /// already in reporting units.
    pub resources: Vec<ResourceState>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceState {
    pub flavor: String,
    pub resource: String,
    pub nominal: f64,
    pub borrowing_limit: f64,
    pub lending_limit: f64,
    pub reservation: f64,
    pub usage: f64,
}

/// One change to record, as data: the controller's model decides these and the loop applies
/// them to the registry ([`Metrics::record`]).
#[derive(Debug, Clone, PartialEq)]
pub enum MetricUpdate {
    /// One scheduling cycle: `admitted` when anything was admitted.
    AdmissionAttempt { admitted: bool, seconds: f64 },
    /// Quota reserved and admitted after waiting `wait_seconds` since queued.
    Admitted {
        cluster_queue: String,
        priority_class: String,
        wait_seconds: f64,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
    },
    /// Evicted from `cluster_queue` for `reason`; `first` for the workload's first eviction
    /// for this reason.
    Evicted {
        cluster_queue: String,
        reason: String,
        /// Upstream's `underlying_cause` (a deactivation's cause, e.g.
        /// `MaximumExecutionTimeExceeded`), "" without one.
        underlying_cause: String,
        priority_class: String,
        first: bool,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
    },
    /// A preemption issued by `preempting_cluster_queue`.
    Preempted {
        preempting_cluster_queue: String,
        reason: String,
    },
    Finished {
        cluster_queue: String,
        priority_class: String,
        /// Its LocalQueue, when that one's metrics are exposed.
        local_queue: Option<LocalQueueRef>,
    },
    /// Every ClusterQueue's state, replacing the gauges.
    QueueState(Vec<QueueState>),
    /// Every exposed LocalQueue's state, replacing the `kueue_local_queue_*` gauges.
    LocalQueueState(Vec<LocalQueueState>),
}

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

/// The registry and every family the controller reports.
pub struct Metrics {
    registry: Registry,
    role: AtomicU64,
    last_state: std::sync::Mutex<[BTreeSet<Labels>; 9]>,
    last_lq_state: std::sync::Mutex<[BTreeSet<Labels>; 6]>,
    pub admission_attempts: Family<Labels, Counter>,
    pub admission_attempt_duration: Family<Labels, Histogram, Buckets>,
    pub pending_workloads: Family<Labels, GaugeF>,
    pub reserving_active_workloads: Family<Labels, GaugeF>,
    pub admitted_active_workloads: Family<Labels, GaugeF>,
    pub cluster_queue_status: Family<Labels, GaugeF>,
    pub quota_reserved_workloads: Family<Labels, Counter>,
    pub quota_reserved_wait_time: Family<Labels, Histogram, Buckets>,
    pub admitted_workloads: Family<Labels, Counter>,
    pub admission_wait_time: Family<Labels, Histogram, Buckets>,
    pub evicted_workloads: Family<Labels, Counter>,
    pub evicted_workloads_once: Family<Labels, Counter>,
    pub preempted_workloads: Family<Labels, Counter>,
    pub finished_workloads: Family<Labels, Counter>,
    pub nominal_quota: Family<Labels, GaugeF>,
    pub borrowing_limit: Family<Labels, GaugeF>,
    pub lending_limit: Family<Labels, GaugeF>,
    pub resource_reservation: Family<Labels, GaugeF>,
    pub resource_usage: Family<Labels, GaugeF>,
    pub admission_checks_wait_time: Family<Labels, Histogram, Buckets>,
    pub build_info: Family<Labels, GaugeF>,
    pub lq: LocalQueueFamilies,
    /// Whether LocalQueue metrics are registered and recorded.
    pub local_queues_enabled: bool,
    /// Whether resource gauges (quota, usage) are reported (`metrics.enableClusterQueueResources`).
    pub resources_enabled: bool,
}

/// The `kueue_local_queue_*` families.
pub struct LocalQueueFamilies {
    pub pending_workloads: Family<Labels, GaugeF>,
    pub reserving_active_workloads: Family<Labels, GaugeF>,
    pub admitted_active_workloads: Family<Labels, GaugeF>,
    pub status: Family<Labels, GaugeF>,
    pub resource_reservation: Family<Labels, GaugeF>,
    pub resource_usage: Family<Labels, GaugeF>,
    pub quota_reserved_workloads: Family<Labels, Counter>,
    pub quota_reserved_wait_time: Family<Labels, Histogram, Buckets>,
    pub admitted_workloads: Family<Labels, Counter>,
    pub admission_wait_time: Family<Labels, Histogram, Buckets>,
    pub admission_checks_wait_time: Family<Labels, Histogram, Buckets>,
    pub evicted_workloads: Family<Labels, Counter>,
    pub finished_workloads: Family<Labels, Counter>,
}

impl LocalQueueFamilies {
    fn new() -> LocalQueueFamilies {
        LocalQueueFamilies {
            pending_workloads: Family::default(),
            reserving_active_workloads: Family::default(),
            admitted_active_workloads: Family::default(),
            status: Family::default(),
            resource_reservation: Family::default(),
            resource_usage: Family::default(),
            quota_reserved_workloads: Family::default(),
            quota_reserved_wait_time: Family::new_with_constructor(Buckets(14)),
            admitted_workloads: Family::default(),
            admission_wait_time: Family::new_with_constructor(Buckets(14)),
            admission_checks_wait_time: Family::new_with_constructor(Buckets(14)),
            evicted_workloads: Family::default(),
            finished_workloads: Family::default(),
        }
    }

    fn register(&self, r: &mut Registry) {
        r.register(
            "local_queue_pending_workloads",
            "The number of pending workloads, per 'local_queue' and 'status'. 'status' can have the following values: 'active' means that the workloads are in the admission queue. 'inadmissible' means there was a failed admission attempt for these workloads and they won't be retried until cluster conditions, which could make this workload admissible, change",
            self.pending_workloads.clone(),
        );
        r.register(
            "local_queue_reserving_active_workloads",
            "The number of Workloads that are reserving quota, per 'localQueue'",
            self.reserving_active_workloads.clone(),
        );
        r.register(
            "local_queue_admitted_active_workloads",
            "The number of admitted Workloads that are active, per 'localQueue'",
            self.admitted_active_workloads.clone(),
        );
        r.register(
            "local_queue_status",
            "Reports 'localQueue' with its 'active' status (with possible values 'True', 'False', or 'Unknown'). For a LocalQueue, the metric only reports a value of 1 for one of the statuses.",
            self.status.clone(),
        );
        r.register(
            "local_queue_resource_reservation",
            "Reports the localQueue's total resource reservation within all the flavors",
            self.resource_reservation.clone(),
        );
        r.register(
            "local_queue_resource_usage",
            "Reports the localQueue's total resource usage within all the flavors",
            self.resource_usage.clone(),
        );
        r.register(
            "local_queue_quota_reserved_workloads",
            "The total number of quota reserved workloads per 'local_queue'",
            self.quota_reserved_workloads.clone(),
        );
        r.register(
            "local_queue_quota_reserved_wait_time_seconds",
            "The time between a workload was created or requeued until it got quota reservation, per 'local_queue'",
            self.quota_reserved_wait_time.clone(),
        );
        r.register(
            "local_queue_admitted_workloads",
            "The total number of admitted workloads per 'local_queue'",
            self.admitted_workloads.clone(),
        );
        r.register(
            "local_queue_admission_wait_time_seconds",
            "The time between a workload was created or requeued until admission, per 'local_queue'",
            self.admission_wait_time.clone(),
        );
        r.register(
            "local_queue_admission_checks_wait_time_seconds",
            "The time from when a workload got the quota reservation until admission, per 'local_queue'",
            self.admission_checks_wait_time.clone(),
        );
        r.register(
            "local_queue_evicted_workloads",
            "The number of evicted workloads per 'local_queue', The label 'reason' can have the following values: 'Preempted' means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota. 'PodsReadyTimeout' means that the eviction took place due to a PodsReady timeout. 'AdmissionCheck' means that the workload was evicted because at least one admission check transitioned to False. 'ClusterQueueStopped' means that the workload was evicted because the ClusterQueue is stopped. 'LocalQueueStopped' means that the workload was evicted because the LocalQueue is stopped. 'Deactivated' means that the workload was evicted because spec.active is set to false.",
            self.evicted_workloads.clone(),
        );
        r.register(
            "local_queue_finished_workloads",
            "The total number of finished workloads per 'local_queue'",
            self.finished_workloads.clone(),
        );
    }
}

fn l(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `kueue_build_info`'s labels: upstream's names, this binary's values (`go_version` is
/// empty: no Go toolchain built it).
fn build_labels() -> Labels {
    l(&[
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

impl Metrics {
    pub fn new(role: Role, resources_enabled: bool, local_queues_enabled: bool) -> Metrics {
        let mut registry = Registry::with_prefix("kueue");
        let m = Metrics {
            role: AtomicU64::new(role as u64),
            last_state: Default::default(),
            last_lq_state: Default::default(),
            admission_attempts: Family::default(),
            admission_attempt_duration: Family::new_with_constructor(Buckets(0)),
            pending_workloads: Family::default(),
            reserving_active_workloads: Family::default(),
            admitted_active_workloads: Family::default(),
            cluster_queue_status: Family::default(),
            quota_reserved_workloads: Family::default(),
            quota_reserved_wait_time: Family::new_with_constructor(Buckets(14)),
            admitted_workloads: Family::default(),
            admission_wait_time: Family::new_with_constructor(Buckets(16)),
            evicted_workloads: Family::default(),
            evicted_workloads_once: Family::default(),
            preempted_workloads: Family::default(),
            finished_workloads: Family::default(),
            nominal_quota: Family::default(),
            borrowing_limit: Family::default(),
            lending_limit: Family::default(),
            resource_reservation: Family::default(),
            resource_usage: Family::default(),
            admission_checks_wait_time: Family::new_with_constructor(Buckets(14)),
            build_info: Family::default(),
            lq: LocalQueueFamilies::new(),
            local_queues_enabled,
            resources_enabled,
            registry: Registry::default(),
        };
        // Counters get `_total` appended by the encoder.
        registry.register(
            "build_info",
            "Kueue build information. 1 labeled by git version, git commit, build date, go version, compiler, platform",
            m.build_info.clone(),
        );
        m.build_info.get_or_create(&build_labels()).set(1.0);
        registry.register(
            "admission_attempts",
            "Total number of attempts to admit workloads. Each admission attempt might try to admit more than one workload. The label 'result' can have the following values: 'success' means that at least one workload was admitted, 'inadmissible' means that no workload was admitted.",
            m.admission_attempts.clone(),
        );
        registry.register(
            "admission_attempt_duration_seconds",
            "The latency of an admission attempt. The label 'result' can have the following values: 'success' means that at least one workload was admitted, 'inadmissible' means that no workload was admitted.",
            m.admission_attempt_duration.clone(),
        );
        registry.register(
            "pending_workloads",
            "The number of pending workloads, per 'cluster_queue' and 'status'. 'status' can have the following values: 'active' means that the workloads are in the admission queue. 'inadmissible' means there was a failed admission attempt for these workloads and they won't be retried until cluster conditions, which could make this workload admissible, change",
            m.pending_workloads.clone(),
        );
        registry.register(
            "reserving_active_workloads",
            "The number of Workloads that are reserving quota, per 'cluster_queue'",
            m.reserving_active_workloads.clone(),
        );
        registry.register(
            "admitted_active_workloads",
            "The number of admitted Workloads that are active (unsuspended and not finished), per 'cluster_queue'",
            m.admitted_active_workloads.clone(),
        );
        registry.register(
            "cluster_queue_status",
            "Reports 'cluster_queue' with its 'status' (with possible values 'pending', 'active' or 'terminated'). For a ClusterQueue, the metric only reports a value of 1 for one of the statuses.",
            m.cluster_queue_status.clone(),
        );
        registry.register(
            "quota_reserved_workloads",
            "The total number of quota reserved workloads per 'cluster_queue'",
            m.quota_reserved_workloads.clone(),
        );
        registry.register(
            "quota_reserved_wait_time_seconds",
            "The time between a workload was created or requeued until it got quota reservation, per 'cluster_queue'",
            m.quota_reserved_wait_time.clone(),
        );
        registry.register(
            "admitted_workloads",
            "The total number of admitted workloads per 'cluster_queue'",
            m.admitted_workloads.clone(),
        );
        registry.register(
            "admission_wait_time_seconds",
            "The time between a workload was created or requeued until admission, per 'cluster_queue'",
            m.admission_wait_time.clone(),
        );
        registry.register(
            "admission_checks_wait_time_seconds",
            "The time from when a workload got the quota reservation until admission, per 'cluster_queue'",
            m.admission_checks_wait_time.clone(),
        );
        registry.register(
            "evicted_workloads",
            "The number of evicted workloads per 'cluster_queue', The label 'reason' can have the following values: 'Preempted' means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota. 'PodsReadyTimeout' means that the eviction took place due to a PodsReady timeout. 'AdmissionCheck' means that the workload was evicted because at least one admission check transitioned to False. 'ClusterQueueStopped' means that the ClusterQueue is stopped. 'LocalQueueStopped' means that the LocalQueue is stopped. 'Deactivated' means that the workload was evicted because spec.active is set to false.",
            m.evicted_workloads.clone(),
        );
        registry.register(
            "evicted_workloads_once",
            "The number of unique workload evictions per 'cluster_queue'",
            m.evicted_workloads_once.clone(),
        );
        registry.register(
            "preempted_workloads",
            "The number of preempted workloads per 'preempting_cluster_queue', The label 'reason' can have the following values: 'InClusterQueue' means that the workload was preempted by a workload in the same ClusterQueue. 'InCohortReclamation' means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota. 'InCohortFairSharing' means that the workload was preempted by a workload in the same cohort due to fair sharing. 'InCohortReclaimWhileBorrowing' means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota while borrowing.",
            m.preempted_workloads.clone(),
        );
        registry.register(
            "finished_workloads",
            "The total number of finished workloads per 'cluster_queue'",
            m.finished_workloads.clone(),
        );
        registry.register(
            "cluster_queue_nominal_quota",
            "Reports the cluster_queue's resource nominal quota within all the flavors",
            m.nominal_quota.clone(),
        );
        registry.register(
            "cluster_queue_borrowing_limit",
            "Reports the cluster_queue's resource borrowing limit within all the flavors",
            m.borrowing_limit.clone(),
        );
        registry.register(
            "cluster_queue_lending_limit",
            "Reports the cluster_queue's resource lending limit within all the flavors",
            m.lending_limit.clone(),
        );
        registry.register(
            "cluster_queue_resource_reservation",
            "Reports the cluster_queue's total resource reservation within all the flavors",
            m.resource_reservation.clone(),
        );
        registry.register(
            "cluster_queue_resource_usage",
            "Reports the cluster_queue's total admitted resource usage within all the flavors",
            m.resource_usage.clone(),
        );
        if local_queues_enabled {
            m.lq.register(&mut registry);
        }
        Metrics { registry, ..m }
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

    fn role_label(&self) -> (String, String) {
        ("replica_role".to_string(), self.role().as_str().to_string())
    }

    fn with_role(&self, pairs: &[(&str, &str)]) -> Labels {
        let mut v = l(pairs);
        v.push(self.role_label());
        v
    }

    /// The Prometheus text exposition of every series.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = encode(&mut out, &self.registry);
        out
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
            } => {
                self.admitted(cluster_queue, priority_class, *wait_seconds);
                if let Some(lq) = self.exposed(local_queue) {
                    self.lq_admitted(lq, priority_class, *wait_seconds);
                }
            }
            MetricUpdate::Evicted {
                cluster_queue,
                reason,
                underlying_cause,
                priority_class,
                first,
                local_queue,
            } => {
                self.evicted(
                    cluster_queue,
                    reason,
                    underlying_cause,
                    priority_class,
                    *first,
                );
                if let Some(lq) = self.exposed(local_queue) {
                    let labels = self.lq_labels(
                        lq,
                        &[
                            ("reason", reason),
                            ("underlying_cause", underlying_cause),
                            ("priority_class", priority_class),
                        ],
                    );
                    self.lq.evicted_workloads.get_or_create(&labels).inc();
                }
            }
            MetricUpdate::Preempted {
                preempting_cluster_queue,
                reason,
            } => self.preempted(preempting_cluster_queue, reason),
            MetricUpdate::Finished {
                cluster_queue,
                priority_class,
                local_queue,
            } => {
                self.finished(cluster_queue, priority_class);
                if let Some(lq) = self.exposed(local_queue) {
                    let labels = self.lq_labels(lq, &[("priority_class", priority_class)]);
                    self.lq.finished_workloads.get_or_create(&labels).inc();
                }
            }
            MetricUpdate::QueueState(queues) => self.set_queue_state(queues),
            MetricUpdate::LocalQueueState(queues) => self.set_local_queue_state(queues),
        }
    }

    fn exposed<'a>(&self, lq: &'a Option<LocalQueueRef>) -> Option<&'a LocalQueueRef> {
        lq.as_ref().filter(|_| self.local_queues_enabled)
    }

    fn lq_labels(&self, lq: &LocalQueueRef, rest: &[(&str, &str)]) -> Labels {
        let mut v = l(&[("name", &lq.name), ("namespace", &lq.namespace)]);
        v.extend(l(rest));
        v.push(self.role_label());
        v
    }

    /// One scheduling cycle: `success` when anything was admitted.
    pub fn admission_attempt(&self, admitted: bool, seconds: f64) {
        let result = if admitted { "success" } else { "inadmissible" };
        let labels = self.with_role(&[("result", result)]);
        self.admission_attempts.get_or_create(&labels).inc();
        self.admission_attempt_duration
            .get_or_create(&labels)
            .observe(seconds);
    }

    /// A workload reserved quota and, without admission checks, was admitted at once after
    /// waiting `wait_seconds` since it was queued (the admission-checks wait is 0, as
    /// upstream's scheduler records it then).
    pub fn admitted(&self, cluster_queue: &str, priority_class: &str, wait_seconds: f64) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("priority_class", priority_class),
        ]);
        self.quota_reserved_workloads.get_or_create(&labels).inc();
        self.quota_reserved_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        self.admitted_workloads.get_or_create(&labels).inc();
        self.admission_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        self.admission_checks_wait_time
            .get_or_create(&labels)
            .observe(0.0);
    }

    fn lq_admitted(&self, lq: &LocalQueueRef, priority_class: &str, wait_seconds: f64) {
        let labels = self.lq_labels(lq, &[("priority_class", priority_class)]);
        let f = &self.lq;
        f.quota_reserved_workloads.get_or_create(&labels).inc();
        f.quota_reserved_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admitted_workloads.get_or_create(&labels).inc();
        f.admission_wait_time
            .get_or_create(&labels)
            .observe(wait_seconds);
        f.admission_checks_wait_time
            .get_or_create(&labels)
            .observe(0.0);
    }

    /// A workload was evicted from `cluster_queue` (reason `Preempted`, ...); `first` when it
    /// is the workload's first eviction for this reason.
    pub fn evicted(
        &self,
        cluster_queue: &str,
        reason: &str,
        underlying_cause: &str,
        priority_class: &str,
        first: bool,
    ) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("reason", reason),
            ("underlying_cause", underlying_cause),
            ("priority_class", priority_class),
        ]);
        self.evicted_workloads.get_or_create(&labels).inc();
        if first {
            self.evicted_workloads_once.get_or_create(&labels).inc();
        }
    }

    pub fn preempted(&self, preempting_cluster_queue: &str, reason: &str) {
        let labels = self.with_role(&[
            ("preempting_cluster_queue", preempting_cluster_queue),
            ("reason", reason),
        ]);
        self.preempted_workloads.get_or_create(&labels).inc();
    }

    pub fn finished(&self, cluster_queue: &str, priority_class: &str) {
        let labels = self.with_role(&[
            ("cluster_queue", cluster_queue),
            ("priority_class", priority_class),
        ]);
        self.finished_workloads.get_or_create(&labels).inc();
    }

    /// Replaces every `kueue_local_queue_*` gauge with `queues` (series of queues not listed
    /// go). Nothing without LocalQueue metrics.
    pub fn set_local_queue_state(&self, queues: &[LocalQueueState]) {
        if !self.local_queues_enabled {
            return;
        }
        let f = &self.lq;
        let mut keep: [BTreeSet<Labels>; 6] = Default::default();
        let set = |family: &Family<Labels, GaugeF>,
                   keep: &mut BTreeSet<Labels>,
                   labels: Labels,
                   v: f64| {
            family.get_or_create(&labels).set(v);
            keep.insert(labels);
        };
        for q in queues {
            let lq = &q.queue;
            for (status, v) in [
                ("active", q.pending_active),
                ("inadmissible", q.pending_inadmissible),
            ] {
                set(
                    &f.pending_workloads,
                    &mut keep[0],
                    self.lq_labels(lq, &[("status", status)]),
                    v as f64,
                );
            }
            set(
                &f.reserving_active_workloads,
                &mut keep[1],
                self.lq_labels(lq, &[]),
                q.reserving as f64,
            );
            set(
                &f.admitted_active_workloads,
                &mut keep[2],
                self.lq_labels(lq, &[]),
                q.admitted as f64,
            );
            for status in ["True", "False", "Unknown"] {
                let v = if status == q.active { 1.0 } else { 0.0 };
                set(
                    &f.status,
                    &mut keep[3],
                    self.lq_labels(lq, &[("active", status)]),
                    v,
                );
            }
            for (flavor, resource, reserved, used) in &q.resources {
                let labels = self.lq_labels(lq, &[("flavor", flavor), ("resource", resource)]);
                set(
                    &f.resource_reservation,
                    &mut keep[4],
                    labels.clone(),
                    *reserved,
                );
                set(&f.resource_usage, &mut keep[5], labels, *used);
            }
        }
        let families = [
            &f.pending_workloads,
            &f.reserving_active_workloads,
            &f.admitted_active_workloads,
            &f.status,
            &f.resource_reservation,
            &f.resource_usage,
        ];
        let mut last = self.last_lq_state.lock().unwrap_or_else(|p| p.into_inner());
        for ((family, keep), previous) in families.iter().zip(keep.iter()).zip(last.iter()) {
            for labels in previous.difference(keep) {
                family.remove(labels);
            }
        }
        *last = keep;
    }

    /// Replaces every per-ClusterQueue gauge with `queues` (series of queues not listed go).
    pub fn set_queue_state(&self, queues: &[QueueState]) {
        let mut keep: [BTreeSet<Labels>; 9] = Default::default();
        let set = |family: &Family<Labels, GaugeF>,
                   keep: &mut BTreeSet<Labels>,
                   labels: Labels,
                   v: f64| {
            family.get_or_create(&labels).set(v);
            keep.insert(labels);
        };
        for q in queues {
            let cq = q.cluster_queue.as_str();
            set(
                &self.pending_workloads,
                &mut keep[0],
                self.with_role(&[("cluster_queue", cq), ("status", "active")]),
                q.pending_active as f64,
            );
            set(
                &self.pending_workloads,
                &mut keep[0],
                self.with_role(&[("cluster_queue", cq), ("status", "inadmissible")]),
                q.pending_inadmissible as f64,
            );
            set(
                &self.reserving_active_workloads,
                &mut keep[1],
                self.with_role(&[("cluster_queue", cq)]),
                q.reserving as f64,
            );
            set(
                &self.admitted_active_workloads,
                &mut keep[2],
                self.with_role(&[("cluster_queue", cq)]),
                q.admitted as f64,
            );
            for status in ["pending", "active", "terminating"] {
                let now = if q.terminating {
                    "terminating"
                } else if q.active {
                    "active"
                } else {
                    "pending"
                };
                let v = if status == now { 1.0 } else { 0.0 };
                set(
                    &self.cluster_queue_status,
                    &mut keep[3],
                    self.with_role(&[("cluster_queue", cq), ("status", status)]),
                    v,
                );
            }
            if !self.resources_enabled {
                continue;
            }
            for r in &q.resources {
                let labels = self.with_role(&[
                    ("cohort", q.cohort.as_str()),
                    ("cluster_queue", cq),
                    ("flavor", r.flavor.as_str()),
                    ("resource", r.resource.as_str()),
                ]);
                set(&self.nominal_quota, &mut keep[4], labels.clone(), r.nominal);
                set(
                    &self.borrowing_limit,
                    &mut keep[5],
                    labels.clone(),
                    r.borrowing_limit,
                );
                set(
                    &self.lending_limit,
                    &mut keep[6],
                    labels.clone(),
                    r.lending_limit,
                );
                set(
                    &self.resource_reservation,
                    &mut keep[7],
                    labels.clone(),
                    r.reservation,
                );
                set(&self.resource_usage, &mut keep[8], labels, r.usage);
            }
        }
        let families = [
            &self.pending_workloads,
            &self.reserving_active_workloads,
            &self.admitted_active_workloads,
            &self.cluster_queue_status,
            &self.nominal_quota,
            &self.borrowing_limit,
            &self.lending_limit,
            &self.resource_reservation,
            &self.resource_usage,
        ];
        // A family cannot list its series, so the label sets set last time are remembered.
        let mut last = self.last_state.lock().unwrap_or_else(|p| p.into_inner());
        for ((family, keep), previous) in families.iter().zip(keep.iter()).zip(last.iter()) {
            for labels in previous.difference(keep) {
                family.remove(labels);
            }
        }
        *last = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_upstream() {
        assert_eq!(exponential_buckets(4), vec![1.0, 2.5, 5.0, 10.0]);
        assert_eq!(exponential_buckets(16).len(), 16);
    }

    fn lq(name: &str) -> LocalQueueRef {
        LocalQueueRef {
            namespace: "ns".into(),
            name: name.into(),
        }
    }

    #[test]
    fn upstream_names_labels_and_buckets() {
        let m = Metrics::new(Role::Leader, false, true);
        m.record(&MetricUpdate::AdmissionAttempt {
            admitted: true,
            seconds: 0.02,
        });
        m.record(&MetricUpdate::Finished {
            cluster_queue: "cq".into(),
            priority_class: "high".into(),
            local_queue: Some(lq("a")),
        });
        m.record(&MetricUpdate::Evicted {
            cluster_queue: "cq".into(),
            reason: "Preempted".into(),
            underlying_cause: String::new(),
            priority_class: "low".into(),
            first: true,
            local_queue: Some(lq("a")),
        });
        let text = m.encode();
        for line in [
            // Upstream gives the attempt duration no buckets: the Go client's defaults.
            r#"kueue_admission_attempt_duration_seconds_bucket{le="0.005",result="success",replica_role="leader"} 0"#,
            r#"kueue_admission_attempt_duration_seconds_bucket{le="0.025",result="success",replica_role="leader"} 1"#,
            r#"kueue_finished_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 1"#,
            r#"kueue_local_queue_finished_workloads_total{name="a",namespace="ns",priority_class="high",replica_role="leader"} 1"#,
            r#"kueue_local_queue_evicted_workloads_total{name="a",namespace="ns",reason="Preempted",underlying_cause="",priority_class="low",replica_role="leader"} 1"#,
            "# TYPE kueue_build_info gauge",
            r#"compiler="rustc""#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        assert!(text.contains(&format!("git_version=\"v{}\"", env!("CARGO_PKG_VERSION"))));
    }

    #[test]
    fn local_queue_families_exist_only_when_enabled() {
        let off = Metrics::new(Role::Standalone, false, false);
        off.record(&MetricUpdate::Finished {
            cluster_queue: "cq".into(),
            priority_class: String::new(),
            local_queue: Some(lq("a")),
        });
        off.record(&MetricUpdate::LocalQueueState(vec![LocalQueueState {
            queue: lq("a"),
            active: "True".into(),
            ..Default::default()
        }]));
        let text = off.encode();
        assert!(!text.contains("local_queue"), "{text}");
        assert!(text.contains("kueue_finished_workloads_total"), "{text}");
    }

    #[test]
    fn local_queue_gauges_of_a_queue_gone_are_dropped() {
        let m = Metrics::new(Role::Standalone, false, true);
        let state = |name: &str| LocalQueueState {
            queue: lq(name),
            pending_active: 2,
            pending_inadmissible: 1,
            active: "False".into(),
            resources: vec![("f".into(), "cpu".into(), 1.5, 0.5)],
            ..Default::default()
        };
        m.record(&MetricUpdate::LocalQueueState(vec![state("a"), state("b")]));
        let text = m.encode();
        for line in [
            r#"kueue_local_queue_pending_workloads{name="b",namespace="ns",status="active",replica_role="standalone"} 2"#,
            r#"kueue_local_queue_pending_workloads{name="b",namespace="ns",status="inadmissible",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_status{name="b",namespace="ns",active="False",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_status{name="b",namespace="ns",active="Unknown",replica_role="standalone"} 0"#,
            r#"kueue_local_queue_resource_reservation{name="b",namespace="ns",flavor="f",resource="cpu",replica_role="standalone"} 1.5"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        m.record(&MetricUpdate::LocalQueueState(vec![state("a")]));
        let text = m.encode();
        assert!(!text.contains(r#"name="b""#), "{text}");
        assert!(text.contains(r#"name="a""#), "{text}");
    }
}
