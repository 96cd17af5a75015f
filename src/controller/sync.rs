//! Keeping the engine in step with the cluster, in proportion to what changed:
//! - queues, flavors, cohorts, namespaces and the configuration are converted with the same
//!   code `simulate` uses, and the engine is rebuilt only when that picture changed (status
//!   writes and unrelated edits leave it alone);
//! - each changed Workload is converted and upserted only when something the scheduler reads
//!   differs from what the engine holds (our own status writes echo back as no-ops).
//!
//! An object the conversion rejects (a quota that is not a quantity...) is left out with a
//! warning instead of stopping the controller.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::manifests::convert::{self, ConvertOptions};
use crate::manifests::{Inventory, Origin, Sourced};
use crate::scheduler::model::{Admission, Workload as Model};

use super::state::{Ctl, Plan, now_ms};
use crate::status;

fn sourced<T: Clone>(
    items: Vec<std::sync::Arc<T>>,
    kind: &str,
    order: &mut usize,
) -> Vec<Sourced<T>> {
    let mut out: Vec<Sourced<T>> = Vec::with_capacity(items.len());
    for obj in items {
        *order += 1;
        out.push(Sourced {
            obj: (*obj).clone(),
            origin: Origin {
                file: format!("cluster ({kind})"),
                document: *order,
                order: *order,
            },
        });
    }
    out
}

fn by_name<T: kube::Resource>(v: &mut [Sourced<T>]) {
    v.sort_by(|a, b| {
        (a.obj.meta().namespace.clone(), a.obj.meta().name.clone())
            .cmp(&(b.obj.meta().namespace.clone(), b.obj.meta().name.clone()))
    });
}

/// A stable tie-break from the UID (live objects have no document order).
pub fn tiebreak(uid: &str) -> u64 {
    let hex: String = uid
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .take(16)
        .collect();
    u64::from_str_radix(&hex, 16).unwrap_or(0)
}

impl Ctl {
    /// Re-reads queues, flavors, cohorts and namespaces; rebuilds the engine if they changed.
    pub fn sync_config(&mut self) {
        self.config_dirty = false;
        let mut order = 0;
        let mut inv = Inventory {
            flavors: sourced(self.stores.flavors.state(), "ResourceFlavor", &mut order),
            cohorts: sourced(self.stores.cohorts.state(), "Cohort", &mut order),
            cluster_queues: sourced(
                self.stores.cluster_queues.state(),
                "ClusterQueue",
                &mut order,
            ),
            local_queues: sourced(self.stores.local_queues.state(), "LocalQueue", &mut order),
            namespaces: sourced(self.stores.namespaces.state(), "Namespace", &mut order),
            config: self.config.clone().map(|c| Sourced {
                obj: c,
                origin: Origin {
                    file: "--config".into(),
                    document: 1,
                    order: 0,
                },
            }),
            ..Default::default()
        };
        by_name(&mut inv.flavors);
        by_name(&mut inv.cohorts);
        by_name(&mut inv.cluster_queues);
        by_name(&mut inv.local_queues);
        by_name(&mut inv.namespaces);
        let opts = ConvertOptions {
            now: now_ms(),
            strict_namespace_selector: self.cfg.strict_namespace_selector,
        };
        let mut rejected = BTreeSet::new();
        let converted = loop {
            match convert::convert(&inv, &opts) {
                Ok(c) => break c,
                Err(e) => {
                    let Some(object) = e.object.clone() else {
                        tracing::error!(error = %e, "cannot read the cluster's queues");
                        return;
                    };
                    if !rejected.insert(object.clone()) {
                        tracing::error!(error = %e, "cannot read the cluster's queues");
                        return;
                    }
                    // Said once per object and problem (queues are re-read on every change).
                    let report = format!("{object}: {e}");
                    if self.reported_invalid.insert(report) {
                        tracing::warn!(object = %object, error = %e, "ignoring an object the scheduler cannot use");
                    }
                    let name = object
                        .split_once(' ')
                        .map(|(_, n)| n.to_string())
                        .unwrap_or_default();
                    let is = |meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
                        let full = match &meta.namespace {
                            Some(ns) => format!("{ns}/{}", meta.name.as_deref().unwrap_or("")),
                            None => meta.name.clone().unwrap_or_default(),
                        };
                        full == name
                    };
                    match object.split_once(' ').map(|(k, _)| k) {
                        Some("ClusterQueue") => inv.cluster_queues.retain(|s| !is(&s.obj.metadata)),
                        Some("Cohort") => inv.cohorts.retain(|s| !is(&s.obj.metadata)),
                        Some("LocalQueue") => inv.local_queues.retain(|s| !is(&s.obj.metadata)),
                        Some("ResourceFlavor") => inv.flavors.retain(|s| !is(&s.obj.metadata)),
                        Some("Namespace") => inv.namespaces.retain(|s| !is(&s.obj.metadata)),
                        _ => {
                            tracing::error!(error = %e, "cannot read the cluster's queues");
                            return;
                        }
                    }
                }
            }
        };
        if converted.state == self.base {
            return;
        }
        tracing::info!(
            cluster_queues = converted.state.cluster_queues.len(),
            local_queues = converted.state.local_queues.len(),
            flavors = converted.state.flavors.len(),
            "queue configuration changed; rebuilding the scheduler's picture"
        );
        self.base = converted.state.clone();
        let all: Vec<String> = self
            .stores
            .workloads
            .state()
            .iter()
            .map(|w| crate::kube::watch::key_of(&**w))
            .collect();
        self.dirty_wls.extend(all);
        self.engine.set_cluster_config(converted.state);
        self.schedule = true;
        self.queues_dirty = true;
    }

    /// Brings one Workload into the engine (or out of it).
    pub fn sync_workload(&mut self, key: &str) {
        if let Some(b) = self.wls.get(key)
            && (b.busy || b.plan.is_some())
        {
            return;
        }
        let Some(obj) = self.latest_workload(key) else {
            if self.engine.remove_workload(key) {
                tracing::debug!(workload = key, "workload gone");
                self.schedule = true;
                self.queues_dirty = true;
            }
            self.wls.remove(key);
            self.owned.retain(|_, w| w != key);
            return;
        };
        let owner = Ctl::owner_job(&obj);
        if let Some(job) = &owner {
            self.owned.insert(job.clone(), key.to_string());
            self.dirty_jobs.insert(job.clone());
        }
        let origin = Origin {
            file: "cluster (Workload)".into(),
            document: 0,
            order: 0,
        };
        let uid = obj.metadata.uid.clone().unwrap_or_default();
        let mut m = match convert::workload(
            &origin,
            &obj,
            tiebreak(&uid),
            now_ms(),
            &self.cfg.exclude_resource_prefixes,
        ) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(workload = key, error = %e, "ignoring a Workload the scheduler cannot read");
                if self.engine.remove_workload(key) {
                    self.schedule = true;
                }
                return;
            }
        };
        let backoff = self
            .wls
            .get(key)
            .and_then(|b| b.retry_at)
            .is_some_and(|t| t > Instant::now());
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
            tracing::debug!(workload = key, "workload changed");
            if m.admission.is_none() {
                self.book(key).evicting = false;
            }
            self.engine.upsert_workload(m);
            self.schedule = true;
            self.queues_dirty = true;
        }
        if backoff {
            return;
        }
        if self.wls.get(key).is_none_or(|b| b.plan.is_none()) {
            self.blocked_reason(key, &obj);
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
        if owner.is_none() || (job_gone && obj.metadata.deletion_timestamp.is_some()) {
            self.plain_workload_lifecycle(key, &obj);
        }
    }

    /// Evictions upstream's workload controller makes besides preemption, and their undoing
    /// ([`crate::policy::workload`]), turned into status writes.
    fn evictions_and_requeues(&mut self, key: &str, obj: &crate::api::Workload, m: &mut Model) {
        use crate::policy::workload::{self as policy, QueueTransition};
        let engine_admission = self.engine.workload(key).and_then(|w| w.admission.clone());
        policy::hold_while_deactivated(obj, m, engine_admission.as_ref());
        match policy::queue_transition(obj, &self.base, now_ms()) {
            None => {}
            Some(QueueTransition::Evict(e)) => {
                tracing::info!(workload = key, reason = e.reason, "evicting");
                let mut effects = vec![super::state::Effect::WorkloadEvent(
                    false,
                    format!("EvictedDueTo{}", e.reason),
                    e.message.into(),
                )];
                if let Some(cq) = e.cluster_queue {
                    let pc = obj.spec.priority_class_name.clone().unwrap_or_default();
                    effects.push(super::state::Effect::EvictedFor(
                        cq,
                        e.reason.to_string(),
                        pc,
                        e.first,
                    ));
                }
                self.set_plan(
                    key,
                    Plan {
                        status: e.status,
                        effects,
                        admits: false,
                    },
                );
            }
            Some(QueueTransition::Requeue(r)) => {
                self.set_plan(
                    key,
                    Plan {
                        status: r.status,
                        effects: Vec::new(),
                        admits: false,
                    },
                );
                // Queued once that is written.
                m.requeue_blocked = true;
            }
        }
    }

    /// Writes why a Workload that cannot even queue waits (missing LocalQueue, stopped or
    /// inactive ClusterQueue...), as upstream's workload controller does.
    fn blocked_reason(&mut self, key: &str, obj: &crate::api::Workload) {
        use crate::scheduler::PendingReason;
        let Some((reason, message, _)) = self.engine.blocked_reason(key) else {
            return;
        };
        if reason == PendingReason::Deactivated {
            return;
        }
        let Some(model) = self.engine.workload(key).cloned() else {
            return;
        };
        let before = obj.status.clone().unwrap_or_default();
        let mut st = before.clone();
        status::pending(&mut st, reason.as_str(), &message, &model, now_ms());
        if !status::same_ignoring_times(&before, &st) {
            let effects = vec![super::state::Effect::WorkloadEvent(
                true,
                reason.as_str().to_string(),
                message,
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
    }

    /// Does the converted Workload differ, in anything the scheduler reads, from the engine's?
    fn differs(&self, key: &str, m: &Model) -> bool {
        let Some(cur) = self.engine.workload(key) else {
            return true;
        };
        let holding = |w: &Model| -> Option<Admission> {
            if w.finished || !w.active {
                None
            } else {
                w.admission.clone()
            }
        };
        let cur_evicted = self.engine.holding_queue(key).is_some() && self.engine.is_evicted(key);
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
            || (m.admission.is_some() && m.admitted != cur.admitted)
    }

    /// Workloads created directly (no Job): there are no pods to wait for, so an evicted one
    /// gives its quota back at once, and one being deleted loses our finalizer at once.
    fn plain_workload_lifecycle(&mut self, key: &str, obj: &crate::api::Workload) {
        use crate::policy::workload::{PlainWorkloadStep, plain_workload_step};
        match plain_workload_step(obj) {
            PlainWorkloadStep::Nothing => {}
            PlainWorkloadStep::RemoveFinalizer => self.remove_finalizer(key),
            PlainWorkloadStep::Release => self.release(key),
        }
    }

    /// Clears an evicted Workload's reservation (its pods are gone). The engine gives the
    /// quota back once that is written, so nobody is ever seen admitted into capacity the
    /// API server still shows as reserved.
    pub fn release(&mut self, key: &str) {
        let Some(w) = self.effective_workload(key) else {
            return;
        };
        let mut st = w.status.clone().unwrap_or_default();
        status::release(&mut st, now_ms());
        let effects = vec![super::state::Effect::EngineRelease];
        self.set_plan(
            key,
            Plan {
                status: st,
                effects,
                admits: false,
            },
        );
        self.book(key).evicting = false;
    }

    /// Finishes a Workload (its Job completed, failed, or cannot start); its quota returns
    /// to the engine once `Finished` is written.
    pub fn finish(&mut self, key: &str, reason: &str, message: &str, job_event: Option<String>) {
        let Some(w) = self.effective_workload(key) else {
            return;
        };
        let cq = w
            .status
            .as_ref()
            .and_then(|s| s.admission.as_ref())
            .map(|a| a.cluster_queue.clone());
        let mut st = w.status.clone().unwrap_or_default();
        status::finish(&mut st, reason, message, now_ms());
        let mut effects = vec![super::state::Effect::EngineFinish(reason.to_string())];
        if let Some(note) = job_event {
            effects.push(super::state::Effect::JobEvent(
                "FinishedWorkload".into(),
                note,
            ));
        }
        if let Some(cq) = cq {
            effects.push(super::state::Effect::Finished(cq));
        }
        effects.push(super::state::Effect::RemoveFinalizer);
        self.set_plan(
            key,
            Plan {
                status: st,
                effects,
                admits: false,
            },
        );
    }

    /// Queues a status write, merging with one not yet sent.
    pub fn set_plan(&mut self, key: &str, mut plan: Plan) {
        let book = self.book(key);
        if let Some(old) = book.plan.take() {
            let mut effects = old.effects;
            effects.append(&mut plan.effects);
            plan.effects = effects;
            plan.admits |= old.admits;
        }
        book.plan = Some(plan);
        self.planned.insert(key.to_string());
    }
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
