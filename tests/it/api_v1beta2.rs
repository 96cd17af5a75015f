//! The v1beta2 types and upstream's conversion rules: each v1beta2 kind reads upstream-shaped
//! documents with upstream's defaults, the kinds upstream left unchanged keep v1beta1's schema,
//! and every lossy rule of upstream's conversion behaves as upstream's (one table row each).
//! The round-trip properties are in `api_v1beta2_roundtrip`.

use kubectl_kueue::api::config::{self as v1cfg, GoDuration, PreemptionStrategy};
use kubectl_kueue::api::convert::{self, config as cfg_convert};
use kubectl_kueue::api::schema::structural_schema_for;
use kubectl_kueue::api::v1beta2 as v2;
use kubectl_kueue::api::{self, KueueVersion, PriorityClassSource, WhenCanBorrow, WhenCanPreempt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn read<T: DeserializeOwned>(doc: Value) -> T {
    api::from_value(doc.clone()).unwrap_or_else(|e| panic!("{e}\nin {doc}"))
}

fn json_of<T: serde::Serialize>(obj: &T) -> Value {
    serde_json::to_value(obj).unwrap()
}

#[test]
fn versions_parse_and_name_their_api_versions() {
    assert_eq!("v1beta2".parse::<KueueVersion>(), Ok(KueueVersion::V1beta2));
    assert!("v1".parse::<KueueVersion>().is_err());
    assert_eq!(
        KueueVersion::of_kueue_api_version("kueue.x-k8s.io/v1beta2"),
        Some(KueueVersion::V1beta2)
    );
    assert_eq!(
        KueueVersion::of_config_api_version("config.kueue.x-k8s.io/v1beta1"),
        Some(KueueVersion::V1beta1)
    );
    assert_eq!(
        KueueVersion::of_kueue_api_version("kueue.x-k8s.io/v1"),
        None
    );
}

#[test]
fn v1beta2_specs_default_to_what_an_empty_object_reads_as() {
    fn check<T: DeserializeOwned + Default + PartialEq + std::fmt::Debug>() {
        assert_eq!(read::<T>(json!({})), T::default());
    }
    check::<v2::ClusterQueueSpec>();
    check::<v2::CohortSpec>();
    check::<v2::LocalQueueSpec>();
    check::<v2::ResourceFlavorSpec>();
    check::<v2::WorkloadSpec>();
    check::<v2::FlavorFungibility>();
    let spec = v2::WorkloadSpec::default();
    assert!(spec.active && spec.pod_sets.is_empty());
    let cq = v2::ClusterQueueSpec::default();
    assert_eq!(
        cq.flavor_fungibility.when_can_preempt,
        v2::FlavorFungibilityPolicy::TryNextFlavor
    );
}

/// A spec's schema without its prose (which may name the version).
fn spec_schema<T: schemars::JsonSchema>() -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("description");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut schema = structural_schema_for::<T>(true);
    strip(&mut schema);
    schema
}

#[test]
fn the_kinds_upstream_left_alone_keep_v1beta1s_schema() {
    assert_eq!(
        spec_schema::<v2::ResourceFlavorSpec>(),
        spec_schema::<api::ResourceFlavorSpec>()
    );
    assert_eq!(
        spec_schema::<v2::LocalQueueSpec>(),
        spec_schema::<api::LocalQueueSpec>()
    );
    assert_eq!(
        spec_schema::<v2::CohortSpec>(),
        spec_schema::<api::CohortSpec>()
    );
}

#[test]
fn a_v1beta2_workload_from_upstreams_docs_reads() {
    let wl: v2::Workload = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "sample", "namespace": "team-a"},
        "spec": {
            "queueName": "user-queue",
            "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
            "priority": 1000,
            "podSets": [{"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}],
            "preemptionGates": [{"name": "example.com/gate"}],
        },
        "status": {"accumulatedPastExecutionTimeSeconds": 30},
    }));
    assert_eq!(wl.spec.pod_sets[0].name, "main");
    assert_eq!(wl.spec.pod_sets[0].count, 1);
    assert_eq!(
        wl.spec.priority_class_ref,
        Some(v2::PriorityClassRef::workload_priority_class("high"))
    );
    assert_eq!(
        wl.status.unwrap().accumulated_past_execution_time_seconds,
        Some(30)
    );
    let written = json_of(&v2::Workload::default());
    assert_eq!(written["apiVersion"], "kueue.x-k8s.io/v1beta2");
}

#[test]
fn v1beta2_rejects_the_deprecated_fungibility_aliases_with_the_field_path() {
    let err = api::from_value::<v2::ClusterQueue>(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {"flavorFungibility": {"whenCanBorrow": "Borrow"}},
    }))
    .unwrap_err();
    assert_eq!(err.path, "spec.flavorFungibility.whenCanBorrow");
}

#[test]
fn a_v1beta2_workload_priority_class_writes_its_version() {
    let wpc: v2::WorkloadPriorityClass = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
        "metadata": {"name": "high"}, "value": 1000, "description": "urgent",
    }));
    let back = json_of(&convert::workload_priority_class::to_v1beta1(&wpc));
    assert_eq!(back["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(back["value"], 1000);
    assert_eq!(json_of(&wpc)["apiVersion"], "kueue.x-k8s.io/v1beta2");
}

// ---- ClusterQueue ----

fn cq_v1(spec: Value, status: Value) -> api::ClusterQueue {
    read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
        "metadata": {"name": "cq"}, "spec": spec, "status": status,
    }))
}

#[test]
fn cluster_queue_cohort_is_cohort_name() {
    let cq = cq_v1(json!({"cohort": "all"}), json!({}));
    let v2cq = convert::cluster_queue::to_v1beta2(&cq);
    assert_eq!(v2cq.spec.cohort_name.as_deref(), Some("all"));
    assert_eq!(json_of(&v2cq)["spec"]["cohortName"], "all");
    assert_eq!(convert::cluster_queue::to_v1beta1(&v2cq), cq);
}

#[test]
fn admission_checks_become_a_strategy_that_overrides_any_other() {
    let cq = cq_v1(
        json!({
            "admissionChecks": ["a", "b"],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "c", "onFlavors": ["f"]}]},
        }),
        json!({}),
    );
    let v2cq = convert::cluster_queue::to_v1beta2(&cq);
    assert_eq!(
        json_of(&v2cq.spec.admission_checks_strategy),
        json!({"admissionChecks": [{"name": "a"}, {"name": "b"}]})
    );
    let back = convert::cluster_queue::to_v1beta1(&v2cq);
    assert!(back.spec.admission_checks.is_empty(), "never filled back");
    assert_eq!(
        json_of(&back.spec.admission_checks_strategy),
        json!({"admissionChecks": [{"name": "a"}, {"name": "b"}]})
    );
}

#[test]
fn borrow_and_preempt_become_may_stop_search() {
    let cq = cq_v1(
        json!({"flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}}),
        json!({}),
    );
    let v2cq = convert::cluster_queue::to_v1beta2(&cq);
    let f = &v2cq.spec.flavor_fungibility;
    assert_eq!(
        f.when_can_borrow,
        v2::FlavorFungibilityPolicy::MayStopSearch
    );
    assert_eq!(
        f.when_can_preempt,
        v2::FlavorFungibilityPolicy::MayStopSearch
    );
    let back = convert::cluster_queue::to_v1beta1(&v2cq)
        .spec
        .flavor_fungibility;
    assert_eq!(back.when_can_borrow, WhenCanBorrow::MayStopSearch);
    assert_eq!(back.when_can_preempt, WhenCanPreempt::MayStopSearch);
}

#[test]
fn concurrent_admission_policy_is_lost_going_to_v1beta1() {
    let v2cq: v2::ClusterQueue = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
        "spec": {"concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors",
            "constraints": {"lastAcceptableFlavorName": "spot"}}}},
    }));
    let back = convert::cluster_queue::to_v1beta1(&v2cq);
    let again = convert::cluster_queue::to_v1beta2(&back);
    assert_eq!(again.spec.concurrent_admission_policy, None);
    assert_eq!(
        json_of(&back)["spec"].get("concurrentAdmissionPolicy"),
        None
    );
}

#[test]
fn cluster_queue_status_loses_pending_workloads_status_and_admission_fair_sharing() {
    let cq = cq_v1(
        json!({}),
        json!({
            "pendingWorkloads": 2,
            "pendingWorkloadsStatus": {"clusterQueuePendingWorkload": [{"name": "w", "namespace": "n"}],
                "lastChangeTime": "2025-07-22T09:00:00Z"},
            "fairSharing": {"weightedShare": 7, "admissionFairSharingStatus": {
                "consumedResources": {"cpu": "1"}, "lastUpdate": "2025-07-22T09:00:00Z"}},
        }),
    );
    let v2cq = convert::cluster_queue::to_v1beta2(&cq);
    assert_eq!(
        json_of(&v2cq)["status"],
        json!({"pendingWorkloads": 2, "reservingWorkloads": 0, "admittedWorkloads": 0,
            "fairSharing": {"weightedShare": 7}})
    );
    let back = convert::cluster_queue::to_v1beta1(&v2cq).status.unwrap();
    assert_eq!(back.pending_workloads_status, None);
    assert_eq!(
        back.fair_sharing.unwrap().admission_fair_sharing_status,
        None
    );
}

// ---- LocalQueue and Cohort ----

#[test]
fn local_queue_flavor_usage_is_renamed_and_flavors_dropped() {
    let lq: api::LocalQueue = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
        "metadata": {"name": "q", "namespace": "n"}, "spec": {"clusterQueue": "cq"},
        "status": {
            "flavorUsage": [{"name": "f", "resources": [{"name": "cpu", "total": "2"}]}],
            "flavors": [{"name": "f", "resources": ["cpu"]}],
            "fairSharing": {"weightedShare": 1, "admissionFairSharingStatus": {
                "consumedResources": {"cpu": "1"}, "lastUpdate": "2025-07-22T09:00:00Z"}},
        },
    }));
    let v2lq = convert::local_queue::to_v1beta2(&lq);
    let status = json_of(&v2lq)["status"].clone();
    assert_eq!(status["flavorsUsage"][0]["resources"][0]["total"], "2");
    assert_eq!(status.get("flavorUsage"), None);
    assert_eq!(status.get("flavors"), None);
    // A LocalQueue keeps its admission fair sharing state in v1beta2.
    assert_eq!(
        status["fairSharing"]["admissionFairSharingStatus"]["consumedResources"]["cpu"],
        "1"
    );
    let back = convert::local_queue::to_v1beta1(&v2lq).status.unwrap();
    assert_eq!(back.flavor_usage, lq.status.as_ref().unwrap().flavor_usage);
    assert!(back.flavors.is_empty());
}

#[test]
fn cohort_status_loses_admission_fair_sharing() {
    let co: api::Cohort = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort", "metadata": {"name": "c"},
        "spec": {"parentName": "root"},
        "status": {"fairSharing": {"weightedShare": 3, "admissionFairSharingStatus": {
            "consumedResources": {}, "lastUpdate": "2025-07-22T09:00:00Z"}}},
    }));
    let v2co = convert::cohort::to_v1beta2(&co);
    assert_eq!(
        json_of(&v2co)["status"],
        json!({"fairSharing": {"weightedShare": 3}})
    );
    assert_eq!(v2co.spec.parent_name.as_deref(), Some("root"));
}

// ---- Workload ----

fn wl_v1(spec: Value, status: Value) -> api::Workload {
    let mut spec = spec;
    spec["podSets"] = json!([{"name": "main", "count": 1,
        "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]);
    read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": "w", "namespace": "n"}, "spec": spec, "status": status,
    }))
}

#[test]
fn priority_class_source_and_name_become_a_reference() {
    for (source, group, kind) in [
        (
            "kueue.x-k8s.io/workloadpriorityclass",
            "kueue.x-k8s.io",
            "WorkloadPriorityClass",
        ),
        (
            "scheduling.k8s.io/priorityclass",
            "scheduling.k8s.io",
            "PriorityClass",
        ),
    ] {
        let wl = wl_v1(
            json!({"priorityClassSource": source, "priorityClassName": "high", "priority": 9}),
            json!({}),
        );
        let v2wl = convert::workload::to_v1beta2(&wl);
        assert_eq!(
            json_of(&v2wl.spec.priority_class_ref),
            json!({"group": group, "kind": kind, "name": "high"})
        );
        assert_eq!(convert::workload::to_v1beta1(&v2wl), wl);
    }
}

#[test]
fn a_priority_class_name_without_source_is_lost() {
    let wl = wl_v1(
        json!({"priorityClassName": "high", "priority": 9}),
        json!({}),
    );
    let v2wl = convert::workload::to_v1beta2(&wl);
    assert_eq!(v2wl.spec.priority_class_ref, None);
    assert_eq!(v2wl.spec.priority, Some(9));
    let back = convert::workload::to_v1beta1(&v2wl);
    assert_eq!(back.spec.priority_class_name, None);
    assert_eq!(back.spec.priority_class_source, PriorityClassSource::Unset);
}

#[test]
fn a_reference_mixing_group_and_kind_is_dropped_going_to_v1beta1() {
    let mut v2wl = convert::workload::to_v1beta2(&wl_v1(json!({}), json!({})));
    v2wl.spec.priority_class_ref = Some(v2::PriorityClassRef {
        group: v2::PriorityClassGroup::Kueue,
        kind: v2::PriorityClassKind::PriorityClass,
        name: "x".into(),
    });
    let back = convert::workload::to_v1beta1(&v2wl);
    assert_eq!(back.spec.priority_class_name, None);
    assert_eq!(back.spec.priority_class_source, PriorityClassSource::Unset);
}

#[test]
fn preemption_gates_and_slice_constraints_are_lost_going_to_v1beta1() {
    let v2wl: v2::Workload = read(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": "w", "namespace": "n"},
        "spec": {
            "podSets": [{"template": {}, "topologyRequest": {"required": "rack",
                "podsetSliceRequiredTopologyConstraints": [{"topology": "block", "size": 4}]}}],
            "preemptionGates": [{"name": "g"}],
        },
        "status": {"preemptionGates": [{"name": "g", "position": "Open",
            "lastTransitionTime": "2025-07-22T09:00:00Z"}]},
    }));
    let back = convert::workload::to_v1beta1(&v2wl);
    let again = convert::workload::to_v1beta2(&back);
    assert!(again.spec.preemption_gates.is_empty());
    assert!(again.status.unwrap().preemption_gates.is_empty());
    let request = again.spec.pod_sets[0].topology_request.clone().unwrap();
    assert_eq!(request.required.as_deref(), Some("rack"));
    assert!(
        request
            .podset_slice_required_topology_constraints
            .is_empty()
    );
}

#[test]
fn accumulated_execution_time_changes_spelling_only() {
    let wl = wl_v1(
        json!({}),
        json!({"accumulatedPastExexcutionTimeSeconds": 12}),
    );
    let v2wl = convert::workload::to_v1beta2(&wl);
    let status = json_of(&v2wl)["status"].clone();
    assert_eq!(status["accumulatedPastExecutionTimeSeconds"], 12);
    assert_eq!(status.get("accumulatedPastExexcutionTimeSeconds"), None);
    assert_eq!(convert::workload::to_v1beta1(&v2wl), wl);
}

#[test]
fn a_topology_assignment_is_re_encoded_and_expanded_again() {
    let wl = wl_v1(
        json!({}),
        json!({"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main",
            "topologyAssignment": {"levels": ["a", "b"], "domains": [
                {"values": ["a1", "b1"], "count": 10}, {"values": ["a1", "b2"], "count": 20}]}}]}}),
    );
    let v2wl = convert::workload::to_v1beta2(&wl);
    let ta = &json_of(&v2wl)["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"];
    assert_eq!(ta["slices"][0]["domainCount"], 2);
    assert_eq!(
        ta["slices"][0]["podCounts"],
        json!({"individual": [10, 20]})
    );
    assert_eq!(convert::workload::to_v1beta1(&v2wl), wl);
}

#[test]
fn a_malformed_slice_is_named_by_its_path() {
    let ta: v2::TopologyAssignment = read(json!({"levels": ["a"], "slices": [
        {"domainCount": 2, "valuesPerLevel": [{"universal": "x"}], "podCounts": {"individual": [1]}}]}));
    let err = convert::topology::check(&ta, "status.x").unwrap_err();
    assert_eq!(err.path, "status.x.slices[0].podCounts.individual");
    // The conversion itself still never panics on it.
    assert_eq!(convert::topology::to_v1beta1(&ta).domains.len(), 2);
}

// ---- Configuration ----

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
