//! Memory per pending workload: a counting allocator measures what the engine holds for the
//! 15,000 and 100,000 cases (all pending), net of the input picture. Run with
//! `cargo bench --bench memory`; results are in the README.
// A counting global allocator.
#![allow(unsafe_code)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now =
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed) + layout.size() as isize;
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    // `cargo test --all-targets` runs benches without --bench: a small smoke run then.
    let full = std::env::args().any(|a| a == "--bench");
    let cases: &[(&str, usize, usize, usize, bool)] = if full {
        &[
            ("15k", 5, 6, 500, false),
            ("100k", 10, 10, 1000, false),
            ("15k distinct", 5, 6, 500, true),
            ("100k distinct", 10, 10, 1000, true),
        ]
    } else {
        &[
            ("smoke", 1, 2, 50, false),
            ("smoke distinct", 1, 2, 50, true),
        ]
    };
    for &(label, cohorts, per_cohort, per_cq, distinct) in cases {
        let state = if distinct {
            common::distinct(cohorts, per_cohort, per_cq)
        } else {
            common::baseline(cohorts, per_cohort, per_cq)
        };
        let n = state.workloads.len() as isize;
        let before = LIVE.load(Ordering::Relaxed);
        let mut engine = kubectl_kueue::scheduler::Engine::new(state);
        let built = LIVE.load(Ordering::Relaxed) - before;
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let report = kubectl_kueue::simulate::run_to_fixpoint(&mut engine, common::NOW);
        let after_run = LIVE.load(Ordering::Relaxed) - before;
        let peak = PEAK.load(Ordering::Relaxed) - before;
        let pending = engine
            .workloads()
            .filter(|w| engine.holding_queue(&w.key()).is_none())
            .count();
        let attempts = engine.attempts();
        println!(
            "{label}: {n} workloads; engine after build {} KiB = {} B/workload; after the run {} KiB (peak {} KiB, run report {} decisions, {attempts} admission attempts in {} cycles); {pending} still pending",
            built / 1024,
            built / n,
            after_run / 1024,
            peak / 1024,
            report.decisions.len(),
            report.cycles
        );
        drop(report);
        drop(engine);
    }
}
