//! `kubectl apply` for tests, through kube-rs: multi-document YAML in, server-side apply, the
//! objects as the server stored them out. Also CRD installation (apply, then wait until every CRD
//! is Established and its kind is served).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::GroupVersionKind;
use kube::discovery::{self, ApiCapabilities, ApiResource, Scope};

pub const FIELD_MANAGER: &str = "kubectl-kueue-tests";

/// The YAML documents of a string, `kind: List` unpacked, empty documents skipped.
pub fn documents(yaml: &str) -> Result<Vec<serde_json::Value>, String> {
    use serde::Deserialize;
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(yaml).enumerate() {
        let v =
            serde_json::Value::deserialize(doc).map_err(|e| format!("YAML document {i}: {e}"))?;
        match v {
            serde_json::Value::Null => {}
            serde_json::Value::Object(ref m)
                if m.get("kind").and_then(|k| k.as_str()) == Some("List") =>
            {
                if let Some(items) = m.get("items").and_then(|i| i.as_array()) {
                    out.extend(items.iter().cloned());
                }
            }
            v => out.push(v),
        }
    }
    Ok(out)
}

/// Finds the resource of a kind, retrying for a few seconds (a kind from a CRD that was just
/// established can take a moment to show up in discovery).
pub async fn resolve(
    client: &kube::Client,
    gvk: &GroupVersionKind,
) -> Result<(ApiResource, ApiCapabilities), String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match discovery::pinned_kind(client, gvk).await {
            Ok(r) => return Ok(r),
            Err(e) if Instant::now() > deadline => {
                return Err(format!(
                    "{}/{} {}: not served: {e}",
                    gvk.group, gvk.version, gvk.kind
                ));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Server-side applies each object (force, field manager [`FIELD_MANAGER`]). Namespaced objects
/// without a namespace go to `default_namespace`. Returns what the server stored.
pub async fn apply_objects(
    client: &kube::Client,
    objects: &[serde_json::Value],
    default_namespace: &str,
) -> Result<Vec<DynamicObject>, String> {
    let mut out = Vec::new();
    for v in objects {
        let obj: DynamicObject =
            serde_json::from_value(v.clone()).map_err(|e| format!("not an object: {e}: {v}"))?;
        let types = obj
            .types
            .clone()
            .ok_or_else(|| format!("object without apiVersion/kind: {v}"))?;
        let gvk = GroupVersionKind::try_from(&types).map_err(|e| e.to_string())?;
        let name = obj
            .metadata
            .name
            .clone()
            .ok_or_else(|| format!("{} without metadata.name", gvk.kind))?;
        let (ar, caps) = resolve(client, &gvk).await?;
        let api: Api<DynamicObject> = match caps.scope {
            Scope::Cluster => Api::all_with(client.clone(), &ar),
            Scope::Namespaced => {
                let ns = obj
                    .metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| default_namespace.to_string());
                Api::namespaced_with(client.clone(), &ns, &ar)
            }
        };
        let stored = api
            .patch(
                &name,
                &PatchParams::apply(FIELD_MANAGER).force(),
                &Patch::Apply(v),
            )
            .await
            .map_err(|e| format!("apply {} {name}: {e}", gvk.kind))?;
        out.push(stored);
    }
    Ok(out)
}

/// Applies multi-document YAML (see [`apply_objects`]).
pub async fn apply_yaml(
    client: &kube::Client,
    yaml: &str,
    default_namespace: &str,
) -> Result<Vec<DynamicObject>, String> {
    apply_objects(client, &documents(yaml)?, default_namespace).await
}

/// Applies a YAML file, or every `*.yaml`/`*.yml` of a directory in lexical order.
pub async fn apply_path(
    client: &kube::Client,
    path: &Path,
    default_namespace: &str,
) -> Result<Vec<DynamicObject>, String> {
    let mut out = Vec::new();
    for f in yaml_files(path)? {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("read {}: {e}", f.display()))?;
        let objs = apply_yaml(client, &text, default_namespace)
            .await
            .map_err(|e| format!("{}: {e}", f.display()))?;
        out.extend(objs);
    }
    Ok(out)
}

/// A file itself, or a directory's `*.yaml`/`*.yml` files sorted by name.
pub fn yaml_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("read {}: {e}", path.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Applies every CRD under `path` and waits until each is Established and its kind is served.
/// Returns the CRD names.
pub async fn install_crds(client: &kube::Client, path: &Path) -> Result<Vec<String>, String> {
    let applied = apply_path(client, path, "default").await?;
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut names = Vec::new();
    for obj in applied {
        let kind = obj
            .types
            .as_ref()
            .map(|t| t.kind.as_str())
            .unwrap_or_default();
        if kind != "CustomResourceDefinition" {
            return Err(format!("{} holds a {kind}, not a CRD", path.display()));
        }
        let name = obj.metadata.name.clone().unwrap_or_default();
        let deadline = Instant::now() + Duration::from_secs(30);
        let crd = loop {
            let crd = crds
                .get(&name)
                .await
                .map_err(|e| format!("get CRD {name}: {e}"))?;
            let established = crd
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c.type_ == "Established" && c.status == "True")
                });
            if established {
                break crd;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "CRD {name} not Established after 30s: {:?}",
                    crd.status
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        for v in crd.spec.versions.iter().filter(|v| v.served) {
            let gvk = GroupVersionKind::gvk(&crd.spec.group, &v.name, &crd.spec.names.kind);
            resolve(client, &gvk).await?;
        }
        names.push(name);
    }
    Ok(names)
}
