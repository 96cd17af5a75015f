//! Trace replay on the seed setup (two ClusterQueues of 4 GPUs, borrowing up to 4 more, in one
//! cohort, reclaimWithinCohort: Any), with a five-job trace whose every admission is worked
//! out by hand:
//!
//! - 09:00 a1 (team A, 6 GPUs, 1h) fits by borrowing 2.
//! - 09:01 b1 (team B, 4 GPUs, 10m): 2 free, B is within nominal, so it reclaims: a1 is
//!   preempted, b1 admitted at once. a1 (6) no longer fits.
//! - 09:02 a2 (A, 2 GPUs, 5m) fits behind a1 (BestEffortFIFO). 09:03 a3 (A, 4, 10m): 2 free.
//! - 09:07 a2 ends: a3 admitted (waited 4m). 09:11 b1 ends. 09:17 a3 ends: a1 admitted again.
//! - 09:20 b2 (B, 4, 10m) reclaims from a1 again; 09:30 b2 ends, a1 re-admitted, runs its full
//!   hour again, ends 10:30.

use kubectl_kueue::manifests::{ConvertOptions, Inventory};
use kubectl_kueue::scheduler::model::ClusterState;
use kubectl_kueue::simulate::Edit;
use kubectl_kueue::simulate::trace::accuracy::{Runtimes, measure};
use kubectl_kueue::simulate::trace::summary::{summarize, wait_changes};
use kubectl_kueue::simulate::trace::{self, TraceJob};

pub const TINY: &str = r#"{"name":"a1","namespace":"team-a","localQueue":"training-queue","priority":100,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"6"}}],"submitted":"2025-07-21T09:00:00Z","runtimeSeconds":3600}
{"name":"b1","namespace":"team-b","localQueue":"training-queue","priority":100,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"4"}}],"submitted":"2025-07-21T09:01:00Z","runtimeSeconds":600}
{"name":"a2","namespace":"team-a","localQueue":"training-queue","priority":100,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"2"}}],"submitted":"2025-07-21T09:02:00Z","runtimeSeconds":300}
{"name":"a3","namespace":"team-a","localQueue":"training-queue","priority":100,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"4"}}],"submitted":"2025-07-21T09:03:00Z","runtimeSeconds":600}
{"name":"b2","namespace":"team-b","localQueue":"training-queue","priority":100,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"4"}}],"submitted":"2025-07-21T09:20:00Z","runtimeSeconds":600}
"#;

const NINE: i64 = 1_753_088_400_000; // 2025-07-21T09:00:00Z
const MIN: i64 = 60_000;

fn seed_setup(edits: &[&str]) -> ClusterState {
    let inv =
        Inventory::from_documents(kubectl_kueue::simulate::embedded::setup_documents().unwrap())
            .unwrap();
    let edits: Vec<Edit> = edits.iter().map(|e| Edit::parse(e).unwrap()).collect();
    trace::setup(
        inv,
        &edits,
        &ConvertOptions {
            now: NINE,
            strict_namespace_selector: false,
        },
    )
    .unwrap()
}

fn tiny() -> Vec<TraceJob> {
    trace::parse("tiny.jsonl", TINY).unwrap()
}

#[test]
fn replay_gives_the_admissions_worked_out_by_hand() {
    let jobs = tiny();
    let r = trace::replay(&seed_setup(&[]), &jobs, None);
    let got: Vec<(String, Option<i64>, Option<i64>, u32)> = jobs
        .iter()
        .zip(&r.jobs)
        .map(|(j, o)| {
            (
                j.name.clone(),
                o.admitted.map(|a| (a - NINE) / MIN),
                o.finished.map(|f| (f - NINE) / MIN),
                o.preempted,
            )
        })
        .collect();
    let want = |n: &str, a: i64, f: i64, p: u32| (n.to_string(), Some(a), Some(f), p);
    assert_eq!(
        got,
        vec![
            want("a1", 0, 90, 2),
            want("b1", 1, 11, 0),
            want("a2", 2, 7, 0),
            want("a3", 7, 17, 0),
            want("b2", 20, 30, 0),
        ]
    );
    assert_eq!((r.start, r.end), (NINE, NINE + 90 * MIN));
    assert!(r.unsettled.is_empty());
}

#[test]
fn summary_figures_per_queue() {
    let jobs = tiny();
    let r = trace::replay(&seed_setup(&[]), &jobs, None);
    let s = summarize(&r, &jobs, "nvidia.com/gpu");
    assert_eq!(
        (s.jobs, s.admitted, s.finished, s.preemptions),
        (5, 5, 5, 2)
    );
    let a = &s.cluster_queues[0];
    assert_eq!(a.name, "team-a-queue");
    assert_eq!(
        (
            a.jobs,
            a.wait_p50_seconds,
            a.wait_p90_seconds,
            a.wait_max_seconds
        ),
        (3, Some(0.0), Some(240.0), Some(240.0))
    );
    assert_eq!((a.preemptions, a.admitted_borrowing), (2, 1));
    // GPU-seconds held by team A: 6x60 + 2x300 + 4x600 + 6x180 + 6x3600 = 26040 over 5400 s,
    // against 4 nominal; above nominal: 2 x (60 + 180 + 3600).
    let usage = a.usage_of_nominal.unwrap();
    assert!((usage - 26040.0 / 5400.0 / 4.0).abs() < 1e-9, "{usage}");
    let over = a.borrowed_average.unwrap();
    assert!((over - 7680.0 / 5400.0).abs() < 1e-9, "{over}");
    let b = &s.cluster_queues[1];
    assert_eq!(
        (b.name.as_str(), b.wait_max_seconds),
        ("team-b-queue", Some(0.0))
    );
    assert_eq!(s.local_queues[0].name, "team-a/training-queue");
    assert_eq!(s.local_queues[0].wait_p90_seconds, Some(240.0));
}

#[test]
fn compare_lists_the_jobs_whose_wait_changed_most() {
    // Team B may not reclaim: b1 waits for a1's hour, and the rest queue behind.
    let jobs = tiny();
    let before = trace::replay(&seed_setup(&[]), &jobs, None);
    let after = trace::replay(
        &seed_setup(&["cq/team-b-queue.preemption.reclaimWithinCohort=Never"]),
        &jobs,
        None,
    );
    let changes = wait_changes(&before, &after, &jobs, 2);
    let got: Vec<(&str, f64, f64)> = changes
        .iter()
        .map(|c| (c.workload.as_str(), c.before_seconds, c.after_seconds))
        .collect();
    assert_eq!(
        got,
        vec![("team-b/b1", 0.0, 3540.0), ("team-a/a3", 240.0, 3420.0)]
    );
    assert_eq!(summarize(&after, &jobs, "nvidia.com/gpu").preemptions, 0);
}

#[test]
fn forecasts_with_exact_runtimes_are_exact_when_nothing_arrives_later() {
    // Every forecast here is made before anything that changes it arrives.
    let jobs = tiny();
    let (r, acc) = measure(&seed_setup(&[]), &jobs, Runtimes::Exact);
    assert_eq!(r.jobs[3].admitted, Some(NINE + 7 * MIN));
    assert_eq!((acc.all.jobs, acc.all.exact, acc.no_time), (5, 5, 0));
    assert_eq!((acc.waited.jobs, acc.waited.median_seconds), (1, 0.0));
    // No run has finished yet when a3 arrives: with history only, no time for it.
    let (_, acc) = measure(&seed_setup(&[]), &jobs, Runtimes::History);
    assert_eq!((acc.all.jobs, acc.no_time), (4, 1));
}

#[test]
fn forecast_errors_come_from_later_arrivals() {
    // a3's forecast at 09:03 is 09:07 (when a2 ends); a later high-priority job of team A
    // (09:05, 2 GPUs) takes the two free GPUs, so at 09:07 a3 does not fit and starts later:
    // the forecast was early by exactly the difference.
    let mut text = TINY.to_string();
    text.push_str(r#"{"name":"urgent","namespace":"team-a","localQueue":"training-queue","priority":1000,"podSets":[{"name":"main","count":1,"requests":{"cpu":"1","nvidia.com/gpu":"2"}}],"submitted":"2025-07-21T09:05:00Z","runtimeSeconds":600}"#);
    let jobs = trace::parse("t.jsonl", &text).unwrap();
    let (r, acc) = measure(&seed_setup(&[]), &jobs, Runtimes::Exact);
    let a3 = r.jobs[3].admitted.unwrap();
    assert!(a3 > NINE + 7 * MIN, "a3 at {}", (a3 - NINE) / MIN);
    assert_eq!(acc.waited.jobs, 1);
    assert_eq!(
        acc.waited.max_seconds,
        ((a3 - NINE - 7 * MIN) / 1000) as f64
    );
    assert_eq!(acc.early, 1);
}
