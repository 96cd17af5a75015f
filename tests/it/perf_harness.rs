//! The perf harness's pure parts (benches/perf), offline: the generator's schedule matches
//! upstream's baseline shape, the floor and the greedy ideal come out as computed by hand,
//! the statistics and the recorder's fold are right, and the virtual-time replay of a small
//! scenario finishes every workload. The live run is never a test (perf is not pass/fail).

#[path = "../../benches/perf/record.rs"]
mod record;
#[path = "../../benches/perf/replay.rs"]
mod replay;
#[path = "../../benches/perf/scenario.rs"]
mod scenario;
// The summary and process-figure types are the bench's only.
#[allow(dead_code)]
#[path = "../../benches/perf/stats.rs"]
mod stats;

use record::{Observation, Track, derive, format_rfc3339, parse_rfc3339};
use scenario::{Scenario, floor_seconds};
use stats::{distribution, greedy_ideal, integrate_steps, usage_fraction};

#[test]
fn baseline_schedule_has_upstreams_shape() {
    let s = Scenario::named("baseline", 1.0).unwrap();
    assert_eq!(s.queues.len(), 30);
    assert_eq!(s.nominal_milli(), 600_000);
    let sched = s.schedule();
    assert_eq!(sched.len(), 15_000);
    let count = |c: &str| sched.iter().filter(|a| a.class == c).count();
    assert_eq!(
        (count("small"), count("medium"), count("large")),
        (10_500, 3_000, 1_500)
    );
    // The first creation of a set is one interval in; the last large one at 50 x 1.2 s.
    assert_eq!(sched[0].at_ms, 100);
    assert_eq!(sched.iter().map(|a| a.at_ms).max(), Some(60_000));
    assert!(sched.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    let first_large = sched.iter().find(|a| a.class == "large").unwrap();
    assert_eq!(
        (
            first_large.at_ms,
            first_large.cpu_milli,
            first_large.priority
        ),
        (1200, 20_000, 200)
    );
    assert_eq!(first_large.namespace, "cq-0-0-cohort-0");
    assert_eq!(first_large.name, "large-2-0-0");
    // 39,600 cpu-seconds on 600 cpu.
    assert!((floor_seconds(&s, &sched) - 66.0).abs() < 1e-9);
}

#[test]
fn scale_shrinks_counts_not_quotas() {
    let s = Scenario::named("baseline", 0.2).unwrap();
    let sched = s.schedule();
    assert_eq!(sched.len(), 3_000);
    assert!((floor_seconds(&s, &sched) - 13.2).abs() < 1e-9);
    assert!(Scenario::named("baseline", 0.0).is_err());
    assert!(
        Scenario::named("nope", 1.0)
            .unwrap_err()
            .contains("baseline")
    );
    let deep = Scenario::named("deep-queue", 1.0).unwrap();
    assert_eq!(
        deep.schedule().iter().filter(|a| a.class == "deep").count(),
        10_000
    );
    assert_eq!(
        Scenario::named("large-scale", 1.0)
            .unwrap()
            .schedule()
            .len(),
        50_000
    );
}

#[test]
fn greedy_ideal_of_the_baseline_is_near_the_floor() {
    let s = Scenario::named("baseline", 1.0).unwrap();
    let sched = s.schedule();
    let g = greedy_ideal(&s, &sched);
    assert!(
        g.wall_seconds >= 66.0 && g.wall_seconds < 70.0,
        "{}",
        g.wall_seconds
    );
    assert!(g.usage > 0.94 && g.usage <= 1.0, "{}", g.usage);
    assert!(g.tta_avg_seconds["large"] < g.tta_avg_seconds["small"]);
}

#[test]
fn statistics() {
    let d = distribution(&[4.0, 1.0, 3.0, 2.0]);
    assert_eq!(
        (d.count, d.avg, d.p50, d.p95, d.max),
        (4, 2.5, 2.0, 4.0, 4.0)
    );
    assert_eq!(distribution(&[]).count, 0);
    // 10 for [0, 5), 30 for [5, 10): 50 + 150.
    assert_eq!(integrate_steps(&[(0, 10.0), (5, 30.0)], 0, 10), 200.0);
    // Two intervals of 1000m over half the window each on 1000m nominal: half used.
    let u = usage_fraction(&[(0, 50, 1000), (50, 100, 1000)], 2000, 0, 100);
    assert!((u - 0.5).abs() < 1e-12);
    assert_eq!(parse_rfc3339("1970-01-02T00:00:01Z"), Some(86_401));
    assert_eq!(
        parse_rfc3339("2026-12-01T14:58:20.5Z")
            .map(format_rfc3339)
            .as_deref(),
        Some("2026-12-01T14:58:20Z")
    );
    assert_eq!(parse_rfc3339("yesterday"), None);
}

#[test]
fn recorder_folds_an_eviction_and_a_readmission() {
    let s = Scenario::named("deep-queue", 0.0001).unwrap();
    let sched = s.schedule();
    let mut tracks = vec![Track::default(); sched.len()];
    let held = |admitted: bool| Observation {
        quota_reserved: true,
        admitted,
        cluster_queue: Some("deep".into()),
        ..Default::default()
    };
    let t = &mut tracks[0];
    assert!(!t.observe(0, Observation::default()));
    assert!(t.observe(100, held(true)));
    assert!(!t.observe(
        150,
        Observation {
            evicted: true,
            ..held(true)
        }
    ));
    assert!(!t.observe(
        200,
        Observation {
            evicted: true,
            ..Default::default()
        }
    ));
    assert!(t.observe(300, held(true)));
    assert!(!t.observe(
        500,
        Observation {
            finished: true,
            ..held(true)
        }
    ));
    assert_eq!(
        (t.admissions, t.evictions, t.useful, t.finished_ms),
        (2, 1, Some((300, 500)), Some(500))
    );
    assert_eq!(
        t.held,
        vec![(100, 200, "deep".into()), (300, 500, "deep".into())]
    );
    let created: Vec<u64> = vec![0; sched.len()];
    let d = derive(&s, &sched, &tracks, &created);
    assert_eq!((d.admissions, d.preemptions, d.readmissions), (2, 1, 1));
    assert_eq!(d.tta["deep"][0], 0.3);
}

#[test]
fn replay_finishes_every_workload_of_a_small_baseline() {
    let s = Scenario::named("baseline", 0.05).unwrap();
    let sched = s.schedule();
    let r = replay::replay(&s, &sched);
    assert!(r.summary.admissions >= sched.len() as u64);
    assert!(r.summary.wall_seconds >= floor_seconds(&s, &sched) - 1e-9);
    assert_eq!(r.tta.values().map(Vec::len).sum::<usize>(), sched.len());
    assert!(r.summary.usage_useful > 0.0 && r.summary.usage_useful <= 1.0);
}
