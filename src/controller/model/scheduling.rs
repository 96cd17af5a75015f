//! Scheduling cycles over the engine, each decision turned into a Workload status write
//! (sent by the shell concurrently, never awaited by the loop) and, on success, the Events and
//! metrics upstream records.
//!
//! Cycles run, only after something changed, while they make progress: something admitted, a
//! new eviction issued, or a workload not yet looked at evaluated (so every pending workload
//! gets its reason, as upstream's loop pops every head in turn). An admitted workload holds
//! its quota in the engine from the moment of the decision; evicted ones keep theirs until
//! their pods are gone.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::metrics::MetricUpdate;
use crate::scheduler::Decision;
use crate::scheduler::decision::Target;
use crate::scheduler::key::WorkloadKey;
use crate::status;

use super::book::{HeldMessage, PENDING_REFRESH};
use super::events;
use super::plan::{Effect, EventText, StatusWrite};
use super::{Ctx, owner_job};

/// Upper bound of cycles per loop turn, so watch events are never starved.
const MAX_CYCLES_PER_TURN: usize = 64;

impl Ctx<'_> {
    pub(super) fn schedule(&mut self) {
        if !self.m.schedule {
            return;
        }
        self.m.schedule = false;
        let now = self.now.wall;
        // Workloads already evaluated in this run: a cycle that only meets them again (a
        // StrictFIFO head, a preemptor waiting for its victims) ends the run. With each, the
        // victims of its last `Preempting` decision: the engine shares a kept decision
        // between cycles, and handling it again within the run changes nothing (nothing
        // outside the run's own plans changed in between), so it is handled once.
        let mut seen: HashMap<WorkloadKey, Option<Arc<[Target]>>> = HashMap::new();
        for turn in 0.. {
            if turn == MAX_CYCLES_PER_TURN {
                self.m.schedule = true;
                break;
            }
            // Only measured, never decided on: the attempt-duration histogram.
            let started = Instant::now();
            let mut outcome = self.m.engine.run_cycle(now);
            if outcome.decisions.is_empty() {
                break;
            }
            let admitted_any = outcome.admitted().next().is_some();
            self.m.admitting_cycles += u64::from(admitted_any);
            if !outcome.preemption_skips.is_empty() {
                let skips = std::mem::take(&mut outcome.preemption_skips);
                self.metric(MetricUpdate::PreemptionSkips(skips.into_iter().collect()));
            }
            self.metric(MetricUpdate::AdmissionAttempt {
                admitted: admitted_any,
                seconds: started.elapsed().as_secs_f64(),
            });
            self.m.queues_dirty = true;
            let mut progress = admitted_any;
            for d in outcome.decisions {
                let key = d.workload;
                let targets = match &d.decision {
                    Decision::Preempting { targets, .. } => Some(targets.clone()),
                    _ => None,
                };
                let handled = match seen.get_mut(&key) {
                    Some(before) => {
                        let same =
                            matches!((&*before, &targets), (Some(b), Some(t)) if Arc::ptr_eq(b, t));
                        *before = targets;
                        same
                    }
                    None => {
                        progress = true;
                        seen.insert(key.clone(), targets);
                        false
                    }
                };
                if handled {
                    continue;
                }
                match d.decision {
                    Decision::Admitted { cluster_queue, .. } => {
                        self.plan_admission(&key, &cluster_queue)
                    }
                    Decision::Preempting {
                        cluster_queue,
                        targets,
                        message,
                        ..
                    } => {
                        self.plan_pending(&key, "WaitingForPreemptedWorkloads", &message);
                        for t in targets.iter() {
                            progress |= self.plan_eviction(&key, &cluster_queue, t);
                        }
                    }
                    Decision::Pending {
                        reason, message, ..
                    } => self.plan_pending(&key, reason.as_str(), &message),
                }
            }
            if !progress {
                break;
            }
        }
    }

    fn plan_admission(&mut self, key: &WorkloadKey, cluster_queue: &str) {
        let now = self.now.wall;
        let Some(adm) = self
            .m
            .engine
            .workload(key)
            .and_then(|w| w.admission.clone())
        else {
            return;
        };
        let Some(w) = self.effective_head(key) else {
            return;
        };
        let wait = status::queued_wait_seconds(&w, now);
        let priority_class = w.spec.priority_class_name.clone().unwrap_or_default();
        let local_queue = self.exposed_local_queue_of(&w);
        let cohorts = self.m.engine.cohorts_above(cluster_queue);
        let mut st = w.status.clone().unwrap_or_default();
        status::admit(&mut st, &adm, now);
        tracing::info!(
            workload = %key,
            cluster_queue,
            wait_seconds = wait,
            "quota reserved"
        );
        let effects = vec![
            Effect::Event(EventText::normal(
                "QuotaReserved",
                events::quota_reserved(cluster_queue, wait),
            )),
            Effect::Event(EventText::normal(
                "Admitted",
                events::admitted(cluster_queue),
            )),
            Effect::Metric(MetricUpdate::Admitted {
                cluster_queue: cluster_queue.to_string(),
                priority_class,
                wait_seconds: wait,
                local_queue,
                cohorts,
            }),
        ];
        self.book(key).evicting = false;
        self.set_plan(
            key,
            StatusWrite {
                admits: true,
                ..StatusWrite::new(st, effects)
            },
        );
    }

    /// `QuotaReserved=False` with this reason and message, when that changes anything. Asked
    /// of every workload a cycle looks at, so it clones nothing unless it writes. New words
    /// for the same reason wait for [`PENDING_REFRESH`] since the last pending write.
    pub(super) fn plan_pending(&mut self, key: &WorkloadKey, reason: &str, message: &str) {
        let now = self.now.instant;
        let Some(words_only) = self.pending_change(key, reason, message) else {
            if let Some(b) = self.m.wls.get_mut(key) {
                b.held_message = None;
            }
            return;
        };
        // New words of the same reason within the refresh are held back, without building
        // the status they would write.
        let hold_until = self.m.wls.get(key).and_then(|b| {
            let at = b.pending_planned_at? + PENDING_REFRESH;
            (words_only && b.plan.is_none() && now < at).then_some(at)
        });
        if let Some(at) = hold_until {
            self.hold_message(key, reason, message, at);
            return;
        }
        self.book(key).pending_planned_at = Some(now);
        tracing::debug!(workload = %key, reason, message, "pending");
        self.plan_pending_words(key, reason, message);
    }

    /// Keeps the newest held words for `at`, its wakeup set once.
    fn hold_message(&mut self, key: &WorkloadKey, reason: &str, message: &str, at: Instant) {
        let book = self.book(key);
        match &mut book.held_message {
            Some(held) if held.at == at => {
                // The words change often while the reason holds: reuse the buffers.
                if held.reason != reason {
                    held.reason.clear();
                    held.reason.push_str(reason);
                }
                if held.message != message {
                    held.message.clear();
                    held.message.push_str(message);
                }
            }
            held => {
                *held = Some(Box::new(HeldMessage {
                    reason: reason.to_string(),
                    message: message.to_string(),
                    at,
                }));
                self.wake(key, at);
            }
        }
    }

    /// Evicts one preemption target, unless that is already under way. Returns whether a new
    /// eviction was issued.
    fn plan_eviction(&mut self, preemptor: &WorkloadKey, preemptor_cq: &str, t: &Target) -> bool {
        let now = self.now;
        // While a refused write's Workload is read back, its copy is the one the API server
        // refused: nothing is decided on it (the victim may have finished meanwhile). One
        // lookup: a preemptor waiting for its victims names them again in every cycle.
        let under_way =
            |b: &super::book::WlBook| b.evicting || b.conflict_read || b.backing_off(now.instant);
        if self.m.wls.get(&t.workload).is_some_and(under_way) {
            return false;
        }
        let victim_key = t.workload.clone();
        let Some(victim) = self.effective_head(&victim_key) else {
            return false;
        };
        let already = victim
            .status
            .as_ref()
            .is_some_and(|s| s.condition_is_true(crate::api::workload_status::condition::EVICTED));
        self.book(&victim_key).evicting = true;
        if already {
            return false;
        }
        let preemptor_priority = self.m.engine.workload(preemptor).map_or(0, |w| w.priority);
        let priority_class = victim.spec.priority_class_name.clone().unwrap_or_default();
        let local_queue = self.exposed_local_queue_of(&victim);
        let mut st = victim.status.clone().unwrap_or_default();
        let first = status::evict(&mut st, t.reason, &t.message, now.wall);
        tracing::info!(
            workload = %t.workload,
            preemptor = %preemptor,
            reason = t.reason.as_str(),
            "preempting"
        );
        let uid = victim.metadata.uid.clone().unwrap_or_default();
        let mut effects = vec![
            Effect::Event(EventText::normal(
                "EvictedDueToPreempted",
                t.message.clone(),
            )),
            Effect::Event(EventText::normal(
                "Preempted",
                events::preempted(&t.message, preemptor_priority, t.priority),
            )),
            Effect::EventOn {
                workload: preemptor.clone(),
                text: EventText::normal(
                    "PreemptedWorkload",
                    events::preempted_workload(
                        &t.workload.to_string(),
                        &uid,
                        &t.cluster_queue,
                        preemptor_priority,
                        t.priority,
                    ),
                ),
            },
            Effect::Metric(MetricUpdate::Evicted {
                cluster_queue: t.cluster_queue.clone(),
                reason: "Preempted".to_string(),
                underlying_cause: String::new(),
                priority_class,
                first,
                local_queue,
                pods_ready_seconds: super::measures::pods_ready_to_evicted(&st),
            }),
            Effect::Metric(MetricUpdate::Preempted {
                preempting_cluster_queue: preemptor_cq.to_string(),
                reason: t.reason.as_str().to_string(),
            }),
        ];
        if owner_job(&victim).is_none() {
            // No pods to wait for: the eviction and the release in one write (the final
            // status two writes would give, one request fewer per preemption).
            status::release(&mut st, now.wall);
            effects.push(Effect::ReleaseQuota);
        }
        self.set_plan(&victim_key, StatusWrite::new(st, effects));
        true
    }
}
