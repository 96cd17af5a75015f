//! Typed reads and writes of single kinds for the user commands: list, get, create, merge
//! patch and delete, on a [`Connection`], under the commands' field manager.
//!
//! Invariants: a missing object is `Ok(None)` (or `Ok(false)` for a delete), never an error;
//! every other failure is an error that says what failed on what ([`describe`]); a server dry
//! run goes through the API server's validation and admission and stores nothing.

use std::fmt::Debug;

use anyhow::Context;
use k8s_openapi::NamespaceResourceScope;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, PropagationPolicy};
use kube::core::GroupVersionKind;
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Connection;

/// Field manager of what the user commands create and change.
pub const COMMAND_MANAGER: &str = "kubectl-kueue";

/// A kind the commands read and write.
pub trait Object:
    Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug + Send + Sync + 'static
{
}

impl<K> Object for K where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
        + Send
        + Sync
        + 'static
{
}

/// A namespaced kind.
pub trait Namespaced: Object + Resource<Scope = NamespaceResourceScope> {}

impl<K> Namespaced for K where K: Object + Resource<Scope = NamespaceResourceScope> {}

/// Where a namespaced kind is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespaces<'a> {
    One(&'a str),
    All,
}

/// Whether an API error is "not found".
pub fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// A kube error as a message that says what failed, on what, and what to do.
pub fn describe(e: kube::Error, what: &str) -> anyhow::Error {
    match &e {
        kube::Error::Api(s)
            if s.code == 404
                && s.message
                    .contains("the server could not find the requested resource") =>
        {
            anyhow::anyhow!(
                "{what}: the cluster does not serve kueue.x-k8s.io/v1beta1 (install Kueue's CRDs: kubectl kueue install, or upstream Kueue)"
            )
        }
        kube::Error::Api(s) => anyhow::anyhow!("{what}: {} ({})", s.message, s.reason),
        _ => anyhow::Error::new(e).context(what.to_string()),
    }
}

/// The kind's name (`ClusterQueue`).
pub fn kind<K: Object>() -> String {
    K::kind(&()).to_string()
}

fn params(selector: Option<&str>) -> ListParams {
    match selector {
        Some(s) => ListParams::default().labels(s),
        None => ListParams::default(),
    }
}

fn post(server_dry_run: bool) -> PostParams {
    PostParams {
        dry_run: server_dry_run,
        field_manager: Some(COMMAND_MANAGER.into()),
    }
}

fn patch_params(server_dry_run: bool) -> PatchParams {
    PatchParams {
        dry_run: server_dry_run,
        field_manager: Some(COMMAND_MANAGER.into()),
        ..Default::default()
    }
}

impl Connection {
    fn api_in<K: Namespaced>(&self, namespaces: Namespaces<'_>) -> Api<K> {
        match namespaces {
            Namespaces::One(ns) => Api::namespaced(self.client.clone(), ns),
            Namespaces::All => Api::all(self.client.clone()),
        }
    }

    /// Every object of a cluster-scoped kind (or of a namespaced kind in every namespace),
    /// optionally by label selector.
    pub async fn list<K: Object>(&self, selector: Option<&str>) -> anyhow::Result<Vec<K>> {
        let api: Api<K> = Api::all(self.client.clone());
        Ok(api
            .list(&params(selector))
            .await
            .map_err(|e| describe(e, &format!("cannot list {}s", kind::<K>())))?
            .items)
    }

    /// Objects of a namespaced kind in one namespace or all.
    pub async fn list_in<K: Namespaced>(
        &self,
        namespaces: Namespaces<'_>,
        selector: Option<&str>,
    ) -> anyhow::Result<Vec<K>> {
        Ok(self
            .api_in::<K>(namespaces)
            .list(&params(selector))
            .await
            .map_err(|e| describe(e, &format!("cannot list {}s", kind::<K>())))?
            .items)
    }

    /// The names of a cluster-scoped kind's objects (or a namespaced kind's in every
    /// namespace).
    pub async fn names<K: Object>(&self, selector: Option<&str>) -> anyhow::Result<Vec<String>> {
        let items = self.list::<K>(selector).await?;
        Ok(items.iter().map(|o| o.name_any()).collect())
    }

    /// The names of a namespaced kind's objects in `ns`.
    pub async fn names_in<K: Namespaced>(
        &self,
        ns: &str,
        selector: Option<&str>,
    ) -> anyhow::Result<Vec<String>> {
        let items = self.list_in::<K>(Namespaces::One(ns), selector).await?;
        Ok(items.iter().map(|o| o.name_any()).collect())
    }

    /// A cluster-scoped object by name.
    pub async fn get<K: Object>(&self, name: &str) -> anyhow::Result<Option<K>> {
        let api: Api<K> = Api::all(self.client.clone());
        api.get_opt(name)
            .await
            .map_err(|e| describe(e, &format!("cannot read {} {name}", kind::<K>())))
    }

    /// A namespaced object.
    pub async fn get_in<K: Namespaced>(&self, ns: &str, name: &str) -> anyhow::Result<Option<K>> {
        self.api_in::<K>(Namespaces::One(ns))
            .get_opt(name)
            .await
            .map_err(|e| describe(e, &format!("cannot read {} {ns}/{name}", kind::<K>())))
    }

    /// Creates a cluster-scoped object (with `server_dry_run`, only validates it).
    pub async fn create<K: Object>(&self, obj: &K, server_dry_run: bool) -> anyhow::Result<K> {
        let api: Api<K> = Api::all(self.client.clone());
        api.create(&post(server_dry_run), obj).await.map_err(|e| {
            describe(
                e,
                &format!("cannot create {} {}", kind::<K>(), obj.name_any()),
            )
        })
    }

    /// Creates a namespaced object in `ns` (with `server_dry_run`, only validates it).
    pub async fn create_in<K: Namespaced>(
        &self,
        ns: &str,
        obj: &K,
        server_dry_run: bool,
    ) -> anyhow::Result<K> {
        let name = obj
            .meta()
            .name
            .clone()
            .or_else(|| obj.meta().generate_name.clone())
            .unwrap_or_default();
        self.api_in::<K>(Namespaces::One(ns))
            .create(&post(server_dry_run), obj)
            .await
            .map_err(|e| describe(e, &format!("cannot create {} {ns}/{name}", kind::<K>())))
    }

    /// A JSON merge patch (RFC 7386) of a cluster-scoped object.
    pub async fn merge_patch<K: Object>(
        &self,
        name: &str,
        patch: &serde_json::Value,
        server_dry_run: bool,
    ) -> anyhow::Result<K> {
        let api: Api<K> = Api::all(self.client.clone());
        api.patch(name, &patch_params(server_dry_run), &Patch::Merge(patch))
            .await
            .map_err(|e| describe(e, &format!("cannot update {} {name}", kind::<K>())))
    }

    /// A JSON merge patch (RFC 7386) of a namespaced object.
    pub async fn merge_patch_in<K: Namespaced>(
        &self,
        ns: &str,
        name: &str,
        patch: &serde_json::Value,
        server_dry_run: bool,
    ) -> anyhow::Result<K> {
        self.api_in::<K>(Namespaces::One(ns))
            .patch(name, &patch_params(server_dry_run), &Patch::Merge(patch))
            .await
            .map_err(|e| describe(e, &format!("cannot update {} {ns}/{name}", kind::<K>())))
    }

    /// Deletes a namespaced object in the background (dependents go with it). False when it
    /// was not there.
    pub async fn delete_in<K: Namespaced>(
        &self,
        ns: &str,
        name: &str,
        server_dry_run: bool,
    ) -> anyhow::Result<bool> {
        match self
            .api_in::<K>(Namespaces::One(ns))
            .delete(name, &delete_params(server_dry_run))
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => Err(describe(
                e,
                &format!("cannot delete {} {ns}/{name}", kind::<K>()),
            )),
        }
    }

    /// Deletes a namespaced object of a kind known by its `apiVersion` and `kind` only (the
    /// owner of a Workload), in the background. With `check_only`, only checks that the
    /// cluster serves the kind. False when the object was not there.
    pub async fn delete_dynamic(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
        name: &str,
        server_dry_run: bool,
        check_only: bool,
    ) -> anyhow::Result<bool> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let (ar, _) = kube::discovery::pinned_kind(&self.client, &gvk)
            .await
            .with_context(|| format!("the cluster does not serve {api_version} {kind}"))?;
        if check_only {
            return Ok(true);
        }
        let api: Api<kube::api::DynamicObject> = Api::namespaced_with(self.client.clone(), ns, &ar);
        match api.delete(name, &delete_params(server_dry_run)).await {
            Ok(_) => Ok(true),
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => Err(describe(e, &format!("cannot delete {kind} {ns}/{name}"))),
        }
    }
}

fn delete_params(server_dry_run: bool) -> DeleteParams {
    DeleteParams {
        dry_run: server_dry_run,
        propagation_policy: Some(PropagationPolicy::Background),
        ..Default::default()
    }
}
