//! The v1beta2 types and upstream's conversion rules: each v1beta2 kind reads upstream-shaped
//! documents with upstream's defaults, the kinds upstream left unchanged keep v1beta1's schema,
//! and every lossy rule of upstream's conversion behaves as upstream's (one table row each).
//! The Configuration's rules are in `api_v1beta2_config`, the round-trip properties in
//! `api_v1beta2_roundtrip`.

use kubectl_kueue::api::convert;
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
