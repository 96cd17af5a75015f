//! Where a submitted Job is, as `submit` follows it: waiting for its Workload, queued (with
//! its place), stopped, quota reserved, admitted on a flavor, evicted, running, finished.
//!
//! Built on the Job integration's own checks ([`crate::integration::job`]: live pods,
//! finished, suspended; [`WorkloadView`]: the Workload as the Job sees it), so `submit` and the
//! controller agree on when a Job runs or is done.
//! Invariants: a finished Job is finished whatever its Workload says; the phases are ordered by
//! how far the Job got ([`Milestone`]).

use crate::simulate::forecast::Estimate;
use k8s_openapi::api::batch::v1::Job;

use super::snapshot::{Position, Reason, Snapshot};
use super::workload::{admitted_cluster_queue, assigned_flavors};
use crate::api::Workload;
use crate::api::workload_status::condition;
use crate::integration::job::{finished, is_suspended, live_pods};
use crate::manifests::ObjectKey;
use crate::status::WorkloadView;

/// What `submit --wait` waits for (the variants' docs are `--wait`'s help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Milestone {
    /// Quota reserved and admitted.
    Admitted,
    /// Pods running.
    Running,
    /// The Job completed or failed.
    Finished,
}

/// Where the quota of an admitted (or reserving) Workload is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The assigned flavors, in first-seen order.
    pub flavors: Vec<String>,
    pub cluster_queue: String,
}

/// How a Job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    JobCompleted,
    /// The Job's `Failed` condition, with its reason.
    JobFailed {
        reason: String,
    },
    /// The Workload's `Finished` condition (its reason says whether it succeeded).
    WorkloadFinished {
        succeeded: bool,
        message: String,
    },
}

impl Finish {
    pub fn succeeded(&self) -> bool {
        match self {
            Finish::JobCompleted => true,
            Finish::JobFailed { .. } => false,
            Finish::WorkloadFinished { succeeded, .. } => *succeeded,
        }
    }
}

/// Where a submitted Job is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// The Kueue controller has not created the Job's Workload (yet).
    NoWorkload,
    /// Pending: its place in the ClusterQueue (none when not queued) and why it waits. Read
    /// with a snapshot; without one, both are unknown.
    Queued {
        position: Option<Position>,
        reason: Option<Reason>,
        /// When it is expected to start ([`super::forecast`]), with a snapshot.
        estimate: Option<Box<Estimate>>,
    },
    /// Deactivated (`spec.active=false`).
    Inactive,
    /// Quota reserved, waiting for admission checks.
    Reserved(Placement),
    Admitted(Placement),
    Evicted(Reason),
    Running {
        pods: i32,
        placement: Placement,
    },
    Finished(Finish),
}

impl Phase {
    /// The phase of `job` with its Workload `wl`. A pending Workload's place comes from
    /// `snapshot`; read one when the phase without it is [`Phase::Queued`].
    pub fn of(job: &Job, wl: Option<&Workload>, snapshot: Option<&Snapshot>) -> Phase {
        if let Some((completed, _)) = finished(job) {
            return Phase::Finished(if completed {
                Finish::JobCompleted
            } else {
                Finish::JobFailed {
                    reason: job_failed_reason(job),
                }
            });
        }
        let Some(w) = wl else {
            return Phase::NoWorkload;
        };
        let seen = WorkloadView::of(w);
        let placement = || Placement {
            flavors: assigned_flavors(w),
            cluster_queue: admitted_cluster_queue(w),
        };
        let cond = |t: &str| {
            w.status
                .as_ref()
                .and_then(|s| s.condition(t))
                .map(|c| Reason {
                    reason: c.reason.clone(),
                    message: c.message.clone(),
                })
                .unwrap_or_default()
        };
        if seen.finished {
            let c = cond(condition::FINISHED);
            Phase::Finished(Finish::WorkloadFinished {
                succeeded: c.reason == "Succeeded",
                message: c.message,
            })
        } else if seen.has_reservation && seen.evicted.is_some() {
            Phase::Evicted(cond(condition::EVICTED))
        } else if seen.admitted {
            let pods = live_pods(job);
            if pods > 0 && !is_suspended(job) {
                Phase::Running {
                    pods,
                    placement: placement(),
                }
            } else {
                Phase::Admitted(placement())
            }
        } else if seen.has_reservation {
            Phase::Reserved(placement())
        } else if !w.spec.active {
            Phase::Inactive
        } else {
            let key = ObjectKey::workload(&w.metadata);
            Phase::Queued {
                position: snapshot.and_then(|s| s.positions().remove(&key)),
                reason: snapshot.and_then(|s| s.pending_reason(w)),
                estimate: snapshot
                    .and_then(|s| super::forecast::of(s).estimate(&key).cloned())
                    .map(Box::new),
            }
        }
    }

    /// Whether the Job got as far as `goal` (a finished Job got as far as it will).
    pub fn reached(&self, goal: Milestone) -> bool {
        match self {
            Phase::Finished(_) => true,
            Phase::Running { .. } => goal <= Milestone::Running,
            Phase::Admitted(_) => goal == Milestone::Admitted,
            _ => false,
        }
    }

    /// A Job that failed (`submit --wait` then exits 3).
    pub fn failed(&self) -> bool {
        matches!(self, Phase::Finished(f) if !f.succeeded())
    }
}

/// How a follow ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Without a goal: the phase once the Workload exists (or the wait for it ended);
    /// `workload_seen` says whether it exists.
    Seen { phase: Phase, workload_seen: bool },
    /// The goal was reached (a Job that finished successfully reaches every goal).
    Reached(Phase),
    /// The Job failed.
    Failed(Phase),
    /// The timeout passed first; the phase it was in.
    TimedOut(Phase),
}

fn job_failed_reason(job: &Job) -> String {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.type_ == "Failed" && c.status == "True")
        })
        .and_then(|c| c.reason.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(status: &str) -> Job {
        serde_yaml::from_str(&format!(
            "metadata: {{name: j, namespace: ns}}\nspec: {{suspend: false, template: {{spec: {{containers: [{{name: c}}]}}}}}}\nstatus: {status}\n"
        ))
        .unwrap()
    }

    fn admitted_workload() -> Workload {
        crate::api::from_yaml_str(
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w, namespace: ns}\nspec:\n  queueName: q\n  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]\nstatus:\n  admission:\n    clusterQueue: cq\n    podSetAssignments: [{name: main, flavors: {nvidia.com/gpu: gpu-a100}, count: 1}]\n  conditions:\n  - {type: QuotaReserved, status: \"True\", reason: QuotaReserved, message: m, lastTransitionTime: \"2025-07-22T09:00:00Z\"}\n  - {type: Admitted, status: \"True\", reason: Admitted, message: m, lastTransitionTime: \"2025-07-22T09:00:00Z\"}\n",
        )
        .unwrap()
    }

    #[test]
    fn a_finished_job_is_finished_whatever_its_workload_says() {
        let failed =
            job("{conditions: [{type: Failed, status: \"True\", reason: BackoffLimitExceeded}]}");
        let p = Phase::of(&failed, Some(&admitted_workload()), None);
        assert_eq!(
            p,
            Phase::Finished(Finish::JobFailed {
                reason: "BackoffLimitExceeded".into()
            })
        );
        assert!(p.failed() && p.reached(Milestone::Admitted));
    }

    #[test]
    fn an_admitted_workload_runs_once_its_job_has_live_pods() {
        let wl = admitted_workload();
        let placement = Placement {
            flavors: vec!["gpu-a100".into()],
            cluster_queue: "cq".into(),
        };
        let p = Phase::of(&job("{}"), Some(&wl), None);
        assert_eq!(p, Phase::Admitted(placement.clone()));
        assert!(p.reached(Milestone::Admitted) && !p.reached(Milestone::Running));
        let p = Phase::of(&job("{active: 2}"), Some(&wl), None);
        assert_eq!(p, Phase::Running { pods: 2, placement });
        assert!(p.reached(Milestone::Running) && !p.reached(Milestone::Finished));
        assert_eq!(Phase::of(&job("{}"), None, None), Phase::NoWorkload);
    }
}
