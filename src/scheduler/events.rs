//! Changes from outside a cycle: workloads added, updated, finished or deleted, evicted
//! workloads releasing their quota, configuration changes. Each keeps the engine's
//! invariants and retries parked workloads where capacity may have freed, as upstream does
//! (the whole cohort tree of the ClusterQueue concerned).

use super::id::{CqId, IdVec, WlId};
use super::key::WorkloadKey;
use super::model::{ClusterState, Workload};
use super::queue::QueueKey;
use super::state::{Engine, namespace_matches};

impl Engine {
    /// Adds or replaces a workload. A replaced workload that held quota gives it back first.
    pub fn upsert_workload(&mut self, w: Workload) {
        if self.keep_compact_if_finished(&w) {
            return;
        }
        self.forget_compact(&w.key());
        let freed = self
            .wl_ids
            .get(&w.key())
            .copied()
            .and_then(|id| self.forget(id));
        self.insert_workload(w, true);
        if let Some(cq) = freed {
            self.retry_cohort(cq);
        }
        self.lift_pods_ready_block();
    }

    /// Records what a workload's demand was computed from ([`Workload::spec_version`]), when
    /// nothing the scheduler reads changed with it: no decision depends on it.
    pub fn set_spec_version(&mut self, key: &WorkloadKey, version: Option<(i64, u64)>) {
        if let Some(&id) = self.wl_ids.get(key) {
            self.wl_mut(id).w.spec_version = version;
        }
    }

    /// Removes a workload (deleted, or finished). Returns whether it existed.
    pub fn remove_workload(&mut self, key: &WorkloadKey) -> bool {
        let compact = self.forget_compact(key);
        let Some(id) = self.wl_ids.remove(key) else {
            return compact;
        };
        let freed = self.forget(id);
        self.forget_answers(id);
        self.wls[id] = None;
        self.free_wl_ids.push(id);
        if let Some(cq) = freed {
            self.retry_cohort(cq);
        }
        self.lift_pods_ready_block();
        true
    }

    /// The workload finished: it gives back its quota and is never queued again.
    pub fn finish_workload(&mut self, key: &WorkloadKey) -> bool {
        let Some(&id) = self.wl_ids.get(key) else {
            return false;
        };
        if self.finished.on {
            let queue_name = std::mem::take(&mut self.wl_mut(id).w.queue_name);
            self.keep_compact(key.clone(), &queue_name);
            return true;
        }
        let freed = self.forget(id);
        let st = self.wl_mut(id);
        st.w.finished = true;
        st.holding = None;
        if let Some(cq) = freed {
            self.retry_cohort(cq);
        }
        self.lift_pods_ready_block();
        true
    }

    /// An evicted workload's pods are gone: its quota is released, its admission cleared,
    /// and it queues again right away (preemption has no backoff), keeping its place.
    pub fn release(&mut self, key: &WorkloadKey) -> bool {
        let Some(&id) = self.wl_ids.get(key) else {
            return false;
        };
        let Some(holding) = self.wl_mut(id).holding.take() else {
            return false;
        };
        let node = self.cqs[holding.cq].node;
        self.tree.remove_usages(node, &holding.usage);
        self.cqs[holding.cq].holding.remove(&id);
        self.toggle_holding(id, holding.cq);
        self.cqs[holding.cq].generation += 1;
        self.epoch += 1;
        let mut st = self.wls[id].take().expect("live workload");
        st.w.admission = None;
        st.w.admitted = false;
        st.w.quota_reserved_at = None;
        st.reserved_at = None;
        self.enqueue(&mut st);
        self.wls[id] = Some(st);
        self.retry_cohort(holding.cq);
        self.lift_pods_ready_block();
        true
    }

    /// Replaces everything but the workloads (queues, flavors, cohorts, namespaces,
    /// configuration), keeping each workload's state and the engine's reporting settings.
    pub fn set_cluster_config(&mut self, mut state: ClusterState) {
        state.workloads = self.workloads().cloned().collect();
        let cycle = self.cycle;
        let last: Vec<(WorkloadKey, Option<super::state::LastState>, bool)> = self
            .wls
            .iter()
            .flatten()
            .map(|s| (s.key.clone(), s.last.clone(), s.evicted))
            .collect();
        let (detailed, equivalents) = (self.detailed_pending, self.equivalent_decisions);
        let skip_quiet = self.skip_quiet;
        let finished = std::mem::take(&mut self.finished);
        *self = Engine::new(state);
        self.finished = finished;
        self.cycle = cycle;
        self.detailed_pending = detailed;
        self.equivalent_decisions = equivalents;
        self.skip_quiet = skip_quiet;
        for (key, l, evicted) in last {
            if let Some(&id) = self.wl_ids.get(&key) {
                let st = self.wl_mut(id);
                st.last = l;
                st.evicted = evicted;
            }
        }
    }

    /// Drops a workload's quota and queue place; returns the ClusterQueue whose quota freed.
    fn forget(&mut self, id: WlId) -> Option<CqId> {
        let st = self.wls[id].as_mut()?;
        let key = st.queue_key;
        let target = st.target_cq;
        let holding = st.holding.take();
        if let Some(cq) = target {
            self.queues[cq].remove(&key);
        }
        let h = holding?;
        self.epoch += 1;
        let node = self.cqs[h.cq].node;
        self.tree.remove_usages(node, &h.usage);
        self.cqs[h.cq].holding.remove(&id);
        self.toggle_holding(id, h.cq);
        self.cqs[h.cq].generation += 1;
        Some(h.cq)
    }

    /// Every parked workload in every ClusterQueue may try again (as after a change that
    /// could affect them all). Returns how many moved back.
    pub fn retry_all(&mut self) -> usize {
        self.retry_parked(false)
    }

    /// Like [`Engine::retry_all`], but only workloads not fully evaluated since quota last
    /// changed (a resumed flavor scan does not count): the others would be decided exactly
    /// as they were.
    pub fn retry_stale(&mut self) -> usize {
        self.retry_parked(true)
    }

    fn retry_parked(&mut self, only_stale: bool) -> usize {
        let mut moved = 0;
        let epoch = self.epoch;
        if only_stale && epoch == 0 {
            // Quota never changed: every parking happened against the quota as it is.
            return 0;
        }
        // Evaluated since quota last changed: a stale sweep keeps them parked.
        let mut fresh: IdVec<CqId, Vec<QueueKey>> = self.cqs.ids().map(|_| Vec::new()).collect();
        if only_stale && self.evaluated_in_epoch.0 == epoch {
            for &id in &self.evaluated_in_epoch.1 {
                if let Some(st) = self.wls[id].as_ref()
                    && st.evaluated_at == epoch
                    && let Some(cq) = st.target_cq
                {
                    fresh[cq].push(st.queue_key);
                }
            }
        }
        for c in self.cqs.ids() {
            let Engine {
                wls,
                cqs,
                namespaces,
                cfg,
                queues,
                ..
            } = self;
            moved += queues[c].retry_inadmissible(
                |id| {
                    let Some(st) = wls[id].as_ref() else {
                        return true;
                    };
                    st.w.requeue_blocked
                        || !namespace_matches(cfg, namespaces, &cqs[c], &st.w.namespace)
                },
                &fresh[c],
            );
        }
        moved
    }

    /// Capacity freed in `cq`: every parked workload of its cohort tree may try again.
    pub(crate) fn retry_cohort(&mut self, cq: CqId) {
        let node = self.cqs[cq].node;
        let root = self.tree.root(node);
        let mut nodes = Vec::new();
        if self.tree.nodes[root].is_cq {
            nodes.push(root);
        } else {
            self.tree.subtree_cqs(root, &mut nodes);
        }
        for n in nodes {
            let Some(c) = self.cq_of_node[n] else {
                continue;
            };
            let Engine {
                wls,
                cqs,
                namespaces,
                cfg,
                queues,
                ..
            } = self;
            queues[c].retry_inadmissible(
                |id| {
                    let Some(st) = wls[id].as_ref() else {
                        return true;
                    };
                    st.w.requeue_blocked
                        || !namespace_matches(cfg, namespaces, &cqs[c], &st.w.namespace)
                },
                &[],
            );
        }
    }

    /// Every workload the engine knows, in id order.
    pub fn workloads(&self) -> impl Iterator<Item = &Workload> {
        self.wls.iter().flatten().map(|s| &s.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(name: &str) -> Workload {
        Workload {
            namespace: "ns".to_string(),
            name: name.to_string(),
            queue_name: "lq".to_string(),
            ..Workload::default()
        }
    }

    #[test]
    fn removed_workloads_leave_no_slots_behind() {
        let mut e = Engine::new(ClusterState::default());
        for round in 0..100 {
            for i in 0..10 {
                e.upsert_workload(workload(&format!("w-{round}-{i}")));
            }
            for i in 0..10 {
                assert!(e.remove_workload(&WorkloadKey::new("ns", format!("w-{round}-{i}"))));
            }
        }
        assert_eq!(
            e.wls.len(),
            10,
            "1,000 workloads seen, never more than 10 at once"
        );
        assert_eq!(e.workload_count(), 0);
        e.upsert_workload(workload("last"));
        assert_eq!(
            e.workloads().map(|w| w.name.as_str()).collect::<Vec<_>>(),
            ["last"]
        );
    }
}
