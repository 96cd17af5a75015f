//! `explain` for people: the story of one workload in a few short sections.

use std::fmt::Write;

use crate::explain::{Explanation, FlavorInfo, Mode, NoPreemption, Outcome, PreemptionGate, State};

use super::{Paint, finish, table};

/// The state in the title (`Workload ... is Pending`).
pub fn state_word(s: State) -> &'static str {
    match s {
        State::Admitted => "Admitted",
        State::Pending => "Pending",
        State::Finished => "Finished",
        State::Evicted => "Evicted",
        State::NotCreated => "NotCreated",
    }
}

/// The engine's verdict, as upstream's scheduler names it.
pub fn mode_word(m: Mode) -> &'static str {
    match m {
        Mode::Fit => "Fit",
        Mode::Preempt => "Preempt",
        Mode::NoFit => "NoFit",
    }
}

/// A flavor's OUTCOME column.
pub fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Fits => "fits",
        Outcome::FitsByBorrowing => "fits by borrowing",
        Outcome::NeedsPreemption => "needs preemption",
        Outcome::NoPreemptionCandidates => "no preemption candidates",
        Outcome::DoesNotFit => "does not fit",
        Outcome::NotFound => "not found",
        Outcome::UntoleratedTaint => "untolerated taint",
        Outcome::NodeLabelsDoNotMatch => "node labels do not match",
    }
}

/// Why a flavor without quota checks was passed over.
fn flavor_detail(f: &FlavorInfo) -> Option<String> {
    match f.outcome {
        Outcome::NotFound => Some("the ResourceFlavor does not exist".into()),
        Outcome::UntoleratedTaint => f.taint.as_ref().map(|t| {
            format!(
                "the pods do not tolerate the flavor's taint {}={}:{}",
                t.key, t.value, t.effect
            )
        }),
        Outcome::NodeLabelsDoNotMatch => Some(
            "the pods' nodeSelector or required node affinity excludes the flavor's nodeLabels"
                .into(),
        ),
        _ => None,
    }
}

/// Whether (and why) preemption is considered for a short resource.
pub fn gate_words(g: PreemptionGate) -> &'static str {
    match g {
        PreemptionGate::WithinNominal => {
            "considered, since the request is within the ClusterQueue's nominal quota"
        }
        PreemptionGate::HierarchicalReclaim => {
            "considered, since the request fits in a cohort subtree below the root"
        }
        PreemptionGate::WhileBorrowing => {
            "considered while borrowing (borrowWithinCohort or fair sharing)"
        }
        PreemptionGate::NotAllowed => {
            "not considered: the request needs borrowing and borrowWithinCohort is not set, so it waits for quota"
        }
    }
}

/// Why preemption cannot make room.
pub fn no_preemption_words(n: NoPreemption) -> &'static str {
    match n {
        NoPreemption::NothingToPreemptFor => {
            "no flavor needed preemption: the request does not fit the quota at all"
        }
        NoPreemption::NeedsBorrowing => gate_words(PreemptionGate::NotAllowed),
        NoPreemption::NoVictims => "no workload may be preempted for it",
    }
}

pub fn render(e: &Explanation, color: bool) -> String {
    let paint = Paint { color };
    let mut out = String::new();
    let job = e
        .job
        .as_ref()
        .map(|j| format!(" (Job {j})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{}",
        paint.title(&format!(
            "Workload {}{} is {}",
            e.workload,
            job,
            state_word(e.state)
        ))
    );
    if let Some(cq) = &e.cluster_queue {
        let cohort = e
            .cohort
            .as_ref()
            .map(|c| format!(" in cohort {c}"))
            .unwrap_or_default();
        let class = e
            .priority_class
            .as_ref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  LocalQueue {} -> ClusterQueue {cq}{cohort}, priority {}{class}",
            e.local_queue, e.priority
        );
    }
    if let Some(c) = &e.condition {
        let _ = writeln!(
            out,
            "  Cluster says: QuotaReserved={} {}: {}",
            c.status, c.reason, c.message
        );
    }
    if !e.problems.is_empty() {
        let _ = writeln!(out, "\n{}", paint.title("Problems"));
        for p in &e.problems {
            let _ = writeln!(out, "  - {p}");
        }
    }
    if !e.waiting_for_pods_ready.is_empty() {
        let _ = writeln!(out, "\n{}", paint.title("Held by waitForPodsReady"));
        let _ = writeln!(
            out,
            "  It fits, but with blockAdmission nothing is admitted until every admitted workload is PodsReady. Not ready yet: {}",
            e.waiting_for_pods_ready.join(", ")
        );
    }
    if let Some(q) = &e.queue {
        let _ = writeln!(out, "\n{}", paint.title("Queue"));
        let _ = writeln!(
            out,
            "  Position {} in its ClusterQueue, {} in its LocalQueue ({} ahead).",
            q.position_in_cluster_queue + 1,
            q.position_in_local_queue + 1,
            q.ahead.len()
        );
        for a in q.ahead.iter().take(10) {
            let req: Vec<String> = a.requests.iter().map(|(r, v)| format!("{r}={v}")).collect();
            let _ = writeln!(
                out,
                "  - ahead: {} (priority {}, {})",
                a.workload,
                a.priority,
                req.join(", ")
            );
        }
        if q.ahead.len() > 10 {
            let _ = writeln!(out, "  - ... and {} more", q.ahead.len() - 10);
        }
        if let Some(head) = &q.blocked_by_strict_fifo_head {
            let _ = writeln!(
                out,
                "  The ClusterQueue is StrictFIFO: nothing behind {head} is admitted until it is."
            );
        }
    }
    let ev = &e.evaluation;
    if !ev.pod_sets.is_empty() {
        let heading = if e.state == State::Pending {
            "Why it waits"
        } else {
            "How it is admitted"
        };
        let _ = writeln!(out, "\n{}", paint.title(heading));
        if !ev.message.is_empty() {
            let _ = writeln!(out, "  {}", ev.message);
        }
        for ps in &ev.pod_sets {
            let _ = writeln!(
                out,
                "\n  Pod set {} ({} pod{}):",
                ps.name,
                ps.count,
                if ps.count == 1 { "" } else { "s" }
            );
            for r in &ps.uncovered_resources {
                let _ = writeln!(
                    out,
                    "    {r}: no resource group of the ClusterQueue covers it"
                );
            }
            let mut t = table(
                &[
                    "FLAVOR",
                    "OUTCOME",
                    "RESOURCE",
                    "REQUESTED",
                    "NOMINAL",
                    "IN USE",
                    "UNUSED NOMINAL",
                    "FROM COHORT",
                    "AVAILABLE",
                    "MAX",
                    "SHORT BY",
                ],
                false,
                color,
            );
            for f in &ps.flavors {
                let name = if f.chosen {
                    format!("{} *", f.flavor)
                } else {
                    f.flavor.clone()
                };
                let word = outcome_word(f.outcome);
                let outcome = if f.outcome.fits() {
                    paint.good(word)
                } else {
                    paint.warn(word)
                };
                if f.resources.is_empty() {
                    t.add_row(vec![paint.plain(&name), outcome]);
                    continue;
                }
                for (i, r) in f.resources.iter().enumerate() {
                    let short = if r.short_by != "0" {
                        paint.bad(&r.short_by)
                    } else {
                        paint.plain(&r.short_by)
                    };
                    let (n, o) = if i == 0 {
                        (paint.plain(&name), outcome.clone())
                    } else {
                        (paint.plain(""), paint.plain(""))
                    };
                    t.add_row(vec![
                        n,
                        o,
                        paint.plain(&r.resource),
                        paint.plain(&r.requested),
                        paint.plain(&r.nominal),
                        paint.plain(&r.in_use),
                        paint.plain(&r.unused_nominal),
                        paint.plain(&r.borrowable_from_cohort),
                        paint.plain(&r.available),
                        paint.plain(&r.maximum),
                        short,
                    ]);
                }
            }
            for line in finish(&mut t).lines() {
                let _ = writeln!(out, "    {line}");
            }
            for f in ps.flavors.iter().filter(|f| f.resources.is_empty()) {
                if let Some(d) = flavor_detail(f) {
                    let _ = writeln!(out, "    {}: {d}", f.flavor);
                }
            }
            for f in &ps.flavors {
                for r in f
                    .resources
                    .iter()
                    .filter(|r| r.preemption.is_some() && r.short_by != "0")
                {
                    let _ = writeln!(
                        out,
                        "    preemption for {} on {}: {}",
                        r.resource,
                        f.flavor,
                        r.preemption.map(gate_words).unwrap_or("")
                    );
                }
            }
        }
        if ev
            .pod_sets
            .iter()
            .any(|p| p.flavors.iter().any(|f| f.chosen))
        {
            let _ = writeln!(out, "    (* the flavor chosen)");
        }
    }
    if let Some(p) = &e.preemption {
        let _ = writeln!(out, "\n{}", paint.title("Preemption"));
        if p.possible {
            let _ = writeln!(
                out,
                "  It can preempt to make room; the scheduler would evict:"
            );
            for v in &p.would_preempt {
                let _ = writeln!(
                    out,
                    "  - {} in {} (priority {}, {})",
                    v.workload, v.cluster_queue, v.priority, v.reason
                );
            }
            let _ = writeln!(out, "  It is admitted once their pods have stopped.");
        } else if let Some(why) = p.why_not {
            let _ = writeln!(out, "  Not possible: {}.", no_preemption_words(why));
            for d in &p.details {
                let _ = writeln!(out, "  - {d}.");
            }
        }
    }
    if !e.preempted_by_it.is_empty() {
        let _ = writeln!(out, "\n{}", paint.title("It preempted"));
        for v in &e.preempted_by_it {
            let now = if v.still_evicted {
                "still evicted"
            } else {
                "admitted again since"
            };
            let _ = writeln!(out, "  - {} ({}; {now})", v.workload, v.reason);
        }
    }
    if !e.nodes.is_empty() {
        let _ = writeln!(out, "\n{}", paint.title("Nodes"));
        for n in &e.nodes {
            let labels: Vec<String> = n
                .node_labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let largest: Vec<String> = n
                .largest_allocatable
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let per_pod: Vec<String> = n.per_pod.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let verdict = if n.one_pod_fits {
                "one pod fits".to_string()
            } else {
                "NO node can hold one pod".to_string()
            };
            let _ = writeln!(
                out,
                "  flavor {} ({}): {} matching node(s), largest allocatable {}; a pod needs {}: {verdict}",
                n.flavor,
                if labels.is_empty() {
                    "no labels".into()
                } else {
                    labels.join(",")
                },
                n.matching_nodes,
                if largest.is_empty() {
                    "-".into()
                } else {
                    largest.join(", ")
                },
                per_pod.join(", ")
            );
        }
    }
    if let Some(est) = &e.estimated_start {
        let _ = writeln!(out, "\n{}", paint.title("Estimated start"));
        for line in super::forecast::section(est) {
            let _ = writeln!(out, "  {line}");
        }
    }
    if !e.next_steps.is_empty() {
        let _ = writeln!(out, "\n{}", paint.title("Next steps"));
        for (i, s) in e.next_steps.iter().enumerate() {
            let mark = if s.verified {
                " [verified by simulation]"
            } else {
                ""
            };
            let _ = writeln!(out, "  {}. {}{mark}", i + 1, s.summary);
            if let Some(c) = &s.command {
                let _ = writeln!(out, "     {c}");
            }
            if !s.simulate_args.is_empty() {
                let quoted: Vec<String> = s
                    .simulate_args
                    .iter()
                    .map(|a| {
                        if a.contains([';', ' ']) {
                            format!("'{a}'")
                        } else {
                            a.clone()
                        }
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "     check: kubectl kueue simulate {}",
                    quoted.join(" ")
                );
            }
        }
    } else if e.state == State::Pending
        && e.problems.is_empty()
        && e.waiting_for_pods_ready.is_empty()
        && e.preemption.as_ref().is_none_or(|p| !p.possible)
    {
        let _ = writeln!(
            out,
            "\nNo single change found that admits it now; it waits for quota to be released."
        );
    }
    out
}
