//! The quota flags of `create clusterqueue` (`--nominal-quota`, `--borrowing-limit`,
//! `--lending-limit`: `FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]`) turned into
//! resource groups.
//!
//! Invariants: flavors keep the order given; flavors with the same resource set share a group,
//! a resource belongs to one group only; every limit has a nominal quota beside it.

use std::collections::BTreeSet;

use serde_json::json;

use super::FlagError;
use crate::scheduler::quantity::parse_amount;

/// One (flavor, resource) of the quota flags.
#[derive(Debug, Default, Clone)]
struct Quota {
    nominal: Option<String>,
    borrowing: Option<String>,
    lending: Option<String>,
}

/// Parses quota flags into flavor -> resource -> value, in the order given.
fn parse_quota_flag(
    flag: &str,
    values: &[String],
    into: &mut Vec<(String, Vec<(String, Quota)>)>,
) -> Result<(), FlagError> {
    for value in values {
        for spec in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (flavor, resources) = spec.split_once(':').ok_or_else(|| {
                FlagError(format!("--{flag} {spec:?}: expected FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY], e.g. \"gpu-a100:nvidia.com/gpu=4;cpu=32\""))
            })?;
            let flavor = flavor.trim();
            if flavor.is_empty() {
                return Err(FlagError(format!(
                    "--{flag} {spec:?}: the flavor name before ':' is empty"
                )));
            }
            let idx = match into.iter().position(|(f, _)| f == flavor) {
                Some(i) => i,
                None => {
                    into.push((flavor.to_string(), Vec::new()));
                    into.len() - 1
                }
            };
            for item in resources
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                let (res, qty) = item.split_once('=').ok_or_else(|| {
                    FlagError(format!(
                        "--{flag} {spec:?}: {item:?} is not RESOURCE=QUANTITY"
                    ))
                })?;
                let (res, qty) = (res.trim(), qty.trim());
                if res.is_empty() {
                    return Err(FlagError(format!(
                        "--{flag} {spec:?}: {item:?} has no resource name"
                    )));
                }
                let amount = parse_amount(res, qty)
                    .map_err(|e| FlagError(format!("--{flag} {spec:?}: {res}={qty}: {e}")))?;
                if amount < 0 {
                    return Err(FlagError(format!(
                        "--{flag} {spec:?}: {res}={qty}: must not be negative"
                    )));
                }
                let list = &mut into[idx].1;
                let q = match list.iter().position(|(r, _)| r == res) {
                    Some(i) => &mut list[i].1,
                    None => {
                        list.push((res.to_string(), Quota::default()));
                        &mut list.last_mut().expect("just pushed").1
                    }
                };
                let slot = match flag {
                    "nominal-quota" => &mut q.nominal,
                    "borrowing-limit" => &mut q.borrowing,
                    _ => &mut q.lending,
                };
                if slot.is_some() {
                    return Err(FlagError(format!(
                        "--{flag}: {flavor}:{res} is given twice"
                    )));
                }
                *slot = Some(qty.to_string());
            }
        }
    }
    Ok(())
}

/// Resource groups from the quota flags: flavors with the same set of resources share a
/// group; each flavor lists its resources in the group's `coveredResources` order, as
/// upstream's webhook requires.
pub fn resource_groups(
    nominal: &[String],
    borrowing: &[String],
    lending: &[String],
    has_cohort: bool,
) -> Result<Vec<serde_json::Value>, FlagError> {
    let mut flavors: Vec<(String, Vec<(String, Quota)>)> = Vec::new();
    parse_quota_flag("nominal-quota", nominal, &mut flavors)?;
    let known: BTreeSet<(String, String)> = flavors
        .iter()
        .flat_map(|(f, rs)| rs.iter().map(move |(r, _)| (f.clone(), r.clone())))
        .collect();
    parse_quota_flag("borrowing-limit", borrowing, &mut flavors)?;
    parse_quota_flag("lending-limit", lending, &mut flavors)?;
    for (f, rs) in &flavors {
        for (r, q) in rs {
            if !known.contains(&(f.clone(), r.clone())) {
                let flag = if q.borrowing.is_some() {
                    "borrowing-limit"
                } else {
                    "lending-limit"
                };
                return Err(FlagError(format!(
                    "--{flag} {f}:{r}: there is no --nominal-quota for {r} in flavor {f}; give its nominal quota too (0 is allowed)"
                )));
            }
            if !has_cohort && (q.borrowing.is_some() || q.lending.is_some()) {
                let flag = if q.borrowing.is_some() {
                    "borrowing-limit"
                } else {
                    "lending-limit"
                };
                return Err(FlagError(format!(
                    "--{flag} {f}:{r}: limits only apply within a cohort; add --cohort NAME"
                )));
            }
            if let (Some(n), Some(l)) = (&q.nominal, &q.lending)
                && parse_amount(r, l)? > parse_amount(r, n)?
            {
                return Err(FlagError(format!(
                    "--lending-limit {f}:{r}={l}: must not exceed the nominal quota {n}"
                )));
            }
        }
    }
    // Group flavors by their resource set.
    let mut groups: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for (i, (f, rs)) in flavors.iter().enumerate() {
        let set: BTreeSet<&String> = rs.iter().map(|(r, _)| r).collect();
        if let Some(g) = groups
            .iter_mut()
            .find(|(cov, _)| cov.iter().collect::<BTreeSet<_>>() == set)
        {
            g.1.push(i);
            continue;
        }
        for (cov, members) in &groups {
            if let Some(shared) = cov.iter().find(|r| set.contains(r)) {
                let other = &flavors[members[0]].0;
                return Err(FlagError(format!(
                    "--nominal-quota: flavor {f} covers {} but flavor {other} covers {}; both have {shared}, and a resource belongs to one resource group only (give both flavors the same resources)",
                    rs.iter()
                        .map(|(r, _)| r.as_str())
                        .collect::<Vec<_>>()
                        .join(";"),
                    cov.join(";")
                )));
            }
        }
        groups.push((rs.iter().map(|(r, _)| r.clone()).collect(), vec![i]));
    }
    Ok(groups
        .into_iter()
        .map(|(covered, members)| {
            let flavors: Vec<serde_json::Value> = members
                .iter()
                .map(|&i| {
                    let (name, rs) = &flavors[i];
                    let resources: Vec<serde_json::Value> = covered
                        .iter()
                        .map(|r| {
                            let q = &rs.iter().find(|(x, _)| x == r).expect("same resource set").1;
                            let mut v = json!({"name": r, "nominalQuota": q.nominal.clone().unwrap_or_else(|| "0".into())});
                            if let Some(b) = &q.borrowing {
                                v["borrowingLimit"] = json!(b);
                            }
                            if let Some(l) = &q.lending {
                                v["lendingLimit"] = json!(l);
                            }
                            v
                        })
                        .collect();
                    json!({"name": name, "resources": resources})
                })
                .collect();
            json!({"coveredResources": covered, "flavors": flavors})
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn seed_quota_in_one_group_in_covered_order() {
        let g = resource_groups(
            &s(&["gpu-a100:nvidia.com/gpu=4;cpu=32;memory=128Gi"]),
            &s(&["gpu-a100:nvidia.com/gpu=4"]),
            &[],
            true,
        )
        .unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!(
            g[0]["coveredResources"],
            json!(["nvidia.com/gpu", "cpu", "memory"])
        );
        let r = &g[0]["flavors"][0]["resources"];
        assert_eq!(
            r[0],
            json!({"name": "nvidia.com/gpu", "nominalQuota": "4", "borrowingLimit": "4"})
        );
        assert_eq!(r[2], json!({"name": "memory", "nominalQuota": "128Gi"}));
    }

    #[test]
    fn flavors_with_the_same_resources_share_a_group_and_keep_order() {
        let g = resource_groups(
            &s(&[
                "gpu-a100:nvidia.com/gpu=8;cpu=16,gpu-h100:cpu=8;nvidia.com/gpu=4",
                "cpu-pool:memory=1Ti",
            ]),
            &[],
            &[],
            false,
        )
        .unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0]["flavors"][1]["name"], "gpu-h100");
        // h100's resources follow the group's coveredResources order.
        assert_eq!(
            g[0]["flavors"][1]["resources"][0],
            json!({"name": "nvidia.com/gpu", "nominalQuota": "4"})
        );
        assert_eq!(g[1]["coveredResources"], json!(["memory"]));
    }

    #[test]
    fn bad_quota_flags_name_the_flag_and_the_item() {
        let e = resource_groups(&s(&["gpu-a100"]), &[], &[], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--nominal-quota \"gpu-a100\""), "{e}");
        let e = resource_groups(&s(&["gpu-a100:nvidia.com/gpu=four"]), &[], &[], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nvidia.com/gpu=four"), "{e}");
        let e = resource_groups(&s(&["gpu-a100:nvidia.com/gpu=-1"]), &[], &[], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("negative"), "{e}");
        let e = resource_groups(
            &s(&["gpu-a100:nvidia.com/gpu=4"]),
            &s(&["gpu-a100:nvidia.com/gpu=4"]),
            &[],
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("--cohort"), "{e}");
        let e = resource_groups(
            &s(&["gpu-a100:nvidia.com/gpu=4"]),
            &s(&["gpu-a100:cpu=4"]),
            &[],
            true,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no --nominal-quota for cpu"), "{e}");
        let e = resource_groups(&s(&["a:cpu=1;memory=1Gi", "b:cpu=1"]), &[], &[], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("one resource group"), "{e}");
        let e = resource_groups(&s(&["a:cpu=1"]), &[], &s(&["a:cpu=2"]), true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("must not exceed"), "{e}");
    }
}
