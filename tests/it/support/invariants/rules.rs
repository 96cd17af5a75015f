//! The invariants as pure functions of what was observed: a [`Snapshot`] of the cluster and the
//! [`History`] of earlier snapshots in, violations out (each a sentence naming the invariant and
//! the object). No I/O here; [`super::Checker`] gathers the snapshots.
//!
//! The six invariants (names as printed in a violation):
//! - `quota`: admitted usage within nominal + borrowing limits and lending limits, per
//!   ClusterQueue and cohort, wherever a Workload newly holds quota ([`super::quota`]: a quota
//!   lowered below what already runs is an edit, not an over-admission);
//! - `pod-without-admission`: no live pod (not terminal, not being deleted) of a queue-labelled
//!   Job whose Workload does not hold quota (or that has no Workload). The pods are listed
//!   before the Workloads and a suspect pod is read again after them ([`Suspect`]): a pod alive
//!   at both reads was alive when the Workload was seen without quota;
//! - `one-workload-per-job`: at most one Workload (not being deleted) owned by a queue-labelled
//!   Job at any moment (exactly one is the final check's business);
//! - `admitted-twice`: an admission never changes in place; a Workload is never admitted more
//!   often than 1 + its recorded evictions (`status.schedulingStats.evictions`); a finished
//!   Workload never holds quota again;
//! - `namespace-selector`: a Workload newly seen holding quota is in a namespace its
//!   ClusterQueue selects (an unset selector selects every namespace, this product's default
//!   reading; checked at admission only, as a later selector edit evicts nothing upstream);
//! - `admission-lost`: a Workload that held quota and no longer does (not finished, not
//!   deleted) shows an eviction with a reason (`Evicted=True` with a reason, or one more
//!   eviction counted).

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kubectl_kueue::api::{Admission, ClusterQueue, Cohort, QUEUE_NAME_LABEL, Workload};

/// One look at the cluster. `pods` were listed before `workloads`.
#[derive(Default, Clone)]
pub struct Snapshot {
    pub pods: Vec<Pod>,
    pub workloads: Vec<Workload>,
    pub cluster_queues: Vec<ClusterQueue>,
    pub cohorts: Vec<Cohort>,
    pub jobs: Vec<Job>,
    /// Namespace name -> labels.
    pub namespaces: BTreeMap<String, BTreeMap<String, String>>,
}

/// What is remembered of one Workload (by uid) between snapshots.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub name: String,
    /// The admission and the QuotaReserved transition time while it held quota.
    pub held: Option<(Admission, String)>,
    pub admissions: u32,
    pub finished: bool,
    pub evictions: i64,
}

#[derive(Default, Clone)]
pub struct History {
    pub workloads: BTreeMap<String, Seen>,
}

/// A pod that looked alive while its Workload held no quota; a violation once read again alive.
#[derive(Debug, Clone)]
pub struct Suspect {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub why: String,
}

fn uid(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    m.uid.clone().unwrap_or_default()
}

fn key(w: &Workload) -> String {
    format!(
        "{}/{}",
        w.metadata.namespace.as_deref().unwrap_or_default(),
        w.metadata.name.as_deref().unwrap_or_default()
    )
}

fn is_true(w: &Workload, t: &str) -> bool {
    w.status.as_ref().is_some_and(|s| s.condition_is_true(t))
}

/// Holding quota: an admission, `QuotaReserved=True`, not finished.
pub fn holds_quota(w: &Workload) -> bool {
    w.status.as_ref().is_some_and(|s| s.admission.is_some())
        && is_true(w, "QuotaReserved")
        && !is_true(w, "Finished")
}

fn evictions(w: &Workload) -> i64 {
    w.status
        .as_ref()
        .and_then(|s| s.scheduling_stats.as_ref())
        .map(|s| s.evictions.iter().map(|e| e.count as i64).sum())
        .unwrap_or(0)
}

fn reserved_at(w: &Workload) -> String {
    w.status
        .as_ref()
        .and_then(|s| s.condition("QuotaReserved"))
        .map(|c| c.last_transition_time.0.to_string())
        .unwrap_or_default()
}

/// The uid of the Job that owns an object (its controller owner reference of kind Job).
pub fn owning_job(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> Option<&str> {
    m.owner_references
        .iter()
        .flatten()
        .find(|o| o.kind == "Job")
        .map(|o| o.uid.as_str())
}

/// Whether a pod counts as running work: not terminal and not being deleted.
pub fn pod_alive(p: &Pod) -> bool {
    p.metadata.deletion_timestamp.is_none()
        && !matches!(
            p.status.as_ref().and_then(|s| s.phase.as_deref()),
            Some("Succeeded") | Some("Failed")
        )
}

/// `metav1.LabelSelector` matching (an unset selector is handled by the caller).
pub fn selects(sel: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let labels_ok = sel
        .match_labels
        .iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let exprs_ok = sel.match_expressions.iter().flatten().all(|e| {
        let v = labels.get(&e.key);
        let values = e.values.clone().unwrap_or_default();
        match e.operator.as_str() {
            "In" => v.is_some_and(|v| values.contains(v)),
            "NotIn" => v.is_none_or(|v| !values.contains(v)),
            "Exists" => v.is_some(),
            "DoesNotExist" => v.is_none(),
            _ => false,
        }
    });
    labels_ok && exprs_ok
}

/// The invariants on one snapshot, the history updated; suspects to read again.
pub fn check(snap: &Snapshot, hist: &mut History) -> (Vec<String>, Vec<Suspect>) {
    let mut out = Vec::new();
    let holding: Vec<&Workload> = snap.workloads.iter().filter(|w| holds_quota(w)).collect();
    // ClusterQueues where a Workload holds quota it did not hold at the last look.
    let fresh: std::collections::BTreeSet<String> = holding
        .iter()
        .filter(|w| {
            hist.workloads
                .get(&uid(&w.metadata))
                .is_none_or(|s| s.held.is_none())
        })
        .filter_map(|w| Some(w.status.as_ref()?.admission.as_ref()?.cluster_queue.clone()))
        .collect();
    out.extend(
        super::quota::breaches(&holding, &snap.cluster_queues, &snap.cohorts, &fresh)
            .into_iter()
            .map(|b| format!("quota: {b}")),
    );

    // Workloads per queue-labelled Job.
    let labelled: BTreeMap<String, &Job> = snap
        .jobs
        .iter()
        .filter(|j| {
            j.metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key(QUEUE_NAME_LABEL))
        })
        .map(|j| (uid(&j.metadata), j))
        .collect();
    let mut per_job: BTreeMap<&str, Vec<&Workload>> = BTreeMap::new();
    for w in &snap.workloads {
        if w.metadata.deletion_timestamp.is_some() {
            continue;
        }
        if let Some(j) = owning_job(&w.metadata).filter(|j| labelled.contains_key(*j)) {
            per_job.entry(j).or_default().push(w);
        }
    }
    for (j, ws) in &per_job {
        if ws.len() > 1 {
            let job = labelled[*j];
            let names: Vec<String> = ws.iter().map(|w| key(w)).collect();
            out.push(format!(
                "one-workload-per-job: Job {}/{} has {} Workloads: {names:?}",
                job.metadata.namespace.as_deref().unwrap_or_default(),
                job.metadata.name.as_deref().unwrap_or_default(),
                ws.len()
            ));
        }
    }

    // Live pods of labelled Jobs whose Workload holds no quota.
    let mut suspects = Vec::new();
    for p in snap.pods.iter().filter(|p| pod_alive(p)) {
        let Some(job) = owning_job(&p.metadata).and_then(|j| labelled.get(j)) else {
            continue;
        };
        let ws = per_job.get(uid(&job.metadata).as_str());
        let held = ws.is_some_and(|ws| ws.iter().any(|w| holds_quota(w)));
        if !held {
            suspects.push(Suspect {
                namespace: p.metadata.namespace.clone().unwrap_or_default(),
                name: p.metadata.name.clone().unwrap_or_default(),
                uid: uid(&p.metadata),
                why: format!(
                    "pod-without-admission: pod {}/{} of Job {} is alive while {}",
                    p.metadata.namespace.as_deref().unwrap_or_default(),
                    p.metadata.name.as_deref().unwrap_or_default(),
                    job.metadata.name.as_deref().unwrap_or_default(),
                    match ws.and_then(|ws| ws.first()) {
                        Some(w) => format!("its Workload {} holds no quota", key(w)),
                        None => "it has no Workload".to_string(),
                    }
                ),
            });
        }
    }

    // Per Workload: transitions since the last snapshot.
    for w in &snap.workloads {
        let id = uid(&w.metadata);
        let seen = hist.workloads.entry(id).or_default();
        seen.name = key(w);
        let now_holds = holds_quota(w);
        let ev = evictions(w);
        let adm = w.status.as_ref().and_then(|s| s.admission.clone());
        if now_holds {
            let at = reserved_at(w);
            let adm = adm.expect("holding quota means an admission");
            let new = match &seen.held {
                None => true,
                Some((prev, prev_at)) if *prev != adm && *prev_at == at => {
                    out.push(format!(
                        "admitted-twice: the admission of {} changed in place: {:?} -> {:?}",
                        seen.name, prev, adm
                    ));
                    false
                }
                Some((prev, prev_at)) => *prev != adm || *prev_at != at,
            };
            if new {
                seen.admissions += 1;
                if seen.finished {
                    out.push(format!(
                        "admitted-twice: {} holds quota again after it finished",
                        seen.name
                    ));
                }
                if seen.admissions as i64 > 1 + ev {
                    out.push(format!(
                        "admitted-twice: {} admitted {} times with {ev} eviction(s) recorded",
                        seen.name, seen.admissions
                    ));
                }
                out.extend(namespace_breach(w, &adm, snap));
            }
            seen.held = Some((adm, at));
        } else if seen.held.take().is_some() && !is_true(w, "Finished") {
            let evicted = w
                .status
                .as_ref()
                .and_then(|s| s.condition("Evicted"))
                .is_some_and(|c| c.status == "True" && !c.reason.is_empty());
            if !evicted && ev <= seen.evictions {
                out.push(format!(
                    "admission-lost: {} no longer holds quota, with no eviction recorded \
                     (Evicted not True with a reason, {ev} eviction(s) as before)",
                    seen.name
                ));
            }
        }
        seen.finished |= is_true(w, "Finished");
        seen.evictions = ev;
    }
    (out, suspects)
}

fn namespace_breach(w: &Workload, adm: &Admission, snap: &Snapshot) -> Option<String> {
    let cq = snap
        .cluster_queues
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(adm.cluster_queue.as_str()))?;
    let sel = cq.spec.namespace_selector.as_ref()?;
    let ns = w.metadata.namespace.clone().unwrap_or_default();
    let labels = snap.namespaces.get(&ns).cloned().unwrap_or_default();
    (!selects(sel, &labels)).then(|| {
        format!(
            "namespace-selector: {} holds quota in ClusterQueue {}, whose namespaceSelector does \
             not select namespace {ns}",
            key(w),
            adm.cluster_queue
        )
    })
}
