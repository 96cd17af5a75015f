//! Engine benchmarks: the shape of upstream Kueue's scheduler performance baseline (5
//! cohorts x 6 ClusterQueues, 500 workloads each: 15,000 pending at once) run to the
//! fixpoint, and 100 ClusterQueues x 1,000 workloads (100,000); each also with every
//! workload distinct (no equivalence-class parking: one admission attempt per workload).
//! Run with
//! `cargo bench --bench engine`; results are in the README.

mod common;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kubectl_kueue::scheduler::Engine;
use kubectl_kueue::simulate::run_to_fixpoint;

fn fixpoint(c: &mut Criterion) {
    let mut g = c.benchmark_group("fixpoint");
    g.sample_size(10);
    for (label, cohorts, per_cohort, per_cq, distinct) in [
        ("15k: 5x6 queues x 500", 5, 6, 500, false),
        ("100k: 100 queues x 1000", 10, 10, 1000, false),
        ("15k distinct", 5, 6, 500, true),
        ("100k distinct", 10, 10, 1000, true),
    ] {
        let state = if distinct {
            common::distinct(cohorts, per_cohort, per_cq)
        } else {
            common::baseline(cohorts, per_cohort, per_cq)
        };
        let engine = Engine::new(state.clone());
        g.bench_function(format!("build {label}"), |b| {
            b.iter(|| Engine::new(state.clone()))
        });
        g.bench_function(format!("run {label}"), |b| {
            b.iter_batched(
                || engine.clone(),
                |mut e| run_to_fixpoint(&mut e, common::NOW),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, fixpoint);
criterion_main!(benches);
