//! Status as upstream Kueue writes it, in one place for `simulate` and `run-controller`:
//! the Workload transitions ([`workload`]: quota reserved and admitted, evicted, pending with a
//! reason, released, requeued, finished), ClusterQueue and LocalQueue status from the engine
//! ([`queues`]), the condition and message rules they share ([`conditions`]), and what a
//! Workload's status says when read back ([`view`]).
//!
//! Invariants: pure (time is a parameter, no I/O); a condition's transition time moves only
//! when its status flips; messages that reach the API server are cut to upstream's limits.

pub mod conditions;
pub mod queues;
pub mod view;
pub mod workload;

pub use conditions::{
    MAX_CONDITION_MESSAGE, holds, reset_active, same_ignoring_times, set_condition,
    truncate_message,
};
pub use queues::{
    QueueFigures, cluster_queue_with_figures, cluster_queue_with_status, local_queue_with_figures,
    local_queue_with_status,
};
pub use view::WorkloadView;
pub use workload::{
    admission_to_api, admit, evict, evict_for, evict_with_cause, finish, not_admitted, pending,
    pending_changes, quantity, queued_wait_seconds, release, requeue, resource_requests,
    same_resource_requests,
};
