//! A kube-rs client from kubectl's connection options: a kubeconfig path (or `KUBECONFIG`),
//! a context, a namespace, falling back to the in-cluster service account, like kubectl.
//!
//! Invariant: no request waits forever. Every client has a connect timeout (TCP and TLS) and a
//! write timeout; the request client also a 30 s read timeout, so a stalled API server gives an
//! error, never a hang. Watches use their own client with a longer read timeout (a quiet watch
//! is not a stalled one): longer than the server-side timeout kube's watcher asks for.

use std::time::Duration;

use anyhow::Context;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// Where to connect, as kubectl's `--kubeconfig`, `--context` and `-n` say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectOptions {
    /// One path, or several separated as `KUBECONFIG` separates them (merged in order).
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    /// The namespace commands default to; else the context's, else `default`.
    pub namespace: Option<String>,
}

/// How long a client waits: to connect (TCP and the TLS handshake), for each read of a
/// response (`None`: no limit) and for each write of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub read: Option<Duration>,
    pub write: Duration,
}

impl Timeouts {
    /// Requests (gets, lists, writes): client-go's TLS-handshake bound for the connection, and
    /// a read timeout no healthy API server comes near.
    pub const REQUESTS: Timeouts = Timeouts {
        connect: Duration::from_secs(10),
        read: Some(Duration::from_secs(30)),
        write: Duration::from_secs(30),
    };
    /// Watches: a read timeout longer than a watch's own server-side timeout (kube's watcher
    /// asks for 290 s and bounds each watch by that plus a margin), so a quiet watch is never
    /// cut while a list on a dead connection still ends.
    pub const WATCHES: Timeouts = Timeouts {
        connect: Duration::from_secs(10),
        read: Some(Duration::from_secs(330)),
        write: Duration::from_secs(30),
    };

    /// Every part bounded by `t` (the leader-election lock's requests).
    pub fn all(t: Duration) -> Timeouts {
        Timeouts {
            connect: t,
            read: Some(t),
            write: t,
        }
    }
}

/// A connected client and the namespace commands default to.
#[derive(Clone)]
pub struct Connection {
    /// For requests, with [`Timeouts::REQUESTS`].
    pub client: Client,
    /// For watches, with [`Timeouts::WATCHES`].
    pub watch_client: Client,
    /// `-n`, else the context's namespace, else `default`.
    pub namespace: String,
    /// What the clients were built from (for a client with other timeouts).
    pub config: Config,
    /// The versions of `kueue.x-k8s.io` served, discovered on first use.
    kueue_versions: std::sync::Arc<tokio::sync::OnceCell<Vec<crate::api::KueueVersion>>>,
}

impl Connection {
    /// The versions of `kueue.x-k8s.io` the cluster serves, oldest first (asked once per
    /// connection).
    pub async fn kueue_versions(&self) -> anyhow::Result<Vec<crate::api::KueueVersion>> {
        self.kueue_versions
            .get_or_try_init(|| super::versions::served(&self.client))
            .await
            .cloned()
    }

    /// Another client to the same server, with these timeouts.
    pub fn client_with(&self, timeouts: Timeouts) -> anyhow::Result<Client> {
        build(&self.config, timeouts)
    }
}

/// The server the last client was built for: kube's errors do not name it.
static SERVER: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// For an error that is one of our client timeouts: a sentence saying which limit was hit
/// and on which server. `None` for any other error.
pub fn timeout_hint(err: &anyhow::Error) -> Option<String> {
    let timed_out = err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
    });
    if !timed_out {
        return None;
    }
    let connecting = err.chain().any(|c| c.to_string().contains("(Connect)"));
    let server = SERVER
        .lock()
        .ok()
        .and_then(|s| s.clone())
        .map(|s| format!(" at {s}"))
        .unwrap_or_default();
    let t = Timeouts::REQUESTS;
    Some(if connecting {
        format!(
            "timed out: the API server{server} did not accept a connection within {}s (TCP connect and TLS handshake)",
            t.connect.as_secs()
        )
    } else {
        format!(
            "timed out: the API server{server} stopped answering (nothing read for {}s)",
            t.read.unwrap_or_default().as_secs()
        )
    })
}

fn build(config: &Config, t: Timeouts) -> anyhow::Result<Client> {
    if let Ok(mut s) = SERVER.lock() {
        *s = Some(
            config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string(),
        );
    }
    let mut config = config.clone();
    config.connect_timeout = Some(t.connect);
    config.read_timeout = t.read;
    config.write_timeout = Some(t.write);
    // The read timeout counts from when a request is sent, not from when its pooled
    // connection went idle.
    config.reset_reader_on_write = t.read.is_some();
    Client::try_from(config).context("cannot build a Kubernetes client")
}

/// Builds a client the way kubectl would from these options.
pub async fn connect(global: &ConnectOptions) -> anyhow::Result<Connection> {
    let options = KubeConfigOptions {
        context: global.context.clone(),
        ..Default::default()
    };
    let config = match &global.kubeconfig {
        Some(path) => {
            // KUBECONFIG may list several files; like kubectl, merge them in order.
            let mut merged: Option<Kubeconfig> = None;
            for p in std::env::split_paths(path).filter(|p| !p.as_os_str().is_empty()) {
                let k = Kubeconfig::read_from(&p).with_context(|| format!("cannot read kubeconfig {}", p.display()))?;
                merged = Some(match merged {
                    None => k,
                    Some(m) => m.merge(k).with_context(|| format!("cannot merge kubeconfig {}", p.display()))?,
                });
            }
            let kc = merged.with_context(|| format!("no kubeconfig file in {path:?}"))?;
            Config::from_custom_kubeconfig(kc, &options)
                .await
                .with_context(|| format!("cannot use kubeconfig {path} (context {:?})", global.context))?
        }
        None if global.context.is_some() => Config::from_kubeconfig(&options)
            .await
            .with_context(|| format!("cannot use context {:?} from ~/.kube/config", global.context))?,
        None => Config::infer()
            .await
            .context("no cluster to talk to: set --kubeconfig or KUBECONFIG, or run inside a pod with a service account")?,
    };
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    Ok(Connection {
        client: build(&config, Timeouts::REQUESTS)?,
        watch_client: build(&config, Timeouts::WATCHES)?,
        namespace,
        config,
        kueue_versions: Default::default(),
    })
}
