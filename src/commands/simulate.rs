//! `kubectl kueue simulate`: what the scheduler would do, offline on files (or on the
//! embedded seed scenario when no file is given), with what-if edits.

use anyhow::Context;
use clap::Args;

use super::{CliResult, Outcome};
use crate::cli::{GlobalArgs, OutputFormat};
use crate::manifests::ConvertOptions;
use crate::manifests::documents::parse_documents;
use crate::output::Printer;
use crate::output::printer::kind_name;
use crate::simulate::{Edit, OutputVersion, Simulation};

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  # The seed article's two-team GPU cluster (embedded): who gets the GPUs when team B's job arrives
  kubectl kueue simulate

  # Your own manifests: files, directories (every *.yaml in order) or - for stdin
  kubectl kueue simulate -f cluster/ -f jobs.yaml

  # On the live cluster: what if this job were submitted, and that one finished?
  kubectl kueue simulate --live --add job.yaml --remove team-a/job-experiment-3-1a2b3

  # What if team B had 6 GPUs of nominal quota?
  kubectl kueue simulate -f examples/gpu-two-teams -f examples/gpu-two-teams/monday \\
      --set cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6

  # The resulting Workloads, ClusterQueues and LocalQueues with their status
  kubectl kueue simulate -f state.yaml -o yaml > after.yaml

  # A week of the two teams replayed (wait times, usage, borrowing), before and after a change, with charts
  kubectl kueue simulate --trace examples/traces/seed-week.jsonl \\
      --set cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6 --plot charts/

  # kueue.x-k8s.io/v1beta1 and v1beta2 manifests, mixed; every object written back as v1beta2
  kubectl kueue simulate -f cluster/ -o yaml --api-version v1beta2

--set edits (kueuectl's flag shapes):
  cq/NAME.nominalQuota=FLAVOR:RESOURCE=QTY[;RESOURCE=QTY]   (also borrowingLimit, lendingLimit)
  cq/NAME.cohort=NAME   cq/NAME.stopPolicy=Hold   cq/NAME.queueingStrategy=StrictFIFO
  cq/NAME.preemption.reclaimWithinCohort=Any   cq/NAME.preemption.withinClusterQueue=LowerPriority
  cq/NAME.fairSharing.weight=2   cohort/NAME.parentName=NAME   lq/NS/NAME.stopPolicy=Hold
  wl/NS/NAME.priority=1000   wl/NS/NAME.active=false

Exit codes: 0 fixpoint reached, 1 bad input, 3 no fixpoint (workloads keep preempting each other).")]
pub struct SimulateArgs {
    /// Manifests to read: a file, a directory, or - for stdin. Repeatable. Without any, the
    /// embedded seed scenario is simulated.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub files: Vec<String>,
    /// Simulate on the current cluster's state (from your kubeconfig) instead of files.
    #[arg(long, conflicts_with = "files")]
    pub live: bool,
    /// What-if edit applied before simulating (see below). Repeatable.
    #[arg(long = "set", value_name = "EDIT")]
    pub set: Vec<String>,
    /// What-if: add the Jobs or Workloads in this file or directory (as if submitted now).
    /// Repeatable.
    #[arg(long = "add", value_name = "PATH")]
    pub add: Vec<String>,
    /// What-if: remove this Workload or Job (NAMESPACE/NAME), as if it finished. Repeatable.
    #[arg(long = "remove", value_name = "NS/NAME")]
    pub remove: Vec<String>,
    /// Output format: table (what changed), wide, json or yaml (the resulting objects), name.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Don't print table headers.
    #[arg(long)]
    pub no_headers: bool,
    /// The simulation's clock (RFC 3339), used for conditions and for objects without a
    /// creationTimestamp. Defaults to the current time.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Read a ClusterQueue without namespaceSelector as upstream Kueue does (it selects no
    /// namespace) instead of every namespace, as the seed article expects.
    #[arg(long)]
    pub strict_namespace_selector: bool,
    /// With -o json|yaml: write every object as kueue.x-k8s.io/v1beta1 or v1beta2. Without it,
    /// each object is written in the version it was read in (Workloads made from Jobs in the
    /// version most Kueue documents use).
    #[arg(long, value_name = "VERSION", value_parser = ["v1beta1", "v1beta2"])]
    pub api_version: Option<String>,
    /// `--trace` and the flags that go with it.
    #[command(flatten)]
    pub replay: super::simulate_trace::TraceArgs,
}

pub fn parse_now(now: &Option<String>) -> anyhow::Result<i64> {
    match now {
        Some(s) => {
            let t: k8s_openapi::jiff::Timestamp = s.parse().with_context(|| {
                format!("--now {s:?} is not an RFC 3339 time such as 2025-07-22T09:00:00Z")
            })?;
            Ok(t.as_millisecond())
        }
        None => Ok(k8s_openapi::jiff::Timestamp::now().as_millisecond()),
    }
}

/// The input picture: files, the live cluster, or the embedded scenario.
fn read_input(
    global: &GlobalArgs,
    args: &SimulateArgs,
) -> anyhow::Result<crate::manifests::Inventory> {
    if args.live {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        return rt.block_on(async {
            let conn = super::common::connect(global).await?;
            conn.read_inventory().await
        });
    }
    let docs = if args.files.is_empty() {
        if args.output == OutputFormat::Table || args.output == OutputFormat::Wide {
            eprintln!(
                "No -f given: simulating the embedded seed scenario (examples/gpu-two-teams: team A's 8 experiments run, team B's weekly retraining arrives)."
            );
        }
        crate::simulate::embedded::documents()?
    } else {
        crate::manifests::documents::read_all(&args.files)?
    };
    Ok(crate::manifests::Inventory::from_documents(docs)?)
}

pub fn run(global: &GlobalArgs, args: SimulateArgs) -> CliResult {
    if let Some(path) = args.replay.trace.clone() {
        return super::simulate_trace::run(global, &args, &path);
    }
    let edits: Vec<Edit> = args
        .set
        .iter()
        .map(|s| Edit::parse(s))
        .collect::<Result<_, _>>()?;
    let inventory = read_input(global, &args)?;
    for w in &inventory.warnings {
        crate::output::warn(w);
    }
    let mut changed = inventory.clone();
    if !args.add.is_empty() {
        let mut order = changed.workloads.len() + changed.jobs.len() + 1_000_000;
        let mut docs = Vec::new();
        for path in &args.add {
            for file in crate::manifests::documents::expand_path(path)? {
                let text = crate::manifests::documents::read_text(&file)?;
                docs.extend(parse_documents(&file, &text, &mut order)?);
            }
        }
        let added = crate::manifests::Inventory::from_documents(docs)?;
        if added.workloads.is_empty() && added.jobs.is_empty() {
            return Err(anyhow::anyhow!(
                "--add {}: no Workload, and no Job with the label kueue.x-k8s.io/queue-name, to add",
                args.add.join(", ")
            )
            .into());
        }
        changed.add_workloads_and_jobs(added);
    }
    crate::simulate::remove(&mut changed, &args.remove)?;
    let opts = ConvertOptions {
        now: parse_now(&args.now)?,
        strict_namespace_selector: args.strict_namespace_selector,
    };
    let what_if = !edits.is_empty() || !args.add.is_empty() || !args.remove.is_empty();
    let baseline = if what_if {
        Some(Simulation::run(inventory, &[], &opts)?)
    } else {
        None
    };
    let sim = Simulation::run(changed, &edits, &opts)?;
    for w in sim
        .converted
        .warnings
        .iter()
        .filter(|w| !sim.inventory.warnings.contains(w))
    {
        crate::output::warn(w);
    }
    for r in &sim.converted.rejected_jobs {
        crate::output::warn(&format!(
            "Job {} ({}) gets no Workload: {}: {}",
            r.job, r.origin, r.reason, r.message
        ));
    }
    let version = match args.api_version.as_deref() {
        Some(v) => OutputVersion::Fixed(v.parse()?),
        None => OutputVersion::AsInput,
    };
    let printer = Printer::new(args.output, args.no_headers, global.color);
    if !printer.data(&crate::output::simulate::data(&sim, version))? {
        match args.output {
            OutputFormat::Name => {
                for item in sim.output()["items"].as_array().into_iter().flatten() {
                    let kind = item["kind"].as_str().unwrap_or("");
                    let name = item["metadata"]["name"].as_str().unwrap_or("");
                    printer.line(kind_name(kind, crate::api::GROUP, name))?;
                }
            }
            _ => {
                let mut changes: Vec<String> = edits
                    .iter()
                    .map(|e| format!("--set {}", e.expression))
                    .collect();
                changes.extend(args.add.iter().map(|a| format!("--add {a}")));
                changes.extend(args.remove.iter().map(|r| format!("--remove {r}")));
                printer.write(&crate::output::simulate::render(
                    &sim,
                    baseline.as_ref(),
                    &changes,
                    printer.wide(),
                    printer.no_headers(),
                    printer.color(),
                ))?;
            }
        }
    }
    if !sim.report.oscillating.is_empty() {
        crate::output::warn(&format!(
            "no fixpoint: these workloads keep preempting each other (upstream Kueue would loop too): {}",
            sim.report.oscillating.join(", ")
        ));
        return Ok(Outcome::NoFixpoint);
    }
    if !sim.report.converged {
        crate::output::warn(&format!(
            "stopped after {} cycles without reaching a fixpoint",
            sim.report.cycles
        ));
        return Ok(Outcome::NoFixpoint);
    }
    Ok(Outcome::Success)
}
