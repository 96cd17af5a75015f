//! The only place that talks to the API server: clients from kubectl's flags, reading the
//! cluster into the same [`crate::manifests::Inventory`] files produce (so live and offline
//! commands share one conversion), and the controller's watches and writes.

pub mod apply;
pub mod client;
pub mod install;
pub mod lease;
pub mod snapshot;
pub mod watch;

pub use client::{Connection, connect};
pub use snapshot::read_inventory;
