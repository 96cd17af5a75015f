//! Pending messages: a new reason is written at once; new words for the same reason (the
//! shortfall of a waiting workload, worded anew at each evaluation) at most every
//! `PENDING_REFRESH`, the last words winning.

use std::time::Duration;

use kubectl_kueue::controller::model::{EventText, PENDING_REFRESH};

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

/// A workload that cannot queue (its LocalQueue is missing) is looked at on every change:
/// the same words already written are not written again, but once someone else changes its
/// conditions, the words go back.
#[test]
fn a_pending_condition_changed_by_someone_else_is_written_again() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(&world, "ns", "w", "nowhere", 1));
    let first = world.start();
    world.settle(first);
    let words = "LocalQueue nowhere doesn't exist";
    assert_eq!(message(&world, "w"), words);

    // A label changes: looked at again, nothing to write.
    world.advance(Duration::from_secs(1));
    let mut labelled = (*world.workload("ns", "w")).clone();
    labelled.metadata.labels = Some([("team".to_string(), "a".to_string())].into());
    let relabelled = world.put_workload(labelled);
    assert!(
        !status_writes(&relabelled).contains_key("w"),
        "{relabelled:#?}"
    );
    world.settle(relabelled);

    // Someone strips its conditions: the words go back at once.
    world.advance(Duration::from_secs(1));
    let mut stripped = (*world.workload("ns", "w")).clone();
    stripped
        .status
        .get_or_insert_with(Default::default)
        .conditions
        .clear();
    let after = world.put_workload(stripped);
    let writes = status_writes(&after);
    let Some([write, ..]) = writes.get("w").map(Vec::as_slice) else {
        panic!("w's pending status is written again: {after:#?}")
    };
    assert_eq!(
        cond(&write.status, "QuotaReserved"),
        is("False", "Misconfigured")
    );
    world.settle(after);
    assert_eq!(message(&world, "w"), words);
}

/// `big` holds all 50 CPUs; then `waiting` arrivals `w0`.. of 1, 2, ... CPUs (different
/// sizes, so none is parked with another). Returns the world and the arrivals' actions,
/// unperformed.
fn waiting_behind_big(waiting: usize) -> (World, Vec<Action>) {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "50");
    world
        .cache
        .put_workload(workload(&world, "ns", "big", "lq", 50));
    let first = world.start();
    world.settle(first);
    let mut arrivals = Vec::new();
    for i in 0..waiting {
        let w = workload(&world, "ns", &format!("w{i}"), "lq", i as u32 + 1);
        arrivals.extend(world.put_workload(w));
    }
    (world, arrivals)
}

#[test]
fn pending_writes_take_a_lane_of_their_own_and_an_admission_replaces_a_queued_one() {
    use kubectl_kueue::controller::model::BACKGROUND_IN_FLIGHT;
    // Arrivals of different sizes (so none is parked with another; 1 + 2 + ... more than the
    // 50 cpu, so some still wait after big), none fits: their pending writes share the
    // background lane.
    let waiting = BACKGROUND_IN_FLIGHT + 9;
    let (mut world, arrivals) = waiting_behind_big(waiting);
    let pending = status_writes(&arrivals);
    assert_eq!(pending.len(), BACKGROUND_IN_FLIGHT, "{arrivals:#?}");
    assert!(pending.values().flatten().all(|w| w.background));

    // big finishes while those writes are still in flight: the admissions go out at once,
    // not behind the lane, and a queued pending write is replaced, never sent.
    let done = finished(&world, "big");
    let admissions = world.put_workload(done);
    let writes = status_writes(&admissions);
    let admitted: Vec<String> = writes
        .iter()
        .filter(|(_, w)| w.iter().any(|w| w.admits))
        .map(|(n, _)| n.clone())
        .collect();
    assert!(!admitted.is_empty(), "{admissions:#?}");
    for name in &admitted {
        assert!(
            !pending.contains_key(name),
            "{name}: admitted while its pending write was in flight"
        );
    }
    let all = world.settle([arrivals, admissions].concat());
    for name in admitted {
        let sent = status_writes(&all)[name.as_str()].len();
        assert_eq!(sent, 1, "{name}: only its admission was written");
    }
    // The rest still get their pending words once the lane frees.
    let still_waiting = (0..waiting)
        .map(|i| format!("w{i}"))
        .filter(|n| {
            world
                .workload("ns", n)
                .status
                .as_ref()
                .is_none_or(|s| s.admission.is_none())
        })
        .collect::<Vec<_>>();
    assert!(!still_waiting.is_empty());
    for n in still_waiting {
        assert!(
            message(&world, &n).contains("insufficient"),
            "{n}: {}",
            message(&world, &n)
        );
    }
}

/// A Workload deleted while its pending write waits for the background lane leaves nothing
/// behind: when its turn in the lane comes, the write is dropped and the Workload leaves the
/// engine (before, its plan stayed and blocked every later look, so the engine kept it, and
/// could admit it, for good).
#[test]
fn a_workload_deleted_while_its_pending_write_waits_for_the_lane_leaves_the_engine() {
    use kubectl_kueue::controller::model::BACKGROUND_IN_FLIGHT;
    let waiting = BACKGROUND_IN_FLIGHT + 2;
    let (mut world, arrivals) = waiting_behind_big(waiting);
    let last = format!("w{}", waiting - 1);
    assert!(
        !status_writes(&arrivals).contains_key(last.as_str()),
        "{last}'s pending write waits for the lane: {arrivals:#?}"
    );

    world.cache.workloads.remove(&key("ns", &last));
    let deleted = world.input(Input::Changed {
        kind: kubectl_kueue::kube::watch::Kind::Workload,
        key: job_key("ns", &last),
    });
    let all = world.settle([arrivals, deleted].concat());
    assert!(
        !status_writes(&all).contains_key(last.as_str()),
        "nothing is written to the deleted {last}"
    );
    let gone = kubectl_kueue::scheduler::WorkloadKey::new("ns", &last);
    assert!(
        world.model.engine().workload(&gone).is_none(),
        "the deleted {last} left the engine"
    );

    // Capacity frees: the deleted one is not admitted.
    let done = finished(&world, "big");
    let admissions = world.put_workload(done);
    let all = world.settle(admissions);
    assert!(!status_writes(&all).contains_key(last.as_str()), "{all:#?}");
}

/// A pending write waiting for the background lane is kept as its words, not as a built
/// status (tens of thousands wait at once when the API server falls behind). Built when its
/// turn comes, it says what it would have said when decided: its condition's transition
/// time is the decision's, however long it waited.
#[test]
fn a_pending_write_waits_as_its_words_and_is_built_with_its_decision_time() {
    use kubectl_kueue::controller::model::{BACKGROUND_IN_FLIGHT, Plan};
    let waiting = BACKGROUND_IN_FLIGHT + 2;
    let (mut world, arrivals) = waiting_behind_big(waiting);
    let decided = world.now.wall;
    let last = format!("w{}", waiting - 1);
    assert!(
        !status_writes(&arrivals).contains_key(last.as_str()),
        "{last}'s pending write waits for the lane: {arrivals:#?}"
    );
    let book = world
        .model
        .workload_book(&key("ns", &last))
        .expect("a book for the waiting workload");
    assert!(
        matches!(book.plan, Some(Plan::Pending(_))),
        "waits as words: {:?}",
        book.plan
    );

    world.advance(Duration::from_secs(30));
    let all = world.settle(arrivals);
    let writes = status_writes(&all);
    let [write] = writes[last.as_str()].as_slice() else {
        panic!("one pending write for {last}: {all:#?}")
    };
    let reserved = write.status.condition("QuotaReserved").unwrap();
    assert_eq!(reserved.status, "False");
    assert!(reserved.message.contains("insufficient"), "{reserved:?}");
    assert_eq!(
        reserved.last_transition_time.0.as_second(),
        decided / 1000,
        "the transition time is the decision's, not the send's"
    );
    assert!(
        write.status.resource_requests.len() == 1,
        "{:?}",
        write.status.resource_requests
    );
    let events = world.events_of(&last);
    assert_eq!(events.len(), 1, "{events:?}");
}

/// A Workload admitted while its pending words waited in the lane's queue, and finished
/// before the queue let go of it, leaves no book behind: the book goes when the queue lets
/// go (before, nothing looked at it again, and 44,000 such books outlived a large-scale run).
#[test]
fn a_finished_workloads_book_goes_when_the_lane_lets_go_of_it() {
    use kubectl_kueue::controller::model::BACKGROUND_IN_FLIGHT;
    let waiting = BACKGROUND_IN_FLIGHT + 2;
    let (mut world, arrivals) = waiting_behind_big(waiting);
    let last = format!("w{}", waiting - 1);
    assert!(!status_writes(&arrivals).contains_key(last.as_str()));

    // big finishes while the lane's write is still out: last is admitted at once.
    let done = finished(&world, "big");
    let admissions = world.put_workload(done);
    let (mine, rest): (Vec<Action>, Vec<Action>) = admissions.into_iter().partition(|a| {
        matches!(a, Action::WriteWorkloadStatus { key, write, .. } if key.name == last && write.admits)
    });
    assert_eq!(mine.len(), 1, "last's admission: {rest:#?}");
    for input in world.perform(&mine[0]) {
        world.model.handle(&world.cache, input, world.now);
    }
    let after_admission = world.turn();
    // It runs and finishes, still named by the lane's queue.
    let done = finished(&world, &last);
    let after_finish = world.put_workload(done);
    let wl = key("ns", &last);
    assert!(
        world
            .model
            .workload_book(&wl)
            .is_some_and(|b| b.queued_background),
        "the lane's queue still names {last}"
    );

    world.settle([arrivals, rest, after_admission, after_finish].concat());
    assert!(
        world.model.workload_book(&wl).is_none(),
        "{last}'s book outlived its finish: {:?}",
        world.model.workload_book(&wl)
    );
}

/// A Workload worded anew in every cycle while its pending write waits for the lane is
/// written once, with one Warning Event of its reason, the last words' (before, each set of
/// words replaced kept its Event: 78 MiB of them at the peak of a large-scale run).
#[test]
fn words_replaced_while_waiting_for_the_lane_keep_one_event_per_reason() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "10");
    for i in 0..5 {
        world
            .cache
            .put_workload(workload(&world, "ns", &format!("a{i}"), "lq", 1));
    }
    let first = world.start();
    world.settle(first);
    // p's pending write takes the lane and is not answered yet.
    world.advance(Duration::from_secs(1));
    let in_flight = world.put_workload(workload(&world, "ns", "p", "lq", 9));
    assert!(
        status_writes(&in_flight).contains_key("p"),
        "{in_flight:#?}"
    );
    world.advance(Duration::from_secs(1));
    let mut later = world.put_workload(workload(&world, "ns", "w", "lq", 10));
    assert!(
        !status_writes(&later).contains_key("w"),
        "w's words wait for the lane: {later:#?}"
    );
    // Each finish frees a cpu: w's shortfall is worded anew, 5, 4, 3, then 2 more needed.
    for i in 0..3 {
        world.advance(Duration::from_secs(1));
        let done = finished(&world, &format!("a{i}"));
        later.extend(world.put_workload(done));
    }
    let all = world.settle([in_flight, later].concat());
    let writes = status_writes(&all);
    let [write] = writes["w"].as_slice() else {
        panic!("one pending write for w: {:#?}", writes["w"])
    };
    let warnings: Vec<&EventText> = write
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Event(t) if t.warning => Some(t),
            _ => None,
        })
        .collect();
    let [warning] = warnings.as_slice() else {
        panic!("one Warning Event: {warnings:#?}")
    };
    assert!(warning.note.contains("2 more needed"), "{warning:?}");
    assert_eq!(message(&world, "w"), warning.note);
}
