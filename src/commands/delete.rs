//! `kubectl kueue delete workload`: delete Workloads, asking first. A Workload owned by a
//! Job (or another object) would be recreated by its owner, so the owner is deleted instead
//! and the garbage collector removes the Workload, as upstream's kueuectl does.

use std::io::IsTerminal;

use anyhow::{anyhow, bail};
use clap::{Args, Subcommand};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PropagationPolicy};
use kube::core::GroupVersionKind;

use super::create::DryRun;
use super::{CliResult, Outcome, common};
use crate::api::Workload;
use crate::cli::GlobalArgs;
use crate::output::Printer;

#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[command(subcommand)]
    pub what: DeleteWhat,
}

#[derive(Debug, Subcommand)]
pub enum DeleteWhat {
    /// Delete Workloads; one owned by a Job is removed by deleting the Job (after
    /// confirmation, or with --yes).
    #[command(
        name = "workload",
        visible_aliases = ["kwl", "kueueworkload"],
        after_help = "Examples:\n  kubectl kueue delete workload job-experiment-1-9f7b8 -n team-a\n  kubectl kueue delete workload --all -n team-a --yes\n\nExit codes: 0 deleted (or declined at the prompt), 1 error (not found, no terminal to ask and no --yes)."
    )]
    Workload(DeleteWorkload),
}

#[derive(Debug, Args)]
pub struct DeleteWorkload {
    /// Names of the Workloads (in -n NAMESPACE).
    pub names: Vec<String>,
    /// Don't ask for confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Every Workload in the namespace (or in every namespace with -A).
    #[arg(long)]
    pub all: bool,
    /// With --all: in every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only print what would be deleted (client), or have the API server check it (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = DryRun::None)]
    pub dry_run: DryRun,
}

/// What deleting one Workload takes.
struct Target {
    workload: String,
    namespace: String,
    /// The owner to delete instead: (apiVersion, kind, name).
    owner: Option<(String, String, String)>,
}

pub fn run(global: &GlobalArgs, args: DeleteArgs) -> CliResult {
    let DeleteWhat::Workload(a) = args.what;
    if a.all && !a.names.is_empty() {
        return Err(anyhow!("give Workload names or --all, not both").into());
    }
    if !a.all && a.names.is_empty() {
        return Err(anyhow!(
            "name the Workloads to delete, or pass --all (kubectl kueue list workload shows them)"
        )
        .into());
    }
    if a.all_namespaces && !a.all {
        return Err(
            anyhow!("-A needs --all: a Workload is named within one namespace (use -n)").into(),
        );
    }
    let printer = Printer::text(global.color);
    Ok(common::block_on(delete_workloads(global, &printer, a))?)
}

async fn delete_workloads(
    global: &GlobalArgs,
    printer: &Printer,
    a: DeleteWorkload,
) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let client = conn.client.clone();
    let mut workloads: Vec<Workload> = Vec::new();
    if a.all {
        let api: Api<Workload> = if a.all_namespaces {
            Api::all(client.clone())
        } else {
            Api::namespaced(client.clone(), &conn.namespace)
        };
        workloads = api
            .list(&ListParams::default())
            .await
            .map_err(|e| common::api_error(e, "cannot list Workloads"))?
            .items;
        if workloads.is_empty() {
            eprintln!(
                "No Workloads found{}.",
                if a.all_namespaces {
                    String::new()
                } else {
                    format!(" in namespace {}", conn.namespace)
                }
            );
            return Ok(Outcome::Success);
        }
    } else {
        let api: Api<Workload> = Api::namespaced(client.clone(), &conn.namespace);
        for n in &a.names {
            let w = api
                .get_opt(n)
                .await
                .map_err(|e| common::api_error(e, &format!("cannot read Workload {n}")))?
                .ok_or_else(|| anyhow::anyhow!("Workload {n} not found in namespace {} (kubectl kueue list workload -n {} shows them)", conn.namespace, conn.namespace))?;
            workloads.push(w);
        }
    }
    let targets: Vec<Target> = workloads
        .iter()
        .map(|w| {
            let owner = w
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.controller == Some(true))
                .or_else(|| w.metadata.owner_references.iter().flatten().next())
                .map(|o| (o.api_version.clone(), o.kind.clone(), o.name.clone()));
            Target {
                workload: w.metadata.name.clone().unwrap_or_default(),
                namespace: w
                    .metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| "default".into()),
                owner,
            }
        })
        .collect();

    if !a.yes && a.dry_run == DryRun::None {
        let mut plan = String::new();
        for t in &targets {
            match &t.owner {
                Some((_, kind, name)) => plan.push_str(&format!(
                    "  {kind} {}/{name} (and with it Workload {})\n",
                    t.namespace, t.workload
                )),
                None => plan.push_str(&format!("  Workload {}/{}\n", t.namespace, t.workload)),
            }
        }
        if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
            bail!(
                "refusing to delete without confirmation (no terminal to ask on); this would delete:\n{}pass --yes to go ahead",
                plan
            );
        }
        eprintln!("This deletes:\n{plan}");
        let ok = dialoguer::Confirm::new()
            .with_prompt("Go ahead?")
            .default(false)
            .interact()?;
        if !ok {
            eprintln!("Nothing deleted.");
            return Ok(Outcome::Success);
        }
    }

    let dp = DeleteParams {
        dry_run: a.dry_run == DryRun::Server,
        propagation_policy: Some(PropagationPolicy::Background),
        ..Default::default()
    };
    let suffix = match a.dry_run {
        DryRun::None => "",
        DryRun::Client => " (dry run)",
        DryRun::Server => " (server dry run)",
    };
    for t in &targets {
        match &t.owner {
            Some((api_version, kind, name)) => {
                let (group, version) = match api_version.split_once('/') {
                    Some((g, v)) => (g.to_string(), v.to_string()),
                    None => (String::new(), api_version.clone()),
                };
                let gvk = GroupVersionKind::gvk(&group, &version, kind);
                let (ar, _) = kube::discovery::pinned_kind(&client, &gvk)
                    .await
                    .map_err(|e| anyhow::anyhow!("Workload {}/{} is owned by {kind} {name}, whose kind the cluster does not serve: {e}", t.namespace, t.workload))?;
                if a.dry_run != DryRun::Client {
                    let api: Api<DynamicObject> =
                        Api::namespaced_with(client.clone(), &t.namespace, &ar);
                    match api.delete(name, &dp).await {
                        Ok(_) => {}
                        Err(e) if common::is_not_found(&e) => {
                            // The owner is gone already; the Workload is an orphan, delete it.
                            delete_workload(&client, t, &dp).await?;
                        }
                        Err(e) => {
                            return Err(common::api_error(
                                e,
                                &format!("cannot delete {kind} {}/{name}", t.namespace),
                            ));
                        }
                    }
                }
                let group_part = if group.is_empty() {
                    String::new()
                } else {
                    format!(".{group}")
                };
                printer.line(format!(
                    "{}{group_part}/{name} deleted{suffix}",
                    kind.to_lowercase()
                ))?;
            }
            None => {
                if a.dry_run != DryRun::Client {
                    delete_workload(&client, t, &dp).await?;
                }
                printer.line(format!(
                    "workload.kueue.x-k8s.io/{} deleted{suffix}",
                    t.workload
                ))?;
            }
        }
    }
    Ok(Outcome::Success)
}

async fn delete_workload(
    client: &kube::Client,
    t: &Target,
    dp: &DeleteParams,
) -> anyhow::Result<()> {
    let api: Api<Workload> = Api::namespaced(client.clone(), &t.namespace);
    match api.delete(&t.workload, dp).await {
        Ok(_) => Ok(()),
        Err(e) if common::is_not_found(&e) => Ok(()),
        Err(e) => Err(common::api_error(
            e,
            &format!("cannot delete Workload {}/{}", t.namespace, t.workload),
        )),
    }
}
