//! Quota held by running work is never taken away by the controller: ClusterQueues and
//! ResourceFlavors carry the `resource-in-use` finalizer (a deleted ClusterQueue is
//! terminating: inactive, its admitted workloads keep their quota, the finalizer goes when
//! nothing holds quota in it), an edit the converter rejects keeps the last valid picture,
//! and a status write whose outcome is unknown keeps its quota until the Workload is read
//! back.

use kubectl_kueue::api::{ClusterQueue, ClusterQueueStatus, ResourceFlavor};
use kubectl_kueue::controller::model::{Action, Effect, Input, WriteError};
use kubectl_kueue::kube::watch::Kind;
use kubectl_kueue::manifests::ObjectKey;
use kubectl_kueue::manifests::convert::time_from_millis;

use super::builders::*;
use super::world::*;
use super::{cluster, high_priority, holds_quota, low_admitted, preemption_cluster};

const FINALIZER: &str = "kueue.x-k8s.io/resource-in-use";

fn finalizer_writes(actions: &[Action]) -> Vec<(Kind, String, Vec<String>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::WriteQueueFinalizers {
                kind,
                name,
                finalizers,
                ..
            } => Some((*kind, name.clone(), finalizers.clone())),
            _ => None,
        })
        .collect()
}

/// The status writes to `name` that evict it (those with the eviction's Event).
fn evictions_of(actions: &[Action], name: &str) -> usize {
    status_writes(actions).get(name).map_or(0, |ws| {
        ws.iter()
            .filter(|w| {
                w.effects
                    .iter()
                    .any(|e| matches!(e, Effect::Event(t) if t.reason == "EvictedDueToPreempted"))
            })
            .count()
    })
}

fn cq_status(actions: &[Action]) -> Option<ClusterQueueStatus> {
    actions.iter().rev().find_map(|a| match a {
        Action::WriteClusterQueueStatus { key, status } if key.name == "cq" => Some(status.clone()),
        _ => None,
    })
}

fn active(status: &ClusterQueueStatus) -> (String, String, String) {
    let c = status
        .conditions
        .iter()
        .find(|c| c.type_ == "Active")
        .expect("an Active condition");
    (c.status.clone(), c.reason.clone(), c.message.clone())
}

/// Queue status and finalizers are looked at every 250 ms at most: let that pass first.
/// Past the queue-status interval (queue status and finalizers are looked at once per interval).
fn later(world: &mut World) {
    world.advance(
        kubectl_kueue::controller::model::queues::MIN_INTERVAL
            + std::time::Duration::from_millis(50),
    );
}

fn put_cluster_queue(world: &mut World, cq: ClusterQueue) -> Vec<Action> {
    later(world);
    let name = cq.metadata.name.clone().unwrap();
    world.cache.put_cluster_queue(cq);
    world.input(Input::Changed {
        kind: Kind::ClusterQueue,
        key: ObjectKey {
            namespace: None,
            name,
        },
    })
}

fn put_flavor(world: &mut World, rf: ResourceFlavor) -> Vec<Action> {
    later(world);
    let name = rf.metadata.name.clone().unwrap();
    world.cache.put_flavor(rf);
    world.input(Input::Changed {
        kind: Kind::ResourceFlavor,
        key: ObjectKey {
            namespace: None,
            name,
        },
    })
}

/// `kubectl delete` of an object with a finalizer: only the deletion timestamp is set.
fn delete_cluster_queue(world: &mut World) -> Vec<Action> {
    let mut cq = (*world.cache.cluster_queues["cq"]).clone();
    cq.metadata.deletion_timestamp = Some(time_from_millis(world.now.wall));
    cq.metadata.resource_version = Some("900".into());
    put_cluster_queue(world, cq)
}

fn delete_workload(world: &mut World, name: &str) -> Vec<Action> {
    later(world);
    world.cache.workloads.remove(&key("ns", name));
    world.input(Input::Changed {
        kind: Kind::Workload,
        key: job_key("ns", name),
    })
}

/// One workload `a` admitted on a 4-cpu ClusterQueue, everything settled.
fn running_a(world: &mut World) {
    cluster(world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(world, "ns", "a", "lq", 3));
    let first = world.start();
    world.settle(first);
    assert!(holds_quota(world, "a"));
}

#[test]
fn cluster_queues_and_flavors_get_the_finalizer_on_first_sight() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.start();
    let writes = finalizer_writes(&first);
    assert_eq!(
        writes,
        [
            (Kind::ClusterQueue, "cq".into(), vec![FINALIZER.into()]),
            (
                Kind::ResourceFlavor,
                "default-flavor".into(),
                vec![FINALIZER.into()]
            ),
        ]
    );
    world.settle(first);
    assert!(finalizer_writes(&world.tick()).is_empty(), "written once");
}

#[test]
fn a_deleted_cluster_queue_keeps_its_admitted_work_admits_nothing_new_then_lets_go() {
    let mut world = World::new();
    running_a(&mut world);
    let deleted = delete_cluster_queue(&mut world);
    let seen = world.settle(deleted);
    assert!(
        holds_quota(&world, "a"),
        "the running workload keeps its quota"
    );
    assert!(
        !status_writes(&seen).contains_key("a"),
        "nothing written to the admitted workload: {seen:#?}"
    );
    assert!(finalizer_writes(&seen).is_empty(), "a still holds quota");
    let status = cq_status(&seen).expect("a ClusterQueue status write");
    assert_eq!(
        active(&status),
        (
            "False".into(),
            "Terminating".into(),
            "Can't admit new workloads; clusterQueue is terminating".into()
        )
    );

    later(&mut world);
    let arrival = world.put_workload(workload(&world, "ns", "b", "lq", 1));
    let seen = world.settle(arrival);
    assert!(!holds_quota(&world, "b"), "nothing new is admitted");
    let b = world.workload("ns", "b");
    let qr = b
        .status
        .as_ref()
        .unwrap()
        .condition("QuotaReserved")
        .unwrap();
    assert_eq!(qr.status, "False");
    assert_eq!(qr.message, "ClusterQueue cq is inactive");
    assert!(finalizer_writes(&seen).is_empty());

    // a ends; b never held anything: the finalizer goes and the ClusterQueue with it.
    let gone = delete_workload(&mut world, "a");
    let seen = world.settle(gone);
    assert_eq!(
        finalizer_writes(&seen),
        [(Kind::ClusterQueue, "cq".into(), vec![])]
    );
    assert!(!world.cache.cluster_queues.contains_key("cq"));
}

#[test]
fn a_deleted_flavor_keeps_its_finalizer_while_a_cluster_queue_names_it() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.start();
    world.settle(first);
    let mut rf = (*world.cache.flavors["default-flavor"]).clone();
    rf.metadata.deletion_timestamp = Some(time_from_millis(world.now.wall));
    let deleted = put_flavor(&mut world, rf);
    let seen = world.settle(deleted);
    assert!(finalizer_writes(&seen).is_empty(), "{seen:#?}");
    assert!(world.cache.flavors.contains_key("default-flavor"));

    let cq_deleted = delete_cluster_queue(&mut world);
    let mut seen = world.settle(cq_deleted);
    // The ClusterQueue gone, the next look (a tick later) lets the flavor go.
    later(&mut world);
    let tick = world.tick();
    seen.extend(world.settle(tick));
    assert_eq!(
        finalizer_writes(&seen),
        [
            (Kind::ClusterQueue, "cq".into(), vec![]),
            (Kind::ResourceFlavor, "default-flavor".into(), vec![]),
        ]
    );
    assert!(world.cache.flavors.is_empty());
}

/// The test ClusterQueue in a cohort, with `lending` as its lendingLimit.
fn lending_queue(nominal: &str, lending: &str) -> ClusterQueue {
    serde_yaml::from_str(&format!(
        "metadata: {{name: cq, finalizers: [{FINALIZER}]}}
spec:
  cohort: all
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: '{nominal}', lendingLimit: '{lending}'}}]
"
    ))
    .unwrap()
}

#[test]
fn an_invalid_cluster_queue_edit_keeps_the_admitted_work_and_admits_nothing_new() {
    let mut world = World::new();
    world.cache.put_flavor(flavor("default-flavor", ""));
    world.cache.put_cluster_queue(lending_queue("4", "2"));
    world.cache.put_local_queue(local_queue("ns", "lq", "cq"));
    world
        .cache
        .put_workload(workload(&world, "ns", "a", "lq", 3));
    let first = world.start();
    world.settle(first);
    assert!(holds_quota(&world, "a"));

    // The API server accepts a lendingLimit above the nominalQuota; the converter does not.
    let edit = put_cluster_queue(&mut world, lending_queue("4", "8"));
    let seen = world.settle(edit);
    assert!(
        holds_quota(&world, "a"),
        "the running workload keeps its quota"
    );
    assert!(!status_writes(&seen).contains_key("a"), "{seen:#?}");
    let (status, reason, message) = active(&cq_status(&seen).unwrap());
    assert_eq!((status.as_str(), reason.as_str()), ("False", "InvalidSpec"));
    assert_eq!(
        message,
        "Can't admit new workloads: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be less than or equal to nominalQuota (4)."
    );
    later(&mut world);
    let arrival = world.put_workload(workload(&world, "ns", "b", "lq", 1));
    world.settle(arrival);
    assert!(!holds_quota(&world, "b"), "nothing new is admitted");

    // Fixed: active again, b admitted into the room left.
    let fix = put_cluster_queue(&mut world, lending_queue("4", "4"));
    world.settle(fix);
    assert!(holds_quota(&world, "a"));
    assert!(holds_quota(&world, "b"));
}

/// The first admission write of `w` whose answer is lost; `landed`: the API server had
/// committed it. Returns what the model does then.
fn admission_with_lost_answer(world: &mut World, landed: bool) -> Vec<Action> {
    cluster(world, "", "cpu", "4");
    world
        .cache
        .put_workload(workload(world, "ns", "w", "lq", 4));
    let first = world.start();
    let write = first
        .iter()
        .find(|a| matches!(a, Action::WriteWorkloadStatus { write, .. } if write.admits))
        .expect("an admission write")
        .clone();
    if landed {
        world.perform(&write);
    }
    world.input(Input::WorkloadWritten {
        key: key("ns", "w"),
        result: Err(WriteError::Unknown("connection reset by peer".into())),
    })
}

#[test]
fn an_unknown_write_outcome_keeps_the_quota_and_reads_back_then_the_write_had_landed() {
    let mut world = World::new();
    let after = admission_with_lost_answer(&mut world, true);
    assert!(
        after
            .iter()
            .any(|a| matches!(a, Action::ReadWorkload { key } if key.name == "w")),
        "{after:#?}"
    );
    assert!(
        holds_quota(&world, "w"),
        "the quota stays taken until we know"
    );
    // Meanwhile another workload finds no room.
    let other = world.put_workload(workload(&world, "ns", "other", "lq", 4));
    assert!(
        !status_writes(&other)
            .get("other")
            .is_some_and(|w| w[0].admits)
    );

    let read = world.perform(&Action::ReadWorkload {
        key: key("ns", "w"),
    });
    let mut next = Vec::new();
    for i in read {
        next.extend(world.input(i));
    }
    world.settle(next);
    assert!(holds_quota(&world, "w"));
    assert!(!holds_quota(&world, "other"));
    let reasons: Vec<String> = world.events_of("w").into_iter().map(|(r, _)| r).collect();
    assert_eq!(reasons, ["QuotaReserved", "Admitted"], "its effects follow");
}

#[test]
fn an_unknown_write_outcome_keeps_the_quota_and_reads_back_then_the_write_had_not_landed() {
    let mut world = World::new();
    let _ = admission_with_lost_answer(&mut world, false);
    assert!(
        holds_quota(&world, "w"),
        "the quota stays taken until we know"
    );
    let read = world.perform(&Action::ReadWorkload {
        key: key("ns", "w"),
    });
    for i in read {
        world.input(i);
    }
    assert!(
        !holds_quota(&world, "w"),
        "not landed: the quota is given back"
    );
    let book = world.model.workload_book(&key("ns", "w")).unwrap();
    assert_eq!(book.failures, 1);
    assert!(book.retry_at.is_some(), "tried again after the backoff");
}

#[test]
fn a_failed_read_back_is_tried_again_and_the_quota_stays_held() {
    let mut world = World::new();
    let _ = admission_with_lost_answer(&mut world, false);
    world.input(Input::WorkloadRead {
        key: key("ns", "w"),
        result: Err(WriteError::Unknown("timeout".into())),
    });
    assert!(holds_quota(&world, "w"));
    world.advance(std::time::Duration::from_secs(3));
    let again = world.tick();
    assert!(
        again
            .iter()
            .any(|a| matches!(a, Action::ReadWorkload { key } if key.name == "w")),
        "{again:#?}"
    );
}

/// A Workload whose one container asks for nothing itself.
fn bare_workload(world: &World, name: &str) -> kubectl_kueue::api::Workload {
    let mut w = workload(world, "ns", name, "lq", 1);
    w.spec.pod_sets[0]
        .template
        .spec
        .as_mut()
        .unwrap()
        .containers[0]
        .resources = None;
    w
}

#[test]
fn limit_range_defaults_count_in_requests_and_are_followed_when_they_change() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    world.cache.limit_ranges.push(std::sync::Arc::new(
        serde_yaml::from_str(
            "metadata: {name: defaults, namespace: ns}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: '3'}
",
        )
        .unwrap(),
    ));
    world.cache.put_workload(bare_workload(&world, "a"));
    world.cache.put_workload(bare_workload(&world, "b"));
    let first = world.start();
    let seen = world.settle(first);
    let admitted: Vec<String> = status_writes(&seen)
        .into_iter()
        .filter(|(_, w)| w.iter().any(|w| w.admits))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(admitted, ["a"], "3 cpu each by the LimitRange: one fits");
    let a = world.workload("ns", "a");
    let usage = &a
        .status
        .as_ref()
        .unwrap()
        .admission
        .as_ref()
        .unwrap()
        .pod_set_assignments[0]
        .resource_usage;
    assert_eq!(usage["cpu"].0, "3");

    // The default shrinks: b fits now.
    world.cache.limit_ranges = vec![std::sync::Arc::new(
        serde_yaml::from_str(
            "metadata: {name: defaults, namespace: ns}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: '1'}
",
        )
        .unwrap(),
    )];
    let changed = world.input(Input::Changed {
        kind: Kind::LimitRange,
        key: job_key("ns", "defaults"),
    });
    world.settle(changed);
    assert!(holds_quota(&world, "b"));
}

/// Once the watch shows our write, the book lets go of the write's answer (the store holds
/// the same version): no whole Workload stays behind in every book that was written. The
/// answer comes first and the watch after it, as from a real API server.
#[test]
fn a_written_workload_keeps_no_copy_once_the_watch_shows_the_write() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.put_workload(workload(&world, "ns", "a", "lq", 1));
    let batch = world.settle_until(
        first,
        |a| matches!(a, Action::WriteWorkloadStatus { write, .. } if write.admits),
    );
    let a = key("ns", "a");
    let before = world.workload("ns", "a");
    let mut inputs = Vec::new();
    for action in &batch {
        inputs.extend(world.perform(action));
    }
    let written = world.workload("ns", "a");
    // The watch has not shown the write yet: only its answer is in.
    world.cache.workloads.insert(a.clone(), before);
    for i in inputs
        .iter()
        .filter(|i| !matches!(i, Input::Changed { .. }))
    {
        world.model.handle(&world.cache, i.clone(), world.now);
    }
    let more = world.turn();
    assert!(world.model.workload_book(&a).unwrap().overlay.is_some());
    // Now the watch shows it.
    world.cache.workloads.insert(a.clone(), written);
    let shown = world.input(changed(Kind::Workload, &a));
    world.settle([more, shown].concat());
    assert!(holds_quota(&world, "a"));
    let book = world
        .model
        .workload_book(&a)
        .expect("a was written: it has a book");
    assert!(
        book.overlay.is_none(),
        "the answer to the write is still held"
    );
}

/// A finished Workload keeps no record in the engine (only its key and LocalQueue) and no
/// book (50,000 of them at the end of upstream's large-scale shape); should `Finished` be
/// taken off (an edit), the Workload counts its whole demand again.
#[test]
fn a_workload_whose_finished_condition_is_taken_off_counts_its_whole_demand_again() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.put_workload(workload(&world, "ns", "a", "lq", 6));
    world.settle(first);
    assert!(!holds_quota(&world, "a"), "6 cpu do not fit in 4");
    let a = key("ns", "a");
    assert!(
        world.model.workload_book(&a).is_some(),
        "a pending one has a book"
    );

    let mut done = (*world.workload("ns", "a")).clone();
    let mut st = done.status.clone().unwrap_or_default();
    kubectl_kueue::status::finish(&mut st, "Succeeded", "done", world.now.wall);
    done.status = Some(st);
    let changed = world.put_workload(done);
    world.settle(changed);
    assert!(
        world.model.engine().is_finished(&a),
        "a finished one stays known"
    );
    assert!(
        world.model.engine().workload(&a).is_none(),
        "a finished one keeps no record, only its key and LocalQueue"
    );
    assert!(
        world.model.workload_book(&a).is_none(),
        "nothing is under way for a finished Workload: its book goes"
    );

    let mut undone = (*world.workload("ns", "a")).clone();
    if let Some(st) = undone.status.as_mut() {
        st.conditions.retain(|c| c.type_ != "Finished");
    }
    let changed = world.put_workload(undone);
    world.settle(changed);
    let record = world.model.engine().workload(&a).expect("a is known");
    assert!(!record.finished);
    assert!(!record.pod_sets.is_empty(), "its demand is counted again");
    assert!(!holds_quota(&world, "a"), "6 cpu still do not fit in 4");
}

/// The engine keeps a Workload's demand while its spec's generation holds; a changed spec
/// (a new generation) is counted again.
#[test]
fn a_pending_workload_whose_requests_change_is_counted_again() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.put_workload(workload(&world, "ns", "a", "lq", 6));
    world.settle(first);
    assert!(!holds_quota(&world, "a"), "6 cpu do not fit in 4");
    let mut smaller = (*world.workload("ns", "a")).clone();
    smaller.spec.pod_sets = workload(&world, "ns", "a", "lq", 2).spec.pod_sets;
    let changed = world.put_workload(smaller);
    world.settle(changed);
    assert_eq!(world.workload("ns", "a").metadata.generation, Some(2));
    assert!(holds_quota(&world, "a"), "2 cpu fit");
}

#[test]
fn a_flavor_missing_at_start_keeps_the_admitted_work_and_the_queue_inactive_until_it_appears() {
    let mut world = World::new();
    running_a(&mut world);
    // The controller restarts while the ResourceFlavor is missing.
    let flavor = (*world.cache.flavors["default-flavor"]).clone();
    world.cache.flavors.clear();
    world.model = kubectl_kueue::controller::model::Model::new(Default::default());
    later(&mut world);
    let first = world.start();
    let seen = world.settle(first);
    assert!(
        holds_quota(&world, "a"),
        "the admitted workload keeps its quota"
    );
    assert!(!status_writes(&seen).contains_key("a"), "{seen:#?}");
    let (status, reason, _) = active(&cq_status(&seen).unwrap());
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("False", "FlavorNotFound")
    );
    later(&mut world);
    let arrival = world.put_workload(workload(&world, "ns", "b", "lq", 1));
    world.settle(arrival);
    assert!(!holds_quota(&world, "b"));

    let back = put_flavor(&mut world, flavor);
    world.settle(back);
    assert!(holds_quota(&world, "a"));
    assert!(
        holds_quota(&world, "b"),
        "admitted once the flavor is there"
    );
}

#[test]
fn a_workload_the_api_server_refuses_to_create_is_reported_on_the_job_and_retried() {
    let mut world = World::new();
    cluster(&mut world, "", "nvidia.com/gpu", "4");
    let j = job(&world, "ns", "train", "lq", 1, None);
    world.cache.put_job(j);
    let first = world.start();
    assert!(
        first
            .iter()
            .any(|a| matches!(a, Action::CreateWorkload { .. })),
        "{first:#?}"
    );
    let refused = || Input::WorkloadCreated {
        job: job_key("ns", "train"),
        result: Err(WriteError::Failed(
            "admission webhook \"x\" denied the request: no".into(),
        )),
    };
    let after = world.input(refused());
    world.settle(after);
    let expected = (
        "FailedCreateWorkload".to_string(),
        "Could not create the Workload (retrying): admission webhook \"x\" denied the request: no"
            .to_string(),
    );
    assert_eq!(world.events_of("train"), std::slice::from_ref(&expected));
    assert_eq!(
        world.job("ns", "train").spec.as_ref().unwrap().suspend,
        Some(true),
        "the Job stays suspended"
    );
    // Tried again after the backoff; the same refusal is not reported twice.
    world.advance(std::time::Duration::from_secs(3));
    let again = world.tick();
    assert!(
        again
            .iter()
            .any(|a| matches!(a, Action::CreateWorkload { .. })),
        "{again:#?}"
    );
    let after = world.input(refused());
    world.settle(after);
    assert_eq!(world.events_of("train"), [expected]);
}

/// Jobs `first` and `second` of 4 GPUs each on a 4-GPU queue, settled: `first` runs.
fn two_four_gpu_jobs() -> World {
    let mut world = World::new();
    cluster(&mut world, "", "nvidia.com/gpu", "4");
    world
        .cache
        .put_job(job(&world, "ns", "first", "lq", 4, None));
    world
        .cache
        .put_job(job(&world, "ns", "second", "lq", 4, None));
    let first = world.start();
    world.settle(first);
    world
}

/// The Workload the Job `job` owns.
fn wl_of(world: &World, job: &str) -> kubectl_kueue::api::Workload {
    world
        .cache
        .workloads
        .values()
        .find(|w| w.metadata.owner_references.as_ref().unwrap()[0].name == job)
        .map(|w| (**w).clone())
        .unwrap()
}

/// The Job `job` loses its queue-name label: it leaves the labelled watch (the API server
/// still has it), and the model reads it.
fn unlabel(world: &mut World, job: &str) {
    let mut unlabelled = (*world.job("ns", job)).clone();
    unlabelled.metadata.labels = None;
    world.cache.jobs.remove(&job_key("ns", job));
    world.unwatched_jobs.insert(job_key("ns", job), unlabelled);
    later(world);
    let gone = world.input(Input::Changed {
        kind: Kind::Job,
        key: job_key("ns", job),
    });
    let seen = world.settle(gone);
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::ReadJob { key, .. } if key.name == job)),
        "{seen:#?}"
    );
}

#[test]
fn a_suspended_job_that_loses_its_queue_label_finishes_its_workload() {
    let mut world = two_four_gpu_jobs();
    let second_wl = wl_of(&world, "second").metadata.name.clone().unwrap();
    assert!(!holds_quota(&world, &second_wl), "4 GPUs: second waits");

    // The label goes: the Job leaves the queue-labelled watch, the API server still has it.
    unlabel(&mut world, "second");
    let w = wl_of(&world, "second");
    let finished = w.status.as_ref().unwrap().condition("Finished").unwrap();
    assert_eq!(
        (finished.status.as_str(), finished.reason.as_str()),
        ("True", "QueueNameRemoved")
    );
    assert!(
        world
            .events_of("second")
            .iter()
            .any(|(r, _)| r == "QueueNameRemoved")
    );
    assert!(
        !w.metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER),
        "nothing holds it any more"
    );
    assert!(!holds_quota(&world, &second_wl));
    assert!(holds_quota(
        &world,
        &wl_of(&world, "first").metadata.name.clone().unwrap()
    ));
}

/// Upstream keeps a running Job that lost its queue-name label running (its webhook refuses
/// the edit; without it the Job is ignored and its Workload holds the quota for good). Ours
/// keeps it running with its quota too, reads it again while it runs, and once it completed
/// its Workload finishes and the quota goes to the next one.
#[test]
fn a_running_job_that_loses_its_queue_label_keeps_its_quota_until_it_ends() {
    let mut world = two_four_gpu_jobs();
    let (first_wl, second_wl) = (
        wl_of(&world, "first").metadata.name.clone().unwrap(),
        wl_of(&world, "second").metadata.name.clone().unwrap(),
    );
    assert!(holds_quota(&world, &first_wl) && !holds_quota(&world, &second_wl));
    assert_eq!(
        world.job("ns", "first").spec.as_ref().unwrap().suspend,
        Some(false)
    );

    // The label goes while it runs.
    unlabel(&mut world, "first");
    let running = world.workload("ns", &first_wl);
    let st = running.status.as_ref().unwrap();
    assert!(
        st.condition("Finished").is_none() && st.condition("Evicted").is_none(),
        "the running Job keeps its Workload as it was: {:?}",
        st.conditions
    );
    assert!(holds_quota(&world, &first_wl) && !holds_quota(&world, &second_wl));

    // Still running at the next look: read again, nothing changes.
    world.advance(kubectl_kueue::controller::model::jobs::LEFT_JOB_REREAD);
    let look = world.tick();
    let seen = world.settle(look);
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::ReadJob { key, .. } if key.name == "first")),
        "read again while it runs: {seen:#?}"
    );
    assert!(holds_quota(&world, &first_wl));

    // It completes, out of the watch: at the next look its Workload finishes.
    let done = world
        .unwatched_jobs
        .get_mut(&job_key("ns", "first"))
        .unwrap();
    done.status = Some(
        serde_json::from_value(serde_json::json!({"succeeded": 1, "conditions": [
            {"type": "Complete", "status": "True", "message": "Reached expected number of succeeded pods"}]}))
        .unwrap(),
    );
    world.advance(kubectl_kueue::controller::model::jobs::LEFT_JOB_REREAD);
    let look = world.tick();
    world.settle(look);
    let finished = world.workload("ns", &first_wl);
    let cond = finished
        .status
        .as_ref()
        .unwrap()
        .condition("Finished")
        .unwrap();
    assert_eq!(
        (cond.status.as_str(), cond.reason.as_str()),
        ("True", "Succeeded")
    );
    assert!(!holds_quota(&world, &first_wl));
    assert!(
        holds_quota(&world, &second_wl),
        "the quota went to the next one"
    );
}

/// A new leader whose cache has not yet seen the old leader's admission of `w` decides to
/// admit it too: the API server refuses the write made on the stale copy (409), the newer copy
/// decides, and `w` is counted once, with nothing else admitted into its quota.
#[test]
fn an_admission_decided_on_a_stale_copy_is_refused_and_the_newer_copy_counts_once() {
    let mut world = World::new();
    cluster(&mut world, "", "cpu", "4");
    let first = world.put_workload(workload(&world, "ns", "w", "lq", 4));
    let write = first
        .iter()
        .find(|a| matches!(a, Action::WriteWorkloadStatus { write, .. } if write.admits))
        .expect("an admission write")
        .clone();
    let Action::WriteWorkloadStatus { write: decided, .. } = &write else {
        unreachable!()
    };
    // The old leader's admission landed first; our watch has not delivered it yet.
    let mut theirs = (*world.workload("ns", "w")).clone();
    theirs.status = Some(decided.status.clone());
    theirs.metadata.resource_version = Some(world.rv());
    world.cache.put_workload(theirs);

    let answer = world.perform(&write);
    assert!(
        matches!(
            &answer[..],
            [Input::WorkloadWritten {
                result: Err(WriteError::Conflict),
                ..
            }]
        ),
        "{answer:#?}"
    );
    let after = world.input(answer.into_iter().next().unwrap());
    assert!(
        status_writes(&after).is_empty(),
        "nothing is written again before the newer copy is seen: {after:#?}"
    );
    assert!(
        after
            .iter()
            .any(|a| matches!(a, Action::ReadWorkload { key } if key.name == "w")),
        "the newer copy is read back: {after:#?}"
    );
    let read_back = world.settle(after);
    assert!(
        !status_writes(&read_back)
            .get("w")
            .is_some_and(|ws| ws.iter().any(|w| w.admits)),
        "the copy read back holds the admission, not made a second time: {read_back:#?}"
    );
    // The watch delivers the old leader's write.
    let seen = world.input(changed(Kind::Workload, &key("ns", "w")));
    let seen = world.settle(seen);
    assert!(
        holds_quota(&world, "w"),
        "the admission on the server counts"
    );
    assert!(
        !status_writes(&seen)
            .get("w")
            .is_some_and(|ws| ws.iter().any(|w| w.admits)),
        "and is not made a second time: {seen:#?}"
    );
    world.advance(std::time::Duration::from_secs(1));
    let tick = world.tick();
    let later = world.settle(tick);
    assert!(
        !status_writes(&later)
            .get("w")
            .is_some_and(|ws| ws.iter().any(|w| w.admits)),
        "not after the retry either: {later:#?}"
    );
    let other = world.put_workload(workload(&world, "ns", "other", "lq", 4));
    let other = world.settle(other);
    assert!(!holds_quota(&world, "other"), "no room: {other:#?}");
}

/// The watch lags behind a saturated API server: a running victim has finished and the
/// watch has not said so yet. Its eviction, decided on the watch's copy, is refused (409);
/// rather than deciding the same eviction again on the same stale copy (refused again, each
/// time a status write on a saturated server: 18,000 in one large-scale run), the model reads
/// the victim back, sees it finished, and admits the preemptor into the freed quota. Once the
/// watch catches up, the finished victim's book goes.
#[test]
fn an_eviction_refused_because_the_victim_finished_reads_it_back_and_is_not_tried_again() {
    let mut world = low_admitted();
    assert!(holds_quota(&world, "low"));
    let done = finished(&world, "low");
    world.write_behind_the_watch(done);

    world.advance(std::time::Duration::from_secs(1));
    let arrival = world.put_workload(high_priority(&world));
    assert!(
        status_writes(&arrival)
            .get("low")
            .is_some_and(|ws| ws.iter().any(|w| w.status.condition("Evicted").is_some())),
        "the eviction decided on the watch's copy: {arrival:#?}"
    );
    let seen = world.settle(arrival);
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::ReadWorkload { key } if key.name == "low")),
        "the refused victim is read back: {seen:#?}"
    );
    let evictions = evictions_of(&seen, "low");
    assert_eq!(evictions, 1, "the eviction is not tried again: {seen:#?}");
    assert!(
        !holds_quota(&world, "low"),
        "the finished victim holds nothing"
    );
    assert!(
        holds_quota(&world, "high"),
        "the preemptor is admitted before the watch catches up: {seen:#?}"
    );

    let low = key("ns", "low");
    let caught_up = world.deliver(&low);
    world.settle(caught_up);
    assert!(
        world.model.workload_book(&low).is_none(),
        "the finished victim's book outlived it: {:?}",
        world.model.workload_book(&low)
    );
}

/// `actions` settled until `name` is read back: that batch, not performed.
fn until_read_back(world: &mut World, actions: Vec<Action>, name: &str) -> Vec<Action> {
    world.settle_until(
        actions,
        |a| matches!(a, Action::ReadWorkload { key } if key.name == name),
    )
}

/// A 1-cpu arrival of priority class `high`: the cycle it starts looks at the waiting
/// preemptor again.
fn bystander(world: &World) -> kubectl_kueue::api::Workload {
    let mut w = workload(world, "ns", "other", "lq", 1);
    w.spec.priority = Some(1000);
    w.spec.priority_class_name = Some("high".into());
    w
}

/// The same refused eviction, with a scheduling cycle while the read-back is out (at
/// large-scale other Workloads change all the time): the preemptor is looked at again, and
/// its victim's copy is the one the API server just refused. No eviction is decided on that
/// copy (decided, it would go out on the read copy's version and evict a finished Workload:
/// half of the 22,280 preemptions of one large-scale run), and the victim is decided again
/// on what the read brings.
#[test]
fn no_eviction_is_decided_on_the_refused_copy_while_it_is_read_back() {
    let mut world = low_admitted();
    let done = finished(&world, "low");
    world.write_behind_the_watch(done);

    world.advance(std::time::Duration::from_secs(1));
    let arrival = world.put_workload(high_priority(&world));
    let reading = until_read_back(&mut world, arrival, "low");
    let meanwhile = world.put_workload(bystander(&world));
    assert!(
        !status_writes(&meanwhile).contains_key("low"),
        "nothing is written to the victim while it is read: {meanwhile:#?}"
    );
    let victim = world.model.workload_book(&key("ns", "low"));
    assert!(
        victim.is_some_and(|b| b.plan.is_none()),
        "nor decided: {victim:?}"
    );
    let mut actions = reading;
    actions.extend(meanwhile);
    let seen = world.settle(actions);
    let evictions = evictions_of(&seen, "low");
    assert_eq!(
        evictions, 0,
        "no eviction decided on the refused copy goes out: {seen:#?}"
    );
    assert!(
        !holds_quota(&world, "low"),
        "the finished victim holds nothing"
    );
    assert!(
        holds_quota(&world, "high"),
        "the preemptor is admitted: {seen:#?}"
    );
}

/// A pending Workload's status write is refused because someone deactivated it (the watch
/// has not said so yet). While it is read back, quota frees and a cycle admits it on the
/// refused copy: that admission is dropped when the read brings the deactivated copy, and
/// the Workload is not admitted.
#[test]
fn an_admission_decided_while_the_refused_copy_is_read_back_is_dropped() {
    let mut world = low_admitted();
    world.advance(std::time::Duration::from_secs(1));
    let waiting = world.put_workload(workload(&world, "ns", "w", "lq", 2));
    let mut inactive = (*world.workload("ns", "w")).clone();
    inactive.spec.active = false;
    world.write_behind_the_watch(inactive);
    let reading = until_read_back(&mut world, waiting, "w");
    let done = finished(&world, "low");
    let meanwhile = world.put_workload(done);
    assert!(
        holds_quota(&world, "w"),
        "admitted on the refused copy meanwhile: {meanwhile:#?}"
    );
    let mut actions = reading;
    actions.extend(meanwhile);
    let seen = world.settle(actions);
    assert!(
        !status_writes(&seen)
            .get("w")
            .is_some_and(|ws| ws.iter().any(|w| w.admits)),
        "the admission decided on the refused copy does not go out: {seen:#?}"
    );
    assert!(
        !holds_quota(&world, "w"),
        "a deactivated Workload holds nothing"
    );
}

/// The refused victim's newer copy differs in nothing the scheduler reads (a label added):
/// the eviction skipped while it was read back is decided again on that copy, and goes out.
#[test]
fn a_victim_read_back_unchanged_is_evicted_on_the_newer_copy() {
    let mut world = low_admitted();
    let mut labelled = (*world.workload("ns", "low")).clone();
    labelled
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("team".into(), "a".into());
    world.write_behind_the_watch(labelled);

    world.advance(std::time::Duration::from_secs(1));
    let arrival = world.put_workload(high_priority(&world));
    let reading = until_read_back(&mut world, arrival, "low");
    let mut actions = reading;
    actions.extend(world.put_workload(bystander(&world)));
    let seen = world.settle(actions);
    let evictions = evictions_of(&seen, "low");
    assert_eq!(evictions, 1, "evicted once, on the newer copy: {seen:#?}");
    assert!(!holds_quota(&world, "low"), "the victim is evicted");
    assert!(
        holds_quota(&world, "high"),
        "the preemptor is admitted: {seen:#?}"
    );
}

/// A Workload's admission is still in flight when a higher-priority arrival preempts it: the
/// eviction, decided on the status the admission writes, waits for that write and goes out
/// when it lands (the loop leaves a busy Workload's plan alone until then).
#[test]
fn an_eviction_decided_while_the_admission_is_in_flight_goes_out_when_it_lands() {
    let mut world = preemption_cluster();
    let first = world.start();
    world.settle(first);
    let admitting = world.put_workload(workload(&world, "ns", "low", "lq", 2));
    assert!(
        status_writes(&admitting)
            .get("low")
            .is_some_and(|ws| ws.iter().any(|w| w.admits)),
        "{admitting:#?}"
    );
    world.advance(std::time::Duration::from_secs(1));
    let meanwhile = world.put_workload(high_priority(&world));
    assert_eq!(
        evictions_of(&meanwhile, "low"),
        0,
        "not while the admission is in flight"
    );
    let mut actions = admitting;
    actions.extend(meanwhile);
    let seen = world.settle(actions);
    assert_eq!(
        evictions_of(&seen, "low"),
        1,
        "sent once the admission landed: {seen:#?}"
    );
    assert!(
        holds_quota(&world, "high"),
        "the preemptor is admitted: {seen:#?}"
    );
}
