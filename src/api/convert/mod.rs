//! Upstream's conversion rules between `kueue.x-k8s.io` v1beta1 and v1beta2 (Kueue v0.19's
//! `apis/kueue/v1beta1/*_conversion.go`) and between the two `Configuration` versions, as
//! pure functions on the typed objects: `to_v1beta2` and `to_v1beta1` per kind.
//!
//! Exactly upstream's, losses included: nothing is kept in annotations, so a field only one
//! version has is dropped going to the other (the tables are in each kind's module). Metadata
//! is copied as it is. Round trips are the identity on everything both versions express
//! (property-tested in `tests/it/api_v1beta2.rs`).

pub mod cluster_queue;
pub mod cohort;
pub mod config;
pub mod local_queue;
pub mod resource_flavor;
pub mod review;
pub mod topology;
pub mod workload;
pub mod workload_priority_class;

/// Fields a kind renamed between the versions: (kind, v1beta1 path, v1beta2 path).
const RENAMED: &[(&str, &str, &str)] = &[
    ("ClusterQueue", "spec.cohort", "spec.cohortName"),
    (
        "ClusterQueue",
        "spec.admissionChecks",
        "spec.admissionChecksStrategy.admissionChecks",
    ),
    ("LocalQueue", "status.flavorUsage", "status.flavorsUsage"),
    (
        "Workload",
        "spec.priorityClassName",
        "spec.priorityClassRef.name",
    ),
    (
        "Workload",
        "spec.priorityClassSource",
        "spec.priorityClassRef",
    ),
    (
        "Workload",
        "status.accumulatedPastExexcutionTimeSeconds",
        "status.accumulatedPastExecutionTimeSeconds",
    ),
];

/// The v1beta2 spelling of a v1beta1 field path of a `kind` object (for errors about an
/// object read from a v1beta2 document). Paths of fields both versions share are unchanged.
pub fn field_path_to_v1beta2(kind: &str, path: &str) -> String {
    for (k, old, new) in RENAMED {
        if *k != kind {
            continue;
        }
        if let Some(rest) = path.strip_prefix(old)
            && (rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
        {
            return format!("{new}{rest}");
        }
    }
    if kind == "Workload"
        && let Some(at) = path.find(".topologyAssignment.domains")
    {
        return format!("{}.topologyAssignment.slices", &path[..at]);
    }
    path.to_owned()
}

#[cfg(test)]
mod tests {
    use super::field_path_to_v1beta2 as v2;

    #[test]
    fn renamed_fields_get_their_v1beta2_path() {
        assert_eq!(v2("ClusterQueue", "spec.cohort"), "spec.cohortName");
        assert_eq!(
            v2("ClusterQueue", "spec.admissionChecks[1]"),
            "spec.admissionChecksStrategy.admissionChecks[1]"
        );
        assert_eq!(
            v2(
                "ClusterQueue",
                "spec.admissionChecksStrategy.admissionChecks[0].name"
            ),
            "spec.admissionChecksStrategy.admissionChecks[0].name"
        );
        assert_eq!(
            v2("LocalQueue", "status.flavorUsage[0].resources"),
            "status.flavorsUsage[0].resources"
        );
        assert_eq!(
            v2("Workload", "spec.priorityClassName"),
            "spec.priorityClassRef.name"
        );
        assert_eq!(
            v2(
                "Workload",
                "status.admission.podSetAssignments[0].topologyAssignment.domains[3].count"
            ),
            "status.admission.podSetAssignments[0].topologyAssignment.slices"
        );
        assert_eq!(
            v2("ClusterQueue", "spec.resourceGroups[0].flavors"),
            "spec.resourceGroups[0].flavors"
        );
        assert_eq!(v2("Cohort", "spec.cohort"), "spec.cohort");
    }
}
