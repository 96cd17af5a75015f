//! Workload between v1beta1 and v1beta2.
//!
//! | v1beta1 | v1beta2 | going to v1beta2 | going to v1beta1 |
//! |---|---|---|---|
//! | `spec.priorityClassSource` + `spec.priorityClassName` | `spec.priorityClassRef {group, kind, name}` | by source; an empty source drops the name | a ref of another group/kind is dropped |
//! | — | `spec.preemptionGates`, `status.preemptionGates` | — | dropped |
//! | — | `podSets[].topologyRequest.podsetSliceRequiredTopologyConstraints` | — | dropped |
//! | `status.accumulatedPastExexcutionTimeSeconds` | `status.accumulatedPastExecutionTimeSeconds` | renamed | renamed |
//! | `topologyAssignment.domains` | `topologyAssignment.slices` | re-encoded ([`super::topology`]) | expanded |

use super::topology;
use crate::api::v1beta2::{self as v2, PriorityClassGroup, PriorityClassKind, PriorityClassRef};
use crate::api::{self as v1, PriorityClassSource};

/// A v1beta1 Workload as v1beta2.
pub fn to_v1beta2(wl: &v1::Workload) -> v2::Workload {
    v2::Workload {
        metadata: wl.metadata.clone(),
        spec: spec_to_v1beta2(&wl.spec),
        status: wl.status.as_ref().map(status_to_v1beta2),
    }
}

/// A v1beta2 Workload as v1beta1.
pub fn to_v1beta1(wl: &v2::Workload) -> v1::Workload {
    v1::Workload {
        metadata: wl.metadata.clone(),
        spec: spec_to_v1beta1(&wl.spec),
        status: wl.status.as_ref().map(status_to_v1beta1),
    }
}

pub fn spec_to_v1beta2(spec: &v1::WorkloadSpec) -> v2::WorkloadSpec {
    let name = spec.priority_class_name.as_deref().unwrap_or("");
    v2::WorkloadSpec {
        pod_sets: spec.pod_sets.iter().map(pod_set_to_v1beta2).collect(),
        queue_name: spec.queue_name.clone(),
        priority_class_ref: match spec.priority_class_source {
            PriorityClassSource::WorkloadPriorityClass => {
                Some(PriorityClassRef::workload_priority_class(name))
            }
            PriorityClassSource::PodPriorityClass => {
                Some(PriorityClassRef::pod_priority_class(name))
            }
            // Upstream's loss: a name without a source has no v1beta2 spelling.
            PriorityClassSource::Unset => None,
        },
        priority: spec.priority,
        active: spec.active,
        maximum_execution_time_seconds: spec.maximum_execution_time_seconds,
        preemption_gates: Vec::new(),
    }
}

pub fn spec_to_v1beta1(spec: &v2::WorkloadSpec) -> v1::WorkloadSpec {
    let (source, name) = match &spec.priority_class_ref {
        Some(r) => match (r.group, r.kind) {
            (PriorityClassGroup::Kueue, PriorityClassKind::WorkloadPriorityClass) => (
                PriorityClassSource::WorkloadPriorityClass,
                Some(r.name.clone()),
            ),
            (PriorityClassGroup::Scheduling, PriorityClassKind::PriorityClass) => {
                (PriorityClassSource::PodPriorityClass, Some(r.name.clone()))
            }
            // Mixed group and kind (which upstream's CRD rejects) have no v1beta1 spelling.
            _ => (PriorityClassSource::Unset, None),
        },
        None => (PriorityClassSource::Unset, None),
    };
    v1::WorkloadSpec {
        pod_sets: spec.pod_sets.iter().map(pod_set_to_v1beta1).collect(),
        queue_name: spec.queue_name.clone(),
        priority_class_name: name,
        priority: spec.priority,
        priority_class_source: source,
        active: spec.active,
        maximum_execution_time_seconds: spec.maximum_execution_time_seconds,
    }
}

fn pod_set_to_v1beta2(ps: &v1::PodSet) -> v2::PodSet {
    v2::PodSet {
        name: ps.name.clone(),
        template: ps.template.clone(),
        count: ps.count,
        min_count: ps.min_count,
        topology_request: ps
            .topology_request
            .as_ref()
            .map(|t| v2::PodSetTopologyRequest {
                required: t.required.clone(),
                preferred: t.preferred.clone(),
                unconstrained: t.unconstrained,
                pod_index_label: t.pod_index_label.clone(),
                sub_group_index_label: t.sub_group_index_label.clone(),
                sub_group_count: t.sub_group_count,
                pod_set_group_name: t.pod_set_group_name.clone(),
                pod_set_slice_required_topology: t.pod_set_slice_required_topology.clone(),
                pod_set_slice_size: t.pod_set_slice_size,
                podset_slice_required_topology_constraints: Vec::new(),
            }),
    }
}

fn pod_set_to_v1beta1(ps: &v2::PodSet) -> v1::PodSet {
    v1::PodSet {
        name: ps.name.clone(),
        template: ps.template.clone(),
        count: ps.count,
        min_count: ps.min_count,
        topology_request: ps
            .topology_request
            .as_ref()
            .map(|t| v1::PodSetTopologyRequest {
                required: t.required.clone(),
                preferred: t.preferred.clone(),
                unconstrained: t.unconstrained,
                pod_index_label: t.pod_index_label.clone(),
                sub_group_index_label: t.sub_group_index_label.clone(),
                sub_group_count: t.sub_group_count,
                pod_set_group_name: t.pod_set_group_name.clone(),
                pod_set_slice_required_topology: t.pod_set_slice_required_topology.clone(),
                pod_set_slice_size: t.pod_set_slice_size,
            }),
    }
}

pub fn status_to_v1beta2(status: &v1::WorkloadStatus) -> v2::WorkloadStatus {
    v2::WorkloadStatus {
        conditions: status.conditions.clone(),
        admission: status.admission.as_ref().map(|a| v2::Admission {
            cluster_queue: a.cluster_queue.clone(),
            pod_set_assignments: a
                .pod_set_assignments
                .iter()
                .map(|p| v2::PodSetAssignment {
                    name: p.name.clone(),
                    flavors: p.flavors.clone(),
                    resource_usage: p.resource_usage.clone(),
                    count: p.count,
                    topology_assignment: p.topology_assignment.as_ref().map(topology::to_v1beta2),
                    delayed_topology_request: p.delayed_topology_request,
                })
                .collect(),
        }),
        requeue_state: status.requeue_state.clone(),
        reclaimable_pods: status.reclaimable_pods.clone(),
        admission_checks: status.admission_checks.clone(),
        resource_requests: status.resource_requests.clone(),
        accumulated_past_execution_time_seconds: status.accumulated_past_execution_time_seconds,
        scheduling_stats: status.scheduling_stats.clone(),
        nominated_cluster_names: status.nominated_cluster_names.clone(),
        cluster_name: status.cluster_name.clone(),
        unhealthy_nodes: status.unhealthy_nodes.clone(),
        preemption_gates: Vec::new(),
    }
}

pub fn status_to_v1beta1(status: &v2::WorkloadStatus) -> v1::WorkloadStatus {
    v1::WorkloadStatus {
        conditions: status.conditions.clone(),
        admission: status.admission.as_ref().map(|a| v1::Admission {
            cluster_queue: a.cluster_queue.clone(),
            pod_set_assignments: a
                .pod_set_assignments
                .iter()
                .map(|p| v1::PodSetAssignment {
                    name: p.name.clone(),
                    flavors: p.flavors.clone(),
                    resource_usage: p.resource_usage.clone(),
                    count: p.count,
                    topology_assignment: p.topology_assignment.as_ref().map(topology::to_v1beta1),
                    delayed_topology_request: p.delayed_topology_request,
                })
                .collect(),
        }),
        requeue_state: status.requeue_state.clone(),
        reclaimable_pods: status.reclaimable_pods.clone(),
        admission_checks: status.admission_checks.clone(),
        resource_requests: status.resource_requests.clone(),
        accumulated_past_execution_time_seconds: status.accumulated_past_execution_time_seconds,
        scheduling_stats: status.scheduling_stats.clone(),
        nominated_cluster_names: status.nominated_cluster_names.clone(),
        cluster_name: status.cluster_name.clone(),
        unhealthy_nodes: status.unhealthy_nodes.clone(),
    }
}
