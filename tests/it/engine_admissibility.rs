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
fn a_namespace_outside_the_selector_is_misconfigured() {
    let out = base(cq("q").namespace_selector(&[("team", "a")]))
        .namespace("ns", &[("team", "b")])
        .wl(wl("ns", "w", "q").req("cpu", "1"))
        .run();
    let (reason, message) = out.pending("w").unwrap();
    assert_eq!(reason, PendingReason::Misconfigured);
    assert_eq!(
        message,
        "workload namespace doesn't match ClusterQueue selector"
    );
    let out = base(cq("q").namespace_selector(&[("team", "a")]))
        .namespace("ns", &[("team", "a")])
        .wl(wl("ns", "w", "q").req("cpu", "1"))
        .run();
    assert_eq!(out.holding("q"), names(&["w"]));
}

#[test]
fn a_missing_namespace_selector_selects_all_unless_read_strictly() {
    let s = base(cq("q")).wl(wl("ns", "w", "q").req("cpu", "1"));
    assert_eq!(s.run().holding("q"), names(&["w"]));
    let mut strict = s.clone();
    strict.state.config.missing_namespace_selector = MissingSelector::MatchNone;
    let out = strict.run();
    assert_eq!(out.pending("w").unwrap().0, PendingReason::Misconfigured);
}

#[test]
fn a_stopped_cluster_queue_admits_nothing() {
    for policy in [StopPolicy::Hold, StopPolicy::HoldAndDrain] {
        let out = base(cq("q").stop(policy))
            .wl(wl("ns", "w", "q").req("cpu", "1"))
            .run();
        assert_eq!(
            out.pending("w").unwrap(),
            (
                PendingReason::Suspended,
                "ClusterQueue q is inactive".to_string()
            )
        );
    }
}

#[test]
fn missing_local_queue_or_cluster_queue_is_misconfigured() {
    let out = base(cq("q"))
        .wl(wl("ns", "w", "nope").req("cpu", "1"))
        .run();
    assert_eq!(
        out.pending("w").unwrap(),
        (
            PendingReason::Misconfigured,
            "LocalQueue nope doesn't exist".to_string()
        )
    );
    let out = base(cq("q"))
        .lq("ns", "dangling", "ghost")
        .wl(wl("ns", "w", "dangling").req("cpu", "1"))
        .run();
    assert_eq!(
        out.pending("w").unwrap(),
        (
            PendingReason::Misconfigured,
            "ClusterQueue ghost doesn't exist".to_string()
        )
    );
}

#[test]
fn a_deactivated_workload_is_not_queued() {
    let mut w = wl("ns", "w", "q").req("cpu", "1");
    w.0.active = false;
    let out = base(cq("q")).wl(w).run();
    assert_eq!(
        out.pending("w").unwrap(),
        (
            PendingReason::Deactivated,
            "The workload is deactivated".to_string()
        )
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
