//! `config.kueue.x-k8s.io/v1beta1` `Configuration`: upstream Kueue's controller configuration
//! file, as `run-controller --config` and `simulate` read it.
//!
//! Every top-level field upstream has is here. The parts this product acts on are typed (fair
//! sharing, admission fair sharing, which jobs are managed, resource exclusions and
//! transformations, metrics and health endpoints, leader election, client rate limits, wait for
//! pods ready, integrations, feature gates); the rest (`controller`, `tls`, `queueVisibility`,
//! `objectRetentionPolicies`, pod options, custom metric labels, DRA mappings, MultiKueue
//! frameworks) is kept as raw JSON so nothing written is lost. Like upstream's strict decoder, an
//! unknown field in a typed part is an error.
//!
//! [`Configuration::with_defaults`] applies upstream's defaulting (`defaults.go`).

mod defaults;
pub mod duration;
pub mod support;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use defaults::*;
pub use duration::GoDuration;

use super::ResourceList;

/// `apiVersion` of a Configuration.
pub const CONFIG_API_VERSION: &str = "config.kueue.x-k8s.io/v1beta1";
/// `kind` of a Configuration.
pub const CONFIG_KIND: &str = "Configuration";

/// Kueue's controller configuration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Configuration {
    /// `config.kueue.x-k8s.io/v1beta1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,

    /// `Configuration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,

    /// Namespace the controller runs in. Defaults to the service account's namespace, else
    /// `kueue-system`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,

    /// Webhook server (upstream only; kept for compatibility).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<ControllerWebhook>,

    /// Leader election of the controller replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_election: Option<LeaderElection>,

    /// Prometheus metrics endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<ControllerMetrics>,

    /// Health probe endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<ControllerHealth>,

    /// pprof endpoint (Go only; ignored here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pprof_bind_address: Option<String>,

    /// controller-runtime's per-kind concurrency and cache sync timeout (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Value>,

    /// TLS options of upstream's servers (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Value>,

    /// Whether Jobs without the `kueue.x-k8s.io/queue-name` label are managed (held until
    /// given a queue). Defaults to false.
    #[serde(default)]
    pub manage_jobs_without_queue_name: bool,

    /// Namespaces whose unlabelled Jobs `manageJobsWithoutQueueName` applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_jobs_namespace_selector: Option<LabelSelector>,

    /// Upstream's self-signed certificates for its webhooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_cert_management: Option<InternalCertManagement>,

    /// All-or-nothing start: evict admitted workloads whose pods are not ready in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_pods_ready: Option<WaitForPodsReady>,

    /// Client-side rate limits towards the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_connection: Option<ClientConnection>,

    /// Which job frameworks are integrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<Integrations>,

    /// Deprecated pending-workload visibility in ClusterQueue status (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_visibility: Option<Value>,

    /// MultiKueue settings (not supported here; kept for compatibility).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_kueue: Option<MultiKueue>,

    /// Fair sharing across the cohorts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,

    /// Admission fair sharing (ordering by LocalQueue usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_fair_sharing: Option<AdmissionFairSharing>,

    /// How pod resources are counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,

    /// Feature gate overrides, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub feature_gates: BTreeMap<String, bool>,

    /// Automatic deletion of finished or deactivated Workloads (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_retention_policies: Option<Value>,

    /// A v1beta2 file's `visibilityServer` as written (v1beta1 has no such field, so a v1beta1
    /// file never sets it): where `run-controller` serves the visibility API when
    /// `--visibility-bind-address` is not given.
    #[serde(skip)]
    pub visibility_server: Option<crate::api::v1beta2::config::VisibilityServer>,
}

impl Configuration {
    /// Whether fair sharing is switched on.
    pub fn fair_sharing_enabled(&self) -> bool {
        self.fair_sharing.as_ref().is_some_and(|fs| fs.enable)
    }

    /// Whether a feature gate is overridden, and to what.
    pub fn feature_gate(&self, name: &str) -> Option<bool> {
        self.feature_gates.get(name).copied()
    }

    /// A feature gate's value: as overridden, else `default` (upstream v0.19's default).
    pub fn feature_enabled(&self, name: &str, default: bool) -> bool {
        self.feature_gate(name).unwrap_or(default)
    }

    /// LocalQueue metrics, as upstream decides them: on with the `LocalQueueMetrics` gate (on
    /// by default since v0.17) and `metrics.localQueueMetrics.enable` (defaulted to true);
    /// `Some(selector)` then, the selector `None` for every LocalQueue.
    pub fn local_queue_metrics(&self) -> Option<Option<&LabelSelector>> {
        if self.feature_gate("LocalQueueMetrics") == Some(false) {
            return None;
        }
        let lq = self.metrics.as_ref()?.local_queue_metrics.as_ref()?;
        lq.enable.then_some(lq.local_queue_selector.as_ref())
    }
}

/// Upstream's webhook server.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControllerWebhook {
    /// Port. Defaults to 9443.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// Host to bind to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Directory of the serving certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_dir: Option<String>,
}

/// Leader election, as Kubernetes' component config spells it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaderElection {
    /// Whether to elect a leader. Defaults to true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_elect: Option<bool>,
    /// How long a non-leader waits before taking over an unrenewed lease. Defaults to 15s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_duration: Option<GoDuration>,
    /// How long the leader keeps trying to renew before giving up. Defaults to 10s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_deadline: Option<GoDuration>,
    /// Wait between attempts to acquire or renew. Defaults to 2s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_period: Option<GoDuration>,
    /// Lock object kind. Defaults to `leases`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_lock: Option<String>,
    /// Lock object name. Defaults to `c1f6bfd2.kueue.x-k8s.io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Lock object namespace; empty means the controller's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_namespace: Option<String>,
}

/// The metrics endpoint.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControllerMetrics {
    /// Address to serve metrics on; `0` disables. Defaults to `:8443`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_address: Option<String>,
    /// Whether to report ClusterQueue quota and usage per resource.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enable_cluster_queue_resources: bool,
    /// Extra labels on queue metrics (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_labels: Option<Value>,
    /// LocalQueue metrics. Defaults to enabled for every LocalQueue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_queue_metrics: Option<LocalQueueMetrics>,
}

/// LocalQueue metrics.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocalQueueMetrics {
    /// Whether LocalQueue metrics are exposed.
    #[serde(default)]
    pub enable: bool,
    /// Only the LocalQueues matching this selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_queue_selector: Option<LabelSelector>,
}

/// Health probe endpoints.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControllerHealth {
    /// Address to serve probes on; `0` or empty disables. Defaults to `:8081`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_probe_bind_address: Option<String>,
    /// Readiness path name (`readyz` when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness_endpoint_name: Option<String>,
    /// Liveness path name (`healthz` when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness_endpoint_name: Option<String>,
}

/// Upstream's internal certificate management.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InternalCertManagement {
    /// Whether certificates are self-managed. Defaults to true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable: Option<bool>,
    /// Webhook Service name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_service_name: Option<String>,
    /// Secret holding the certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_secret_name: Option<String>,
}

/// Wait for pods ready.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitForPodsReady {
    /// Whether the feature is on. Defaults to false.
    #[serde(default)]
    pub enable: bool,
    /// Time an admitted workload has to become ready. Defaults to 5m when enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<GoDuration>,
    /// Whether admissions wait until the admitted workloads are ready. Defaults to `enable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_admission: Option<bool>,
    /// How an evicted workload is requeued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeuing_strategy: Option<RequeuingStrategy>,
    /// Time a running workload that lost readiness has to recover. Defaults to `timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_timeout: Option<GoDuration>,
}

/// Requeue backoff after a readiness timeout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequeuingStrategy {
    /// Which time orders a requeued workload. Defaults to `Eviction`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<RequeuingTimestamp>,
    /// Requeues before the workload is deactivated; `None` means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit_count: Option<i32>,
    /// Base of the exponential backoff, in seconds. Defaults to 60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_base_seconds: Option<i32>,
    /// Longest backoff, in seconds. Defaults to 3600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_max_seconds: Option<i32>,
}

/// Values of `requeuingStrategy.timestamp`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequeuingTimestamp {
    /// The workload's creation time.
    Creation,
    /// The time of the eviction.
    Eviction,
}

/// Client rate limits.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientConnection {
    /// Queries per second; negative disables client-side limiting. Defaults to 300.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qps: Option<f32>,
    /// Burst above `qps`. Defaults to 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<i32>,
}

/// Job framework integrations.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Integrations {
    /// Enabled frameworks, such as `batch/job`. Defaults to `batch/job` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frameworks: Vec<String>,
    /// Kinds managed by external controllers, as `Kind.version.group`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external_frameworks: Vec<String>,
    /// Deprecated pod integration options (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_options: Option<Value>,
    /// Label keys copied from a job to its Workload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_keys_to_copy: Vec<String>,
}

/// MultiKueue settings.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MultiKueue {
    /// Garbage collection interval. Defaults to 1m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_interval: Option<GoDuration>,
    /// Label value marking objects this manager created. Defaults to `multikueue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// How long a lost worker keeps its workloads. Defaults to 15m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_lost_timeout: Option<GoDuration>,
    /// Dispatcher choosing worker clusters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatcher_name: Option<String>,
    /// Externally managed kinds (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_frameworks: Option<Value>,
}

/// Fair sharing.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FairSharing {
    /// Whether fair sharing is on for every cohort. Defaults to false.
    #[serde(default)]
    pub enable: bool,
    /// Rules a fair-sharing preemption must satisfy, tried in order. Defaults (when enabled) to
    /// `[LessThanOrEqualToFinalShare, LessThanInitialShare]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preemption_strategies: Vec<PreemptionStrategy>,
}

/// Values of `fairSharing.preemptionStrategies[]`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PreemptionStrategy {
    /// Preempt only if the preemptor's queue share, with the preemptor, stays at or below the
    /// target queue's share without the preempted workload.
    LessThanOrEqualToFinalShare,
    /// Preempt only if the preemptor's queue share, with the preemptor, is below the target
    /// queue's current share.
    LessThanInitialShare,
}

/// Admission fair sharing.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdmissionFairSharing {
    /// Time after which past usage counts half; zero forgets at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_half_life_time: Option<GoDuration>,
    /// How often usage is sampled. Defaults to 5m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_sampling_interval: Option<GoDuration>,
    /// Weight of each resource in the usage; 1 when not listed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_weights: BTreeMap<String, f64>,
}

/// How pod resources are counted.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resources {
    /// Resources whose name starts with one of these prefixes are ignored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_resource_prefixes: Vec<String>,
    /// `BlockUndeclared` (default) or `IgnoreUndeclared`: whether requests for resources a
    /// ClusterQueue does not cover block admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_check_strategy: Option<String>,
    /// Rewrites of requested resources into the resources quota is given for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transformations: Vec<ResourceTransformation>,
    /// Device class to resource mappings for DRA (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_class_mappings: Option<Value>,
}

/// One resource transformation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceTransformation {
    /// The requested resource this applies to.
    pub input: String,
    /// Whether `input` itself stays counted. Defaults to `Retain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<TransformationStrategy>,
    /// A requested resource whose amount multiplies `input`'s amount when computing `outputs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiply_by: Option<String>,
    /// Resources counted per unit of `input`. Empty with `Replace` ignores `input`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: ResourceList,
}

/// Values of `transformations[].strategy`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransformationStrategy {
    /// Keep counting the input resource as well.
    Retain,
    /// Count only the outputs.
    Replace,
}
