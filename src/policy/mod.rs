//! Policies of upstream's controllers beyond scheduling, as pure functions with `now` passed
//! in, so the controller and (later) `simulate` apply the same rules. [`workload`]: the
//! workload controller's evictions (deactivation, `HoldAndDrain` draining), the requeue that
//! undoes them, and the lifecycle of Workloads that no Job owns; [`max_exec`]: the maximum
//! execution time that deactivates a Workload; [`pods_ready`]: `waitForPodsReady` (the
//! `PodsReady` condition, the timeout eviction, the requeue backoff and its limit).

pub mod max_exec;
pub mod pods_ready;
pub mod workload;
