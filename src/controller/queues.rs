//! ClusterQueue and LocalQueue status (flavorsReservation, flavorsUsage, counts, `Active`),
//! built by the same functions `simulate -o yaml` uses and written by server-side apply when
//! it changed, plus the queue gauges of `/metrics`.
//!
//! Recomputed at most every [`MIN_INTERVAL`] while things change (the loop's tick flushes
//! the last change), so a burst of admissions costs a few status writes, not one each.

use std::time::{Duration, Instant};

use crate::kube::watch::key_of;
use crate::metrics::{QueueState, ResourceState};
use crate::scheduler::quantity::{UNLIMITED, is_milli_resource};
use crate::status::{cluster_queue_with_status, local_queue_with_status, same_ignoring_times};

use super::Msg;
use super::state::{Ctl, now_ms};

pub const MIN_INTERVAL: Duration = Duration::from_millis(250);

fn reported(resource: &str, v: i64) -> f64 {
    if v == UNLIMITED {
        return f64::INFINITY;
    }
    if is_milli_resource(resource) {
        v as f64 / 1000.0
    } else {
        v as f64
    }
}

impl Ctl {
    pub fn update_queues(&mut self) {
        if !self.queues_dirty {
            return;
        }
        if self
            .queues_written_at
            .is_some_and(|t| t.elapsed() < MIN_INTERVAL)
        {
            return;
        }
        self.queues_dirty = false;
        self.queues_written_at = Some(Instant::now());
        let now = now_ms();
        self.update_gauges();
        for cq in self.stores.cluster_queues.state() {
            let name = key_of(&*cq);
            if self.busy_queues.contains(&name) {
                self.queues_dirty = true;
                continue;
            }
            let desired = cluster_queue_with_status(&cq, &self.engine, now)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&cq.status.clone().unwrap_or_default(), &desired) {
                continue;
            }
            self.busy_queues.insert(name.clone());
            let writer = self.writer.clone();
            self.spawn(async move {
                let r = writer.apply_cluster_queue_status(&name, &desired).await;
                if let Err(e) = &r {
                    tracing::debug!(cluster_queue = name, error = %e, "could not write ClusterQueue status");
                }
                Some(Msg::QueueWritten { key: name, ok: r.is_ok() })
            });
        }
        for lq in self.stores.local_queues.state() {
            let key = key_of(&*lq);
            if self.busy_queues.contains(&key) {
                self.queues_dirty = true;
                continue;
            }
            let desired = local_queue_with_status(&lq, &self.engine, now)
                .status
                .unwrap_or_default();
            if same_ignoring_times(&lq.status.clone().unwrap_or_default(), &desired) {
                continue;
            }
            self.busy_queues.insert(key.clone());
            let writer = self.writer.clone();
            let (ns, name) = (
                lq.metadata.namespace.clone().unwrap_or_default(),
                lq.metadata.name.clone().unwrap_or_default(),
            );
            self.spawn(async move {
                let r = writer.apply_local_queue_status(&ns, &name, &desired).await;
                if let Err(e) = &r {
                    tracing::debug!(local_queue = key, error = %e, "could not write LocalQueue status");
                }
                Some(Msg::QueueWritten { key, ok: r.is_ok() })
            });
        }
    }

    pub fn on_queue_written(&mut self, key: String, _ok: bool) {
        self.busy_queues.remove(&key);
        // Re-check: the state may have moved on while the write was in flight (and a failed
        // write is retried).
        self.queues_dirty = true;
    }

    fn update_gauges(&self) {
        let pending = self.engine.pending_counts();
        let states: Vec<QueueState> = self
            .engine
            .cluster_queues()
            .into_iter()
            .map(|v| {
                let counts = pending.iter().find(|p| p.cluster_queue == v.name);
                QueueState {
                    cohort: v.cohort.clone().unwrap_or_default(),
                    active: v.inactive.is_none(),
                    pending_active: counts.map_or(0, |c| c.active as i64),
                    pending_inadmissible: counts.map_or(0, |c| c.inadmissible as i64),
                    reserving: v.reserving as i64,
                    admitted: v.admitted as i64,
                    resources: v
                        .usage
                        .iter()
                        .map(|u| ResourceState {
                            flavor: u.flavor.clone(),
                            resource: u.resource.clone(),
                            nominal: reported(&u.resource, u.nominal),
                            borrowing_limit: u
                                .borrowing_limit
                                .map_or(f64::INFINITY, |b| reported(&u.resource, b)),
                            lending_limit: u
                                .lending_limit
                                .map_or(f64::INFINITY, |b| reported(&u.resource, b)),
                            reservation: reported(&u.resource, u.reserved),
                            usage: reported(&u.resource, u.admitted),
                        })
                        .collect(),
                    cluster_queue: v.name,
                }
            })
            .collect();
        self.metrics.set_queue_state(&states);
    }
}

#[cfg(test)]
mod tests {
    use super::reported;

    #[test]
    fn cpu_in_cores_unlimited_as_inf() {
        assert_eq!(reported("cpu", 1500), 1.5);
        assert_eq!(reported("nvidia.com/gpu", 4), 4.0);
        assert!(reported("memory", crate::scheduler::quantity::UNLIMITED).is_infinite());
    }
}
