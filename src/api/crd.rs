//! The CustomResourceDefinitions of the Kueue kinds, built from the Rust types: names, scope,
//! printer columns and subresources from kube-derive (or the hand-written
//! WorkloadPriorityClass), schemas from [`super::schema`], plus the object-level rules that
//! live above `spec` and `status`.
//!
//! Every CRD serves both versions as upstream's do: v1beta1 (deprecated, with upstream's
//! warning) and v1beta2, the storage version. The kinds whose fields differ between the
//! versions (ClusterQueue, Cohort, LocalQueue, Workload) convert through the webhook
//! `run-controller` serves at [`WEBHOOK_PATH`]; ResourceFlavor and WorkloadPriorityClass have
//! the same fields in both and let the API server rewrite `apiVersion` (upstream's choice).
//! [`CrdConversion::V1beta1Only`] gives the CRDs this product installed before, which need no
//! webhook.
//!
//! The manifests under `examples/deploy/crds/` are this module's output (and
//! `examples/deploy/crds-v1beta1/` the v1beta1-only set); `tests/crds.rs` fails when they drift.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionVersion,
    CustomResourceValidation, JSONSchemaProps, ServiceReference, WebhookClientConfig,
    WebhookConversion,
};
use kube_core::crd::v1::CustomResourceExt;
use schemars::JsonSchema;
use serde_json::{Value, json};

use super::schema::structural_schema_for;
use super::v1beta2 as v2;
use super::{
    ClusterQueue, ClusterQueueSpec, ClusterQueueStatus, Cohort, CohortSpec, CohortStatus,
    LocalQueue, LocalQueueSpec, LocalQueueStatus, ResourceFlavor, ResourceFlavorSpec, Workload,
    WorkloadPriorityClass, WorkloadSpec, WorkloadStatus,
};

/// Name of the Service in front of the controller's conversion webhook.
pub const WEBHOOK_SERVICE: &str = super::config::DEFAULT_WEBHOOK_SERVICE_NAME;
/// The path of the conversion webhook (controller-runtime's).
pub const WEBHOOK_PATH: &str = "/convert";
/// The namespace the CRDs' webhook Service is in when none is given (upstream's).
pub const DEFAULT_WEBHOOK_NAMESPACE: &str = "kueue-system";
/// The warning the API server gives every v1beta1 request (upstream's text).
pub const V1BETA1_DEPRECATION_WARNING: &str = "This version is deprecated. Use v1beta2 instead.";
/// The kinds that convert through the webhook (their fields differ between the versions).
pub const WEBHOOK_KINDS: &[&str] = &["ClusterQueue", "Cohort", "LocalQueue", "Workload"];

/// How the CRDs reach the conversion webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdConversion {
    /// Only v1beta1, served and stored, no conversion (what this product installed before
    /// v1beta2 was served; needs no webhook).
    V1beta1Only,
    /// Both versions, the webhook behind the Service [`WEBHOOK_SERVICE`] in this namespace
    /// (the controller in the cluster).
    Service {
        /// Namespace of the Service.
        namespace: String,
    },
    /// Both versions, the webhook at this `https://` URL (a controller outside the cluster,
    /// e.g. `https://127.0.0.1:9443/convert`).
    Url(String),
}

impl CrdConversion {
    /// Checks a webhook URL as the API server requires it: `https://host[:port][/path]`,
    /// without user, query or fragment.
    pub fn url(url: &str) -> Result<CrdConversion, String> {
        let rest = url
            .strip_prefix("https://")
            .ok_or_else(|| format!("--webhook-url {url:?}: must start with https://"))?;
        let host = rest.split('/').next().unwrap_or("");
        if host.is_empty() || url.contains(['?', '#', '@']) || url.contains(char::is_whitespace) {
            return Err(format!(
                "--webhook-url {url:?}: expected https://HOST[:PORT]/PATH without user, query or fragment"
            ));
        }
        Ok(CrdConversion::Url(url.to_string()))
    }
}

/// Every CRD of the product, in a stable order, with the webhook behind the Service in
/// [`DEFAULT_WEBHOOK_NAMESPACE`].
pub fn crds() -> Vec<CustomResourceDefinition> {
    crds_with(&CrdConversion::Service {
        namespace: DEFAULT_WEBHOOK_NAMESPACE.to_string(),
    })
}

/// The v1beta1-only CRDs (what this product installed before it served v1beta2).
pub fn crds_v1beta1_only() -> Vec<CustomResourceDefinition> {
    crds_with(&CrdConversion::V1beta1Only)
}

/// Every CRD, reaching the webhook as `conversion` says.
pub fn crds_with(conversion: &CrdConversion) -> Vec<CustomResourceDefinition> {
    let v1 = v1beta1_crds();
    if *conversion == CrdConversion::V1beta1Only {
        return v1;
    }
    v1.into_iter()
        .zip(v1beta2_versions())
        .map(|(mut crd, v2)| {
            let v1 = crd.spec.versions.first_mut().expect("one version");
            v1.storage = false;
            v1.deprecated = Some(true);
            v1.deprecation_warning = Some(V1BETA1_DEPRECATION_WARNING.to_string());
            crd.spec.versions.push(v2);
            if WEBHOOK_KINDS.contains(&crd.spec.names.kind.as_str()) {
                crd.spec.conversion = Some(webhook_conversion(client_config(conversion)));
            }
            crd
        })
        .collect()
}

fn client_config(conversion: &CrdConversion) -> WebhookClientConfig {
    match conversion {
        CrdConversion::Url(url) => WebhookClientConfig {
            url: Some(url.clone()),
            ..WebhookClientConfig::default()
        },
        CrdConversion::Service { namespace } => WebhookClientConfig {
            service: Some(ServiceReference {
                name: WEBHOOK_SERVICE.to_string(),
                namespace: namespace.clone(),
                path: Some(WEBHOOK_PATH.to_string()),
                port: Some(443),
            }),
            ..WebhookClientConfig::default()
        },
        // Not called for these (they have no conversion); an empty config would be refused.
        CrdConversion::V1beta1Only => WebhookClientConfig::default(),
    }
}

fn webhook_conversion(client_config: WebhookClientConfig) -> CustomResourceConversion {
    CustomResourceConversion {
        strategy: "Webhook".to_string(),
        webhook: Some(WebhookConversion {
            client_config: Some(client_config),
            conversion_review_versions: vec!["v1".to_string()],
        }),
    }
}

/// The v1beta1 CRDs, v1beta1 served and stored.
fn v1beta1_crds() -> Vec<CustomResourceDefinition> {
    vec![
        with_schema::<ClusterQueue>(
            "A pool of quota per flavor and resource, shared by the LocalQueues that point to it.",
            Some(cluster_queue_spec(
                structural_schema_for::<ClusterQueueSpec>(true),
            )),
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

/// The v1beta2 version of every CRD, in [`v1beta1_crds`]' order, v1beta2 served and stored.
fn v1beta2_versions() -> Vec<CustomResourceDefinitionVersion> {
    let version =
        |crd: CustomResourceDefinition| crd.spec.versions.into_iter().next().expect("one version");
    let mut wpc = version(workload_priority_class_crd());
    let mut fields = structural_schema_for::<v2::WorkloadPriorityClass>(true);
    let mut root = base_root(
        "A named priority for workloads, chosen by Jobs with the label kueue.x-k8s.io/priority-class.",
        v2::API_VERSION,
    );
    let props = root["properties"]
        .as_object_mut()
        .expect("root has properties");
    if let Some(Value::Object(own)) = fields.get_mut("properties").map(Value::take) {
        props.extend(own);
    }
    root["required"] = fields["required"].take();
    wpc.name = v2::VERSION.to_string();
    wpc.schema = Some(validation("workloadpriorityclasses", root));
    vec![
        version(with_schema_in::<v2::ClusterQueue>(
            "A pool of quota per flavor and resource, shared by the LocalQueues that point to it.",
            v2::API_VERSION,
            Some(cluster_queue_spec(structural_schema_for::<
                v2::ClusterQueueSpec,
            >(true))),
            Some(status_schema::<v2::ClusterQueueStatus>(true)),
            Vec::new(),
        )),
        version(with_schema_in::<v2::Cohort>(
            "A node of the cohort tree through which ClusterQueues share unused quota.",
            v2::API_VERSION,
            Some(structural_schema_for::<v2::CohortSpec>(true)),
            Some(status_schema::<v2::CohortStatus>(true)),
            Vec::new(),
        )),
        version(with_schema_in::<v2::LocalQueue>(
            "A namespaced queue that workloads are submitted to; it feeds one ClusterQueue.",
            v2::API_VERSION,
            Some(structural_schema_for::<v2::LocalQueueSpec>(true)),
            Some(status_schema::<v2::LocalQueueStatus>(true)),
            Vec::new(),
        )),
        version(with_schema_in::<v2::ResourceFlavor>(
            "A kind of node that ClusterQueues give quota for, matched to nodes by labels and taints.",
            v2::API_VERSION,
            Some(structural_schema_for::<v2::ResourceFlavorSpec>(true)),
            None,
            Vec::new(),
        )),
        wpc,
        version(workload_v1beta2_crd()),
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
fn cluster_queue_spec(mut spec: Value) -> Value {
    let expressions =
        &mut spec["properties"]["namespaceSelector"]["properties"]["matchExpressions"];
    expressions["x-kubernetes-list-type"] = json!("atomic");
    expressions["items"]["properties"]["values"]["x-kubernetes-list-type"] = json!("atomic");
    spec
}

/// A Workload status schema with the one default upstream puts in it.
fn workload_status(mut status: Value) -> Value {
    // The only default upstream puts inside a Workload's status; the name is required there
    // as upstream's schema says (the default fills it first).
    let assignment =
        &mut status["properties"]["admission"]["properties"]["podSetAssignments"]["items"];
    assignment["properties"]["name"]["default"] = json!("main");
    assignment["required"] = json!(["name"]);
    status
}

fn quota_reserved(obj: &str) -> String {
    format!(
        "has({obj}.status) && has({obj}.status.conditions) && {obj}.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
    )
}

fn admitted(obj: &str) -> String {
    format!(
        "has({obj}.status) && has({obj}.status.conditions) && {obj}.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')"
    )
}

/// The Workload rules both versions have: the assignment count, and `queueName` and
/// `maximumExecutionTimeSeconds` immutable while admitted.
fn workload_common_rules() -> (Value, Vec<Value>) {
    let count = rule(
        &format!(
            "{} && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true",
            quota_reserved("self")
        ),
        "podSetAssignments must have the same number of podSets as the spec",
    );
    let rest = vec![
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
    (count, rest)
}

fn workload_crd() -> CustomResourceDefinition {
    let status = workload_status(status_schema::<WorkloadStatus>(false));
    let mut spec = structural_schema_for::<WorkloadSpec>(false);
    // v1beta1's podSet count is required (and defaulted to 1 first), as upstream's.
    spec["properties"]["podSets"]["items"]["required"] = json!(["count", "template"]);
    let (count, rest) = workload_common_rules();
    let mut rules = vec![
        count,
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
    ];
    rules.extend(rest);
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

/// The v1beta2 Workload: `priorityClassRef` in place of the source and name, with upstream's
/// rules on it.
fn workload_v1beta2_crd() -> CustomResourceDefinition {
    let status = workload_status(status_schema::<v2::WorkloadStatus>(false));
    let mut spec = structural_schema_for::<v2::WorkloadSpec>(false);
    // The type reads a missing list as empty; the schema requires one pod set, no default.
    if let Some(pod_sets) = spec["properties"]["podSets"].as_object_mut() {
        pod_sets.remove("default");
    }
    let (count, rest) = workload_common_rules();
    let both = |extra: &str| {
        format!(
            "({} && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef){extra})",
            quota_reserved("oldSelf")
        )
    };
    let mut rules = vec![
        count,
        rule(
            &format!(
                "({}) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true",
                quota_reserved("oldSelf")
            ),
            "priorityClassRef is immutable while workload quota reserved",
        ),
        rule(
            &format!(
                "{} ? oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true",
                both("")
            ),
            "priorityClassRef.group is immutable while workload quota reserved",
        ),
        rule(
            &format!(
                "{} ? oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true",
                both("")
            ),
            "priorityClassRef.kind is immutable while workload quota reserved",
        ),
        rule(
            &format!(
                "{} ? oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true",
                both(
                    " && self.spec.priorityClassRef.group == 'scheduling.k8s.io' && self.spec.priorityClassRef.kind == 'PriorityClass'"
                )
            ),
            "priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while workload quota reserved",
        ),
    ];
    rules.extend(rest);
    with_schema_in::<v2::Workload>(
        "A unit of admission: pod sets that get quota, and run, together.",
        v2::API_VERSION,
        Some(spec),
        Some(status),
        rules,
    )
}

fn workload_priority_class_crd() -> CustomResourceDefinition {
    let mut fields = structural_schema_for::<WorkloadPriorityClass>(true);
    let mut root = base_root(
        "A named priority for workloads, chosen by Jobs with the label kueue.x-k8s.io/priority-class.",
        super::API_VERSION,
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
fn base_root(description: &str, api_version: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": {
            "apiVersion": {
                "type": "string",
                "description": format!("Versioned schema of this object: {api_version}."),
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
    with_schema_in::<K>(description, super::API_VERSION, spec, status, root_rules)
}

fn with_schema_in<K: CustomResourceExt>(
    description: &str,
    api_version: &str,
    spec: Option<Value>,
    status: Option<Value>,
    root_rules: Vec<Value>,
) -> CustomResourceDefinition {
    let mut root = base_root(description, api_version);
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
    let schema = validation(crd_name(&crd), root);
    crd.spec.names.list_kind = Some(format!("{}List", crd.spec.names.kind));
    let version = crd.spec.versions.first_mut().expect("one version");
    version.schema = Some(schema);
    crd
}

fn validation(name: &str, root: Value) -> CustomResourceValidation {
    let props: JSONSchemaProps = serde_json::from_value(root.clone())
        .unwrap_or_else(|err| panic!("{name}: schema does not parse: {err}"));
    // JSONSchemaProps drops keys it does not know; make sure nothing we generated was lost.
    let back = serde_json::to_value(&props).expect("schema serializes");
    if let Some(difference) = first_difference(&root, &back, "") {
        panic!("{name}: schema changed by JSONSchemaProps at {difference}");
    }
    CustomResourceValidation {
        open_api_v3_schema: Some(props),
    }
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
