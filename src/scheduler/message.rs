//! Every condition and event message the engine writes, as upstream Kueue v0.19 words them
//! (and, for what we knowingly do not support, our own words in the same style).
//!
//! Invariants: these texts reach `QuotaReserved`, `Evicted` and `Preempted` conditions and
//! `Active` on ClusterQueues, so a tool written against upstream's messages reads ours; a
//! template changes only when upstream's does. The engine decides with data
//! ([`super::decision`]); it only renders these for the condition messages. Words for people
//! (explanations, tables) live in the CLI's output layer, not here.

use super::decision::{InactiveReason, PreemptionReason};
use super::labels::Taint;
use super::quantity::{Amount, format_amount};

// --- Why a pending workload is in no queue -------------------------------------------------

/// Workload fields we do not implement (ours; upstream has no such case).
pub fn unsupported_workload(fields: &[String]) -> String {
    format!(
        "kubectl-kueue does not support {} on workloads",
        fields.join(", ")
    )
}

/// `spec.active: false`.
pub const DEACTIVATED: &str = "The workload is deactivated";

pub fn local_queue_missing(local_queue: &str) -> String {
    format!("LocalQueue {local_queue} doesn't exist")
}

pub fn local_queue_inactive(local_queue: &str) -> String {
    format!("LocalQueue {local_queue} is inactive")
}

pub fn cluster_queue_missing(cluster_queue: &str) -> String {
    format!("ClusterQueue {cluster_queue} doesn't exist")
}

pub fn cluster_queue_inactive(cluster_queue: &str) -> String {
    format!("ClusterQueue {cluster_queue} is inactive")
}

/// The ClusterQueue's `namespaceSelector` does not select the workload's namespace.
pub const NAMESPACE_MISMATCH: &str = "workload namespace doesn't match ClusterQueue selector";

// --- Why a nominated workload was not admitted in this cycle -------------------------------

/// Parked with an equivalent workload that just failed, without its own evaluation.
pub const EQUIVALENT_FAILED: &str =
    "Bypassed scheduling evaluation because an equivalent workload recently failed";

pub const OVERLAPPING_TARGETS: &str =
    "Workload has overlapping preemption targets with another workload";

/// Upstream's `QuotaReserved=False` message while `blockAdmission` holds admissions.
pub const WAITING_FOR_PODS_READY: &str =
    "waiting for all admitted workloads to be in PodsReady condition";
pub const NO_LONGER_FITS: &str = "Workload no longer fits after processing another workload";

/// The preemptor's message while its victims are evicted: its flavor assignment message
/// followed by the number of victims.
pub fn pending_preemption(assignment_message: &str, victims: usize) -> String {
    format!("{assignment_message}. Pending the preemption of {victims} workload(s)")
}

// --- Flavor assignment (upstream's `Assignment.Message()` and its parts) -------------------

/// One podSet's failed assignment; `reasons` in any order (they are sorted).
pub fn pod_set_unassigned(pod_set: &str, reasons: &[String]) -> String {
    let mut reasons = reasons.to_vec();
    reasons.sort();
    format!(
        "couldn't assign flavors to pod set {pod_set}: {}",
        reasons.join(", ")
    )
}

/// The whole assignment's message from its podSets' messages.
pub fn assignment(pod_set_messages: &[String]) -> String {
    pod_set_messages.join("; ")
}

/// A requested resource that no resource group of the ClusterQueue covers.
pub fn resource_not_covered(resource: &str) -> String {
    format!("resource {resource} unavailable in ClusterQueue")
}

pub fn flavor_not_found(flavor: &str) -> String {
    format!("flavor {flavor} not found")
}

pub fn untolerated_taint(taint: &Taint, flavor: &str) -> String {
    format!("untolerated taint {taint} in flavor {flavor}")
}

pub fn affinity_mismatch(flavor: &str) -> String {
    format!("flavor {flavor} doesn't match node affinity")
}

/// More than the flavor could ever hold, even with every usage gone.
pub fn exceeds_max_quota(
    resource: &str,
    flavor: &str,
    previously: Amount,
    request: Amount,
    maximum: Amount,
) -> String {
    format!(
        "insufficient quota for {resource} in flavor {flavor}, previously considered podsets requests ({}) + current podset request ({}) > maximum capacity ({})",
        format_amount(resource, previously),
        format_amount(resource, request),
        format_amount(resource, maximum),
    )
}

/// Does not fit in the quota left unused now.
pub fn insufficient_unused_quota(resource: &str, flavor: &str, more_needed: Amount) -> String {
    format!(
        "insufficient unused quota for {resource} in flavor {flavor}, {} more needed",
        format_amount(resource, more_needed)
    )
}

// --- Preemption ------------------------------------------------------------------------------

/// The phrase for a preemption reason inside the eviction message.
pub fn preemption_phrase(reason: PreemptionReason) -> &'static str {
    match reason {
        PreemptionReason::InClusterQueue => "prioritization in the ClusterQueue",
        PreemptionReason::InCohortReclamation => "reclamation within the cohort",
        PreemptionReason::InCohortFairSharing => "Fair Sharing within the cohort",
        PreemptionReason::InCohortReclaimWhileBorrowing => {
            "reclamation within the cohort while borrowing"
        }
    }
}

/// The victim's `Evicted`/`Preempted` message. Empty UIDs read `UNKNOWN`, as upstream's;
/// paths are `/root-cohort/.../cluster-queue`.
pub fn preempted(
    preemptor_uid: &str,
    preemptor_job_uid: Option<&str>,
    reason: PreemptionReason,
    preemptor_path: &str,
    preemptee_path: &str,
) -> String {
    let known = |uid: &str| {
        if uid.is_empty() {
            "UNKNOWN".to_string()
        } else {
            uid.to_string()
        }
    };
    format!(
        "Preempted to accommodate a workload (UID: {}, JobUID: {}) due to {}; preemptor path: {preemptor_path}; preemptee path: {preemptee_path}",
        known(preemptor_uid),
        known(preemptor_job_uid.unwrap_or("")),
        preemption_phrase(reason),
    )
}

// --- Requests that can never be admitted -----------------------------------------------------

/// `QuotaReserved=False`, reason `Misconfigured`: upstream's aggregate of the problems (one as
/// it is, several in brackets).
pub fn invalid_requests(problems: &[String]) -> String {
    let all = match problems {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    format!("resources validation failed: {all}")
}

/// A negative per-pod amount the adapter did not report (the engine's backstop).
pub fn negative_request(index: usize, pod_set: &str, resource: &str, v: Amount) -> String {
    format!(
        "spec.podSets[{index}] ({pod_set}): requests[{resource}]: Invalid value: {:?}: must be greater than or equal to 0",
        format_amount(resource, v)
    )
}

// --- ClusterQueue `Active=False` -------------------------------------------------------------

pub fn cluster_queue_not_active(why: &InactiveReason) -> String {
    match why {
        // Upstream's whole message, with its semicolon.
        InactiveReason::Terminating => {
            "Can't admit new workloads; clusterQueue is terminating".to_string()
        }
        InactiveReason::InvalidSpec(problem) => format!("Can't admit new workloads: {problem}."),
        InactiveReason::Stopped => "Can't admit new workloads: is stopped.".to_string(),
        InactiveReason::FlavorNotFound(f) => format!(
            "Can't admit new workloads: references missing ResourceFlavor(s): {}.",
            f.join(",")
        ),
        InactiveReason::CohortCycle(c) => {
            format!("Can't admit new workloads: cohort {c} is part of a cycle.")
        }
        InactiveReason::Unsupported(f) => format!(
            "Can't admit new workloads: uses features kubectl-kueue does not support: {}.",
            f.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preemption_message_says_unknown_for_missing_uids() {
        assert_eq!(
            preempted(
                "",
                None,
                PreemptionReason::InCohortReclamation,
                "/c/a",
                "/c/b"
            ),
            "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to reclamation within the cohort; preemptor path: /c/a; preemptee path: /c/b"
        );
    }

    #[test]
    fn pod_set_reasons_are_sorted() {
        let m = pod_set_unassigned("main", &["b".into(), "a".into()]);
        assert_eq!(m, "couldn't assign flavors to pod set main: a, b");
        assert_eq!(assignment(&[m.clone(), m]).matches("; ").count(), 1);
    }
}
