//! Leader election over a `coordination.k8s.io/v1` Lease (kube-lease-manager), and the check
//! that upstream Kueue's controller is not already managing the cluster.
//!
//! Our replicas' identities start with [`IDENTITY_PREFIX`], so a Lease held by anything else
//! under upstream's lock name is upstream Kueue's.

use std::time::{Duration, SystemTime};

use anyhow::Context;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Client;
use kube::api::{Api, ListParams};
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Every kubectl-kueue replica's lease identity starts with this.
pub const IDENTITY_PREFIX: &str = "kubectl-kueue-";
/// Upstream Kueue's controller Deployment.
pub const UPSTREAM_DEPLOYMENT: &str = "kueue-controller-manager";

/// `kubectl-kueue-<host>-<random>`: unique per process, recognisably ours.
pub fn identity() -> String {
    let host = std::env::var("POD_NAME")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let random = (nanos as u64) ^ (u64::from(std::process::id()) << 32);
    format!("{IDENTITY_PREFIX}{host}-{:08x}", random as u32)
}

/// What shows that upstream Kueue runs: a ready `kueue-controller-manager` Deployment, or a
/// live Lease under `lease_name` held by an identity that is not ours. `None` when neither
/// (checks the caller may not read are skipped with a warning).
pub async fn detect_upstream(
    client: &Client,
    lease_namespace: &str,
    lease_name: &str,
) -> Option<String> {
    let deployments: Api<Deployment> = Api::all(client.clone());
    let lp = ListParams::default().fields(&format!("metadata.name={UPSTREAM_DEPLOYMENT}"));
    match deployments.list(&lp).await {
        Ok(list) => {
            for d in list.items {
                let ready = d
                    .status
                    .as_ref()
                    .and_then(|s| s.ready_replicas)
                    .unwrap_or(0);
                if ready > 0 {
                    return Some(format!(
                        "Deployment {}/{UPSTREAM_DEPLOYMENT} has {ready} ready replica(s)",
                        d.metadata.namespace.unwrap_or_default()
                    ));
                }
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot list Deployments to look for upstream Kueue; skipping that check")
        }
    }
    let leases: Api<Lease> = Api::namespaced(client.clone(), lease_namespace);
    match leases.get_opt(lease_name).await {
        Ok(Some(lease)) => {
            let spec = lease.spec.unwrap_or_default();
            let holder = spec.holder_identity.unwrap_or_default();
            let duration = i64::from(spec.lease_duration_seconds.unwrap_or(15));
            let live = spec
                .renew_time
                .as_ref()
                .map(|t| t.0.as_millisecond() + duration * 1000 > now_millis())
                .unwrap_or(false);
            if live && !holder.is_empty() && !holder.starts_with(IDENTITY_PREFIX) {
                return Some(format!(
                    "Lease {lease_namespace}/{lease_name} is held by {holder}"
                ));
            }
        }
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the leader-election Lease to look for upstream Kueue; skipping that check")
        }
    }
    None
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Leader election settings, from the Configuration's `leaderElection`.
#[derive(Debug, Clone)]
pub struct ElectionConfig {
    pub namespace: String,
    pub name: String,
    pub identity: String,
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
}

/// A running election: `leader` turns true when this replica holds the Lease and false when
/// it loses it.
pub struct Election {
    pub leader: watch::Receiver<bool>,
    task: JoinHandle<kube_lease_manager::Result<LeaseManager>>,
}

impl Election {
    /// Joins the election (creating the Lease when missing).
    pub async fn start(client: Client, cfg: &ElectionConfig) -> anyhow::Result<Election> {
        let duration = cfg.lease_duration.as_secs().max(2);
        // Renew when `renewDeadline` has passed since the last renewal.
        let grace = duration
            .saturating_sub(cfg.renew_deadline.as_secs())
            .clamp(1, duration - 1);
        let manager = LeaseManagerBuilder::new(client, &cfg.name)
            .with_namespace(&cfg.namespace)
            .with_identity(&cfg.identity)
            .with_duration(duration)
            .with_grace(grace)
            .with_field_manager("kubectl-kueue-leader-election")
            .build()
            .await
            .with_context(|| {
                format!(
                    "cannot use the leader-election Lease {}/{}",
                    cfg.namespace, cfg.name
                )
            })?;
        let (leader, task) = manager.watch().await;
        Ok(Election { leader, task })
    }

    /// Waits until this replica leads.
    pub async fn acquired(&mut self) -> anyhow::Result<()> {
        self.leader
            .wait_for(|l| *l)
            .await
            .context("leader election stopped")?;
        Ok(())
    }

    /// Gives the Lease up (so another replica takes over at once) and waits a little for it.
    pub async fn release(self) {
        let Election { leader, task } = self;
        drop(leader);
        let _ = tokio::time::timeout(Duration::from_secs(3), task).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_ours_and_unique_enough() {
        let a = identity();
        assert!(a.starts_with(IDENTITY_PREFIX), "{a}");
        std::thread::sleep(Duration::from_millis(2));
        assert_ne!(a, identity());
    }
}
