//! Upstream's defaulting of a `Configuration` (Kueue v0.19 `apis/config/v1beta1/defaults.go`),
//! as a pure function: the one input upstream reads from the environment, the controller's
//! namespace, is a parameter here.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use super::{
    AdmissionFairSharing, ClientConnection, Configuration, ControllerHealth, ControllerMetrics,
    ControllerWebhook, GoDuration, Integrations, InternalCertManagement, LeaderElection,
    LocalQueueMetrics, MultiKueue, PreemptionStrategy, RequeuingStrategy, RequeuingTimestamp,
    Resources, TransformationStrategy, WaitForPodsReady,
};

/// Namespace used when neither the file nor the service account says one.
pub const DEFAULT_NAMESPACE: &str = "kueue-system";
/// Default webhook Service name.
pub const DEFAULT_WEBHOOK_SERVICE_NAME: &str = "kueue-webhook-service";
/// Default webhook certificate Secret name.
pub const DEFAULT_WEBHOOK_SECRET_NAME: &str = "kueue-webhook-server-cert";
/// Default webhook port.
pub const DEFAULT_WEBHOOK_PORT: i32 = 9443;
/// Default webhook certificate directory.
pub const DEFAULT_WEBHOOK_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// Default health probe address.
pub const DEFAULT_HEALTH_PROBE_BIND_ADDRESS: &str = ":8081";
/// Default metrics address.
pub const DEFAULT_METRICS_BIND_ADDRESS: &str = ":8443";
/// Default leader election lock name (upstream's, so both never lead at once).
pub const DEFAULT_LEADER_ELECTION_ID: &str = "c1f6bfd2.kueue.x-k8s.io";
/// Default leader election lock kind.
pub const DEFAULT_LEADER_ELECTION_RESOURCE_LOCK: &str = "leases";
/// Default lease duration.
pub const DEFAULT_LEASE_DURATION: GoDuration = GoDuration::from_secs(15);
/// Default renew deadline.
pub const DEFAULT_RENEW_DEADLINE: GoDuration = GoDuration::from_secs(10);
/// Default retry period.
pub const DEFAULT_RETRY_PERIOD: GoDuration = GoDuration::from_secs(2);
/// Default client queries per second.
pub const DEFAULT_CLIENT_CONNECTION_QPS: f32 = 300.0;
/// Default client burst.
pub const DEFAULT_CLIENT_CONNECTION_BURST: i32 = 500;
/// Default wait-for-pods-ready timeout.
pub const DEFAULT_PODS_READY_TIMEOUT: GoDuration = GoDuration::from_secs(5 * 60);
/// Framework enabled when none is listed.
pub const DEFAULT_JOB_FRAMEWORK: &str = "batch/job";
/// Default MultiKueue garbage collection interval.
pub const DEFAULT_MULTIKUEUE_GC_INTERVAL: GoDuration = GoDuration::from_secs(60);
/// Default MultiKueue origin label value.
pub const DEFAULT_MULTIKUEUE_ORIGIN: &str = "multikueue";
/// Default MultiKueue lost-worker timeout.
pub const DEFAULT_MULTIKUEUE_WORKER_LOST_TIMEOUT: GoDuration = GoDuration::from_secs(15 * 60);
/// Default MultiKueue dispatcher.
pub const DEFAULT_MULTIKUEUE_DISPATCHER: &str = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
/// Default requeue backoff base, in seconds.
pub const DEFAULT_REQUEUING_BACKOFF_BASE_SECONDS: i32 = 60;
/// Default requeue backoff cap, in seconds.
pub const DEFAULT_REQUEUING_BACKOFF_MAX_SECONDS: i32 = 3600;
/// Default admission fair sharing sampling interval.
pub const DEFAULT_USAGE_SAMPLING_INTERVAL: GoDuration = GoDuration::from_secs(5 * 60);
/// Label every namespace carries with its own name.
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Upstream's defaults: the configuration a controller runs with when given no file.
pub fn default_configuration() -> Configuration {
    Configuration::default().with_defaults(None)
}

impl Configuration {
    /// Applies upstream's defaulting. `operator_namespace` is the namespace the controller runs
    /// in, if known (upstream reads the service account's namespace file); it is used only when
    /// the configuration has no `namespace`, and `kueue-system` when it is `None`.
    ///
    /// Like Go's `cmp.Or`, an empty string counts as unset where upstream's field is a plain
    /// string, and a zero duration as unset where it is a plain `metav1.Duration`.
    pub fn with_defaults(mut self, operator_namespace: Option<&str>) -> Configuration {
        let namespace = default_namespace(&mut self.namespace, operator_namespace);
        default_webhook(&mut self.webhook);
        default_metrics(&mut self.metrics);
        default_health(&mut self.health);
        default_leader_election(&mut self.leader_election);
        default_cert_management(&mut self.internal_cert_management);
        default_client_connection(&mut self.client_connection);

        let ready = self
            .wait_for_pods_ready
            .get_or_insert_with(WaitForPodsReady::default);
        if ready.enable {
            let timeout = *ready.timeout.get_or_insert(DEFAULT_PODS_READY_TIMEOUT);
            ready.recovery_timeout.get_or_insert(timeout);
            ready.block_admission.get_or_insert(true);
            default_requeuing_strategy(&mut ready.requeuing_strategy);
        }

        let integrations = self.integrations.get_or_insert_with(Integrations::default);
        default_frameworks(&mut integrations.frameworks);
        default_managed_jobs_namespace_selector(
            &mut self.managed_jobs_namespace_selector,
            namespace,
        );

        let multi = self.multi_kueue.get_or_insert_with(MultiKueue::default);
        default_multi_kueue(
            &mut multi.gc_interval,
            &mut multi.origin,
            &mut multi.worker_lost_timeout,
            &mut multi.dispatcher_name,
        );

        if let Some(fair) = &mut self.fair_sharing
            && fair.enable
            && fair.preemption_strategies.is_empty()
        {
            fair.preemption_strategies = default_preemption_strategies();
        }
        default_admission_fair_sharing(&mut self.admission_fair_sharing);
        default_resources(&mut self.resources);
        self
    }
}

/// The fair sharing strategies v1beta1 fills in (and v1beta1-to-v1beta2 conversion too).
pub(crate) fn default_preemption_strategies() -> Vec<PreemptionStrategy> {
    vec![
        PreemptionStrategy::LessThanOrEqualToFinalShare,
        PreemptionStrategy::LessThanInitialShare,
    ]
}

// The sections below default alike in v1beta1 and v1beta2 (the v1beta2 Configuration reuses
// these types), so both versions' defaulting calls them.

pub(crate) fn default_namespace(
    namespace: &mut Option<String>,
    operator_namespace: Option<&str>,
) -> String {
    namespace
        .get_or_insert_with(|| operator_namespace.unwrap_or(DEFAULT_NAMESPACE).to_owned())
        .clone()
}

pub(crate) fn default_webhook(webhook: &mut Option<ControllerWebhook>) {
    let webhook = webhook.get_or_insert_with(ControllerWebhook::default);
    webhook.port.get_or_insert(DEFAULT_WEBHOOK_PORT);
    or_default_str(&mut webhook.cert_dir, DEFAULT_WEBHOOK_CERT_DIR);
}

pub(crate) fn default_metrics(metrics: &mut Option<ControllerMetrics>) {
    let metrics = metrics.get_or_insert_with(ControllerMetrics::default);
    or_default_str(&mut metrics.bind_address, DEFAULT_METRICS_BIND_ADDRESS);
    metrics
        .local_queue_metrics
        .get_or_insert(LocalQueueMetrics {
            enable: true,
            local_queue_selector: None,
        });
}

pub(crate) fn default_health(health: &mut Option<ControllerHealth>) {
    let health = health.get_or_insert_with(ControllerHealth::default);
    or_default_str(
        &mut health.health_probe_bind_address,
        DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    );
}

pub(crate) fn default_leader_election(election: &mut Option<LeaderElection>) {
    let election = election.get_or_insert_with(LeaderElection::default);
    or_default_str(&mut election.resource_name, DEFAULT_LEADER_ELECTION_ID);
    or_default_str(
        &mut election.resource_lock,
        DEFAULT_LEADER_ELECTION_RESOURCE_LOCK,
    );
    or_default_duration(&mut election.lease_duration, DEFAULT_LEASE_DURATION);
    or_default_duration(&mut election.renew_deadline, DEFAULT_RENEW_DEADLINE);
    or_default_duration(&mut election.retry_period, DEFAULT_RETRY_PERIOD);
    election.leader_elect.get_or_insert(true);
}

pub(crate) fn default_cert_management(certs: &mut Option<InternalCertManagement>) {
    let certs = certs.get_or_insert_with(InternalCertManagement::default);
    if *certs.enable.get_or_insert(true) {
        certs
            .webhook_service_name
            .get_or_insert_with(|| DEFAULT_WEBHOOK_SERVICE_NAME.to_owned());
        certs
            .webhook_secret_name
            .get_or_insert_with(|| DEFAULT_WEBHOOK_SECRET_NAME.to_owned());
    }
}

pub(crate) fn default_client_connection(client: &mut Option<ClientConnection>) {
    let client = client.get_or_insert_with(ClientConnection::default);
    client.qps.get_or_insert(DEFAULT_CLIENT_CONNECTION_QPS);
    client.burst.get_or_insert(DEFAULT_CLIENT_CONNECTION_BURST);
}

pub(crate) fn default_requeuing_strategy(strategy: &mut Option<RequeuingStrategy>) {
    let strategy = strategy.get_or_insert_with(RequeuingStrategy::default);
    strategy
        .timestamp
        .get_or_insert(RequeuingTimestamp::Eviction);
    strategy
        .backoff_base_seconds
        .get_or_insert(DEFAULT_REQUEUING_BACKOFF_BASE_SECONDS);
    strategy
        .backoff_max_seconds
        .get_or_insert(DEFAULT_REQUEUING_BACKOFF_MAX_SECONDS);
}

pub(crate) fn default_frameworks(frameworks: &mut Vec<String>) {
    if frameworks.is_empty() {
        frameworks.push(DEFAULT_JOB_FRAMEWORK.to_owned());
    }
}

pub(crate) fn default_managed_jobs_namespace_selector(
    selector: &mut Option<LabelSelector>,
    namespace: String,
) {
    selector.get_or_insert_with(|| LabelSelector {
        match_expressions: Some(vec![LabelSelectorRequirement {
            key: NAMESPACE_NAME_LABEL.to_owned(),
            operator: "NotIn".to_owned(),
            values: Some(vec!["kube-system".to_owned(), namespace]),
        }]),
        match_labels: None,
    });
}

pub(crate) fn default_multi_kueue(
    gc_interval: &mut Option<GoDuration>,
    origin: &mut Option<String>,
    worker_lost_timeout: &mut Option<GoDuration>,
    dispatcher_name: &mut Option<String>,
) {
    gc_interval.get_or_insert(DEFAULT_MULTIKUEUE_GC_INTERVAL);
    or_default_str(origin, DEFAULT_MULTIKUEUE_ORIGIN);
    worker_lost_timeout.get_or_insert(DEFAULT_MULTIKUEUE_WORKER_LOST_TIMEOUT);
    dispatcher_name.get_or_insert_with(|| DEFAULT_MULTIKUEUE_DISPATCHER.to_owned());
}

pub(crate) fn default_admission_fair_sharing(admission: &mut Option<AdmissionFairSharing>) {
    if let Some(admission) = admission {
        or_default_duration(
            &mut admission.usage_sampling_interval,
            DEFAULT_USAGE_SAMPLING_INTERVAL,
        );
    }
}

pub(crate) fn default_resources(resources: &mut Option<Resources>) {
    if let Some(resources) = resources {
        for transformation in &mut resources.transformations {
            transformation
                .strategy
                .get_or_insert(TransformationStrategy::Retain);
        }
    }
}

pub(crate) fn or_default_str(field: &mut Option<String>, default: &str) {
    if field.as_deref().is_none_or(str::is_empty) {
        *field = Some(default.to_owned());
    }
}

pub(crate) fn or_default_duration(field: &mut Option<GoDuration>, default: GoDuration) {
    if field.is_none_or(|d| d.is_zero()) {
        *field = Some(default);
    }
}
