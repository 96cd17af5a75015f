//! The embedded default scenario of `kubectl kueue simulate` (the seed article's Tuesday), as
//! the files it is made of.

use crate::manifests::documents::{Document, parse_documents};

/// The seed's two-team GPU cluster on Tuesday: team A's eight experiments run on all eight
/// GPUs (four borrowed), and team B's weekly retraining job arrives.
pub const EMBEDDED_SCENARIO: &[(&str, &str)] = &[
    (
        "examples/gpu-two-teams/namespaces.yaml",
        include_str!("../../examples/gpu-two-teams/namespaces.yaml"),
    ),
    (
        "examples/gpu-two-teams/priorities.yaml",
        include_str!("../../examples/gpu-two-teams/priorities.yaml"),
    ),
    (
        "examples/gpu-two-teams/setup.yaml",
        include_str!("../../examples/gpu-two-teams/setup.yaml"),
    ),
    (
        "examples/gpu-two-teams/monday/running.yaml",
        include_str!("../../examples/gpu-two-teams/monday/running.yaml"),
    ),
    (
        "examples/gpu-two-teams/jobs/weekly-retrain.yaml",
        include_str!("../../examples/gpu-two-teams/jobs/weekly-retrain.yaml"),
    ),
];

/// The embedded scenario as documents.
pub fn documents() -> Result<Vec<Document>, crate::manifests::LoadError> {
    let mut order = 0;
    let mut docs = Vec::new();
    for (name, text) in EMBEDDED_SCENARIO {
        docs.extend(parse_documents(name, text, &mut order)?);
    }
    Ok(docs)
}

/// The seed's setup alone (namespaces, priority classes, flavor and queues): what a trace is
/// replayed on by default.
pub fn setup_documents() -> Result<Vec<Document>, crate::manifests::LoadError> {
    let mut order = 0;
    let mut docs = Vec::new();
    for (name, text) in &EMBEDDED_SCENARIO[..3] {
        docs.extend(parse_documents(name, text, &mut order)?);
    }
    Ok(docs)
}
