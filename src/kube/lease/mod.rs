//! Leader election over a `coordination.k8s.io/v1` Lease, client-go's way: [`decide`] is the
//! pure rule (acquire / renew / wait / lost), `elector` the thin loop that performs it with
//! writes guarded by the Lease's `resourceVersion`, [`fence`] what every write checks before
//! it is sent. Also the check that upstream Kueue's controller is not already managing the
//! cluster.
//!
//! Our replicas' identities start with [`IDENTITY_PREFIX`], so a Lease held by anything else
//! under upstream's lock name is upstream Kueue's.

use std::time::{Duration, SystemTime};

use anyhow::Context;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Client;
use kube::api::{Api, ListParams};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub mod decide;
mod elector;
pub mod fence;

pub use decide::Timings;
use elector::Elector;
pub use elector::Ended;
pub use fence::{Fence, Fenced};

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
            if let Some((holder, _)) = live_holder(&lease, now_millis())
                && !holder.starts_with(IDENTITY_PREFIX)
            {
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

/// Who holds `lease` and how many milliseconds ago they renewed it, while its
/// `leaseDurationSeconds` since that renewal have not passed at `now_ms` (epoch
/// milliseconds; this machine's clock against the holder's).
pub fn live_holder(lease: &Lease, now_ms: i64) -> Option<(String, i64)> {
    let spec = lease.spec.as_ref()?;
    let holder = spec.holder_identity.clone().filter(|h| !h.is_empty())?;
    let renewed = spec.renew_time.as_ref()?.0.as_millisecond();
    let duration = i64::from(spec.lease_duration_seconds.unwrap_or(15));
    (renewed + duration * 1000 > now_ms).then_some((holder, now_ms - renewed))
}

/// Why a controller without leader election must not start: another of our controllers
/// holds the Lease and keeps it fresh (it would fight this one over every Workload). `None`
/// when nobody of ours does (a Lease that cannot be read is skipped with a warning).
pub async fn held_by_another(
    client: &Client,
    lease_namespace: &str,
    lease_name: &str,
) -> Option<String> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), lease_namespace);
    match leases.get_opt(lease_name).await {
        Ok(Some(lease)) => {
            let (holder, ago_ms) = live_holder(&lease, now_millis())?;
            holder.starts_with(IDENTITY_PREFIX).then(|| {
                format!(
                    "another kubectl-kueue controller ({holder}) holds lease {lease_namespace}/{lease_name}, renewed {}s ago; pass --leader-elect to join as a follower, or stop it first",
                    ago_ms.max(0) / 1000
                )
            })
        }
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the leader-election Lease to look for another controller; skipping that check");
            None
        }
    }
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
    pub timings: Timings,
}

/// A running election: `leader` turns true when this replica holds the Lease and false when
/// it no longer does; [`Election::fence`] says, at each write, whether one may be sent.
pub struct Election {
    pub leader: watch::Receiver<bool>,
    fence: Fence,
    stop: watch::Sender<bool>,
    task: JoinHandle<Ended>,
    timings: Timings,
}

impl Election {
    /// Joins the election (the Lease is created when missing). `client` should be the lock's
    /// own client, with timeouts of [`Timings::request_timeout`].
    pub async fn start(client: Client, cfg: &ElectionConfig) -> anyhow::Result<Election> {
        cfg.timings.validate().map_err(anyhow::Error::msg)?;
        let (leader_tx, leader) = watch::channel(false);
        let (stop, stop_rx) = watch::channel(false);
        let fence = Fence::new();
        let elector = Elector {
            api: Api::namespaced(client, &cfg.namespace),
            name: cfg.name.clone(),
            identity: cfg.identity.clone(),
            timings: cfg.timings,
            fence: fence.clone(),
            leader: leader_tx,
        };
        let task = tokio::spawn(elector.run(stop_rx));
        Ok(Election {
            leader,
            fence,
            stop,
            task,
            timings: cfg.timings,
        })
    }

    /// Waits until this replica leads.
    pub async fn acquired(&mut self) -> anyhow::Result<()> {
        self.leader
            .wait_for(|l| *l)
            .await
            .context("leader election stopped")?;
        Ok(())
    }

    /// Whether this replica leads now and its lease is within the renew deadline.
    pub fn leading(&self) -> bool {
        self.fence.check().is_ok()
    }

    /// What every write checks right before it is sent.
    pub fn fence(&self) -> Fence {
        self.fence.clone()
    }

    /// Stops taking part, handing the Lease back if this replica holds it (so another
    /// replica takes over at once), and says how the election ended.
    pub async fn release(self) -> Ended {
        let _ = self.stop.send(true);
        // An attempt under way (a read and a write) plus the release itself.
        let wait = self.timings.request_timeout() * 3 + Duration::from_secs(1);
        match tokio::time::timeout(wait, self.task).await {
            Ok(Ok(ended)) => ended,
            _ => {
                self.fence.close();
                Ended::Stopped
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_is_live_until_its_lease_duration_after_its_renewal() {
        let lease = |holder: &str, renewed_ms: i64| Lease {
            spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
                holder_identity: Some(holder.into()),
                lease_duration_seconds: Some(15),
                renew_time: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(
                    k8s_openapi::jiff::Timestamp::from_millisecond(renewed_ms).unwrap(),
                )),
                ..Default::default()
            }),
            ..Default::default()
        };
        let now = 1_000_000_000;
        assert_eq!(
            live_holder(&lease("a", now - 3_000), now),
            Some(("a".into(), 3_000))
        );
        assert_eq!(live_holder(&lease("a", now - 15_000), now), None);
        assert_eq!(live_holder(&lease("", now), now), None, "released");
    }

    #[test]
    fn identities_are_ours_and_unique_enough() {
        let a = identity();
        assert!(a.starts_with(IDENTITY_PREFIX), "{a}");
        std::thread::sleep(Duration::from_millis(2));
        assert_ne!(a, identity());
    }
}
