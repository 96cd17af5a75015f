//! Which version of the Kueue API each object of the input was written in, and what its
//! v1beta2 document said that the internal (v1beta1) form cannot hold.
//!
//! Documents of both versions are converted to the internal form when read (upstream's rules,
//! [`crate::api::convert`]); this record is what lets the rest stay version-blind: the engine
//! adapter asks which v1beta2-only features an object uses (to report them as unsupported
//! instead of ignoring them), errors are given the field path of the version the document was
//! written in, and the output writes each object back in its own version with its v1beta2-only
//! fields as given.

use std::collections::BTreeMap;

use super::error::InputError;
use super::key::ObjectKey;
use crate::api::v1beta2 as v2;
use crate::api::{KueueVersion, convert};

/// The Kueue kinds the input may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KueueKind {
    ResourceFlavor,
    Cohort,
    ClusterQueue,
    LocalQueue,
    WorkloadPriorityClass,
    Workload,
}

impl KueueKind {
    /// The kind of a document's `kind`, if it is one we read.
    pub fn parse(kind: &str) -> Option<KueueKind> {
        Some(match kind {
            "ResourceFlavor" => KueueKind::ResourceFlavor,
            "Cohort" => KueueKind::Cohort,
            "ClusterQueue" => KueueKind::ClusterQueue,
            "LocalQueue" => KueueKind::LocalQueue,
            "WorkloadPriorityClass" => KueueKind::WorkloadPriorityClass,
            "Workload" => KueueKind::Workload,
            _ => return None,
        })
    }
}

/// A v1beta2 feature an object uses that the internal form has no field for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum V1beta2Feature {
    /// A Workload with a preemption gate that is not open.
    ClosedPreemptionGates,
    /// A ClusterQueue with `concurrentAdmissionPolicy` (acted on only with the
    /// `ConcurrentAdmission` feature gate).
    ConcurrentAdmission,
}

impl V1beta2Feature {
    /// How the engine names it among the unsupported fields.
    pub fn describe(self) -> &'static str {
        match self {
            V1beta2Feature::ClosedPreemptionGates => "spec.preemptionGates (preemption gates)",
            V1beta2Feature::ConcurrentAdmission => {
                "spec.concurrentAdmissionPolicy (concurrent admission)"
            }
        }
    }
}

/// The record for every Kueue object read from documents (objects from elsewhere, such as the
/// live cluster, have none and count as v1beta1).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    versions: BTreeMap<(KueueKind, ObjectKey), KueueVersion>,
    cluster_queues: BTreeMap<ObjectKey, v2::ClusterQueue>,
    workloads: BTreeMap<ObjectKey, v2::Workload>,
}

impl Sources {
    /// Notes that the object `key` of `kind` was written in `version`.
    pub fn record(&mut self, kind: KueueKind, key: ObjectKey, version: KueueVersion) {
        self.versions.insert((kind, key), version);
    }

    /// Keeps a v1beta2 ClusterQueue document as written.
    pub fn keep_cluster_queue(&mut self, key: ObjectKey, cq: v2::ClusterQueue) {
        self.record(KueueKind::ClusterQueue, key.clone(), KueueVersion::V1beta2);
        self.cluster_queues.insert(key, cq);
    }

    /// Keeps a v1beta2 Workload document as written.
    pub fn keep_workload(&mut self, key: ObjectKey, wl: v2::Workload) {
        self.record(KueueKind::Workload, key.clone(), KueueVersion::V1beta2);
        self.workloads.insert(key, wl);
    }

    /// The version the object was written in, if it was read from a document.
    pub fn version_of(&self, kind: KueueKind, key: &ObjectKey) -> Option<KueueVersion> {
        self.versions.get(&(kind, key.clone())).copied()
    }

    /// The version most Kueue documents were written in: v1beta2 when at least as many are
    /// v1beta2 as v1beta1 (and there is one), else v1beta1.
    pub fn majority(&self) -> KueueVersion {
        let v2 = self
            .versions
            .values()
            .filter(|v| **v == KueueVersion::V1beta2)
            .count();
        if v2 > 0 && v2 * 2 >= self.versions.len() {
            KueueVersion::V1beta2
        } else {
            KueueVersion::V1beta1
        }
    }

    /// The v1beta2 ClusterQueue document, when it was one.
    pub fn v1beta2_cluster_queue(&self, key: &ObjectKey) -> Option<&v2::ClusterQueue> {
        self.cluster_queues.get(key)
    }

    /// The v1beta2 Workload document, when it was one.
    pub fn v1beta2_workload(&self, key: &ObjectKey) -> Option<&v2::Workload> {
        self.workloads.get(key)
    }

    /// The v1beta2 features the object uses that the internal form cannot express.
    pub fn v1beta2_features(&self, kind: KueueKind, key: &ObjectKey) -> Vec<V1beta2Feature> {
        let closed_gates =
            kind == KueueKind::Workload && self.workloads.get(key).is_some_and(has_closed_gate);
        let concurrent_admission = kind == KueueKind::ClusterQueue
            && self
                .cluster_queues
                .get(key)
                .is_some_and(|cq| cq.spec.concurrent_admission_policy.is_some());
        [
            (closed_gates, V1beta2Feature::ClosedPreemptionGates),
            (concurrent_admission, V1beta2Feature::ConcurrentAdmission),
        ]
        .into_iter()
        .filter_map(|(used, feature)| used.then_some(feature))
        .collect()
    }

    /// `err` about the object `key` of `kind`, with its field path in the version the
    /// object was written in.
    pub fn in_written_version(
        &self,
        kind: KueueKind,
        key: &ObjectKey,
        mut err: InputError,
    ) -> InputError {
        if self.version_of(kind, key) == Some(KueueVersion::V1beta2) {
            err.field = err
                .field
                .map(|f| convert::field_path_to_v1beta2(kind_name(kind), &f));
        }
        err
    }

    /// Adds the records of `other` (objects added to the input later, as `--add` does).
    pub fn extend(&mut self, other: Sources) {
        self.versions.extend(other.versions);
        self.cluster_queues.extend(other.cluster_queues);
        self.workloads.extend(other.workloads);
    }
}

fn kind_name(kind: KueueKind) -> &'static str {
    match kind {
        KueueKind::ResourceFlavor => "ResourceFlavor",
        KueueKind::Cohort => "Cohort",
        KueueKind::ClusterQueue => "ClusterQueue",
        KueueKind::LocalQueue => "LocalQueue",
        KueueKind::WorkloadPriorityClass => "WorkloadPriorityClass",
        KueueKind::Workload => "Workload",
    }
}

/// Whether a gate of the spec is closed: upstream treats a gate without a status entry, or
/// whose entry is not `Open`, as closed.
fn has_closed_gate(wl: &v2::Workload) -> bool {
    let states = wl
        .status
        .as_ref()
        .map(|s| s.preemption_gates.as_slice())
        .unwrap_or_default();
    wl.spec.preemption_gates.iter().any(|gate| {
        !states
            .iter()
            .any(|s| s.name == gate.name && s.position == Some(v2::PreemptionGatePosition::Open))
    })
}
