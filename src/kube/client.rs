//! A kube-rs client from kubectl's connection options: a kubeconfig path (or `KUBECONFIG`),
//! a context, a namespace, falling back to the in-cluster service account, like kubectl.

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

/// A connected client and the namespace commands default to.
#[derive(Clone)]
pub struct Connection {
    pub client: Client,
    /// `-n`, else the context's namespace, else `default`.
    pub namespace: String,
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
    let client = Client::try_from(config).context("cannot build a Kubernetes client")?;
    Ok(Connection { client, namespace })
}
