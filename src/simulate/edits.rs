//! What-if edits on the input objects (`--set`), in kueuectl's flag shapes:
//!
//! ```text
//! clusterqueue/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6;cpu=48
//! cq/team-a-queue.borrowingLimit=gpu-a100:nvidia.com/gpu=0
//! cq/team-a-queue.preemption.reclaimWithinCohort=Never
//! cq/team-a-queue.stopPolicy=Hold            cq/x.cohort=other   cq/x.fairSharing.weight=2
//! cohort/gpu-cluster.parentName=root         lq/team-a/training-queue.stopPolicy=Hold
//! workload/team-a/job-x-1a2b3.priority=1000  wl/team-a/job-x-1a2b3.active=false
//! ```
//!
//! Edits change the API objects themselves, so the output shows the edited objects.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::api::{self, ClusterQueue, Cohort, LocalQueue, ResourceQuota, Workload};
use crate::manifests::Inventory;

/// A `--set` expression that could not be understood or applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    pub expression: String,
    pub message: String,
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--set {:?}: {}", self.expression, self.message)
    }
}

impl std::error::Error for EditError {}

/// One parsed edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub expression: String,
    pub kind: EditKind,
    /// `name` or `namespace/name`.
    pub target: String,
    pub field: String,
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    ClusterQueue,
    Cohort,
    LocalQueue,
    Workload,
}

impl Edit {
    pub fn parse(expression: &str) -> Result<Edit, EditError> {
        let err = |m: &str| EditError {
            expression: expression.to_string(),
            message: m.to_string(),
        };
        let (lhs, value) = expression
            .split_once('=')
            .ok_or_else(|| err("expected TARGET.FIELD=VALUE"))?;
        let (kind_word, rest) = lhs.split_once('/').ok_or_else(|| {
            err("expected KIND/NAME.FIELD before '=' (e.g. cq/team-a-queue.nominalQuota)")
        })?;
        let kind = match kind_word.to_ascii_lowercase().as_str() {
            "clusterqueue" | "clusterqueues" | "cq" => EditKind::ClusterQueue,
            "cohort" | "cohorts" | "co" => EditKind::Cohort,
            "localqueue" | "localqueues" | "lq" => EditKind::LocalQueue,
            "workload" | "workloads" | "wl" | "kwl" => EditKind::Workload,
            other => {
                return Err(err(&format!(
                    "unknown kind {other:?}: use clusterqueue (cq), cohort, localqueue (lq) or workload (wl)"
                )));
            }
        };
        let (target, field) = rest
            .split_once('.')
            .ok_or_else(|| err("expected a field after the name, e.g. .nominalQuota"))?;
        let namespaced = matches!(kind, EditKind::LocalQueue | EditKind::Workload);
        if namespaced && !target.contains('/') {
            return Err(err("localqueue and workload targets are NAMESPACE/NAME"));
        }
        if target.is_empty() || field.is_empty() {
            return Err(err("empty name or field"));
        }
        Ok(Edit {
            expression: expression.to_string(),
            kind,
            target: target.to_string(),
            field: field.to_string(),
            value: value.to_string(),
        })
    }

    fn err(&self, m: impl Into<String>) -> EditError {
        EditError {
            expression: self.expression.clone(),
            message: m.into(),
        }
    }

    /// Applies the edit to the inventory.
    pub fn apply(&self, inv: &mut Inventory) -> Result<(), EditError> {
        match self.kind {
            EditKind::ClusterQueue => {
                let cq = find(&mut inv.cluster_queues, &self.target, |o: &ClusterQueue| {
                    o.metadata.name.clone()
                })
                .ok_or_else(|| self.err(format!("no ClusterQueue {} in the input", self.target)))?;
                self.apply_cq(cq)
            }
            EditKind::Cohort => {
                if find(&mut inv.cohorts, &self.target, |o: &Cohort| {
                    o.metadata.name.clone()
                })
                .is_none()
                {
                    // Implicit cohorts get an object so they can be edited.
                    let mut c = Cohort::new(&self.target, Default::default());
                    c.metadata.name = Some(self.target.clone());
                    inv.cohorts.push(crate::manifests::Sourced {
                        obj: c,
                        origin: crate::manifests::Origin {
                            file: "--set".into(),
                            document: 0,
                            order: usize::MAX,
                        },
                    });
                }
                let c = find(&mut inv.cohorts, &self.target, |o: &Cohort| {
                    o.metadata.name.clone()
                })
                .expect("just added");
                match self.field.as_str() {
                    "parentName" | "parent" => {
                        c.spec.parent_name = non_empty(&self.value);
                        Ok(())
                    }
                    "fairSharing.weight" => {
                        c.spec.fair_sharing = Some(api::FairSharing { weight: Quantity(self.value.clone()) });
                        Ok(())
                    }
                    "nominalQuota" | "borrowingLimit" | "lendingLimit" => set_quota(&mut c.spec.resource_groups, &self.field, &self.value, true).map_err(|m| self.err(m)),
                    f => Err(self.err(format!("unknown Cohort field {f:?}: use parentName, fairSharing.weight, nominalQuota, borrowingLimit or lendingLimit"))),
                }
            }
            EditKind::LocalQueue => {
                let lq = find(&mut inv.local_queues, &self.target, |o: &LocalQueue| {
                    Some(format!(
                        "{}/{}",
                        o.metadata.namespace.as_deref().unwrap_or("default"),
                        o.metadata.name.as_deref().unwrap_or("")
                    ))
                })
                .ok_or_else(|| self.err(format!("no LocalQueue {} in the input", self.target)))?;
                match self.field.as_str() {
                    "stopPolicy" => {
                        lq.spec.stop_policy = parse_enum(&self.value).map_err(|m| self.err(m))?;
                        Ok(())
                    }
                    "clusterQueue" => {
                        lq.spec.cluster_queue = Some(self.value.clone());
                        Ok(())
                    }
                    f => Err(self.err(format!(
                        "unknown LocalQueue field {f:?}: use stopPolicy or clusterQueue"
                    ))),
                }
            }
            EditKind::Workload => {
                let wl = find(&mut inv.workloads, &self.target, |o: &Workload| {
                    Some(format!("{}/{}", o.metadata.namespace.as_deref().unwrap_or("default"), o.metadata.name.as_deref().unwrap_or("")))
                })
                .ok_or_else(|| self.err(format!("no Workload {} in the input (Workloads made from Jobs are named job-<name>-<hash>; see the output)", self.target)))?;
                match self.field.as_str() {
                    "priority" => {
                        wl.spec.priority = Some(
                            self.value
                                .parse()
                                .map_err(|_| self.err("priority must be an integer"))?,
                        );
                        Ok(())
                    }
                    "active" => {
                        wl.spec.active = self
                            .value
                            .parse()
                            .map_err(|_| self.err("active must be true or false"))?;
                        Ok(())
                    }
                    "queueName" => {
                        wl.spec.queue_name = Some(self.value.clone());
                        Ok(())
                    }
                    f => Err(self.err(format!(
                        "unknown Workload field {f:?}: use priority, active or queueName"
                    ))),
                }
            }
        }
    }

    fn apply_cq(&self, cq: &mut ClusterQueue) -> Result<(), EditError> {
        let spec = &mut cq.spec;
        match self.field.as_str() {
            "nominalQuota" | "borrowingLimit" | "lendingLimit" => {
                set_quota(&mut spec.resource_groups, &self.field, &self.value, false).map_err(|m| self.err(m))
            }
            "cohort" => {
                spec.cohort = non_empty(&self.value);
                Ok(())
            }
            "queueingStrategy" => {
                spec.queueing_strategy = parse_enum(&self.value).map_err(|m| self.err(m))?;
                Ok(())
            }
            "stopPolicy" => {
                spec.stop_policy = parse_enum(&self.value).map_err(|m| self.err(m))?;
                Ok(())
            }
            "preemption.reclaimWithinCohort" => {
                spec.preemption.reclaim_within_cohort = parse_enum(&self.value).map_err(|m| self.err(m))?;
                Ok(())
            }
            "preemption.withinClusterQueue" => {
                spec.preemption.within_cluster_queue = parse_enum(&self.value).map_err(|m| self.err(m))?;
                Ok(())
            }
            "preemption.borrowWithinCohort.policy" => {
                spec.preemption.borrow_within_cohort.policy = parse_enum(&self.value).map_err(|m| self.err(m))?;
                Ok(())
            }
            "fairSharing.weight" => {
                spec.fair_sharing = Some(api::FairSharing { weight: Quantity(self.value.clone()) });
                Ok(())
            }
            f => Err(self.err(format!(
                "unknown ClusterQueue field {f:?}: use nominalQuota, borrowingLimit, lendingLimit, cohort, queueingStrategy, stopPolicy, preemption.reclaimWithinCohort, preemption.withinClusterQueue, preemption.borrowWithinCohort.policy or fairSharing.weight"
            ))),
        }
    }
}

fn non_empty(v: &str) -> Option<String> {
    (!v.is_empty()).then(|| v.to_string())
}

fn find<'a, T>(
    items: &'a mut [crate::manifests::Sourced<T>],
    target: &str,
    key: impl Fn(&T) -> Option<String>,
) -> Option<&'a mut T> {
    items
        .iter_mut()
        .find(|s| key(&s.obj).as_deref() == Some(target))
        .map(|s| &mut s.obj)
}

fn parse_enum<T: serde::de::DeserializeOwned>(value: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(value.to_string()))
        .map_err(|e| format!("{value:?} is not allowed here: {e}"))
}

/// `flavor:resource=quantity[;resource=quantity]...` (kueuectl's `--nominal-quota` shape).
fn set_quota(
    groups: &mut Vec<api::ResourceGroup>,
    field: &str,
    value: &str,
    cohort: bool,
) -> Result<(), String> {
    let (flavor, assignments) = value.split_once(':').ok_or(
        "expected FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY], e.g. gpu-a100:nvidia.com/gpu=6",
    )?;
    for pair in assignments.split(';').filter(|p| !p.trim().is_empty()) {
        let (resource, q) = pair
            .split_once('=')
            .ok_or_else(|| format!("expected RESOURCE=QUANTITY, got {pair:?}"))?;
        let resource = resource.trim();
        let q = q.trim();
        let quantity = if q.is_empty() || q == "null" {
            None
        } else {
            Some(Quantity(q.to_string()))
        };
        if let Some(q) = &quantity {
            crate::scheduler::quantity::parse_amount(resource, &q.0).map_err(|e| e.to_string())?;
        }
        let existing = groups
            .iter_mut()
            .flat_map(|g| g.flavors.iter_mut())
            .find(|f| f.name == flavor);
        let target = match existing {
            Some(f) => f,
            None if cohort => {
                groups.push(api::ResourceGroup {
                    covered_resources: vec![resource.to_string()],
                    flavors: vec![api::FlavorQuotas {
                        name: flavor.to_string(),
                        resources: vec![],
                    }],
                });
                groups
                    .last_mut()
                    .and_then(|g| g.flavors.last_mut())
                    .expect("just pushed")
            }
            None => {
                return Err(format!(
                    "flavor {flavor} is not in this ClusterQueue's resourceGroups"
                ));
            }
        };
        let entry = match target.resources.iter_mut().position(|r| r.name == resource) {
            Some(i) => &mut target.resources[i],
            None if cohort => {
                target.resources.push(ResourceQuota {
                    name: resource.to_string(),
                    nominal_quota: Quantity("0".into()),
                    borrowing_limit: None,
                    lending_limit: None,
                });
                target.resources.last_mut().expect("just pushed")
            }
            None => {
                return Err(format!(
                    "resource {resource} is not covered by flavor {flavor} here"
                ));
            }
        };
        match field {
            "nominalQuota" => {
                entry.nominal_quota = quantity.ok_or("nominalQuota needs a quantity")?
            }
            "borrowingLimit" => entry.borrowing_limit = quantity,
            _ => entry.lending_limit = quantity,
        }
    }
    Ok(())
}

/// Removes Workloads (as if they finished or were deleted), by `namespace/name`. A
/// Job's name also removes the Job (and so its Workload).
pub fn remove(inv: &mut Inventory, targets: &[String]) -> Result<(), EditError> {
    for t in targets {
        let (ns, name) = t.split_once('/').unwrap_or(("default", t.as_str()));
        let key_of = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            (
                m.namespace.clone().unwrap_or_else(|| "default".to_string()),
                m.name.clone().unwrap_or_default(),
            )
        };
        let before = inv.workloads.len() + inv.jobs.len();
        inv.workloads
            .retain(|w| key_of(&w.obj.metadata) != (ns.to_string(), name.to_string()));
        inv.jobs
            .retain(|j| key_of(&j.obj.metadata) != (ns.to_string(), name.to_string()));
        if inv.workloads.len() + inv.jobs.len() == before {
            return Err(EditError {
                expression: format!("--remove {t}"),
                message: format!("no Workload or Job {ns}/{name} in the input"),
            });
        }
    }
    Ok(())
}

/// Replaces queue-labelled Jobs by the Workloads they stand for (named `job-<name>-<hash>`),
/// so edits can address every workload by its Workload name.
pub fn materialize_jobs(inv: &mut Inventory) {
    let priorities = inv.priorities();
    let jobs = std::mem::take(&mut inv.jobs);
    for job in jobs {
        if inv
            .workloads
            .iter()
            .any(|w| crate::manifests::job::workload_belongs_to(&w.obj, &job.obj))
        {
            continue;
        }
        match crate::manifests::job::workload_for_job(&job.obj, &priorities) {
            Ok(w) => inv.workloads.push(crate::manifests::Sourced {
                obj: w,
                origin: job.origin,
            }),
            Err(_) => inv.jobs.push(job),
        }
    }
    inv.workloads.sort_by_key(|w| w.origin.order);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes() {
        let e = Edit::parse("cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6").unwrap();
        assert_eq!(e.kind, EditKind::ClusterQueue);
        assert_eq!(e.target, "team-b-queue");
        assert_eq!(e.field, "nominalQuota");
        assert_eq!(e.value, "gpu-a100:nvidia.com/gpu=6");
        let e = Edit::parse("wl/team-a/job-x-12345.priority=5").unwrap();
        assert_eq!(e.target, "team-a/job-x-12345");
        assert!(Edit::parse("nominalQuota=4").is_err());
        assert!(
            Edit::parse("lq/training-queue.stopPolicy=Hold").is_err(),
            "namespace required"
        );
        assert!(Edit::parse("pod/x.y=1").is_err());
    }
}
