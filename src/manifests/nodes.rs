//! Node objects read into the plain data the capacity checks use ([`crate::view::capacity`],
//! `explain`'s node check): name, labels, whether it is cordoned, and allocatable per resource.
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

use std::collections::BTreeMap;

use super::error::InputError;
use super::inventory::Inventory;
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
}

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
        }
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
        });
    }
    Ok(out)
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
}
