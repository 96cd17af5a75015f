//! A trace replayed on the virtual clock: each job arrives at its `submitted` time, the
//! engine runs to a fixpoint at every instant something arrives or finishes
//! ([`run_to_fixpoint`], the scheduler `simulate` and the forecast use), and an admitted
//! job finishes `runtime` later. A preempted job queues again and, re-admitted, runs its
//! whole runtime again; a job without a known runtime never finishes.
//!
//! Invariants: pure and deterministic (setup and trace in, [`Replay`] out; arrivals at the
//! same instant in trace order); time only jumps to the next arrival or finish, so the cost
//! grows with the number of jobs, not with the span of the trace. The setup's own workloads
//! are not used: the trace is the load.

use std::collections::BTreeMap;

use super::format::TraceJob;
use crate::scheduler::decision::Decision;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{ClusterState, Millis, PodSet, Workload};
use crate::scheduler::quantity::Amount;
use crate::scheduler::{Engine, EquivalentDecisions};
use crate::simulate::runner::run_to_fixpoint;

/// What became of one trace job in the replay.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobOutcome {
    /// The ClusterQueue of its (last) admission.
    pub cluster_queue: Option<String>,
    /// First admission.
    pub admitted: Option<Millis>,
    pub finished: Option<Millis>,
    /// Times it was preempted.
    pub preempted: u32,
    /// Some admission of it borrowed quota.
    pub borrowed: bool,
    /// Its last pending reason (for jobs never admitted).
    pub last_pending: Option<String>,
}

impl JobOutcome {
    /// Submission to first admission.
    pub fn wait(&self, job: &TraceJob) -> Option<Millis> {
        self.admitted.map(|a| a - job.submitted)
    }
}

/// Quota in use at an instant: ClusterQueue -> resource -> amount (summed over flavors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsagePoint {
    pub at: Millis,
    pub used: BTreeMap<String, BTreeMap<String, Amount>>,
}

/// The replay's result.
#[derive(Debug, Clone)]
pub struct Replay {
    /// In trace order.
    pub jobs: Vec<JobOutcome>,
    /// First submission and the last instant anything happened.
    pub start: Millis,
    pub end: Millis,
    /// One point per instant the usage changed, in time order (the first at `start`).
    pub usage: Vec<UsagePoint>,
    /// ClusterQueue -> resource -> nominal quota (summed over flavors).
    pub nominal: BTreeMap<String, BTreeMap<String, Amount>>,
    /// Cohort quota of their own, resource -> amount (counts in the cluster's total).
    pub cohort_nominal: BTreeMap<String, Amount>,
    /// (namespace, LocalQueue) -> ClusterQueue.
    pub local_queues: BTreeMap<(String, String), String>,
    pub instants: usize,
    pub cycles: u64,
    /// Instants where the engine did not settle, with the workloads preempting each other.
    pub unsettled: Vec<(Millis, Vec<String>)>,
}

/// The state just before the cycle at an instant where jobs arrived.
pub struct Moment<'a> {
    pub at: Millis,
    /// The cluster as the engine sees it: running jobs with their admission, pending jobs.
    pub state: &'a ClusterState,
    /// Trace indexes of the jobs that arrived at `at`.
    pub arrived: &'a [usize],
    /// Trace index -> its workload key, for every job in `state`.
    pub keys: &'a BTreeMap<usize, WorkloadKey>,
    /// Jobs finished so far, (trace index, runtime, finish time), in finish order.
    pub finished: &'a [(usize, Millis, Millis)],
}

/// The engine's workload for trace job `index`.
pub fn workload(job: &TraceJob, index: usize) -> Workload {
    Workload {
        namespace: job.namespace.clone(),
        name: job.name.clone(),
        uid: format!("trace-{index}"),
        queue_name: job.local_queue.clone(),
        priority: job.priority,
        priority_class: job.priority_class.clone(),
        queue_time: job.submitted,
        tiebreak: index as u64,
        pod_sets: job
            .pod_sets
            .iter()
            .map(|ps| PodSet {
                name: ps.name.clone(),
                count: ps.count,
                per_pod: ps.per_pod.clone(),
                ..PodSet::default()
            })
            .collect(),
        active: true,
        ..Workload::default()
    }
}

fn nominal(setup: &ClusterState) -> BTreeMap<String, BTreeMap<String, Amount>> {
    let mut out: BTreeMap<String, BTreeMap<String, Amount>> = BTreeMap::new();
    for (name, cq) in &setup.cluster_queues {
        let e = out.entry(name.clone()).or_default();
        for rq in cq
            .resource_groups
            .iter()
            .flat_map(|g| &g.flavors)
            .flat_map(|f| &f.resources)
        {
            let v = e.entry(rq.name.clone()).or_default();
            *v = v.saturating_add(rq.nominal);
        }
    }
    out
}

/// Replays `trace` on `setup` (its workloads ignored). `observe` is called at each instant
/// jobs arrive, before the cycle (the forecast accuracy measurement looks there).
pub fn replay(
    setup: &ClusterState,
    trace: &[TraceJob],
    mut observe: Option<&mut dyn FnMut(&Moment<'_>)>,
) -> Replay {
    let mut base = setup.clone();
    base.workloads.clear();
    let mut engine = Engine::new(base.clone());
    engine.set_equivalent_decisions(EquivalentDecisions::Off);
    let mut order: Vec<usize> = (0..trace.len()).collect();
    order.sort_by_key(|&i| (trace[i].submitted, i));
    let mut cohort_nominal: BTreeMap<String, Amount> = BTreeMap::new();
    for rq in base
        .cohorts
        .values()
        .flat_map(|c| &c.resource_groups)
        .flat_map(|g| &g.flavors)
        .flat_map(|f| &f.resources)
    {
        let v = cohort_nominal.entry(rq.name.clone()).or_default();
        *v = v.saturating_add(rq.nominal);
    }
    let mut out = Replay {
        jobs: vec![JobOutcome::default(); trace.len()],
        start: order.first().map_or(0, |&i| trace[i].submitted),
        end: 0,
        usage: Vec::new(),
        nominal: nominal(&base),
        cohort_nominal,
        local_queues: base
            .local_queues
            .iter()
            .map(|(k, lq)| (k.clone(), lq.cluster_queue.clone()))
            .collect(),
        instants: 0,
        cycles: 0,
        unsettled: Vec::new(),
    };
    out.end = out.start;
    let mut index_of: BTreeMap<WorkloadKey, usize> = BTreeMap::new();
    // Jobs in the engine now (pending or holding quota), for the observer's picture.
    let mut live: BTreeMap<usize, Workload> = BTreeMap::new();
    let mut keys: BTreeMap<usize, WorkloadKey> = BTreeMap::new();
    let mut finished: Vec<(usize, Millis, Millis)> = Vec::new();
    let mut finishes: BTreeMap<(Millis, usize), Millis> = BTreeMap::new();
    let mut end_of: BTreeMap<usize, Millis> = BTreeMap::new();
    // Trace index -> (ClusterQueue, resource -> amount) it holds.
    let mut holding: BTreeMap<usize, (String, BTreeMap<String, Amount>)> = BTreeMap::new();
    let mut used: BTreeMap<String, BTreeMap<String, Amount>> = out
        .nominal
        .keys()
        .map(|cq| (cq.clone(), BTreeMap::new()))
        .collect();
    out.usage.push(UsagePoint {
        at: out.start,
        used: used.clone(),
    });
    let mut next = 0;
    loop {
        let arrival = order.get(next).map(|&i| trace[i].submitted);
        let finish = finishes.keys().next().map(|k| k.0);
        let t = match (arrival, finish) {
            (None, None) => break,
            (Some(a), None) => a,
            (None, Some(f)) => f,
            (Some(a), Some(f)) => a.min(f),
        };
        out.instants += 1;
        out.end = out.end.max(t);
        let mut usage_changed = false;
        while let Some(entry) = finishes.first_entry() {
            if entry.key().0 != t {
                break;
            }
            let ((_, i), ran) = entry.remove_entry();
            end_of.remove(&i);
            if let Some(key) = keys.remove(&i) {
                engine.remove_workload(&key);
            }
            live.remove(&i);
            out.jobs[i].finished = Some(t);
            finished.push((i, ran, t));
            if let Some((cq, amounts)) = holding.remove(&i) {
                take(&mut used, &cq, &amounts);
                usage_changed = true;
            }
        }
        let mut arrived = Vec::new();
        while let Some(&i) = order.get(next) {
            if trace[i].submitted != t {
                break;
            }
            next += 1;
            let w = workload(&trace[i], i);
            let key = w.key();
            if index_of.insert(key.clone(), i).is_some() {
                // The same namespace/name twice (the parser refuses it): the first one stays.
                continue;
            }
            keys.insert(i, key);
            if observe.is_some() {
                live.insert(i, w.clone());
            }
            engine.upsert_workload(w);
            arrived.push(i);
        }
        if let Some(obs) = observe.as_mut()
            && !arrived.is_empty()
        {
            let mut state = base.clone();
            state.workloads = live.values().cloned().collect();
            obs(&Moment {
                at: t,
                state: &state,
                arrived: &arrived,
                keys: &keys,
                finished: &finished,
            });
        }
        let report = run_to_fixpoint(&mut engine, t);
        out.cycles += report.cycles;
        if !report.converged {
            out.unsettled.push((t, report.oscillating.clone()));
        }
        for (_, d) in report.decisions {
            let Some(&i) = index_of.get(&d.workload) else {
                continue;
            };
            match d.decision {
                Decision::Admitted {
                    cluster_queue,
                    assignment,
                } => {
                    let job = &mut out.jobs[i];
                    job.admitted.get_or_insert(t);
                    job.cluster_queue = Some(cluster_queue.clone());
                    job.borrowed |= assignment.borrowing > 0;
                    let mut amounts: BTreeMap<String, Amount> = BTreeMap::new();
                    for (_, r, a) in &assignment.usage {
                        let e = amounts.entry(r.clone()).or_default();
                        *e = e.saturating_add(*a);
                    }
                    give(&mut used, &cluster_queue, &amounts);
                    usage_changed = true;
                    if let Some(w) = live.get_mut(&i) {
                        w.admission = Some(assignment.admission(&cluster_queue));
                        w.quota_reserved_at = Some(t);
                        w.admitted = true;
                    }
                    holding.insert(i, (cluster_queue, amounts));
                    if let Some(r) = trace[i].runtime_ms {
                        finishes.insert((t + r, i), r);
                        end_of.insert(i, t + r);
                    }
                }
                Decision::Preempting { targets, .. } => {
                    for target in targets.iter() {
                        let Some(&v) = index_of.get(&target.workload) else {
                            continue;
                        };
                        let Some((cq, amounts)) = holding.remove(&v) else {
                            continue;
                        };
                        take(&mut used, &cq, &amounts);
                        usage_changed = true;
                        out.jobs[v].preempted += 1;
                        if let Some(end) = end_of.remove(&v) {
                            finishes.remove(&(end, v));
                        }
                        if let Some(w) = live.get_mut(&v) {
                            w.admission = None;
                            w.quota_reserved_at = None;
                            w.admitted = false;
                        }
                    }
                }
                Decision::Pending { reason, .. } => {
                    out.jobs[i].last_pending = Some(reason.as_str().to_string());
                }
            }
        }
        if usage_changed {
            if out.usage.last().is_some_and(|p| p.at == t) {
                out.usage.pop();
            }
            out.usage.push(UsagePoint {
                at: t,
                used: used.clone(),
            });
        }
    }
    out
}

fn give(
    used: &mut BTreeMap<String, BTreeMap<String, Amount>>,
    cq: &str,
    amounts: &BTreeMap<String, Amount>,
) {
    let e = used.entry(cq.to_string()).or_default();
    for (r, a) in amounts {
        let v = e.entry(r.clone()).or_default();
        *v = v.saturating_add(*a);
    }
}

fn take(
    used: &mut BTreeMap<String, BTreeMap<String, Amount>>,
    cq: &str,
    amounts: &BTreeMap<String, Amount>,
) {
    let e = used.entry(cq.to_string()).or_default();
    for (r, a) in amounts {
        let v = e.entry(r.clone()).or_default();
        *v = v.saturating_sub(*a);
    }
}
