//! The words of the Events the controller publishes, exactly as upstream Kueue v0.19 writes
//! them (reasons are the constants next to each builder's call site).

/// `QuotaReserved`, on the Workload.
pub fn quota_reserved(cluster_queue: &str, wait_seconds: f64) -> String {
    format!(
        "Quota reserved in ClusterQueue {cluster_queue}, wait time since queued was {wait_seconds:.0}s"
    )
}

/// `Admitted`, on the Workload (no admission checks: admitted with the reservation).
pub fn admitted(cluster_queue: &str) -> String {
    format!("Admitted by ClusterQueue {cluster_queue}, wait time since reservation was 0s")
}

/// `Preempted`, on the victim: the eviction message plus both priorities (no priority boost).
pub fn preempted(message: &str, preemptor_priority: i32, preemptee_priority: i32) -> String {
    format!(
        "{message}; preemptor effective priority: {preemptor_priority} (base: {preemptor_priority}, boost: 0); preemptee effective priority: {preemptee_priority} (base: {preemptee_priority}, boost: 0)"
    )
}

/// `PreemptedWorkload`, on the preemptor.
pub fn preempted_workload(
    victim: &str,
    victim_uid: &str,
    victim_cluster_queue: &str,
    preemptor_priority: i32,
    preemptee_priority: i32,
) -> String {
    format!(
        "Preempted workload {victim} (UID: {victim_uid}) in ClusterQueue {victim_cluster_queue}; preemptor effective priority: {preemptor_priority} (base: {preemptor_priority}, boost: 0); preemptee effective priority: {preemptee_priority} (base: {preemptee_priority}, boost: 0)"
    )
}

/// `CreatedWorkload`, on the Job.
pub fn created_workload(workload: &str) -> String {
    format!("Created Workload: {workload}")
}

/// `FinishedWorkload`, on the Job.
pub fn finished_workload(workload: &str) -> String {
    format!("Workload '{workload}' is declared finished")
}

/// Reason of the Warning on a Job whose Workload the API server refused to create (ours:
/// upstream only logs it and retries).
pub const FAILED_CREATE_WORKLOAD: &str = "FailedCreateWorkload";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(
            quota_reserved("team-a-queue", 3.2),
            "Quota reserved in ClusterQueue team-a-queue, wait time since queued was 3s"
        );
        assert_eq!(
            admitted("q"),
            "Admitted by ClusterQueue q, wait time since reservation was 0s"
        );
        assert_eq!(
            preempted("Preempted to accommodate a workload", 1000, 100),
            "Preempted to accommodate a workload; preemptor effective priority: 1000 (base: 1000, boost: 0); preemptee effective priority: 100 (base: 100, boost: 0)"
        );
        assert_eq!(
            finished_workload("ns/w"),
            "Workload 'ns/w' is declared finished"
        );
    }
}
