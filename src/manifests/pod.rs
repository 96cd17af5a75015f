//! What a pod template asks of the scheduler: per-pod resource requests (Kubernetes'
//! `PodRequests`: containers summed, init containers by their peak, sidecars alongside,
//! limits standing in for missing requests, plus overhead) and the constraints flavor
//! matching looks at (nodeSelector, required node affinity, tolerations).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec};

use crate::scheduler::labels::{
    NodeSelectorTerm, Requirement, SelectorOp, TaintEffect, Toleration,
};
use crate::scheduler::quantity::{Amount, QuantityError, parse_amount};

/// A failed quantity with the field path inside the pod spec.
#[derive(Debug, Clone)]
pub struct PodFieldError {
    pub field: String,
    pub error: QuantityError,
}

fn container_requests(
    c: &Container,
    field: &str,
) -> Result<BTreeMap<String, Amount>, PodFieldError> {
    let mut out = BTreeMap::new();
    let Some(res) = &c.resources else {
        return Ok(out);
    };
    if let Some(limits) = &res.limits {
        for (name, q) in limits {
            let v = parse_amount(name, &q.0).map_err(|error| PodFieldError {
                field: format!("{field}.resources.limits[{name}]"),
                error,
            })?;
            out.insert(name.clone(), v);
        }
    }
    if let Some(requests) = &res.requests {
        for (name, q) in requests {
            let v = parse_amount(name, &q.0).map_err(|error| PodFieldError {
                field: format!("{field}.resources.requests[{name}]"),
                error,
            })?;
            out.insert(name.clone(), v);
        }
    }
    Ok(out)
}

fn add_into(a: &mut BTreeMap<String, Amount>, b: &BTreeMap<String, Amount>) {
    for (k, v) in b {
        *a.entry(k.clone()).or_default() += *v;
    }
}

fn max_into(a: &mut BTreeMap<String, Amount>, b: &BTreeMap<String, Amount>) {
    for (k, v) in b {
        let e = a.entry(k.clone()).or_default();
        *e = (*e).max(*v);
    }
}

/// Per-pod requests of a pod spec at `field` (e.g. `spec.template.spec`).
pub fn pod_requests(
    spec: &PodSpec,
    field: &str,
) -> Result<BTreeMap<String, Amount>, PodFieldError> {
    let mut reqs = BTreeMap::new();
    for (i, c) in spec.containers.iter().enumerate() {
        add_into(
            &mut reqs,
            &container_requests(c, &format!("{field}.containers[{i}]"))?,
        );
    }
    let mut sidecars: BTreeMap<String, Amount> = BTreeMap::new();
    let mut init_peak: BTreeMap<String, Amount> = BTreeMap::new();
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let r = container_requests(c, &format!("{field}.initContainers[{i}]"))?;
        if c.restart_policy.as_deref() == Some("Always") {
            add_into(&mut reqs, &r);
            add_into(&mut sidecars, &r);
            max_into(&mut init_peak, &sidecars);
        } else {
            let mut with_sidecars = r;
            add_into(&mut with_sidecars, &sidecars);
            max_into(&mut init_peak, &with_sidecars);
        }
    }
    max_into(&mut reqs, &init_peak);
    if let Some(overhead) = &spec.overhead {
        for (name, q) in overhead {
            let v = parse_amount(name, &q.0).map_err(|error| PodFieldError {
                field: format!("{field}.overhead[{name}]"),
                error,
            })?;
            *reqs.entry(name.clone()).or_default() += v;
        }
    }
    Ok(reqs)
}

fn op(s: &str) -> Option<SelectorOp> {
    Some(match s {
        "In" => SelectorOp::In,
        "NotIn" => SelectorOp::NotIn,
        "Exists" => SelectorOp::Exists,
        "DoesNotExist" => SelectorOp::DoesNotExist,
        "Gt" => SelectorOp::Gt,
        "Lt" => SelectorOp::Lt,
        _ => return None,
    })
}

/// An operator a selector does not know, with the field path that holds it.
#[derive(Debug, Clone)]
pub struct BadOperator {
    pub field: String,
    pub operator: String,
}

impl BadOperator {
    pub fn message(&self, allowed: &str) -> String {
        format!(
            "unsupported operator {:?}: use one of {allowed}",
            self.operator
        )
    }
}

/// Checks the operators of a pod spec's required node affinity (`field` is the pod spec's path).
pub fn check_affinity_operators(spec: &PodSpec, field: &str) -> Result<(), BadOperator> {
    let Some(terms) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| {
            n.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
    else {
        return Ok(());
    };
    for (i, t) in terms.node_selector_terms.iter().enumerate() {
        for (j, e) in t.match_expressions.iter().flatten().enumerate() {
            if op(&e.operator).is_none() {
                return Err(BadOperator {
                    field: format!(
                        "{field}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}].matchExpressions[{j}].operator"
                    ),
                    operator: e.operator.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Checks a label selector's operators (In, NotIn, Exists, DoesNotExist).
pub fn check_selector_operators(
    sel: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    field: &str,
) -> Result<(), BadOperator> {
    for (j, e) in sel.match_expressions.iter().flatten().enumerate() {
        if !matches!(
            e.operator.as_str(),
            "In" | "NotIn" | "Exists" | "DoesNotExist"
        ) {
            return Err(BadOperator {
                field: format!("{field}.matchExpressions[{j}].operator"),
                operator: e.operator.clone(),
            });
        }
    }
    Ok(())
}

/// A selector requirement (node or label selector alike); operators are checked first by
/// [`check_affinity_operators`] / [`check_selector_operators`].
fn requirement(key: &str, operator: &str, values: &Option<Vec<String>>) -> Option<Requirement> {
    Some(Requirement {
        key: key.to_string(),
        op: op(operator)?,
        values: values.clone().unwrap_or_default(),
    })
}

/// Required node affinity terms of a pod spec, if any.
pub fn required_affinity(spec: &PodSpec) -> Option<Vec<NodeSelectorTerm>> {
    let terms = &spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    Some(
        terms
            .iter()
            .map(|t| NodeSelectorTerm {
                match_expressions: t
                    .match_expressions
                    .iter()
                    .flatten()
                    .filter_map(|e| requirement(&e.key, &e.operator, &e.values))
                    .collect(),
            })
            .collect(),
    )
}

pub fn effect(s: Option<&str>) -> Option<TaintEffect> {
    match s? {
        "NoSchedule" => Some(TaintEffect::NoSchedule),
        "PreferNoSchedule" => Some(TaintEffect::PreferNoSchedule),
        "NoExecute" => Some(TaintEffect::NoExecute),
        _ => None,
    }
}

pub fn tolerations(list: &[k8s_openapi::api::core::v1::Toleration]) -> Vec<Toleration> {
    list.iter()
        .map(|t| Toleration {
            key: t.key.clone().unwrap_or_default(),
            exists: t.operator.as_deref() == Some("Exists"),
            value: t.value.clone().unwrap_or_default(),
            effect: effect(t.effect.as_deref()),
        })
        .collect()
}

pub fn label_selector(
    sel: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
) -> crate::scheduler::labels::LabelSelector {
    crate::scheduler::labels::LabelSelector {
        match_labels: sel.match_labels.clone().unwrap_or_default(),
        match_expressions: sel
            .match_expressions
            .iter()
            .flatten()
            .filter_map(|e| requirement(&e.key, &e.operator, &e.values))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> PodSpec {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn containers_add_up_and_init_containers_peak() {
        let s = spec(
            "containers:\n- name: a\n  resources: {requests: {cpu: 500m, nvidia.com/gpu: 1}}\n- name: b\n  resources: {limits: {cpu: '1'}}\ninitContainers:\n- name: i\n  resources: {requests: {cpu: '4'}}\n",
        );
        let r = pod_requests(&s, "spec").unwrap();
        assert_eq!(r["cpu"], 4000, "the init container's peak wins");
        assert_eq!(r["nvidia.com/gpu"], 1);
    }

    #[test]
    fn sidecars_run_alongside() {
        let s = spec(
            "containers:\n- name: a\n  resources: {requests: {cpu: '1'}}\ninitContainers:\n- name: side\n  restartPolicy: Always\n  resources: {requests: {cpu: '1'}}\n",
        );
        assert_eq!(pod_requests(&s, "spec").unwrap()["cpu"], 2000);
    }

    #[test]
    fn bad_quantity_names_its_field() {
        let s = spec("containers:\n- name: a\n  resources: {requests: {cpu: lots}}\n");
        let e = pod_requests(&s, "spec.template.spec").unwrap_err();
        assert_eq!(
            e.field,
            "spec.template.spec.containers[0].resources.requests[cpu]"
        );
    }
}
