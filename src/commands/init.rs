//! `kubectl kueue init`: a setup like the seed's two-team GPU cluster, from a few answers:
//! GPU types, teams, quotas, cohort, priorities. Interactive on a terminal (dialoguer), or
//! all from flags for scripts. Writes the manifests (a commented multi-document YAML) to
//! stdout or a file, and with `--apply` creates them in the cluster.

use std::fmt::Write as _;
use std::io::IsTerminal;

use anyhow::{Context, bail};
use clap::Args;

use super::{CliResult, Outcome, common};
use crate::cli::GlobalArgs;
use crate::output::Printer;
use crate::scheduler::quantity::parse_amount;

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

/// Everything the setup is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// (type, GPUs in the cluster)
    pub gpu_types: Vec<(String, u32)>,
    pub teams: Vec<String>,
    /// `quota[team][type]`
    pub quota: Vec<Vec<u32>>,
    pub cpu: String,
    pub memory: String,
    pub cohort: Option<String>,
    pub borrowing_limit: Option<u32>,
    pub priorities: Vec<(String, i32)>,
    pub queue_name: String,
    pub gpu_resource: String,
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

fn dns_label(flag: &str, s: &str) -> anyhow::Result<()> {
    let ok = !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-');
    if !ok {
        bail!(
            "{flag} {s:?}: must be a lower-case DNS label (a-z, 0-9, '-'), it names namespaces and queues"
        );
    }
    Ok(())
}

pub fn parse_gpu_types(s: &str) -> anyhow::Result<Vec<(String, u32)>> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for item in split_list(s) {
        let (t, n) = item
            .split_once('=')
            .map_or((item.as_str(), "0"), |(t, n)| (t.trim(), n.trim()));
        dns_label("--gpu-types", t)?;
        let n: u32 = n
            .parse()
            .with_context(|| format!("--gpu-types {item:?}: {n:?} is not a GPU count"))?;
        if out.iter().any(|(x, _)| x == t) {
            bail!("--gpu-types: {t} is given twice");
        }
        out.push((t.to_string(), n));
    }
    if out.is_empty() {
        bail!("--gpu-types: give at least one GPU type, e.g. a100=8");
    }
    Ok(out)
}

pub fn parse_priorities(s: &str) -> anyhow::Result<Vec<(String, i32)>> {
    let mut out = Vec::new();
    for item in split_list(s) {
        let (n, v) = item
            .split_once('=')
            .with_context(|| format!("--priorities {item:?}: expected NAME=VALUE"))?;
        dns_label("--priorities", n.trim())?;
        let v: i32 = v
            .trim()
            .parse()
            .with_context(|| format!("--priorities {item:?}: {v:?} is not an integer"))?;
        out.push((n.trim().to_string(), v));
    }
    Ok(out)
}

/// Even split of `total` over `n` teams, the remainder to the first teams.
fn even(total: u32, n: usize, i: usize) -> u32 {
    let n = n as u32;
    total / n + u32::from((i as u32) < total % n)
}

impl Plan {
    /// The plan from flags alone.
    pub fn from_flags(a: &InitArgs) -> anyhow::Result<Plan> {
        let gpu_types = parse_gpu_types(&a.gpu_types)?;
        let teams = split_list(&a.teams);
        if teams.is_empty() {
            bail!("--teams: give at least one team");
        }
        for t in &teams {
            dns_label("--teams", t)?;
        }
        let mut quota: Vec<Vec<u32>> = (0..teams.len())
            .map(|i| {
                gpu_types
                    .iter()
                    .map(|(_, n)| even(*n, teams.len(), i))
                    .collect()
            })
            .collect();
        for q in &a.quota {
            for item in split_list(q) {
                let (team, rest) = item
                    .split_once(':')
                    .with_context(|| format!("--quota {item:?}: expected TEAM:TYPE=COUNT"))?;
                let (ty, n) = rest
                    .split_once('=')
                    .with_context(|| format!("--quota {item:?}: expected TEAM:TYPE=COUNT"))?;
                let ti = teams
                    .iter()
                    .position(|t| t == team.trim())
                    .with_context(|| format!("--quota {item:?}: {team} is not one of --teams"))?;
                let gi = gpu_types
                    .iter()
                    .position(|(t, _)| t == ty.trim())
                    .with_context(|| format!("--quota {item:?}: {ty} is not one of --gpu-types"))?;
                quota[ti][gi] = n
                    .trim()
                    .parse()
                    .with_context(|| format!("--quota {item:?}: {n:?} is not a GPU count"))?;
            }
        }
        parse_amount("cpu", &a.cpu).map_err(|e| anyhow::anyhow!("--cpu {:?}: {e}", a.cpu))?;
        parse_amount("memory", &a.memory)
            .map_err(|e| anyhow::anyhow!("--memory {:?}: {e}", a.memory))?;
        let cohort = (!a.cohort.trim().is_empty()).then(|| a.cohort.trim().to_string());
        if let Some(c) = &cohort {
            dns_label("--cohort", c)?;
        }
        if cohort.is_none() && a.borrowing_limit.is_some() {
            bail!("--borrowing-limit needs a --cohort to borrow from");
        }
        dns_label("--queue-name", &a.queue_name)?;
        Ok(Plan {
            gpu_types,
            teams,
            quota,
            cpu: a.cpu.clone(),
            memory: a.memory.clone(),
            cohort,
            borrowing_limit: a.borrowing_limit,
            priorities: parse_priorities(&a.priorities)?,
            queue_name: a.queue_name.clone(),
            gpu_resource: a.gpu_resource.clone(),
        })
    }

    /// What a team may borrow on a GPU type: the flag, else what the others hold.
    fn borrowing(&self, team: usize, ty: usize) -> u32 {
        self.borrowing_limit.unwrap_or_else(|| {
            (0..self.teams.len())
                .filter(|&t| t != team)
                .map(|t| self.quota[t][ty])
                .sum()
        })
    }

    /// The manifests, commented like the seed's.
    pub fn render(&self) -> String {
        let mut y = String::new();
        let gpu = &self.gpu_resource;
        let _ = writeln!(
            y,
            "# Generated by `kubectl kueue init`. Apply with: kubectl apply -f <this file>"
        );
        let _ = writeln!(
            y,
            "# Teams: {}. GPUs: {}.",
            self.teams.join(", "),
            self.gpu_types
                .iter()
                .map(|(t, n)| format!("{n} x {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for t in &self.teams {
            let _ = write!(
                y,
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {t}\n"
            );
        }
        for (name, value) in &self.priorities {
            let _ = write!(
                y,
                "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata:\n  name: {name}\nvalue: {value}\n"
            );
        }
        for (ty, n) in &self.gpu_types {
            let _ = write!(
                y,
                "---\n# {n} {ty} GPU(s): nodes labelled gpu-type={ty}\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: gpu-{ty}\nspec:\n  nodeLabels:\n    gpu-type: {ty}\n"
            );
        }
        for (ti, team) in self.teams.iter().enumerate() {
            let quotas: Vec<String> = self
                .gpu_types
                .iter()
                .enumerate()
                .map(|(gi, (ty, _))| format!("{} {ty}", self.quota[ti][gi]))
                .collect();
            let borrow = match &self.cohort {
                Some(_) => {
                    let b: Vec<String> = self
                        .gpu_types
                        .iter()
                        .enumerate()
                        .map(|(gi, _)| self.borrowing(ti, gi).to_string())
                        .collect();
                    format!(", can borrow {} more", b.join("/"))
                }
                None => String::new(),
            };
            let _ = write!(
                y,
                "---\n# {team}: {} GPU quota{borrow}\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: {team}-queue\nspec:\n",
                quotas.join(", ")
            );
            if let Some(c) = &self.cohort {
                let _ = writeln!(y, "  cohort: {c}");
            }
            // Every namespace, as kueuectl creates them: a team reaches its ClusterQueue through
            // the LocalQueue in its namespace.
            let _ = writeln!(y, "  namespaceSelector: {{}}");
            let _ = write!(
                y,
                "  preemption:\n    reclaimWithinCohort: Any\n    withinClusterQueue: LowerPriority\n"
            );
            let _ = write!(
                y,
                "  resourceGroups:\n  - coveredResources: [\"{gpu}\", \"cpu\", \"memory\"]\n    flavors:\n"
            );
            for (gi, (ty, _)) in self.gpu_types.iter().enumerate() {
                let _ = write!(
                    y,
                    "    - name: gpu-{ty}\n      resources:\n      - name: \"{gpu}\"\n        nominalQuota: {}\n",
                    self.quota[ti][gi]
                );
                if self.cohort.is_some() {
                    let _ = writeln!(y, "        borrowingLimit: {}", self.borrowing(ti, gi));
                }
                let _ = write!(
                    y,
                    "      - name: \"cpu\"\n        nominalQuota: {}\n      - name: \"memory\"\n        nominalQuota: {}\n",
                    self.cpu, self.memory
                );
            }
        }
        for team in &self.teams {
            let _ = write!(
                y,
                "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: {}\n  namespace: {team}\nspec:\n  clusterQueue: {team}-queue\n",
                self.queue_name
            );
        }
        y
    }
}

fn ask(prompt: &str, default: &str) -> anyhow::Result<String> {
    Ok(dialoguer::Input::<String>::new()
        .with_prompt(prompt)
        .default(default.to_string())
        .interact_text()?)
}

/// Fills the plan by asking, with the flags' values as defaults.
fn interactive(a: &InitArgs) -> anyhow::Result<Plan> {
    let mut a2 = InitArgs {
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
    Plan::from_flags(&a2)
}

pub fn run(global: &GlobalArgs, a: InitArgs) -> CliResult {
    let printer = Printer::text(global.color);
    let ask_user =
        !a.non_interactive && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let plan = if ask_user {
        interactive(&a)?
    } else {
        Plan::from_flags(&a)?
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
