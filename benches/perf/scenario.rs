//! The perf scenarios and their schedule: upstream's scheduler-performance shapes (baseline,
//! large-scale), the deep-queue case and the Jobs case, shrunk by a scale factor, expanded
//! into every workload's creation time. Pure: the live run, the replay and the offline test
//! all read the same schedule, so they measure the same work.
//!
//! Upstream's generator runs every (queue, class) set in its own goroutine from time 0 and
//! creates a set's first workload one interval in; names are `<class>-<set>-<i>-0` in a
//! namespace named after the ClusterQueue, and a LocalQueue of that name points at it.

/// One ClusterQueue: one flavor `rf`, one resource `cpu`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueSpec {
    pub name: String,
    pub cohort: Option<String>,
    pub nominal_milli: i64,
    pub borrowing_limit_milli: Option<i64>,
}

/// `count` workloads of one class in one queue, one every `interval_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSet {
    pub queue: usize,
    pub class: String,
    pub count: usize,
    pub interval_ms: u64,
    pub runtime_ms: u64,
    pub priority: i32,
    pub cpu_milli: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub scale: f64,
    pub queues: Vec<QueueSpec>,
    pub sets: Vec<WorkloadSet>,
    /// Jobs (batch/v1, pods on kwok nodes) instead of bare Workloads.
    pub jobs: bool,
}

/// One workload to create.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrival {
    /// Since the generator started.
    pub at_ms: u64,
    pub queue: usize,
    pub namespace: String,
    pub name: String,
    pub class: String,
    pub cpu_milli: i64,
    pub runtime_ms: u64,
    pub priority: i32,
}

pub const SCENARIOS: [&str; 4] = ["baseline", "large-scale", "deep-queue", "jobs"];

/// (class, count per queue, interval ms, runtime ms, priority, cpu milli)
type Class = (&'static str, usize, u64, u64, i32, i64);

const BASELINE: [Class; 3] = [
    ("small", 350, 100, 200, 50, 1000),
    ("medium", 100, 500, 500, 100, 5000),
    ("large", 50, 1200, 1000, 200, 20000),
];
const LARGE_SCALE: [Class; 3] = [
    ("small", 35, 60, 150, 50, 1000),
    ("medium", 11, 300, 350, 100, 5000),
    ("large", 4, 700, 700, 200, 20000),
];

fn scaled(count: usize, scale: f64) -> usize {
    ((count as f64 * scale).round() as usize).max(1)
}

impl Scenario {
    /// A named scenario at `scale` (workload counts multiplied, at least one per set).
    pub fn named(name: &str, scale: f64) -> Result<Scenario, String> {
        if !(scale > 0.0 && scale <= 1.0) {
            return Err(format!("--scale {scale}: must be in (0, 1]"));
        }
        let s = match name {
            "baseline" => Self::cohorts(name, scale, 5, 6, &BASELINE, false),
            "large-scale" => Self::cohorts(name, scale, 10, 100, &LARGE_SCALE, false),
            "jobs" => Self::cohorts(name, scale, 1, 6, &BASELINE, true),
            "deep-queue" => Self::deep_queue(scale),
            other => {
                return Err(format!(
                    "unknown scenario {other:?}; expected one of {}",
                    SCENARIOS.join(", ")
                ));
            }
        };
        Ok(s)
    }

    fn cohorts(
        name: &str,
        scale: f64,
        cohorts: usize,
        per_cohort: usize,
        classes: &[Class],
        jobs: bool,
    ) -> Scenario {
        let mut s = Scenario {
            name: name.into(),
            scale,
            queues: vec![],
            sets: vec![],
            jobs,
        };
        for c in 0..cohorts {
            for q in 0..per_cohort {
                let cohort = format!("cohort-{c}");
                s.queues.push(QueueSpec {
                    name: format!("cq-0-{q}-{cohort}"),
                    cohort: Some(cohort),
                    nominal_milli: 20_000,
                    borrowing_limit_milli: Some(100_000),
                });
                let queue = s.queues.len() - 1;
                for &(class, count, interval_ms, runtime_ms, priority, cpu_milli) in classes {
                    s.sets.push(WorkloadSet {
                        queue,
                        class: class.into(),
                        count: scaled(count, scale),
                        interval_ms,
                        runtime_ms,
                        priority,
                        cpu_milli,
                    });
                }
            }
        }
        s
    }

    /// One deep ClusterQueue (10,000 small workloads, all at once, 200 ms each, on 20 cpu) and
    /// three shallow ones beside it (50 small each, one every 200 ms), no cohort.
    fn deep_queue(scale: f64) -> Scenario {
        let mut s = Scenario {
            name: "deep-queue".into(),
            scale,
            queues: vec![],
            sets: vec![],
            jobs: false,
        };
        for (i, name) in ["deep", "shallow-0", "shallow-1", "shallow-2"]
            .iter()
            .enumerate()
        {
            s.queues.push(QueueSpec {
                name: (*name).into(),
                cohort: None,
                nominal_milli: 20_000,
                borrowing_limit_milli: None,
            });
            let (class, count, interval_ms) = if i == 0 {
                ("deep", 10_000, 0)
            } else {
                ("shallow", 50, 200)
            };
            s.sets.push(WorkloadSet {
                queue: i,
                class: class.into(),
                count: scaled(count, scale),
                interval_ms,
                runtime_ms: 200,
                priority: 50,
                cpu_milli: 1000,
            });
        }
        s
    }

    /// Every workload with its creation time, in creation order (ties in set order).
    pub fn schedule(&self) -> Vec<Arrival> {
        let mut out = Vec::new();
        for (set_idx, set) in self.sets.iter().enumerate() {
            let queue = &self.queues[set.queue];
            let set_in_queue = self.sets[..set_idx]
                .iter()
                .filter(|s| s.queue == set.queue)
                .count();
            for i in 0..set.count {
                out.push(Arrival {
                    at_ms: (i as u64 + 1) * set.interval_ms,
                    queue: set.queue,
                    namespace: queue.name.clone(),
                    name: format!("{}-{set_in_queue}-{i}-0", set.class),
                    class: set.class.clone(),
                    cpu_milli: set.cpu_milli,
                    runtime_ms: set.runtime_ms,
                    priority: set.priority,
                });
            }
        }
        out.sort_by_key(|a| a.at_ms);
        out
    }

    /// Sum of nominal quota, milli-cpu.
    pub fn nominal_milli(&self) -> i64 {
        self.queues.iter().map(|q| q.nominal_milli).sum()
    }

    /// The cohort of each queue (a queue without one is its own).
    pub fn cohort_of(&self, queue: usize) -> String {
        let q = &self.queues[queue];
        q.cohort.clone().unwrap_or_else(|| q.name.clone())
    }
}

/// No scheduler finishes sooner: all the work (cpu x runtime) spread over all the nominal
/// quota, and never before the last workload could have run once created.
pub fn floor_seconds(s: &Scenario, schedule: &[Arrival]) -> f64 {
    let work: f64 = schedule
        .iter()
        .map(|a| a.cpu_milli as f64 * a.runtime_ms as f64)
        .sum();
    let spread = work / s.nominal_milli() as f64 / 1000.0;
    let first = schedule.iter().map(|a| a.at_ms).min().unwrap_or(0);
    let last_possible = schedule
        .iter()
        .map(|a| a.at_ms + a.runtime_ms)
        .max()
        .unwrap_or(0);
    spread.max((last_possible - first) as f64 / 1000.0)
}
