//! `simulate` says what the controller would write (issue 12, "How it is checked"): each
//! story runs on a real API server with `kubectl-kueue run-controller`, step by step, and
//! every step is also decided offline. Before a step's change, the objects as the API server
//! holds them (ResourceFlavors, ClusterQueues, LocalQueues, Workloads with their statuses)
//! are read back, the change is made to that copy, and `simulate -o json` runs on it (level
//! triggered: the same state, the same change, so the same transition). The step is done
//! when every live Workload's status has the shape `simulate` wrote
//! ([`crate::support::shape`]: admission with flavors and counts, every condition's type,
//! status, reason and message, `schedulingStats.evictions`, `requeueState`, no times; the
//! seconds of execution accumulated by an eviction within one, see [`agree`]), and keeps it
//! for two seconds.
//!
//! - preempted and admitted again: a Workload borrowing its cohort's quota is preempted when
//!   the lender's own Workload arrives, then admitted again once that one is gone, carrying
//!   `Evicted`/`Preempted` `False` `QuotaReserved` `Previously: ...`, `Requeued` and one
//!   eviction;
//! - `HoldAndDrain` then resumed: a ClusterQueue with an admitted and a pending Workload is
//!   stopped (the admitted one evicted, `ClusterQueueStopped`) and runs again (requeued,
//!   `ClusterQueueRestarted`, admitted). With a held Workload that fits the freed quota the
//!   two disagree (`hold_and_drain_then_resumed_with_a_held_workload_that_fits`, ignored).
#![cfg(feature = "cli")]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::apply::{apply_yaml, documents, install_crds, resolve};
use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::shape::{Shape, shape};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use kube::core::GroupVersionKind;
use kubectl_kueue::api::{Workload, WorkloadStatus};

/// How long a step may take to settle live (a loaded 2-core machine).
const T: Duration = Duration::from_secs(90);
/// How long a settled step must stay as `simulate` says.
const STABLE: Duration = Duration::from_secs(2);

const FLAVOR: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f1}
";

/// Every Workload's shape by `namespace/name`.
type Shapes = BTreeMap<String, Shape>;

/// The kinds `simulate` is given, as the API server stores them.
const KINDS: [&str; 4] = ["ResourceFlavor", "ClusterQueue", "LocalQueue", "Workload"];

/// One change to the cluster, made live and to the offline copy alike.
enum Change {
    /// Create the objects of this YAML.
    Create(String),
    /// Delete Workload `namespace/name`.
    DeleteWorkload(&'static str, &'static str),
    /// Merge-patch ClusterQueue `name`'s spec with this JSON.
    PatchClusterQueue(&'static str, serde_json::Value),
}

struct Story {
    cluster: Cluster,
    client: kube::Client,
    ctl: Controller,
    dir: tempfile::TempDir,
    steps: usize,
}

impl Story {
    /// A private API server with Kueue's CRDs, `setup` applied, the controller running.
    async fn start(setup: &str) -> Story {
        let cluster = ClusterBuilder::apiserver().start();
        let client = cluster.client();
        install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
            .await
            .unwrap();
        apply_yaml(&client, setup, "default").await.unwrap();
        let mut ctl = start_controller(&cluster, "controller", &[]);
        ctl.wait_ready(T);
        Story {
            cluster,
            client,
            ctl,
            dir: tempfile::tempdir().unwrap(),
            steps: 0,
        }
    }

    /// The objects `simulate` reads, as the API server holds them now.
    async fn objects(&self) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        for kind in KINDS {
            let gvk = GroupVersionKind::gvk("kueue.x-k8s.io", "v1beta1", kind);
            let (ar, _) = resolve(&self.client, &gvk).await.unwrap();
            let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
            for mut o in api.list(&ListParams::default()).await.unwrap().items {
                o.metadata.managed_fields = None;
                let mut v = serde_json::to_value(&o).unwrap();
                v["apiVersion"] = "kueue.x-k8s.io/v1beta1".into();
                v["kind"] = kind.into();
                out.push(v);
            }
        }
        out
    }

    /// What `simulate -o json` makes of `objects`, at the current time.
    fn simulate(&self, objects: Vec<serde_json::Value>) -> Shapes {
        let input = self.dir.path().join(format!("step-{}.yaml", self.steps));
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects});
        std::fs::write(&input, serde_json::to_string_pretty(&list).unwrap()).unwrap();
        let now = k8s_openapi::jiff::Timestamp::now().to_string();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
            .args(["simulate", "-o", "json", "--now", &now, "-f"])
            .arg(&input)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "simulate on {}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "Workload")
            .map(|i| {
                let st: WorkloadStatus =
                    serde_json::from_value(i["status"].clone()).unwrap_or_default();
                (key(&i["metadata"]), shape(&st))
            })
            .collect()
    }

    /// Every live Workload's shape.
    async fn live(&self) -> Shapes {
        Api::<Workload>::all(self.client.clone())
            .list(&ListParams::default())
            .await
            .map(|l| l.items)
            .unwrap_or_default()
            .iter()
            .map(|w| {
                let meta = serde_json::to_value(&w.metadata).unwrap();
                (key(&meta), shape(&w.status.clone().unwrap_or_default()))
            })
            .collect()
    }

    async fn make(&self, change: &Change) {
        match change {
            Change::Create(yaml) => {
                apply_yaml(&self.client, yaml, "default").await.unwrap();
            }
            Change::DeleteWorkload(ns, name) => {
                Api::<Workload>::namespaced(self.client.clone(), ns)
                    .delete(name, &DeleteParams::default())
                    .await
                    .unwrap();
            }
            Change::PatchClusterQueue(name, spec) => {
                let gvk = GroupVersionKind::gvk("kueue.x-k8s.io", "v1beta1", "ClusterQueue");
                let (ar, _) = resolve(&self.client, &gvk).await.unwrap();
                Api::<DynamicObject>::all_with(self.client.clone(), &ar)
                    .patch(
                        name,
                        &PatchParams::default(),
                        &Patch::Merge(serde_json::json!({ "spec": spec })),
                    )
                    .await
                    .unwrap();
            }
        }
    }

    /// One step both ways: `simulate` on the objects as they are plus `change`, then the
    /// change live; returns the shapes once the live Workloads have settled on them.
    async fn step(&mut self, what: &str, change: Change) -> Shapes {
        self.steps += 1;
        let mut objects = self.objects().await;
        made_offline(&mut objects, &change);
        let expected = self.simulate(objects);
        self.make(&change).await;
        let deadline = Instant::now() + T;
        let mut since: Option<Instant> = None;
        loop {
            let live = self.live().await;
            if agree(&live, &expected) {
                let t = *since.get_or_insert_with(Instant::now);
                if t.elapsed() >= STABLE {
                    return expected;
                }
            } else if let Some(t) = since.take() {
                panic!(
                    "{what}: live left simulate's result after {:?}\nlive {live:#?}\nsimulate {expected:#?}\n{}",
                    t.elapsed(),
                    self.ctl.proc.log_tail(80)
                );
            }
            if Instant::now() > deadline {
                self.cluster.print_logs(30);
                panic!(
                    "{what}: live and simulate disagree after {T:?}\nlive {live:#?}\nsimulate {expected:#?}\ncontroller log:\n{}",
                    self.ctl.proc.log_tail(80)
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn done(mut self) {
        assert!(
            self.ctl.proc.exited().is_none(),
            "{}",
            self.ctl.proc.log_tail(40)
        );
    }
}

/// The same Workloads with the same shapes, but for the seconds of execution accumulated
/// over earlier admissions, which may differ by one: live counts them when the eviction is
/// written, `simulate` at its `--now`, taken just before the change is made.
fn agree(live: &Shapes, offline: &Shapes) -> bool {
    live.len() == offline.len()
        && live.iter().zip(offline).all(|((lk, l), (ok, o))| {
            let seconds = match (l.3, o.3) {
                (Some(a), Some(b)) => (a - b).abs() <= 1,
                (a, b) => a == b,
            };
            lk == ok && seconds && (&l.0, &l.1, &l.2, &l.4) == (&o.0, &o.1, &o.2, &o.4)
        })
}

/// `namespace/name` of an object's metadata.
fn key(meta: &serde_json::Value) -> String {
    format!(
        "{}/{}",
        meta["namespace"].as_str().unwrap_or_default(),
        meta["name"].as_str().unwrap_or_default()
    )
}

/// `change` made to the objects read back.
fn made_offline(objects: &mut Vec<serde_json::Value>, change: &Change) {
    match change {
        Change::Create(yaml) => objects.extend(documents(yaml).unwrap()),
        Change::DeleteWorkload(ns, name) => {
            let k = format!("{ns}/{name}");
            let before = objects.len();
            objects.retain(|o| !(o["kind"] == "Workload" && key(&o["metadata"]) == k));
            assert_eq!(objects.len() + 1, before, "{k} was there");
        }
        Change::PatchClusterQueue(name, spec) => {
            let cq = objects
                .iter_mut()
                .find(|o| o["kind"] == "ClusterQueue" && o["metadata"]["name"] == *name)
                .unwrap_or_else(|| panic!("ClusterQueue {name} was there"));
            for (k, v) in spec.as_object().unwrap() {
                cq["spec"][k] = v.clone();
            }
        }
    }
}

fn namespace(ns: &str) -> String {
    format!("---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n")
}

/// ClusterQueue `name` with `nominal` cpu on f1; `extra` goes into its spec.
fn cluster_queue(name: &str, nominal: u32, extra: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  namespaceSelector: {{}}{extra}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f1
      resources: [{{name: cpu, nominalQuota: {nominal}}}]
"
    )
}

fn local_queue(ns: &str, cq: &str) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: {cq}}}
"
    )
}

/// A plain Workload of one pod asking for `cpu`, at `priority`.
fn workload(ns: &str, name: &str, cpu: u32, priority: i32) -> String {
    format!(
        "---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: {ns}}}
spec:
  queueName: lq
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{cpu}'}}}}}}]
"
    )
}

/// (status, reason, message) of condition `type_`.
fn condition<'a>(s: &'a Shape, type_: &str) -> (&'a str, &'a str, &'a str) {
    let c =
        s.1.iter()
            .find(|c| c.0 == type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {s:#?}"));
    (c.1.as_str(), c.2.as_str(), c.3.as_str())
}

/// (status, reason) of condition `type_`.
fn status_reason<'a>(s: &'a Shape, type_: &str) -> (&'a str, &'a str) {
    let (status, reason, _) = condition(s, type_);
    (status, reason)
}

/// The ClusterQueue and cpu flavor of an admission.
fn admitted_on(s: &Shape) -> Option<(&str, &str)> {
    s.0.as_ref()
        .map(|(cq, podsets)| (cq.as_str(), podsets[0]["cpu"].as_str()))
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preempted_and_admitted_again_live_as_simulate_says() {
    // `a` owns nothing and borrows `b`'s four cpus; `b` takes them back when it needs them.
    let setup = [
        FLAVOR.to_string(),
        namespace("ns-a"),
        namespace("ns-b"),
        cluster_queue("a", 0, "\n  cohort: c"),
        cluster_queue(
            "b",
            4,
            "\n  cohort: c\n  preemption: {reclaimWithinCohort: Any}",
        ),
        local_queue("ns-a", "a"),
        local_queue("ns-b", "b"),
    ]
    .concat();
    let mut story = Story::start(&setup).await;

    let s = story
        .step(
            "the borrower arrives",
            Change::Create(workload("ns-a", "borrower", 4, 0)),
        )
        .await;
    assert_eq!(admitted_on(&s["ns-a/borrower"]), Some(("a", "f1")));

    let s = story
        .step(
            "the lender's own Workload arrives",
            Change::Create(workload("ns-b", "reclaimer", 4, 100)),
        )
        .await;
    assert_eq!(admitted_on(&s["ns-b/reclaimer"]), Some(("b", "f1")));
    let borrower = &s["ns-a/borrower"];
    assert_eq!(admitted_on(borrower), None, "preempted: {borrower:#?}");
    assert_eq!(condition(borrower, "Evicted").0, "True");
    assert_eq!(
        status_reason(borrower, "Preempted"),
        ("True", "InCohortReclamation")
    );
    assert_eq!(borrower.2, vec![("Preempted".to_string(), 1)]);

    let s = story
        .step(
            "the lender's Workload is gone",
            Change::DeleteWorkload("ns-b", "reclaimer"),
        )
        .await;
    let borrower = &s["ns-a/borrower"];
    assert_eq!(admitted_on(borrower), Some(("a", "f1")), "{borrower:#?}");
    assert_eq!(condition(borrower, "Admitted").0, "True");
    for c in ["Evicted", "Preempted"] {
        let (status, reason, message) = condition(borrower, c);
        assert_eq!((status, reason), ("False", "QuotaReserved"), "{c}");
        assert!(
            message.starts_with("Previously: Preempted to accommodate a workload"),
            "{c}: {message}"
        );
    }
    assert_eq!(status_reason(borrower, "Requeued"), ("True", "Preempted"));
    assert_eq!(borrower.2, vec![("Preempted".to_string(), 1)]);
    story.done();
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hold_and_drain_then_resumed_live_as_simulate_says() {
    // The held Workload asks for more than the queue has, so only the drained one can use
    // the quota when the queue runs again.
    hold_and_drain_then_resumed(6).await;
}

/// Known disagreement: the held Workload fits the quota the drained one gives back. On the
/// resume the controller runs a scheduling cycle at once, before the drained Workload's
/// `Requeued=True` (`ClusterQueueRestarted`) write comes back, so the held one (lower
/// priority, already queued) takes the quota and the drained one stays pending; `simulate`
/// requeues the drained Workloads before its first cycle and admits the higher priority one.
/// Upstream's scheduler and workload reconciler race there too (the requeue is a write).
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[cfg_attr(
    not(skip_cluster_tests),
    ignore = "known disagreement on the resume (see the doc): cargo test --test it e2e_parity -- --ignored"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hold_and_drain_then_resumed_with_a_held_workload_that_fits() {
    hold_and_drain_then_resumed(4).await;
}

/// A ClusterQueue of 4 cpus runs `running` (4 cpus, priority 100) and holds `waiting`
/// (`waiting_cpu`, priority 0); it is stopped with `HoldAndDrain`, then runs again.
async fn hold_and_drain_then_resumed(waiting_cpu: u32) {
    let setup = [
        FLAVOR.to_string(),
        namespace("ns-d"),
        cluster_queue("d", 4, ""),
        local_queue("ns-d", "d"),
    ]
    .concat();
    let mut story = Story::start(&setup).await;
    let s = story
        .step(
            "the first Workload arrives",
            Change::Create(workload("ns-d", "running", 4, 100)),
        )
        .await;
    assert_eq!(admitted_on(&s["ns-d/running"]), Some(("d", "f1")));
    let s = story
        .step(
            "the second Workload arrives",
            Change::Create(workload("ns-d", "waiting", waiting_cpu, 0)),
        )
        .await;
    assert_eq!(admitted_on(&s["ns-d/waiting"]), None);

    let s = story
        .step(
            "the ClusterQueue is stopped",
            Change::PatchClusterQueue("d", serde_json::json!({"stopPolicy": "HoldAndDrain"})),
        )
        .await;
    let running = &s["ns-d/running"];
    assert_eq!(admitted_on(running), None, "drained: {running:#?}");
    assert_eq!(
        condition(running, "Evicted"),
        ("True", "ClusterQueueStopped", "The ClusterQueue is stopped")
    );
    assert_eq!(
        status_reason(running, "Requeued"),
        ("False", "ClusterQueueStopped")
    );
    assert_eq!(running.2, vec![("ClusterQueueStopped".to_string(), 1)]);
    let waiting = &s["ns-d/waiting"];
    assert_eq!(admitted_on(waiting), None, "held: {waiting:#?}");
    assert!(waiting.2.is_empty(), "never evicted: {waiting:#?}");

    let s = story
        .step(
            "the ClusterQueue runs again",
            Change::PatchClusterQueue("d", serde_json::json!({"stopPolicy": "None"})),
        )
        .await;
    let running = &s["ns-d/running"];
    assert_eq!(admitted_on(running), Some(("d", "f1")), "{running:#?}");
    assert_eq!(
        condition(running, "Requeued"),
        (
            "True",
            "ClusterQueueRestarted",
            "The ClusterQueue was restarted after being stopped"
        )
    );
    assert_eq!(
        condition(running, "Evicted"),
        (
            "False",
            "QuotaReserved",
            "Previously: The ClusterQueue is stopped"
        )
    );
    assert_eq!(running.2, vec![("ClusterQueueStopped".to_string(), 1)]);
    assert_eq!(admitted_on(&s["ns-d/waiting"]), None, "no room");
    story.done();
}
