//! Start-time estimates for the user commands: the forecast ([`crate::simulate::forecast`])
//! run on a snapshot with the runtimes its objects give, and one workload's estimate with
//! the runtimes it rests on.
//!
//! Invariants: one forecast per snapshot (every row of a table comes from the same run);
//! `now` is the snapshot's; only pending workloads have an estimate. When Nodes are known, an
//! estimate whose pods cannot be placed on the nodes of its forecast flavors, beside the pods
//! still running at its start (those of workloads that have not ended by then and that it does
//! not preempt, and pods of no workload), carries the finding ([`crate::view::capacity`]); the
//! forecast itself is upstream's quota-only answer and is never changed by it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::capacity::{Checker, Placement, PodFit};
use super::snapshot::Snapshot;
use crate::manifests::Inventory;
use crate::manifests::nodes::{NodeInfo, RunningPod};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{ClusterState, Millis};
use crate::simulate::forecast::{self, Estimate, Forecast, Runtime, sources};

/// A forecast with the runtimes it used.
#[derive(Debug, Clone)]
pub struct Forecasted {
    pub forecast: Forecast,
    pub runtimes: BTreeMap<WorkloadKey, Runtime>,
    /// Pending workloads whose pods do not fit the nodes of their forecast flavors.
    pub no_fit: BTreeMap<WorkloadKey, PodFit>,
}

impl Forecasted {
    pub fn estimate(&self, key: &WorkloadKey) -> Option<&Estimate> {
        self.forecast.estimate(key)
    }
}

/// The forecast of every pending workload of the snapshot.
pub fn of(snap: &Snapshot) -> Forecasted {
    run(
        &snap.inventory,
        &snap.converted.state,
        &snap.converted.nodes,
        snap.now,
    )
}

/// The forecast on objects already converted to `state`, checked against `nodes`.
pub fn run(
    inventory: &Inventory,
    state: &ClusterState,
    nodes: &[NodeInfo],
    now: Millis,
) -> Forecasted {
    let runtimes = sources::runtimes(inventory, state, now);
    let forecast = forecast::forecast(state, &runtimes, now);
    let no_fit = no_fit(state, nodes, &forecast);
    Forecasted {
        forecast,
        runtimes,
        no_fit,
    }
}

/// The estimates whose pods the nodes of their flavors cannot hold (none without Nodes).
fn no_fit(state: &ClusterState, nodes: &[NodeInfo], f: &Forecast) -> BTreeMap<WorkloadKey, PodFit> {
    let mut out = BTreeMap::new();
    if nodes.is_empty() || f.estimates.is_empty() {
        return out;
    }
    let checker = Checker::new(state, nodes);
    let workloads: BTreeMap<WorkloadKey, &crate::scheduler::model::Workload> =
        state.workloads.iter().map(|w| (w.key(), w)).collect();
    // When each workload holding quota now ends in the forecast (`None`: never).
    let ends: BTreeMap<&WorkloadKey, Option<Millis>> = f
        .running
        .iter()
        .map(|r| {
            (
                &r.workload,
                if r.overdue {
                    Some(f.now)
                } else {
                    r.expected_end
                },
            )
        })
        .collect();
    for e in &f.estimates {
        let Some(w) = workloads.get(&e.workload) else {
            continue;
        };
        let lq_target = state
            .local_queues
            .get(&(w.namespace.clone(), w.queue_name.clone()))
            .map(|lq| lq.cluster_queue.as_str());
        let Some(cq) = e.cluster_queue.as_deref().or(lq_target) else {
            continue;
        };
        let placement = Placement::Pending {
            cluster_queue: cq,
            flavors: &e.flavors,
        };
        // The pods still running at its start: those of no workload, and of workloads that
        // neither ended by then nor are preempted by it (with no start time, only the first).
        let stays = |p: &RunningPod| match (&p.workload, e.at()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(k), Some(at)) => {
                !e.preempts.contains(k) && ends.get(k).is_none_or(|end| end.is_none_or(|t| t > at))
            }
        };
        if let Some(p) = checker.pod_fit(w, placement, &stays) {
            out.insert(e.workload.clone(), p);
        }
    }
    out
}

/// A runtime the estimate assumes, for one workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Assumed {
    pub workload: String,
    pub runtime: Runtime,
    /// Its expected end, when it holds quota now and its runtime is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_end: Option<Millis>,
}

/// One workload's estimate with what it rests on (`explain`, `submit`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartEstimate {
    pub now: Millis,
    #[serde(flatten)]
    pub estimate: Estimate,
    /// The start time comes from runtime limits alone: it is an upper bound.
    pub upper_bound: bool,
    /// The runtimes of the workloads it waits for (or is blocked by), then its own.
    pub assumptions: Vec<Assumed>,
    /// Its pods do not fit the nodes of its flavors: admitted on quota, they would not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<PodFit>,
}

/// The estimate of `key`, with the runtimes it rests on.
pub fn start_estimate(fc: &Forecasted, key: &WorkloadKey) -> Option<StartEstimate> {
    let f = &fc.forecast;
    let estimate = f.estimate(key)?.clone();
    let mut on: Vec<&WorkloadKey> = estimate.waits_for.iter().collect();
    if let forecast::Start::Unknown { blocked_by } = &estimate.start {
        on.extend(blocked_by);
    }
    on.push(key);
    let assumptions: Vec<Assumed> = on
        .into_iter()
        .map(|k| {
            let running = f.running.iter().find(|r| &r.workload == k);
            Assumed {
                workload: k.to_string(),
                runtime: fc.runtimes.get(k).cloned().unwrap_or_else(Runtime::unknown),
                expected_end: running.and_then(|r| r.expected_end),
            }
        })
        .collect();
    Some(StartEstimate {
        now: f.now,
        upper_bound: estimate.is_upper_bound(),
        estimate,
        assumptions,
        capacity: fc.no_fit.get(key).cloned(),
    })
}
