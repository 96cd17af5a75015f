//! kubectl-kueue: a Kueue-compatible job-queueing system in one binary.
//!
//! Module map:
//! - [`scheduler`]: the pure, deterministic admission and preemption engine (no kube, no
//!   clock, no I/O); everything else calls it.
//! - [`api`]: serde types of `kueue.x-k8s.io/v1beta1` and the controller `Configuration`,
//!   with CRD generation.
//! - [`simulate`]: the engine run to a fixpoint offline, with what-if edits.

pub mod api;
pub mod scheduler;
pub mod simulate;
