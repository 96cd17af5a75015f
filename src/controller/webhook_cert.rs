//! The conversion webhook's certificates, as upstream's internal cert management keeps them:
//! a CA and a serving certificate it signs, kept in one Secret (`ca.crt`, `ca.key`,
//! `tls.crt`, `tls.key`) so every replica serves the same one, the CA injected into the CRDs.
//!
//! Data in: the Secret's data and annotations, the names the certificate must cover, the
//! time. Data out: whether the Secret's pair can be served as it is, or a fresh pair.
//! Invariants: a pair is reused only when it is complete, parses, covers every name and has
//! more than [`ROTATE_BEFORE`] left; a fresh pair's certificate is valid [`CERT_VALIDITY`]
//! (the CA [`CA_VALIDITY`]), upstream's (cert-controller's) figures. Keys are never logged.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;

/// How long a serving certificate is valid.
pub const CERT_VALIDITY: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long a CA is valid.
pub const CA_VALIDITY: Duration = Duration::from_secs(10 * 365 * 24 * 3600);
/// A pair this close to its certificate's end is replaced (cert-controller's lookahead).
pub const ROTATE_BEFORE: Duration = Duration::from_secs(90 * 24 * 3600);
/// Annotation: the serving certificate's end, seconds since the epoch.
pub const NOT_AFTER_ANNOTATION: &str = "kubectl-kueue.x-k8s.io/webhook-cert-not-after";
/// Annotation: the names the serving certificate covers, comma-separated.
pub const NAMES_ANNOTATION: &str = "kubectl-kueue.x-k8s.io/webhook-cert-names";

/// A CA and the serving certificate it signed, in PEM.
#[derive(Clone, PartialEq, Eq)]
pub struct Pair {
    pub ca_crt: String,
    pub ca_key: String,
    pub tls_crt: String,
    pub tls_key: String,
    /// The serving certificate's end, seconds since the epoch.
    pub not_after: u64,
    /// The names (DNS names or IP addresses) it covers.
    pub names: Vec<String>,
}

impl std::fmt::Debug for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pair")
            .field("not_after", &self.not_after)
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Pair {
    /// A fresh CA and serving certificate for `names`, valid from `now`.
    pub fn generate(names: &[String], now: u64) -> anyhow::Result<Pair> {
        let at = |secs: u64| {
            time::OffsetDateTime::from_unix_timestamp(i64::try_from(secs).unwrap_or(i64::MAX))
                .context("certificate time out of range")
        };
        // A minute of slack for clocks a little behind ours (the API server's).
        let start = at(now.saturating_sub(60))?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.distinguished_name
            .push(DnType::CommonName, "kubectl-kueue-webhook-ca");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.not_before = start;
        ca.not_after = at(now + CA_VALIDITY.as_secs())?;
        let ca_key = KeyPair::generate().context("cannot generate the CA key")?;
        let ca_cert = ca.self_signed(&ca_key).context("cannot sign the CA")?;
        let ca_key_pem = ca_key.serialize_pem();
        let issuer = Issuer::new(ca, ca_key);

        let not_after = now + CERT_VALIDITY.as_secs();
        let mut leaf = CertificateParams::new(names.to_vec())
            .with_context(|| format!("cannot make a certificate for {names:?}"))?;
        leaf.distinguished_name.push(
            DnType::CommonName,
            names
                .first()
                .map(String::as_str)
                .unwrap_or("kubectl-kueue-webhook"),
        );
        leaf.not_before = start;
        leaf.not_after = at(not_after)?;
        leaf.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let leaf_key = KeyPair::generate().context("cannot generate the serving key")?;
        let leaf_cert = leaf
            .signed_by(&leaf_key, &issuer)
            .context("cannot sign the serving certificate")?;
        Ok(Pair {
            ca_crt: ca_cert.pem(),
            ca_key: ca_key_pem,
            tls_crt: leaf_cert.pem(),
            tls_key: leaf_key.serialize_pem(),
            not_after,
            names: names.to_vec(),
        })
    }

    /// The pair a Secret holds, if it holds a whole one (data and our annotations).
    pub fn from_secret(
        data: &BTreeMap<String, Vec<u8>>,
        annotations: &BTreeMap<String, String>,
    ) -> Option<Pair> {
        let text = |key: &str| {
            data.get(key)
                .and_then(|b| String::from_utf8(b.clone()).ok())
                .filter(|s| !s.trim().is_empty())
        };
        Some(Pair {
            ca_crt: text("ca.crt")?,
            ca_key: text("ca.key")?,
            tls_crt: text("tls.crt")?,
            tls_key: text("tls.key")?,
            not_after: annotations.get(NOT_AFTER_ANNOTATION)?.parse().ok()?,
            names: annotations
                .get(NAMES_ANNOTATION)?
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        })
    }

    /// The Secret's data and annotations for this pair.
    pub fn to_secret(&self) -> (BTreeMap<String, Vec<u8>>, BTreeMap<String, String>) {
        let data = [
            ("ca.crt", &self.ca_crt),
            ("ca.key", &self.ca_key),
            ("tls.crt", &self.tls_crt),
            ("tls.key", &self.tls_key),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect();
        let annotations = [
            (NOT_AFTER_ANNOTATION.to_string(), self.not_after.to_string()),
            (NAMES_ANNOTATION.to_string(), self.names.join(",")),
        ]
        .into_iter()
        .collect();
        (data, annotations)
    }

    /// Whether this pair may still be served for `names` at `now` (else make a new one).
    pub fn usable_for(&self, names: &[String], now: u64) -> bool {
        names.iter().all(|n| self.names.contains(n))
            && self.not_after > now + ROTATE_BEFORE.as_secs()
            && self.certified_key().is_ok()
    }

    /// The serving certificate and key, for rustls.
    pub fn certified_key(&self) -> anyhow::Result<Arc<CertifiedKey>> {
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(self.tls_crt.as_bytes())
                .collect::<Result<_, _>>()
                .context("tls.crt does not parse")?;
        anyhow::ensure!(!certs.is_empty(), "tls.crt holds no certificate");
        let key = PrivateKeyDer::from_pem_slice(self.tls_key.as_bytes())
            .context("tls.key does not parse")?;
        let signing = rustls::crypto::ring::sign::any_supported_type(&key)
            .context("tls.key is not a supported key")?;
        Ok(Arc::new(CertifiedKey::new(certs, signing)))
    }
}

/// The names a serving certificate must cover: the Service's DNS names in `namespace`, and
/// the hosts of `urls` (the CRDs' `clientConfig.url`s), sorted, without repeats.
pub fn names_for(service: &str, namespace: &str, urls: &[String]) -> Vec<String> {
    let mut names = vec![
        service.to_string(),
        format!("{service}.{namespace}"),
        format!("{service}.{namespace}.svc"),
        format!("{service}.{namespace}.svc.cluster.local"),
    ];
    for url in urls {
        if let Some(host) = url_host(url) {
            names.push(host);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The host of an `https://host[:port]/path` URL (an IPv6 address without its brackets).
pub fn url_host(url: &str) -> Option<String> {
    let authority = url.strip_prefix("https://")?.split('/').next()?;
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next()?
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    (!host.is_empty()).then(|| host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        names_for("svc", "ns", &["https://127.0.0.1:9443/convert".to_string()])
    }

    #[test]
    fn names_cover_the_service_and_the_url_hosts() {
        assert_eq!(
            names(),
            [
                "127.0.0.1",
                "svc",
                "svc.ns",
                "svc.ns.svc",
                "svc.ns.svc.cluster.local"
            ]
        );
        assert_eq!(
            url_host("https://[::1]:9443/convert").as_deref(),
            Some("::1")
        );
        assert_eq!(
            url_host("https://h.example/convert").as_deref(),
            Some("h.example")
        );
        assert_eq!(url_host("http://h/convert"), None);
    }

    #[test]
    fn a_pair_round_trips_through_the_secret_and_is_rotated_before_its_end() {
        let now = 1_800_000_000;
        let pair = Pair::generate(&names(), now).unwrap();
        assert_eq!(pair.not_after, now + CERT_VALIDITY.as_secs());
        let (data, annotations) = pair.to_secret();
        let back = Pair::from_secret(&data, &annotations).unwrap();
        assert!(back == pair);
        assert!(back.usable_for(&names(), now));
        let late = pair.not_after - ROTATE_BEFORE.as_secs();
        assert!(
            !back.usable_for(&names(), late),
            "rotated inside the lookahead"
        );
        assert!(back.usable_for(&names(), late - 1));
        let more = names_for("svc", "ns", &["https://10.0.0.1:9443/convert".to_string()]);
        assert!(
            !back.usable_for(&more, now),
            "a new host needs a new certificate"
        );
        let mut broken = data.clone();
        broken.insert("tls.key".into(), b"not a key".to_vec());
        let broken = Pair::from_secret(&broken, &annotations).unwrap();
        assert!(!broken.usable_for(&names(), now));
        let mut empty = data;
        empty.remove("ca.crt");
        assert!(Pair::from_secret(&empty, &annotations).is_none());
        assert!(Pair::from_secret(&BTreeMap::new(), &BTreeMap::new()).is_none());
    }

    #[test]
    fn the_serving_certificate_is_signed_by_the_ca() {
        use rustls::client::danger::ServerCertVerifier;
        let pair = Pair::generate(&names(), now()).unwrap();
        let ca = CertificateDer::from_pem_slice(pair.ca_crt.as_bytes()).unwrap();
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .unwrap();
        let key = pair.certified_key().unwrap();
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        verifier
            .verify_server_cert(
                &key.cert[0],
                &[],
                &name,
                &[],
                rustls::pki_types::UnixTime::now(),
            )
            .unwrap();
        let other = rustls::pki_types::ServerName::try_from("elsewhere.example").unwrap();
        assert!(
            verifier
                .verify_server_cert(
                    &key.cert[0],
                    &[],
                    &other,
                    &[],
                    rustls::pki_types::UnixTime::now()
                )
                .is_err()
        );
    }
}
