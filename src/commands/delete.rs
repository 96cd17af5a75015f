//! `kubectl kueue delete workload`: delete Workloads, asking first. A Workload owned by a
//! Job (or another object) would be recreated by its owner, so the owner is deleted instead
//! and the garbage collector removes the Workload, as upstream's kueuectl does.

use std::io::IsTerminal;

use anyhow::{Context, anyhow, bail};
use clap::{Args, Subcommand};

use super::{CliResult, Outcome, common};
use crate::api::Workload;
use crate::cli::{DryRun, GlobalArgs};
use crate::kube::{Connection, Namespaces};
use crate::manifests::ObjectKey;
use crate::output::Printer;
use crate::output::printer::kind_name;
use crate::scheduler::key::WorkloadKey;

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

/// The object that owns a Workload and is deleted in its place.
struct Owner {
    api_version: String,
    kind: String,
    name: String,
}

/// What deleting one Workload takes.
struct Target {
    workload: WorkloadKey,
    /// The owner to delete instead (its controller, else its first owner).
    owner: Option<Owner>,
}

impl Target {
    fn of(w: &Workload) -> Target {
        let owners = w.metadata.owner_references.iter().flatten();
        let owner = owners
            .clone()
            .find(|o| o.controller == Some(true))
            .or_else(|| owners.clone().next())
            .map(|o| Owner {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                name: o.name.clone(),
            });
        Target {
            workload: ObjectKey::workload(&w.metadata),
            owner,
        }
    }

    /// One line of the plan shown before asking.
    fn plan_line(&self) -> String {
        let ns = &self.workload.namespace;
        match &self.owner {
            Some(o) => format!(
                "  {} {ns}/{} (and with it Workload {})\n",
                o.kind, o.name, self.workload.name
            ),
            None => format!("  Workload {}\n", self.workload),
        }
    }
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
    let Some(workloads) = chosen(&conn, &a).await? else {
        return Ok(Outcome::Success);
    };
    let targets: Vec<Target> = workloads.iter().map(Target::of).collect();
    if !a.yes && a.dry_run == DryRun::None && !confirmed(&targets)? {
        eprintln!("Nothing deleted.");
        return Ok(Outcome::Success);
    }
    let server_dry_run = a.dry_run == DryRun::Server;
    let check_only = a.dry_run == DryRun::Client;
    let suffix = a.dry_run.suffix();
    for t in &targets {
        let ns = &t.workload.namespace;
        let deleted = match &t.owner {
            Some(o) => {
                let found = conn
                    .delete_dynamic(
                        ns,
                        &o.api_version,
                        &o.kind,
                        &o.name,
                        server_dry_run,
                        check_only,
                    )
                    .await
                    .with_context(|| {
                        format!("Workload {} is owned by {} {}", t.workload, o.kind, o.name)
                    })?;
                if !found {
                    // The owner is gone already; the Workload is an orphan, delete it.
                    conn.delete_in::<Workload>(ns, &t.workload.name, server_dry_run)
                        .await?;
                }
                let group = o.api_version.split_once('/').map_or("", |(g, _)| g);
                kind_name(&o.kind, group, &o.name)
            }
            None => {
                if !check_only {
                    conn.delete_in::<Workload>(ns, &t.workload.name, server_dry_run)
                        .await?;
                }
                format!("workload.kueue.x-k8s.io/{}", t.workload.name)
            }
        };
        printer.line(format!("{deleted} deleted{suffix}"))?;
    }
    Ok(Outcome::Success)
}

/// The Workloads named, or all of them (`None`, said on stderr, when `--all` finds none).
async fn chosen(conn: &Connection, a: &DeleteWorkload) -> anyhow::Result<Option<Vec<Workload>>> {
    let ns = &conn.namespace;
    if a.all {
        let scope = if a.all_namespaces {
            Namespaces::All
        } else {
            Namespaces::One(ns)
        };
        let workloads: Vec<Workload> = conn.list_in(scope, None).await?;
        if workloads.is_empty() {
            let place = if a.all_namespaces {
                String::new()
            } else {
                format!(" in namespace {ns}")
            };
            eprintln!("No Workloads found{place}.");
            return Ok(None);
        }
        return Ok(Some(workloads));
    }
    let mut workloads = Vec::new();
    for n in &a.names {
        let w = conn.get_in::<Workload>(ns, n).await?.ok_or_else(|| {
            anyhow!(
                "Workload {n} not found in namespace {ns} (kubectl kueue list workload -n {ns} shows them)"
            )
        })?;
        workloads.push(w);
    }
    Ok(Some(workloads))
}

/// Shows the plan and asks on the terminal; without one, refuses.
fn confirmed(targets: &[Target]) -> anyhow::Result<bool> {
    let plan: String = targets.iter().map(Target::plan_line).collect();
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        bail!(
            "refusing to delete without confirmation (no terminal to ask on); this would delete:\n{}pass --yes to go ahead",
            plan
        );
    }
    eprintln!("This deletes:\n{plan}");
    Ok(dialoguer::Confirm::new()
        .with_prompt("Go ahead?")
        .default(false)
        .interact()?)
}
