//! The scheduling loop: scheduling cycles over the engine, each decision turned into a
//! Workload status write (issued concurrently, never awaited here) and, on success, the
//! Events and metrics upstream records.
//!
//! Cycles run, only after something changed, while they make progress: something admitted, a
//! new eviction issued, or a workload not yet looked at evaluated (so every pending workload
//! gets its reason, as upstream's loop pops every head in turn). An admitted workload holds its quota in the engine from the
//! moment of the decision; evicted ones keep theirs until their pods are gone.

use std::time::Instant;

use crate::scheduler::Decision;
use crate::scheduler::decision::Target;

use super::events;
use super::state::{Ctl, Effect, Plan, now_ms};
use crate::status;

/// Upper bound of cycles per loop turn, so watch events are never starved.
const MAX_CYCLES_PER_TURN: usize = 64;

impl Ctl {
    pub fn schedule(&mut self) {
        if !self.schedule {
            return;
        }
        self.schedule = false;
        // Workloads already evaluated in this run: a cycle that only meets them again (a
        // StrictFIFO head, a preemptor waiting for its victims) ends the run.
        let mut seen = std::collections::BTreeSet::new();
        for turn in 0.. {
            if turn == MAX_CYCLES_PER_TURN {
                self.schedule = true;
                break;
            }
            let now = now_ms();
            let started = Instant::now();
            let outcome = self.engine.run_cycle(now);
            if outcome.decisions.is_empty() {
                break;
            }
            let admitted_any = outcome.admitted().next().is_some();
            self.metrics
                .admission_attempt(admitted_any, started.elapsed().as_secs_f64());
            self.queues_dirty = true;
            let mut progress = admitted_any;
            for d in &outcome.decisions {
                progress |= seen.insert(d.workload.clone());
            }
            for d in outcome.decisions {
                match d.decision {
                    Decision::Admitted { cluster_queue, .. } => {
                        self.plan_admission(&d.workload, &cluster_queue, now)
                    }
                    Decision::Preempting {
                        cluster_queue,
                        targets,
                        message,
                        ..
                    } => {
                        self.plan_pending(
                            &d.workload,
                            "WaitingForPreemptedWorkloads",
                            &message,
                            now,
                        );
                        for t in &targets {
                            progress |= self.plan_eviction(&d.workload, &cluster_queue, t, now);
                        }
                    }
                    Decision::Pending {
                        reason, message, ..
                    } => self.plan_pending(&d.workload, reason.as_str(), &message, now),
                }
            }
            if !progress {
                break;
            }
        }
    }

    fn plan_admission(&mut self, key: &str, cluster_queue: &str, now: i64) {
        let Some(adm) = self.engine.workload(key).and_then(|w| w.admission.clone()) else {
            return;
        };
        let Some(w) = self.effective_workload(key) else {
            return;
        };
        let wait = status::queued_wait_seconds(&w, now);
        let priority_class = w.spec.priority_class_name.clone().unwrap_or_default();
        let mut st = w.status.clone().unwrap_or_default();
        status::admit(&mut st, &adm, now);
        tracing::info!(
            workload = key,
            cluster_queue,
            wait_seconds = wait,
            "quota reserved"
        );
        let effects = vec![
            Effect::WorkloadEvent(
                false,
                "QuotaReserved".into(),
                events::quota_reserved(cluster_queue, wait),
            ),
            Effect::WorkloadEvent(false, "Admitted".into(), events::admitted(cluster_queue)),
            Effect::Admitted(cluster_queue.to_string(), priority_class, wait),
        ];
        self.book(key).evicting = false;
        self.set_plan(
            key,
            Plan {
                status: st,
                effects,
                admits: true,
            },
        );
    }

    /// `QuotaReserved=False` with this reason and message, when that changes anything.
    fn plan_pending(&mut self, key: &str, reason: &str, message: &str, now: i64) {
        let Some(model) = self.engine.workload(key).cloned() else {
            return;
        };
        let Some(w) = self.effective_workload(key) else {
            return;
        };
        let before = w.status.clone().unwrap_or_default();
        let mut st = before.clone();
        status::pending(&mut st, reason, message, &model, now);
        if status::same_ignoring_times(&before, &st) {
            return;
        }
        tracing::debug!(workload = key, reason, message, "pending");
        let effects = vec![Effect::WorkloadEvent(
            true,
            reason.to_string(),
            message.to_string(),
        )];
        self.set_plan(
            key,
            Plan {
                status: st,
                effects,
                admits: false,
            },
        );
    }

    /// Evicts one preemption target, unless that is already under way. Returns whether a new
    /// eviction was issued.
    fn plan_eviction(&mut self, preemptor: &str, preemptor_cq: &str, t: &Target, now: i64) -> bool {
        let book = self.book(&t.workload);
        if book.evicting || book.retry_at.is_some_and(|r| r > Instant::now()) {
            return false;
        }
        let Some(victim) = self.effective_workload(&t.workload) else {
            return false;
        };
        let already = victim
            .status
            .as_ref()
            .is_some_and(|s| s.condition_is_true(crate::api::workload_status::condition::EVICTED));
        self.book(&t.workload).evicting = true;
        if already {
            return false;
        }
        let preemptor_priority = self.engine.workload(preemptor).map_or(0, |w| w.priority);
        let priority_class = victim.spec.priority_class_name.clone().unwrap_or_default();
        let mut st = victim.status.clone().unwrap_or_default();
        let first = status::evict(&mut st, t.reason, &t.message, now);
        tracing::info!(
            workload = t.workload,
            preemptor,
            reason = t.reason.as_str(),
            "preempting"
        );
        let uid = victim.metadata.uid.clone().unwrap_or_default();
        let mut effects = vec![
            Effect::WorkloadEvent(false, "EvictedDueToPreempted".into(), t.message.clone()),
            Effect::WorkloadEvent(
                false,
                "Preempted".into(),
                events::preempted(&t.message, preemptor_priority, t.priority),
            ),
            Effect::OtherWorkloadEvent(
                preemptor.to_string(),
                "PreemptedWorkload".into(),
                events::preempted_workload(
                    &t.workload,
                    &uid,
                    &t.cluster_queue,
                    preemptor_priority,
                    t.priority,
                ),
            ),
            Effect::Evicted(
                t.cluster_queue.clone(),
                priority_class,
                first,
                preemptor_cq.to_string(),
                t.reason,
            ),
        ];
        if Ctl::owner_job(&victim).is_none() {
            effects.push(Effect::ReleaseNow);
        }
        self.set_plan(
            &t.workload,
            Plan {
                status: st,
                effects,
                admits: false,
            },
        );
        true
    }
}
