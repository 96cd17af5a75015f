//! The I/O half of leader election: a thin loop that reads the Lease, asks
//! [`decide`](super::decide::decide) what to do, and performs it with a create or a replace
//! guarded by the `resourceVersion` it read (client-go's way: of several candidates writing
//! over the same version, the API server accepts exactly one).
//!
//! Invariants: every request is bounded by the lock's request timeout, and a leader's attempt
//! also by its renew deadline; the fence is extended only after a write the API server
//! accepted, from the instant the attempt started; when the deadline passes the fence is
//! closed before anyone is told.

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, PostParams};
use tokio::sync::watch;

use super::decide::{JITTER_FACTOR, Memory, Read, Record, Step, Timings, decide, past_deadline};
use super::fence::Fence;

/// How an election ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Stopped on request (the Lease handed back if this replica held it).
    Stopped,
    /// Could not renew within the renew deadline, or someone else took the Lease.
    Lost,
}

pub(super) struct Elector {
    pub api: Api<Lease>,
    pub name: String,
    pub identity: String,
    pub timings: Timings,
    pub fence: Fence,
    pub leader: watch::Sender<bool>,
}

/// Field managers are at most 128 characters.
fn field_manager(identity: &str) -> String {
    identity.chars().take(128).collect()
}

fn now_micro() -> MicroTime {
    MicroTime(k8s_openapi::jiff::Timestamp::now())
}

fn record(lease: &Lease, default_duration: Duration) -> Record {
    let spec = lease.spec.clone().unwrap_or_default();
    Record {
        holder: spec.holder_identity.unwrap_or_default(),
        lease_duration: spec
            .lease_duration_seconds
            .filter(|s| *s > 0)
            .map(|s| Duration::from_secs(s as u64))
            .unwrap_or(default_duration),
        version: lease.metadata.resource_version.clone().unwrap_or_default(),
    }
}

/// A retry period stretched by up to 20 %, so followers do not retry in lockstep.
fn jittered(period: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let unit = f64::from(nanos % 1000) / 1000.0;
    period.mul_f64(1.0 + unit * (JITTER_FACTOR - 1.0))
}

impl Elector {
    fn params(&self) -> PostParams {
        PostParams {
            field_manager: Some(field_manager(&self.identity)),
            ..Default::default()
        }
    }

    fn lease_seconds(&self) -> i32 {
        self.timings.lease_duration.as_secs().max(1) as i32
    }

    /// Until stopped or lost.
    pub async fn run(self, mut stop: watch::Receiver<bool>) -> Ended {
        let t = self.timings;
        let mut memory = Memory::default();
        let mut ours: Option<Lease> = None;
        loop {
            if *stop.borrow() {
                break;
            }
            let started = Instant::now();
            let renewed = memory.renewed;
            let attempt = self.attempt(&mut memory, started);
            let outcome = match renewed {
                // A leader's attempt never outlives its deadline.
                Some(renewed) => {
                    let left = (renewed + t.renew_deadline).saturating_duration_since(started);
                    tokio::time::timeout(left, attempt).await.ok()
                }
                None => Some(attempt.await),
            };
            match outcome {
                Some(Ok(Some(lease))) => ours = Some(lease),
                Some(Ok(None)) | None => {}
                Some(Err(Ended::Lost)) => return self.lost(),
                Some(Err(Ended::Stopped)) => break,
            }
            if let Some(renewed) = memory.renewed
                && past_deadline(renewed, Instant::now(), &t)
            {
                return self.lost();
            }
            let wait = if memory.leading() {
                t.retry_period
            } else {
                jittered(t.retry_period)
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = stop.wait_for(|s| *s) => break,
            }
        }
        if memory.leading() {
            self.release(ours).await;
        }
        Ended::Stopped
    }

    fn lost(&self) -> Ended {
        self.fence.close();
        let _ = self.leader.send(false);
        tracing::error!(identity = %self.identity, lease = %self.name, renew_deadline = ?self.timings.renew_deadline, "leader election lost: could not renew the lease within the renew deadline, or another replica holds it");
        Ended::Lost
    }

    /// One read and, if the decision says so, one write. `Ok(Some(lease))`: this replica
    /// holds the Lease as returned by the API server.
    async fn attempt(&self, memory: &mut Memory, started: Instant) -> Result<Option<Lease>, Ended> {
        let rt = self.timings.request_timeout();
        let (read, current) = match tokio::time::timeout(rt, self.api.get_opt(&self.name)).await {
            Ok(Ok(Some(l))) => (
                Read::Found(record(&l, self.timings.lease_duration)),
                Some(l),
            ),
            Ok(Ok(None)) => (Read::Missing, None),
            Ok(Err(e)) => {
                tracing::warn!(lease = %self.name, error = %e, "cannot read the leader-election Lease");
                (Read::Failed, None)
            }
            Err(_) => {
                tracing::warn!(lease = %self.name, timeout = ?rt, "reading the leader-election Lease timed out");
                (Read::Failed, None)
            }
        };
        memory.observe(&read, Instant::now());
        let step = decide(&read, &self.identity, memory, Instant::now(), &self.timings);
        let now = now_micro();
        let write = match step {
            Step::Wait => return Ok(None),
            Step::Lost => return Err(Ended::Lost),
            Step::Create => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.name.clone()),
                        ..Default::default()
                    },
                    spec: Some(LeaseSpec {
                        holder_identity: Some(self.identity.clone()),
                        lease_duration_seconds: Some(self.lease_seconds()),
                        acquire_time: Some(now.clone()),
                        renew_time: Some(now),
                        lease_transitions: Some(0),
                        ..Default::default()
                    }),
                };
                tokio::time::timeout(rt, self.api.create(&self.params(), &lease)).await
            }
            Step::Acquire | Step::Renew => {
                let mut lease = current.unwrap_or_default();
                let spec = lease.spec.get_or_insert_with(Default::default);
                if step == Step::Acquire {
                    spec.acquire_time = Some(now.clone());
                    spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
                }
                spec.holder_identity = Some(self.identity.clone());
                spec.lease_duration_seconds = Some(self.lease_seconds());
                spec.renew_time = Some(now);
                tokio::time::timeout(rt, self.api.replace(&self.name, &self.params(), &lease)).await
            }
        };
        match write {
            Ok(Ok(lease)) => {
                let first = !memory.leading();
                memory.renewed = Some(started);
                memory.observed = Some((
                    lease.metadata.resource_version.clone().unwrap_or_default(),
                    Instant::now(),
                ));
                self.fence.extend(started + self.timings.renew_deadline);
                if first {
                    let _ = self.leader.send(true);
                }
                Ok(Some(lease))
            }
            Ok(Err(kube::Error::Api(s))) if s.code == 409 => {
                tracing::debug!(lease = %self.name, "another candidate wrote the Lease first");
                Ok(None)
            }
            Ok(Err(e)) => {
                tracing::warn!(lease = %self.name, error = %e, step = ?step, "cannot write the leader-election Lease");
                Ok(None)
            }
            Err(_) => {
                tracing::warn!(lease = %self.name, timeout = ?rt, step = ?step, "writing the leader-election Lease timed out");
                Ok(None)
            }
        }
    }

    /// Hands the Lease back (empty holder, 1 s duration) so a follower takes over at once; only
    /// over the version this replica last wrote, so a Lease someone else took stays theirs.
    async fn release(&self, ours: Option<Lease>) {
        let still_ours = self.fence.check().is_ok();
        self.fence.close();
        let _ = self.leader.send(false);
        let Some(mut lease) = ours.filter(|_| still_ours) else {
            return;
        };
        let now = now_micro();
        let spec = lease.spec.get_or_insert_with(Default::default);
        spec.holder_identity = Some(String::new());
        spec.lease_duration_seconds = Some(1);
        spec.acquire_time = Some(now.clone());
        spec.renew_time = Some(now);
        let rt = self.timings.request_timeout();
        match tokio::time::timeout(rt, self.api.replace(&self.name, &self.params(), &lease)).await {
            Ok(Ok(_)) => tracing::info!(lease = %self.name, "released the leader-election lease"),
            Ok(Err(e)) => {
                tracing::warn!(lease = %self.name, error = %e, "could not release the leader-election lease")
            }
            Err(_) => {
                tracing::warn!(lease = %self.name, "releasing the leader-election lease timed out")
            }
        }
    }
}
