//! `kubectl kueue create clusterqueue|localqueue|resourceflavor|workloadpriorityclass`:
//! upstream kueuectl's flag shapes (`--nominal-quota "gpu-a100:nvidia.com/gpu=4;cpu=32"`),
//! checked on the client first so a mistake names the flag, not a webhook.

use std::collections::BTreeSet;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde_json::json;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, ResourceFlavor, WorkloadPriorityClass};
use crate::cli::GlobalArgs;
use crate::kube::objects::Object;
use crate::output::printer::resource_name;
use crate::scheduler::quantity::parse_amount;

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(subcommand)]
    pub what: CreateWhat,
}

#[derive(Debug, Subcommand)]
pub enum CreateWhat {
    /// Create a ClusterQueue: quota per flavor and resource, cohort, preemption.
    #[command(name = "clusterqueue", visible_alias = "cq", after_help = CQ_EXAMPLES)]
    ClusterQueue(CreateClusterQueue),
    /// Create a LocalQueue in a namespace, pointing to a ClusterQueue.
    #[command(name = "localqueue", visible_alias = "lq", after_help = LQ_EXAMPLES)]
    LocalQueue(CreateLocalQueue),
    /// Create a ResourceFlavor: the node labels, taints and tolerations of a kind of node.
    #[command(name = "resourceflavor", visible_alias = "rf", after_help = RF_EXAMPLES)]
    ResourceFlavor(CreateResourceFlavor),
    /// Create a WorkloadPriorityClass (jobs pick it with --priority or the
    /// kueue.x-k8s.io/priority-class label).
    #[command(name = "workloadpriorityclass", visible_alias = "wpc", after_help = WPC_EXAMPLES)]
    PriorityClass(CreatePriorityClass),
}

const CQ_EXAMPLES: &str = "\
Examples:
  # A ClusterQueue with 4 A100 GPUs, 32 CPUs and 128Gi of memory, borrowing up to 4 GPUs
  kubectl kueue create clusterqueue team-a-queue --cohort gpu-cluster \\
      --nominal-quota \"gpu-a100:nvidia.com/gpu=4;cpu=32;memory=128Gi\" \\
      --borrowing-limit \"gpu-a100:nvidia.com/gpu=4\" \\
      --reclaim-within-cohort Any --preemption-within-cluster-queue LowerPriority

  # Two flavors in one resource group (separate them with a comma or repeat the flag)
  kubectl kueue create cq research --nominal-quota \"gpu-a100:nvidia.com/gpu=8,gpu-h100:nvidia.com/gpu=4\"

  # Only from namespaces labelled team=a
  kubectl kueue create cq team-a-queue --namespace-selector team=a --nominal-quota \"cpu-pool:cpu=64\"

Quota flags take FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...], several flavors separated by
commas or given by repeating the flag. Flavors covering the same resources form one resource
group, in the order given (the order in which flavors are tried).";

const LQ_EXAMPLES: &str = "\
Examples:
  # A LocalQueue in namespace team-a for ClusterQueue team-a-queue
  kubectl kueue create localqueue training-queue -n team-a -c team-a-queue

  # The ClusterQueue does not exist yet
  kubectl kueue create lq training-queue -n team-a -c team-a-queue --ignore-unknown-cq";

const RF_EXAMPLES: &str = "\
Examples:
  # The seed's A100 nodes
  kubectl kueue create resourceflavor gpu-a100 --node-labels gpu-type=a100

  # Nodes with a taint, and the toleration Kueue adds to admitted pods
  kubectl kueue create rf gpu-h100 --node-labels gpu-type=h100 \\
      --node-taints nvidia.com/gpu=present:NoSchedule --tolerations nvidia.com/gpu=present:NoSchedule";

const WPC_EXAMPLES: &str = "\
Examples:
  kubectl kueue create workloadpriorityclass production --value 1000 --description \"Production jobs\"";

/// kubectl's `--dry-run` strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum DryRun {
    /// Send the request.
    #[default]
    None,
    /// Only print what would be sent.
    Client,
    /// Let the API server validate it without storing it.
    Server,
}

/// Flags every create command has.
#[derive(Debug, Args)]
pub struct CreateCommon {
    /// Only print the object (client) or have the API server check it without storing it
    /// (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = DryRun::None)]
    pub dry_run: DryRun,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct CreateClusterQueue {
    /// Name of the ClusterQueue.
    pub name: String,
    /// The cohort the ClusterQueue borrows from and lends to.
    #[arg(long, value_name = "COHORT_NAME")]
    pub cohort: Option<String>,
    /// Queueing strategy: BestEffortFIFO (default) or StrictFIFO.
    #[arg(long = "queuing-strategy", alias = "queueing-strategy", value_name = "STRATEGY", value_parser = ["BestEffortFIFO", "StrictFIFO"])]
    pub queuing_strategy: Option<String>,
    /// Namespaces allowed to submit, by label: KEY=VALUE[,KEY=VALUE]. Without it, every namespace.
    #[arg(long, value_name = "KEY=VALUE")]
    pub namespace_selector: Option<String>,
    /// Whether a pending workload may preempt workloads of other ClusterQueues in the cohort
    /// that use more than their nominal quota.
    #[arg(long, value_name = "POLICY", value_parser = ["Never", "LowerPriority", "Any"])]
    pub reclaim_within_cohort: Option<String>,
    /// Whether a pending workload that does not fit in the nominal quota may preempt workloads
    /// of its own ClusterQueue.
    #[arg(long, value_name = "POLICY", value_parser = ["Never", "LowerPriority", "LowerOrNewerEqualPriority"])]
    pub preemption_within_cluster_queue: Option<String>,
    /// Nominal quota: FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]. Repeatable.
    #[allow(rustdoc::broken_intra_doc_links)] // clap help text, not a doc link
    #[arg(long, value_name = "FLAVOR:RESOURCE=QUANTITY")]
    pub nominal_quota: Vec<String>,
    /// How much more than its nominal quota the ClusterQueue may borrow from the cohort
    /// (same form; needs --cohort). Unset: unlimited.
    #[arg(long, value_name = "FLAVOR:RESOURCE=QUANTITY")]
    pub borrowing_limit: Vec<String>,
    /// How much of its unused nominal quota the ClusterQueue lends to the cohort (same form;
    /// needs --cohort). Unset: all of it.
    #[arg(long, value_name = "FLAVOR:RESOURCE=QUANTITY")]
    pub lending_limit: Vec<String>,
    #[command(flatten)]
    pub common: CreateCommon,
}

#[derive(Debug, Args)]
pub struct CreateLocalQueue {
    /// Name of the LocalQueue.
    pub name: String,
    /// The ClusterQueue its workloads go to (required).
    #[arg(short = 'c', long = "clusterqueue", value_name = "CLUSTER_QUEUE_NAME")]
    pub cluster_queue: String,
    /// Create it even when the ClusterQueue does not exist (yet).
    #[arg(short = 'i', long)]
    pub ignore_unknown_cq: bool,
    #[command(flatten)]
    pub common: CreateCommon,
}

#[derive(Debug, Args)]
pub struct CreateResourceFlavor {
    /// Name of the ResourceFlavor.
    pub name: String,
    /// Labels of the flavor's nodes: KEY=VALUE[,KEY=VALUE]. Admitted pods get them as node
    /// selector.
    #[arg(long, value_name = "KEY=VALUE")]
    pub node_labels: Option<String>,
    /// Taints of the flavor's nodes: KEY[=VALUE]:EFFECT[,...]. Repeatable.
    #[arg(long, value_name = "KEY[=VALUE]:EFFECT", value_delimiter = ',')]
    pub node_taints: Vec<String>,
    /// Tolerations added to admitted pods: KEY[=VALUE][:EFFECT] or :EFFECT[,...]. Repeatable.
    #[allow(rustdoc::broken_intra_doc_links)] // clap help text, not a doc link
    #[arg(long, value_name = "KEY[=VALUE][:EFFECT]", value_delimiter = ',')]
    pub tolerations: Vec<String>,
    #[command(flatten)]
    pub common: CreateCommon,
}

#[derive(Debug, Args)]
pub struct CreatePriorityClass {
    /// Name of the WorkloadPriorityClass.
    pub name: String,
    /// Priority value; higher goes first and may preempt lower.
    #[arg(long, allow_negative_numbers = true)]
    pub value: i32,
    /// What the class is for.
    #[arg(long)]
    pub description: Option<String>,
    #[command(flatten)]
    pub common: CreateCommon,
}

pub fn run(global: &GlobalArgs, args: CreateArgs) -> CliResult {
    let outcome = match args.what {
        CreateWhat::ClusterQueue(a) => {
            let cq = cluster_queue(&a)?;
            common::block_on(create_cluster_scoped(global, cq, &a.common))
        }
        CreateWhat::ResourceFlavor(a) => {
            let rf = resource_flavor(&a)?;
            common::block_on(create_cluster_scoped(global, rf, &a.common))
        }
        CreateWhat::PriorityClass(a) => {
            let mut wpc = WorkloadPriorityClass::new(&a.name, a.value);
            wpc.description = a.description.clone();
            common::block_on(create_cluster_scoped(global, wpc, &a.common))
        }
        CreateWhat::LocalQueue(a) => common::block_on(create_local_queue(global, a)),
    }?;
    Ok(outcome)
}

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
) -> anyhow::Result<()> {
    for value in values {
        for spec in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (flavor, resources) = spec.split_once(':').with_context(|| {
                format!("--{flag} {spec:?}: expected FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY], e.g. \"gpu-a100:nvidia.com/gpu=4;cpu=32\"")
            })?;
            let flavor = flavor.trim();
            if flavor.is_empty() {
                bail!("--{flag} {spec:?}: the flavor name before ':' is empty");
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
                let (res, qty) = item.split_once('=').with_context(|| {
                    format!("--{flag} {spec:?}: {item:?} is not RESOURCE=QUANTITY")
                })?;
                let (res, qty) = (res.trim(), qty.trim());
                if res.is_empty() {
                    bail!("--{flag} {spec:?}: {item:?} has no resource name");
                }
                let amount = parse_amount(res, qty)
                    .map_err(|e| anyhow::anyhow!("--{flag} {spec:?}: {res}={qty}: {e}"))?;
                if amount < 0 {
                    bail!("--{flag} {spec:?}: {res}={qty}: must not be negative");
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
                    bail!("--{flag}: {flavor}:{res} is given twice");
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
) -> anyhow::Result<Vec<serde_json::Value>> {
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
                bail!(
                    "--{flag} {f}:{r}: there is no --nominal-quota for {r} in flavor {f}; give its nominal quota too (0 is allowed)"
                );
            }
            if !has_cohort && (q.borrowing.is_some() || q.lending.is_some()) {
                let flag = if q.borrowing.is_some() {
                    "borrowing-limit"
                } else {
                    "lending-limit"
                };
                bail!("--{flag} {f}:{r}: limits only apply within a cohort; add --cohort NAME");
            }
            if let (Some(n), Some(l)) = (&q.nominal, &q.lending)
                && parse_amount(r, l)? > parse_amount(r, n)?
            {
                bail!("--lending-limit {f}:{r}={l}: must not exceed the nominal quota {n}");
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
                bail!(
                    "--nominal-quota: flavor {f} covers {} but flavor {other} covers {}; both have {shared}, and a resource belongs to one resource group only (give both flavors the same resources)",
                    rs.iter()
                        .map(|(r, _)| r.as_str())
                        .collect::<Vec<_>>()
                        .join(";"),
                    cov.join(";")
                );
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

fn cluster_queue(a: &CreateClusterQueue) -> anyhow::Result<ClusterQueue> {
    let groups = resource_groups(
        &a.nominal_quota,
        &a.borrowing_limit,
        &a.lending_limit,
        a.cohort.is_some(),
    )?;
    let mut spec = json!({
        "namespaceSelector": {},
        "queueingStrategy": a.queuing_strategy.clone().unwrap_or_else(|| "BestEffortFIFO".into()),
        "preemption": {
            "reclaimWithinCohort": a.reclaim_within_cohort.clone().unwrap_or_else(|| "Never".into()),
            "withinClusterQueue": a.preemption_within_cluster_queue.clone().unwrap_or_else(|| "Never".into()),
        },
        "resourceGroups": groups,
    });
    if let Some(c) = &a.cohort {
        spec["cohort"] = json!(c);
    }
    if let Some(sel) = &a.namespace_selector {
        spec["namespaceSelector"] =
            json!({"matchLabels": common::parse_key_values("namespace-selector", sel)?});
    }
    let v = json!({"apiVersion": crate::api::API_VERSION, "kind": "ClusterQueue", "metadata": {"name": a.name}, "spec": spec});
    crate::api::from_value(v).map_err(|e| anyhow::anyhow!("ClusterQueue {}: {e}", a.name))
}

fn split_spec_item(flag: &str, s: &str) -> anyhow::Result<(String, String, String)> {
    let (kv, effect) = match s.split_once(':') {
        Some((kv, e)) => (kv, e),
        None => (s, ""),
    };
    if effect.contains(':') {
        bail!("--{flag} {s:?}: expected KEY[=VALUE][:EFFECT]");
    }
    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
    if v.contains('=') {
        bail!("--{flag} {s:?}: expected KEY[=VALUE][:EFFECT]");
    }
    Ok((
        k.trim().to_string(),
        v.trim().to_string(),
        effect.trim().to_string(),
    ))
}

fn check_effect(flag: &str, s: &str, effect: &str) -> anyhow::Result<()> {
    match effect {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(()),
        _ => bail!(
            "--{flag} {s:?}: effect {effect:?} is not one of NoSchedule, PreferNoSchedule, NoExecute"
        ),
    }
}

fn parse_taints(specs: &[String]) -> anyhow::Result<Vec<Taint>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (key, value, effect) = split_spec_item("node-taints", s)?;
        if key.is_empty() || effect.is_empty() {
            bail!(
                "--node-taints {s:?}: expected KEY[=VALUE]:EFFECT, e.g. nvidia.com/gpu=present:NoSchedule"
            );
        }
        check_effect("node-taints", s, &effect)?;
        if !seen.insert((key.clone(), effect.clone())) {
            bail!("--node-taints {s:?}: a taint with key {key} and effect {effect} is given twice");
        }
        out.push(Taint {
            key,
            value: (!value.is_empty()).then_some(value),
            effect,
            time_added: None,
        });
    }
    Ok(out)
}

fn parse_tolerations(specs: &[String]) -> anyhow::Result<Vec<Toleration>> {
    let mut out = Vec::new();
    for s in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (key, value, effect) = split_spec_item("tolerations", s)?;
        if !effect.is_empty() {
            check_effect("tolerations", s, &effect)?;
        }
        if key.is_empty() && effect.is_empty() {
            bail!("--tolerations {s:?}: give a key, an effect, or both");
        }
        out.push(Toleration {
            key: (!key.is_empty()).then_some(key),
            operator: Some(if value.is_empty() { "Exists" } else { "Equal" }.to_string()),
            value: (!value.is_empty()).then_some(value),
            effect: (!effect.is_empty()).then_some(effect),
            toleration_seconds: None,
        });
    }
    Ok(out)
}

fn resource_flavor(a: &CreateResourceFlavor) -> anyhow::Result<ResourceFlavor> {
    let mut rf = ResourceFlavor::new(&a.name, Default::default());
    if let Some(l) = &a.node_labels {
        rf.spec.node_labels = common::parse_key_values("node-labels", l)?;
    }
    rf.spec.node_taints = parse_taints(&a.node_taints)?;
    rf.spec.tolerations = parse_tolerations(&a.tolerations)?;
    Ok(rf)
}

fn verb(dry: DryRun) -> &'static str {
    match dry {
        DryRun::None => "created",
        DryRun::Client => "created (dry run)",
        DryRun::Server => "created (server dry run)",
    }
}

/// Prints a created object: `kind.group/name created`, or the object with `-o`.
fn print_created<K: Object>(global: &GlobalArgs, obj: &K, c: &CreateCommon) -> anyhow::Result<()> {
    let printer = common::printer(global, &c.print);
    if !printer.objects(&[obj])? {
        printer.line(format!("{} {}", resource_name(obj), verb(c.dry_run)))?;
    }
    Ok(())
}

async fn create_cluster_scoped<K: Object>(
    global: &GlobalArgs,
    obj: K,
    c: &CreateCommon,
) -> anyhow::Result<Outcome> {
    if c.dry_run == DryRun::Client {
        print_created(global, &obj, c)?;
        return Ok(Outcome::Success);
    }
    let conn = common::connect(global).await?;
    let created = conn.create(&obj, c.dry_run == DryRun::Server).await?;
    print_created(global, &created, c)?;
    Ok(Outcome::Success)
}

async fn create_local_queue(global: &GlobalArgs, a: CreateLocalQueue) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let lq: LocalQueue = crate::api::from_value(json!({
        "apiVersion": crate::api::API_VERSION, "kind": "LocalQueue",
        "metadata": {"name": a.name, "namespace": conn.namespace},
        "spec": {"clusterQueue": a.cluster_queue},
    }))
    .map_err(|e| anyhow::anyhow!("LocalQueue {}: {e}", a.name))?;
    if a.common.dry_run == DryRun::Client {
        print_created(global, &lq, &a.common)?;
        return Ok(Outcome::Success);
    }
    if !a.ignore_unknown_cq && conn.get::<ClusterQueue>(&a.cluster_queue).await?.is_none() {
        bail!(
            "ClusterQueue {:?} not found: create it first (kubectl kueue create clusterqueue {}), or pass --ignore-unknown-cq",
            a.cluster_queue,
            a.cluster_queue
        );
    }
    let server_dry_run = a.common.dry_run == DryRun::Server;
    let created = conn.create_in(&conn.namespace, &lq, server_dry_run).await?;
    print_created(global, &created, &a.common)?;
    Ok(Outcome::Success)
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

    #[test]
    fn taints_and_tolerations() {
        let t = parse_taints(&s(&["nvidia.com/gpu=present:NoSchedule", "spot:NoExecute"])).unwrap();
        assert_eq!(t[0].value.as_deref(), Some("present"));
        assert_eq!(t[1].key, "spot");
        assert!(parse_taints(&s(&["spot"])).is_err());
        assert!(parse_taints(&s(&["spot:Sometimes"])).is_err());
        let t = parse_tolerations(&s(&["a=b:NoSchedule", "c", ":NoExecute"])).unwrap();
        assert_eq!(t[0].operator.as_deref(), Some("Equal"));
        assert_eq!(t[1].operator.as_deref(), Some("Exists"));
        assert_eq!(t[2].key, None);
    }
}
