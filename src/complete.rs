//! What to offer for the word being completed on a partial command line, read from a clap
//! command tree: subcommands, flags (the command's and the global ones), the possible values
//! of a flag or positional argument, or which names to fetch from the cluster. The answer is
//! data ([`Offer`]); `commands::completion` fetches the names and speaks Cobra's `__complete`
//! protocol, which kubectl uses with plugins.
//!
//! Invariants: never fails (an unknown flag is skipped, a line it cannot read offers
//! nothing); hidden subcommands and flags are never offered; after `--` comes a container's
//! command, so nothing is offered there.

use crate::cli::{ColorChoice, GlobalArgs};

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

/// What to offer for the last word of `words` (the words after the binary's name), given
/// the ones before it, in the command tree `root`. Also returns the global flags found on
/// the line (for the cluster lookups).
pub fn offer(root: &clap::Command, words: &[String]) -> (Offer, GlobalArgs) {
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
    let mut cmd = root;
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
            let Some(arg) = find_flag(cmd, root, name) else {
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
            find_flag(cmd, root, name).map_or(Offer::Nothing, values_of),
            global,
        );
    }
    if cur.starts_with('-') {
        let mut out = Vec::new();
        for a in flags_of(cmd).into_iter().chain(flags_of(root)) {
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
