//! Do nodes carrying a flavor's labels exist, and could one of them hold one pod? Quota says
//! nothing about that; a flavor whose nodes are missing or too small admits workloads
//! whose pods then never schedule.
//!
//! The node matching is [`crate::view::capacity`]'s (labels, cordoned nodes, allocatable
//! rounded down); this module only picks the flavors the assignment considered and checks
//! every request of the workload's largest pod against each of them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::manifests::nodes::NodeInfo;
use crate::scheduler::decision::Assignment;
use crate::scheduler::model::{ClusterState, Workload};
use crate::scheduler::quantity::{Amount, format_amount};
use crate::view::capacity::Checker;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NodeCheck {
    pub flavor: String,
    pub node_labels: BTreeMap<String, String>,
    pub matching_nodes: usize,
    /// Largest allocatable per resource among the matching nodes.
    pub largest_allocatable: BTreeMap<String, String>,
    /// The largest single pod the workload asks for, per resource.
    pub per_pod: BTreeMap<String, String>,
    pub one_pod_fits: bool,
}

/// Checks the flavors the assignment considered, when the input has Node objects.
pub fn check(
    state: &ClusterState,
    nodes: &[NodeInfo],
    w: &Workload,
    assignment: Option<&Assignment>,
) -> Vec<NodeCheck> {
    if nodes.is_empty() {
        return Vec::new();
    }
    let mut per_pod: BTreeMap<String, Amount> = BTreeMap::new();
    for ps in &w.pod_sets {
        for (r, v) in &ps.per_pod {
            let e = per_pod.entry(r.clone()).or_default();
            *e = (*e).max(*v);
        }
    }
    let mut flavors: Vec<String> = Vec::new();
    for a in assignment
        .iter()
        .flat_map(|a| a.pod_sets.iter())
        .flat_map(|p| p.attempts.iter())
    {
        if !flavors.contains(&a.flavor) {
            flavors.push(a.flavor.clone());
        }
    }
    let checker = Checker::new(state, nodes);
    let mut out = Vec::new();
    for f in flavors {
        let Some(flavor) = state.flavors.get(&f) else {
            continue;
        };
        let matching: Vec<&NodeInfo> = checker.matching(&f).collect();
        let largest: BTreeMap<String, Amount> = per_pod
            .keys()
            .map(|r| {
                let m = matching.iter().map(|n| n.allocatable_of(r)).max();
                (r.clone(), m.unwrap_or_default())
            })
            .collect();
        let one_pod_fits = matching
            .iter()
            .any(|n| per_pod.iter().all(|(r, v)| *v <= n.allocatable_of(r)));
        out.push(NodeCheck {
            flavor: f,
            node_labels: flavor.node_labels.clone(),
            matching_nodes: matching.len(),
            largest_allocatable: largest
                .iter()
                .map(|(r, v)| (r.clone(), format_amount(r, *v)))
                .collect(),
            per_pod: per_pod
                .iter()
                .map(|(r, v)| (r.clone(), format_amount(r, *v)))
                .collect(),
            one_pod_fits,
        });
    }
    out
}
