//! `/metrics` (Prometheus text), `/healthz` (the process and its loop are alive) and
//! `/readyz` (the caches are synced and this replica can serve: a follower waiting for the
//! lease is ready too).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use anyhow::Context;
use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::metrics::Metrics;

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
    metrics: Option<Arc<Metrics>>,
    health: Option<Arc<Health>>,
    live_path: &str,
    ready_path: &str,
) -> Router {
    let mut r = Router::new();
    if let Some(m) = metrics {
        r = r.route(
            "/metrics",
            get(move || {
                let m = m.clone();
                async move {
                    (
                        [(
                            header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        m.encode(),
                    )
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

/// Binds the endpoints (one listener when both addresses are the same) and serves them in the
/// background. Returns the bound addresses.
pub async fn serve(
    metrics_addr: Option<SocketAddr>,
    health_addr: Option<SocketAddr>,
    metrics: Arc<Metrics>,
    health: Arc<Health>,
    live_path: &str,
    ready_path: &str,
) -> anyhow::Result<Vec<SocketAddr>> {
    let mut bound = Vec::new();
    let mut plan: Vec<(SocketAddr, Router)> = Vec::new();
    match (metrics_addr, health_addr) {
        (Some(m), Some(h)) if m == h => plan.push((
            m,
            router(Some(metrics), Some(health), live_path, ready_path),
        )),
        (m, h) => {
            if let Some(m) = m {
                plan.push((m, router(Some(metrics), None, live_path, ready_path)));
            }
            if let Some(h) = h {
                plan.push((h, router(None, Some(health), live_path, ready_path)));
            }
        }
    }
    for (addr, app) in plan {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
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

#[cfg(test)]
mod tests {
    use super::parse_address;

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
