//! The controller SIGKILLed at random moments, 50 times, while Jobs keep arriving and team b's
//! high-priority Jobs preempt what team a borrowed: the invariant checker finds nothing, every
//! Job runs to completion exactly once, and preemptions did happen.
//!
//! Each kill comes 0.2 to 1.5 s (seeded) after the previous controller was started: some land
//! while it lists, most while it admits, evicts and starts Jobs.

use std::time::{Duration, Instant};

use super::scenario::{self, Rng, Supervisor};
use crate::support::invariants::{Checker, assert_every_job_ran_once};

const KILLS: usize = 50;
const JOBS: usize = 120;

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_sigkills_during_a_busy_run_break_nothing() {
    let cluster = scenario::cluster().await;
    let client = cluster.client();
    let checker = Checker::with_grace(
        client.clone(),
        Duration::from_millis(500),
        scenario::POD_GRACE,
    );
    let mut rng = Rng::seeded(11);
    let mut sup = Supervisor::start(&cluster, &[]);
    let started = Instant::now();

    // Jobs arrive through the kill phase, a few between two kills.
    let mut submitted = 0;
    for kill in 0..KILLS {
        let until = Instant::now() + Duration::from_millis(rng.range(200, 1500));
        let share = (JOBS * (kill + 1)) / KILLS;
        while submitted < share {
            scenario::submit(&client, &mut rng, submitted).await;
            submitted += 1;
        }
        while Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        sup.kill_and_restart();
        checker.assert_clean();
    }
    let kill_phase = started.elapsed();
    let at_last_kill = scenario::complete(&client).await.unwrap_or(0);
    scenario::drain(&mut sup, &client, JOBS, Duration::from_secs(300)).await;
    let report = checker.finish(20);
    let (jobs, earlier_runs) = assert_every_job_ran_once(&client, &scenario::namespaces()).await;
    assert_eq!(jobs, JOBS);
    let evictions = scenario::evictions(&client).await;
    assert!(evictions > 0, "the run had no preemption at all");
    assert_eq!(sup.exits, 0, "the controller exited by itself");
    eprintln!(
        "FIGURES controller SIGKILLs: {KILLS} kills over {kill_phase:?} ({at_last_kill} of {JOBS} Jobs complete then), \
         all {JOBS} Jobs complete after {:?}, {evictions} evictions, {} admissions, \
         {} checker passes ({} skipped), 0 violations; {} pod(s) alive after their quota was released (longest {:?}); \
         {earlier_runs} pod(s) of a stopped run succeeded before the Job controller could delete them",
        started.elapsed(),
        report.admissions,
        report.passes,
        report.skipped,
        report.late_pods,
        report.longest_late
    );
}
