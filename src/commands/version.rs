//! `kubectl kueue version`: the client version and, when a cluster is configured, the
//! server's Kubernetes version, whether it serves the Kueue API, and which controller runs
//! it (ours, recognised by its lease identity, or upstream Kueue's).

use std::time::Duration;

use clap::Args;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ListParams};

use super::{CliResult, Outcome};
use crate::api::config::DEFAULT_LEADER_ELECTION_ID;
use crate::cli::GlobalArgs;
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
    let conn = super::common::connect(global).await?;
    let client = conn.client;
    let v = client.apiserver_version().await?;
    let mut out = vec![format!("Server: Kubernetes {}", v.git_version)];
    let cqs: Api<crate::api::ClusterQueue> = Api::all(client.clone());
    match cqs.list(&ListParams::default().limit(1)).await {
        Ok(_) => out.push("Kueue API: kueue.x-k8s.io/v1beta1 is served".to_string()),
        Err(kube::Error::Api(s)) if s.code == 404 => {
            out.push(
                "Kueue API: not installed (kubectl kueue install, or install upstream Kueue)"
                    .to_string(),
            );
            return Ok(out);
        }
        Err(e) => out.push(format!("Kueue API: cannot tell ({e})")),
    }
    // Both controllers elect a leader under upstream's lock name; ours use identities with
    // our prefix.
    let leases: Api<Lease> = Api::all(client.clone());
    let held: Vec<(String, String)> = leases
        .list(&ListParams::default().fields(&format!("metadata.name={DEFAULT_LEADER_ELECTION_ID}")))
        .await
        .map(|l| {
            l.items
                .into_iter()
                .filter_map(|lease| {
                    let holder = lease
                        .spec
                        .and_then(|s| s.holder_identity)
                        .filter(|h| !h.is_empty())?;
                    Some((lease.metadata.namespace.unwrap_or_default(), holder))
                })
                .collect()
        })
        .unwrap_or_default();
    let ours: Vec<&(String, String)> = held
        .iter()
        .filter(|(_, h)| h.starts_with(crate::kube::lease::IDENTITY_PREFIX))
        .collect();
    if let Some((ns, holder)) = ours.first() {
        out.push(format!(
            "Controller: kubectl-kueue (leader {holder}, Lease {ns}/{DEFAULT_LEADER_ELECTION_ID})"
        ));
    } else {
        let ns = held
            .first()
            .map(|(ns, _)| ns.as_str())
            .unwrap_or("kueue-system");
        match crate::kube::lease::detect_upstream(&client, ns, DEFAULT_LEADER_ELECTION_ID).await {
            Some(why) => out.push(format!("Controller: upstream Kueue ({why})")),
            None => out.push("Controller: none found (start one with kubectl kueue run-controller, or kubectl kueue install)".to_string()),
        }
    }
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
