//! Flavor assignment: for each podSet and resource group, which flavor holds the request,
//! with upstream Kueue's rules: flavors in list order from where the last scan stopped,
//! static filters (flavor exists, taints, node labels), quota per resource (fit, borrow,
//! preempt via the oracle, or no fit), flavor fungibility, and the exact status messages.

use std::collections::BTreeMap;

use super::decision::{
    Assignment, FitMode, FlavorAttempt, FlavorOutcome, PendingReason, PodSetAssignment,
    PreemptionGate, ResourceCheck,
};
use super::id::{CqId, FlavorId, FrId, ResId, WlId};
use super::labels::{Toleration, first_untolerated, pod_matches_flavor_labels};
use super::message;
use super::model::{FungibilityPreference, QuotaCheckStrategy, WhenCanBorrow, WhenCanPreempt};
use super::preemption;
use super::quantity::Amount;
use super::state::{FlavorScan, LastState};
use super::tree::Tree;
use super::view::View;

#[derive(Debug, Clone, Copy)]
pub(crate) struct FlavorChoice {
    pub res: ResId,
    pub flavor: FlavorId,
    pub mode: FitMode,
    pub borrow: u32,
    /// Where the scan stopped (see [`FlavorScan::last_tried`]).
    pub last_tried: Option<u32>,
}

#[derive(Debug, Clone)]
pub(crate) struct PodSetResult {
    pub name: String,
    pub count: i32,
    /// Total requests of the podSet, by resource id.
    pub requests: Vec<(ResId, Amount)>,
    pub choices: Vec<FlavorChoice>,
    /// Status reasons (rendered); empty means the podSet fits.
    pub reasons: Vec<String>,
    pub attempts: Vec<FlavorAttempt>,
    /// What each attempt in `attempts` means for the pending reason.
    attempt_meta: Vec<AttemptMeta>,
    pub uncovered: Vec<ResId>,
}

/// One flavor attempt, as far as choosing the pending reason goes.
#[derive(Debug, Clone, Copy)]
struct AttemptMeta {
    /// Index of the resource group in the ClusterQueue.
    group: usize,
    mode: FitMode,
    /// Set when the flavor cannot hold the request.
    no_fit: Option<PendingReason>,
}

/// How a flavor can hold a request: the mode, and the borrowing level it would need
/// (0: within nominal quota).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fit {
    pub mode: FitMode,
    pub borrow: u32,
}

/// A quota check of one (flavor, resource), with its status message when the request does
/// not fit in unused quota and its reason when it does not fit at all.
struct QuotaFit {
    check: ResourceCheck,
    message: Option<String>,
    no_fit: Option<PendingReason>,
}

impl PodSetResult {
    fn mode(&self) -> FitMode {
        if self.reasons.is_empty() {
            return FitMode::Fit;
        }
        if self.choices.is_empty() {
            return FitMode::NoFit;
        }
        self.choices
            .iter()
            .map(|c| coarse(c.mode))
            .min()
            .unwrap_or(FitMode::Fit)
    }

    fn no_fit_reason(&self) -> Option<PendingReason> {
        // Upstream leaves the reason empty when a resource is not covered but other groups
        // were tried; no flavor can hold it, so we say NoMatchingFlavor.
        if self.attempt_meta.is_empty() || !self.uncovered.is_empty() {
            return Some(PendingReason::NoMatchingFlavor);
        }
        let mut per_group: BTreeMap<usize, PendingReason> = BTreeMap::new();
        for meta in &self.attempt_meta {
            let (FitMode::NoFit, Some(r)) = (meta.mode, meta.no_fit) else {
                continue;
            };
            per_group
                .entry(meta.group)
                .and_modify(|cur| {
                    if r.severity() < cur.severity() {
                        *cur = r;
                    }
                })
                .or_insert(r);
        }
        per_group
            .into_values()
            .max_by_key(|r| r.severity())
            .or(Some(PendingReason::NoMatchingFlavor))
    }
}

/// Flavor assignment modes collapse to upstream's three: NoFit < Preempt < Fit.
fn coarse(m: FitMode) -> FitMode {
    match m {
        FitMode::NoFit => FitMode::NoFit,
        FitMode::Fit => FitMode::Fit,
        _ => FitMode::Preempt,
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Assigned {
    pub pod_sets: Vec<PodSetResult>,
    pub usage: Vec<(FrId, Amount)>,
    pub borrowing: u32,
    pub last: LastState,
    pub no_fit_reason: Option<PendingReason>,
    /// Pod sets the workload has (a failed podSet stops the assignment early).
    pub total_pod_sets: usize,
}

impl Assigned {
    /// NoFit, Preempt or Fit (upstream's representative mode).
    pub fn mode(&self) -> FitMode {
        if self.pod_sets.is_empty() || self.pod_sets.len() < self.total_pod_sets {
            return FitMode::NoFit;
        }
        self.pod_sets
            .iter()
            .map(PodSetResult::mode)
            .min()
            .unwrap_or(FitMode::NoFit)
    }

    /// Upstream's `Assignment.Message()`.
    pub fn message(&self) -> String {
        let parts: Vec<String> = self
            .pod_sets
            .iter()
            .filter(|ps| !ps.reasons.is_empty())
            .map(|ps| message::pod_set_unassigned(&ps.name, &ps.reasons))
            .collect();
        message::assignment(&parts)
    }

    /// The (flavor, resource) pairs assigned in preemption mode.
    pub fn frs_needing_preemption(&self, view: &View) -> Vec<FrId> {
        let mut frs: Vec<FrId> = self
            .pod_sets
            .iter()
            .flat_map(|ps| ps.choices.iter())
            .filter(|c| coarse(c.mode) == FitMode::Preempt)
            .filter_map(|c| view.names.find_fr(c.flavor, c.res))
            .collect();
        frs.sort_unstable();
        frs.dedup();
        frs
    }

    /// The assignment as reported data (names instead of ids).
    pub fn to_report(&self, view: &View) -> Assignment {
        let names = view.names;
        let pod_sets = self
            .pod_sets
            .iter()
            .map(|ps| {
                let mut flavors: Vec<(String, String, FitMode)> = ps
                    .choices
                    .iter()
                    .map(|c| {
                        (
                            names.resources[c.res].clone(),
                            names.flavors[c.flavor].clone(),
                            c.mode,
                        )
                    })
                    .collect();
                flavors.sort();
                let mut resource_usage: Vec<(String, Amount)> = ps
                    .choices
                    .iter()
                    .map(|c| {
                        let v = ps
                            .requests
                            .iter()
                            .find(|(r, _)| *r == c.res)
                            .map_or(Amount::ZERO, |(_, v)| *v);
                        (names.resources[c.res].clone(), v)
                    })
                    .collect();
                resource_usage.sort();
                let mut uncovered: Vec<String> = ps
                    .uncovered
                    .iter()
                    .map(|&r| names.resources[r].clone())
                    .collect();
                uncovered.sort();
                PodSetAssignment {
                    name: ps.name.clone(),
                    count: ps.count,
                    flavors,
                    resource_usage,
                    reasons: ps.reasons.clone(),
                    attempts: ps.attempts.clone(),
                    uncovered,
                }
            })
            .collect();
        let mut usage: Vec<(String, String, Amount)> = self
            .usage
            .iter()
            .map(|&(fr, v)| {
                (
                    names.fr_flavor(fr).to_string(),
                    names.fr_resource(fr).to_string(),
                    v,
                )
            })
            .collect();
        usage.sort();
        Assignment {
            pod_sets,
            mode: Some(self.mode()),
            borrowing: self.borrowing,
            usage,
            no_fit_reason: self.no_fit_reason,
        }
    }
}

/// Which of two flavor results is better (upstream's `isPreferred`).
fn preferred(a: Fit, b: Fit, preference: FungibilityPreference) -> bool {
    if a.mode == FitMode::NoFit {
        return false;
    }
    if b.mode == FitMode::NoFit {
        return true;
    }
    let (a_none, b_none) = (
        a.mode == FitMode::NoCandidates,
        b.mode == FitMode::NoCandidates,
    );
    if a_none != b_none {
        return !a_none;
    }
    match preference {
        FungibilityPreference::BorrowingOverPreemption => {
            if a.mode != b.mode {
                a.mode > b.mode
            } else {
                a.borrow < b.borrow
            }
        }
        FungibilityPreference::PreemptionOverBorrowing => {
            if a.borrow != b.borrow {
                a.borrow < b.borrow
            } else {
                a.mode > b.mode
            }
        }
    }
}

fn should_try_next(fit: Fit, view: &View, cq: CqId) -> bool {
    let f = &view.cqs[cq].spec.flavor_fungibility;
    if matches!(fit.mode, FitMode::NoFit | FitMode::NoCandidates) {
        return true;
    }
    if matches!(fit.mode, FitMode::Preempt | FitMode::Reclaim)
        && f.when_can_preempt == WhenCanPreempt::TryNextFlavor
    {
        return true;
    }
    fit.borrow > 0 && f.when_can_borrow == WhenCanBorrow::TryNextFlavor
}

pub(crate) struct Assigner<'v, 'a> {
    pub view: &'v View<'a>,
    pub wl: WlId,
    pub cq: CqId,
    pub last: Option<&'v LastState>,
    /// The head's preemption searches so far (see [`preemption::SearchMemo`]).
    pub searches: &'v preemption::SearchMemo,
}

impl Assigner<'_, '_> {
    /// Assigns flavors to every podSet, with `counts` overriding podSet counts (partial
    /// admission).
    pub fn assign(&self, tree: &mut Tree, counts: Option<&[i32]>) -> Assigned {
        let view = self.view;
        let st = view.wl(self.wl);
        let cq = &view.cqs[self.cq];
        let mut out = Assigned {
            pod_sets: Vec::with_capacity(st.pod_sets.len()),
            usage: Vec::new(),
            borrowing: 0,
            last: LastState {
                tried: Vec::new(),
                generation: cq.generation,
                cycle: 0,
            },
            no_fit_reason: None,
            total_pod_sets: st.pod_sets.len(),
        };
        let mut usage: BTreeMap<FrId, Amount> = BTreeMap::new();
        for (i, ps) in st.pod_sets.iter().enumerate() {
            let count = counts.map_or(ps.count, |c| c[i]);
            let mut requests: Vec<(ResId, Amount)> = ps
                .per_pod
                .iter()
                .map(|&(r, v)| (r, v * i64::from(count)))
                .collect();
            if let Some(pods) = cq.covers_pods {
                let pod_count = Amount::new(i64::from(count));
                match requests.iter_mut().find(|(r, _)| *r == pods) {
                    Some(e) => e.1 = pod_count,
                    None => requests.push((pods, pod_count)),
                }
            }
            requests.sort_by(|a, b| view.names.resources[a.0].cmp(&view.names.resources[b.0]));
            let mut result = PodSetResult {
                name: ps.name.clone(),
                count,
                requests: requests.clone(),
                choices: Vec::new(),
                reasons: Vec::new(),
                attempts: Vec::new(),
                attempt_meta: Vec::new(),
                uncovered: Vec::new(),
            };
            let mut failed = false;
            let mut group_reasons: Vec<String> = Vec::new();
            let mut done_groups: Vec<usize> = Vec::new();
            for &(res, qty) in &requests {
                let Some(&g) = cq.group_of.get(&res) else {
                    if qty == 0 || view.cfg.quota_check == QuotaCheckStrategy::IgnoreUndeclared {
                        continue;
                    }
                    result.uncovered.push(res);
                    group_reasons = vec![message::resource_not_covered(&view.names.resources[res])];
                    failed = true;
                    break;
                };
                if done_groups.contains(&g) {
                    continue;
                }
                done_groups.push(g);
                let group_requests: Vec<(ResId, Amount)> = requests
                    .iter()
                    .filter(|(r, _)| cq.groups[g].covered.contains(r))
                    .copied()
                    .collect();
                match self.find_flavor(tree, i, res, g, &group_requests, &usage, &mut result) {
                    Ok(reasons) => group_reasons.extend(reasons),
                    Err(reasons) => {
                        group_reasons = reasons;
                        failed = true;
                        break;
                    }
                }
            }
            if failed {
                result.choices.clear();
            }
            result.reasons = group_reasons;
            // Accumulate usage and scan state.
            let mut tried = Vec::with_capacity(result.choices.len());
            for c in &result.choices {
                out.borrowing = out.borrowing.max(c.borrow);
                if let Some(fr) = view.names.find_fr(c.flavor, c.res) {
                    let v = result
                        .requests
                        .iter()
                        .find(|(r, _)| *r == c.res)
                        .map_or(Amount::ZERO, |(_, v)| *v);
                    *usage.entry(fr).or_default() += v;
                }
                tried.push(FlavorScan {
                    resource: c.res,
                    last_tried: c.last_tried,
                });
            }
            out.last.tried.push(tried);
            let ps_failed = result.mode() == FitMode::NoFit;
            out.pod_sets.push(result);
            if ps_failed {
                break;
            }
        }
        out.usage = usage.into_iter().collect();
        if out.mode() == FitMode::NoFit {
            out.no_fit_reason = out
                .pod_sets
                .iter()
                .filter(|p| p.mode() == FitMode::NoFit)
                .filter_map(PodSetResult::no_fit_reason)
                .max_by_key(|r| r.severity());
        }
        out
    }

    /// Scans the group's flavors for podSet `ps`; returns the status reasons for the chosen
    /// flavor (empty on Fit), or every reason when no flavor can hold the request.
    #[allow(clippy::too_many_arguments)]
    fn find_flavor(
        &self,
        tree: &mut Tree,
        ps: usize,
        trigger: ResId,
        g: usize,
        requests: &[(ResId, Amount)],
        assigned: &BTreeMap<FrId, Amount>,
        result: &mut PodSetResult,
    ) -> Result<Vec<String>, Vec<String>> {
        let view = self.view;
        let cq = &view.cqs[self.cq];
        let group = &cq.groups[g];
        let preference = cq.spec.flavor_fungibility.preference;
        let mut reasons: Vec<String> = Vec::new();
        let mut best: Option<Vec<FlavorChoice>> = None;
        let mut best_mode = Fit {
            mode: FitMode::NoFit,
            borrow: u32::MAX,
        };
        let start = self.last.map_or(0, |l| l.next_flavor(ps, trigger));
        let mut attempted = 0;
        for idx in start..group.flavors.len() {
            attempted = idx;
            let fid = group.flavors[idx];
            let fname = &view.names.flavors[fid];
            if let Some(outcome) = self.static_mismatch(fid, ps) {
                reasons.push(match &outcome {
                    FlavorOutcome::NotFound => message::flavor_not_found(fname),
                    FlavorOutcome::UntoleratedTaint(t) => message::untolerated_taint(t, fname),
                    _ => message::affinity_mismatch(fname),
                });
                result.attempts.push(FlavorAttempt {
                    flavor: fname.clone(),
                    outcome,
                });
                result.attempt_meta.push(AttemptMeta {
                    group: g,
                    mode: FitMode::NoFit,
                    no_fit: Some(PendingReason::NoMatchingFlavor),
                });
                continue;
            }
            // The flavor's representative fit: the worst over the group's resources.
            let mut rep = Fit {
                mode: FitMode::Fit,
                borrow: 0,
            };
            let mut choices = Vec::new();
            let mut checks = Vec::new();
            let mut flavor_reason: Option<PendingReason> = None;
            for &(res, val) in requests {
                let ci = group
                    .covered
                    .iter()
                    .position(|&r| r == res)
                    .expect("covered resource");
                let fr = group.frs[idx][ci];
                let quota_fit = self.fits_quota(
                    tree,
                    fr,
                    res,
                    assigned.get(&fr).copied().unwrap_or_default(),
                    val,
                );
                let fit = Fit {
                    mode: quota_fit.check.mode,
                    borrow: quota_fit.check.borrow_level,
                };
                if let Some(msg) = quota_fit.message {
                    reasons.push(msg);
                }
                if let Some(r) = quota_fit.no_fit {
                    flavor_reason = Some(match flavor_reason {
                        Some(cur) if cur.severity() >= r.severity() => cur,
                        _ => r,
                    });
                }
                if preferred(rep, fit, preference) {
                    rep = fit;
                }
                checks.push(quota_fit.check);
                if rep.mode == FitMode::NoFit {
                    continue;
                }
                choices.push(FlavorChoice {
                    res,
                    flavor: fid,
                    mode: fit.mode,
                    borrow: fit.borrow,
                    last_tried: None,
                });
            }
            result.attempts.push(FlavorAttempt {
                flavor: fname.clone(),
                outcome: FlavorOutcome::Quota {
                    mode: rep.mode,
                    borrow_level: rep.borrow,
                    checks,
                },
            });
            result.attempt_meta.push(AttemptMeta {
                group: g,
                mode: rep.mode,
                no_fit: if rep.mode == FitMode::NoFit {
                    flavor_reason
                } else {
                    None
                },
            });
            if !should_try_next(rep, view, self.cq) {
                best = Some(choices);
                best_mode = rep;
                break;
            }
            if preferred(rep, best_mode, preference) {
                best = Some(choices);
                best_mode = rep;
            }
        }
        let Some(mut best) = best else {
            return Err(reasons);
        };
        // A choice exists, so the loop ran and `attempted` is the last flavor it tried.
        let last_tried = (attempted + 1 < group.flavors.len()).then_some(attempted as u32);
        for c in &mut best {
            c.last_tried = last_tried;
        }
        result.choices.extend(best);
        if best_mode.mode == FitMode::Fit {
            Ok(Vec::new())
        } else {
            Ok(reasons)
        }
    }

    /// Flavor exists, its taints are tolerated, its labels match the pod's selectors.
    fn static_mismatch(&self, fid: FlavorId, ps: usize) -> Option<FlavorOutcome> {
        let view = self.view;
        let Some(flavor) = view.flavors.get(fid).and_then(|f| f.as_ref()) else {
            return Some(FlavorOutcome::NotFound);
        };
        let spec = &view.wl(self.wl).w.pod_sets[ps];
        let tolerations: Vec<&Toleration> = spec
            .tolerations
            .iter()
            .chain(flavor.tolerations.iter())
            .collect();
        if let Some(t) = first_untolerated(&flavor.taints, &tolerations) {
            return Some(FlavorOutcome::UntoleratedTaint(t.clone()));
        }
        if !pod_matches_flavor_labels(
            &spec.node_selector,
            spec.required_affinity.as_deref(),
            &flavor.labels,
        ) {
            return Some(FlavorOutcome::AffinityMismatch);
        }
        None
    }

    /// Upstream's `fitsResourceQuota` for one (flavor, resource): the check, its status
    /// message when it does not fit in unused quota, and its no-fit reason.
    fn fits_quota(
        &self,
        tree: &mut Tree,
        fr: FrId,
        res: ResId,
        previously: Amount,
        request: Amount,
    ) -> QuotaFit {
        let view = self.view;
        let cq = &view.cqs[self.cq];
        let node = cq.node;
        let quota = tree.nodes[node].quota[fr];
        let available = tree.available(node, fr);
        let potential = tree.potential_available(node, fr);
        let val = previously + request;
        let resource = view.names.resources[res].clone();
        let flavor = view.names.fr_flavor(fr).to_string();
        let mut check = ResourceCheck {
            resource: resource.clone(),
            previously_assigned: previously,
            requested: request,
            available,
            potential_available: potential,
            nominal: quota.nominal,
            borrowing_limit: quota.borrowing_limit,
            lending_limit: quota.lending_limit,
            cq_usage: tree.nodes[node].usage[fr],
            mode: FitMode::NoFit,
            borrow_level: 0,
            preemption_gate: None,
        };
        if val > potential {
            let msg =
                message::exceeds_max_quota(&resource, &flavor, previously, request, potential);
            return QuotaFit {
                check,
                message: Some(msg),
                no_fit: Some(PendingReason::ExceedsMaxQuota),
            };
        }
        let (borrow, hierarchical) = tree.lowest_subtree_that_fits(node, fr, val);
        if val <= available {
            check.mode = FitMode::Fit;
            check.borrow_level = borrow;
            return QuotaFit {
                check,
                message: None,
                no_fit: None,
            };
        }
        let msg = message::insufficient_unused_quota(&resource, &flavor, val - available);
        let preemption = &cq.spec.preemption;
        let while_borrowing = preemption
            .borrow_within_cohort
            .as_ref()
            .is_some_and(|b| b.lower_priority)
            || (view.fair_sharing()
                && preemption.reclaim_within_cohort != super::model::PreemptionPolicy::Never);
        let gate = if quota.nominal >= val {
            PreemptionGate::WithinNominal
        } else if hierarchical {
            PreemptionGate::HierarchicalReclaim
        } else if while_borrowing {
            PreemptionGate::WhileBorrowing
        } else {
            PreemptionGate::NotAllowed
        };
        check.preemption_gate = Some(gate);
        if gate == PreemptionGate::NotAllowed {
            check.borrow_level = borrow;
            return QuotaFit {
                check,
                message: Some(msg),
                no_fit: Some(PendingReason::WaitingForQuota),
            };
        }
        let after = preemption::simulate(view, tree, self.searches, self.wl, self.cq, fr, val);
        check.mode = after.mode;
        check.borrow_level = after.borrow;
        QuotaFit {
            check,
            message: Some(msg),
            no_fit: None,
        }
    }
}
