//! The controller image as `scripts/image.sh` builds it (no Docker daemon, no registry), from
//! the binary under test: its OCI layout read back with every descriptor checked (the blob's
//! size and sha256 match), and its one layer unpacked into a root filesystem.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A built image: the OCI layout, the archive, the manifest digest `scripts/image.sh` printed.
pub struct Image {
    pub dir: tempfile::TempDir,
    pub layout: PathBuf,
    pub archive: PathBuf,
    pub digest: String,
}

/// Runs `scripts/image.sh --binary <the test binary> --tag TAG` into a temporary directory.
pub fn build(tag: &str) -> Image {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/image.sh"))
        .args(["--binary", env!("CARGO_BIN_EXE_kubectl-kueue"), "--out"])
        .arg(dir.path())
        .args(["--tag", tag])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/image.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "the archive path and the digest: {printed}");
    Image {
        layout: dir.path().join("oci"),
        archive: PathBuf::from(lines[0]),
        digest: lines[1].to_string(),
        dir,
    }
}

impl Image {
    /// `index.json`.
    pub fn index(&self) -> Value {
        json(&std::fs::read(self.layout.join("index.json")).unwrap())
    }

    /// The image manifest the index's first entry names.
    pub fn manifest(&self) -> Value {
        json(&blob(&self.layout, &self.index()["manifests"][0]))
    }

    /// The image configuration (entrypoint, user, ...).
    pub fn config(&self) -> Value {
        json(&blob(&self.layout, &self.manifest()["config"]))
    }

    /// The compressed bytes of each layer, in order.
    pub fn layers(&self) -> Vec<Vec<u8>> {
        let manifest = self.manifest();
        manifest["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| blob(&self.layout, d))
            .collect()
    }

    /// Unpacks every layer, in order, into a new directory `name` beside the layout.
    pub fn unpack(&self, name: &str) -> PathBuf {
        let rootfs = self.dir.path().join(name);
        std::fs::create_dir(&rootfs).unwrap();
        for (i, layer) in self.layers().iter().enumerate() {
            let path = self.dir.path().join(format!("{name}-layer-{i}.tar.gz"));
            std::fs::write(&path, layer).unwrap();
            let untar = Command::new("tar")
                .arg("-xzf")
                .arg(&path)
                .arg("-C")
                .arg(&rootfs)
                .status()
                .unwrap();
            assert!(untar.success(), "layer {i} unpacks");
        }
        rootfs
    }
}

/// The blob a descriptor names, after checking its size and digest.
pub fn blob(layout: &Path, descriptor: &Value) -> Vec<u8> {
    let digest = descriptor["digest"].as_str().unwrap();
    let hex = digest.strip_prefix("sha256:").expect("sha256 digest");
    let path = layout.join("blobs/sha256").join(hex);
    let bytes = std::fs::read(&path).expect("blob present");
    assert_eq!(
        bytes.len() as u64,
        descriptor["size"].as_u64().unwrap(),
        "size of {digest}"
    );
    let out = Command::new("sha256sum").arg(&path).output().unwrap();
    let actual = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        actual.split_whitespace().next(),
        Some(hex),
        "digest of {digest}"
    );
    bytes
}

pub fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("JSON")
}

/// Whether this process may chroot and make mount namespaces (runs as root).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
