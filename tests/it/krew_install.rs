//! The krew manifest: its shape (four platforms, the files and binary the archive has), and a
//! real `krew install --manifest --archive` (krew built from its Go module by scripts/krew.sh,
//! the archive by scripts/release.sh) giving a working `kubectl kueue`.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    crate::support::repo_root()
}

fn manifest() -> serde_json::Value {
    serde_yaml::from_str(&std::fs::read_to_string(root().join("krew-manifest.yaml")).unwrap())
        .unwrap()
}

#[test]
fn manifest_is_a_krew_plugin_for_linux_and_darwin_on_amd64_and_arm64() {
    let m = manifest();
    assert_eq!(
        m["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(m["kind"], "Plugin");
    assert_eq!(
        m["metadata"]["name"], "kueue",
        "the plugin is `kubectl kueue`"
    );
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(m["spec"]["version"], version.as_str());
    for field in ["homepage", "shortDescription", "description", "caveats"] {
        assert!(
            m["spec"][field].as_str().is_some_and(|s| !s.is_empty()),
            "spec.{field} is empty"
        );
    }
    let mut seen = Vec::new();
    for p in m["spec"]["platforms"].as_array().unwrap() {
        let (os, arch) = (
            p["selector"]["matchLabels"]["os"].as_str().unwrap(),
            p["selector"]["matchLabels"]["arch"].as_str().unwrap(),
        );
        seen.push(format!("{os}/{arch}"));
        let uri = p["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("https://")
                && uri.ends_with(&format!("kubectl-kueue_{version}_{os}_{arch}.tar.gz")),
            "{uri}"
        );
        let sha = p["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64
                && sha
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{os}/{arch}: sha256 {sha:?}"
        );
        assert_eq!(p["bin"], "kubectl-kueue");
        let files: Vec<&str> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["from"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            ["kubectl-kueue", "kubectl_complete-kueue", "LICENSE"]
        );
    }
    seen.sort();
    assert_eq!(
        seen,
        ["darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"]
    );
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[test]
fn krew_installs_a_working_kubectl_kueue() {
    let krew = run(&mut Command::new(root().join("scripts/krew.sh")));
    let krew = PathBuf::from(krew.trim());
    let kubectl = crate::support::binaries::binary("kubectl");
    let tmp = tempfile::tempdir().unwrap();

    // Package a stripped copy of the test build (a release build takes long; the archive's
    // layout is the same).
    let bin_dir = tmp.path().join("build");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let binary = bin_dir.join("kubectl-kueue");
    std::fs::copy(env!("CARGO_BIN_EXE_kubectl-kueue"), &binary).unwrap();
    let _ = Command::new("strip").arg(&binary).status();
    let dist = tmp.path().join("dist");
    let printed = run(Command::new(root().join("scripts/release.sh"))
        .arg("--binary")
        .arg(&binary)
        .arg("--out")
        .arg(&dist));
    let mut lines = printed.lines();
    let (archive, filled) = (
        PathBuf::from(lines.next().unwrap()),
        PathBuf::from(lines.next().unwrap()),
    );
    assert!(archive.is_file() && filled.is_file(), "{printed}");
    // The filled manifest differs from the checked-in one only in this platform's sha256/uri.
    let sha = {
        let out = run(Command::new("sha256sum").arg(&archive));
        out.split_whitespace().next().unwrap().to_string()
    };
    assert!(std::fs::read_to_string(&filled).unwrap().contains(&sha));

    let krew_root = tmp.path().join("krew");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    run(Command::new(&krew)
        .arg("install")
        .arg(format!("--manifest={}", filled.display()))
        .arg(format!("--archive={}", archive.display()))
        .env("KREW_ROOT", &krew_root)
        .env("HOME", &home)
        .env("KREW_NO_UPGRADE_CHECK", "1"));
    let link = krew_root.join("bin/kubectl-kueue");
    assert!(link.exists(), "krew did not install {}", link.display());

    // kubectl finds the krew-installed plugin (and no other kubectl-kueue).
    let path = std::env::join_paths([
        krew_root.join("bin"),
        kubectl.parent().unwrap().to_path_buf(),
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .unwrap();
    let kubectl_cmd = |args: &[&str]| {
        let mut c = Command::new(&kubectl);
        c.args(args)
            .env("PATH", &path)
            .env("HOME", &home)
            .env_remove("KUBECONFIG");
        c
    };
    let plugins = run(&mut kubectl_cmd(&["plugin", "list"]));
    assert!(plugins.contains(&link.display().to_string()), "{plugins}");
    let version = run(&mut kubectl_cmd(&["kueue", "version"]));
    assert!(
        version.starts_with(&format!("kubectl-kueue {}", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    // The completion shim and the license came along.
    let store = krew_root
        .join("store/kueue")
        .join(format!("v{}", env!("CARGO_PKG_VERSION")));
    for f in ["kubectl_complete-kueue", "LICENSE"] {
        assert!(
            Path::new(&store.join(f)).is_file(),
            "{f} not in {}",
            store.display()
        );
    }
}
