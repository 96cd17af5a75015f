//! Round trips through upstream's conversion are the identity on everything both versions
//! express: objects are generated as documents restricted to that common subset, once with
//! v1beta1's names and once with v1beta2's, read with the version's types (so defaults are
//! filled as the API server would), converted to the other version and back.

use kubectl_kueue::api::convert;
use kubectl_kueue::api::v1beta2 as v2;
use kubectl_kueue::api::{self, KueueVersion, TopologyAssignment, TopologyDomainAssignment};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use KueueVersion::{V1beta1, V1beta2};

pub(crate) fn read<T: DeserializeOwned>(doc: &Value) -> T {
    api::from_value(doc.clone()).unwrap_or_else(|e| panic!("{e}\nin {doc}"))
}

pub(crate) fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,6}[a-z0-9]"
}

fn quantity() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..64).prop_map(|n| n.to_string()),
        (1u32..512).prop_map(|n| format!("{n}Gi")),
        (1u32..999).prop_map(|n| format!("{n}m")),
    ]
}

pub(crate) fn maybe<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

/// Inserts the `Some` entries of `fields` into `obj`.
pub(crate) fn object(fields: Vec<(&str, Option<Value>)>) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in fields {
        if let Some(v) = v {
            map.insert(k.to_owned(), v);
        }
    }
    Value::Object(map)
}

fn condition() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["Active", "QuotaReserved", "Admitted", "Evicted"]),
        any::<bool>(),
        name(),
        0u32..3600,
    )
        .prop_map(|(t, s, reason, secs)| {
            json!({"type": t, "status": if s {"True"} else {"False"}, "reason": reason,
                "message": format!("because {reason}"),
                "lastTransitionTime": format!("2025-07-22T09:{:02}:{:02}Z", secs / 60, secs % 60)})
        })
}

fn conditions() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(
        prop::sample::select(vec!["Active", "QuotaReserved", "Admitted", "Evicted"]),
        condition(),
        0..3,
    )
    .prop_map(|m| {
        Value::Array(
            m.into_iter()
                .map(|(t, mut c)| {
                    c["type"] = json!(t);
                    c
                })
                .collect(),
        )
    })
}

fn resource_groups() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (name(), quantity(), maybe(quantity()), maybe(quantity())),
        0..3,
    )
    .prop_map(|flavors| {
        if flavors.is_empty() {
            return json!([]);
        }
        json!([{
            "coveredResources": ["nvidia.com/gpu"],
            "flavors": flavors.into_iter().enumerate().map(|(i, (n, nominal, borrow, lend))| json!({
                "name": format!("{n}{i}"),
                "resources": [object(vec![
                    ("name", Some(json!("nvidia.com/gpu"))),
                    ("nominalQuota", Some(json!(nominal))),
                    ("borrowingLimit", borrow.map(Value::from)),
                    ("lendingLimit", lend.map(Value::from)),
                ])],
            })).collect::<Vec<_>>(),
        }])
    })
}

fn flavor_usage(with_borrowed: bool) -> impl Strategy<Value = Value> {
    prop::collection::vec((name(), quantity(), quantity()), 0..3).prop_map(move |v| {
        Value::Array(
            v.into_iter()
                .enumerate()
                .map(|(i, (n, total, borrowed))| {
                    let mut r = json!({"name": "cpu", "total": total});
                    if with_borrowed {
                        r["borrowed"] = json!(borrowed);
                    }
                    json!({"name": format!("{n}{i}"), "resources": [r]})
                })
                .collect(),
        )
    })
}

fn policy() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["MayStopSearch", "TryNextFlavor"])
}

/// A ClusterQueue both versions express (no list-form admission checks, no deprecated
/// aliases, no concurrent admission, no v1beta1-only status).
fn cluster_queue(version: KueueVersion) -> impl Strategy<Value = Value> {
    let spec = (
        resource_groups(),
        maybe(name()),
        prop::sample::select(vec!["StrictFIFO", "BestEffortFIFO"]),
        (policy(), policy(), any::<bool>()),
        prop::sample::select(vec!["Never", "LowerPriority", "Any"]),
        maybe(prop::collection::vec(name(), 1..3)),
        prop::sample::select(vec!["None", "Hold", "HoldAndDrain"]),
        maybe(1u32..5),
        maybe(prop::sample::select(vec![
            "UsageBasedAdmissionFairSharing",
            "NoAdmissionFairSharing",
        ])),
    );
    let status = maybe((
        conditions(),
        flavor_usage(true),
        flavor_usage(true),
        (0i32..9, 0i32..9, 0i32..9),
        maybe(0i64..100),
    ));
    (name(), spec, status).prop_map(move |(n, spec, status)| {
        let (
            groups,
            cohort,
            strategy,
            (borrow, preempt, pref),
            reclaim,
            checks,
            stop,
            weight,
            mode,
        ) = spec;
        let cohort_key = if version == V1beta1 {
            "cohort"
        } else {
            "cohortName"
        };
        let preference = (pref && borrow == "TryNextFlavor" && preempt == "TryNextFlavor")
            .then(|| json!("PreemptionOverBorrowing"));
        let spec = object(vec![
            ("resourceGroups", Some(groups)),
            (cohort_key, cohort.map(Value::from)),
            ("queueingStrategy", Some(json!(strategy))),
            (
                "flavorFungibility",
                Some(object(vec![
                    ("whenCanBorrow", Some(json!(borrow))),
                    ("whenCanPreempt", Some(json!(preempt))),
                    ("preference", preference),
                ])),
            ),
            ("preemption", Some(json!({"reclaimWithinCohort": reclaim}))),
            (
                "admissionChecksStrategy",
                checks.map(|c| {
                    json!({"admissionChecks": c.into_iter().enumerate()
                        .map(|(i, n)| json!({"name": format!("{n}{i}"), "onFlavors": ["f"]}))
                        .collect::<Vec<_>>()})
                }),
            ),
            ("stopPolicy", Some(json!(stop))),
            (
                "fairSharing",
                weight.map(|w| json!({"weight": w.to_string()})),
            ),
            ("admissionScope", mode.map(|m| json!({"admissionMode": m}))),
        ]);
        let status = status.map(|(conds, reservation, usage, (p, r, a), share)| {
            object(vec![
                ("conditions", Some(conds)),
                ("flavorsReservation", Some(reservation)),
                ("flavorsUsage", Some(usage)),
                ("pendingWorkloads", Some(json!(p))),
                ("reservingWorkloads", Some(json!(r))),
                ("admittedWorkloads", Some(json!(a))),
                ("fairSharing", share.map(|s| json!({"weightedShare": s}))),
            ])
        });
        object(vec![
            ("apiVersion", Some(json!(version.api_version()))),
            ("kind", Some(json!("ClusterQueue"))),
            (
                "metadata",
                Some(json!({"name": n, "labels": {"team": "a"}})),
            ),
            ("spec", Some(spec)),
            ("status", status),
        ])
    })
}

fn local_queue(version: KueueVersion) -> impl Strategy<Value = Value> {
    (
        name(),
        maybe(name()),
        prop::sample::select(vec!["None", "Hold"]),
        maybe((
            conditions(),
            flavor_usage(false),
            flavor_usage(false),
            0i32..5,
        )),
    )
        .prop_map(move |(n, cq, stop, status)| {
            let usage_key = if version == V1beta1 {
                "flavorUsage"
            } else {
                "flavorsUsage"
            };
            object(vec![
                ("apiVersion", Some(json!(version.api_version()))),
                ("kind", Some(json!("LocalQueue"))),
                ("metadata", Some(json!({"name": n, "namespace": "team-a"}))),
                (
                    "spec",
                    Some(object(vec![
                        ("clusterQueue", cq.map(Value::from)),
                        ("stopPolicy", Some(json!(stop))),
                    ])),
                ),
                (
                    "status",
                    status.map(|(conds, reservation, usage, pending)| {
                        json!({"conditions": conds, "flavorsReservation": reservation,
                            usage_key: usage, "pendingWorkloads": pending,
                            "fairSharing": {"weightedShare": pending}})
                    }),
                ),
            ])
        })
}

fn cohort(version: KueueVersion) -> impl Strategy<Value = Value> {
    (name(), maybe(name()), resource_groups(), maybe(0i64..50)).prop_map(
        move |(n, parent, groups, share)| {
            object(vec![
                ("apiVersion", Some(json!(version.api_version()))),
                ("kind", Some(json!("Cohort"))),
                ("metadata", Some(json!({"name": n}))),
                (
                    "spec",
                    Some(object(vec![
                        ("parentName", parent.map(Value::from)),
                        ("resourceGroups", Some(groups)),
                    ])),
                ),
                (
                    "status",
                    share.map(|s| json!({"fairSharing": {"weightedShare": s}})),
                ),
            ])
        },
    )
}

fn domains() -> impl Strategy<Value = TopologyAssignment> {
    let hostnames = prop::collection::vec(
        (
            prop::sample::select(vec!["pool-a-", "pool-b-", "x-"]),
            0u32..40,
            1i32..4,
        ),
        0..8,
    );
    (any::<bool>(), hostnames).prop_map(|(hostname_level, hosts)| {
        let levels = if hostname_level {
            vec!["rack".to_string(), "kubernetes.io/hostname".to_string()]
        } else {
            vec!["rack".to_string(), "node".to_string()]
        };
        TopologyAssignment {
            levels,
            domains: hosts
                .into_iter()
                .map(|(prefix, n, count)| TopologyDomainAssignment {
                    values: vec![format!("r{}", n % 2), format!("{prefix}node-{n}")],
                    count,
                })
                .collect(),
        }
    })
}

/// A Workload both versions express: a priority class only with its source, no preemption
/// gates or multi-layer slice constraints.
fn workload(version: KueueVersion) -> impl Strategy<Value = Value> {
    let spec = (
        prop::collection::vec((name(), 0i32..5, maybe(1i32..3), quantity()), 1..3),
        maybe(name()),
        maybe((any::<bool>(), name())),
        maybe(-10i32..10),
        any::<bool>(),
        maybe(1i32..1000),
        maybe(name()),
    );
    let status = maybe((
        conditions(),
        maybe((name(), maybe(domains()))),
        maybe(0i32..100),
        maybe(name()),
        maybe(0i32..5),
    ));
    (name(), spec, status).prop_map(move |(n, spec, status)| {
        let (pod_sets, queue, class, priority, active, max_time, required) = spec;
        let pod_sets: Vec<Value> = pod_sets
            .into_iter()
            .enumerate()
            .map(|(i, (ps, count, min, cpu))| {
                object(vec![
                    ("name", Some(json!(format!("{ps}{i}")))),
                    ("count", Some(json!(count.max(min.unwrap_or(0))))),
                    ("minCount", min.map(Value::from)),
                    (
                        "template",
                        Some(json!({"spec": {"containers": [{"name": "c", "image": "i",
                            "resources": {"requests": {"cpu": cpu}}}]}})),
                    ),
                    (
                        "topologyRequest",
                        required.clone().map(|r| json!({"required": r, "podSetSliceSize": 2})),
                    ),
                ])
            })
            .collect();
        let (class_fields, priority) = match class {
            Some((wpc, class)) => {
                let priority = Some(json!(priority.unwrap_or(0)));
                if version == V1beta1 {
                    let source = if wpc {
                        "kueue.x-k8s.io/workloadpriorityclass"
                    } else {
                        "scheduling.k8s.io/priorityclass"
                    };
                    (
                        vec![
                            ("priorityClassName", Some(json!(class))),
                            ("priorityClassSource", Some(json!(source))),
                        ],
                        priority,
                    )
                } else {
                    let reference = if wpc {
                        json!({"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": class})
                    } else {
                        json!({"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": class})
                    };
                    (vec![("priorityClassRef", Some(reference))], priority)
                }
            }
            None => (Vec::new(), priority.map(Value::from)),
        };
        let first_pod_set = pod_sets[0]["name"].clone();
        let mut spec_fields = vec![
            ("podSets", Some(Value::Array(pod_sets))),
            ("queueName", queue.map(Value::from)),
            ("priority", priority),
            ("active", Some(json!(active))),
            ("maximumExecutionTimeSeconds", max_time.map(Value::from)),
        ];
        spec_fields.extend(class_fields);
        let status = status.map(|(conds, admission, elapsed, cluster, requeues)| {
            let admission = admission.map(|(cq, topology)| {
                let topology = topology.map(|t| {
                    if version == V1beta1 {
                        serde_json::to_value(&t).unwrap()
                    } else {
                        // v1beta2 documents carry upstream's encoding.
                        serde_json::to_value(convert::topology::to_v1beta2(&t)).unwrap()
                    }
                });
                json!({"clusterQueue": cq, "podSetAssignments": [object(vec![
                    ("name", Some(first_pod_set.clone())),
                    ("flavors", Some(json!({"cpu": "default"}))),
                    ("resourceUsage", Some(json!({"cpu": "2"}))),
                    ("count", Some(json!(1))),
                    ("topologyAssignment", topology),
                ])]})
            });
            let elapsed_key = if version == V1beta1 {
                "accumulatedPastExexcutionTimeSeconds"
            } else {
                "accumulatedPastExecutionTimeSeconds"
            };
            object(vec![
                ("conditions", Some(conds)),
                ("admission", admission),
                (elapsed_key, elapsed.map(Value::from)),
                ("clusterName", cluster.map(Value::from)),
                (
                    "requeueState",
                    requeues.map(|c| json!({"count": c, "requeueAt": "2025-07-22T10:00:00Z"})),
                ),
                (
                    "resourceRequests",
                    Some(json!([{"name": first_pod_set, "resources": {"cpu": "1"}}])),
                ),
            ])
        });
        object(vec![
            ("apiVersion", Some(json!(version.api_version()))),
            ("kind", Some(json!("Workload"))),
            (
                "metadata",
                Some(json!({"name": n, "namespace": "team-a", "uid": "u-1",
                    "annotations": {"a": "b"}})),
            ),
            ("spec", Some(object(spec_fields))),
            ("status", status),
        ])
    })
}

/// Reads `doc` as `A`, converts to `B` and back, and checks nothing changed (typed and as
/// JSON), and that the intermediate reads back as itself.
pub(crate) fn round_trip<A, B>(doc: &Value, there: fn(&A) -> B, back: fn(&B) -> A)
where
    A: DeserializeOwned + serde::Serialize + PartialEq + std::fmt::Debug,
    B: DeserializeOwned + serde::Serialize + PartialEq + std::fmt::Debug,
{
    let original: A = read(doc);
    let converted = there(&original);
    let reread: B = read(&serde_json::to_value(&converted).unwrap());
    assert_eq!(
        reread, converted,
        "the converted object reads back as itself"
    );
    let returned = back(&converted);
    assert_eq!(returned, original);
    assert_eq!(
        serde_json::to_value(&returned).unwrap(),
        serde_json::to_value(&original).unwrap()
    );
}

proptest! {
    #![proptest_config(crate::support::property_config(64))]

    #[test]
    fn cluster_queues_round_trip(v1 in cluster_queue(V1beta1), v2doc in cluster_queue(V1beta2)) {
        round_trip::<api::ClusterQueue, v2::ClusterQueue>(
            &v1, convert::cluster_queue::to_v1beta2, convert::cluster_queue::to_v1beta1);
        round_trip::<v2::ClusterQueue, api::ClusterQueue>(
            &v2doc, convert::cluster_queue::to_v1beta1, convert::cluster_queue::to_v1beta2);
    }

    #[test]
    fn local_queues_round_trip(v1 in local_queue(V1beta1), v2doc in local_queue(V1beta2)) {
        round_trip::<api::LocalQueue, v2::LocalQueue>(
            &v1, convert::local_queue::to_v1beta2, convert::local_queue::to_v1beta1);
        round_trip::<v2::LocalQueue, api::LocalQueue>(
            &v2doc, convert::local_queue::to_v1beta1, convert::local_queue::to_v1beta2);
    }

    #[test]
    fn cohorts_round_trip(v1 in cohort(V1beta1), v2doc in cohort(V1beta2)) {
        round_trip::<api::Cohort, v2::Cohort>(
            &v1, convert::cohort::to_v1beta2, convert::cohort::to_v1beta1);
        round_trip::<v2::Cohort, api::Cohort>(
            &v2doc, convert::cohort::to_v1beta1, convert::cohort::to_v1beta2);
    }

    #[test]
    fn workloads_round_trip(v1 in workload(V1beta1), v2doc in workload(V1beta2)) {
        round_trip::<api::Workload, v2::Workload>(
            &v1, convert::workload::to_v1beta2, convert::workload::to_v1beta1);
        round_trip::<v2::Workload, api::Workload>(
            &v2doc, convert::workload::to_v1beta1, convert::workload::to_v1beta2);
    }

    #[test]
    fn every_topology_encoding_expands_to_its_domains(ta in domains()) {
        let encoded = convert::topology::to_v1beta2(&ta);
        prop_assert!(convert::topology::check(&encoded, "t").is_ok() || ta.domains.is_empty());
        prop_assert_eq!(convert::topology::to_v1beta1(&encoded), ta);
    }
}

#[test]
fn flavors_and_priority_classes_round_trip() {
    let rf: api::ResourceFlavor = read(&json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "f"},
        "spec": {"nodeLabels": {"gpu": "a100"}, "nodeTaints": [{"key": "k", "effect": "NoSchedule"}],
            "tolerations": [{"key": "k", "operator": "Exists"}], "topologyName": "t"},
    }));
    assert_eq!(
        convert::resource_flavor::to_v1beta1(&convert::resource_flavor::to_v1beta2(&rf)),
        rf
    );
    let wpc: api::WorkloadPriorityClass = read(&json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
        "metadata": {"name": "p"}, "value": 5, "description": "d",
    }));
    assert_eq!(
        convert::workload_priority_class::to_v1beta1(
            &convert::workload_priority_class::to_v1beta2(&wpc)
        ),
        wpc
    );
}
