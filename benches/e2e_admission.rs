//! End-to-end admission latency of `kubectl kueue run-controller` on the real control plane
//! (full mode: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok): from a
//! Job's creation (the create request sent) to the controller unsuspending it (seen on a
//! watch), over 1,000 queue-labelled Jobs created as fast as 16 concurrent clients can. The
//! path per Job: the admission policy suspends it, the controller creates its Workload,
//! reserves quota, writes the admission, and patches the Job.
//!
//! Run with `cargo bench --bench e2e_admission` (needs the cached control plane, as the tests
//! do; `E2E_JOBS=N` changes the count, `E2E_MODE=apiserver` leaves out the controller manager,
//! scheduler and kwok, so no pods are created, `E2E_RATE=N` spreads the creations at N per
//! second instead of a burst). Prints p50/p90/p99/max and throughput; results are in
//! the README. Under `cargo test` it does nothing (a benchmark is not a test).
#![cfg(feature = "cli")]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use support::cluster::ClusterBuilder;
use support::kwok::FakeNode;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn job(name: &str) -> Job {
    serde_json::from_value(serde_json::json!({
        "metadata": { "name": name, "labels": { "kueue.x-k8s.io/queue-name": "lq" } },
        "spec": { "template": { "spec": {
            "restartPolicy": "Never",
            "containers": [{ "name": "c", "image": "x", "resources": { "requests": { "cpu": "100m" } } }],
        } } },
    }))
    .unwrap()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("e2e_admission: a benchmark; run it with `cargo bench --bench e2e_admission`");
        return;
    }
    let n: usize = std::env::var("E2E_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    // `E2E_MODE=apiserver`: etcd and kube-apiserver only (no pods are created), to see the
    // controller's own share of the latency.
    let full = std::env::var("E2E_MODE").map_or(true, |m| m != "apiserver");
    let node = FakeNode::new("bench-node")
        .capacity("cpu", "1000")
        .capacity("pods", "2000");
    let cluster = if full {
        ClusterBuilder::full().nodes(vec![node]).start()
    } else {
        ClusterBuilder::apiserver().start()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = cluster.client();
        let out = cluster.kubectl().args(["kueue", "install", "--without-controller"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ns = cluster.new_namespace("bench").await;
        let setup = format!(
            "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: bench}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 10000}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: bench}}
"
        );
        support::apply::apply_yaml(&client, &setup, &ns).await.unwrap();

        let controller = env!("CARGO_BIN_EXE_kubectl-kueue");
        let mut cmd = Command::new(controller);
        cmd.args(["run-controller", "--kubeconfig"])
            .arg(cluster.kubeconfig_path())
            .args(["--metrics-bind-address", "0", "--health-probe-bind-address", "0"])
            .env("RUST_LOG", "warn");
        let _ctl = cluster.spawn("controller", cmd).unwrap();

        // Unsuspensions, seen on a watch.
        let unsuspended: Arc<Mutex<BTreeMap<String, Instant>>> = Arc::default();
        let seen = unsuspended.clone();
        let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
        let watch = tokio::spawn(async move {
            let stream = watcher(jobs, watcher::Config::default()).default_backoff().applied_objects();
            futures::pin_mut!(stream);
            while let Some(Ok(j)) = stream.next().await {
                if j.spec.as_ref().and_then(|s| s.suspend) == Some(false) {
                    seen.lock().unwrap().entry(j.metadata.name.clone().unwrap_or_default()).or_insert_with(Instant::now);
                }
            }
        });
        // Warm-up: the controller is up and admitting.
        let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
        jobs.create(&PostParams::default(), &job("warm-up")).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while !unsuspended.lock().unwrap().contains_key("warm-up") {
            assert!(Instant::now() < deadline, "the controller did not admit the warm-up Job");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        let created: Arc<Mutex<BTreeMap<String, Instant>>> = Arc::default();
        let started = Instant::now();
        let names: Vec<String> = (0..n).map(|i| format!("job-{i:05}")).collect();
        // `E2E_RATE=N`: Jobs arrive at N per second instead of all at once.
        let rate: Option<f64> = std::env::var("E2E_RATE").ok().and_then(|v| v.parse().ok());
        futures::stream::iter(names.clone().into_iter().enumerate())
            .for_each_concurrent(16, |(i, name)| {
                let jobs = jobs.clone();
                let created = created.clone();
                async move {
                    if let Some(r) = rate {
                        let due = started + Duration::from_secs_f64(i as f64 / r);
                        tokio::time::sleep_until(due.into()).await;
                    }
                    let t = Instant::now();
                    jobs.create(&PostParams::default(), &job(&name)).await.expect("create a Job");
                    created.lock().unwrap().insert(name, t);
                }
            })
            .await;
        let creating = started.elapsed();
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let done = names.iter().filter(|n| unsuspended.lock().unwrap().contains_key(*n)).count();
            if done == n {
                break;
            }
            assert!(Instant::now() < deadline, "only {done}/{n} Jobs unsuspended after 10 minutes");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let total = started.elapsed();
        watch.abort();
        let c = created.lock().unwrap();
        let u = unsuspended.lock().unwrap();
        let mut lat: Vec<Duration> = names.iter().map(|n| u[n].saturating_duration_since(c[n])).collect();
        lat.sort();
        let arrivals = rate.map_or("16 concurrent clients".to_string(), |r| format!("{r} per second"));
        println!("e2e_admission ({} mode): {n} Jobs created in {:.2}s ({arrivals}); all unsuspended after {:.2}s", if full { "full" } else { "apiserver" }, creating.as_secs_f64(), total.as_secs_f64());
        println!(
            "creation -> unsuspend latency: p50 {:.0} ms, p90 {:.0} ms, p99 {:.0} ms, max {:.0} ms; throughput {:.0} Jobs/s",
            percentile(&lat, 0.50).as_secs_f64() * 1000.0,
            percentile(&lat, 0.90).as_secs_f64() * 1000.0,
            percentile(&lat, 0.99).as_secs_f64() * 1000.0,
            lat.last().unwrap().as_secs_f64() * 1000.0,
            n as f64 / total.as_secs_f64()
        );
    });
}
