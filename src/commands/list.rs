//! `kubectl kueue list clusterqueue|localqueue|workload|resourceflavor`: upstream kueuectl's
//! tables (and filters), with counts and queue positions computed by the engine from the
//! Workloads themselves, so they are right on any cluster, ours or upstream's.

use std::collections::BTreeMap;

use anyhow::bail;
use clap::{Args, Subcommand};
use kube::api::{Api, ListParams};

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, ResourceFlavor, Workload};
use crate::cli::GlobalArgs;
use crate::manifests::ObjectKey;
use crate::output::Printer;
use crate::output::list as render;
use crate::output::time::{age, human_duration};
use crate::view::WorkloadState;
use crate::view::workload::{assigned_flavors, execution_time, local_queue_counts};

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

fn params(selector: &Option<String>) -> ListParams {
    match selector {
        Some(s) => ListParams::default().labels(s),
        None => ListParams::default(),
    }
}

pub fn run(global: &GlobalArgs, args: ListArgs) -> CliResult {
    let color = global.color;
    Ok(common::block_on(async move {
        let conn = common::connect(global).await?;
        let client = conn.client.clone();
        let now = common::now_millis();
        let printer = |print: &PrintArgs| Printer::new(print.output, print.no_headers, color);
        match args.what {
            ListWhat::ClusterQueue(a) => {
                let api: Api<ClusterQueue> = Api::all(client.clone());
                let cqs = api
                    .list(&params(&a.selector))
                    .await
                    .map_err(|e| common::api_error(e, "cannot list ClusterQueues"))?
                    .items;
                let snap = common::snapshot(&client).await?;
                let views: BTreeMap<String, _> = snap
                    .engine
                    .cluster_queues()
                    .into_iter()
                    .map(|v| (v.name.clone(), v))
                    .collect();
                let rows: Vec<render::CqRow> = cqs
                    .iter()
                    .filter_map(|cq| {
                        let name = cq.metadata.name.clone().unwrap_or_default();
                        let v = views.get(&name);
                        let active = v.is_some_and(|v| v.inactive.is_none());
                        if a.active.is_some_and(|want| want != active) {
                            return None;
                        }
                        Some(render::CqRow {
                            name,
                            cohort: cq.spec.cohort_name().unwrap_or("").to_string(),
                            pending: v.map_or(0, |v| v.pending),
                            admitted: v.map_or(0, |v| v.admitted),
                            active,
                            age: age(cq, now),
                        })
                    })
                    .collect();
                let keep: Vec<&ClusterQueue> = cqs
                    .iter()
                    .filter(|c| {
                        rows.iter()
                            .any(|r| Some(&r.name) == c.metadata.name.as_ref())
                    })
                    .collect();
                print_or(&keep, &printer(&a.print), |p| {
                    render::cluster_queues(&rows, p.no_headers(), p.color())
                })
            }
            ListWhat::LocalQueue(a) => {
                let api: Api<LocalQueue> = if a.all_namespaces {
                    Api::all(client.clone())
                } else {
                    Api::namespaced(client.clone(), &conn.namespace)
                };
                let lqs = api
                    .list(&params(&a.selector))
                    .await
                    .map_err(|e| common::api_error(e, "cannot list LocalQueues"))?
                    .items;
                let wls: Api<Workload> = if a.all_namespaces {
                    Api::all(client.clone())
                } else {
                    Api::namespaced(client.clone(), &conn.namespace)
                };
                let wls = wls
                    .list(&ListParams::default())
                    .await
                    .map_err(|e| common::api_error(e, "cannot list Workloads"))?
                    .items;
                let counts = local_queue_counts(&wls.iter().collect::<Vec<_>>());
                let keep: Vec<&LocalQueue> = lqs
                    .iter()
                    .filter(|lq| {
                        a.cluster_queue
                            .as_deref()
                            .is_none_or(|c| lq.spec.cluster_queue_name() == Some(c))
                    })
                    .collect();
                let rows: Vec<render::LqRow> = keep
                    .iter()
                    .map(|lq| {
                        let ns = lq.metadata.namespace.clone().unwrap_or_default();
                        let name = lq.metadata.name.clone().unwrap_or_default();
                        let c = counts
                            .get(&(ns.clone(), name.clone()))
                            .copied()
                            .unwrap_or_default();
                        render::LqRow {
                            namespace: ns,
                            name,
                            cluster_queue: lq.spec.cluster_queue_name().unwrap_or("").to_string(),
                            pending: c.pending,
                            admitted: c.admitted,
                            stop_policy: format!("{:?}", lq.spec.stop_policy),
                            age: age(*lq, now),
                        }
                    })
                    .collect();
                print_or(&keep, &printer(&a.print), |p| {
                    render::local_queues(&rows, a.all_namespaces, p.no_headers(), p.color())
                })
            }
            ListWhat::Workload(a) => {
                let statuses: Vec<String> = a.status.iter().map(|s| s.to_lowercase()).collect();
                let for_object = match &a.for_object {
                    Some(f) => Some(parse_for(f)?),
                    None => None,
                };
                let api: Api<Workload> = if a.all_namespaces {
                    Api::all(client.clone())
                } else {
                    Api::namespaced(client.clone(), &conn.namespace)
                };
                let wls = api
                    .list(&params(&a.selector))
                    .await
                    .map_err(|e| common::api_error(e, "cannot list Workloads"))?
                    .items;
                let snap = common::snapshot(&client).await?;
                let positions = snap.positions();
                let mut keep: Vec<&Workload> = Vec::new();
                let mut rows: Vec<render::WlRow> = Vec::new();
                for w in &wls {
                    let key = ObjectKey::workload(&w.metadata);
                    let lq = w.spec.queue().unwrap_or("").to_string();
                    let cq = snap.cluster_queue_of_workload(w).unwrap_or_default();
                    let state = WorkloadState::of(w);
                    if a.cluster_queue.as_ref().is_some_and(|c| &cq != c)
                        || a.local_queue.as_ref().is_some_and(|q| &lq != q)
                    {
                        continue;
                    }
                    if !statuses.is_empty()
                        && !statuses
                            .iter()
                            .any(|s| s == "all" || s.eq_ignore_ascii_case(state.upstream_word()))
                    {
                        continue;
                    }
                    let owners: Vec<(String, String)> = w
                        .metadata
                        .owner_references
                        .iter()
                        .flatten()
                        .map(|o| (o.kind.clone(), o.name.clone()))
                        .collect();
                    if let Some((kind, name)) = &for_object
                        && !owners
                            .iter()
                            .any(|(k, n)| k.eq_ignore_ascii_case(kind) && n == name)
                    {
                        continue;
                    }
                    let pos = positions.get(&key);
                    let exec = execution_time(w, now).map(human_duration);
                    rows.push(render::WlRow {
                        namespace: key.namespace.clone(),
                        name: key.name.clone(),
                        job_type: owners
                            .iter()
                            .map(|(k, _)| k.to_lowercase())
                            .collect::<Vec<_>>()
                            .join(", "),
                        job_name: owners
                            .iter()
                            .map(|(_, n)| n.clone())
                            .collect::<Vec<_>>()
                            .join(", "),
                        local_queue: lq,
                        cluster_queue: cq,
                        status: state.upstream_word().to_string(),
                        position: pos.map(|p| p.in_local_queue),
                        position_in_cluster_queue: pos.map(|p| p.in_cluster_queue),
                        priority: w.spec.priority_or_default(),
                        flavors: assigned_flavors(w).join(","),
                        exec_time: exec.unwrap_or_default(),
                        age: age(w, now),
                    });
                    keep.push(w);
                }
                print_or(&keep, &printer(&a.print), |p| {
                    render::workloads(&rows, a.all_namespaces, p.wide(), p.no_headers(), p.color())
                })
            }
            ListWhat::ResourceFlavor(a) => {
                let api: Api<ResourceFlavor> = Api::all(client.clone());
                let rfs = api
                    .list(&params(&a.selector))
                    .await
                    .map_err(|e| common::api_error(e, "cannot list ResourceFlavors"))?
                    .items;
                let rows: Vec<render::RfRow> = rfs
                    .iter()
                    .map(|rf| render::RfRow {
                        name: rf.metadata.name.clone().unwrap_or_default(),
                        node_labels: rf
                            .spec
                            .node_labels
                            .iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        age: age(rf, now),
                    })
                    .collect();
                let keep: Vec<&ResourceFlavor> = rfs.iter().collect();
                print_or(&keep, &printer(&a.print), |p| {
                    render::resource_flavors(&rows, p.no_headers(), p.color())
                })
            }
        }
    })?)
}

/// `-o json|yaml|name` of the listed objects (a `v1 List`, as kubectl prints lists), else
/// the table from `table`.
fn print_or<K>(
    objs: &[&K],
    printer: &Printer,
    table: impl FnOnce(&Printer) -> String,
) -> anyhow::Result<Outcome>
where
    K: kube::Resource<DynamicType = ()> + serde::Serialize,
{
    if !printer.listed(objs)? {
        let t = table(printer);
        if t.is_empty() {
            eprintln!("No resources found.");
        } else {
            printer.line(t)?;
        }
    }
    Ok(Outcome::Success)
}

/// `--for job/NAME` or `job.batch/NAME`: (kind, name).
fn parse_for(s: &str) -> anyhow::Result<(String, String)> {
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
    Ok((kind, name.to_string()))
}
