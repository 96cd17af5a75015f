//! Hostile input for the manifest loader and the API-to-engine conversion (the path `simulate
//! -f`, `explain -f` and the controller's conversion share), as property tests with shrinking:
//! - [`documents`]: generated Kueue-shaped documents (any kind, any field, values of every
//!   YAML type, quantities at the extremes) and raw text mutations: never a panic, and every
//!   error names the file and the document;
//! - [`bounds`]: deeply nested YAML, alias bombs and a large file finish in bounded time
//!   and memory;
//! - [`quantities`]: quantities at the extremes (0, 1e18, 1Ei, fractions of a milli, past
//!   i64) never overflow and never round a request down.
//!
//! The suite runs a fixed seed and 256 cases per property (a few seconds). A long run:
//! `PROPTEST_CASES=100000 PROPTEST_RNG_SEED=<n> cargo test --release --test it hostile_input`
//! (the README's Reliability section has the figures); `PROPTEST_RNG_SEED` alone replays a
//! failing seed with the default number of cases.

mod bounds;
mod documents;
mod quantities;

use proptest::test_runner::Config;

/// 256 cases from seed 11 unless `PROPTEST_CASES` / `PROPTEST_RNG_SEED` say otherwise
/// ([`crate::support::property_config`]), nothing saved.
pub fn config() -> Config {
    Config {
        failure_persistence: None,
        ..crate::support::property_config(256)
    }
}

/// Reads `text` as the file `hostile.yaml` and simulates it. `Ok(())` for a result; the
/// error's words otherwise (after checking they name the file and a document, or the file
/// alone for an edit).
pub fn run(text: &str) -> Result<(), String> {
    use kubectl_kueue::manifests::documents::parse_documents;
    use kubectl_kueue::manifests::{ConvertOptions, Inventory};
    use kubectl_kueue::simulate::Simulation;
    let mut order = 0;
    let named = |e: String| {
        assert!(
            e.starts_with("hostile.yaml: document "),
            "an error that does not name the file and document: {e}"
        );
        e
    };
    let docs =
        parse_documents("hostile.yaml", text, &mut order).map_err(|e| named(e.to_string()))?;
    let inv = Inventory::from_documents(docs).map_err(|e| named(e.to_string()))?;
    let opts = ConvertOptions {
        now: 1_753_174_800_000,
        strict_namespace_selector: false,
    };
    let sim = Simulation::run(inv, &[], &opts).map_err(|e| named(e.to_string()))?;
    let _ = sim.output();
    Ok(())
}
