//! Many candidates race for one Lease on a real API server (in-process electors, each its own
//! identity and client): for a released Lease and for an expired one, exactly one wins each
//! round, no two ever believe they lead at the same moment, and the Lease names the winner
//! (written under the winner's own field manager).
//!
//! Checked to fail: writing the Lease as kube-lease-manager did (a forced server-side apply
//! under one shared field manager, no resourceVersion) made round 0 fail with "two candidates
//! lead at once" (four of six).
#![cfg(feature = "cli")]

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, PostParams};
use kubectl_kueue::kube::lease::{Election, ElectionConfig, Timings};

use crate::support::cluster::shared_apiserver;

const NAME: &str = "race";
const CANDIDATES: usize = 6;

fn timings() -> Timings {
    Timings {
        lease_duration: Duration::from_secs(2),
        renew_deadline: Duration::from_millis(1500),
        retry_period: Duration::from_millis(400),
    }
}

/// Puts the Lease back into the state a round starts from: released (no holder) or held by a
/// replica that is gone (its 1 s lease never renewed again).
async fn reset(leases: &Api<Lease>, holder: &str) {
    let now = MicroTime(k8s_openapi::jiff::Timestamp::now());
    let spec = LeaseSpec {
        holder_identity: Some(holder.into()),
        lease_duration_seconds: Some(1),
        acquire_time: Some(now.clone()),
        renew_time: Some(now),
        ..Default::default()
    };
    match leases.get_opt(NAME).await.unwrap() {
        Some(mut l) => {
            l.spec = Some(spec);
            l.metadata.managed_fields = None;
            leases
                .replace(NAME, &PostParams::default(), &l)
                .await
                .unwrap();
        }
        None => {
            let l = Lease {
                metadata: ObjectMeta {
                    name: Some(NAME.into()),
                    ..Default::default()
                },
                spec: Some(spec),
            };
            leases.create(&PostParams::default(), &l).await.unwrap();
        }
    }
}

/// One round: every candidate starts at once; returns the winner's identity.
async fn round(ns: &str, leases: &Api<Lease>, round: usize, watch_for: Duration) -> String {
    let cluster = shared_apiserver();
    let mut elections = Vec::new();
    for c in 0..CANDIDATES {
        let cfg = ElectionConfig {
            namespace: ns.to_string(),
            name: NAME.to_string(),
            identity: format!("kubectl-kueue-race-{round}-{c}"),
            timings: timings(),
        };
        elections.push((
            cfg.identity.clone(),
            Election::start(cluster.client(), &cfg).await.unwrap(),
        ));
    }
    let started = Instant::now();
    let mut winner: Option<String> = None;
    while started.elapsed() < watch_for {
        let leading: Vec<&String> = elections
            .iter()
            .filter(|(_, e)| e.leading())
            .map(|(id, _)| id)
            .collect();
        assert!(
            leading.len() <= 1,
            "round {round}: two candidates lead at once: {leading:?}"
        );
        if let Some(id) = leading.first() {
            if let Some(w) = &winner {
                assert_eq!(
                    w, *id,
                    "round {round}: leadership moved while the leader was fine"
                );
            }
            winner = Some(id.to_string());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let winner = winner.unwrap_or_else(|| panic!("round {round}: nobody won"));
    let leading = elections.iter().filter(|(_, e)| e.leading()).count();
    assert_eq!(leading, 1, "round {round}: exactly one leads at the end");
    let lease = leases.get(NAME).await.unwrap();
    assert_eq!(
        lease.spec.as_ref().and_then(|s| s.holder_identity.clone()),
        Some(winner.clone()),
        "round {round}: the Lease names the winner"
    );
    assert!(
        lease
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .any(|m| m.manager.as_deref() == Some(winner.as_str())),
        "round {round}: the winner wrote under its own field manager: {:?}",
        lease.metadata.managed_fields
    );
    futures::future::join_all(elections.into_iter().map(|(_, e)| e.release())).await;
    winner
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_one_candidate_wins_each_race_for_a_released_or_expired_lease() {
    let cluster = shared_apiserver();
    let ns = cluster.new_namespace("lease-race").await;
    let leases: Api<Lease> = Api::namespaced(cluster.client(), &ns);
    let mut winners = std::collections::BTreeSet::new();
    for r in 0..15 {
        reset(&leases, "").await;
        // Past a follower's first retry (0.4-0.48 s), so losers have looked again.
        winners.insert(round(&ns, &leases, r, Duration::from_millis(1100)).await);
    }
    for r in 15..18 {
        reset(&leases, "kubectl-kueue-gone").await;
        // Candidates wait out the 1 s lease from when they first see it, then race.
        winners.insert(round(&ns, &leases, r, Duration::from_millis(2500)).await);
    }
    assert_eq!(winners.len(), 18, "one distinct winner per round");
}
