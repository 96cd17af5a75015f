//! Small fluent builders for engine table tests: a cluster picture in a few lines, then
//! run it to a fixpoint and look at who holds quota.

use kubectl_kueue::scheduler::decision::{Decision, PendingReason, PreemptionReason};
use kubectl_kueue::scheduler::labels::{Taint, TaintEffect, Toleration};
use kubectl_kueue::scheduler::model::*;
use kubectl_kueue::scheduler::quantity::Amount;
use kubectl_kueue::scheduler::{Engine, WorkloadKey};
use kubectl_kueue::simulate::{RunReport, run_to_fixpoint};

pub const NOW: Millis = 1_700_000_000_000;

/// Parses "4", "500m", "128Gi" for `resource`.
pub fn amount(resource: &str, q: &str) -> Amount {
    kubectl_kueue::scheduler::quantity::parse_amount(resource, q).expect("test quantity")
}

#[derive(Clone)]
pub struct Cq(pub String, pub ClusterQueue);

/// A ClusterQueue with one resource group; `quota(flavor, resource, nominal)` adds to it.
pub fn cq(name: &str) -> Cq {
    Cq(name.to_string(), ClusterQueue::default())
}

impl Cq {
    pub fn cohort(mut self, c: &str) -> Self {
        self.1.cohort = Some(c.to_string());
        self
    }

    fn flavor_entry(&mut self, group: usize, flavor: &str) -> &mut FlavorQuotas {
        while self.1.resource_groups.len() <= group {
            self.1.resource_groups.push(ResourceGroup {
                covered_resources: vec![],
                flavors: vec![],
            });
        }
        let g = &mut self.1.resource_groups[group];
        if !g.flavors.iter().any(|f| f.name == flavor) {
            g.flavors.push(FlavorQuotas {
                name: flavor.to_string(),
                resources: vec![],
            });
        }
        g.flavors.iter_mut().find(|f| f.name == flavor).unwrap()
    }

    /// Nominal quota in resource group 0.
    pub fn quota(self, flavor: &str, resource: &str, nominal: &str) -> Self {
        self.quota_in(0, flavor, resource, nominal, None, None)
    }

    pub fn quota_limits(
        self,
        flavor: &str,
        resource: &str,
        nominal: &str,
        borrowing: Option<&str>,
        lending: Option<&str>,
    ) -> Self {
        self.quota_in(0, flavor, resource, nominal, borrowing, lending)
    }

    pub fn quota_in(
        mut self,
        group: usize,
        flavor: &str,
        resource: &str,
        nominal: &str,
        borrowing: Option<&str>,
        lending: Option<&str>,
    ) -> Self {
        let r = resource.to_string();
        let f = self.flavor_entry(group, flavor);
        f.resources.push(ResourceQuota {
            name: r.clone(),
            nominal: amount(&r, nominal),
            borrowing_limit: borrowing.map(|b| amount(&r, b)),
            lending_limit: lending.map(|l| amount(&r, l)),
        });
        let g = &mut self.1.resource_groups[group];
        if !g.covered_resources.contains(&r) {
            g.covered_resources.push(r);
        }
        self
    }

    pub fn preemption(mut self, within: PreemptionPolicy, reclaim: PreemptionPolicy) -> Self {
        self.1.preemption.within_cluster_queue = within;
        self.1.preemption.reclaim_within_cohort = reclaim;
        self
    }

    pub fn borrow_within_cohort(mut self, threshold: Option<i32>) -> Self {
        self.1.preemption.borrow_within_cohort = Some(BorrowWithinCohort {
            lower_priority: true,
            max_priority_threshold: threshold,
        });
        self
    }

    pub fn strict_fifo(mut self) -> Self {
        self.1.queueing_strategy = QueueingStrategy::StrictFifo;
        self
    }

    pub fn fungibility(mut self, borrow: WhenCanBorrow, preempt: WhenCanPreempt) -> Self {
        self.1.flavor_fungibility.when_can_borrow = borrow;
        self.1.flavor_fungibility.when_can_preempt = preempt;
        self
    }

    pub fn preference(mut self, p: FungibilityPreference) -> Self {
        self.1.flavor_fungibility.preference = p;
        self
    }

    pub fn weight(mut self, w: f64) -> Self {
        self.1.fair_weight = w;
        self
    }

    pub fn stop(mut self, p: StopPolicy) -> Self {
        self.1.stop_policy = p;
        self
    }

    pub fn namespace_selector(mut self, labels: &[(&str, &str)]) -> Self {
        self.1.namespace_selector = Some(kubectl_kueue::scheduler::labels::LabelSelector {
            match_labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            match_expressions: vec![],
        });
        self
    }
}

#[derive(Clone)]
pub struct Wl(pub Workload);

/// A workload `ns/name` in LocalQueue `lq` with one podSet `main` of one pod.
pub fn wl(ns: &str, name: &str, lq: &str) -> Wl {
    Wl(Workload {
        namespace: ns.to_string(),
        name: name.to_string(),
        uid: format!("uid-{ns}-{name}"),
        queue_name: lq.to_string(),
        active: true,
        pod_sets: vec![PodSet {
            name: "main".into(),
            count: 1,
            ..Default::default()
        }],
        ..Default::default()
    })
}

impl Wl {
    pub fn priority(mut self, p: i32) -> Self {
        self.0.priority = p;
        self
    }

    pub fn created(mut self, t: Millis) -> Self {
        self.0.queue_time = t;
        self
    }

    /// Per-pod request on the last podSet.
    pub fn req(mut self, resource: &str, q: &str) -> Self {
        let ps = self.0.pod_sets.last_mut().unwrap();
        ps.per_pod.insert(resource.to_string(), amount(resource, q));
        self
    }

    pub fn count(mut self, n: i32) -> Self {
        self.0.pod_sets.last_mut().unwrap().count = n;
        self
    }

    pub fn min_count(mut self, n: i32) -> Self {
        self.0.pod_sets.last_mut().unwrap().min_count = Some(n);
        self
    }

    pub fn pod_set(mut self, name: &str, count: i32) -> Self {
        self.0.pod_sets.push(PodSet {
            name: name.into(),
            count,
            ..Default::default()
        });
        self
    }

    pub fn node_selector(mut self, k: &str, v: &str) -> Self {
        self.0
            .pod_sets
            .last_mut()
            .unwrap()
            .node_selector
            .insert(k.into(), v.into());
        self
    }

    pub fn toleration(mut self, key: &str, value: &str) -> Self {
        self.0
            .pod_sets
            .last_mut()
            .unwrap()
            .tolerations
            .push(Toleration {
                key: key.into(),
                exists: false,
                value: value.into(),
                effect: None,
            });
        self
    }

    /// Already holding quota in `cq`: every requested resource on `flavor`.
    pub fn admitted(mut self, cq: &str, flavor: &str) -> Self {
        let pod_sets = self
            .0
            .pod_sets
            .iter()
            .map(|ps| PodSetAdmission {
                name: ps.name.clone(),
                flavors: ps
                    .per_pod
                    .keys()
                    .map(|r| (r.clone(), flavor.to_string()))
                    .collect(),
                resource_usage: ps
                    .per_pod
                    .iter()
                    .map(|(r, v)| (r.clone(), *v * i64::from(ps.count)))
                    .collect(),
                count: ps.count,
            })
            .collect();
        self.0.admission = Some(Admission {
            cluster_queue: cq.to_string(),
            pod_sets,
        });
        self.0.admitted = true;
        if self.0.quota_reserved_at.is_none() {
            self.0.quota_reserved_at = Some(self.0.queue_time);
        }
        self
    }

    pub fn reserved_at(mut self, t: Millis) -> Self {
        self.0.quota_reserved_at = Some(t);
        self
    }
}

#[derive(Default, Clone)]
pub struct Scenario {
    pub state: ClusterState,
}

pub fn scenario() -> Scenario {
    Scenario::default()
}

impl Scenario {
    pub fn flavor(mut self, name: &str, labels: &[(&str, &str)]) -> Self {
        self.state.flavors.insert(
            name.to_string(),
            ResourceFlavor {
                node_labels: labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..Default::default()
            },
        );
        self
    }

    pub fn tainted_flavor(mut self, name: &str, key: &str, value: &str) -> Self {
        self.state.flavors.insert(
            name.to_string(),
            ResourceFlavor {
                node_taints: vec![Taint {
                    key: key.into(),
                    value: value.into(),
                    effect: TaintEffect::NoSchedule,
                }],
                ..Default::default()
            },
        );
        self
    }

    pub fn cohort(mut self, name: &str, parent: Option<&str>) -> Self {
        self.state.cohorts.insert(
            name.to_string(),
            Cohort {
                parent: parent.map(str::to_string),
                ..Default::default()
            },
        );
        self
    }

    pub fn cohort_quota(
        mut self,
        name: &str,
        parent: Option<&str>,
        flavor: &str,
        resource: &str,
        nominal: &str,
    ) -> Self {
        let group = ResourceGroup {
            covered_resources: vec![resource.to_string()],
            flavors: vec![FlavorQuotas {
                name: flavor.to_string(),
                resources: vec![ResourceQuota {
                    name: resource.to_string(),
                    nominal: amount(resource, nominal),
                    borrowing_limit: None,
                    lending_limit: None,
                }],
            }],
        };
        self.state.cohorts.insert(
            name.to_string(),
            Cohort {
                parent: parent.map(str::to_string),
                resource_groups: vec![group],
                fair_weight: 1.0,
            },
        );
        self
    }

    /// Adds the ClusterQueue and a LocalQueue of the same name in namespace `ns`.
    pub fn cq(mut self, c: Cq) -> Self {
        let name = c.0.clone();
        self.state.cluster_queues.insert(c.0, c.1);
        self.state.local_queues.insert(
            ("ns".into(), name.clone()),
            LocalQueue {
                cluster_queue: name,
                ..Default::default()
            },
        );
        self
    }

    pub fn lq(mut self, ns: &str, name: &str, cq: &str) -> Self {
        self.state.local_queues.insert(
            (ns.into(), name.into()),
            LocalQueue {
                cluster_queue: cq.into(),
                ..Default::default()
            },
        );
        self
    }

    pub fn namespace(mut self, ns: &str, labels: &[(&str, &str)]) -> Self {
        self.state.namespaces.insert(
            ns.into(),
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        self
    }

    pub fn wl(mut self, w: Wl) -> Self {
        let mut w = w.0;
        w.tiebreak = self.state.workloads.len() as u64;
        self.state.workloads.push(w);
        self
    }

    pub fn fair_sharing(mut self) -> Self {
        self.state.config.fair_sharing = Some(FairSharingConfig { strategies: vec![] });
        self
    }

    pub fn engine(&self) -> Engine {
        Engine::new(self.state.clone())
    }

    pub fn run(&self) -> Outcome {
        let mut engine = self.engine();
        let report = run_to_fixpoint(&mut engine, NOW);
        assert!(report.converged, "the run must reach a fixpoint");
        Outcome { engine, report }
    }
}

pub struct Outcome {
    pub engine: Engine,
    pub report: RunReport,
}

impl Outcome {
    /// Names (without namespace) of workloads holding quota in `cq`, sorted.
    pub fn holding(&self, cq: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .engine
            .workloads()
            .filter(|w| self.engine.holding_queue(&w.key()) == Some(cq))
            .map(|w| w.name.clone())
            .collect();
        v.sort();
        v
    }

    pub fn admitted_flavor(&self, name: &str, resource: &str) -> Option<String> {
        let w = self.engine.workloads().find(|w| w.name == name)?;
        let adm = w.admission.as_ref()?;
        adm.pod_sets
            .iter()
            .find_map(|ps| ps.flavors.get(resource).cloned())
    }

    pub fn admitted_count(&self, name: &str, pod_set: &str) -> Option<i32> {
        let w = self.engine.workloads().find(|w| w.name == name)?;
        w.admission
            .as_ref()?
            .pod_sets
            .iter()
            .find(|ps| ps.name == pod_set)
            .map(|ps| ps.count)
    }

    /// Every (victim, preemptor, reason) over the run.
    pub fn preemptions(&self) -> Vec<(String, String, PreemptionReason)> {
        let mut out = Vec::new();
        for (_, d) in &self.report.decisions {
            if let Decision::Preempting { targets, .. } = &d.decision {
                for t in targets.iter() {
                    out.push((short(&t.workload), short(&d.workload), t.reason));
                }
            }
        }
        out
    }

    /// The final pending reason and message of a workload.
    pub fn pending(&self, name: &str) -> Option<(PendingReason, String)> {
        let key = self.engine.workloads().find(|w| w.name == name)?.key();
        if self.engine.holding_queue(&key).is_some() {
            return None;
        }
        if let Some(b) = self.engine.blocked_reason(&key) {
            return Some((b.reason, b.message));
        }
        self.report
            .decisions
            .iter()
            .rev()
            .find(|(_, d)| d.workload == key)
            .and_then(|(_, d)| match &d.decision {
                Decision::Pending {
                    reason, message, ..
                } => Some((*reason, message.clone())),
                Decision::Preempting { message, .. } => Some((
                    PendingReason::WaitingForPreemptedWorkloads,
                    message.to_string(),
                )),
                Decision::Admitted { .. } => None,
            })
    }

    /// Admission order of workload names over the run.
    pub fn admission_order(&self) -> Vec<String> {
        self.report
            .decisions
            .iter()
            .filter(|(_, d)| matches!(d.decision, Decision::Admitted { .. }))
            .map(|(_, d)| short(&d.workload))
            .collect()
    }

    pub fn usage(&self, cq: &str, flavor: &str, resource: &str) -> i64 {
        self.engine
            .cluster_queues()
            .into_iter()
            .find(|c| c.name == cq)
            .and_then(|c| {
                c.usage
                    .into_iter()
                    .find(|u| u.flavor == flavor && u.resource == resource)
            })
            .map_or(0, |u| u.reserved.get())
    }
}

/// The workload's name, without its namespace.
pub fn short(key: &WorkloadKey) -> String {
    key.name.clone()
}

/// `namespace/name` as the engine's key.
pub fn key(text: &str) -> WorkloadKey {
    WorkloadKey::parse(text).expect("a namespace/name test key")
}

pub fn names(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}
