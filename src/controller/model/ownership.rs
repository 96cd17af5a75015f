//! Which Job owns which Workload, kept in both directions so that a deleted Workload finds
//! its Jobs without a scan over every Job (a churn of thousands of deletions would otherwise
//! cost a pass over all Jobs each).
//!
//! Invariant: `workload_of[j] == w` exactly when `jobs_of[w]` contains `j`; a Job maps to at
//! most one Workload.

use std::collections::{BTreeMap, BTreeSet};

use crate::manifests::ObjectKey;
use crate::scheduler::key::WorkloadKey;

#[derive(Debug, Default)]
pub(super) struct Ownership {
    workload_of: BTreeMap<ObjectKey, WorkloadKey>,
    jobs_of: BTreeMap<WorkloadKey, BTreeSet<ObjectKey>>,
}

impl Ownership {
    pub fn workload_of(&self, job: &ObjectKey) -> Option<&WorkloadKey> {
        self.workload_of.get(job)
    }

    /// `job` owns `wl` (replacing whatever it owned before).
    pub fn insert(&mut self, job: ObjectKey, wl: WorkloadKey) {
        if self.workload_of.get(&job) == Some(&wl) {
            return;
        }
        self.remove_job(&job);
        self.jobs_of
            .entry(wl.clone())
            .or_default()
            .insert(job.clone());
        self.workload_of.insert(job, wl);
    }

    /// Forgets `job`; returns the Workload it owned.
    pub fn remove_job(&mut self, job: &ObjectKey) -> Option<WorkloadKey> {
        let wl = self.workload_of.remove(job)?;
        if let Some(jobs) = self.jobs_of.get_mut(&wl) {
            jobs.remove(job);
            if jobs.is_empty() {
                self.jobs_of.remove(&wl);
            }
        }
        Some(wl)
    }

    /// Forgets `wl`; returns the Jobs that owned it.
    pub fn remove_workload(&mut self, wl: &WorkloadKey) -> BTreeSet<ObjectKey> {
        let jobs = self.jobs_of.remove(wl).unwrap_or_default();
        for j in &jobs {
            self.workload_of.remove(j);
        }
        jobs
    }

    pub fn jobs(&self) -> impl Iterator<Item = &ObjectKey> {
        self.workload_of.keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(n: &str) -> ObjectKey {
        ObjectKey {
            namespace: Some("ns".into()),
            name: n.into(),
        }
    }

    fn wl(n: &str) -> WorkloadKey {
        WorkloadKey::new("ns", n)
    }

    #[test]
    fn both_directions_stay_in_step() {
        let mut o = Ownership::default();
        o.insert(job("a"), wl("x"));
        o.insert(job("b"), wl("x"));
        o.insert(job("a"), wl("y"));
        assert_eq!(o.workload_of(&job("a")), Some(&wl("y")));
        assert_eq!(o.remove_workload(&wl("x")), BTreeSet::from([job("b")]));
        assert_eq!(o.workload_of(&job("b")), None);
        assert_eq!(o.remove_job(&job("a")), Some(wl("y")));
        assert!(o.remove_workload(&wl("y")).is_empty());
        assert_eq!(o.jobs().count(), 0);
    }
}
