//! Object identities at the edge, from `ObjectMeta`: the one place that owns the
//! default-namespace rule (a namespaced object read without a namespace, as from a file, is in
//! `default`, as `kubectl apply` would put it).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::scheduler::key::WorkloadKey;

/// The namespace a namespaced object without one lands in.
pub const DEFAULT_NAMESPACE: &str = "default";

/// Namespace (for namespaced kinds) and name of an object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectKey {
    /// The key of a namespaced object: a missing namespace is `default`.
    pub fn namespaced(meta: &ObjectMeta) -> Self {
        Self {
            namespace: Some(namespace_of(meta).to_string()),
            name: meta.name.clone().unwrap_or_default(),
        }
    }

    /// The key of a cluster-scoped object (any namespace in the metadata is ignored).
    pub fn cluster_scoped(meta: &ObjectMeta) -> Self {
        Self {
            namespace: None,
            name: meta.name.clone().unwrap_or_default(),
        }
    }

    /// The key as the engine knows a namespaced object (a Workload, a Job).
    pub fn workload(meta: &ObjectMeta) -> WorkloadKey {
        WorkloadKey::new(namespace_of(meta), meta.name.clone().unwrap_or_default())
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// The namespace of a namespaced object, `default` when the metadata has none.
pub fn namespace_of(meta: &ObjectMeta) -> &str {
    meta.namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or(DEFAULT_NAMESPACE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(ns: Option<&str>, name: &str) -> ObjectMeta {
        ObjectMeta {
            namespace: ns.map(str::to_string),
            name: Some(name.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_namespaced_object_without_namespace_is_in_default() {
        assert_eq!(
            ObjectKey::namespaced(&meta(None, "w")).to_string(),
            "default/w"
        );
        assert_eq!(
            ObjectKey::namespaced(&meta(Some(""), "w")).to_string(),
            "default/w"
        );
        assert_eq!(
            ObjectKey::namespaced(&meta(Some("a"), "w")).to_string(),
            "a/w"
        );
        assert_eq!(
            ObjectKey::workload(&meta(None, "w")),
            WorkloadKey::new("default", "w")
        );
    }

    #[test]
    fn a_cluster_scoped_object_is_its_name() {
        assert_eq!(
            ObjectKey::cluster_scoped(&meta(Some("x"), "cq")).to_string(),
            "cq"
        );
    }
}
