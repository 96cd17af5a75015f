//! The constraints of a pod template that flavor matching looks at (nodeSelector, required
//! node affinity, tolerations) and the selector operators we read. Its resource requests are
//! [`super::requests`]'.

use k8s_openapi::api::core::v1::PodSpec;

use crate::scheduler::labels::{
    NodeSelectorTerm, Requirement, SelectorOp, TaintEffect, Toleration,
};

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
