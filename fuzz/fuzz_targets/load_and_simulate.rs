//! Any bytes as a manifest file: read, converted and simulated as `simulate -f` does. The
//! property: no panic, and every error names the file and the document. Quantities in the
//! input also go through the engine's parser on every resource kind.
#![no_main]

use kubectl_kueue::manifests::documents::parse_documents;
use kubectl_kueue::manifests::{ConvertOptions, Inventory};
use kubectl_kueue::scheduler::quantity::parse_amount;
use kubectl_kueue::simulate::Simulation;
use libfuzzer_sys::fuzz_target;

fn named(e: String) {
    assert!(e.starts_with("fuzz.yaml: document "), "unnamed error: {e}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.len() < 64 {
        for resource in ["cpu", "memory", "nvidia.com/gpu"] {
            if let Ok(a) = parse_amount(resource, text.trim()) {
                assert!(
                    a.get() >= 0 || text.trim_start().starts_with('-'),
                    "{text:?} read as {}",
                    a.get()
                );
            }
        }
    }
    let mut order = 0;
    let docs = match parse_documents("fuzz.yaml", text, &mut order) {
        Ok(d) => d,
        Err(e) => return named(e.to_string()),
    };
    let inv = match Inventory::from_documents(docs) {
        Ok(i) => i,
        Err(e) => return named(e.to_string()),
    };
    let opts = ConvertOptions {
        now: 1_753_174_800_000,
        strict_namespace_selector: false,
    };
    match Simulation::run(inv, &[], &opts) {
        Ok(sim) => {
            let _ = sim.output();
        }
        Err(e) => named(e.to_string()),
    }
});
