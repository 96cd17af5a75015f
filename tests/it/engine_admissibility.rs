//! What keeps a workload from being considered at all: namespaces, stopped or missing
//! queues, deactivation; and partial admission.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::PendingReason;
use kubectl_kueue::scheduler::model::{MissingSelector, StopPolicy};

fn base(c: Cq) -> Scenario {
    scenario()
        .flavor("default", &[])
        .cq(c.quota("default", "cpu", "4"))
}

#[test]
fn what_keeps_a_workload_from_being_considered() {
    let w = || wl("ns", "w", "q").req("cpu", "1");
    let mut deactivated = w();
    deactivated.0.active = false;
    let mut strict = base(cq("q")).wl(w());
    strict.state.config.missing_namespace_selector = MissingSelector::MatchNone;
    let cases = [
        (
            "a namespace outside the selector",
            base(cq("q").namespace_selector(&[("team", "a")]))
                .namespace("ns", &[("team", "b")])
                .wl(w()),
            PendingReason::Misconfigured,
            "workload namespace doesn't match ClusterQueue selector",
        ),
        (
            "a missing selector, read strictly",
            strict,
            PendingReason::Misconfigured,
            "workload namespace doesn't match ClusterQueue selector",
        ),
        (
            "a ClusterQueue stopped with Hold",
            base(cq("q").stop(StopPolicy::Hold)).wl(w()),
            PendingReason::Suspended,
            "ClusterQueue q is inactive",
        ),
        (
            "a ClusterQueue stopped with HoldAndDrain",
            base(cq("q").stop(StopPolicy::HoldAndDrain)).wl(w()),
            PendingReason::Suspended,
            "ClusterQueue q is inactive",
        ),
        (
            "a missing LocalQueue",
            base(cq("q")).wl(wl("ns", "w", "nope").req("cpu", "1")),
            PendingReason::Misconfigured,
            "LocalQueue nope doesn't exist",
        ),
        (
            "a LocalQueue pointing to a missing ClusterQueue",
            base(cq("q"))
                .lq("ns", "dangling", "ghost")
                .wl(wl("ns", "w", "dangling").req("cpu", "1")),
            PendingReason::Misconfigured,
            "ClusterQueue ghost doesn't exist",
        ),
        (
            "a deactivated workload",
            base(cq("q")).wl(deactivated),
            PendingReason::Deactivated,
            "The workload is deactivated",
        ),
    ];
    for (why, scenario, reason, message) in cases {
        assert_eq!(
            scenario.run().pending("w"),
            Some((reason, message.to_string())),
            "{why}"
        );
    }
}

#[test]
fn a_selected_namespace_or_a_missing_selector_lets_the_workload_in() {
    let w = || wl("ns", "w", "q").req("cpu", "1");
    let selected = base(cq("q").namespace_selector(&[("team", "a")]))
        .namespace("ns", &[("team", "a")])
        .wl(w());
    assert_eq!(selected.run().holding("q"), names(&["w"]));
    let no_selector = base(cq("q")).wl(w());
    assert_eq!(
        no_selector.run().holding("q"),
        names(&["w"]),
        "a missing selector selects all by default"
    );
}

#[test]
fn partial_admission_takes_the_largest_count_that_fits() {
    let out = base(cq("q"))
        .wl(wl("ns", "held", "q")
            .req("cpu", "1")
            .admitted("q", "default"))
        .wl(wl("ns", "elastic", "q")
            .req("cpu", "1")
            .count(6)
            .min_count(2))
        .run();
    assert_eq!(out.admitted_count("elastic", "main"), Some(3));
    let out = base(cq("q"))
        .wl(wl("ns", "held", "q")
            .req("cpu", "3")
            .admitted("q", "default"))
        .wl(wl("ns", "elastic", "q")
            .req("cpu", "1")
            .count(6)
            .min_count(2))
        .run();
    assert_eq!(
        out.admitted_count("elastic", "main"),
        None,
        "not even minCount fits"
    );
}

#[test]
fn podset_count_multiplies_the_request_and_pods_is_counted_when_covered() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("q")
            .quota("default", "cpu", "10")
            .quota("default", "pods", "3"))
        .wl(wl("ns", "four-pods", "q").req("cpu", "1").count(4))
        .wl(wl("ns", "three-pods", "q")
            .req("cpu", "2")
            .count(3)
            .created(1))
        .run();
    assert_eq!(out.holding("q"), names(&["three-pods"]));
    assert_eq!(out.usage("q", "default", "cpu"), 6000);
    assert_eq!(out.usage("q", "default", "pods"), 3);
}

#[test]
fn a_terminating_cluster_queue_keeps_its_holders_and_admits_nothing_new() {
    let mut q = cq("q");
    q.1.terminating = true;
    let out = base(q)
        .wl(wl("ns", "running", "q")
            .req("cpu", "2")
            .admitted("q", "default"))
        .wl(wl("ns", "new", "q").req("cpu", "1"))
        .run();
    assert_eq!(out.holding("q"), names(&["running"]));
    assert_eq!(out.usage("q", "default", "cpu"), 2000);
    assert_eq!(
        out.pending("new").unwrap(),
        (
            PendingReason::Suspended,
            "ClusterQueue q is inactive".to_string()
        )
    );
    let view = out.engine.cluster_queues().remove(0);
    let why = view.inactive.expect("inactive");
    assert_eq!(why.condition_reason(), "Terminating");
    assert_eq!(
        why.message(),
        "Can't admit new workloads; clusterQueue is terminating"
    );
}

#[test]
fn an_invalid_cluster_queue_keeps_its_holders_and_admits_nothing_new() {
    let mut q = cq("q");
    q.1.invalid = Some(
        "ClusterQueue q: spec.resourceGroups[0]...: must be less than or equal to the nominalQuota"
            .into(),
    );
    let out = base(q)
        .wl(wl("ns", "running", "q")
            .req("cpu", "2")
            .admitted("q", "default"))
        .wl(wl("ns", "new", "q").req("cpu", "1"))
        .run();
    assert_eq!(out.holding("q"), names(&["running"]));
    assert_eq!(out.pending("new").unwrap().0, PendingReason::Suspended);
    let why = out.engine.cluster_queues().remove(0).inactive.unwrap();
    assert_eq!(why.condition_reason(), "InvalidSpec");
    assert!(
        why.message()
            .starts_with("Can't admit new workloads: ClusterQueue q: ")
    );
}

#[test]
fn invalid_requests_are_never_admitted_and_say_where() {
    let mut bad = wl("ns", "bad", "q").req("cpu", "1");
    bad.0.invalid_requests = vec![
        "spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0".into(),
    ];
    let out = base(cq("q")).wl(bad).run();
    assert_eq!(
        out.pending("bad").unwrap(),
        (
            PendingReason::Misconfigured,
            "resources validation failed: spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0".to_string()
        )
    );
}

#[test]
fn a_negative_request_never_lowers_usage() {
    // The backstop: a negative per-pod amount, however it got there, is not admitted...
    let out = base(cq("q"))
        .wl(wl("ns", "negative", "q").req("cpu", "-8"))
        .wl(wl("ns", "a", "q").req("cpu", "4"))
        .wl(wl("ns", "b", "q").req("cpu", "4"))
        .run();
    let (reason, message) = out.pending("negative").unwrap();
    assert_eq!(reason, PendingReason::Misconfigured);
    assert_eq!(
        message,
        "resources validation failed: spec.podSets[0] (main): requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0"
    );
    assert_eq!(out.holding("q"), names(&["a"]));
    assert_eq!(out.usage("q", "default", "cpu"), 4000);
    // ...and an admission already recorded with a negative usage counts as zero.
    let out = base(cq("q"))
        .wl(wl("ns", "negative", "q")
            .req("cpu", "-8")
            .admitted("q", "default"))
        .wl(wl("ns", "a", "q").req("cpu", "4"))
        .wl(wl("ns", "b", "q").req("cpu", "4"))
        .run();
    assert_eq!(out.usage("q", "default", "cpu"), 4000);
    assert_eq!(out.holding("q"), names(&["a", "negative"]));
}
