//! The project's one integration-test binary (one link, one shared control plane per run).
//!
//! - `support/`: everything the tests share: engine builders ([`support::engine`]), the
//!   offline CLI runner ([`support::cli`]), the control-plane harness ([`support::cluster`] and
//!   friends), the live CLI fixture ([`support::live`]) and the controller process with its
//!   quota monitor ([`support::controller`]).
//! - one module per area, named as before: `engine_*` (engine tables and properties),
//!   `cli_*` (the binary offline), `live_*` (commands against a real API server), `e2e_*`
//!   (`run-controller` on the real control plane), plus API types, CRDs and simulate.
//!
//! Run one area with a filter: `cargo test --test it engine_`, `cargo test --test it
//! e2e_leader::`. Cluster tests need the control plane (`scripts/testenv.sh`); with
//! `KUEUE_SKIP_CLUSTER_TESTS=1` they are reported as skipped (see [`support::skip`]).

mod support;

mod api_types;
mod api_v1beta2;
mod api_v1beta2_config;
mod api_v1beta2_roundtrip;
mod architecture;
mod bad_input_fuzz;
mod cli_capacity;
mod cli_completion;
mod cli_config;
mod cli_errors;
mod cli_explain;
mod cli_forecast;
mod cli_help;
mod cli_init;
mod cli_simulate;
mod cli_status;
mod cli_trace;
mod cli_v1beta2;
mod controller_model;
mod controlplane_smoke;
mod crds;
mod e2e_config;
mod e2e_controller;
mod e2e_conversion;
mod e2e_fidelity;
mod e2e_in_cluster;
mod e2e_install;
mod e2e_leader;
mod e2e_metrics;
mod e2e_parity;
mod e2e_pods_ready;
mod e2e_running_work;
mod e2e_trust;
mod e2e_visibility;
mod e2e_workloads;
mod engine_admissibility;
mod engine_fair_sharing;
mod engine_flavors;
mod engine_forecast;
mod engine_oracle;
mod engine_ordering;
mod engine_pods_ready;
mod engine_preemption;
mod engine_properties;
mod engine_quiet_trees;
mod engine_quota;
mod engine_seed;
mod explain_consistency;
mod faults;
mod forecast_runtimes;
mod hostile_input;
mod image;
mod invariants_checker;
mod krew_install;
mod leader_client_timeouts;
mod leader_config;
mod leader_fence;
mod leader_laptop;
mod leader_race;
mod live_admin;
mod live_capacity;
mod live_explain;
mod live_forecast;
mod live_forecast_accuracy;
mod live_history;
mod live_status;
mod live_submit;
mod perf_harness;
mod simulate_fixpoint;
mod simulate_trust;
mod simulate_v1beta2;
mod stale_writes;
pub mod trace_replay;
mod validation_corpus;
mod visibility_front_proxy;
mod visibility_positions;
