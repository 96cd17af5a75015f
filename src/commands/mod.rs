//! The command tree: the top-level parser ([`Cli`]), one module per subcommand (its
//! arguments and the `run` that executes them), and the dispatch from [`Command`] to them.
//! Commands parse, load, call the engine and render; they hold no scheduling logic.

pub mod common;
pub mod completion;
pub mod create;
pub mod delete;
pub mod error;
pub mod explain;
pub mod history;
pub mod init;
pub mod install;
pub mod list;
pub mod resume;
pub mod run_controller;
pub mod simulate;
pub mod simulate_trace;
pub mod status;
pub mod stop;
pub mod submit;
pub mod version;

use clap::{Parser, Subcommand};

use crate::cli::GlobalArgs;

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate admission and preemption on files (or the embedded seed scenario), with what-if edits.
    Simulate(simulate::SimulateArgs),
    /// Explain why a workload is pending (or how it was admitted) and what would change it.
    Explain(explain::ExplainArgs),
    /// Print the client version (and, with a cluster, whether upstream Kueue or ours runs it).
    Version(version::VersionArgs),
    /// Run the admission and preemption controller (in-cluster or from a laptop).
    RunController(run_controller::RunControllerArgs),
    /// Install the CRDs, RBAC, the Job admission policy and the controller Deployment (--print: show them).
    Install(install::InstallArgs),
    /// Remove what `install` put in place (--crds: the CRDs and all queue objects too).
    Uninstall(install::UninstallArgs),
    /// Submit a Job to a LocalQueue (from a file or from flags), see its Workload and position,
    /// and --wait for it.
    Submit(submit::SubmitArgs),
    /// Quotas and usage per cohort and ClusterQueue, LocalQueues, and workloads with their
    /// state, position and wait (-w to follow).
    Status(status::StatusArgs),
    /// Create a ClusterQueue, LocalQueue, ResourceFlavor or WorkloadPriorityClass.
    Create(create::CreateArgs),
    /// List ClusterQueues, LocalQueues, Workloads (with their position) or ResourceFlavors.
    List(list::ListArgs),
    /// Stop a ClusterQueue, LocalQueue or Workload (no new admissions; drain unless told).
    Stop(stop::StopArgs),
    /// Resume a stopped ClusterQueue, LocalQueue or Workload.
    Resume(resume::ResumeArgs),
    /// Delete Workloads (through the Job that owns them), after confirmation.
    Delete(delete::DeleteArgs),
    /// Write a ready GPU queueing setup (flavors, ClusterQueues, LocalQueues, priorities) from
    /// a few questions or flags.
    Init(init::InitArgs),
    /// The cluster's recent workloads as a trace file (`history export`) for `simulate --trace`.
    History(history::HistoryArgs),
    /// Write the shell completion script for bash, zsh or fish.
    Completion(completion::CompletionArgs),
    /// Cobra's completion protocol, as kubectl asks plugins (used by
    /// completions/kubectl_complete-kueue).
    #[command(name = "__complete", hide = true)]
    Complete(completion::CompleteArgs),
}

pub use error::{CliError, CliResult, ExitStatus, Outcome};

/// Runs the parsed command.
pub fn run(cli: Cli) -> CliResult {
    let global = cli.global;
    match cli.command {
        Command::Simulate(args) => simulate::run(&global, args),
        Command::Explain(args) => explain::run(&global, args),
        Command::Version(args) => version::run(&global, args),
        Command::RunController(args) => run_controller::run(&global, args),
        Command::Install(args) => install::run(&global, args),
        Command::Uninstall(args) => install::run_uninstall(&global, args),
        Command::Submit(args) => submit::run(&global, args),
        Command::Status(args) => status::run(&global, args),
        Command::Create(args) => create::run(&global, args),
        Command::List(args) => list::run(&global, args),
        Command::Stop(args) => stop::run(&global, args),
        Command::Resume(args) => resume::run(&global, args),
        Command::Delete(args) => delete::run(&global, args),
        Command::Init(args) => init::run(&global, args),
        Command::History(args) => history::run(&global, args),
        Command::Completion(args) => completion::run(&global, args),
        Command::Complete(args) => completion::run_complete(args),
    }
}
