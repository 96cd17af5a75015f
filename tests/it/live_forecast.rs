//! Estimated starts on a real API server: `status`, `list workload` and `explain` show when
//! a pending workload is expected to start, from the Workload objects alone (a running one
//! with `spec.maximumExecutionTimeSeconds`: an upper bound), "never" for one that cannot
//! fit, and `-o json` carries the estimate as data; a typical runtime from the LocalQueue's
//! finished Workloads (`~`, with the history source), and `?` behind a workload whose runtime
//! is unknown.
#![cfg(feature = "cli")]

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::support::cluster::shared_apiserver;
use crate::support::live::{admit, cell, crds, ok, queues, suffix, workload};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn status_list_and_explain_show_the_estimated_start() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("forecast").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("fc-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "team").await;
    // run-1 holds all 4 GPUs and is stopped after an hour at the latest; the pending ones have
    // its priority, so nothing is preempted (a higher one would start now, preempting it).
    let wl = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": "run-1", "namespace": &ns},
        "spec": {
            "queueName": "team",
            "priority": 100,
            "maximumExecutionTimeSeconds": 3600,
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"nvidia.com/gpu": "4"}}}],
            }}}],
        },
    });
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), &ns);
    api.create(&PostParams::default(), &serde_json::from_value(wl).unwrap())
        .await
        .expect("create run-1");
    admit(cluster, &ns, "run-1", &cq, &rf, 4).await;
    workload(cluster, &ns, "next", "team", 2, 100).await;
    workload(cluster, &ns, "too-big", "team", 8, 100).await;

    let out = ok(cluster, &["status", "-n", &ns, &cq]);
    let next = cell(&out, "next", "ESTIMATED START").unwrap_or_default();
    assert!(
        next.starts_with('≤') && next.ends_with("UTC)"),
        "{next:?} in\n{out}"
    );
    assert!(
        next.contains("59m") || next.contains("60m"),
        "about an hour: {next:?}"
    );
    assert_eq!(
        cell(&out, "too-big", "ESTIMATED START").as_deref(),
        Some("never"),
        "{out}"
    );
    assert_eq!(
        cell(&out, "run-1", "ESTIMATED START").as_deref(),
        Some(""),
        "{out}"
    );

    let out = ok(cluster, &["list", "workload", "-n", &ns]);
    let listed = cell(&out, "next", "ESTIMATED START").unwrap_or_default();
    assert!(listed.starts_with('≤'), "{listed:?} in\n{out}");

    let json: serde_json::Value =
        serde_json::from_str(&ok(cluster, &["status", "-n", &ns, &cq, "-o", "json"])).unwrap();
    let est = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "next")
        .map(|w| w["estimatedStart"].clone())
        .unwrap();
    assert_eq!(est["start"]["state"], "at", "{est}");
    assert_eq!(est["waitsFor"], json!([format!("{ns}/run-1")]), "{est}");
    assert_eq!(est["start"]["at"], est["latest"], "an upper bound: {est}");
    let now = json["now"].as_i64().unwrap();
    let at = est["start"]["at"].as_i64().unwrap();
    assert!(
        (3_500_000..=3_600_000).contains(&(at - now)),
        "{}",
        at - now
    );

    let out = ok(cluster, &["explain", "workload/next", "-n", &ns]);
    assert!(out.contains("Estimated start"), "{out}");
    assert!(
        out.contains("expected to start in at most")
            && out.contains(&format!("once {ns}/run-1 finish")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/run-1: at most 60m (spec.maximumExecutionTimeSeconds)"
        )),
        "{out}"
    );
    let out = ok(cluster, &["explain", "workload/too-big", "-n", &ns]);
    assert!(
        out.contains("not expected to start even once everything running now has finished"),
        "{out}"
    );

    // submit --dry-run gives the same estimate for a Job before it exists: 2 GPUs, behind
    // `next`; both fit once run-1 is gone.
    let out = ok(
        cluster,
        &[
            "submit",
            "--image",
            "trainer:1",
            "--name",
            "later",
            "--gpus",
            "2",
            "-n",
            &ns,
            "--queue",
            "team",
            "--dry-run",
        ],
    );
    assert!(out.contains("Estimated start"), "{out}");
    assert!(
        out.contains("expected to start in at most")
            && out.contains(&format!("once {ns}/run-1 finish")),
        "{out}"
    );
}

/// Writes the status of a Workload of `gpus` GPUs admitted in `cq` on `flavor` at `admitted`,
/// and `Finished` at `finished` when given (the conditions a controller writes).
async fn admitted_at(
    cluster: &crate::support::cluster::Cluster,
    ns: &str,
    name: &str,
    (cq, flavor, gpus): (&str, &str, u32),
    admitted: Timestamp,
    finished: Option<Timestamp>,
) {
    let at = admitted.to_string();
    let mut conditions = vec![
        json!({"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": format!("Quota reserved in ClusterQueue {cq}"), "lastTransitionTime": at}),
        json!({"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted", "lastTransitionTime": at}),
    ];
    if let Some(f) = finished {
        conditions.push(json!({"type": "Finished", "status": "True", "reason": "Succeeded", "message": "Job finished successfully", "lastTransitionTime": f.to_string()}));
    }
    let status = json!({"status": {
        "admission": {"clusterQueue": cq, "podSetAssignments": [{
            "name": "main", "count": 1,
            "flavors": {"nvidia.com/gpu": flavor},
            "resourceUsage": {"nvidia.com/gpu": gpus.to_string()},
        }]},
        "conditions": conditions,
    }});
    let api: Api<kubectl_kueue::api::Workload> = Api::namespaced(cluster.client(), ns);
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("patch Workload status");
}

/// The clock part of a cell, as the CLI writes it (`14:20 UTC`, with the date on another day
/// than `now`).
fn clock(at: Timestamp, now: Timestamp) -> String {
    if at.strftime("%Y-%m-%d").to_string() == now.strftime("%Y-%m-%d").to_string() {
        at.strftime("%H:%M UTC").to_string()
    } else {
        at.strftime("%b %d %H:%M UTC").to_string()
    }
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn history_gives_a_typical_start_and_an_unknown_runtime_a_question_mark() {
    let cluster = shared_apiserver();
    crds(cluster).await;
    let ns = cluster.new_namespace("forecast-history").await;
    let s = suffix(&ns);
    let (rf, cq) = (format!("gpu-{s}"), format!("fch-{s}"));
    let (rf2, cq2) = (format!("gpu2-{s}"), format!("fcu-{s}"));
    queues(cluster, &rf, &cq, None, 4, &ns, "team").await;
    queues(cluster, &rf2, &cq2, None, 4, &ns, "other").await;
    // Whole seconds: condition times are written to the second.
    let now = Timestamp::from_second(Timestamp::now().as_second()).unwrap();
    let min = |m: i64| SignedDuration::from_mins(m);

    // LocalQueue `team`: three runs of 2 GPUs finished in the last hours, 10, 20 and 30
    // minutes long (median 20m, p90 30m); `hist-run` (4 GPUs, within a factor of 2 of them,
    // no limit) was admitted 5 minutes ago, so it is expected to end in 15; `hist-next` (2)
    // waits for it.
    for (i, ran) in [10, 20, 30].into_iter().enumerate() {
        let name = format!("hist-done-{i}");
        workload(cluster, &ns, &name, "team", 2, 100).await;
        let start = now - min(240 - 60 * i as i64);
        admitted_at(
            cluster,
            &ns,
            &name,
            (&cq, &rf, 2),
            start,
            Some(start + min(ran)),
        )
        .await;
    }
    workload(cluster, &ns, "hist-run", "team", 4, 100).await;
    let run_admitted = now - min(5);
    admitted_at(cluster, &ns, "hist-run", (&cq, &rf, 4), run_admitted, None).await;
    workload(cluster, &ns, "hist-next", "team", 2, 100).await;
    // LocalQueue `other`: nothing finished there and no limit, so `unknown-run`'s runtime is
    // unknown and `unknown-next`, waiting only for it, gets no time.
    workload(cluster, &ns, "unknown-run", "other", 4, 100).await;
    admitted_at(cluster, &ns, "unknown-run", (&cq2, &rf2, 4), now, None).await;
    workload(cluster, &ns, "unknown-next", "other", 2, 100).await;

    let expected_at = run_admitted + min(20);
    let out = ok(cluster, &["status", "-n", &ns, &cq]);
    let next = cell(&out, "hist-next", "ESTIMATED START").unwrap_or_default();
    assert!(
        next.starts_with('~') && next.ends_with(&format!("({})", clock(expected_at, now))),
        "~15m ({}) expected (the relative part is measured from the command's now): {next:?} in\n{out}",
        clock(expected_at, now)
    );
    assert_eq!(
        cell(&out, "hist-run", "ESTIMATED START").as_deref(),
        Some(""),
        "{out}"
    );
    let out = ok(cluster, &["status", "-n", &ns, &cq2]);
    assert_eq!(
        cell(&out, "unknown-next", "ESTIMATED START").as_deref(),
        Some("?"),
        "{out}"
    );
    let out = ok(cluster, &["list", "workload", "-n", &ns]);
    assert!(
        cell(&out, "hist-next", "ESTIMATED START").is_some_and(|c| c.starts_with('~')),
        "{out}"
    );
    assert_eq!(
        cell(&out, "unknown-next", "ESTIMATED START").as_deref(),
        Some("?"),
        "{out}"
    );

    // As data: the start is the running one's admission plus the median, to the millisecond;
    // no limit anywhere, so no "at the latest".
    let json: serde_json::Value =
        serde_json::from_str(&ok(cluster, &["status", "-n", &ns, &cq, "-o", "json"])).unwrap();
    let est = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "hist-next")
        .map(|w| w["estimatedStart"].clone())
        .unwrap();
    assert_eq!(est["start"]["state"], "at", "{est}");
    assert_eq!(
        est["start"]["at"].as_i64(),
        Some(expected_at.as_millisecond()),
        "{est}"
    );
    assert!(est["latest"].is_null(), "{est}");
    assert_eq!(est["waitsFor"], json!([format!("{ns}/hist-run")]), "{est}");

    let out = ok(cluster, &["explain", "workload/hist-next", "-n", &ns]);
    assert!(
        out.contains("expected to start in about")
            && out.contains(&format!(
                "({}), once {ns}/hist-run finish",
                clock(expected_at, now)
            ))
            && !out.contains("at the latest"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/hist-run: about 20m (median of 3 finished of similar size in LocalQueue team; p90 30m), expected to end {}",
            clock(expected_at, now)
        )),
        "{out}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(
        cluster,
        &["explain", "workload/hist-next", "-n", &ns, "-o", "json"],
    ))
    .unwrap();
    let assumed = json["estimatedStart"]["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["workload"] == format!("{ns}/hist-run"))
        .map(|a| a["runtime"].clone());
    assert_eq!(
        assumed,
        Some(json!({
            "expectedMs": 1_200_000, "limitMs": null,
            "source": {"kind": "history", "localQueue": "team", "samples": 3,
                "medianMs": 1_200_000, "p90Ms": 1_800_000, "similarSize": true},
        })),
        "{json:#}"
    );

    let out = ok(cluster, &["explain", "workload/unknown-next", "-n", &ns]);
    assert!(
        out.contains(&format!(
            "no estimate: it waits for {ns}/unknown-run, whose runtime is unknown"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/unknown-run: unknown (no time limit, no finished workloads in its LocalQueue)"
        )),
        "{out}"
    );
}
