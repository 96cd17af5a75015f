//! Shell completion, two ways:
//! - `kubectl kueue completion bash|zsh|fish`: scripts for the `kubectl-kueue` binary
//!   (clap_complete), the same as the ones checked into `completions/`.
//! - `kubectl-kueue __complete WORDS...` (hidden): Cobra's `__complete` protocol, which
//!   kubectl speaks to plugins: `kubectl kueue <TAB>` makes kubectl run
//!   `kubectl_complete-kueue` (in `completions/`, a shim that calls this) with the words after
//!   `kueue`, the last one being the word to complete. It prints one candidate per line
//!   (`value\tdescription`) and `:<directive>` last. Subcommands and flags come from the clap
//!   tree; queue, workload, namespace and priority names from the cluster.

use std::time::Duration;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Namespace;

use super::common;
use super::{Cli, CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, Workload, WorkloadPriorityClass};
use crate::cli::{ColorChoice, GlobalArgs};
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

/// What the completion needs from the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {
    ClusterQueues,
    LocalQueues,
    Workloads,
    Namespaces,
    PriorityClasses,
    /// `job/NAME` or `workload/NAME` (explain).
    ExplainTargets,
}

/// What to offer for the word being completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// Fixed candidates with descriptions.
    Words(Vec<(String, String)>),
    /// Names from the cluster.
    Cluster(Dynamic),
    /// Let the shell complete file names.
    Files,
    Nothing,
}

/// The flags a command accepts, its own and the global ones.
fn flags_of(cmd: &clap::Command) -> Vec<&clap::Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .collect()
}

fn takes_value(a: &clap::Arg) -> bool {
    a.get_action().takes_values()
}

fn find_flag<'a>(
    cmd: &'a clap::Command,
    root: &'a clap::Command,
    word: &str,
) -> Option<&'a clap::Arg> {
    let all = flags_of(cmd).into_iter().chain(flags_of(root));
    let mut found = None;
    for a in all {
        let long = word.strip_prefix("--").is_some_and(|l| {
            a.get_long() == Some(l) || a.get_all_aliases().is_some_and(|al| al.contains(&l))
        });
        let short = word.len() == 2
            && word.starts_with('-')
            && !word.starts_with("--")
            && a.get_short() == word.chars().nth(1);
        if long || short {
            found = Some(a);
            break;
        }
    }
    found
}

/// Dynamic names for a flag's value, by the flag's long name.
fn dynamic_for_flag(long: &str) -> Option<Offer> {
    Some(match long {
        "namespace" => Offer::Cluster(Dynamic::Namespaces),
        "clusterqueue" => Offer::Cluster(Dynamic::ClusterQueues),
        "localqueue" | "queue" => Offer::Cluster(Dynamic::LocalQueues),
        "priority" => Offer::Cluster(Dynamic::PriorityClasses),
        "filename" | "kubeconfig" | "output-file" => Offer::Files,
        _ => return None,
    })
}

/// Dynamic names for a positional argument, by the command path.
fn dynamic_for_positional(path: &[String]) -> Option<Dynamic> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    match p.as_slice() {
        ["status"] => Some(Dynamic::ClusterQueues),
        ["stop" | "resume", "clusterqueue"] => Some(Dynamic::ClusterQueues),
        ["stop" | "resume", "localqueue"] => Some(Dynamic::LocalQueues),
        ["stop" | "resume" | "delete", "workload"] => Some(Dynamic::Workloads),
        ["explain"] => Some(Dynamic::ExplainTargets),
        _ => None,
    }
}

/// What to offer for the last word, given the ones before it. Also returns the global
/// flags found on the line (for the cluster lookups).
pub fn offer(words: &[String]) -> (Offer, GlobalArgs) {
    let root = Cli::command();
    let mut global = GlobalArgs {
        kubeconfig: std::env::var("KUBECONFIG").ok(),
        context: None,
        namespace: None,
        color: ColorChoice::Never,
        verbose: 0,
    };
    let (cur, before) = match words.split_last() {
        Some((c, b)) => (c.as_str(), b),
        None => ("", &[][..]),
    };
    let mut cmd = &root;
    let mut path: Vec<String> = Vec::new();
    let mut positionals = 0usize;
    let mut i = 0;
    let mut pending_flag: Option<&clap::Arg> = None;
    while i < before.len() {
        let w = before[i].as_str();
        i += 1;
        if w == "--" {
            // Everything after is the container command (submit).
            return (Offer::Nothing, global);
        }
        if w.starts_with('-') && w.len() > 1 {
            let (name, inline) = match w.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (w, None),
            };
            let Some(arg) = find_flag(cmd, &root, name) else {
                continue;
            };
            if takes_value(arg) && arg.get_num_args().is_none_or(|n| n.min_values() > 0) {
                let value = match inline {
                    Some(v) => Some(v),
                    None if i < before.len() => {
                        i += 1;
                        Some(before[i - 1].clone())
                    }
                    None => {
                        pending_flag = Some(arg);
                        None
                    }
                };
                match (arg.get_long(), value) {
                    (Some("namespace"), Some(v)) => global.namespace = Some(v),
                    (Some("kubeconfig"), Some(v)) => global.kubeconfig = Some(v),
                    (Some("context"), Some(v)) => global.context = Some(v),
                    _ => {}
                }
            }
            continue;
        }
        if let Some(sub) = cmd
            .get_subcommands()
            .find(|s| s.get_name() == w || s.get_all_aliases().any(|a| a == w))
        {
            cmd = sub;
            path.push(sub.get_name().to_string());
            positionals = 0;
            continue;
        }
        positionals += 1;
    }
    if let Some(arg) = pending_flag {
        return (values_of(arg), global);
    }
    // `--flag=` partial: complete the flag's value.
    if cur.starts_with("--")
        && let Some((name, _)) = cur.split_once('=')
    {
        return (
            find_flag(cmd, &root, name).map_or(Offer::Nothing, values_of),
            global,
        );
    }
    if cur.starts_with('-') {
        let mut out = Vec::new();
        for a in flags_of(cmd).into_iter().chain(flags_of(&root)) {
            let help = a
                .get_help()
                .map(|h| first_line(&h.to_string()))
                .unwrap_or_default();
            if let Some(l) = a.get_long() {
                out.push((format!("--{l}"), help.clone()));
            }
            if let Some(s) = a.get_short() {
                out.push((format!("-{s}"), help));
            }
        }
        out.push(("--help".into(), "Print help".into()));
        out.dedup();
        return (Offer::Words(out), global);
    }
    let subs: Vec<(String, String)> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| {
            (
                s.get_name().to_string(),
                s.get_about()
                    .map(|a| first_line(&a.to_string()))
                    .unwrap_or_default(),
            )
        })
        .collect();
    if !subs.is_empty() {
        return (Offer::Words(subs), global);
    }
    // The n-th positional argument of a leaf command.
    let pos_args: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_positional() && !a.is_last_set())
        .collect();
    if let Some(arg) = pos_args.get(positionals.min(pos_args.len().saturating_sub(1))) {
        let values = possible(arg);
        if !values.is_empty() {
            return (Offer::Words(values), global);
        }
        let multi = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        if (positionals == 0 || multi)
            && let Some(d) = dynamic_for_positional(&path)
        {
            return (Offer::Cluster(d), global);
        }
    }
    (Offer::Nothing, global)
}

fn first_line(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("")
        .trim_end_matches('.')
        .to_string()
}

fn possible(arg: &clap::Arg) -> Vec<(String, String)> {
    arg.get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| {
            (
                v.get_name().to_string(),
                v.get_help()
                    .map(|h| first_line(&h.to_string()))
                    .unwrap_or_default(),
            )
        })
        .collect()
}

fn values_of(arg: &clap::Arg) -> Offer {
    let values = possible(arg);
    if !values.is_empty() {
        return Offer::Words(values);
    }
    arg.get_long()
        .and_then(dynamic_for_flag)
        .unwrap_or(Offer::Nothing)
}

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
    let (offer, global) = offer(&words);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn words_of(o: Offer) -> Vec<String> {
        match o {
            Offer::Words(w) => w.into_iter().map(|(v, _)| v).collect(),
            other => panic!("expected words, got {other:?}"),
        }
    }

    #[test]
    fn subcommands_flags_and_values() {
        let subs = words_of(offer(&w(&[""])).0);
        for c in [
            "submit",
            "status",
            "list",
            "create",
            "stop",
            "resume",
            "delete",
            "simulate",
            "completion",
        ] {
            assert!(subs.contains(&c.to_string()), "{c} missing from {subs:?}");
        }
        assert!(!subs.iter().any(|s| s.starts_with("__")));
        assert_eq!(
            words_of(offer(&w(&["list", ""])).0),
            ["clusterqueue", "localqueue", "workload", "resourceflavor"]
        );
        assert_eq!(
            words_of(offer(&w(&["completion", ""])).0),
            ["bash", "zsh", "fish"]
        );
        let flags = words_of(offer(&w(&["list", "workload", "--"])).0);
        assert!(
            flags.contains(&"--clusterqueue".to_string())
                && flags.contains(&"--namespace".to_string()),
            "{flags:?}"
        );
        assert_eq!(
            words_of(offer(&w(&["create", "cq", "x", "--queuing-strategy", ""])).0),
            ["BestEffortFIFO", "StrictFIFO"]
        );
        assert_eq!(
            words_of(offer(&w(&["submit", "--wait="])).0),
            ["admitted", "running", "finished"]
        );
    }

    #[test]
    fn names_come_from_the_cluster_where_they_are_names() {
        assert_eq!(
            offer(&w(&["stop", "cq", ""])).0,
            Offer::Cluster(Dynamic::ClusterQueues)
        );
        assert_eq!(
            offer(&w(&["resume", "localqueue", ""])).0,
            Offer::Cluster(Dynamic::LocalQueues)
        );
        assert_eq!(
            offer(&w(&["delete", "kwl", "a", ""])).0,
            Offer::Cluster(Dynamic::Workloads)
        );
        assert_eq!(
            offer(&w(&["list", "workload", "-c", ""])).0,
            Offer::Cluster(Dynamic::ClusterQueues)
        );
        assert_eq!(
            offer(&w(&["submit", "--queue", ""])).0,
            Offer::Cluster(Dynamic::LocalQueues)
        );
        assert_eq!(
            offer(&w(&["status", "-n", ""])).0,
            Offer::Cluster(Dynamic::Namespaces)
        );
        assert_eq!(offer(&w(&["simulate", "-f", ""])).0, Offer::Files);
        // The namespace on the line is used for the lookup.
        let (o, g) = offer(&w(&["-n", "team-a", "stop", "workload", ""]));
        assert_eq!(
            (o, g.namespace.as_deref()),
            (Offer::Cluster(Dynamic::Workloads), Some("team-a"))
        );
        // A finished single positional gets nothing more.
        assert_eq!(
            offer(&w(&["stop", "cq", "team-a-queue", ""])).0,
            Offer::Nothing
        );
        // After `--` comes the container's command.
        assert_eq!(
            offer(&w(&["submit", "--image", "x", "--", ""])).0,
            Offer::Nothing
        );
    }
}
