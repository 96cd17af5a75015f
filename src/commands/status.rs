//! `kubectl kueue status`: the queues at a glance. Per cohort, each ClusterQueue's quota and
//! usage per flavor and resource; the LocalQueues; the workloads with their state, position,
//! wait and flavor. Usage and positions come from the engine run on a snapshot of the
//! cluster's objects, so the view is the same on our controller and upstream Kueue's.
//! `-w` redraws whenever a watched object changes.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use futures::StreamExt;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::cli::GlobalArgs;
use crate::kube::Connection;
use crate::output::Printer;
use crate::view::Snapshot;
use crate::view::status::build;

#[derive(Debug, Args)]
#[command(after_help = "\
Columns: IN USE is what workloads holding a quota reservation use, the bar compares it with the
most the ClusterQueue can hold (nominal quota plus borrowing limit); BORROWED is the part above the
nominal quota. POSITION is the 0-based place among the ClusterQueue's pending workloads (0 is
considered next), \"of N\" pending in all. WAIT is how long a workload has been pending (since its
last eviction), or how long it waited before its quota was reserved.

Examples:
  # Everything, workloads of the current namespace
  kubectl kueue status

  # Workloads of every namespace, redrawn on every change
  kubectl kueue status -A -w

  # One ClusterQueue, with lending limits, admitted usage and messages
  kubectl kueue status team-a-queue -o wide")]
pub struct StatusArgs {
    /// Only these ClusterQueues (and their LocalQueues and workloads).
    #[arg(value_name = "CLUSTERQUEUE")]
    pub cluster_queues: Vec<String>,
    /// LocalQueues and workloads of every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Include finished workloads.
    #[arg(long)]
    pub all: bool,
    /// Redraw whenever a ClusterQueue, LocalQueue, Workload or Job changes (Ctrl-C to stop).
    #[arg(short = 'w', long)]
    pub watch: bool,
    #[command(flatten)]
    pub print: PrintArgs,
}

pub fn run(global: &GlobalArgs, args: StatusArgs) -> CliResult {
    let printer = common::printer(global, &args.print);
    Ok(common::block_on(async move {
        let conn = common::connect(global).await?;
        let namespace = (!args.all_namespaces).then(|| conn.namespace.clone());
        let render = |snap: &Snapshot| -> anyhow::Result<String> {
            let view = build(snap, namespace.as_deref(), &args.cluster_queues, args.all);
            crate::output::status::text(&view, &printer)
        };
        let snap = conn.snapshot().await?;
        let first = render(&snap)?;
        if !args.watch {
            printer.write(&first)?;
            return Ok(Outcome::Success);
        }
        watch(&conn, &printer, first, render).await
    })?)
}

/// Redraws after every burst of changes to the watched kinds, and every few seconds so wait
/// times move on. On a terminal the screen is cleared; otherwise views follow each other,
/// separated by a blank line.
async fn watch(
    conn: &Connection,
    printer: &Printer,
    first: String,
    render: impl Fn(&Snapshot) -> anyhow::Result<String>,
) -> anyhow::Result<Outcome> {
    let tty = std::io::stdout().is_terminal();
    // A closed stdout ends the watch quietly.
    let show = |text: &str| -> bool {
        let screen = if tty {
            format!("\x1b[H\x1b[2J{text}")
        } else {
            format!("{text}\n")
        };
        printer.write(&screen).is_ok()
    };
    if !show(&first) {
        return Ok(Outcome::Success);
    }
    let mut last = first;
    let mut changes = conn.changes();
    // Wait times move on: redraw a terminal now and then even without events (a pipe gets a
    // new view only when something changed).
    let mut tick = tokio::time::interval(Duration::from_secs(if tty { 5 } else { 3600 }));
    tick.tick().await;
    loop {
        tokio::select! {
            ev = changes.next() => {
                if ev.is_none() {
                    return Ok(Outcome::Success);
                }
                // Let a burst of events settle, then read once.
                tokio::time::sleep(Duration::from_millis(200)).await;
                while let Some(Some(_)) = futures::FutureExt::now_or_never(changes.next()) {}
            }
            _ = tick.tick() => {}
            _ = tokio::signal::ctrl_c() => return Ok(Outcome::Success),
        }
        let snap = match conn.snapshot().await {
            Ok(s) => s,
            Err(e) => {
                crate::output::warn(&format!("cannot read the cluster, will retry: {e:#}"));
                continue;
            }
        };
        let text = render(&snap)?;
        if text != last {
            if !show(&text) {
                return Ok(Outcome::Success);
            }
            last = text;
        }
    }
}
