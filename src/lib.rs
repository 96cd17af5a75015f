//! kubectl-kueue: a Kueue-compatible job-queueing system in one binary.

pub mod api;
