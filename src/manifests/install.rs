//! What `kubectl kueue install` puts in a cluster, as data: the CRDs, least-privilege RBAC
//! for the controller, the MutatingAdmissionPolicy that holds queue-labelled Jobs at creation
//! (and fills the limits of extended resources from their requests), and the Deployment that
//! runs `kubectl-kueue run-controller`. `examples/deploy/kubectl-kueue.yaml` is
//! `install --print --skip-crds`.
//!
//! The CRDs serve v1beta1 and v1beta2 (stored) and convert through the controller's webhook,
//! behind the Service `kueue-webhook-service` (in-cluster) or at `--webhook-url` (a controller
//! run elsewhere); `--without-controller` without `--webhook-url` keeps the v1beta1-only CRDs,
//! which need no webhook.
//!
//! Invariants: the objects come in apply order (CRDs, Namespace, RBAC, controller, policy);
//! the controller's role cannot read Secrets but its webhook certificate's (by name, in its
//! namespace), use wildcards or delete anything; it may patch only the product's CRDs.

use serde_json::{Value, json};

use crate::api::config::{DEFAULT_WEBHOOK_PORT, DEFAULT_WEBHOOK_SECRET_NAME};
use crate::api::crd::{CrdConversion, WEBHOOK_KINDS, WEBHOOK_SERVICE};

/// Where the controller runs when `-n` is not given (upstream's namespace).
pub const DEFAULT_CONTROLLER_NAMESPACE: &str = "kueue-system";
/// Name of the controller's Deployment, ServiceAccount, roles and Service.
pub const CONTROLLER: &str = "kubectl-kueue-controller";
/// The ClusterRole a scraper's ServiceAccount is bound to, to read `/metrics` (upstream's name:
/// bindings made for upstream Kueue's scrapers keep working).
pub const METRICS_READER: &str = "kueue-metrics-reader";
/// Upstream Kueue's controller Deployment, the one Deployment the controller may list (by
/// name) to refuse to start next to it.
pub const UPSTREAM_DEPLOYMENT: &str = "kueue-controller-manager";
/// Name of the admission policy and its binding.
pub const POLICY: &str = "kubectl-kueue-suspend-queued-jobs";

/// What to install besides the RBAC and the admission policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallOptions {
    /// Container image of the controller.
    pub image: String,
    /// Controller replicas (one leads, the others wait for the lease).
    pub replicas: i32,
    /// Leave the controller Deployment (and its ConfigMap and Service) out.
    pub without_controller: bool,
    /// Leave the CRDs out.
    pub skip_crds: bool,
    /// Where the API server calls the conversion webhook when the controller runs outside
    /// the cluster (`https://HOST:PORT/convert`); unset: the in-cluster Service.
    pub webhook_url: Option<String>,
}

impl InstallOptions {
    /// How the CRDs reach the conversion webhook.
    pub fn conversion(&self, namespace: &str) -> Result<CrdConversion, String> {
        match &self.webhook_url {
            Some(url) => CrdConversion::url(url),
            None if self.without_controller => Ok(CrdConversion::V1beta1Only),
            None => Ok(CrdConversion::Service {
                namespace: namespace.to_string(),
            }),
        }
    }
}

/// Checks a container image reference: `name[:tag]` or `name[:tag]@sha256:<64 hex>` (pinned
/// by digest, what a release should use). Returns the reference unchanged.
pub fn check_image(image: &str) -> Result<String, String> {
    if image.is_empty() || image.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("{image:?} is not an image reference"));
    }
    if let Some((name, digest)) = image.split_once('@') {
        let hex = digest.strip_prefix("sha256:").ok_or_else(|| {
            format!("{image:?}: the digest after '@' must be sha256:<64 hex digits>")
        })?;
        if name.is_empty()
            || hex.len() != 64
            || !hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            return Err(format!(
                "{image:?}: expected NAME[:TAG]@sha256:<64 lowercase hex digits>"
            ));
        }
    }
    Ok(image.to_string())
}

/// The objects as one multi-document YAML, each after `---`.
pub fn yaml_docs(objects: &[Value]) -> String {
    let mut out = String::new();
    for o in objects {
        out.push_str("---\n");
        out.push_str(&serde_yaml::to_string(o).expect("manifests serialize"));
    }
    out
}

/// The `config.kueue.x-k8s.io/v1beta1` Configuration the in-cluster controller reads.
fn controller_config(namespace: &str) -> String {
    format!(
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: {namespace}
leaderElection:
  leaderElect: true
metrics:
  bindAddress: :8443
  enableClusterQueueResources: true
health:
  healthProbeBindAddress: :8081
"
    )
}

/// CEL (JSON patches) that fills `limits` from `requests` for the extended resources of
/// every container of `list` (`containers` or `initContainers`): the API server requires
/// limits for them, and the seed's Jobs give only requests.
fn fill_limits(list: &str) -> String {
    let extended = "c.resources.requests.filter(k, !(k in ['cpu', 'memory', 'ephemeral-storage']) && !k.startsWith('hugepages-') && !(has(c.resources.limits) && k in c.resources.limits))";
    format!(
        "(has(object.spec.template.spec.{list}) ? object.spec.template.spec.{list}.transformList(i, c,
    has(c.resources) && has(c.resources.requests) ?
      ((has(c.resources.limits) || size({extended}) == 0) ? [] :
        [JSONPatch{{op: \"add\", path: \"/spec/template/spec/{list}/\" + string(i) + \"/resources/limits\", value: {{}}}}]) +
      {extended}.map(k,
        JSONPatch{{op: \"add\", path: \"/spec/template/spec/{list}/\" + string(i) + \"/resources/limits/\" + jsonpatch.escapeKey(k), value: c.resources.requests[k]}})
    : []).flatten() : [])"
    )
}

fn policy() -> Vec<Value> {
    let expression = format!(
        "[JSONPatch{{op: \"add\", path: \"/spec/suspend\", value: true}}] +\n{} +\n{}",
        fill_limits("containers"),
        fill_limits("initContainers")
    );
    vec![
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": { "name": POLICY, "labels": labels() },
            "spec": {
                "matchConstraints": {
                    "resourceRules": [{
                        "apiGroups": ["batch"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["jobs"],
                    }],
                },
                "matchConditions": [{
                    "name": "queue-name-label",
                    "expression": "has(object.metadata.labels) && 'kueue.x-k8s.io/queue-name' in object.metadata.labels",
                }],
                "failurePolicy": "Fail",
                "reinvocationPolicy": "IfNeeded",
                "mutations": [{ "patchType": "JSONPatch", "jsonPatch": { "expression": expression } }],
            },
        }),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": { "name": POLICY, "labels": labels() },
            "spec": { "policyName": POLICY },
        }),
    ]
}

/// The labels of everything `install` creates, the controller's pods included: the
/// Deployment and the Services select the pods by them.
fn labels() -> Value {
    json!({ "app.kubernetes.io/name": "kubectl-kueue", "app.kubernetes.io/component": "controller" })
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Value {
    json!({ "apiGroups": groups, "resources": resources, "verbs": verbs })
}

/// What the controller may do, and nothing more.
fn rbac(namespace: &str) -> Vec<Value> {
    let read = ["get", "list", "watch"];
    vec![
        json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": { "name": CONTROLLER, "namespace": namespace, "labels": labels() },
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": { "name": CONTROLLER, "labels": labels() },
            "rules": [
                rule(&["kueue.x-k8s.io"], &["resourceflavors", "cohorts", "clusterqueues", "localqueues", "workloadpriorityclasses"], &read),
                // The resource-in-use finalizer of ClusterQueues and ResourceFlavors.
                rule(&["kueue.x-k8s.io"], &["resourceflavors", "clusterqueues"], &["patch"]),
                rule(&["kueue.x-k8s.io"], &["clusterqueues/status", "localqueues/status"], &["get", "patch"]),
                // delete: a Workload its Job no longer matches is recreated.
                rule(&["kueue.x-k8s.io"], &["workloads"], &["get", "list", "watch", "create", "patch", "delete"]),
                rule(&["kueue.x-k8s.io"], &["workloads/status"], &["get", "patch"]),
                rule(&["batch"], &["jobs"], &["get", "list", "watch", "patch"]),
                rule(&["batch"], &["jobs/status"], &["patch"]),
                rule(&[""], &["namespaces", "nodes"], &read),
                // LimitRange defaults and RuntimeClass overhead count in Workload requests.
                rule(&[""], &["limitranges"], &read),
                rule(&["node.k8s.io"], &["runtimeclasses"], &read),
                // A Job's pod template may take its Workload's priority from a PriorityClass.
                rule(&["scheduling.k8s.io"], &["priorityclasses"], &read),
                rule(&["events.k8s.io"], &["events"], &["create", "patch"]),
                // To refuse to start while upstream Kueue's controller runs: that one
                // Deployment only, by name (a list with a `metadata.name` field selector is
                // authorized against resourceNames).
                json!({ "apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": [UPSTREAM_DEPLOYMENT], "verbs": ["list"] }),
                // The conversion webhook: whether the CRDs call it, and its CA in their caBundle.
                json!({ "apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "resourceNames": crd_names(None), "verbs": ["get"] }),
                json!({ "apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "resourceNames": crd_names(Some(WEBHOOK_KINDS)), "verbs": ["patch"] }),
                // The visibility API is served when its APIServices exist.
                json!({ "apiGroups": ["apiregistration.k8s.io"], "resources": ["apiservices"], "resourceNames": super::visibility::api_service_names(), "verbs": ["get"] }),
            ],
        }),
        // The webhook certificate's Secret (shipped empty; the controller fills and rotates it).
        json!({
            "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": { "name": DEFAULT_WEBHOOK_SECRET_NAME, "namespace": namespace, "labels": labels() },
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": { "name": format!("{CONTROLLER}-webhook-cert"), "namespace": namespace, "labels": labels() },
            "rules": [{ "apiGroups": [""], "resources": ["secrets"], "resourceNames": [DEFAULT_WEBHOOK_SECRET_NAME], "verbs": ["get", "update"] }],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": { "name": format!("{CONTROLLER}-webhook-cert"), "namespace": namespace, "labels": labels() },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": format!("{CONTROLLER}-webhook-cert") },
            "subjects": [{ "kind": "ServiceAccount", "name": CONTROLLER, "namespace": namespace }],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": { "name": CONTROLLER, "labels": labels() },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": CONTROLLER },
            "subjects": [{ "kind": "ServiceAccount", "name": CONTROLLER, "namespace": namespace }],
        }),
        // `/metrics` checks its callers' tokens (TokenReview) and rights (SubjectAccessReview).
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": { "name": format!("{CONTROLLER}-metrics-auth"), "labels": labels() },
            "rules": [
                rule(&["authentication.k8s.io"], &["tokenreviews"], &["create"]),
                rule(&["authorization.k8s.io"], &["subjectaccessreviews"], &["create"]),
            ],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": { "name": format!("{CONTROLLER}-metrics-auth"), "labels": labels() },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": format!("{CONTROLLER}-metrics-auth") },
            "subjects": [{ "kind": "ServiceAccount", "name": CONTROLLER, "namespace": namespace }],
        }),
        // Bind a scraper (Prometheus' ServiceAccount) to this one; no binding ships, as upstream.
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": { "name": METRICS_READER, "labels": labels() },
            "rules": [{ "nonResourceURLs": ["/metrics"], "verbs": ["get"] }],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": { "name": format!("{CONTROLLER}-leader-election"), "namespace": namespace, "labels": labels() },
            "rules": [rule(&["coordination.k8s.io"], &["leases"], &["get", "list", "watch", "create", "update", "patch"])],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": { "name": format!("{CONTROLLER}-leader-election"), "namespace": namespace, "labels": labels() },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": format!("{CONTROLLER}-leader-election") },
            "subjects": [{ "kind": "ServiceAccount", "name": CONTROLLER, "namespace": namespace }],
        }),
    ]
}

/// The names of the product's CRDs (of `kinds` only, when given).
fn crd_names(kinds: Option<&[&str]>) -> Vec<String> {
    crate::api::crds_v1beta1_only()
        .into_iter()
        .filter(|c| kinds.is_none_or(|k| k.contains(&c.spec.names.kind.as_str())))
        .filter_map(|c| c.metadata.name)
        .collect()
}

fn controller(namespace: &str, image: &str, replicas: i32) -> Vec<Value> {
    let selector = labels();
    vec![
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": format!("{CONTROLLER}-config"), "namespace": namespace, "labels": labels() },
            "data": { "controller_manager_config.yaml": controller_config(namespace) },
        }),
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": { "name": CONTROLLER, "namespace": namespace, "labels": labels() },
            "spec": {
                "replicas": replicas,
                "selector": { "matchLabels": selector },
                "template": {
                    "metadata": { "labels": selector },
                    "spec": {
                        "serviceAccountName": CONTROLLER,
                        "securityContext": {
                            "runAsNonRoot": true,
                            // distroless's nonroot user (the Dockerfile's USER).
                            "runAsUser": 65532,
                            "runAsGroup": 65532,
                            "seccompProfile": { "type": "RuntimeDefault" },
                        },
                        "terminationGracePeriodSeconds": 30,
                        "containers": [{
                            "name": "controller",
                            "image": image,
                            "args": ["run-controller", "--config=/etc/kubectl-kueue/controller_manager_config.yaml"],
                            "env": [{ "name": "POD_NAME", "valueFrom": { "fieldRef": { "fieldPath": "metadata.name" } } }],
                            "ports": [
                                { "name": "metrics", "containerPort": 8443 },
                                { "name": "health", "containerPort": 8081 },
                                { "name": "webhook", "containerPort": DEFAULT_WEBHOOK_PORT },
                                { "name": "visibility", "containerPort": super::visibility::PORT },
                            ],
                            "livenessProbe": { "httpGet": { "path": "/healthz", "port": "health" }, "initialDelaySeconds": 15, "periodSeconds": 20 },
                            "readinessProbe": { "httpGet": { "path": "/readyz", "port": "health" }, "periodSeconds": 10 },
                            "resources": {
                                "requests": { "cpu": "100m", "memory": "128Mi" },
                                "limits": { "memory": "1Gi" },
                            },
                            "securityContext": {
                                "allowPrivilegeEscalation": false,
                                "readOnlyRootFilesystem": true,
                                "capabilities": { "drop": ["ALL"] },
                            },
                            "volumeMounts": [{ "name": "config", "mountPath": "/etc/kubectl-kueue", "readOnly": true }],
                        }],
                        "volumes": [{ "name": "config", "configMap": { "name": format!("{CONTROLLER}-config") } }],
                    },
                },
            },
        }),
        // For a ServiceMonitor: `port: https`, `scheme: https`, a bearer token bound to
        // kueue-metrics-reader, `insecureSkipVerify` with the self-signed certificate.
        json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {
                "name": format!("{CONTROLLER}-metrics"),
                "namespace": namespace,
                "labels": { "app.kubernetes.io/name": "kubectl-kueue", "app.kubernetes.io/component": "metrics-service" },
            },
            "spec": { "selector": selector, "ports": [{ "name": "https", "port": 8443, "protocol": "TCP", "targetPort": "metrics" }] },
        }),
        // The API server calls the conversion webhook here (the CRDs' clientConfig.service).
        json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {
                "name": WEBHOOK_SERVICE,
                "namespace": namespace,
                "labels": { "app.kubernetes.io/name": "kubectl-kueue", "app.kubernetes.io/component": "webhook-service" },
            },
            "spec": { "selector": selector, "ports": [{ "name": "https", "port": 443, "protocol": "TCP", "targetPort": "webhook" }] },
        }),
    ]
}

/// Every object `install` manages, in apply order (an error for a bad `--webhook-url`).
pub fn manifests(namespace: &str, args: &InstallOptions) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    if !args.skip_crds {
        for crd in crate::api::crds_with(&args.conversion(namespace)?) {
            let mut v = serde_json::to_value(&crd).expect("CRDs serialize");
            v["apiVersion"] = json!("apiextensions.k8s.io/v1");
            v["kind"] = json!("CustomResourceDefinition");
            out.push(v);
        }
    }
    out.push(json!({ "apiVersion": "v1", "kind": "Namespace", "metadata": { "name": namespace, "labels": labels() } }));
    out.extend(rbac(namespace));
    out.extend(super::visibility::rbac(namespace, CONTROLLER, &labels()));
    if !args.without_controller {
        out.extend(controller(namespace, &args.image, args.replicas));
        out.extend(super::visibility::serving(namespace, &labels(), &labels()));
    }
    out.extend(policy());
    out.extend(super::validation::policies(namespace, &labels()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> InstallOptions {
        InstallOptions {
            image: "img".into(),
            replicas: 2,
            without_controller: false,
            skip_crds: false,
            webhook_url: None,
        }
    }

    #[test]
    fn manifests_hold_crds_rbac_controller_and_policy() {
        let m = manifests("kueue-system", &args()).unwrap();
        let kinds: Vec<&str> = m.iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == "CustomResourceDefinition")
                .count(),
            6
        );
        for k in [
            "Namespace",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "ConfigMap",
            "Deployment",
            "Service",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ] {
            assert!(kinds.contains(&k), "{k} missing from {kinds:?}");
        }
        let without = manifests(
            "x",
            &InstallOptions {
                without_controller: true,
                skip_crds: true,
                ..args()
            },
        )
        .unwrap();
        assert!(
            !without
                .iter()
                .any(|o| o["kind"] == "Deployment" || o["kind"] == "CustomResourceDefinition")
        );
    }

    #[test]
    fn the_controller_role_cannot_touch_secrets_or_delete_jobs() {
        let m = manifests("kueue-system", &args()).unwrap();
        let role = m.iter().find(|o| o["kind"] == "ClusterRole").unwrap();
        for r in role["rules"].as_array().unwrap() {
            let resources: Vec<&str> = r["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert!(
                !resources.contains(&"secrets") && !resources.contains(&"*"),
                "{r}"
            );
            let verbs: Vec<&str> = r["verbs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            // Deleting is for Workloads only (one its Job no longer matches is recreated, as
            // upstream does).
            assert!(
                !verbs.contains(&"*") && (!verbs.contains(&"delete") || resources == ["workloads"]),
                "{r}"
            );
        }
    }

    #[test]
    fn the_pod_is_hardened_and_deployments_are_read_by_name_only() {
        let m = manifests("kueue-system", &args()).unwrap();
        let deployment = m.iter().find(|o| o["kind"] == "Deployment").unwrap();
        let pod = &deployment["spec"]["template"]["spec"];
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
        assert_eq!(
            pod["securityContext"]["seccompProfile"]["type"],
            "RuntimeDefault"
        );
        let container = &pod["securityContext"];
        assert!(container["runAsUser"].as_i64().unwrap() > 0);
        let container = &pod["containers"][0]["securityContext"];
        assert_eq!(container["allowPrivilegeEscalation"], false);
        assert_eq!(container["readOnlyRootFilesystem"], true);
        assert_eq!(container["capabilities"]["drop"], json!(["ALL"]));
        let role = m.iter().find(|o| o["kind"] == "ClusterRole").unwrap();
        for r in role["rules"].as_array().unwrap() {
            if r["resources"] == json!(["deployments"]) {
                assert_eq!(r["resourceNames"], json!([UPSTREAM_DEPLOYMENT]), "{r}");
                assert_eq!(r["verbs"], json!(["list"]), "{r}");
            }
        }
    }

    #[test]
    fn metrics_are_scrapable_over_https_by_readers() {
        let m = manifests("kueue-system", &args()).unwrap();
        let named = |kind: &str, name: &str| {
            m.iter()
                .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
                .unwrap_or_else(|| panic!("{kind} {name}"))
        };
        let reader = named("ClusterRole", METRICS_READER);
        assert_eq!(
            reader["rules"],
            json!([{ "nonResourceURLs": ["/metrics"], "verbs": ["get"] }])
        );
        let auth = named("ClusterRole", "kubectl-kueue-controller-metrics-auth");
        assert_eq!(auth["rules"][0]["resources"], json!(["tokenreviews"]));
        assert_eq!(
            auth["rules"][1]["resources"],
            json!(["subjectaccessreviews"])
        );
        let binding = named(
            "ClusterRoleBinding",
            "kubectl-kueue-controller-metrics-auth",
        );
        assert_eq!(binding["subjects"][0]["name"], CONTROLLER);
        let service = named("Service", "kubectl-kueue-controller-metrics");
        assert_eq!(service["spec"]["ports"][0]["name"], "https");
    }

    #[test]
    fn the_visibility_api_is_registered_with_the_controller_and_its_roles_ship_always() {
        let m = manifests("ns1", &args()).unwrap();
        let services: Vec<&Value> = m.iter().filter(|o| o["kind"] == "APIService").collect();
        assert_eq!(services.len(), 2);
        assert_eq!(
            services[0]["metadata"]["name"],
            "v1beta2.visibility.kueue.x-k8s.io"
        );
        assert_eq!(
            services[0]["spec"]["service"],
            json!({ "name": "kueue-visibility-server", "namespace": "ns1" })
        );
        let service = m
            .iter()
            .find(|o| o["kind"] == "Service" && o["metadata"]["name"] == "kueue-visibility-server")
            .unwrap();
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "visibility");
        let deployment = m.iter().find(|o| o["kind"] == "Deployment").unwrap();
        assert!(
            deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
                .as_array()
                .unwrap()
                .contains(&json!({ "name": "visibility", "containerPort": 8082 }))
        );
        let reader = m
            .iter()
            .find(|o| o["kind"] == "RoleBinding" && o["metadata"]["namespace"] == "kube-system")
            .unwrap();
        assert_eq!(
            reader["roleRef"]["name"],
            "extension-apiserver-authentication-reader"
        );

        let laptop = manifests(
            "ns1",
            &InstallOptions {
                without_controller: true,
                ..args()
            },
        )
        .unwrap();
        assert!(!laptop.iter().any(|o| o["kind"] == "APIService"));
        for role in [
            "kueue-pending-workloads-cq-viewer-role",
            "kueue-pending-workloads-lq-viewer-role",
        ] {
            assert!(
                laptop
                    .iter()
                    .any(|o| o["kind"] == "ClusterRole" && o["metadata"]["name"] == role),
                "{role}"
            );
        }
    }

    #[test]
    fn the_conversion_webhook_is_reachable_and_only_its_secret_readable() {
        let conversion = |m: &[Value]| -> Vec<Value> {
            m.iter()
                .filter(|o| o["kind"] == "CustomResourceDefinition")
                .map(|o| o["spec"]["conversion"]["webhook"]["clientConfig"].clone())
                .filter(|c| !c.is_null())
                .collect()
        };
        let m = manifests("ns1", &args()).unwrap();
        let configs = conversion(&m);
        assert_eq!(configs.len(), 4);
        assert_eq!(
            configs[0]["service"],
            json!({ "name": "kueue-webhook-service", "namespace": "ns1", "path": "/convert", "port": 443 })
        );
        let service = m
            .iter()
            .find(|o| o["kind"] == "Service" && o["metadata"]["name"] == "kueue-webhook-service")
            .unwrap();
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "webhook");
        let deployment = m.iter().find(|o| o["kind"] == "Deployment").unwrap();
        let ports = &deployment["spec"]["template"]["spec"]["containers"][0]["ports"];
        assert!(
            ports
                .as_array()
                .unwrap()
                .contains(&json!({ "name": "webhook", "containerPort": 9443 }))
        );
        let role = m
            .iter()
            .find(|o| {
                o["kind"] == "Role"
                    && o["metadata"]["name"] == "kubectl-kueue-controller-webhook-cert"
            })
            .unwrap();
        assert_eq!(
            role["rules"],
            json!([{ "apiGroups": [""], "resources": ["secrets"], "resourceNames": ["kueue-webhook-server-cert"], "verbs": ["get", "update"] }])
        );
        // Without the controller: no webhook in the cluster, so v1beta1-only CRDs; with a URL,
        // both versions calling it.
        let laptop = InstallOptions {
            without_controller: true,
            ..args()
        };
        let m = manifests("ns1", &laptop).unwrap();
        assert!(conversion(&m).is_empty());
        assert!(
            m.iter()
                .filter(|o| o["kind"] == "CustomResourceDefinition")
                .all(|o| o["spec"]["versions"].as_array().unwrap().len() == 1)
        );
        let url = InstallOptions {
            webhook_url: Some("https://10.0.0.5:9443/convert".into()),
            ..laptop
        };
        let configs = conversion(&manifests("ns1", &url).unwrap());
        assert_eq!(configs.len(), 4);
        assert_eq!(
            configs[0],
            json!({ "url": "https://10.0.0.5:9443/convert" })
        );
        let bad = InstallOptions {
            webhook_url: Some("http://x".into()),
            ..args()
        };
        assert!(manifests("ns1", &bad).unwrap_err().contains("https://"));
    }

    #[test]
    fn images_may_be_pinned_by_digest() {
        let digest = format!("ghcr.io/o/kubectl-kueue@sha256:{}", "a1".repeat(32));
        assert_eq!(check_image(&digest).as_deref(), Ok(digest.as_str()));
        assert!(check_image("ghcr.io/o/kubectl-kueue:0.1.0").is_ok());
        assert!(check_image(&format!("kubectl-kueue:0.1.0@sha256:{}", "0".repeat(64))).is_ok());
        for bad in [
            "",
            "a b",
            "x@sha256:abc",
            "x@md5:00",
            "@sha256:00",
            &format!("x@sha256:{}", "A".repeat(64)),
        ] {
            assert!(check_image(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_configuration_parses_as_upstreams_format() {
        let cfg: crate::api::config::Configuration =
            crate::api::from_yaml_str(&controller_config("kueue-system")).unwrap();
        assert_eq!(cfg.leader_election.unwrap().leader_elect, Some(true));
        assert!(cfg.metrics.unwrap().enable_cluster_queue_resources);
    }
}
