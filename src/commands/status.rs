//! `kubectl kueue status`: the queues at a glance. Per cohort, each ClusterQueue's quota and
//! usage per flavor and resource; the LocalQueues; the workloads with their state, position,
//! wait and flavor. Usage and positions come from the engine run on a snapshot of the
//! cluster's objects, so the view is the same on our controller and upstream Kueue's.
//! `-w` redraws whenever a watched object changes.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use futures::StreamExt;
use kube::api::Api;
use kube::runtime::watcher;

use super::common::{self, PrintArgs, Snapshot, WorkloadState};
use super::{CliResult, Outcome};
use crate::api::workload_status::condition;
use crate::api::{ClusterQueue, LocalQueue, Workload};
use crate::cli::{GlobalArgs, OutputFormat};
use crate::output::Printer;
use crate::output::status::{
    ClusterQueueStatus, CohortStatus, LocalQueueStatus, QuotaStatus, StatusView, WorkloadStatus,
};
use crate::scheduler::quantity::format_amount;

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

/// Builds the view from a snapshot. `namespace` limits LocalQueues and workloads (None: all).
pub fn build(
    snap: &Snapshot,
    namespace: Option<&str>,
    only: &[String],
    show_finished: bool,
) -> StatusView {
    let views = snap.engine.cluster_queues();
    let wanted = |cq: &str| only.is_empty() || only.iter().any(|o| o == cq);
    let mut by_cohort: BTreeMap<Option<String>, Vec<ClusterQueueStatus>> = BTreeMap::new();
    for v in &views {
        if !wanted(&v.name) {
            continue;
        }
        let quota = v
            .usage
            .iter()
            .map(|u| {
                let r = &u.resource;
                let capacity = match (&v.cohort, u.borrowing_limit) {
                    (None, _) => u.nominal,
                    (Some(_), Some(b)) => u.nominal.saturating_add(b),
                    (Some(_), None) => u.reserved.saturating_add(u.available),
                };
                QuotaStatus {
                    flavor: u.flavor.clone(),
                    resource: r.clone(),
                    nominal: format_amount(r, u.nominal),
                    borrowing_limit: u.borrowing_limit.map(|b| format_amount(r, b)),
                    lending_limit: u.lending_limit.map(|b| format_amount(r, b)),
                    in_use: format_amount(r, u.reserved),
                    admitted: format_amount(r, u.admitted),
                    borrowed: format_amount(r, u.borrowed),
                    available: format_amount(r, u.available),
                    in_use_units: u.reserved,
                    capacity_units: capacity,
                }
            })
            .collect();
        by_cohort
            .entry(v.cohort.clone())
            .or_default()
            .push(ClusterQueueStatus {
                name: v.name.clone(),
                active: v.inactive.is_none(),
                inactive_reason: v
                    .inactive
                    .as_ref()
                    .map(|i| i.condition_reason().to_string()),
                inactive_message: v.inactive.as_ref().map(|i| i.message()),
                pending_workloads: v.pending,
                reserving_workloads: v.reserving,
                admitted_workloads: v.admitted,
                quota,
            });
    }
    // Named cohorts first (BTreeMap puts None first), then the queues without one.
    let mut cohorts: Vec<CohortStatus> = Vec::new();
    let mut loose = None;
    for (cohort, cqs) in by_cohort {
        let parent = cohort
            .as_ref()
            .and_then(|c| snap.converted.state.cohorts.get(c))
            .and_then(|c| c.parent.clone());
        let section = CohortStatus {
            cohort: cohort.clone(),
            parent,
            cluster_queues: cqs,
        };
        if cohort.is_none() {
            loose = Some(section);
        } else {
            cohorts.push(section);
        }
    }
    cohorts.extend(loose);

    let in_scope = |ns: &str| namespace.is_none_or(|n| n == ns);
    let entries: Vec<&Workload> = snap.converted.workloads.iter().map(|e| &e.object).collect();
    let counts = super::list::local_queue_counts(&entries);
    let mut local_queues: Vec<LocalQueueStatus> = snap
        .inventory
        .local_queues
        .iter()
        .map(|s| &s.obj)
        .filter(|lq| in_scope(lq.metadata.namespace.as_deref().unwrap_or("default")))
        .filter(|lq| wanted(lq.spec.cluster_queue_name().unwrap_or("")))
        .map(|lq: &LocalQueue| {
            let ns = lq
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            let name = lq.metadata.name.clone().unwrap_or_default();
            let c = counts
                .get(&(ns.clone(), name.clone()))
                .copied()
                .unwrap_or_default();
            LocalQueueStatus {
                namespace: ns,
                name,
                cluster_queue: lq.spec.cluster_queue_name().unwrap_or("").to_string(),
                stop_policy: format!("{:?}", lq.spec.stop_policy),
                pending_workloads: c.0,
                reserving_workloads: c.1,
                admitted_workloads: c.2,
            }
        })
        .collect();
    local_queues.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));

    let positions = snap.positions();
    let mut finished_not_shown = 0;
    let mut workloads: Vec<(u8, WorkloadStatus)> = Vec::new();
    for w in entries {
        let ns = w
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        if !in_scope(&ns) {
            continue;
        }
        let lq = w.spec.queue().unwrap_or("").to_string();
        let admission_cq = w
            .status
            .as_ref()
            .and_then(|s| s.admission.as_ref())
            .map(|a| a.cluster_queue.clone());
        let cq = admission_cq
            .or_else(|| snap.cluster_queue_of(&ns, &lq))
            .unwrap_or_default();
        if !only.is_empty() && !wanted(&cq) {
            continue;
        }
        let state = WorkloadState::of(w);
        if state == WorkloadState::Finished && !show_finished {
            finished_not_shown += 1;
            continue;
        }
        let key = common::key_of(w);
        let pos = positions.get(&key);
        let (reason, message) = match state {
            WorkloadState::Pending | WorkloadState::Inactive => {
                snap.pending_reason(w).unwrap_or_default()
            }
            WorkloadState::Evicted | WorkloadState::Finished | WorkloadState::QuotaReserved => {
                let t = match state {
                    WorkloadState::Evicted => condition::EVICTED,
                    WorkloadState::Finished => condition::FINISHED,
                    _ => condition::ADMITTED,
                };
                w.status
                    .as_ref()
                    .and_then(|s| s.condition(t))
                    .map(|c| (c.reason.clone(), c.message.clone()))
                    .unwrap_or_default()
            }
            WorkloadState::Admitted => Default::default(),
        };
        let group = match state {
            WorkloadState::Admitted | WorkloadState::QuotaReserved | WorkloadState::Evicted => 0,
            WorkloadState::Pending => 1,
            WorkloadState::Inactive => 2,
            WorkloadState::Finished => 3,
        };
        workloads.push((
            group,
            WorkloadStatus {
                namespace: ns,
                name: w.metadata.name.clone().unwrap_or_default(),
                local_queue: lq,
                cluster_queue: cq,
                priority: w.spec.priority_or_default(),
                state: state.word().to_string(),
                position: pos.map(|p| p.in_cluster_queue),
                queue_length: pos.map(|p| p.queue_length),
                wait_millis: common::wait_time(w, snap.now),
                flavors: common::assigned_flavors(w),
                reason,
                message,
            },
        ));
    }
    workloads.sort_by(|(ga, a), (gb, b)| {
        (
            &a.cluster_queue,
            ga,
            a.position.unwrap_or(usize::MAX),
            &a.namespace,
            &a.name,
        )
            .cmp(&(
                &b.cluster_queue,
                gb,
                b.position.unwrap_or(usize::MAX),
                &b.namespace,
                &b.name,
            ))
    });
    StatusView {
        cohorts,
        local_queues,
        workloads: workloads.into_iter().map(|(_, w)| w).collect(),
        finished_not_shown,
        namespace: namespace.map(str::to_string),
    }
}

/// The view as the chosen output format.
pub fn format(view: &StatusView, printer: &Printer) -> anyhow::Result<String> {
    if let Some(text) = printer.data_text(view)? {
        return Ok(text);
    }
    Ok(match printer.format() {
        OutputFormat::Name => {
            let mut s = String::new();
            for c in &view.cohorts {
                for cq in &c.cluster_queues {
                    s.push_str(&format!("clusterqueue.kueue.x-k8s.io/{}\n", cq.name));
                }
            }
            for lq in &view.local_queues {
                s.push_str(&format!("localqueue.kueue.x-k8s.io/{}\n", lq.name));
            }
            for w in &view.workloads {
                s.push_str(&format!("workload.kueue.x-k8s.io/{}\n", w.name));
            }
            s
        }
        _ => crate::output::status::render(
            view,
            printer.wide(),
            printer.no_headers(),
            printer.color(),
        ),
    })
}

pub fn run(global: &GlobalArgs, args: StatusArgs) -> CliResult {
    let printer = common::printer(global, &args.print);
    Ok(common::block_on(async move {
        let conn = common::connect(global).await?;
        let namespace = (!args.all_namespaces).then(|| conn.namespace.clone());
        let render = |snap: &Snapshot| -> anyhow::Result<String> {
            let view = build(snap, namespace.as_deref(), &args.cluster_queues, args.all);
            format(&view, &printer)
        };
        let snap = Snapshot::read(&conn.client).await?;
        let first = render(&snap)?;
        if !args.watch {
            printer.write(&first)?;
            return Ok(Outcome::Success);
        }
        watch(&conn.client, &printer, first, render).await
    })?)
}

/// Redraws after every burst of changes to the watched kinds, and every few seconds so wait
/// times move on. On a terminal the screen is cleared; otherwise views follow each other,
/// separated by a blank line.
async fn watch(
    client: &kube::Client,
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
    let cfg = watcher::Config::default();
    let changes = futures::stream::select_all(vec![
        watcher(Api::<Workload>::all(client.clone()), cfg.clone())
            .map(|_| ())
            .boxed(),
        watcher(Api::<ClusterQueue>::all(client.clone()), cfg.clone())
            .map(|_| ())
            .boxed(),
        watcher(Api::<LocalQueue>::all(client.clone()), cfg.clone())
            .map(|_| ())
            .boxed(),
        watcher(
            Api::<crate::api::ResourceFlavor>::all(client.clone()),
            cfg.clone(),
        )
        .map(|_| ())
        .boxed(),
    ]);
    futures::pin_mut!(changes);
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
        let snap = match Snapshot::read(client).await {
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
