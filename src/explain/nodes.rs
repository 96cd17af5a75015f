//! Do nodes carrying a flavor's labels exist, and could one of them hold one pod? Quota says
//! nothing about that; a flavor whose nodes are missing or too small admits workloads
//! whose pods then never schedule.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::manifests::Inventory;
use crate::scheduler::decision::Assignment;
use crate::scheduler::model::Workload;
use crate::scheduler::quantity::{Amount, format_amount, parse_amount};

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
pub fn check(inv: &Inventory, w: &Workload, assignment: Option<&Assignment>) -> Vec<NodeCheck> {
    if inv.nodes.is_empty() {
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
    let mut out = Vec::new();
    for f in flavors {
        let Some(flavor) = inv
            .flavors
            .iter()
            .find(|x| x.obj.metadata.name.as_deref() == Some(f.as_str()))
        else {
            continue;
        };
        let labels = flavor.obj.spec.node_labels.clone();
        let matching: Vec<BTreeMap<String, Amount>> = inv
            .nodes
            .iter()
            .filter(|n| {
                let nl = n.obj.metadata.labels.clone().unwrap_or_default();
                labels.iter().all(|(k, v)| nl.get(k) == Some(v))
                    && !n
                        .obj
                        .spec
                        .as_ref()
                        .and_then(|s| s.unschedulable)
                        .unwrap_or(false)
            })
            .map(|n| {
                let status = n.obj.status.clone().unwrap_or_default();
                let alloc = status.allocatable.or(status.capacity).unwrap_or_default();
                alloc
                    .iter()
                    .filter_map(|(r, q)| Some((r.clone(), parse_amount(r, &q.0).ok()?)))
                    .collect()
            })
            .collect();
        let mut largest: BTreeMap<String, Amount> = BTreeMap::new();
        for n in &matching {
            for r in per_pod.keys() {
                let v = n.get(r).copied().unwrap_or_default();
                let e = largest.entry(r.clone()).or_default();
                *e = (*e).max(v);
            }
        }
        let one_pod_fits = matching.iter().any(|n| {
            per_pod
                .iter()
                .all(|(r, v)| *v <= n.get(r).copied().unwrap_or_default())
        });
        out.push(NodeCheck {
            flavor: f,
            node_labels: labels,
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
