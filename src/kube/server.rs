//! What `version` reports about a cluster: its Kubernetes version, whether it serves the Kueue
//! API, and which controller runs it (ours, recognised by its Lease identity, or upstream's).

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ListParams};

use super::Connection;
use super::lease::{IDENTITY_PREFIX, detect_upstream};
use crate::api::ClusterQueue;
use crate::api::config::DEFAULT_LEADER_ELECTION_ID;

/// Whether `kueue.x-k8s.io` is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KueueApi {
    Served,
    NotInstalled,
    /// The check itself failed (for example, no permission to list ClusterQueues).
    Unknown(String),
}

/// Who leads under upstream's leader-election lock name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Controller {
    /// One of our replicas holds the Lease.
    Ours {
        holder: String,
        lease_namespace: String,
    },
    /// Upstream Kueue's controller, and what shows it.
    Upstream(String),
    None,
}

/// The cluster as `version` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// `git_version` of the API server (`v1.36.0`).
    pub kubernetes: String,
    pub kueue_api: KueueApi,
    /// Not looked for when the Kueue API is not installed.
    pub controller: Option<Controller>,
}

impl Connection {
    pub async fn server_info(&self) -> anyhow::Result<ServerInfo> {
        let client = &self.client;
        let kubernetes = client.apiserver_version().await?.git_version;
        let cqs: Api<ClusterQueue> = Api::all(client.clone());
        let kueue_api = match cqs.list(&ListParams::default().limit(1)).await {
            Ok(_) => KueueApi::Served,
            Err(kube::Error::Api(s)) if s.code == 404 => {
                return Ok(ServerInfo {
                    kubernetes,
                    kueue_api: KueueApi::NotInstalled,
                    controller: None,
                });
            }
            Err(e) => KueueApi::Unknown(e.to_string()),
        };
        // Both controllers elect a leader under upstream's lock name; ours use identities
        // with our prefix.
        let leases: Api<Lease> = Api::all(client.clone());
        let held: Vec<(String, String)> = leases
            .list(
                &ListParams::default()
                    .fields(&format!("metadata.name={DEFAULT_LEADER_ELECTION_ID}")),
            )
            .await
            .map(|l| {
                l.items
                    .into_iter()
                    .filter_map(|lease| {
                        let holder = lease
                            .spec
                            .and_then(|s| s.holder_identity)
                            .filter(|h| !h.is_empty())?;
                        Some((lease.metadata.namespace.unwrap_or_default(), holder))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let controller = match held.iter().find(|(_, h)| h.starts_with(IDENTITY_PREFIX)) {
            Some((ns, holder)) => Controller::Ours {
                holder: holder.clone(),
                lease_namespace: ns.clone(),
            },
            None => {
                let ns = held
                    .first()
                    .map(|(ns, _)| ns.as_str())
                    .unwrap_or("kueue-system");
                match detect_upstream(client, ns, DEFAULT_LEADER_ELECTION_ID).await {
                    Some(why) => Controller::Upstream(why),
                    None => Controller::None,
                }
            }
        };
        Ok(ServerInfo {
            kubernetes,
            kueue_api,
            controller: Some(controller),
        })
    }
}
