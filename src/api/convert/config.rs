//! `Configuration` between `config.kueue.x-k8s.io` v1beta1 and v1beta2, as upstream converts
//! it (`apis/config/v1beta1/configuration_conversion.go`), and how a v1beta2 file becomes the
//! internal (v1beta1-shaped) Configuration.
//!
//! | v1beta1 | v1beta2 | going to v1beta2 | going to v1beta1 |
//! |---|---|---|---|
//! | `waitForPodsReady {enable, ...}` | `waitForPodsReady {...}` (present = on) | off or absent: dropped; on: timeout 5m and `blockAdmission: true` when unset | `enable: true`, `blockAdmission: false` when unset |
//! | `fairSharing {enable, preemptionStrategies}` | `fairSharing {preemptionStrategies}` | off or absent: dropped; on without strategies: upstream's two | `enable: true` |
//! | `queueVisibility`, `integrations.podOptions` | — | dropped | — |
//! | — | `visibilityServer`, `resources.quotaCheckStrategy`, `deviceClassMappings[].sources`, custom label `sourceKind`/`trackedValues`, MultiKueue `clusterProfile`/`incrementalDispatcherConfig` | — | dropped |
//!
//! Upstream decodes a file with its own version's defaults and then converts, so a v1beta1
//! file without `waitForPodsReady.enable: true` runs without it while a v1beta2 file runs with
//! it (30m). [`internal_from_v1beta2`] does the same for a v1beta2 file.

use serde_json::Value;

use crate::api::config::CONFIG_API_VERSION as V1BETA1;
use crate::api::config::{self as v1, DEFAULT_PODS_READY_TIMEOUT, default_preemption_strategies};
use crate::api::v1beta2::CONFIG_API_VERSION as V1BETA2;
use crate::api::v1beta2::config as v2;

/// A v1beta1 Configuration as v1beta2.
pub fn to_v1beta2(c: &v1::Configuration) -> v2::Configuration {
    v2::Configuration {
        api_version: c.api_version.as_ref().map(|_| V1BETA2.to_owned()),
        kind: c.kind.clone(),
        namespace: c.namespace.clone(),
        webhook: c.webhook.clone(),
        leader_election: c.leader_election.clone(),
        metrics: c.metrics.clone(),
        health: c.health.clone(),
        pprof_bind_address: c.pprof_bind_address.clone(),
        controller: c.controller.clone(),
        tls: c.tls.clone(),
        manage_jobs_without_queue_name: c.manage_jobs_without_queue_name,
        managed_jobs_namespace_selector: c.managed_jobs_namespace_selector.clone(),
        internal_cert_management: c.internal_cert_management.clone(),
        wait_for_pods_ready: c
            .wait_for_pods_ready
            .as_ref()
            .filter(|w| w.enable)
            .map(|w| v2::WaitForPodsReady {
                timeout: w.timeout.unwrap_or(DEFAULT_PODS_READY_TIMEOUT),
                block_admission: Some(w.block_admission.unwrap_or(true)),
                requeuing_strategy: w.requeuing_strategy.clone(),
                recovery_timeout: w.recovery_timeout,
            }),
        client_connection: c.client_connection.clone(),
        integrations: c.integrations.as_ref().map(|i| v2::Integrations {
            frameworks: i.frameworks.clone(),
            external_frameworks: i.external_frameworks.clone(),
            label_keys_to_copy: i.label_keys_to_copy.clone(),
        }),
        multi_kueue: c.multi_kueue.as_ref().map(|m| v2::MultiKueue {
            gc_interval: m.gc_interval,
            origin: m.origin.clone(),
            worker_lost_timeout: m.worker_lost_timeout,
            dispatcher_name: m.dispatcher_name.clone(),
            external_frameworks: m.external_frameworks.clone(),
            cluster_profile: None,
            incremental_dispatcher_config: None,
        }),
        fair_sharing: c
            .fair_sharing
            .as_ref()
            .filter(|f| f.enable)
            .map(|f| v2::FairSharing {
                preemption_strategies: if f.preemption_strategies.is_empty() {
                    default_preemption_strategies()
                } else {
                    f.preemption_strategies.clone()
                },
            }),
        admission_fair_sharing: c.admission_fair_sharing.clone(),
        resources: c.resources.clone(),
        feature_gates: c.feature_gates.clone(),
        object_retention_policies: c.object_retention_policies.clone(),
        visibility_server: None,
    }
}

/// A v1beta2 Configuration as v1beta1, exactly as upstream converts it.
pub fn to_v1beta1(c: &v2::Configuration) -> v1::Configuration {
    let mut metrics = c.metrics.clone();
    if let Some(labels) = metrics.as_mut().and_then(|m| m.custom_labels.as_mut()) {
        drop_keys_of_items(labels, &["sourceKind", "trackedValues"]);
    }
    let mut resources = c.resources.clone();
    if let Some(r) = &mut resources {
        r.quota_check_strategy = None;
        if let Some(mappings) = &mut r.device_class_mappings {
            drop_keys_of_items(mappings, &["sources"]);
        }
    }
    v1::Configuration {
        api_version: c.api_version.as_ref().map(|_| V1BETA1.to_owned()),
        kind: c.kind.clone(),
        namespace: c.namespace.clone(),
        webhook: c.webhook.clone(),
        leader_election: c.leader_election.clone(),
        metrics,
        health: c.health.clone(),
        pprof_bind_address: c.pprof_bind_address.clone(),
        controller: c.controller.clone(),
        tls: c.tls.clone(),
        manage_jobs_without_queue_name: c.manage_jobs_without_queue_name,
        managed_jobs_namespace_selector: c.managed_jobs_namespace_selector.clone(),
        internal_cert_management: c.internal_cert_management.clone(),
        wait_for_pods_ready: c
            .wait_for_pods_ready
            .as_ref()
            .map(|w| v1::WaitForPodsReady {
                enable: true,
                timeout: Some(w.timeout),
                block_admission: Some(w.block_admission.unwrap_or(false)),
                requeuing_strategy: w.requeuing_strategy.clone(),
                recovery_timeout: w.recovery_timeout,
            }),
        client_connection: c.client_connection.clone(),
        integrations: c.integrations.as_ref().map(|i| v1::Integrations {
            frameworks: i.frameworks.clone(),
            external_frameworks: i.external_frameworks.clone(),
            pod_options: None,
            label_keys_to_copy: i.label_keys_to_copy.clone(),
        }),
        queue_visibility: None,
        multi_kueue: c.multi_kueue.as_ref().map(|m| v1::MultiKueue {
            gc_interval: m.gc_interval,
            origin: m.origin.clone(),
            worker_lost_timeout: m.worker_lost_timeout,
            dispatcher_name: m.dispatcher_name.clone(),
            external_frameworks: m.external_frameworks.clone(),
        }),
        fair_sharing: c.fair_sharing.as_ref().map(|f| v1::FairSharing {
            enable: true,
            preemption_strategies: f.preemption_strategies.clone(),
        }),
        admission_fair_sharing: c.admission_fair_sharing.clone(),
        resources,
        feature_gates: c.feature_gates.clone(),
        object_retention_policies: c.object_retention_policies.clone(),
        visibility_server: None,
    }
}

/// The internal Configuration a v1beta2 file stands for: v1beta2's defaults applied (as
/// upstream's decoder does for the file's version), then converted. Unlike a v1beta1 client's
/// view, the parts the internal type can hold anyway are kept: `resources.quotaCheckStrategy`
/// (which the scheduler honours), the custom metric labels and DRA mappings, which are kept
/// as written in both versions, and `visibilityServer` as written, before its defaults (where
/// `run-controller` serves the visibility API).
pub fn internal_from_v1beta2(
    c: v2::Configuration,
    operator_namespace: Option<&str>,
) -> v1::Configuration {
    let visibility_server = c.visibility_server.clone();
    let defaulted = c.with_defaults(operator_namespace);
    let mut internal = to_v1beta1(&defaulted);
    internal.visibility_server = visibility_server;
    if let (Some(out), Some(given)) = (&mut internal.resources, &defaulted.resources) {
        out.quota_check_strategy = given.quota_check_strategy.clone();
        out.device_class_mappings = given.device_class_mappings.clone();
    }
    if let (Some(out), Some(given)) = (&mut internal.metrics, &defaulted.metrics) {
        out.custom_labels = given.custom_labels.clone();
    }
    internal
}

fn drop_keys_of_items(list: &mut Value, keys: &[&str]) {
    for item in list.as_array_mut().into_iter().flatten() {
        if let Some(map) = item.as_object_mut() {
            for key in keys {
                map.remove(*key);
            }
        }
    }
}
