//! Offline simulation: the engine run to a fixpoint over a cluster picture from files, with
//! what-if edits. Pure: no cluster, no clock (time is a parameter).

pub mod runner;

pub use runner::{RunReport, run_to_fixpoint};
