//! Read-only figures behind the live controller's gauges, beyond [`super::live`]: each
//! cohort's subtree (quota, reservations, admitted workloads, place in the hierarchy, weighted
//! share), what each ClusterQueue's pending workloads request, and how many finished
//! workloads each LocalQueue has.
//!
//! Data in: the engine. Data out: plain figures with names, amounts in the engine's units
//! (milli-units for CPU), in name order.
//!
//! Invariants: nothing here changes the engine; a cohort whose ancestry loops has no figures
//! (upstream records none for it), and neither do its ClusterQueues' hierarchy labels.

use std::collections::BTreeMap;

use super::id::{FrId, NodeId, ResId};
use super::quantity::Amount;
use super::state::Engine;

/// One cohort outside any cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct CohortFigures {
    pub name: String,
    /// Its parent cohort, "" for a root.
    pub parent: String,
    /// The root of its tree (itself for a root).
    pub root: String,
    /// Its subtree quota (its own nominal plus what its children lend upward), per
    /// (flavor, resource), every pair the engine knows.
    pub subtree_quota: Vec<(String, String, Amount)>,
    /// What the ClusterQueues below it reserve, summed, per (flavor, resource).
    pub subtree_reservations: Vec<(String, String, Amount)>,
    /// Admitted workloads holding quota in the ClusterQueues below it.
    pub admitted: usize,
    /// A Cohort object defines it (not only named by a ClusterQueue or a child cohort).
    pub explicit: bool,
    /// Its dominant resource share divided by its weight (+inf for weight 0 while borrowing).
    pub weighted_share: f64,
}

/// A ClusterQueue's place in the cohort hierarchy, as `kueue_cluster_queue_info` labels it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hierarchy {
    /// Its cohort, "" without one or when the cohort's ancestry loops.
    pub parent: String,
    /// The root of its cohort's tree, "" likewise.
    pub root: String,
}

impl Engine {
    /// Every cohort outside a cycle, in name order.
    pub fn cohort_figures(&self) -> Vec<CohortFigures> {
        let view = self.view(0);
        self.cohorts
            .iter()
            .filter(|c| !c.in_cycle)
            .map(|c| {
                let node = c.node;
                let mut cqs = Vec::new();
                self.tree.subtree_cqs(node, &mut cqs);
                let mut reserved: BTreeMap<FrId, Amount> = BTreeMap::new();
                let mut admitted = 0;
                for cq in cqs.iter().filter_map(|&n| self.cq_of_node[n]) {
                    let cq_node = &self.tree.nodes[self.cqs[cq].node];
                    for fr in self.tree.frs() {
                        *reserved.entry(fr).or_default() += cq_node.usage[fr];
                    }
                    admitted += self.cqs[cq]
                        .holding
                        .iter()
                        .filter_map(|&w| self.wls[w].as_ref())
                        .filter(|s| s.w.admitted)
                        .count();
                }
                let named = |fr: FrId, v: Amount| {
                    let f = self.names.frs[fr];
                    (
                        self.names.flavors[f.flavor].clone(),
                        self.names.resources[f.resource].clone(),
                        v,
                    )
                };
                let mut subtree_quota: Vec<_> = self
                    .tree
                    .frs()
                    .map(|fr| named(fr, self.tree.nodes[node].subtree_quota[fr]))
                    .collect();
                subtree_quota.sort();
                let mut subtree_reservations: Vec<_> =
                    reserved.into_iter().map(|(fr, v)| named(fr, v)).collect();
                subtree_reservations.sort();
                let figures = CohortFigures {
                    name: c.name.clone(),
                    parent: self.cohort_name_of(self.tree.parent(node)),
                    root: self.cohort_name_of(Some(self.tree.root(node))),
                    subtree_quota,
                    subtree_reservations,
                    admitted,
                    explicit: self.base.cohorts.contains_key(&c.name),
                    weighted_share: super::fair_sharing::drs(&view, &self.tree, node, None)
                        .precise(),
                };
                (c.name.clone(), figures)
            })
            .collect::<BTreeMap<_, _>>()
            .into_values()
            .collect()
    }

    /// The cohort name of a tree node, "" for none (or a ClusterQueue's node).
    fn cohort_name_of(&self, node: Option<NodeId>) -> String {
        node.and_then(|n| self.cohorts.iter().find(|c| c.node == n))
            .map(|c| c.name.clone())
            .unwrap_or_default()
    }

    /// A ClusterQueue's cohort and root cohort, as [`Hierarchy`] says; `None` for no such
    /// ClusterQueue.
    pub fn hierarchy(&self, cq: &str) -> Option<Hierarchy> {
        let info = &self.cqs[*self.cq_ids.get(cq)?];
        let Some(parent) = self.tree.parent(info.node) else {
            return Some(Hierarchy::default());
        };
        Some(Hierarchy {
            parent: self.cohort_name_of(Some(parent)),
            root: self.cohort_name_of(Some(self.tree.root(parent))),
        })
    }

    /// The cohorts above a ClusterQueue, its own first, up to the root; empty without a
    /// cohort, when the cohort's ancestry loops, or for no such ClusterQueue.
    pub fn cohorts_above(&self, cq: &str) -> Vec<String> {
        let Some(&id) = self.cq_ids.get(cq) else {
            return Vec::new();
        };
        self.tree
            .ancestors(self.cqs[id].node)
            .map(|n| self.cohort_name_of(Some(n)))
            .collect()
    }

    /// Per ClusterQueue, what its pending workloads (queued and parked) request in total,
    /// per resource name: every resource its resource groups cover (0 when nothing pending
    /// asks for it), and any other resource a pending workload asks for.
    pub fn pending_requests(&self) -> Vec<(String, BTreeMap<String, Amount>)> {
        self.cqs
            .iter()
            .zip(&self.queues)
            .map(|(cq, q)| {
                // Summed by resource id (thousands of workloads), named once at the end.
                let mut total: BTreeMap<ResId, Amount> = cq
                    .groups
                    .iter()
                    .flat_map(|g| g.covered.iter())
                    .map(|&r| (r, Amount::ZERO))
                    .collect();
                let ids = q.entries().map(|(k, _)| k.id);
                for st in ids.filter_map(|id| self.wls[id].as_ref()) {
                    for ps in &st.pod_sets {
                        for &(r, v) in &ps.per_pod {
                            *total.entry(r).or_default() += v * i64::from(ps.count);
                        }
                    }
                }
                let total = total
                    .into_iter()
                    .map(|(r, v)| (self.names.resources[r].clone(), v))
                    .collect();
                (cq.name.clone(), total)
            })
            .collect()
    }

    /// Finished workloads per LocalQueue (namespace, name) they name.
    pub fn finished_per_local_queue(&self) -> BTreeMap<(String, String), usize> {
        // Counted under borrowed names, owned once per queue at the end.
        let mut out: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for st in self.wls.iter().flatten().filter(|s| s.w.finished) {
            *out.entry((st.w.namespace.as_str(), st.w.queue_name.as_str()))
                .or_default() += 1;
        }
        self.count_compact(&mut out);
        out.into_iter()
            .map(|((ns, q), n)| ((ns.to_string(), q.to_string()), n))
            .collect()
    }
}

#[cfg(test)]
#[path = "gauges_tests.rs"]
mod tests;
