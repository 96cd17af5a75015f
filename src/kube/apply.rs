//! The controller's writes: Workload, ClusterQueue and LocalQueue status by server-side apply
//! under our own field managers, Workload creation, finalizer removal (Workloads) and
//! finalizer writes (ClusterQueues, ResourceFlavors), Job patches, and Events; plus the read
//! of a Workload whose write had an unknown outcome.
//!
//! Every write goes through [`Writer`]: fenced by the leader-election lease (checked right
//! before each request), many requests in flight at once (bounded by
//! `max_in_flight`, so the API server, not the client, sets the pace) and, only when the
//! configuration asks for it (`clientConnection.qps`/`burst`), a client-side token bucket.
//! Queue status writes have a lane of their own ([`QUEUE_STATUS_IN_FLIGHT`]). Events go to
//! an [`EventSink`] (a bounded queue and one request in flight, outside the token bucket),
//! so they never delay a write that admits, evicts or starts something.
//! Nothing here retries: the caller re-reconciles from the newest state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::core::NamespaceResourceScope;
use kube::{Client, Resource};
use serde_json::{Value, json};
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};

use super::discard::Discard;
use super::events::{EventSink, Outgoing, Reporter};
use super::lean::{Lean, Parts};
use super::lease::Fence;
use crate::api::{
    ClusterQueue, ClusterQueueStatus, LocalQueue, LocalQueueStatus, Workload, WorkloadStatus,
};

/// Field manager of Workload status written by the scheduler and the job integration.
pub const WORKLOAD_STATUS_MANAGER: &str = "kubectl-kueue-admission";
/// Field manager of ClusterQueue and LocalQueue status.
pub const QUEUE_STATUS_MANAGER: &str = "kubectl-kueue-queue-status";
/// Field manager of Job and Workload metadata/spec patches and creations.
pub const CONTROLLER_MANAGER: &str = "kubectl-kueue-job-controller";
/// `reportingController` of our Events.
pub const EVENT_REPORTER: &str = "kubectl-kueue";

/// Upstream's limit on event notes.
const MAX_EVENT_MESSAGE: usize = 1024;

pub use crate::status::truncate_message;

/// A token bucket: `rate` tokens per second, at most `burst` stored.
struct TokenBucket {
    rate: f64,
    burst: f64,
    state: Mutex<(f64, Instant)>,
}

impl TokenBucket {
    async fn take(&self) {
        loop {
            let wait = {
                let mut st = self.state.lock().await;
                let now = Instant::now();
                let refill = now.duration_since(st.1).as_secs_f64() * self.rate;
                st.0 = (st.0 + refill).min(self.burst);
                st.1 = now;
                if st.0 >= 1.0 {
                    st.0 -= 1.0;
                    return;
                }
                Duration::from_secs_f64((1.0 - st.0) / self.rate)
            };
            tokio::time::sleep(wait).await;
        }
    }
}

/// ClusterQueue and LocalQueue status writes in flight at once, in a lane of their own: a
/// round that rewrites a thousand queues' counts must not queue ahead of the writes that
/// admit or evict (they used to share one first-come first-served limit), and the API
/// server's pace sets how often a busy queue's status is rewritten. Two, as upstream's
/// ClusterQueue and LocalQueue reconcilers (one worker each by default): with eight, the
/// queue writes in flight slowed every admission of a saturated API server.
pub const QUEUE_STATUS_IN_FLIGHT: usize = 2;

/// Shared by every write of the controller.
#[derive(Clone)]
pub struct Writer {
    client: Client,
    /// Requests in flight at once in the main lane, and the lane that bounds them.
    max_in_flight: usize,
    in_flight: Arc<Semaphore>,
    /// The queue status lane ([`QUEUE_STATUS_IN_FLIGHT`]).
    queue_status_in_flight: Arc<Semaphore>,
    bucket: Option<Arc<TokenBucket>>,
    /// Started with the first Event (it needs the runtime and the fence).
    events: Arc<std::sync::OnceLock<EventSink>>,
    reporter: Reporter,
    /// With leader election: checked right before each request is sent.
    fence: Option<Fence>,
}

impl Writer {
    /// `rate_limit` is `(qps, burst)`; none, or a QPS of zero or below (upstream: negative),
    /// means no client-side limit.
    pub fn new(
        client: Client,
        max_in_flight: usize,
        rate_limit: Option<(f32, i32)>,
        instance: &str,
    ) -> Writer {
        let bucket = rate_limit
            .filter(|(qps, _)| *qps > 0.0)
            .map(|(qps, burst)| {
                let burst = f64::from(burst.max(1));
                Arc::new(TokenBucket {
                    rate: f64::from(qps),
                    burst,
                    state: Mutex::new((burst, Instant::now())),
                })
            });
        let reporter = Reporter {
            controller: EVENT_REPORTER.to_string(),
            instance: instance.to_string(),
        };
        Writer {
            client,
            max_in_flight: max_in_flight.max(1),
            in_flight: Arc::new(Semaphore::new(max_in_flight.max(1))),
            queue_status_in_flight: Arc::new(Semaphore::new(QUEUE_STATUS_IN_FLIGHT)),
            bucket,
            events: Arc::default(),
            reporter,
            fence: None,
        }
    }

    /// Sends nothing unless `fence` is open at the moment of sending: a write that waited for
    /// its turn while the lease was lost is dropped, never sent.
    pub fn fenced(mut self, fence: Option<Fence>) -> Writer {
        self.fence = fence;
        self
    }

    fn check_fence(&self) -> kube::Result<()> {
        match &self.fence {
            Some(f) => f.check().map_err(|e| kube::Error::Service(Box::new(e))),
            None => Ok(()),
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Requests in flight at once: in the main lane, and in the queue status lane.
    pub fn lane_limits(&self) -> (usize, usize) {
        (self.max_in_flight, QUEUE_STATUS_IN_FLIGHT)
    }

    /// Waits for a free slot (and a token), then checks the fence: the last thing before the
    /// request goes out.
    async fn gate(&self) -> kube::Result<OwnedSemaphorePermit> {
        self.gate_in(&self.in_flight).await
    }

    /// [`Writer::gate`] through another lane than the main one.
    async fn gate_in(&self, lane: &Arc<Semaphore>) -> kube::Result<OwnedSemaphorePermit> {
        let permit = lane
            .clone()
            .acquire_owned()
            .await
            .expect("the write semaphore is never closed");
        if let Some(b) = &self.bucket {
            b.take().await;
        }
        self.check_fence()?;
        Ok(permit)
    }

    /// Server-side applies the parts of a Workload's status the controller owns: conditions,
    /// admission, resource requests, reclaimable pods, scheduling stats, the requeue state
    /// and the accumulated execution time. A part left out (a cleared admission) is removed.
    /// `metadata.uid` guards against a recreated object and `metadata.resourceVersion` (when
    /// known) against a decision made on a stale copy, as upstream's strict status apply: the
    /// API server answers 409 if anyone wrote the Workload since (another leader's admission
    /// not yet seen, a Job's finish), and the caller decides again from the newer copy.
    pub async fn apply_workload_status(
        &self,
        wl: &Workload,
        status: &WorkloadStatus,
    ) -> kube::Result<Workload> {
        let _p = self.gate().await?;
        let (ns, name) = ns_name(wl);
        let owned = WorkloadStatus {
            conditions: status.conditions.clone(),
            admission: status.admission.clone(),
            resource_requests: status.resource_requests.clone(),
            reclaimable_pods: status.reclaimable_pods.clone(),
            scheduling_stats: status.scheduling_stats.clone(),
            requeue_state: status.requeue_state.clone(),
            accumulated_past_execution_time_seconds: status.accumulated_past_execution_time_seconds,
            ..Default::default()
        };
        // Encoded straight from the status (no JSON tree in between).
        let body = StatusApply {
            api_version: crate::api::API_VERSION,
            kind: "Workload",
            metadata: ApplyMeta {
                name: &name,
                namespace: &ns,
                uid: wl.metadata.uid.as_deref(),
                resource_version: wl.metadata.resource_version.as_deref(),
            },
            status: &owned,
        };
        lean_api::<Workload>(&self.client, &ns)
            .patch_status(
                &name,
                &PatchParams::apply(WORKLOAD_STATUS_MANAGER).force(),
                &Patch::Apply(&body),
            )
            .await
            .map(|o| o.0)
    }

    pub async fn create_workload(&self, wl: &Workload) -> kube::Result<Workload> {
        let _p = self.gate().await?;
        let (ns, _) = ns_name(wl);
        let api: Api<Workload> = Api::namespaced(self.client.clone(), &ns);
        api.create(
            &PostParams {
                field_manager: Some(CONTROLLER_MANAGER.to_string()),
                ..Default::default()
            },
            wl,
        )
        .await
        .map(without_managed_fields)
    }

    /// Drops `finalizer` from a Workload, guarded by its resourceVersion.
    pub async fn remove_workload_finalizer(
        &self,
        wl: &Workload,
        finalizer: &str,
    ) -> kube::Result<Workload> {
        let _p = self.gate().await?;
        let (ns, name) = ns_name(wl);
        let rest: Vec<&String> = wl
            .metadata
            .finalizers
            .iter()
            .flatten()
            .filter(|f| *f != finalizer)
            .collect();
        let patch = json!({ "metadata": { "resourceVersion": wl.metadata.resource_version, "finalizers": rest } });
        lean_api::<Workload>(&self.client, &ns)
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|o| o.0)
    }

    /// Deletes a Workload, guarded by its UID and resourceVersion. Returns it as the
    /// deletion left it (being deleted, held by its finalizers).
    pub async fn delete_workload(&self, wl: &Workload) -> kube::Result<Workload> {
        let _p = self.gate().await?;
        let (ns, name) = ns_name(wl);
        let api: Api<Workload> = Api::namespaced(self.client.clone(), &ns);
        let dp = kube::api::DeleteParams {
            preconditions: Some(kube::api::Preconditions {
                uid: wl.metadata.uid.clone(),
                resource_version: wl.metadata.resource_version.clone(),
            }),
            ..Default::default()
        };
        Ok(api.delete(&name, &dp).await?.left_or_else(|_| wl.clone()))
    }

    /// A Workload as the API server has it now (`None`: gone), past the watch cache: what an
    /// unknown write outcome is decided from.
    pub async fn read_workload(
        &self,
        namespace: &str,
        name: &str,
    ) -> kube::Result<Option<Workload>> {
        let _p = self.gate().await;
        let api = lean_api::<Workload>(&self.client, namespace);
        api.get_opt(name).await.map(|o| o.map(|o| o.0))
    }

    /// A Job as the API server has it now (`None`: gone), past the label-filtered watch.
    pub async fn read_job(&self, namespace: &str, name: &str) -> kube::Result<Option<Job>> {
        let _p = self.gate().await;
        let api = lean_api::<Job>(&self.client, namespace);
        api.get_opt(name).await.map(|o| o.map(|o| o.0))
    }

    /// Sets the finalizers of a cluster-scoped object (a ClusterQueue or ResourceFlavor),
    /// guarded by `resource_version`.
    pub async fn set_finalizers<K>(
        &self,
        name: &str,
        resource_version: Option<&str>,
        finalizers: &[String],
    ) -> kube::Result<()>
    where
        K: Resource<Scope = kube::core::ClusterResourceScope, DynamicType = ()>
            + Clone
            + serde::de::DeserializeOwned
            + std::fmt::Debug,
    {
        let _p = self.gate().await?;
        let patch = json!({ "metadata": { "resourceVersion": resource_version, "finalizers": finalizers } });
        let api: Api<K> = Api::all(self.client.clone());
        let pp = PatchParams {
            field_manager: Some(CONTROLLER_MANAGER.to_string()),
            ..Default::default()
        };
        api.patch(name, &pp, &Patch::Merge(&patch))
            .await
            .map(|_| ())
    }

    /// A JSON merge patch of a Workload's spec or metadata, guarded by its resourceVersion.
    pub async fn patch_workload(&self, wl: &Workload, mut patch: Value) -> kube::Result<Workload> {
        let _p = self.gate().await?;
        let (ns, name) = ns_name(wl);
        patch["metadata"]["resourceVersion"] = json!(wl.metadata.resource_version);
        let pp = PatchParams {
            field_manager: Some(CONTROLLER_MANAGER.to_string()),
            ..Default::default()
        };
        lean_api::<Workload>(&self.client, &ns)
            .patch(&name, &pp, &Patch::Merge(&patch))
            .await
            .map(|o| o.0)
    }

    /// A JSON merge patch of a Job (include `metadata.resourceVersion` for optimistic locking).
    pub async fn patch_job(&self, namespace: &str, name: &str, patch: &Value) -> kube::Result<Job> {
        let _p = self.gate().await?;
        let pp = PatchParams {
            field_manager: Some(CONTROLLER_MANAGER.to_string()),
            ..Default::default()
        };
        lean_api::<Job>(&self.client, namespace)
            .patch(name, &pp, &Patch::Merge(patch))
            .await
            .map(|o| o.0)
    }

    /// A JSON merge patch of a Job's status.
    pub async fn patch_job_status(
        &self,
        namespace: &str,
        name: &str,
        patch: &Value,
    ) -> kube::Result<Job> {
        let _p = self.gate().await?;
        let pp = PatchParams {
            field_manager: Some(CONTROLLER_MANAGER.to_string()),
            ..Default::default()
        };
        lean_api::<Job>(&self.client, namespace)
            .patch_status(name, &pp, &Patch::Merge(patch))
            .await
            .map(|o| o.0)
    }

    pub async fn apply_cluster_queue_status(
        &self,
        name: &str,
        status: &ClusterQueueStatus,
    ) -> kube::Result<()> {
        let _p = self.gate_in(&self.queue_status_in_flight).await?;
        let body = json!({
            "apiVersion": crate::api::API_VERSION,
            "kind": "ClusterQueue",
            "metadata": { "name": name },
            "status": status,
        });
        // The answer is not read: the watch brings the queue.
        let api: Api<Discard<ClusterQueue>> = Api::all(self.client.clone());
        api.patch_status(
            name,
            &PatchParams::apply(QUEUE_STATUS_MANAGER).force(),
            &Patch::Apply(&body),
        )
        .await
        .map(|_| ())
    }

    pub async fn apply_local_queue_status(
        &self,
        namespace: &str,
        name: &str,
        status: &LocalQueueStatus,
    ) -> kube::Result<()> {
        let _p = self.gate_in(&self.queue_status_in_flight).await?;
        let body = json!({
            "apiVersion": crate::api::API_VERSION,
            "kind": "LocalQueue",
            "metadata": { "name": name, "namespace": namespace },
            "status": status,
        });
        // The answer is not read: the watch brings the queue.
        Api::<Discard<LocalQueue>>::namespaced(self.client.clone(), namespace)
            .patch_status(
                name,
                &PatchParams::apply(QUEUE_STATUS_MANAGER).force(),
                &Patch::Apply(&body),
            )
            .await
            .map(|_| ())
    }

    /// Events queued or being published (0 before the first).
    pub fn events_pending(&self) -> u64 {
        self.events.get().map_or(0, EventSink::pending)
    }

    /// Publishes an Event about `object` (events.k8s.io/v1) without waiting: queued, and
    /// dropped if the queue is full. `action` is upstream's action, which equals the reason
    /// for every event we send.
    pub fn event(&self, object: &ObjectReference, warning: bool, reason: &str, note: &str) {
        let sink = self.events.get_or_init(|| {
            EventSink::start(
                self.client.clone(),
                self.reporter.clone(),
                self.fence.clone(),
            )
        });
        sink.send(Outgoing {
            about: object.clone(),
            warning,
            reason: reason.to_string(),
            note: truncate_message(note, MAX_EVENT_MESSAGE),
        });
    }
}

/// An object from an answer, without `metadata.managedFields` (never read, and most of the
/// object's size), as the watch keeps objects.
fn without_managed_fields<K: Resource>(mut o: K) -> K {
    o.meta_mut().managed_fields = None;
    o
}

/// A namespace's `K`s, answers decoded without their managed fields at all ([`Lean`]).
/// A server-side apply body for an object's status.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusApply<'a, S> {
    api_version: &'a str,
    kind: &'a str,
    metadata: ApplyMeta<'a>,
    status: &'a S,
}

/// The metadata of [`StatusApply`]: `uid` always (null when unknown), `resourceVersion`
/// when known.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ApplyMeta<'a> {
    name: &'a str,
    namespace: &'a str,
    uid: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_version: Option<&'a str>,
}

fn lean_api<K: Parts<Scope = NamespaceResourceScope>>(client: &Client, ns: &str) -> Api<Lean<K>> {
    Api::namespaced(client.clone(), ns)
}

fn ns_name<K: Resource>(obj: &K) -> (String, String) {
    let m = obj.meta();
    (
        m.namespace.clone().unwrap_or_else(|| "default".to_string()),
        m.name.clone().unwrap_or_default(),
    )
}

/// The reference an Event about `obj` points at.
pub fn reference<K: Resource<DynamicType = ()>>(obj: &K) -> ObjectReference {
    obj.object_ref(&())
}

/// Is this a "the object is gone" error?
pub fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// Is this a validation failure (422)?
pub fn is_invalid(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 422)
}

/// Is this an optimistic-locking conflict?
pub fn is_conflict(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 409)
}
