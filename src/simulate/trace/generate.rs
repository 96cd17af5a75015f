//! A generated week of the seed's two teams (examples/gpu-two-teams): the example trace and
//! the load of the accuracy measurement.
//!
//! Team A (`team-a/training-queue`) runs experiments: one GPU each, mostly in working hours,
//! 5 to 40 minutes. Team B (`team-b/training-queue`) runs shorter one-GPU evaluations (3 to 25
//! minutes),
//! production jobs of 2 to 4 GPUs (30 minutes to 2.5 hours) at priority 1000 (`production`) a few times a day, and the
//! weekly retraining (4 GPUs, 6 hours, Tuesday morning). Times are in whole seconds.
//!
//! Invariants: deterministic (the same seed gives the same trace, on every platform: a
//! SplitMix64 generator, no floating-point formatting in the output); pure; no
//! `admitted`/`finished` times (a replay fills them in).

use std::collections::BTreeMap;

use super::format::{TraceJob, TracePodSet};
use crate::scheduler::model::Millis;
use crate::scheduler::quantity::Amount;

/// Monday 2025-07-21T00:00:00Z, the seed article's week.
pub const WEEK_START: Millis = 1_753_056_000_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// True with probability `per_mille` / 1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

fn pod_set(gpus: i64) -> Vec<TracePodSet> {
    let mut per_pod = BTreeMap::new();
    per_pod.insert("cpu".to_string(), Amount::new(4_000 * gpus));
    per_pod.insert("memory".to_string(), Amount::new(16 * gpus * (1 << 30)));
    per_pod.insert("nvidia.com/gpu".to_string(), Amount::new(gpus));
    vec![TracePodSet {
        name: "main".to_string(),
        count: 1,
        per_pod,
    }]
}

fn job(
    name: String,
    ns: &str,
    priority: (i32, &str),
    gpus: i64,
    submitted: Millis,
    runtime_s: i64,
) -> TraceJob {
    TraceJob {
        name,
        namespace: ns.to_string(),
        local_queue: "training-queue".to_string(),
        priority: priority.0,
        priority_class: Some(priority.1.to_string()),
        pod_sets: pod_set(gpus),
        submitted,
        admitted: None,
        finished: None,
        runtime_ms: Some(runtime_s * 1000),
    }
}

/// Arrivals per hour by hour of day (working hours busy, nights quiet), per mille per minute.
fn per_mille(hour: i64, weekday: bool, busy: u64) -> u64 {
    let day = (9..19).contains(&hour);
    match (weekday, day) {
        (true, true) => busy,
        (true, false) => busy / 8,
        (false, true) => busy / 5,
        (false, false) => busy / 20,
    }
}

/// A week of the two teams, from `seed`, in submission order.
pub fn seed_week(seed: u64) -> Vec<TraceJob> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    let (mut a, mut b, mut p) = (0, 0, 0);
    for minute in 0..7 * 24 * 60i64 {
        let hour = (minute / 60) % 24;
        let weekday = minute / (24 * 60) < 5;
        let at = WEEK_START + minute * 60_000;
        if rng.chance(per_mille(hour, weekday, 250)) {
            a += 1;
            let runtime = 300 + rng.below(35 * 60) as i64;
            let second = rng.below(60) as i64 * 1000;
            out.push(job(
                format!("exp-{a:04}"),
                "team-a",
                (100, "experiment"),
                1,
                at + second,
                runtime,
            ));
        }
        if rng.chance(per_mille(hour, weekday, 200)) {
            b += 1;
            let runtime = 180 + rng.below(22 * 60) as i64;
            let second = rng.below(60) as i64 * 1000;
            out.push(job(
                format!("eval-{b:04}"),
                "team-b",
                (100, "experiment"),
                1,
                at + second,
                runtime,
            ));
        }
        if weekday && (8..18).contains(&hour) && rng.chance(8) {
            p += 1;
            let gpus = 2 + rng.below(3) as i64;
            let runtime = 1800 + rng.below(2 * 3600) as i64;
            out.push(job(
                format!("prod-{p:03}"),
                "team-b",
                (1000, "production"),
                gpus,
                at,
                runtime,
            ));
        }
        // Tuesday 09:00: the weekly retraining.
        if minute == (24 + 9) * 60 {
            out.push(job(
                "weekly-retrain".to_string(),
                "team-b",
                (1000, "production"),
                4,
                at,
                6 * 3600,
            ));
        }
    }
    out.sort_by_key(|j| j.submitted);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_week() {
        let a = seed_week(7);
        assert_eq!(a, seed_week(7));
        assert_ne!(a, seed_week(8));
        assert!(a.len() > 1000 && a.len() < 5000, "{}", a.len());
        assert!(a.windows(2).all(|w| w[0].submitted <= w[1].submitted));
        assert!(
            a.iter()
                .all(|j| j.submitted - WEEK_START < 7 * 24 * 3600 * 1000)
        );
        assert_eq!(a.iter().filter(|j| j.name == "weekly-retrain").count(), 1);
    }
}
