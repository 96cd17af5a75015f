//! run-controller on Workloads created directly (no Job), on a real API server: admission,
//! pending reasons with their Warning events, preemption within a ClusterQueue (a Workload
//! without pods gives its quota back as soon as its eviction is written), deactivation and
//! reactivation through `spec.active`, a ClusterQueue drained by `stopPolicy: HoldAndDrain`
//! and restarted, ClusterQueue/LocalQueue status, and a Job moving to another LocalQueue.
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use kube::api::{Api, Patch, PatchParams};
use kubectl_kueue::api::{ClusterQueue, LocalQueue, Workload};

const T: Duration = Duration::from_secs(30);

async fn apply(cluster: &Cluster, yaml: &str, ns: &str) {
    crate::support::apply::apply_yaml(&cluster.client(), yaml, ns)
        .await
        .unwrap();
}

fn workload(ns: &str, name: &str, cpu: u32, priority: Option<(&str, i32)>) -> String {
    let prio = priority.map(|(c, v)| format!("\n  priorityClassName: {c}\n  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass\n  priority: {v}")).unwrap_or_default();
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: {ns}}}
spec:
  queueName: lq{prio}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: x
          resources: {{requests: {{cpu: '{cpu}'}}}}
"
    )
}

async fn get(client: &kube::Client, ns: &str, name: &str) -> Workload {
    Api::<Workload>::namespaced(client.clone(), ns)
        .get(name)
        .await
        .unwrap()
}

async fn events_of(client: &kube::Client, ns: &str, name: &str) -> Vec<(String, String, String)> {
    Api::<k8s_openapi::api::events::v1::Event>::namespaced(client.clone(), ns)
        .list(&Default::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
        .map(|e| {
            (
                e.type_.unwrap_or_default(),
                e.reason.unwrap_or_default(),
                e.note.unwrap_or_default(),
            )
        })
        .collect()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_workloads_pending_preempted_deactivated() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("plain").await;
    apply(
        &cluster,
        &format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  preemption: {{withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 4}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
        ),
        &ns,
    )
    .await;
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);

    apply(&cluster, &workload(&ns, "low-1", 2, Some(("low", 10))), &ns).await;
    tokio::time::sleep(Duration::from_millis(1100)).await; // distinct admission times
    apply(&cluster, &workload(&ns, "low-2", 2, Some(("low", 10))), &ns).await;
    for name in ["low-1", "low-2"] {
        eventually(Some(&cluster), T, &format!("{name} admitted"), || async {
            holds_quota(&get(&client, &ns, name).await).then_some(())
        })
        .await;
    }
    let w = get(&client, &ns, "low-1").await;
    assert_eq!(
        cond(&w, "QuotaReserved").unwrap().2,
        "Quota reserved in ClusterQueue cq"
    );
    assert_eq!(cond(&w, "Admitted").unwrap().1, "Admitted");
    let adm = w.status.unwrap().admission.unwrap();
    assert_eq!(adm.pod_set_assignments[0].flavors["cpu"], "default-flavor");
    assert_eq!(adm.pod_set_assignments[0].resource_usage["cpu"].0, "2");

    // Full: the next one waits, with upstream's reason, message, requests and a Warning event.
    apply(&cluster, &workload(&ns, "pending", 1, None), &ns).await;
    let message = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 more needed";
    let w = eventually(
        Some(&cluster),
        T,
        "pending with WaitingForQuota",
        || async {
            let w = get(&client, &ns, "pending").await;
            (cond(&w, "QuotaReserved").is_some_and(|c| c.1 == "WaitingForQuota")).then_some(w)
        },
    )
    .await;
    assert_eq!(
        cond(&w, "QuotaReserved").unwrap(),
        ("False".into(), "WaitingForQuota".into(), message.into())
    );
    assert_eq!(cond(&w, "Admitted").unwrap().1, "NoReservation");
    assert_eq!(
        w.status.unwrap().resource_requests[0].resources["cpu"].0,
        "1"
    );
    eventually(Some(&cluster), T, "a Warning event", || async {
        events_of(&client, &ns, "pending")
            .await
            .iter()
            .any(|(t, r, n)| t == "Warning" && r == "WaitingForQuota" && n == message)
            .then_some(())
    })
    .await;

    // A higher priority preempts the most recently admitted lower one, which gives its
    // quota back at once (no pods to wait for).
    apply(
        &cluster,
        &workload(&ns, "high", 2, Some(("high", 100))),
        &ns,
    )
    .await;
    eventually(Some(&cluster), T, "high admitted", || async {
        holds_quota(&get(&client, &ns, "high").await).then_some(())
    })
    .await;
    let victim = get(&client, &ns, "low-2").await;
    assert!(!holds_quota(&victim));
    let (_, reason, msg) = cond(&victim, "Preempted").unwrap();
    assert_eq!(reason, "InClusterQueue");
    assert!(
        msg.contains(
            "due to prioritization in the ClusterQueue; preemptor path: /cq; preemptee path: /cq"
        ),
        "{msg}"
    );
    assert_eq!(cond(&victim, "Evicted").unwrap().1, "Preempted");
    assert_eq!(
        cond(&victim, "Requeued").unwrap(),
        ("True".into(), "Preempted".into(), msg.clone())
    );
    assert_eq!(cond(&victim, "QuotaReserved").unwrap().0, "False");
    assert!(
        holds_quota(&get(&client, &ns, "low-1").await),
        "the older one stays"
    );

    let cq = eventually(Some(&cluster), T, "ClusterQueue status", || async {
        let cq = Api::<ClusterQueue>::all(client.clone())
            .get("cq")
            .await
            .ok()?;
        let st = cq.status?;
        (st.admitted_workloads == 2 && st.pending_workloads == 2).then_some(st)
    })
    .await;
    let usage = &cq.flavors_usage[0].resources[0];
    assert_eq!(
        (
            usage.name.as_str(),
            usage.total.as_ref().unwrap().0.as_str()
        ),
        ("cpu", "4")
    );
    let lq = eventually(Some(&cluster), T, "LocalQueue status", || async {
        let lq = Api::<LocalQueue>::namespaced(client.clone(), &ns)
            .get("lq")
            .await
            .ok()?;
        let st = lq.status?;
        (st.admitted_workloads == 2 && st.pending_workloads == 2).then_some(st)
    })
    .await;
    assert!(
        lq.conditions
            .iter()
            .any(|c| c.type_ == "Active" && c.status == "True")
    );

    // Deactivated: evicted, quota back, not requeued; reactivated: queued again.
    let patch = |active: bool| Patch::Merge(serde_json::json!({ "spec": { "active": active } }));
    Api::<Workload>::namespaced(client.clone(), &ns)
        .patch("high", &PatchParams::default(), &patch(false))
        .await
        .unwrap();
    let w = eventually(
        Some(&cluster),
        T,
        "high deactivated and released",
        || async {
            let w = get(&client, &ns, "high").await;
            (!holds_quota(&w) && cond(&w, "Evicted").is_some_and(|c| c.1 == "Deactivated"))
                .then_some(w)
        },
    )
    .await;
    assert_eq!(
        cond(&w, "Evicted").unwrap().2,
        "The workload is deactivated"
    );
    assert_eq!(
        cond(&w, "Requeued").unwrap(),
        (
            "False".into(),
            "Deactivated".into(),
            "The workload is deactivated".into()
        )
    );
    eventually(
        Some(&cluster),
        T,
        "the freed quota admitted the preempted one",
        || async { holds_quota(&get(&client, &ns, "low-2").await).then_some(()) },
    )
    .await;
    Api::<Workload>::namespaced(client.clone(), &ns)
        .patch("high", &PatchParams::default(), &patch(true))
        .await
        .unwrap();
    eventually(
        Some(&cluster),
        T,
        "high reactivated and admitted again (preempting)",
        || async {
            let w = get(&client, &ns, "high").await;
            (cond(&w, "Requeued").is_some_and(|c| c.0 == "True" && c.1 == "Reactivated")
                && holds_quota(&w))
            .then_some(())
        },
    )
    .await;

    // A ClusterQueue stopped with HoldAndDrain drains: its Workloads are evicted
    // (ClusterQueueStopped) and not requeued until it runs again.
    let cqs = Api::<ClusterQueue>::all(client.clone());
    let stop = |policy: &str| Patch::Merge(serde_json::json!({ "spec": { "stopPolicy": policy } }));
    cqs.patch("cq", &PatchParams::default(), &stop("HoldAndDrain"))
        .await
        .unwrap();
    for name in ["high", "low-1"] {
        let w = eventually(Some(&cluster), T, &format!("{name} drained"), || async {
            let w = get(&client, &ns, name).await;
            (!holds_quota(&w) && cond(&w, "Requeued").is_some_and(|c| c.0 == "False")).then_some(w)
        })
        .await;
        assert_eq!(
            cond(&w, "Evicted").unwrap(),
            (
                "True".into(),
                "ClusterQueueStopped".into(),
                "The ClusterQueue is stopped".into()
            )
        );
        assert_eq!(cond(&w, "Requeued").unwrap().1, "ClusterQueueStopped");
    }
    cqs.patch("cq", &PatchParams::default(), &stop("None"))
        .await
        .unwrap();
    eventually(Some(&cluster), T, "the queue runs again", || async {
        let w = get(&client, &ns, "high").await;
        let requeued = cond(&w, "Requeued")?;
        (requeued.0 == "True" && requeued.1 == "ClusterQueueRestarted" && holds_quota(&w))
            .then_some(())
    })
    .await;

    // A Workload whose LocalQueue does not exist says so.
    apply(
        &cluster,
        &workload(&ns, "lost", 1, None).replace("queueName: lq", "queueName: nope"),
        &ns,
    )
    .await;
    let w = eventually(
        Some(&cluster),
        T,
        "the missing LocalQueue reported",
        || async {
            let w = get(&client, &ns, "lost").await;
            cond(&w, "QuotaReserved").is_some().then_some(w)
        },
    )
    .await;
    assert_eq!(
        cond(&w, "QuotaReserved").unwrap(),
        (
            "False".into(),
            "Misconfigured".into(),
            "LocalQueue nope doesn't exist".into()
        )
    );
    assert!(ctl.proc.exited().is_none());
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_job_moved_to_another_queue_takes_its_workload_along() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("move").await;
    let queues = |name: &str, cpu: u32| {
        format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: {cpu}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: {name}, namespace: {ns}}}
spec: {{clusterQueue: {name}}}
"
        )
    };
    apply(&cluster, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n", &ns).await;
    apply(&cluster, &queues("small", 1), &ns).await;
    apply(&cluster, &queues("big", 8), &ns).await;
    let job = |queue: &str| {
        format!(
            "apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: {ns}
  labels: {{kueue.x-k8s.io/queue-name: {queue}}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: '4'}}}}}}]
"
        )
    };
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    apply(&cluster, &job("small"), &ns).await;
    let w = eventually(
        Some(&cluster),
        T,
        "the Job's Workload waits in the small queue",
        || async {
            let w = workloads(&client, &ns).await.into_iter().next()?;
            cond(&w, "QuotaReserved")
                .is_some_and(|c| c.1 == "ExceedsMaxQuota")
                .then_some(w)
        },
    )
    .await;
    assert_eq!(w.spec.queue_name.as_deref(), Some("small"));
    // Its pod template changed while it waits, in a part upstream compares (tolerations; not
    // the node selector): the Workload follows (upstream's UpdatedWorkload).
    let jobs = Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), &ns);
    let select = Patch::Merge(serde_json::json!({ "spec": { "template": { "spec": {
        "tolerations": [{ "key": "disk", "operator": "Exists", "effect": "NoSchedule" }]
    } } } }));
    jobs.patch("train", &PatchParams::default(), &select)
        .await
        .unwrap();
    eventually(
        Some(&cluster),
        T,
        "the Workload's podSet updated",
        || async {
            let w = workloads(&client, &ns).await.into_iter().next()?;
            let tolerations = w.spec.pod_sets[0]
                .template
                .spec
                .as_ref()?
                .tolerations
                .clone()?;
            tolerations
                .iter()
                .any(|t| t.key.as_deref() == Some("disk"))
                .then_some(())
        },
    )
    .await;
    apply(&cluster, &job("big"), &ns).await;
    let w = eventually(
        Some(&cluster),
        T,
        "the Workload follows the Job to the big queue and is admitted",
        || async {
            let w = workloads(&client, &ns).await.into_iter().next()?;
            (w.spec.queue_name.as_deref() == Some("big") && holds_quota(&w)).then_some(w)
        },
    )
    .await;
    let adm = w.status.unwrap().admission.unwrap();
    assert_eq!(adm.cluster_queue, "big");
    assert_eq!(adm.pod_set_assignments[0].resource_usage["cpu"].0, "4");
    eventually(Some(&cluster), T, "the Job started", || async {
        let j = Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), &ns)
            .get("train")
            .await
            .ok()?;
        (j.spec?.suspend == Some(false)).then_some(())
    })
    .await;
    assert!(ctl.proc.exited().is_none());
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admission_the_api_server_refuses_gives_the_quota_back() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("refused").await;
    // The API server refuses any admission of the Workload named `poison`.
    apply(
        &cluster,
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-poison}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [kueue.x-k8s.io]
      apiVersions: [v1beta1]
      operations: [UPDATE]
      resources: [workloads/status]
  validations:
  - expression: \"object.metadata.name != 'poison' || !has(object.status.admission)\"
    message: poison may not be admitted
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-poison}
spec:
  policyName: no-poison
  validationActions: [Deny]
",
        &ns,
    )
    .await;
    apply(
        &cluster,
        &format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 2}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
        ),
        &ns,
    )
    .await;
    apply(
        &cluster,
        &workload(&ns, "poison", 2, Some(("high", 100))),
        &ns,
    )
    .await;
    // Policies take a moment to load: wait until a (dry-run) admission of poison is refused.
    let admission = serde_json::json!({
        "status": { "admission": { "clusterQueue": "cq", "podSetAssignments": [{ "name": "main", "flavors": { "cpu": "default-flavor" }, "resourceUsage": { "cpu": "2" }, "count": 1 }] } }
    });
    let wls = Api::<Workload>::namespaced(client.clone(), &ns);
    let dry_run = PatchParams {
        dry_run: true,
        ..Default::default()
    };
    eventually(Some(&cluster), T, "the policy in effect", || async {
        wls.patch_status("poison", &dry_run, &Patch::Merge(&admission))
            .await
            .is_err()
            .then_some(())
    })
    .await;
    let mut ctl = start_controller(&cluster, "controller", &[]);
    ctl.wait_ready(T);
    eventually(
        Some(&cluster),
        T,
        "the refusal seen by the controller",
        || async {
            ctl.log()
                .contains("Could not admit Workload and assign flavors in apiserver")
                .then_some(())
        },
    )
    .await;
    // The quota the refused admission held goes back: another Workload gets it.
    apply(&cluster, &workload(&ns, "good", 2, None), &ns).await;
    eventually(Some(&cluster), T, "good admitted", || async {
        holds_quota(&get(&client, &ns, "good").await).then_some(())
    })
    .await;
    let poison = get(&client, &ns, "poison").await;
    assert!(!holds_quota(&poison));
    assert!(ctl.proc.exited().is_none());
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manage_jobs_without_queue_name_holds_unlabelled_jobs_outside_system_namespaces() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let ns = cluster.new_namespace("unlabelled").await;
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nmanageJobsWithoutQueueName: true\n").unwrap();
    let mut ctl = start_controller(
        &cluster,
        "controller",
        &["--config", config.path().to_str().unwrap()],
    );
    ctl.wait_ready(T);
    let job = |ns: &str| {
        format!(
            "apiVersion: batch/v1
kind: Job
metadata: {{name: plain, namespace: {ns}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]
"
        )
    };
    apply(&cluster, &job(&ns), &ns).await;
    apply(&cluster, &job("kube-system"), "kube-system").await;
    let jobs = |ns: &str| Api::<k8s_openapi::api::batch::v1::Job>::namespaced(client.clone(), ns);
    eventually(
        Some(&cluster),
        T,
        "the unlabelled Job held, with a Workload",
        || async {
            let j = jobs(&ns).get("plain").await.ok()?;
            (j.spec?.suspend == Some(true) && !workloads(&client, &ns).await.is_empty())
                .then_some(())
        },
    )
    .await;
    // Upstream's default managedJobsNamespaceSelector leaves kube-system alone.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let system = jobs("kube-system").get("plain").await.unwrap();
    assert_ne!(
        system.spec.unwrap().suspend,
        Some(true),
        "a kube-system Job is not managed"
    );
    assert!(workloads(&client, "kube-system").await.is_empty());
    assert!(ctl.proc.exited().is_none());
}
