//! `simulate` end to end on the 15,000-workload baseline written as YAML files: reading,
//! parsing, converting and running to the fixpoint. Run with
//! `cargo bench --bench simulate_yaml`; results are in the README.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use kubectl_kueue::manifests::{ConvertOptions, load};
use kubectl_kueue::simulate::Simulation;

fn simulate_files(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (queues, workloads) = common::baseline_yaml(5, 6, 500);
    std::fs::write(dir.path().join("10-queues.yaml"), queues).unwrap();
    std::fs::write(dir.path().join("20-workloads.yaml"), &workloads).unwrap();
    let paths = vec![dir.path().to_string_lossy().into_owned()];
    let opts = ConvertOptions {
        now: common::NOW,
        strict_namespace_selector: false,
    };
    eprintln!("input: {} bytes of YAML", workloads.len());
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    g.bench_function("15k workloads from YAML: load, convert, run", |b| {
        b.iter(|| {
            let inv = load(&paths).expect("valid input");
            Simulation::run(inv, &[], &opts).expect("simulates")
        })
    });
    g.bench_function("15k workloads from YAML: load only", |b| {
        b.iter(|| load(&paths).expect("valid input"))
    });
    g.finish();
}

criterion_group!(benches, simulate_files);
criterion_main!(benches);
