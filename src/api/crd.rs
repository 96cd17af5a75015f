//! The CustomResourceDefinitions of the Kueue kinds, built from the Rust types: names, scope,
//! printer columns and subresources from kube-derive (or the hand-written
//! WorkloadPriorityClass), schemas from [`super::schema`], plus the object-level rules that
//! live above `spec` and `status`.
//!
//! The manifests under `examples/deploy/crds/` are this module's output; `tests/crds.rs` fails
//! when they drift.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps,
};
use kube_core::crd::v1::CustomResourceExt;
use schemars::JsonSchema;
use serde_json::{Value, json};

use super::schema::structural_schema_for;
use super::{
    ClusterQueue, ClusterQueueSpec, ClusterQueueStatus, Cohort, CohortSpec, CohortStatus,
    LocalQueue, LocalQueueSpec, LocalQueueStatus, ResourceFlavor, ResourceFlavorSpec, Workload,
    WorkloadPriorityClass, WorkloadSpec, WorkloadStatus,
};

/// Every CRD of the product, in a stable order.
pub fn crds() -> Vec<CustomResourceDefinition> {
    vec![
        with_schema::<ClusterQueue>(
            "A pool of quota per flavor and resource, shared by the LocalQueues that point to it.",
            Some(cluster_queue_spec()),
            Some(status_schema::<ClusterQueueStatus>(true)),
            Vec::new(),
        ),
        with_schema::<Cohort>(
            "A node of the cohort tree through which ClusterQueues share unused quota.",
            Some(structural_schema_for::<CohortSpec>(true)),
            Some(status_schema::<CohortStatus>(true)),
            Vec::new(),
        ),
        with_schema::<LocalQueue>(
            "A namespaced queue that workloads are submitted to; it feeds one ClusterQueue.",
            Some(structural_schema_for::<LocalQueueSpec>(true)),
            Some(status_schema::<LocalQueueStatus>(true)),
            Vec::new(),
        ),
        with_schema::<ResourceFlavor>(
            "A kind of node that ClusterQueues give quota for, matched to nodes by labels and taints.",
            Some(structural_schema_for::<ResourceFlavorSpec>(true)),
            None,
            Vec::new(),
        ),
        workload_priority_class_crd(),
        workload_crd(),
    ]
}

/// All CRDs as one multi-document YAML stream.
pub fn crds_yaml() -> String {
    crds()
        .iter()
        .map(crd_yaml)
        .collect::<Vec<_>>()
        .join("---\n")
}

/// One CRD as YAML.
pub fn crd_yaml(crd: &CustomResourceDefinition) -> String {
    serde_yaml::to_string(crd).expect("a CRD always serializes")
}

/// The file name a CRD is kept under, like upstream's: `kueue.x-k8s.io_<plural>.yaml`.
pub fn crd_file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}_{}.yaml", crd.spec.group, crd.spec.names.plural)
}

/// The ClusterQueue spec with the list types upstream's schema gives the embedded
/// `metav1.LabelSelector` (atomic lists, as its Go markers say).
fn cluster_queue_spec() -> Value {
    let mut spec = structural_schema_for::<ClusterQueueSpec>(true);
    let expressions =
        &mut spec["properties"]["namespaceSelector"]["properties"]["matchExpressions"];
    expressions["x-kubernetes-list-type"] = json!("atomic");
    expressions["items"]["properties"]["values"]["x-kubernetes-list-type"] = json!("atomic");
    spec
}

fn workload_crd() -> CustomResourceDefinition {
    let mut status = status_schema::<WorkloadStatus>(false);
    // The only default upstream puts inside a Workload's status; the name is required there
    // as upstream's schema says (the default fills it first).
    let assignment =
        &mut status["properties"]["admission"]["properties"]["podSetAssignments"]["items"];
    assignment["properties"]["name"]["default"] = json!("main");
    assignment["required"] = json!(["name"]);
    let mut spec = structural_schema_for::<WorkloadSpec>(false);
    // v1beta1's podSet count is required (and defaulted to 1 first), as upstream's.
    spec["properties"]["podSets"]["items"]["required"] = json!(["count", "template"]);
    let quota_reserved = |obj: &str| {
        format!(
            "has({obj}.status) && has({obj}.status.conditions) && {obj}.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
        )
    };
    let admitted = |obj: &str| {
        format!(
            "has({obj}.status) && has({obj}.status.conditions) && {obj}.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')"
        )
    };
    let rules = vec![
        rule(
            &format!(
                "{} && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true",
                quota_reserved("self")
            ),
            "podSetAssignments must have the same number of podSets as the spec",
        ),
        rule(
            &format!(
                "({} && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource)) ? (oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true",
                quota_reserved("oldSelf")
            ),
            "priorityClassSource is immutable while workload quota reserved",
        ),
        rule(
            &format!(
                "({} && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource) && (self.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true",
                quota_reserved("oldSelf")
            ),
            "priorityClassName is immutable while workload quota reserved and priorityClassSource is not equal to kueue.x-k8s.io/workloadpriorityclass",
        ),
        rule(
            &format!(
                "(({}) && ({})) ? ((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && (!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true",
                quota_reserved("oldSelf"),
                quota_reserved("self")
            ),
            "queueName is immutable while workload quota reserved",
        ),
        rule(
            &format!(
                "(({}) && ({})) ? ((has(oldSelf.spec.maximumExecutionTimeSeconds) ? oldSelf.spec.maximumExecutionTimeSeconds : 0) == (has(self.spec.maximumExecutionTimeSeconds) ? self.spec.maximumExecutionTimeSeconds : 0)) : true",
                admitted("oldSelf"),
                admitted("self")
            ),
            "maximumExecutionTimeSeconds is immutable while workload quota reserved",
        ),
    ];
    with_schema::<Workload>(
        "A unit of admission: pod sets that get quota, and run, together.",
        // Pod templates carry the whole core/v1 PodSpec; without its descriptions the CRD stays
        // small enough for a client-side `kubectl apply` (its last-applied annotation is capped
        // at 256 KiB).
        Some(spec),
        Some(status),
        rules,
    )
}

fn workload_priority_class_crd() -> CustomResourceDefinition {
    let mut fields = structural_schema_for::<WorkloadPriorityClass>(true);
    let mut root = base_root(
        "A named priority for workloads, chosen by Jobs with the label kueue.x-k8s.io/priority-class.",
    );
    let props = root["properties"]
        .as_object_mut()
        .expect("root has properties");
    if let Some(Value::Object(own)) = fields.get_mut("properties").map(Value::take) {
        props.extend(own);
    }
    root["required"] = fields["required"].take();
    set_schema(WorkloadPriorityClass::crd(), root)
}

fn rule(rule: &str, message: &str) -> Value {
    json!({ "rule": rule, "message": message })
}

/// The root object schema shared by every kind: `apiVersion`, `kind` and a bare `metadata`
/// (the API server validates metadata itself).
fn base_root(description: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": {
            "apiVersion": {
                "type": "string",
                "description": "Versioned schema of this object: kueue.x-k8s.io/v1beta1.",
            },
            "kind": { "type": "string", "description": "Kind of this object." },
            "metadata": { "type": "object" },
        },
    })
}

fn with_schema<K: CustomResourceExt>(
    description: &str,
    spec: Option<Value>,
    status: Option<Value>,
    root_rules: Vec<Value>,
) -> CustomResourceDefinition {
    let mut root = base_root(description);
    if let Some(mut spec) = spec {
        spec["description"] = json!("Desired state.");
        root["properties"]["spec"] = spec;
    }
    if let Some(mut status) = status {
        status["description"] = json!("Observed state, written by the controller.");
        root["properties"]["status"] = status;
    }
    if !root_rules.is_empty() {
        root["x-kubernetes-validations"] = Value::Array(root_rules);
    }
    set_schema(K::crd(), root)
}

/// The schema of a status type. Status fields are written by the controller and not defaulted
/// by the API server (upstream's CRDs have no status defaults but one), while schemars derives a
/// default from each `#[serde(default)]`: drop them.
fn status_schema<T: JsonSchema>(keep_k8s_descriptions: bool) -> Value {
    let mut schema = structural_schema_for::<T>(keep_k8s_descriptions);
    strip_defaults(&mut schema);
    schema
}

fn strip_defaults(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    map.remove("default");
    for (key, child) in map.iter_mut() {
        if key == "properties" {
            if let Value::Object(props) = child {
                props.values_mut().for_each(strip_defaults);
            }
        } else if key == "items" || key == "additionalProperties" {
            strip_defaults(child);
        }
    }
}

fn set_schema(mut crd: CustomResourceDefinition, root: Value) -> CustomResourceDefinition {
    let props: JSONSchemaProps = serde_json::from_value(root.clone())
        .unwrap_or_else(|err| panic!("{}: schema does not parse: {err}", crd_name(&crd)));
    // JSONSchemaProps drops keys it does not know; make sure nothing we generated was lost.
    let back = serde_json::to_value(&props).expect("schema serializes");
    if let Some(difference) = first_difference(&root, &back, "") {
        panic!(
            "{}: schema changed by JSONSchemaProps at {difference}",
            crd_name(&crd)
        );
    }
    crd.spec.names.list_kind = Some(format!("{}List", crd.spec.names.kind));
    let version = crd.spec.versions.first_mut().expect("one version");
    version.schema = Some(CustomResourceValidation {
        open_api_v3_schema: Some(props),
    });
    crd
}

/// Where `b` differs from `a`, numbers compared by value (JSONSchemaProps keeps limits as
/// floats).
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter()
                .find_map(|key| match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => first_difference(x, y, &format!("{path}.{key}")),
                    (Some(_), None) => Some(format!("{path}.{key} (dropped)")),
                    (None, _) => Some(format!("{path}.{key} (added)")),
                })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"))),
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => None,
        _ if a == b => None,
        _ => Some(format!("{path}: {a} became {b}")),
    }
}

fn crd_name(crd: &CustomResourceDefinition) -> &str {
    crd.metadata.name.as_deref().unwrap_or("?")
}
