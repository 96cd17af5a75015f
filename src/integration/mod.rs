//! Integrations: how a kind of job becomes a Workload and follows its Workload's admission.
//! Pure decisions (objects in, actions out, no clock, no I/O), so the controller performs them
//! and `simulate` can apply the same rules. Only batch/v1 [`job`] for now.

pub mod job;
