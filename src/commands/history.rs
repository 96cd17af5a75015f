//! `kubectl kueue history export`: the cluster's recent Workloads as a trace file (JSON Lines,
//! see [`crate::simulate::trace::format`]) for `simulate --trace`. The hidden
//! `history generate` writes the generated example week (examples/traces/seed-week.jsonl).
//!
//! Reads the cluster (or nothing), calls the pure export or generator, writes the file.

use anyhow::Context;
use clap::{Args, Subcommand};

use super::{CliResult, Outcome};
use crate::cli::GlobalArgs;
use crate::manifests::{ConvertOptions, convert};
use crate::simulate::trace::export::{Filter, jobs, parse_duration};
use crate::simulate::trace::{self, TraceJob};

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Write the cluster's Workloads (submission, admission and finish times, requests, queue,
    /// priority) as a trace for `simulate --trace`.
    #[command(after_help = "\
Examples:
  # The last week of every namespace, for a what-if replay
  kubectl kueue history export -A --since 7d -o week.jsonl
  kubectl kueue simulate --trace week.jsonl \\
      --set cq/team-b-queue.nominalQuota=gpu-a100:nvidia.com/gpu=6

The trace is JSON Lines, one Workload a line: name, namespace, localQueue, priority,
priorityClass, podSets (count and requests per pod), submitted, admitted, finished,
runtimeSeconds (README, \"Trace replay\").")]
    Export(ExportArgs),
    /// Write a generated week of the seed's two teams, replayed on the seed setup.
    #[command(hide = true)]
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Where to write the trace (- for stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    pub output: String,
    /// Only Workloads created within this long before now: 30m, 24h, 7d, 1d12h.
    #[arg(long, value_name = "DURATION")]
    pub since: Option<String>,
    /// Every namespace (default: the current one, or -n).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Where to write the trace (- for stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    pub output: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn write_out(path: &str, text: &str) -> anyhow::Result<()> {
    if path == "-" {
        use std::io::Write;
        std::io::stdout().write_all(text.as_bytes())?;
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {path}"))
}

pub fn run(global: &GlobalArgs, args: HistoryArgs) -> CliResult {
    match args.command {
        HistoryCommand::Export(a) => export(global, a),
        HistoryCommand::Generate(a) => generate(a),
    }
}

fn export(global: &GlobalArgs, args: ExportArgs) -> CliResult {
    let since = args
        .since
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|m| anyhow::anyhow!("--since: {m}"))?;
    let now = super::common::now_millis();
    let (inventory, namespace) = super::common::block_on(async {
        let conn = super::common::connect(global).await?;
        let inv = conn.read_inventory_without_pods().await?;
        anyhow::Ok((inv, conn.namespace.clone()))
    })?;
    let converted = convert(
        &inventory,
        &ConvertOptions {
            now,
            strict_namespace_selector: false,
        },
    )?;
    let filter = Filter {
        namespace: (!args.all_namespaces).then_some(namespace),
        since: since.map(|s| now - s),
    };
    let out: Vec<TraceJob> = jobs(&inventory, &converted.state, &filter);
    write_out(&args.output, &trace::write(&out))?;
    if args.output != "-" {
        eprintln!("{} workloads written to {}", out.len(), args.output);
    }
    Ok(Outcome::Success)
}

/// The generated week with the admission and finish times the seed setup gives it.
fn generate(args: GenerateArgs) -> CliResult {
    let mut week = crate::simulate::trace::generate::seed_week(args.seed);
    let setup = trace::setup(
        crate::manifests::Inventory::from_documents(crate::simulate::embedded::setup_documents()?)?,
        &[],
        &ConvertOptions {
            now: crate::simulate::trace::generate::WEEK_START,
            strict_namespace_selector: false,
        },
    )?;
    let replay = trace::replay(&setup, &week, None);
    for (j, o) in week.iter_mut().zip(&replay.jobs) {
        j.admitted = o.admitted;
        j.finished = o.finished;
    }
    write_out(&args.output, &trace::write(&week))?;
    Ok(Outcome::Success)
}
