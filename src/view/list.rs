//! The rows of `kubectl kueue list ...`, upstream kueuectl's columns as data, and the filters
//! that choose them. Counts and positions come from the engine on a snapshot (or from the
//! Workloads themselves), so they are right on any cluster, ours or upstream's.
//!
//! Invariants: a [`Listing`]'s objects and rows are in the same order, one row per kept
//! object (`-o json|yaml|name` print the objects, the table the rows); durations are
//! milliseconds, `None` when unknown.

use std::collections::BTreeMap;

use kube_core::Resource;

use super::snapshot::Snapshot;
use super::workload::{WorkloadState, assigned_flavors, execution_time, local_queue_counts};
use crate::api::{ClusterQueue, LocalQueue, ResourceFlavor, Workload};
use crate::manifests::ObjectKey;
use crate::manifests::key::namespace_of;
use crate::scheduler::model::Millis;
use crate::simulate::forecast::Estimate;

/// The objects kept by a filter and their rows, in the same order.
#[derive(Debug)]
pub struct Listing<'a, T, R> {
    pub objects: Vec<&'a T>,
    pub rows: Vec<R>,
}

impl<'a, T, R> Listing<'a, T, R> {
    fn from_pairs(pairs: impl IntoIterator<Item = (&'a T, R)>) -> Self {
        let (objects, rows) = pairs.into_iter().unzip();
        Listing { objects, rows }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CqRow {
    pub name: String,
    pub cohort: String,
    pub pending: usize,
    pub admitted: usize,
    pub active: bool,
    pub age: Option<Millis>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LqRow {
    pub namespace: String,
    pub name: String,
    pub cluster_queue: String,
    pub pending: usize,
    pub admitted: usize,
    pub stop_policy: String,
    pub age: Option<Millis>,
}

/// An owner of a Workload (a Job, usually).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub kind: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WlRow {
    pub namespace: String,
    pub name: String,
    pub owners: Vec<Owner>,
    pub local_queue: String,
    pub cluster_queue: String,
    /// Upstream's tokens: PENDING, QUOTARESERVED, ADMITTED, FINISHED.
    pub status: &'static str,
    /// 0-based among pending workloads of the same LocalQueue.
    pub position: Option<usize>,
    pub position_in_cluster_queue: Option<usize>,
    pub priority: i32,
    pub flavors: Vec<String>,
    /// Since admission, until finished or now.
    pub exec_time: Option<Millis>,
    pub age: Option<Millis>,
    /// When a pending workload is expected to start.
    pub estimated_start: Option<Estimate>,
    /// Its pods do not fit the nodes of its forecast flavors ([`super::capacity`]).
    pub capacity: Option<super::capacity::PodFit>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RfRow {
    pub name: String,
    pub node_labels: BTreeMap<String, String>,
    pub age: Option<Millis>,
}

/// How long ago an object was created.
pub fn age_of<K: Resource>(obj: &K, now: Millis) -> Option<Millis> {
    obj.meta()
        .creation_timestamp
        .as_ref()
        .map(|t| now - crate::manifests::convert::millis(t))
}

/// ClusterQueues with their counts; `active` keeps only the active (or inactive) ones.
pub fn cluster_queues<'a>(
    cqs: &'a [ClusterQueue],
    snap: &Snapshot,
    active: Option<bool>,
) -> Listing<'a, ClusterQueue, CqRow> {
    let views: BTreeMap<String, _> = snap
        .engine
        .cluster_queues()
        .into_iter()
        .map(|v| (v.name.clone(), v))
        .collect();
    Listing::from_pairs(cqs.iter().filter_map(|cq| {
        let name = cq.metadata.name.clone().unwrap_or_default();
        let v = views.get(&name);
        let is_active = v.is_some_and(|v| v.inactive.is_none());
        if active.is_some_and(|want| want != is_active) {
            return None;
        }
        let row = CqRow {
            name,
            cohort: cq.spec.cohort_name().unwrap_or("").to_string(),
            pending: v.map_or(0, |v| v.pending),
            admitted: v.map_or(0, |v| v.admitted),
            active: is_active,
            age: age_of(cq, snap.now),
        };
        Some((cq, row))
    }))
}

/// LocalQueues with their counts from `workloads`; `cluster_queue` keeps those pointing to it.
pub fn local_queues<'a>(
    lqs: &'a [LocalQueue],
    workloads: &[Workload],
    cluster_queue: Option<&str>,
    now: Millis,
) -> Listing<'a, LocalQueue, LqRow> {
    let counts = local_queue_counts(&workloads.iter().collect::<Vec<_>>());
    Listing::from_pairs(
        lqs.iter()
            .filter(|lq| cluster_queue.is_none_or(|c| lq.spec.cluster_queue_name() == Some(c)))
            .map(|lq| {
                let namespace = namespace_of(&lq.metadata).to_string();
                let name = lq.metadata.name.clone().unwrap_or_default();
                let c = counts
                    .get(&(namespace.clone(), name.clone()))
                    .copied()
                    .unwrap_or_default();
                let row = LqRow {
                    namespace,
                    name,
                    cluster_queue: lq.spec.cluster_queue_name().unwrap_or("").to_string(),
                    pending: c.pending,
                    admitted: c.admitted,
                    stop_policy: format!("{:?}", lq.spec.stop_policy),
                    age: age_of(lq, now),
                };
                (lq, row)
            }),
    )
}

/// Which Workloads `list workload` shows.
#[derive(Debug, Clone, Default)]
pub struct WorkloadFilter {
    pub cluster_queue: Option<String>,
    pub local_queue: Option<String>,
    /// Upstream's status tokens, lower case (`all`, `pending`, ...); empty: every status.
    pub statuses: Vec<String>,
    /// Only those owned by this object (kind, name), kind compared without case.
    pub owner: Option<Owner>,
}

/// Workloads with their queues, status and position.
pub fn workloads<'a>(
    wls: &'a [Workload],
    snap: &Snapshot,
    filter: &WorkloadFilter,
) -> Listing<'a, Workload, WlRow> {
    let positions = snap.positions();
    let forecast = super::forecast::of(snap);
    Listing::from_pairs(wls.iter().filter_map(|w| {
        let key = ObjectKey::workload(&w.metadata);
        let lq = w.spec.queue().unwrap_or("").to_string();
        let cq = snap.cluster_queue_of_workload(w).unwrap_or_default();
        let state = WorkloadState::of(w);
        if filter.cluster_queue.as_ref().is_some_and(|c| &cq != c)
            || filter.local_queue.as_ref().is_some_and(|q| &lq != q)
        {
            return None;
        }
        if !filter.statuses.is_empty()
            && !filter
                .statuses
                .iter()
                .any(|s| s == "all" || s.eq_ignore_ascii_case(state.upstream_word()))
        {
            return None;
        }
        let owners: Vec<Owner> = w
            .metadata
            .owner_references
            .iter()
            .flatten()
            .map(|o| Owner {
                kind: o.kind.clone(),
                name: o.name.clone(),
            })
            .collect();
        if let Some(want) = &filter.owner
            && !owners
                .iter()
                .any(|o| o.kind.eq_ignore_ascii_case(&want.kind) && o.name == want.name)
        {
            return None;
        }
        let pos = positions.get(&key);
        let row = WlRow {
            namespace: key.namespace.clone(),
            name: key.name.clone(),
            owners,
            local_queue: lq,
            cluster_queue: cq,
            status: state.upstream_word(),
            position: pos.map(|p| p.in_local_queue),
            position_in_cluster_queue: pos.map(|p| p.in_cluster_queue),
            priority: w.spec.priority_or_default(),
            flavors: assigned_flavors(w),
            exec_time: execution_time(w, snap.now),
            age: age_of(w, snap.now),
            estimated_start: forecast.estimate(&key).cloned(),
            capacity: forecast.no_fit.get(&key).cloned(),
        };
        Some((w, row))
    }))
}

/// ResourceFlavors with their node labels.
pub fn resource_flavors(rfs: &[ResourceFlavor], now: Millis) -> Listing<'_, ResourceFlavor, RfRow> {
    Listing::from_pairs(rfs.iter().map(|rf| {
        let row = RfRow {
            name: rf.metadata.name.clone().unwrap_or_default(),
            node_labels: rf.spec.node_labels.clone(),
            age: age_of(rf, now),
        };
        (rf, row)
    }))
}
