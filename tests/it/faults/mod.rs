//! Fault tests on the real control plane, each with the invariant checker on
//! ([`crate::support::invariants`]) and the final check that every Job ran to completion
//! exactly once:
//! - [`controller_kills`]: the controller SIGKILLed 50 times at random moments of a busy run;
//! - [`control_plane`]: kube-apiserver restarted, etcd restarted, and kube-apiserver stopped
//!   (SIGSTOP) for longer than the lease, then continued, during one run.
//!
//! The shared run (queues, Jobs, the supervisor that restarts the controller) is
//! [`scenario`]. `KUEUE_FAULTS_SEED` replays a run's random choices.
#![cfg(feature = "cli")]

mod control_plane;
mod controller_kills;
mod scenario;
