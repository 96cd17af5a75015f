//! The soak: many Workloads through many ClusterQueues with churn, on a real API server, the
//! controller's memory and CPU sampled over time, the invariant checker on. The suite runs a
//! short one (600 Workloads, 10 ClusterQueues); the long one is `#[ignore]`d, with the command
//! (also in the README, Reliability):
//!
//! ```text
//! KUEUE_SOAK_WORKLOADS=50000 KUEUE_SOAK_QUEUES=200 \
//!   cargo test --test it faults::soak -- --ignored --nocapture
//! ```
//!
//! Queues come in cohorts of 10, 10 CPUs each, one LocalQueue per queue. Workloads (1 CPU,
//! random queue) are created while fewer than twice the total quota are live; every admitted
//! one is finished (`Finished=True`, as the Job integration writes when a Job completes) and
//! then deleted; every 10 s one queue's quota is edited (8 or 12 CPUs). Samples (elapsed s,
//! created, finished, controller RSS MiB, controller CPU s) go to
//! `$CARGO_TARGET_TMPDIR/soak.csv` every 5 s. Checked at the end: no invariant broken, every
//! Workload admitted and finished (none stuck), and memory levelled off: the RSS at the end,
//! with everything deleted, at most 1.3 x the RSS at half-way plus 32 MiB.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::time::{Duration, Instant};

use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kubectl_kueue::api::{ClusterQueue, Workload};
use serde_json::json;

use super::scenario::{Rng, one_cpu_workload};
use crate::support::cluster::ClusterBuilder;
use crate::support::controller::{holds_quota, is_true, repo_path, start_controller};
use crate::support::invariants::Checker;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (RSS MiB, CPU seconds) of a process, from /proc.
fn usage(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0.0);
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime are fields 14 and 15 (11 and 12 after the command name).
    let ticks: f64 = fields.get(11..13).map_or(0.0, |f| {
        f.iter().filter_map(|v| v.parse::<f64>().ok()).sum()
    });
    // USER_HZ: 100 on every Linux the tests run on.
    (rss_kib / 1024.0, ticks / 100.0)
}

fn queues_yaml(ns: &str, queues: usize) -> String {
    let mut y = String::from(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n",
    );
    for i in 0..queues {
        y += &format!(
            "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: soak-{i}}}
spec:
  cohort: cohort-{}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 10}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq-{i}, namespace: {ns}}}
spec: {{clusterQueue: soak-{i}}}
",
            i / 10
        );
    }
    y
}

#[ignore = "the soak: minutes to hours; run by the command in this module's doc"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_many_workloads_through_many_queues() {
    soak(
        env("KUEUE_SOAK_WORKLOADS", 50_000),
        env("KUEUE_SOAK_QUEUES", 200),
        "soak.csv",
    )
    .await;
}

/// The same soak, short enough for the suite: 600 Workloads through one cohort of 10
/// ClusterQueues (about a minute), quota edits and deletions included.
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_soak_levels_off_and_breaks_nothing() {
    soak(600, 10, "soak-short.csv").await;
}

async fn soak(total: usize, queues: usize, csv_name: &str) {
    let live_cap = queues * 10 * 2;
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("soak").await;
    crate::support::apply::apply_yaml(&client, &queues_yaml(&ns, queues), &ns)
        .await
        .unwrap();
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(Duration::from_secs(120));
    let checker = Checker::every(client.clone(), Duration::from_secs(2));
    let api = Api::<Workload>::namespaced(client.clone(), &ns);
    let cqs = Api::<ClusterQueue>::all(client.clone());
    let mut rng = Rng::seeded(50);
    let csv_path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(csv_name);
    let mut csv = std::fs::File::create(&csv_path).unwrap();
    writeln!(csv, "seconds,created,finished,rss_mib,cpu_seconds").unwrap();
    let started = Instant::now();
    let (mut created, mut finished) = (0usize, 0usize);
    let mut done: BTreeSet<String> = BTreeSet::new();
    let (mut last_sample, mut last_edit) = (Instant::now(), Instant::now());
    let mut half_rss = None;
    let mut peak_rss: f64 = 0.0;
    let deadline = started + Duration::from_secs(env("KUEUE_SOAK_TIMEOUT_S", 4 * 3600) as u64);
    while finished < total {
        assert!(
            Instant::now() < deadline,
            "soak timed out: {finished} of {total} finished"
        );
        assert!(
            ctl.proc.exited().is_none(),
            "the controller exited:\n{}",
            ctl.proc.log_tail(40)
        );
        checker.assert_clean();
        // Create up to the live cap.
        while created < total && created - finished < live_cap {
            let q = rng.range(0, queues as u64 - 1);
            if api
                .create(
                    &Default::default(),
                    &one_cpu_workload(&format!("w{created}"), &format!("lq-{q}")),
                )
                .await
                .is_ok()
            {
                created += 1;
            }
            if created % 200 == 0 {
                break;
            }
        }
        // Finish what holds quota, delete what is finished.
        let all = api
            .list(&ListParams::default())
            .await
            .map(|l| l.items)
            .unwrap_or_default();
        for w in &all {
            let name = w.metadata.name.clone().unwrap_or_default();
            if is_true(w, "Finished") {
                let _ = api.delete(&name, &DeleteParams::default()).await;
                if done.insert(name) {
                    finished += 1;
                }
            } else if holds_quota(w) {
                let patch = json!([{"op": "add", "path": "/status/conditions/-", "value": {
                    "type": "Finished", "status": "True", "reason": "Succeeded", "message": "soak",
                    "lastTransitionTime": k8s_openapi::jiff::Timestamp::now().to_string()}}]);
                let _ = api
                    .patch_status(
                        &name,
                        &PatchParams::default(),
                        &Patch::<()>::Json(serde_json::from_value(patch).unwrap()),
                    )
                    .await;
            }
        }
        if last_edit.elapsed() > Duration::from_secs(10) {
            last_edit = Instant::now();
            let q = rng.range(0, queues as u64 - 1);
            let quota = if rng.chance(50) { 8 } else { 12 };
            let patch = json!({"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": quota}]}]}]}});
            let _ = cqs
                .patch(
                    &format!("soak-{q}"),
                    &PatchParams::default(),
                    &Patch::Merge(&patch),
                )
                .await;
        }
        if last_sample.elapsed() > Duration::from_secs(5) {
            last_sample = Instant::now();
            let (rss, cpu) = usage(ctl.proc.pid());
            peak_rss = peak_rss.max(rss);
            if half_rss.is_none() && finished >= total / 2 {
                half_rss = Some(rss);
            }
            writeln!(
                csv,
                "{:.0},{created},{finished},{rss:.1},{cpu:.1}",
                started.elapsed().as_secs_f64()
            )
            .unwrap();
            eprintln!(
                "soak: {:.0}s {created} created {finished} finished, controller {rss:.1} MiB, {cpu:.1} s CPU",
                started.elapsed().as_secs_f64()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Everything deleted: let the controller settle, then sample.
    tokio::time::sleep(Duration::from_secs(15)).await;
    let (end_rss, cpu) = usage(ctl.proc.pid());
    writeln!(
        csv,
        "{:.0},{created},{finished},{end_rss:.1},{cpu:.1}",
        started.elapsed().as_secs_f64()
    )
    .unwrap();
    let report = checker.finish(5);
    let half = half_rss.unwrap_or(end_rss);
    eprintln!(
        "FIGURES soak: {total} Workloads through {queues} ClusterQueues in {:?}; controller RSS half-way {half:.1} MiB, \
         peak {peak_rss:.1} MiB, at the end {end_rss:.1} MiB; {cpu:.1} s CPU; {} checker passes, 0 violations; samples in {}",
        started.elapsed(),
        report.passes,
        csv_path.display()
    );
    assert!(
        end_rss <= half * 1.3 + 32.0,
        "memory grew: {half:.1} MiB half-way, {end_rss:.1} MiB at the end"
    );
}
