//! ValidatingAdmissionPolicies (CEL, evaluated inside the API server: no webhook server) with
//! the rules of upstream Kueue's validating webhooks for ClusterQueues, Cohorts,
//! ResourceFlavors, Workloads (`workloads` and `workloads/status`) and queue-labelled batch/v1
//! Jobs. `kubectl kueue install` applies them with the CRDs.
//!
//! Invariants: each policy computes `variables.errors`, the list of upstream's field errors
//! (`<path>: <Type>: <value>: <detail>`) in upstream's order, and denies with one message: the
//! single error, or `[e1, e2, ...]` as upstream's aggregate prints several. The denial reads
//! `ValidatingAdmissionPolicy '<name>' with binding '<name>' denied request: <errors>` where
//! upstream's reads `admission webhook "<name>" denied the request: <errors>`; both are HTTP
//! 403 Forbidden. Rules that CEL cannot express are listed in each module's docs; the
//! engine rejects what they would have (see `manifests::convert`).

mod cel;
mod job;
mod queues;
mod workload;

use serde_json::{Value, json};

/// Prefix of every validating policy's (and binding's) name.
pub const PREFIX: &str = "kubectl-kueue-validate-";

/// One policy: what it matches, its variables (`errors` last) and the match condition.
struct Spec {
    resource: &'static str,
    group: &'static str,
    versions: &'static [&'static str],
    resources: &'static [&'static str],
    variables: Vec<(&'static str, String)>,
    errors: String,
    match_condition: Option<String>,
    namespace_selector: Option<Value>,
}

fn policy(spec: Spec, labels: &Value) -> Vec<Value> {
    let name = format!("{PREFIX}{}", spec.resource);
    let mut variables: Vec<Value> = spec
        .variables
        .into_iter()
        .map(|(n, e)| json!({ "name": n, "expression": e }))
        .collect();
    variables.push(json!({ "name": "errors", "expression": spec.errors }));
    let mut constraints = json!({
        "matchPolicy": "Equivalent",
        "resourceRules": [{
            "apiGroups": [spec.group],
            "apiVersions": spec.versions,
            "operations": ["CREATE", "UPDATE"],
            "resources": spec.resources,
        }],
    });
    if let Some(selector) = spec.namespace_selector {
        constraints["namespaceSelector"] = selector;
    }
    let mut body = json!({
        "failurePolicy": "Fail",
        "matchConstraints": constraints,
        "variables": variables,
        "validations": [{
            "expression": "size(variables.errors) == 0",
            "messageExpression": "string(size(variables.errors) == 1 ? variables.errors[0] : \"[\" + variables.errors.join(\", \") + \"]\")",
            "message": format!("the {} is invalid", spec.resource),
            "reason": "Forbidden",
        }],
    });
    if let Some(condition) = spec.match_condition {
        body["matchConditions"] = json!([{ "name": "kueue-managed", "expression": condition }]);
    }
    vec![
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": { "name": name, "labels": labels },
            "spec": body,
        }),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": { "name": name, "labels": labels },
            "spec": { "policyName": name, "validationActions": ["Deny"] },
        }),
    ]
}

/// The policies and their bindings. Jobs in kube-system and in the controller's `namespace`
/// are not checked (upstream's namespace selector).
pub fn policies(namespace: &str, labels: &Value) -> Vec<Value> {
    let kueue = |resource, resources, variables, errors| Spec {
        resource,
        group: crate::api::GROUP,
        // v1beta2 requests are converted to v1beta1 first (matchPolicy Equivalent).
        versions: &["v1beta1"],
        resources,
        variables,
        errors,
        match_condition: None,
        namespace_selector: None,
    };
    // `spec` is optional in these kinds' CRDs (an empty ResourceFlavor is the usual one):
    // without it there is nothing to check, and a path into it would fail to evaluate.
    let without_spec_valid = |errors: String| format!("!has(object.spec) ? [] : ({errors})");
    let specs = vec![
        kueue(
            "clusterqueues",
            &["clusterqueues"],
            queues::variables(),
            without_spec_valid(queues::cluster_queue_errors()),
        ),
        kueue(
            "cohorts",
            &["cohorts"],
            queues::variables(),
            without_spec_valid(queues::cohort_errors()),
        ),
        kueue(
            "resourceflavors",
            &["resourceflavors"],
            Vec::new(),
            without_spec_valid(queues::resource_flavor_errors()),
        ),
        kueue(
            "workloads",
            &["workloads", "workloads/status"],
            workload::variables(),
            workload::errors(),
        ),
        Spec {
            resource: "jobs",
            group: "batch",
            versions: &["v1"],
            resources: &["jobs"],
            variables: job::variables(),
            errors: job::errors(),
            match_condition: Some(job::match_condition()),
            namespace_selector: Some(json!({
                "matchExpressions": [{
                    "key": "kubernetes.io/metadata.name",
                    "operator": "NotIn",
                    "values": ["kube-system", namespace],
                }],
            })),
        },
    ];
    specs.into_iter().flat_map(|s| policy(s, labels)).collect()
}
