//! Keeping the engine in step with each changed Workload: converted with the code `simulate`
//! uses and upserted only when something the scheduler reads differs from what the engine
//! holds (our own status writes echo back as no-ops). On the way, the workload controller's
//! policy ([`crate::policy::workload`]) turns into status writes: deactivation and draining
//! evictions, the requeue that undoes them, the reason a Workload cannot even queue, and the
//! lifecycle of Workloads no Job owns.

use std::sync::Arc;

use crate::api::Workload;
use crate::manifests::Origin;
use crate::manifests::convert::{self, WorkloadDemand};
use crate::metrics::{LocalQueueRef, MetricUpdate};
use crate::policy::workload::{self as policy, PlainWorkloadStep, QueueTransition};
use crate::scheduler::PendingReason;
use crate::scheduler::decision::Blocked;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::{Admission, Workload as Model};

use super::plan::{Effect, EventText, StatusWrite};
use super::{Ctx, owner_job};

/// A stable tie-break from the UID (live objects have no document order).
pub fn tiebreak(uid: &str) -> u64 {
    let hex: String = uid
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .take(16)
        .collect();
    u64::from_str_radix(&hex, 16).unwrap_or(0)
}

impl Ctx<'_> {
    /// Brings one Workload into the engine (or out of it).
    pub(super) fn sync_workload(&mut self, key: &WorkloadKey) {
        // Decided again in the next cycle (its tree's last decisions are not taken as still
        // written): someone else may have written its status.
        self.m.engine.reconsider(key);
        if let Some(b) = self.m.wls.get_mut(key) {
            // Its status or its demand may have changed: pending words are checked anew.
            b.pending_verified = 0;
            if b.writing() {
                return;
            }
        }
        let Some((obj, kept)) = self.latest_for_sync(key) else {
            if self.m.engine.remove_workload(key) {
                tracing::debug!(workload = %key, "workload gone");
                self.m.schedule = true;
                self.m.queues_dirty = true;
            }
            self.m.wls.remove(key);
            // Its Job gets a look: a Job whose Workload was deleted (no longer matching
            // it) gets a new one.
            let jobs = self.m.owned.remove_workload(key);
            self.m.dirty_jobs.extend(jobs);
            return;
        };
        let owner = owner_job(&obj);
        if let Some(job) = &owner {
            self.m.owned.insert(job.clone(), key.clone());
            self.m.dirty_jobs.insert(job.clone());
        }
        let origin = Origin {
            file: "cluster (Workload)".into(),
            document: 0,
            order: 0,
        };
        let uid = obj.metadata.uid.clone().unwrap_or_default();
        let version = self.spec_version(&obj);
        // The version the engine's copy was computed from (equal when its demand was kept).
        let kept_version = self.m.engine.workload(key).and_then(|w| w.spec_version);
        let demand = match kept {
            Some(d) => Ok(d),
            None => convert::workload_demand(
                &origin,
                &obj,
                &self.m.settings.exclude_resource_prefixes,
                &self.m.requests,
            ),
        };
        let converted = demand.and_then(|d| {
            convert::workload_with(
                &origin,
                &obj,
                tiebreak(&uid),
                self.now.wall,
                self.m.engine.config().orders_by_eviction(),
                d,
            )
        });
        let mut m = match converted {
            Ok(mut m) => {
                m.spec_version = version;
                m
            }
            Err(e) => {
                tracing::warn!(workload = %key, error = %e, "ignoring a Workload the scheduler cannot read");
                if self.m.engine.remove_workload(key) {
                    self.m.schedule = true;
                }
                return;
            }
        };
        let backoff = self
            .m
            .wls
            .get(key)
            .is_some_and(|b| b.backing_off(self.now.instant));
        if backoff {
            // A write for it just failed: keep it out of the queues for a moment.
            m.requeue_blocked = true;
        }
        // After a failed write, nothing new is planned for it until the backoff passes (the
        // tick looks at it again then).
        if !backoff {
            self.evictions_and_requeues(key, &obj, &mut m);
        }
        if self.differs(key, &m) {
            tracing::debug!(workload = %key, "workload changed");
            // (A Workload without a book has nothing to clear: none is made for it.)
            if let Some(book) = self.m.wls.get_mut(key) {
                book.held_message = None;
                if m.admission.is_none() {
                    book.evicting = false;
                }
            }
            self.m.engine.upsert_workload(m);
            self.m.schedule = true;
            self.m.queues_dirty = true;
        } else if kept_version != version {
            self.m.engine.set_spec_version(key, version);
        }
        if backoff {
            return;
        }
        if let Some(book) = self.m.wls.get_mut(key) {
            book.synced_rv = super::book::rv(&*obj).unwrap_or(0);
        }
        if self.m.wls.get(key).is_none_or(|b| b.plan.is_none()) {
            self.blocked_reason(key);
        }
        // A Workload whose Job is gone (deleted: the garbage collector deletes the Workload
        // too) is handled like one without a Job.
        let job_gone = owner.as_ref().is_some_and(|j| {
            let uid = obj
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.kind == "Job")
                .map(|o| o.uid.clone());
            self.latest_job(j).is_none_or(|job| job.metadata.uid != uid)
        });
        if !job_gone && let Some(book) = self.m.wls.get_mut(key) {
            book.job_read = false;
        }
        if let Some(job) = owner.as_ref().filter(|_| job_gone)
            && obj.metadata.deletion_timestamp.is_none()
            && !self.m.wls.get(key).is_some_and(|b| b.job_read)
        {
            // Deleted (the garbage collector takes the Workload next) or unlabelled: ask.
            self.book(key).job_read = true;
            self.act(super::plan::Action::ReadJob {
                key: job.clone(),
                workload: key.clone(),
            });
        }
        if owner.is_none() || (job_gone && obj.metadata.deletion_timestamp.is_some()) {
            match policy::plain_workload_step(&obj) {
                PlainWorkloadStep::Nothing => {}
                PlainWorkloadStep::RemoveFinalizer => self.remove_finalizer(key),
                PlainWorkloadStep::Release => self.release(key),
            }
        }
    }

    /// The newest copy of a Workload to sync, with the engine's demand for it when that
    /// still holds: the engine has it (same UID) computed from the same spec generation and
    /// request context. The copy then comes without its pod sets (rebuilding them from the
    /// store is most of a read, and counting their requests most of a conversion). A
    /// finished Workload comes the same way, with no demand.
    fn latest_for_sync(
        &mut self,
        key: &WorkloadKey,
    ) -> Option<(Arc<Workload>, Option<WorkloadDemand>)> {
        let head = self.latest_head(key)?;
        // A finished Workload holds no quota and never queues again: the engine keeps who it
        // is and its queue (the finished counts), not its demand (its pod sets' requests, most
        // of a record; 50,000 finished ones at the end of upstream's large-scale shape). Its
        // head is enough, and the turn after a re-list syncs every one in the store.
        if head.is_finished() {
            return Some((head, Some(WorkloadDemand::default())));
        }
        let version = self.spec_version(&head);
        let uid = head.metadata.uid.as_deref().unwrap_or_default();
        let kept = self
            .m
            .engine
            .workload(key)
            // A finished record's demand is none (above), never to reuse: should `Finished`
            // go (an edit), the Workload is converted whole again.
            .filter(|w| {
                !w.finished && version.is_some() && w.uid == uid && w.spec_version == version
            })
            .map(WorkloadDemand::of);
        match kept {
            Some(demand) => Some((head, Some(demand))),
            None => self.latest_workload(key).map(|whole| (whole, None)),
        }
    }

    /// What a Workload's demand is computed from: its spec's generation and the request
    /// context (`None` without a generation: always computed).
    fn spec_version(&self, obj: &Workload) -> Option<(i64, u64)> {
        obj.metadata
            .generation
            .map(|g| (g, self.m.requests_version))
    }

    /// Evictions upstream's workload controller makes besides preemption, and their undoing
    /// ([`crate::policy::workload`]), as status writes.
    fn evictions_and_requeues(&mut self, key: &WorkloadKey, obj: &Workload, m: &mut Model) {
        let engine_admission: Option<Admission> = self
            .m
            .engine
            .workload(key)
            .and_then(|w| w.admission.clone());
        policy::hold_while_deactivated(obj, m, engine_admission.as_ref());
        if self.max_execution_time(key, obj) || self.pods_ready_timeout(key, obj, m) {
            return;
        }
        match policy::queue_transition(obj, &self.m.base, self.now.wall) {
            None => {}
            Some(QueueTransition::Evict(e)) => {
                tracing::info!(workload = %key, reason = e.reason, "evicting");
                let effects = eviction_effects(&e, obj, self.exposed_local_queue_of(obj));
                self.set_plan(key, StatusWrite::new(e.status, effects));
            }
            Some(QueueTransition::Requeue(r)) => {
                self.set_plan(key, StatusWrite::new(r.status, Vec::new()));
                // Queued once that is written.
                m.requeue_blocked = true;
            }
        }
    }

    /// Writes why a Workload that cannot even queue waits (missing LocalQueue, stopped or
    /// inactive ClusterQueue...), as upstream's workload controller does.
    fn blocked_reason(&mut self, key: &WorkloadKey) {
        let Some(Blocked {
            reason, message, ..
        }) = self.m.engine.blocked_reason(key)
        else {
            return;
        };
        if reason == PendingReason::Deactivated {
            return;
        }
        if self
            .pending_change(key, reason.as_str(), &message)
            .is_some()
        {
            self.plan_pending_words(key, reason.as_str(), &message);
        }
    }

    /// Does the converted Workload differ, in anything the scheduler reads, from the engine's?
    fn differs(&self, key: &WorkloadKey, m: &Model) -> bool {
        let engine = &self.m.engine;
        let Some(cur) = engine.workload(key) else {
            // A finished workload kept compact is known by its LocalQueue alone, the one
            // thing the engine reads of it.
            return !(m.finished && engine.is_finished_in(key, &m.queue_name));
        };
        let holding = |w: &Model| -> Option<Admission> {
            if w.finished || !w.active {
                None
            } else {
                w.admission.clone()
            }
        };
        let cur_evicted = engine.holding_queue(key).is_some() && engine.is_evicted(key);
        let new_evicted = m.admission.is_some() && m.evicted;
        (
            &m.uid,
            &m.queue_name,
            m.priority,
            m.queue_time,
            &m.pod_sets,
            m.active,
            m.finished,
            holding(m),
            m.requeue_blocked,
        ) != (
            &cur.uid,
            &cur.queue_name,
            cur.priority,
            cur.queue_time,
            &cur.pod_sets,
            cur.active,
            cur.finished,
            holding(cur),
            cur.requeue_blocked,
        ) || new_evicted != cur_evicted
            || m.reclaimable != cur.reclaimable
            || m.unsupported != cur.unsupported
            || m.invalid_requests != cur.invalid_requests
            || m.pods_ready != cur.pods_ready
            || (m.admission.is_some() && m.admitted != cur.admitted)
    }
}

/// An eviction's Event and `kueue_evicted_workloads_total` update.
pub(super) fn eviction_effects(
    e: &policy::Eviction,
    obj: &Workload,
    local_queue: Option<LocalQueueRef>,
) -> Vec<Effect> {
    let mut effects = vec![Effect::Event(EventText::normal(
        e.event_reason(),
        e.message.clone(),
    ))];
    if let Some(cluster_queue) = e.cluster_queue.clone() {
        effects.push(Effect::Metric(MetricUpdate::Evicted {
            cluster_queue,
            reason: e.reason.to_string(),
            underlying_cause: e.cause.clone(),
            priority_class: obj.spec.priority_class_name.clone().unwrap_or_default(),
            first: e.first,
            local_queue,
            pods_ready_seconds: super::measures::pods_ready_to_evicted(&e.status),
        }));
    }
    effects
}

#[cfg(test)]
mod tests {
    use super::tiebreak;

    #[test]
    fn tiebreak_reads_the_uid_as_hex() {
        assert_eq!(tiebreak("00000000-0000-0000-0000-000000000001"), 0);
        assert!(
            tiebreak("ffff0000-0000-0000-0000-000000000000")
                > tiebreak("0fff0000-0000-0000-0000-000000000000")
        );
        assert_eq!(tiebreak(""), 0);
    }
}
