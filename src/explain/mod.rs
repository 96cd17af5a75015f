//! Why a workload is pending (or how it was admitted), as data: its place in the queue and
//! who is ahead, per podSet, flavor and resource the numbers behind the decision, whether
//! preemption could make room, misconfiguration, whether nodes of the flavor exist, and
//! next steps that were checked by simulation to actually admit it.
//!
//! Pure: built from an [`Inventory`] (files or a live snapshot); the CLI renders it and
//! `-o json` prints it as is.

pub mod nodes;
pub mod suggest;

use serde::Serialize;

use crate::manifests::{ConvertOptions, Inventory, convert};
use crate::scheduler::Engine;
use crate::scheduler::decision::{self, Assignment, FitMode, FlavorOutcome, PendingDetail};
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::quantity::{Amount, format_amount};
use crate::scheduler::whatif::Evaluation;
use crate::simulate::materialize_jobs;
use crate::view::forecast::StartEstimate;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// `namespace/name` of the Workload.
    pub workload: String,
    /// `namespace/name` of the Job it belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    pub state: State,
    pub local_queue: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohort: Option<String>,
    pub priority: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class: Option<String>,
    /// The QuotaReserved condition as the cluster (or input) has it now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<ConditionInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueInfo>,
    /// The engine's evaluation of the workload against the current state.
    pub evaluation: EvaluationInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionInfo>,
    /// Configuration problems that keep it from being considered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Nodes carrying each considered flavor's labels, and whether one pod fits one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<nodes::NodeCheck>,
    pub next_steps: Vec<suggest::NextStep>,
    /// Workloads whose eviction message names this workload (by UID) as their preemptor.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preempted_by_it: Vec<PreemptedInfo>,
    /// It fits, but `waitForPodsReady.blockAdmission` holds every admission until these
    /// admitted workloads are `PodsReady` (pending workloads only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waiting_for_pods_ready: Vec<String>,
    /// When it is expected to start (pending workloads only), with the runtimes assumed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_start: Option<StartEstimate>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreemptedInfo {
    pub workload: String,
    pub reason: String,
    /// True while the victim is still evicted; false once it was admitted again.
    pub still_evicted: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ConditionInfo {
    pub status: String,
    pub reason: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QueueInfo {
    /// 0-based, like upstream's visibility API.
    pub position_in_cluster_queue: usize,
    pub position_in_local_queue: usize,
    pub ahead: Vec<AheadInfo>,
    /// Under StrictFIFO, the head that must go first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked_by_strict_fifo_head: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AheadInfo {
    pub workload: String,
    pub priority: i32,
    /// resource -> total request, in Kubernetes quantities.
    pub requests: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationInfo {
    pub mode: Mode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// upstream's QuotaReserved message for this outcome.
    pub message: String,
    pub borrowing: bool,
    pub pod_sets: Vec<PodSetInfo>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PodSetInfo {
    pub name: String,
    pub count: i32,
    pub flavors: Vec<FlavorInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncovered_resources: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FlavorInfo {
    pub flavor: String,
    pub outcome: Outcome,
    pub chosen: bool,
    /// With [`Outcome::UntoleratedTaint`]: the flavor's taint the pods do not tolerate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taint: Option<TaintInfo>,
    pub resources: Vec<ResourceInfo>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub resource: String,
    /// This podSet's request (plus earlier podSets' on this flavor, when any).
    pub requested: String,
    pub nominal: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<String>,
    /// Reserved by the ClusterQueue's workloads now.
    pub in_use: String,
    /// Unused nominal quota of the ClusterQueue itself.
    pub unused_nominal: String,
    /// What the cohort can lend on top of that now.
    pub borrowable_from_cohort: String,
    /// Everything it could take now without preempting.
    pub available: String,
    /// The most it could ever hold (with nothing else running).
    pub maximum: String,
    pub short_by: String,
    /// Whether the scheduler would preempt for what is short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionGate>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionInfo {
    pub possible: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub would_preempt: Vec<VictimInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<NoPreemption>,
    /// Per policy, why no workload qualifies, with the numbers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct VictimInfo {
    pub workload: String,
    pub cluster_queue: String,
    pub priority: i32,
    pub reason: String,
}

/// Where the workload is.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum State {
    Admitted,
    Pending,
    Finished,
    /// Preempted, its pods still stopping (it holds its quota until they have).
    Evicted,
    /// The Job got no Workload (for example, its priority class does not exist).
    NotCreated,
}

/// The engine's verdict on the workload as a whole.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum Mode {
    Fit,
    Preempt,
    NoFit,
}

/// What one flavor did for a podSet.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum Outcome {
    Fits,
    FitsByBorrowing,
    NeedsPreemption,
    NoPreemptionCandidates,
    DoesNotFit,
    /// The ResourceFlavor does not exist.
    NotFound,
    /// The pods do not tolerate one of the flavor's taints (see `taint`).
    UntoleratedTaint,
    /// The pods' nodeSelector or required node affinity excludes the flavor's nodeLabels.
    NodeLabelsDoNotMatch,
}

impl Outcome {
    /// Whether the podSet fits the flavor without preempting.
    pub fn fits(self) -> bool {
        matches!(self, Outcome::Fits | Outcome::FitsByBorrowing)
    }
}

/// A taint of a flavor.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TaintInfo {
    pub key: String,
    pub value: String,
    pub effect: String,
}

/// Whether the scheduler considers preemption for a resource that is short.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum PreemptionGate {
    /// The request is within the ClusterQueue's nominal quota.
    WithinNominal,
    /// The request fits in a cohort subtree below the root.
    HierarchicalReclaim,
    /// While borrowing (borrowWithinCohort or fair sharing).
    WhileBorrowing,
    /// The request needs borrowing and borrowWithinCohort is not set: it waits for quota.
    NotAllowed,
}

/// Why preemption cannot make room.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum NoPreemption {
    /// No flavor needed preemption: the request does not fit the quota at all.
    NothingToPreemptFor,
    /// The request needs borrowing and borrowWithinCohort is not set.
    NeedsBorrowing,
    /// No workload may be preempted for it (see `details`).
    NoVictims,
}

/// What went wrong finding or explaining the workload.
#[derive(Debug)]
pub enum ExplainError {
    NotFound(String),
    Input(crate::manifests::InputError),
}

impl std::fmt::Display for ExplainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExplainError::NotFound(m) => f.write_str(m),
            ExplainError::Input(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExplainError {}

/// What to explain: `job/NAME`, `workload/NAME` or `NAME` (a Workload, else a Job), in
/// `namespace`.
pub fn resolve(
    inv: &Inventory,
    namespace: &str,
    target: &str,
) -> Result<(String, Option<String>), ExplainError> {
    let (kind, name) = match target.split_once('/') {
        Some((k, n)) => (Some(k.to_ascii_lowercase()), n),
        None => (None, target),
    };
    let ns_of = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        m.namespace.clone().unwrap_or_else(|| "default".into())
    };
    let wants_job = matches!(kind.as_deref(), Some("job" | "jobs" | "job.batch"));
    let wants_wl = matches!(
        kind.as_deref(),
        Some("workload" | "workloads" | "wl" | "kwl")
    );
    if let Some(k) = &kind
        && !wants_job
        && !wants_wl
    {
        return Err(ExplainError::NotFound(format!(
            "cannot explain a {k}: give a Job (job/NAME) or a Workload (workload/NAME)"
        )));
    }
    if !wants_job
        && let Some(w) = inv.workloads.iter().find(|w| {
            ns_of(&w.obj.metadata) == namespace && w.obj.metadata.name.as_deref() == Some(name)
        })
    {
        let job = w
            .obj
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job")
            .map(|o| format!("{namespace}/{}", o.name));
        return Ok((format!("{namespace}/{name}"), job));
    }
    if !wants_wl
        && let Some(j) = inv.jobs.iter().find(|j| {
            ns_of(&j.obj.metadata) == namespace && j.obj.metadata.name.as_deref() == Some(name)
        })
    {
        if let Some(w) = inv
            .workloads
            .iter()
            .find(|w| crate::manifests::job::workload_belongs_to(&w.obj, &j.obj))
        {
            return Ok((
                format!(
                    "{namespace}/{}",
                    w.obj.metadata.name.clone().unwrap_or_default()
                ),
                Some(format!("{namespace}/{name}")),
            ));
        }
        let uid = j.obj.metadata.uid.clone().unwrap_or_default();
        return Ok((
            format!(
                "{namespace}/{}",
                crate::manifests::job::workload_name_for_job(name, &uid)
            ),
            Some(format!("{namespace}/{name}")),
        ));
    }
    if !wants_wl {
        // A Job that is not in the input but owns a Workload that is.
        if let Some(w) = inv.workloads.iter().find(|w| {
            ns_of(&w.obj.metadata) == namespace
                && w.obj
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|o| o.kind == "Job" && o.name == name)
        }) {
            return Ok((
                format!(
                    "{namespace}/{}",
                    w.obj.metadata.name.clone().unwrap_or_default()
                ),
                Some(format!("{namespace}/{name}")),
            ));
        }
    }
    let what = if wants_job {
        "Job"
    } else if wants_wl {
        "Workload"
    } else {
        "Workload or Job"
    };
    Err(ExplainError::NotFound(format!(
        "no {what} {name} in namespace {namespace}"
    )))
}

fn mode_of(m: FitMode) -> Mode {
    match m {
        FitMode::Fit => Mode::Fit,
        FitMode::NoFit => Mode::NoFit,
        _ => Mode::Preempt,
    }
}

/// Explains `target` (see [`resolve`]) in `namespace`.
pub fn explain(
    inventory: &Inventory,
    namespace: &str,
    target: &str,
    opts: &ConvertOptions,
) -> Result<Explanation, ExplainError> {
    let mut inv = inventory.clone();
    let (key, job) = resolve(&inv, namespace, target)?;
    materialize_jobs(&mut inv);
    let converted = convert(&inv, opts).map_err(ExplainError::Input)?;
    if let Some(r) = converted
        .rejected_jobs
        .iter()
        .find(|r| Some(&r.job) == job.as_ref())
    {
        return Ok(not_created(&key, job, &r.reason, &r.message));
    }
    let engine = Engine::new(converted.state.clone());
    let not_found = || ExplainError::NotFound(format!("no Workload {key}"));
    let id = WorkloadKey::parse(&key).ok_or_else(not_found)?;
    let Some(w) = engine.workload(&id).cloned() else {
        return Err(not_found());
    };
    let object = inv.workloads.iter().find(|e| {
        format!(
            "{}/{}",
            e.obj.metadata.namespace.as_deref().unwrap_or("default"),
            e.obj.metadata.name.as_deref().unwrap_or("")
        ) == key
    });
    let condition = object
        .and_then(|o| o.obj.status.as_ref())
        .and_then(|s| s.condition(crate::api::workload_status::condition::QUOTA_RESERVED))
        .map(|c| ConditionInfo {
            status: c.status.clone(),
            reason: c.reason.clone(),
            message: c.message.clone(),
        });
    let holding = engine.holding_queue(&id).map(str::to_string);
    let state = if w.finished {
        State::Finished
    } else if holding.is_some() && engine.is_evicted(&id) {
        State::Evicted
    } else if holding.is_some() {
        State::Admitted
    } else {
        State::Pending
    };
    let ev = engine.evaluate(&id, opts.now).ok_or_else(|| {
        ExplainError::NotFound(format!(
            "Workload {key} has no ClusterQueue to evaluate against"
        ))
    })?;
    let cluster_queue = holding.clone().or_else(|| ev.cluster_queue.clone());
    let cohort = cluster_queue
        .as_ref()
        .and_then(|cq| engine.cluster_queues().into_iter().find(|v| &v.name == cq))
        .and_then(|v| v.cohort);
    let mut problems = Vec::new();
    if let Some(blocked) = engine.blocked_reason(&id) {
        problems.push(problem_text(&blocked.message, &blocked.detail, &inv));
    }
    if let PendingDetail::NamespaceNotSelected { namespace } = &ev.detail {
        problems.push(format!(
            "namespace {namespace} does not match the namespaceSelector of ClusterQueue {}",
            ev.cluster_queue.as_deref().unwrap_or("?")
        ));
    }
    let queue = (state == State::Pending && problems.is_empty())
        .then(|| queue_info(&engine, &id, cluster_queue.as_deref()))
        .flatten();
    let evaluation = evaluation_info(&ev, holding.as_deref());
    let waiting_for_pods_ready = if state == State::Pending && evaluation.mode == Mode::Fit {
        engine
            .admitted_not_ready()
            .iter()
            .map(ToString::to_string)
            .collect()
    } else {
        Vec::new()
    };
    let mut preemption = preemption_info(&ev);
    if let Some(p) = preemption
        .as_mut()
        .filter(|p| !p.possible && p.why_not == Some(NoPreemption::NoVictims))
    {
        let needed: Vec<(String, String)> = ev
            .assignment
            .iter()
            .flat_map(|a| a.pod_sets.iter())
            .flat_map(|ps| ps.flavors.iter())
            .filter(|(_, _, m)| *m != FitMode::Fit)
            .map(|(r, f, _)| (f.clone(), r.clone()))
            .collect();
        p.details = engine.why_no_candidates(&id, &needed);
    }
    let nodes = nodes::check(
        &converted.state,
        &converted.nodes,
        &w,
        ev.assignment.as_ref(),
    );
    let next_steps = if state == State::Pending {
        suggest::next_steps(&inv, &engine, &id, &ev, &problems, opts)
    } else {
        Vec::new()
    };
    let preempted_by_it = victims_of(
        &inv,
        object
            .and_then(|o| o.obj.metadata.uid.as_deref())
            .unwrap_or(""),
    );
    Ok(Explanation {
        workload: key,
        job,
        state,
        local_queue: w.queue_name.clone(),
        cluster_queue,
        cohort,
        priority: w.priority,
        priority_class: w.priority_class.clone(),
        condition,
        queue,
        evaluation,
        preemption,
        problems,
        nodes,
        next_steps,
        preempted_by_it,
        waiting_for_pods_ready,
        estimated_start: (state == State::Pending)
            .then(|| {
                let fc =
                    crate::view::forecast::run(&inv, &converted.state, &converted.nodes, opts.now);
                crate::view::forecast::start_estimate(&fc, &id)
            })
            .flatten(),
    })
}

/// Workloads whose Preempted condition (current or "Previously: ...") names `uid`.
fn victims_of(inv: &Inventory, uid: &str) -> Vec<PreemptedInfo> {
    if uid.is_empty() {
        return Vec::new();
    }
    let needle = format!("(UID: {uid},");
    inv.workloads
        .iter()
        .filter_map(|w| {
            let st = w.obj.status.as_ref()?;
            let c = st.condition(crate::api::workload_status::condition::PREEMPTED)?;
            if !c.message.contains(&needle) {
                return None;
            }
            let reason = if c.status == "True" {
                c.reason.clone()
            } else {
                c.message
                    .split("due to ")
                    .nth(1)
                    .and_then(|r| r.split(';').next())
                    .unwrap_or("")
                    .to_string()
            };
            Some(PreemptedInfo {
                workload: format!(
                    "{}/{}",
                    w.obj.metadata.namespace.as_deref().unwrap_or("default"),
                    w.obj.metadata.name.as_deref().unwrap_or("")
                ),
                reason,
                still_evicted: c.status == "True",
            })
        })
        .collect()
}

fn not_created(key: &str, job: Option<String>, reason: &str, message: &str) -> Explanation {
    Explanation {
        workload: key.to_string(),
        job,
        state: State::NotCreated,
        local_queue: String::new(),
        cluster_queue: None,
        cohort: None,
        priority: 0,
        priority_class: None,
        condition: None,
        queue: None,
        evaluation: EvaluationInfo {
            mode: Mode::NoFit,
            reason: Some(reason.into()),
            message: message.into(),
            borrowing: false,
            pod_sets: vec![],
        },
        preemption: None,
        problems: vec![format!(
            "{reason}: {message}: the Job gets no Workload until the WorkloadPriorityClass exists or the label is fixed"
        )],
        nodes: vec![],
        next_steps: vec![],
        preempted_by_it: vec![],
        waiting_for_pods_ready: vec![],
        estimated_start: None,
    }
}

fn problem_text(message: &str, detail: &PendingDetail, inv: &Inventory) -> String {
    match detail {
        PendingDetail::NoLocalQueue { local_queue } => {
            let existing: Vec<String> = inv
                .local_queues
                .iter()
                .map(|l| {
                    format!(
                        "{}/{}",
                        l.obj.metadata.namespace.as_deref().unwrap_or("default"),
                        l.obj.metadata.name.as_deref().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "{message}: no LocalQueue named {local_queue} in the workload's namespace (existing: {})",
                if existing.is_empty() {
                    "none".into()
                } else {
                    existing.join(", ")
                }
            )
        }
        PendingDetail::ClusterQueueInactive { cluster_queue, why } => {
            format!("{message}: {} ({cluster_queue})", why.message())
        }
        _ => message.to_string(),
    }
}

fn queue_info(engine: &Engine, key: &WorkloadKey, cq: Option<&str>) -> Option<QueueInfo> {
    let cq = cq?;
    let view = engine.cluster_queues().into_iter().find(|v| v.name == cq)?;
    let pos = view.queue.iter().position(|k| k == key)?;
    let me = engine.workload(key)?;
    let same_lq = |k: &WorkloadKey| {
        engine
            .workload(k)
            .is_some_and(|w| w.namespace == me.namespace && w.queue_name == me.queue_name)
    };
    let position_in_local_queue = view.queue[..pos].iter().filter(|k| same_lq(k)).count();
    let ahead = view.queue[..pos]
        .iter()
        .filter_map(|k| {
            let w = engine.workload(k)?;
            let mut requests = std::collections::BTreeMap::new();
            for ps in &w.pod_sets {
                for (r, v) in &ps.per_pod {
                    *requests.entry(r.clone()).or_insert(Amount::ZERO) +=
                        v.saturating_mul(i64::from(ps.count));
                }
            }
            Some(AheadInfo {
                workload: k.to_string(),
                priority: w.priority,
                requests: requests
                    .into_iter()
                    .map(|(r, v)| (r.clone(), format_amount(&r, v)))
                    .collect(),
            })
        })
        .collect();
    let blocked_by_strict_fifo_head =
        (engine.strict_fifo(cq) && pos > 0).then(|| view.queue[0].to_string());
    Some(QueueInfo {
        position_in_cluster_queue: pos,
        position_in_local_queue,
        ahead,
        blocked_by_strict_fifo_head,
    })
}

fn outcome_of(o: &FlavorOutcome) -> (Outcome, Option<TaintInfo>) {
    match o {
        FlavorOutcome::NotFound => (Outcome::NotFound, None),
        FlavorOutcome::UntoleratedTaint(t) => (
            Outcome::UntoleratedTaint,
            Some(TaintInfo {
                key: t.key.clone(),
                value: t.value.clone(),
                effect: t.effect.as_str().to_string(),
            }),
        ),
        FlavorOutcome::AffinityMismatch => (Outcome::NodeLabelsDoNotMatch, None),
        FlavorOutcome::Quota {
            mode, borrow_level, ..
        } => {
            let o = match mode {
                FitMode::Fit if *borrow_level > 0 => Outcome::FitsByBorrowing,
                FitMode::Fit => Outcome::Fits,
                FitMode::Preempt | FitMode::Reclaim => Outcome::NeedsPreemption,
                FitMode::NoCandidates => Outcome::NoPreemptionCandidates,
                FitMode::NoFit => Outcome::DoesNotFit,
            };
            (o, None)
        }
    }
}

fn gate_of(g: decision::PreemptionGate) -> PreemptionGate {
    match g {
        decision::PreemptionGate::WithinNominal => PreemptionGate::WithinNominal,
        decision::PreemptionGate::HierarchicalReclaim => PreemptionGate::HierarchicalReclaim,
        decision::PreemptionGate::WhileBorrowing => PreemptionGate::WhileBorrowing,
        decision::PreemptionGate::NotAllowed => PreemptionGate::NotAllowed,
    }
}

fn evaluation_info(ev: &Evaluation, holding: Option<&str>) -> EvaluationInfo {
    let pod_sets = ev
        .assignment
        .iter()
        .flat_map(|a: &Assignment| a.pod_sets.iter())
        .map(|ps| {
            let chosen: Vec<&str> = ps.flavors.iter().map(|(_, f, _)| f.as_str()).collect();
            let flavors = ps
                .attempts
                .iter()
                .map(|at| {
                    let (outcome, taint) = outcome_of(&at.outcome);
                    let resources = match &at.outcome {
                        FlavorOutcome::Quota { checks, .. } => checks
                            .iter()
                            .map(|c| {
                                let r = &c.resource;
                                let unused = (c.nominal - c.cq_usage).max(Amount::ZERO);
                                ResourceInfo {
                                    resource: r.clone(),
                                    requested: format_amount(r, c.total()),
                                    nominal: format_amount(r, c.nominal),
                                    borrowing_limit: c.borrowing_limit.map(|v| format_amount(r, v)),
                                    lending_limit: c.lending_limit.map(|v| format_amount(r, v)),
                                    in_use: format_amount(r, c.cq_usage),
                                    unused_nominal: format_amount(r, unused.min(c.available)),
                                    borrowable_from_cohort: format_amount(
                                        r,
                                        (c.available - unused).max(Amount::ZERO),
                                    ),
                                    available: format_amount(r, c.available),
                                    maximum: format_amount(r, c.potential_available),
                                    short_by: format_amount(r, c.short_by()),
                                    preemption: c.preemption_gate.map(gate_of),
                                }
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    FlavorInfo {
                        flavor: at.flavor.clone(),
                        outcome,
                        chosen: chosen.contains(&at.flavor.as_str()),
                        taint,
                        resources,
                    }
                })
                .collect();
            PodSetInfo {
                name: ps.name.clone(),
                count: ps.count,
                flavors,
                uncovered_resources: ps.uncovered.clone(),
            }
        })
        .collect();
    let message = if holding.is_some() && ev.mode == FitMode::Fit {
        format!(
            "Quota reserved in ClusterQueue {}",
            holding.unwrap_or_default()
        )
    } else {
        ev.message.clone()
    };
    EvaluationInfo {
        mode: mode_of(ev.mode),
        reason: ev.reason.map(|r| r.as_str().to_string()),
        message,
        borrowing: ev.assignment.as_ref().is_some_and(|a| a.borrowing > 0),
        pod_sets,
    }
}

fn preemption_info(ev: &Evaluation) -> Option<PreemptionInfo> {
    if ev.mode == FitMode::Fit || ev.assignment.is_none() {
        return None;
    }
    if !ev.would_preempt.is_empty() {
        return Some(PreemptionInfo {
            possible: true,
            would_preempt: ev
                .would_preempt
                .iter()
                .map(|v| VictimInfo {
                    workload: v.workload.to_string(),
                    cluster_queue: v.cluster_queue.clone(),
                    priority: v.priority,
                    reason: v.reason.as_str().to_string(),
                })
                .collect(),
            why_not: None,
            details: vec![],
        });
    }
    let gates: Vec<decision::PreemptionGate> = ev
        .assignment
        .iter()
        .flat_map(|a| a.pod_sets.iter())
        .flat_map(|p| p.attempts.iter())
        .filter_map(|a| match &a.outcome {
            FlavorOutcome::Quota { checks, .. } => Some(
                checks
                    .iter()
                    .filter_map(|c| c.preemption_gate)
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    let why = if gates.is_empty() {
        NoPreemption::NothingToPreemptFor
    } else if gates
        .iter()
        .all(|g| *g == decision::PreemptionGate::NotAllowed)
    {
        NoPreemption::NeedsBorrowing
    } else {
        NoPreemption::NoVictims
    };
    Some(PreemptionInfo {
        possible: false,
        would_preempt: vec![],
        why_not: Some(why),
        details: vec![],
    })
}

/// `submit --dry-run` of several Jobs: each explained on its own as if created now, as the
/// documents of `--dry-run`.
pub fn dry_run_jobs(
    inventory: &Inventory,
    jobs: &[k8s_openapi::api::batch::v1::Job],
    opts: &ConvertOptions,
) -> Result<Vec<Explanation>, ExplainError> {
    let doc = |(i, job)| crate::manifests::job::job_document(job, "--dry-run", i + 1);
    jobs.iter()
        .enumerate()
        .map(|j| dry_run(inventory, doc(j), opts))
        .collect()
}

/// `submit --dry-run`: the explanation of a Job or Workload as if it were created now, on
/// top of the cluster picture `inventory`. The Job needs the queue label.
pub fn dry_run(
    inventory: &Inventory,
    object: crate::manifests::documents::Document,
    opts: &ConvertOptions,
) -> Result<Explanation, ExplainError> {
    let mut inv = inventory.clone();
    let origin = object.origin.clone();
    let added = Inventory::from_documents(vec![object]).map_err(ExplainError::Input)?;
    let (ns, target) = if let Some(j) = added.jobs.first() {
        let ns = j
            .obj
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        (
            ns,
            format!("job/{}", j.obj.metadata.name.clone().unwrap_or_default()),
        )
    } else if let Some(w) = added.workloads.first() {
        let ns = w
            .obj
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        (
            ns,
            format!(
                "workload/{}",
                w.obj.metadata.name.clone().unwrap_or_default()
            ),
        )
    } else {
        return Err(ExplainError::Input(crate::manifests::InputError::new(
            &origin,
            "expected a batch/v1 Job with the label kueue.x-k8s.io/queue-name, or a kueue.x-k8s.io Workload (v1beta1 or v1beta2)",
        )));
    };
    let max_order = inv
        .workloads
        .iter()
        .map(|w| w.origin.order)
        .chain(inv.jobs.iter().map(|j| j.origin.order))
        .max()
        .unwrap_or(0);
    for mut j in added.jobs {
        j.origin.order = max_order + 1;
        inv.jobs.push(j);
    }
    for mut w in added.workloads {
        w.origin.order = max_order + 1;
        inv.workloads.push(w);
    }
    inv.sources.extend(added.sources);
    explain(&inv, &ns, &target, opts)
}
