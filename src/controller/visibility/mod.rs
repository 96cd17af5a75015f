//! Upstream's visibility API, `visibility.kueue.x-k8s.io` v1beta2 and v1beta1, served by
//! `run-controller` as an aggregated API (the API server proxies
//! `/apis/visibility.kueue.x-k8s.io/...` to it through the `APIService`s `install` ships):
//! `GET .../clusterqueues/NAME/pendingworkloads` and
//! `GET .../namespaces/NS/localqueues/NAME/pendingworkloads` (`?limit=&offset=`), with the
//! discovery documents the API server and kubectl read.
//!
//! Data in: requests; the answers come from the scheduling loop's own engine through the
//! [`Hub`] while this replica leads, else (a follower, or a leader still listing) from a
//! snapshot of the cluster read for the request. Data out: upstream's JSON, errors as
//! `Status` objects with upstream's reasons and messages.
//!
//! Invariants: served only when an `APIService` of the group exists (nothing calls it
//! otherwise, and laptops and tests need no fixed port); every request is authenticated
//! ([`auth`]) and every list authorized with a SubjectAccessReview on
//! `clusterqueues/pendingworkloads` or `localqueues/pendingworkloads`, so RBAC decides who
//! reads which queue, as upstream's; a question to the loop waits at most [`ANSWER_TIMEOUT`].

pub mod auth;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::IncomingStream;
use axum::{Extension, Router};
use k8s_openapi::api::authentication::v1::UserInfo;
use k8s_openapi::api::authorization::v1::ResourceAttributes;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::Api;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::metrics_auth::{Access, MetricsAuth};
use super::tls::{Peer, TlsListener};
use crate::api::visibility::{GROUP, Page, PendingWorkload, PendingWorkloadsSummary, VERSIONS};
use crate::kube::client::Connection;
use crate::scheduler::Engine;
use crate::view::pending_workloads::{Queue, item_metadata, pending_workloads};

/// How long a request waits for the scheduling loop's answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// Questions waiting for the loop at most (more are answered from a snapshot).
const QUEUED_QUESTIONS: usize = 64;

/// Where the visibility API is served.
#[derive(Debug, Clone)]
pub struct VisibilityOptions {
    pub addr: SocketAddr,
    /// `tls.crt`/`tls.key` to serve (upstream mounts them at `/visibility`); unset: a
    /// self-signed certificate made in memory, as upstream's internal cert management (its
    /// APIServices skip verification, as ours do).
    pub cert_dir: Option<PathBuf>,
}

/// One list asked of the scheduling loop.
pub struct Question {
    pub queue: Queue,
    pub page: Page,
    pub reply: oneshot::Sender<Option<Vec<PendingWorkload>>>,
}

/// Where requests meet the scheduling loop: the loop takes the questions while it runs.
pub struct Hub {
    tx: mpsc::Sender<Question>,
    rx: Mutex<Option<mpsc::Receiver<Question>>>,
    answering: AtomicBool,
}

impl Hub {
    pub fn new() -> Arc<Hub> {
        let (tx, rx) = mpsc::channel(QUEUED_QUESTIONS);
        Arc::new(Hub {
            tx,
            rx: Mutex::new(Some(rx)),
            answering: AtomicBool::new(false),
        })
    }

    /// The questions, for the loop (once).
    pub fn take_questions(&self) -> Option<mpsc::Receiver<Question>> {
        self.rx.lock().ok()?.take()
    }

    /// Whether the loop answers (set by the loop once its caches are synced).
    pub fn set_answering(&self, on: bool) {
        self.answering.store(on, Ordering::SeqCst);
    }

    /// The loop's answer, or `Err` when it does not answer now.
    async fn ask(&self, queue: Queue, page: Page) -> Result<Option<Vec<PendingWorkload>>, ()> {
        if !self.answering.load(Ordering::SeqCst) {
            return Err(());
        }
        let (reply, answer) = oneshot::channel();
        self.tx
            .try_send(Question { queue, page, reply })
            .map_err(|_| ())?;
        match tokio::time::timeout(ANSWER_TIMEOUT, answer).await {
            Ok(Ok(a)) => Ok(a),
            _ => Err(()),
        }
    }
}

/// The loop's answer to `q` from its engine and its Workload cache.
pub fn answer(
    engine: &Engine,
    workloads: &kube::runtime::reflector::Store<crate::kube::stored::StoredWorkload>,
    q: Question,
) {
    let lookup = |ns: &str, name: &str| {
        workloads
            .get(&kube::runtime::reflector::ObjectRef::new(name).within(ns))
            .map(|w| item_metadata(w.metadata()))
    };
    let _ = q
        .reply
        .send(pending_workloads(engine, &q.queue, q.page, &lookup));
}

impl Connected<IncomingStream<'_, TlsListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> Self {
        stream.remote_addr().clone()
    }
}

struct Server {
    conn: Connection,
    hub: Arc<Hub>,
    auth: MetricsAuth,
    front_proxy: Option<auth::FrontProxy>,
}

/// Whether an APIService of the group exists (`Ok(false)` also when we may not read them).
async fn registered(client: &kube::Client) -> anyhow::Result<bool> {
    let api: Api<k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService> =
        Api::all(client.clone());
    for v in VERSIONS {
        match api.get_opt(&format!("{v}.{GROUP}")).await {
            Ok(Some(_)) => return Ok(true),
            Ok(None) => {}
            Err(kube::Error::Api(e)) if e.code == 403 => {
                tracing::warn!(
                    "may not read APIServices, so cannot tell whether the visibility API is registered: not serving it (reinstall with `kubectl kueue install` to grant it)"
                );
                return Ok(false);
            }
            Err(e) => return Err(e).context("cannot read the visibility APIServices"),
        }
    }
    Ok(false)
}

/// Serves the visibility API when it is registered; returns the bound address.
pub async fn start(
    conn: &Connection,
    opts: &VisibilityOptions,
    hub: Arc<Hub>,
) -> anyhow::Result<Option<SocketAddr>> {
    if !registered(&conn.client).await? {
        tracing::info!("no APIService registers {GROUP}: not serving the visibility API");
        return Ok(None);
    }
    let front_proxy = auth::FrontProxy::read(&conn.client).await;
    let (tls, source) = super::tls::server_config_verifying(
        opts.cert_dir.as_deref(),
        front_proxy.as_ref().map(|f| f.client_cas.clone()),
    )?;
    let tcp = tokio::net::TcpListener::bind(opts.addr)
        .await
        .with_context(|| format!("cannot listen on {} for the visibility API", opts.addr))?;
    let local = tcp.local_addr()?;
    let listener = TlsListener::new(tcp, tls)?;
    let server = Arc::new(Server {
        conn: conn.clone(),
        hub,
        auth: MetricsAuth::new(conn.client.clone()),
        front_proxy,
    });
    let app = router(server);
    tokio::spawn(async move {
        let app = app.into_make_service_with_connect_info::<Peer>();
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "visibility API server stopped");
        }
    });
    tracing::info!(address = %local, certificate = %source, "serving {GROUP} (v1beta2, v1beta1) over HTTPS");
    Ok(Some(local))
}

/// The API's routes behind [`require_user`]; the health routes and the fallback open.
fn router(server: Arc<Server>) -> Router {
    let base = format!("/apis/{GROUP}");
    Router::new()
        .route(&base, get(group))
        .route(&format!("{base}/{{version}}"), get(resources))
        .route(
            &format!("{base}/{{version}}/clusterqueues/{{name}}/pendingworkloads"),
            get(cluster_queue),
        )
        .route(
            &format!(
                "{base}/{{version}}/namespaces/{{namespace}}/localqueues/{{name}}/pendingworkloads"
            ),
            get(local_queue),
        )
        .route("/openapi/v2", get(openapi_v2))
        .route("/openapi/v3", get(openapi_v3))
        .route_layer(axum::middleware::from_fn_with_state(
            server.clone(),
            require_user,
        ))
        .route("/healthz", get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok))
        .fallback(not_found_path)
        .with_state(server)
}

/// A `Status` answer.
fn status(code: StatusCode, reason: &str, message: String, details: Option<Value>) -> Response {
    let mut body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "reason": reason, "code": code.as_u16(),
    });
    if let Some(d) = details {
        body["details"] = d;
    }
    (code, axum::Json(body)).into_response()
}

fn unauthorized() -> Response {
    status(
        StatusCode::UNAUTHORIZED,
        "Unauthorized",
        "Unauthorized".into(),
        None,
    )
}

async fn not_found_path() -> Response {
    status(
        StatusCode::NOT_FOUND,
        "NotFound",
        "the server could not find the requested resource".into(),
        None,
    )
}

async fn ok() -> &'static str {
    "ok"
}

/// Authenticates every API request (discovery and OpenAPI are for any authenticated user,
/// lists are authorized on top); the user rides in the request's extensions.
async fn require_user(
    State(server): State<Arc<Server>>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    mut request: Request,
    next: Next,
) -> Response {
    let user = auth::authenticate(
        server.front_proxy.as_ref(),
        &server.auth,
        &peer,
        request.headers(),
    )
    .await;
    match user {
        Ok(Some(user)) => {
            request.extensions_mut().insert(user);
            next.run(request).await
        }
        Ok(None) => unauthorized(),
        Err((code, message)) => status(code, "InternalError", message, None),
    }
}

async fn group() -> Response {
    let versions: Vec<Value> = VERSIONS
        .iter()
        .map(|v| json!({ "groupVersion": format!("{GROUP}/{v}"), "version": v }))
        .collect();
    axum::Json(json!({
        "kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
        "versions": versions, "preferredVersion": versions[0],
    }))
    .into_response()
}

async fn resources(Path(version): Path<String>) -> Response {
    if !VERSIONS.contains(&version.as_str()) {
        return not_found_path().await;
    }
    let resource = |name: &str, singular: &str, namespaced: bool, verbs: &[&str]| {
        json!({
            "name": name, "singularName": singular, "namespaced": namespaced,
            "kind": "PendingWorkloadsSummary", "verbs": verbs,
        })
    };
    axum::Json(json!({
        "kind": "APIResourceList", "apiVersion": "v1",
        "groupVersion": format!("{GROUP}/{version}"),
        "resources": [
            resource("clusterqueues", "clusterqueue", false, &[]),
            resource("clusterqueues/pendingworkloads", "", false, &["get"]),
            resource("localqueues", "localqueue", true, &[]),
            resource("localqueues/pendingworkloads", "", true, &["get"]),
        ],
    }))
    .into_response()
}

async fn openapi_v2() -> Response {
    axum::Json(json!({
        "swagger": "2.0",
        "info": { "title": "Kueue visibility-server", "version": env!("CARGO_PKG_VERSION") },
        "paths": {},
    }))
    .into_response()
}

async fn openapi_v3() -> Response {
    axum::Json(json!({ "paths": {} })).into_response()
}

/// `limit` and `offset` of the query, bounded (`Err`: not integers, 400 as upstream).
fn page_of(query: &HashMap<String, String>) -> Result<Page, String> {
    let int = |key: &str| -> Result<Option<i64>, String> {
        match query.get(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| format!("{key}: invalid value {v:?}: not an integer")),
        }
    };
    Ok(Page::bounded(int("limit")?, int("offset")?))
}

async fn cluster_queue(
    State(server): State<Arc<Server>>,
    Extension(user): Extension<UserInfo>,
    Path((version, name)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    list(&server, &user, &version, Queue::ClusterQueue(name), &query).await
}

async fn local_queue(
    State(server): State<Arc<Server>>,
    Extension(user): Extension<UserInfo>,
    Path((version, namespace, name)): Path<(String, String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    list(
        &server,
        &user,
        &version,
        Queue::LocalQueue { namespace, name },
        &query,
    )
    .await
}

async fn list(
    server: &Server,
    user: &UserInfo,
    version: &str,
    queue: Queue,
    query: &HashMap<String, String>,
) -> Response {
    if !VERSIONS.contains(&version) {
        return not_found_path().await;
    }
    let (resource, name, namespace) = match &queue {
        Queue::ClusterQueue(n) => ("clusterqueues", n.clone(), None),
        Queue::LocalQueue { namespace, name } => {
            ("localqueues", name.clone(), Some(namespace.clone()))
        }
    };
    let access = Access::Resource(Box::new(ResourceAttributes {
        group: Some(GROUP.into()),
        version: Some(version.into()),
        resource: Some(resource.into()),
        subresource: Some("pendingworkloads".into()),
        name: Some(name.clone()),
        namespace: namespace.clone(),
        verb: Some("get".into()),
        ..ResourceAttributes::default()
    }));
    match server.auth.authorize(user, &access).await {
        Ok(()) => {}
        Err((StatusCode::FORBIDDEN, _)) => {
            let scope = match &namespace {
                Some(ns) => format!("in the namespace \"{ns}\""),
                None => "at the cluster scope".to_string(),
            };
            return status(
                StatusCode::FORBIDDEN,
                "Forbidden",
                format!(
                    "{resource}.{GROUP} \"{name}\" is forbidden: User \"{}\" cannot get resource \"{resource}/pendingworkloads\" in API group \"{GROUP}\" {scope}",
                    user.username.clone().unwrap_or_default()
                ),
                Some(json!({ "name": name, "group": GROUP, "kind": resource })),
            );
        }
        Err((code, message)) => return status(code, "InternalError", message, None),
    }
    let page = match page_of(query) {
        Ok(p) => p,
        Err(message) => return status(StatusCode::BAD_REQUEST, "BadRequest", message, None),
    };
    let items = match server.hub.ask(queue.clone(), page).await {
        Ok(items) => items,
        Err(()) => match from_snapshot(&server.conn, &queue, page).await {
            Ok(items) => items,
            Err(e) => {
                return status(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "InternalError",
                    format!("Internal error occurred: {e:#}"),
                    None,
                );
            }
        },
    };
    match items {
        Some(items) => axum::Json(PendingWorkloadsSummary::new(version, items)).into_response(),
        None => {
            let singular = resource.trim_end_matches('s');
            status(
                StatusCode::NOT_FOUND,
                "NotFound",
                format!("{singular}.{GROUP} \"{name}\" not found"),
                Some(json!({ "name": name, "group": GROUP, "kind": singular })),
            )
        }
    }
}

/// The answer from the cluster read now (a replica that does not run the loop).
async fn from_snapshot(
    conn: &Connection,
    queue: &Queue,
    page: Page,
) -> anyhow::Result<Option<Vec<PendingWorkload>>> {
    let snap = conn.snapshot_without_pods().await?;
    let metadata: HashMap<(String, String), &ObjectMeta> = snap
        .inventory
        .workloads
        .iter()
        .map(|w| {
            let m = &w.obj.metadata;
            (
                (
                    m.namespace.clone().unwrap_or_default(),
                    m.name.clone().unwrap_or_default(),
                ),
                m,
            )
        })
        .collect();
    let lookup = |ns: &str, name: &str| {
        metadata
            .get(&(ns.to_string(), name.to_string()))
            .map(|m| item_metadata(m))
    };
    Ok(pending_workloads(&snap.engine, queue, page, &lookup))
}
