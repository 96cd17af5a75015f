//! The controller image, built here by `scripts/image.sh` (no Docker daemon, no registry):
//! the OCI layout is well formed (every descriptor's digest and size match its blob), the
//! config runs `/kubectl-kueue run-controller` as 65532:65532, the one layer holds the binary
//! with the loader and libraries it links against, and that root filesystem alone runs the
//! binary (chroot, as the nonroot user, when the tests run as root).
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn blob(layout: &Path, descriptor: &Value) -> Vec<u8> {
    let digest = descriptor["digest"].as_str().unwrap();
    let hex = digest.strip_prefix("sha256:").expect("sha256 digest");
    let bytes = std::fs::read(layout.join("blobs/sha256").join(hex)).expect("blob present");
    assert_eq!(
        bytes.len() as u64,
        descriptor["size"].as_u64().unwrap(),
        "size of {digest}"
    );
    let out = Command::new("sha256sum")
        .arg(layout.join("blobs/sha256").join(hex))
        .output()
        .unwrap();
    let actual = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        actual.split_whitespace().next(),
        Some(hex),
        "digest of {digest}"
    );
    bytes
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("JSON")
}

#[test]
fn the_image_builds_here_and_runs_as_nonroot_from_its_own_root_filesystem() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/image.sh"))
        .args(["--binary", env!("CARGO_BIN_EXE_kubectl-kueue"), "--out"])
        .arg(dir.path())
        .args(["--tag", "kubectl-kueue:test"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/image.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = printed.lines().collect();
    let archive = Path::new(lines[0]);
    assert!(archive.metadata().unwrap().len() > 1_000_000);

    let layout = dir.path().join("oci");
    assert_eq!(
        json(&std::fs::read(layout.join("oci-layout")).unwrap())["imageLayoutVersion"],
        "1.0.0"
    );
    let index = json(&std::fs::read(layout.join("index.json")).unwrap());
    let entry = &index["manifests"][0];
    assert_eq!(
        entry["annotations"]["io.containerd.image.name"],
        "kubectl-kueue:test"
    );
    assert_eq!(
        entry["digest"], lines[1],
        "the printed digest is the manifest's"
    );
    let manifest = json(&blob(&layout, entry));
    let config = json(&blob(&layout, &manifest["config"]));
    assert_eq!(config["os"], "linux");
    assert_eq!(config["config"]["User"], "65532:65532");
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/kubectl-kueue"])
    );
    assert_eq!(
        config["config"]["Cmd"],
        serde_json::json!(["run-controller"])
    );

    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    let layer = blob(&layout, &layers[0]);
    let size_mib = layer.len() as f64 / (1024.0 * 1024.0);
    eprintln!("image layer: {size_mib:.1} MiB compressed");
    let rootfs = dir.path().join("rootfs");
    std::fs::create_dir(&rootfs).unwrap();
    let layer_path = dir.path().join("layer.tar.gz");
    std::fs::write(&layer_path, &layer).unwrap();
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(&layer_path)
        .arg("-C")
        .arg(&rootfs)
        .status()
        .unwrap();
    assert!(untar.success());
    for file in ["kubectl-kueue", "etc/passwd", "tmp"] {
        assert!(rootfs.join(file).exists(), "{file} in the image");
    }
    let passwd = std::fs::read_to_string(rootfs.join("etc/passwd")).unwrap();
    assert!(passwd.contains("nonroot:x:65532:65532"));

    // Only root may chroot; elsewhere the layer's contents are checked above.
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        eprintln!("skipped running the image's binary: chroot needs root");
        return;
    }
    let run = Command::new("chroot")
        .arg("--userspec=65532:65532")
        .arg(&rootfs)
        .args(["/kubectl-kueue", "version", "--client"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the image's binary runs on its own: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("kubectl-kueue "));
}
