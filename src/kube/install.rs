//! Applying and deleting arbitrary manifests (what `kubectl kueue install`/`uninstall`
//! manage): server-side apply under one field manager, CRDs waited for until they are served.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kube::discovery::{self, ApiCapabilities, ApiResource, Scope};
use serde_json::Value;

/// Field manager of everything `install` applies.
pub const INSTALL_MANAGER: &str = "kubectl-kueue-install";

fn gvk_of(v: &Value) -> anyhow::Result<(GroupVersionKind, String, Option<String>)> {
    let api_version = v["apiVersion"]
        .as_str()
        .context("object without apiVersion")?;
    let kind = v["kind"].as_str().context("object without kind")?;
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    let name = v["metadata"]["name"]
        .as_str()
        .context("object without metadata.name")?
        .to_string();
    let ns = v["metadata"]["namespace"].as_str().map(str::to_string);
    Ok((GroupVersionKind::gvk(group, version, kind), name, ns))
}

async fn resolve(
    client: &Client,
    gvk: &GroupVersionKind,
    wait: Duration,
) -> anyhow::Result<(ApiResource, ApiCapabilities)> {
    let deadline = Instant::now() + wait;
    loop {
        match discovery::pinned_kind(client, gvk).await {
            Ok(r) => return Ok(r),
            Err(e) if Instant::now() > deadline => {
                return Err(anyhow::anyhow!(
                    "{}/{} {} is not served by this cluster: {e}",
                    gvk.group,
                    gvk.version,
                    gvk.kind
                ));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

fn api_for(
    client: &Client,
    ar: &ApiResource,
    caps: &ApiCapabilities,
    ns: Option<&str>,
) -> Api<DynamicObject> {
    match (caps.scope.clone(), ns) {
        (Scope::Namespaced, Some(ns)) => Api::namespaced_with(client.clone(), ns, ar),
        (Scope::Namespaced, None) => Api::default_namespaced_with(client.clone(), ar),
        (Scope::Cluster, _) => Api::all_with(client.clone(), ar),
    }
}

/// Server-side applies `objects` in order (forcing our ownership). After the CRDs among them,
/// waits until they are Established so later objects of their kinds can be applied.
pub async fn apply_all(
    client: &Client,
    objects: &[Value],
    mut progress: impl FnMut(&str),
) -> anyhow::Result<()> {
    let mut pending_crds: Vec<String> = Vec::new();
    for v in objects {
        let (gvk, name, ns) = gvk_of(v)?;
        if gvk.kind != "CustomResourceDefinition" && !pending_crds.is_empty() {
            wait_established(client, &std::mem::take(&mut pending_crds)).await?;
        }
        let (ar, caps) = resolve(client, &gvk, Duration::from_secs(30)).await?;
        let api = api_for(client, &ar, &caps, ns.as_deref());
        api.patch(
            &name,
            &PatchParams::apply(INSTALL_MANAGER).force(),
            &Patch::Apply(v),
        )
        .await
        .with_context(|| format!("cannot apply {} {name}", gvk.kind))?;
        progress(&format!("{}/{name}", gvk.kind.to_lowercase()));
        if gvk.kind == "CustomResourceDefinition" {
            pending_crds.push(name);
        }
    }
    if !pending_crds.is_empty() {
        wait_established(client, &pending_crds).await?;
    }
    Ok(())
}

async fn wait_established(client: &Client, names: &[String]) -> anyhow::Result<()> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    for name in names {
        loop {
            let crd = crds
                .get(name)
                .await
                .with_context(|| format!("cannot read CRD {name}"))?;
            let established = crd
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c.type_ == "Established" && c.status == "True")
                });
            if established {
                break;
            }
            if Instant::now() > deadline {
                bail!("CRD {name} is not Established after 60s");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    Ok(())
}

/// Deletes `objects` in reverse order; missing ones (or kinds no longer served) are skipped.
pub async fn delete_all(
    client: &Client,
    objects: &[Value],
    mut progress: impl FnMut(&str),
) -> anyhow::Result<()> {
    for v in objects.iter().rev() {
        let (gvk, name, ns) = gvk_of(v)?;
        let Ok((ar, caps)) = resolve(client, &gvk, Duration::ZERO).await else {
            continue;
        };
        let api = api_for(client, &ar, &caps, ns.as_deref());
        match api.delete(&name, &DeleteParams::background()).await {
            Ok(_) => progress(&format!("{}/{name}", gvk.kind.to_lowercase())),
            Err(kube::Error::Api(e)) if e.code == 404 => {}
            Err(e) => return Err(e).with_context(|| format!("cannot delete {} {name}", gvk.kind)),
        }
    }
    Ok(())
}

/// Drops the controller's finalizer from every Workload (so deleting the CRDs cannot hang on
/// objects nobody will finalize).
pub async fn strip_workload_finalizers(client: &Client, finalizer: &str) -> anyhow::Result<usize> {
    let api: Api<crate::api::Workload> = Api::all(client.clone());
    let list = match api.list(&Default::default()).await {
        Ok(l) => l,
        Err(kube::Error::Api(e)) if e.code == 404 => return Ok(0),
        Err(e) => return Err(e).context("cannot list Workloads"),
    };
    let mut n = 0;
    for w in list.items {
        let Some(fs) = &w.metadata.finalizers else {
            continue;
        };
        if !fs.iter().any(|f| f == finalizer) {
            continue;
        }
        let rest: Vec<&String> = fs.iter().filter(|f| *f != finalizer).collect();
        let ns = w.metadata.namespace.clone().unwrap_or_default();
        let patch = serde_json::json!({ "metadata": { "finalizers": rest } });
        Api::<crate::api::Workload>::namespaced(client.clone(), &ns)
            .patch(
                w.metadata.name.as_deref().unwrap_or(""),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .context("cannot remove a Workload finalizer")?;
        n += 1;
    }
    Ok(n)
}

/// Waits until the admission policy acts on new Jobs (the API server loads policies a moment
/// after they are created): a dry-run queue-labelled Job with a GPU request only must come
/// back suspended, with its limit filled. Returns false after `timeout`.
pub async fn wait_policy_effective(client: &Client, namespace: &str, timeout: Duration) -> bool {
    use k8s_openapi::api::batch::v1::Job;
    let probe: Job = serde_json::from_value(serde_json::json!({
        "metadata": {
            "generateName": "kubectl-kueue-policy-probe-",
            "labels": { crate::api::QUEUE_NAME_LABEL: "kubectl-kueue-probe" },
        },
        "spec": { "template": { "spec": {
            "restartPolicy": "Never",
            "containers": [{ "name": "probe", "image": "probe", "resources": { "requests": { "nvidia.com/gpu": "1" } } }],
        } } },
    }))
    .expect("a valid Job");
    let api: Api<Job> = Api::namespaced(client.clone(), namespace);
    let pp = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(j) = api.create(&pp, &probe).await
            && j.spec.as_ref().and_then(|s| s.suspend) == Some(true)
        {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

impl super::Connection {
    /// [`apply_all`] on this connection.
    pub async fn install(
        &self,
        objects: &[Value],
        progress: impl FnMut(&str),
    ) -> anyhow::Result<()> {
        apply_all(&self.client, objects, progress).await
    }

    /// [`delete_all`] on this connection.
    pub async fn uninstall(
        &self,
        objects: &[Value],
        progress: impl FnMut(&str),
    ) -> anyhow::Result<()> {
        delete_all(&self.client, objects, progress).await
    }

    /// [`wait_policy_effective`] on this connection.
    pub async fn wait_policy_effective(&self, namespace: &str, timeout: Duration) -> bool {
        wait_policy_effective(&self.client, namespace, timeout).await
    }

    /// [`strip_workload_finalizers`] on this connection.
    pub async fn strip_workload_finalizers(&self, finalizer: &str) -> anyhow::Result<usize> {
        strip_workload_finalizers(&self.client, finalizer).await
    }

    /// Server-side applies `objects` in order under the commands' field manager, as `init
    /// --apply` does: kinds are looked up once (no waiting for CRDs), namespaced objects
    /// without a namespace go to the connection's. Reports `kind.group/name` of each.
    pub async fn apply_documents(
        &self,
        objects: &[Value],
        mut progress: impl FnMut(&str) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        for v in objects {
            let obj: DynamicObject = serde_json::from_value(v.clone())?;
            let types = obj
                .types
                .clone()
                .context("object without apiVersion/kind")?;
            let gvk = GroupVersionKind::try_from(&types).map_err(|e| anyhow::anyhow!("{e}"))?;
            let name = obj.metadata.name.clone().unwrap_or_default();
            let (ar, caps) = discovery::pinned_kind(&self.client, &gvk)
                .await
                .map_err(|e| {
                    anyhow::anyhow!(
                        "the cluster does not serve {} {}: {e} (install Kueue's CRDs first)",
                        types.api_version,
                        types.kind
                    )
                })?;
            let api: Api<DynamicObject> = match caps.scope {
                Scope::Cluster => Api::all_with(self.client.clone(), &ar),
                Scope::Namespaced => Api::namespaced_with(
                    self.client.clone(),
                    obj.metadata.namespace.as_deref().unwrap_or(&self.namespace),
                    &ar,
                ),
            };
            api.patch(
                &name,
                &PatchParams::apply(super::objects::COMMAND_MANAGER).force(),
                &Patch::Apply(v),
            )
            .await
            .map_err(|e| {
                super::objects::describe(e, &format!("cannot apply {} {name}", types.kind))
            })?;
            let group = if ar.group.is_empty() {
                String::new()
            } else {
                format!(".{}", ar.group)
            };
            progress(&format!("{}{group}/{name}", types.kind.to_lowercase()))?;
        }
        Ok(())
    }
}
