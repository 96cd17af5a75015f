//! The invariant checker: watches a cluster during a test and fails on the first violation.
//!
//! ```ignore
//! let checker = Checker::start(cluster.client());
//! // ... the test: Jobs, faults, preemptions ...
//! checker.assert_clean();                 // anytime: panics with the first violation
//! let report = checker.finish();          // stops; panics on a violation or if it hardly ran
//! assert_every_job_ran_once(&client, &namespaces).await;
//! ```
//!
//! Every `interval` (250 ms by default) it lists pods, then Workloads, ClusterQueues, Cohorts,
//! Jobs and Namespaces, and checks them with [`rules::check`] (the invariants are listed there).
//! A pass whose lists fail (an API server restarting or stopped) is skipped whole; what
//! happened in between is still caught by the counts the rules keep (admissions against
//! recorded evictions). The first violation is kept and the watching stops.
//!
//! [`assert_every_job_ran_once`] is the final check of the fault tests: every Job complete,
//! exactly one Workload each, finished, and no more pods succeeded in its last run than
//! completions.

pub mod quota;
pub mod rules;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{Api, ListParams};
use kubectl_kueue::api::{ClusterQueue, Cohort, Workload};

pub use rules::{History, Snapshot};

#[derive(Default, Debug, Clone)]
pub struct Report {
    /// Snapshots checked (passes whose lists all succeeded).
    pub passes: u64,
    /// Passes skipped because a list failed.
    pub skipped: u64,
    /// The most Workloads seen holding quota at once, and distinct admissions seen.
    pub max_holding: usize,
    pub admissions: u64,
    /// Pods seen alive while their Workload held no quota, within the grace (none without one).
    pub late_pods: u64,
    pub longest_late: Duration,
    pub violation: Option<String>,
}

pub struct Checker {
    report: Arc<Mutex<Report>>,
    task: tokio::task::JoinHandle<()>,
}

async fn list<K>(api: Api<K>) -> Option<Vec<K>>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default()).await.ok().map(|l| l.items)
}

/// One snapshot, or `None` when any list fails.
pub async fn snapshot(client: &kube::Client) -> Option<Snapshot> {
    let pods = list(Api::<Pod>::all(client.clone())).await?;
    let workloads = list(Api::<Workload>::all(client.clone())).await?;
    let cluster_queues = list(Api::<ClusterQueue>::all(client.clone())).await?;
    let cohorts = list(Api::<Cohort>::all(client.clone())).await?;
    let jobs = list(Api::<Job>::all(client.clone())).await?;
    let namespaces = list(Api::<Namespace>::all(client.clone()))
        .await?
        .into_iter()
        .map(|n| {
            let labels = n.metadata.labels.unwrap_or_default();
            (n.metadata.name.unwrap_or_default(), labels)
        })
        .collect();
    Some(Snapshot {
        pods,
        workloads,
        cluster_queues,
        cohorts,
        jobs,
        namespaces,
    })
}

/// One pass: a snapshot checked against `hist`, suspect pods read again. `None` when the
/// snapshot could not be taken; else the violations found and the pods confirmed alive while
/// their Workload held no quota (violations too, unless a grace applies: [`Checker::with_grace`]).
pub async fn check_once(
    client: &kube::Client,
    hist: &mut History,
) -> Option<(Vec<String>, Vec<rules::Suspect>)> {
    let snap = snapshot(client).await?;
    let (out, suspects) = rules::check(&snap, hist);
    let mut confirmed = Vec::new();
    for s in suspects {
        let again = Api::<Pod>::namespaced(client.clone(), &s.namespace)
            .get_opt(&s.name)
            .await
            .ok()?;
        if again.is_some_and(|p| p.metadata.uid.as_deref() == Some(&s.uid) && rules::pod_alive(&p))
        {
            confirmed.push(s);
        }
    }
    Some((out, confirmed))
}

impl Checker {
    pub fn start(client: kube::Client) -> Checker {
        Checker::with_grace(client, Duration::from_millis(250), Duration::ZERO)
    }

    pub fn every(client: kube::Client, interval: Duration) -> Checker {
        Checker::with_grace(client, interval, Duration::ZERO)
    }

    /// A pod seen alive while its Workload holds no quota is a violation only once it has
    /// been seen so for longer than `grace` (counted in [`Report::late_pods`] before). For the
    /// known lag of the Job's status (see the README, Reliability): the quota is released on
    /// `status.active + terminating == 0`, which can be written before the Job controller
    /// counts a pod it has just created.
    pub fn with_grace(client: kube::Client, interval: Duration, grace: Duration) -> Checker {
        let report = Arc::new(Mutex::new(Report::default()));
        let r = report.clone();
        let task = tokio::spawn(async move {
            let mut hist = History::default();
            let mut late: BTreeMap<String, std::time::Instant> = BTreeMap::new();
            loop {
                let found = check_once(&client, &mut hist).await;
                {
                    let mut rep = r.lock().unwrap();
                    match found {
                        None => rep.skipped += 1,
                        Some((mut v, pods)) => {
                            rep.passes += 1;
                            rep.admissions =
                                hist.workloads.values().map(|s| s.admissions as u64).sum();
                            let holding =
                                hist.workloads.values().filter(|s| s.held.is_some()).count();
                            rep.max_holding = rep.max_holding.max(holding);
                            let now = std::time::Instant::now();
                            late.retain(|uid, _| pods.iter().any(|p| &p.uid == uid));
                            for p in pods {
                                let first = *late.entry(p.uid.clone()).or_insert_with(|| {
                                    rep.late_pods += 1;
                                    now
                                });
                                let for_ = now - first;
                                rep.longest_late = rep.longest_late.max(for_);
                                if for_ >= grace {
                                    v.push(format!("{} (for {for_:?})", p.why));
                                }
                            }
                            if let Some(first) = v.into_iter().next() {
                                eprintln!("invariant violated: {first}");
                                rep.violation = Some(first);
                                return;
                            }
                        }
                    }
                }
                tokio::time::sleep(interval).await;
            }
        });
        Checker { report, task }
    }

    pub fn report(&self) -> Report {
        self.report.lock().unwrap().clone()
    }

    /// Panics with the first violation, if any.
    pub fn assert_clean(&self) {
        if let Some(v) = &self.report().violation {
            panic!("invariant violated: {v}");
        }
    }

    /// Stops watching; panics on a violation or when it checked fewer than `min_passes`.
    pub fn finish(self, min_passes: u64) -> Report {
        self.task.abort();
        let rep = self.report();
        if let Some(v) = &rep.violation {
            panic!("invariant violated: {v}");
        }
        assert!(
            rep.passes >= min_passes,
            "the invariant checker hardly ran: {rep:?}"
        );
        rep
    }
}

/// The final check: every Job of `namespaces` complete, with exactly one Workload, finished,
/// and no more pods succeeded in its last run than its completions (ran to completion exactly
/// once). Returns the Jobs seen and the pods that succeeded in an earlier, stopped run.
///
/// A run is the time since the Workload's last `QuotaReserved` transition. A pod that
/// succeeded before it belongs to a run that was stopped (an eviction suspended the Job) and
/// that the Job controller could not end in time: under an API server restart its pod
/// deletions fail, and a pod that then completes is not work this controller admitted twice
/// (the live checker bounds how long such a pod may outlive its quota). Those are counted, not
/// failed; a pod that succeeded after its deletion was asked for is ignored the same way.
pub async fn assert_every_job_ran_once(
    client: &kube::Client,
    namespaces: &[String],
) -> (usize, usize) {
    let mut problems = Vec::new();
    let (mut jobs_seen, mut earlier_runs) = (0, 0);
    for ns in namespaces {
        let jobs = list(Api::<Job>::namespaced(client.clone(), ns))
            .await
            .expect("list Jobs");
        let wls = list(Api::<Workload>::namespaced(client.clone(), ns))
            .await
            .expect("list Workloads");
        let pods = list(Api::<Pod>::namespaced(client.clone(), ns))
            .await
            .expect("list pods");
        let mut succeeded: BTreeMap<&str, Vec<Option<Time>>> = BTreeMap::new();
        for p in &pods {
            if p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Succeeded")
                && p.metadata.deletion_timestamp.is_none()
                && let Some(j) = rules::owning_job(&p.metadata)
            {
                succeeded.entry(j).or_default().push(finished_at(p));
            }
        }
        for j in &jobs {
            jobs_seen += 1;
            let name = j.metadata.name.clone().unwrap_or_default();
            let uid = j.metadata.uid.clone().unwrap_or_default();
            let complete = j
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| {
                    c.iter()
                        .any(|c| c.type_ == "Complete" && c.status == "True")
                });
            let completions = j.spec.as_ref().and_then(|s| s.completions).unwrap_or(1);
            let mine: Vec<&Workload> = wls
                .iter()
                .filter(|w| rules::owning_job(&w.metadata) == Some(uid.as_str()))
                .collect();
            let finished = mine.iter().all(|w| {
                w.status
                    .as_ref()
                    .is_some_and(|s| s.condition_is_true("Finished"))
            });
            let run_began = mine
                .first()
                .and_then(|w| w.status.as_ref()?.condition("QuotaReserved"))
                .map(|c| c.last_transition_time.0);
            let (this_run, earlier): (Vec<_>, Vec<_>) = succeeded
                .get(uid.as_str())
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .partition(|at| match (at, run_began) {
                    (Some(at), Some(began)) => at.0 >= began,
                    _ => true,
                });
            earlier_runs += earlier.len();
            let ok_pods = i32::try_from(this_run.len()).unwrap_or(i32::MAX);
            if !complete || mine.len() != 1 || !finished || ok_pods > completions {
                problems.push(format!(
                    "{ns}/{name}: complete={complete}, {} Workload(s), finished={finished}, \
                     {ok_pods} pod(s) succeeded of {completions} in its last run ({} earlier)",
                    mine.len(),
                    earlier.len()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {jobs_seen} Jobs did not run to completion exactly once: {:#?}",
        problems.len(),
        &problems[..problems.len().min(20)]
    );
    (jobs_seen, earlier_runs)
}

/// When the pod's last container finished (whole seconds, as the API gives it).
fn finished_at(pod: &Pod) -> Option<Time> {
    pod.status
        .as_ref()?
        .container_statuses
        .as_ref()?
        .iter()
        .filter_map(|c| c.state.as_ref()?.terminated.as_ref()?.finished_at.clone())
        .max_by_key(|t| t.0)
}
