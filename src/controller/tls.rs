//! The TLS side of `/metrics`: the serving certificate (`tls.crt`/`tls.key` from a directory, as
//! a mounted Secret gives them, else a self-signed one generated in memory, as
//! controller-runtime does) and a listener that hands axum finished TLS connections.
//!
//! Invariants: a handshake never blocks the accept loop (each runs in its own task, bounded by
//! [`HANDSHAKE_TIMEOUT`]); the private key never leaves memory and is never logged.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// As client-go's TLS handshake timeout.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where controller-runtime looks for a serving certificate when none is configured.
pub fn default_cert_dir() -> PathBuf {
    std::env::temp_dir().join("k8s-metrics-server/serving-certs")
}

/// The server configuration: the certificate of `cert_dir` (which must hold `tls.crt` and
/// `tls.key`), else of [`default_cert_dir`] when it holds them, else a self-signed one for
/// `localhost`/`127.0.0.1`. Also says which it is, for the log.
pub fn server_config(cert_dir: Option<&Path>) -> anyhow::Result<(Arc<ServerConfig>, String)> {
    server_config_verifying(cert_dir, None)
}

/// [`server_config`], also asking clients for a certificate signed by one of `client_cas`
/// (a client without one still connects: [`Peer::client_certificate`] is then `None`).
pub fn server_config_verifying(
    cert_dir: Option<&Path>,
    client_cas: Option<Vec<CertificateDer<'static>>>,
) -> anyhow::Result<(Arc<ServerConfig>, String)> {
    let dir = match cert_dir {
        Some(d) => Some(d.to_path_buf()),
        None => Some(default_cert_dir()).filter(|d| d.join("tls.crt").is_file()),
    };
    let (certs, key, source) = match dir {
        Some(dir) => {
            let (certs, key) = read_pair(&dir)?;
            (certs, key, format!("{}/tls.crt", dir.display()))
        }
        None => {
            let (certs, key) = self_signed()?;
            (
                certs,
                key,
                "a self-signed certificate generated in memory".to_string(),
            )
        }
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let builder = match client_cas {
        None => builder.with_no_client_auth(),
        Some(cas) => {
            let mut roots = rustls::RootCertStore::empty();
            for ca in cas {
                roots
                    .add(ca)
                    .context("a client CA certificate is not usable")?;
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .allow_unauthenticated()
            .build()
            .context("the client certificate verifier")?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder
        .with_single_cert(certs, key)
        .context("the serving certificate and key do not match")?;
    Ok((Arc::new(config), source))
}

pub(super) fn read_pair(
    dir: &Path,
) -> anyhow::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let crt = dir.join("tls.crt");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&crt)
        .and_then(|it| it.collect::<Result<_, _>>())
        .with_context(|| format!("cannot read the certificates of {}", crt.display()))?;
    anyhow::ensure!(!certs.is_empty(), "{}: no certificate in it", crt.display());
    let key_path = dir.join("tls.key");
    let key = PrivateKeyDer::from_pem_file(&key_path)
        .with_context(|| format!("cannot read the private key of {}", key_path.display()))?;
    Ok((certs, key))
}

fn self_signed() -> anyhow::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    let generated =
        rcgen::generate_simple_self_signed(names).context("cannot generate a certificate")?;
    let key = PrivateKeyDer::try_from(generated.signing_key.serialize_der())
        .map_err(|e| anyhow::anyhow!("generated key: {e}"))?;
    Ok((vec![generated.cert.der().clone()], key))
}

/// Who is at the other end of a TLS session: the address, and the end-entity certificate
/// the client presented, which the server configuration's client verifier has checked
/// (none when the configuration asks for no client certificate).
#[derive(Debug, Clone)]
pub struct Peer {
    pub addr: SocketAddr,
    pub client_certificate: Option<CertificateDer<'static>>,
}

/// A TCP listener whose connections come out as finished TLS sessions.
pub struct TlsListener {
    sessions: mpsc::Receiver<(TlsStream<TcpStream>, Peer)>,
    local: SocketAddr,
}

impl TlsListener {
    pub fn new(tcp: TcpListener, config: Arc<ServerConfig>) -> std::io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (tx, sessions) = mpsc::channel(64);
        let acceptor = TlsAcceptor::from(config);
        tokio::spawn(async move {
            loop {
                let (stream, peer) = match tcp.accept().await {
                    Ok(c) => c,
                    Err(e) => {
                        tracing::debug!(error = %e, "TLS listener: accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                if tx.is_closed() {
                    return;
                }
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let client_certificate = tls
                                .get_ref()
                                .1
                                .peer_certificates()
                                .and_then(|c| c.first())
                                .map(|c| c.clone().into_owned());
                            let peer = Peer {
                                addr: peer,
                                client_certificate,
                            };
                            let _ = tx.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "TLS handshake failed")
                        }
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { sessions, local })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = Peer;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.sessions.recv().await {
            Some(session) => session,
            // The accept loop ended: nothing will come any more.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(Peer {
            addr: self.local,
            client_certificate: None,
        })
    }
}
