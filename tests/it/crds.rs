//! The checked-in CRD manifests (`examples/deploy/crds/kueue.x-k8s.io_<plural>.yaml`) are the
//! output of `kubectl_kueue::api::crds()` (both versions, v1beta2 stored, the conversion
//! webhook behind the in-cluster Service), `examples/deploy/crds-v1beta1/` the output of
//! `crds_v1beta1_only()` (what older installs have, and what the live tests that run no
//! conversion webhook install), and every schema in them is structural.
//!
//! When the API types change, regenerate the manifests with
//!
//! ```sh
//! UPDATE_CRDS=1 cargo test --no-default-features --test it crds
//! ```
//!
//! and review the diff: it is what `kubectl apply` will change in a cluster.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubectl_kueue::api::crd::{
    CrdConversion, V1BETA1_DEPRECATION_WARNING, WEBHOOK_KINDS, WEBHOOK_PATH, WEBHOOK_SERVICE,
};
use kubectl_kueue::api::{
    crd::crd_yaml, crd_file_name, crds, crds_v1beta1_only, crds_with, crds_yaml,
    schema::check_structural,
};
use serde_json::{Value, json};

fn crd_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/deploy/crds")
}

fn schema_of(crd: &CustomResourceDefinition) -> Value {
    schema_of_version(crd, 0)
}

fn schema_of_version(crd: &CustomResourceDefinition, index: usize) -> Value {
    let version = &crd.spec.versions[index];
    serde_json::to_value(
        version
            .schema
            .as_ref()
            .unwrap()
            .open_api_v3_schema
            .as_ref()
            .unwrap(),
    )
    .unwrap()
}

fn crd_named<'a>(
    crds: &'a [CustomResourceDefinition],
    plural: &str,
) -> &'a CustomResourceDefinition {
    crds.iter()
        .find(|c| c.spec.names.plural == plural)
        .unwrap_or_else(|| panic!("no CRD {plural}"))
}

/// Follows `.properties.<name>` / `[]` (items) / `{}` (additionalProperties) steps.
fn at<'a>(schema: &'a Value, path: &str) -> &'a Value {
    let mut node = schema;
    for step in path.split('.').filter(|s| !s.is_empty()) {
        let (name, suffix) = step.split_at(step.find(['[', '{']).unwrap_or(step.len()));
        if !name.is_empty() {
            node = node
                .get("properties")
                .and_then(|p| p.get(name))
                .unwrap_or_else(|| panic!("no property {name} in {path}"));
        }
        for marker in suffix.as_bytes().chunks(2) {
            node = match marker {
                b"[]" => &node["items"],
                b"{}" => &node["additionalProperties"],
                _ => panic!("bad path step {step}"),
            };
        }
    }
    node
}

#[test]
fn checked_in_manifests_match_the_types() {
    check_manifests(&crd_dir(), &crds());
    check_manifests(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/deploy/crds-v1beta1"),
        &crds_v1beta1_only(),
    );
}

fn check_manifests(dir: &Path, crds: &[CustomResourceDefinition]) {
    if std::env::var_os("UPDATE_CRDS").is_some() {
        std::fs::create_dir_all(dir).unwrap();
        for crd in crds {
            std::fs::write(dir.join(crd_file_name(crd)), crd_yaml(crd)).unwrap();
        }
    }
    let mut stale = Vec::new();
    for crd in crds {
        let path = dir.join(crd_file_name(crd));
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != crd_yaml(crd) {
            stale.push(path.display().to_string());
        }
    }
    let expected: BTreeSet<String> = crds.iter().map(crd_file_name).collect();
    let present: BTreeSet<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let extra: Vec<&String> = present.difference(&expected).collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "CRD manifests out of date: {stale:?}, unexpected files: {extra:?}.\n\
         Regenerate with: UPDATE_CRDS=1 cargo test --no-default-features --test it crds"
    );
}

fn check_names(crds: &[CustomResourceDefinition]) {
    let plurals: Vec<&str> = crds.iter().map(|c| c.spec.names.plural.as_str()).collect();
    assert_eq!(
        plurals,
        [
            "clusterqueues",
            "cohorts",
            "localqueues",
            "resourceflavors",
            "workloadpriorityclasses",
            "workloads"
        ]
    );
    for crd in crds {
        assert_eq!(crd.spec.group, "kueue.x-k8s.io");
        assert_eq!(
            crd.metadata.name.as_deref(),
            Some(format!("{}.kueue.x-k8s.io", crd.spec.names.plural).as_str())
        );
        assert_eq!(
            crd.spec.names.list_kind.as_deref(),
            Some(format!("{}List", crd.spec.names.kind).as_str())
        );
    }
}

#[test]
fn both_versions_are_served_v1beta2_stored_as_upstreams() {
    let crds = crds();
    check_names(&crds);
    for crd in &crds {
        let kind = &crd.spec.names.kind;
        let names: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["v1beta1", "v1beta2"], "{kind}");
        let (v1, v2) = (&crd.spec.versions[0], &crd.spec.versions[1]);
        assert!(
            v1.served && !v1.storage,
            "{kind} v1beta1 served, not stored"
        );
        assert_eq!(v1.deprecated, Some(true), "{kind}");
        assert_eq!(
            v1.deprecation_warning.as_deref(),
            Some(V1BETA1_DEPRECATION_WARNING)
        );
        assert!(v2.served && v2.storage, "{kind} v1beta2 served and stored");
        assert_eq!(v2.deprecated, None);
        // Same subresources and printer column names in both (kubectl get looks the same).
        assert_eq!(v1.subresources, v2.subresources, "{kind}");
        let columns = |v: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion| {
            v.additional_printer_columns
                .iter()
                .flatten()
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(columns(v1), columns(v2), "{kind}");
        let conversion = serde_json::to_value(&crd.spec.conversion).unwrap();
        if WEBHOOK_KINDS.contains(&kind.as_str()) {
            assert_eq!(
                conversion,
                json!({
                    "strategy": "Webhook",
                    "webhook": {
                        "clientConfig": { "service": {
                            "name": WEBHOOK_SERVICE, "namespace": "kueue-system",
                            "path": WEBHOOK_PATH, "port": 443,
                        } },
                        "conversionReviewVersions": ["v1"],
                    },
                }),
                "{kind}"
            );
        } else {
            // ResourceFlavor and WorkloadPriorityClass have the same fields in both.
            assert_eq!(conversion, Value::Null, "{kind}");
        }
    }
    let v2_cq = schema_of_version(crd_named(&crds, "clusterqueues"), 1);
    assert!(at(&v2_cq, ".spec.cohortName").is_object());
    assert!(
        v2_cq["properties"]["spec"]["properties"]
            .get("cohort")
            .is_none()
    );
    let v2_wl = schema_of_version(crd_named(&crds, "workloads"), 1);
    assert!(at(&v2_wl, ".spec.priorityClassRef").is_object());
    let v2_rules = rules(&v2_wl);
    assert!(
        v2_rules
            .iter()
            .any(|r| r
                .contains("oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind")),
        "{v2_rules:?}"
    );
    assert_eq!(
        at(&v2_wl, ".status.admission.podSetAssignments[].name")["default"],
        "main"
    );
}

#[test]
fn the_webhook_may_be_reached_by_url_and_v1beta1_only_crds_have_no_conversion() {
    let url = "https://127.0.0.1:9443/convert";
    for crd in crds_with(&CrdConversion::url(url).unwrap()) {
        if let Some(c) = &crd.spec.conversion {
            let config = c.webhook.as_ref().unwrap().client_config.as_ref().unwrap();
            assert_eq!(config.url.as_deref(), Some(url));
            assert!(config.service.is_none() && config.ca_bundle.is_none());
        }
    }
    for bad in [
        "http://x/convert",
        "https://",
        "https://u@h/convert",
        "https://h/c?x=1",
    ] {
        assert!(CrdConversion::url(bad).is_err(), "{bad}");
    }
    let old = crds_v1beta1_only();
    check_names(&old);
    for crd in &old {
        assert_eq!(crd.spec.versions.len(), 1);
        let version = &crd.spec.versions[0];
        assert_eq!(version.name, "v1beta1");
        assert!(version.served && version.storage && version.deprecated.is_none());
        assert!(crd.spec.conversion.is_none());
    }
}

#[test]
fn names_scope_and_subresources_are_upstreams() {
    let crds = crds();
    let expect = |plural: &str, scope: &str, short: &[&str], status: bool| {
        let crd = crd_named(&crds, plural);
        assert_eq!(crd.spec.scope, scope, "{plural}");
        assert_eq!(
            crd.spec.names.short_names.clone().unwrap_or_default(),
            short,
            "{plural}"
        );
        let has_status = crd.spec.versions[0]
            .subresources
            .as_ref()
            .is_some_and(|s| s.status.is_some());
        assert_eq!(has_status, status, "{plural} status subresource");
    };
    expect("clusterqueues", "Cluster", &["cq"], true);
    expect("cohorts", "Cluster", &["co"], true);
    expect(
        "localqueues",
        "Namespaced",
        &["queue", "queues", "lq"],
        true,
    );
    expect(
        "resourceflavors",
        "Cluster",
        &["flavor", "flavors", "rf"],
        false,
    );
    expect("workloadpriorityclasses", "Cluster", &["wpc"], false);
    expect(
        "workloads",
        "Namespaced",
        &["kwl", "kueueworkload", "kueueworkloads"],
        true,
    );

    let columns = |plural: &str| -> Vec<(String, String)> {
        crd_named(&crds, plural).spec.versions[0]
            .additional_printer_columns
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.name, c.json_path))
            .collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        columns("clusterqueues"),
        pairs(&[
            ("Cohort", ".spec.cohort"),
            ("Strategy", ".spec.queueingStrategy"),
            ("Pending Workloads", ".status.pendingWorkloads"),
            ("Admitted Workloads", ".status.admittedWorkloads"),
        ])
    );
    assert_eq!(
        columns("localqueues"),
        pairs(&[
            ("ClusterQueue", ".spec.clusterQueue"),
            ("Pending Workloads", ".status.pendingWorkloads"),
            ("Admitted Workloads", ".status.admittedWorkloads"),
        ])
    );
    assert_eq!(
        columns("workloadpriorityclasses"),
        pairs(&[("Value", ".value")])
    );
    assert_eq!(
        columns("workloads"),
        pairs(&[
            ("Queue", ".spec.queueName"),
            ("Reserved in", ".status.admission.clusterQueue"),
            (
                "Admitted",
                ".status.conditions[?(@.type=='Admitted')].status"
            ),
            (
                "Finished",
                ".status.conditions[?(@.type=='Finished')].status"
            ),
            ("Age", ".metadata.creationTimestamp"),
        ])
    );
}

#[test]
fn every_schema_is_structural() {
    for (crd, version) in crds().into_iter().flat_map(|c| [(c.clone(), 0), (c, 1)]) {
        let schema = schema_of_version(&crd, version);
        if let Err(problems) = check_structural(&schema) {
            panic!(
                "{} is not structural:\n{}",
                crd.spec.names.plural,
                problems.join("\n")
            );
        }
        // Only the root and embedded objects may rely on metadata being implicit.
        assert_eq!(at(&schema, ".metadata"), &json!({ "type": "object" }));
        assert!(
            schema
                .get("required")
                .is_none_or(|r| !r.as_array().unwrap().contains(&json!("spec")))
        );
    }
}

#[test]
fn quantities_are_int_or_string_with_the_quantity_pattern() {
    let crds = crds();
    let cq = schema_of(crd_named(&crds, "clusterqueues"));
    let quota = ".spec.resourceGroups[].flavors[].resources[]";
    for field in ["nominalQuota", "borrowingLimit", "lendingLimit"] {
        let node = at(&cq, &format!("{quota}.{field}"));
        assert_eq!(node["x-kubernetes-int-or-string"], json!(true), "{field}");
        assert_eq!(
            node["anyOf"],
            json!([{ "type": "integer" }, { "type": "string" }]),
            "{field}"
        );
        assert!(
            node["pattern"].as_str().unwrap().contains("KMGTPE"),
            "{field}"
        );
    }
    assert_eq!(at(&cq, quota)["required"], json!(["name", "nominalQuota"]));
    let wl = schema_of(crd_named(&crds, "workloads"));
    let usage = at(&wl, ".status.admission.podSetAssignments[].resourceUsage{}");
    assert_eq!(usage["x-kubernetes-int-or-string"], json!(true));
    let requests = at(
        &wl,
        ".spec.podSets[].template.spec.containers[].resources.requests{}",
    );
    assert_eq!(requests["x-kubernetes-int-or-string"], json!(true));
    assert!(requests["pattern"].is_string());
}

#[test]
fn defaults_are_upstreams() {
    let crds = crds();
    let cq = schema_of(crd_named(&crds, "clusterqueues"));
    assert_eq!(
        at(&cq, ".spec.queueingStrategy")["default"],
        json!("BestEffortFIFO")
    );
    assert_eq!(
        at(&cq, ".spec.queueingStrategy")["enum"],
        json!(["StrictFIFO", "BestEffortFIFO"])
    );
    assert_eq!(at(&cq, ".spec.stopPolicy")["default"], json!("None"));
    assert_eq!(
        at(&cq, ".spec.stopPolicy")["enum"],
        json!(["None", "Hold", "HoldAndDrain"])
    );
    assert_eq!(
        at(&cq, ".spec.preemption.reclaimWithinCohort")["default"],
        json!("Never")
    );
    assert_eq!(
        at(&cq, ".spec.preemption.reclaimWithinCohort")["enum"],
        json!(["Never", "LowerPriority", "Any"])
    );
    assert_eq!(
        at(&cq, ".spec.preemption.withinClusterQueue")["default"],
        json!("Never")
    );
    assert_eq!(
        at(&cq, ".spec.preemption.withinClusterQueue")["enum"],
        json!(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
    );
    assert_eq!(
        at(&cq, ".spec.preemption.borrowWithinCohort.policy")["default"],
        json!("Never")
    );
    assert_eq!(
        at(&cq, ".spec.flavorFungibility.whenCanBorrow")["default"],
        json!("MayStopSearch")
    );
    assert_eq!(
        at(&cq, ".spec.flavorFungibility.whenCanBorrow")["enum"],
        json!(["MayStopSearch", "TryNextFlavor", "Borrow"])
    );
    assert_eq!(
        at(&cq, ".spec.flavorFungibility.whenCanPreempt")["default"],
        json!("TryNextFlavor")
    );
    assert_eq!(
        at(&cq, ".spec.flavorFungibility.whenCanPreempt")["enum"],
        json!(["MayStopSearch", "TryNextFlavor", "Preempt"])
    );
    assert!(at(&cq, ".spec.preemption").get("default").is_some());
    assert!(at(&cq, ".spec.flavorFungibility").get("default").is_some());
    assert!(
        at(&cq, ".status.pendingWorkloads").get("default").is_none(),
        "no defaults in status"
    );

    let lq = schema_of(crd_named(&crds, "localqueues"));
    assert_eq!(at(&lq, ".spec.stopPolicy")["default"], json!("None"));

    let wl = schema_of(crd_named(&crds, "workloads"));
    assert_eq!(at(&wl, ".spec.podSets[].name")["default"], json!("main"));
    assert_eq!(at(&wl, ".spec.podSets[].count")["default"], json!(1));
    assert_eq!(
        at(&wl, ".spec.podSets[].count")["minimum"].as_f64(),
        Some(0.0)
    );
    assert_eq!(
        at(&wl, ".spec.podSets[].minCount")["minimum"].as_f64(),
        Some(1.0)
    );
    assert_eq!(at(&wl, ".spec.podSets")["minItems"], json!(1));
    assert_eq!(at(&wl, ".spec.podSets")["maxItems"], json!(18));
    assert_eq!(at(&wl, ".spec.active")["default"], json!(true));
    assert_eq!(at(&wl, ".spec.priorityClassSource")["default"], json!(""));
    assert_eq!(
        at(&wl, ".spec.priorityClassSource")["enum"],
        json!([
            "kueue.x-k8s.io/workloadpriorityclass",
            "scheduling.k8s.io/priorityclass",
            ""
        ])
    );
    assert_eq!(
        at(&wl, ".spec.maximumExecutionTimeSeconds")["minimum"].as_f64(),
        Some(1.0)
    );
    assert_eq!(
        at(&wl, ".status.admission.podSetAssignments[].name")["default"],
        json!("main")
    );
    assert_eq!(at(&wl, ".spec")["required"], json!(["podSets"]));

    let fair = at(&cq, ".spec.fairSharing.weight");
    assert_eq!(fair["default"], json!("1"));

    let wpc = schema_of(crd_named(&crds, "workloadpriorityclasses"));
    assert_eq!(wpc["required"], json!(["value"]));
    assert_eq!(at(&wpc, ".value")["format"], json!("int32"));
    assert_eq!(at(&wpc, ".description")["type"], json!("string"));
}

fn rules(node: &Value) -> Vec<String> {
    node.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|r| r["rule"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_key_validation_rules_are_there() {
    let crds = crds();
    let cq = schema_of(crd_named(&crds, "clusterqueues"));
    let spec_rules = rules(at(&cq, ".spec"));
    assert!(
        spec_rules
            .iter()
            .any(|r| r.contains("!has(self.cohort)") && r.contains("borrowingLimit"))
    );
    // As upstream: no CRD rule for lendingLimit without a cohort; the validating admission
    // policy rejects it with the webhook's message and field path.
    assert!(!spec_rules.iter().any(|r| r.contains("lendingLimit")));
    let policies =
        kubectl_kueue::manifests::validation::policies("kueue-system", &serde_json::json!({}));
    let cq_policy = serde_json::to_string(&policies[0]).unwrap();
    assert!(
        policies[0]["metadata"]["name"] == "kubectl-kueue-validate-clusterqueues"
            && cq_policy.contains(".lendingLimit")
            && cq_policy.contains("must be nil when cohort is empty")
    );
    let preemption = rules(at(&cq, ".spec.preemption"));
    assert!(
        preemption
            .iter()
            .any(|r| r.contains("reclaimWithinCohort == 'Never'")
                && r.contains("borrowWithinCohort.policy != 'Never'"))
    );
    assert!(
        rules(at(&cq, ".spec.flavorFungibility"))
            .iter()
            .any(|r| r.contains("has(self.preference)"))
    );
    // Resources are matched to coveredResources by name: same count, any order.
    let group_rules = rules(at(&cq, ".spec.resourceGroups[]"));
    assert_eq!(
        group_rules,
        ["self.flavors.all(x, size(x.resources) == size(self.coveredResources))"]
    );
    assert_eq!(
        at(&cq, ".spec.resourceGroups[].flavors")["x-kubernetes-list-map-keys"],
        json!(["name"])
    );
    assert_eq!(at(&cq, ".spec.resourceGroups")["maxItems"], json!(16));
    assert_eq!(
        at(&cq, ".spec.resourceGroups[].coveredResources")["minItems"],
        json!(1)
    );
    assert_eq!(at(&cq, ".spec.cohort")["maxLength"], json!(253));

    let cohort = schema_of(crd_named(&crds, "cohorts"));
    // As upstream: the Cohort schema has no limit rules; the policy says "when parent is empty".
    assert!(rules(at(&cohort, ".spec")).is_empty());
    assert!(
        policies[2]["metadata"]["name"] == "kubectl-kueue-validate-cohorts"
            && serde_json::to_string(&policies[2])
                .unwrap()
                .contains("must be nil when parent is empty")
    );

    let lq = schema_of(crd_named(&crds, "localqueues"));
    assert_eq!(rules(at(&lq, ".spec.clusterQueue")), ["self == oldSelf"]);

    let rf = schema_of(crd_named(&crds, "resourceflavors"));
    assert_eq!(at(&rf, ".spec.nodeLabels")["maxProperties"], json!(8));
    assert_eq!(rules(at(&rf, ".spec.tolerations")).len(), 5);
    assert_eq!(rules(at(&rf, ".spec")).len(), 4);

    let wl = schema_of(crd_named(&crds, "workloads"));
    assert!(
        rules(at(&wl, ".spec"))
            .iter()
            .any(|r| r.contains("has(self.priority)"))
    );
    assert!(
        rules(at(&wl, ".spec.podSets[]"))
            .iter()
            .any(|r| r.contains("self.minCount <= self.count"))
    );
    let root_rules = rules(&wl);
    assert_eq!(root_rules.len(), 5);
    assert!(
        root_rules[0]
            .contains("size(self.spec.podSets) == size(self.status.admission.podSetAssignments)")
    );
    assert_eq!(rules(at(&wl, ".status")).len(), 2);
}

#[test]
fn pod_templates_keep_a_minimal_metadata_and_no_descriptions() {
    let crds = crds();
    let wl = schema_of(crd_named(&crds, "workloads"));
    let metadata = at(&wl, ".spec.podSets[].template.metadata");
    let keys: Vec<&String> = metadata["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["annotations", "finalizers", "labels", "name", "namespace"]
    );
    let spec = at(&wl, ".spec.podSets[].template.spec");
    assert!(spec["properties"]["containers"].is_object());
    assert!(
        !serde_json::to_string(spec)
            .unwrap()
            .contains("\"description\"")
    );
    // Small enough for a client-side `kubectl apply` (256 KiB last-applied annotation).
    let json_size = serde_json::to_string(crd_named(&crds, "workloads"))
        .unwrap()
        .len();
    assert!(
        json_size < 256 * 1024,
        "workloads CRD is {json_size} bytes of JSON"
    );
}

#[test]
fn all_crds_as_one_stream() {
    let yaml = crds_yaml();
    let docs: Vec<CustomResourceDefinition> = serde_yaml::Deserializer::from_str(&yaml)
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .collect();
    assert_eq!(docs, crds());
}
