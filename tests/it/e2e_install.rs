//! `kubectl kueue install` / `uninstall` on a real API server:
//! - the manifests `install --print` writes are the ones in the repository;
//! - the admission policy holds queue-labelled Jobs at creation and fills extended-resource
//!   limits from requests (so the article's Jobs are accepted), and leaves other Jobs alone;
//! - the controller works with nothing but the RBAC `install` grants its ServiceAccount;
//! - `uninstall` removes what `install` created (the CRDs only with `--crds`).
#![cfg(feature = "cli")]

use std::time::Duration;

use crate::support::cluster::ClusterBuilder;
use crate::support::controller::*;
use crate::support::eventually;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;

const T: Duration = Duration::from_secs(30);

fn kueue(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-kueue"))
        .args(args)
        .output()
        .expect("run kubectl-kueue")
}

#[test]
fn the_repository_holds_the_printed_manifests() {
    let out = kueue(&["install", "--print", "--skip-crds"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let file = std::fs::read_to_string(repo_path("examples/deploy/kubectl-kueue.yaml")).unwrap();
    assert!(
        printed == file,
        "examples/deploy/kubectl-kueue.yaml is stale: regenerate it with `kubectl kueue install --print --skip-crds > examples/deploy/kubectl-kueue.yaml`"
    );
    let all = kueue(&["install", "--print"]);
    let text = String::from_utf8(all.stdout).unwrap();
    let docs = crate::support::apply::documents(&text).unwrap();
    let crds = docs
        .iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
        .count();
    assert_eq!(crds, 6, "every Kueue CRD is printed");
    assert!(docs.iter().any(|d| d["kind"] == "Deployment"
        && d["spec"]["template"]["spec"]["containers"][0]["args"][0] == "run-controller"));
}

#[test]
fn the_image_can_be_pinned_by_digest() {
    let pinned = format!("ghcr.io/o/kubectl-kueue@sha256:{}", "0f".repeat(32));
    let out = kueue(&["install", "--print", "--skip-crds", "--image", &pinned]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let docs = crate::support::apply::documents(&text).unwrap();
    let deployment = docs.iter().find(|d| d["kind"] == "Deployment").unwrap();
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        serde_json::json!(pinned)
    );
    let bad = kueue(&["install", "--print", "--image", "x@sha256:abc"]);
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("--image") && stderr.contains("sha256"),
        "{stderr}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_policy_least_privilege_and_uninstall() {
    let cluster = ClusterBuilder::apiserver().start();
    let client = cluster.client();
    kubectl(&cluster, &["kueue", "install", "--without-controller"]);
    let ns = cluster.new_namespace("install").await;

    // The policy: a queue-labelled Job with GPU requests only is accepted, suspended, with
    // limits; an unlabelled one is left alone.
    let job = |name: &str, labelled: bool| {
        let labels = if labelled {
            "\n  labels: {kueue.x-k8s.io/queue-name: lq}"
        } else {
            ""
        };
        format!(
            "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}{labels}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: x
        resources:
          requests: {{nvidia.com/gpu: 1, cpu: 100m}}
          limits: {{cpu: '1'}}
      - name: sidecar
        image: y
        resources:
          requests: {{example.com/fpga: 2}}
"
        )
    };
    crate::support::apply::apply_yaml(&client, &job("queued", true), &ns)
        .await
        .expect("a queue-labelled Job with GPU requests only is accepted");
    let queued = Api::<Job>::namespaced(client.clone(), &ns)
        .get("queued")
        .await
        .unwrap();
    let spec = queued.spec.unwrap();
    assert_eq!(spec.suspend, Some(true));
    let containers = spec.template.spec.unwrap().containers;
    let limits = |i: usize| {
        containers[i]
            .resources
            .as_ref()
            .unwrap()
            .limits
            .clone()
            .unwrap_or_default()
    };
    assert_eq!(
        limits(0).get(GPU).map(|q| q.0.as_str()),
        Some("1"),
        "GPU limit filled from the request"
    );
    assert_eq!(
        limits(0).get("cpu").map(|q| q.0.as_str()),
        Some("1"),
        "existing limits are kept"
    );
    assert_eq!(
        limits(1).get("example.com/fpga").map(|q| q.0.as_str()),
        Some("2"),
        "a container without limits gets them"
    );
    let plain = job("plain", false)
        .replace("nvidia.com/gpu: 1, ", "")
        .replace("example.com/fpga: 2", "cpu: 10m");
    crate::support::apply::apply_yaml(&client, &plain, &ns)
        .await
        .unwrap();
    let plain = Api::<Job>::namespaced(client.clone(), &ns)
        .get("plain")
        .await
        .unwrap();
    assert_ne!(
        plain.spec.unwrap().suspend,
        Some(true),
        "Jobs without a queue are not held"
    );

    // The controller runs with only its ServiceAccount's permissions.
    let setup = format!(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: gpu}}
spec: {{nodeLabels: {{gpu-type: a100}}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu, example.com/fpga]
    flavors:
    - name: gpu
      resources: [{{name: cpu, nominalQuota: 4}}, {{name: nvidia.com/gpu, nominalQuota: 4}}, {{name: example.com/fpga, nominalQuota: 4}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: cq}}
"
    );
    crate::support::apply::apply_yaml(&client, &setup, &ns)
        .await
        .unwrap();
    let mut ctl = start_installed_controller(&cluster, "controller-sa", &[]);
    ctl.wait_ready(T);
    let started = eventually(
        Some(&cluster),
        T,
        "the queued Job admitted and started",
        || async {
            let j = Api::<Job>::namespaced(client.clone(), &ns)
                .get("queued")
                .await
                .ok()?;
            (j.spec.as_ref()?.suspend == Some(false)).then_some(j)
        },
    )
    .await;
    let tpl = started.spec.unwrap().template;
    assert_eq!(
        tpl.spec
            .unwrap()
            .node_selector
            .unwrap()
            .get("gpu-type")
            .map(String::as_str),
        Some("a100")
    );
    let w = workloads(&client, &ns)
        .await
        .into_iter()
        .next()
        .expect("the Job's Workload");
    assert!(holds_quota(&w));
    eventually(Some(&cluster), T, "ClusterQueue status written", || async {
        let cq = Api::<kubectl_kueue::api::ClusterQueue>::all(client.clone())
            .get("cq")
            .await
            .ok()?;
        (cq.status?.admitted_workloads == 1).then_some(())
    })
    .await;
    let log = ctl.log();
    assert!(
        log.contains("no Node has this ResourceFlavor's node labels"),
        "this cluster has no node labelled gpu-type=a100, and the controller says so:\n{log}"
    );
    assert!(
        !log.contains("forbidden") && !log.contains("Forbidden"),
        "a permission is missing:\n{log}"
    );
    ctl.proc.kill();

    // Uninstall: the controller's objects go, the CRDs (and the queues) stay unless --crds.
    kubectl(&cluster, &["kueue", "uninstall"]);
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    assert!(
        crds.get_opt("workloads.kueue.x-k8s.io")
            .await
            .unwrap()
            .is_some()
    );
    let policies = kubectl(
        &cluster,
        &["get", "mutatingadmissionpolicies", "-o", "name"],
    );
    assert!(!policies.contains("kubectl-kueue"), "{policies}");
    let roles = kubectl(&cluster, &["get", "clusterroles", "-o", "name"]);
    assert!(!roles.contains("kubectl-kueue-controller"), "{roles}");
    kubectl(&cluster, &["kueue", "uninstall", "--crds"]);
    eventually(Some(&cluster), T, "the CRDs gone", || async {
        crds.get_opt("workloads.kueue.x-k8s.io")
            .await
            .ok()
            .flatten()
            .is_none()
            .then_some(())
    })
    .await;
}
