//! Which versions of `kueue.x-k8s.io` the API server serves (discovery), and the one the
//! user commands read and write: v1beta2 when served (the version upstream stores since
//! v0.16: reads need no conversion webhook, and it works the same once upstream drops
//! v1beta1), converted to and from the internal form (v1beta1) here with
//! [`crate::api::convert`], the rules the conversion webhook applies; else v1beta1 (older
//! installs). The controller watches and writes v1beta1 (see `controller::run`).
//!
//! Data in: the API server's group list. Data out: the served versions, oldest first.

use kube::Client;

use crate::api::KueueVersion;

/// The versions of `kueue.x-k8s.io` served, oldest first (empty: the Kueue API is not
/// installed).
pub async fn served(client: &Client) -> anyhow::Result<Vec<KueueVersion>> {
    // The kube error kept as the source: a timeout is recognised and explained upstream.
    let groups = client
        .list_api_groups()
        .await
        .map_err(anyhow::Error::new)
        .map_err(|e| e.context("cannot discover the API groups"))?;
    Ok(served_in(&groups))
}

/// The versions of `kueue.x-k8s.io` a group list holds, oldest first.
pub fn served_in(
    groups: &k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroupList,
) -> Vec<KueueVersion> {
    let mut out: Vec<KueueVersion> = groups
        .groups
        .iter()
        .filter(|g| g.name == crate::api::GROUP)
        .flat_map(|g| g.versions.iter())
        .filter_map(|v| v.version.parse().ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The version the user commands use: v1beta2 when served, else v1beta1, else `None`.
pub fn preferred(served: &[KueueVersion]) -> Option<KueueVersion> {
    [KueueVersion::V1beta2, KueueVersion::V1beta1]
        .into_iter()
        .find(|v| served.contains(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroupList;

    fn groups(versions: &[&str]) -> APIGroupList {
        serde_json::from_value(serde_json::json!({
            "groups": [
                { "name": "batch", "versions": [{ "groupVersion": "batch/v1", "version": "v1" }] },
                { "name": "kueue.x-k8s.io", "versions": versions.iter().map(|v| serde_json::json!({ "groupVersion": format!("kueue.x-k8s.io/{v}"), "version": v })).collect::<Vec<_>>() },
            ]
        }))
        .unwrap()
    }

    #[test]
    fn v1beta2_when_served_else_v1beta1() {
        let both = served_in(&groups(&["v1beta2", "v1beta1"]));
        assert_eq!(both, [KueueVersion::V1beta1, KueueVersion::V1beta2]);
        assert_eq!(preferred(&both), Some(KueueVersion::V1beta2));
        let v1 = served_in(&groups(&["v1beta1"]));
        assert_eq!(preferred(&v1), Some(KueueVersion::V1beta1));
        let v2 = served_in(&groups(&["v1beta2", "v1"]));
        assert_eq!(v2, [KueueVersion::V1beta2]);
        assert_eq!(preferred(&v2), Some(KueueVersion::V1beta2));
        assert_eq!(preferred(&served_in(&groups(&[]))), None);
    }
}
