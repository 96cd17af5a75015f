//! The validation corpus on a real API server with what `kubectl kueue install` puts in place
//! (CRDs, the validating and mutating admission policies):
//! - every manifest of `tests/fixtures/validation/` that upstream Kueue rejects is rejected by
//!   `kubectl apply` with upstream's field path and message;
//! - the seed's manifests (`examples/gpu-two-teams`) still apply unchanged, their Workloads'
//!   admitted status included, and the largest ClusterQueue upstream accepts stays within
//!   the CEL cost limits.
//!
//! A fixture is YAML documents separated by `---` lines. Its `# expect: TEXT` lines are what
//! kubectl's error must contain. Every document but the last must apply; the last must be
//! rejected. A document whose first line is `# status` is applied to the status subresource
//! (server-side), which is how a test gives a Workload a quota reservation; one whose first line
//! is `# server-side` is applied server-side (no last-applied annotation, capped at 256 KiB).
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::{kubectl, repo_path};

struct Fixture {
    name: String,
    expect: Vec<String>,
    documents: Vec<String>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = repo_path("tests/fixtures/validation");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let expect = text
                .lines()
                .filter_map(|l| l.strip_prefix("# expect: "))
                .map(str::to_string)
                .collect();
            let mut documents = vec![String::new()];
            for line in text.lines() {
                if line == "---" {
                    documents.push(String::new());
                } else {
                    let doc = documents.last_mut().unwrap();
                    doc.push_str(line);
                    doc.push('\n');
                }
            }
            Fixture {
                name: path.file_name().unwrap().to_string_lossy().into_owned(),
                expect,
                documents,
            }
        })
        .collect()
}

/// `kubectl apply` of one document in `ns`: (success, stderr).
fn apply(cluster: &Cluster, ns: &str, document: &str) -> (bool, String) {
    let mut cmd: Command = cluster.kubectl();
    cmd.args(["apply", "-n", ns, "-f", "-"]);
    if document.starts_with("# status") {
        cmd.args(["--server-side", "--subresource=status"]);
    } else if document.starts_with("# server-side") {
        cmd.arg("--server-side");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(document.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Cohort every installed policy set rejects: the probe that they are in force.
const PROBE: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: vc-policy-probe}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: -1}]
";

fn installed_cluster() -> Cluster {
    let cluster = ClusterBuilder::apiserver().start();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    // The API server enforces a new ValidatingAdmissionPolicy once its policy informer has
    // seen the policy and its binding: a moment after install, longer on a loaded machine.
    // The policies are installed together, so one in force means they all are.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (accepted, _) = apply(&cluster, "default", PROBE);
        if !accepted {
            break;
        }
        let _ = cluster
            .kubectl()
            .args(["delete", "cohort", "vc-policy-probe", "--ignore-not-found"])
            .output();
        assert!(
            std::time::Instant::now() < deadline,
            "the validating policies are not in force 60s after install"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    cluster
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstreams_rejections_are_rejected_with_its_messages() {
    let cluster = installed_cluster();
    let fixtures = fixtures();
    assert!(fixtures.len() >= 30, "the corpus is there");
    let mut failures = Vec::new();
    for fixture in &fixtures {
        assert!(
            !fixture.expect.is_empty(),
            "{}: no `# expect:` line",
            fixture.name
        );
        let ns = cluster.new_namespace("validation").await;
        let (last, setup) = fixture.documents.split_last().unwrap();
        for (i, document) in setup.iter().enumerate() {
            let (ok, stderr) = apply(&cluster, &ns, document);
            assert!(
                ok,
                "{}: document {} must apply: {stderr}",
                fixture.name,
                i + 1
            );
        }
        let (ok, stderr) = apply(&cluster, &ns, last);
        if ok {
            failures.push(format!("{}: accepted", fixture.name));
            continue;
        }
        for expected in &fixture.expect {
            if !stderr.contains(expected.as_str()) {
                failures.push(format!(
                    "{}: the error lacks\n  {expected}\nit reads\n  {stderr}",
                    fixture.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn apply_path(cluster: &Cluster, path: &Path, extra: &[&str]) {
    let path = path.to_str().unwrap();
    let mut args = vec!["apply", "-f", path];
    args.extend_from_slice(extra);
    kubectl(cluster, &args);
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeds_manifests_and_the_largest_queue_still_apply() {
    let cluster = installed_cluster();
    let seed = repo_path("examples/gpu-two-teams");
    for part in [
        "namespaces.yaml",
        "priorities.yaml",
        "setup.yaml",
        "jobs",
        "monday",
    ] {
        apply_path(&cluster, &seed.join(part), &[]);
    }
    // Monday's Workloads hold quota: their admitted status passes the Workload rules.
    apply_path(
        &cluster,
        &seed.join("monday"),
        &["--server-side", "--subresource=status"],
    );

    // 16 groups x 16 flavors x 16 resources with every limit set: as large as upstream
    // allows, so the policy's CEL must stay within the API server's cost budget.
    let mut cq = String::from(
        "# server-side\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: largest}\nspec:\n  cohort: all\n  resourceGroups:\n",
    );
    for g in 0..16 {
        let resources: Vec<String> = (0..16)
            .map(|r| format!("g{g}-r{r}.example.com/x"))
            .collect();
        cq += &format!(
            "  - coveredResources: [{}]\n    flavors:\n",
            resources.join(", ")
        );
        for f in 0..16 {
            let quotas: Vec<String> = resources
                .iter()
                .map(|r| {
                    format!("{{name: {r}, nominalQuota: 1, borrowingLimit: 1, lendingLimit: 1}}")
                })
                .collect();
            cq += &format!(
                "    - name: g{g}-f{f}\n      resources: [{}]\n",
                quotas.join(", ")
            );
        }
    }
    let (ok, stderr) = apply(&cluster, "default", &cq);
    assert!(ok, "the largest valid ClusterQueue is accepted: {stderr}");

    // `spec` is optional in these kinds: objects without one are accepted, as upstream's.
    for kind in ["ResourceFlavor", "Cohort", "ClusterQueue"] {
        let doc = format!(
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: {kind}\nmetadata: {{name: no-spec-{}}}\n",
            kind.to_lowercase()
        );
        let (ok, stderr) = apply(&cluster, "default", &doc);
        assert!(ok, "a {kind} without spec is accepted: {stderr}");
    }
}
