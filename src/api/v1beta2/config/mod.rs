//! `config.kueue.x-k8s.io/v1beta2` `Configuration`: upstream's controller configuration in
//! its current version. Against v1beta1: `queueVisibility` and `integrations.podOptions` are
//! gone; `waitForPodsReady` and `fairSharing` lost their `enable` switch (present means on);
//! `visibilityServer`, `resources.deviceClassMappings[].sources`, custom metric label
//! `sourceKind`/`trackedValues` and MultiKueue's `clusterProfile` and
//! `incrementalDispatcherConfig` are new. The sections that did not change are v1beta1's
//! types. Like upstream's strict decoder, an unknown field in a typed part is an error.
//!
//! [`Configuration::with_defaults`] applies v1beta2's defaulting, which differs from
//! v1beta1's in one way that matters: `waitForPodsReady` is on by default (30m timeout,
//! `blockAdmission: false`).

mod defaults;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use defaults::*;

use crate::api::config::{
    AdmissionFairSharing, ClientConnection, ControllerHealth, ControllerMetrics, ControllerWebhook,
    GoDuration, InternalCertManagement, LeaderElection, PreemptionStrategy, RequeuingStrategy,
    Resources,
};

/// Kueue's controller configuration, v1beta2.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Configuration {
    /// `config.kueue.x-k8s.io/v1beta2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,

    /// `Configuration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,

    /// Namespace the controller runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,

    /// Webhook server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<ControllerWebhook>,

    /// Leader election of the controller replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_election: Option<LeaderElection>,

    /// Prometheus metrics endpoint (custom labels kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<ControllerMetrics>,

    /// Health probe endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<ControllerHealth>,

    /// pprof endpoint (Go only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pprof_bind_address: Option<String>,

    /// controller-runtime's per-kind concurrency and cache sync timeout (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Value>,

    /// TLS options of upstream's servers (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Value>,

    /// Whether Jobs without the `kueue.x-k8s.io/queue-name` label are managed.
    #[serde(default)]
    pub manage_jobs_without_queue_name: bool,

    /// Namespaces whose unlabelled Jobs `manageJobsWithoutQueueName` applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_jobs_namespace_selector: Option<LabelSelector>,

    /// Upstream's self-signed certificates for its webhooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_cert_management: Option<InternalCertManagement>,

    /// All-or-nothing start; present means enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_pods_ready: Option<WaitForPodsReady>,

    /// Client-side rate limits towards the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_connection: Option<ClientConnection>,

    /// Which job frameworks are integrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<Integrations>,

    /// MultiKueue settings (not supported here; kept for compatibility).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_kueue: Option<MultiKueue>,

    /// Fair sharing across the cohorts; present means enabled.
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

    /// The visibility API server (`visibility.kueue.x-k8s.io`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility_server: Option<VisibilityServer>,
}

/// Wait for pods ready (enabled whenever present).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitForPodsReady {
    /// Time an admitted workload has to become ready; zero means the default, 30m.
    #[serde(default)]
    pub timeout: GoDuration,
    /// Whether admissions wait until the admitted workloads are ready. Defaults to false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_admission: Option<bool>,
    /// How an evicted workload is requeued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeuing_strategy: Option<RequeuingStrategy>,
    /// Time a running workload that lost readiness has to recover. Defaults to `timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_timeout: Option<GoDuration>,
}

/// Fair sharing (enabled whenever present).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FairSharing {
    /// Rules a fair-sharing preemption must satisfy, tried in order. Required in v1beta2 (no
    /// default).
    #[serde(default)]
    pub preemption_strategies: Vec<PreemptionStrategy>,
}

/// Job framework integrations (v1beta2: no `podOptions`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Integrations {
    /// Enabled frameworks, such as `batch/job`. Defaults to `batch/job` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frameworks: Vec<String>,
    /// Kinds managed by external controllers, as `Kind.version.group`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external_frameworks: Vec<String>,
    /// Label keys copied from a job to its Workload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_keys_to_copy: Vec<String>,
}

/// MultiKueue settings, v1beta2.
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
    /// Access to worker clusters through ClusterProfiles (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_profile: Option<Value>,
    /// Settings of the incremental dispatcher.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incremental_dispatcher_config: Option<IncrementalDispatcherConfig>,
}

/// Settings of the incremental MultiKueue dispatcher.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncrementalDispatcherConfig {
    /// Worker clusters added per step. Defaults to 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_size: Option<i32>,
}

/// The visibility API server.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VisibilityServer {
    /// Address to bind to (all interfaces when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_address: Option<String>,
    /// Port. Defaults to 8082.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_port: Option<i32>,
}

impl VisibilityServer {
    /// Where the server listens, as upstream binds it: `bindAddress` (all interfaces when
    /// unset) and `bindPort` (8082 when unset). `None` for values upstream's validation
    /// refuses (see [`crate::api::config::support::visibility_server`]).
    pub fn address(&self) -> Option<std::net::SocketAddr> {
        let ip = match self.bind_address.as_deref() {
            Some(a) => a.parse().ok()?,
            None => std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        };
        let port = self
            .bind_port
            .unwrap_or(defaults::DEFAULT_VISIBILITY_BIND_PORT);
        let port = u16::try_from(port).ok().filter(|p| *p != 0)?;
        Some(std::net::SocketAddr::new(ip, port))
    }
}
