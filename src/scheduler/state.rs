//! The engine's working state: the interned quota tree, ClusterQueue and workload records,
//! and the pending queues, built from a [`ClusterState`] (in `build`) and kept up to
//! date by events.
//!
//! Invariants:
//! - A workload holds quota (`holding` is set) iff it has an admission in an existing
//!   ClusterQueue and is neither finished nor deactivated; its usage is in the tree exactly
//!   once, under that ClusterQueue.
//! - A workload is in exactly one queue iff it is pending, active, not blocked, and its
//!   ClusterQueue exists; otherwise `block` says why it is not queued.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use super::decision::{Blocked, InactiveReason, PendingDetail, PendingReason};
use super::id::{CohortId, CqId, FlavorId, FrId, Id, IdVec, NodeId, ResId, WlId};
use super::index::Names;
use super::key::{KeyIndex, WorkloadKey};
use super::labels::{Taint, Toleration};
use super::message;
use super::model::{
    ClusterQueue, ClusterState, LocalQueue, Millis, MissingSelector, SchedulerConfig, StopPolicy,
    Workload,
};
use super::quantity::Amount;
use super::queue::{CqQueue, QueueKey};
use super::tree::Tree;

/// A ResourceFlavor's scheduling constraints.
#[derive(Debug, Clone)]
pub struct FlavorInfo {
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub tolerations: Vec<Toleration>,
}

/// One resource group of a ClusterQueue, interned.
#[derive(Debug, Clone)]
pub struct GroupInfo {
    /// The resources it covers.
    pub covered: Vec<ResId>,
    /// Its flavors, in the order they are tried.
    pub flavors: Vec<FlavorId>,
    /// `frs[flavor_index][covered_index]`
    pub frs: Vec<Vec<FrId>>,
}

/// A ClusterQueue as the engine keeps it.
#[derive(Debug, Clone)]
pub struct CqInfo {
    pub name: String,
    /// Its node in the quota tree.
    pub node: NodeId,
    pub spec: ClusterQueue,
    pub groups: Vec<GroupInfo>,
    /// The group covering each resource (an index into `groups`).
    pub group_of: BTreeMap<ResId, usize>,
    /// Why it admits nothing (stopped, a flavor missing...); `None` when active.
    pub inactive: Option<InactiveReason>,
    /// Bumped when quota changes or a workload stops holding quota here.
    pub generation: u64,
    /// `/root/.../cq`, as upstream prints it in eviction messages.
    pub path: String,
    /// The `pods` resource, when a resource group covers it: each pod then requests one.
    pub covers_pods: Option<ResId>,
    /// Workloads holding quota here.
    pub holding: BTreeSet<WlId>,
}

/// A Cohort (explicit, or implicit: only named by a ClusterQueue or a child cohort).
#[derive(Debug, Clone)]
pub struct CohortInfo {
    pub name: String,
    /// Its node in the quota tree.
    pub node: NodeId,
    /// Its ancestry loops: it has no parent in the tree and its ClusterQueues are inactive.
    pub in_cycle: bool,
}

/// A podSet's request, with resource names interned.
#[derive(Debug, Clone)]
pub struct PodSetReq {
    pub name: String,
    pub count: i32,
    pub min_count: Option<i32>,
    /// What one pod requests, per resource.
    pub per_pod: Vec<(ResId, Amount)>,
}

/// The quota a workload holds: where, and how much per (flavor, resource).
#[derive(Debug, Clone)]
pub struct Holding {
    pub cq: CqId,
    pub usage: Vec<(FrId, Amount)>,
}

/// Where one resource's scan over its resource group's flavors stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlavorScan {
    pub resource: ResId,
    /// Position (in the group's flavor list) of the last flavor tried, while flavors after it
    /// remain untried; `None` once the scan reached the last flavor, so the next one starts
    /// over from the first.
    pub last_tried: Option<u32>,
}

/// Scan progress over the resource groups' flavors (upstream's `LastTriedFlavorIdx`), so a
/// workload that comes back tries the flavors it has not tried yet before starting over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastState {
    /// Per podSet, per resource that chose a flavor.
    pub tried: Vec<Vec<FlavorScan>>,
    /// The ClusterQueue's generation the scan ran against (quota changes invalidate it).
    pub generation: u64,
    pub cycle: u64,
}

impl LastState {
    /// Are there flavors some resource has not tried yet?
    pub fn pending_flavors(&self) -> bool {
        self.tried
            .iter()
            .any(|m| m.iter().any(|s| s.last_tried.is_some()))
    }

    /// Where the scan of `res` in podSet `pod_set` starts next time.
    pub fn next_flavor(&self, pod_set: usize, res: ResId) -> usize {
        self.tried
            .get(pod_set)
            .and_then(|m| m.iter().find(|s| s.resource == res))
            .and_then(|s| s.last_tried)
            .map_or(0, |i| i as usize + 1)
    }
}

/// The engine's record of one workload.
#[derive(Debug, Clone)]
pub struct WlState {
    /// The workload as given, with its admission fields kept up to date by cycles and events.
    pub w: Workload,
    pub key: WorkloadKey,
    /// The ClusterQueue its LocalQueue points to, when both exist.
    pub target_cq: Option<CqId>,
    /// Why it is not queued (when pending).
    pub block: Option<Blocked>,
    pub pod_sets: Vec<PodSetReq>,
    /// Equivalence hash: workloads with the same one are parked together.
    pub hash: u64,
    /// The quota it holds, when it holds some.
    pub holding: Option<Holding>,
    /// Chosen as a victim: it keeps its quota until [`Engine::release`].
    pub evicted: bool,
    /// When it got its quota (victims go most recently reserved first).
    pub reserved_at: Option<Millis>,
    /// Its flavor scan progress, while pending.
    pub last: Option<LastState>,
    /// Its place in its ClusterQueue's queue.
    pub queue_key: QueueKey,
    /// The engine epoch of its last full evaluation (0: never evaluated, or its last scan
    /// resumed past the first flavors).
    pub evaluated_at: u64,
    /// The reason of the equivalent-failed Pending decision last made about it, while it has
    /// not been a head since (with [`EquivalentDecisions::OnChange`], parking it again for
    /// the same reason makes no new decision).
    pub equivalent_reported: Option<PendingReason>,
}

/// Which Pending decisions workloads parked along with a failed equivalent get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EquivalentDecisions {
    /// None: the caller only needs outcomes (a forecast, a trace replay).
    Off,
    /// One at every parking (the run's report names the head each was parked with).
    Always,
    /// One when it says something new: the first parking since the workload was last a head
    /// (or changed), or a different reason. What a status writer needs, and no longer a
    /// decision per parked workload at every retry of a deep queue.
    OnChange,
}

impl WlState {
    pub fn priority(&self) -> i32 {
        self.w.priority
    }

    /// Does it hold quota on any of `frs`?
    pub fn uses_any(&self, frs: &[FrId]) -> bool {
        self.holding
            .as_ref()
            .is_some_and(|h| h.usage.iter().any(|(fr, _)| frs.contains(fr)))
    }

    /// Neither holding quota nor finished.
    pub fn is_pending(&self) -> bool {
        self.holding.is_none() && !self.w.finished
    }
}

/// The engine: everything the scheduling cycle reads and updates.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) cfg: SchedulerConfig,
    pub(crate) names: Names,
    pub(crate) flavors: IdVec<FlavorId, Option<FlavorInfo>>,
    pub(crate) cqs: IdVec<CqId, CqInfo>,
    pub(crate) cq_ids: BTreeMap<String, CqId>,
    pub(crate) cohorts: IdVec<CohortId, CohortInfo>,
    pub(crate) cohort_ids: BTreeMap<String, CohortId>,
    pub(crate) tree: Tree,
    pub(crate) queues: IdVec<CqId, CqQueue>,
    pub(crate) lqs: BTreeMap<(String, String), LocalQueue>,
    pub(crate) namespaces: BTreeMap<String, BTreeMap<String, String>>,
    pub(crate) wls: IdVec<WlId, Option<WlState>>,
    /// Looked up by key for every workload a controller turn touches.
    pub(crate) wl_ids: KeyIndex<WlId>,
    /// Slots of removed workloads, given to the next new ones: a controller that sees
    /// millions of workloads come and go keeps as many slots as it ever held at once.
    pub(crate) free_wl_ids: Vec<WlId>,
    pub(crate) cycle: u64,
    /// ClusterQueue of each tree node (None for cohorts).
    pub(crate) cq_of_node: IdVec<NodeId, Option<CqId>>,
    /// Heads evaluated (nominated) over all cycles: admission attempts.
    pub(crate) attempts: u64,
    /// Whether Pending decisions carry the full flavor assignment (see
    /// [`Engine::set_detailed_pending`]).
    pub(crate) detailed_pending: bool,
    /// Which workloads parked with an equivalent get their own Pending decision
    /// ([`Engine::set_equivalent_decisions`]).
    pub(crate) equivalent_decisions: EquivalentDecisions,
    /// Bumped whenever quota is taken or given back (admission, preemption, release,
    /// removal): evaluations from an older epoch may be stale.
    pub(crate) epoch: u64,
    /// Workloads evaluated as heads during `epoch` (a workload whose scan resumed may be
    /// listed twice; [`WlState::evaluated_at`] decides): the only parked workloads a stale
    /// sweep leaves parked ([`Engine::retry_stale`]).
    pub(crate) evaluated_in_epoch: (u64, Vec<WlId>),
    /// Who holds quota where, as a hash kept up to date with every reservation and release
    /// ([`Engine::holding_signature`]).
    pub(crate) holding_signature: u64,
    /// Entries were parked by the `blockAdmission` gate ([`super::pods_ready`]).
    pub(crate) pods_ready_parked: bool,
    /// The objects the tree was built from (workloads excluded), for rebuilds.
    pub(crate) base: ClusterState,
    /// Preemption searches of earlier cycles, still good while their tree is unchanged.
    pub(crate) searches: super::preemption::SearchCache,
    /// Preemptors' nominations of earlier cycles, still good while nothing they read changed.
    pub(crate) nominations: super::cycle::memo::NominationCache,
    /// Whether cycles skip quiet cohort trees ([`Engine::set_skip_quiet_trees`]), and the
    /// trees found quiet.
    pub(crate) skip_quiet: bool,
    pub(crate) quiet: super::cycle::quiet::QuietTrees,
    /// Finished workloads kept compact, out of `wls` ([`Engine::set_compact_finished`]).
    pub(crate) finished: super::finished::Finished,
}

impl Engine {
    /// Makes sure every (flavor, resource) is interned and sized in the tree.
    fn intern_fr(&mut self, flavor: &str, resource: &str) -> FrId {
        let fid = self.names.flavor(flavor);
        if self.flavors.len() <= fid.index() {
            self.flavors.resize(fid.index() + 1, None);
        }
        let rid = self.names.resource(resource);
        let fr = self.names.fr(fid, rid);
        if fr.index() >= self.tree.num_fr {
            self.tree.resize_frs(fr.index() + 1);
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
            id: WlId::FIRST,
        };
        let id = match self.wl_ids.get(&key) {
            Some(&id) => id,
            None => match self.free_wl_ids.pop() {
                Some(id) => id,
                None => self.wls.push(None),
            },
        };
        // New, or changed (its priority, its request): earlier answers were for another.
        self.forget_answers(id);
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
            equivalent_reported: None,
        };
        self.resolve_target(&mut st);
        if let Some(adm) =
            st.w.admission
                .clone()
                .filter(|_| !st.w.finished && st.w.active)
            && let Some(&cq) = self.cq_ids.get(&adm.cluster_queue)
        {
            let mut usage: BTreeMap<FrId, Amount> = BTreeMap::new();
            for psa in &adm.pod_sets {
                let reclaimable = st.w.reclaimable.get(&psa.name).copied().unwrap_or(0);
                for (res, flavor) in &psa.flavors {
                    // Upstream's FloorToZero: a negative amount never lowers usage.
                    let total = psa
                        .resource_usage
                        .get(res)
                        .copied()
                        .unwrap_or_default()
                        .max(Amount::ZERO);
                    let v = scale_usage(total, psa.count, reclaimable);
                    let fr = self.intern_fr(flavor, res);
                    *usage.entry(fr).or_default() += v;
                }
            }
            let usage: Vec<(FrId, Amount)> = usage.into_iter().collect();
            let node = self.cqs[cq].node;
            for &(fr, v) in &usage {
                if propagate {
                    self.tree.add_usage(node, fr, v);
                } else {
                    self.tree.nodes[node].usage[fr] += v;
                }
            }
            self.cqs[cq].holding.insert(id);
            self.toggle_holding(id, cq);
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
            st.block = Some(Blocked::new(
                PendingReason::Unsupported,
                message::unsupported_workload(&w.unsupported),
                PendingDetail::Unsupported {
                    fields: w.unsupported.clone(),
                },
            ));
            return;
        }
        if !w.active {
            st.block = Some(Blocked::new(
                PendingReason::Deactivated,
                message::DEACTIVATED,
                PendingDetail::Deactivated,
            ));
            return;
        }
        let Some(lq) = self.lqs.get(&(w.namespace.clone(), w.queue_name.clone())) else {
            st.block = Some(Blocked::new(
                PendingReason::Misconfigured,
                message::local_queue_missing(&w.queue_name),
                PendingDetail::NoLocalQueue {
                    local_queue: w.queue_name.clone(),
                },
            ));
            return;
        };
        if lq.stop_policy != StopPolicy::None {
            st.block = Some(Blocked::new(
                PendingReason::Suspended,
                message::local_queue_inactive(&w.queue_name),
                PendingDetail::LocalQueueStopped {
                    local_queue: w.queue_name.clone(),
                },
            ));
            return;
        }
        let Some(&cq) = self.cq_ids.get(&lq.cluster_queue) else {
            st.block = Some(Blocked::new(
                PendingReason::Misconfigured,
                message::cluster_queue_missing(&lq.cluster_queue),
                PendingDetail::NoClusterQueue {
                    cluster_queue: lq.cluster_queue.clone(),
                },
            ));
            return;
        };
        st.target_cq = Some(cq);
        if let Some(why) = &self.cqs[cq].inactive {
            st.block = Some(Blocked::new(
                PendingReason::Suspended,
                message::cluster_queue_inactive(&lq.cluster_queue),
                PendingDetail::ClusterQueueInactive {
                    cluster_queue: lq.cluster_queue.clone(),
                    why: why.clone(),
                },
            ));
            return;
        }
        let problems = invalid_requests(w);
        if !problems.is_empty() {
            st.block = Some(Blocked::new(
                PendingReason::Misconfigured,
                message::invalid_requests(&problems),
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

    /// Which workloads parked along with an equivalent get their own Pending decision
    /// ([`EquivalentDecisions::Always`] by default).
    pub fn set_equivalent_decisions(&mut self, mode: EquivalentDecisions) {
        self.equivalent_decisions = mode;
    }

    /// The status written for `key` did not land: its next parking reports again.
    pub fn forget_equivalent_report(&mut self, key: &WorkloadKey) {
        if let Some(&id) = self.wl_ids.get(key)
            && let Some(st) = self.wls[id].as_mut()
        {
            st.equivalent_reported = None;
        }
    }

    /// Admission attempts so far: heads popped and evaluated, over all cycles.
    pub fn attempts(&self) -> u64 {
        self.attempts
    }

    pub fn workload_id(&self, key: &WorkloadKey) -> Option<WlId> {
        self.wl_ids.get(key).copied()
    }

    pub(crate) fn wl(&self, id: WlId) -> &WlState {
        self.wls[id].as_ref().expect("live workload id")
    }

    pub(crate) fn wl_mut(&mut self, id: WlId) -> &mut WlState {
        self.wls[id].as_mut().expect("live workload id")
    }

    /// Preemption searches answered from an earlier cycle's, while nothing they read in
    /// their cohort tree changed since.
    pub fn remembered_searches(&self) -> u64 {
        self.searches.hits
    }

    /// Preemptors whose searches are kept for later cycles (a diagnostic of its memory).
    pub fn preemptors_with_kept_searches(&self) -> usize {
        self.searches.preemptors_kept()
    }

    /// Nominations answered from an earlier cycle's, while nothing they read changed since.
    pub fn remembered_nominations(&self) -> u64 {
        self.nominations.hits
    }

    /// Preemptors whose nomination is kept for later cycles (a diagnostic of its memory).
    pub fn kept_nominations(&self) -> usize {
        self.nominations.len()
    }

    /// How many workloads the engine knows (finished ones included).
    pub fn workload_count(&self) -> usize {
        self.wl_ids.len() + self.finished.len()
    }

    /// How many pending workloads may be popped now, over every ClusterQueue (parked ones
    /// excluded). A cycle that only fails never raises it: it falls as heads park.
    pub fn active_pending(&self) -> usize {
        self.queues.iter().map(|q| q.active_len()).sum::<usize>()
    }

    /// A hash of who holds quota where, kept up to date with every reservation and release:
    /// equal holdings give equal signatures (a runner compares them to detect workloads
    /// that keep preempting each other).
    pub fn holding_signature(&self) -> u64 {
        self.holding_signature
    }

    /// `id` starts or stops holding quota in `cq`.
    pub(crate) fn toggle_holding(&mut self, id: WlId, cq: CqId) {
        self.forget_answers(id);
        self.searches_changed(cq);
        // splitmix64 of the pair: a well-spread bit pattern per (workload, queue).
        let mut z =
            ((id.index() as u64) << 20 ^ cq.index() as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.holding_signature ^= z ^ (z >> 31);
    }

    /// `id` changed, or is gone: the searches and the nomination kept for it were for
    /// another.
    pub(crate) fn forget_answers(&mut self, id: WlId) {
        self.searches.forget(id);
        self.nominations.forget(id);
    }

    /// Something preemption searches read changed in `cq`'s cohort tree.
    pub(crate) fn searches_changed(&mut self, cq: CqId) {
        let root = self.tree.root(self.cqs[cq].node);
        self.searches.touch(root);
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
        for (r, v) in ps.per_pod.iter().filter(|(_, v)| **v < Amount::ZERO) {
            out.push(message::negative_request(i, &ps.name, r, *v));
        }
    }
    out
}

/// Usage of a podSet admitted with `count` pods of which `reclaimable` finished.
fn scale_usage(total: Amount, count: i32, reclaimable: i32) -> Amount {
    if reclaimable <= 0 || count <= 0 {
        return total;
    }
    let remaining = (count - reclaimable).max(0);
    total / i64::from(count) * i64::from(remaining)
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
