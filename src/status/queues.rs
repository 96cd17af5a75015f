//! ClusterQueue and LocalQueue status as the engine sees them: `flavorsReservation`,
//! `flavorsUsage`, pending/reserving/admitted counts, the `Active` condition and, with fair
//! sharing, the weighted share. The controller writes these; `simulate -o yaml` prints them.
//!
//! Invariants: borrowed amounts are never negative and are 0 without a cohort (upstream's
//! rule); a LocalQueue counts only unfinished workloads of its namespace and name.

use std::collections::BTreeMap;

use crate::api::{self, ClusterQueue, LocalQueue};
use crate::scheduler::Engine;
use crate::scheduler::inspect::ClusterQueueView;
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

/// What queue status is built from, computed once for every queue: the ClusterQueue views
/// (without queue order) and each LocalQueue's counts and usage from one pass over the
/// workloads. Build it once per round of status updates, not once per queue.
pub struct QueueFigures {
    views: Vec<ClusterQueueView>,
    local: BTreeMap<(String, String), LocalFigures>,
}

/// One LocalQueue's unfinished workloads.
#[derive(Default)]
pub struct LocalFigures {
    pub pending: i32,
    pub reserving: i32,
    pub admitted: i32,
    /// Per (flavor, resource).
    pub reserved: BTreeMap<(String, String), Amount>,
    pub used: BTreeMap<(String, String), Amount>,
}

impl QueueFigures {
    pub fn of(engine: &Engine) -> QueueFigures {
        // Collected under borrowed names (thousands of workloads, a few queues), owned once
        // per queue at the end.
        let mut local: BTreeMap<(&str, &str), LocalFigures> = BTreeMap::new();
        for (w, holding, blocked) in engine.workload_standings() {
            if w.finished {
                continue;
            }
            let lq = local
                .entry((w.namespace.as_str(), w.queue_name.as_str()))
                .or_default();
            match (holding, &w.admission) {
                (true, Some(adm)) => {
                    lq.reserving += 1;
                    if w.admitted {
                        lq.admitted += 1;
                    }
                    for ps in &adm.pod_sets {
                        for (r, f) in &ps.flavors {
                            let v = ps.resource_usage.get(r).copied().unwrap_or_default();
                            *lq.reserved.entry((f.clone(), r.clone())).or_default() += v;
                            if w.admitted {
                                *lq.used.entry((f.clone(), r.clone())).or_default() += v;
                            }
                        }
                    }
                }
                _ if !blocked => lq.pending += 1,
                _ => {}
            }
        }
        QueueFigures {
            views: engine.cluster_queue_figures(),
            local: local
                .into_iter()
                .map(|((ns, q), f)| ((ns.to_string(), q.to_string()), f))
                .collect(),
        }
    }

    /// One ClusterQueue's view.
    pub fn view(&self, name: &str) -> Option<&ClusterQueueView> {
        self.views.iter().find(|v| v.name == name)
    }

    /// One LocalQueue's figures, when it has unfinished workloads.
    pub fn local(&self, namespace: &str, name: &str) -> Option<&LocalFigures> {
        self.local.get(&(namespace.to_string(), name.to_string()))
    }
}

/// The ClusterQueue object with the status the run leaves.
pub fn cluster_queue_with_status(cq: &ClusterQueue, engine: &Engine, now: Millis) -> ClusterQueue {
    cluster_queue_with_figures(cq, engine, &QueueFigures::of(engine), now)
}

/// [`cluster_queue_with_status`] from figures already computed.
pub fn cluster_queue_with_figures(
    cq: &ClusterQueue,
    engine: &Engine,
    figures: &QueueFigures,
    now: Millis,
) -> ClusterQueue {
    let mut out = cq.clone();
    let name = cq.metadata.name.clone().unwrap_or_default();
    let Some(view) = figures.view(&name) else {
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
    local_queue_with_figures(lq, &QueueFigures::of(engine), now)
}

/// [`local_queue_with_status`] from figures already computed.
pub fn local_queue_with_figures(
    lq: &LocalQueue,
    figures: &QueueFigures,
    now: Millis,
) -> LocalQueue {
    let mut out = lq.clone();
    let ns = lq
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let name = lq.metadata.name.clone().unwrap_or_default();
    let mut st = out.status.clone().unwrap_or_default();
    let empty = LocalFigures::default();
    let f = figures.local.get(&(ns, name)).unwrap_or(&empty);
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
    st.pending_workloads = f.pending;
    st.reserving_workloads = f.reserving;
    st.admitted_workloads = f.admitted;
    st.flavors_reservation = to_usage(&f.reserved);
    st.flavor_usage = to_usage(&f.used);
    let cq = lq.spec.cluster_queue.clone().unwrap_or_default();
    let cq_active = figures.view(&cq).is_some_and(|v| v.inactive.is_none());
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
