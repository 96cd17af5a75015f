//! The perf harness's parts: the scenario and its schedule, the statistics and summary
//! shape, the recorder, the virtual-time replay (all pure, covered by the offline test in
//! tests/it/perf_harness.rs), and the live run and charts (only under `cargo bench`).

pub mod chart;
pub mod floor;
pub mod live;
pub mod record;
pub mod replay;
pub mod scenario;
pub mod stats;

pub(crate) use super::support;

use std::collections::BTreeMap;
use std::fmt::Write;

use record::Track;
use scenario::{Arrival, Scenario};
use stats::Summary;

/// Scenario-specific figures: the deep queue's admission rate against what its capacity
/// allows, and the shallow queues' waits.
pub fn extras(
    s: &Scenario,
    schedule: &[Arrival],
    tracks: &[Track],
    created_ms: &[u64],
    out: &mut BTreeMap<String, f64>,
) {
    if s.name != "deep-queue" {
        return;
    }
    let deep: Vec<u64> = schedule
        .iter()
        .zip(tracks)
        .filter(|(a, _)| a.class == "deep")
        .filter_map(|(_, t)| t.last_admission_ms)
        .collect();
    if let (Some(first), Some(last)) = (deep.iter().min(), deep.iter().max()) {
        let secs = (last - first).max(1) as f64 / 1000.0;
        out.insert(
            "deep_admissions_per_second".into(),
            deep.len() as f64 / secs,
        );
        let q = &s.queues[0];
        let runtime = schedule
            .iter()
            .find(|a| a.class == "deep")
            .map_or(1, |a| a.runtime_ms);
        let cpu = schedule
            .iter()
            .find(|a| a.class == "deep")
            .map_or(1, |a| a.cpu_milli);
        out.insert(
            "deep_capacity_admissions_per_second".into(),
            (q.nominal_milli / cpu) as f64 * 1000.0 / runtime as f64,
        );
    }
    let waits: Vec<f64> = schedule
        .iter()
        .enumerate()
        .zip(tracks)
        .filter(|((_, a), _)| a.class == "shallow")
        .filter_map(|((i, _), t)| {
            t.last_admission_ms
                .map(|m| m.saturating_sub(created_ms[i]) as f64 / 1000.0)
        })
        .collect();
    let d = stats::distribution(&waits);
    out.insert("shallow_tta_avg_seconds".into(), d.avg);
    out.insert("shallow_tta_p95_seconds".into(), d.p95);
}

/// The side-by-side table printed at the end of a run.
pub fn report(s: &Summary, replay_only: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "== {} (scale {}, {} workloads; {})",
        s.scenario, s.scale, s.workloads, s.machine_load
    );
    let _ = writeln!(
        o,
        "{:<22}{:>10}{:>10}{:>10}",
        "", "live", "replay", "greedy"
    );
    let live = |v: f64| {
        if replay_only {
            "-".to_string()
        } else {
            format!("{v:.1}")
        }
    };
    let _ = writeln!(
        o,
        "{:<22}{:>10}{:>10.1}{:>10.1}   (floor {:.1} s)",
        "wall s",
        live(s.wall_seconds),
        s.replay_wall_seconds,
        s.greedy_wall_seconds,
        s.floor_seconds
    );
    let _ = writeln!(
        o,
        "{:<22}{:>10}{:>10.3}{:>10.3}",
        "usage useful",
        if replay_only {
            "-".to_string()
        } else {
            format!("{:.3}", s.usage_useful)
        },
        s.replay.usage_useful,
        s.greedy_usage
    );
    if !replay_only {
        let _ = writeln!(o, "{:<22}{:>10.3}", "usage held", s.usage_held);
    }
    for (class, c) in &s.classes {
        let _ = writeln!(
            o,
            "{:<22}{:>10}{:>10.1}{:>10.1}   (p95 {:.1}, max {:.1}, whole-s avg {:.1})",
            format!("tta avg s {class}"),
            live(c.tta_avg_seconds),
            c.replay_tta_avg_seconds,
            c.greedy_tta_avg_seconds,
            c.tta_p95_seconds,
            c.tta_max_seconds,
            c.tta_avg_whole_seconds
        );
    }
    let r = &s.replay;
    let _ = writeln!(
        o,
        "replay: {} cycles, {} admissions, {} preemptions, engine {:.3} s, {:.1} us/cycle, {:.0} admissions per engine second",
        r.cycles,
        r.admissions,
        r.preemptions,
        r.engine_seconds,
        r.cycle_avg_micros,
        r.admissions_per_engine_second
    );
    if !replay_only {
        let _ = writeln!(
            o,
            "live: {} admissions, {} preemptions, {} re-admissions, {} harness releases",
            s.admissions, s.preemptions, s.readmissions, s.harness_releases
        );
        let _ = writeln!(
            o,
            "controller {:.1} s cpu, {:.0} MiB peak rss; kube-apiserver {:.1} s cpu, {:.0} MiB; etcd {:.1} s cpu",
            s.controller_cpu_seconds,
            s.controller_peak_rss_bytes as f64 / 1048576.0,
            s.apiserver.cpu_seconds,
            s.apiserver.peak_rss_bytes as f64 / 1048576.0,
            s.etcd.cpu_seconds
        );
        let per_workload = |n: u64| n as f64 / s.workloads.max(1) as f64;
        for (k, v) in &s.apiserver_requests {
            let _ = writeln!(
                o,
                "requests {k}: {v} ({:.2} per workload)",
                per_workload(*v)
            );
        }
        for (k, v) in &s.extra {
            let _ = writeln!(o, "{k}: {v:.2}");
        }
    }
    o
}
