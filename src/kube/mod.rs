//! The only place that talks to the API server: a [`Connection`] from kubectl's connection
//! options, reading the cluster into the same [`crate::manifests::Inventory`] files produce
//! (so live and offline commands share one conversion) and into the commands' snapshot, typed
//! reads and writes for the user commands ([`objects`], [`jobs`], [`server`]), install and
//! uninstall, and the controller's watches and writes.

pub mod apply;
pub mod client;
pub mod discard;
pub mod events;
pub mod fenced_io;
pub mod install;
pub mod jobs;
pub mod lean;
pub mod lease;
pub mod objects;
pub mod relist;
pub mod server;
pub mod snapshot;
pub mod stored;
pub mod versions;
pub mod watch;

pub use client::{ConnectOptions, Connection, connect};
pub use objects::Namespaces;
pub use snapshot::read_inventory;
