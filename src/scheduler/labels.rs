//! Label selectors, node affinity terms, taints and tolerations, with Kubernetes' matching
//! rules, as plain data the engine can evaluate.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelectorOp {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    /// Node affinity only: integer comparison.
    Gt,
    Lt,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: String,
    pub op: SelectorOp,
    pub values: Vec<String>,
}

impl Requirement {
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        match self.op {
            SelectorOp::In => value.is_some_and(|v| self.values.contains(v)),
            SelectorOp::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            SelectorOp::Exists => value.is_some(),
            SelectorOp::DoesNotExist => value.is_none(),
            SelectorOp::Gt | SelectorOp::Lt => {
                let (Some(v), Some(bound)) = (value, self.values.first()) else {
                    return false;
                };
                let (Ok(v), Ok(bound)) = (v.parse::<i64>(), bound.parse::<i64>()) else {
                    return false;
                };
                if self.op == SelectorOp::Gt {
                    v > bound
                } else {
                    v < bound
                }
            }
        }
    }
}

/// A `metav1.LabelSelector`: every label and every expression must match.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<Requirement>,
}

impl LabelSelector {
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| r.matches(labels))
    }
}

/// One `nodeSelectorTerms[]` entry: its expressions are ANDed; terms are ORed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct NodeSelectorTerm {
    pub match_expressions: Vec<Requirement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

impl TaintEffect {
    pub fn as_str(self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: TaintEffect,
}

impl std::fmt::Display for Taint {
    /// Upstream prints the Go struct (`{key value NoSchedule <nil>}`); messages users alert
    /// on carry that exact shape.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{{{} {} {} <nil>}}",
            self.key,
            self.value,
            self.effect.as_str()
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct Toleration {
    /// Empty with `exists` tolerates every taint.
    pub key: String,
    /// `operator: Exists`; otherwise `Equal`.
    pub exists: bool,
    pub value: String,
    /// `None` matches every effect.
    pub effect: Option<TaintEffect>,
}

impl Toleration {
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if self.effect.is_some_and(|e| e != taint.effect) {
            return false;
        }
        if self.key.is_empty() {
            return self.exists;
        }
        if self.key != taint.key {
            return false;
        }
        self.exists || self.value == taint.value
    }
}

/// The first `NoSchedule`/`NoExecute` taint none of `tolerations` tolerates.
pub fn first_untolerated<'a>(
    taints: &'a [Taint],
    tolerations: &[&Toleration],
) -> Option<&'a Taint> {
    taints.iter().find(|t| {
        t.effect != TaintEffect::PreferNoSchedule && !tolerations.iter().any(|tol| tol.tolerates(t))
    })
}

/// Does a pod with this `nodeSelector` and required affinity fit a node labelled `labels`,
/// considering only label keys in `allowed_keys` (upstream's flavor matching: keys the
/// flavor does not define are ignored, and an affinity term emptied by that filter
/// disables required affinity altogether)?
pub fn pod_matches_flavor_labels(
    node_selector: &BTreeMap<String, String>,
    required_affinity: Option<&[NodeSelectorTerm]>,
    labels: &BTreeMap<String, String>,
) -> bool {
    let allowed = |k: &String| labels.contains_key(k);
    for (k, v) in node_selector {
        if allowed(k) && labels.get(k) != Some(v) {
            return false;
        }
    }
    let Some(terms) = required_affinity else {
        return true;
    };
    let mut filtered: Vec<Vec<&Requirement>> = Vec::with_capacity(terms.len());
    for term in terms {
        let kept: Vec<&Requirement> = term
            .match_expressions
            .iter()
            .filter(|r| allowed(&r.key))
            .collect();
        if kept.is_empty() {
            return true;
        }
        filtered.push(kept);
    }
    if filtered.is_empty() {
        return true;
    }
    filtered
        .iter()
        .any(|term| term.iter().all(|r| r.matches(labels)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: SelectorOp, values: &[&str]) -> Requirement {
        Requirement {
            key: key.into(),
            op,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn selector_semantics() {
        let l = labels(&[("team", "a"), ("tier", "3")]);
        assert!(req("team", SelectorOp::In, &["a", "b"]).matches(&l));
        assert!(!req("team", SelectorOp::NotIn, &["a"]).matches(&l));
        assert!(req("zone", SelectorOp::NotIn, &["x"]).matches(&l));
        assert!(req("tier", SelectorOp::Gt, &["2"]).matches(&l));
        assert!(!req("tier", SelectorOp::Lt, &["2"]).matches(&l));
        assert!(
            LabelSelector::default().matches(&l),
            "empty selector selects everything"
        );
    }

    #[test]
    fn flavor_matching_ignores_keys_the_flavor_does_not_define() {
        let flavor = labels(&[("gpu-type", "a100")]);
        let sel = labels(&[("gpu-type", "a100"), ("foo", "bar")]);
        assert!(pod_matches_flavor_labels(&sel, None, &flavor));
        let sel = labels(&[("gpu-type", "t4")]);
        assert!(!pod_matches_flavor_labels(&sel, None, &flavor));
        assert!(
            pod_matches_flavor_labels(&sel, None, &labels(&[])),
            "a labelless flavor matches any pod"
        );
        let terms = vec![
            NodeSelectorTerm {
                match_expressions: vec![req("gpu-type", SelectorOp::In, &["t4"])],
            },
            NodeSelectorTerm {
                match_expressions: vec![req("gpu-type", SelectorOp::In, &["a100"])],
            },
        ];
        assert!(pod_matches_flavor_labels(
            &BTreeMap::new(),
            Some(&terms),
            &flavor
        ));
        let terms = vec![NodeSelectorTerm {
            match_expressions: vec![req("gpu-type", SelectorOp::In, &["t4"])],
        }];
        assert!(!pod_matches_flavor_labels(
            &BTreeMap::new(),
            Some(&terms),
            &flavor
        ));
    }

    #[test]
    fn tolerations() {
        let taint = Taint {
            key: "spot".into(),
            value: "true".into(),
            effect: TaintEffect::NoSchedule,
        };
        let equal = Toleration {
            key: "spot".into(),
            exists: false,
            value: "true".into(),
            effect: None,
        };
        let wrong = Toleration {
            key: "spot".into(),
            exists: false,
            value: "false".into(),
            effect: None,
        };
        let all = Toleration {
            key: String::new(),
            exists: true,
            value: String::new(),
            effect: None,
        };
        assert!(equal.tolerates(&taint));
        assert!(!wrong.tolerates(&taint));
        assert!(all.tolerates(&taint));
        let taints = [taint.clone()];
        assert_eq!(first_untolerated(&taints, &[&wrong]), Some(&taint));
        assert_eq!(first_untolerated(&taints, &[&wrong, &equal]), None);
        assert_eq!(taint.to_string(), "{spot true NoSchedule <nil>}");
    }
}
