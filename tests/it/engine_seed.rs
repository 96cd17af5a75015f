//! The seed article's stated behaviours, on its exact two-team setup.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::{PendingReason, PreemptionReason};
use kubectl_kueue::scheduler::model::PreemptionPolicy::{Any, LowerPriority};

const GPU: &str = "nvidia.com/gpu";
const PRODUCTION: i32 = 1000;
const EXPERIMENT: i32 = 100;

fn team(name: &str) -> Cq {
    cq(name)
        .cohort("gpu-cluster")
        .preemption(LowerPriority, Any)
        .quota_limits("gpu-a100", GPU, "4", Some("4"), None)
        .quota("gpu-a100", "cpu", "32")
        .quota("gpu-a100", "memory", "128Gi")
}

fn seed() -> Scenario {
    scenario()
        .flavor("gpu-a100", &[("gpu-type", "a100")])
        .cq(team("team-a-queue"))
        .cq(team("team-b-queue"))
}

fn job(name: &str, queue: &str, gpus: &str, priority: i32, t: i64) -> Wl {
    wl("ns", name, queue)
        .req(GPU, gpus)
        .priority(priority)
        .created(NOW - 1_000_000 + t)
}

#[test]
fn both_teams_idle_means_eight_gpus_for_whoever_submits_first() {
    let mut s = seed();
    for i in 0..9 {
        s = s.wl(job(&format!("exp-{i}"), "team-a-queue", "1", EXPERIMENT, i));
    }
    let out = s.run();
    assert_eq!(
        out.holding("team-a-queue").len(),
        8,
        "team A borrows all of team B's idle GPUs"
    );
    assert_eq!(out.usage("team-a-queue", "gpu-a100", GPU), 8);
    let (reason, message) = out.pending("exp-8").expect("the ninth job waits");
    assert_eq!(reason, PendingReason::WaitingForQuota);
    assert_eq!(
        message,
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor gpu-a100, 1 more needed"
    );
}

#[test]
fn team_a_using_six_and_team_b_submitting_preempts_a_beyond_its_nominal_four() {
    let mut s = seed();
    for i in 0..6 {
        s = s.wl(job(&format!("exp-{i}"), "team-a-queue", "1", EXPERIMENT, i)
            .admitted("team-a-queue", "gpu-a100")
            .reserved_at(NOW - 500_000 + i));
    }
    s = s.wl(job("retrain", "team-b-queue", "4", PRODUCTION, 100));
    let out = s.run();
    let preempted = out.preemptions();
    assert_eq!(
        preempted.len(),
        2,
        "exactly A's two borrowed GPUs are reclaimed: {preempted:?}"
    );
    for (victim, by, reason) in &preempted {
        assert_eq!(by, "retrain");
        assert_eq!(*reason, PreemptionReason::InCohortReclamation);
        assert!(
            victim == "exp-4" || victim == "exp-5",
            "the most recently admitted go first, got {victim}"
        );
    }
    assert_eq!(out.holding("team-b-queue"), names(&["retrain"]));
    assert_eq!(
        out.usage("team-a-queue", "gpu-a100", GPU),
        4,
        "team A keeps its nominal quota"
    );
    let (reason, _) = out.pending("exp-5").unwrap();
    assert_eq!(
        reason,
        PendingReason::WaitingForQuota,
        "preempted jobs wait in the queue again"
    );
}

#[test]
fn team_a_borrows_team_bs_two_unused_gpus() {
    let mut s = seed();
    for i in 0..4 {
        s = s.wl(job(&format!("a-{i}"), "team-a-queue", "1", EXPERIMENT, i)
            .admitted("team-a-queue", "gpu-a100"));
    }
    s = s.wl(job("b-0", "team-b-queue", "2", EXPERIMENT, 0).admitted("team-b-queue", "gpu-a100"));
    s = s.wl(job("a-4", "team-a-queue", "1", EXPERIMENT, 10));
    s = s.wl(job("a-5", "team-a-queue", "1", EXPERIMENT, 11));
    s = s.wl(job("a-6", "team-a-queue", "1", EXPERIMENT, 12));
    let out = s.run();
    assert_eq!(
        out.usage("team-a-queue", "gpu-a100", GPU),
        6,
        "4 of its own and 2 borrowed"
    );
    assert!(out.pending("a-6").is_some(), "nothing is left to borrow");
    assert!(
        out.preemptions().is_empty(),
        "borrowing never preempts team B within its nominal"
    );
}

#[test]
fn a_production_job_preempts_an_experiment_in_the_same_queue() {
    let mut s = seed();
    for i in 0..4 {
        s = s.wl(job(&format!("a-{i}"), "team-a-queue", "1", EXPERIMENT, i)
            .admitted("team-a-queue", "gpu-a100")
            .reserved_at(NOW - 500_000 + i));
    }
    for i in 0..4 {
        s = s.wl(job(&format!("b-{i}"), "team-b-queue", "1", PRODUCTION, i)
            .admitted("team-b-queue", "gpu-a100"));
    }
    s = s.wl(job("urgent", "team-a-queue", "1", PRODUCTION, 50));
    let out = s.run();
    assert_eq!(
        out.preemptions(),
        vec![(
            "a-3".to_string(),
            "urgent".to_string(),
            PreemptionReason::InClusterQueue
        )]
    );
    assert!(out.holding("team-a-queue").contains(&"urgent".to_string()));
    assert_eq!(
        out.holding("team-b-queue").len(),
        4,
        "team B's production jobs are untouched"
    );
}

#[test]
fn the_seed_story_weekly_retrain_reclaims_from_eight_borrowed_experiments() {
    let mut s = seed();
    for i in 0..8 {
        s = s.wl(job(&format!("exp-{i}"), "team-a-queue", "1", EXPERIMENT, i)
            .admitted("team-a-queue", "gpu-a100")
            .reserved_at(NOW - 500_000 + i));
    }
    s = s.wl(job("weekly-retrain", "team-b-queue", "2", PRODUCTION, 100));
    let out = s.run();
    assert_eq!(out.holding("team-b-queue"), names(&["weekly-retrain"]));
    let victims: Vec<String> = out.preemptions().into_iter().map(|p| p.0).collect();
    assert_eq!(victims.len(), 2);
    assert!(
        victims.contains(&"exp-7".to_string()) && victims.contains(&"exp-6".to_string()),
        "{victims:?}"
    );
    assert_eq!(out.usage("team-a-queue", "gpu-a100", GPU), 6);
}
