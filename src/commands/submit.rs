//! `kubectl kueue submit`: create a batch/v1 Job for a LocalQueue, from a file or from flags,
//! ready for Kueue: the queue label set, `suspend: true` so nothing runs before admission,
//! and limits of extended resources (`nvidia.com/gpu`) filled from their requests, which the
//! API server requires. Then it shows the Job's Workload, its queue and position, and with
//! `--wait` follows it (queued, admitted on a flavor, running, finished).

use std::time::Duration;

use anyhow::bail;
use clap::Args;
use k8s_openapi::api::batch::v1::Job;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{LocalQueue, QUEUE_NAME_LABEL};
use crate::cli::GlobalArgs;
use crate::kube::Connection;
use crate::manifests::job::{JobFlags, jobs_in, label, prepare_job, submit_namespace};
use crate::output::Printer;
use crate::output::printer::resource_name;
use crate::output::submit::{
    Reporter, dry_run_verdict, ending_line, missing_class_error, phase_text,
};
use crate::view::submit::{Ending, Milestone};

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  # A Job manifest (the seed's), queued in team B's LocalQueue with production priority
  kubectl kueue submit -f examples/gpu-two-teams/jobs/weekly-retrain.yaml

  # The same Job for another queue, followed until it is admitted
  kubectl kueue submit -f job.yaml --queue training-queue -n team-a --wait

  # A Job from flags: 2 pods with one GPU each, followed until it finishes
  kubectl kueue submit --image training:latest --gpus 1 --parallelism 2 --completions 2 \\
      --queue training-queue --priority experiment -n team-a --wait=finished -- python train.py --lr 0.1

What submit changes in a Job: the label kueue.x-k8s.io/queue-name (--queue) and, with --priority,
kueue.x-k8s.io/priority-class; spec.suspend=true, so the Job runs only once Kueue admits it; and
limits of extended resources such as nvidia.com/gpu set to their requests where missing (the API
server rejects extended-resource requests without equal limits).

Exit codes: 0 submitted (with --wait: reached the state), 1 error, 2 usage, 3 --wait ended
without reaching the state (--timeout passed, or the Job failed).")]
pub struct SubmitArgs {
    /// Job manifests: a file, a directory, or - for stdin (batch/v1 Jobs only). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH", conflicts_with_all = ["image", "command"])]
    pub files: Vec<String>,
    /// The LocalQueue (in the Job's namespace) to submit to; overrides the Job's label.
    #[arg(short = 'q', long, value_name = "LOCALQUEUE")]
    pub queue: Option<String>,
    /// A WorkloadPriorityClass for the Job (it must exist).
    #[arg(short = 'p', long, value_name = "CLASS")]
    pub priority: Option<String>,
    /// Container image: builds a Job from flags instead of -f.
    #[arg(long, value_name = "IMAGE", help_heading = "Job from flags")]
    pub image: Option<String>,
    /// Name of the Job (default: from the image, with a random suffix).
    #[arg(long, value_name = "NAME", help_heading = "Job from flags")]
    pub name: Option<String>,
    /// GPUs per pod.
    #[arg(long, value_name = "N", help_heading = "Job from flags")]
    pub gpus: Option<u32>,
    /// The resource name of --gpus.
    #[arg(
        long,
        value_name = "RESOURCE",
        default_value = "nvidia.com/gpu",
        help_heading = "Job from flags"
    )]
    pub gpu_resource: String,
    /// CPU request per pod, e.g. 4 or 500m.
    #[arg(long, value_name = "QUANTITY", help_heading = "Job from flags")]
    pub cpu: Option<String>,
    /// Memory request per pod, e.g. 16Gi.
    #[arg(long, value_name = "QUANTITY", help_heading = "Job from flags")]
    pub memory: Option<String>,
    /// Pods running at once.
    #[arg(long, value_name = "N", help_heading = "Job from flags")]
    pub parallelism: Option<i32>,
    /// Pods that must succeed.
    #[arg(long, value_name = "N", help_heading = "Job from flags")]
    pub completions: Option<i32>,
    /// Command and arguments of the container, after `--`.
    #[arg(last = true, value_name = "COMMAND", help_heading = "Job from flags")]
    pub command: Vec<String>,
    /// Follow the Workload until it is admitted (or --wait=running, --wait=finished).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "admitted", value_name = "STATE")]
    pub wait: Option<Milestone>,
    /// Create nothing: run the scheduler on a snapshot of the cluster and say whether the Job
    /// would be admitted now, on which flavor, whom it would preempt, or why it would wait.
    #[arg(long, conflicts_with = "wait")]
    pub dry_run: bool,
    /// How long --wait waits (e.g. 90s, 10m, 2h).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = crate::api::config::duration::parse_flag)]
    pub timeout: Duration,
    #[command(flatten)]
    pub print: PrintArgs,
}

/// The Jobs to submit (not yet prepared): from files, or one from flags.
fn jobs_from_args(a: &SubmitArgs) -> anyhow::Result<Vec<Job>> {
    let flags = JobFlags {
        image: a.image.clone(),
        name: a.name.clone(),
        gpus: a.gpus,
        gpu_resource: a.gpu_resource.clone(),
        cpu: a.cpu.clone(),
        memory: a.memory.clone(),
        parallelism: a.parallelism,
        completions: a.completions,
        command: a.command.clone(),
    };
    if flags.image.is_some() {
        return Ok(vec![flags.job()?]);
    }
    if a.files.is_empty() {
        bail!("nothing to submit: give -f JOB.yaml, or --image IMAGE to build a Job from flags");
    }
    if let Some(flag) = flags.first_given() {
        bail!(
            "{flag} builds a Job from flags and needs --image; with -f, edit the manifest instead"
        );
    }
    let jobs = jobs_in(crate::manifests::documents::read_all(&a.files)?)?;
    if jobs.is_empty() {
        bail!("no Job in {}", a.files.join(", "));
    }
    Ok(jobs)
}

pub fn run(global: &GlobalArgs, args: SubmitArgs) -> CliResult {
    let mut jobs = jobs_from_args(&args)?;
    for j in &mut jobs {
        let changes = prepare_job(j, args.queue.as_deref(), args.priority.as_deref())?;
        for c in changes {
            tracing::info!(job = j.metadata.name.as_deref().unwrap_or(""), "set {c}");
        }
    }
    let printer = common::printer(global, &args.print);
    Ok(common::block_on(async {
        let conn = common::connect(global).await?;
        if args.dry_run {
            return dry_run(&conn, global, &printer, jobs).await;
        }
        submit(&conn, global, &printer, &args, jobs).await
    })?)
}

/// `--dry-run`: each Job explained as if created now, on the cluster as it is.
async fn dry_run(
    conn: &Connection,
    global: &GlobalArgs,
    printer: &Printer,
    mut jobs: Vec<Job>,
) -> anyhow::Result<Outcome> {
    for job in &mut jobs {
        let ns = job
            .metadata
            .namespace
            .clone()
            .or_else(|| global.namespace.clone());
        job.metadata.namespace = Some(ns.unwrap_or_else(|| conn.namespace.clone()));
    }
    let inventory = conn.read_inventory().await?;
    let opts = crate::manifests::ConvertOptions {
        now: common::now_millis(),
        strict_namespace_selector: false,
    };
    let results = crate::explain::dry_run_jobs(&inventory, &jobs, &opts)?;
    let printed = match results.as_slice() {
        [one] => printer.data(one)?,
        all => printer.data(&all)?,
    };
    for e in results.iter().filter(|_| !printed) {
        printer.line(dry_run_verdict(e))?;
        printer.write(&crate::output::explain::render(e, printer.color()))?;
    }
    Ok(Outcome::Success)
}

async fn submit(
    conn: &Connection,
    global: &GlobalArgs,
    printer: &Printer,
    args: &SubmitArgs,
    mut jobs: Vec<Job>,
) -> anyhow::Result<Outcome> {
    for job in &mut jobs {
        let ns = submit_namespace(job, global.namespace.as_deref(), &conn.namespace)?;
        job.metadata.namespace = Some(ns);
    }
    // A priority class that does not exist leaves the Job without a Workload (upstream's
    // WorkloadPriorityClassNotFound): say so before creating anything.
    if let Some(missing) = conn.missing_priority_class(&jobs).await? {
        bail!(missing_class_error(&missing, args.priority.as_deref()));
    }
    let mut created: Vec<Job> = Vec::new();
    for job in jobs {
        let ns = job.metadata.namespace.clone().unwrap_or_default();
        let lq = label(&job, QUEUE_NAME_LABEL).unwrap_or_default();
        if let Ok(None) = conn.get_in::<LocalQueue>(&ns, lq).await {
            crate::output::warn(&format!(
                "LocalQueue {lq} does not exist in namespace {ns}: the Job stays suspended until it does (kubectl kueue list localqueue -n {ns})"
            ));
        }
        created.push(conn.create_in(&ns, &job, false).await?);
    }
    let quiet = printer.objects(&created.iter().collect::<Vec<_>>())?;
    let mut outcome = Outcome::Success;
    for job in &created {
        if !quiet {
            printer.line(format!("{} created", resource_name(job)))?;
        }
        let report = Reporter::new(printer, !quiet);
        outcome = outcome.or_worse(follow(conn, job, args, report).await?);
    }
    Ok(outcome)
}

/// Prints the Workload, its queue and position; with `--wait`, follows it until that state,
/// the timeout, or the end.
async fn follow(
    conn: &Connection,
    job: &Job,
    args: &SubmitArgs,
    mut report: Reporter<'_>,
) -> anyhow::Result<Outcome> {
    let goal = args.wait;
    if goal.is_some() {
        report.start();
    }
    let followed = conn
        .follow_job(job, goal, args.timeout, |p| report.step(&phase_text(p)))
        .await;
    report.done();
    let ending = followed?;
    report.summary(&ending_line(&ending, job, args.timeout.as_secs()))?;
    Ok(match ending {
        Ending::Seen { .. } | Ending::Reached(_) => Outcome::Success,
        Ending::Failed(_) => Outcome::JobFailed,
        Ending::TimedOut(_) => Outcome::WaitTimedOut,
    })
}
