//! `kubectl kueue stop clusterqueue|localqueue|workload`: put a queue on hold (its
//! `spec.stopPolicy`, `HoldAndDrain` unless `--keep-already-running`) or deactivate a
//! workload (`spec.active: false`, which evicts it if admitted). `resume` undoes both.

use clap::{Args, Subcommand};
use kube::Resource;
use kube::api::{Api, Patch, PatchParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{ClusterQueue, LocalQueue, Workload};
use crate::cli::GlobalArgs;
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
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = super::create::DryRun::None)]
    pub dry_run: super::create::DryRun,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Args)]
pub struct WorkloadTarget {
    /// Name of the Workload (in -n NAMESPACE).
    pub name: String,
    /// Only print what would change (client), or have the API server check it (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = super::create::DryRun::None)]
    pub dry_run: super::create::DryRun,
    #[command(flatten)]
    pub print: PrintArgs,
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
                patch_cluster::<ClusterQueue>(
                    global,
                    &a.name,
                    json!({"spec": {"stopPolicy": policy}}),
                    "stopped",
                    a.dry_run,
                    &a.print,
                )
                .await
            }
            StopWhat::LocalQueue(a) => {
                let policy = if a.keep_already_running {
                    "Hold"
                } else {
                    "HoldAndDrain"
                };
                patch_namespaced::<LocalQueue>(
                    global,
                    &a.name,
                    json!({"spec": {"stopPolicy": policy}}),
                    "stopped",
                    a.dry_run,
                    &a.print,
                )
                .await
            }
            StopWhat::Workload(a) => {
                patch_namespaced::<Workload>(
                    global,
                    &a.name,
                    json!({"spec": {"active": false}}),
                    "stopped",
                    a.dry_run,
                    &a.print,
                )
                .await
            }
        }
    })?)
}

fn kind_word<K: Resource<DynamicType = ()>>() -> String {
    K::kind(&()).to_lowercase()
}

/// Reads the object (so a missing one gives a clear error), merge-patches it and prints
/// `kind.group/name <verb>`.
pub async fn patch_cluster<K>(
    global: &GlobalArgs,
    name: &str,
    patch: serde_json::Value,
    verb: &str,
    dry: super::create::DryRun,
    print: &PrintArgs,
) -> anyhow::Result<Outcome>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::ClusterResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + std::fmt::Debug,
{
    let conn = common::connect(global).await?;
    let api: Api<K> = Api::all(conn.client);
    let printer = common::printer(global, print);
    apply_patch(
        api,
        &kind_word::<K>(),
        name,
        name,
        patch,
        verb,
        dry,
        &printer,
    )
    .await
}

pub async fn patch_namespaced<K>(
    global: &GlobalArgs,
    name: &str,
    patch: serde_json::Value,
    verb: &str,
    dry: super::create::DryRun,
    print: &PrintArgs,
) -> anyhow::Result<Outcome>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + std::fmt::Debug,
{
    let conn = common::connect(global).await?;
    let api: Api<K> = Api::namespaced(conn.client, &conn.namespace);
    let label = format!("{name} in namespace {}", conn.namespace);
    let printer = common::printer(global, print);
    apply_patch(
        api,
        &kind_word::<K>(),
        name,
        &label,
        patch,
        verb,
        dry,
        &printer,
    )
    .await
}

#[allow(clippy::too_many_arguments)]
async fn apply_patch<K>(
    api: Api<K>,
    kind: &str,
    name: &str,
    label: &str,
    patch: serde_json::Value,
    verb: &str,
    dry: super::create::DryRun,
    printer: &Printer,
) -> anyhow::Result<Outcome>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    let current = api
        .get_opt(name)
        .await
        .map_err(|e| common::api_error(e, &format!("cannot read {kind} {label}")))?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{kind} {label} not found (kubectl kueue list {kind} shows what exists)"
            )
        })?;
    let result = if dry == super::create::DryRun::Client {
        let mut v = serde_json::to_value(&current)?;
        merge(&mut v, &patch);
        serde_json::from_value(v)?
    } else {
        let pp = PatchParams {
            dry_run: dry == super::create::DryRun::Server,
            field_manager: Some("kubectl-kueue".into()),
            ..Default::default()
        };
        api.patch(name, &pp, &Patch::Merge(&patch))
            .await
            .map_err(|e| common::api_error(e, &format!("cannot update {kind} {label}")))?
    };
    if !printer.objects(&[&result])? {
        let suffix = match dry {
            super::create::DryRun::None => "",
            super::create::DryRun::Client => " (dry run)",
            super::create::DryRun::Server => " (server dry run)",
        };
        printer.line(format!("{} {verb}{suffix}", resource_name(&result)))?;
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
