//! The controller image, built here by `scripts/image.sh` (no Docker daemon, no registry):
//! the OCI layout is well formed (every descriptor's digest and size match its blob), the
//! config runs `/kubectl-kueue run-controller` as 65532:65532, the one layer holds the binary
//! with the loader and libraries it links against, and that root filesystem alone runs the
//! binary (chroot, as the nonroot user, when the tests run as root). `e2e_in_cluster` runs
//! the same image as the installed Deployment's pod.
#![cfg(feature = "cli")]

use std::process::Command;

use crate::support::image;

#[test]
fn the_image_builds_here_and_runs_as_nonroot_from_its_own_root_filesystem() {
    let built = image::build("kubectl-kueue:test");
    assert!(built.archive.metadata().unwrap().len() > 1_000_000);
    assert_eq!(
        image::json(&std::fs::read(built.layout.join("oci-layout")).unwrap())["imageLayoutVersion"],
        "1.0.0"
    );
    let index = built.index();
    let entry = &index["manifests"][0];
    assert_eq!(
        entry["annotations"]["io.containerd.image.name"],
        "kubectl-kueue:test"
    );
    assert_eq!(
        entry["digest"], built.digest,
        "the printed digest is the manifest's"
    );
    let config = built.config();
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

    let layers = built.layers();
    assert_eq!(layers.len(), 1);
    let size_mib = layers[0].len() as f64 / (1024.0 * 1024.0);
    eprintln!("image layer: {size_mib:.1} MiB compressed");
    let rootfs = built.unpack("rootfs");
    for file in ["kubectl-kueue", "etc/passwd", "tmp"] {
        assert!(rootfs.join(file).exists(), "{file} in the image");
    }
    let passwd = std::fs::read_to_string(rootfs.join("etc/passwd")).unwrap();
    assert!(passwd.contains("nonroot:x:65532:65532"));

    // Only root may chroot; elsewhere the layer's contents are checked above.
    if !image::is_root() {
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
