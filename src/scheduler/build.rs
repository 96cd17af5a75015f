//! Building the engine from a [`ClusterState`], in named steps: intern the names the quotas
//! mention, then the flavors, the cohort nodes, the cohorts' parent links, the ClusterQueue
//! nodes with their resource groups, and one pending queue per ClusterQueue; workloads come
//! last, each through [`Engine::insert_workload`].
//!
//! Invariants:
//! - Ids are stable for a given input: every step walks the input's `BTreeMap`s in name
//!   order and interns names in the same order, so the same objects give the same ids.
//! - The tree has no cycle: a cohort whose ancestry loops is left without a parent and marked
//!   `in_cycle`, and its ClusterQueues stay out of the tree, inactive with `CohortCycle`.
//! - After [`Engine::new`], every node's quota and usage has an entry per interned (flavor,
//!   resource) pair, and the tree's aggregates are computed.

use std::collections::{BTreeMap, BTreeSet};

use super::decision::InactiveReason;
use super::id::{CohortId, CqId, FlavorId, FrId, Id, IdVec, NodeId, ResId};
use super::index::Names;
use super::key::KeyIndex;
use super::model::{ClusterQueue, ClusterState, ResourceGroup, StopPolicy};
use super::queue::CqQueue;
use super::state::{CohortInfo, CqInfo, Engine, EquivalentDecisions, FlavorInfo, GroupInfo};
use super::tree::{Quota, Tree};

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

    /// The engine for everything but the workloads.
    fn from_base(base: ClusterState) -> Self {
        let mut engine = Engine {
            cfg: base.config.clone(),
            names: quota_names(&base),
            flavors: IdVec::new(),
            cqs: IdVec::new(),
            cq_ids: BTreeMap::new(),
            cohorts: IdVec::new(),
            cohort_ids: BTreeMap::new(),
            tree: Tree::default(),
            queues: IdVec::new(),
            lqs: base.local_queues.clone(),
            namespaces: base.namespaces.clone(),
            wls: IdVec::new(),
            wl_ids: KeyIndex::default(),
            free_wl_ids: Vec::new(),
            cycle: 0,
            cq_of_node: IdVec::new(),
            attempts: 0,
            detailed_pending: false,
            equivalent_decisions: EquivalentDecisions::Always,
            epoch: 0,
            evaluated_in_epoch: (0, Vec::new()),
            holding_signature: 0,
            pods_ready_parked: false,
            base,
            searches: Default::default(),
            nominations: Default::default(),
            skip_quiet: false,
            quiet: Default::default(),
            finished: Default::default(),
        };
        engine.build_tree();
        engine
    }

    /// Creates flavors, cohorts, ClusterQueues, the tree and the queues from `self.base`.
    /// Workload usage is added by the caller.
    fn build_tree(&mut self) {
        let base = &self.base;
        let names = &mut self.names;
        self.flavors = flavor_infos(base, names);
        let mut tree = Tree::new(names.frs.len());
        let mut cohorts = Cohorts::add(base, names, &mut tree);
        cohorts.mark_cycles(base);
        cohorts.link(base, &mut tree);
        let mut cqs: IdVec<CqId, CqInfo> = IdVec::new();
        let mut cq_ids = BTreeMap::new();
        for (name, spec) in &base.cluster_queues {
            let cq = cluster_queue(name, spec, names, &self.flavors, &cohorts, base, &mut tree);
            cq_ids.insert(name.clone(), cqs.push(cq));
        }
        tree.resize_frs(names.frs.len());
        self.queues = cqs
            .iter()
            .map(|c: &CqInfo| CqQueue::new(c.spec.queueing_strategy))
            .collect();
        self.cq_of_node = IdVec::filled(None, tree.nodes.len());
        for (id, cq) in cqs.iter_enumerated() {
            self.cq_of_node[cq.node] = Some(id);
        }
        self.tree = tree;
        self.cqs = cqs;
        self.cq_ids = cq_ids;
        self.cohorts = cohorts.infos;
        self.cohort_ids = cohorts.ids;
        self.recompute_tree();
    }

    /// Recomputes every tree's aggregates from its roots.
    fn recompute_tree(&mut self) {
        let roots: Vec<NodeId> = (self.tree.nodes.ids())
            .filter(|&n| self.tree.nodes[n].parent.is_none())
            .collect();
        for r in roots {
            self.tree.recompute_from(r);
        }
    }
}

/// Every flavor, then every (flavor, resource) the quotas mention, ClusterQueues first in
/// name order, then cohorts, so indices are stable for a given input.
fn quota_names(base: &ClusterState) -> Names {
    let mut names = Names::default();
    for name in base.flavors.keys() {
        names.flavor(name);
    }
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
    names
}

/// The ResourceFlavors that exist (`None` for a flavor only named by a quota).
fn flavor_infos(base: &ClusterState, names: &mut Names) -> IdVec<FlavorId, Option<FlavorInfo>> {
    let mut flavors = IdVec::filled(None, names.flavors.len());
    for (name, f) in &base.flavors {
        let id = names.flavor(name);
        if flavors.len() <= id.index() {
            flavors.resize(id.index() + 1, None);
        }
        flavors[id] = Some(FlavorInfo {
            labels: f.node_labels.clone(),
            taints: f.node_taints.clone(),
            tolerations: f.tolerations.clone(),
        });
    }
    flavors
}

/// The quota of each (flavor, resource) the resource groups name, indexed by the pair.
fn quotas_of(names: &mut Names, groups: &[ResourceGroup]) -> IdVec<FrId, Quota> {
    let mut q = IdVec::filled(Quota::default(), names.frs.len());
    for g in groups {
        for f in &g.flavors {
            let fid = names.flavor(&f.name);
            for r in &f.resources {
                let rid = names.resource(&r.name);
                let fr = names.fr(fid, rid);
                if q.len() <= fr.index() {
                    q.resize(fr.index() + 1, Quota::default());
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
}

/// The cohorts being built, by id and by name.
struct Cohorts {
    infos: IdVec<CohortId, CohortInfo>,
    ids: BTreeMap<String, CohortId>,
}

impl Cohorts {
    /// A tree node per cohort: the explicit ones, then the implicit ones named by parents
    /// or ClusterQueues (all in name order), none linked yet.
    fn add(base: &ClusterState, names: &mut Names, tree: &mut Tree) -> Self {
        let mut cohort_names: BTreeSet<String> = base.cohorts.keys().cloned().collect();
        cohort_names.extend(base.cohorts.values().filter_map(|c| c.parent.clone()));
        cohort_names.extend(
            base.cluster_queues
                .values()
                .filter_map(|c| c.cohort.clone()),
        );
        let mut cohorts = Cohorts {
            infos: IdVec::new(),
            ids: BTreeMap::new(),
        };
        for name in &cohort_names {
            let spec = base.cohorts.get(name);
            let mut quota = spec
                .map(|c| quotas_of(names, &c.resource_groups))
                .unwrap_or_default();
            let weight = spec.map_or(1.0, |c| c.fair_weight);
            quota.resize(names.frs.len(), Quota::default());
            let node = tree.add_node(false, quota, weight);
            let id = cohorts.infos.push(CohortInfo {
                name: name.clone(),
                node,
                in_cycle: false,
            });
            cohorts.ids.insert(name.clone(), id);
        }
        cohorts
    }

    /// The parent the Cohort object of `c` names, if it has one.
    fn parent(&self, base: &ClusterState, c: CohortId) -> Option<CohortId> {
        base.cohorts
            .get(&self.infos[c].name)
            .and_then(|s| s.parent.as_ref())
            .map(|p| self.ids[p])
    }

    /// Marks every cohort whose ancestry loops (whether it is on the loop or below it).
    fn mark_cycles(&mut self, base: &ClusterState) {
        for c in self.infos.ids() {
            let mut seen = BTreeSet::from([c]);
            let mut cur = c;
            let mut cyclic = false;
            while let Some(p) = self.parent(base, cur) {
                if !seen.insert(p) {
                    cyclic = true;
                    break;
                }
                cur = p;
            }
            self.infos[c].in_cycle = cyclic;
        }
    }

    /// Links each cohort outside a cycle to its parent.
    fn link(&self, base: &ClusterState, tree: &mut Tree) {
        for c in self.infos.ids() {
            if self.infos[c].in_cycle {
                continue;
            }
            if let Some(p) = self.parent(base, c) {
                tree.set_parent(self.infos[c].node, self.infos[p].node);
            }
        }
    }

    /// `cq`'s path from the root cohort down (`/root/.../cq`), as upstream prints it;
    /// `cohort` is outside any cycle.
    fn path(&self, base: &ClusterState, cohort: CohortId, cq: &str) -> String {
        let mut path = vec![cq.to_string()];
        let mut cur = Some(cohort);
        while let Some(c) = cur {
            path.push(self.infos[c].name.clone());
            cur = self.parent(base, c);
        }
        path.reverse();
        format!("/{}", path.join("/"))
    }
}

/// A ClusterQueue's record and tree node, linked under its cohort unless that cohort is in a
/// cycle (then it stays a root, inactive).
fn cluster_queue(
    name: &str,
    spec: &ClusterQueue,
    names: &mut Names,
    flavors: &IdVec<FlavorId, Option<FlavorInfo>>,
    cohorts: &Cohorts,
    base: &ClusterState,
    tree: &mut Tree,
) -> CqInfo {
    let mut quota = quotas_of(names, &spec.resource_groups);
    quota.resize(names.frs.len(), Quota::default());
    let node = tree.add_node(true, quota, spec.fair_weight);
    let groups = resource_groups(spec, names, flavors);
    let covers_pods = names
        .find_resource("pods")
        .filter(|r| groups.group_of.contains_key(r));
    let mut inactive = if spec.terminating {
        Some(InactiveReason::Terminating)
    } else if let Some(problem) = &spec.invalid {
        Some(InactiveReason::InvalidSpec(problem.clone()))
    } else if spec.stop_policy != StopPolicy::None {
        Some(InactiveReason::Stopped)
    } else if !groups.missing_flavors.is_empty() {
        Some(InactiveReason::FlavorNotFound(groups.missing_flavors))
    } else if !spec.unsupported.is_empty() {
        Some(InactiveReason::Unsupported(spec.unsupported.clone()))
    } else {
        None
    };
    let mut path = format!("/{name}");
    if let Some(cohort) = &spec.cohort {
        let c = cohorts.ids[cohort];
        if cohorts.infos[c].in_cycle {
            inactive = inactive.or(Some(InactiveReason::CohortCycle(cohort.clone())));
        } else {
            tree.set_parent(node, cohorts.infos[c].node);
            path = cohorts.path(base, c, name);
        }
    }
    CqInfo {
        name: name.to_string(),
        node,
        spec: spec.clone(),
        groups: groups.groups,
        group_of: groups.group_of,
        inactive,
        generation: 0,
        path,
        covers_pods,
        holding: BTreeSet::new(),
    }
}

/// A ClusterQueue's resource groups, interned.
struct Groups {
    groups: Vec<GroupInfo>,
    /// The group covering each resource (the first one, should two claim it).
    group_of: BTreeMap<ResId, usize>,
    /// Flavors the groups name that do not exist, in first-mention order.
    missing_flavors: Vec<String>,
}

fn resource_groups(
    spec: &ClusterQueue,
    names: &mut Names,
    flavors: &IdVec<FlavorId, Option<FlavorInfo>>,
) -> Groups {
    let mut out = Groups {
        groups: Vec::new(),
        group_of: BTreeMap::new(),
        missing_flavors: Vec::new(),
    };
    for (gi, g) in spec.resource_groups.iter().enumerate() {
        let covered: Vec<ResId> = g
            .covered_resources
            .iter()
            .map(|r| names.resource(r))
            .collect();
        for &r in &covered {
            out.group_of.entry(r).or_insert(gi);
        }
        let mut group_flavors = Vec::new();
        let mut frs = Vec::new();
        for f in &g.flavors {
            let fid = names.flavor(&f.name);
            if flavors.get(fid).is_none_or(|f| f.is_none())
                && !out.missing_flavors.contains(&f.name)
            {
                out.missing_flavors.push(f.name.clone());
            }
            group_flavors.push(fid);
            frs.push(covered.iter().map(|&r| names.fr(fid, r)).collect());
        }
        out.groups.push(GroupInfo {
            covered,
            flavors: group_flavors,
            frs,
        });
    }
    out
}
