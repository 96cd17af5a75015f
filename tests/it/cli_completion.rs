//! Shell completion: the scripts in `completions/` are what `kubectl kueue completion` prints
//! (regenerate with `KUEUE_UPDATE_COMPLETIONS=1 cargo test --test it cli_completion`), and
//! `completions/kubectl_complete-kueue` answers kubectl's plugin completion (Cobra's
//! `__complete` protocol), with names from the cluster.
#![cfg(feature = "cli")]

use std::path::PathBuf;
use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use clap::CommandFactory;
use kubectl_kueue::commands::Cli;
use kubectl_kueue::complete::{Dynamic, Offer, offer};

fn completions_dir() -> PathBuf {
    crate::support::repo_root().join("completions")
}

/// PATH with the built binary and the shim first.
fn path_with_plugin() -> std::ffi::OsString {
    let bin_dir = cargo_bin("kubectl-kueue").parent().unwrap().to_path_buf();
    let mut dirs = vec![bin_dir, completions_dir()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn checked_in_scripts_are_current() {
    let mut stale = Vec::new();
    for (shell, file) in [
        ("bash", "kubectl-kueue.bash"),
        ("zsh", "_kubectl-kueue"),
        ("fish", "kubectl-kueue.fish"),
    ] {
        let out = Command::new(cargo_bin("kubectl-kueue"))
            .args(["completion", shell])
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "completion {shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let generated = String::from_utf8(out.stdout).unwrap();
        assert!(
            generated.contains("kubectl-kueue") && generated.contains("status"),
            "completion {shell} printed no script:\n{generated}"
        );
        let path = completions_dir().join(file);
        if std::env::var_os("KUEUE_UPDATE_COMPLETIONS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        if checked_in != generated {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts: {stale:?}; regenerate with KUEUE_UPDATE_COMPLETIONS=1 cargo test --test it cli_completion"
    );
}

#[test]
fn bash_script_loads_and_completes() {
    let script = completions_dir().join("kubectl-kueue.bash");
    // Source the script, then ask its function for `kubectl-kueue st<TAB>`.
    let probe = format!(
        "source '{}'; COMP_WORDS=(kubectl-kueue st); COMP_CWORD=1; COMP_LINE='kubectl-kueue st'; COMP_POINT=${{#COMP_LINE}}; f=$(complete -p kubectl-kueue | sed -E 's/.*-F ([^ ]+).*/\\1/'); $f kubectl-kueue st kubectl-kueue; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = Command::new("bash").arg("-c").arg(&probe).output().unwrap();
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(
        words.lines().any(|l| l == "status") && words.lines().any(|l| l == "stop"),
        "{words}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn shim_is_executable_and_speaks_cobras_protocol() {
    let shim = completions_dir().join("kubectl_complete-kueue");
    let out = Command::new(&shim)
        .arg("st")
        .env("PATH", path_with_plugin())
        .output()
        .expect("run the shim (is it executable?)");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("status\t"))
            && lines.iter().any(|l| l.starts_with("stop\t")),
        "{text}"
    );
    assert_eq!(
        lines.last(),
        Some(&":4"),
        "the last line is the directive (4: no file completion): {text}"
    );
    // A flag's fixed values, and a flag value typed as `-n ""` stays a flag value.
    let out = Command::new(&shim)
        .args(["list", "workload", "--status", "p"])
        .env("PATH", path_with_plugin())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "pending\n:4\n");
    let out = Command::new(&shim)
        .args(["simulate", "-f", ""])
        .env("PATH", path_with_plugin())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ":0\n",
        "file names are left to the shell (directive 0)"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn kubectl_completes_queue_names_from_the_cluster() {
    let cluster = crate::support::cluster::shared_apiserver();
    crate::support::live::crds(cluster).await;
    let ns = cluster.new_namespace("complete").await;
    let s = crate::support::live::suffix(&ns);
    let cq = format!("compl-{s}");
    crate::support::live::queues(cluster, &format!("gpu-{s}"), &cq, None, 4, &ns, "training").await;
    crate::support::live::workload(cluster, &ns, "wl-one", "training", 1, 0).await;
    let run = |args: &[&str]| -> String {
        let mut cmd = cluster.kubectl();
        cmd.arg("__complete").args(args);
        cmd.env("PATH", {
            let mut dirs = vec![completions_dir()];
            dirs.extend(std::env::split_paths(
                &cluster
                    .kubectl_env()
                    .into_iter()
                    .find(|(k, _)| k == "PATH")
                    .unwrap()
                    .1,
            ));
            std::env::join_paths(dirs).unwrap()
        });
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // kubectl itself offers the plugin, then hands the rest to the shim.
    assert!(
        run(&["ku"]).lines().any(|l| l.starts_with("kueue")),
        "kubectl does not list the plugin"
    );
    let out = run(&["kueue", "stop", "clusterqueue", "compl-"]);
    assert!(out.lines().any(|l| l == cq), "{out}");
    let out = run(&["kueue", "-n", &ns, "delete", "workload", ""]);
    assert!(out.lines().any(|l| l == "wl-one"), "{out}");
    let out = run(&["kueue", "submit", "-n", &ns, "--queue", ""]);
    assert!(out.lines().any(|l| l == "training"), "{out}");
}

// What `__complete` offers, read from the real command tree (no process, no cluster).

fn root() -> clap::Command {
    Cli::command()
}

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
    let subs = words_of(offer(&root(), &w(&[""])).0);
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
        words_of(offer(&root(), &w(&["list", ""])).0),
        ["clusterqueue", "localqueue", "workload", "resourceflavor"]
    );
    assert_eq!(
        words_of(offer(&root(), &w(&["completion", ""])).0),
        ["bash", "zsh", "fish"]
    );
    let flags = words_of(offer(&root(), &w(&["list", "workload", "--"])).0);
    assert!(
        flags.contains(&"--clusterqueue".to_string()) && flags.contains(&"--namespace".to_string()),
        "{flags:?}"
    );
    assert_eq!(
        words_of(
            offer(
                &root(),
                &w(&["create", "cq", "x", "--queuing-strategy", ""])
            )
            .0
        ),
        ["BestEffortFIFO", "StrictFIFO"]
    );
    assert_eq!(
        words_of(offer(&root(), &w(&["submit", "--wait="])).0),
        ["admitted", "running", "finished"]
    );
}

#[test]
fn names_come_from_the_cluster_where_they_are_names() {
    assert_eq!(
        offer(&root(), &w(&["stop", "cq", ""])).0,
        Offer::Cluster(Dynamic::ClusterQueues)
    );
    assert_eq!(
        offer(&root(), &w(&["resume", "localqueue", ""])).0,
        Offer::Cluster(Dynamic::LocalQueues)
    );
    assert_eq!(
        offer(&root(), &w(&["delete", "kwl", "a", ""])).0,
        Offer::Cluster(Dynamic::Workloads)
    );
    assert_eq!(
        offer(&root(), &w(&["list", "workload", "-c", ""])).0,
        Offer::Cluster(Dynamic::ClusterQueues)
    );
    assert_eq!(
        offer(&root(), &w(&["submit", "--queue", ""])).0,
        Offer::Cluster(Dynamic::LocalQueues)
    );
    assert_eq!(
        offer(&root(), &w(&["status", "-n", ""])).0,
        Offer::Cluster(Dynamic::Namespaces)
    );
    assert_eq!(offer(&root(), &w(&["simulate", "-f", ""])).0, Offer::Files);
    // The namespace on the line is used for the lookup.
    let (o, g) = offer(&root(), &w(&["-n", "team-a", "stop", "workload", ""]));
    assert_eq!(
        (o, g.namespace.as_deref()),
        (Offer::Cluster(Dynamic::Workloads), Some("team-a"))
    );
    // A finished single positional gets nothing more.
    assert_eq!(
        offer(&root(), &w(&["stop", "cq", "team-a-queue", ""])).0,
        Offer::Nothing
    );
    // After `--` comes the container's command.
    assert_eq!(
        offer(&root(), &w(&["submit", "--image", "x", "--", ""])).0,
        Offer::Nothing
    );
}
