//! Node objects read into the plain data the capacity checks use ([`crate::view::capacity`],
//! `explain`'s node check): name, labels, whether it is cordoned, allocatable per resource,
//! and the pods running on it ([`RunningPod`]: Pods with `spec.nodeName`, not finished).
//!
//! Invariants:
//! - Allocatable (else capacity, for Node manifests written by hand) is parsed exactly and
//!   rounded **down** to the resource's scheduling unit, while requests and quota round up
//!   ([`crate::scheduler::quantity::parse_amount`]): a node never looks bigger than it is, so a
//!   check never says "fits" when the node is a fraction short.
//! - A quantity that is not one, or a negative one, is an [`InputError`] naming the file, the
//!   Node and the field; nothing is skipped silently.
//! - A Node without `status.allocatable` and `status.capacity` has `allocatable: None`
//!   (its size is unknown), never zero of everything.
//! - A running pod is a Pod bound to the node (`spec.nodeName`) whose phase is not
//!   `Succeeded` or `Failed`, whatever else it is (a bound pod still `Pending` holds its room,
//!   as the scheduler counts it). Its requests are Kubernetes' effective pod requests
//!   ([`super::requests::pod_requests`] on the spec as stored: containers summed, init
//!   containers by their peak, sidecars alongside, pod-level requests, overhead), rounded up.
//!   A Pod bound to a node the input does not have is not counted. The workload it belongs to
//!   is found after conversion ([`assign_workloads`]).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::error::InputError;
use super::inventory::Inventory;
use super::key::namespace_of;
use super::requests::{RequestContext, pod_requests};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::quantity::{Amount, parse_amount};

/// One Node, as the capacity checks read it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeInfo {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// `spec.unschedulable` (cordoned): takes no new pods.
    pub unschedulable: bool,
    /// Per resource, in scheduling units rounded down; `None` when the Node has no status.
    pub allocatable: Option<BTreeMap<String, Amount>>,
    /// The pods bound to it and not finished, in input order.
    pub pods: Vec<RunningPod>,
}

/// A pod bound to a node, as the capacity checks read it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunningPod {
    /// `namespace/name`.
    pub name: String,
    pub namespace: String,
    /// `(kind, name)` of its owners, and `("Pod", its own name)` (a Workload of a plain Pod
    /// is owned by the Pod).
    pub owners: Vec<(String, String)>,
    /// Label `kueue.x-k8s.io/podset`, when Kueue set it.
    pub pod_set: Option<String>,
    /// The Workload it belongs to (one of whose owners is among its owners), when known.
    pub workload: Option<WorkloadKey>,
    /// Effective requests, rounded up.
    pub requests: BTreeMap<String, Amount>,
}

/// The label Kueue puts on the pods of each pod set.
pub const POD_SET_LABEL: &str = "kueue.x-k8s.io/podset";

impl NodeInfo {
    /// A schedulable node with these labels and allocatable amounts (for tests and builders).
    pub fn new(name: &str, labels: &[(&str, &str)], allocatable: &[(&str, i64)]) -> NodeInfo {
        NodeInfo {
            name: name.to_string(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            unschedulable: false,
            allocatable: Some(
                allocatable
                    .iter()
                    .map(|(r, v)| (r.to_string(), Amount::new(*v)))
                    .collect(),
            ),
            pods: Vec::new(),
        }
    }

    /// A pod of `workload` (namespace/name) requesting `requests`, running on this node.
    pub fn running(mut self, workload: Option<(&str, &str)>, requests: &[(&str, i64)]) -> Self {
        let i = self.pods.len();
        let namespace = workload.map_or("default", |w| w.0).to_string();
        self.pods.push(RunningPod {
            name: format!("{namespace}/{}-pod-{i}", self.name),
            namespace,
            workload: workload.map(|(ns, name)| WorkloadKey {
                namespace: ns.to_string(),
                name: name.to_string(),
            }),
            requests: requests
                .iter()
                .map(|(r, v)| (r.to_string(), Amount::new(*v)))
                .collect(),
            ..Default::default()
        });
        self
    }

    /// Allocatable of `resource` (zero when the node does not list it or its size is unknown).
    pub fn allocatable_of(&self, resource: &str) -> Amount {
        self.allocatable
            .as_ref()
            .and_then(|a| a.get(resource))
            .copied()
            .unwrap_or_default()
    }
}

/// `text` of `resource` in scheduling units, rounded down (towards zero; negative is an error).
pub fn parse_floor(resource: &str, text: &str) -> Result<Amount, String> {
    // The exact check (and its error message) is the shared parser's.
    let up = parse_amount(resource, text).map_err(|e| e.to_string())?;
    let t = text.trim();
    if let Some(magnitude) = t.strip_prefix('-') {
        return match parse_amount(resource, magnitude) {
            Ok(a) if a == 0 => Ok(Amount::ZERO),
            _ => Err(format!("{text:?} is negative")),
        };
    }
    // ceil(-x) = -floor(x): the shared parser rounds up, so parsing the negated quantity and
    // negating the result rounds down, with the same exact arithmetic.
    let unsigned = t.strip_prefix('+').unwrap_or(t);
    let down = parse_amount(resource, &format!("-{unsigned}")).map_err(|e| e.to_string())?;
    Ok(Amount::new(down.get().checked_neg().unwrap_or(i64::MAX)).min(up))
}

/// Every Node of the input, in input order.
pub fn read(inv: &Inventory) -> Result<Vec<NodeInfo>, InputError> {
    let mut out = Vec::with_capacity(inv.nodes.len());
    for n in &inv.nodes {
        let name = n.obj.metadata.name.clone().unwrap_or_default();
        let status = n.obj.status.as_ref();
        let (field, quantities) = match status {
            Some(s) if s.allocatable.is_some() => ("status.allocatable", s.allocatable.as_ref()),
            Some(s) => ("status.capacity", s.capacity.as_ref()),
            None => ("status.allocatable", None),
        };
        let allocatable = match quantities {
            None => None,
            Some(q) => {
                let mut m = BTreeMap::new();
                for (r, v) in q {
                    let a = parse_floor(r, &v.0).map_err(|why| {
                        InputError::new(&n.origin, format!("not a quantity: {why}"))
                            .object(format!("Node {name}"))
                            .field(format!("{field}.{r}"))
                    })?;
                    m.insert(r.clone(), a);
                }
                Some(m)
            }
        };
        out.push(NodeInfo {
            labels: n.obj.metadata.labels.clone().unwrap_or_default(),
            unschedulable: n
                .obj
                .spec
                .as_ref()
                .and_then(|s| s.unschedulable)
                .unwrap_or(false),
            allocatable,
            name,
            pods: Vec::new(),
        });
    }
    let index: BTreeMap<&str, usize> = out
        .iter()
        .enumerate()
        .rev()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let mut placed: Vec<(usize, RunningPod)> = Vec::new();
    // The spec as stored: the API server has applied LimitRange defaults and RuntimeClass
    // overhead already, so no context is added.
    let ctx = RequestContext::default();
    for p in &inv.pods {
        let Some(spec) = &p.obj.spec else { continue };
        let Some(&node) = spec.node_name.as_deref().and_then(|n| index.get(n)) else {
            continue;
        };
        let phase = p.obj.status.as_ref().and_then(|s| s.phase.as_deref());
        if matches!(phase, Some("Succeeded" | "Failed")) {
            continue;
        }
        let meta = &p.obj.metadata;
        let namespace = namespace_of(meta).to_string();
        let own = meta.name.clone().unwrap_or_default();
        let requests = pod_requests(spec, &namespace, "spec", &ctx).map_err(|e| {
            InputError::new(&p.origin, format!("not a quantity: {}", e.error))
                .object(format!("Pod {namespace}/{own}"))
                .field(e.field)
        })?;
        let mut owners = owners_of(meta);
        owners.push(("Pod".to_string(), own.clone()));
        placed.push((
            node,
            RunningPod {
                name: format!("{namespace}/{own}"),
                namespace,
                owners,
                pod_set: meta
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(POD_SET_LABEL))
                    .cloned(),
                workload: None,
                requests: requests.per_pod,
            },
        ));
    }
    for (node, pod) in placed {
        out[node].pods.push(pod);
    }
    Ok(out)
}

/// `(kind, name)` of each of an object's owners: how a pod and a Workload are matched (both
/// owned by the same Job).
pub fn owners_of(meta: &ObjectMeta) -> Vec<(String, String)> {
    meta.owner_references
        .iter()
        .flatten()
        .map(|o| (o.kind.clone(), o.name.clone()))
        .collect()
}

/// Sets each running pod's Workload: the one, in the pod's namespace, owned by one of the
/// pod's owners (a Job's Workload is owned by the Job, as the Job owns its pods). `workloads`
/// gives each Workload's key, namespace and owners as `(kind, name)`.
pub fn assign_workloads(
    nodes: &mut [NodeInfo],
    workloads: impl IntoIterator<Item = (WorkloadKey, Vec<(String, String)>)>,
) {
    let mut by_owner: BTreeMap<(String, String, String), WorkloadKey> = BTreeMap::new();
    for (key, owners) in workloads {
        for (kind, name) in owners {
            by_owner
                .entry((key.namespace.clone(), kind, name))
                .or_insert_with(|| key.clone());
        }
    }
    for p in nodes.iter_mut().flat_map(|n| n.pods.iter_mut()) {
        p.workload = p.owners.iter().find_map(|(kind, name)| {
            by_owner
                .get(&(p.namespace.clone(), kind.clone(), name.clone()))
                .cloned()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocatable_rounds_down_and_requests_round_up() {
        let cases = [
            ("nvidia.com/gpu", "4", 4),
            ("nvidia.com/gpu", "+4", 4),
            ("nvidia.com/gpu", "3.5", 3),
            ("cpu", "1500m", 1500),
            ("cpu", "100u", 0),
            ("cpu", "0.0015", 1),
            ("memory", "1.5Ki", 1536),
            ("memory", "1.0001", 1),
            ("nvidia.com/gpu", "0", 0),
            ("nvidia.com/gpu", "-0", 0),
            ("cpu", "-0.0", 0),
            ("nvidia.com/gpu", "9E", 9_000_000_000_000_000_000),
            ("nvidia.com/gpu", "1e40", i64::MAX),
        ];
        for (r, text, want) in cases {
            assert_eq!(parse_floor(r, text), Ok(Amount::new(want)), "{r} {text}");
        }
        assert_eq!(parse_amount("cpu", "100u").unwrap(), Amount::new(1));
        assert!(parse_floor("nvidia.com/gpu", "-1").is_err());
        assert!(parse_floor("cpu", "-0.5m").is_err());
        assert!(parse_floor("nvidia.com/gpu", "four").is_err());
    }

    #[test]
    fn running_pods_are_read_with_their_effective_requests_and_workload() {
        let text = r#"
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {nvidia.com/gpu: "8", cpu: "32"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: big-0
  namespace: team-a
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: big, uid: u1}]
spec:
  nodeName: n1
  overhead: {cpu: 250m}
  initContainers:
  - {name: init, image: x, resources: {requests: {nvidia.com/gpu: "5", cpu: "1"}}}
  - {name: side, image: x, restartPolicy: Always, resources: {requests: {cpu: "500m"}}}
  containers:
  - {name: a, image: x, resources: {requests: {nvidia.com/gpu: "1", cpu: "2"}}}
  - {name: b, image: x, resources: {limits: {nvidia.com/gpu: "2"}}}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: done, namespace: team-a}
spec: {nodeName: n1, containers: [{name: a, image: x, resources: {requests: {nvidia.com/gpu: "8"}}}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere, namespace: team-a}
spec: {nodeName: n9, containers: [{name: a, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: unbound, namespace: team-a}
spec: {containers: [{name: a, image: x}]}
"#;
        let docs = super::super::documents::parse_documents("pods.yaml", text, &mut 0).unwrap();
        let inv = Inventory::from_documents(docs).unwrap();
        assert_eq!(inv.pods.len(), 4);
        let mut nodes = read(&inv).unwrap();
        assert_eq!(nodes[0].pods.len(), 1);
        let p = &nodes[0].pods[0];
        assert_eq!(p.name, "team-a/big-0");
        // GPUs: max(1 + 2 of the containers, 5 of the init container); cpu: 2 + 0.5 (the
        // sidecar) against the init container's 1 + 0.5, plus 0.25 overhead.
        assert_eq!(p.requests["nvidia.com/gpu"], Amount::new(5));
        assert_eq!(p.requests["cpu"], Amount::new(2750));
        let key = |name: &str| WorkloadKey {
            namespace: "team-a".into(),
            name: name.into(),
        };
        assign_workloads(
            &mut nodes,
            [
                (key("other"), vec![("Job".into(), "small".into())]),
                (key("job-big-1a2b3"), vec![("Job".into(), "big".into())]),
            ],
        );
        assert_eq!(nodes[0].pods[0].workload, Some(key("job-big-1a2b3")));

        // A quantity that is not one names the Pod and the field.
        let bad = text.replace(r#"cpu: "2"}"#, r#"cpu: "two"}"#);
        let docs = super::super::documents::parse_documents("pods.yaml", &bad, &mut 0).unwrap();
        let err = read(&Inventory::from_documents(docs).unwrap()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("Pod team-a/big-0"), "{msg}");
        assert!(
            msg.contains("spec.containers[0].resources.requests[cpu]"),
            "{msg}"
        );
    }
}
