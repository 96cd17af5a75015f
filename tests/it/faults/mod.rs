//! Fault tests on the real control plane, each with the invariant checker on
//! ([`crate::support::invariants`]) and the final check that every Job ran to completion
//! exactly once:
//! - [`controller_kills`]: the controller SIGKILLed 50 times at random moments of a busy run;
//! - [`control_plane`]: kube-apiserver restarted, etcd restarted, and kube-apiserver stopped
//!   (SIGSTOP) for longer than the lease, then continued, during one run;
//! - [`leader_terms`]: two and three replicas, the leader SIGKILLed, SIGSTOPped past its
//!   lease and replaced in a rolling update; the API server's audit log shows no two replicas
//!   writing in overlapping terms;
//! - [`admin_edits`]: a quota lowered below what runs, a flavor and a queue deleted while
//!   their Jobs run: nothing evicted, nothing admitted beyond the quota, each Job run once;
//! - [`soak`] (a short one in the suite; the long one ignored, a documented command): 50,000 Workloads through 200 ClusterQueues with
//!   churn, the controller's memory and CPU sampled.
//!
//! The shared run (queues, Jobs, the supervisor that restarts the controller) is
//! [`scenario`]. `KUEUE_FAULTS_SEED` replays a run's random choices.
#![cfg(feature = "cli")]

mod admin_edits;
mod control_plane;
mod controller_kills;
mod leader_terms;
mod scenario;
mod soak;
