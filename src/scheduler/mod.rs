//! The scheduling engine: Kueue v1beta1 admission and preemption as a pure, deterministic
//! library.
//!
//! Input is a [`model::ClusterState`] (plain data, names and amounts); an [`Engine`] built
//! from it runs scheduling cycles ([`Engine::run_cycle`]) that return a
//! [`decision::CycleOutcome`] (admissions, preemptions, pending reasons with their
//! numbers) and update the engine's own state. Time is a parameter; nothing here reads a
//! clock, touches the network, or iterates a hash map.
//!
//! Module map: [`quantity`] (amounts), [`labels`] (selectors, taints), [`model`] (input),
//! [`tree`] (quota arithmetic), [`queue`] (pending queues), [`state`] (the engine's
//! records), `build` (the engine from a cluster picture), [`flavor_assigner`],
//! [`preemption`], [`fair_sharing`], [`cycle`] (one cycle), `guard` (what-ifs on the tree),
//! [`events`] (changes between cycles), [`decision`] (outcomes), [`message`] (upstream's
//! condition texts), [`inspect`] (read-only queries for status and explain), [`live`] and
//! [`gauges`] (figures for the live controller's gauges), [`whatif`] (one workload evaluated
//! without changing anything).

pub(crate) mod build;
pub mod cycle;
pub mod decision;
pub mod events;
pub mod fair_sharing;
pub mod finished;
pub mod flavor_assigner;
pub mod gauges;
pub(crate) mod guard;
pub mod id;
pub mod index;
pub mod inspect;
pub mod key;
pub mod labels;
pub mod live;
pub mod message;
pub mod model;
pub mod pods_ready;
pub mod preemption;
pub mod quantity;
pub mod queue;
pub mod state;
pub mod tree;
pub(crate) mod view;
pub mod whatif;

pub use decision::{CycleOutcome, Decision, PendingReason, PreemptionReason, WorkloadDecision};
pub use key::WorkloadKey;
pub use model::ClusterState;
pub use state::{Engine, EquivalentDecisions};
