//! Queue objects edited into something the converter rejects (a `lendingLimit` above the
//! `nominalQuota`, a quota that is not a quantity...: the API server accepts both) never take
//! quota from what runs. A rejected ClusterQueue keeps its last valid spec (or, if it never
//! had one, an empty spec) and is marked invalid; a rejected Cohort or ResourceFlavor keeps
//! its last valid spec (or is left out) and marks the ClusterQueues that use it invalid. An
//! invalid ClusterQueue is inactive (`Active=False`, reason `InvalidSpec`, the problem in the
//! message): it admits nothing new, and the workloads holding quota in it keep it.
//!
//! Invariants: the substitute keeps the object's current metadata (a deletion still counts);
//! each object is substituted at most twice per conversion (last valid, then empty or left
//! out), so the conversion loop ends; last valid specs are forgotten with their objects.

use std::collections::BTreeMap;

use crate::api::{ClusterQueueSpec, CohortSpec, ResourceFlavorSpec};
use crate::manifests::{InputError, Inventory};
use crate::scheduler::model::ClusterState;

/// The last spec of each queue object the converter accepted, by name.
#[derive(Debug, Clone, Default)]
pub struct LastValid {
    cluster_queues: BTreeMap<String, ClusterQueueSpec>,
    cohorts: BTreeMap<String, CohortSpec>,
    flavors: BTreeMap<String, ResourceFlavorSpec>,
}

/// What one conversion had to substitute: the problem of each rejected object.
#[derive(Debug, Clone, Default)]
pub struct Rejections {
    attempts: BTreeMap<String, u32>,
    cluster_queues: BTreeMap<String, String>,
    cohorts: BTreeMap<String, String>,
    flavors: BTreeMap<String, String>,
}

/// What to do with an object the converter rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Substitution {
    /// Its last valid (or an empty) version is in the inventory now: convert again.
    Substituted,
    /// Leave it out, as before this module existed (LocalQueues, Namespaces, and what no
    /// substitute could fix).
    LeaveOut,
}

fn name_of(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

/// The problem in words, without the "cluster (Kind)" origin.
fn problem(e: &InputError) -> String {
    match &e.field {
        Some(f) => format!("{f}: {}", e.message),
        None => e.message.clone(),
    }
}

impl LastValid {
    /// Replaces the rejected `kind` `name` in `inv` by its last valid spec.
    pub fn substitute(
        &self,
        inv: &mut Inventory,
        kind: &str,
        name: &str,
        e: &InputError,
        rejections: &mut Rejections,
    ) -> Substitution {
        let attempt = rejections
            .attempts
            .entry(format!("{kind} {name}"))
            .or_insert(0);
        *attempt += 1;
        let attempt = *attempt;
        let is = |meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            name_of(meta) == name
        };
        match kind {
            "ClusterQueue" => {
                let Some(cq) = inv.cluster_queues.iter_mut().find(|s| is(&s.obj.metadata)) else {
                    return Substitution::LeaveOut;
                };
                cq.obj.spec = match (attempt, self.cluster_queues.get(name)) {
                    (1, Some(spec)) => spec.clone(),
                    (1 | 2, _) => ClusterQueueSpec::default(),
                    _ => return Substitution::LeaveOut,
                };
                rejections
                    .cluster_queues
                    .entry(name.to_string())
                    .or_insert_with(|| problem(e));
                Substitution::Substituted
            }
            "Cohort" => {
                rejections
                    .cohorts
                    .entry(name.to_string())
                    .or_insert_with(|| problem(e));
                match (attempt, self.cohorts.get(name)) {
                    (1, Some(spec)) => {
                        for c in inv.cohorts.iter_mut().filter(|s| is(&s.obj.metadata)) {
                            c.obj.spec = spec.clone();
                        }
                        Substitution::Substituted
                    }
                    _ => {
                        inv.cohorts.retain(|s| !is(&s.obj.metadata));
                        Substitution::Substituted
                    }
                }
            }
            "ResourceFlavor" => {
                rejections
                    .flavors
                    .entry(name.to_string())
                    .or_insert_with(|| problem(e));
                match (attempt, self.flavors.get(name)) {
                    (1, Some(spec)) => {
                        for f in inv.flavors.iter_mut().filter(|s| is(&s.obj.metadata)) {
                            f.obj.spec = spec.clone();
                        }
                        Substitution::Substituted
                    }
                    _ => {
                        inv.flavors.retain(|s| !is(&s.obj.metadata));
                        Substitution::Substituted
                    }
                }
            }
            _ => Substitution::LeaveOut,
        }
    }

    /// After a conversion succeeded: remembers what was accepted as it is (not the
    /// substitutes) and forgets objects that are gone.
    pub fn remember(&mut self, inv: &Inventory, rejections: &Rejections) {
        self.cluster_queues = inv
            .cluster_queues
            .iter()
            .map(|s| (name_of(&s.obj.metadata), &s.obj.spec))
            .filter(|(n, _)| !rejections.cluster_queues.contains_key(n))
            .map(|(n, spec)| (n, spec.clone()))
            .chain(
                rejections
                    .cluster_queues
                    .keys()
                    .filter_map(|n| Some((n.clone(), self.cluster_queues.get(n)?.clone()))),
            )
            .collect();
        self.cohorts = inv
            .cohorts
            .iter()
            .map(|s| (name_of(&s.obj.metadata), s.obj.spec.clone()))
            .filter(|(n, _)| !rejections.cohorts.contains_key(n))
            .chain(
                rejections
                    .cohorts
                    .keys()
                    .filter_map(|n| Some((n.clone(), self.cohorts.get(n)?.clone()))),
            )
            .collect();
        self.flavors = inv
            .flavors
            .iter()
            .map(|s| (name_of(&s.obj.metadata), s.obj.spec.clone()))
            .filter(|(n, _)| !rejections.flavors.contains_key(n))
            .chain(
                rejections
                    .flavors
                    .keys()
                    .filter_map(|n| Some((n.clone(), self.flavors.get(n)?.clone()))),
            )
            .collect();
    }
}

impl Rejections {
    /// Marks every ClusterQueue a rejection concerns invalid in `state`: the rejected ones,
    /// the members of a rejected Cohort, the users of a rejected ResourceFlavor.
    pub fn mark(&self, state: &mut ClusterState) {
        for (name, cq) in state.cluster_queues.iter_mut() {
            if cq.invalid.is_some() {
                continue;
            }
            let flavor_problem = cq
                .resource_groups
                .iter()
                .flat_map(|g| g.flavors.iter())
                .find_map(|f| {
                    let p = self.flavors.get(&f.name)?;
                    Some(format!("ResourceFlavor {}: {p}", f.name))
                });
            cq.invalid = self
                .cluster_queues
                .get(name)
                .cloned()
                .or_else(|| {
                    let cohort = cq.cohort.as_ref()?;
                    let p = self.cohorts.get(cohort)?;
                    Some(format!("Cohort {cohort}: {p}"))
                })
                .or(flavor_problem);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.attempts.is_empty()
    }
}
