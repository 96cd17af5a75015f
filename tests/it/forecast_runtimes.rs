//! Expected runtimes from the objects (`simulate::forecast::sources`): the Workload's
//! `spec.maximumExecutionTimeSeconds`, the Job's `kueue.x-k8s.io/max-exec-time-seconds`
//! label and `spec.activeDeadlineSeconds` as limits, the history of finished Workloads of
//! the same LocalQueue (similar size first, within a week) as the typical runtime, and
//! unknown otherwise.

use std::collections::BTreeMap;

use kubectl_kueue::manifests::documents::parse_documents;
use kubectl_kueue::manifests::{ConvertOptions, Inventory, convert};
use kubectl_kueue::scheduler::key::WorkloadKey;
use kubectl_kueue::simulate::forecast::sources::runtimes;
use kubectl_kueue::simulate::forecast::{Runtime, RuntimeSource};

const NOW: &str = "2025-07-22T12:00:00Z";
const MIN: i64 = 60_000;

fn ts(minutes_before_now: i64) -> String {
    let now: k8s_openapi::jiff::Timestamp = NOW.parse().unwrap();
    let t = k8s_openapi::jiff::Timestamp::from_millisecond(
        now.as_millisecond() - minutes_before_now * MIN,
    )
    .unwrap();
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A Workload in `ns`'s training-queue: `gpus` GPUs; `ran`: finished `ago` minutes before
/// now after running `ran` minutes; `owner`: a Job name; `max_exec`: seconds.
fn workload(
    ns: &str,
    name: &str,
    gpus: u32,
    ran: Option<(i64, i64)>,
    owner: Option<&str>,
    max_exec: Option<i64>,
) -> String {
    let owner = owner
        .map(|j| format!("  ownerReferences:\n  - apiVersion: batch/v1\n    kind: Job\n    name: {j}\n    uid: uid-{j}\n    controller: true\n"))
        .unwrap_or_default();
    let max_exec = max_exec
        .map(|s| format!("  maximumExecutionTimeSeconds: {s}\n"))
        .unwrap_or_default();
    let status = match ran {
        Some((ago, minutes)) => format!(
            "status:\n  admission:\n    clusterQueue: {ns}-queue\n    podSetAssignments:\n    - name: main\n      count: 1\n      flavors:\n        nvidia.com/gpu: gpu-a100\n      resourceUsage:\n        nvidia.com/gpu: '{gpus}'\n  conditions:\n  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: '', lastTransitionTime: '{start}'}}\n  - {{type: Admitted, status: 'True', reason: Admitted, message: '', lastTransitionTime: '{start}'}}\n  - {{type: Finished, status: 'True', reason: Succeeded, message: done, lastTransitionTime: '{end}'}}\n",
            start = ts(ago + minutes),
            end = ts(ago)
        ),
        None => String::new(),
    };
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: {name}\n  namespace: {ns}\n  creationTimestamp: '{created}'\n{owner}spec:\n  queueName: training-queue\n{max_exec}  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n        restartPolicy: Never\n        containers:\n        - name: c\n          image: i\n          resources:\n            requests:\n              nvidia.com/gpu: '{gpus}'\n{status}---\n",
        created = ts(ran.map_or(30, |(ago, m)| ago + m + 1)),
    )
}

fn job(ns: &str, name: &str, label: Option<i64>, deadline: Option<i64>) -> String {
    let label = label
        .map(|s| format!("    kueue.x-k8s.io/max-exec-time-seconds: '{s}'\n"))
        .unwrap_or_default();
    let deadline = deadline
        .map(|s| format!("  activeDeadlineSeconds: {s}\n"))
        .unwrap_or_default();
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: {ns}\n  uid: uid-{name}\n  labels:\n    kueue.x-k8s.io/queue-name: training-queue\n{label}spec:\n  suspend: true\n{deadline}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: i\n        resources:\n          requests:\n            nvidia.com/gpu: '1'\n---\n"
    )
}

fn inventory() -> Inventory {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut text = String::new();
    for f in ["namespaces.yaml", "priorities.yaml", "setup.yaml"] {
        text.push_str(
            &std::fs::read_to_string(format!("{root}/examples/gpu-two-teams/{f}")).unwrap(),
        );
        text.push_str("\n---\n");
    }
    // Team A's history: four 1-GPU runs of 30-60 min, three 4-GPU runs of 120-140 min.
    for (i, m) in [30, 40, 50, 60].into_iter().enumerate() {
        text.push_str(&workload(
            "team-a",
            &format!("done-small-{i}"),
            1,
            Some((100 + 10 * i as i64, m)),
            None,
            None,
        ));
    }
    for (i, m) in [120, 130, 140].into_iter().enumerate() {
        text.push_str(&workload(
            "team-a",
            &format!("done-big-{i}"),
            4,
            Some((300, m)),
            None,
            None,
        ));
    }
    // Team B's history is ten days old: outside the window.
    for i in 0..3 {
        text.push_str(&workload(
            "team-b",
            &format!("old-{i}"),
            1,
            Some((10 * 24 * 60, 45)),
            None,
            None,
        ));
    }
    text.push_str(&workload("team-a", "small", 1, None, None, None));
    text.push_str(&workload("team-a", "big", 4, None, None, None));
    text.push_str(&workload("team-a", "mid", 2, None, None, None));
    text.push_str(&workload("team-a", "capped", 1, None, None, Some(1200)));
    text.push_str(&workload("team-b", "lim", 1, None, None, Some(3600)));
    text.push_str(&workload(
        "team-b",
        "deadline",
        1,
        None,
        Some("deadline-job"),
        None,
    ));
    text.push_str(&job("team-b", "deadline-job", None, Some(7200)));
    text.push_str(&workload(
        "team-b",
        "labelled",
        1,
        None,
        Some("labelled-job"),
        None,
    ));
    text.push_str(&job("team-b", "labelled-job", Some(600), Some(7200)));
    text.push_str(&workload("team-b", "none", 1, None, None, None));
    let mut order = 0;
    let docs = parse_documents("test.yaml", &text, &mut order).expect("valid YAML");
    Inventory::from_documents(docs).expect("valid objects")
}

fn now() -> i64 {
    NOW.parse::<k8s_openapi::jiff::Timestamp>()
        .unwrap()
        .as_millisecond()
}

fn runtime_of(rt: &BTreeMap<WorkloadKey, Runtime>, key: &str) -> Runtime {
    rt.get(&WorkloadKey::parse(key).unwrap())
        .cloned()
        .unwrap_or_else(|| panic!("no runtime for {key}"))
}

fn history(rt: &Runtime) -> (usize, i64, i64, bool) {
    match &rt.source {
        RuntimeSource::History {
            samples,
            median_ms,
            p90_ms,
            similar_size,
            ..
        } => (*samples, median_ms / MIN, p90_ms / MIN, *similar_size),
        other => panic!("expected history, got {other:?}"),
    }
}

#[test]
fn each_workload_gets_its_best_source() {
    let inv = inventory();
    let converted = convert(
        &inv,
        &ConvertOptions {
            now: now(),
            strict_namespace_selector: false,
        },
    )
    .unwrap();
    let rt = runtimes(&inv, &converted.state, now());

    let small = runtime_of(&rt, "team-a/small");
    assert_eq!(
        history(&small),
        (4, 40, 60, true),
        "similar size: the four 1-GPU runs"
    );
    assert_eq!((small.expected_ms, small.limit_ms), (Some(40 * MIN), None));
    assert_eq!(history(&runtime_of(&rt, "team-a/big")), (3, 130, 140, true));
    // 2 GPUs is within a factor of 2 of both sizes: all seven runs.
    assert_eq!(history(&runtime_of(&rt, "team-a/mid")), (7, 60, 140, true));

    let capped = runtime_of(&rt, "team-a/capped");
    assert_eq!(history(&capped).1, 40);
    assert_eq!(
        (capped.expected_ms, capped.limit_ms),
        (Some(20 * MIN), Some(20 * MIN)),
        "never above its limit"
    );
    assert_eq!(
        capped.limit_source,
        Some(RuntimeSource::MaximumExecutionTime)
    );

    assert_eq!(
        runtime_of(&rt, "team-b/lim"),
        Runtime::limit(RuntimeSource::MaximumExecutionTime, 60 * MIN)
    );
    assert_eq!(
        runtime_of(&rt, "team-b/deadline"),
        Runtime::limit(RuntimeSource::ActiveDeadline, 120 * MIN)
    );
    assert_eq!(
        runtime_of(&rt, "team-b/labelled"),
        Runtime::limit(RuntimeSource::MaxExecTimeLabel, 10 * MIN),
        "the label comes before activeDeadlineSeconds"
    );
    assert_eq!(
        runtime_of(&rt, "team-b/none"),
        Runtime::unknown(),
        "ten-day-old history does not count"
    );
    assert!(
        !rt.contains_key(&WorkloadKey::parse("team-a/done-small-0").unwrap()),
        "finished: no runtime"
    );
}
