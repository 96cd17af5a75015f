//! `kubectl kueue version`: the client version and, when a cluster is configured, the
//! server's Kubernetes version, whether it serves the Kueue API, and which controller runs
//! it (ours, recognised by its lease identity, or upstream Kueue's).

use std::time::Duration;

use clap::Args;

use super::{CliResult, Outcome};
use crate::api::config::DEFAULT_LEADER_ELECTION_ID;
use crate::cli::GlobalArgs;
use crate::kube::server::{Controller, KueueApi};
use crate::output::Printer;

#[derive(Debug, Args)]
#[command(after_help = "\
Without a configured cluster (no --kubeconfig, KUBECONFIG, ~/.kube/config or service account) only
the client version is printed. Exit codes: 0 (also when the cluster cannot be reached; that is
reported), 1 never.")]
pub struct VersionArgs {
    /// Print only the version number.
    #[arg(long)]
    pub short: bool,
    /// Print only the client's version; don't contact the cluster.
    #[arg(long)]
    pub client: bool,
}

/// Whether a kubeconfig or service account is there to use.
fn cluster_configured(global: &GlobalArgs) -> bool {
    global.kubeconfig.as_deref().is_some_and(|k| !k.is_empty())
        || std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
        || std::env::var_os("HOME")
            .is_some_and(|h| std::path::Path::new(&h).join(".kube/config").is_file())
}

/// Lines describing the cluster.
async fn server_info(global: &GlobalArgs) -> anyhow::Result<Vec<String>> {
    let info = super::common::connect(global).await?.server_info().await?;
    let mut out = vec![format!("Server: Kubernetes {}", info.kubernetes)];
    out.push(match &info.kueue_api {
        KueueApi::Served => "Kueue API: kueue.x-k8s.io/v1beta1 is served".to_string(),
        KueueApi::NotInstalled => {
            "Kueue API: not installed (kubectl kueue install, or install upstream Kueue)"
                .to_string()
        }
        KueueApi::Unknown(e) => format!("Kueue API: cannot tell ({e})"),
    });
    out.extend(info.controller.map(|c| match c {
        Controller::Ours {
            holder,
            lease_namespace,
        } => format!(
            "Controller: kubectl-kueue (leader {holder}, Lease {lease_namespace}/{DEFAULT_LEADER_ELECTION_ID})"
        ),
        Controller::Upstream(why) => format!("Controller: upstream Kueue ({why})"),
        Controller::None => "Controller: none found (start one with kubectl kueue run-controller, or kubectl kueue install)".to_string(),
    }));
    Ok(out)
}

pub fn run(global: &GlobalArgs, args: VersionArgs) -> CliResult {
    let printer = Printer::text(global.color);
    if args.short {
        printer.line(env!("CARGO_PKG_VERSION"))?;
        return Ok(Outcome::Success);
    }
    printer.line(format!(
        "kubectl-kueue {} (API kueue.x-k8s.io/v1beta1, behaviour of Kueue v0.19)",
        env!("CARGO_PKG_VERSION")
    ))?;
    if args.client || !cluster_configured(global) {
        return Ok(Outcome::Success);
    }
    let info = super::common::block_on(async {
        tokio::time::timeout(Duration::from_secs(10), server_info(global)).await
    });
    let lines = match info {
        Ok(Ok(lines)) => lines,
        Ok(Err(e)) => vec![format!("Server: cannot be reached: {e:#}")],
        Err(_) => vec!["Server: no answer within 10s".to_string()],
    };
    for l in lines {
        printer.line(l)?;
    }
    Ok(Outcome::Success)
}
