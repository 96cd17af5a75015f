//! What `install` adds for the visibility API (`visibility.kueue.x-k8s.io`), as upstream's
//! `config/components/visibility`: an `APIService` per version pointing at the Service
//! `kueue-visibility-server` (443 to the pods' `visibility` port 8082, verification skipped
//! as upstream's, the controller's certificate being self-signed), the RoleBinding that lets
//! the controller read the API server's front-proxy settings in `kube-system`, and upstream's
//! two viewer ClusterRoles (aggregated to view/edit/admin).
//!
//! Invariants: the Service and APIServices ship only with the in-cluster controller (an
//! APIService without endpoints would make every discovery in the cluster report it
//! unavailable); the roles ship always.

use serde_json::{Value, json};

use crate::api::visibility::{GROUP, VERSIONS};

pub const SERVICE: &str = "kueue-visibility-server";
pub const PORT: i32 = 8082;

/// The APIService names (`v1beta2.visibility.kueue.x-k8s.io`, ...).
pub fn api_service_names() -> Vec<String> {
    VERSIONS.iter().map(|v| format!("{v}.{GROUP}")).collect()
}

fn viewer(name: &str, resource: &str, user_role: bool) -> Value {
    let mut labels = json!({
        "rbac.kueue.x-k8s.io/batch-admin": "true",
        "rbac.authorization.k8s.io/aggregate-to-view": "true",
        "rbac.authorization.k8s.io/aggregate-to-admin": "true",
        "rbac.authorization.k8s.io/aggregate-to-edit": "true",
    });
    labels["rbac.kueue.x-k8s.io/role"] =
        json!(name.trim_start_matches("kueue-").trim_end_matches("-role"));
    if user_role {
        labels["rbac.kueue.x-k8s.io/batch-user"] = json!("true");
    }
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": { "name": name, "labels": labels },
        "rules": [{ "apiGroups": [GROUP], "resources": [resource], "verbs": ["get", "list", "watch"] }],
    })
}

/// The viewer roles, and the controller's (`service_account` in `namespace`) right to read
/// the front-proxy settings.
pub fn rbac(namespace: &str, service_account: &str, labels: &Value) -> Vec<Value> {
    vec![
        viewer(
            "kueue-pending-workloads-cq-viewer-role",
            "clusterqueues/pendingworkloads",
            false,
        ),
        viewer(
            "kueue-pending-workloads-lq-viewer-role",
            "localqueues/pendingworkloads",
            true,
        ),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": { "name": format!("{service_account}-visibility-auth-reader"), "namespace": "kube-system", "labels": labels },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "extension-apiserver-authentication-reader" },
            "subjects": [{ "kind": "ServiceAccount", "name": service_account, "namespace": namespace }],
        }),
    ]
}

/// The Service in front of the pods (`selector`) and the APIServices.
pub fn serving(namespace: &str, selector: &Value, labels: &Value) -> Vec<Value> {
    let mut out = vec![json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {
            "name": SERVICE, "namespace": namespace,
            "labels": { "app.kubernetes.io/name": "kubectl-kueue", "app.kubernetes.io/component": "visibility-server" },
        },
        "spec": { "selector": selector, "ports": [{ "name": "https", "port": 443, "protocol": "TCP", "targetPort": "visibility" }] },
    })];
    for v in VERSIONS {
        out.push(json!({
            "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": { "name": format!("{v}.{GROUP}"), "labels": labels },
            "spec": {
                "group": GROUP, "version": v,
                "groupPriorityMinimum": 100, "versionPriority": 100,
                "insecureSkipTLSVerify": true,
                "service": { "name": SERVICE, "namespace": namespace },
            },
        }));
    }
    out
}
