//! No Configuration field is ignored in silence: `simulate -f` and `run-controller --config`
//! read a Configuration the same way; a field for a feature we do not implement refuses the
//! file (exit 1, naming the file, document, object and field), a field that only tunes
//! upstream's own process is accepted with a warning naming it. The checks run before any
//! cluster is contacted.
#![cfg(feature = "cli")]

use predicates::prelude::*;

use crate::support::cli::kueue;

const QUEUE: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4}]
";

fn files(config: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.yaml");
    std::fs::write(&config_path, config).unwrap();
    let queue_path = dir.path().join("queue.yaml");
    std::fs::write(&queue_path, QUEUE).unwrap();
    (
        dir,
        config_path.to_string_lossy().into_owned(),
        queue_path.to_string_lossy().into_owned(),
    )
}

const PODS_READY: &str = "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  timeout: 10m
  blockAdmission: true
";

/// Two pending Workloads that both fit.
const TWO_PENDING: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: first, namespace: ns, creationTimestamp: '2026-01-01T00:00:00Z'}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: second, namespace: ns, creationTimestamp: '2026-01-01T00:01:00Z'}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]
";

#[test]
fn simulate_acts_on_wait_for_pods_ready_and_explain_says_what_holds_a_workload() {
    let (dir, config, queue) = files(PODS_READY);
    let workloads = dir.path().join("workloads.yaml");
    std::fs::write(&workloads, TWO_PENDING).unwrap();
    let workloads = workloads.to_string_lossy().into_owned();
    let out = kueue()
        .args([
            "simulate", "-f", &config, "-f", &queue, "-f", &workloads, "-o", "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let list: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let second = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["name"] == "second")
        .unwrap();
    let reserved = second["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "QuotaReserved")
        .unwrap();
    assert_eq!(reserved["reason"], "WaitingForPodsReady");
    // With `first` admitted and not ready, explain names it.
    let admitted = dir.path().join("admitted.yaml");
    std::fs::write(
        &admitted,
        TWO_PENDING.replace(
            "metadata: {name: first, namespace: ns, creationTimestamp: '2026-01-01T00:00:00Z'}\nspec:\n  queueName: lq\n  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]\n",
            "metadata: {name: first, namespace: ns, creationTimestamp: '2026-01-01T00:00:00Z'}\nspec:\n  queueName: lq\n  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]\nstatus:\n  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 1, flavors: {cpu: default}, resourceUsage: {cpu: '1'}}]}\n  conditions:\n  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-01-01T00:02:00Z'}\n  - {type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2026-01-01T00:02:00Z'}\n",
        ),
    )
    .unwrap();
    let admitted = admitted.to_string_lossy().into_owned();
    kueue()
        .args([
            "explain",
            "workload/second",
            "-n",
            "ns",
            "-f",
            &config,
            "-f",
            &queue,
            "-f",
            &admitted,
            "--now",
            "2026-01-01T00:03:00Z",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Not ready yet: ns/first")
                .and(predicate::str::contains("waits for quota to be released").not()),
        );
}

#[test]
fn a_bad_wait_for_pods_ready_value_refuses_the_file_naming_the_field() {
    let (_dir, config, queue) = files(
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  requeuingStrategy: {backoffLimitCount: -1}
",
    );
    kueue()
        .args(["simulate", "-f", &config, "-f", &queue])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{config}: document 1 (Configuration): waitForPodsReady.requeuingStrategy.backoffLimitCount: Invalid value: -1: must be greater than or equal to 0"
        )));
}

#[test]
fn every_refused_field_is_named() {
    let (_dir, config, queue) = files(
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
multiKueue: {gcInterval: 1m}
integrations:
  frameworks: [batch/job]
  labelKeysToCopy: [team]
",
    );
    kueue()
        .args(["simulate", "-f", &config, "-f", &queue])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("multiKueue: not supported").and(
            predicate::str::contains("(also not supported: integrations.labelKeysToCopy)"),
        ));
}

#[test]
fn fields_for_upstreams_own_process_are_accepted_with_a_warning() {
    let (_dir, config, queue) = files(
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
webhook: {port: 9443}
controller:
  groupKindConcurrency: {Job.batch: 5}
integrations:
  frameworks: [batch/job, kubeflow.org/mpijob]
",
    );
    kueue()
        .args(["simulate", "-f", &config, "-f", &queue])
        .assert()
        .success()
        .stderr(
            // webhook configures the conversion webhook run-controller serves: no warning.
            predicate::str::contains("webhook:")
                .not()
                .and(predicate::str::contains(
                    "integrations.frameworks: not integrated, their objects are not managed: kubeflow.org/mpijob",
                ))
                .and(predicate::str::contains("(Configuration): controller: ")),
        );
}

#[test]
fn upstreams_shipped_v1beta2_configuration_starts_with_warnings() {
    // The shape of upstream v0.19's controller_manager_config.yaml. run-controller reads v1beta2
    // as simulate does (without waitForPodsReady written, its v1beta2 default is on, as
    // upstream). The error then is the missing cluster.
    let (_dir, config, _) = files(
        "apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
health: {healthProbeBindAddress: ':8081'}
metrics: {bindAddress: ':8443'}
webhook: {port: 9443}
leaderElection: {leaderElect: true, resourceName: c1f6bfd2.kueue.x-k8s.io}
controller:
  groupKindConcurrency: {Job.batch: 5, Workload.kueue.x-k8s.io: 10}
clientConnection: {qps: 300, burst: 500}
integrations:
  frameworks: [batch/job, kubeflow.org/mpijob, ray.io/rayjob, pod, deployment]
",
    );
    kueue()
        .args([
            "run-controller",
            "--config",
            &config,
            "--kubeconfig",
            "/no/such/kubeconfig",
        ])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("waitForPodsReady")
                .not()
                .and(predicate::str::contains(
                    "not integrated, their objects are not managed: kubeflow.org/mpijob, ray.io/rayjob, pod, deployment",
                ))
                .and(predicate::str::contains("cannot read kubeconfig /no/such/kubeconfig")),
        );
}

#[test]
fn a_configuration_file_holds_only_a_configuration() {
    let (_dir, _, queue) = files("");
    kueue()
        .args([
            "run-controller",
            "--config",
            &queue,
            "--kubeconfig",
            "/no/such/kubeconfig",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "a configuration file holds one Configuration and nothing else",
        ));
}

#[test]
fn run_controller_refuses_a_file_with_a_field_it_cannot_honour_before_connecting() {
    // A lock upstream's leader election cannot take (v1beta1), and a v1beta2 visibility
    // server address upstream's validation rejects: each refuses the file, naming the field,
    // before the (missing) cluster is looked for.
    for (version, body, named) in [
        (
            "v1beta1",
            "leaderElection: {leaderElect: true, resourceLock: configmaps}\n",
            "(Configuration): leaderElection.resourceLock: not supported: \"configmaps\"",
        ),
        (
            "v1beta2",
            "visibilityServer: {bindAddress: localhost, bindPort: 9082}\n",
            "(Configuration): visibilityServer.bindAddress: Invalid value: \"localhost\": must be a valid IP address",
        ),
    ] {
        let (_dir, config, _) = files(&format!(
            "apiVersion: config.kueue.x-k8s.io/{version}\nkind: Configuration\n{body}"
        ));
        kueue()
            .args([
                "run-controller",
                "--config",
                &config,
                "--kubeconfig",
                "/no/such/kubeconfig",
            ])
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains(format!("{config}: document 1 {named}"))
                    .and(predicate::str::contains("kubeconfig").not()),
            );
    }
}

#[test]
fn deprecated_pod_options_are_accepted_with_a_warning() {
    let (_dir, config, queue) = files(
        "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: [batch/job]
  podOptions: {namespaceSelector: {matchLabels: {team: a}}}
",
    );
    kueue()
        .args(["simulate", "-f", &config, "-f", &queue])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "(Configuration): integrations.podOptions: deprecated, and dropped by upstream Kueue too",
        ));
}
