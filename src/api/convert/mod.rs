//! Upstream's conversion rules between `kueue.x-k8s.io` v1beta1 and v1beta2 (Kueue v0.19's
//! `apis/kueue/v1beta1/*_conversion.go`) and between the two `Configuration` versions, as
//! pure functions on the typed objects: `to_v1beta2` and `to_v1beta1` per kind.
//!
//! Exactly upstream's, losses included: nothing is kept in annotations, so a field only one
//! version has is dropped going to the other (the tables are in each kind's module). Metadata
//! is copied as it is. Round trips are the identity on everything both versions express
//! (property-tested in `tests/it/api_v1beta2.rs`).

pub mod cluster_queue;
pub mod cohort;
pub mod config;
pub mod local_queue;
pub mod resource_flavor;
pub mod topology;
pub mod workload;
pub mod workload_priority_class;
