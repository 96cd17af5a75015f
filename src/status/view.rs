//! What a Workload's status says, read back: reserved, admitted, evicted (and why),
//! finished, being deleted. The Job integration and the workload policy decide from it.

use crate::api::Workload;
use crate::api::workload_status::condition;

/// What a Workload says, for the Job integration and the workload policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkloadView {
    /// `QuotaReserved=True` with an admission, `Admitted=True`.
    pub admitted: bool,
    pub has_reservation: bool,
    /// `Evicted=True`, with its message.
    pub evicted: Option<String>,
    pub finished: bool,
    pub deleting: bool,
}

impl WorkloadView {
    pub fn of(wl: &Workload) -> WorkloadView {
        let none = crate::api::WorkloadStatus::default();
        let st = wl.status.as_ref().unwrap_or(&none);
        let has_reservation =
            st.admission.is_some() && st.condition_is_true(condition::QUOTA_RESERVED);
        WorkloadView {
            admitted: has_reservation && st.condition_is_true(condition::ADMITTED),
            has_reservation,
            evicted: st
                .condition(condition::EVICTED)
                .filter(|c| c.status == "True")
                .map(|c| c.message.clone()),
            finished: st.condition_is_true(condition::FINISHED),
            deleting: wl.metadata.deletion_timestamp.is_some(),
        }
    }
}
