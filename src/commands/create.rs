//! `kubectl kueue create clusterqueue|localqueue|resourceflavor|workloadpriorityclass`:
//! upstream kueuectl's flag shapes (`--nominal-quota "gpu-a100:nvidia.com/gpu=4;cpu=32"`),
//! checked on the client first so a mistake names the flag, not a webhook.

use anyhow::bail;
use clap::{Args, Subcommand};

use super::{CliResult, Outcome, common, common::PrintArgs};
use crate::api::{ClusterQueue, WorkloadPriorityClass};
use crate::cli::{DryRun, GlobalArgs};
use crate::kube::objects::Object;
use crate::manifests::flags::{self, ClusterQueueFlags};
use crate::output::printer::resource_name;

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

impl CreateClusterQueue {
    fn flags(&self) -> ClusterQueueFlags {
        ClusterQueueFlags {
            name: self.name.clone(),
            cohort: self.cohort.clone(),
            queuing_strategy: self.queuing_strategy.clone(),
            namespace_selector: self.namespace_selector.clone(),
            reclaim_within_cohort: self.reclaim_within_cohort.clone(),
            preemption_within_cluster_queue: self.preemption_within_cluster_queue.clone(),
            nominal_quota: self.nominal_quota.clone(),
            borrowing_limit: self.borrowing_limit.clone(),
            lending_limit: self.lending_limit.clone(),
        }
    }
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
    match args.what {
        CreateWhat::ClusterQueue(a) => {
            let cq = flags::cluster_queue(&a.flags())?;
            create_cluster_scoped(global, cq, &a.common)
        }
        CreateWhat::ResourceFlavor(a) => {
            let (labels, taints) = (a.node_labels.as_deref(), &a.node_taints);
            let rf = flags::resource_flavor(&a.name, labels, taints, &a.tolerations)?;
            create_cluster_scoped(global, rf, &a.common)
        }
        CreateWhat::PriorityClass(a) => {
            let mut wpc = WorkloadPriorityClass::new(&a.name, a.value);
            wpc.description = a.description.clone();
            create_cluster_scoped(global, wpc, &a.common)
        }
        CreateWhat::LocalQueue(a) => Ok(common::block_on(create_local_queue(global, a))?),
    }
}

/// Prints a created object: `kind.group/name created`, or the object with `-o`.
fn print_created<K: Object>(global: &GlobalArgs, obj: &K, c: &CreateCommon) -> anyhow::Result<()> {
    let printer = common::printer(global, &c.print);
    let line = format!("{} created{}", resource_name(obj), c.dry_run.suffix());
    if !printer.objects(&[obj])? {
        printer.line(line)?;
    }
    Ok(())
}

fn create_cluster_scoped<K: Object>(global: &GlobalArgs, obj: K, c: &CreateCommon) -> CliResult {
    let created = match c.dry_run {
        DryRun::Client => obj,
        dry => common::block_on(async {
            let conn = common::connect(global).await?;
            conn.create(&obj, dry == DryRun::Server).await
        })?,
    };
    print_created(global, &created, c)?;
    Ok(Outcome::Success)
}

async fn create_local_queue(global: &GlobalArgs, a: CreateLocalQueue) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let lq = flags::local_queue(&a.name, &conn.namespace, &a.cluster_queue)?;
    if a.common.dry_run == DryRun::Client {
        print_created(global, &lq, &a.common)?;
        return Ok(Outcome::Success);
    }
    let cq = &a.cluster_queue;
    if !a.ignore_unknown_cq && conn.get::<ClusterQueue>(cq).await?.is_none() {
        bail!(
            "ClusterQueue {cq:?} not found: create it first (kubectl kueue create clusterqueue {cq}), or pass --ignore-unknown-cq"
        );
    }
    let server_dry_run = a.common.dry_run == DryRun::Server;
    let created = conn.create_in(&conn.namespace, &lq, server_dry_run).await?;
    print_created(global, &created, &a.common)?;
    Ok(Outcome::Success)
}
