//! The performance harness behind `scripts/perf.sh`: upstream Kueue's scheduler-performance
//! scenarios (and ours: deep-queue, jobs) generated on upstream's schedule against a fresh
//! control plane and the release `kubectl-kueue run-controller`, recorded into
//! `target/perf/<scenario>/summary.yaml` with charts, next to the same scenario replayed
//! through the engine alone in virtual time, the floor and the greedy ideal.
//!
//! `cargo bench --bench perf -- <scenario> [--scale F] [--replay-only] [--timeout S]`
//! (`scripts/perf.sh` is the documented entry). Under `cargo test` it does nothing.
#![cfg(feature = "cli")]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

#[path = "perf/mod.rs"]
mod perf;

use std::path::PathBuf;
use std::time::Duration;

use perf::scenario::{Scenario, floor_seconds};
use perf::stats::{Summary, distribution, greedy_ideal};

struct Args {
    scenario: String,
    scale: f64,
    replay_only: bool,
    /// Keep the ValidatingAdmissionPolicies `install` adds (upstream's harness runs with none).
    with_policies: bool,
    /// No controller: the API server's floor (an admitter that writes nothing else).
    api_floor: bool,
    timeout: Duration,
    out: PathBuf,
}

fn parse() -> Result<Option<Args>, String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if !argv.iter().any(|a| a == "--bench") {
        eprintln!("perf: a benchmark; run it with scripts/perf.sh");
        return Ok(None);
    }
    let mut a = Args {
        scenario: String::new(),
        scale: 1.0,
        replay_only: false,
        with_policies: false,
        api_floor: false,
        timeout: Duration::from_secs(1800),
        out: support::repo_root().join("target/perf"),
    };
    let mut it = argv.into_iter().filter(|x| x != "--bench");
    while let Some(x) = it.next() {
        let mut value = |flag: &str| it.next().ok_or(format!("{flag} needs a value"));
        match x.as_str() {
            "--scale" => {
                a.scale = value("--scale")?
                    .parse()
                    .map_err(|e| format!("--scale: {e}"))?
            }
            "--timeout" => {
                a.timeout = Duration::from_secs(
                    value("--timeout")?
                        .parse()
                        .map_err(|e| format!("--timeout: {e}"))?,
                )
            }
            "--out" => a.out = PathBuf::from(value("--out")?),
            "--replay-only" => a.replay_only = true,
            "--with-policies" => a.with_policies = true,
            "--api-floor" => a.api_floor = true,
            s if !s.starts_with('-') && a.scenario.is_empty() => a.scenario = s.into(),
            s => return Err(format!("unexpected argument {s:?}")),
        }
    }
    if a.scenario.is_empty() {
        return Err("which scenario? baseline, large-scale, deep-queue or jobs".into());
    }
    Ok(Some(a))
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let args = match parse() {
        Ok(Some(a)) => a,
        Ok(None) => return,
        Err(e) => {
            eprintln!("perf: {e}");
            std::process::exit(2);
        }
    };
    let scenario = Scenario::named(&args.scenario, args.scale).unwrap_or_else(|e| {
        eprintln!("perf: {e}");
        std::process::exit(2)
    });
    let schedule = scenario.schedule();
    let dir = args.out.join(if args.api_floor {
        format!("{}-api-floor", scenario.name)
    } else {
        scenario.name.clone()
    });
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let load_before = loadavg();
    let replay = perf::replay::replay(&scenario, &schedule);
    let greedy = greedy_ideal(&scenario, &schedule);
    let mut summary = Summary {
        scenario: scenario.name.clone(),
        scale: scenario.scale,
        workloads: schedule.len(),
        floor_seconds: floor_seconds(&scenario, &schedule),
        greedy_wall_seconds: greedy.wall_seconds,
        greedy_usage: greedy.usage,
        replay_wall_seconds: replay.summary.wall_seconds,
        replay: replay.summary.clone(),
        ..Default::default()
    };
    for (class, v) in &replay.tta {
        let c = summary.classes.entry(class.clone()).or_default();
        c.replay_tta_avg_seconds = distribution(v).avg;
        c.greedy_tta_avg_seconds = greedy.tta_avg_seconds.get(class).copied().unwrap_or(0.0);
    }
    if !args.replay_only {
        let cluster = perf::live::start_cluster(&scenario);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        // KUEUE_PERF_CONTROLLER: another build of the controller (a profiling build, an
        // older commit's binary) to run instead of this one.
        let controller = std::env::var("KUEUE_PERF_CONTROLLER")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_kubectl-kueue").to_string());
        let live = rt.block_on(perf::live::run(
            &scenario,
            &schedule,
            &cluster,
            &perf::live::Options {
                controller,
                timeout: args.timeout,
                with_policies: args.with_policies,
                api_floor: args.api_floor,
            },
        ));
        let d = perf::record::derive(&scenario, &schedule, &live.tracks, &live.created_ms);
        summary.wall_seconds = (d.last_finish_ms.saturating_sub(d.first_ms)) as f64 / 1000.0;
        summary.overhead_ratio = summary.wall_seconds / summary.replay_wall_seconds.max(1e-9);
        summary.usage_held = d.usage_held;
        summary.usage_useful = d.usage_useful;
        summary.admissions = d.admissions;
        summary.preemptions = d.preemptions;
        summary.readmissions = d.readmissions;
        summary.harness_releases = live.harness_releases;
        summary.controller_cpu_seconds = live.controller.cpu_seconds;
        summary.controller_peak_rss_bytes = live.controller.peak_rss_bytes;
        summary.apiserver = live.apiserver;
        summary.etcd = live.etcd;
        summary.apiserver_requests = live.requests;
        summary.cluster_queues = d.queues.clone();
        for (class, c) in d.classes {
            let e = summary.classes.entry(class).or_default();
            let (r, g) = (e.replay_tta_avg_seconds, e.greedy_tta_avg_seconds);
            *e = c;
            e.replay_tta_avg_seconds = r;
            e.greedy_tta_avg_seconds = g;
        }
        if args.api_floor {
            summary.extra.insert("api_floor".into(), 1.0);
        }
        if live.timed_out {
            summary
                .extra
                .insert("unfinished_workloads".into(), d.unfinished as f64);
        }
        perf::extras(
            &scenario,
            &schedule,
            &live.tracks,
            &live.created_ms,
            &mut summary.extra,
        );
        let tta: Vec<(String, Vec<f64>)> = d.tta.into_iter().collect();
        if let Err(e) =
            perf::chart::usage(&dir, &d.held_by_cohort).and_then(|_| perf::chart::tta(&dir, &tta))
        {
            eprintln!("perf: charts: {e}");
        }
        drop(cluster);
    }
    summary.machine_load = format!(
        "loadavg {load_before} at start, {} at end (2-core machine: {} cpus)",
        loadavg(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let yaml = serde_yaml::to_string(&summary).expect("summary yaml");
    std::fs::write(dir.join("summary.yaml"), &yaml).expect("write summary.yaml");
    print!("{}", perf::report(&summary, args.replay_only));
    println!("wrote {}", dir.join("summary.yaml").display());
}
