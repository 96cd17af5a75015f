//! `kubectl kueue list clusterqueue|localqueue|workload|resourceflavor`: upstream kueuectl's
//! tables (and filters), with counts and queue positions computed by the engine from the
//! Workloads themselves, so they are right on any cluster, ours or upstream's.

use anyhow::bail;
use clap::{Args, Subcommand};

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, ResourceFlavor, Workload};
use crate::cli::GlobalArgs;
use crate::kube::{Connection, Namespaces};
use crate::output::list as render;
use crate::view::list::{self as rows, Owner, WorkloadFilter};

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(subcommand)]
    pub what: ListWhat,
}

#[derive(Debug, Subcommand)]
pub enum ListWhat {
    /// List ClusterQueues with their cohort, pending and admitted workloads, and whether they
    /// are active.
    #[command(name = "clusterqueue", visible_aliases = ["cq", "clusterqueues"], after_help = "Examples:\n  kubectl kueue list clusterqueue\n  kubectl kueue list cq --active=false")]
    ClusterQueue(ListClusterQueues),
    /// List LocalQueues with their ClusterQueue and workload counts.
    #[command(name = "localqueue", visible_aliases = ["lq", "localqueues"], after_help = "Examples:\n  kubectl kueue list localqueue -n team-a\n  kubectl kueue list lq -A -c team-a-queue")]
    LocalQueue(ListLocalQueues),
    /// List Workloads with their queues, status and position in queue.
    #[command(
        name = "workload",
        visible_aliases = ["kwl", "workloads", "kueueworkload", "kueueworkloads"],
        after_help = "POSITION IN QUEUE is 0-based among the pending workloads of the same LocalQueue, in the\nClusterQueue's order (upstream's visibility API positionInLocalQueue); -o wide adds the\nposition in the ClusterQueue.\n\nExamples:\n  kubectl kueue list workload -n team-a\n  kubectl kueue list workload -A --status pending -c team-a-queue\n  kubectl kueue list workload --for job/weekly-retrain -n team-b"
    )]
    Workload(ListWorkloads),
    /// List ResourceFlavors with their node labels.
    #[command(name = "resourceflavor", visible_aliases = ["rf", "resourceflavors"], after_help = "Examples:\n  kubectl kueue list resourceflavor")]
    ResourceFlavor(ListResourceFlavors),
}

#[derive(Debug, Args)]
pub struct ListClusterQueues {
    /// Label selector, e.g. team=a.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Only active (true) or inactive (false) ClusterQueues.
    #[arg(long, value_name = "BOOL")]
    pub active: Option<bool>,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct ListLocalQueues {
    /// Only LocalQueues pointing to this ClusterQueue.
    #[arg(short = 'c', long = "clusterqueue", value_name = "NAME")]
    pub cluster_queue: Option<String>,
    /// Label selector, e.g. team=a.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// In every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct ListWorkloads {
    /// Only Workloads of this ClusterQueue.
    #[arg(short = 'c', long = "clusterqueue", value_name = "NAME")]
    pub cluster_queue: Option<String>,
    /// Only Workloads of this LocalQueue.
    #[arg(short = 'q', long = "localqueue", value_name = "NAME")]
    pub local_queue: Option<String>,
    /// Only Workloads in this status: all, pending, quotareserved, admitted, finished.
    /// Repeatable.
    #[arg(long, value_name = "STATUS", value_parser = ["all", "pending", "quotareserved", "admitted", "finished"], ignore_case = true)]
    pub status: Vec<String>,
    /// Only the Workloads of this object, TYPE/NAME (e.g. job/weekly-retrain).
    #[arg(long = "for", value_name = "TYPE/NAME")]
    pub for_object: Option<String>,
    /// Label selector, e.g. kueue.x-k8s.io/job-uid=....
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// In every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct ListResourceFlavors {
    /// Label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    #[command(flatten)]
    pub print: PrintArgs,
}

pub fn run(global: &GlobalArgs, args: ListArgs) -> CliResult {
    common::block_on(async move {
        let conn = common::connect(global).await?;
        match args.what {
            ListWhat::ClusterQueue(a) => {
                let cqs: Vec<ClusterQueue> = conn.list(a.selector.as_deref()).await?;
                let snap = conn.snapshot().await?;
                let l = rows::cluster_queues(&cqs, &snap, a.active);
                common::printer(global, &a.print).list_or_table(&l.objects, |p| {
                    render::cluster_queues(&l.rows, p.no_headers(), p.color())
                })?;
            }
            ListWhat::LocalQueue(a) => {
                let scope = namespaces(&conn, a.all_namespaces);
                let lqs: Vec<LocalQueue> = conn.list_in(scope, a.selector.as_deref()).await?;
                let wls: Vec<Workload> = conn.list_in(scope, None).await?;
                let now = common::now_millis();
                let l = rows::local_queues(&lqs, &wls, a.cluster_queue.as_deref(), now);
                common::printer(global, &a.print).list_or_table(&l.objects, |p| {
                    render::local_queues(&l.rows, a.all_namespaces, p.no_headers(), p.color())
                })?;
            }
            ListWhat::Workload(a) => {
                let filter = WorkloadFilter {
                    cluster_queue: a.cluster_queue.clone(),
                    local_queue: a.local_queue.clone(),
                    statuses: a.status.iter().map(|s| s.to_lowercase()).collect(),
                    owner: a.for_object.as_deref().map(parse_for).transpose()?,
                };
                let scope = namespaces(&conn, a.all_namespaces);
                let wls: Vec<Workload> = conn.list_in(scope, a.selector.as_deref()).await?;
                let snap = conn.snapshot().await?;
                let l = rows::workloads(&wls, &snap, &filter);
                common::printer(global, &a.print).list_or_table(&l.objects, |p| {
                    let (namespaces, wide) = (a.all_namespaces, p.wide());
                    render::workloads(
                        &l.rows,
                        snap.now,
                        namespaces,
                        wide,
                        p.no_headers(),
                        p.color(),
                    )
                })?;
            }
            ListWhat::ResourceFlavor(a) => {
                let rfs: Vec<ResourceFlavor> = conn.list(a.selector.as_deref()).await?;
                let l = rows::resource_flavors(&rfs, common::now_millis());
                common::printer(global, &a.print).list_or_table(&l.objects, |p| {
                    render::resource_flavors(&l.rows, p.no_headers(), p.color())
                })?;
            }
        }
        Ok(Outcome::Success)
    })
}

/// `-A`: every namespace; else the connection's.
fn namespaces(conn: &Connection, all: bool) -> Namespaces<'_> {
    if all {
        Namespaces::All
    } else {
        Namespaces::One(&conn.namespace)
    }
}

/// `--for job/NAME` or `job.batch/NAME`: the owner's kind and name.
fn parse_for(s: &str) -> anyhow::Result<Owner> {
    let Some((t, name)) = s.split_once('/') else {
        bail!("--for {s:?}: expected TYPE/NAME, e.g. job/weekly-retrain")
    };
    let kind = t.split('.').next().unwrap_or(t);
    let kind = match kind.to_lowercase().as_str() {
        "job" | "jobs" => "Job".to_string(),
        "pod" | "pods" => "Pod".to_string(),
        "jobset" | "jobsets" => "JobSet".to_string(),
        "rayjob" | "rayjobs" => "RayJob".to_string(),
        other => other.to_string(),
    };
    if name.is_empty() {
        bail!("--for {s:?}: the name after '/' is empty");
    }
    Ok(Owner {
        kind,
        name: name.to_string(),
    })
}
