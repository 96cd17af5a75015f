//! Offline simulation: the engine run to a fixpoint over a cluster picture, with what-if
//! edits, and the resulting objects in upstream's status shape. Pure: no cluster, no clock
//! (time is a parameter).

pub mod edits;
pub mod embedded;
pub mod forecast;
pub mod result;
pub mod runner;
pub mod scenario;
pub mod trace;
pub mod written;

pub use edits::{Edit, EditError, materialize_jobs, remove};
pub use runner::{RunReport, run_to_fixpoint};
pub use scenario::{SimulateError, Simulation};
pub use written::OutputVersion;
