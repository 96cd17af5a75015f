//! Queue objects from upstream kueuectl's flag shapes (`--nominal-quota
//! "gpu-a100:nvidia.com/gpu=4;cpu=32"`, `--node-taints KEY[=VALUE]:EFFECT`, `KEY=VALUE` lists),
//! checked on the client first so a mistake names the flag and the item, not a webhook.
//!
//! Invariants: flavors keep the order given (the order in which the scheduler tries them);
//! flavors covering the same resources form one resource group, and each lists its resources
//! in the group's `coveredResources` order, as upstream's webhook requires.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde_json::json;

use crate::api::{ClusterQueue, LocalQueue, ResourceFlavor};
use crate::scheduler::quantity::QuantityError;

mod quota;

pub use quota::resource_groups;

/// A flag whose value is wrong, naming the flag and the item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FlagError(pub String);

impl From<QuantityError> for FlagError {
    fn from(e: QuantityError) -> FlagError {
        FlagError(e.to_string())
    }
}

/// `create clusterqueue`'s flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterQueueFlags {
    pub name: String,
    pub cohort: Option<String>,
    /// `BestEffortFIFO` (default) or `StrictFIFO`.
    pub queuing_strategy: Option<String>,
    /// `KEY=VALUE[,KEY=VALUE]`; without it, every namespace.
    pub namespace_selector: Option<String>,
    pub reclaim_within_cohort: Option<String>,
    pub preemption_within_cluster_queue: Option<String>,
    /// `FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]`, each repeatable.
    pub nominal_quota: Vec<String>,
    pub borrowing_limit: Vec<String>,
    pub lending_limit: Vec<String>,
}

/// Parses `a=b,c=d` (kubectl's `StringToString` flags).
pub fn parse_key_values(flag: &str, text: &str) -> Result<BTreeMap<String, String>, FlagError> {
    let mut out = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| FlagError(format!("--{flag} {text:?}: {part:?} is not KEY=VALUE")))?;
        if k.trim().is_empty() {
            return Err(FlagError(format!(
                "--{flag} {text:?}: {part:?} has an empty key"
            )));
        }
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// The ClusterQueue of `create clusterqueue`, with upstream kueuectl's defaults
/// (`BestEffortFIFO`, no preemption, every namespace).
pub fn cluster_queue(a: &ClusterQueueFlags) -> Result<ClusterQueue, FlagError> {
    let groups = resource_groups(
        &a.nominal_quota,
        &a.borrowing_limit,
        &a.lending_limit,
        a.cohort.is_some(),
    )?;
    let mut spec = json!({
        "namespaceSelector": {},
        "queueingStrategy": a.queuing_strategy.clone().unwrap_or_else(|| "BestEffortFIFO".into()),
        "preemption": {
            "reclaimWithinCohort": a.reclaim_within_cohort.clone().unwrap_or_else(|| "Never".into()),
            "withinClusterQueue": a.preemption_within_cluster_queue.clone().unwrap_or_else(|| "Never".into()),
        },
        "resourceGroups": groups,
    });
    if let Some(c) = &a.cohort {
        spec["cohort"] = json!(c);
    }
    if let Some(sel) = &a.namespace_selector {
        spec["namespaceSelector"] =
            json!({"matchLabels": parse_key_values("namespace-selector", sel)?});
    }
    let v = json!({"apiVersion": crate::api::API_VERSION, "kind": "ClusterQueue", "metadata": {"name": a.name}, "spec": spec});
    crate::api::from_value(v).map_err(|e| FlagError(format!("ClusterQueue {}: {e}", a.name)))
}

fn split_spec_item(flag: &str, s: &str) -> Result<(String, String, String), FlagError> {
    let (kv, effect) = match s.split_once(':') {
        Some((kv, e)) => (kv, e),
        None => (s, ""),
    };
    if effect.contains(':') {
        return Err(FlagError(format!(
            "--{flag} {s:?}: expected KEY[=VALUE][:EFFECT]"
        )));
    }
    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
    if v.contains('=') {
        return Err(FlagError(format!(
            "--{flag} {s:?}: expected KEY[=VALUE][:EFFECT]"
        )));
    }
    Ok((
        k.trim().to_string(),
        v.trim().to_string(),
        effect.trim().to_string(),
    ))
}

fn check_effect(flag: &str, s: &str, effect: &str) -> Result<(), FlagError> {
    match effect {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(()),
        _ => Err(FlagError(format!(
            "--{flag} {s:?}: effect {effect:?} is not one of NoSchedule, PreferNoSchedule, NoExecute"
        ))),
    }
}

/// `--node-taints`: `KEY[=VALUE]:EFFECT` each, no (key, effect) twice.
pub fn parse_taints(specs: &[String]) -> Result<Vec<Taint>, FlagError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (key, value, effect) = split_spec_item("node-taints", s)?;
        if key.is_empty() || effect.is_empty() {
            return Err(FlagError(format!(
                "--node-taints {s:?}: expected KEY[=VALUE]:EFFECT, e.g. nvidia.com/gpu=present:NoSchedule"
            )));
        }
        check_effect("node-taints", s, &effect)?;
        if !seen.insert((key.clone(), effect.clone())) {
            return Err(FlagError(format!(
                "--node-taints {s:?}: a taint with key {key} and effect {effect} is given twice"
            )));
        }
        out.push(Taint {
            key,
            value: (!value.is_empty()).then_some(value),
            effect,
            time_added: None,
        });
    }
    Ok(out)
}

/// `--tolerations`: `KEY[=VALUE][:EFFECT]` or `:EFFECT` each; without a value, `Exists`.
pub fn parse_tolerations(specs: &[String]) -> Result<Vec<Toleration>, FlagError> {
    let mut out = Vec::new();
    for s in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (key, value, effect) = split_spec_item("tolerations", s)?;
        if !effect.is_empty() {
            check_effect("tolerations", s, &effect)?;
        }
        if key.is_empty() && effect.is_empty() {
            return Err(FlagError(format!(
                "--tolerations {s:?}: give a key, an effect, or both"
            )));
        }
        out.push(Toleration {
            key: (!key.is_empty()).then_some(key),
            operator: Some(if value.is_empty() { "Exists" } else { "Equal" }.to_string()),
            value: (!value.is_empty()).then_some(value),
            effect: (!effect.is_empty()).then_some(effect),
            toleration_seconds: None,
        });
    }
    Ok(out)
}

/// A LocalQueue `namespace/name` for the ClusterQueue `cluster_queue`.
pub fn local_queue(
    name: &str,
    namespace: &str,
    cluster_queue: &str,
) -> Result<LocalQueue, FlagError> {
    crate::api::from_value(json!({
        "apiVersion": crate::api::API_VERSION, "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }))
    .map_err(|e| FlagError(format!("LocalQueue {name}: {e}")))
}

/// The ResourceFlavor of `create resourceflavor`: `--node-labels KEY=VALUE[,KEY=VALUE]`,
/// `--node-taints` and `--tolerations` (see [`parse_taints`], [`parse_tolerations`]).
pub fn resource_flavor(
    name: &str,
    node_labels: Option<&str>,
    node_taints: &[String],
    tolerations: &[String],
) -> Result<ResourceFlavor, FlagError> {
    let mut rf = ResourceFlavor::new(name, Default::default());
    if let Some(l) = node_labels {
        rf.spec.node_labels = parse_key_values("node-labels", l)?;
    }
    rf.spec.node_taints = parse_taints(node_taints)?;
    rf.spec.tolerations = parse_tolerations(tolerations)?;
    Ok(rf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn key_values() {
        let m = parse_key_values("node-labels", "gpu-type=a100, zone=b").unwrap();
        assert_eq!(m["gpu-type"], "a100");
        assert_eq!(m["zone"], "b");
        assert!(parse_key_values("node-labels", "gpu-type").is_err());
    }

    #[test]
    fn taints_and_tolerations() {
        let t = parse_taints(&s(&["nvidia.com/gpu=present:NoSchedule", "spot:NoExecute"])).unwrap();
        assert_eq!(t[0].value.as_deref(), Some("present"));
        assert_eq!(t[1].key, "spot");
        assert!(parse_taints(&s(&["spot"])).is_err());
        assert!(parse_taints(&s(&["spot:Sometimes"])).is_err());
        let t = parse_tolerations(&s(&["a=b:NoSchedule", "c", ":NoExecute"])).unwrap();
        assert_eq!(t[0].operator.as_deref(), Some("Equal"));
        assert_eq!(t[1].operator.as_deref(), Some("Exists"));
        assert_eq!(t[2].key, None);
    }
}
