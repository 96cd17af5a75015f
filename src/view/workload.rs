//! One Workload as the commands describe it: its state in one token, the flavors it was
//! assigned, how long it waited and ran, and the counts per LocalQueue.
//!
//! Invariants: the state follows upstream's order (finished > admitted > quota reserved >
//! pending), with eviction and deactivation made visible; times are milliseconds since the
//! epoch and never negative as durations.

use std::collections::BTreeMap;

use crate::api::Workload;
use crate::api::workload_status::condition;
use crate::manifests::key::namespace_of;
use crate::scheduler::model::Millis;

/// What a workload is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WorkloadState {
    Pending,
    Inactive,
    QuotaReserved,
    Evicted,
    Admitted,
    Finished,
}

impl WorkloadState {
    pub fn of(w: &Workload) -> WorkloadState {
        let st = w.status.as_ref();
        let is = |t: &str| st.is_some_and(|s| s.condition_is_true(t));
        if is(condition::FINISHED) {
            WorkloadState::Finished
        } else if w.holds_quota() && is(condition::EVICTED) {
            WorkloadState::Evicted
        } else if w.holds_quota() && is(condition::ADMITTED) {
            WorkloadState::Admitted
        } else if w.holds_quota() {
            WorkloadState::QuotaReserved
        } else if !w.spec.active {
            WorkloadState::Inactive
        } else {
            WorkloadState::Pending
        }
    }

    /// Upstream kueuectl's STATUS tokens (`workload.Status`), which `list --status` filters on.
    pub fn upstream_word(self) -> &'static str {
        match self {
            WorkloadState::Finished => "FINISHED",
            WorkloadState::Admitted | WorkloadState::Evicted => "ADMITTED",
            WorkloadState::QuotaReserved => "QUOTARESERVED",
            WorkloadState::Pending | WorkloadState::Inactive => "PENDING",
        }
    }

    /// The state's token: `Pending`, `Inactive`, `QuotaReserved`, `Evicted`, `Admitted`,
    /// `Finished`.
    pub fn word(self) -> &'static str {
        match self {
            WorkloadState::Pending => "Pending",
            WorkloadState::Inactive => "Inactive",
            WorkloadState::QuotaReserved => "QuotaReserved",
            WorkloadState::Evicted => "Evicted",
            WorkloadState::Admitted => "Admitted",
            WorkloadState::Finished => "Finished",
        }
    }
}

/// When a condition last turned true.
pub fn condition_time(w: &Workload, type_: &str) -> Option<Millis> {
    let c = w.status.as_ref()?.condition(type_)?;
    (c.status == "True").then(|| crate::manifests::convert::millis(&c.last_transition_time))
}

/// The flavors a workload was assigned, in first-seen order (`gpu-a100`, or
/// `gpu-a100,cpu-pool` when resources went to different flavors).
pub fn assigned_flavors(w: &Workload) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(adm) = w.status.as_ref().and_then(|s| s.admission.as_ref()) {
        for ps in &adm.pod_set_assignments {
            for f in ps.flavors.values() {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
    }
    out
}

/// The ClusterQueue a workload is admitted to (empty when it holds no admission).
pub fn admitted_cluster_queue(w: &Workload) -> String {
    w.status
        .as_ref()
        .and_then(|s| s.admission.as_ref())
        .map(|a| a.cluster_queue.clone())
        .unwrap_or_default()
}

/// A workload's creation.
pub fn created_at(w: &Workload) -> Option<Millis> {
    w.metadata
        .creation_timestamp
        .as_ref()
        .map(crate::manifests::convert::millis)
}

/// How long the workload has waited: pending, until now (since its last eviction, which
/// requeues it); holding quota, until its reservation.
pub fn wait_time(w: &Workload, now: Millis) -> Option<Millis> {
    let created = created_at(w)?;
    if w.holds_quota() {
        return condition_time(w, condition::QUOTA_RESERVED).map(|t| (t - created).max(0));
    }
    let since = condition_time(w, condition::EVICTED)
        .filter(|t| *t > created)
        .unwrap_or(created);
    Some((now - since).max(0))
}

/// How long an admitted workload has run: since its admission, until it finished or now.
pub fn execution_time(w: &Workload, now: Millis) -> Option<Millis> {
    let admitted = condition_time(w, condition::ADMITTED)?;
    let end = condition_time(w, condition::FINISHED).unwrap_or(now);
    Some(end - admitted)
}

/// Workloads of one LocalQueue, by what they hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalQueueCounts {
    pub pending: usize,
    /// Holding a quota reservation (admitted ones included).
    pub reserving: usize,
    pub admitted: usize,
}

/// The counts per LocalQueue `(namespace, name)`.
pub fn local_queue_counts(workloads: &[&Workload]) -> BTreeMap<(String, String), LocalQueueCounts> {
    let mut out: BTreeMap<(String, String), LocalQueueCounts> = BTreeMap::new();
    for w in workloads {
        let Some(q) = w.spec.queue() else { continue };
        let ns = namespace_of(&w.metadata).to_string();
        let e = out.entry((ns, q.to_string())).or_default();
        match WorkloadState::of(w) {
            WorkloadState::Pending => e.pending += 1,
            WorkloadState::Admitted => {
                e.reserving += 1;
                e.admitted += 1;
            }
            WorkloadState::QuotaReserved | WorkloadState::Evicted => e.reserving += 1,
            WorkloadState::Inactive | WorkloadState::Finished => {}
        }
    }
    out
}
