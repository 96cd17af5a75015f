//! A pod set's topology assignment between v1beta1's flat list of domains and v1beta2's
//! compact slices, as upstream encodes it (`pkg/util/tas/tas_assignment.go`, with the
//! `TASAssignmentsEncodingByHostnamePrefix` gate at its default, on).
//!
//! v1beta2 to v1beta1 is lossless: the domains are the slices' domains in order. v1beta1 to
//! v1beta2 picks one of many valid encodings: runs of hostnames sharing a `-`-delimited prefix
//! become one slice each when the lowest level is `kubernetes.io/hostname`, unless a single
//! slice serializes strictly smaller. Either way the domain sequence is the same.
//!
//! [`check`] is the slice rules of upstream's CRD (lengths agree, exactly one of universal and
//! individual) and a bound on the total: [`to_v1beta1`] assumes them and, given anything else,
//! still returns without panicking.

use crate::api::FieldError;
use crate::api::v1beta2::{
    TopologyAssignment as V2, TopologyAssignmentSlice,
    TopologyAssignmentSliceLevelIndividualValues, TopologyAssignmentSliceLevelValues,
    TopologyAssignmentSlicePodCounts,
};
use crate::api::{TopologyAssignment as V1, TopologyDomainAssignment};

/// Upstream's limit of domains in one slice (the CRD's `maxItems` of `roots`).
pub const MAX_DOMAINS_PER_SLICE: usize = 100_000;
/// Upstream's limit of slices in one assignment.
pub const MAX_SLICES: usize = 1_000;
/// Our limit of domains in all (upstream's limits allow 10^8, which would expand to gigabytes
/// in v1beta1's form; real assignments are one per node).
pub const MAX_DOMAINS: usize = 1_000_000;
const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";

/// The v1beta1 form: every domain of every slice, in order.
pub fn to_v1beta1(ta: &V2) -> V1 {
    let mut domains = Vec::new();
    for slice in &ta.slices {
        for i in 0..usize::try_from(slice.domain_count).unwrap_or(0) {
            let values = (0..ta.levels.len())
                .map(|level| {
                    slice
                        .values_per_level
                        .get(level)
                        .map(|v| value_at(v, i))
                        .unwrap_or_default()
                })
                .collect();
            let count = match slice.pod_counts.universal {
                Some(count) => count,
                None => slice.pod_counts.individual.get(i).copied().unwrap_or(0),
            };
            domains.push(TopologyDomainAssignment { values, count });
        }
    }
    V1 {
        levels: ta.levels.clone(),
        domains,
    }
}

fn value_at(values: &TopologyAssignmentSliceLevelValues, i: usize) -> String {
    if let Some(universal) = &values.universal {
        return universal.clone();
    }
    let Some(individual) = &values.individual else {
        return String::new();
    };
    format!(
        "{}{}{}",
        individual.prefix.as_deref().unwrap_or(""),
        individual.roots.get(i).map(String::as_str).unwrap_or(""),
        individual.suffix.as_deref().unwrap_or("")
    )
}

/// The v1beta2 form upstream writes.
pub fn to_v1beta2(ta: &V1) -> V2 {
    let by_prefix = hostname_prefix_runs(ta);
    if by_prefix.slices.len() <= 1 || ta.domains.len() > MAX_DOMAINS_PER_SLICE {
        return by_prefix;
    }
    let single = single_slice(ta);
    if json_len(&single) < json_len(&by_prefix) {
        single
    } else {
        by_prefix
    }
}

fn json_len(ta: &V2) -> usize {
    serde_json::to_vec(ta).map_or(usize::MAX, |v| v.len())
}

/// No slice for no domains, else one slice of them all.
fn single_slice(ta: &V1) -> V2 {
    V2 {
        levels: ta.levels.clone(),
        slices: if ta.domains.is_empty() {
            Vec::new()
        } else {
            vec![compact_slice(ta.levels.len(), &ta.domains)]
        },
    }
}

fn hostname_prefix_runs(ta: &V1) -> V2 {
    let keys = if ta.domains.len() > 1 && ta.levels.last().is_some_and(|l| l == HOSTNAME_LABEL) {
        prefix_keys(ta.levels.len() - 1, &ta.domains)
    } else {
        None
    };
    let mut slices = Vec::new();
    for run in runs(&ta.domains, keys.as_deref()) {
        for chunk in run.chunks(MAX_DOMAINS_PER_SLICE) {
            slices.push(compact_slice(ta.levels.len(), chunk));
        }
    }
    V2 {
        levels: ta.levels.clone(),
        slices,
    }
}

/// Consecutive domains with the same key; all domains when there are no keys.
fn runs<'a>(
    domains: &'a [TopologyDomainAssignment],
    keys: Option<&[&str]>,
) -> Vec<&'a [TopologyDomainAssignment]> {
    let Some(keys) = keys else {
        return if domains.is_empty() {
            Vec::new()
        } else {
            vec![domains]
        };
    };
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..domains.len() {
        if keys[i] != keys[start] {
            out.push(&domains[start..i]);
            start = i;
        }
    }
    out.push(&domains[start..]);
    out
}

fn value(domain: &TopologyDomainAssignment, level: usize) -> &str {
    domain.values.get(level).map(String::as_str).unwrap_or("")
}

/// Each domain's longest `-`-ended hostname prefix that occurs at least twice, trying the
/// deepest prefixes first and backing off until the runs fit in [`MAX_SLICES`] slices.
fn prefix_keys(level: usize, domains: &[TopologyDomainAssignment]) -> Option<Vec<&str>> {
    // The candidate prefixes of each hostname: every `-`-ended start, shortest first.
    let candidates: Vec<Vec<&str>> = domains
        .iter()
        .map(|d| {
            let host = value(d, level);
            host.char_indices()
                .filter(|&(i, c)| c == '-' && i + 1 < host.len())
                .map(|(i, _)| &host[..=i])
                .collect()
        })
        .collect();
    let mut seen: std::collections::BTreeMap<&str, u8> = std::collections::BTreeMap::new();
    for prefix in candidates.iter().flatten() {
        let n = seen.entry(prefix).or_insert(0);
        *n = (*n + 1).min(2);
    }
    let max_depth = candidates.iter().map(Vec::len).max().unwrap_or(0);
    for depth in (1..=max_depth).rev() {
        let keys: Vec<&str> = candidates
            .iter()
            .map(|c| {
                c[..c.len().min(depth)]
                    .iter()
                    .rev()
                    .find(|p| seen.get(*p).copied().unwrap_or(0) >= 2)
                    .copied()
                    .unwrap_or("")
            })
            .collect();
        let slices: usize = runs(domains, Some(keys.as_slice()))
            .iter()
            .map(|r| r.len().div_ceil(MAX_DOMAINS_PER_SLICE))
            .sum();
        if slices <= MAX_SLICES {
            return Some(keys);
        }
    }
    None
}

/// One slice of `domains`, each level's values written with their common prefix and suffix
/// (or as one universal value), the pod counts as one universal count when all agree.
fn compact_slice(levels: usize, domains: &[TopologyDomainAssignment]) -> TopologyAssignmentSlice {
    let values_per_level = (0..levels)
        .map(|level| {
            let values: Vec<&str> = domains.iter().map(|d| value(d, level)).collect();
            compact_values(&values)
        })
        .collect();
    let first = domains.first().map_or(0, |d| d.count);
    let pod_counts = if domains.iter().all(|d| d.count == first) {
        TopologyAssignmentSlicePodCounts {
            universal: Some(first),
            individual: Vec::new(),
        }
    } else {
        TopologyAssignmentSlicePodCounts {
            universal: None,
            individual: domains.iter().map(|d| d.count).collect(),
        }
    };
    TopologyAssignmentSlice {
        domain_count: i32::try_from(domains.len()).unwrap_or(i32::MAX),
        values_per_level,
        pod_counts,
    }
}

fn compact_values(values: &[&str]) -> TopologyAssignmentSliceLevelValues {
    let first = values.first().copied().unwrap_or("").as_bytes();
    let min_len = values.iter().map(|v| v.len()).min().unwrap_or(0);
    let max_len = values.iter().map(|v| v.len()).max().unwrap_or(0);
    let mut prefix = first.len();
    let mut suffix = first.len();
    for v in values.iter().map(|v| v.as_bytes()) {
        prefix = common_prefix(&first[..prefix], v);
        suffix = common_suffix(&first[first.len() - suffix..], v);
    }
    if prefix == max_len {
        return TopologyAssignmentSliceLevelValues {
            universal: Some(values.first().copied().unwrap_or("").to_owned()),
            individual: None,
        };
    }
    // Prefix and suffix must not overlap (for example in "ababa" and "aba").
    if prefix + suffix > min_len {
        prefix = min_len - suffix;
    }
    // Upstream works on bytes; keep the cuts on character boundaries so a non-ASCII value
    // (which label values cannot be anyway) is never split.
    while prefix > 0 && !values.iter().all(|v| v.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    while suffix > 0 && !values.iter().all(|v| v.is_char_boundary(v.len() - suffix)) {
        suffix -= 1;
    }
    let part = |len: usize, s: &str| (len > 0).then(|| s.to_owned());
    let head = &values[0][..prefix];
    let tail = &values[0][values[0].len() - suffix..];
    TopologyAssignmentSliceLevelValues {
        universal: None,
        individual: Some(TopologyAssignmentSliceLevelIndividualValues {
            prefix: part(prefix, head),
            suffix: part(suffix, tail),
            roots: values
                .iter()
                .map(|v| v[prefix..v.len() - suffix].to_owned())
                .collect(),
        }),
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Upstream's CRD rules for a v1beta2 assignment, plus its size limits; `path` is where the
/// assignment is in the document.
pub fn check(ta: &V2, path: &str) -> Result<(), FieldError> {
    if ta.slices.len() > MAX_SLICES {
        return Err(FieldError::new(
            format!("{path}.slices"),
            format!("must have at most {MAX_SLICES} items"),
        ));
    }
    let mut total = 0;
    for (si, slice) in ta.slices.iter().enumerate() {
        let at = format!("{path}.slices[{si}]");
        let count = usize::try_from(slice.domain_count).unwrap_or(0);
        total += count;
        if total > MAX_DOMAINS {
            return Err(FieldError::new(
                format!("{at}.domainCount"),
                format!("more than {MAX_DOMAINS} domains in all (kubectl-kueue's limit)"),
            ));
        }
        if !(1..=MAX_DOMAINS_PER_SLICE).contains(&count) {
            return Err(FieldError::new(
                format!("{at}.domainCount"),
                format!("must be between 1 and {MAX_DOMAINS_PER_SLICE}"),
            ));
        }
        if slice.values_per_level.len() != ta.levels.len() {
            return Err(FieldError::new(
                format!("{at}.valuesPerLevel"),
                "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment",
            ));
        }
        for (li, values) in slice.values_per_level.iter().enumerate() {
            let lat = format!("{at}.valuesPerLevel[{li}]");
            match (&values.universal, &values.individual) {
                (Some(_), None) => {}
                (None, Some(individual)) if individual.roots.len() == count => {}
                (None, Some(_)) => {
                    return Err(FieldError::new(
                        format!("{lat}.individual.roots"),
                        "valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this TopologyAssignmentSlice",
                    ));
                }
                _ => {
                    return Err(FieldError::new(
                        lat,
                        "exactly one of the fields in [universal individual] must be set",
                    ));
                }
            }
        }
        let counts = &slice.pod_counts;
        match (counts.universal, counts.individual.is_empty()) {
            (Some(_), true) => {}
            (None, false) if counts.individual.len() == count => {}
            (None, false) => {
                return Err(FieldError::new(
                    format!("{at}.podCounts.individual"),
                    "podCounts.individual must have length equal to domainCount",
                ));
            }
            _ => {
                return Err(FieldError::new(
                    format!("{at}.podCounts"),
                    "exactly one of the fields in [universal individual] must be set",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domains(levels: &[&str], ds: &[(&[&str], i32)]) -> V1 {
        V1 {
            levels: levels.iter().map(|s| s.to_string()).collect(),
            domains: ds
                .iter()
                .map(|(v, c)| TopologyDomainAssignment {
                    values: v.iter().map(|s| s.to_string()).collect(),
                    count: *c,
                })
                .collect(),
        }
    }

    #[test]
    fn upstreams_example_becomes_one_compact_slice() {
        let ta = domains(&["a", "b"], &[(&["a1", "b1"], 10), (&["a1", "b2"], 20)]);
        let v2 = to_v1beta2(&ta);
        assert_eq!(
            serde_json::to_value(&v2).unwrap(),
            serde_json::json!({
                "levels": ["a", "b"],
                "slices": [{
                    "domainCount": 2,
                    "valuesPerLevel": [
                        {"universal": "a1"},
                        {"individual": {"prefix": "b", "roots": ["1", "2"]}},
                    ],
                    "podCounts": {"individual": [10, 20]},
                }],
            })
        );
        assert_eq!(to_v1beta1(&v2), ta);
    }

    #[test]
    fn overlapping_prefix_and_suffix_are_cut() {
        let v = compact_values(&["ababa", "aba"]);
        let ind = v.individual.unwrap();
        // The suffix wins: the prefix is cut to what the shortest value leaves.
        assert_eq!(ind.prefix, None);
        assert_eq!(ind.suffix.as_deref(), Some("aba"));
        assert_eq!(ind.roots, vec!["ab".to_string(), String::new()]);
    }

    #[test]
    fn hostname_runs_split_by_reusable_prefix_when_smaller() {
        let host = "kubernetes.io/hostname";
        let ta = domains(
            &[host],
            &[
                (&["pool-a-node-0"], 1),
                (&["pool-a-node-1"], 1),
                (&["pool-b-node-0"], 1),
            ],
        );
        let v2 = to_v1beta2(&ta);
        assert_eq!(to_v1beta1(&v2), ta);
        // Whichever encoding wins, it is never larger than the single slice.
        assert!(json_len(&v2) <= json_len(&single_slice(&ta)));
    }

    #[test]
    fn no_domains_no_slices() {
        let ta = domains(&["a"], &[]);
        assert!(to_v1beta2(&ta).slices.is_empty());
    }

    #[test]
    fn non_ascii_values_are_not_split() {
        let v = compact_values(&["é1", "é2"]);
        let ind = v.individual.unwrap();
        assert_eq!(ind.prefix.as_deref(), Some("é"));
        let v = compact_values(&["aé", "aè"]);
        assert!(v.individual.is_some());
    }
}
