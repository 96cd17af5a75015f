//! Invariant 1, admitted usage within the quotas, as plain arithmetic on a snapshot.
//!
//! Data in: the Workloads holding quota, the ClusterQueues and the Cohorts. Data out: one line
//! per breach. The rules, per (flavor, resource):
//! - a ClusterQueue without a cohort uses at most its `nominalQuota`;
//! - in a cohort, at most `nominalQuota + borrowingLimit` (no limit: unbounded here, bounded by
//!   the pool below);
//! - per root cohort, what the members use beyond the part of their quota they do not lend
//!   (`nominalQuota - lendingLimit`, 0 without a lending limit) fits in the pool: the members'
//!   lendable quota (`lendingLimit`, else `nominalQuota`) plus the Cohort objects' own
//!   `nominalQuota` in the tree. That is an upper bound of every valid admission (hierarchical
//!   cohorts' own limits only lower it), so it never reports a valid state.
//!
//! A breach is a violation when an admission took part in it: a ClusterQueue's when a Workload
//! newly holds quota in it, a cohort's when one newly holds quota anywhere in its tree
//! (`fresh`, the ClusterQueues with such a Workload since the last look). Lowering a quota
//! below what already runs is a person's edit, not an over-admission: upstream evicts nothing
//! for it, and neither do we (the fault tests edit quotas down while work runs).
//!
//! Amounts are read with the engine's quantity parser (an exact integer in the resource's unit),
//! the only piece shared with the product: a parser bug would hide from this check, and is what
//! the quantity property tests are for.

use std::collections::BTreeMap;

use kubectl_kueue::api::{ClusterQueue, Cohort, ResourceGroup, Workload};
use kubectl_kueue::scheduler::quantity::parse_amount;

type Key = (String, String); // (flavor, resource)

#[derive(Default, Clone, Copy, Debug)]
struct Limit {
    nominal: i128,
    borrowing: Option<i128>,
    lending: Option<i128>,
}

fn amount(resource: &str, q: &str) -> i128 {
    parse_amount(resource, q)
        .map(|a| a.get() as i128)
        .unwrap_or(0)
}

fn limits(groups: &[ResourceGroup]) -> BTreeMap<Key, Limit> {
    let mut out = BTreeMap::new();
    for g in groups {
        for f in &g.flavors {
            for r in &f.resources {
                let l = Limit {
                    nominal: amount(&r.name, &r.nominal_quota.0),
                    borrowing: r.borrowing_limit.as_ref().map(|q| amount(&r.name, &q.0)),
                    lending: r.lending_limit.as_ref().map(|q| amount(&r.name, &q.0)),
                };
                out.insert((f.name.clone(), r.name.clone()), l);
            }
        }
    }
    out
}

/// Usage per ClusterQueue per (flavor, resource) of the Workloads given (those holding quota).
pub fn usage(holding: &[&Workload]) -> BTreeMap<String, BTreeMap<Key, i128>> {
    let mut out: BTreeMap<String, BTreeMap<Key, i128>> = BTreeMap::new();
    for w in holding {
        let Some(adm) = w.status.as_ref().and_then(|s| s.admission.as_ref()) else {
            continue;
        };
        let per = out.entry(adm.cluster_queue.clone()).or_default();
        for psa in &adm.pod_set_assignments {
            for (res, q) in &psa.resource_usage {
                let flavor = psa.flavors.get(res).cloned().unwrap_or_default();
                *per.entry((flavor, res.clone())).or_default() += amount(res, &q.0).max(0);
            }
        }
    }
    out
}

/// The root of a cohort (itself when it has no Cohort object or no parent; `None` on a cycle).
fn root<'a>(name: &'a str, parents: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let mut cur = name;
    for _ in 0..=parents.len() {
        match parents.get(cur) {
            Some(p) => cur = p,
            None => return Some(cur),
        }
    }
    None
}

/// Every breach of the quota rules that an admission took part in (see the module comment),
/// as a sentence naming the queue or cohort.
pub fn breaches(
    holding: &[&Workload],
    cqs: &[ClusterQueue],
    cohorts: &[Cohort],
    fresh: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let used = usage(holding);
    let parents: BTreeMap<String, String> = cohorts
        .iter()
        .filter_map(|c| {
            let p = c.spec.parent()?;
            Some((c.metadata.name.clone()?, p.to_string()))
        })
        .collect();
    let mut out = Vec::new();
    // root cohort -> key -> (pool, used beyond what is kept)
    let mut pools: BTreeMap<String, BTreeMap<Key, (i128, i128)>> = BTreeMap::new();
    // Root cohorts with a fresh admission somewhere in their tree.
    let mut fresh_roots: std::collections::BTreeSet<String> = Default::default();
    for c in cohorts {
        let Some(name) = c.metadata.name.as_deref() else {
            continue;
        };
        let Some(root) = root(name, &parents) else {
            continue;
        };
        for (k, l) in limits(&c.spec.resource_groups) {
            pools
                .entry(root.to_string())
                .or_default()
                .entry(k)
                .or_default()
                .0 += l.nominal;
        }
    }
    for cq in cqs {
        let name = cq.metadata.name.clone().unwrap_or_default();
        let lim = limits(&cq.spec.resource_groups);
        let zero = BTreeMap::new();
        let u = used.get(&name).unwrap_or(&zero);
        let cohort = cq.spec.cohort_name();
        let root = cohort.and_then(|c| root(c, &parents).map(str::to_string));
        let admitted_here = fresh.contains(&name);
        if admitted_here && let Some(r) = &root {
            fresh_roots.insert(r.clone());
        }
        let keys: std::collections::BTreeSet<&Key> = lim.keys().chain(u.keys()).collect();
        for k in keys {
            let l = lim.get(k).copied().unwrap_or_default();
            let used_here = u.get(k).copied().unwrap_or(0);
            if used_here > 0 && !lim.contains_key(k) && admitted_here {
                out.push(format!(
                    "ClusterQueue {name} holds {used_here} of {}/{} it has no quota for",
                    k.0, k.1
                ));
                continue;
            }
            match (cohort, l.borrowing) {
                _ if !admitted_here => {}
                (None, _) if used_here > l.nominal => out.push(format!(
                    "ClusterQueue {name} (no cohort) holds {used_here} of {}/{}, nominal {}",
                    k.0, k.1, l.nominal
                )),
                (Some(_), Some(b)) if used_here > l.nominal + b => out.push(format!(
                    "ClusterQueue {name} holds {used_here} of {}/{}, nominal {} + borrowing limit {b}",
                    k.0, k.1, l.nominal
                )),
                _ => {}
            }
            if let Some(root) = &root {
                let kept = l.lending.map(|lend| (l.nominal - lend).max(0)).unwrap_or(0);
                let lendable = l.lending.unwrap_or(l.nominal);
                let e = pools
                    .entry(root.clone())
                    .or_default()
                    .entry(k.clone())
                    .or_default();
                e.0 += lendable;
                e.1 += (used_here - kept).max(0);
            }
        }
    }
    for (root, per) in pools {
        if !fresh_roots.contains(&root) {
            continue;
        }
        for (k, (pool, beyond)) in per {
            if beyond > pool {
                out.push(format!(
                    "cohort {root} lends {beyond} of {}/{} beyond its members' kept quota, \
                     its pool (lending limits and cohort quota) is {pool}",
                    k.0, k.1
                ));
            }
        }
    }
    out
}
