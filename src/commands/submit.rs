//! `kubectl kueue submit`: create a batch/v1 Job for a LocalQueue, from a file or from flags,
//! ready for Kueue: the queue label set, `suspend: true` so nothing runs before admission,
//! and limits of extended resources (`nvidia.com/gpu`) filled from their requests, which the
//! API server requires. Then it shows the Job's Workload, its queue and position, and with
//! `--wait` follows it (queued, admitted on a flavor, running, finished).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use k8s_openapi::api::batch::v1::Job;

use super::common::{self, PrintArgs};
use super::{CliResult, Outcome};
use crate::api::{LocalQueue, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL, WorkloadPriorityClass};
use crate::cli::GlobalArgs;
use crate::kube::Connection;
use crate::manifests::job::workload_name_for_job;
use crate::output::Printer;
use crate::output::printer::resource_name;
use crate::output::submit::{Reporter, dry_run_verdict, phase_text};
use crate::view::submit::{Milestone, Phase};

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
    pub wait: Option<WaitFor>,
    /// Create nothing: run the scheduler on a snapshot of the cluster and say whether the Job
    /// would be admitted now, on which flavor, whom it would preempt, or why it would wait.
    #[arg(long, conflicts_with = "wait")]
    pub dry_run: bool,
    /// How long --wait waits (e.g. 90s, 10m, 2h).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = parse_duration)]
    pub timeout: Duration,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum WaitFor {
    /// Quota reserved and admitted.
    Admitted,
    /// Pods running.
    Running,
    /// The Job completed or failed.
    Finished,
}

impl WaitFor {
    fn milestone(self) -> Milestone {
        match self {
            WaitFor::Admitted => Milestone::Admitted,
            WaitFor::Running => Milestone::Running,
            WaitFor::Finished => Milestone::Finished,
        }
    }
}

/// `90s`, `10m`, `2h`, `1h30m`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let mut total = 0u64;
    let mut num = String::new();
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: u64 = num
            .parse()
            .map_err(|_| format!("{s:?} is not a duration such as 90s, 10m or 1h30m"))?;
        num.clear();
        total += n * match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            _ => return Err(format!("{s:?} is not a duration such as 90s, 10m or 1h30m")),
        };
    }
    if !num.is_empty() {
        return Err(format!("{s:?}: give a unit (s, m or h) after {num}"));
    }
    Ok(Duration::from_secs(total))
}

/// Resources whose requests need equal limits: extended resources (a domain-prefixed name
/// outside `kubernetes.io`), as the API server's validation defines them.
fn is_extended(resource: &str) -> bool {
    match resource.split_once('/') {
        Some((domain, _)) => {
            !(domain == "kubernetes.io"
                || domain.ends_with(".kubernetes.io")
                || domain.starts_with("requests."))
        }
        None => false,
    }
}

/// Makes a Job ready for Kueue: queue (and priority) label, `suspend: true`, limits of
/// extended resources from requests. Returns what was changed, for `-v`.
pub fn prepare_job(
    job: &mut Job,
    queue: Option<&str>,
    priority: Option<&str>,
) -> anyhow::Result<Vec<String>> {
    let name = job
        .metadata
        .name
        .clone()
        .or_else(|| job.metadata.generate_name.clone())
        .unwrap_or_default();
    let labels = job.metadata.labels.get_or_insert_with(BTreeMap::new);
    if let Some(q) = queue {
        labels.insert(QUEUE_NAME_LABEL.to_string(), q.to_string());
    }
    if !labels.contains_key(QUEUE_NAME_LABEL) {
        bail!(
            "Job {name} has no queue: pass --queue LOCALQUEUE or set the label {QUEUE_NAME_LABEL} (kubectl kueue list localqueue shows the queues)"
        );
    }
    if let Some(p) = priority {
        labels.insert(PRIORITY_CLASS_LABEL.to_string(), p.to_string());
    }
    let spec = job
        .spec
        .as_mut()
        .with_context(|| format!("Job {name} has no spec"))?;
    let mut changes = Vec::new();
    if spec.suspend != Some(true) {
        spec.suspend = Some(true);
        changes.push("spec.suspend=true".to_string());
    }
    let pod = spec
        .template
        .spec
        .as_mut()
        .with_context(|| format!("Job {name} has no spec.template.spec"))?;
    let mut fill = |kind: &str, cs: &mut Vec<k8s_openapi::api::core::v1::Container>| {
        for (i, c) in cs.iter_mut().enumerate() {
            let Some(res) = c.resources.as_mut() else {
                continue;
            };
            let requests = res.requests.clone().unwrap_or_default();
            let limits = res.limits.get_or_insert_with(BTreeMap::new);
            for (r, q) in requests.iter().filter(|(r, _)| is_extended(r)) {
                if !limits.contains_key(r) {
                    limits.insert(r.clone(), q.clone());
                    changes.push(format!(
                        "spec.template.spec.{kind}[{i}].resources.limits[{r}]={}",
                        q.0
                    ));
                }
            }
        }
    };
    fill("containers", &mut pod.containers);
    if let Some(init) = pod.init_containers.as_mut() {
        fill("initContainers", init);
    }
    Ok(changes)
}

/// A Job from the command-line flags.
fn job_from_flags(a: &SubmitArgs, image: &str) -> anyhow::Result<Job> {
    let mut requests = serde_json::Map::new();
    if let Some(c) = &a.cpu {
        crate::scheduler::quantity::parse_amount("cpu", c)
            .map_err(|e| anyhow::anyhow!("--cpu {c:?}: {e}"))?;
        requests.insert("cpu".into(), c.clone().into());
    }
    if let Some(m) = &a.memory {
        crate::scheduler::quantity::parse_amount("memory", m)
            .map_err(|e| anyhow::anyhow!("--memory {m:?}: {e}"))?;
        requests.insert("memory".into(), m.clone().into());
    }
    if let Some(g) = a.gpus.filter(|g| *g > 0) {
        requests.insert(a.gpu_resource.clone(), g.to_string().into());
    }
    let mut container = serde_json::json!({"name": "main", "image": image});
    if !a.command.is_empty() {
        container["command"] = serde_json::json!(a.command);
    }
    if !requests.is_empty() {
        container["resources"] = serde_json::json!({"requests": requests});
    }
    let mut meta = serde_json::json!({});
    match &a.name {
        Some(n) => meta["name"] = n.clone().into(),
        None => {
            let base = image.rsplit('/').next().unwrap_or(image);
            let base = base.split([':', '@']).next().unwrap_or(base);
            let mut base: String = base
                .to_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            base.truncate(40);
            let base = base.trim_matches('-');
            meta["generateName"] =
                format!("{}-", if base.is_empty() { "job" } else { base }).into();
        }
    }
    let mut spec = serde_json::json!({"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}});
    if let Some(p) = a.parallelism {
        spec["parallelism"] = p.into();
    }
    if let Some(c) = a.completions {
        spec["completions"] = c.into();
    }
    serde_json::from_value(serde_json::json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec})).context("building the Job from flags")
}

/// The Jobs to submit (not yet prepared): from files, or one from flags.
pub fn jobs_from_args(a: &SubmitArgs) -> anyhow::Result<Vec<Job>> {
    if let Some(image) = &a.image {
        return Ok(vec![job_from_flags(a, image)?]);
    }
    if a.files.is_empty() {
        bail!("nothing to submit: give -f JOB.yaml, or --image IMAGE to build a Job from flags");
    }
    for (flag, set) in [
        ("--name", a.name.is_some()),
        ("--gpus", a.gpus.is_some()),
        ("--cpu", a.cpu.is_some()),
        ("--memory", a.memory.is_some()),
        ("--parallelism", a.parallelism.is_some()),
        ("--completions", a.completions.is_some()),
    ] {
        if set {
            bail!(
                "{flag} builds a Job from flags and needs --image; with -f, edit the manifest instead"
            );
        }
    }
    let docs = crate::manifests::documents::read_all(&a.files)?;
    let mut jobs = Vec::new();
    for d in docs {
        let api_version = d
            .value
            .get("apiVersion")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let kind = d.value.get("kind").and_then(|v| v.as_str()).unwrap_or("");
        if (api_version, kind) != ("batch/v1", "Job") {
            let what = if kind.is_empty() {
                "a document without kind".to_string()
            } else {
                format!("{api_version} {kind}")
            };
            bail!(
                "{}: {what}: submit takes batch/v1 Jobs only (apply other objects with kubectl apply)",
                d.origin
            );
        }
        let job: Job = crate::api::from_value(d.value.clone())
            .map_err(|e| anyhow::anyhow!("{}: Job: {}: {}", d.origin, e.path, e.message))?;
        if job.metadata.name.is_none() && job.metadata.generate_name.is_none() {
            bail!("{}: Job: metadata.name: missing required field", d.origin);
        }
        jobs.push(job);
    }
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
    if args.dry_run {
        return Ok(common::block_on(dry_run(global, &printer, jobs))?);
    }
    Ok(common::block_on(submit(global, &printer, &args, jobs))?)
}

/// `--dry-run`: each Job explained as if created now, on the cluster as it is.
async fn dry_run(
    global: &GlobalArgs,
    printer: &Printer,
    jobs: Vec<Job>,
) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    let inventory = conn.read_inventory().await?;
    let opts = crate::manifests::ConvertOptions {
        now: common::now_millis(),
        strict_namespace_selector: false,
    };
    let mut results = Vec::new();
    for (i, mut job) in jobs.into_iter().enumerate() {
        let ns = job
            .metadata
            .namespace
            .clone()
            .or_else(|| global.namespace.clone())
            .unwrap_or_else(|| conn.namespace.clone());
        job.metadata.namespace = Some(ns);
        let mut value = serde_json::to_value(&job)?;
        value["apiVersion"] = "batch/v1".into();
        value["kind"] = "Job".into();
        let doc = crate::manifests::documents::Document {
            origin: crate::manifests::Origin {
                file: "--dry-run".into(),
                document: i + 1,
                order: usize::MAX - 1,
            },
            value,
        };
        results.push(crate::explain::dry_run(&inventory, doc, &opts)?);
    }
    let printed = if results.len() == 1 {
        printer.data(&results[0])?
    } else {
        printer.data(&results)?
    };
    if !printed {
        for e in &results {
            printer.line(dry_run_verdict(e))?;
            printer.write(&crate::output::explain::render(e, printer.color()))?;
        }
    }
    Ok(Outcome::Success)
}

fn label(job: &Job, key: &str) -> Option<String> {
    job.metadata.labels.as_ref()?.get(key).cloned()
}

/// A priority class that does not exist leaves the Job without a Workload (upstream's
/// WorkloadPriorityClassNotFound): say so before creating anything.
async fn check_priority_classes(
    conn: &Connection,
    jobs: &[Job],
    flag: Option<&str>,
) -> anyhow::Result<()> {
    let classes: BTreeSet<String> = jobs
        .iter()
        .filter_map(|j| label(j, PRIORITY_CLASS_LABEL))
        .collect();
    for p in &classes {
        if conn.get::<WorkloadPriorityClass>(p).await?.is_some() {
            continue;
        }
        let known = conn
            .names::<WorkloadPriorityClass>(None)
            .await
            .unwrap_or_default();
        let from = if flag == Some(p.as_str()) {
            "--priority"
        } else {
            PRIORITY_CLASS_LABEL
        };
        bail!(
            "WorkloadPriorityClass {p:?} ({from}) not found (known: {}); create it with kubectl kueue create workloadpriorityclass {p} --value N, or pick another with --priority",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(())
}

async fn submit(
    global: &GlobalArgs,
    printer: &Printer,
    args: &SubmitArgs,
    mut jobs: Vec<Job>,
) -> anyhow::Result<Outcome> {
    let conn = common::connect(global).await?;
    for job in &mut jobs {
        let ns = match (&job.metadata.namespace, &global.namespace) {
            (Some(j), Some(flag)) if j != flag => bail!(
                "the namespace of Job {} ({j}) does not match -n {flag}: drop metadata.namespace from the file or -n",
                job.metadata.name.as_deref().unwrap_or("")
            ),
            (Some(j), _) => j.clone(),
            (None, _) => conn.namespace.clone(),
        };
        job.metadata.namespace = Some(ns);
    }
    check_priority_classes(&conn, &jobs, args.priority.as_deref()).await?;
    let mut created: Vec<Job> = Vec::new();
    for job in jobs {
        let ns = job.metadata.namespace.clone().unwrap_or_default();
        let lq = label(&job, QUEUE_NAME_LABEL).unwrap_or_default();
        if let Ok(None) = conn.get_in::<LocalQueue>(&ns, &lq).await {
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
        let followed = follow(&conn, job, args.wait, args.timeout, report).await?;
        outcome = outcome.or_worse(followed);
    }
    Ok(outcome)
}

/// Prints the Workload, its queue and position; with `wait`, follows it until that state,
/// the timeout, or the end.
async fn follow(
    conn: &Connection,
    job: &Job,
    wait: Option<WaitFor>,
    timeout: Duration,
    mut report: Reporter<'_>,
) -> anyhow::Result<Outcome> {
    let ns = job.metadata.namespace.clone().unwrap_or_default();
    let job_name = job.metadata.name.clone().unwrap_or_default();
    let uid = job.metadata.uid.clone().unwrap_or_default();
    let wl_name = workload_name_for_job(&job_name, &uid);
    let lq = label(job, QUEUE_NAME_LABEL).unwrap_or_default();
    // Without --wait, give the controller a moment (at most --timeout) to create the Workload.
    let deadline = Instant::now() + wait.map_or(timeout.min(Duration::from_secs(10)), |_| timeout);
    if wait.is_some() {
        report.start();
    }
    let mut last: Option<Phase> = None;
    loop {
        let Some(seen) = conn.observe_job(&ns, &job_name, &wl_name).await? else {
            report.done();
            bail!("Job {ns}/{job_name} was deleted while waiting");
        };
        let wl = seen.workload.as_ref();
        let mut phase = Phase::of(&seen.job, wl, None);
        if matches!(phase, Phase::Queued { .. }) {
            phase = Phase::of(&seen.job, wl, Some(&conn.snapshot().await?));
        }
        let Some(want) = wait else {
            if phase == Phase::NoWorkload && Instant::now() < deadline {
                common::sleep(Duration::from_millis(300)).await;
                continue;
            }
            let expected = if wl.is_some() { "" } else { " (expected)" };
            report.summary(&format!(
                "workload.kueue.x-k8s.io/{wl_name}{expected} in LocalQueue {ns}/{lq}: {}",
                phase_text(&phase)
            ))?;
            return Ok(Outcome::Success);
        };
        if last.as_ref() != Some(&phase) {
            report.step(&phase_text(&phase));
            last = Some(phase.clone());
        }
        if phase.reached(want.milestone()) {
            report.done();
            if phase.failed() {
                report.summary(&format!("job.batch/{job_name}: {}", phase_text(&phase)))?;
                return Ok(Outcome::JobFailed);
            }
            report.summary(&format!(
                "workload.kueue.x-k8s.io/{wl_name}: {}",
                phase_text(&phase)
            ))?;
            return Ok(Outcome::Success);
        }
        if Instant::now() >= deadline {
            report.done();
            report.summary(&format!(
                "workload.kueue.x-k8s.io/{wl_name}: still {} after {}s (--timeout)",
                phase_text(&phase),
                timeout.as_secs()
            ))?;
            return Ok(Outcome::WaitTimedOut);
        }
        common::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    fn seed_job() -> Job {
        serde_yaml::from_str(include_str!(
            "../../examples/gpu-two-teams/jobs/weekly-retrain.yaml"
        ))
        .unwrap()
    }

    #[test]
    fn prepares_the_seed_job_for_kueue() {
        let mut job = seed_job();
        let changes = prepare_job(&mut job, None, None).unwrap();
        let spec = job.spec.as_ref().unwrap();
        assert_eq!(spec.suspend, Some(true));
        let c = &spec.template.spec.as_ref().unwrap().containers[0];
        let limits = c.resources.as_ref().unwrap().limits.as_ref().unwrap();
        assert_eq!(limits["nvidia.com/gpu"], Quantity("2".into()));
        assert!(
            changes
                .iter()
                .any(|c| c.contains("limits[nvidia.com/gpu]=2")),
            "{changes:?}"
        );
        assert_eq!(
            job.metadata.labels.as_ref().unwrap()[QUEUE_NAME_LABEL],
            "training-queue"
        );
    }

    #[test]
    fn flags_override_labels_and_a_queue_is_required() {
        let mut job = seed_job();
        prepare_job(&mut job, Some("other"), Some("experiment")).unwrap();
        let l = job.metadata.labels.as_ref().unwrap();
        assert_eq!(
            (
                l[QUEUE_NAME_LABEL].as_str(),
                l[PRIORITY_CLASS_LABEL].as_str()
            ),
            ("other", "experiment")
        );
        let mut job = seed_job();
        job.metadata.labels = None;
        let e = prepare_job(&mut job, None, None).unwrap_err().to_string();
        assert!(e.contains("--queue") && e.contains("weekly-retrain"), "{e}");
    }

    #[test]
    fn only_extended_resources_get_limits() {
        assert!(is_extended("nvidia.com/gpu"));
        assert!(is_extended("example.com/fpga"));
        assert!(!is_extended("cpu"));
        assert!(!is_extended("memory"));
        assert!(!is_extended("kubernetes.io/something"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("1h30").is_err());
    }
}
