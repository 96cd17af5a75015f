//! Helpers for the live CLI tests: run `kubectl kueue ...` through kubectl's plugin lookup
//! against a test cluster, install the CRDs once, and make Kueue objects directly (Workloads
//! with the status a controller would write), so the commands are tested against any cluster
//! that holds these objects, with or without a controller.

use std::process::Output;

use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::support::apply;
use crate::support::cluster::Cluster;

/// Installs the project's CRDs (idempotent; every test calls it).
pub async fn crds(cluster: &Cluster) {
    apply::install_crds(
        &cluster.client(),
        &crate::support::repo_root().join("examples/deploy/crds-v1beta1"),
    )
    .await
    .expect("install CRDs");
}

/// `kubectl kueue <args>` with the cluster's kubeconfig.
pub fn kueue(cluster: &Cluster, args: &[&str]) -> Output {
    let mut cmd = cluster.kubectl();
    cmd.arg("kueue")
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG");
    cmd.output().expect("run kubectl kueue")
}

/// Runs and asserts success; returns stdout.
pub fn ok(cluster: &Cluster, args: &[&str]) -> String {
    let out = kueue(cluster, args);
    assert!(
        out.status.success(),
        "kubectl kueue {} failed ({}):\nstdout: {}\nstderr: {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs and asserts failure with `code`; returns stderr.
pub fn fails(cluster: &Cluster, args: &[&str], code: i32) -> String {
    let out = kueue(cluster, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "kubectl kueue {} should exit {code}:\nstdout: {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The rows of a table whose first column is `name` (columns split on runs of 2+ spaces).
pub fn row<'a>(table: &'a str, name: &str) -> Option<Vec<&'a str>> {
    table.lines().find_map(|l| {
        let cols: Vec<&str> = l
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        (cols.first() == Some(&name)).then_some(cols)
    })
}

/// Column `header` of the first row whose first column is `name`, read under the nearest
/// header line above it that has this column. Columns are located by where the headers
/// start (kubectl's tables are left-aligned), so empty cells read as empty; a column with an
/// empty header (a bar) is cut off at the first double space.
pub fn cell(text: &str, name: &str, header: &str) -> Option<String> {
    let mut current: Option<(Vec<usize>, usize)> = None;
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let is_header = !chars.is_empty()
            && chars
                .iter()
                .all(|c| !c.is_lowercase() && !c.is_ascii_digit());
        if is_header {
            let mut starts = vec![0];
            for i in 2..chars.len() {
                if chars[i] != ' ' && chars[i - 1] == ' ' && chars[i - 2] == ' ' {
                    starts.push(i);
                }
            }
            let names: Vec<String> = starts
                .iter()
                .enumerate()
                .map(|(k, &s)| {
                    let e = starts.get(k + 1).copied().unwrap_or(chars.len());
                    chars[s..e].iter().collect::<String>().trim().to_string()
                })
                .collect();
            if let Some(col) = names.iter().position(|n| n == header) {
                current = Some((starts, col));
            } else if names.len() > 1 {
                current = None;
            }
            continue;
        }
        let Some((starts, col)) = &current else {
            continue;
        };
        if line.split_whitespace().next() != Some(name) {
            continue;
        }
        let s = starts[*col].min(chars.len());
        let e = starts
            .get(col + 1)
            .copied()
            .unwrap_or(chars.len())
            .min(chars.len());
        let value: String = chars[s..e].iter().collect();
        let value = value.trim();
        return Some(value.split("  ").next().unwrap_or("").to_string());
    }
    None
}

/// A ResourceFlavor, ClusterQueue (in `cohort`, with `gpus` of nominal quota on `flavor`) and
/// a LocalQueue `lq` in `ns`, made through the API.
pub async fn queues(
    cluster: &Cluster,
    flavor: &str,
    cq: &str,
    cohort: Option<&str>,
    gpus: u32,
    ns: &str,
    lq: &str,
) {
    let mut spec = json!({
        "namespaceSelector": {},
        "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
        "resourceGroups": [{
            "coveredResources": ["nvidia.com/gpu"],
            "flavors": [{"name": flavor, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": gpus}]}],
        }],
    });
    if let Some(c) = cohort {
        spec["cohort"] = json!(c);
    }
    let yaml = serde_json::to_string(&json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": flavor}, "spec": {"nodeLabels": {"gpu-type": "a100"}}}))
        .unwrap()
        + "\n---\n"
        + &serde_json::to_string(&json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": cq}, "spec": spec})).unwrap()
        + "\n---\n"
        + &serde_json::to_string(&json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": lq, "namespace": ns}, "spec": {"clusterQueue": cq}}))
            .unwrap();
    apply::apply_yaml(&cluster.client(), &yaml, ns)
        .await
        .expect("apply queues");
}

/// A pending Workload asking for `gpus` GPUs in LocalQueue `lq`.
pub async fn workload(
    cluster: &Cluster,
    ns: &str,
    name: &str,
    lq: &str,
    gpus: u32,
    priority: i32,
) -> Value {
    let wl = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "queueName": lq,
            "priority": priority,
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"nvidia.com/gpu": gpus.to_string()}}}],
            }}}],
        },
    });
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), ns);
    let obj: kubectl_kueue::api::Workload = serde_json::from_value(wl).unwrap();
    let created = api
        .create(&PostParams::default(), &obj)
        .await
        .expect("create Workload");
    serde_json::to_value(created).unwrap()
}

/// Writes the status a controller writes on admission: `QuotaReserved` and `Admitted` on
/// `flavor` in `cq`.
pub async fn admit(cluster: &Cluster, ns: &str, name: &str, cq: &str, flavor: &str, gpus: u32) {
    let now = k8s_openapi::jiff::Timestamp::now().to_string();
    let status = json!({"status": {
        "admission": {"clusterQueue": cq, "podSetAssignments": [{
            "name": "main", "count": 1,
            "flavors": {"nvidia.com/gpu": flavor},
            "resourceUsage": {"nvidia.com/gpu": gpus.to_string()},
        }]},
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": format!("Quota reserved in ClusterQueue {cq}"), "lastTransitionTime": now},
            {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted", "lastTransitionTime": now},
        ],
    }});
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), ns);
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("patch Workload status");
}

/// A lower-case suffix unique to this namespace, for cluster-scoped names.
pub fn suffix(ns: &str) -> String {
    ns.rsplit('-').take(2).collect::<Vec<_>>().join("")
}
