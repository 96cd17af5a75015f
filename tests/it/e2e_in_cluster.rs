//! The controller as it runs in a cluster: the image `scripts/image.sh` builds, started by a
//! kubelet stand-in (`support::pod`) from the pod template of the Deployment that
//! `kubectl kueue install --image` created, as the API server holds it: the in-cluster
//! configuration (the service account's token, CA and namespace at the standard path,
//! `KUBERNETES_SERVICE_HOST/PORT`), the ConfigMap as its `--config`, user 65532, a read-only
//! root filesystem, `no_new_privs`, and exactly the installed RBAC.
//!
//! The test control plane has no Service network, so the two Services `install` creates in
//! front of the pod become `ExternalName: localhost` and the CRDs' and APIServices' service
//! ports the pod's container ports (what kube-proxy would route). Checked: the pod leads,
//! injects its webhook CA into the CRDs and converts (v1beta1 objects are created and read
//! back), admits a queued Job and leaves the next one pending, serves that one's position at
//! the visibility API through the aggregation layer and its metrics behind authentication,
//! and stops cleanly on SIGTERM, giving the lease up.
#![cfg(feature = "cli")]

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use serde_json::{Value, json};

use crate::support::apply::apply_yaml;
use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::*;
use crate::support::eventually;
use crate::support::https::https_get;
use crate::support::image;
use crate::support::pod::PodRun;

const T: Duration = Duration::from_secs(60);
const IMAGE: &str = "kubectl-kueue:e2e";
const LEASE: &str = "c1f6bfd2.kueue.x-k8s.io";

fn container_port(deployment: &Deployment, name: &str) -> u16 {
    let ports = deployment
        .spec
        .as_ref()
        .unwrap()
        .template
        .spec
        .as_ref()
        .unwrap()
        .containers[0]
        .ports
        .clone()
        .unwrap_or_default();
    let port = ports
        .iter()
        .find(|p| p.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("the container has no port named {name}"));
    port.container_port as u16
}

/// What kube-proxy and cluster DNS would do: the Service `name` resolves to this machine, and
/// whoever calls it through `service.port` reaches the container port instead.
async fn route_service_to_localhost(client: &kube::Client, name: &str) {
    let services: Api<Service> = Api::namespaced(client.clone(), CONTROLLER_NAMESPACE);
    services
        .get(name)
        .await
        .expect("install created the Service");
    services
        .delete(name, &DeleteParams::default())
        .await
        .unwrap();
    let external = json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": { "name": name, "namespace": CONTROLLER_NAMESPACE },
        "spec": { "type": "ExternalName", "externalName": "localhost" },
    });
    eventually(None, T, "the Service recreated as ExternalName", || async {
        services
            .create(
                &Default::default(),
                &serde_json::from_value(external.clone()).unwrap(),
            )
            .await
            .ok()
    })
    .await;
}

async fn merge_patch<K>(api: &Api<K>, name: &str, patch: Value)
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap_or_else(|e| panic!("patch {name}: {e}"));
}

fn proc_status(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The mount options of the process's root, from its own view of the mounts.
fn root_mount_options(pid: u32) -> String {
    let info = std::fs::read_to_string(format!("/proc/{pid}/mountinfo")).unwrap();
    info.lines()
        .rev()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(4) == Some(&"/")).then(|| f[5].to_string())
        })
        .expect("the root mount")
}

fn admin_token(cluster: &Cluster) -> String {
    let kubeconfig = std::fs::read_to_string(cluster.kubeconfig_path()).unwrap();
    kubeconfig
        .lines()
        .find_map(|l| l.trim().strip_prefix("token:"))
        .expect("the admin kubeconfig has a token")
        .trim()
        .to_string()
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_image_runs_the_installed_deployment_with_the_in_cluster_configuration() {
    if !image::is_root() {
        eprintln!("skipped: the kubelet stand-in needs root (mount namespace, chroot)");
        return;
    }
    let built = tokio::task::spawn_blocking(|| image::build(IMAGE))
        .await
        .unwrap();
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    kubectl(
        &cluster,
        &["kueue", "install", "--image", IMAGE, "--replicas", "1"],
    );

    let deployments: Api<Deployment> = Api::namespaced(client.clone(), CONTROLLER_NAMESPACE);
    let deployment = deployments.get("kubectl-kueue-controller").await.unwrap();
    let template = deployment.spec.as_ref().unwrap().template.clone();
    assert_eq!(
        template.spec.as_ref().unwrap().containers[0]
            .image
            .as_deref(),
        Some(IMAGE)
    );
    let (webhook, visibility) = (
        container_port(&deployment, "webhook"),
        container_port(&deployment, "visibility"),
    );
    let (metrics, health) = (
        container_port(&deployment, "metrics"),
        container_port(&deployment, "health"),
    );

    // The Service network, stood in for.
    route_service_to_localhost(&client, "kueue-webhook-service").await;
    route_service_to_localhost(&client, "kueue-visibility-server").await;
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let converted: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|c| {
            c.spec.group == "kueue.x-k8s.io"
                && c.spec.conversion.as_ref().map(|c| c.strategy.as_str()) == Some("Webhook")
        })
        .map(|c| c.metadata.name.unwrap())
        .collect();
    assert_eq!(
        converted.len(),
        4,
        "four kinds convert through the webhook: {converted:?}"
    );
    for name in &converted {
        let port = json!({ "spec": { "conversion": { "webhook": { "clientConfig": {
            "service": { "port": webhook } } } } } });
        merge_patch(&crds, name, port).await;
    }
    let api_services: Api<kube::api::DynamicObject> = Api::all_with(
        client.clone(),
        &kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("apiregistration.k8s.io", "v1", "APIService"),
            "apiservices",
        ),
    );
    for v in ["v1beta2", "v1beta1"] {
        let port = json!({ "spec": { "service": { "port": visibility } } });
        merge_patch(
            &api_services,
            &format!("{v}.visibility.kueue.x-k8s.io"),
            port,
        )
        .await;
    }

    // The pod.
    let pod = PodRun {
        cluster: &cluster,
        client: client.clone(),
        rootfs: built.unpack("rootfs"),
        image_config: built.config(),
        namespace: CONTROLLER_NAMESPACE.into(),
        name: "kubectl-kueue-controller-5d8f7c6b9-x7k2p".into(),
        extra_env: vec![("RUST_LOG".into(), "info,kubectl_kueue=debug".into())],
    };
    let proc = pod.start(&template).await;
    let pid = proc.pid();
    let mut ctl = Controller {
        proc,
        metrics_port: metrics,
        health_port: health,
        kubeconfig: None,
    };
    ctl.wait_ready(T);
    assert_eq!(proc_status(pid, "Uid"), "65532 65532 65532 65532");
    assert_eq!(proc_status(pid, "Gid"), "65532 65532 65532 65532");
    assert_eq!(proc_status(pid, "Groups"), "");
    assert_eq!(proc_status(pid, "NoNewPrivs"), "1");
    let root_options = root_mount_options(pid);
    assert!(
        root_options.split(',').any(|o| o == "ro"),
        "the root filesystem is read-only: {root_options}"
    );

    let leases: Api<Lease> = Api::namespaced(client.clone(), CONTROLLER_NAMESPACE);
    eventually(Some(&cluster), T, "the pod holds the lease", || async {
        let holder = leases.get(LEASE).await.ok()?.spec?.holder_identity?;
        holder.contains(&pod.name).then_some(())
    })
    .await;
    eventually(
        Some(&cluster),
        T,
        "the webhook CA injected into the CRDs",
        || async {
            for name in &converted {
                let crd = crds.get(name).await.ok()?;
                let bundle = crd.spec.conversion?.webhook?.client_config?.ca_bundle?;
                if bundle.0.is_empty() {
                    return None;
                }
            }
            Some(())
        },
    )
    .await;

    // v1beta1 objects, stored as v1beta2 through the pod's webhook.
    let ns = cluster.new_namespace("in-cluster").await;
    let setup = format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: gpu}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources: [{{name: nvidia.com/gpu, nominalQuota: 4}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
    );
    eventually(
        Some(&cluster),
        T,
        "v1beta1 objects accepted (converted by the pod)",
        || async { apply_yaml(&client, &setup, &ns).await.ok() },
    )
    .await;
    let job = |name: &str| {
        format!(
            "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  labels: {{kueue.x-k8s.io/queue-name: lq}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: trainer
        resources:
          requests: {{nvidia.com/gpu: 4}}
          limits: {{nvidia.com/gpu: 4}}
"
        )
    };
    apply_yaml(&client, &job("first"), &ns).await.unwrap();
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    eventually(
        Some(&cluster),
        T,
        "the first Job admitted and started",
        || async { (jobs.get("first").await.ok()?.spec?.suspend == Some(false)).then_some(()) },
    )
    .await;
    apply_yaml(&client, &job("second"), &ns).await.unwrap();
    let pending = eventually(
        Some(&cluster),
        T,
        "the second Job's Workload pending",
        || async {
            let all = workloads(&client, &ns).await;
            let w = all.into_iter().find(|w| job_name(w) == "second")?;
            (cond(&w, "QuotaReserved")?.0 == "False").then_some(w)
        },
    )
    .await;
    let pending_name = pending.metadata.name.clone().unwrap();

    // Read back as v1beta1: the webhook converts the stored v1beta2 Workloads.
    let v1beta1 = get_raw(
        &cluster,
        &format!("/apis/kueue.x-k8s.io/v1beta1/namespaces/{ns}/workloads"),
        None,
    )
    .expect("v1beta1 Workloads");
    assert_eq!(v1beta1["items"].as_array().unwrap().len(), 2);
    assert!(
        v1beta1["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["status"]["admission"]["clusterQueue"] == "cq"),
        "the admission reads back in v1beta1: {v1beta1}"
    );

    // The pending one's position, from the pod, through the aggregation layer.
    let list = eventually(Some(&cluster), T, "the visibility API answers", || async {
        get_raw(
            &cluster,
            "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads",
            None,
        )
        .ok()
    })
    .await;
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{list}");
    assert_eq!(items[0]["metadata"]["name"], pending_name.as_str());
    assert_eq!(items[0]["positionInClusterQueue"], 0);
    assert_eq!(items[0]["positionInLocalQueue"], 0);
    assert_eq!(items[0]["localQueueName"], "lq");

    // Metrics: HTTPS, authenticated and authorized by the API server.
    let (code, _) = https_get(metrics, "/metrics", None, None).unwrap();
    assert_eq!(code, 401, "no token, no metrics");
    // The queue gauges are sampled with queue status (at most once a second), so the first
    // admission may not be in them yet.
    let token = admin_token(&cluster);
    eventually(
        Some(&cluster),
        T,
        "one workload admitted in the gauges",
        || {
            let (code, body) = https_get(metrics, "/metrics", Some(&token), None).unwrap();
            assert_eq!(code, 200);
            let seen = metric(
                &body,
                "kueue_admitted_active_workloads",
                &[("cluster_queue", "cq")],
            );
            async move { (seen == Some(1.0)).then_some(()) }
        },
    )
    .await;

    // SIGTERM, as the kubelet stops a pod: a clean exit that gives the lease up.
    ctl.signal(libc::SIGTERM);
    let status = ctl
        .wait_exit(Duration::from_secs(30))
        .expect("stops within the termination grace period");
    assert!(
        status.success(),
        "exit {status}:\n{}",
        ctl.proc.log_tail(20)
    );
    let holder = leases
        .get(LEASE)
        .await
        .unwrap()
        .spec
        .unwrap()
        .holder_identity;
    assert_eq!(holder.as_deref(), Some(""), "the lease is given up");
}
