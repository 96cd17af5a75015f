//! `kubectl kueue resume clusterqueue|localqueue|workload`: undo `stop` (`stopPolicy: None`,
//! `spec.active: true`); the workload goes back to its queue and is admitted by the usual
//! rules.

use clap::{Args, Subcommand};
use serde_json::json;

use super::stop::{Change, WorkloadTarget, patch_cluster, patch_namespaced};
use super::{CliResult, common};
use crate::api::{ClusterQueue, LocalQueue, Workload};
use crate::cli::GlobalArgs;

#[derive(Debug, Args)]
pub struct ResumeArgs {
    #[command(subcommand)]
    pub what: ResumeWhat,
}

#[derive(Debug, Subcommand)]
pub enum ResumeWhat {
    /// Resume a stopped ClusterQueue (stopPolicy None).
    #[command(
        name = "clusterqueue",
        visible_alias = "cq",
        after_help = "Examples:\n  kubectl kueue resume clusterqueue team-a-queue"
    )]
    ClusterQueue(ResumeQueue),
    /// Resume a stopped LocalQueue (stopPolicy None).
    #[command(
        name = "localqueue",
        visible_alias = "lq",
        after_help = "Examples:\n  kubectl kueue resume localqueue training-queue -n team-a"
    )]
    LocalQueue(ResumeQueue),
    /// Resume a stopped Workload (spec.active=true): it is queued and admitted by the usual
    /// ClusterQueue rules.
    #[command(name = "workload", visible_aliases = ["kwl", "kueueworkload"], after_help = "Examples:\n  kubectl kueue resume workload job-experiment-1-9f7b8 -n team-a")]
    Workload(WorkloadTarget),
}

#[derive(Debug, Args)]
pub struct ResumeQueue {
    /// Name of the queue.
    pub name: String,
    /// Only print what would change (client), or have the API server check it (server).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "client", default_value_t = crate::cli::DryRun::None)]
    pub dry_run: crate::cli::DryRun,
    #[command(flatten)]
    pub print: common::PrintArgs,
}

fn resume(patch: serde_json::Value, dry_run: crate::cli::DryRun) -> Change<'static> {
    Change {
        patch,
        verb: "resumed",
        dry_run,
    }
}

pub fn run(global: &GlobalArgs, args: ResumeArgs) -> CliResult {
    let none = json!({"spec": {"stopPolicy": "None"}});
    Ok(common::block_on(async {
        match args.what {
            ResumeWhat::ClusterQueue(a) => {
                patch_cluster::<ClusterQueue>(global, &a.name, resume(none, a.dry_run), &a.print)
                    .await
            }
            ResumeWhat::LocalQueue(a) => {
                patch_namespaced::<LocalQueue>(global, &a.name, resume(none, a.dry_run), &a.print)
                    .await
            }
            ResumeWhat::Workload(a) => {
                let active = json!({"spec": {"active": true}});
                patch_namespaced::<Workload>(global, &a.name, resume(active, a.dry_run), &a.print)
                    .await
            }
        }
    })?)
}
