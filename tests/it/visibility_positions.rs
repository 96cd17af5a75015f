//! The visibility API's lists computed from the engine (`view::pending_workloads`), on
//! manifests: upstream's positions, pages and not-found rules.

use kubectl_kueue::api::visibility::{DEFAULT_LIMIT, MAX_LIMIT, Page};
use kubectl_kueue::view::pending_workloads::{Queue, item_metadata, pending_workloads};
use kubectl_kueue::view::snapshot::Snapshot;

fn workload(name: &str, queue: &str, priority: i32, created: &str) -> String {
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: {name}
  namespace: team
  creationTimestamp: '{created}'
  ownerReferences: [{{ apiVersion: batch/v1, kind: Job, name: job-{name}, uid: uid-{name}, controller: true }}]
spec:
  queueName: {queue}
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{{ name: c, image: x, resources: {{ requests: {{ cpu: '1' }} }} }}]
---
"
    )
}

fn snapshot() -> Snapshot {
    let mut text = String::from(
        "apiVersion: v1
kind: Namespace
metadata: { name: team }
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: { name: default }
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: { name: cq }
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{ name: default, resources: [{ name: cpu, nominalQuota: '0' }] }]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: { name: lq1, namespace: team }
spec: { clusterQueue: cq }
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: { name: lq2, namespace: team }
spec: { clusterQueue: cq }
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: { name: orphan, namespace: team }
spec: { clusterQueue: missing }
---
",
    );
    text.push_str(&workload("a", "lq1", 0, "2026-01-01T00:00:01Z"));
    text.push_str(&workload("b", "lq2", 0, "2026-01-01T00:00:02Z"));
    text.push_str(&workload("c", "lq1", 10, "2026-01-01T00:00:03Z"));
    text.push_str(&workload("d", "lq1", 0, "2026-01-01T00:00:04Z"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.yaml");
    std::fs::write(&path, text).unwrap();
    let inv = kubectl_kueue::manifests::load(&[path.display().to_string()]).unwrap();
    Snapshot::from_inventory(inv, 1_767_225_600_000).unwrap()
}

fn list(snap: &Snapshot, queue: Queue, page: Page) -> Option<Vec<(String, i32, i32, String)>> {
    let lookup = |ns: &str, name: &str| {
        snap.inventory
            .workloads
            .iter()
            .find(|w| {
                w.obj.metadata.name.as_deref() == Some(name)
                    && w.obj.metadata.namespace.as_deref() == Some(ns)
            })
            .map(|w| item_metadata(&w.obj.metadata))
    };
    pending_workloads(&snap.engine, &queue, page, &lookup).map(|items| {
        items
            .into_iter()
            .map(|i| {
                (
                    i.metadata.name.unwrap(),
                    i.position_in_cluster_queue,
                    i.position_in_local_queue,
                    i.local_queue_name,
                )
            })
            .collect()
    })
}

fn row(name: &str, cq: i32, lq: i32, queue: &str) -> (String, i32, i32, String) {
    (name.to_string(), cq, lq, queue.to_string())
}

fn cq() -> Queue {
    Queue::ClusterQueue("cq".into())
}

fn lq(name: &str) -> Queue {
    Queue::LocalQueue {
        namespace: "team".into(),
        name: name.into(),
    }
}

#[test]
fn a_cluster_queue_lists_by_priority_then_creation_with_local_queue_positions() {
    let snap = snapshot();
    let all = vec![
        row("c", 0, 0, "lq1"),
        row("a", 1, 1, "lq1"),
        row("b", 2, 0, "lq2"),
        row("d", 3, 2, "lq1"),
    ];
    assert_eq!(list(&snap, cq(), Page::default()).unwrap(), all);
    // A page keeps the whole list's positions.
    assert_eq!(
        list(&snap, cq(), Page::bounded(Some(2), Some(1))).unwrap(),
        all[1..3].to_vec()
    );
    assert_eq!(
        list(&snap, cq(), Page::bounded(Some(0), None)).unwrap(),
        vec![]
    );
    assert_eq!(
        list(&snap, cq(), Page::bounded(None, Some(10))).unwrap(),
        vec![]
    );
}

#[test]
fn a_local_queue_lists_its_own_entries_and_pages_among_them() {
    let snap = snapshot();
    assert_eq!(
        list(&snap, lq("lq1"), Page::default()).unwrap(),
        vec![
            row("c", 0, 0, "lq1"),
            row("a", 1, 1, "lq1"),
            row("d", 3, 2, "lq1")
        ]
    );
    assert_eq!(
        list(&snap, lq("lq1"), Page::bounded(Some(1), Some(1))).unwrap(),
        vec![row("a", 1, 1, "lq1")]
    );
    assert_eq!(
        list(&snap, lq("lq2"), Page::default()).unwrap(),
        vec![row("b", 2, 0, "lq2")]
    );
}

#[test]
fn unknown_queues_are_not_found_and_a_queue_without_its_cluster_queue_is_empty() {
    let snap = snapshot();
    assert_eq!(
        list(&snap, Queue::ClusterQueue("nope".into()), Page::default()),
        None
    );
    assert_eq!(list(&snap, lq("nope"), Page::default()), None);
    assert_eq!(list(&snap, lq("orphan"), Page::default()), Some(vec![]));
}

#[test]
fn items_carry_upstreams_metadata_only() {
    let snap = snapshot();
    let lookup = |_: &str, name: &str| {
        snap.inventory
            .workloads
            .iter()
            .find(|w| w.obj.metadata.name.as_deref() == Some(name))
            .map(|w| item_metadata(&w.obj.metadata))
    };
    let items = pending_workloads(&snap.engine, &cq(), Page::default(), &lookup).unwrap();
    let c = serde_json::to_value(&items[0]).unwrap();
    assert_eq!(
        c,
        serde_json::json!({
            "metadata": {
                "name": "c", "namespace": "team", "creationTimestamp": "2026-01-01T00:00:03Z",
                "ownerReferences": [{ "apiVersion": "batch/v1", "kind": "Job", "name": "job-c", "uid": "uid-c" }],
            },
            "priority": 10, "localQueueName": "lq1",
            "positionInClusterQueue": 0, "positionInLocalQueue": 0,
        })
    );
}

#[test]
fn pages_are_bounded_as_upstreams() {
    assert_eq!(
        Page::bounded(None, None),
        Page {
            limit: DEFAULT_LIMIT as usize,
            offset: 0
        }
    );
    assert_eq!(
        Page::bounded(Some(-5), Some(-1)),
        Page {
            limit: 0,
            offset: 0
        }
    );
    assert_eq!(
        Page::bounded(Some(i64::MAX), Some(3)),
        Page {
            limit: MAX_LIMIT as usize,
            offset: 3
        }
    );
}
