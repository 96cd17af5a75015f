//! What a pod template asks of the scheduler, counted as upstream Kueue counts a Workload's
//! requests (`AdjustResources`, then Kubernetes' `PodRequests`), on a copy of the template
//! (the stored object is never changed):
//! 1. the RuntimeClass's `overhead.podFixed` when the template names one and has no overhead;
//! 2. the namespace's LimitRange defaults (`default`, `defaultRequest`, summarized over every
//!    LimitRange, the first value met per resource) fill missing container limits and
//!    requests, and pod-level ones when the template has pod-level `resources`;
//! 3. limits stand in for missing requests (containers, init containers, pod level);
//! 4. containers are summed, init containers count by their peak together with the sidecars
//!    started before them, sidecars (`restartPolicy: Always`) run alongside;
//! 5. pod-level requests replace the sum for cpu, memory and hugepages only;
//! 6. the overhead is added.
//!
//! Also what can never be admitted, in upstream's words with the field path: a negative
//! request or limit (upstream's webhook rejects them) and a request above its limit
//! (upstream's `ValidateResources`, after the defaults above).
//!
//! Invariants: amounts are never negative (upstream's `FloorToZero`: a negative request never
//! lowers a queue's usage, it makes the workload inadmissible instead); LimitRanges are
//! summarized in (namespace, name) order, so the result does not depend on input order.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, LimitRange, PodSpec, ResourceRequirements};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::scheduler::quantity::{Amount, QuantityError, parse_amount};

type ResourceList = BTreeMap<String, Quantity>;

/// A failed quantity with the field path inside the pod spec.
#[derive(Debug, Clone)]
pub struct PodFieldError {
    pub field: String,
    pub error: QuantityError,
}

/// The defaults of a namespace's LimitRanges, summarized as upstream's `limitrange.Summarize`.
#[derive(Debug, Clone, Default, PartialEq)]
struct LimitDefaults {
    /// A `Container` item exists: container defaults apply.
    container: Option<(ResourceList, ResourceList)>,
    /// A `Pod` item exists: pod-level defaults apply (to templates with pod-level resources).
    pod: Option<(ResourceList, ResourceList)>,
}

/// The cluster objects requests depend on: LimitRanges by namespace, RuntimeClass overheads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestContext {
    limit_ranges: BTreeMap<String, LimitDefaults>,
    overheads: BTreeMap<String, ResourceList>,
}

fn keep_first(dst: &mut ResourceList, src: &ResourceList) {
    for (k, v) in src {
        dst.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

fn list(l: &Option<ResourceList>) -> ResourceList {
    l.clone().unwrap_or_default()
}

impl RequestContext {
    /// Summarizes `limit_ranges` per namespace and reads each RuntimeClass's overhead.
    pub fn new<'a>(
        limit_ranges: impl IntoIterator<Item = &'a LimitRange>,
        runtime_classes: impl IntoIterator<Item = &'a RuntimeClass>,
    ) -> RequestContext {
        let mut sorted: Vec<&LimitRange> = limit_ranges.into_iter().collect();
        sorted.sort_by_key(|l| (l.metadata.namespace.clone(), l.metadata.name.clone()));
        let mut out = RequestContext::default();
        for lr in sorted {
            let ns = lr
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            let summary = out.limit_ranges.entry(ns).or_default();
            for item in lr.spec.iter().flat_map(|s| s.limits.iter()) {
                let mut default = list(&item.default);
                let mut request = list(&item.default_request);
                let slot = match item.type_.as_str() {
                    "Container" => {
                        // The API server's defaulting of a Container item (files may lack
                        // it): max stands in for a missing default, default and then min for
                        // a missing defaultRequest.
                        keep_first(&mut default, &list(&item.max));
                        keep_first(&mut request, &default);
                        keep_first(&mut request, &list(&item.min));
                        &mut summary.container
                    }
                    "Pod" => &mut summary.pod,
                    _ => continue,
                };
                let (d, r) = slot.get_or_insert_with(Default::default);
                keep_first(d, &default);
                keep_first(r, &request);
            }
        }
        for rc in runtime_classes {
            if let Some(fixed) = rc.overhead.as_ref().and_then(|o| o.pod_fixed.clone()) {
                out.overheads
                    .insert(rc.metadata.name.clone().unwrap_or_default(), fixed);
            }
        }
        out
    }
}

/// A pod template's requests per pod, and why it can never be admitted (if it cannot).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodRequests {
    pub per_pod: BTreeMap<String, Amount>,
    pub problems: Vec<String>,
}

/// The requests of one pod of `spec` (at `field`, e.g. `spec.podSets[0].template.spec`) in
/// namespace `namespace`.
pub fn pod_requests(
    spec: &PodSpec,
    namespace: &str,
    field: &str,
    ctx: &RequestContext,
) -> Result<PodRequests, PodFieldError> {
    let mut problems = negatives(spec, field)?;
    let adjusted = adjust(spec, namespace, ctx);
    problems.extend(above_limits(&adjusted, field)?);
    let mut per_pod = aggregate(&adjusted, field)?;
    for v in per_pod.values_mut() {
        *v = (*v).max(Amount::ZERO);
    }
    Ok(PodRequests { per_pod, problems })
}

/// Upstream's `AdjustResources` on a copy: overhead, LimitRange defaults, limits as requests.
fn adjust(spec: &PodSpec, namespace: &str, ctx: &RequestContext) -> PodSpec {
    let mut spec = spec.clone();
    if let Some(rc) = &spec.runtime_class_name
        && spec.overhead.as_ref().is_none_or(|o| o.is_empty())
        && let Some(fixed) = ctx.overheads.get(rc)
    {
        spec.overhead = Some(fixed.clone());
    }
    let defaults = ctx.limit_ranges.get(namespace);
    let fill = |r: &mut ResourceRequirements, d: &Option<(ResourceList, ResourceList)>| {
        if let Some((default, request)) = d {
            let mut limits = list(&r.limits);
            keep_first(&mut limits, default);
            let mut requests = list(&r.requests);
            keep_first(&mut requests, request);
            r.limits = Some(limits).filter(|l| !l.is_empty());
            r.requests = Some(requests).filter(|l| !l.is_empty());
        }
    };
    let limits_as_requests = |r: &mut ResourceRequirements| {
        let mut requests = list(&r.requests);
        keep_first(&mut requests, &list(&r.limits));
        r.requests = Some(requests).filter(|l| !l.is_empty());
    };
    let containers = spec
        .init_containers
        .iter_mut()
        .flatten()
        .chain(spec.containers.iter_mut());
    for c in containers {
        let r = c.resources.get_or_insert_with(Default::default);
        if let Some(d) = defaults {
            fill(r, &d.container);
        }
        limits_as_requests(r);
    }
    if let Some(r) = spec.resources.as_mut() {
        if let Some(d) = defaults {
            fill(r, &d.pod);
        }
        limits_as_requests(r);
    }
    spec
}

fn amounts(
    l: &Option<ResourceList>,
    field: &str,
) -> Result<BTreeMap<String, Amount>, PodFieldError> {
    let mut out = BTreeMap::new();
    for (name, q) in l.iter().flatten() {
        let v = parse_amount(name, &q.0).map_err(|error| PodFieldError {
            field: format!("{field}[{name}]"),
            error,
        })?;
        out.insert(name.clone(), v);
    }
    Ok(out)
}

/// Every resources block of a pod spec with its path: init containers, containers, pod level.
fn blocks<'a>(spec: &'a PodSpec, field: &str) -> Vec<(String, Option<&'a ResourceRequirements>)> {
    let path = |kind: &str, i: usize| format!("{field}.{kind}[{i}]");
    let of = |c: &'a Container| c.resources.as_ref();
    let mut out: Vec<(String, Option<&ResourceRequirements>)> = Vec::new();
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        out.push((path("initContainers", i), of(c)));
    }
    for (i, c) in spec.containers.iter().enumerate() {
        out.push((path("containers", i), of(c)));
    }
    if let Some(r) = &spec.resources {
        out.push((format!("{field}.resources"), Some(r)));
    }
    out
}

/// The path of a resources block's requests or limits (`resources.requests` of a container,
/// `requests` of the pod-level block).
fn sub(path: &str, part: &str) -> String {
    if path.ends_with(".resources") {
        format!("{path}.{part}")
    } else {
        format!("{path}.resources.{part}")
    }
}

/// Negative requests and limits of the spec as written, as upstream's webhook words them.
fn negatives(spec: &PodSpec, field: &str) -> Result<Vec<String>, PodFieldError> {
    let mut out = Vec::new();
    let mut check = |l: &Option<ResourceList>, at: String| -> Result<(), PodFieldError> {
        let parsed = amounts(l, &at)?;
        for (name, v) in parsed {
            if v < 0 {
                let written = &l.as_ref().expect("parsed from it")[&name].0;
                out.push(format!(
                    "{at}[{name}]: Invalid value: {written:?}: must be greater than or equal to 0"
                ));
            }
        }
        Ok(())
    };
    for (path, r) in blocks(spec, field) {
        let Some(r) = r else { continue };
        check(&r.requests, sub(&path, "requests"))?;
        check(&r.limits, sub(&path, "limits"))?;
    }
    check(&spec.overhead, format!("{field}.overhead"))?;
    Ok(out)
}

/// Requests above their limits (upstream's `ValidateResources` on the adjusted spec).
fn above_limits(spec: &PodSpec, field: &str) -> Result<Vec<String>, PodFieldError> {
    let mut out = Vec::new();
    for (path, r) in blocks(spec, field) {
        let Some(r) = r else { continue };
        let requests = amounts(&r.requests, &sub(&path, "requests"))?;
        let limits = amounts(&r.limits, &sub(&path, "limits"))?;
        let over: Vec<String> = requests
            .iter()
            .filter(|(k, v)| limits.get(*k).is_some_and(|l| *v > l))
            .map(|(k, _)| format!("{k:?}"))
            .collect();
        if !over.is_empty() {
            out.push(format!(
                "{path}: Invalid value: [{}]: requests must not exceed its limits",
                over.join(",")
            ));
        }
    }
    Ok(out)
}

fn add_into(a: &mut BTreeMap<String, Amount>, b: &BTreeMap<String, Amount>) {
    for (k, v) in b {
        *a.entry(k.clone()).or_default() += *v;
    }
}

fn max_into(a: &mut BTreeMap<String, Amount>, b: &BTreeMap<String, Amount>) {
    for (k, v) in b {
        let e = a.entry(k.clone()).or_default();
        *e = (*e).max(*v);
    }
}

/// Pod-level requests may set only these (Kubernetes' supported pod-level resources).
fn pod_level_supported(resource: &str) -> bool {
    resource == "cpu" || resource == "memory" || resource.starts_with("hugepages-")
}

/// Kubernetes' `PodRequests` on the adjusted spec (requests already hold the limits).
fn aggregate(spec: &PodSpec, field: &str) -> Result<BTreeMap<String, Amount>, PodFieldError> {
    let requests = |c: &Container, path: String| {
        amounts(
            &c.resources.as_ref().and_then(|r| r.requests.clone()),
            &sub(&path, "requests"),
        )
    };
    let mut reqs = BTreeMap::new();
    for (i, c) in spec.containers.iter().enumerate() {
        add_into(&mut reqs, &requests(c, format!("{field}.containers[{i}]"))?);
    }
    let mut sidecars: BTreeMap<String, Amount> = BTreeMap::new();
    let mut init_peak: BTreeMap<String, Amount> = BTreeMap::new();
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let r = requests(c, format!("{field}.initContainers[{i}]"))?;
        if c.restart_policy.as_deref() == Some("Always") {
            add_into(&mut reqs, &r);
            add_into(&mut sidecars, &r);
            max_into(&mut init_peak, &sidecars);
        } else {
            let mut with_sidecars = r;
            add_into(&mut with_sidecars, &sidecars);
            max_into(&mut init_peak, &with_sidecars);
        }
    }
    max_into(&mut reqs, &init_peak);
    let pod_level = amounts(
        &spec.resources.as_ref().and_then(|r| r.requests.clone()),
        &format!("{field}.resources.requests"),
    )?;
    if pod_level.keys().any(|k| pod_level_supported(k)) {
        for (k, v) in pod_level
            .into_iter()
            .filter(|(k, _)| pod_level_supported(k))
        {
            reqs.insert(k, v);
        }
    }
    add_into(
        &mut reqs,
        &amounts(&spec.overhead, &format!("{field}.overhead"))?,
    );
    Ok(reqs)
}

#[cfg(test)]
mod tests;
