//! The `status` summary as data: per cohort, each ClusterQueue's quota and usage per flavor
//! and resource, the LocalQueues, and the workloads with their state, position, wait and
//! flavor. [`StatusView`] is also the `-o json|yaml` shape; `output::status` lays it out.
//!
//! When the snapshot has Nodes, `capacity` holds the physical check ([`super::capacity`]):
//! quota findings for the flavors of the ClusterQueues shown, and a finding per shown
//! workload whose pods its flavors' nodes cannot hold (pending: on its forecast flavors).
//!
//! Invariants: usage and positions come from the engine run on the snapshot, so the view is
//! the same on our controller and upstream Kueue's; cohorts are in name order with the
//! ClusterQueues without one last; workloads are ordered by ClusterQueue, then admitted before
//! pending before inactive before finished, then by position.

use std::collections::BTreeMap;

use serde::Serialize;

use super::capacity::{self, Capacity, Finding, Placement, PodFit};
use super::snapshot::{Reason, Snapshot};
use super::workload::{WorkloadState, assigned_flavors, local_queue_counts, wait_time};
use crate::api::workload_status::condition;
use crate::api::{LocalQueue, Workload};
use crate::manifests::ObjectKey;
use crate::manifests::key::namespace_of;
use crate::scheduler::quantity::format_amount;
use crate::simulate::forecast::Estimate;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StatusView {
    /// Cohorts in name order; the ClusterQueues without a cohort come last (`cohort: null`).
    pub cohorts: Vec<CohortStatus>,
    pub local_queues: Vec<LocalQueueStatus>,
    pub workloads: Vec<WorkloadStatus>,
    /// Finished workloads left out (`--all` shows them).
    pub finished_not_shown: usize,
    /// The namespace LocalQueues and workloads were read from; None for all namespaces.
    pub namespace: Option<String>,
    /// When the objects were read (milliseconds since the epoch): the forecasts start here.
    pub now: i64,
    /// Quota and workloads checked against the Nodes; absent when there are no Nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CohortStatus {
    pub cohort: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub cluster_queues: Vec<ClusterQueueStatus>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    pub name: String,
    pub active: bool,
    /// Why not active: upstream's condition reason and message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inactive_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inactive_message: Option<String>,
    pub pending_workloads: usize,
    pub reserving_workloads: usize,
    pub admitted_workloads: usize,
    pub quota: Vec<QuotaStatus>,
}

/// One (flavor, resource) of a ClusterQueue. Quantities are Kubernetes quantity strings;
/// the `*Units` fields are the same in scheduling units (milli for CPU, bytes for memory,
/// units otherwise), for bars and scripts.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QuotaStatus {
    pub flavor: String,
    pub resource: String,
    pub nominal: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<String>,
    /// Held by workloads with a quota reservation.
    pub in_use: String,
    /// Held by admitted workloads only.
    pub admitted: String,
    /// In use beyond the nominal quota (borrowed from the cohort).
    pub borrowed: String,
    /// What the ClusterQueue could still take now, its cohort's unused quota included.
    pub available: String,
    pub in_use_units: i64,
    /// The most it can hold: nominal plus borrowing limit (or plus what the cohort could
    /// lend, when borrowing is unlimited); nominal without a cohort.
    pub capacity_units: i64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    pub namespace: String,
    pub name: String,
    pub cluster_queue: String,
    pub stop_policy: String,
    pub pending_workloads: usize,
    pub reserving_workloads: usize,
    pub admitted_workloads: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    pub namespace: String,
    pub name: String,
    pub local_queue: String,
    pub cluster_queue: String,
    pub priority: i32,
    /// Pending, Inactive, QuotaReserved, Admitted, Evicted or Finished.
    pub state: String,
    /// 0-based place among the ClusterQueue's pending workloads (0 = considered next), as
    /// upstream's visibility API counts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_length: Option<usize>,
    /// Milliseconds waited: until now while pending, until its reservation when admitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_millis: Option<i64>,
    pub flavors: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// When a pending workload is expected to start ([`crate::view::forecast`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_start: Option<Estimate>,
    /// Its pods do not fit the nodes of its flavors (with Nodes known): a pending one would be
    /// admitted on quota and not run, an admitted one's pods stay Pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<PodFit>,
}

/// Builds the view from a snapshot. `namespace` limits LocalQueues and workloads (None: all).
pub fn build(
    snap: &Snapshot,
    namespace: Option<&str>,
    only: &[String],
    show_finished: bool,
) -> StatusView {
    let views = snap.engine.cluster_queues();
    let forecast = super::forecast::of(snap);
    let wanted = |cq: &str| only.is_empty() || only.iter().any(|o| o == cq);
    let mut by_cohort: BTreeMap<Option<String>, Vec<ClusterQueueStatus>> = BTreeMap::new();
    for v in &views {
        if !wanted(&v.name) {
            continue;
        }
        let quota = v
            .usage
            .iter()
            .map(|u| {
                let r = &u.resource;
                let capacity = match (&v.cohort, u.borrowing_limit) {
                    (None, _) => u.nominal,
                    (Some(_), Some(b)) => u.nominal.saturating_add(b),
                    (Some(_), None) => u.reserved.saturating_add(u.available),
                };
                QuotaStatus {
                    flavor: u.flavor.clone(),
                    resource: r.clone(),
                    nominal: format_amount(r, u.nominal),
                    borrowing_limit: u.borrowing_limit.map(|b| format_amount(r, b)),
                    lending_limit: u.lending_limit.map(|b| format_amount(r, b)),
                    in_use: format_amount(r, u.reserved),
                    admitted: format_amount(r, u.admitted),
                    borrowed: format_amount(r, u.borrowed),
                    available: format_amount(r, u.available),
                    in_use_units: u.reserved.get(),
                    capacity_units: capacity.get(),
                }
            })
            .collect();
        by_cohort
            .entry(v.cohort.clone())
            .or_default()
            .push(ClusterQueueStatus {
                name: v.name.clone(),
                active: v.inactive.is_none(),
                inactive_reason: v
                    .inactive
                    .as_ref()
                    .map(|i| i.condition_reason().to_string()),
                inactive_message: v.inactive.as_ref().map(|i| i.message()),
                pending_workloads: v.pending,
                reserving_workloads: v.reserving,
                admitted_workloads: v.admitted,
                quota,
            });
    }
    // Named cohorts first (BTreeMap puts None first), then the queues without one.
    let mut cohorts: Vec<CohortStatus> = Vec::new();
    let mut loose = None;
    for (cohort, cqs) in by_cohort {
        let parent = cohort
            .as_ref()
            .and_then(|c| snap.converted.state.cohorts.get(c))
            .and_then(|c| c.parent.clone());
        let section = CohortStatus {
            cohort: cohort.clone(),
            parent,
            cluster_queues: cqs,
        };
        if cohort.is_none() {
            loose = Some(section);
        } else {
            cohorts.push(section);
        }
    }
    cohorts.extend(loose);

    let in_scope = |ns: &str| namespace.is_none_or(|n| n == ns);
    let entries: Vec<&Workload> = snap.converted.workloads.iter().map(|e| &e.object).collect();
    let counts = local_queue_counts(&entries);
    let mut local_queues: Vec<LocalQueueStatus> = snap
        .inventory
        .local_queues
        .iter()
        .map(|s| &s.obj)
        .filter(|lq| in_scope(namespace_of(&lq.metadata)))
        .filter(|lq| wanted(lq.spec.cluster_queue_name().unwrap_or("")))
        .map(|lq: &LocalQueue| {
            let ns = namespace_of(&lq.metadata).to_string();
            let name = lq.metadata.name.clone().unwrap_or_default();
            let c = counts
                .get(&(ns.clone(), name.clone()))
                .copied()
                .unwrap_or_default();
            LocalQueueStatus {
                namespace: ns,
                name,
                cluster_queue: lq.spec.cluster_queue_name().unwrap_or("").to_string(),
                stop_policy: format!("{:?}", lq.spec.stop_policy),
                pending_workloads: c.pending,
                reserving_workloads: c.reserving,
                admitted_workloads: c.admitted,
            }
        })
        .collect();
    local_queues.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));

    let nodes = &snap.converted.nodes;
    let checker = (!nodes.is_empty()).then(|| capacity::Checker::new(&snap.converted.state, nodes));
    let positions = snap.positions();
    let mut finished_not_shown = 0;
    let mut workloads: Vec<(u8, WorkloadStatus)> = Vec::new();
    for w in entries {
        let key = ObjectKey::workload(&w.metadata);
        if !in_scope(&key.namespace) {
            continue;
        }
        let lq = w.spec.queue().unwrap_or("").to_string();
        let cq = snap.cluster_queue_of_workload(w).unwrap_or_default();
        if !only.is_empty() && !wanted(&cq) {
            continue;
        }
        let state = WorkloadState::of(w);
        if state == WorkloadState::Finished && !show_finished {
            finished_not_shown += 1;
            continue;
        }
        let pos = positions.get(&key);
        let Reason { reason, message } = match state {
            WorkloadState::Pending | WorkloadState::Inactive => {
                snap.pending_reason(w).unwrap_or_default()
            }
            WorkloadState::Evicted | WorkloadState::Finished | WorkloadState::QuotaReserved => {
                let t = match state {
                    WorkloadState::Evicted => condition::EVICTED,
                    WorkloadState::Finished => condition::FINISHED,
                    _ => condition::ADMITTED,
                };
                w.status
                    .as_ref()
                    .and_then(|s| s.condition(t))
                    .map(|c| Reason {
                        reason: c.reason.clone(),
                        message: c.message.clone(),
                    })
                    .unwrap_or_default()
            }
            WorkloadState::Admitted => Default::default(),
        };
        let group = match state {
            WorkloadState::Admitted | WorkloadState::QuotaReserved | WorkloadState::Evicted => 0,
            WorkloadState::Pending => 1,
            WorkloadState::Inactive => 2,
            WorkloadState::Finished => 3,
        };
        workloads.push((
            group,
            WorkloadStatus {
                namespace: key.namespace.clone(),
                name: key.name.clone(),
                local_queue: lq,
                cluster_queue: cq,
                priority: w.spec.priority_or_default(),
                state: state.word().to_string(),
                position: pos.map(|p| p.in_cluster_queue),
                queue_length: pos.map(|p| p.queue_length),
                wait_millis: wait_time(w, snap.now),
                flavors: assigned_flavors(w),
                reason,
                message,
                estimated_start: forecast.estimate(&key).cloned(),
                capacity: match state {
                    WorkloadState::Pending => forecast.no_fit.get(&key).cloned(),
                    WorkloadState::Admitted
                    | WorkloadState::QuotaReserved
                    | WorkloadState::Evicted => checker.as_ref().and_then(|c| {
                        let held = snap.engine.workload(&key)?;
                        c.pod_fit(
                            held,
                            Placement::Admitted(held.admission.as_ref()?),
                            &capacity::every_pod,
                        )
                    }),
                    _ => None,
                },
            },
        ));
    }
    workloads.sort_by(|(ga, a), (gb, b)| {
        (
            &a.cluster_queue,
            ga,
            a.position.unwrap_or(usize::MAX),
            &a.namespace,
            &a.name,
        )
            .cmp(&(
                &b.cluster_queue,
                gb,
                b.position.unwrap_or(usize::MAX),
                &b.namespace,
                &b.name,
            ))
    });
    let workloads: Vec<WorkloadStatus> = workloads.into_iter().map(|(_, w)| w).collect();
    let capacity = checker.map(|c| {
        let flavors = c.flavors();
        let shown = |f: &Finding| match f {
            Finding::QuotaExceedsNodes { promised_by, .. } => {
                only.is_empty() || promised_by.iter().any(|p| wanted(p))
            }
            Finding::PodDoesNotFit(_) => true,
        };
        let mut findings: Vec<Finding> = capacity::quota_findings(&flavors)
            .into_iter()
            .filter(shown)
            .collect();
        findings.extend(
            workloads
                .iter()
                .filter_map(|w| w.capacity.clone())
                .map(Finding::PodDoesNotFit),
        );
        Capacity {
            nodes: nodes.len(),
            running_pods: capacity::running_pods(nodes, snap.converted.pods_unread.as_deref()),
            flavors,
            findings,
        }
    });
    StatusView {
        cohorts,
        local_queues,
        workloads,
        finished_not_shown,
        namespace: namespace.map(str::to_string),
        now: snap.now,
        capacity,
    }
}
