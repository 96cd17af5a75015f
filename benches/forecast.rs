//! Forecast benchmark: the engine benchmark's 15,000-workload baseline (5 cohorts x 6
//! ClusterQueues, all pending, nothing running) forecast to the last admission. Runtimes by
//! class (small 10 min, medium 30 min, large 60 min), and a worst case where every
//! workload's runtime differs (one finish instant per workload). Run with
//! `cargo bench --bench forecast`; results are in the README (target < 1 s).

mod common;

use std::collections::BTreeMap;

use criterion::{Criterion, criterion_group, criterion_main};
use kubectl_kueue::scheduler::model::ClusterState;
use kubectl_kueue::simulate::forecast::{Runtime, RuntimeSource, forecast};

const MIN: i64 = 60_000;

fn runtimes(
    state: &ClusterState,
    varied: bool,
) -> BTreeMap<kubectl_kueue::scheduler::WorkloadKey, Runtime> {
    state
        .workloads
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let cpu = w.pod_sets[0].per_pod["cpu"].get();
            let base = match cpu {
                c if c >= 20_000 => 60 * MIN,
                c if c >= 5_000 => 30 * MIN,
                _ => 10 * MIN,
            };
            let ms = if varied {
                base + (i as i64 % 997) * 1_000
            } else {
                base
            };
            (
                w.key(),
                Runtime::limit(RuntimeSource::MaximumExecutionTime, ms),
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("forecast");
    g.sample_size(10);
    let state = common::baseline(5, 6, 500);
    for (label, varied) in [
        ("15k, runtimes by class", false),
        ("15k, every runtime distinct", true),
    ] {
        let rt = runtimes(&state, varied);
        let f = forecast(&state, &rt, common::NOW);
        let admitted = f.estimates.iter().filter(|e| e.at().is_some()).count();
        let last = f
            .estimates
            .iter()
            .filter_map(|e| e.at())
            .max()
            .unwrap_or(common::NOW);
        eprintln!(
            "{label}: {} estimates, {admitted} with a time, last start +{} min, complete {}, {} instants, {} cycles",
            f.estimates.len(),
            (last - common::NOW) / MIN,
            f.complete,
            f.steps,
            f.cycles
        );
        g.bench_function(label, |b| b.iter(|| forecast(&state, &rt, common::NOW)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
