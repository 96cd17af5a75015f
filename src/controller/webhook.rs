//! The conversion webhook `run-controller` serves: `POST /convert` over HTTPS, answering the
//! API server's `ConversionReview`s with [`crate::api::convert::review`], with the certificate
//! of [`super::webhook_cert`] kept in a Secret and its CA injected into the CRDs.
//!
//! Data in: the CRDs (whether any converts through a webhook, and its URLs), the Secret, the
//! options. Data out: the HTTPS listener, the Secret written when it holds no usable pair, the
//! CRDs' `caBundle` patched when it lacks the CA. Invariants: served only when one of the
//! product's CRDs has `conversion.strategy: Webhook` (v1beta1-only CRDs need none); every
//! replica serves (the API server may call any); a replica only replaces the Secret's pair
//! through an update at the resourceVersion it read (a conflict means another replica did:
//! its pair is read and served); the `caBundle` keeps the CA it replaces until every replica
//! has moved on (the next refresh), so no replica's certificate is ever untrusted.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use serde_json::json;

use super::webhook_cert::{self, Pair};
use crate::api::crd::WEBHOOK_PATH;

/// How often each replica re-reads the Secret (to pick up, or make, a rotated pair).
pub const REFRESH: Duration = Duration::from_secs(10 * 60);
/// The largest review accepted (a list of many Workloads converts in one review).
const MAX_REVIEW_BYTES: usize = 256 * 1024 * 1024;
/// Field manager of the `caBundle` patches.
const MANAGER: &str = "kubectl-kueue-cert";

/// Where and how the webhook is served.
#[derive(Debug, Clone)]
pub struct WebhookOptions {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Namespace of the Secret and the Service.
    pub namespace: String,
    /// The Service in front of the webhook (its DNS names go in the certificate).
    pub service: String,
    /// The Secret that holds the pair.
    pub secret: String,
    /// Manage the certificate (else read `tls.crt`/`tls.key` from `cert_dir`, injected by
    /// someone else, e.g. cert-manager).
    pub internal_cert_management: bool,
    pub cert_dir: PathBuf,
}

impl WebhookOptions {
    /// Where and how the conversion webhook is served, from the Configuration (upstream's
    /// `webhook` and `internalCertManagement`) and `--webhook-port`.
    pub fn from_config(
        config: &crate::api::config::Configuration,
        port: Option<u16>,
    ) -> anyhow::Result<Option<WebhookOptions>> {
        use crate::api::config as c;
        let w = config.webhook.clone().unwrap_or_default();
        let port = match port {
            Some(p) => p,
            None => {
                let p = w.port.unwrap_or(c::DEFAULT_WEBHOOK_PORT);
                u16::try_from(p).map_err(|_| anyhow::anyhow!("webhook.port {p} is not a port"))?
            }
        };
        if port == 0 {
            return Ok(None);
        }
        let host = w.host.clone().filter(|h| !h.is_empty());
        let addr =
            super::http::parse_address(&format!("{}:{port}", host.as_deref().unwrap_or("")))?
                .ok_or_else(|| {
                    anyhow::anyhow!("webhook address {host:?}:{port} is not an address")
                })?;
        let certs = config.internal_cert_management.clone().unwrap_or_default();
        Ok(Some(WebhookOptions {
            addr,
            namespace: config
                .namespace
                .clone()
                .unwrap_or_else(|| c::DEFAULT_NAMESPACE.to_string()),
            service: certs
                .webhook_service_name
                .clone()
                .unwrap_or_else(|| c::DEFAULT_WEBHOOK_SERVICE_NAME.to_string()),
            secret: certs
                .webhook_secret_name
                .clone()
                .unwrap_or_else(|| c::DEFAULT_WEBHOOK_SECRET_NAME.to_string()),
            internal_cert_management: certs.enable.unwrap_or(true),
            cert_dir: w
                .cert_dir
                .clone()
                .unwrap_or_else(|| c::DEFAULT_WEBHOOK_CERT_DIR.to_string())
                .into(),
        }))
    }
}

/// A certificate that can be swapped while serving.
#[derive(Debug)]
struct Reloadable(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Reloadable {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.0.read().ok().map(|k| k.clone())
    }
}

impl Reloadable {
    fn set(&self, key: Arc<CertifiedKey>) {
        if let Ok(mut k) = self.0.write() {
            *k = key;
        }
    }
}

/// The product's CRDs that convert through a webhook, and the URLs they call it at.
async fn webhook_crds(client: &Client) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut names = Vec::new();
    let mut urls = Vec::new();
    for crd in crate::api::crds() {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let live = match api.get_opt(&name).await {
            Ok(Some(live)) => live,
            Ok(None) => continue,
            // An older install's role cannot read CRDs: its CRDs are v1beta1-only.
            Err(kube::Error::Api(e)) if e.code == 403 => {
                tracing::warn!(crd = %name, "may not read CRDs, so cannot tell whether they convert through a webhook: not serving {WEBHOOK_PATH} (reinstall with `kubectl kueue install` to grant it)");
                return Ok((Vec::new(), Vec::new()));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read CRD {name}")),
        };
        let Some(conversion) = live.spec.conversion.filter(|c| c.strategy == "Webhook") else {
            continue;
        };
        if let Some(url) = conversion
            .webhook
            .and_then(|w| w.client_config)
            .and_then(|c| c.url)
        {
            urls.push(url);
        }
        names.push(name);
    }
    Ok((names, urls))
}

/// Starts the webhook when the CRDs ask for one; returns the bound address. A refresh task
/// then keeps the certificate current.
pub async fn start(client: &Client, opts: &WebhookOptions) -> anyhow::Result<Option<SocketAddr>> {
    let (crds, urls) = webhook_crds(client).await?;
    if crds.is_empty() {
        tracing::info!(
            "no Kueue CRD converts through a webhook (v1beta1-only CRDs): not serving {WEBHOOK_PATH}"
        );
        return Ok(None);
    }
    let names = webhook_cert::names_for(&opts.service, &opts.namespace, &urls);
    let (resolver, pair) = if opts.internal_cert_management {
        let pair = ensure_pair(client, opts, &names).await?;
        inject_ca(client, &crds, &pair, None).await?;
        (
            Arc::new(Reloadable(RwLock::new(pair.certified_key()?))),
            Some(pair),
        )
    } else {
        let (certs, key) = super::tls::read_pair(&opts.cert_dir)?;
        let signing = rustls::crypto::ring::sign::any_supported_type(&key)
            .context("the webhook key is not a supported key")?;
        let key = Arc::new(CertifiedKey::new(certs, signing));
        (Arc::new(Reloadable(RwLock::new(key))), None)
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_cert_resolver(resolver.clone());
    let tcp = tokio::net::TcpListener::bind(opts.addr)
        .await
        .with_context(|| format!("cannot listen on {} for the conversion webhook", opts.addr))?;
    let local = tcp.local_addr()?;
    let listener = super::tls::TlsListener::new(tcp, Arc::new(config))?;
    let app = Router::new()
        .route(WEBHOOK_PATH, post(convert))
        .layer(DefaultBodyLimit::max(MAX_REVIEW_BYTES));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "conversion webhook server stopped");
        }
    });
    tracing::info!(address = %local, crds = crds.len(), names = ?names, "serving the conversion webhook over HTTPS at {WEBHOOK_PATH}");
    if let Some(mut served) = pair {
        let (client, opts) = (client.clone(), opts.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(REFRESH).await;
                match refresh(&client, &opts, &names, &crds, &served, &resolver).await {
                    Ok(pair) => served = pair,
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "conversion webhook certificate refresh failed (retried)")
                    }
                }
            }
        });
    }
    Ok(Some(local))
}

async fn refresh(
    client: &Client,
    opts: &WebhookOptions,
    names: &[String],
    crds: &[String],
    served: &Pair,
    resolver: &Reloadable,
) -> anyhow::Result<Pair> {
    let pair = ensure_pair(client, opts, names).await?;
    if pair != *served {
        resolver.set(pair.certified_key()?);
        tracing::info!(
            not_after = pair.not_after,
            "conversion webhook certificate rotated"
        );
    }
    inject_ca(client, crds, &pair, Some(served)).await?;
    Ok(pair)
}

async fn convert(body: Bytes) -> impl IntoResponse {
    let answer = tokio::task::spawn_blocking(move || {
        let review = match serde_json::from_slice(&body) {
            Ok(v) => crate::api::convert::review::review(&v),
            Err(e) => crate::api::convert::review::review(&json!({ "error": e.to_string() })),
        };
        serde_json::to_vec(&review).unwrap_or_default()
    })
    .await
    .unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], answer)
}

/// The Secret's pair when it is usable for `names`, else a new one written there.
async fn ensure_pair(
    client: &Client,
    opts: &WebhookOptions,
    names: &[String],
) -> anyhow::Result<Pair> {
    let api: Api<Secret> = Api::namespaced(client.clone(), &opts.namespace);
    let what = format!("Secret {}/{}", opts.namespace, opts.secret);
    for _ in 0..5 {
        let current = api
            .get_opt(&opts.secret)
            .await
            .with_context(|| format!("cannot read {what}"))?;
        let now = webhook_cert::now();
        if let Some(pair) = current.as_ref().and_then(pair_of)
            && pair.usable_for(names, now)
        {
            return Ok(pair);
        }
        let pair = Pair::generate(names, now)?;
        let (data, annotations) = pair.to_secret();
        let data: BTreeMap<String, ByteString> =
            data.into_iter().map(|(k, v)| (k, ByteString(v))).collect();
        let written = match current {
            Some(mut secret) => {
                secret.data = Some(data);
                secret
                    .metadata
                    .annotations
                    .get_or_insert_with(BTreeMap::new)
                    .extend(annotations);
                api.replace(&opts.secret, &PostParams::default(), &secret)
                    .await
            }
            None => {
                let secret = Secret {
                    metadata: ObjectMeta {
                        name: Some(opts.secret.clone()),
                        namespace: Some(opts.namespace.clone()),
                        annotations: Some(annotations),
                        ..ObjectMeta::default()
                    },
                    data: Some(data),
                    ..Secret::default()
                };
                api.create(&PostParams::default(), &secret).await
            }
        };
        match written {
            Ok(_) => {
                tracing::info!(secret = %what, not_after = pair.not_after, "wrote a new conversion webhook certificate");
                return Ok(pair);
            }
            // Another replica wrote first: read its pair.
            Err(kube::Error::Api(e)) if e.code == 409 => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot write {what}")),
        }
    }
    anyhow::bail!("{what}: kept changing under us while writing the webhook certificate")
}

fn pair_of(secret: &Secret) -> Option<Pair> {
    let data: BTreeMap<String, Vec<u8>> = secret
        .data
        .as_ref()?
        .iter()
        .map(|(k, v)| (k.clone(), v.0.clone()))
        .collect();
    let annotations = secret.metadata.annotations.clone().unwrap_or_default();
    Pair::from_secret(&data, &annotations)
}

/// Makes each CRD's `caBundle` trust `pair`'s CA (keeping `previous`'s while it is there, for
/// the replicas still serving it).
async fn inject_ca(
    client: &Client,
    crds: &[String],
    pair: &Pair,
    previous: Option<&Pair>,
) -> anyhow::Result<()> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for name in crds {
        let crd = api
            .get(name)
            .await
            .with_context(|| format!("cannot read CRD {name}"))?;
        let current = crd
            .spec
            .conversion
            .and_then(|c| c.webhook)
            .and_then(|w| w.client_config)
            .and_then(|c| c.ca_bundle)
            .map(|b| String::from_utf8_lossy(&b.0).into_owned())
            .unwrap_or_default();
        let Some(bundle) = bundle(&current, pair, previous) else {
            continue;
        };
        let patch = json!({ "spec": { "conversion": { "webhook": { "clientConfig": {
            "caBundle": ByteString(bundle.into_bytes()),
        } } } } });
        let params = PatchParams {
            field_manager: Some(MANAGER.to_string()),
            ..PatchParams::default()
        };
        api.patch(name, &params, &Patch::Merge(&patch))
            .await
            .with_context(|| format!("cannot inject the webhook CA into CRD {name}"))?;
        tracing::info!(crd = %name, "injected the conversion webhook CA");
    }
    Ok(())
}

/// The `caBundle` to write, or `None` when `current` already trusts `pair`'s CA.
fn bundle(current: &str, pair: &Pair, previous: Option<&Pair>) -> Option<String> {
    if current.contains(pair.ca_crt.trim()) {
        return None;
    }
    let mut out = pair.ca_crt.clone();
    if let Some(p) =
        previous.filter(|p| p.ca_crt != pair.ca_crt && current.contains(p.ca_crt.trim()))
    {
        out.push_str(&p.ca_crt);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_keeps_the_ca_it_replaces() {
        let names = vec!["127.0.0.1".to_string()];
        let old = Pair::generate(&names, 1_800_000_000).unwrap();
        let new = Pair::generate(&names, 1_800_000_000).unwrap();
        assert_eq!(bundle("", &old, None).as_deref(), Some(old.ca_crt.as_str()));
        assert_eq!(bundle(&old.ca_crt, &old, None), None);
        let rotated = bundle(&old.ca_crt, &new, Some(&old)).unwrap();
        assert_eq!(rotated, format!("{}{}", new.ca_crt, old.ca_crt));
        // Once every replica has the new pair, the next rotation drops the oldest CA.
        let third = Pair::generate(&names, 1_800_000_000).unwrap();
        assert_eq!(
            bundle(&rotated, &third, Some(&new)).unwrap(),
            format!("{}{}", third.ca_crt, new.ca_crt)
        );
        // An unrelated bundle (someone else's CA) is replaced.
        assert_eq!(bundle("junk", &new, Some(&old)).unwrap(), new.ca_crt);
    }
}
