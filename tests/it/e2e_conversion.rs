//! The CRDs serving v1beta1 and v1beta2 (stored) on the real control plane, converted by
//! `run-controller`'s webhook (reached at a `clientConfig.url` on 127.0.0.1: the test control
//! plane has no Service network):
//! - objects written in either version read back in both, the certificate in its Secret and
//!   the CA injected into the CRDs; a second replica serves the same pair; the controller
//!   admits a Workload written as v1beta2 (its watches and writes go through the webhook);
//!   with the webhook down, the user commands still read (v1beta2, no conversion);
//! - an install with the v1beta1-only CRDs (what `install` created before) upgraded in place:
//!   every stored object reads back unchanged as v1beta1, and as v1beta2; rewritten (stored as
//!   v1beta2) it still reads back unchanged as v1beta1; `status.storedVersions` keeps v1beta1.
#![cfg(feature = "cli")]

use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::{Value, json};

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::process::free_port;

const T: Duration = Duration::from_secs(30);

fn api(cluster: &Cluster, version: &str, kind: &str, ns: Option<&str>) -> Api<DynamicObject> {
    let plural = match kind {
        "ClusterQueue" => "clusterqueues",
        "Cohort" => "cohorts",
        "LocalQueue" => "localqueues",
        "ResourceFlavor" => "resourceflavors",
        "WorkloadPriorityClass" => "workloadpriorityclasses",
        "Workload" => "workloads",
        other => panic!("not a Kueue kind: {other}"),
    };
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("kueue.x-k8s.io", version, kind),
        plural,
    );
    match ns {
        Some(ns) => Api::namespaced_with(cluster.client(), ns, &ar),
        None => Api::all_with(cluster.client(), &ar),
    }
}

async fn create(cluster: &Cluster, object: Value) -> Value {
    let version = object["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let kind = object["kind"].as_str().unwrap();
    let ns = object["metadata"]["namespace"].as_str();
    let obj: DynamicObject = serde_json::from_value(object.clone()).unwrap();
    let created = api(cluster, version, kind, ns)
        .create(&PostParams::default(), &obj)
        .await
        .unwrap_or_else(|e| panic!("create {kind} as {version}: {e}"));
    serde_json::to_value(created).unwrap()
}

async fn get(cluster: &Cluster, version: &str, kind: &str, ns: Option<&str>, name: &str) -> Value {
    let got = api(cluster, version, kind, ns)
        .get(name)
        .await
        .unwrap_or_else(|e| panic!("get {kind} {name} as {version}: {e}"));
    serde_json::to_value(got).unwrap()
}

/// Installs the CRDs with the webhook at `https://127.0.0.1:<port>/convert` (and the RBAC,
/// policy) and starts a controller serving it; returns once a v1beta2 read of a v1beta1
/// object converts.
async fn install_and_serve(cluster: &Cluster, port: u16, name: &str, extra: &[&str]) -> Controller {
    let url = format!("https://127.0.0.1:{port}/convert");
    kubectl(
        cluster,
        &[
            "kueue",
            "install",
            "--without-controller",
            "--webhook-url",
            &url,
        ],
    );
    let port = port.to_string();
    let mut args = vec!["--webhook-port", port.as_str()];
    args.extend(extra);
    // As the installed ServiceAccount: its roles must let it fill the Secret and patch the CRDs.
    let ctl = start_installed_controller(cluster, name, &args);
    wait_converting(cluster).await;
    ctl
}

async fn wait_converting(cluster: &Cluster) {
    let client = cluster.client();
    eventually(Some(cluster), T, "the CRDs trust the webhook's CA", || {
        let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
        async move {
            for name in ["clusterqueues", "cohorts", "localqueues", "workloads"] {
                let crd = crds.get(&format!("{name}.kueue.x-k8s.io")).await.ok()?;
                crd.spec.conversion?.webhook?.client_config?.ca_bundle?;
            }
            Some(())
        }
    })
    .await;
}

fn ca_bundle(crd: &CustomResourceDefinition) -> Vec<u8> {
    crd.spec
        .conversion
        .clone()
        .and_then(|c| c.webhook)
        .and_then(|w| w.client_config)
        .and_then(|c| c.ca_bundle)
        .map(|b| b.0)
        .unwrap_or_default()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_written_in_either_version_read_back_in_both() {
    let cluster = ClusterBuilder::apiserver().start();
    let port = free_port();
    let mut ctl = install_and_serve(&cluster, port, "conversion", &[]).await;
    ctl.wait_ready(T);
    let ns = cluster.new_namespace("conv").await;

    // v1beta1 in, v1beta2 out.
    create(
        &cluster,
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
            "metadata": { "name": "default" },
        }),
    )
    .await;
    create(&cluster, json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
        "metadata": { "name": "cq" },
        "spec": {
            "cohort": "all",
            "namespaceSelector": {},
            "resourceGroups": [{ "coveredResources": ["cpu"], "flavors": [{ "name": "default", "resources": [{ "name": "cpu", "nominalQuota": "4" }] }] }],
        },
    }))
    .await;
    let cq2 = get(&cluster, "v1beta2", "ClusterQueue", None, "cq").await;
    assert_eq!(cq2["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(cq2["spec"]["cohortName"], "all", "{cq2}");
    assert!(cq2["spec"].get("cohort").is_none());

    // v1beta2 in, v1beta1 out.
    create(
        &cluster,
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": { "name": "lq", "namespace": ns },
            "spec": { "clusterQueue": "cq" },
        }),
    )
    .await;
    create(
        &cluster,
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
            "metadata": { "name": "high" }, "value": 1000,
        }),
    )
    .await;
    create(&cluster, json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": { "name": "wl", "namespace": ns },
        "spec": {
            "queueName": "lq",
            "priorityClassRef": { "group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high" },
            "priority": 1000,
            "podSets": [{ "name": "main", "count": 2, "template": { "spec": {
                "restartPolicy": "Never",
                "containers": [{ "name": "c", "image": "x", "resources": { "requests": { "cpu": "1" } } }],
            } } }],
        },
    }))
    .await;
    let wl1 = get(&cluster, "v1beta1", "Workload", Some(&ns), "wl").await;
    assert_eq!(wl1["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(wl1["spec"]["priorityClassName"], "high", "{wl1}");
    assert_eq!(
        wl1["spec"]["priorityClassSource"],
        "kueue.x-k8s.io/workloadpriorityclass"
    );
    assert!(wl1["spec"].get("priorityClassRef").is_none());
    let lq1 = get(&cluster, "v1beta1", "LocalQueue", Some(&ns), "lq").await;
    assert_eq!(lq1["spec"]["clusterQueue"], "cq");

    // The controller (reading and writing v1beta1 through the webhook) admits the v1beta2
    // Workload; its status reads back as v1beta2.
    let admitted = eventually(
        Some(&cluster),
        T,
        "the v1beta2 Workload is admitted",
        || {
            let cluster = &cluster;
            let ns = ns.clone();
            async move {
                let wl = get(cluster, "v1beta2", "Workload", Some(&ns), "wl").await;
                let conditions = wl["status"]["conditions"].as_array()?.clone();
                conditions
                    .iter()
                    .any(|c| c["type"] == "Admitted" && c["status"] == "True")
                    .then_some(wl)
            }
        },
    )
    .await;
    assert_eq!(
        admitted["status"]["admission"]["clusterQueue"], "cq",
        "{admitted}"
    );
    assert_eq!(
        admitted["spec"]["priorityClassRef"]["name"], "high",
        "the v1beta1 status write kept the v1beta2 spec"
    );

    // The pair is in the Secret; a second replica serves the same one.
    let secrets: Api<Secret> = Api::namespaced(cluster.client(), "kueue-system");
    let secret = secrets.get("kueue-webhook-server-cert").await.unwrap();
    let data = secret.data.clone().unwrap();
    for key in ["ca.crt", "ca.key", "tls.crt", "tls.key"] {
        assert!(data.get(key).is_some_and(|v| !v.0.is_empty()), "{key}");
    }
    let crds: Api<CustomResourceDefinition> = Api::all(cluster.client());
    let bundle = ca_bundle(&crds.get("workloads.kueue.x-k8s.io").await.unwrap());
    assert_eq!(bundle, data["ca.crt"].0, "the CA injected is the Secret's");
    let mut second = start_controller(
        &cluster,
        "conversion-2",
        &["--leader-elect", "--webhook-port", &free_port().to_string()],
    );
    second.wait_ready(T);
    let again = secrets.get("kueue-webhook-server-cert").await.unwrap();
    assert_eq!(
        again.data, secret.data,
        "the second replica reused the pair"
    );
    assert_eq!(
        ca_bundle(&crds.get("workloads.kueue.x-k8s.io").await.unwrap()),
        bundle
    );
    assert!(
        second
            .log()
            .contains("serving the conversion webhook over HTTPS"),
        "{}",
        second.log()
    );

    // With every webhook down, the user commands still read: they read v1beta2, the stored
    // version, which needs no conversion. (Writes still do: the validation policies judge
    // v1beta1 objects, so the API server converts to evaluate them.)
    drop(second);
    drop(ctl);
    let cqs = crate::support::live::ok(&cluster, &["list", "clusterqueue"]);
    assert!(cqs.contains("cq"), "{cqs}");
    let wls = crate::support::live::ok(&cluster, &["list", "workload", "-n", &ns]);
    assert!(wls.contains("wl"), "{wls}");
    let status = crate::support::live::ok(&cluster, &["status"]);
    assert!(status.contains("cq"), "{status}");
}

/// Objects of every kind, in v1beta1, with fields both versions express.
fn v1beta1_objects(ns: &str) -> Vec<Value> {
    vec![
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
            "metadata": { "name": "a100", "labels": { "team": "ml" } },
            "spec": { "nodeLabels": { "gpu": "a100" }, "tolerations": [{ "key": "gpu", "operator": "Exists", "effect": "NoSchedule" }] },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort",
            "metadata": { "name": "all" },
            "spec": { "resourceGroups": [{ "coveredResources": ["nvidia.com/gpu"], "flavors": [{ "name": "a100", "resources": [{ "name": "nvidia.com/gpu", "nominalQuota": "2" }] }] }] },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": { "name": "team-a", "annotations": { "note": "kept" } },
            "spec": {
                "cohort": "all",
                "namespaceSelector": { "matchLabels": { "team": "a" } },
                "queueingStrategy": "StrictFIFO",
                "preemption": { "reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority" },
                "resourceGroups": [{ "coveredResources": ["nvidia.com/gpu"], "flavors": [{ "name": "a100", "resources": [{ "name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "2" }] }] }],
            },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": { "name": "lq", "namespace": ns },
            "spec": { "clusterQueue": "team-a", "stopPolicy": "Hold" },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
            "metadata": { "name": "high" }, "value": 1000, "description": "urgent",
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": { "name": "train", "namespace": ns, "labels": { "app": "train" } },
            "spec": {
                "queueName": "lq",
                "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
                "priorityClassName": "high",
                "priority": 1000,
                "active": false,
                "podSets": [{ "name": "main", "count": 3, "template": { "spec": {
                    "restartPolicy": "Never",
                    "containers": [{ "name": "c", "image": "x", "resources": { "requests": { "nvidia.com/gpu": "1" } } }],
                } } }],
            },
        }),
    ]
}

/// What an object holds besides server bookkeeping (which a rewrite changes).
fn content(object: &Value) -> Value {
    let mut o = object.clone();
    let map = o.as_object_mut().unwrap();
    map.remove("apiVersion");
    let meta = map.get_mut("metadata").unwrap().as_object_mut().unwrap();
    for k in ["resourceVersion", "managedFields", "generation"] {
        meta.remove(k);
    }
    o
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrading_from_v1beta1_only_crds_keeps_every_object() {
    let cluster = ClusterBuilder::apiserver().start();
    crate::support::apply::install_crds(
        &cluster.client(),
        &repo_path("examples/deploy/crds-v1beta1"),
    )
    .await
    .unwrap();
    let ns = cluster.new_namespace("upgrade").await;
    let mut before = Vec::new();
    for object in v1beta1_objects(&ns) {
        before.push(create(&cluster, object).await);
    }

    // Statuses as a controller wrote them, renamed fields among them.
    let status = |kind: &str, name: &str, body: Value| {
        let (cluster, ns) = (&cluster, ns.clone());
        let (kind, name) = (kind.to_string(), name.to_string());
        async move {
            let ns = (kind != "ClusterQueue").then_some(ns.as_str());
            let patched = api(cluster, "v1beta1", &kind, ns)
                .patch_status(
                    &name,
                    &PatchParams::default(),
                    &Patch::Merge(&json!({ "status": body })),
                )
                .await
                .unwrap_or_else(|e| panic!("status of {kind} {name}: {e}"));
            serde_json::to_value(patched).unwrap()
        }
    };
    let condition = |t: &str| json!({ "type": t, "status": "True", "reason": "Test", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z" });
    before[3] = status("LocalQueue", "lq", json!({
        "pendingWorkloads": 1, "admittedWorkloads": 0, "reservingWorkloads": 0,
        "conditions": [condition("Active")],
        "flavorUsage": [{ "name": "a100", "resources": [{ "name": "nvidia.com/gpu", "total": "0" }] }],
    }))
    .await;
    before[5] = status(
        "Workload",
        "train",
        json!({
            "conditions": [condition("Requeued")],
            "accumulatedPastExexcutionTimeSeconds": 42,
        }),
    )
    .await;

    // The webhook from a replica that never leads (the Lease is someone else's), so nothing
    // but the upgrade touches the objects.
    crate::support::apply::apply_yaml(
        &cluster.client(),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: kueue-system}\n---\napiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: c1f6bfd2.kueue.x-k8s.io, namespace: kueue-system}\nspec: {holderIdentity: someone-else, leaseDurationSeconds: 3600, renewTime: '2099-01-01T00:00:00.000000Z'}\n",
        "default",
    )
    .await
    .unwrap();
    let port = free_port();
    let _ctl = install_and_serve(&cluster, port, "upgrade", &["--leader-elect", "--force"]).await;
    let crds: Api<CustomResourceDefinition> = Api::all(cluster.client());
    for old in &before {
        let kind = old["kind"].as_str().unwrap();
        let name = old["metadata"]["name"].as_str().unwrap();
        let on = old["metadata"]["namespace"].as_str();
        let v1 = get(&cluster, "v1beta1", kind, on, name).await;
        assert_eq!(
            content(&v1),
            content(old),
            "{kind} {name} read as v1beta1 after the upgrade"
        );
        let v2 = get(&cluster, "v1beta2", kind, on, name).await;
        assert_eq!(v2["metadata"]["uid"], old["metadata"]["uid"]);
        // Rewritten through v1beta2: now stored as v1beta2, still the same as v1beta1.
        let obj: DynamicObject = serde_json::from_value(v2.clone()).unwrap();
        api(&cluster, "v1beta2", kind, on)
            .replace(name, &PostParams::default(), &obj)
            .await
            .unwrap_or_else(|e| panic!("rewrite {kind} {name} as v1beta2: {e}"));
        let back = get(&cluster, "v1beta1", kind, on, name).await;
        assert_eq!(
            content(&back),
            content(old),
            "{kind} {name} stored as v1beta2, read as v1beta1"
        );
    }
    let v2_cq = get(&cluster, "v1beta2", "ClusterQueue", None, "team-a").await;
    assert_eq!(v2_cq["spec"]["cohortName"], "all");
    let v2_wl = get(&cluster, "v1beta2", "Workload", Some(&ns), "train").await;
    assert_eq!(v2_wl["spec"]["priorityClassRef"]["name"], "high");
    for name in ["clusterqueues", "workloads", "resourceflavors"] {
        let crd = crds.get(&format!("{name}.kueue.x-k8s.io")).await.unwrap();
        let versions: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            versions,
            ["v1beta1", "v1beta2"],
            "{name}: v1beta1 is never dropped"
        );
        let stored = crd
            .status
            .and_then(|s| s.stored_versions)
            .unwrap_or_default();
        assert_eq!(
            stored,
            ["v1beta1", "v1beta2"],
            "{name}: storedVersions keeps v1beta1"
        );
    }
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_serving_only_v1beta2_is_read_and_written_and_the_controller_says_why_it_cannot_run()
 {
    use kubectl_kueue::api::crd::{crd_yaml, crds};
    let cluster = ClusterBuilder::apiserver().start();
    // A future upstream's CRDs: v1beta2 only, no conversion.
    let dir = tempfile::tempdir().unwrap();
    for mut crd in crds() {
        crd.spec.versions.retain(|v| v.name == "v1beta2");
        crd.spec.conversion = None;
        let file = dir.path().join(format!("{}.yaml", crd.spec.names.plural));
        std::fs::write(file, crd_yaml(&crd)).unwrap();
    }
    crate::support::apply::install_crds(&cluster.client(), dir.path())
        .await
        .unwrap();
    let ns = cluster.new_namespace("v2only").await;
    for object in [
        json!({ "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": { "name": "default" } }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": { "name": "cq-v2" },
            "spec": {
                "cohortName": "all", "namespaceSelector": {},
                "resourceGroups": [{ "coveredResources": ["cpu"], "flavors": [{ "name": "default", "resources": [{ "name": "cpu", "nominalQuota": "4" }] }] }],
            },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": { "name": "lq-v2", "namespace": ns }, "spec": { "clusterQueue": "cq-v2" },
        }),
        json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": { "name": "wl-v2", "namespace": ns },
            "spec": { "queueName": "lq-v2", "podSets": [{ "name": "main", "count": 1, "template": { "spec": {
                "restartPolicy": "Never",
                "containers": [{ "name": "c", "image": "x", "resources": { "requests": { "cpu": "1" } } }],
            } } }] },
        }),
    ] {
        create(&cluster, object).await;
    }
    let status = crate::support::live::ok(&cluster, &["status"]);
    assert!(status.contains("cq-v2"), "{status}");
    let explain = crate::support::live::ok(&cluster, &["explain", "-n", &ns, "workload/wl-v2"]);
    assert!(explain.contains("cq-v2"), "{explain}");

    // The commands that list, create and change objects go to v1beta2 too.
    let live = |args: &[&str]| crate::support::live::ok(&cluster, args);
    let cqs = live(&["list", "clusterqueue"]);
    assert!(cqs.contains("cq-v2"), "{cqs}");
    let wls = live(&["list", "workload", "-n", &ns]);
    assert!(wls.contains("wl-v2"), "{wls}");
    live(&[
        "create",
        "localqueue",
        "lq-new",
        "-n",
        &ns,
        "--clusterqueue",
        "cq-v2",
    ]);
    let lq = get(&cluster, "v1beta2", "LocalQueue", Some(&ns), "lq-new").await;
    assert_eq!(lq["spec"]["clusterQueue"], "cq-v2");
    let lqs = live(&["list", "localqueue", "-n", &ns]);
    assert!(lqs.contains("lq-new") && lqs.contains("lq-v2"), "{lqs}");
    live(&[
        "create",
        "clusterqueue",
        "cq-new",
        "--cohort",
        "all",
        "--nominal-quota",
        "default:cpu=2",
    ]);
    let cq = get(&cluster, "v1beta2", "ClusterQueue", None, "cq-new").await;
    assert_eq!(
        cq["spec"]["cohortName"], "all",
        "v1beta1's cohort is v1beta2's cohortName: {cq}"
    );
    assert_eq!(
        cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"],
        "2"
    );
    live(&["stop", "clusterqueue", "cq-v2"]);
    let stopped = get(&cluster, "v1beta2", "ClusterQueue", None, "cq-v2").await;
    assert_eq!(stopped["spec"]["stopPolicy"], "HoldAndDrain");
    live(&["resume", "clusterqueue", "cq-v2"]);
    let resumed = get(&cluster, "v1beta2", "ClusterQueue", None, "cq-v2").await;
    assert_eq!(resumed["spec"]["stopPolicy"], "None");
    live(&["stop", "workload", "wl-v2", "-n", &ns]);
    let inactive = get(&cluster, "v1beta2", "Workload", Some(&ns), "wl-v2").await;
    assert_eq!(inactive["spec"]["active"], false);
    live(&["delete", "workload", "wl-v2", "-n", &ns, "--yes"]);
    eventually(Some(&cluster), T, "the Workload deleted", || async {
        api(&cluster, "v1beta2", "Workload", Some(&ns))
            .get_opt("wl-v2")
            .await
            .unwrap()
            .is_none()
            .then_some(())
    })
    .await;

    let mut ctl = start_controller(&cluster, "v2only", &[]);
    let exit = ctl.wait_exit(T).expect("the controller exits");
    assert_eq!(exit.code(), Some(1), "{}", ctl.log());
    assert!(
        ctl.log()
            .contains("the cluster serves kueue.x-k8s.io v1beta2 but not v1beta1"),
        "{}",
        ctl.log()
    );
}
