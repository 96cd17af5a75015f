//! `kubectl kueue stop clusterqueue|localqueue|workload`: put a queue on hold (its
//! `spec.stopPolicy`, `HoldAndDrain` unless `--keep-already-running`) or deactivate a
//! workload (`spec.active: false`, which evicts it if admitted). `resume` undoes both.

use clap::{Args, Subcommand};
use serde_json::json;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, Workload};
use crate::cli::{DryRun, GlobalArgs};
use crate::kube::objects::{Namespaced, Object, kind};
use crate::output::Printer;
use crate::output::printer::resource_name;

#[derive(Debug, Args)]
pub struct StopArgs {
    #[command(subcommand)]
    pub what: StopWhat,
}

#[derive(Debug, Subcommand)]
pub enum StopWhat {
    /// Stop a ClusterQueue: no new admissions; its admitted workloads are evicted unless
    /// --keep-already-running.
    #[command(
        name = "clusterqueue",
        visible_alias = "cq",
        after_help = "Examples:\n  kubectl kueue stop clusterqueue team-a-queue\n  kubectl kueue stop cq team-a-queue --keep-already-running"
    )]
    ClusterQueue(StopQueue),
    /// Stop a LocalQueue: no new admissions from it; its admitted workloads are evicted
    /// unless --keep-already-running.
    #[command(
        name = "localqueue",
        visible_alias = "lq",
        after_help = "Examples:\n  kubectl kueue stop localqueue training-queue -n team-a"
    )]
    LocalQueue(StopQueue),
    /// Stop a Workload (spec.active=false): it is not admitted, and if it is, it is evicted
    /// and goes back to its queue as if preempted.
    #[command(name = "workload", visible_aliases = ["kwl", "kueueworkload"], after_help = "Examples:\n  kubectl kueue stop workload job-experiment-1-9f7b8 -n team-a")]
    Workload(WorkloadTarget),
}

#[derive(Debug, Args)]
pub struct StopQueue {
    /// Name of the queue.
    pub name: String,
    /// Let admitted workloads run to completion (stopPolicy Hold instead of HoldAndDrain).
    #[arg(long)]
    pub keep_already_running: bool,
    /// Only print what would change (client), or have the API server check it (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = DryRun::None)]
    pub dry_run: DryRun,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct WorkloadTarget {
    /// Name of the Workload (in -n NAMESPACE).
    pub name: String,
    /// Only print what would change (client), or have the API server check it (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = DryRun::None)]
    pub dry_run: DryRun,
    #[command(flatten)]
    pub print: PrintArgs,
}

fn stop(patch: serde_json::Value, dry_run: DryRun) -> Change<'static> {
    Change {
        patch,
        verb: "stopped",
        dry_run,
    }
}

pub fn run(global: &GlobalArgs, args: StopArgs) -> CliResult {
    Ok(common::block_on(async {
        match args.what {
            StopWhat::ClusterQueue(a) => {
                let policy = if a.keep_already_running {
                    "Hold"
                } else {
                    "HoldAndDrain"
                };
                let change = stop(json!({"spec": {"stopPolicy": policy}}), a.dry_run);
                patch_cluster::<ClusterQueue>(global, &a.name, change, &a.print).await
            }
            StopWhat::LocalQueue(a) => {
                let policy = if a.keep_already_running {
                    "Hold"
                } else {
                    "HoldAndDrain"
                };
                let change = stop(json!({"spec": {"stopPolicy": policy}}), a.dry_run);
                patch_namespaced::<LocalQueue>(global, &a.name, change, &a.print).await
            }
            StopWhat::Workload(a) => {
                let change = stop(json!({"spec": {"active": false}}), a.dry_run);
                patch_namespaced::<Workload>(global, &a.name, change, &a.print).await
            }
        }
    })?)
}

/// A change to one object: the merge patch, and the word for it (`stopped`).
pub struct Change<'a> {
    pub patch: serde_json::Value,
    pub verb: &'a str,
    pub dry_run: DryRun,
}

fn not_found(kind: &str, label: &str) -> anyhow::Error {
    anyhow::anyhow!("{kind} {label} not found (kubectl kueue list {kind} shows what exists)")
}

/// Reads the cluster-scoped object (so a missing one gives a clear error), merge-patches it
/// and prints `kind.group/name <verb>`.
pub async fn patch_cluster<K: Object>(
    global: &GlobalArgs,
    name: &str,
    change: Change<'_>,
    print: &PrintArgs,
) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let kind = kind::<K>().to_lowercase();
    let current: K = conn
        .get(name)
        .await?
        .ok_or_else(|| not_found(&kind, name))?;
    let result = match change.dry_run {
        DryRun::Client => merged(&current, &change.patch)?,
        dry => {
            let server_dry_run = dry == DryRun::Server;
            conn.merge_patch(name, &change.patch, server_dry_run)
                .await?
        }
    };
    report(&common::printer(global, print), &result, &change)
}

/// The same for an object in the namespace of `-n`.
pub async fn patch_namespaced<K: Namespaced>(
    global: &GlobalArgs,
    name: &str,
    change: Change<'_>,
    print: &PrintArgs,
) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let ns = &conn.namespace;
    let kind = kind::<K>().to_lowercase();
    let current: K = conn
        .get_in(ns, name)
        .await?
        .ok_or_else(|| not_found(&kind, &format!("{name} in namespace {ns}")))?;
    let result = match change.dry_run {
        DryRun::Client => merged(&current, &change.patch)?,
        dry => {
            let server_dry_run = dry == DryRun::Server;
            conn.merge_patch_in(ns, name, &change.patch, server_dry_run)
                .await?
        }
    };
    report(&common::printer(global, print), &result, &change)
}

fn merged<K: Object>(current: &K, patch: &serde_json::Value) -> anyhow::Result<K> {
    let mut v = serde_json::to_value(current)?;
    merge(&mut v, patch);
    Ok(serde_json::from_value(v)?)
}

fn report<K: Object>(
    printer: &Printer,
    result: &K,
    change: &Change<'_>,
) -> anyhow::Result<Outcome> {
    if !printer.objects(&[result])? {
        let suffix = change.dry_run.suffix();
        let verb = change.verb;
        printer.line(format!("{} {verb}{suffix}", resource_name(result)))?;
    }
    Ok(Outcome::Success)
}

/// JSON merge patch (RFC 7386) applied locally, for `--dry-run=client`.
fn merge(target: &mut serde_json::Value, patch: &serde_json::Value) {
    match (target, patch) {
        (serde_json::Value::Object(t), serde_json::Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(serde_json::Value::Null), v);
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}
