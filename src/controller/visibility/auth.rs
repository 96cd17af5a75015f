//! Who is asking the visibility API, as an aggregated API server authenticates: the API
//! server's front proxy (a client certificate signed by the request-header CA, with an
//! allowed common name) vouches for the user named in its `X-Remote-*` headers; anyone else
//! needs a bearer token the API server accepts (TokenReview). What they may read is then a
//! SubjectAccessReview, through the same reviews and caches as `/metrics`.
//!
//! Data in: the ConfigMap `kube-system/extension-apiserver-authentication` (the request-header
//! CA, allowed names and header names the API server publishes), each request's headers and
//! its TLS peer. Invariants: the `X-Remote-*` headers count only on a connection whose client
//! certificate the TLS layer verified against the request-header CA (and whose common name is
//! allowed); without that ConfigMap only bearer tokens count.

use std::collections::BTreeMap;

use axum::http::HeaderMap;
use k8s_openapi::api::authentication::v1::UserInfo;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use super::super::metrics_auth::{MetricsAuth, Refusal};
use super::super::tls::Peer;

const CONFIGMAP_NAMESPACE: &str = "kube-system";
const CONFIGMAP: &str = "extension-apiserver-authentication";

/// The front proxy's request-header settings.
#[derive(Debug, Clone, Default)]
pub struct FrontProxy {
    /// The CA its client certificates are signed by.
    pub client_cas: Vec<CertificateDer<'static>>,
    /// Common names allowed (empty: any certificate of the CA).
    pub allowed_names: Vec<String>,
    pub username_headers: Vec<String>,
    pub uid_headers: Vec<String>,
    pub group_headers: Vec<String>,
    pub extra_prefixes: Vec<String>,
}

fn json_list(data: &BTreeMap<String, String>, key: &str) -> Vec<String> {
    data.get(key)
        .and_then(|v| serde_json::from_str::<Vec<String>>(v).ok())
        .unwrap_or_default()
}

impl FrontProxy {
    /// The settings the API server published, or `None` (with the reason logged) when it
    /// published none or they cannot be read.
    pub async fn read(client: &kube::Client) -> Option<FrontProxy> {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), CONFIGMAP_NAMESPACE);
        let cm = match api.get_opt(CONFIGMAP).await {
            Ok(Some(cm)) => cm,
            Ok(None) => {
                tracing::warn!(
                    "no {CONFIGMAP_NAMESPACE}/{CONFIGMAP}: the visibility API accepts bearer tokens only"
                );
                return None;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read {CONFIGMAP_NAMESPACE}/{CONFIGMAP}: the visibility API accepts bearer tokens only");
                return None;
            }
        };
        FrontProxy::from_data(&cm.data.unwrap_or_default())
    }

    /// The settings of the ConfigMap's data (`None` without a request-header CA).
    pub fn from_data(data: &BTreeMap<String, String>) -> Option<FrontProxy> {
        let pem = data.get("requestheader-client-ca-file")?;
        let client_cas: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(pem.as_bytes())
                .filter_map(Result::ok)
                .collect();
        if client_cas.is_empty() {
            tracing::warn!(
                "{CONFIGMAP_NAMESPACE}/{CONFIGMAP}: requestheader-client-ca-file holds no certificate"
            );
            return None;
        }
        Some(FrontProxy {
            client_cas,
            allowed_names: json_list(data, "requestheader-allowed-names"),
            username_headers: json_list(data, "requestheader-username-headers"),
            uid_headers: json_list(data, "requestheader-uid-headers"),
            group_headers: json_list(data, "requestheader-group-headers"),
            extra_prefixes: json_list(data, "requestheader-extra-headers-prefix"),
        })
    }

    /// The user the front proxy names, when `certificate` (verified by the TLS layer) has an
    /// allowed common name and the headers name one.
    pub fn user(&self, certificate: &CertificateDer<'_>, headers: &HeaderMap) -> Option<UserInfo> {
        let cn = common_name(certificate)?;
        if !self.allowed_names.is_empty() && !self.allowed_names.contains(&cn) {
            tracing::debug!(%cn, "visibility: client certificate common name not allowed");
            return None;
        }
        let first = |names: &[String]| {
            names.iter().find_map(|h| {
                headers
                    .get(h.as_str())
                    .and_then(|v| v.to_str().ok())
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
            })
        };
        let username = first(&self.username_headers)?;
        let groups: Vec<String> = self
            .group_headers
            .iter()
            .flat_map(|h| headers.get_all(h.as_str()).iter())
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect();
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, value) in headers {
            let lower = name.as_str().to_ascii_lowercase();
            if let Some(prefix) = self
                .extra_prefixes
                .iter()
                .find(|p| lower.starts_with(&p.to_ascii_lowercase()))
                && let Ok(v) = value.to_str()
            {
                extra
                    .entry(lower[prefix.len()..].to_string())
                    .or_default()
                    .push(v.to_string());
            }
        }
        Some(UserInfo {
            username: Some(username),
            uid: first(&self.uid_headers),
            groups: Some(groups),
            extra: (!extra.is_empty()).then_some(extra),
        })
    }
}

fn common_name(certificate: &CertificateDer<'_>) -> Option<String> {
    let (_, cert) = x509_parser::parse_x509_certificate(certificate.as_ref()).ok()?;
    cert.subject()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .map(str::to_string)
}

/// The user of a request: the front proxy's, else the bearer token's. `Ok(None)`: not
/// authenticated (401).
pub async fn authenticate(
    front_proxy: Option<&FrontProxy>,
    auth: &MetricsAuth,
    peer: &Peer,
    headers: &HeaderMap,
) -> Result<Option<UserInfo>, Refusal> {
    if let (Some(fp), Some(cert)) = (front_proxy, peer.client_certificate.as_ref())
        && let Some(user) = fp.user(cert, headers)
    {
        return Ok(Some(user));
    }
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    auth.authenticate_header(authorization).await
}
