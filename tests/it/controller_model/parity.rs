//! The same story two ways: `simulate` on the objects as files, and the controller's model
//! turn by turn with a pretend API server. The Workloads must end with the same status
//! (admission, every condition with its reason and message, eviction counts), because
//! `simulate` promises to say what the controller would write.
//!
//! Each story here is one upstream's workload controller and scheduler handle in a sequence
//! of writes: a workload preempted and admitted again within one run, a queue resumed after
//! `HoldAndDrain` (from the drained state alone), a queue still draining, a ClusterQueue
//! being deleted (held by its finalizer), a Job whose priority comes from its pod template's
//! PriorityClass, the maximum execution time across re-admissions.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::Job;
use kubectl_kueue::api::{Workload, WorkloadStatus};
use kubectl_kueue::manifests::documents::parse_documents;
use kubectl_kueue::manifests::{ConvertOptions, Inventory};
use kubectl_kueue::simulate::Simulation;

use super::world::World;

pub(super) const FLAVORS: &str = "
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f2}
";

pub(super) fn inventory(text: &str) -> Inventory {
    let mut order = 0;
    let docs = parse_documents("story.yaml", text, &mut order).expect("valid YAML");
    Inventory::from_documents(docs).expect("valid objects")
}

pub(super) use crate::support::shape::{Shape, shape};

/// Every Workload's status shape after `simulate` on `text`.
pub(super) fn simulated(text: &str, now: i64) -> BTreeMap<String, Shape> {
    let opts = ConvertOptions {
        now,
        strict_namespace_selector: false,
    };
    let sim = Simulation::run(inventory(text), &[], &opts).expect("simulates");
    let out = sim.output();
    let mut shapes = BTreeMap::new();
    for item in out["items"].as_array().unwrap() {
        if item["kind"] != "Workload" {
            continue;
        }
        let st: WorkloadStatus = serde_json::from_value(item["status"].clone()).unwrap();
        shapes.insert(
            item["metadata"]["name"].as_str().unwrap().to_string(),
            shape(&st),
        );
    }
    shapes
}

/// A world whose cluster holds the objects of `text`, not started yet; a Configuration in
/// `text` is the controller's `--config`.
pub(super) fn world_of(text: &str) -> World {
    let inv = inventory(text);
    let mut world = World::with(kubectl_kueue::controller::model::Settings {
        config: inv.config.as_ref().map(|c| c.obj.clone()),
        ..Default::default()
    });
    for f in inv.flavors {
        world.cache.put_flavor(f.obj);
    }
    for cq in inv.cluster_queues {
        world.cache.put_cluster_queue(cq.obj);
    }
    for lq in inv.local_queues {
        world.cache.put_local_queue(lq.obj);
    }
    for w in inv.workloads {
        world.cache.put_workload(w.obj);
    }
    for pc in inv.priority_classes {
        world.cache.put_priority_class(pc.obj);
    }
    for pc in inv.pod_priority_classes {
        world
            .cache
            .pod_priority_classes
            .push(std::sync::Arc::new(pc.obj));
    }
    for j in inv.jobs {
        world.cache.put_job(j.obj);
    }
    world
}

/// Every Workload's status shape once the controller's model has settled on `text`.
pub(super) fn controlled(text: &str) -> (BTreeMap<String, Shape>, i64) {
    let mut world = world_of(text);
    let now = world.now.wall;
    let actions = world.start();
    world.settle(actions);
    let shapes = world
        .cache
        .workloads
        .values()
        .map(|w| {
            (
                w.metadata.name.clone().unwrap(),
                shape(w.status.as_ref().unwrap()),
            )
        })
        .collect();
    (shapes, now)
}

pub(super) fn as_document<T: serde::Serialize>(obj: &T, api_version: &str, kind: &str) -> String {
    let mut v = serde_json::to_value(obj).unwrap();
    v["apiVersion"] = api_version.into();
    v["kind"] = kind.into();
    format!("---\n{}", serde_yaml::to_string(&v).unwrap())
}

/// The world's Jobs (`changed` in place of its namesake) and Workloads as files, after the
/// queue objects of `base`.
pub(super) fn files_of(world: &World, base: &str, changed: Option<&Job>) -> String {
    let mut text = base.to_string();
    for w in world.cache.workloads.values() {
        text.push_str(&as_document(&**w, "kueue.x-k8s.io/v1beta1", "Workload"));
    }
    for j in world.cache.jobs.values() {
        let j = changed
            .filter(|c| c.metadata.name == j.metadata.name)
            .unwrap_or(j);
        text.push_str(&as_document(j, "batch/v1", "Job"));
    }
    text
}

/// Every Workload's status shape in the controller's world as it stands.
pub(super) fn shapes(world: &World) -> BTreeMap<String, Shape> {
    world
        .cache
        .workloads
        .values()
        .map(|w: &std::sync::Arc<Workload>| {
            (
                w.metadata.name.clone().unwrap(),
                shape(w.status.as_ref().unwrap()),
            )
        })
        .collect()
}

/// Runs the story both ways and returns the (agreed) shapes.
pub(super) fn both_ways(story: &str) -> BTreeMap<String, Shape> {
    let text = format!("{FLAVORS}{story}");
    let (live, now) = controlled(&text);
    let offline = simulated(&text, now);
    assert_eq!(offline, live, "simulate and the controller disagree");
    offline
}

pub(super) fn condition<'a>(s: &'a Shape, type_: &str) -> (&'a str, &'a str, &'a str) {
    let c =
        s.1.iter()
            .find(|c| c.0 == type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {s:#?}"));
    (c.1.as_str(), c.2.as_str(), c.3.as_str())
}

pub(super) const ADMITTED_AT: &str = "2025-12-31T23:00:00Z";

pub(super) fn workload(ns: &str, name: &str, cpu: u32, status: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: {ns}, uid: uid-{name}, creationTimestamp: '{ADMITTED_AT}'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '{cpu}'}}}}
{status}"
    )
}

pub(super) fn admitted_on(cq: &str, flavor: &str, cpu: u32) -> String {
    format!(
        "status:
  admission:
    clusterQueue: {cq}
    podSetAssignments:
    - {{name: main, count: 1, flavors: {{cpu: {flavor}}}, resourceUsage: {{cpu: '{cpu}'}}}}
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: Quota reserved in ClusterQueue {cq}, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: Admitted, status: 'True', reason: Admitted, message: The workload is admitted, lastTransitionTime: '{ADMITTED_AT}'}}
"
    )
}

pub(super) fn local_queue(ns: &str, cq: &str, stop: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: {cq}{stop}}}
"
    )
}

/// ClusterQueue `name` in cohort `c` with `quotas` as (flavor, nominal cpu).
pub(super) fn cluster_queue(name: &str, quotas: &[(&str, u32)], extra: &str) -> String {
    let flavors: String = quotas
        .iter()
        .map(|(f, n)| {
            format!("    - {{name: {f}, resources: [{{name: cpu, nominalQuota: {n}}}]}}\n")
        })
        .collect();
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  cohort: c
  namespaceSelector: {{}}{extra}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
{flavors}"
    )
}

#[test]
fn a_workload_preempted_and_admitted_again_in_one_run_keeps_its_history() {
    // `victim` borrows b's f1; b's own workload reclaims it; f1 is then full, so the victim
    // is admitted again on a's f2.
    let story = [
        cluster_queue("a", &[("f1", 0), ("f2", 4)], ""),
        cluster_queue(
            "b",
            &[("f1", 4)],
            "\n  preemption: {reclaimWithinCohort: Any}",
        ),
        local_queue("ns-a", "a", ""),
        local_queue("ns-b", "b", ""),
        workload("ns-a", "victim", 4, &admitted_on("a", "f1", 4)),
        workload("ns-b", "reclaimer", 4, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    let victim = &ends["victim"];
    let admission = victim.0.as_ref().expect("admitted again");
    assert_eq!(admission.0, "a");
    assert_eq!(admission.1[0]["cpu"], "f2");
    let (status, reason, message) = condition(victim, "Evicted");
    assert_eq!((status, reason), ("False", "QuotaReserved"));
    assert!(
        message.starts_with("Previously: Preempted to accommodate a workload"),
        "{message}"
    );
    let (status, reason, _) = condition(victim, "Preempted");
    assert_eq!((status, reason), ("False", "QuotaReserved"));
    let (status, reason, _) = condition(victim, "Requeued");
    assert_eq!((status, reason), ("True", "Preempted"));
    assert_eq!(victim.2, vec![("Preempted".to_string(), 1)]);
    assert_eq!(condition(victim, "Admitted").0, "True");
    let reclaimer = ends["reclaimer"].0.as_ref().expect("admitted");
    assert_eq!(
        (reclaimer.0.as_str(), reclaimer.1[0]["cpu"].as_str()),
        ("b", "f1")
    );
}

/// A Workload as `HoldAndDrain` left it: evicted for `reason`, the reservation gone,
/// `Requeued=False`.
fn drained(reason: &str, message: &str) -> String {
    format!(
        "status:
  conditions:
  - {{type: Evicted, status: 'True', reason: {reason}, message: {message}, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: Requeued, status: 'False', reason: {reason}, message: {message}, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: QuotaReserved, status: 'False', reason: PendingEvaluation, message: {message}, lastTransitionTime: '{ADMITTED_AT}'}}
  - {{type: Admitted, status: 'False', reason: NoReservation, message: The workload has no reservation, lastTransitionTime: '{ADMITTED_AT}'}}
  schedulingStats:
    evictions:
    - {{reason: {reason}, underlyingCause: '', count: 1}}
"
    )
}

#[test]
fn a_cluster_queue_resumed_after_hold_and_drain_requeues_and_admits_what_it_drained() {
    let story = [
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        workload(
            "ns-a",
            "w",
            4,
            &drained("ClusterQueueStopped", "The ClusterQueue is stopped"),
        ),
    ]
    .concat();
    let ends = both_ways(&story);
    let w = &ends["w"];
    assert_eq!(w.0.as_ref().expect("admitted").0, "a");
    assert_eq!(
        condition(w, "Requeued"),
        (
            "True",
            "ClusterQueueRestarted",
            "The ClusterQueue was restarted after being stopped"
        )
    );
    assert_eq!(
        condition(w, "Evicted"),
        (
            "False",
            "QuotaReserved",
            "Previously: The ClusterQueue is stopped"
        )
    );
}

#[test]
fn a_local_queue_resumed_after_hold_and_drain_requeues_and_admits_what_it_drained() {
    let story = [
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ", stopPolicy: None"),
        workload(
            "ns-a",
            "w",
            4,
            &drained("LocalQueueStopped", "The LocalQueue is stopped"),
        ),
    ]
    .concat();
    let ends = both_ways(&story);
    let w = &ends["w"];
    assert!(w.0.is_some(), "admitted: {w:#?}");
    assert_eq!(
        condition(w, "Requeued"),
        (
            "True",
            "LocalQueueRestarted",
            "The LocalQueue was restarted after being stopped"
        )
    );
}

#[test]
fn a_queue_still_draining_keeps_its_drained_workloads_out_and_drains_the_admitted_ones() {
    let story = [
        cluster_queue("a", &[("f1", 8)], "\n  stopPolicy: HoldAndDrain"),
        local_queue("ns-a", "a", ""),
        workload(
            "ns-a",
            "drained",
            4,
            &drained("ClusterQueueStopped", "The ClusterQueue is stopped"),
        ),
        workload("ns-a", "running", 4, &admitted_on("a", "f1", 4)),
    ]
    .concat();
    let ends = both_ways(&story);
    for name in ["drained", "running"] {
        let w = &ends[name];
        assert!(w.0.is_none(), "{name} holds no quota: {w:#?}");
        assert_eq!(
            condition(w, "Requeued").0,
            "False",
            "{name} waits for the queue"
        );
        assert_eq!(
            condition(w, "Evicted"),
            ("True", "ClusterQueueStopped", "The ClusterQueue is stopped")
        );
        assert_eq!(w.2, vec![("ClusterQueueStopped".to_string(), 1)]);
    }
}

#[test]
fn a_deactivated_workload_gives_its_quota_back_and_says_why() {
    let deactivated = workload("ns-a", "off", 4, &admitted_on("a", "f1", 4))
        .replace("  queueName: lq\n", "  queueName: lq\n  active: false\n");
    let story = [
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        deactivated,
        workload("ns-a", "next", 4, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    let off = &ends["off"];
    assert!(off.0.is_none(), "no reservation: {off:#?}");
    assert_eq!(
        condition(off, "Evicted"),
        ("True", "Deactivated", "The workload is deactivated")
    );
    assert_eq!(condition(off, "Requeued").0, "False");
    assert!(ends["next"].0.is_some(), "the freed quota is used");
}

/// A batch/v1 Job asking for `cpu`, with `extra` appended to its pod spec.
pub(super) fn job(ns: &str, name: &str, cpu: u32, pod_extra: &str) -> String {
    format!(
        "---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  uid: uid-{name}
  creationTimestamp: '{ADMITTED_AT}'
  labels: {{kueue.x-k8s.io/queue-name: lq}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never{pod_extra}
      containers:
      - name: c
        resources: {{requests: {{cpu: '{cpu}'}}}}
"
    )
}

#[test]
fn a_jobs_pod_priority_class_gives_its_workload_the_priority_that_preempts() {
    // `low` holds the whole queue at priority 0; the Job's pod template names PriorityClass
    // `high` (no WorkloadPriorityClass label), so its Workload preempts `low`.
    let story = [
        cluster_queue(
            "a",
            &[("f1", 4)],
            "\n  preemption: {withinClusterQueue: LowerPriority}",
        ),
        local_queue("ns-a", "a", ""),
        "---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 100
"
        .to_string(),
        workload("ns-a", "low", 4, &admitted_on("a", "f1", 4)),
        job("ns-a", "urgent", 4, "\n      priorityClassName: high"),
    ]
    .concat();
    let ends = both_ways(&story);
    let urgent = ends
        .iter()
        .find(|(n, _)| n.starts_with("job-urgent-"))
        .map(|(_, s)| s)
        .expect("the Job got a Workload");
    assert_eq!(urgent.0.as_ref().expect("admitted").0, "a");
    let low = &ends["low"];
    assert!(low.0.is_none(), "preempted: {low:#?}");
    assert_eq!(condition(low, "Preempted").1, "InClusterQueue");
    // The spec says where the priority came from, as upstream's v1beta1 writes it.
    let text = format!("{FLAVORS}{story}");
    let opts = ConvertOptions {
        now: 0,
        strict_namespace_selector: false,
    };
    let sim = Simulation::run(inventory(&text), &[], &opts).unwrap();
    let out = sim.output();
    let spec = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| {
            i["metadata"]["name"]
                .as_str()
                .unwrap()
                .starts_with("job-urgent-")
        })
        .map(|i| i["spec"].clone())
        .unwrap();
    assert_eq!(spec["priorityClassName"], "high");
    assert_eq!(spec["priority"], 100);
    assert_eq!(
        spec["priorityClassSource"],
        "scheduling.k8s.io/priorityclass"
    );
}

#[test]
fn a_workload_past_its_maximum_execution_time_is_deactivated_with_the_cause() {
    // Admitted an hour ago: `short` may run 10 minutes (5 of them used before), `long` two
    // hours.
    let with_limit = |name: &str, seconds: u32, extra_status: &str| {
        workload("ns-a", name, 2, &admitted_on("a", "f1", 2))
            .replace(
                "  queueName: lq\n",
                &format!("  queueName: lq\n  maximumExecutionTimeSeconds: {seconds}\n"),
            )
            .replace("status:\n", &format!("status:\n{extra_status}"))
    };
    let story = [
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        with_limit(
            "short",
            600,
            "  accumulatedPastExexcutionTimeSeconds: 300\n",
        ),
        with_limit("long", 7200, ""),
        workload("ns-a", "next", 2, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    let short = &ends["short"];
    assert!(short.0.is_none(), "no reservation: {short:#?}");
    let reason = "DeactivatedDueToMaximumExecutionTimeExceeded";
    assert_eq!(
        condition(short, "Evicted"),
        (
            "True",
            reason,
            "The workload is deactivated due to exceeding the maximum execution time"
        )
    );
    assert_eq!(condition(short, "Requeued").0, "False");
    assert!(
        !short.1.iter().any(|c| c.0 == "DeactivationTarget"),
        "the mark goes with the eviction: {short:#?}"
    );
    assert_eq!(
        short.2,
        vec![("Deactivated/MaximumExecutionTimeExceeded".to_string(), 1)]
    );
    // The mark cleared the 300 s; the hour of this admission is counted when it ends.
    assert_eq!(short.3, Some(3600));
    assert!(ends["long"].0.is_some(), "within its limit");
    assert_eq!(ends["long"].3, None);
    assert!(ends["next"].0.is_some(), "the freed quota is used");
}

#[test]
fn the_controller_looks_again_when_the_maximum_execution_time_runs_out() {
    // Admitted an hour before the world's clock with two hours allowed: nothing yet; once
    // the clock passes the limit, the tick alone brings the deactivation.
    let text = [
        FLAVORS.to_string(),
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        workload("ns-a", "long", 2, &admitted_on("a", "f1", 2)).replace(
            "  queueName: lq\n",
            "  queueName: lq\n  maximumExecutionTimeSeconds: 7200\n",
        ),
    ]
    .concat();
    let mut world = world_of(&text);
    let actions = world.start();
    world.settle(actions);
    let evicted = |world: &World| {
        world
            .workload("ns-a", "long")
            .status
            .as_ref()
            .and_then(|s| s.condition("Evicted").map(|c| c.reason.clone()))
    };
    world.advance(std::time::Duration::from_secs(3599));
    let actions = world.tick();
    world.settle(actions);
    assert_eq!(evicted(&world), None, "one second left");
    world.advance(std::time::Duration::from_secs(1));
    let actions = world.tick();
    world.settle(actions);
    assert_eq!(
        evicted(&world).as_deref(),
        Some("DeactivatedDueToMaximumExecutionTimeExceeded")
    );
    assert!(!world.workload("ns-a", "long").spec.active);
    assert_eq!(
        world.events_of("long").first().map(|e| e.0.as_str()),
        Some("MaximumExecutionTimeExceeded")
    );
}

#[test]
fn a_job_resized_after_admission_gets_a_new_workload() {
    // The Job runs with the Workload admitted for one pod, then asks for two: upstream stops
    // it, deletes the Workload and makes a new one, admitted for two pods.
    let one = job("ns-a", "resized", 2, "").replace("  suspend: true\n", "  parallelism: 1\n");
    let running = one.replace("  parallelism: 1\n", "  parallelism: 2\n  suspend: false\n");
    let job_obj: k8s_openapi::api::batch::v1::Job =
        serde_yaml::from_str(one.trim_start_matches("---\n")).unwrap();
    let mut wl =
        kubectl_kueue::manifests::job::workload_for_job(&job_obj, &Default::default()).unwrap();
    wl.metadata.uid = Some("uid-old".into());
    let mut wl_value = serde_json::to_value(&wl).unwrap();
    wl_value["apiVersion"] = "kueue.x-k8s.io/v1beta1".into();
    wl_value["kind"] = "Workload".into();
    let status: serde_yaml::Value = serde_yaml::from_str(&admitted_on("a", "f1", 2)).unwrap();
    wl_value["status"] = serde_json::to_value(&status["status"]).unwrap();
    let name = wl.metadata.name.clone().unwrap();
    let story = [
        cluster_queue("a", &[("f1", 4)], ""),
        local_queue("ns-a", "a", ""),
        format!("---\n{}", serde_yaml::to_string(&wl_value).unwrap()),
        running,
    ]
    .concat();
    let ends = both_ways(&story);
    let new = &ends[&name];
    let admission = new.0.as_ref().expect("the new Workload is admitted");
    assert_eq!(admission.0, "a");
    assert!(
        new.2.is_empty() && !new.1.iter().any(|c| c.0 == "Evicted"),
        "a new Workload, not the old one evicted: {new:#?}"
    );
}

#[test]
fn a_job_with_min_parallelism_is_admitted_with_the_pods_that_fit() {
    // Four pods of one cpu asked for, at least one; two cpus free.
    let partial = job("ns-a", "partial", 1, "")
        .replace(
            "  labels: {kueue.x-k8s.io/queue-name: lq}\n",
            "  labels: {kueue.x-k8s.io/queue-name: lq}\n  annotations: {kueue.x-k8s.io/job-min-parallelism: '1'}\n",
        )
        .replace("  suspend: true\n", "  suspend: true\n  parallelism: 4\n  completions: 4\n");
    let story = [
        cluster_queue("a", &[("f1", 2)], ""),
        local_queue("ns-a", "a", ""),
        partial,
    ]
    .concat();
    let text = format!("{FLAVORS}{story}");
    let ends = both_ways(&story);
    let w = ends
        .iter()
        .find(|(n, _)| n.starts_with("job-partial-"))
        .map(|(_, s)| s)
        .unwrap();
    assert!(w.0.is_some(), "admitted: {w:#?}");
    // The admitted count, offline (the controller agreed on the flavors and conditions).
    let opts = ConvertOptions {
        now: 0,
        strict_namespace_selector: false,
    };
    let out = Simulation::run(inventory(&text), &[], &opts)
        .unwrap()
        .output();
    let item = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "Workload")
        .unwrap()
        .clone();
    assert_eq!(
        item["status"]["admission"]["podSetAssignments"][0]["count"],
        2
    );
}

#[test]
fn a_terminating_cluster_queue_admits_nothing_new_and_keeps_what_it_admitted() {
    // Deleted while `running` holds quota in it: its finalizer keeps it, inactive.
    let terminating = cluster_queue("a", &[("f1", 8)], "").replace(
        "metadata: {name: a}\n",
        "metadata: {name: a, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [kueue.x-k8s.io/resource-in-use]}\n",
    );
    let story = [
        terminating,
        local_queue("ns-a", "a", ""),
        workload("ns-a", "running", 4, &admitted_on("a", "f1", 4)),
        workload("ns-a", "waiting", 4, ""),
    ]
    .concat();
    let ends = both_ways(&story);
    // Nothing new: the quota is free (8 cpu, 4 used) but the queue is inactive, and the
    // Workload says so as upstream's scheduler does (`Suspended`, its granular reason).
    let waiting = &ends["waiting"];
    assert!(waiting.0.is_none(), "not admitted: {waiting:#?}");
    assert_eq!(
        condition(waiting, "QuotaReserved"),
        ("False", "Suspended", "ClusterQueue a is inactive")
    );
    assert_eq!(condition(waiting, "Admitted").0, "False");
    // What it admitted runs on: admission, conditions and counts as they were.
    let running = &ends["running"];
    let admission = running.0.as_ref().expect("keeps its admission");
    assert_eq!(
        (admission.0.as_str(), admission.1[0]["cpu"].as_str()),
        ("a", "f1")
    );
    assert_eq!(
        condition(running, "Admitted"),
        ("True", "Admitted", "The workload is admitted")
    );
    assert_eq!(condition(running, "QuotaReserved").0, "True");
    assert!(
        !running
            .1
            .iter()
            .any(|c| c.0 == "Evicted" || c.0 == "Preempted"),
        "not evicted: {running:#?}"
    );
    assert!(running.2.is_empty());
}

#[test]
fn the_maximum_execution_time_counts_across_a_preemption_and_readmission() {
    // `victim` (90 minutes allowed) ran an hour on b's f1 when b's own workload reclaims it;
    // it is admitted again at once on a's f2, with the hour counted. Half an hour later its
    // 90 minutes are used up: deactivated. Each step is compared with `simulate` on the
    // objects the controller left, at the same time.
    let victim = workload("ns-a", "victim", 4, &admitted_on("a", "f1", 4)).replace(
        "  queueName: lq\n",
        "  queueName: lq\n  maximumExecutionTimeSeconds: 5400\n",
    );
    let base = [
        FLAVORS.to_string(),
        cluster_queue("a", &[("f1", 0), ("f2", 4)], ""),
        cluster_queue(
            "b",
            &[("f1", 4)],
            "\n  preemption: {reclaimWithinCohort: Any}",
        ),
        local_queue("ns-a", "a", ""),
        local_queue("ns-b", "b", ""),
    ]
    .concat();
    let text = [base.clone(), victim, workload("ns-b", "reclaimer", 4, "")].concat();
    // Step 1: preempted and admitted again, both ways.
    let mut world = world_of(&text);
    let actions = world.start();
    world.settle(actions);
    let live = shapes(&world);
    assert_eq!(simulated(&text, world.now.wall), live, "step 1 differs");
    let v = &live["victim"];
    assert_eq!(v.0.as_ref().expect("admitted again").1[0]["cpu"], "f2");
    assert_eq!(condition(v, "Admitted").0, "True");
    assert_eq!(condition(v, "Evicted").1, "QuotaReserved");
    assert_eq!(v.3, Some(3600), "the first admission's hour is counted");
    // Step 2: one second short of the limit (3600 + 1799 s), nothing.
    let step = |world: &mut World, seconds: u64| {
        let before = files_of(world, &base, None);
        world.advance(std::time::Duration::from_secs(seconds));
        let actions = world.tick();
        world.settle(actions);
        let live = shapes(world);
        assert_eq!(
            simulated(&before, world.now.wall),
            live,
            "after {seconds} s: simulate and the controller disagree"
        );
        live
    };
    let live = step(&mut world, 1799);
    let v = &live["victim"];
    assert!(v.0.is_some(), "within its limit: {v:#?}");
    assert!(!v.1.iter().any(|c| c.0 == "DeactivationTarget"));
    // Step 3: the limit is reached.
    let live = step(&mut world, 1);
    let v = &live["victim"];
    assert!(v.0.is_none(), "released: {v:#?}");
    assert_eq!(
        condition(v, "Evicted"),
        (
            "True",
            "DeactivatedDueToMaximumExecutionTimeExceeded",
            "The workload is deactivated due to exceeding the maximum execution time"
        )
    );
    assert_eq!(condition(v, "Requeued").0, "False");
    assert_eq!(
        v.2,
        vec![
            ("Preempted".to_string(), 1),
            ("Deactivated/MaximumExecutionTimeExceeded".to_string(), 1),
        ]
    );
    // The mark cleared the hour; the half hour of the second admission is counted when it
    // ends (upstream's SyncAdmittedCondition).
    assert_eq!(v.3, Some(1800));
    assert!(!world.workload("ns-a", "victim").spec.active);
}
