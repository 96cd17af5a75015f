//! `kubectl kueue explain`: why a workload waits, or how it was admitted, and what would
//! change it. Live by default; `-f` explains on files instead.

use clap::Args;

use super::{CliResult, Outcome};
use crate::cli::{GlobalArgs, OutputFormat};
use crate::manifests::ConvertOptions;
use crate::manifests::key::DEFAULT_NAMESPACE;
use crate::output::Printer;
use crate::scheduler::key::WorkloadKey;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  # Why is my Job not running?
  kubectl kueue explain job/weekly-retrain -n team-b

  # A Workload by name, as data
  kubectl kueue explain workload/job-experiment-7-5547b -n team-a -o json

  # On files (for example the output of `kubectl kueue simulate -o yaml`)
  kubectl kueue explain -f after.yaml job/experiment-7 -n team-a

Next steps are checked by simulation: a step marked verified admits the workload when
applied with `kubectl kueue simulate` and the arguments shown.")]
pub struct ExplainArgs {
    /// What to explain: job/NAME, workload/NAME, or NAME (a Workload, else a Job).
    pub target: String,
    /// Explain on manifests instead of the cluster (file, directory or -). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub files: Vec<String>,
    /// Output format: table (for people), json or yaml (the same content as data).
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Read a ClusterQueue without namespaceSelector as upstream does (no namespace).
    #[arg(long)]
    pub strict_namespace_selector: bool,
    /// The clock (RFC 3339) for objects without a creationTimestamp; defaults to now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}

pub fn run(global: &GlobalArgs, args: ExplainArgs) -> CliResult {
    let now = super::simulate::parse_now(&args.now)?;
    let (inventory, namespace) = if args.files.is_empty() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async {
            let conn = super::common::connect(global).await?;
            let inv = conn.read_inventory().await?;
            anyhow::Ok((inv, conn.namespace))
        })?
    } else {
        (
            crate::manifests::load(&args.files)?,
            global
                .namespace
                .clone()
                .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string()),
        )
    };
    let opts = ConvertOptions {
        now,
        strict_namespace_selector: args.strict_namespace_selector,
    };
    let explanation = crate::explain::explain(&inventory, &namespace, &args.target, &opts)?;
    let printer = Printer::new(args.output, false, global.color);
    if printer.data(&explanation)? {
        return Ok(Outcome::Success);
    }
    match args.output {
        OutputFormat::Name => {
            let name = WorkloadKey::parse(&explanation.workload)
                .map_or_else(|| explanation.workload.clone(), |key| key.name);
            printer.line(format!("workload.kueue.x-k8s.io/{name}"))?
        }
        _ => printer.write(&crate::output::explain::render(
            &explanation,
            printer.color(),
        ))?,
    }
    Ok(Outcome::Success)
}
