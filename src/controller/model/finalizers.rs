//! The `kueue.x-k8s.io/resource-in-use` finalizer of ClusterQueues and ResourceFlavors, with
//! upstream's semantics. Upstream adds it in a mutating webhook at creation; we have no
//! webhook server, so the model adds it on first sight of an object not being deleted.
//! - A ClusterQueue being deleted is terminating: the engine keeps it, inactive
//!   (`Terminating`), admitting nothing new while its admitted workloads run on; its finalizer
//!   goes once no workload reserves quota in it.
//! - A ResourceFlavor being deleted keeps its finalizer while a ClusterQueue (terminating ones
//!   included) names it, or a workload holds quota on it.
//!
//! Invariants: one finalizer write per object in flight; the finalizer is never added to an
//! object being deleted (the API server refuses that) and never removed from one that is
//! not; a failed write is tried again after [`RETRY`]. "Holds quota" is the engine's view,
//! which gives quota back only once the release is written, so the finalizer never goes
//! while the API server still shows a reservation.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::kube::watch::Kind;
use crate::manifests::job::RESOURCE_IN_USE_FINALIZER;

use super::Ctx;
use super::plan::{Action, WriteResult};

/// Wait after a failed finalizer write.
pub const RETRY: Duration = Duration::from_secs(2);

/// Where a finalizer write stands. Each holds the resourceVersion the write was guarded by.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Write {
    InFlight(Option<String>),
    /// Done; the watch may still show the version it replaced.
    Written(Option<String>),
    /// Failed: try again from this moment.
    RetryAt(Instant),
}

/// Finalizer writes by object.
#[derive(Debug, Clone, Default)]
pub struct FinalizerWrites {
    writes: BTreeMap<(Kind, String), Write>,
}

impl FinalizerWrites {
    /// A failed write's wait ran out.
    pub fn due(&self, now: Instant) -> bool {
        self.writes
            .values()
            .any(|w| matches!(w, Write::RetryAt(t) if *t <= now))
    }
}

fn has_finalizer(meta: &ObjectMeta) -> bool {
    meta.finalizers
        .iter()
        .flatten()
        .any(|f| f == RESOURCE_IN_USE_FINALIZER)
}

impl Ctx<'_> {
    /// Adds or drops the finalizer of every ClusterQueue and ResourceFlavor as needed.
    pub(super) fn queue_finalizers(&mut self) {
        let (holding, held_flavors) = self.m.engine.quota_holders();
        let mut named_flavors: BTreeSet<String> = BTreeSet::new();
        for cq in self.cache.cluster_queues() {
            for g in &cq.spec.resource_groups {
                named_flavors.extend(g.flavors.iter().map(|f| f.name.clone()));
            }
            let name = cq.metadata.name.clone().unwrap_or_default();
            let in_use = cq.metadata.deletion_timestamp.is_none() || holding.contains(&name);
            self.keep_finalizer(Kind::ClusterQueue, &cq.metadata, in_use);
        }
        for rf in self.cache.flavors() {
            let name = rf.metadata.name.clone().unwrap_or_default();
            let in_use = rf.metadata.deletion_timestamp.is_none()
                || named_flavors.contains(&name)
                || held_flavors.contains(&name);
            self.keep_finalizer(Kind::ResourceFlavor, &rf.metadata, in_use);
        }
    }

    /// Makes `meta`'s finalizer match `in_use`, unless a write for it is in flight or waiting.
    fn keep_finalizer(&mut self, kind: Kind, meta: &ObjectMeta, in_use: bool) {
        let name = meta.name.clone().unwrap_or_default();
        let key = (kind, name.clone());
        match self.m.finalizer_writes.writes.get(&key) {
            None => {}
            Some(Write::InFlight(_)) => return,
            Some(Write::Written(rv)) if *rv == meta.resource_version => return,
            Some(Write::RetryAt(t)) if *t > self.now.instant => return,
            Some(_) => {
                self.m.finalizer_writes.writes.remove(&key);
            }
        }
        let deleting = meta.deletion_timestamp.is_some();
        let has = has_finalizer(meta);
        let mut finalizers: Vec<String> = meta.finalizers.clone().unwrap_or_default();
        if in_use && !has && !deleting {
            finalizers.push(RESOURCE_IN_USE_FINALIZER.to_string());
        } else if !in_use && has && deleting {
            tracing::info!(kind = ?kind, name, "nothing holds quota in it any more; dropping its finalizer");
            finalizers.retain(|f| f != RESOURCE_IN_USE_FINALIZER);
        } else {
            return;
        }
        self.m
            .finalizer_writes
            .writes
            .insert(key, Write::InFlight(meta.resource_version.clone()));
        self.act(Action::WriteQueueFinalizers {
            kind,
            name,
            resource_version: meta.resource_version.clone(),
            finalizers,
        });
    }

    pub(super) fn on_queue_finalizers_written(
        &mut self,
        kind: Kind,
        name: String,
        result: WriteResult<()>,
    ) {
        let key = (kind, name);
        match result {
            Ok(()) => {
                let guard = match self.m.finalizer_writes.writes.remove(&key) {
                    Some(Write::InFlight(rv)) => rv,
                    _ => None,
                };
                self.m
                    .finalizer_writes
                    .writes
                    .insert(key, Write::Written(guard));
            }
            Err(e) => {
                tracing::debug!(kind = ?key.0, name = key.1, error = %e, "could not write the finalizers; will retry");
                self.m
                    .finalizer_writes
                    .writes
                    .insert(key, Write::RetryAt(self.now.instant + RETRY));
            }
        }
        self.m.queues_dirty = true;
    }
}
