//! Shell completion, two ways:
//! - `kubectl kueue completion bash|zsh|fish`: scripts for the `kubectl-kueue` binary
//!   (clap_complete), the same as the ones checked into `completions/`.
//! - `kubectl-kueue __complete WORDS...` (hidden): Cobra's `__complete` protocol, which
//!   kubectl speaks to plugins: `kubectl kueue <TAB>` makes kubectl run
//!   `kubectl_complete-kueue` (in `completions/`, a shim that calls this) with the words after
//!   `kueue`, the last one being the word to complete. It prints one candidate per line
//!   (`value\tdescription`) and `:<directive>` last. What to offer comes from the clap tree
//!   ([`crate::complete`]); queue, workload, namespace and priority names from the cluster.

use std::time::Duration;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Namespace;

use super::common;
use super::{Cli, CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, Workload, WorkloadPriorityClass};
use crate::cli::{ColorChoice, GlobalArgs};
use crate::complete::{Dynamic, Offer, offer};
use crate::output::Printer;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  # bash: load now, or install for every shell
  source <(kubectl kueue completion bash)
  kubectl kueue completion bash > /etc/bash_completion.d/kubectl-kueue

  # zsh (a directory on $fpath)
  kubectl kueue completion zsh > \"${fpath[1]}/_kubectl-kueue\"

  # fish
  kubectl kueue completion fish > ~/.config/fish/completions/kubectl-kueue.fish

These complete the kubectl-kueue binary. For `kubectl kueue <TAB>`, put completions/kubectl_complete-kueue
on your PATH next to kubectl-kueue (krew does not install it; copy it from the release archive):
kubectl's own completion then asks it, and it completes queue and workload names from the cluster.")]
pub struct CompletionArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// The name the scripts complete.
pub const BIN: &str = "kubectl-kueue";

/// The completion script for a shell.
pub fn script(shell: CompletionShell) -> String {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut out);
    String::from_utf8(out).expect("completion scripts are UTF-8")
}

pub fn run(global: &GlobalArgs, args: CompletionArgs) -> CliResult {
    Printer::text(global.color).write(&script(args.shell))?;
    Ok(Outcome::Success)
}

/// The hidden `__complete` command.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words after `kubectl kueue`; the last is the one being completed (maybe empty).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub words: Vec<String>,
}

/// Cobra's `ShellCompDirective` values.
const DIRECTIVE_DEFAULT: u32 = 0;
const DIRECTIVE_NO_FILE: u32 = 4;

/// Names from the cluster; empty on any problem (completion must never fail loudly).
async fn cluster_names(global: &GlobalArgs, what: Dynamic) -> Vec<String> {
    let fetch = async {
        let conn = common::connect(global).await?;
        let ns = conn.namespace.as_str();
        anyhow::Ok(match what {
            Dynamic::ClusterQueues => conn.names::<ClusterQueue>(None).await?,
            Dynamic::LocalQueues => conn.names_in::<LocalQueue>(ns, None).await?,
            Dynamic::Workloads => conn.names_in::<Workload>(ns, None).await?,
            Dynamic::PriorityClasses => conn.names::<WorkloadPriorityClass>(None).await?,
            Dynamic::Namespaces => conn.names::<Namespace>(None).await?,
            Dynamic::ExplainTargets => {
                let workloads = conn.names_in::<Workload>(ns, None).await?;
                let jobs = conn
                    .names_in::<Job>(ns, Some(crate::api::QUEUE_NAME_LABEL))
                    .await?;
                let workloads = workloads.into_iter().map(|n| format!("workload/{n}"));
                workloads
                    .chain(jobs.into_iter().map(|n| format!("job/{n}")))
                    .collect()
            }
        })
    };
    tokio::time::timeout(Duration::from_secs(5), fetch)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default()
}

/// Runs `__complete`: candidates, then `:<directive>`.
pub fn run_complete(args: CompleteArgs) -> CliResult {
    let words = if args.words.is_empty() {
        vec![String::new()]
    } else {
        args.words
    };
    let cur = words.last().cloned().unwrap_or_default();
    let (offer, global) = offer(&Cli::command(), &words);
    let (lines, directive) = match offer {
        Offer::Words(w) => (
            w.into_iter()
                .filter(|(v, _)| v.starts_with(&cur))
                .map(|(v, d)| if d.is_empty() { v } else { format!("{v}\t{d}") })
                .collect(),
            DIRECTIVE_NO_FILE,
        ),
        Offer::Cluster(d) => {
            let names = common::block_on(cluster_names(&global, d));
            (
                names.into_iter().filter(|n| n.starts_with(&cur)).collect(),
                DIRECTIVE_NO_FILE,
            )
        }
        Offer::Files => (Vec::<String>::new(), DIRECTIVE_DEFAULT),
        Offer::Nothing => (Vec::new(), DIRECTIVE_NO_FILE),
    };
    let printer = Printer::text(ColorChoice::Never);
    for l in lines {
        printer.line(l)?;
    }
    printer.line(format!(":{directive}"))?;
    Ok(Outcome::Success)
}
