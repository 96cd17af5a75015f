//! Pending messages: a new reason is written at once; new words for the same reason (the
//! shortfall of a waiting workload, worded anew at each evaluation) at most every
//! `PENDING_REFRESH`, the last words winning.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kubectl_kueue::controller::model::PENDING_REFRESH;

use super::*;

fn message(world: &World, name: &str) -> String {
    world
        .workload("ns", name)
        .status
        .as_ref()
        .and_then(|s| s.condition("QuotaReserved"))
        .map(|c| c.message.clone())
        .unwrap_or_default()
}

fn finished(world: &World, name: &str) -> kubectl_kueue::api::Workload {
    let mut w = (*world.workload("ns", name)).clone();
    let st = w.status.get_or_insert_with(Default::default);
    st.conditions.push(Condition {
        type_: "Finished".into(),
        status: "True".into(),
        reason: "Succeeded".into(),
        message: "done".into(),
        last_transition_time: Time(k8s_openapi::jiff::Timestamp::now()),
        observed_generation: None,
    });
    w
}

#[test]
fn new_words_for_the_same_reason_wait_for_the_refresh_then_the_last_ones_are_written() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "6");
    for (name, cpu) in [("a", 3), ("b", 2)] {
        world
            .cache
            .put_workload(workload(&world, "ns", name, "lq", cpu));
    }
    let first = world.start();
    world.settle(first);
    world.advance(Duration::from_secs(1));
    let w = workload(&world, "ns", "w", "lq", 4);
    let arrival = world.put_workload(w);
    world.settle(arrival);
    assert!(
        message(&world, "w").contains("3 more needed"),
        "{}",
        message(&world, "w")
    );

    // b finishes: w now lacks 1 cpu. Same reason, new words: held back.
    world.advance(Duration::from_secs(1));
    let b_done = finished(&world, "b");
    let after = world.put_workload(b_done);
    assert!(
        !status_writes(&after).contains_key("w"),
        "the words alone changed: {after:#?}"
    );
    world.settle(after);
    assert!(message(&world, "w").contains("3 more needed"));

    // The refresh comes due: the newest words go out, once.
    world.advance(PENDING_REFRESH);
    let refreshed = world.tick();
    let writes = status_writes(&refreshed);
    let [write] = writes["w"].as_slice() else {
        panic!("one refresh write for w: {refreshed:#?}")
    };
    let words = &write.status.condition("QuotaReserved").unwrap().message;
    assert!(words.contains("1 more needed"), "{words}");
    world.settle(refreshed);
    world.advance(PENDING_REFRESH);
    assert!(status_writes(&world.tick()).is_empty());
}

#[test]
fn a_new_reason_is_written_at_once() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "6");
    world
        .cache
        .put_workload(workload(&world, "ns", "a", "lq", 3));
    let first = world.start();
    world.settle(first);
    world.advance(Duration::from_secs(1));
    let w = workload(&world, "ns", "w", "lq", 4);
    let arrival = world.put_workload(w);
    world.settle(arrival);
    assert!(message(&world, "w").contains("1 more needed"));
    // Its LocalQueue goes: another reason, written without waiting.
    world.advance(Duration::from_secs(1));
    let mut moved = (*world.workload("ns", "w")).clone();
    moved.spec.queue_name = Some("gone".into());
    let after = world.put_workload(moved);
    let writes = status_writes(&after);
    assert_eq!(
        cond(&writes["w"][0].status, "QuotaReserved"),
        is("False", "Misconfigured"),
        "{after:#?}"
    );
}
