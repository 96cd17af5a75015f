//! Smoke tests of the test control plane itself: it is the real thing (pinned release, RBAC,
//! admission, kubectl), the project's CRDs and the seed's manifests apply to it unchanged, a GPU Job
//! runs to completion on a fake A100 node, and its processes never outlive the tests.
#![cfg(feature = "cli")]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use kube::core::GroupVersionKind;
use serde_json::json;

use crate::support::apply;
use crate::support::binaries;
use crate::support::cluster::{ClusterBuilder, shared_apiserver, shared_full};

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn apiserver_is_the_pinned_release_with_rbac_on() {
    let cluster = shared_apiserver();
    let client = cluster.client();

    let version = client.apiserver_version().await.expect("GET /version");
    assert_eq!(version.git_version, binaries::kubernetes_version());
    assert!(
        cluster.server_url().starts_with("https://127.0.0.1:"),
        "{}",
        cluster.server_url()
    );

    // The admin (system:masters) may list namespaces; an anonymous client, which still trusts the
    // cluster's CA, is authenticated as system:anonymous and RBAC denies it.
    Api::<k8s_openapi::api::core::v1::Namespace>::all(client)
        .list(&ListParams::default())
        .await
        .expect("admin lists namespaces");
    let mut anonymous = cluster.kube_config();
    anonymous.auth_info = Default::default();
    let anonymous = kube::Client::try_from(anonymous).unwrap();
    let err = Api::<k8s_openapi::api::core::v1::Namespace>::all(anonymous)
        .list(&ListParams::default())
        .await
        .expect_err("anonymous must not list namespaces");
    assert!(
        matches!(&err, kube::Error::Api(s) if s.code == 403),
        "expected 403 Forbidden from RBAC, got {err:?}"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn kubectl_talks_to_the_cluster() {
    let cluster = shared_apiserver();
    let out = cluster
        .kubectl()
        .args(["version", "-o", "json"])
        .output()
        .expect("run kubectl");
    assert!(
        out.status.success(),
        "kubectl version: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["clientVersion"]["gitVersion"],
        binaries::kubernetes_version()
    );
    assert_eq!(
        v["serverVersion"]["gitVersion"],
        binaries::kubernetes_version()
    );

    // `kubectl kueue ...` resolves to this crate's freshly built binary.
    let out = cluster
        .kubectl()
        .args(["plugin", "list", "--name-only=false"])
        .output()
        .unwrap();
    let plugins = String::from_utf8_lossy(&out.stdout);
    assert!(
        plugins.lines().next().is_some() && plugins.contains(env!("CARGO_BIN_EXE_kubectl-kueue")),
        "kubectl plugin list does not show {}: {plugins}{}",
        env!("CARGO_BIN_EXE_kubectl-kueue"),
        String::from_utf8_lossy(&out.stderr)
    );

    let ns = cluster.new_namespace("kubectl").await;
    let cm = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\n  namespace: {ns}\ndata:\n  a: b\n"
    );
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), cm).unwrap();
    let out = cluster
        .kubectl()
        .arg("apply")
        .arg("-f")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl apply: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cluster
        .kubectl()
        .args([
            "get",
            "configmap",
            "hello",
            "-n",
            &ns,
            "-o",
            "jsonpath={.data.a}",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "b",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every field of `want` is in `got` with the same value. Quantities may come back as strings.
fn assert_subset(want: &serde_json::Value, got: &serde_json::Value, path: &str) {
    use serde_json::Value::*;
    match (want, got) {
        (Object(w), Object(g)) => {
            for (k, wv) in w {
                let gv = g
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k} missing from the stored object: {got}"));
                assert_subset(wv, gv, &format!("{path}.{k}"));
            }
        }
        (Array(w), Array(g)) => {
            assert_eq!(w.len(), g.len(), "{path}: length differs: {want} vs {got}");
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                assert_subset(wv, gv, &format!("{path}[{i}]"));
            }
        }
        (Number(n), String(s)) | (String(s), Number(n)) => assert_eq!(&n.to_string(), s, "{path}"),
        _ => assert_eq!(want, got, "{path}"),
    }
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn project_crds_and_the_seed_setup_apply_unchanged_and_read_back() {
    let cluster = shared_apiserver();
    let client = cluster.client();
    let root = crate::support::repo_root();

    let crd_dir = root.join("examples/deploy/crds-v1beta1");
    let files = apply::yaml_files(&crd_dir).unwrap_or_default();
    assert!(
        !files.is_empty(),
        "no CRDs in {} (the project's generated CRDs, one per file, are installed from there)",
        crd_dir.display()
    );
    let installed: BTreeSet<String> = apply::install_crds(&client, &crd_dir)
        .await
        .unwrap()
        .into_iter()
        .collect();
    for crd in [
        "resourceflavors.kueue.x-k8s.io",
        "clusterqueues.kueue.x-k8s.io",
        "localqueues.kueue.x-k8s.io",
        "workloadpriorityclasses.kueue.x-k8s.io",
        "workloads.kueue.x-k8s.io",
    ] {
        assert!(
            installed.contains(crd),
            "{crd} is not among the installed CRDs {installed:?}"
        );
    }

    let seed = root.join("examples/gpu-two-teams");
    for file in ["namespaces.yaml", "priorities.yaml", "setup.yaml"] {
        let path: PathBuf = seed.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let docs = apply::documents(&text).unwrap();
        apply::apply_objects(&client, &docs, "default")
            .await
            .unwrap_or_else(|e| panic!("{} does not apply unchanged: {e}", path.display()));
        // Read each object back with a fresh GET and compare it with the manifest.
        for doc in &docs {
            let obj: DynamicObject = serde_json::from_value(doc.clone()).unwrap();
            let gvk = GroupVersionKind::try_from(obj.types.as_ref().unwrap()).unwrap();
            let (ar, caps) = apply::resolve(&client, &gvk).await.unwrap();
            let api: Api<DynamicObject> = match caps.scope {
                kube::discovery::Scope::Cluster => Api::all_with(client.clone(), &ar),
                kube::discovery::Scope::Namespaced => Api::namespaced_with(
                    client.clone(),
                    obj.metadata.namespace.as_deref().unwrap_or("default"),
                    &ar,
                ),
            };
            let name = obj.metadata.name.as_deref().unwrap();
            let stored = api
                .get(name)
                .await
                .unwrap_or_else(|e| panic!("get {} {name}: {e}", gvk.kind));
            let stored = serde_json::to_value(&stored).unwrap();
            assert_subset(doc, &stored, &format!("{file}:{}/{name}", gvk.kind));
        }
    }

    // kube-rs typed-less read of the whole picture: two ClusterQueues in one cohort.
    let gvk = GroupVersionKind::gvk("kueue.x-k8s.io", "v1beta1", "ClusterQueue");
    let (ar, _) = apply::resolve(&client, &gvk).await.unwrap();
    let cqs = Api::<DynamicObject>::all_with(client.clone(), &ar)
        .list(&ListParams::default())
        .await
        .unwrap();
    let mut names: Vec<String> = cqs
        .items
        .iter()
        .filter(|cq| cq.data["spec"]["cohort"] == "gpu-cluster")
        .map(|cq| cq.metadata.name.clone().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["team-a-queue", "team-b-queue"]);
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn mutating_admission_policy_suspends_jobs_with_a_queue_name() {
    let cluster = shared_apiserver();
    let client = cluster.client();
    let ns = cluster.new_namespace("map").await;
    let policy = format!("suspend-queued-jobs-{ns}");
    let yaml = format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: {policy}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: {ns}
    objectSelector:
      matchExpressions:
      - key: kueue.x-k8s.io/queue-name
        operator: Exists
    resourceRules:
    - apiGroups: ["batch"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["jobs"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{{
          spec: Object.spec{{
            suspend: true
          }}
        }}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: {policy}
spec:
  policyName: {policy}
"#
    );
    apply::apply_yaml(&client, &yaml, &ns)
        .await
        .expect("MutatingAdmissionPolicy is served (admissionregistration.k8s.io/v1)");

    let jobs: Api<Job> = Api::namespaced(client, &ns);
    let job = |name: &str, queue: Option<&str>| -> Job {
        let mut labels = serde_json::Map::new();
        if let Some(q) = queue {
            labels.insert("kueue.x-k8s.io/queue-name".into(), json!(q));
        }
        serde_json::from_value(json!({
            "metadata": { "name": name, "labels": labels },
            "spec": {
                "template": { "spec": {
                    "restartPolicy": "Never",
                    "containers": [{ "name": "train", "image": "training:latest" }]
                }}
            }
        }))
        .unwrap()
    };
    // The policy takes effect once the API server has loaded it: probe with dry-run creates.
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    crate::support::eventually(
        Some(cluster),
        Duration::from_secs(30),
        "the policy to mutate a dry-run Job",
        || {
            let jobs = jobs.clone();
            let dry = dry.clone();
            let j = job("probe", Some("training-queue"));
            async move {
                let created = jobs.create(&dry, &j).await.ok()?;
                (created.spec?.suspend == Some(true)).then_some(())
            }
        },
    )
    .await;

    let queued = jobs
        .create(
            &PostParams::default(),
            &job("queued", Some("training-queue")),
        )
        .await
        .unwrap();
    assert_eq!(queued.spec.as_ref().unwrap().suspend, Some(true));
    let read = jobs.get("queued").await.unwrap();
    assert_eq!(
        read.spec.unwrap().suspend,
        Some(true),
        "stored Job is suspended"
    );

    let plain = jobs
        .create(&PostParams::default(), &job("plain", None))
        .await
        .unwrap();
    assert_eq!(
        plain.spec.unwrap().suspend,
        Some(false),
        "a Job without the label is left alone"
    );
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn gpu_job_is_scheduled_on_a_fake_a100_node_and_completes() {
    let cluster = shared_full();
    let client = cluster.client();
    let ns = cluster.new_namespace("gpu-job").await;
    let a100: BTreeSet<String> = cluster.nodes().iter().map(|n| n.name.clone()).collect();
    assert_eq!(a100.len(), 2);

    // Extended resources need a limit (the API server rejects a request without one); the request
    // defaults to it.
    let job: Job = serde_json::from_value(json!({
        "metadata": { "name": "train" },
        "spec": {
            "backoffLimit": 0,
            "template": { "spec": {
                "restartPolicy": "Never",
                "containers": [{
                    "name": "train",
                    "image": "training:latest",
                    "resources": { "limits": { "nvidia.com/gpu": 1 } }
                }]
            }}
        }
    }))
    .unwrap();
    let started = Instant::now();
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    jobs.create(&PostParams::default(), &job).await.unwrap();

    let done = crate::support::eventually(
        Some(cluster),
        Duration::from_secs(90),
        "Job train to succeed",
        || {
            let jobs = jobs.clone();
            async move {
                let j = jobs.get("train").await.ok()?;
                let st = j.status?;
                if st.failed.unwrap_or(0) > 0 {
                    panic!("Job failed: {st:?}");
                }
                (st.succeeded == Some(1)).then_some(st)
            }
        },
    )
    .await;
    let complete = done.conditions.unwrap_or_default();
    assert!(
        complete
            .iter()
            .any(|c| c.type_ == "Complete" && c.status == "True"),
        "{complete:?}"
    );

    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    let list = pods
        .list(&ListParams::default().labels("batch.kubernetes.io/job-name=train"))
        .await
        .unwrap();
    assert_eq!(list.items.len(), 1, "one pod: {:?}", list.items);
    let pod = &list.items[0];
    let node_name = pod
        .spec
        .as_ref()
        .unwrap()
        .node_name
        .clone()
        .expect("pod was scheduled");
    assert!(
        a100.contains(&node_name),
        "scheduled on {node_name}, not one of {a100:?}"
    );
    let node = Api::<Node>::all(client).get(&node_name).await.unwrap();
    assert_eq!(node.metadata.labels.unwrap()["gpu-type"], "a100");
    let status = pod.status.as_ref().unwrap();
    assert_eq!(status.phase.as_deref(), Some("Succeeded"));
    let terminated = status.container_statuses.as_ref().unwrap()[0]
        .state
        .as_ref()
        .and_then(|s| s.terminated.as_ref())
        .expect("container terminated");
    assert_eq!(terminated.exit_code, 0);
    eprintln!(
        "GPU job ran to completion in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

/// What preemption does to a running Job: suspending it makes the Job controller delete its pods,
/// and the simulated kubelet stops and removes them (they do not hang in Terminating).
#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[tokio::test]
async fn suspending_a_running_job_removes_its_pods() {
    let cluster = shared_full();
    let client = cluster.client();
    let ns = cluster.new_namespace("suspend").await;
    let job: Job = serde_json::from_value(json!({
        "metadata": { "name": "long" },
        "spec": {
            "parallelism": 2,
            "completions": 2,
            "template": {
                "metadata": { "annotations": { crate::support::kwok::POD_COMPLETE_DELAY: "1h" } },
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{
                        "name": "train",
                        "image": "training:latest",
                        "resources": { "limits": { "nvidia.com/gpu": 2 } }
                    }]
                }
            }
        }
    }))
    .unwrap();
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    jobs.create(&PostParams::default(), &job).await.unwrap();
    let lp = ListParams::default().labels("batch.kubernetes.io/job-name=long");

    crate::support::eventually(
        Some(cluster),
        Duration::from_secs(60),
        "2 running pods",
        || {
            let (pods, lp) = (pods.clone(), lp.clone());
            async move {
                let list = pods.list(&lp).await.ok()?;
                let running = list
                    .items
                    .iter()
                    .filter(|p| {
                        p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                    })
                    .count();
                (running == 2).then_some(())
            }
        },
    )
    .await;
    // The 1h annotation keeps them running.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let j = jobs.get("long").await.unwrap();
    assert_eq!(
        j.status.unwrap().active,
        Some(2),
        "pods keep running with a 1h completion delay"
    );

    let patch = json!({ "spec": { "suspend": true } });
    jobs.patch(
        "long",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(&patch),
    )
    .await
    .unwrap();
    crate::support::eventually(
        Some(cluster),
        Duration::from_secs(60),
        "the suspended Job's pods to be gone",
        || {
            let (pods, jobs, lp) = (pods.clone(), jobs.clone(), lp.clone());
            async move {
                let left = pods.list(&lp).await.ok()?.items.len();
                let st = jobs.get("long").await.ok()?.status?;
                (left == 0 && st.active.unwrap_or(0) == 0).then_some(())
            }
        },
    )
    .await;
}

fn alive(pid: u32) -> bool {
    // A reaped or never-existing pid has no /proc entry; a zombie is as good as dead.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.split_whitespace().nth(2).is_none_or(|state| state != "Z"))
        .unwrap_or(false)
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[test]
fn dropping_a_private_cluster_kills_its_processes() {
    let cluster = ClusterBuilder::apiserver().start();
    let pids = cluster.pids();
    assert_eq!(
        pids.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["etcd", "kube-apiserver"]
    );
    assert!(pids.iter().all(|(_, p)| alive(*p)));
    drop(cluster);
    for (name, pid) in pids {
        assert!(
            !alive(pid),
            "{name} (pid {pid}) survived the cluster's drop"
        );
    }
}

/// Helper for the next test, run in a child process: starts a cluster, writes the pids, hangs.
#[test]
#[ignore = "helper process of killing_the_test_process_kills_its_cluster"]
fn helper_start_a_cluster_and_hang() {
    let Ok(pid_file) = std::env::var("KUEUE_TESTENV_HELPER_PIDFILE") else {
        return;
    };
    let cluster = ClusterBuilder::apiserver().start();
    let pids: Vec<String> = cluster.pids().iter().map(|(_, p)| p.to_string()).collect();
    std::fs::write(&pid_file, pids.join("\n")).unwrap();
    std::thread::sleep(Duration::from_secs(300));
}

#[cfg_attr(
    skip_cluster_tests,
    ignore = "needs the test control plane (KUEUE_SKIP_CLUSTER_TESTS is set)"
)]
#[test]
fn killing_the_test_process_kills_its_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "controlplane_smoke::helper_start_a_cluster_and_hang",
            "--ignored",
            "--nocapture",
        ])
        .env("KUEUE_TESTENV_HELPER_PIDFILE", &pid_file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids =
        crate::support::process::poll(Duration::from_secs(120), Duration::from_millis(100), || {
            let text = std::fs::read_to_string(&pid_file).ok()?;
            let pids: Vec<u32> = text.lines().filter_map(|l| l.parse().ok()).collect();
            (pids.len() == 2).then_some(pids)
        });
    let Some(pids) = pids else {
        let _ = child.kill();
        panic!("the helper process did not start its cluster");
    };
    assert!(pids.iter().all(|p| alive(*p)));
    child.kill().unwrap(); // SIGKILL: no destructor, no atexit; only the parent-death signal is left.
    child.wait().unwrap();
    let gone =
        crate::support::process::poll(Duration::from_secs(10), Duration::from_millis(50), || {
            pids.iter().all(|p| !alive(*p)).then_some(())
        });
    assert!(
        gone.is_some(),
        "control-plane processes {pids:?} outlived their killed test process"
    );
}
