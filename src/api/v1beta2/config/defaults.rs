//! v1beta2's defaulting of a `Configuration` (upstream's `apis/config/v1beta2/defaults.go`),
//! as a pure function. The sections v1beta2 shares with v1beta1 default alike and use the same
//! helpers; what differs is `waitForPodsReady` (always defaulted, so enabled, with a 30m
//! timeout and `blockAdmission: false`), `visibilityServer.bindPort` and the incremental
//! MultiKueue dispatcher's step size. Fair sharing strategies get no default in v1beta2.

use super::{
    Configuration, IncrementalDispatcherConfig, Integrations, MultiKueue, VisibilityServer,
};
use crate::api::config::{
    GoDuration, default_admission_fair_sharing, default_cert_management, default_client_connection,
    default_frameworks, default_health, default_leader_election,
    default_managed_jobs_namespace_selector, default_metrics, default_multi_kueue,
    default_namespace, default_requeuing_strategy, default_resources, default_webhook,
};

/// v1beta2's default wait-for-pods-ready timeout (v1beta1's is 5m).
pub const DEFAULT_PODS_READY_TIMEOUT_V1BETA2: GoDuration = GoDuration::from_secs(30 * 60);
/// Default port of the visibility API server.
pub const DEFAULT_VISIBILITY_BIND_PORT: i32 = 8082;
/// The MultiKueue dispatcher that takes a step size.
pub const MULTIKUEUE_DISPATCHER_INCREMENTAL: &str =
    "kueue.x-k8s.io/multikueue-dispatcher-incremental";
/// Default step size of the incremental dispatcher.
pub const DEFAULT_INCREMENTAL_DISPATCHER_STEP_SIZE: i32 = 3;

impl Configuration {
    /// Applies v1beta2's defaulting; `operator_namespace` as for v1beta1's
    /// [`crate::api::config::Configuration::with_defaults`].
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
            .get_or_insert_with(Default::default);
        if ready.timeout.is_zero() {
            ready.timeout = DEFAULT_PODS_READY_TIMEOUT_V1BETA2;
        }
        ready.block_admission.get_or_insert(false);
        ready.recovery_timeout.get_or_insert(ready.timeout);
        default_requeuing_strategy(&mut ready.requeuing_strategy);

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
        if multi.dispatcher_name.as_deref() == Some(MULTIKUEUE_DISPATCHER_INCREMENTAL) {
            multi
                .incremental_dispatcher_config
                .get_or_insert_with(IncrementalDispatcherConfig::default)
                .step_size
                .get_or_insert(DEFAULT_INCREMENTAL_DISPATCHER_STEP_SIZE);
        }

        default_admission_fair_sharing(&mut self.admission_fair_sharing);
        self.visibility_server
            .get_or_insert_with(VisibilityServer::default)
            .bind_port
            .get_or_insert(DEFAULT_VISIBILITY_BIND_PORT);
        default_resources(&mut self.resources);
        self
    }
}
