//! Typed reads and writes of single kinds for the user commands: list, get, create, merge
//! patch and delete, on a [`Connection`], under the commands' field manager.
//!
//! The Kueue kinds are typed in v1beta1 (the internal form). On a cluster that serves v1beta2
//! their requests go to v1beta2 (see [`super::versions`]), each object converted on the way
//! out and back with upstream's rules ([`convert_object`]); a merge patch is sent as it is,
//! so the commands patch only fields spelled the same in both versions (`spec.stopPolicy`,
//! `spec.active`, metadata).
//!
//! Invariants: a missing object is `Ok(None)` (or `Ok(false)` for a delete), never an error;
//! every other failure is an error that says what failed on what ([`describe`]); a server dry
//! run goes through the API server's validation and admission and stores nothing.

use std::fmt::Debug;

use anyhow::Context;
use k8s_openapi::NamespaceResourceScope;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
    PropagationPolicy,
};
use kube::core::{GroupVersionKind, TypeMeta};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Connection;
use crate::api::KueueVersion;
use crate::api::convert::review::convert_object;

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
                "{what}: the cluster does not serve this kind (for the Kueue kinds, install Kueue's CRDs: kubectl kueue install, or upstream Kueue)"
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

/// Where a kind's requests go: its own version, or (a Kueue kind on a cluster that serves
/// v1beta2) v1beta2, every object converted both ways.
enum Served<K> {
    Own(Api<K>),
    V1beta2(Api<DynamicObject>),
}

/// `obj` (v1beta1) as the v1beta2 object the cluster stores.
fn to_v1beta2<K: Object>(obj: &K) -> anyhow::Result<DynamicObject> {
    let mut v = serde_json::to_value(obj)?;
    v["apiVersion"] = K::api_version(&()).into();
    v["kind"] = K::kind(&()).into();
    let converted = convert_object(&v, KueueVersion::V1beta2).map_err(anyhow::Error::msg)?;
    Ok(serde_json::from_value(converted)?)
}

/// A v1beta2 object read from the cluster, in the internal form.
fn from_v1beta2<K: Object>(mut obj: DynamicObject) -> anyhow::Result<K> {
    obj.types = Some(TypeMeta {
        api_version: crate::api::v1beta2::API_VERSION.into(),
        kind: K::kind(&()).into(),
    });
    let v = serde_json::to_value(&obj)?;
    let converted = convert_object(&v, KueueVersion::V1beta1)
        .map_err(|e| anyhow::anyhow!("cannot read it as v1beta1: {e}"))?;
    Ok(serde_json::from_value(converted)?)
}

impl<K: Object> Served<K> {
    async fn list(&self, lp: &ListParams, what: &str) -> anyhow::Result<Vec<K>> {
        match self {
            Served::Own(api) => Ok(api.list(lp).await.map_err(|e| describe(e, what))?.items),
            Served::V1beta2(api) => {
                let items = api.list(lp).await.map_err(|e| describe(e, what))?.items;
                items
                    .into_iter()
                    .map(|o| {
                        let name = o.name_any();
                        from_v1beta2(o).with_context(|| format!("{what}: {} {name}", kind::<K>()))
                    })
                    .collect()
            }
        }
    }

    async fn get_opt(&self, name: &str, what: &str) -> anyhow::Result<Option<K>> {
        match self {
            Served::Own(api) => api.get_opt(name).await.map_err(|e| describe(e, what)),
            Served::V1beta2(api) => match api.get_opt(name).await.map_err(|e| describe(e, what))? {
                Some(o) => Ok(Some(from_v1beta2(o).context(what.to_string())?)),
                None => Ok(None),
            },
        }
    }

    async fn create(&self, pp: &PostParams, obj: &K, what: &str) -> anyhow::Result<K> {
        match self {
            Served::Own(api) => api.create(pp, obj).await.map_err(|e| describe(e, what)),
            Served::V1beta2(api) => {
                let converted = to_v1beta2(obj).context(what.to_string())?;
                let created = api
                    .create(pp, &converted)
                    .await
                    .map_err(|e| describe(e, what))?;
                from_v1beta2(created).context(what.to_string())
            }
        }
    }

    async fn merge_patch(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &serde_json::Value,
        what: &str,
    ) -> anyhow::Result<K> {
        match self {
            Served::Own(api) => api
                .patch(name, pp, &Patch::Merge(patch))
                .await
                .map_err(|e| describe(e, what)),
            Served::V1beta2(api) => {
                let patched = api
                    .patch(name, pp, &Patch::Merge(patch))
                    .await
                    .map_err(|e| describe(e, what))?;
                from_v1beta2(patched).context(what.to_string())
            }
        }
    }

    async fn delete(&self, name: &str, dp: &DeleteParams, what: &str) -> anyhow::Result<bool> {
        let deleted = match self {
            Served::Own(api) => api.delete(name, dp).await.map(|_| ()),
            Served::V1beta2(api) => api.delete(name, dp).await.map(|_| ()),
        };
        match deleted {
            Ok(()) => Ok(true),
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => Err(describe(e, what)),
        }
    }
}

impl Connection {
    fn api_in<K: Namespaced>(&self, namespaces: Namespaces<'_>) -> Api<K> {
        match namespaces {
            Namespaces::One(ns) => Api::namespaced(self.client.clone(), ns),
            Namespaces::All => Api::all(self.client.clone()),
        }
    }

    /// Where `K`'s requests go (`own` unless `K` is a Kueue kind and the cluster serves
    /// v1beta2; then in `namespace`, or in every namespace / cluster-wide).
    async fn served<K: Object>(
        &self,
        own: Api<K>,
        namespace: Option<&str>,
    ) -> anyhow::Result<Served<K>> {
        if K::group(&()) != crate::api::GROUP {
            return Ok(Served::Own(own));
        }
        let served = self.kueue_versions().await?;
        if super::versions::preferred(&served) != Some(KueueVersion::V1beta2) {
            return Ok(Served::Own(own));
        }
        let gvk = GroupVersionKind::gvk(
            crate::api::GROUP,
            KueueVersion::V1beta2.name(),
            &K::kind(&()),
        );
        let ar = ApiResource::from_gvk_with_plural(&gvk, &K::plural(&()));
        Ok(Served::V1beta2(match namespace {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &ar),
            None => Api::all_with(self.client.clone(), &ar),
        }))
    }

    async fn served_in<K: Namespaced>(
        &self,
        namespaces: Namespaces<'_>,
    ) -> anyhow::Result<Served<K>> {
        let ns = match namespaces {
            Namespaces::One(ns) => Some(ns),
            Namespaces::All => None,
        };
        self.served(self.api_in::<K>(namespaces), ns).await
    }

    async fn served_all<K: Object>(&self) -> anyhow::Result<Served<K>> {
        self.served(Api::all(self.client.clone()), None).await
    }

    /// Every object of a cluster-scoped kind (or of a namespaced kind in every namespace),
    /// optionally by label selector.
    pub async fn list<K: Object>(&self, selector: Option<&str>) -> anyhow::Result<Vec<K>> {
        let what = format!("cannot list {}s", kind::<K>());
        self.served_all::<K>()
            .await?
            .list(&params(selector), &what)
            .await
    }

    /// Objects of a namespaced kind in one namespace or all.
    pub async fn list_in<K: Namespaced>(
        &self,
        namespaces: Namespaces<'_>,
        selector: Option<&str>,
    ) -> anyhow::Result<Vec<K>> {
        let what = format!("cannot list {}s", kind::<K>());
        self.served_in::<K>(namespaces)
            .await?
            .list(&params(selector), &what)
            .await
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
        let what = format!("cannot read {} {name}", kind::<K>());
        self.served_all::<K>().await?.get_opt(name, &what).await
    }

    /// A namespaced object.
    pub async fn get_in<K: Namespaced>(&self, ns: &str, name: &str) -> anyhow::Result<Option<K>> {
        let what = format!("cannot read {} {ns}/{name}", kind::<K>());
        self.served_in::<K>(Namespaces::One(ns))
            .await?
            .get_opt(name, &what)
            .await
    }

    /// Creates a cluster-scoped object (with `server_dry_run`, only validates it).
    pub async fn create<K: Object>(&self, obj: &K, server_dry_run: bool) -> anyhow::Result<K> {
        let what = format!("cannot create {} {}", kind::<K>(), obj.name_any());
        let served = self.served_all::<K>().await?;
        served.create(&post(server_dry_run), obj, &what).await
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
        let what = format!("cannot create {} {ns}/{name}", kind::<K>());
        let served = self.served_in::<K>(Namespaces::One(ns)).await?;
        served.create(&post(server_dry_run), obj, &what).await
    }

    /// A JSON merge patch (RFC 7386) of a cluster-scoped object.
    pub async fn merge_patch<K: Object>(
        &self,
        name: &str,
        patch: &serde_json::Value,
        server_dry_run: bool,
    ) -> anyhow::Result<K> {
        let what = format!("cannot update {} {name}", kind::<K>());
        let served = self.served_all::<K>().await?;
        served
            .merge_patch(name, &patch_params(server_dry_run), patch, &what)
            .await
    }

    /// A JSON merge patch (RFC 7386) of a namespaced object.
    pub async fn merge_patch_in<K: Namespaced>(
        &self,
        ns: &str,
        name: &str,
        patch: &serde_json::Value,
        server_dry_run: bool,
    ) -> anyhow::Result<K> {
        let what = format!("cannot update {} {ns}/{name}", kind::<K>());
        let served = self.served_in::<K>(Namespaces::One(ns)).await?;
        served
            .merge_patch(name, &patch_params(server_dry_run), patch, &what)
            .await
    }

    /// Deletes a namespaced object in the background (dependents go with it). False when it
    /// was not there.
    pub async fn delete_in<K: Namespaced>(
        &self,
        ns: &str,
        name: &str,
        server_dry_run: bool,
    ) -> anyhow::Result<bool> {
        let what = format!("cannot delete {} {ns}/{name}", kind::<K>());
        let served = self.served_in::<K>(Namespaces::One(ns)).await?;
        served
            .delete(name, &delete_params(server_dry_run), &what)
            .await
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
