//! Read-only queries over the engine for status tables, explain and simulate output:
//! quota and usage per ClusterQueue, queue positions, why a workload is blocked.

use std::collections::BTreeSet;

use super::decision::Blocked;
use super::key::WorkloadKey;
use super::quantity::Amount;
use super::state::Engine;

/// Usage of one (flavor, resource) in a ClusterQueue.
#[derive(Debug, Clone, PartialEq)]
pub struct FlavorResourceUsage {
    pub flavor: String,
    pub resource: String,
    pub nominal: Amount,
    pub borrowing_limit: Option<Amount>,
    pub lending_limit: Option<Amount>,
    /// Quota-reserving workloads.
    pub reserved: Amount,
    /// Admitted workloads only.
    pub admitted: Amount,
    /// `max(0, reserved - nominal)` when the queue has a cohort, else 0.
    pub borrowed: Amount,
    /// What the queue could still take now.
    pub available: Amount,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClusterQueueView {
    pub name: String,
    pub cohort: Option<String>,
    pub inactive: Option<super::decision::InactiveReason>,
    pub usage: Vec<FlavorResourceUsage>,
    pub pending: usize,
    pub reserving: usize,
    pub admitted: usize,
    /// Pending workloads in queue order.
    pub queue: Vec<WorkloadKey>,
}

impl Engine {
    /// Every ClusterQueue, in name order, with usage, counts and the queue order.
    pub fn cluster_queues(&self) -> Vec<ClusterQueueView> {
        self.queue_views(true)
    }

    /// [`Engine::cluster_queues`] without the queue order (`queue` left empty): what queue
    /// status needs, without sorting every queue.
    pub fn cluster_queue_figures(&self) -> Vec<ClusterQueueView> {
        self.queue_views(false)
    }

    fn queue_views(&self, with_order: bool) -> Vec<ClusterQueueView> {
        self.cqs
            .iter_enumerated()
            .map(|(id, cq)| {
                let node = &self.tree.nodes[cq.node];
                let mut usage = Vec::new();
                for g in &cq.groups {
                    for (fi, &fid) in g.flavors.iter().enumerate() {
                        for (ri, &rid) in g.covered.iter().enumerate() {
                            let fr = g.frs[fi][ri];
                            let admitted: Amount = cq
                                .holding
                                .iter()
                                .filter_map(|&w| self.wls[w].as_ref())
                                .filter(|s| s.w.admitted)
                                .filter_map(|s| s.holding.as_ref())
                                .flat_map(|h| h.usage.iter())
                                .filter(|(f, _)| *f == fr)
                                .map(|(_, v)| *v)
                                .sum();
                            let q = node.quota[fr];
                            let reserved = node.usage[fr];
                            usage.push(FlavorResourceUsage {
                                flavor: self.names.flavors[fid].clone(),
                                resource: self.names.resources[rid].clone(),
                                nominal: q.nominal,
                                borrowing_limit: q.borrowing_limit,
                                lending_limit: q.lending_limit,
                                reserved,
                                admitted,
                                borrowed: if cq.spec.cohort.is_some() {
                                    (reserved - q.nominal).max(Amount::ZERO)
                                } else {
                                    Amount::ZERO
                                },
                                available: self.tree.available(cq.node, fr),
                            });
                        }
                    }
                }
                let queue: Vec<WorkloadKey> = if with_order {
                    self.queue_in_order(id).map(|s| s.key.clone()).collect()
                } else {
                    Vec::new()
                };
                let reserving = cq.holding.len();
                let admitted = cq
                    .holding
                    .iter()
                    .filter_map(|&w| self.wls[w].as_ref())
                    .filter(|s| s.w.admitted)
                    .count();
                ClusterQueueView {
                    name: cq.name.clone(),
                    cohort: cq.spec.cohort.clone(),
                    inactive: cq.inactive.clone(),
                    usage,
                    pending: self.queues[id].len(),
                    reserving,
                    admitted,
                    queue,
                }
            })
            .collect()
    }

    /// A ClusterQueue's pending workloads in the order the scheduler tries them (queued and
    /// parked alike, as upstream's visibility API lists them), or `None` when there is no
    /// such ClusterQueue. Sorts one queue; visits no other workload.
    pub fn pending_in_order(&self, cq: &str) -> Option<Vec<&super::model::Workload>> {
        let id = *self.cq_ids.get(cq)?;
        Some(self.queue_in_order(id).map(|s| &s.w).collect())
    }

    /// The pending workloads of the ClusterQueue `id`, in the scheduler's order.
    fn queue_in_order(&self, id: super::id::CqId) -> impl Iterator<Item = &super::state::WlState> {
        self.queues[id]
            .ordered()
            .into_iter()
            .filter_map(|k| self.wls[k.id].as_ref())
    }

    /// The ClusterQueue a LocalQueue points to (which may not exist), or `None` when there
    /// is no such LocalQueue.
    pub fn local_queue_target(&self, namespace: &str, name: &str) -> Option<&str> {
        self.lqs
            .get(&(namespace.to_string(), name.to_string()))
            .map(|lq| lq.cluster_queue.as_str())
    }

    /// Why a pending workload is not in any queue (missing LocalQueue, inactive
    /// ClusterQueue, deactivated...), or None when it is queued or holds quota.
    pub fn blocked_reason(&self, key: &WorkloadKey) -> Option<Blocked> {
        let st = self.wls[*self.wl_ids.get(key)?].as_ref()?;
        if st.holding.is_some() || st.w.finished {
            return None;
        }
        st.block.clone()
    }

    /// Workloads that are pending but not queued, with their reasons, in key order.
    pub fn blocked(&self) -> Vec<(WorkloadKey, Blocked)> {
        self.wl_ids
            .sorted_keys()
            .into_iter()
            .filter_map(|k| self.blocked_reason(k).map(|b| (k.clone(), b)))
            .collect()
    }

    /// The ClusterQueues some workload holds quota in, and the flavors of those workloads'
    /// admissions (what the `resource-in-use` finalizers protect). Visits only the workloads
    /// holding quota.
    pub fn quota_holders(&self) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut queues = BTreeSet::new();
        let mut flavors = BTreeSet::new();
        for cq in self.cqs.iter().filter(|cq| !cq.holding.is_empty()) {
            queues.insert(cq.name.clone());
            for &id in &cq.holding {
                let Some(st) = self.wls[id].as_ref() else {
                    continue;
                };
                for ps in st.w.admission.iter().flat_map(|a| a.pod_sets.iter()) {
                    flavors.extend(ps.flavors.values().cloned());
                }
            }
        }
        (queues, flavors)
    }

    /// Every workload, with whether it holds quota and whether it is kept out of the queues
    /// (see [`Engine::blocked_reason`]): one pass, for figures over all workloads.
    pub fn workload_standings(
        &self,
    ) -> impl Iterator<Item = (&super::model::Workload, bool, bool)> {
        self.wls.iter().flatten().map(|s| {
            let holding = s.holding.is_some();
            (
                &s.w,
                holding,
                !holding && !s.w.finished && s.block.is_some(),
            )
        })
    }

    /// Every workload holding quota with its ClusterQueue, in ClusterQueue then id order.
    pub fn holdings(&self) -> impl Iterator<Item = (&WorkloadKey, &str)> {
        self.cqs.iter().flat_map(move |cq| {
            cq.holding
                .iter()
                .filter_map(move |id| self.wls[*id].as_ref().map(|st| (&st.key, cq.name.as_str())))
        })
    }

    /// Is this workload holding quota, and where?
    pub fn holding_queue(&self, key: &WorkloadKey) -> Option<&str> {
        let st = self.wls[*self.wl_ids.get(key)?].as_ref()?;
        st.holding.as_ref().map(|h| self.cqs[h.cq].name.as_str())
    }

    /// The workload as the engine sees it now (with its admission, if any).
    pub fn workload(&self, key: &WorkloadKey) -> Option<&super::model::Workload> {
        Some(&self.wls[*self.wl_ids.get(key)?].as_ref()?.w)
    }

    /// Is the workload marked evicted (victim of a preemption still holding quota)?
    pub fn is_evicted(&self, key: &WorkloadKey) -> bool {
        self.wl_ids
            .get(key)
            .and_then(|&id| self.wls[id].as_ref())
            .is_some_and(|s| s.evicted)
    }
}

impl Engine {
    /// Fair sharing: a ClusterQueue's weighted share as upstream reports it
    /// (`status.fairSharing.weightedShare`, rounded up), with the precise value and the
    /// dominant resource.
    pub fn weighted_share(&self, cq: &str) -> Option<(i64, f64, Option<String>)> {
        let id = *self.cq_ids.get(cq)?;
        let view = self.view(0);
        let d = super::fair_sharing::drs(&view, &self.tree, self.cqs[id].node, None);
        Some((d.rounded(), d.precise(), d.dominant))
    }
}

impl Engine {
    /// Places where usage exceeds what quotas allow: for every ClusterQueue and
    /// (flavor, resource) it uses, what is left along its path to the root (nominal,
    /// borrowing and lending limits, cohort pools) must not be negative.
    ///
    /// Workloads being evicted are not counted: like upstream, a cycle may hand the
    /// capacity of victims chosen earlier in the same cycle to later entries, so until the
    /// victims' pods are gone the raw sum can exceed quota. Everything else is always
    /// within quota in every state the engine produces from a state that was.
    pub fn quota_violations(&self) -> Vec<String> {
        let mut tree = self.tree.clone();
        for st in self.wls.iter().flatten().filter(|s| s.evicted) {
            if let Some(h) = &st.holding {
                tree.remove_usages(self.cqs[h.cq].node, &h.usage);
            }
        }
        let mut out = Vec::new();
        for cq in &self.cqs {
            for fr in tree.frs() {
                if tree.nodes[cq.node].usage[fr] == 0 {
                    continue;
                }
                let left = tree.available_unclamped(cq.node, fr);
                if left < 0 {
                    out.push(format!(
                        "ClusterQueue {} is over quota on {}/{} by {}",
                        cq.name,
                        self.names.fr_flavor(fr),
                        self.names.fr_resource(fr),
                        -left
                    ));
                }
            }
        }
        out
    }
}
