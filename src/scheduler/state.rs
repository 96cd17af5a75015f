//! The engine's working state: the interned quota tree, ClusterQueue and workload records,
//! and the pending queues, built from a [`ClusterState`] and kept up to date by events.
//!
//! Invariants:
//! - A workload holds quota (`holding` is set) iff it has an admission in an existing
//!   ClusterQueue and is neither finished nor deactivated; its usage is in the tree exactly
//!   once, under that ClusterQueue.
//! - A workload is in exactly one queue iff it is pending, active, not blocked, and its
//!   ClusterQueue exists; otherwise `block` says why it is not queued.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use super::decision::{InactiveReason, PendingDetail, PendingReason};
use super::index::{FlavorId, Names, ResId};
use super::labels::{Taint, Toleration};
use super::model::{
    ClusterQueue, ClusterState, LocalQueue, Millis, MissingSelector, SchedulerConfig, StopPolicy,
    Workload,
};
use super::quantity::{Amount, sat_add, sat_mul};
use super::queue::{CqQueue, QueueKey, WlId};
use super::tree::{Fr, NodeId, Quota, Tree};

pub type CqId = usize;

#[derive(Debug, Clone)]
pub struct FlavorInfo {
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub tolerations: Vec<Toleration>,
}

#[derive(Debug, Clone)]
pub struct GroupInfo {
    pub covered: Vec<ResId>,
    pub flavors: Vec<FlavorId>,
    /// `frs[flavor_index][covered_index]`
    pub frs: Vec<Vec<Fr>>,
}

#[derive(Debug, Clone)]
pub struct CqInfo {
    pub name: String,
    pub node: NodeId,
    pub spec: ClusterQueue,
    pub groups: Vec<GroupInfo>,
    pub group_of: BTreeMap<ResId, usize>,
    pub inactive: Option<InactiveReason>,
    /// Bumped when quota changes or a workload stops holding quota here.
    pub generation: u64,
    /// `/root/.../cq`, as upstream prints it in eviction messages.
    pub path: String,
    pub covers_pods: Option<ResId>,
    /// Workloads holding quota here.
    pub holding: BTreeSet<WlId>,
}

#[derive(Debug, Clone)]
pub struct CohortInfo {
    pub name: String,
    pub node: NodeId,
    pub in_cycle: bool,
}

#[derive(Debug, Clone)]
pub struct PodSetReq {
    pub name: String,
    pub count: i32,
    pub min_count: Option<i32>,
    pub per_pod: Vec<(ResId, Amount)>,
}

#[derive(Debug, Clone)]
pub struct Holding {
    pub cq: CqId,
    pub usage: Vec<(Fr, Amount)>,
}

/// Scan progress over a resource group's flavors (upstream's `LastTriedFlavorIdx`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastState {
    /// Per podSet: (resource, last flavor index tried; -1 once the last was reached).
    pub tried: Vec<Vec<(ResId, i32)>>,
    pub generation: u64,
    pub cycle: u64,
}

impl LastState {
    pub fn pending_flavors(&self) -> bool {
        self.tried.iter().any(|m| m.iter().any(|&(_, i)| i != -1))
    }

    pub fn next_flavor(&self, pod_set: usize, res: ResId) -> usize {
        match self
            .tried
            .get(pod_set)
            .and_then(|m| m.iter().find(|(r, _)| *r == res).map(|(_, i)| i))
        {
            Some(&i) if i >= 0 => (i + 1) as usize,
            _ => 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct WlState {
    pub w: Workload,
    pub key: String,
    /// The ClusterQueue its LocalQueue points to, when both exist.
    pub target_cq: Option<CqId>,
    /// Why it is not queued (when pending).
    pub block: Option<(PendingReason, String, PendingDetail)>,
    pub pod_sets: Vec<PodSetReq>,
    pub hash: u64,
    pub holding: Option<Holding>,
    pub evicted: bool,
    pub reserved_at: Option<Millis>,
    pub last: Option<LastState>,
    pub queue_key: QueueKey,
    /// The engine epoch of its last evaluation (0: never evaluated).
    pub evaluated_at: u64,
}

impl WlState {
    pub fn priority(&self) -> i32 {
        self.w.priority
    }

    pub fn uses_any(&self, frs: &[Fr]) -> bool {
        self.holding
            .as_ref()
            .is_some_and(|h| h.usage.iter().any(|(fr, _)| frs.contains(fr)))
    }

    pub fn is_pending(&self) -> bool {
        self.holding.is_none() && !self.w.finished
    }
}

/// The engine: everything the scheduling cycle reads and updates.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) cfg: SchedulerConfig,
    pub(crate) names: Names,
    pub(crate) flavors: Vec<Option<FlavorInfo>>,
    pub(crate) cqs: Vec<CqInfo>,
    pub(crate) cq_ids: BTreeMap<String, CqId>,
    pub(crate) cohorts: Vec<CohortInfo>,
    pub(crate) cohort_ids: BTreeMap<String, usize>,
    pub(crate) tree: Tree,
    pub(crate) queues: Vec<CqQueue>,
    pub(crate) lqs: BTreeMap<(String, String), LocalQueue>,
    pub(crate) namespaces: BTreeMap<String, BTreeMap<String, String>>,
    pub(crate) wls: Vec<Option<WlState>>,
    pub(crate) wl_ids: BTreeMap<String, WlId>,
    pub(crate) cycle: u64,
    /// ClusterQueue of each tree node (None for cohorts).
    pub(crate) cq_of_node: Vec<Option<CqId>>,
    /// Heads evaluated (nominated) over all cycles: admission attempts.
    pub(crate) attempts: u64,
    /// Whether Pending decisions carry the full flavor assignment (see
    /// [`Engine::set_detailed_pending`]).
    pub(crate) detailed_pending: bool,
    /// Bumped whenever quota is taken or given back (admission, preemption, release,
    /// removal): evaluations from an older epoch may be stale.
    pub(crate) epoch: u64,
    /// The objects the tree was built from (workloads excluded), for rebuilds.
    pub(crate) base: ClusterState,
}

impl Engine {
    /// Builds the engine from a cluster picture.
    pub fn new(state: ClusterState) -> Self {
        let mut base = state;
        let workloads = std::mem::take(&mut base.workloads);
        let mut engine = Self::from_base(base);
        for w in workloads {
            engine.insert_workload(w, false);
        }
        engine.recompute_tree();
        engine
    }

    fn from_base(base: ClusterState) -> Self {
        let mut names = Names::default();
        for name in base.flavors.keys() {
            names.flavor(name);
        }
        // Intern every (flavor, resource) the quotas mention, ClusterQueues first in name
        // order, so indices are stable for a given input.
        let groups_of = base
            .cluster_queues
            .values()
            .flat_map(|cq| cq.resource_groups.iter())
            .chain(base.cohorts.values().flat_map(|c| c.resource_groups.iter()));
        for g in groups_of {
            for f in &g.flavors {
                let fid = names.flavor(&f.name);
                for r in &g.covered_resources {
                    let rid = names.resource(r);
                    names.fr(fid, rid);
                }
                for r in &f.resources {
                    let rid = names.resource(&r.name);
                    names.fr(fid, rid);
                }
            }
        }
        let mut engine = Engine {
            cfg: base.config.clone(),
            names,
            flavors: Vec::new(),
            cqs: Vec::new(),
            cq_ids: BTreeMap::new(),
            cohorts: Vec::new(),
            cohort_ids: BTreeMap::new(),
            tree: Tree::default(),
            queues: Vec::new(),
            lqs: base.local_queues.clone(),
            namespaces: base.namespaces.clone(),
            wls: Vec::new(),
            wl_ids: BTreeMap::new(),
            cycle: 0,
            cq_of_node: Vec::new(),
            attempts: 0,
            detailed_pending: false,
            epoch: 0,
            base,
        };
        engine.build_tree();
        engine
    }

    /// (Re)creates flavors, cohorts, ClusterQueues and the tree from `self.base`. Workload
    /// usage is re-added by the caller.
    fn build_tree(&mut self) {
        let base = &self.base;
        let names = &mut self.names;
        self.flavors = vec![None; names.flavors.len()];
        for (name, f) in &base.flavors {
            let id = names.flavor(name);
            if self.flavors.len() <= id {
                self.flavors.resize(id + 1, None);
            }
            self.flavors[id] = Some(FlavorInfo {
                labels: f.node_labels.clone(),
                taints: f.node_taints.clone(),
                tolerations: f.tolerations.clone(),
            });
        }
        let mut tree = Tree::new(names.frs.len());
        let mut cohorts: Vec<CohortInfo> = Vec::new();
        let mut cohort_ids: BTreeMap<String, usize> = BTreeMap::new();
        let quotas_of = |names: &mut Names, groups: &[super::model::ResourceGroup]| {
            let mut q = vec![Quota::default(); names.frs.len()];
            for g in groups {
                for f in &g.flavors {
                    let fid = names.flavor(&f.name);
                    for r in &f.resources {
                        let rid = names.resource(&r.name);
                        let fr = names.fr(fid, rid);
                        if q.len() <= fr {
                            q.resize(fr + 1, Quota::default());
                        }
                        q[fr] = Quota {
                            nominal: r.nominal,
                            borrowing_limit: r.borrowing_limit,
                            lending_limit: r.lending_limit,
                        };
                    }
                }
            }
            q
        };
        // Cohorts: explicit ones, then implicit ones named by parents or ClusterQueues.
        let mut cohort_names: BTreeSet<String> = base.cohorts.keys().cloned().collect();
        cohort_names.extend(base.cohorts.values().filter_map(|c| c.parent.clone()));
        cohort_names.extend(
            base.cluster_queues
                .values()
                .filter_map(|c| c.cohort.clone()),
        );
        for name in &cohort_names {
            let spec = base.cohorts.get(name);
            let quota = spec
                .map(|c| quotas_of(names, &c.resource_groups))
                .unwrap_or_default();
            let weight = spec.map_or(1.0, |c| c.fair_weight);
            let mut quota = quota;
            quota.resize(names.frs.len(), Quota::default());
            let node = tree.add_node(false, quota, weight);
            cohort_ids.insert(name.clone(), cohorts.len());
            cohorts.push(CohortInfo {
                name: name.clone(),
                node,
                in_cycle: false,
            });
        }
        // Parent links, refusing cycles: a cohort whose ancestry loops is cut off and marked.
        for c in 0..cohorts.len() {
            let mut seen = BTreeSet::new();
            let mut cur = c;
            seen.insert(cur);
            let mut cyclic = false;
            while let Some(parent) = base
                .cohorts
                .get(&cohorts[cur].name)
                .and_then(|s| s.parent.as_ref())
            {
                let p = cohort_ids[parent];
                if !seen.insert(p) {
                    cyclic = true;
                    break;
                }
                cur = p;
            }
            cohorts[c].in_cycle = cyclic;
        }
        for c in 0..cohorts.len() {
            if cohorts[c].in_cycle {
                continue;
            }
            if let Some(parent) = base
                .cohorts
                .get(&cohorts[c].name)
                .and_then(|s| s.parent.as_ref())
            {
                let p = cohort_ids[parent];
                tree.set_parent(cohorts[c].node, cohorts[p].node);
            }
        }
        // ClusterQueues.
        let mut cqs = Vec::new();
        let mut cq_ids = BTreeMap::new();
        for (name, spec) in &base.cluster_queues {
            let mut quota = quotas_of(names, &spec.resource_groups);
            quota.resize(names.frs.len(), Quota::default());
            let node = tree.add_node(true, quota, spec.fair_weight);
            let mut groups = Vec::new();
            let mut group_of = BTreeMap::new();
            let mut missing = Vec::new();
            for (gi, g) in spec.resource_groups.iter().enumerate() {
                let covered: Vec<ResId> = g
                    .covered_resources
                    .iter()
                    .map(|r| names.resource(r))
                    .collect();
                for &r in &covered {
                    group_of.entry(r).or_insert(gi);
                }
                let mut flavors = Vec::new();
                let mut frs = Vec::new();
                for f in &g.flavors {
                    let fid = names.flavor(&f.name);
                    if self.flavors.get(fid).is_none_or(|f| f.is_none())
                        && !missing.contains(&f.name)
                    {
                        missing.push(f.name.clone());
                    }
                    flavors.push(fid);
                    frs.push(covered.iter().map(|&r| names.fr(fid, r)).collect());
                }
                groups.push(GroupInfo {
                    covered,
                    flavors,
                    frs,
                });
            }
            let covers_pods = names
                .find_resource("pods")
                .filter(|r| group_of.contains_key(r));
            let mut inactive = None;
            if spec.terminating {
                inactive = Some(InactiveReason::Terminating);
            } else if let Some(problem) = &spec.invalid {
                inactive = Some(InactiveReason::InvalidSpec(problem.clone()));
            } else if spec.stop_policy != StopPolicy::None {
                inactive = Some(InactiveReason::Stopped);
            } else if !missing.is_empty() {
                inactive = Some(InactiveReason::FlavorNotFound(missing));
            } else if !spec.unsupported.is_empty() {
                inactive = Some(InactiveReason::Unsupported(spec.unsupported.clone()));
            }
            let mut path = vec![name.clone()];
            if let Some(cohort) = &spec.cohort {
                let c = cohort_ids[cohort];
                if cohorts[c].in_cycle {
                    inactive = inactive.or(Some(InactiveReason::CohortCycle(cohort.clone())));
                } else {
                    tree.set_parent(node, cohorts[c].node);
                    let mut cur = Some(c);
                    while let Some(ci) = cur {
                        path.push(cohorts[ci].name.clone());
                        cur = base
                            .cohorts
                            .get(&cohorts[ci].name)
                            .and_then(|s| s.parent.as_ref())
                            .map(|p| cohort_ids[p]);
                    }
                }
            }
            path.reverse();
            cq_ids.insert(name.clone(), cqs.len());
            cqs.push(CqInfo {
                name: name.clone(),
                node,
                spec: spec.clone(),
                groups,
                group_of,
                inactive,
                generation: 0,
                path: format!("/{}", path.join("/")),
                covers_pods,
                holding: BTreeSet::new(),
            });
        }
        tree.num_fr = names.frs.len();
        for n in &mut tree.nodes {
            n.quota.resize(tree.num_fr, Quota::default());
            n.subtree_quota.resize(tree.num_fr, 0);
            n.usage.resize(tree.num_fr, 0);
        }
        self.queues = cqs
            .iter()
            .map(|c: &CqInfo| CqQueue::new(c.spec.queueing_strategy))
            .collect();
        self.cq_of_node = vec![None; tree.nodes.len()];
        for (id, cq) in cqs.iter().enumerate() {
            self.cq_of_node[cq.node] = Some(id);
        }
        self.tree = tree;
        self.cqs = cqs;
        self.cq_ids = cq_ids;
        self.cohorts = cohorts;
        self.cohort_ids = cohort_ids;
        self.recompute_tree();
    }

    pub(crate) fn recompute_tree(&mut self) {
        let roots: Vec<NodeId> = (0..self.tree.nodes.len())
            .filter(|&n| self.tree.nodes[n].parent.is_none())
            .collect();
        for r in roots {
            self.tree.recompute_from(r);
        }
    }

    /// Makes sure every (flavor, resource) is interned and sized in the tree.
    fn intern_fr(&mut self, flavor: &str, resource: &str) -> Fr {
        let fid = self.names.flavor(flavor);
        if self.flavors.len() <= fid {
            self.flavors.resize(fid + 1, None);
        }
        let rid = self.names.resource(resource);
        let fr = self.names.fr(fid, rid);
        if fr >= self.tree.num_fr {
            self.tree.num_fr = fr + 1;
            for n in &mut self.tree.nodes {
                n.quota.resize(fr + 1, Quota::default());
                n.subtree_quota.resize(fr + 1, 0);
                n.usage.resize(fr + 1, 0);
            }
        }
        fr
    }

    /// Adds a workload record, its usage and its queue place. With `propagate` false the
    /// usage is only recorded on its ClusterQueue and the caller recomputes the tree.
    pub(crate) fn insert_workload(&mut self, w: Workload, propagate: bool) -> WlId {
        let key = w.key();
        let pod_sets: Vec<PodSetReq> = w
            .pod_sets
            .iter()
            .map(|ps| PodSetReq {
                name: ps.name.clone(),
                count: ps.count,
                min_count: ps.min_count,
                per_pod: ps
                    .per_pod
                    .iter()
                    .map(|(r, v)| (self.names.resource(r), *v))
                    .collect(),
            })
            .collect();
        let hash = equivalence_hash(&w);
        let queue_key = QueueKey {
            neg_priority: -i64::from(w.priority),
            time: w.queue_time,
            tiebreak: w.tiebreak,
            id: 0,
        };
        let id = match self.wl_ids.get(&key) {
            Some(&id) => id,
            None => {
                self.wls.push(None);
                self.wls.len() - 1
            }
        };
        self.wl_ids.insert(key.clone(), id);
        let mut st = WlState {
            evicted: w.evicted,
            reserved_at: w.quota_reserved_at,
            w,
            key,
            target_cq: None,
            block: None,
            pod_sets,
            hash,
            holding: None,
            last: None,
            queue_key: QueueKey { id, ..queue_key },
            evaluated_at: 0,
        };
        self.resolve_target(&mut st);
        if let Some(adm) =
            st.w.admission
                .clone()
                .filter(|_| !st.w.finished && st.w.active)
            && let Some(&cq) = self.cq_ids.get(&adm.cluster_queue)
        {
            let mut usage: BTreeMap<Fr, Amount> = BTreeMap::new();
            for psa in &adm.pod_sets {
                let reclaimable = st.w.reclaimable.get(&psa.name).copied().unwrap_or(0);
                for (res, flavor) in &psa.flavors {
                    // Upstream's FloorToZero: a negative amount never lowers usage.
                    let total = psa.resource_usage.get(res).copied().unwrap_or(0).max(0);
                    let v = scale_usage(total, psa.count, reclaimable);
                    let fr = self.intern_fr(flavor, res);
                    let e = usage.entry(fr).or_insert(0);
                    *e = sat_add(*e, v);
                }
            }
            let usage: Vec<(Fr, Amount)> = usage.into_iter().collect();
            let node = self.cqs[cq].node;
            for &(fr, v) in &usage {
                if propagate {
                    self.tree.add_usage(node, fr, v);
                } else {
                    self.tree.nodes[node].usage[fr] = sat_add(self.tree.nodes[node].usage[fr], v);
                }
            }
            self.cqs[cq].holding.insert(id);
            st.holding = Some(Holding { cq, usage });
        }
        if st.holding.is_none() && !st.w.finished {
            self.enqueue(&mut st);
        }
        self.wls[id] = Some(st);
        id
    }

    /// Resolves LocalQueue -> ClusterQueue and records why a pending workload can't queue.
    fn resolve_target(&self, st: &mut WlState) {
        st.target_cq = None;
        st.block = None;
        let w = &st.w;
        if !w.unsupported.is_empty() {
            st.block = Some((
                PendingReason::Unsupported,
                format!(
                    "kubectl-kueue does not support {} on workloads",
                    w.unsupported.join(", ")
                ),
                PendingDetail::Unsupported {
                    fields: w.unsupported.clone(),
                },
            ));
            return;
        }
        if !w.active {
            st.block = Some((
                PendingReason::Deactivated,
                "The workload is deactivated".to_string(),
                PendingDetail::Deactivated,
            ));
            return;
        }
        let Some(lq) = self.lqs.get(&(w.namespace.clone(), w.queue_name.clone())) else {
            st.block = Some((
                PendingReason::Misconfigured,
                format!("LocalQueue {} doesn't exist", w.queue_name),
                PendingDetail::NoLocalQueue {
                    local_queue: w.queue_name.clone(),
                },
            ));
            return;
        };
        if lq.stop_policy != StopPolicy::None {
            st.block = Some((
                PendingReason::Suspended,
                format!("LocalQueue {} is inactive", w.queue_name),
                PendingDetail::LocalQueueStopped {
                    local_queue: w.queue_name.clone(),
                },
            ));
            return;
        }
        let Some(&cq) = self.cq_ids.get(&lq.cluster_queue) else {
            st.block = Some((
                PendingReason::Misconfigured,
                format!("ClusterQueue {} doesn't exist", lq.cluster_queue),
                PendingDetail::NoClusterQueue {
                    cluster_queue: lq.cluster_queue.clone(),
                },
            ));
            return;
        };
        st.target_cq = Some(cq);
        if let Some(why) = &self.cqs[cq].inactive {
            st.block = Some((
                PendingReason::Suspended,
                format!("ClusterQueue {} is inactive", lq.cluster_queue),
                PendingDetail::ClusterQueueInactive {
                    cluster_queue: lq.cluster_queue.clone(),
                    why: why.clone(),
                },
            ));
            return;
        }
        let problems = invalid_requests(w);
        if !problems.is_empty() {
            st.block = Some((
                PendingReason::Misconfigured,
                format!("resources validation failed: {}", aggregate(&problems)),
                PendingDetail::InvalidRequests { problems },
            ));
        }
    }

    /// Puts a pending workload into its ClusterQueue's queue when it may be queued.
    pub(crate) fn enqueue(&mut self, st: &mut WlState) {
        if st.block.is_some() || st.w.requeue_blocked {
            return;
        }
        if let Some(cq) = st.target_cq {
            self.queues[cq].push(st.queue_key, st.hash);
        }
    }

    pub fn config(&self) -> &SchedulerConfig {
        &self.cfg
    }

    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Include the full flavor assignment (every flavor tried, with its numbers) in Pending
    /// decisions. Off by default: it costs a quarter of a cycle's time and the reason,
    /// message and [`Engine::evaluate`] already give the same detail on demand.
    pub fn set_detailed_pending(&mut self, on: bool) {
        self.detailed_pending = on;
    }

    /// Admission attempts so far: heads popped and evaluated, over all cycles.
    pub fn attempts(&self) -> u64 {
        self.attempts
    }

    pub fn workload_id(&self, key: &str) -> Option<WlId> {
        self.wl_ids.get(key).copied()
    }

    pub(crate) fn wl(&self, id: WlId) -> &WlState {
        self.wls[id].as_ref().expect("live workload id")
    }

    pub(crate) fn wl_mut(&mut self, id: WlId) -> &mut WlState {
        self.wls[id].as_mut().expect("live workload id")
    }

    /// Does `namespace` match the ClusterQueue's namespaceSelector?
    pub(crate) fn namespace_selected(&self, cq: CqId, namespace: &str) -> bool {
        namespace_matches(&self.cfg, &self.namespaces, &self.cqs[cq], namespace)
    }
}

/// A ClusterQueue's namespaceSelector against a namespace's labels (a namespace only
/// referenced has none). A missing selector is read per [`MissingSelector`].
pub(crate) fn namespace_matches(
    cfg: &SchedulerConfig,
    namespaces: &BTreeMap<String, BTreeMap<String, String>>,
    cq: &CqInfo,
    namespace: &str,
) -> bool {
    match &cq.spec.namespace_selector {
        None => cfg.missing_namespace_selector == MissingSelector::MatchAll,
        Some(sel) => {
            let empty = BTreeMap::new();
            sel.matches(namespaces.get(namespace).unwrap_or(&empty))
        }
    }
}

/// Why a workload's requests can never be admitted: the problems its adapter found (each
/// naming its podSet, container and resource), else any negative per-pod amount (a
/// backstop: a negative request must never lower a queue's usage).
fn invalid_requests(w: &Workload) -> Vec<String> {
    if !w.invalid_requests.is_empty() {
        return w.invalid_requests.clone();
    }
    let mut out = Vec::new();
    for (i, ps) in w.pod_sets.iter().enumerate() {
        for (r, v) in ps.per_pod.iter().filter(|(_, v)| **v < 0) {
            out.push(format!(
                "spec.podSets[{i}] ({}): requests[{r}]: Invalid value: {:?}: must be greater than or equal to 0",
                ps.name,
                super::quantity::format_amount(r, *v)
            ));
        }
    }
    out
}

/// Upstream's error aggregate: one error as it is, several in brackets.
fn aggregate(problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// Usage of a podSet admitted with `count` pods of which `reclaimable` finished.
fn scale_usage(total: Amount, count: i32, reclaimable: i32) -> Amount {
    if reclaimable <= 0 || count <= 0 {
        return total;
    }
    let remaining = (count - reclaimable).max(0);
    sat_mul(total / i64::from(count), i64::from(remaining))
}

/// Workloads with the same hash can be parked together: same priority and same podSets
/// (name, count, minCount, requests and the scheduling constraints of the pod template).
fn equivalence_hash(w: &Workload) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    w.priority.hash(&mut h);
    w.namespace.hash(&mut h);
    w.queue_name.hash(&mut h);
    for ps in &w.pod_sets {
        ps.name.hash(&mut h);
        ps.count.hash(&mut h);
        ps.min_count.hash(&mut h);
        ps.per_pod.hash(&mut h);
        ps.node_selector.hash(&mut h);
        ps.required_affinity.hash(&mut h);
        ps.tolerations.hash(&mut h);
    }
    h.finish()
}
