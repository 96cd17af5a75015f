//! `/metrics` (Prometheus text), `/healthz` (the process and its loop are alive) and
//! `/readyz` (the caches are synced and this replica can serve: a follower waiting for the
//! lease is ready too).
//!
//! Invariants: `/metrics` is served over HTTPS behind [`MetricsAuth`] unless plain HTTP was
//! asked for on a loopback address ([`MetricsSecurity::check_insecure_address`]); the probes
//! are plain HTTP on their own address, as upstream's.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use anyhow::Context;
use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use super::metrics_auth::MetricsAuth;
use crate::metrics::Metrics;

/// How `/metrics` is served.
pub enum MetricsSecurity {
    /// Plain HTTP, no authentication: only on a loopback address.
    Insecure,
    /// HTTPS, each request authenticated and authorized.
    Secure {
        tls: Arc<rustls::ServerConfig>,
        auth: Arc<MetricsAuth>,
    },
}

impl MetricsSecurity {
    /// Refuses plain HTTP on an address other machines can reach.
    pub fn check_insecure_address(addr: Option<SocketAddr>) -> anyhow::Result<()> {
        match addr {
            Some(a) if !a.ip().is_loopback() => anyhow::bail!(
                "--metrics-insecure serves /metrics without TLS or authentication, so only on a loopback address (e.g. 127.0.0.1:8080), not {a}"
            ),
            _ => Ok(()),
        }
    }
}

/// How long the loop may go without a heartbeat before `/healthz` fails.
const STALL_MS: i64 = 60_000;

#[derive(Default)]
pub struct Health {
    pub ready: AtomicBool,
    /// Last loop heartbeat (ms since the epoch); 0 before the loop runs.
    pub heartbeat: AtomicI64,
}

impl Health {
    pub fn beat(&self) {
        self.heartbeat
            .store(super::shell::now_ms(), Ordering::Relaxed);
    }
}

/// Reads upstream's address forms: `:8080` (all interfaces), `host:port`, `0` or empty
/// (disabled).
pub fn parse_address(text: &str) -> anyhow::Result<Option<SocketAddr>> {
    let t = text.trim();
    if t.is_empty() || t == "0" {
        return Ok(None);
    }
    let full = if t.starts_with(':') {
        format!("0.0.0.0{t}")
    } else {
        t.to_string()
    };
    full.parse()
        .map(Some)
        .with_context(|| format!("{text:?} is not an address (use :PORT or HOST:PORT)"))
}

fn router(
    metrics: Option<(Arc<Metrics>, Option<Arc<MetricsAuth>>)>,
    health: Option<Arc<Health>>,
    live_path: &str,
    ready_path: &str,
) -> Router {
    let mut r = Router::new();
    if let Some((m, auth)) = metrics {
        r = r.route(
            "/metrics",
            get(move |method: Method, headers: HeaderMap| {
                let (m, auth) = (m.clone(), auth.clone());
                async move {
                    if let Some(auth) = auth {
                        let authorization = headers
                            .get(header::AUTHORIZATION)
                            .and_then(|v| v.to_str().ok());
                        let verb = method.as_str().to_ascii_lowercase();
                        if let Err(refusal) = auth.check(authorization, &verb, "/metrics").await {
                            return refusal.into_response();
                        }
                    }
                    (
                        [(
                            header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        m.encode(),
                    )
                        .into_response()
                }
            }),
        );
    }
    if let Some(h) = health {
        let h2 = h.clone();
        r = r
            .route(
                &format!("/{live_path}"),
                get(move || {
                    let h = h.clone();
                    async move {
                        let beat = h.heartbeat.load(Ordering::Relaxed);
                        if beat == 0 || super::shell::now_ms() - beat < STALL_MS {
                            (StatusCode::OK, "ok").into_response()
                        } else {
                            (
                                StatusCode::INTERNAL_SERVER_ERROR,
                                "the controller loop is stalled",
                            )
                                .into_response()
                        }
                    }
                }),
            )
            .route(
                &format!("/{ready_path}"),
                get(move || {
                    let h = h2.clone();
                    async move {
                        if h.ready.load(Ordering::Relaxed) {
                            (StatusCode::OK, "ok").into_response()
                        } else {
                            (StatusCode::SERVICE_UNAVAILABLE, "caches not synced yet")
                                .into_response()
                        }
                    }
                }),
            );
    }
    r
}

/// Binds the endpoints and serves them in the background: `/metrics` as `security` says, the
/// probes over plain HTTP (on the same listener only when both addresses are the same and
/// `/metrics` is insecure). Returns the bound addresses.
pub async fn serve(
    metrics_addr: Option<SocketAddr>,
    health_addr: Option<SocketAddr>,
    (metrics, security): (Arc<Metrics>, MetricsSecurity),
    health: Arc<Health>,
    live_path: &str,
    ready_path: &str,
) -> anyhow::Result<Vec<SocketAddr>> {
    let mut bound = Vec::new();
    let mut plain: Vec<(SocketAddr, Router)> = Vec::new();
    let (tls, auth) = match security {
        MetricsSecurity::Insecure => (None, None),
        MetricsSecurity::Secure { tls, auth } => (Some(tls), Some(auth)),
    };
    match (metrics_addr, health_addr) {
        (Some(m), Some(h)) if m == h && tls.is_some() => anyhow::bail!(
            "/metrics is HTTPS and the health probes plain HTTP: give them different addresses (both are {m})"
        ),
        (Some(m), Some(h)) if m == h => plain.push((
            m,
            router(Some((metrics, None)), Some(health), live_path, ready_path),
        )),
        (m, h) => {
            if let Some(m) = m {
                let app = router(Some((metrics, auth)), None, live_path, ready_path);
                match &tls {
                    Some(tls) => {
                        let listener = bind(m).await?;
                        let local = listener.local_addr()?;
                        tracing::info!(address = %local, "serving /metrics over HTTPS (TokenReview and SubjectAccessReview)");
                        bound.push(local);
                        let listener = super::tls::TlsListener::new(listener, tls.clone())?;
                        tokio::spawn(async move {
                            if let Err(e) = axum::serve(listener, app).await {
                                tracing::error!(error = %e, "metrics HTTPS server stopped");
                            }
                        });
                    }
                    None => plain.push((m, app)),
                }
            }
            if let Some(h) = h {
                plain.push((h, router(None, Some(health), live_path, ready_path)));
            }
        }
    }
    for (addr, app) in plain {
        let listener = bind(addr).await?;
        let local = listener.local_addr()?;
        tracing::info!(address = %local, "serving HTTP endpoints");
        bound.push(local);
        tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!(error = %e, "HTTP server stopped");
            }
        });
    }
    Ok(bound)
}

async fn bind(addr: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))
}

#[cfg(test)]
mod tests {
    use super::{MetricsSecurity, parse_address};

    #[test]
    fn plain_http_metrics_only_on_loopback() {
        let ok = |a: &str| MetricsSecurity::check_insecure_address(parse_address(a).unwrap());
        assert!(ok("127.0.0.1:8080").is_ok());
        assert!(ok("[::1]:8080").is_ok());
        assert!(ok("0").is_ok());
        assert!(ok(":8080").is_err());
        assert!(ok("10.0.0.1:8080").is_err());
    }

    #[test]
    fn addresses_in_upstreams_forms() {
        assert_eq!(
            parse_address(":8443").unwrap().unwrap().to_string(),
            "0.0.0.0:8443"
        );
        assert_eq!(
            parse_address("127.0.0.1:9").unwrap().unwrap().to_string(),
            "127.0.0.1:9"
        );
        assert!(parse_address("0").unwrap().is_none());
        assert!(parse_address("").unwrap().is_none());
        assert!(parse_address("nope").is_err());
    }
}
