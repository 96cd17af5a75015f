//! The Configuration between `config.kueue.x-k8s.io` v1beta1 and v1beta2: each of upstream's
//! conversion rules (one test each), v1beta2's defaults against v1beta1's, how a v1beta2 file
//! becomes the internal form, and the round trip on what both versions express.

use kubectl_kueue::api::config::{self as v1cfg, GoDuration, PreemptionStrategy};
use kubectl_kueue::api::convert::config as cfg_convert;
use kubectl_kueue::api::v1beta2 as v2;
use kubectl_kueue::api::{self, KueueVersion};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::api_v1beta2_roundtrip::{maybe, name, object, round_trip};
use KueueVersion::{V1beta1, V1beta2};

fn read<T: DeserializeOwned>(doc: Value) -> T {
    api::from_value(doc.clone()).unwrap_or_else(|e| panic!("{e}\nin {doc}"))
}

fn json_of<T: serde::Serialize>(obj: &T) -> Value {
    serde_json::to_value(obj).unwrap()
}

fn config_v1(doc: Value) -> v1cfg::Configuration {
    read(doc)
}

fn config_v2(doc: Value) -> v2::config::Configuration {
    read(doc)
}

#[test]
fn wait_for_pods_ready_off_or_absent_is_dropped_and_on_gets_v1beta1_defaults() {
    for off in [
        json!({}),
        json!({"waitForPodsReady": {"enable": false, "timeout": "1m"}}),
    ] {
        assert_eq!(
            cfg_convert::to_v1beta2(&config_v1(off)).wait_for_pods_ready,
            None
        );
    }
    let on = cfg_convert::to_v1beta2(&config_v1(json!({"waitForPodsReady": {"enable": true}})));
    let ready = on.wait_for_pods_ready.unwrap();
    assert_eq!(ready.timeout, GoDuration::from_secs(300));
    assert_eq!(ready.block_admission, Some(true));
    let back = cfg_convert::to_v1beta1(&config_v2(json!({"waitForPodsReady": {"timeout": "2m"}})));
    let ready = back.wait_for_pods_ready.unwrap();
    assert!(ready.enable);
    assert_eq!(ready.timeout, Some(GoDuration::from_secs(120)));
    assert_eq!(ready.block_admission, Some(false));
}

#[test]
fn fair_sharing_enable_becomes_presence() {
    assert_eq!(
        cfg_convert::to_v1beta2(&config_v1(json!({"fairSharing": {"enable": false}}))).fair_sharing,
        None
    );
    let on = cfg_convert::to_v1beta2(&config_v1(json!({"fairSharing": {"enable": true}})));
    assert_eq!(
        on.fair_sharing.unwrap().preemption_strategies,
        vec![
            PreemptionStrategy::LessThanOrEqualToFinalShare,
            PreemptionStrategy::LessThanInitialShare
        ]
    );
    let back = cfg_convert::to_v1beta1(&config_v2(
        json!({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare"]}}),
    ));
    assert!(back.fair_sharing_enabled());
}

#[test]
fn configuration_fields_only_one_version_has_are_dropped() {
    let v1 = config_v1(json!({
        "queueVisibility": {"updateIntervalSeconds": 5},
        "integrations": {"frameworks": ["batch/job"], "podOptions": {}},
    }));
    let there = cfg_convert::to_v1beta2(&v1);
    let back = cfg_convert::to_v1beta1(&there);
    assert_eq!(back.queue_visibility, None);
    assert_eq!(back.integrations.unwrap().pod_options, None);

    let v2c = config_v2(json!({
        "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "visibilityServer": {"bindPort": 9000},
        "resources": {"quotaCheckStrategy": "IgnoreUndeclared",
            "deviceClassMappings": [{"name": "gpu", "deviceClassNames": ["d"], "sources": []}]},
        "metrics": {"customLabels": [{"name": "team", "sourceLabelKey": "t", "sourceKind": "Workload",
            "trackedValues": ["a"]}]},
        "multiKueue": {"clusterProfile": {}, "incrementalDispatcherConfig": {"stepSize": 2}},
    }));
    let v1back = cfg_convert::to_v1beta1(&v2c);
    assert_eq!(
        v1back.api_version.as_deref(),
        Some("config.kueue.x-k8s.io/v1beta1")
    );
    let written = json_of(&v1back);
    assert_eq!(written["resources"].get("quotaCheckStrategy"), None);
    assert_eq!(
        written["resources"]["deviceClassMappings"],
        json!([{"name": "gpu", "deviceClassNames": ["d"]}])
    );
    assert_eq!(
        written["metrics"]["customLabels"],
        json!([{"name": "team", "sourceLabelKey": "t"}])
    );
    let v2again = cfg_convert::to_v1beta2(&v1back);
    assert_eq!(v2again.visibility_server, None);
    assert_eq!(
        v2again.multi_kueue.unwrap().incremental_dispatcher_config,
        None
    );
}

#[test]
fn a_v1beta2_file_runs_with_wait_for_pods_ready_and_a_v1beta1_file_without() {
    let internal = cfg_convert::internal_from_v1beta2(config_v2(json!({})), None);
    let ready = internal.wait_for_pods_ready.clone().unwrap();
    assert!(ready.enable);
    assert_eq!(ready.timeout, Some(GoDuration::from_secs(30 * 60)));
    assert_eq!(ready.block_admission, Some(false));
    assert_eq!(ready.recovery_timeout, Some(GoDuration::from_secs(30 * 60)));
    // Defaulting the internal form again (as run-controller does) changes nothing.
    assert_eq!(internal.clone().with_defaults(None), internal);

    let v1 = config_v1(json!({})).with_defaults(None);
    assert!(!v1.wait_for_pods_ready.unwrap().enable);
}

#[test]
fn the_internal_form_of_a_v1beta2_file_keeps_what_it_can_hold() {
    let internal = cfg_convert::internal_from_v1beta2(
        config_v2(
            json!({"resources": {"quotaCheckStrategy": "IgnoreUndeclared"},
            "fairSharing": {"preemptionStrategies": ["LessThanInitialShare"]}}),
        ),
        Some("elsewhere"),
    );
    assert_eq!(
        internal.resources.unwrap().quota_check_strategy.as_deref(),
        Some("IgnoreUndeclared")
    );
    assert_eq!(internal.namespace.as_deref(), Some("elsewhere"));
    assert_eq!(
        internal.fair_sharing.unwrap().preemption_strategies,
        vec![PreemptionStrategy::LessThanInitialShare]
    );
}

#[test]
fn v1beta2_configuration_defaults_differ_from_v1beta1_only_where_upstream_does() {
    let v2d = v2::config::Configuration::default().with_defaults(None);
    assert_eq!(v2d.visibility_server.unwrap().bind_port, Some(8082));
    let inc = config_v2(json!({"multiKueue": {"dispatcherName":
        "kueue.x-k8s.io/multikueue-dispatcher-incremental"}}))
    .with_defaults(None);
    assert_eq!(
        inc.multi_kueue
            .unwrap()
            .incremental_dispatcher_config
            .unwrap()
            .step_size,
        Some(3)
    );
    // The shared sections default alike.
    let v1d = v1cfg::default_configuration();
    let v2d = v2::config::Configuration::default().with_defaults(None);
    assert_eq!(json_of(&v1d.webhook), json_of(&v2d.webhook));
    assert_eq!(json_of(&v1d.leader_election), json_of(&v2d.leader_election));
    assert_eq!(
        v1d.managed_jobs_namespace_selector,
        v2d.managed_jobs_namespace_selector
    );
}

#[test]
fn a_v1beta2_configuration_rejects_v1beta1_only_fields() {
    for doc in [
        json!({"waitForPodsReady": {"enable": true}}),
        json!({"fairSharing": {"enable": true}}),
        json!({"queueVisibility": {}}),
    ] {
        assert!(
            api::from_value::<v2::config::Configuration>(doc.clone()).is_err(),
            "{doc}"
        );
    }
}

/// A Configuration both versions express: wait for pods ready and fair sharing either absent
/// or on with everything given, no fields only one version has.
fn configuration(version: KueueVersion) -> impl Strategy<Value = Value> {
    (
        maybe(name()),
        maybe((1u64..120, any::<bool>(), maybe(1u64..60))),
        maybe(prop::sample::select(vec![
            vec!["LessThanOrEqualToFinalShare"],
            vec!["LessThanInitialShare"],
            vec!["LessThanOrEqualToFinalShare", "LessThanInitialShare"],
        ])),
        any::<bool>(),
        prop::collection::btree_map("[A-Z][a-zA-Z]{2,8}", any::<bool>(), 0..3),
    )
        .prop_map(move |(ns, ready, fair, manage, gates)| {
            let ready = ready.map(|(timeout, block, recovery)| {
                let mut r = object(vec![
                    ("timeout", Some(json!(format!("{timeout}m0s")))),
                    ("blockAdmission", Some(json!(block))),
                    ("recoveryTimeout", recovery.map(|s| json!(format!("{s}s")))),
                ]);
                if version == V1beta1 {
                    r["enable"] = json!(true);
                }
                r
            });
            let fair = fair.map(|s| {
                let mut f = json!({"preemptionStrategies": s});
                if version == V1beta1 {
                    f["enable"] = json!(true);
                }
                f
            });
            object(vec![
                ("apiVersion", Some(json!(version.config_api_version()))),
                ("kind", Some(json!("Configuration"))),
                ("namespace", ns.map(Value::from)),
                ("manageJobsWithoutQueueName", Some(json!(manage))),
                ("waitForPodsReady", ready),
                ("fairSharing", fair),
                ("featureGates", Some(json!(gates))),
                ("integrations", Some(json!({"frameworks": ["batch/job"]}))),
                (
                    "resources",
                    Some(json!({"excludeResourcePrefixes": ["example.com/"]})),
                ),
            ])
        })
}

proptest! {
    #![proptest_config(crate::support::property_config(64))]

    #[test]
    fn configurations_round_trip(v1 in configuration(V1beta1), v2doc in configuration(V1beta2)) {
        round_trip::<v1cfg::Configuration, v2::config::Configuration>(
            &v1, cfg_convert::to_v1beta2, cfg_convert::to_v1beta1);
        round_trip::<v2::config::Configuration, v1cfg::Configuration>(
            &v2doc, cfg_convert::to_v1beta1, cfg_convert::to_v1beta2);
    }
}

#[test]
fn wait_for_pods_ready_settings_take_each_versions_defaults() {
    use kubectl_kueue::manifests::convert::pods_ready_config;
    use kubectl_kueue::scheduler::model::PodsReadyConfig;
    // v1beta1: off unless enabled; enabled, a 5m timeout, recovery = timeout, blockAdmission on.
    assert_eq!(pods_ready_config(&config_v1(json!({}))), None);
    assert_eq!(
        pods_ready_config(&config_v1(json!({"waitForPodsReady": {"enable": false}}))),
        None
    );
    let v1 = pods_ready_config(&config_v1(json!({"waitForPodsReady": {"enable": true}})));
    assert_eq!(
        v1,
        Some(PodsReadyConfig {
            timeout_ms: 300_000,
            recovery_timeout_ms: Some(300_000),
            block_admission: true,
            order_by_eviction: true,
            backoff_limit_count: None,
            backoff_base_seconds: 60,
            backoff_max_seconds: 3600,
        })
    );
    // v1beta2: always on, 30m, blockAdmission off.
    let v2_default = cfg_convert::internal_from_v1beta2(config_v2(json!({})), None);
    let v2 = pods_ready_config(&v2_default).expect("on by v1beta2's defaults");
    assert_eq!(
        (v2.timeout_ms, v2.recovery_timeout_ms, v2.block_admission),
        (1_800_000, Some(1_800_000), false)
    );
    // Upstream's DisableWaitForPodsReady gate switches it off in either version.
    let gated = cfg_convert::internal_from_v1beta2(
        config_v2(json!({"featureGates": {"DisableWaitForPodsReady": true}})),
        None,
    );
    assert_eq!(pods_ready_config(&gated), None);
    // What a file writes wins.
    let written = cfg_convert::internal_from_v1beta2(
        config_v2(json!({"waitForPodsReady": {
            "timeout": "10s", "blockAdmission": true, "recoveryTimeout": "3s",
            "requeuingStrategy": {"timestamp": "Creation", "backoffLimitCount": 2,
                                  "backoffBaseSeconds": 5, "backoffMaxSeconds": 40}}})),
        None,
    );
    assert_eq!(
        pods_ready_config(&written),
        Some(PodsReadyConfig {
            timeout_ms: 10_000,
            recovery_timeout_ms: Some(3_000),
            block_admission: true,
            order_by_eviction: false,
            backoff_limit_count: Some(2),
            backoff_base_seconds: 5,
            backoff_max_seconds: 40,
        })
    );
}
