//! The registry rendering each family with upstream's names, labels, types, help and
//! buckets, and the switches that leave families out.

use super::*;

fn lq(name: &str) -> LocalQueueRef {
    LocalQueueRef {
        namespace: "ns".into(),
        name: name.into(),
    }
}

fn assert_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
}

fn queue(name: &str, cohort: &str) -> QueueState {
    QueueState {
        cluster_queue: name.into(),
        cohort: cohort.into(),
        hierarchy: Hierarchy {
            parent_cohort: cohort.into(),
            root_cohort: cohort.into(),
        },
        active: true,
        finished: Some(3),
        resources: vec![ResourceState {
            flavor: "f".into(),
            resource: "cpu".into(),
            nominal: 4.0,
            borrowing_limit: f64::INFINITY,
            lending_limit: 1.0,
            reservation: 2.0,
            usage: 1.5,
        }],
        pending_resources: vec![("cpu".into(), 0.5), ("memory".into(), 0.0)],
        weighted_share: Some(f64::NAN),
        ..Default::default()
    }
}

#[test]
fn upstream_names_labels_and_buckets() {
    let m = Metrics::new(Role::Leader, false, true);
    m.record(&MetricUpdate::AdmissionAttempt {
        admitted: true,
        seconds: 0.02,
    });
    m.record(&MetricUpdate::Finished {
        cluster_queue: "cq".into(),
        priority_class: "high".into(),
        local_queue: Some(lq("a")),
    });
    m.record(&MetricUpdate::Evicted {
        cluster_queue: "cq".into(),
        reason: "Preempted".into(),
        underlying_cause: String::new(),
        priority_class: "low".into(),
        first: true,
        local_queue: Some(lq("a")),
        pods_ready_seconds: None,
    });
    let text = m.encode();
    assert_lines(
        &text,
        &[
            // Upstream gives the attempt duration no buckets: the Go client's defaults.
            r#"kueue_admission_attempt_duration_seconds_bucket{le="0.005",result="success",replica_role="leader"} 0"#,
            r#"kueue_admission_attempt_duration_seconds_bucket{le="0.025",result="success",replica_role="leader"} 1"#,
            "# TYPE kueue_admission_attempts_total counter",
            r#"kueue_finished_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 1"#,
            r#"kueue_local_queue_finished_workloads_total{name="a",namespace="ns",priority_class="high",replica_role="leader"} 1"#,
            r#"kueue_local_queue_evicted_workloads_total{name="a",namespace="ns",reason="Preempted",underlying_cause="",priority_class="low",replica_role="leader"} 1"#,
            "# TYPE kueue_build_info gauge",
            r#"compiler="rustc""#,
        ],
    );
    assert!(text.contains(&format!("git_version=\"v{}\"", env!("CARGO_PKG_VERSION"))));
    // No pods-ready time without ready pods; no `# EOF` in the 0.0.4 format.
    assert!(!text.contains("pods_ready_to_evicted"), "{text}");
    assert!(!text.contains("# EOF"), "{text}");
}

/// One update of every kind, naming a LocalQueue and cohorts: every family gets a series.
fn every_update() -> Vec<MetricUpdate> {
    let a = Some(lq("a"));
    vec![
        MetricUpdate::AdmissionAttempt {
            admitted: false,
            seconds: 0.1,
        },
        MetricUpdate::Admitted {
            cluster_queue: "cq".into(),
            priority_class: String::new(),
            wait_seconds: 1.0,
            local_queue: a.clone(),
            cohorts: vec!["team".into()],
        },
        MetricUpdate::Evicted {
            cluster_queue: "cq".into(),
            reason: "Preempted".into(),
            underlying_cause: String::new(),
            priority_class: String::new(),
            first: true,
            local_queue: a.clone(),
            pods_ready_seconds: Some(1.0),
        },
        MetricUpdate::Preempted {
            preempting_cluster_queue: "cq".into(),
            reason: "InClusterQueue".into(),
        },
        MetricUpdate::Finished {
            cluster_queue: "cq".into(),
            priority_class: String::new(),
            local_queue: a.clone(),
        },
        MetricUpdate::PreemptionSkips(vec![("cq".into(), 1)]),
        MetricUpdate::PodsReady {
            cluster_queue: "cq".into(),
            priority_class: String::new(),
            queued_seconds: 1.0,
            admitted_seconds: 1.0,
            local_queue: a,
        },
        MetricUpdate::EvictionReleased {
            cluster_queue: "cq".into(),
            reason: "Preempted".into(),
            seconds: 1.0,
        },
        MetricUpdate::WorkloadCreated {
            job_kind: "Job".into(),
            seconds: 1.0,
        },
        MetricUpdate::QueueState(vec![queue("cq", "team")]),
        MetricUpdate::LocalQueueState(vec![LocalQueueState {
            queue: lq("a"),
            finished: Some(1),
            active: "True".into(),
            resources: vec![("f".into(), "cpu".into(), 1.0, 1.0)],
            ..Default::default()
        }]),
        MetricUpdate::CohortState(vec![CohortState {
            cohort: "team".into(),
            subtree_quota: vec![("f".into(), "cpu".into(), 4.0)],
            subtree_reservations: vec![("f".into(), "cpu".into(), 1.0)],
            admitted_active: Some(1),
            weighted_share: Some(0.0),
            ..Default::default()
        }]),
    ]
}

#[test]
fn every_family_renders_once_with_upstream_help_and_type() {
    let m = Metrics::new(Role::Standalone, true, true);
    for u in every_update() {
        m.record(&u);
    }
    let text = m.encode();
    let types: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE ")).collect();
    let helps: Vec<&str> = text.lines().filter(|l| l.starts_with("# HELP ")).collect();
    // 53 families: 31 ClusterQueue and health ones, 6 of cohorts, 16 of LocalQueues.
    assert_eq!(types.len(), 53, "{text}");
    assert_eq!(helps.len(), 53, "{text}");
    let mut names = std::collections::BTreeSet::new();
    for (help, ty) in helps.iter().zip(&types) {
        let mut parts = ty.split(' ').skip(2);
        let (name, kind) = (parts.next().unwrap(), parts.next().unwrap());
        assert!(names.insert(name), "{name} twice in\n{text}");
        assert_eq!(name.ends_with("_total"), kind == "counter", "{ty}");
        let short = name.strip_prefix("kueue_").unwrap();
        let upstream = help::upstream(short).unwrap_or_else(|| panic!("no help for {name}"));
        assert_eq!(
            *help,
            format!("# HELP {name} {}", upstream.replace('\n', "\\n")),
            "{name}"
        );
    }
}

#[test]
fn finished_gauge_and_counter_render_side_by_side() {
    let m = Metrics::new(Role::Standalone, false, true);
    m.record(&MetricUpdate::Finished {
        cluster_queue: "cq".into(),
        priority_class: String::new(),
        local_queue: Some(lq("a")),
    });
    m.record(&MetricUpdate::QueueState(vec![queue("cq", "")]));
    m.record(&MetricUpdate::LocalQueueState(vec![LocalQueueState {
        queue: lq("a"),
        finished: Some(1),
        active: "True".into(),
        ..Default::default()
    }]));
    let text = m.encode();
    assert_lines(
        &text,
        &[
            "# HELP kueue_finished_workloads The number of finished workloads per 'cluster_queue'.\n# TYPE kueue_finished_workloads gauge\n",
            r#"kueue_finished_workloads{cluster_queue="cq",replica_role="standalone"} 3"#,
            "# TYPE kueue_finished_workloads_total counter\n",
            r#"kueue_finished_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1"#,
            "# TYPE kueue_local_queue_finished_workloads gauge\n",
            r#"kueue_local_queue_finished_workloads{name="a",namespace="ns",replica_role="standalone"} 1"#,
            "# TYPE kueue_local_queue_finished_workloads_total counter\n",
        ],
    );
    // Each family is named once.
    for family in [
        "kueue_finished_workloads",
        "kueue_finished_workloads_total",
        "kueue_local_queue_finished_workloads",
    ] {
        assert_eq!(
            text.matches(&format!("# TYPE {family} ")).count(),
            1,
            "{family} in\n{text}"
        );
    }
}

#[test]
fn cluster_queue_state_gauges_with_resources() {
    let m = Metrics::new(Role::Standalone, true, false);
    let mut other = queue("b", "");
    other.finished = None;
    other.weighted_share = Some(0.25);
    m.record(&MetricUpdate::QueueState(vec![queue("a", "team"), other]));
    let text = m.encode();
    assert_lines(
        &text,
        &[
            r#"kueue_cluster_queue_info{cluster_queue="a",parent_cohort="team",root_cohort="team",replica_role="standalone"} 1"#,
            r#"kueue_cluster_queue_info{cluster_queue="b",parent_cohort="",root_cohort="",replica_role="standalone"} 1"#,
            r#"kueue_cluster_queue_resource_pending{cluster_queue="a",resource="cpu",replica_role="standalone"} 0.5"#,
            r#"kueue_cluster_queue_resource_pending{cluster_queue="a",resource="memory",replica_role="standalone"} 0"#,
            r#"kueue_cluster_queue_weighted_share{cluster_queue="a",cohort="team",replica_role="standalone"} NaN"#,
            r#"kueue_cluster_queue_weighted_share{cluster_queue="b",cohort="",replica_role="standalone"} 0.25"#,
            r#"kueue_cluster_queue_borrowing_limit{cohort="team",cluster_queue="a",flavor="f",resource="cpu",replica_role="standalone"} +Inf"#,
            "# TYPE kueue_cluster_queue_weighted_share gauge",
        ],
    );
    // `b` has no LocalQueue: no finished gauge for it.
    assert!(
        !text.contains(r#"kueue_finished_workloads{cluster_queue="b""#),
        "{text}"
    );
    // Gone from the next snapshot: its series go.
    m.record(&MetricUpdate::QueueState(vec![queue("a", "team")]));
    let text = m.encode();
    assert!(!text.contains(r#"cluster_queue="b""#), "{text}");
}

#[test]
fn resource_gauges_need_enable_cluster_queue_resources() {
    let m = Metrics::new(Role::Standalone, false, false);
    m.record(&MetricUpdate::QueueState(vec![queue("a", "team")]));
    let text = m.encode();
    for family in [
        "resource_pending",
        "weighted_share",
        "nominal_quota",
        "resource_usage",
    ] {
        assert!(!text.contains(family), "{family} in\n{text}");
    }
    assert!(text.contains("kueue_cluster_queue_info{"), "{text}");
}

#[test]
fn cohort_gauges_and_the_subtree_admission_counter() {
    let m = Metrics::new(Role::Leader, false, false);
    m.record(&MetricUpdate::CohortState(vec![CohortState {
        cohort: "team".into(),
        hierarchy: Hierarchy {
            parent_cohort: "org".into(),
            root_cohort: "org".into(),
        },
        subtree_quota: vec![("f".into(), "cpu".into(), 4.0)],
        subtree_reservations: vec![("f".into(), "cpu".into(), 2.5)],
        admitted_active: Some(2),
        weighted_share: Some(0.0),
    }]));
    m.record(&MetricUpdate::Admitted {
        cluster_queue: "a".into(),
        priority_class: "high".into(),
        wait_seconds: 1.0,
        local_queue: None,
        cohorts: vec!["team".into(), "org".into()],
    });
    let text = m.encode();
    assert_lines(
        &text,
        &[
            r#"kueue_cohort_info{cohort="team",parent_cohort="org",root_cohort="org",replica_role="leader"} 1"#,
            r#"kueue_cohort_weighted_share{cohort="team",replica_role="leader"} 0"#,
            r#"kueue_cohort_subtree_quota{cohort="team",flavor="f",resource="cpu",replica_role="leader"} 4"#,
            r#"kueue_cohort_subtree_resource_reservations{cohort="team",flavor="f",resource="cpu",replica_role="leader"} 2.5"#,
            r#"kueue_cohort_subtree_admitted_active_workloads{cohort="team",replica_role="leader"} 2"#,
            r#"kueue_cohort_subtree_admitted_workloads_total{cohort="team",priority_class="high",replica_role="leader"} 1"#,
            r#"kueue_cohort_subtree_admitted_workloads_total{cohort="org",priority_class="high",replica_role="leader"} 1"#,
        ],
    );
    m.record(&MetricUpdate::CohortState(Vec::new()));
    let text = m.encode();
    assert!(!text.contains("kueue_cohort_info"), "{text}");
    assert!(!text.contains("kueue_cohort_subtree_quota"), "{text}");
}

#[test]
fn info_gauges_follow_metrics_for_cohorts() {
    let m = Metrics::with_options(
        Role::Standalone,
        Options {
            cluster_queue_resources: false,
            local_queues: false,
            cohorts: false,
            workload_creation_latency: false,
        },
    );
    m.record(&MetricUpdate::QueueState(vec![queue("a", "team")]));
    m.record(&MetricUpdate::CohortState(vec![CohortState {
        cohort: "team".into(),
        admitted_active: Some(0),
        ..Default::default()
    }]));
    m.record(&MetricUpdate::WorkloadCreated {
        job_kind: "Job".into(),
        seconds: 1.0,
    });
    let text = m.encode();
    assert!(!text.contains("cluster_queue_info"), "{text}");
    assert!(!text.contains("cohort_info"), "{text}");
    assert!(!text.contains("workload_creation_latency"), "{text}");
    assert!(
        text.contains("kueue_cohort_subtree_admitted_active_workloads{"),
        "{text}"
    );
}

#[test]
fn event_histograms_with_upstream_buckets() {
    let m = Metrics::new(Role::Standalone, false, true);
    m.record(&MetricUpdate::PodsReady {
        cluster_queue: "cq".into(),
        priority_class: "p".into(),
        queued_seconds: 12.0,
        admitted_seconds: 2.0,
        local_queue: Some(lq("a")),
    });
    m.record(&MetricUpdate::Evicted {
        cluster_queue: "cq".into(),
        reason: "Preempted".into(),
        underlying_cause: String::new(),
        priority_class: "p".into(),
        first: false,
        local_queue: None,
        pods_ready_seconds: Some(30.0),
    });
    m.record(&MetricUpdate::EvictionReleased {
        cluster_queue: "cq".into(),
        reason: "Preempted".into(),
        seconds: -1.0,
    });
    m.record(&MetricUpdate::WorkloadCreated {
        job_kind: "Job".into(),
        seconds: 0.5,
    });
    m.record(&MetricUpdate::PreemptionSkips(vec![("cq".into(), 2)]));
    let text = m.encode();
    assert_lines(
        &text,
        &[
            r#"kueue_ready_wait_time_seconds_bucket{le="10.0",cluster_queue="cq",priority_class="p",replica_role="standalone"} 0"#,
            r#"kueue_ready_wait_time_seconds_bucket{le="20.0",cluster_queue="cq",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_ready_wait_time_seconds_bucket{le="10240.0",cluster_queue="cq",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_admitted_until_ready_wait_time_seconds_bucket{le="2.5",cluster_queue="cq",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_ready_wait_time_seconds_count{name="a",namespace="ns",priority_class="p",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_admitted_until_ready_wait_time_seconds_sum{name="a",namespace="ns",priority_class="p",replica_role="standalone"} 2"#,
            r#"kueue_pods_ready_to_evicted_time_seconds_bucket{le="40.0",cluster_queue="cq",reason="Preempted",underlying_cause="",replica_role="standalone"} 1"#,
            // Clamped to 0, as upstream clamps a negative latency.
            r#"kueue_workload_eviction_latency_seconds_bucket{le="1.0",cluster_queue="cq",reason="Preempted",replica_role="standalone"} 1"#,
            r#"kueue_workload_creation_latency_seconds_bucket{le="0.32",job_kind="Job",replica_role="standalone"} 0"#,
            r#"kueue_workload_creation_latency_seconds_bucket{le="0.64",job_kind="Job",replica_role="standalone"} 1"#,
            r#"kueue_workload_creation_latency_seconds_bucket{le="10.24",job_kind="Job",replica_role="standalone"} 1"#,
            r#"kueue_admission_cycle_preemption_skips{cluster_queue="cq",replica_role="standalone"} 2"#,
        ],
    );
    // A ClusterQueue gone from the snapshot loses its skip gauge.
    m.record(&MetricUpdate::QueueState(Vec::new()));
    assert!(!m.encode().contains("preemption_skips{"));
}

#[test]
fn local_queue_families_exist_only_when_enabled() {
    let off = Metrics::new(Role::Standalone, false, false);
    off.record(&MetricUpdate::Finished {
        cluster_queue: "cq".into(),
        priority_class: String::new(),
        local_queue: Some(lq("a")),
    });
    off.record(&MetricUpdate::LocalQueueState(vec![LocalQueueState {
        queue: lq("a"),
        active: "True".into(),
        ..Default::default()
    }]));
    off.record(&MetricUpdate::PodsReady {
        cluster_queue: "cq".into(),
        priority_class: String::new(),
        queued_seconds: 1.0,
        admitted_seconds: 1.0,
        local_queue: Some(lq("a")),
    });
    let text = off.encode();
    assert!(!text.contains("local_queue"), "{text}");
    assert!(text.contains("kueue_finished_workloads_total"), "{text}");
}

#[test]
fn local_queue_gauges_of_a_queue_gone_are_dropped() {
    let m = Metrics::new(Role::Standalone, false, true);
    let state = |name: &str| LocalQueueState {
        queue: lq(name),
        pending_active: 2,
        pending_inadmissible: 1,
        active: "False".into(),
        resources: vec![("f".into(), "cpu".into(), 1.5, 0.5)],
        ..Default::default()
    };
    m.record(&MetricUpdate::LocalQueueState(vec![state("a"), state("b")]));
    let text = m.encode();
    assert_lines(
        &text,
        &[
            r#"kueue_local_queue_pending_workloads{name="b",namespace="ns",status="active",replica_role="standalone"} 2"#,
            r#"kueue_local_queue_pending_workloads{name="b",namespace="ns",status="inadmissible",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_status{name="b",namespace="ns",active="False",replica_role="standalone"} 1"#,
            r#"kueue_local_queue_status{name="b",namespace="ns",active="Unknown",replica_role="standalone"} 0"#,
            r#"kueue_local_queue_resource_reservation{name="b",namespace="ns",flavor="f",resource="cpu",replica_role="standalone"} 1.5"#,
        ],
    );
    m.record(&MetricUpdate::LocalQueueState(vec![state("a")]));
    let text = m.encode();
    assert!(!text.contains(r#"name="b""#), "{text}");
    assert!(text.contains(r#"name="a""#), "{text}");
}

#[test]
fn gauges_upstream_has_not_created_yet_have_no_series() {
    let m = Metrics::new(Role::Standalone, false, true);
    let mut cq = queue("cq", "team");
    cq.finished = None;
    m.record(&MetricUpdate::QueueState(vec![cq]));
    // `s` is stopped: out of upstream's queue manager, no pending or finished gauge.
    m.record(&MetricUpdate::LocalQueueState(vec![
        LocalQueueState {
            queue: lq("a"),
            active: "True".into(),
            ..Default::default()
        },
        LocalQueueState {
            queue: lq("s"),
            stopped: true,
            finished: Some(2),
            active: "False".into(),
            ..Default::default()
        },
    ]));
    m.record(&MetricUpdate::CohortState(vec![CohortState {
        cohort: "team".into(),
        ..Default::default()
    }]));
    let text = m.encode();
    for absent in [
        "kueue_finished_workloads{",
        "kueue_local_queue_finished_workloads{",
        "kueue_cohort_subtree_admitted_active_workloads{",
        r#"kueue_local_queue_pending_workloads{name="s""#,
    ] {
        assert!(!text.contains(absent), "{absent} in\n{text}");
    }
    assert!(
        text.contains(r#"kueue_local_queue_pending_workloads{name="a""#),
        "{text}"
    );
    assert!(
        text.contains(r#"kueue_local_queue_status{name="s""#),
        "{text}"
    );
    assert!(text.contains("kueue_cohort_info{"), "{text}");
}
