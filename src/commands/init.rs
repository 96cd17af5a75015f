//! `kubectl kueue init`: a setup like the seed's two-team GPU cluster, from a few answers:
//! GPU types, teams, quotas, cohort, priorities. Interactive on a terminal (dialoguer), or
//! all from flags for scripts. Writes the manifests ([`crate::manifests::setup`]) to stdout
//! or a file, and with `--apply` creates them in the cluster.

use std::io::IsTerminal;

use anyhow::Context;
use clap::Args;

use super::{CliResult, Outcome, common};
use crate::cli::GlobalArgs;
use crate::manifests::setup::{Plan, SetupFlags, even, parse_gpu_types, split_list};
use crate::output::Printer;

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  # Answer questions, write the setup to a file
  kubectl kueue init --output-file kueue-setup.yaml

  # The seed article's cluster, without questions
  kubectl kueue init --non-interactive --gpu-types a100=8 --teams team-a,team-b

  # Two GPU types, three teams, straight into the cluster
  kubectl kueue init --non-interactive --gpu-types a100=8,h100=4 --teams vision,nlp,speech --apply

What it writes: a Namespace and a LocalQueue (--queue-name) per team; a ResourceFlavor per GPU type
(gpu-<type>, for nodes labelled gpu-type=<type>); a ClusterQueue per team (<team>-queue) with its share
of each GPU type, --cpu and --memory, borrowing up to --borrowing-limit GPUs from the cohort, and the
seed's preemption (reclaimWithinCohort: Any, withinClusterQueue: LowerPriority); the priorities as
WorkloadPriorityClasses. Without quotas given, each GPU type is split evenly between the teams.")]
pub struct InitArgs {
    /// Ask nothing: every value not given takes its default. Implied when stdin is not a
    /// terminal.
    #[arg(long, alias = "yes", short = 'y')]
    pub non_interactive: bool,
    /// GPU types and how many GPUs of each the cluster has: TYPE=COUNT[,TYPE=COUNT].
    #[arg(long, value_name = "TYPE=COUNT", default_value = "a100=8")]
    pub gpu_types: String,
    /// Teams, one namespace and ClusterQueue each.
    #[arg(long, value_name = "NAME[,NAME]", default_value = "team-a,team-b")]
    pub teams: String,
    /// GPU quota of a team on a type, overriding the even split: TEAM:TYPE=COUNT[,...].
    #[arg(long, value_name = "TEAM:TYPE=COUNT")]
    pub quota: Vec<String>,
    /// CPU quota per team and GPU type.
    #[arg(long, value_name = "QUANTITY", default_value = "32")]
    pub cpu: String,
    /// Memory quota per team and GPU type.
    #[arg(long, value_name = "QUANTITY", default_value = "128Gi")]
    pub memory: String,
    /// The cohort the teams share unused quota in; empty for none (no borrowing).
    #[arg(long, value_name = "NAME", default_value = "gpu-cluster")]
    pub cohort: String,
    /// GPUs a team may borrow beyond its quota, per type (default: what the other teams have).
    #[arg(long, value_name = "COUNT")]
    pub borrowing_limit: Option<u32>,
    /// WorkloadPriorityClasses: NAME=VALUE[,NAME=VALUE].
    #[arg(
        long,
        value_name = "NAME=VALUE",
        default_value = "production=1000,experiment=100"
    )]
    pub priorities: String,
    /// Name of each team's LocalQueue.
    #[arg(long, value_name = "NAME", default_value = "training-queue")]
    pub queue_name: String,
    /// The GPU resource name.
    #[arg(long, value_name = "RESOURCE", default_value = "nvidia.com/gpu")]
    pub gpu_resource: String,
    /// Write the manifests here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<String>,
    /// Also create (server-side apply) the objects in the cluster.
    #[arg(long)]
    pub apply: bool,
}

impl InitArgs {
    /// The answers the flags give.
    fn setup_flags(&self) -> SetupFlags {
        SetupFlags {
            gpu_types: self.gpu_types.clone(),
            teams: self.teams.clone(),
            quota: self.quota.clone(),
            cpu: self.cpu.clone(),
            memory: self.memory.clone(),
            cohort: self.cohort.clone(),
            borrowing_limit: self.borrowing_limit,
            priorities: self.priorities.clone(),
            queue_name: self.queue_name.clone(),
            gpu_resource: self.gpu_resource.clone(),
        }
    }
}

fn ask(prompt: &str, default: &str) -> anyhow::Result<String> {
    Ok(dialoguer::Input::<String>::new()
        .with_prompt(prompt)
        .default(default.to_string())
        .interact_text()?)
}

/// Fills the plan by asking, with the flags' values as defaults.
fn interactive(a: &SetupFlags) -> anyhow::Result<Plan> {
    let mut a2 = SetupFlags {
        quota: Vec::new(),
        ..a.clone()
    };
    let types = ask(
        "GPU types and how many GPUs of each (TYPE=COUNT, comma-separated)",
        &a.gpu_types,
    )?;
    let gpu_types = parse_gpu_types(&types)?;
    a2.gpu_types = types;
    a2.teams = ask(
        "Teams (one namespace and ClusterQueue each, comma-separated)",
        &a.teams,
    )?;
    let teams = split_list(&a2.teams);
    for (ty, total) in &gpu_types {
        for (ti, team) in teams.iter().enumerate() {
            let n = ask(
                &format!("{ty} GPUs guaranteed to {team}"),
                &even(*total, teams.len(), ti).to_string(),
            )?;
            a2.quota.push(format!("{team}:{ty}={n}"));
        }
    }
    a2.cpu = ask("CPU per team and GPU type", &a.cpu)?;
    a2.memory = ask("Memory per team and GPU type", &a.memory)?;
    a2.cohort = ask(
        "Cohort the teams lend unused GPUs in (empty: no borrowing)",
        &a.cohort,
    )?;
    if !a2.cohort.trim().is_empty() {
        let b = ask(
            "GPUs a team may borrow beyond its quota (empty: what the other teams have)",
            &a.borrowing_limit.map(|b| b.to_string()).unwrap_or_default(),
        )?;
        a2.borrowing_limit = if b.trim().is_empty() {
            None
        } else {
            Some(
                b.trim()
                    .parse()
                    .with_context(|| format!("{b:?} is not a GPU count"))?,
            )
        };
    } else {
        a2.borrowing_limit = None;
    }
    a2.priorities = ask(
        "Priority classes (NAME=VALUE, comma-separated)",
        &a.priorities,
    )?;
    Ok(Plan::from_flags(&a2)?)
}

pub fn run(global: &GlobalArgs, a: InitArgs) -> CliResult {
    let printer = Printer::text(global.color);
    let ask_user =
        !a.non_interactive && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let plan = if ask_user {
        interactive(&a.setup_flags())?
    } else {
        Plan::from_flags(&a.setup_flags())?
    };
    let yaml = plan.render();
    // The loader checks what we wrote the way `simulate` and the API would.
    let mut order = 0;
    let docs =
        crate::manifests::documents::parse_documents("kubectl kueue init", &yaml, &mut order)?;
    let inv = crate::manifests::Inventory::from_documents(docs)?;
    crate::manifests::convert(
        &inv,
        &crate::manifests::ConvertOptions {
            now: 0,
            strict_namespace_selector: true,
        },
    )
    .map_err(|e| anyhow::anyhow!("init produced an invalid setup (a bug): {e}"))?;
    if ask_user {
        let total: Vec<String> = plan
            .gpu_types
            .iter()
            .map(|(t, n)| format!("{n} {t}"))
            .collect();
        eprintln!(
            "{} team(s), {} GPU type(s) ({}), {} priority class(es){}.",
            plan.teams.len(),
            plan.gpu_types.len(),
            total.join(", "),
            plan.priorities.len(),
            plan.cohort
                .as_ref()
                .map(|c| format!(", cohort {c}"))
                .unwrap_or_default()
        );
    }
    match &a.output_file {
        Some(f) => {
            std::fs::write(f, &yaml).with_context(|| format!("cannot write {f}"))?;
            eprintln!("Wrote {f}. Apply it with: kubectl apply -f {f}");
        }
        None if !a.apply => printer.write(&yaml)?,
        None => {}
    }
    if a.apply {
        common::block_on(apply(global, &printer, &yaml))?;
    }
    Ok(Outcome::Success)
}

/// Server-side applies every document, namespaces first (they come first in the file).
async fn apply(global: &GlobalArgs, printer: &Printer, yaml: &str) -> anyhow::Result<()> {
    let conn = common::connect(global).await?;
    let mut order = 0;
    let docs =
        crate::manifests::documents::parse_documents("kubectl kueue init", yaml, &mut order)?;
    let objects: Vec<serde_json::Value> = docs.into_iter().map(|d| d.value).collect();
    conn.apply_documents(&objects, |what| printer.line(format!("{what} configured")))
        .await
}
