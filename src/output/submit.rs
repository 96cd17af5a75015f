//! `submit`'s words: where a Job is ([`phase_text`]), the one-line verdict of `--dry-run`, and
//! the progress reporter of `--wait` (a spinner on a terminal, one line per change otherwise,
//! on stderr; the summary on stdout for table output).

use std::io::IsTerminal;
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;

use super::Printer;
use crate::api::{PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL};
use crate::explain::{Explanation, Mode};
use crate::kube::jobs::MissingClass;
use crate::manifests::job::workload_name_for_job;
use crate::view::submit::{Ending, Finish, Phase, Placement};

/// The phase as one line (`queued in ClusterQueue team-a-queue: position 0 of 2`).
pub fn phase_text(phase: &Phase) -> String {
    let on = |p: &Placement| {
        format!(
            "on flavor {} in ClusterQueue {}",
            p.flavors.join(","),
            p.cluster_queue
        )
    };
    match phase {
        Phase::NoWorkload => "waiting for its Workload (created by the Kueue controller)".into(),
        Phase::Queued {
            position,
            reason,
            estimate,
        } => {
            let why = reason
                .as_ref()
                .map(|r| format!(" ({}: {})", r.reason, r.message))
                .unwrap_or_default();
            let when = estimate
                .as_ref()
                .map(|e| format!("; estimated start {}", super::forecast::wait_cell(e)))
                .unwrap_or_default();
            match position {
                Some(p) => format!(
                    "queued in ClusterQueue {}: position {} of {}{when}{why}",
                    p.cluster_queue, p.in_cluster_queue, p.queue_length
                ),
                None => format!("pending, not queued{when}{why}"),
            }
        }
        Phase::Inactive => {
            "stopped (spec.active=false): kubectl kueue resume workload to queue it again".into()
        }
        Phase::Reserved(p) => format!("quota reserved {}, waiting for admission checks", on(p)),
        Phase::Admitted(p) => format!("admitted {}", on(p)),
        Phase::Evicted(r) => format!("evicted ({}): {}", r.reason, r.message),
        Phase::Running { pods, placement } => {
            format!("running: {pods} pod(s) active, {}", on(placement))
        }
        Phase::Finished(Finish::JobCompleted) => "finished: the Job completed".into(),
        Phase::Finished(Finish::JobFailed { reason }) => {
            format!("finished: the Job failed ({reason})")
        }
        Phase::Finished(Finish::WorkloadFinished { message, .. }) => {
            format!("finished: {message}")
        }
    }
}

/// Why nothing was submitted: a priority class (from `--priority` when `flag` names it, else
/// from the label) that does not exist.
pub fn missing_class_error(missing: &MissingClass, flag: Option<&str>) -> String {
    let p = &missing.name;
    let from = if flag == Some(p.as_str()) {
        "--priority"
    } else {
        PRIORITY_CLASS_LABEL
    };
    let known = missing.known.join(", ");
    let known = if known.is_empty() { "none" } else { &known };
    format!(
        "WorkloadPriorityClass {p:?} ({from}) not found (known: {known}); create it with kubectl kueue create workloadpriorityclass {p} --value N, or pick another with --priority"
    )
}

/// The last line about a followed Job: its Workload and where it got (`--timeout` was
/// `timeout_secs`).
pub fn ending_line(ending: &Ending, job: &Job, timeout_secs: u64) -> String {
    let meta = &job.metadata;
    let (ns, name) = (meta.namespace.as_deref(), meta.name.as_deref());
    let (ns, name) = (ns.unwrap_or_default(), name.unwrap_or_default());
    let uid = meta.uid.as_deref().unwrap_or_default();
    let workload = format!(
        "workload.kueue.x-k8s.io/{}",
        workload_name_for_job(name, uid)
    );
    match ending {
        Ending::Seen {
            phase,
            workload_seen,
        } => {
            let labels = meta.labels.as_ref();
            let lq = labels.and_then(|l| l.get(QUEUE_NAME_LABEL));
            let lq = lq.map(String::as_str).unwrap_or_default();
            let expected = if *workload_seen { "" } else { " (expected)" };
            let text = phase_text(phase);
            format!("{workload}{expected} in LocalQueue {ns}/{lq}: {text}")
        }
        Ending::Reached(phase) => format!("{workload}: {}", phase_text(phase)),
        Ending::Failed(phase) => format!("job.batch/{name}: {}", phase_text(phase)),
        Ending::TimedOut(phase) => format!(
            "{workload}: still {} after {timeout_secs}s (--timeout)",
            phase_text(phase)
        ),
    }
}

/// One line: would it be admitted now, preempt, or wait?
pub fn dry_run_verdict(e: &Explanation) -> String {
    let what = e.job.clone().unwrap_or_else(|| e.workload.clone());
    let flavors: Vec<String> = e
        .evaluation
        .pod_sets
        .iter()
        .flat_map(|p| {
            p.flavors
                .iter()
                .filter(|f| f.chosen)
                .map(|f| f.flavor.clone())
        })
        .collect();
    let on = if flavors.is_empty() {
        String::new()
    } else {
        format!(" on flavor {}", flavors.join(", "))
    };
    let ahead = e.queue.as_ref().map_or(0, |q| q.ahead.len());
    match e.evaluation.mode {
        Mode::Fit if ahead == 0 => format!(
            "Dry run: {what} would be admitted now in ClusterQueue {}{on}.",
            e.cluster_queue.as_deref().unwrap_or("?")
        ),
        Mode::Fit => format!(
            "Dry run: {what} fits{on} now, but {ahead} workload(s) are ahead of it in the queue."
        ),
        Mode::Preempt if e.preemption.as_ref().is_some_and(|p| p.possible) => {
            let n = e.preemption.as_ref().map_or(0, |p| p.would_preempt.len());
            format!(
                "Dry run: {what} would preempt {n} workload(s){on} and be admitted once they have stopped."
            )
        }
        _ => format!(
            "Dry run: {what} would wait ({}): {}",
            e.evaluation.reason.as_deref().unwrap_or("pending"),
            if e.problems.is_empty() {
                e.evaluation.message.clone()
            } else {
                e.problems.join("; ")
            }
        ),
    }
}

/// Progress on stderr: a spinner on a terminal, one line per change otherwise; the summary
/// line on stdout for table output.
pub struct Reporter<'a> {
    printer: &'a Printer,
    summary_on_stdout: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl Reporter<'_> {
    pub fn new(printer: &Printer, summary_on_stdout: bool) -> Reporter<'_> {
        Reporter {
            printer,
            summary_on_stdout,
            bar: None,
        }
    }

    pub fn start(&mut self) {
        if std::io::stderr().is_terminal() {
            let pb = indicatif::ProgressBar::new_spinner();
            pb.enable_steady_tick(Duration::from_millis(120));
            self.bar = Some(pb);
        }
    }

    pub fn step(&self, msg: &str) {
        match &self.bar {
            Some(pb) => {
                pb.println(format!("  {msg}"));
                pb.set_message(msg.to_string());
            }
            None => eprintln!("  {msg}"),
        }
    }

    pub fn summary(&self, msg: &str) -> std::io::Result<()> {
        if self.summary_on_stdout {
            self.printer.line(msg)
        } else {
            eprintln!("{msg}");
            Ok(())
        }
    }

    pub fn done(&self) {
        if let Some(pb) = &self.bar {
            pb.finish_and_clear();
        }
    }
}
