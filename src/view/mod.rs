//! What the user commands show, computed as plain data from the cluster's (or the files')
//! objects: the snapshot with the engine built on it and queue positions ([`snapshot`]), a
//! workload's state, flavors and wait ([`workload`]), the `status` summary ([`status`]), and
//! where a submitted Job is ([`submit`]).
//!
//! Pure: no I/O, no clock (`now` is passed in), no wording beyond upstream's own tokens; the
//! words and tables are in `output`, the reads in `kube`. It reads the Kueue objects themselves
//! (Workload conditions and admissions, queue specs), so it is right on clusters run by our
//! controller and by upstream Kueue's alike.

pub mod capacity;
pub mod forecast;
pub mod list;
pub mod pending_workloads;
pub mod snapshot;
pub mod status;
pub mod submit;
pub mod workload;

pub use snapshot::{Position, Snapshot, SnapshotError};
pub use workload::WorkloadState;
