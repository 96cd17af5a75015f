//! What `submit` reads while it follows a Job: the Job and its Workload, as they are now.

use k8s_openapi::api::batch::v1::Job;

use super::Connection;
use crate::api::Workload;

/// A submitted Job and its Workload (none until the Kueue controller creates it).
#[derive(Debug, Clone)]
pub struct Observed {
    pub job: Job,
    pub workload: Option<Workload>,
}

impl Connection {
    /// The Job `ns/job` and the Workload `ns/workload`; `None` when the Job is gone.
    pub async fn observe_job(
        &self,
        ns: &str,
        job: &str,
        workload: &str,
    ) -> anyhow::Result<Option<Observed>> {
        let workload = self.get_in::<Workload>(ns, workload).await?;
        Ok(self
            .get_in::<Job>(ns, job)
            .await?
            .map(|job| Observed { job, workload }))
    }
}
