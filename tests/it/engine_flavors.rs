//! Flavor assignment: order, static filters, fungibility, podSets and resource groups.

use crate::support::engine::*;
use kubectl_kueue::scheduler::decision::PendingReason;
use kubectl_kueue::scheduler::model::{
    FungibilityPreference, PreemptionPolicy, WhenCanBorrow, WhenCanPreempt,
};

#[test]
fn flavors_are_tried_in_order_and_a_flavor_too_small_is_skipped() {
    let out = scenario()
        .flavor("spot", &[])
        .flavor("on-demand", &[])
        .cq(cq("q")
            .quota("spot", "cpu", "2")
            .quota("on-demand", "cpu", "10"))
        .wl(wl("ns", "small", "q").req("cpu", "1").created(1))
        .wl(wl("ns", "big", "q").req("cpu", "3").created(2))
        .run();
    assert_eq!(out.admitted_flavor("small", "cpu").as_deref(), Some("spot"));
    assert_eq!(
        out.admitted_flavor("big", "cpu").as_deref(),
        Some("on-demand")
    );
}

#[test]
fn node_selector_picks_the_flavor_with_matching_labels() {
    let out = scenario()
        .flavor("a100", &[("gpu-type", "a100")])
        .flavor("t4", &[("gpu-type", "t4")])
        .cq(cq("q")
            .quota("a100", "nvidia.com/gpu", "8")
            .quota("t4", "nvidia.com/gpu", "8"))
        .wl(wl("ns", "wants-t4", "q")
            .req("nvidia.com/gpu", "1")
            .node_selector("gpu-type", "t4"))
        .wl(wl("ns", "any", "q")
            .req("nvidia.com/gpu", "1")
            .node_selector("zone", "eu")
            .created(1))
        .run();
    assert_eq!(
        out.admitted_flavor("wants-t4", "nvidia.com/gpu").as_deref(),
        Some("t4")
    );
    assert_eq!(
        out.admitted_flavor("any", "nvidia.com/gpu").as_deref(),
        Some("a100"),
        "keys no flavor defines are ignored"
    );
}

#[test]
fn untolerated_taints_skip_a_flavor_with_upstreams_message() {
    let s = scenario()
        .tainted_flavor("spot", "spot", "true")
        .cq(cq("q").quota("spot", "cpu", "8"));
    let out = s.clone().wl(wl("ns", "plain", "q").req("cpu", "1")).run();
    let (reason, message) = out.pending("plain").unwrap();
    assert_eq!(reason, PendingReason::NoMatchingFlavor);
    assert_eq!(
        message,
        "couldn't assign flavors to pod set main: untolerated taint {spot true NoSchedule <nil>} in flavor spot"
    );
    let out = s
        .wl(wl("ns", "tolerant", "q")
            .req("cpu", "1")
            .toleration("spot", "true"))
        .run();
    assert_eq!(out.holding("q"), names(&["tolerant"]));
}

#[test]
fn a_resource_the_queue_does_not_cover_blocks_unless_zero() {
    let s = scenario()
        .flavor("default", &[])
        .cq(cq("q").quota("default", "cpu", "8"));
    let out = s
        .clone()
        .wl(wl("ns", "gpu", "q")
            .req("cpu", "1")
            .req("nvidia.com/gpu", "1"))
        .run();
    let (reason, message) = out.pending("gpu").unwrap();
    assert_eq!(reason, PendingReason::NoMatchingFlavor);
    assert_eq!(
        message,
        "couldn't assign flavors to pod set main: resource nvidia.com/gpu unavailable in ClusterQueue"
    );
    let out = s
        .wl(wl("ns", "zero", "q")
            .req("cpu", "1")
            .req("nvidia.com/gpu", "0"))
        .run();
    assert_eq!(out.holding("q"), names(&["zero"]));
}

#[test]
fn a_request_above_maximum_capacity_says_so() {
    let out = scenario()
        .flavor("default", &[])
        .cq(cq("q").quota("default", "memory", "1Gi"))
        .wl(wl("ns", "huge", "q").req("memory", "2Gi"))
        .run();
    let (reason, message) = out.pending("huge").unwrap();
    assert_eq!(reason, PendingReason::ExceedsMaxQuota);
    assert_eq!(
        message,
        "couldn't assign flavors to pod set main: insufficient quota for memory in flavor default, previously considered podsets requests (0) + current podset request (2Gi) > maximum capacity (1Gi)"
    );
}

fn borrow_or_not(when: WhenCanBorrow) -> Scenario {
    scenario()
        .flavor("f1", &[])
        .flavor("f2", &[])
        .cq(cq("a")
            .cohort("c")
            .quota("f1", "cpu", "1")
            .quota("f2", "cpu", "4")
            .fungibility(when, WhenCanPreempt::TryNextFlavor))
        .cq(cq("lender").cohort("c").quota("f1", "cpu", "10"))
        .wl(wl("ns", "w", "a").req("cpu", "2"))
}

#[test]
fn when_can_borrow_decides_between_borrowing_and_the_next_flavor() {
    assert_eq!(
        borrow_or_not(WhenCanBorrow::MayStopSearch)
            .run()
            .admitted_flavor("w", "cpu")
            .as_deref(),
        Some("f1")
    );
    assert_eq!(
        borrow_or_not(WhenCanBorrow::TryNextFlavor)
            .run()
            .admitted_flavor("w", "cpu")
            .as_deref(),
        Some("f2")
    );
}

#[test]
fn preference_orders_borrowing_against_preemption() {
    // f1 needs preemption (within nominal), f2 fits by borrowing.
    let base = |p: FungibilityPreference| {
        scenario()
            .flavor("f1", &[])
            .flavor("f2", &[])
            .cq(cq("a")
                .cohort("c")
                .quota("f1", "cpu", "2")
                .quota("f2", "cpu", "0")
                .preemption(PreemptionPolicy::LowerPriority, PreemptionPolicy::Never)
                .fungibility(WhenCanBorrow::TryNextFlavor, WhenCanPreempt::TryNextFlavor)
                .preference(p))
            .cq(cq("lender").cohort("c").quota("f2", "cpu", "4"))
            .wl(wl("ns", "low", "a").req("cpu", "2").admitted("a", "f1"))
            .wl(wl("ns", "high", "a")
                .req("cpu", "2")
                .priority(10)
                .created(5))
    };
    let out = base(FungibilityPreference::BorrowingOverPreemption).run();
    assert_eq!(out.admitted_flavor("high", "cpu").as_deref(), Some("f2"));
    assert!(out.preemptions().is_empty());
    let out = base(FungibilityPreference::PreemptionOverBorrowing).run();
    assert_eq!(out.admitted_flavor("high", "cpu").as_deref(), Some("f1"));
    assert_eq!(out.preemptions().len(), 1);
}

#[test]
fn podsets_accumulate_usage_on_a_flavor() {
    let out = scenario()
        .flavor("f1", &[])
        .flavor("f2", &[])
        .cq(cq("q").quota("f1", "cpu", "5").quota("f2", "cpu", "10"))
        .wl(wl("ns", "w", "q")
            .req("cpu", "3")
            .pod_set("workers", 1)
            .req("cpu", "3"))
        .run();
    let w = out.engine.workloads().find(|w| w.name == "w").unwrap();
    let adm = w.admission.as_ref().expect("admitted");
    assert_eq!(adm.pod_sets[0].flavors["cpu"], "f1");
    assert_eq!(adm.pod_sets[1].flavors["cpu"], "f2", "3 + 3 exceeds f1's 5");
}

#[test]
fn resources_of_one_group_share_a_flavor_and_groups_choose_independently() {
    let out = scenario()
        .flavor("small", &[])
        .flavor("large", &[])
        .flavor("gpus", &[])
        .cq(cq("q")
            .quota("small", "cpu", "2")
            .quota("small", "memory", "1Gi")
            .quota("large", "cpu", "8")
            .quota("large", "memory", "32Gi")
            .quota_in(1, "gpus", "nvidia.com/gpu", "4", None, None))
        .wl(wl("ns", "w", "q")
            .req("cpu", "1")
            .req("memory", "2Gi")
            .req("nvidia.com/gpu", "1"))
        .run();
    assert_eq!(
        out.admitted_flavor("w", "cpu").as_deref(),
        Some("large"),
        "memory did not fit small, so cpu moves too"
    );
    assert_eq!(out.admitted_flavor("w", "memory").as_deref(), Some("large"));
    assert_eq!(
        out.admitted_flavor("w", "nvidia.com/gpu").as_deref(),
        Some("gpus")
    );
}

#[test]
fn a_queue_referencing_a_missing_flavor_is_inactive() {
    let out = scenario()
        .cq(cq("q").quota("ghost", "cpu", "8"))
        .wl(wl("ns", "w", "q").req("cpu", "1"))
        .run();
    let (reason, message) = out.pending("w").unwrap();
    assert_eq!(reason, PendingReason::Suspended);
    assert_eq!(message, "ClusterQueue q is inactive");
}
