//! From API objects to the engine's [`ClusterState`], checking what the types alone can't:
//! quantities, limits that need a cohort, negative quotas, resources matched to
//! `coveredResources` by name, duplicates. Problems the cluster would still accept (a
//! missing flavor, LocalQueue or priority class, a negative request) are not errors: they
//! become reasons the engine reports. A Workload's requests are counted as upstream counts
//! them ([`super::requests`]: LimitRange defaults, RuntimeClass overhead, pod-level
//! resources); a ClusterQueue with `deletionTimestamp` is terminating.
//!
//! Used both offline (objects from files) and live (objects from the API server), so
//! `simulate` and `run-controller` see the same picture. Everything arrives in the internal
//! (v1beta1) form; what only a v1beta2 document could say comes through
//! [`super::sources`], as unsupported features and as the field paths of errors.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::error::{InputError, Origin};
use super::inventory::{Inventory, Sourced};
use super::job::{JOB_UID_LABEL, JobProblem, workload_belongs_to, workload_for_job};
use super::key::ObjectKey;
use super::pod;
use super::requests::{self, RequestContext};
use super::sources::{KueueKind, V1beta2Feature};
use crate::api::config::Configuration;
use crate::api::workload_status::condition;
use crate::api::{self, ClusterQueue, Cohort, ResourceFlavor, Workload, WorkloadStatus};
use crate::scheduler::model::{
    self as m, BorrowWithinCohort, ClusterState, FairSharingConfig, FairSharingStrategy,
    FlavorFungibility, FlavorQuotas, Millis, MissingSelector, QuotaCheckStrategy, ResourceGroup,
    ResourceQuota,
};
use crate::scheduler::quantity::{Amount, parse_amount, parse_f64};

/// How to read what the objects leave open.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Queue-order time of objects without `creationTimestamp` (they count as created now,
    /// in document order).
    pub now: Millis,
    /// Read a missing namespaceSelector as upstream does (no namespace) instead of all.
    pub strict_namespace_selector: bool,
}

/// A Workload in the picture: the object (as given, or built from its Job) and where from.
#[derive(Debug, Clone)]
pub struct WorkloadEntry {
    pub key: String,
    pub object: Workload,
    pub origin: Origin,
    /// `namespace/name` of the Job it was built from, when it was.
    pub job: Option<String>,
}

/// A Job that gets no Workload, and why (as upstream's `WorkloadPriorityClassNotFound`).
#[derive(Debug, Clone)]
pub struct RejectedJob {
    pub job: String,
    pub origin: Origin,
    pub reason: String,
    pub message: String,
}

#[derive(Debug, Clone, Default)]
pub struct Converted {
    pub state: ClusterState,
    /// In input order (a Job's Workload takes the Job's place).
    pub workloads: Vec<WorkloadEntry>,
    pub rejected_jobs: Vec<RejectedJob>,
    pub warnings: Vec<String>,
    /// The input's Nodes, for the capacity checks (the scheduler never reads them).
    pub nodes: Vec<super::nodes::NodeInfo>,
    /// Why the Pods on the nodes could not be read, when they could not (the nodes are then
    /// taken as empty).
    pub pods_unread: Option<String>,
}

pub fn millis(t: &Time) -> Millis {
    t.0.as_millisecond()
}

pub fn time_from_millis(ms: Millis) -> Time {
    Time(
        k8s_openapi::jiff::Timestamp::from_millisecond(ms)
            .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH),
    )
}

fn id(kind: &str, ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

struct Ctx<'a> {
    origin: &'a Origin,
    object: String,
}

impl Ctx<'_> {
    fn err(&self, field: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError::new(self.origin, message)
            .object(self.object.clone())
            .field(field)
    }

    fn amount(&self, field: &str, resource: &str, q: &str) -> Result<Amount, InputError> {
        parse_amount(resource, q).map_err(|e| self.err(field, e.to_string()))
    }
}

/// Resource groups of a ClusterQueue or Cohort, checked and in scheduling units.
fn resource_groups(
    ctx: &Ctx,
    groups: &[api::ResourceGroup],
    has_parent: bool,
    parent_word: &str,
    check_lending_vs_nominal: bool,
) -> Result<Vec<ResourceGroup>, InputError> {
    let mut seen_resources: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen_flavors: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(groups.len());
    for (gi, g) in groups.iter().enumerate() {
        let gpath = format!("spec.resourceGroups[{gi}]");
        for r in &g.covered_resources {
            if let Some(other) = seen_resources.insert(r.clone(), gi) {
                return Err(ctx.err(
                    format!("{gpath}.coveredResources"),
                    format!("resource {r} is already covered by resourceGroups[{other}]; a resource may belong to one group only"),
                ));
            }
        }
        let covered: BTreeSet<&String> = g.covered_resources.iter().collect();
        let mut flavors = Vec::with_capacity(g.flavors.len());
        for (fi, f) in g.flavors.iter().enumerate() {
            let fpath = format!("{gpath}.flavors[{fi}]");
            if let Some(other) = seen_flavors.insert(f.name.clone(), gi) {
                return Err(ctx.err(
                    format!("{fpath}.name"),
                    format!("flavor {} already appears in resourceGroups[{other}]; a flavor may belong to one group only", f.name),
                ));
            }
            let names: BTreeSet<&String> = f.resources.iter().map(|r| &r.name).collect();
            if names != covered {
                let missing: Vec<&&String> = covered.difference(&names).collect();
                let extra: Vec<&&String> = names.difference(&covered).collect();
                return Err(ctx.err(
                    format!("{fpath}.resources"),
                    format!(
                        "the resources of flavor {} must be exactly the group's coveredResources (matched by name){}{}",
                        f.name,
                        if missing.is_empty() { String::new() } else { format!("; missing: {}", join(&missing)) },
                        if extra.is_empty() { String::new() } else { format!("; not covered: {}", join(&extra)) },
                    ),
                ));
            }
            let mut resources = Vec::with_capacity(f.resources.len());
            for (ri, r) in f.resources.iter().enumerate() {
                let rpath = format!("{fpath}.resources[{ri}]");
                let nominal = ctx.amount(
                    &format!("{rpath}.nominalQuota"),
                    &r.name,
                    &r.nominal_quota.0,
                )?;
                if nominal < 0 {
                    return Err(ctx.err(
                        format!("{rpath}.nominalQuota"),
                        format!(
                            "must be greater than or equal to 0, got {}",
                            r.nominal_quota.0
                        ),
                    ));
                }
                let limit =
                    |field: &str,
                     q: &Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>|
                     -> Result<Option<Amount>, InputError> {
                        let Some(q) = q else { return Ok(None) };
                        let path = format!("{rpath}.{field}");
                        if !has_parent {
                            return Err(
                                ctx.err(path, format!("must be nil when {parent_word} is empty"))
                            );
                        }
                        let v = ctx.amount(&path, &r.name, &q.0)?;
                        if v < 0 {
                            return Err(ctx.err(
                                path,
                                format!("must be greater than or equal to 0, got {}", q.0),
                            ));
                        }
                        Ok(Some(v))
                    };
                let borrowing_limit = limit("borrowingLimit", &r.borrowing_limit)?;
                let lending_limit = limit("lendingLimit", &r.lending_limit)?;
                if check_lending_vs_nominal && lending_limit.is_some_and(|l| l > nominal) {
                    return Err(ctx.err(
                        format!("{rpath}.lendingLimit"),
                        format!(
                            "must be less than or equal to nominalQuota ({})",
                            r.nominal_quota.0
                        ),
                    ));
                }
                resources.push(ResourceQuota {
                    name: r.name.clone(),
                    nominal,
                    borrowing_limit,
                    lending_limit,
                });
            }
            flavors.push(FlavorQuotas {
                name: f.name.clone(),
                resources,
            });
        }
        out.push(ResourceGroup {
            covered_resources: g.covered_resources.clone(),
            flavors,
        });
    }
    Ok(out)
}

fn join(v: &[&&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

fn weight(ctx: &Ctx, fs: &Option<api::FairSharing>) -> Result<f64, InputError> {
    let Some(fs) = fs else { return Ok(1.0) };
    let w =
        parse_f64(&fs.weight.0).map_err(|e| ctx.err("spec.fairSharing.weight", e.to_string()))?;
    if w < 0.0 {
        return Err(ctx.err("spec.fairSharing.weight", "must not be negative"));
    }
    Ok(w)
}

fn flavor(f: &ResourceFlavor) -> m::ResourceFlavor {
    m::ResourceFlavor {
        node_labels: f.spec.node_labels.clone(),
        node_taints: f
            .spec
            .node_taints
            .iter()
            .filter_map(|t| {
                Some(crate::scheduler::labels::Taint {
                    key: t.key.clone(),
                    value: t.value.clone().unwrap_or_default(),
                    effect: pod::effect(Some(t.effect.as_str()))?,
                })
            })
            .collect(),
        tolerations: pod::tolerations(&f.spec.tolerations),
        topology_name: f.spec.topology_name.clone(),
    }
}

fn cluster_queue(
    ctx: &Ctx,
    cq: &ClusterQueue,
    topology_flavors: &BTreeSet<String>,
) -> Result<m::ClusterQueue, InputError> {
    let spec = &cq.spec;
    let cohort = spec.cohort_name().map(str::to_string);
    let resource_groups =
        resource_groups(ctx, &spec.resource_groups, cohort.is_some(), "cohort", true)?;
    if let Some(sel) = &spec.namespace_selector {
        pod::check_selector_operators(sel, "spec.namespaceSelector").map_err(|b| {
            ctx.err(
                b.field.clone(),
                b.message("In, NotIn, Exists, DoesNotExist"),
            )
        })?;
    }
    let p = &spec.preemption;
    let reclaim = match p.reclaim_within_cohort {
        api::ReclaimWithinCohortPolicy::Never => m::PreemptionPolicy::Never,
        api::ReclaimWithinCohortPolicy::LowerPriority => m::PreemptionPolicy::LowerPriority,
        api::ReclaimWithinCohortPolicy::Any => m::PreemptionPolicy::Any,
    };
    let within = match p.within_cluster_queue {
        api::WithinClusterQueuePolicy::Never => m::PreemptionPolicy::Never,
        api::WithinClusterQueuePolicy::LowerPriority => m::PreemptionPolicy::LowerPriority,
        api::WithinClusterQueuePolicy::LowerOrNewerEqualPriority => {
            m::PreemptionPolicy::LowerOrNewerEqualPriority
        }
    };
    let bwc_lower = p.borrow_within_cohort.policy == api::BorrowWithinCohortPolicy::LowerPriority;
    if bwc_lower && reclaim == m::PreemptionPolicy::Never {
        return Err(ctx.err(
            "spec.preemption",
            "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
        ));
    }
    let f = &spec.flavor_fungibility;
    let fungibility = FlavorFungibility {
        when_can_borrow: match f.when_can_borrow.normalized() {
            api::WhenCanBorrow::TryNextFlavor => m::WhenCanBorrow::TryNextFlavor,
            _ => m::WhenCanBorrow::MayStopSearch,
        },
        when_can_preempt: match f.when_can_preempt.normalized() {
            api::WhenCanPreempt::MayStopSearch | api::WhenCanPreempt::Preempt => {
                m::WhenCanPreempt::MayStopSearch
            }
            api::WhenCanPreempt::TryNextFlavor => m::WhenCanPreempt::TryNextFlavor,
        },
        preference: match f.preference {
            Some(api::FlavorFungibilityPreference::PreemptionOverBorrowing) => {
                m::FungibilityPreference::PreemptionOverBorrowing
            }
            _ => m::FungibilityPreference::BorrowingOverPreemption,
        },
    };
    let mut unsupported = Vec::new();
    if !spec.admission_checks.is_empty() {
        unsupported.push("spec.admissionChecks (admission checks)".to_string());
    }
    if spec
        .admission_checks_strategy
        .as_ref()
        .is_some_and(|s| !s.admission_checks.is_empty())
    {
        unsupported.push("spec.admissionChecksStrategy (admission checks)".to_string());
    }
    if spec.admission_scope.as_ref().is_some_and(|s| {
        matches!(
            s.admission_mode,
            api::AdmissionMode::UsageBasedAdmissionFairSharing
        )
    }) {
        unsupported.push("spec.admissionScope (admission fair sharing)".to_string());
    }
    for g in &resource_groups {
        for fl in &g.flavors {
            if topology_flavors.contains(&fl.name) {
                unsupported.push(format!(
                    "flavor {} with spec.topologyName (topology-aware scheduling)",
                    fl.name
                ));
            }
        }
    }
    Ok(m::ClusterQueue {
        cohort,
        resource_groups,
        namespace_selector: spec.namespace_selector.as_ref().map(pod::label_selector),
        queueing_strategy: match spec.queueing_strategy {
            api::QueueingStrategy::StrictFIFO => m::QueueingStrategy::StrictFifo,
            api::QueueingStrategy::BestEffortFIFO => m::QueueingStrategy::BestEffortFifo,
        },
        preemption: m::Preemption {
            reclaim_within_cohort: reclaim,
            within_cluster_queue: within,
            borrow_within_cohort: bwc_lower.then_some(BorrowWithinCohort {
                lower_priority: true,
                max_priority_threshold: p.borrow_within_cohort.max_priority_threshold,
            }),
        },
        flavor_fungibility: fungibility,
        stop_policy: stop(spec.stop_policy),
        fair_weight: weight(ctx, &spec.fair_sharing)?,
        unsupported,
        terminating: cq.metadata.deletion_timestamp.is_some(),
        invalid: None,
    })
}

fn stop(p: api::StopPolicy) -> m::StopPolicy {
    match p {
        api::StopPolicy::None => m::StopPolicy::None,
        api::StopPolicy::Hold => m::StopPolicy::Hold,
        api::StopPolicy::HoldAndDrain => m::StopPolicy::HoldAndDrain,
    }
}

fn cohort(ctx: &Ctx, c: &Cohort) -> Result<m::Cohort, InputError> {
    let parent = c.spec.parent().map(str::to_string);
    Ok(m::Cohort {
        resource_groups: resource_groups(
            ctx,
            &c.spec.resource_groups,
            parent.is_some(),
            "parentName",
            false,
        )?,
        parent,
        fair_weight: weight(ctx, &c.spec.fair_sharing)?,
    })
}

/// What a Workload's spec asks for, in the engine's terms: its pod sets, the features among
/// them we do not implement, and requests that can never be admitted. It depends on the
/// spec, the namespace and the request context only, so a caller that knows none of them
/// changed may keep it ([`workload_with`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkloadDemand {
    pub pod_sets: Vec<m::PodSet>,
    pub unsupported: Vec<String>,
    pub invalid_requests: Vec<String>,
}

impl WorkloadDemand {
    /// The demand an engine workload was built with.
    pub fn of(w: &m::Workload) -> WorkloadDemand {
        WorkloadDemand {
            pod_sets: w.pod_sets.clone(),
            unsupported: w.unsupported.clone(),
            invalid_requests: w.invalid_requests.clone(),
        }
    }
}

fn workload_ctx<'a>(origin: &'a Origin, wl: &Workload) -> (Ctx<'a>, String) {
    let ns = wl
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let name = wl.metadata.name.as_deref().unwrap_or_default();
    let object = id("Workload", Some(&ns), name);
    (Ctx { origin, object }, ns)
}

/// The engine's view of a Workload object.
pub fn workload(
    ctx_origin: &Origin,
    wl: &Workload,
    tiebreak: u64,
    now: Millis,
    exclude_prefixes: &[String],
    requests: &RequestContext,
    order_by_eviction: bool,
) -> Result<m::Workload, InputError> {
    let demand = workload_demand(ctx_origin, wl, exclude_prefixes, requests)?;
    workload_with(ctx_origin, wl, tiebreak, now, order_by_eviction, demand)
}

/// A Workload's [`WorkloadDemand`], from its `spec.podSets`.
pub fn workload_demand(
    ctx_origin: &Origin,
    wl: &Workload,
    exclude_prefixes: &[String],
    requests: &RequestContext,
) -> Result<WorkloadDemand, InputError> {
    let (ctx, ns) = workload_ctx(ctx_origin, wl);
    let mut pod_sets = Vec::with_capacity(wl.spec.pod_sets.len());
    let mut unsupported = Vec::new();
    let mut invalid_requests = Vec::new();
    for (i, ps) in wl.spec.pod_sets.iter().enumerate() {
        let path = format!("spec.podSets[{i}]");
        if ps.count < 0 {
            return Err(ctx.err(
                format!("{path}.count"),
                "must be greater than or equal to 0",
            ));
        }
        if ps.topology_request.is_some() {
            unsupported.push(format!(
                "{path}.topologyRequest (topology-aware scheduling)"
            ));
        }
        let no_spec = PodSpec::default();
        let spec = ps.template.spec.as_ref().unwrap_or(&no_spec);
        pod::check_affinity_operators(spec, &format!("{path}.template.spec")).map_err(|b| {
            ctx.err(
                b.field.clone(),
                b.message("In, NotIn, Exists, DoesNotExist, Gt, Lt"),
            )
        })?;
        let counted = requests::pod_requests(spec, &ns, &format!("{path}.template.spec"), requests)
            .map_err(|e| ctx.err(e.field, e.error.to_string()))?;
        invalid_requests.extend(counted.problems);
        let mut per_pod = counted.per_pod;
        per_pod.retain(|r, _| !exclude_prefixes.iter().any(|p| r.starts_with(p.as_str())));
        if per_pod.contains_key("pods") {
            return Err(ctx.err(
                format!("{path}.template.spec"),
                "the resource name \"pods\" is not allowed in container requests",
            ));
        }
        pod_sets.push(m::PodSet {
            name: ps.name.clone(),
            count: ps.count,
            min_count: ps.min_count,
            per_pod,
            node_selector: spec.node_selector.clone().unwrap_or_default(),
            required_affinity: pod::required_affinity(spec),
            tolerations: pod::tolerations(spec.tolerations.as_deref().unwrap_or_default()),
        });
    }
    Ok(WorkloadDemand {
        pod_sets,
        unsupported,
        invalid_requests,
    })
}

/// The engine's view of a Workload object whose demand is known: `spec.podSets` is not read
/// (the object may come without them).
pub fn workload_with(
    ctx_origin: &Origin,
    wl: &Workload,
    tiebreak: u64,
    now: Millis,
    order_by_eviction: bool,
    demand: WorkloadDemand,
) -> Result<m::Workload, InputError> {
    let (ctx, ns) = workload_ctx(ctx_origin, wl);
    let name = wl.metadata.name.clone().unwrap_or_default();
    let no_status = WorkloadStatus::default();
    let status = wl.status.as_ref().unwrap_or(&no_status);
    let cond_true = |t: &str| status.condition_is_true(t);
    let mut queue_time = wl.metadata.creation_timestamp.as_ref().map_or(now, millis);
    if let Some(ev) = status
        .condition(condition::EVICTED)
        .filter(|c| c.status == "True")
        && ((ev.reason == condition::EVICTED_BY_PODS_READY_TIMEOUT && order_by_eviction)
            || ev.reason == "AdmissionCheck")
    {
        queue_time = millis(&ev.last_transition_time);
    }
    let holds = wl.holds_quota() && !cond_true(condition::FINISHED) && wl.spec.active;
    let admission = if holds {
        let adm = status
            .admission
            .as_ref()
            .expect("holds_quota implies admission");
        let mut pod_sets_adm = Vec::with_capacity(adm.pod_set_assignments.len());
        for (i, psa) in adm.pod_set_assignments.iter().enumerate() {
            let count = psa
                .count
                .or_else(|| {
                    demand
                        .pod_sets
                        .iter()
                        .find(|p| p.name == psa.name)
                        .map(|p| p.count)
                })
                .unwrap_or(1);
            let mut usage = BTreeMap::new();
            for (r, q) in &psa.resource_usage {
                let v = ctx.amount(
                    &format!("status.admission.podSetAssignments[{i}].resourceUsage.{r}"),
                    r,
                    &q.0,
                )?;
                usage.insert(r.clone(), v);
            }
            pod_sets_adm.push(m::PodSetAdmission {
                name: psa.name.clone(),
                flavors: psa.flavors.clone(),
                resource_usage: usage,
                count,
            });
        }
        Some(m::Admission {
            cluster_queue: adm.cluster_queue.clone(),
            pod_sets: pod_sets_adm,
        })
    } else {
        None
    };
    let requeued_false = status
        .condition(condition::REQUEUED)
        .is_some_and(|c| c.status == "False");
    let requeue_at = status
        .requeue_state
        .as_ref()
        .and_then(|r| r.requeue_at.as_ref())
        .map(millis);
    Ok(m::Workload {
        namespace: ns,
        name,
        uid: wl.metadata.uid.clone().unwrap_or_default(),
        job_uid: wl
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(JOB_UID_LABEL))
            .cloned(),
        queue_name: wl.spec.queue_name.clone().unwrap_or_default(),
        priority: wl.spec.priority_or_default(),
        priority_class: wl.spec.priority_class_name.clone(),
        queue_time,
        tiebreak,
        pod_sets: demand.pod_sets,
        active: wl.spec.active,
        finished: cond_true(condition::FINISHED),
        admitted: holds
            && (cond_true(condition::ADMITTED) || status.condition(condition::ADMITTED).is_none()),
        quota_reserved_at: status
            .condition(condition::QUOTA_RESERVED)
            .filter(|_| holds)
            .map(|c| millis(&c.last_transition_time)),
        admission,
        evicted: holds && cond_true(condition::EVICTED),
        requeue_blocked: requeued_false || requeue_at.is_some_and(|t| t > now),
        requeue_at,
        pods_ready: cond_true(condition::PODS_READY),
        reclaimable: status
            .reclaimable_pods
            .iter()
            .map(|r| (r.name.clone(), r.count))
            .collect(),
        unsupported: demand.unsupported,
        invalid_requests: demand.invalid_requests,
        spec_version: None,
    })
}

/// The scheduler settings a `Configuration` asks for.
pub fn scheduler_config(
    config: Option<&Configuration>,
    strict_namespace_selector: bool,
) -> m::SchedulerConfig {
    let mut out = m::SchedulerConfig {
        missing_namespace_selector: if strict_namespace_selector {
            MissingSelector::MatchNone
        } else {
            MissingSelector::MatchAll
        },
        ..Default::default()
    };
    let Some(c) = config else { return out };
    if c.fair_sharing_enabled() {
        let strategies = c
            .fair_sharing
            .iter()
            .flat_map(|f| f.preemption_strategies.iter())
            .map(|s| match s {
                api::config::PreemptionStrategy::LessThanOrEqualToFinalShare => {
                    FairSharingStrategy::LessThanOrEqualToFinalShare
                }
                api::config::PreemptionStrategy::LessThanInitialShare => {
                    FairSharingStrategy::LessThanInitialShare
                }
            })
            .collect();
        out.fair_sharing = Some(FairSharingConfig { strategies });
    }
    if c.resources
        .as_ref()
        .and_then(|r| r.quota_check_strategy.as_deref())
        == Some("IgnoreUndeclared")
    {
        out.quota_check = QuotaCheckStrategy::IgnoreUndeclared;
    }
    out.pods_ready = pods_ready_config(c);
    out
}

/// `waitForPodsReady` with upstream's defaults (v1beta1's, as the internal Configuration is
/// v1beta1-shaped; a v1beta2 file arrives with v1beta2's already applied), or `None` when off
/// (also with the `DisableWaitForPodsReady` feature gate on, as upstream).
pub fn pods_ready_config(c: &Configuration) -> Option<m::PodsReadyConfig> {
    if c.feature_gate("DisableWaitForPodsReady") == Some(true) {
        return None;
    }
    let defaulted = c.clone().with_defaults(None);
    let w = defaulted.wait_for_pods_ready.filter(|w| w.enable)?;
    let ms = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    let timeout_ms = ms(w
        .timeout
        .unwrap_or(api::config::DEFAULT_PODS_READY_TIMEOUT)
        .0);
    let strategy = w.requeuing_strategy.unwrap_or_default();
    Some(m::PodsReadyConfig {
        timeout_ms,
        recovery_timeout_ms: w.recovery_timeout.map(|d| ms(d.0)).filter(|&d| d > 0),
        block_admission: w.block_admission.unwrap_or(false),
        order_by_eviction: strategy.timestamp != Some(api::config::RequeuingTimestamp::Creation),
        backoff_limit_count: strategy.backoff_limit_count,
        backoff_base_seconds: strategy.backoff_base_seconds.unwrap_or(60),
        backoff_max_seconds: strategy.backoff_max_seconds.unwrap_or(3600),
    })
}

fn check_unique<T>(
    items: &[Sourced<T>],
    kind: &str,
    key: impl Fn(&T) -> String,
) -> Result<(), InputError> {
    let mut seen: BTreeMap<String, &Origin> = BTreeMap::new();
    for s in items {
        let k = key(&s.obj);
        if let Some(first) = seen.insert(k.clone(), &s.origin) {
            return Err(InputError::new(
                &s.origin,
                format!("duplicate {kind} {k}: it is also defined at {first}"),
            )
            .object(format!("{kind} {k}")));
        }
    }
    Ok(())
}

/// Converts everything read into the engine's picture.
pub fn convert(inv: &Inventory, opts: &ConvertOptions) -> Result<Converted, InputError> {
    let name_of = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        m.name.clone().unwrap_or_default()
    };
    let ns_name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        format!(
            "{}/{}",
            m.namespace.as_deref().unwrap_or("default"),
            name_of(m)
        )
    };
    check_unique(&inv.flavors, "ResourceFlavor", |o| name_of(&o.metadata))?;
    check_unique(&inv.cohorts, "Cohort", |o| name_of(&o.metadata))?;
    check_unique(&inv.cluster_queues, "ClusterQueue", |o| {
        name_of(&o.metadata)
    })?;
    check_unique(&inv.local_queues, "LocalQueue", |o| ns_name(&o.metadata))?;
    check_unique(&inv.priority_classes, "WorkloadPriorityClass", |o| {
        name_of(&o.metadata)
    })?;
    check_unique(&inv.workloads, "Workload", |o| ns_name(&o.metadata))?;
    check_unique(&inv.jobs, "Job", |o| ns_name(&o.metadata))?;
    check_unique(&inv.namespaces, "Namespace", |o| name_of(&o.metadata))?;

    let config = inv.config.as_ref().map(|c| &c.obj);
    let mut out = Converted {
        warnings: inv.warnings.clone(),
        nodes: super::nodes::read(inv)?,
        pods_unread: inv.pods_unread.clone(),
        ..Default::default()
    };
    out.state.config = scheduler_config(config, opts.strict_namespace_selector);
    let exclude: Vec<String> = config
        .and_then(|c| c.resources.as_ref())
        .map(|r| r.exclude_resource_prefixes.clone())
        .unwrap_or_default();

    let mut topology_flavors = BTreeSet::new();
    for f in &inv.flavors {
        let name = name_of(&f.obj.metadata);
        if f.obj.spec.topology_name.is_some() {
            topology_flavors.insert(name.clone());
        }
        out.state.flavors.insert(name, flavor(&f.obj));
    }
    for c in &inv.cohorts {
        let name = name_of(&c.obj.metadata);
        let ctx = Ctx {
            origin: &c.origin,
            object: id("Cohort", None, &name),
        };
        let converted = cohort(&ctx, &c.obj).map_err(|e| {
            let key = ObjectKey::cluster_scoped(&c.obj.metadata);
            inv.sources.in_written_version(KueueKind::Cohort, &key, e)
        })?;
        out.state.cohorts.insert(name, converted);
    }
    for cq in &inv.cluster_queues {
        let name = name_of(&cq.obj.metadata);
        let ctx = Ctx {
            origin: &cq.origin,
            object: id("ClusterQueue", None, &name),
        };
        let key = ObjectKey::cluster_scoped(&cq.obj.metadata);
        let mut converted = cluster_queue(&ctx, &cq.obj, &topology_flavors).map_err(|e| {
            inv.sources
                .in_written_version(KueueKind::ClusterQueue, &key, e)
        })?;
        for feature in inv.sources.v1beta2_features(KueueKind::ClusterQueue, &key) {
            // Upstream acts on the policy only with its (alpha) feature gate on.
            if feature != V1beta2Feature::ConcurrentAdmission
                || config.and_then(|c| c.feature_gate("ConcurrentAdmission")) == Some(true)
            {
                converted.unsupported.push(feature.describe().to_string());
            }
        }
        for g in &converted.resource_groups {
            for f in &g.flavors {
                if !out.state.flavors.contains_key(&f.name) {
                    out.warnings.push(format!(
                        "ClusterQueue {name} references ResourceFlavor {} which is not in the input: the ClusterQueue is inactive (FlavorNotFound)",
                        f.name
                    ));
                }
            }
        }
        out.state.cluster_queues.insert(name, converted);
    }
    for lq in &inv.local_queues {
        let ns = lq
            .obj
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string());
        out.state.namespaces.entry(ns.clone()).or_default();
        out.state.local_queues.insert(
            (ns, name_of(&lq.obj.metadata)),
            m::LocalQueue {
                cluster_queue: lq.obj.spec.cluster_queue.clone().unwrap_or_default(),
                stop_policy: stop(lq.obj.spec.stop_policy),
            },
        );
    }
    for n in &inv.namespaces {
        out.state.namespaces.insert(
            name_of(&n.obj.metadata),
            n.obj.metadata.labels.clone().unwrap_or_default(),
        );
    }
    let priorities = inv.priorities();

    // Workloads in input order; a Job contributes its Workload unless that is given too.
    let mut entries: Vec<(Workload, Origin, Option<String>)> = inv
        .workloads
        .iter()
        .map(|w| (w.obj.clone(), w.origin.clone(), None))
        .collect();
    for job in &inv.jobs {
        if inv
            .workloads
            .iter()
            .any(|w| workload_belongs_to(&w.obj, &job.obj))
        {
            continue;
        }
        let key = ns_name(&job.obj.metadata);
        match workload_for_job(&job.obj, &priorities) {
            Ok(w) => entries.push((w, job.origin.clone(), Some(key))),
            Err(problem) => out
                .rejected_jobs
                .push(rejected(&job.obj, &job.origin, &problem)),
        }
    }
    entries.sort_by_key(|(_, o, _)| o.order);
    let request_context = RequestContext::new(
        inv.limit_ranges.iter().map(|l| &l.obj),
        inv.runtime_classes.iter().map(|r| &r.obj),
    );
    for (obj, origin, job) in entries {
        let key = ObjectKey::namespaced(&obj.metadata);
        let mut w = workload(
            &origin,
            &obj,
            origin.order as u64,
            opts.now,
            &exclude,
            &request_context,
            out.state.config.orders_by_eviction(),
        )
        .map_err(|e| match &job {
            // Point at the Job the user wrote, not the Workload built from it.
            Some(j) => InputError {
                object: Some(format!("Job {j}")),
                field: e
                    .field
                    .map(|f| f.replacen("spec.podSets[0].template.", "spec.template.", 1)),
                ..e
            },
            None => inv.sources.in_written_version(KueueKind::Workload, &key, e),
        })?;
        if job.is_none() {
            for feature in inv.sources.v1beta2_features(KueueKind::Workload, &key) {
                w.unsupported.push(feature.describe().to_string());
            }
        }
        out.state.namespaces.entry(w.namespace.clone()).or_default();
        out.workloads.push(WorkloadEntry {
            key: w.key().to_string(),
            object: obj,
            origin,
            job,
        });
        out.state.workloads.push(w);
    }
    // The API server labels every namespace with its name; selectors may rely on it.
    for (name, labels) in &mut out.state.namespaces {
        labels
            .entry("kubernetes.io/metadata.name".to_string())
            .or_insert_with(|| name.clone());
    }
    let owners = out.workloads.iter().map(|e| {
        let m = &e.object.metadata;
        let key = crate::scheduler::key::WorkloadKey {
            namespace: super::key::namespace_of(m).to_string(),
            name: name_of(m),
        };
        (key, super::nodes::owners_of(m))
    });
    super::nodes::assign_workloads(&mut out.nodes, owners);
    Ok(out)
}

fn rejected(job: &Job, origin: &Origin, problem: &JobProblem) -> RejectedJob {
    RejectedJob {
        job: format!(
            "{}/{}",
            job.metadata.namespace.as_deref().unwrap_or("default"),
            job.metadata.name.as_deref().unwrap_or("")
        ),
        origin: origin.clone(),
        reason: problem.reason().to_string(),
        message: problem.message(),
    }
}
