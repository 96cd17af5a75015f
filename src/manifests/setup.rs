//! The setup `kubectl kueue init` writes: a team GPU cluster like the seed's (a Namespace and
//! a LocalQueue per team, a ResourceFlavor per GPU type, a ClusterQueue per team in one
//! cohort, WorkloadPriorityClasses), planned from a few flags or answers and rendered as a
//! commented multi-document YAML.
//!
//! Invariants: every name is a DNS label (it names namespaces and queues); without quotas
//! given, each GPU type is split evenly between the teams, the remainder to the first ones;
//! a team may borrow, by default, what the other teams hold.

use std::fmt::Write as _;

use super::flags::FlagError;
use crate::scheduler::quantity::parse_amount;

/// `init`'s answers, as the flags spell them (the interactive questions fill the same).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetupFlags {
    /// `TYPE=COUNT[,TYPE=COUNT]`.
    pub gpu_types: String,
    /// `NAME[,NAME]`.
    pub teams: String,
    /// `TEAM:TYPE=COUNT[,...]` each, overriding the even split.
    pub quota: Vec<String>,
    pub cpu: String,
    pub memory: String,
    /// Empty for none (no borrowing).
    pub cohort: String,
    pub borrowing_limit: Option<u32>,
    /// `NAME=VALUE[,NAME=VALUE]`.
    pub priorities: String,
    pub queue_name: String,
    pub gpu_resource: String,
}

/// Everything the setup is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// (type, GPUs in the cluster)
    pub gpu_types: Vec<(String, u32)>,
    pub teams: Vec<String>,
    /// `quota[team][type]`
    pub quota: Vec<Vec<u32>>,
    pub cpu: String,
    pub memory: String,
    pub cohort: Option<String>,
    pub borrowing_limit: Option<u32>,
    pub priorities: Vec<(String, i32)>,
    pub queue_name: String,
    pub gpu_resource: String,
}

/// The items of a comma-separated list, trimmed, empty ones left out.
pub fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

fn dns_label(flag: &str, s: &str) -> Result<(), FlagError> {
    let ok = !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-');
    if !ok {
        return Err(FlagError(format!(
            "{flag} {s:?}: must be a lower-case DNS label (a-z, 0-9, '-'), it names namespaces and queues"
        )));
    }
    Ok(())
}

/// `--gpu-types`: `TYPE=COUNT[,TYPE=COUNT]`, each type once, at least one.
pub fn parse_gpu_types(s: &str) -> Result<Vec<(String, u32)>, FlagError> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for item in split_list(s) {
        let (t, n) = item
            .split_once('=')
            .map_or((item.as_str(), "0"), |(t, n)| (t.trim(), n.trim()));
        dns_label("--gpu-types", t)?;
        let n: u32 = n.parse().map_err(|e| {
            FlagError(format!(
                "--gpu-types {item:?}: {n:?} is not a GPU count: {e}"
            ))
        })?;
        if out.iter().any(|(x, _)| x == t) {
            return Err(FlagError(format!("--gpu-types: {t} is given twice")));
        }
        out.push((t.to_string(), n));
    }
    if out.is_empty() {
        return Err(FlagError(
            "--gpu-types: give at least one GPU type, e.g. a100=8".into(),
        ));
    }
    Ok(out)
}

/// `--priorities`: `NAME=VALUE[,NAME=VALUE]`.
pub fn parse_priorities(s: &str) -> Result<Vec<(String, i32)>, FlagError> {
    let mut out = Vec::new();
    for item in split_list(s) {
        let (n, v) = item
            .split_once('=')
            .ok_or_else(|| FlagError(format!("--priorities {item:?}: expected NAME=VALUE")))?;
        dns_label("--priorities", n.trim())?;
        let v: i32 = v.trim().parse().map_err(|e| {
            FlagError(format!(
                "--priorities {item:?}: {v:?} is not an integer: {e}"
            ))
        })?;
        out.push((n.trim().to_string(), v));
    }
    Ok(out)
}

/// Even split of `total` over `n` teams, the remainder to the first teams.
pub fn even(total: u32, n: usize, i: usize) -> u32 {
    let n = n as u32;
    total / n + u32::from((i as u32) < total % n)
}

impl Plan {
    /// The plan from flags alone.
    pub fn from_flags(a: &SetupFlags) -> Result<Plan, FlagError> {
        let gpu_types = parse_gpu_types(&a.gpu_types)?;
        let teams = split_list(&a.teams);
        if teams.is_empty() {
            return Err(FlagError("--teams: give at least one team".into()));
        }
        for t in &teams {
            dns_label("--teams", t)?;
        }
        let mut quota: Vec<Vec<u32>> = (0..teams.len())
            .map(|i| {
                gpu_types
                    .iter()
                    .map(|(_, n)| even(*n, teams.len(), i))
                    .collect()
            })
            .collect();
        for q in &a.quota {
            for item in split_list(q) {
                let (team, rest) = item.split_once(':').ok_or_else(|| {
                    FlagError(format!("--quota {item:?}: expected TEAM:TYPE=COUNT"))
                })?;
                let (ty, n) = rest.split_once('=').ok_or_else(|| {
                    FlagError(format!("--quota {item:?}: expected TEAM:TYPE=COUNT"))
                })?;
                let ti = teams.iter().position(|t| t == team.trim()).ok_or_else(|| {
                    FlagError(format!("--quota {item:?}: {team} is not one of --teams"))
                })?;
                let gi = gpu_types
                    .iter()
                    .position(|(t, _)| t == ty.trim())
                    .ok_or_else(|| {
                        FlagError(format!("--quota {item:?}: {ty} is not one of --gpu-types"))
                    })?;
                quota[ti][gi] = n.trim().parse().map_err(|e| {
                    FlagError(format!("--quota {item:?}: {n:?} is not a GPU count: {e}"))
                })?;
            }
        }
        parse_amount("cpu", &a.cpu).map_err(|e| FlagError(format!("--cpu {:?}: {e}", a.cpu)))?;
        parse_amount("memory", &a.memory)
            .map_err(|e| FlagError(format!("--memory {:?}: {e}", a.memory)))?;
        let cohort = (!a.cohort.trim().is_empty()).then(|| a.cohort.trim().to_string());
        if let Some(c) = &cohort {
            dns_label("--cohort", c)?;
        }
        if cohort.is_none() && a.borrowing_limit.is_some() {
            return Err(FlagError(
                "--borrowing-limit needs a --cohort to borrow from".into(),
            ));
        }
        dns_label("--queue-name", &a.queue_name)?;
        Ok(Plan {
            gpu_types,
            teams,
            quota,
            cpu: a.cpu.clone(),
            memory: a.memory.clone(),
            cohort,
            borrowing_limit: a.borrowing_limit,
            priorities: parse_priorities(&a.priorities)?,
            queue_name: a.queue_name.clone(),
            gpu_resource: a.gpu_resource.clone(),
        })
    }

    /// What a team may borrow on a GPU type: the flag, else what the others hold.
    fn borrowing(&self, team: usize, ty: usize) -> u32 {
        self.borrowing_limit.unwrap_or_else(|| {
            (0..self.teams.len())
                .filter(|&t| t != team)
                .map(|t| self.quota[t][ty])
                .sum()
        })
    }

    /// The manifests, commented like the seed's.
    pub fn render(&self) -> String {
        let mut y = String::new();
        let gpu = &self.gpu_resource;
        let _ = writeln!(
            y,
            "# Generated by `kubectl kueue init`. Apply with: kubectl apply -f <this file>"
        );
        let _ = writeln!(
            y,
            "# Teams: {}. GPUs: {}.",
            self.teams.join(", "),
            self.gpu_types
                .iter()
                .map(|(t, n)| format!("{n} x {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for t in &self.teams {
            let _ = write!(
                y,
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {t}\n"
            );
        }
        for (name, value) in &self.priorities {
            let _ = write!(
                y,
                "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata:\n  name: {name}\nvalue: {value}\n"
            );
        }
        for (ty, n) in &self.gpu_types {
            let _ = write!(
                y,
                "---\n# {n} {ty} GPU(s): nodes labelled gpu-type={ty}\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: gpu-{ty}\nspec:\n  nodeLabels:\n    gpu-type: {ty}\n"
            );
        }
        for (ti, team) in self.teams.iter().enumerate() {
            let quotas: Vec<String> = self
                .gpu_types
                .iter()
                .enumerate()
                .map(|(gi, (ty, _))| format!("{} {ty}", self.quota[ti][gi]))
                .collect();
            let borrow = match &self.cohort {
                Some(_) => {
                    let b: Vec<String> = self
                        .gpu_types
                        .iter()
                        .enumerate()
                        .map(|(gi, _)| self.borrowing(ti, gi).to_string())
                        .collect();
                    format!(", can borrow {} more", b.join("/"))
                }
                None => String::new(),
            };
            let _ = write!(
                y,
                "---\n# {team}: {} GPU quota{borrow}\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: {team}-queue\nspec:\n",
                quotas.join(", ")
            );
            if let Some(c) = &self.cohort {
                let _ = writeln!(y, "  cohort: {c}");
            }
            // Every namespace, as kueuectl creates them: a team reaches its ClusterQueue through
            // the LocalQueue in its namespace.
            let _ = writeln!(y, "  namespaceSelector: {{}}");
            let _ = write!(
                y,
                "  preemption:\n    reclaimWithinCohort: Any\n    withinClusterQueue: LowerPriority\n"
            );
            let _ = write!(
                y,
                "  resourceGroups:\n  - coveredResources: [\"{gpu}\", \"cpu\", \"memory\"]\n    flavors:\n"
            );
            for (gi, (ty, _)) in self.gpu_types.iter().enumerate() {
                let _ = write!(
                    y,
                    "    - name: gpu-{ty}\n      resources:\n      - name: \"{gpu}\"\n        nominalQuota: {}\n",
                    self.quota[ti][gi]
                );
                if self.cohort.is_some() {
                    let _ = writeln!(y, "        borrowingLimit: {}", self.borrowing(ti, gi));
                }
                let _ = write!(
                    y,
                    "      - name: \"cpu\"\n        nominalQuota: {}\n      - name: \"memory\"\n        nominalQuota: {}\n",
                    self.cpu, self.memory
                );
            }
        }
        for team in &self.teams {
            let _ = write!(
                y,
                "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: {}\n  namespace: {team}\nspec:\n  clusterQueue: {team}-queue\n",
                self.queue_name
            );
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags() -> SetupFlags {
        SetupFlags {
            gpu_types: "a100=5,h100=2".into(),
            teams: "a,b".into(),
            cpu: "32".into(),
            memory: "128Gi".into(),
            cohort: "gpu".into(),
            priorities: "production=1000".into(),
            queue_name: "training-queue".into(),
            gpu_resource: "nvidia.com/gpu".into(),
            ..SetupFlags::default()
        }
    }

    #[test]
    fn gpus_are_split_evenly_and_the_others_quota_is_borrowable() {
        let plan = Plan::from_flags(&flags()).unwrap();
        assert_eq!(plan.quota, vec![vec![3, 1], vec![2, 1]]);
        assert_eq!((plan.borrowing(0, 0), plan.borrowing(1, 0)), (2, 3));
        let quota = Plan::from_flags(&SetupFlags {
            quota: vec!["b:a100=5".into()],
            ..flags()
        })
        .unwrap();
        assert_eq!(quota.quota[1], vec![5, 1]);
    }

    #[test]
    fn bad_flags_name_the_flag_and_keep_the_cause() {
        let bad = |f: SetupFlags| Plan::from_flags(&f).unwrap_err().to_string();
        let e = bad(SetupFlags {
            gpu_types: "a100=x".into(),
            ..flags()
        });
        assert!(
            e.starts_with("--gpu-types \"a100=x\": \"x\" is not a GPU count: "),
            "{e}"
        );
        let e = bad(SetupFlags {
            quota: vec!["c:a100=1".into()],
            ..flags()
        });
        assert!(e.contains("c is not one of --teams"), "{e}");
        let e = bad(SetupFlags {
            cohort: String::new(),
            borrowing_limit: Some(1),
            ..flags()
        });
        assert!(e.contains("needs a --cohort"), "{e}");
    }
}
