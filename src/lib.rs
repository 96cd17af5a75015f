//! kubectl-kueue: a Kueue-compatible job-queueing system in one binary.
//!
//! Module map:
//! - [`scheduler`]: the pure, deterministic admission and preemption engine (no kube, no
//!   clock, no I/O); everything else calls it.
//! - [`api`]: serde types of `kueue.x-k8s.io/v1beta1` and the controller `Configuration`,
//!   with CRD generation.
//! - [`manifests`]: reading YAML into API objects and converting them for the engine;
//!   building the objects the commands write (queues from flags, Jobs, `init`, `install`).
//! - [`policy`]: the workload controller's rules (deactivation, draining, requeue, Workloads
//!   without a Job) as pure functions with `now` passed in.
//! - [`simulate`]: the engine run to a fixpoint offline, with what-if edits.
//! - [`status`]: Workload and queue status as upstream writes it, for `simulate` and the
//!   controller alike.
//! - [`integration`]: the batch/v1 Job integration as pure decisions (Job and Workload in,
//!   next step out).
//! - [`explain`]: why a workload waits (or how it was admitted), with verified next steps.
//! - [`view`]: what the user commands show (status summary, queue positions, workload
//!   states, a submitted Job's phase), as plain data.
//! - `cli`, `commands`, `output` (feature `cli`): the command line, one module per
//!   subcommand, and rendering for people and scripts; `complete`: what shell completion
//!   offers, read from the command tree.
//! - `kube` (feature `cli`): the only module that talks to the API server.
//! - `controller`, `metrics` (feature `cli`): `run-controller`, the admission and preemption
//!   loop on a real cluster (a pure model deciding writes as data, and an I/O shell performing
//!   them), and its Prometheus metrics.

pub mod api;
pub mod explain;
pub mod integration;
pub mod manifests;
pub mod policy;
pub mod scheduler;
pub mod simulate;
pub mod status;
pub mod view;

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;
#[cfg(feature = "cli")]
pub mod complete;
#[cfg(feature = "cli")]
pub mod controller;
#[cfg(feature = "cli")]
pub mod kube;
#[cfg(feature = "cli")]
pub mod metrics;
#[cfg(feature = "cli")]
pub mod output;
