//! `history export` on a real API server: a finished Workload (QuotaReserved a minute after
//! creation, Finished an hour later) and a pending one become trace rows with their times,
//! queue, priority and requests; `-n` keeps to one namespace, `-A` takes all, and the file
//! reads back as a trace.
#![cfg(feature = "cli")]

use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use crate::support::cluster::shared_apiserver;
use crate::support::live::{crds, ok, queues, suffix, workload};

fn at(ms: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_millisecond(ms)
        .unwrap()
        .to_string()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn export_writes_the_workloads_as_a_trace() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("history").await;
    let other = cluster.new_namespace("history-other").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("hist-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "team").await;
    let done = workload(cluster, &ns, "done", "team", 2, 100).await;
    workload(cluster, &ns, "waiting", "team", 1, 5).await;
    workload(cluster, &other, "elsewhere", "team", 1, 0).await;
    let created: k8s_openapi::jiff::Timestamp = done["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let created = created.as_millisecond();
    let (reserved, finished) = (created + 60_000, created + 3_660_000);
    let status = json!({"status": {
        "admission": {"clusterQueue": &cq, "podSetAssignments": [{
            "name": "main", "count": 1,
            "flavors": {"nvidia.com/gpu": &rf},
            "resourceUsage": {"nvidia.com/gpu": "2"},
        }]},
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": format!("Quota reserved in ClusterQueue {cq}"), "lastTransitionTime": at(reserved)},
            {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted", "lastTransitionTime": at(reserved)},
            {"type": "Finished", "status": "True", "reason": "Succeeded", "message": "Job finished successfully", "lastTransitionTime": at(finished)},
        ],
    }});
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), &ns);
    api.patch_status("done", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("patch Workload status");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.jsonl");
    let file_s = file.to_str().unwrap();
    ok(
        cluster,
        &[
            "history", "export", "-n", &ns, "--since", "1h", "-o", file_s,
        ],
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let jobs = kubectl_kueue::simulate::trace::parse(file_s, &text).unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{text}");
    assert!(
        names.contains(&"done") && names.contains(&"waiting"),
        "{text}"
    );
    let d = jobs.iter().find(|j| j.name == "done").unwrap();
    assert_eq!(
        (d.namespace.as_str(), d.local_queue.as_str(), d.priority),
        (ns.as_str(), "team", 100)
    );
    assert_eq!(d.submitted, created);
    assert_eq!(d.admitted, Some(reserved));
    assert_eq!(d.finished, Some(finished));
    assert_eq!(d.runtime_ms, Some(3_600_000));
    assert_eq!(d.pod_sets[0].count, 1);
    assert_eq!(d.pod_sets[0].per_pod["nvidia.com/gpu"].get(), 2);
    let w = jobs.iter().find(|j| j.name == "waiting").unwrap();
    assert_eq!(
        (w.priority, w.admitted, w.finished, w.runtime_ms),
        (5, None, None, None)
    );

    // Every namespace: the other one's Workload too (and other tests' Workloads).
    let all = ok(cluster, &["history", "export", "-A", "--since", "1h"]);
    let jobs = kubectl_kueue::simulate::trace::parse("stdout", &all).unwrap();
    assert!(
        jobs.iter()
            .any(|j| j.namespace == other && j.name == "elsewhere")
    );
    assert!(jobs.iter().any(|j| j.namespace == ns && j.name == "done"));
}
