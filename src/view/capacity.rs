//! Physical capacity: quota checked against the Nodes that carry each ResourceFlavor's labels.
//! Upstream Kueue admits on quota alone; this module only reports, it never changes what the
//! scheduler decides.
//!
//! Data in: the engine's [`ClusterState`] (flavors, ClusterQueue and Cohort quotas), the Nodes
//! ([`NodeInfo`]) and, for the per-workload check, an engine [`Workload`] with where its
//! flavors come from ([`Placement`]). Data out: per flavor its nodes and capacity
//! ([`FlavorCapacity`]) and the findings ([`Finding`]).
//!
//! Rules and invariants:
//! - No Nodes, no check: [`report`] is `None` and nothing is said (files without Node objects,
//!   or a control plane without nodes).
//! - A node carries a flavor when every `spec.nodeLabels` pair is among its labels (a flavor
//!   without nodeLabels matches every node) and it is not cordoned (`spec.unschedulable`).
//!   Taints are not considered: which taints a pod tolerates depends on the pod's own
//!   tolerations and on admission plugins (ExtendedResourceToleration gives GPU pods the
//!   `nvidia.com/gpu` toleration), which the flavor alone does not tell, and a check that
//!   dropped tainted GPU nodes would cry wolf on most GPU clusters.
//! - Promised quota of a flavor is the sum of `nominalQuota` over every ClusterQueue and
//!   Cohort, across all cohort trees: the trees are separate for quota, but they all draw on
//!   the same nodes. Borrowing limits add nothing (borrowed quota is someone's nominal).
//! - Amounts are exact integers in scheduling units: allocatable rounded down, quota and
//!   requests rounded up ([`crate::manifests::nodes`]), sums saturating; a check never says
//!   "fits" when a node is a fraction short.
//! - Only resources the ClusterQueue's quota covers are checked, on nodes matching the
//!   flavors of those resources and the pod set's nodeSelector and required node affinity.
//!   With several candidate flavors (a pending workload not yet assigned), a node counts when
//!   each resource has some candidate flavor it carries: the check errs towards "fits".
//! - The per-workload check is on free capacity: a node's allocatable less the requests of
//!   the running pods ([`RunningPod`]) still on it when the workload's pods would be placed.
//!   Which pods those are is the caller's `stays` rule: `status` on an admitted workload,
//!   every pod (the cluster now); the forecast on a pending one, every pod but those of the
//!   workloads that have finished by its estimated start or that it preempts (with no start
//!   time, only pods of no known workload); `simulate`, the pods of workloads still holding
//!   quota after the run. An admitted workload's own running pods fit by definition (they
//!   run); the rest must fit beside them. Workloads admitted earlier in a forecast are not
//!   placed (errs towards "fits").
//! - A finding says which it is: when the pods would fit the nodes empty (on allocatable),
//!   the running pods are the cause and the amounts are free capacity (`runningPods` > 0,
//!   "fragmented" when the free capacity together would hold one pod but no single node
//!   does); otherwise the pods do not fit even empty nodes and the amounts are allocatable,
//!   as on empty nodes. Quota against nodes stays on allocatable: quota is a promise
//!   over the whole cluster, not over what is free now.
//! - "Free quota split across nodes" is judged per workload, not per ClusterQueue: free quota
//!   larger than any one node is normal on a multi-node cluster and only matters for a pod
//!   that needs more than a node has free; such a finding says `split` when the matching
//!   nodes together have enough for one pod but no single one does.
//! - Without Pods (files without Pod objects, or `list pods` forbidden live) the nodes are
//!   empty and the check is on allocatable; [`Capacity::running_pods`] says which.
//! - A flavor with a matching node whose size is unknown (no status) gets no quota finding.
//! - Deterministic: flavors in name order, nodes in input order, findings in a fixed order.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::manifests::nodes::{NodeInfo, RunningPod};
use crate::scheduler::model::{Admission, ClusterState, PodSet, ResourceGroup, Workload};
use crate::scheduler::quantity::{Amount, format_amount};

/// Amounts per resource, serialized as Kubernetes quantity strings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Quantities(pub BTreeMap<String, Amount>);

impl Quantities {
    pub fn get(&self, resource: &str) -> Amount {
        self.0.get(resource).copied().unwrap_or_default()
    }

    /// `resource=quantity` pairs, comma-separated.
    pub fn words(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(r, v)| format!("{} {r}", format_amount(r, *v)))
            .collect();
        parts.join(", ")
    }
}

impl Serialize for Quantities {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(r, v)| (r, format_amount(r, *v))))
    }
}

/// One flavor's nodes and what its quota promises.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorCapacity {
    pub flavor: String,
    pub node_labels: BTreeMap<String, String>,
    /// Schedulable matching nodes, in input order.
    pub nodes: Vec<String>,
    /// Matching nodes that are cordoned (not counted).
    pub cordoned: usize,
    /// Matching nodes without status.allocatable (size unknown; not counted).
    pub unknown_size: usize,
    /// Sum of the nodes' allocatable, per resource the quota names.
    pub allocatable: Quantities,
    /// The largest single node's allocatable, per resource the quota names.
    pub largest_node: Quantities,
    /// Sum of nominalQuota over every ClusterQueue and Cohort.
    pub nominal: Quantities,
    /// Who promises it: `resource -> [names]`, the ClusterQueues in name order, then the
    /// Cohorts (`Cohort NAME`).
    pub promised_by: BTreeMap<String, Vec<String>>,
}

/// A pod set that does not fit the nodes of its flavors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodFit {
    pub workload: String,
    pub pod_set: String,
    /// Holds quota now (its pods would stay Pending); otherwise pending.
    pub holds_quota: bool,
    pub flavors: Vec<String>,
    /// One pod's requests of the resources the quota covers.
    pub per_pod: Quantities,
    pub count: i32,
    pub matching_nodes: usize,
    /// Per needed resource, the largest allocatable among the matching nodes (free
    /// capacity when `running_pods` > 0).
    pub largest_node: Quantities,
    /// Per needed resource, the matching nodes' allocatable summed (free capacity when
    /// `running_pods` > 0).
    pub total: Quantities,
    /// Pods that fit at once on the matching nodes: its own running pods and those that fit
    /// beside the running pods (were the nodes empty, when `running_pods` is 0).
    pub pods_that_fit: i64,
    /// The nodes together have enough for one pod, but no single node does.
    pub split: bool,
    /// Running pods on the matching nodes when they are the cause: its pods would all fit
    /// the nodes empty, and do not fit beside them. 0 when they would not fit even then.
    pub running_pods: usize,
}

/// What the check found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Finding {
    /// Nominal quota of a flavor is more than its nodes' allocatable.
    #[serde(rename_all = "camelCase")]
    QuotaExceedsNodes {
        flavor: String,
        resource: String,
        nominal: String,
        allocatable: String,
        nodes: usize,
        promised_by: Vec<String>,
    },
    /// A workload's pods cannot all be placed on the nodes of its flavors.
    PodDoesNotFit(PodFit),
}

/// The capacity picture: per flavor, then the findings (quota first, then workloads).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capacity {
    pub nodes: usize,
    /// Pods running on the nodes; `None` when they could not be read (nodes taken as empty).
    pub running_pods: Option<usize>,
    pub flavors: Vec<FlavorCapacity>,
    pub findings: Vec<Finding>,
}

/// Where a workload's flavors come from.
#[derive(Debug, Clone, Copy)]
pub enum Placement<'a> {
    /// Holding quota: the flavors of its admission, per pod set and resource.
    Admitted(&'a Admission),
    /// Pending in `cluster_queue`: the flavors a forecast assigned (`flavors`), or, when
    /// empty, every flavor its resource groups list.
    Pending {
        cluster_queue: &'a str,
        flavors: &'a [String],
    },
}

/// The nodes indexed by flavor, built once per picture.
pub struct Checker<'a> {
    state: &'a ClusterState,
    nodes: &'a [NodeInfo],
    /// flavor -> indices of the schedulable nodes carrying its labels.
    by_flavor: BTreeMap<&'a str, Vec<usize>>,
}

fn carries(node: &NodeInfo, labels: &BTreeMap<String, String>) -> bool {
    labels.iter().all(|(k, v)| node.labels.get(k) == Some(v))
}

/// The pod set's own nodeSelector and required node affinity allow the node.
fn pod_allows(ps: &PodSet, node: &NodeInfo) -> bool {
    carries(node, &ps.node_selector)
        && ps.required_affinity.as_ref().is_none_or(|terms| {
            terms.is_empty()
                || terms
                    .iter()
                    .any(|t| t.match_expressions.iter().all(|r| r.matches(&node.labels)))
        })
}

impl<'a> Checker<'a> {
    pub fn new(state: &'a ClusterState, nodes: &'a [NodeInfo]) -> Checker<'a> {
        let by_flavor = state
            .flavors
            .iter()
            .map(|(name, f)| {
                let idx = (0..nodes.len())
                    .filter(|&i| !nodes[i].unschedulable && carries(&nodes[i], &f.node_labels))
                    .collect();
                (name.as_str(), idx)
            })
            .collect();
        Checker {
            state,
            nodes,
            by_flavor,
        }
    }

    /// The schedulable nodes carrying `flavor`'s labels (none for an unknown flavor).
    pub fn matching(&self, flavor: &str) -> impl Iterator<Item = &'a NodeInfo> + '_ {
        self.by_flavor
            .get(flavor)
            .into_iter()
            .flatten()
            .map(|&i| &self.nodes[i])
    }

    /// Every flavor's nodes and promised quota, in name order.
    pub fn flavors(&self) -> Vec<FlavorCapacity> {
        let mut nominal: BTreeMap<&str, BTreeMap<String, (Amount, Vec<String>)>> = BTreeMap::new();
        let mut promise = |holder: &str, groups: &[ResourceGroup]| {
            for fq in groups.iter().flat_map(|g| &g.flavors) {
                for rq in &fq.resources {
                    let e = nominal
                        .entry(
                            self.state
                                .flavors
                                .get_key_value(&fq.name)
                                .map_or("", |k| k.0),
                        )
                        .or_default()
                        .entry(rq.name.clone())
                        .or_default();
                    e.0 += rq.nominal;
                    if rq.nominal > 0 && !e.1.iter().any(|h| h == holder) {
                        e.1.push(holder.to_string());
                    }
                }
            }
        };
        for (name, cq) in &self.state.cluster_queues {
            promise(name, &cq.resource_groups);
        }
        for (name, c) in &self.state.cohorts {
            promise(&format!("Cohort {name}"), &c.resource_groups);
        }
        self.state
            .flavors
            .iter()
            .map(|(name, f)| {
                let promised = nominal.remove(name.as_str()).unwrap_or_default();
                let all: Vec<&NodeInfo> = self
                    .nodes
                    .iter()
                    .filter(|n| carries(n, &f.node_labels))
                    .collect();
                let counted: Vec<&NodeInfo> = self.matching(name).collect();
                let mut allocatable = BTreeMap::new();
                let mut largest = BTreeMap::new();
                for r in promised.keys() {
                    let sized = counted.iter().filter(|n| n.allocatable.is_some());
                    allocatable.insert(r.clone(), sized.clone().map(|n| n.allocatable_of(r)).sum());
                    largest.insert(
                        r.clone(),
                        sized.map(|n| n.allocatable_of(r)).max().unwrap_or_default(),
                    );
                }
                FlavorCapacity {
                    flavor: name.clone(),
                    node_labels: f.node_labels.clone(),
                    nodes: counted
                        .iter()
                        .filter(|n| n.allocatable.is_some())
                        .map(|n| n.name.clone())
                        .collect(),
                    cordoned: all.iter().filter(|n| n.unschedulable).count(),
                    unknown_size: counted.iter().filter(|n| n.allocatable.is_none()).count(),
                    allocatable: Quantities(allocatable),
                    largest_node: Quantities(largest),
                    nominal: Quantities(
                        promised.iter().map(|(r, (a, _))| (r.clone(), *a)).collect(),
                    ),
                    promised_by: promised.into_iter().map(|(r, (_, h))| (r, h)).collect(),
                }
            })
            .collect()
    }

    /// Per resource of the pod set the quota covers, the flavors it may get.
    fn candidates(&self, ps: &PodSet, placement: Placement<'_>) -> BTreeMap<String, Vec<String>> {
        match placement {
            Placement::Admitted(adm) => adm
                .pod_sets
                .iter()
                .find(|a| a.name == ps.name)
                .map(|a| {
                    a.flavors
                        .iter()
                        .map(|(r, f)| (r.clone(), vec![f.clone()]))
                        .collect()
                })
                .unwrap_or_default(),
            Placement::Pending {
                cluster_queue,
                flavors,
            } => {
                let Some(cq) = self.state.cluster_queues.get(cluster_queue) else {
                    return BTreeMap::new();
                };
                let mut out = BTreeMap::new();
                for g in &cq.resource_groups {
                    let listed: Vec<String> = g.flavors.iter().map(|f| f.name.clone()).collect();
                    let chosen: Vec<String> = listed
                        .iter()
                        .filter(|f| flavors.contains(f))
                        .cloned()
                        .collect();
                    let cands = if chosen.is_empty() { listed } else { chosen };
                    for r in &g.covered_resources {
                        if ps.per_pod.get(r).is_some_and(|v| *v > 0) {
                            out.insert(r.clone(), cands.clone());
                        }
                    }
                }
                out
            }
        }
    }

    /// The first pod set of `w` whose pods cannot all be placed on its flavors' nodes, with
    /// the running pods for which `stays` is true still on them.
    pub fn pod_fit(
        &self,
        w: &Workload,
        placement: Placement<'_>,
        stays: &dyn Fn(&RunningPod) -> bool,
    ) -> Option<PodFit> {
        w.pod_sets
            .iter()
            .find_map(|ps| self.pod_set_fit(w, ps, placement, stays))
    }

    fn pod_set_fit(
        &self,
        w: &Workload,
        ps: &PodSet,
        placement: Placement<'_>,
        stays: &dyn Fn(&RunningPod) -> bool,
    ) -> Option<PodFit> {
        let cands = self.candidates(ps, placement);
        let need: BTreeMap<String, Amount> = cands
            .keys()
            .filter_map(|r| Some((r.clone(), *ps.per_pod.get(r).filter(|v| **v > 0)?)))
            .collect();
        if need.is_empty() {
            return None;
        }
        let count = match placement {
            Placement::Admitted(adm) => adm
                .pod_sets
                .iter()
                .find(|a| a.name == ps.name)
                .map_or(ps.count, |a| a.count),
            Placement::Pending { .. } => ps.count,
        };
        if count <= 0 {
            return None;
        }
        // A node counts when, for every needed resource, it carries one of its flavors.
        let mut allowed = vec![true; self.nodes.len()];
        for r in need.keys() {
            let mut carried = vec![false; self.nodes.len()];
            for f in &cands[r] {
                for &i in self.by_flavor.get(f.as_str()).into_iter().flatten() {
                    carried[i] = true;
                }
            }
            for (a, c) in allowed.iter_mut().zip(carried) {
                *a &= c;
            }
        }
        let nodes: Vec<&NodeInfo> = (0..self.nodes.len())
            .filter(|&i| allowed[i])
            .map(|i| &self.nodes[i])
            .filter(|n| pod_allows(ps, n))
            .collect();
        // Its own pods: running ones of an admitted workload fit (they run); a pending one's
        // leftovers are gone by the time it is admitted again.
        let key = w.key();
        let own = |p: &RunningPod| {
            p.workload.as_ref() == Some(&key)
                && match &p.pod_set {
                    Some(name) => *name == ps.name,
                    None => w.pod_sets.len() == 1,
                }
        };
        let admitted = matches!(placement, Placement::Admitted(_));
        let own_running = if admitted {
            self.nodes
                .iter()
                .flat_map(|n| &n.pods)
                .filter(|p| own(p))
                .count()
        } else {
            0
        };
        let occupies = |p: &RunningPod| stays(p) && (admitted || !own(p));
        let free = |n: &NodeInfo, r: &str| -> Amount {
            let used = n
                .pods
                .iter()
                .filter(|p| occupies(p))
                .filter_map(|p| p.requests.get(r))
                .fold(0i64, |a, v| a.saturating_add(v.get().max(0)));
            Amount::new(n.allocatable_of(r).get().saturating_sub(used).max(0))
        };
        let fit = |have: &dyn Fn(&NodeInfo, &str) -> Amount| -> i64 {
            nodes
                .iter()
                .map(|n| {
                    need.iter()
                        .map(|(r, v)| have(n, r).get() / v.get())
                        .min()
                        .unwrap_or(0)
                })
                .fold(0i64, i64::saturating_add)
        };
        let on_empty = fit(&|n, r| n.allocatable_of(r));
        let own_running = i64::try_from(own_running).unwrap_or(i64::MAX);
        let on_free = own_running.saturating_add(fit(&free));
        if on_free >= i64::from(count) {
            return None;
        }
        // The running pods are the cause when the pods would fit the nodes empty: the finding
        // is then on free capacity, else on allocatable.
        let running = nodes
            .iter()
            .flat_map(|n| &n.pods)
            .filter(|p| occupies(p))
            .count();
        let fragmented = on_empty >= i64::from(count) && running > 0;
        let have = |n: &NodeInfo, r: &str| {
            if fragmented {
                free(n, r)
            } else {
                n.allocatable_of(r)
            }
        };
        let pods_that_fit = if fragmented { on_free } else { on_empty };
        let largest: BTreeMap<String, Amount> = need
            .keys()
            .map(|r| {
                let m = nodes.iter().map(|n| have(n, r)).max();
                (r.clone(), m.unwrap_or_default())
            })
            .collect();
        let total: BTreeMap<String, Amount> = need
            .keys()
            .map(|r| (r.clone(), nodes.iter().map(|n| have(n, r)).sum()))
            .collect();
        let split = pods_that_fit == 0 && need.iter().all(|(r, v)| total[r] >= *v);
        let mut flavors: Vec<String> = Vec::new();
        for f in cands.values().flatten() {
            if !flavors.contains(f) {
                flavors.push(f.clone());
            }
        }
        Some(PodFit {
            workload: key.to_string(),
            pod_set: ps.name.clone(),
            holds_quota: admitted,
            flavors,
            per_pod: Quantities(need),
            count,
            matching_nodes: nodes.len(),
            largest_node: Quantities(largest),
            total: Quantities(total),
            pods_that_fit,
            split,
            running_pods: if fragmented { running } else { 0 },
        })
    }
}

/// The `stays` rule of the cluster now: every running pod is on its node.
pub fn every_pod(_: &RunningPod) -> bool {
    true
}

/// Running pods on `nodes`; `None` when Pods could not be read (`unread`).
pub fn running_pods(nodes: &[NodeInfo], unread: Option<&str>) -> Option<usize> {
    unread
        .is_none()
        .then(|| nodes.iter().map(|n| n.pods.len()).sum())
}

/// The quota findings of the flavors: nominal above the nodes' allocatable.
pub fn quota_findings(flavors: &[FlavorCapacity]) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in flavors.iter().filter(|f| f.unknown_size == 0) {
        for (r, nominal) in &f.nominal.0 {
            let have = f.allocatable.get(r);
            if *nominal > have {
                out.push(Finding::QuotaExceedsNodes {
                    flavor: f.flavor.clone(),
                    resource: r.clone(),
                    nominal: format_amount(r, *nominal),
                    allocatable: format_amount(r, have),
                    nodes: f.nodes.len(),
                    promised_by: f.promised_by.get(r).cloned().unwrap_or_default(),
                });
            }
        }
    }
    out
}

/// The whole check: `None` without Nodes. `workloads` are those to check, with their
/// placement; `stays` says which running pods are still on the nodes for each; `unread` why
/// the Pods could not be read, when they could not.
pub fn report<'w>(
    state: &ClusterState,
    nodes: &[NodeInfo],
    unread: Option<&str>,
    workloads: impl IntoIterator<Item = (&'w Workload, Placement<'w>)>,
    stays: &dyn Fn(&RunningPod, Placement<'_>) -> bool,
) -> Option<Capacity> {
    if nodes.is_empty() {
        return None;
    }
    let checker = Checker::new(state, nodes);
    let flavors = checker.flavors();
    let mut findings = quota_findings(&flavors);
    findings.extend(
        workloads
            .into_iter()
            .filter_map(|(w, p)| checker.pod_fit(w, p, &|pod| stays(pod, p)))
            .map(Finding::PodDoesNotFit),
    );
    Some(Capacity {
        nodes: nodes.len(),
        running_pods: running_pods(nodes, unread),
        flavors,
        findings,
    })
}

/// The check on a simulation's result: the (edited) quota, and every workload not finished
/// where the run left it (holding quota: its admission, beside the running pods of the
/// workloads still holding quota and of no workload; pending: any flavor of its queue,
/// beside the pods of no workload, since when it would start is not known).
pub fn of_simulation(sim: &crate::simulate::Simulation) -> Option<Capacity> {
    let state = &sim.converted.state;
    let placed = sim
        .after
        .workloads()
        .filter(|w| !w.finished)
        .filter_map(|w| {
            if sim.after.holding_queue(&w.key()).is_some() {
                return Some((w, Placement::Admitted(w.admission.as_ref()?)));
            }
            let lq = state
                .local_queues
                .get(&(w.namespace.clone(), w.queue_name.clone()))?;
            Some((
                w,
                Placement::Pending {
                    cluster_queue: &lq.cluster_queue,
                    flavors: &[],
                },
            ))
        });
    let stays = |p: &RunningPod, placement: Placement<'_>| match (&p.workload, placement) {
        (None, _) => true,
        (Some(k), Placement::Admitted(_)) => sim.after.holding_queue(k).is_some(),
        (Some(_), Placement::Pending { .. }) => false,
    };
    report(
        state,
        &sim.converted.nodes,
        sim.converted.pods_unread.as_deref(),
        placed,
        &stays,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::model::{
        ClusterQueue, Cohort, FlavorQuotas, PodSetAdmission, ResourceFlavor, ResourceQuota,
    };

    const GPU: &str = "nvidia.com/gpu";

    fn flavor(labels: &[(&str, &str)]) -> ResourceFlavor {
        ResourceFlavor {
            node_labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    fn group(flavors: &[(&str, &[(&str, i64)])]) -> ResourceGroup {
        let mut covered: Vec<String> = Vec::new();
        let flavors = flavors
            .iter()
            .map(|(name, rs)| FlavorQuotas {
                name: name.to_string(),
                resources: rs
                    .iter()
                    .map(|(r, n)| {
                        if !covered.iter().any(|c| c == r) {
                            covered.push(r.to_string());
                        }
                        ResourceQuota {
                            name: r.to_string(),
                            nominal: Amount::new(*n),
                            borrowing_limit: None,
                            lending_limit: None,
                        }
                    })
                    .collect(),
            })
            .collect();
        ResourceGroup {
            covered_resources: covered,
            flavors,
        }
    }

    fn cq(groups: Vec<ResourceGroup>) -> ClusterQueue {
        ClusterQueue {
            cohort: None,
            resource_groups: groups,
            namespace_selector: None,
            queueing_strategy: Default::default(),
            preemption: Default::default(),
            flavor_fungibility: Default::default(),
            stop_policy: Default::default(),
            fair_weight: 1.0,
            unsupported: Vec::new(),
            terminating: false,
            invalid: None,
        }
    }

    /// Two ClusterQueues promising `gpus` each on gpu-a100 (labels gpu-type=a100).
    fn two_teams(gpus: i64) -> ClusterState {
        let mut s = ClusterState::default();
        s.flavors
            .insert("gpu-a100".into(), flavor(&[("gpu-type", "a100")]));
        for name in ["team-a", "team-b"] {
            s.cluster_queues.insert(
                name.into(),
                cq(vec![group(&[("gpu-a100", &[(GPU, gpus)])])]),
            );
        }
        s
    }

    fn a100(name: &str, gpus: i64) -> NodeInfo {
        NodeInfo::new(
            name,
            &[("gpu-type", "a100")],
            &[(GPU, gpus), ("cpu", 64_000)],
        )
    }

    fn workload(name: &str, count: i32, gpus: i64) -> Workload {
        Workload {
            namespace: "team-a".into(),
            name: name.into(),
            pod_sets: vec![PodSet {
                name: "main".into(),
                count,
                per_pod: [(GPU.to_string(), Amount::new(gpus))].into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn pending<'a>(flavors: &'a [String]) -> Placement<'a> {
        Placement::Pending {
            cluster_queue: "team-a",
            flavors,
        }
    }

    #[test]
    fn quota_is_checked_against_the_nodes_of_each_flavor() {
        struct Case {
            name: &'static str,
            nodes: Vec<NodeInfo>,
            /// (flavor, resource, nominal, allocatable, nodes) of each finding.
            want: Vec<(
                &'static str,
                &'static str,
                &'static str,
                &'static str,
                usize,
            )>,
        }
        let cases = [
            Case {
                name: "over-promise: 8 GPUs promised, one 4-GPU node",
                nodes: vec![a100("n1", 4)],
                want: vec![("gpu-a100", GPU, "8", "4", 1)],
            },
            Case {
                name: "exactly enough",
                nodes: vec![a100("n1", 4), a100("n2", 4)],
                want: vec![],
            },
            Case {
                name: "nodes of another type do not count",
                nodes: vec![
                    a100("n1", 4),
                    NodeInfo::new("h1", &[("gpu-type", "h100")], &[(GPU, 8)]),
                ],
                want: vec![("gpu-a100", GPU, "8", "4", 1)],
            },
            Case {
                name: "a cordoned node does not count",
                nodes: vec![a100("n1", 4), {
                    let mut n = a100("n2", 4);
                    n.unschedulable = true;
                    n
                }],
                want: vec![("gpu-a100", GPU, "8", "4", 1)],
            },
            Case {
                name: "no node carries the labels",
                nodes: vec![NodeInfo::new("cpu-1", &[], &[("cpu", 8000)])],
                want: vec![("gpu-a100", GPU, "8", "0", 0)],
            },
            Case {
                name: "a node of unknown size: no finding",
                nodes: vec![a100("n1", 4), {
                    let mut n = a100("n2", 0);
                    n.allocatable = None;
                    n
                }],
                want: vec![],
            },
        ];
        for c in cases {
            let state = two_teams(4);
            let got = report(&state, &c.nodes, None, [], &|_, _| true).expect("nodes given");
            let got: Vec<_> = got
                .findings
                .iter()
                .map(|f| match f {
                    Finding::QuotaExceedsNodes {
                        flavor,
                        resource,
                        nominal,
                        allocatable,
                        nodes,
                        promised_by,
                    } => {
                        assert_eq!(promised_by, &["team-a", "team-b"], "{}", c.name);
                        (
                            flavor.as_str(),
                            resource.as_str(),
                            nominal.as_str(),
                            allocatable.as_str(),
                            *nodes,
                        )
                    }
                    other => panic!("{}: {other:?}", c.name),
                })
                .collect();
            let want: Vec<_> = c
                .want
                .iter()
                .map(|(f, r, n, a, k)| (*f, *r, *n, *a, *k))
                .collect();
            assert_eq!(got, want, "{}", c.name);
        }
    }

    #[test]
    fn no_nodes_no_check() {
        let state = two_teams(4);
        let w = workload("big", 1, 100);
        assert_eq!(
            report(&state, &[], None, [(&w, pending(&[]))], &|_, _| true),
            None
        );
    }

    #[test]
    fn a_flavor_without_node_labels_matches_every_node_and_cohort_quota_counts() {
        let mut state = ClusterState::default();
        state.flavors.insert("default".into(), flavor(&[]));
        state.cluster_queues.insert(
            "cq".into(),
            cq(vec![group(&[("default", &[("cpu", 10_000)])])]),
        );
        state.cohorts.insert(
            "root".into(),
            Cohort {
                parent: None,
                resource_groups: vec![group(&[("default", &[("cpu", 8_000)])])],
                fair_weight: 1.0,
            },
        );
        let nodes = [
            NodeInfo::new("a", &[("zone", "x")], &[("cpu", 8_000)]),
            NodeInfo::new("b", &[], &[("cpu", 8_000)]),
        ];
        let r = report(&state, &nodes, None, [], &|_, _| true).unwrap();
        assert_eq!(r.flavors[0].nodes, ["a", "b"]);
        assert_eq!(r.flavors[0].allocatable.get("cpu"), Amount::new(16_000));
        assert_eq!(r.flavors[0].largest_node.get("cpu"), Amount::new(8_000));
        assert_eq!(r.flavors[0].nominal.get("cpu"), Amount::new(18_000));
        assert_eq!(
            r.findings,
            [Finding::QuotaExceedsNodes {
                flavor: "default".into(),
                resource: "cpu".into(),
                nominal: "18".into(),
                allocatable: "16".into(),
                nodes: 2,
                promised_by: vec!["cq".into(), "Cohort root".into()],
            }]
        );
    }

    #[test]
    fn a_pod_larger_than_any_node_is_found_and_split_capacity_named() {
        struct Case {
            name: &'static str,
            nodes: Vec<NodeInfo>,
            count: i32,
            gpus: i64,
            /// (pods that fit, matching nodes, largest, split), or None when it fits.
            want: Option<(i64, usize, i64, bool)>,
        }
        let cases = [
            Case {
                name: "fits one node",
                nodes: vec![a100("n1", 4), a100("n2", 4)],
                count: 1,
                gpus: 4,
                want: None,
            },
            Case {
                name: "free quota split: 8 GPUs over two 4-GPU nodes, a 6-GPU pod",
                nodes: vec![a100("n1", 4), a100("n2", 4)],
                count: 1,
                gpus: 6,
                want: Some((0, 2, 4, true)),
            },
            Case {
                name: "not even in total",
                nodes: vec![a100("n1", 4)],
                count: 1,
                gpus: 6,
                want: Some((0, 1, 4, false)),
            },
            Case {
                name: "three 3-GPU pods on two 4-GPU nodes: two fit at once",
                nodes: vec![a100("n1", 4), a100("n2", 4)],
                count: 3,
                gpus: 3,
                want: Some((2, 2, 4, false)),
            },
            Case {
                name: "no matching node at all",
                nodes: vec![NodeInfo::new("c", &[], &[(GPU, 8)])],
                count: 1,
                gpus: 1,
                want: Some((0, 0, 0, false)),
            },
            Case {
                name: "extreme quantities saturate instead of wrapping",
                nodes: vec![a100("n1", i64::MAX), a100("n2", i64::MAX)],
                count: i32::MAX,
                gpus: 1,
                want: None,
            },
            Case {
                name: "a request larger than any node, at the limit",
                nodes: vec![a100("n1", i64::MAX - 1)],
                count: 1,
                gpus: i64::MAX,
                want: Some((0, 1, i64::MAX - 1, false)),
            },
        ];
        for c in cases {
            let state = two_teams(4);
            let w = workload("job", c.count, c.gpus);
            let assigned = ["gpu-a100".to_string()];
            let got = Checker::new(&state, &c.nodes).pod_fit(&w, pending(&assigned), &every_pod);
            let got = got.map(|p| {
                assert_eq!(p.flavors, ["gpu-a100"], "{}", c.name);
                assert_eq!(p.per_pod.get(GPU), Amount::new(c.gpus), "{}", c.name);
                (
                    p.pods_that_fit,
                    p.matching_nodes,
                    p.largest_node.get(GPU).get(),
                    p.split,
                )
            });
            assert_eq!(got, c.want, "{}", c.name);
        }
    }

    #[test]
    fn admitted_workloads_use_their_admission_and_selectors_narrow_the_nodes() {
        let state = two_teams(4);
        let nodes = [a100("n1", 8), a100("n2", 4)];
        let mut w = workload("run", 2, 4);
        let adm = Admission {
            cluster_queue: "team-a".into(),
            pod_sets: vec![PodSetAdmission {
                name: "main".into(),
                flavors: [(GPU.to_string(), "gpu-a100".to_string())].into(),
                resource_usage: Default::default(),
                count: 2,
            }],
        };
        let checker = Checker::new(&state, &nodes);
        assert_eq!(
            checker.pod_fit(&w, Placement::Admitted(&adm), &every_pod),
            None
        );
        // Pinned to n2 by its nodeSelector: one of its two pods fits at once.
        w.pod_sets[0].node_selector = [("kubernetes.io/hostname".into(), "n2".into())].into();
        let mut nodes = nodes;
        nodes[1]
            .labels
            .insert("kubernetes.io/hostname".into(), "n2".into());
        let checker = Checker::new(&state, &nodes);
        let p = checker
            .pod_fit(&w, Placement::Admitted(&adm), &every_pod)
            .unwrap();
        assert!(p.holds_quota);
        assert_eq!((p.pods_that_fit, p.matching_nodes, p.count), (1, 1, 2));
    }

    #[test]
    fn a_pending_workload_without_flavors_may_use_any_flavor_of_its_queue() {
        let mut state = ClusterState::default();
        state
            .flavors
            .insert("small".into(), flavor(&[("size", "s")]));
        state
            .flavors
            .insert("large".into(), flavor(&[("size", "l")]));
        state.cluster_queues.insert(
            "team-a".into(),
            cq(vec![group(&[
                ("small", &[(GPU, 4)]),
                ("large", &[(GPU, 8)]),
            ])]),
        );
        let nodes = [
            NodeInfo::new("s", &[("size", "s")], &[(GPU, 2)]),
            NodeInfo::new("l", &[("size", "l")], &[(GPU, 8)]),
        ];
        let checker = Checker::new(&state, &nodes);
        let w = workload("job", 1, 6);
        assert_eq!(checker.pod_fit(&w, pending(&[]), &every_pod), None);
        let small = ["small".to_string()];
        let p = checker.pod_fit(&w, pending(&small), &every_pod).unwrap();
        assert_eq!(
            (p.matching_nodes, p.flavors.clone()),
            (1, vec!["small".into()])
        );
        let json = serde_json::to_value(Finding::PodDoesNotFit(p)).unwrap();
        assert_eq!(json["kind"], "podDoesNotFit");
        assert_eq!(json["perPod"][GPU], "6");
        assert_eq!(json["largestNode"][GPU], "2");
    }

    /// Free capacity: the brief's everyday case and its neighbours, with exact numbers.
    #[test]
    fn free_capacity_fragmented_by_running_pods_is_found() {
        let b100 = |name: &str, running: &[i64]| {
            running.iter().enumerate().fold(a100(name, 8), |n, (i, g)| {
                let w = format!("run-{name}-{i}");
                n.running(Some(("team-b", &w)), &[(GPU, *g), ("cpu", 1000)])
            })
        };
        struct Case {
            name: &'static str,
            nodes: Vec<NodeInfo>,
            count: i32,
            gpus: i64,
            /// (pods that fit, largest, total, split, running pods), or None when it fits.
            want: Option<(i64, i64, i64, bool, usize)>,
        }
        let cases = [
            Case {
                name: "two 8-GPU nodes each running a 6-GPU pod: 4 free, no node takes 4",
                nodes: vec![b100("n1", &[6]), b100("n2", &[6])],
                count: 1,
                gpus: 4,
                want: Some((0, 2, 4, true, 2)),
            },
            Case {
                name: "a 2-GPU pod fits the room one node has left",
                nodes: vec![b100("n1", &[6]), b100("n2", &[6])],
                count: 1,
                gpus: 2,
                want: None,
            },
            Case {
                name: "uneven: 2 and 3 free, a 4-GPU pod",
                nodes: vec![b100("n1", &[6]), b100("n2", &[3, 2])],
                count: 1,
                gpus: 4,
                want: Some((0, 3, 5, true, 3)),
            },
            Case {
                name: "not even together: 1 and 1 free, a 4-GPU pod",
                nodes: vec![b100("n1", &[7]), b100("n2", &[4, 3])],
                count: 1,
                gpus: 4,
                want: Some((0, 1, 2, false, 3)),
            },
            Case {
                name: "three 2-GPU pods: one per node fits beside the running pods",
                nodes: vec![b100("n1", &[6]), b100("n2", &[5])],
                count: 3,
                gpus: 2,
                want: Some((2, 3, 5, false, 2)),
            },
            Case {
                name: "larger than an empty node: the finding stays on allocatable",
                nodes: vec![b100("n1", &[6]), b100("n2", &[6])],
                count: 1,
                gpus: 9,
                want: Some((0, 8, 16, true, 0)),
            },
            Case {
                name: "pods requesting no GPU take no GPU room",
                nodes: vec![
                    a100("n1", 8).running(None, &[("cpu", 60_000)]),
                    a100("n2", 8),
                ],
                count: 2,
                gpus: 8,
                want: None,
            },
            Case {
                name: "pods of no workload count too",
                nodes: vec![a100("n1", 8).running(None, &[(GPU, 1)])],
                count: 1,
                gpus: 8,
                want: Some((0, 7, 7, false, 1)),
            },
        ];
        let state = {
            let mut s = two_teams(16);
            s.cluster_queues.insert(
                "team-a".into(),
                cq(vec![group(&[("gpu-a100", &[(GPU, 16)])])]),
            );
            s
        };
        let assigned = ["gpu-a100".to_string()];
        for c in cases {
            let w = workload("job", c.count, c.gpus);
            let got = Checker::new(&state, &c.nodes)
                .pod_fit(&w, pending(&assigned), &every_pod)
                .map(|p| {
                    (
                        p.pods_that_fit,
                        p.largest_node.get(GPU).get(),
                        p.total.get(GPU).get(),
                        p.split,
                        p.running_pods,
                    )
                });
            assert_eq!(got, c.want, "{}", c.name);
            // With every running pod gone the nodes are empty again: only a pod larger than
            // a node stays a finding.
            let gone = Checker::new(&state, &c.nodes).pod_fit(&w, pending(&assigned), &|_| false);
            assert_eq!(gone.is_some(), c.gpus > 8, "{} (pods gone)", c.name);
        }
    }

    #[test]
    fn an_admitted_workloads_own_pods_fit_and_the_rest_must_fit_beside_them() {
        let state = two_teams(8);
        let adm = Admission {
            cluster_queue: "team-a".into(),
            pod_sets: vec![PodSetAdmission {
                name: "main".into(),
                flavors: [(GPU.to_string(), "gpu-a100".to_string())].into(),
                resource_usage: Default::default(),
                count: 2,
            }],
        };
        let w = workload("run", 2, 4);
        let own = Some(("team-a", "run"));
        // One of its two 4-GPU pods runs on n1 beside a 3-GPU pod; n2 runs a 6-GPU pod: the
        // second pod has 1 and 2 GPUs free.
        let nodes = [
            a100("n1", 8)
                .running(own, &[(GPU, 4)])
                .running(Some(("team-b", "x")), &[(GPU, 3)]),
            a100("n2", 8).running(Some(("team-b", "y")), &[(GPU, 6)]),
        ];
        let p = Checker::new(&state, &nodes)
            .pod_fit(&w, Placement::Admitted(&adm), &every_pod)
            .expect("the second pod has no room");
        assert!(p.holds_quota);
        assert_eq!(
            (
                p.pods_that_fit,
                p.largest_node.get(GPU).get(),
                p.total.get(GPU).get(),
                p.split,
                p.running_pods
            ),
            (1, 2, 3, false, 3)
        );
        // Both of its pods running: it fits, whatever else runs.
        let nodes = [
            a100("n1", 8)
                .running(own, &[(GPU, 4)])
                .running(own, &[(GPU, 4)]),
            a100("n2", 8).running(Some(("team-b", "y")), &[(GPU, 8)]),
        ];
        let checker = Checker::new(&state, &nodes);
        assert_eq!(
            checker.pod_fit(&w, Placement::Admitted(&adm), &every_pod),
            None
        );
        // Pending, its leftover pods do not count for it nor take room from it.
        assert_eq!(
            checker.pod_fit(&w, pending(&["gpu-a100".to_string()]), &every_pod),
            None
        );
    }
}
