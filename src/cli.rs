//! The command line: kubectl's conventions (`--kubeconfig`, `--context`, `-n`, `-A`, `-o`,
//! `--no-headers`, `--color`), help texts that say `kubectl kueue ...`, one subcommand per
//! file in [`crate::commands`].

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands;

/// Kueue-compatible GPU job queueing: quotas, priorities, fair sharing and preemption,
/// from your laptop or in-cluster.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl kueue",
    bin_name = "kubectl kueue",
    version = env!("CARGO_PKG_VERSION"),
    about,
    after_help = "Exit codes: 0 success, 1 error, 2 usage error, 3 see the command (simulate: no fixpoint)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command accepts, as kubectl spells them.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Path to the kubeconfig file to use.
    #[arg(
        long,
        global = true,
        env = "KUBECONFIG",
        hide_env_values = true,
        value_name = "PATH"
    )]
    pub kubeconfig: Option<String>,
    /// The name of the kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The namespace scope for this request.
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Colors: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short = 'v', long = "verbose", global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `-o` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    #[default]
    Table,
    Wide,
    Json,
    Yaml,
    Name,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate admission and preemption on files (or the embedded seed scenario), with what-if edits.
    Simulate(commands::simulate::SimulateArgs),
    /// Explain why a workload is pending (or how it was admitted) and what would change it.
    Explain(commands::explain::ExplainArgs),
    /// Print the client version (and, with a cluster, whether upstream Kueue or ours runs it).
    Version(commands::version::VersionArgs),
    /// Run the admission and preemption controller (in-cluster or from a laptop).
    RunController(commands::run_controller::RunControllerArgs),
    /// Install the CRDs, RBAC, the Job admission policy and the controller Deployment (--print: show them).
    Install(commands::install::InstallArgs),
    /// Remove what `install` put in place (--crds: the CRDs and all queue objects too).
    Uninstall(commands::install::UninstallArgs),
    /// Submit a Job to a LocalQueue (from a file or from flags), see its Workload and position,
    /// and --wait for it.
    Submit(commands::submit::SubmitArgs),
    /// Quotas and usage per cohort and ClusterQueue, LocalQueues, and workloads with their
    /// state, position and wait (-w to follow).
    Status(commands::status::StatusArgs),
    /// Create a ClusterQueue, LocalQueue, ResourceFlavor or WorkloadPriorityClass.
    Create(commands::create::CreateArgs),
    /// List ClusterQueues, LocalQueues, Workloads (with their position) or ResourceFlavors.
    List(commands::list::ListArgs),
    /// Stop a ClusterQueue, LocalQueue or Workload (no new admissions; drain unless told).
    Stop(commands::stop::StopArgs),
    /// Resume a stopped ClusterQueue, LocalQueue or Workload.
    Resume(commands::resume::ResumeArgs),
    /// Delete Workloads (through the Job that owns them), after confirmation.
    Delete(commands::delete::DeleteArgs),
    /// Write a ready GPU queueing setup (flavors, ClusterQueues, LocalQueues, priorities) from
    /// a few questions or flags.
    Init(commands::init::InitArgs),
    /// Write the shell completion script for bash, zsh or fish.
    Completion(commands::completion::CompletionArgs),
    /// Cobra's completion protocol, as kubectl asks plugins (used by
    /// completions/kubectl_complete-kueue).
    #[command(name = "__complete", hide = true)]
    Complete(commands::completion::CompleteArgs),
}

/// Logs to stderr with an `RUST_LOG`-style filter; `-v` raises the default level.
pub fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
