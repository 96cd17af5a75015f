//! What the cluster-facing commands share: a runtime to run async kube calls from the
//! synchronous command functions, the cluster snapshot, the printer of `-o`, and kubectl's
//! `KEY=VALUE` flags.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use anyhow::Context;

use crate::cli::GlobalArgs;
pub use crate::cli::PrintArgs;
use crate::kube::Connection;
use crate::output::Printer;
use crate::scheduler::model::Millis;
use crate::view::Snapshot;

/// A printer for commands with `-o` and `--no-headers`.
pub fn printer(global: &GlobalArgs, print: &PrintArgs) -> Printer {
    Printer::new(print.output, print.no_headers, global.color)
}

/// Runs a future to completion on a small runtime of its own.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// Milliseconds since the epoch, now.
pub fn now_millis() -> Millis {
    k8s_openapi::jiff::Timestamp::now().as_millisecond()
}

/// Connects like kubectl (`--kubeconfig`, `--context`, `-n`).
pub async fn connect(global: &GlobalArgs) -> anyhow::Result<Connection> {
    crate::kube::connect(global).await
}

/// Reads every Kueue object, labelled Job, Namespace and Node, and builds the engine on them.
pub async fn snapshot(client: &kube::Client) -> anyhow::Result<Snapshot> {
    let inventory = crate::kube::read_inventory(client).await?;
    Ok(Snapshot::from_inventory(inventory, now_millis())?)
}

/// Whether an API error is "not found".
pub fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// Turns a kube error into a message that says what failed, on what, and what to do.
pub fn api_error(e: kube::Error, what: &str) -> anyhow::Error {
    match &e {
        kube::Error::Api(s)
            if s.code == 404
                && s.message
                    .contains("the server could not find the requested resource") =>
        {
            anyhow::anyhow!(
                "{what}: the cluster does not serve kueue.x-k8s.io/v1beta1 (install Kueue's CRDs: kubectl kueue install, or upstream Kueue)"
            )
        }
        kube::Error::Api(s) => anyhow::anyhow!("{what}: {} ({})", s.message, s.reason),
        _ => anyhow::Error::new(e).context(what.to_string()),
    }
}

/// Parses `a=b,c=d` (kubectl's `StringToString` flags).
pub fn parse_key_values(flag: &str, text: &str) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .with_context(|| format!("--{flag} {text:?}: {part:?} is not KEY=VALUE"))?;
        if k.trim().is_empty() {
            anyhow::bail!("--{flag} {text:?}: {part:?} has an empty key");
        }
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// Sleeps, for polling loops.
pub async fn sleep(d: Duration) {
    tokio::time::sleep(d).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values() {
        let m = parse_key_values("node-labels", "gpu-type=a100, zone=b").unwrap();
        assert_eq!(m["gpu-type"], "a100");
        assert_eq!(m["zone"], "b");
        assert!(parse_key_values("node-labels", "gpu-type").is_err());
    }
}
