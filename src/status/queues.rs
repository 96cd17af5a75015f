//! ClusterQueue and LocalQueue status as the engine sees them: `flavorsReservation`,
//! `flavorsUsage`, pending/reserving/admitted counts, the `Active` condition and, with fair
//! sharing, the weighted share. The controller writes these; `simulate -o yaml` prints them.
//!
//! Invariants: borrowed amounts are never negative and are 0 without a cohort (upstream's
//! rule); a LocalQueue counts only unfinished workloads of its namespace and name.

use std::collections::BTreeMap;

use crate::api::{self, ClusterQueue, LocalQueue};
use crate::scheduler::Engine;
use crate::scheduler::model::Millis;
use crate::scheduler::quantity::Amount;

use super::conditions::set_condition;
use super::workload::quantity;

fn flavor_usage(
    usage: &[crate::scheduler::inspect::FlavorResourceUsage],
    admitted_only: bool,
    with_borrowed: bool,
) -> Vec<api::FlavorUsage> {
    let mut out: Vec<api::FlavorUsage> = Vec::new();
    for u in usage {
        let total = if admitted_only {
            u.admitted
        } else {
            u.reserved
        };
        // upstream: max(0, total - nominal), forced to 0 without a cohort.
        let borrowed = if with_borrowed {
            (total - u.nominal).max(Amount::ZERO)
        } else {
            Amount::ZERO
        };
        let r = api::ResourceUsage {
            name: u.resource.clone(),
            total: Some(quantity(&u.resource, total)),
            borrowed: Some(quantity(&u.resource, borrowed)),
        };
        match out.iter_mut().find(|f| f.name == u.flavor) {
            Some(f) => f.resources.push(r),
            None => out.push(api::FlavorUsage {
                name: u.flavor.clone(),
                resources: vec![r],
            }),
        }
    }
    out
}

/// The ClusterQueue object with the status the run leaves.
pub fn cluster_queue_with_status(cq: &ClusterQueue, engine: &Engine, now: Millis) -> ClusterQueue {
    let mut out = cq.clone();
    let name = cq.metadata.name.clone().unwrap_or_default();
    let Some(view) = engine.cluster_queues().into_iter().find(|v| v.name == name) else {
        return out;
    };
    let mut st = out.status.clone().unwrap_or_default();
    let has_cohort = view.cohort.is_some();
    st.flavors_reservation = flavor_usage(&view.usage, false, has_cohort);
    st.flavors_usage = flavor_usage(&view.usage, true, has_cohort);
    st.pending_workloads = view.pending as i32;
    st.reserving_workloads = view.reserving as i32;
    st.admitted_workloads = view.admitted as i32;
    match &view.inactive {
        None => set_condition(
            &mut st.conditions,
            "Active",
            true,
            "Ready",
            "Can admit new workloads",
            now,
        ),
        Some(why) => set_condition(
            &mut st.conditions,
            "Active",
            false,
            why.condition_reason(),
            &why.message(),
            now,
        ),
    }
    if engine.config().fair_sharing.is_some()
        && let Some((share, _, _)) = engine.weighted_share(&name)
    {
        st.fair_sharing = Some(api::FairSharingStatus {
            weighted_share: share,
            admission_fair_sharing_status: None,
        });
    }
    out.status = Some(st);
    out
}

/// The LocalQueue object with the status the run leaves.
pub fn local_queue_with_status(lq: &LocalQueue, engine: &Engine, now: Millis) -> LocalQueue {
    let mut out = lq.clone();
    let ns = lq
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let name = lq.metadata.name.clone().unwrap_or_default();
    let mut st = out.status.clone().unwrap_or_default();
    let (mut pending, mut reserving, mut admitted) = (0, 0, 0);
    let mut reserved: BTreeMap<(String, String), Amount> = BTreeMap::new();
    let mut used: BTreeMap<(String, String), Amount> = BTreeMap::new();
    for w in engine
        .workloads()
        .filter(|w| w.namespace == ns && w.queue_name == name && !w.finished)
    {
        match (engine.holding_queue(&w.key()), &w.admission) {
            (Some(_), Some(adm)) => {
                reserving += 1;
                if w.admitted {
                    admitted += 1;
                }
                for ps in &adm.pod_sets {
                    for (r, f) in &ps.flavors {
                        let v = ps.resource_usage.get(r).copied().unwrap_or_default();
                        *reserved.entry((f.clone(), r.clone())).or_default() += v;
                        if w.admitted {
                            *used.entry((f.clone(), r.clone())).or_default() += v;
                        }
                    }
                }
            }
            _ if engine.blocked_reason(&w.key()).is_none() => pending += 1,
            _ => {}
        }
    }
    let to_usage = |m: &BTreeMap<(String, String), Amount>| {
        let mut out: Vec<api::LocalQueueFlavorUsage> = Vec::new();
        for ((f, r), v) in m {
            let ru = api::LocalQueueResourceUsage {
                name: r.clone(),
                total: Some(quantity(r, *v)),
            };
            match out.iter_mut().find(|x| &x.name == f) {
                Some(x) => x.resources.push(ru),
                None => out.push(api::LocalQueueFlavorUsage {
                    name: f.clone(),
                    resources: vec![ru],
                }),
            }
        }
        out
    };
    st.pending_workloads = pending;
    st.reserving_workloads = reserving;
    st.admitted_workloads = admitted;
    st.flavors_reservation = to_usage(&reserved);
    st.flavor_usage = to_usage(&used);
    let cq = lq.spec.cluster_queue.clone().unwrap_or_default();
    let cq_active = engine
        .cluster_queues()
        .iter()
        .any(|v| v.name == cq && v.inactive.is_none());
    if lq.spec.stop_policy.is_stopped() {
        set_condition(
            &mut st.conditions,
            "Active",
            false,
            "Stopped",
            "LocalQueue is stopped",
            now,
        );
    } else if cq_active {
        set_condition(
            &mut st.conditions,
            "Active",
            true,
            "Ready",
            "Can submit new workloads to localQueue",
            now,
        );
    } else {
        set_condition(
            &mut st.conditions,
            "Active",
            false,
            "ClusterQueueIsInactive",
            "Can't submit new workloads to clusterQueue",
            now,
        );
    }
    out.status = Some(st);
    out
}
