//! Every command's `--help`, snapshotted, so a change to flags or wording shows in review
//! (update with `cargo insta review` or `INSTA_UPDATE=always`). Help says `kubectl kueue`.
#![cfg(feature = "cli")]

use assert_cmd::Command;
use clap::CommandFactory;

/// Paths of every visible command: [], ["simulate"], ["create", "clusterqueue"], ...
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        for sub in cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            walk(sub, p, out);
        }
    }
    let mut out = Vec::new();
    walk(
        &kubectl_kueue::commands::Cli::command(),
        Vec::new(),
        &mut out,
    );
    out
}

fn help(path: &[String]) -> String {
    let out = crate::support::cli::kueue()
        .args(path)
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{path:?} --help: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_command_help() {
    let paths = command_paths();
    // The commands of this issue are all there.
    for p in [
        &["submit"][..],
        &["status"],
        &["explain"],
        &["simulate"],
        &["create", "clusterqueue"],
        &["create", "localqueue"],
        &["create", "resourceflavor"],
        &["list", "clusterqueue"],
        &["list", "localqueue"],
        &["list", "workload"],
        &["list", "resourceflavor"],
        &["stop", "clusterqueue"],
        &["stop", "localqueue"],
        &["stop", "workload"],
        &["resume", "clusterqueue"],
        &["resume", "localqueue"],
        &["resume", "workload"],
        &["delete", "workload"],
        &["init"],
        &["completion"],
        &["version"],
    ] {
        assert!(paths.iter().any(|x| x == p), "no command {p:?}");
    }
    for path in &paths {
        let text = help(path);
        let usage = format!(
            "Usage: kubectl kueue{}",
            path.iter().map(|p| format!(" {p}")).collect::<String>()
        );
        assert!(
            text.contains(&usage),
            "{path:?}: help should show {usage:?}:\n{text}"
        );
        let name = if path.is_empty() {
            "help".to_string()
        } else {
            format!("help_{}", path.join("_"))
        };
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn help_does_not_depend_on_the_environment() {
    let with = Command::cargo_bin("kubectl-kueue")
        .unwrap()
        .args(["status", "--help"])
        .env("KUBECONFIG", "/somewhere/else")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let text = String::from_utf8(with.stdout).unwrap();
    assert!(
        !text.contains("/somewhere/else"),
        "--help shows the KUBECONFIG value:\n{text}"
    );
}
