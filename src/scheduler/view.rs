//! A read-only view of the engine for one scheduling step, so flavor assignment and
//! preemption can read workloads and ClusterQueues while mutating the quota tree.

use super::id::{CqId, FlavorId, FrId, IdVec, NodeId, WlId};
use super::index::Names;
use super::model::{Millis, PreemptionPolicy, SchedulerConfig};
use super::quantity::Amount;
use super::state::{CqInfo, FlavorInfo, WlState};

pub(crate) struct View<'a> {
    pub cfg: &'a SchedulerConfig,
    pub names: &'a Names,
    pub flavors: &'a IdVec<FlavorId, Option<FlavorInfo>>,
    pub cqs: &'a IdVec<CqId, CqInfo>,
    pub wls: &'a IdVec<WlId, Option<WlState>>,
    /// ClusterQueue of each tree node (None for cohorts).
    pub cq_of_node: &'a IdVec<NodeId, Option<CqId>>,
    pub now: Millis,
    /// Set when something read `now` in place of a missing time (a holder's reservation
    /// time): what was computed then is not for a later cycle.
    pub now_read: std::cell::Cell<bool>,
}

impl<'a> View<'a> {
    pub fn wl(&self, id: WlId) -> &'a WlState {
        let wls: &'a IdVec<WlId, Option<WlState>> = self.wls;
        wls[id].as_ref().expect("live workload id")
    }

    /// The ClusterQueue node and the usage of the quota `wl` holds, if any.
    pub fn holding_of(&self, wl: WlId) -> Option<(NodeId, &'a [(FrId, Amount)])> {
        let h = self.wl(wl).holding.as_ref()?;
        Some((self.cqs[h.cq].node, &h.usage))
    }

    pub fn fair_sharing(&self) -> bool {
        self.cfg.fair_sharing.is_some()
    }

    pub fn cq_node(&self, cq: CqId) -> NodeId {
        self.cqs[cq].node
    }

    /// Upstream's `SatisfiesPreemptionPolicy`.
    pub fn satisfies_policy(
        &self,
        policy: PreemptionPolicy,
        preemptor: WlId,
        candidate: WlId,
    ) -> bool {
        let p = self.wl(preemptor);
        let c = self.wl(candidate);
        let lower = p.priority() > c.priority();
        match policy {
            PreemptionPolicy::Never => false,
            PreemptionPolicy::LowerPriority => lower,
            PreemptionPolicy::LowerOrNewerEqualPriority => {
                lower || (p.priority() == c.priority() && p.w.queue_time < c.w.queue_time)
            }
            PreemptionPolicy::Any => true,
        }
    }
}
