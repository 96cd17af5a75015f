//! Next steps for a pending workload, each checked by running the simulation with the
//! change applied: only steps that really admit the workload are marked verified. Every step
//! carries the `kubectl kueue simulate` arguments that reproduce the check.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::manifests::{ConvertOptions, Inventory};
use crate::scheduler::Engine;
use crate::scheduler::decision::{FlavorOutcome, PendingDetail};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::quantity::{Amount, format_amount};
use crate::scheduler::whatif::Evaluation;
use crate::simulate::{Edit, Simulation, remove};

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NextStep {
    pub summary: String,
    /// Arguments to `kubectl kueue simulate` that apply this step (empty when the change is
    /// not expressible as an edit).
    pub simulate_args: Vec<String>,
    /// True when the simulation with this change admits the workload.
    pub verified: bool,
    /// A command that makes the change on the cluster, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// Caps the simulations one explain may run.
const MAX_PROBES: usize = 40;

struct Checker<'a> {
    inv: &'a Inventory,
    key: &'a WorkloadKey,
    opts: &'a ConvertOptions,
    probes: usize,
}

impl Checker<'_> {
    /// Simulates with these `--set` edits and `--remove`s (None when out of probes or the
    /// change does not apply).
    fn run(&mut self, sets: &[String], removes: &[String]) -> Option<Simulation> {
        if self.probes >= MAX_PROBES {
            return None;
        }
        self.probes += 1;
        let mut inv = self.inv.clone();
        let edits = sets
            .iter()
            .map(|s| Edit::parse(s))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        remove(&mut inv, removes).ok()?;
        Simulation::run(inv, &edits, self.opts).ok()
    }

    /// Does simulating with these changes admit the workload?
    fn admits(&mut self, sets: &[String], removes: &[String]) -> bool {
        self.run(sets, removes)
            .is_some_and(|sim| sim.after.holding_queue(self.key).is_some())
    }
}

fn args(sets: &[String], removes: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for s in sets {
        out.push("--set".to_string());
        out.push(s.clone());
    }
    for r in removes {
        out.push("--remove".to_string());
        out.push(r.clone());
    }
    out
}

pub fn next_steps(
    inv: &Inventory,
    engine: &Engine,
    key: &WorkloadKey,
    ev: &Evaluation,
    problems: &[String],
    opts: &ConvertOptions,
) -> Vec<NextStep> {
    let mut checker = Checker {
        inv,
        key,
        opts,
        probes: 0,
    };
    let mut steps = Vec::new();
    let Some(w) = engine.workload(key) else {
        return steps;
    };
    let (ns, name) = (w.namespace.clone(), w.name.clone());
    if !problems.is_empty() || engine.blocked_reason(key).is_some() {
        let detail = engine
            .blocked_reason(key)
            .map(|b| b.detail)
            .unwrap_or_else(|| ev.detail.clone());
        if let Some(step) = fix_problem(&mut checker, &detail, &ns, &name, inv) {
            steps.push(step);
        }
        return steps;
    }
    if let PendingDetail::NamespaceNotSelected { namespace } = &ev.detail {
        steps.push(NextStep {
            summary: format!(
                "label namespace {namespace} so it matches the namespaceSelector of ClusterQueue {}, or submit to a LocalQueue whose ClusterQueue selects it",
                ev.cluster_queue.as_deref().unwrap_or("?")
            ),
            simulate_args: vec![],
            verified: false,
            command: None,
        });
        return steps;
    }
    let Some(cq) = ev.cluster_queue.clone() else {
        return steps;
    };
    steps.extend(quota_raises(&mut checker, engine, key, ev, &cq));
    steps.extend(other_local_queues(
        &mut checker,
        inv,
        &ns,
        &name,
        &w.queue_name,
        &cq,
    ));
    steps.extend(wait_for(&mut checker, engine, key, ev, &cq));
    steps
}

fn fix_problem(
    checker: &mut Checker,
    detail: &PendingDetail,
    ns: &str,
    name: &str,
    inv: &Inventory,
) -> Option<NextStep> {
    let (summary, sets, command) = match detail {
        PendingDetail::ClusterQueueInactive {
            cluster_queue,
            why: crate::scheduler::decision::InactiveReason::Stopped,
        } => (
            format!("resume ClusterQueue {cluster_queue}, which is stopped"),
            vec![format!("cq/{cluster_queue}.stopPolicy=None")],
            Some(format!("kubectl kueue resume clusterqueue {cluster_queue}")),
        ),
        PendingDetail::ClusterQueueInactive {
            cluster_queue,
            why: crate::scheduler::decision::InactiveReason::FlavorNotFound(f),
        } => {
            return Some(NextStep {
                summary: format!(
                    "create the ResourceFlavor(s) {} that ClusterQueue {cluster_queue} references",
                    f.join(", ")
                ),
                simulate_args: vec![],
                verified: false,
                command: Some(format!("kubectl kueue create resourceflavor {}", f[0])),
            });
        }
        PendingDetail::LocalQueueStopped { local_queue } => (
            format!("resume LocalQueue {ns}/{local_queue}, which is stopped"),
            vec![format!("lq/{ns}/{local_queue}.stopPolicy=None")],
            Some(format!(
                "kubectl kueue resume localqueue {local_queue} -n {ns}"
            )),
        ),
        PendingDetail::Deactivated => (
            "reactivate the workload (spec.active is false)".to_string(),
            vec![format!("wl/{ns}/{name}.active=true")],
            Some(format!("kubectl kueue resume workload {name} -n {ns}")),
        ),
        PendingDetail::NoLocalQueue { local_queue } => {
            let cqs: Vec<String> = inv
                .cluster_queues
                .iter()
                .filter_map(|c| c.obj.metadata.name.clone())
                .collect();
            let target = cqs
                .first()
                .cloned()
                .unwrap_or_else(|| "<clusterqueue>".into());
            return Some(NextStep {
                summary: format!(
                    "create LocalQueue {local_queue} in namespace {ns} pointing to a ClusterQueue (existing: {})",
                    if cqs.is_empty() {
                        "none".into()
                    } else {
                        cqs.join(", ")
                    }
                ),
                simulate_args: vec![],
                verified: false,
                command: Some(format!(
                    "kubectl kueue create localqueue {local_queue} -n {ns} --clusterqueue {target}"
                )),
            });
        }
        PendingDetail::NoClusterQueue { cluster_queue } => {
            return Some(NextStep {
                summary: format!(
                    "create ClusterQueue {cluster_queue}, which the workload's LocalQueue points to"
                ),
                simulate_args: vec![],
                verified: false,
                command: Some(format!(
                    "kubectl kueue create clusterqueue {cluster_queue} --nominal-quota \"<flavor>:<resource>=<quantity>\""
                )),
            });
        }
        _ => return None,
    };
    let verified = checker.admits(&sets, &[]);
    Some(NextStep {
        summary,
        simulate_args: args(&sets, &[]),
        verified,
        command,
    })
}

/// Per flavor the workload could use: raise the short resources' nominal quota by the
/// shortfall, or by the least more that still admits it when other pending workloads of the
/// cohort would take the new room first.
fn quota_raises(
    checker: &mut Checker,
    engine: &Engine,
    key: &WorkloadKey,
    ev: &Evaluation,
    cq: &str,
) -> Vec<NextStep> {
    let Some(assignment) = &ev.assignment else {
        return vec![];
    };
    // flavor -> resource -> (nominal, shortfall)
    let mut per_flavor: BTreeMap<String, BTreeMap<String, (Amount, Amount)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for ps in &assignment.pod_sets {
        for at in &ps.attempts {
            let FlavorOutcome::Quota { checks, .. } = &at.outcome else {
                continue;
            };
            if !order.contains(&at.flavor) {
                order.push(at.flavor.clone());
            }
            let e = per_flavor.entry(at.flavor.clone()).or_default();
            for c in checks.iter().filter(|c| c.short_by() > 0) {
                let x = e
                    .entry(c.resource.clone())
                    .or_insert((c.nominal, Amount::ZERO));
                x.1 = x.1.max(c.short_by());
            }
        }
    }
    // Pending demand elsewhere in the cohort tree, per resource: workloads ahead in the queue,
    // and other queues' workloads that would borrow the new room first.
    let views = engine.cluster_queues();
    let cohort = views
        .iter()
        .find(|v| v.name == cq)
        .and_then(|v| v.cohort.clone());
    let mut ahead: BTreeMap<String, Amount> = BTreeMap::new();
    for v in views
        .iter()
        .filter(|v| v.name == cq || (cohort.is_some() && v.cohort == cohort))
    {
        for k in v.queue.iter().filter(|k| *k != key) {
            if let Some(w) = engine.workload(k) {
                for ps in &w.pod_sets {
                    for (r, amount) in &ps.per_pod {
                        *ahead.entry(r.clone()).or_default() +=
                            amount.saturating_mul(i64::from(ps.count));
                    }
                }
            }
        }
    }
    let mut steps = Vec::new();
    for flavor in order {
        let Some(short) = per_flavor.get(&flavor).filter(|s| !s.is_empty()) else {
            continue;
        };
        let nominal_of: BTreeMap<String, Amount> =
            short.iter().map(|(r, (n, _))| (r.clone(), *n)).collect();
        let mut nominals: BTreeMap<String, Amount> = nominal_of.clone();
        let mut raise: BTreeMap<String, Amount> =
            short.iter().map(|(r, (_, by))| (r.clone(), *by)).collect();
        let edit =
            |raise: &BTreeMap<String, Amount>, nominals: &BTreeMap<String, Amount>| -> String {
                let parts: Vec<String> = raise
                    .iter()
                    .map(|(r, by)| {
                        format!(
                            "{r}={}",
                            format_amount(
                                r,
                                nominals
                                    .get(r)
                                    .copied()
                                    .unwrap_or_default()
                                    .saturating_add(*by)
                            )
                        )
                    })
                    .collect();
                format!("cq/{cq}.nominalQuota={flavor}:{}", parts.join(";"))
            };
        // Raise by the shortfall; when others take the new room first, or another resource
        // becomes the limit, add what the simulation says is still missing, a few rounds.
        let mut chosen = None;
        for _ in 0..5 {
            let set = edit(&raise, &nominals);
            let Some(sim) = checker.run(std::slice::from_ref(&set), &[]) else {
                break;
            };
            if sim.after.holding_queue(key).is_some() {
                chosen = Some(set);
                break;
            }
            let Some(again) = sim.after.evaluate(key, checker.opts.now) else {
                break;
            };
            let mut grew = false;
            for ps in again.assignment.iter().flat_map(|a| a.pod_sets.iter()) {
                for at in ps.attempts.iter().filter(|a| a.flavor == flavor) {
                    let FlavorOutcome::Quota { checks, .. } = &at.outcome else {
                        continue;
                    };
                    for c in checks.iter().filter(|c| c.short_by() > 0) {
                        nominals.entry(c.resource.clone()).or_insert(
                            c.nominal - raise.get(&c.resource).copied().unwrap_or_default(),
                        );
                        *raise.entry(c.resource.clone()).or_default() += c.short_by();
                        grew = true;
                    }
                }
            }
            if !grew {
                // Short elsewhere (queued behind others): make room for the demand ahead too.
                let mut any = false;
                for (r, v) in &ahead {
                    if raise.contains_key(r) && *v > 0 {
                        *raise.get_mut(r).expect("present") += *v;
                        any = true;
                    }
                }
                ahead.clear();
                if !any {
                    break;
                }
            }
        }
        let Some(mut set) = chosen else { continue };
        // Trim each resource's raise to the least that still admits it.
        let resources: Vec<String> = raise.keys().cloned().collect();
        for r in resources {
            let (mut lo, mut hi) = (Amount::ZERO, raise[&r]);
            for _ in 0..4 {
                if hi - lo <= 1 {
                    break;
                }
                let mid = lo + (hi - lo) / 2;
                let mut trial = raise.clone();
                trial.insert(r.clone(), mid);
                if checker.admits(&[edit(&trial, &nominals)], &[]) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            if hi < raise[&r] {
                let mut trial = raise.clone();
                trial.insert(r.clone(), hi);
                if checker.admits(&[edit(&trial, &nominals)], &[]) {
                    raise = trial;
                    set = edit(&raise, &nominals);
                }
            }
        }
        let changes: Vec<String> = raise
            .iter()
            .map(|(r, by)| {
                let from = nominals.get(r).copied().unwrap_or_default();
                format!(
                    "{r} from {} to {} (+{})",
                    format_amount(r, from),
                    format_amount(r, from + *by),
                    format_amount(r, *by)
                )
            })
            .collect();
        steps.push(NextStep {
            summary: format!(
                "raise ClusterQueue {cq}'s nominal quota on flavor {flavor}: {}",
                changes.join(", ")
            ),
            simulate_args: args(&[set], &[]),
            verified: true,
            command: None,
        });
        if steps.len() == 2 {
            break;
        }
    }
    steps
}

/// Another LocalQueue of the namespace whose ClusterQueue has room now.
fn other_local_queues(
    checker: &mut Checker,
    inv: &Inventory,
    ns: &str,
    name: &str,
    current: &str,
    cq: &str,
) -> Vec<NextStep> {
    let mut steps = Vec::new();
    for lq in &inv.local_queues {
        let lq_ns = lq.obj.metadata.namespace.as_deref().unwrap_or("default");
        let lq_name = lq.obj.metadata.name.as_deref().unwrap_or("");
        let target = lq.obj.spec.cluster_queue.as_deref().unwrap_or("");
        if lq_ns != ns || lq_name == current || target == cq {
            continue;
        }
        let set = format!("wl/{ns}/{name}.queueName={lq_name}");
        if checker.admits(std::slice::from_ref(&set), &[]) {
            steps.push(NextStep {
                summary: format!("LocalQueue {lq_name} (ClusterQueue {target}) has room for it now: submit there instead"),
                simulate_args: args(&[set], &[]),
                verified: true,
                command: None,
            });
        }
    }
    steps
}

/// The fewest running workloads whose end would admit it.
fn wait_for(
    checker: &mut Checker,
    engine: &Engine,
    key: &WorkloadKey,
    ev: &Evaluation,
    cq: &str,
) -> Vec<NextStep> {
    let Some(assignment) = &ev.assignment else {
        return vec![];
    };
    let flavors: Vec<&str> = assignment
        .pod_sets
        .iter()
        .flat_map(|p| p.attempts.iter())
        .map(|a| a.flavor.as_str())
        .collect();
    let requested: Vec<&String> = assignment
        .pod_sets
        .iter()
        .flat_map(|p| p.resource_usage.iter().map(|(r, _)| r))
        .collect();
    let views = engine.cluster_queues();
    let cohort = views
        .iter()
        .find(|v| v.name == cq)
        .and_then(|v| v.cohort.clone());
    let in_scope: Vec<&str> = views
        .iter()
        .filter(|v| v.name == cq || (cohort.is_some() && v.cohort == cohort))
        .map(|v| v.name.as_str())
        .collect();
    // Running workloads on the flavors it could use, biggest users of its resources first.
    let mut running: Vec<(Amount, String)> = engine
        .workloads()
        .filter(|w| w.key() != *key)
        .filter_map(|w| {
            let holding = engine.holding_queue(&w.key())?;
            if !in_scope.contains(&holding) {
                return None;
            }
            let adm = w.admission.as_ref()?;
            let used: Amount = adm
                .pod_sets
                .iter()
                .flat_map(|ps| {
                    ps.flavors.iter().map(move |(r, f)| {
                        (r, f, ps.resource_usage.get(r).copied().unwrap_or_default())
                    })
                })
                .filter(|(r, f, _)| {
                    flavors.contains(&f.as_str()) && (requested.is_empty() || requested.contains(r))
                })
                .map(|(_, _, v)| v)
                .sum();
            (used > 0).then(|| (used, w.key().to_string()))
        })
        .collect();
    running.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    running.truncate(12);
    let mut chosen: Vec<String> = Vec::new();
    let mut admitted = false;
    for (_, k) in &running {
        chosen.push(k.clone());
        if checker.admits(&[], &chosen) {
            admitted = true;
            break;
        }
    }
    if !admitted {
        return vec![];
    }
    // Drop any that turned out unnecessary.
    let mut i = 0;
    while i + 1 < chosen.len() {
        let mut fewer = chosen.clone();
        fewer.remove(i);
        if checker.admits(&[], &fewer) {
            chosen = fewer;
        } else {
            i += 1;
        }
    }
    vec![NextStep {
        summary: format!(
            "it is admitted once {} finish{} (or {} deleted)",
            chosen.join(", "),
            if chosen.len() == 1 { "es" } else { "" },
            if chosen.len() == 1 { "is" } else { "are" }
        ),
        simulate_args: args(&[], &chosen),
        verified: true,
        command: None,
    }]
}
