//! The busy run the fault tests share: two teams' ClusterQueues in one cohort (12 CPUs each,
//! preemption within the cohort and by priority), Jobs of random size, priority and run time
//! arriving over a while, a controller kept running by a [`Supervisor`] (what a Deployment's
//! kubelet does: start it again whenever it exits), the invariant checker on throughout, and
//! the final check that every Job ran to completion exactly once.
//!
//! Everything random comes from one seeded generator ([`Rng`]); the seed is printed and
//! `KUEUE_FAULTS_SEED` replays a run.

use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, ListParams, PostParams};
use kubectl_kueue::api::Workload;
use serde_json::json;

use crate::support::cluster::{Cluster, ClusterBuilder};
use crate::support::controller::{Controller, repo_path, start_controller};
use crate::support::kwok::{FakeNode, POD_COMPLETE_DELAY};

pub const NAMESPACES: [&str; 2] = ["faults-a", "faults-b"];

/// A Configuration electing a leader with short timings (lease 4 s, renew deadline 3 s, retry
/// 1 s), so faults past the lease stay short.
pub const SHORT_LEASE_CONFIG: &str = "apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: kueue-system
leaderElection:
  leaderElect: true
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 1s
";

/// A Workload of one pod asking for 1 CPU in LocalQueue `queue` (what the API-server-only
/// runs create instead of Jobs).
pub fn one_cpu_workload(name: &str, queue: &str) -> kubectl_kueue::api::Workload {
    serde_json::from_value(
        json!({"metadata": {"name": name}, "spec": {"queueName": queue,
        "podSets": [{"name": "main", "count": 1, "template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}),
    )
    .unwrap()
}

/// How long a pod may stay alive after its Workload's quota was released before the checker
/// calls it a violation: the Job status lag described in the README (Reliability, "Known
/// gap"). Counted and printed either way.
pub const POD_GRACE: Duration = Duration::from_secs(5);

/// splitmix64: small, seeded, good enough to pick delays and job shapes.
pub struct Rng(u64);

impl Rng {
    pub fn seeded(default: u64) -> Rng {
        let seed = std::env::var("KUEUE_FAULTS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default);
        eprintln!("faults: seed {seed} (KUEUE_FAULTS_SEED={seed} replays it)");
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.range(1, 100) <= percent
    }
}

/// A full cluster with two 64-CPU nodes, the CRDs and the queues.
pub async fn cluster() -> Cluster {
    let cluster = ClusterBuilder::full()
        .nodes(vec![FakeNode::new("cpu-1"), FakeNode::new("cpu-2")])
        .pod_running_after(Duration::from_millis(300))
        .start();
    let client = cluster.client();
    crate::support::apply::install_crds(&client, &repo_path("examples/deploy/crds-v1beta1"))
        .await
        .unwrap();
    let mut yaml = String::from(
        "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
",
    );
    for (ns, team) in NAMESPACES.iter().zip(["team-a", "team-b"]) {
        yaml += &format!(
            "---
apiVersion: v1
kind: Namespace
metadata: {{name: {ns}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {team}}}
spec:
  cohort: faults
  namespaceSelector: {{}}
  preemption: {{reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{{name: cpu, nominalQuota: 12}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: lq, namespace: {ns}}}
spec: {{clusterQueue: {team}}}
"
        );
    }
    crate::support::apply::apply_yaml(&client, &yaml, "default")
        .await
        .unwrap();
    // The service-account controller gives each namespace its `default` ServiceAccount.
    for ns in NAMESPACES {
        let sas = Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(client.clone(), ns);
        crate::support::eventually(
            Some(&cluster),
            Duration::from_secs(60),
            "default SA",
            || async { sas.get_opt("default").await.ok().flatten().map(|_| ()) },
        )
        .await;
    }
    cluster
}

/// Creates Job `n`: team b's are mostly high priority (they reclaim what team a borrowed),
/// team a's mostly low; 1 to 4 CPUs; running 1 to 3 s. Retries while the API server is away.
pub async fn submit(client: &kube::Client, rng: &mut Rng, n: usize) {
    let team_b = rng.chance(35);
    let ns = NAMESPACES[team_b as usize];
    let high = if team_b {
        rng.chance(80)
    } else {
        rng.chance(15)
    };
    let cpu = rng.range(1, 4);
    let runs = rng.range(1000, 3000);
    let job: Job = serde_json::from_value(json!({
        "metadata": {"name": format!("job-{n}"), "labels": {
            "kueue.x-k8s.io/queue-name": "lq",
            "kueue.x-k8s.io/priority-class": if high { "high" } else { "low" }}},
        "spec": {"suspend": true, "backoffLimit": 100, "template": {
            "metadata": {"annotations": {POD_COMPLETE_DELAY: format!("{runs}ms")}},
            "spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu.to_string()}}}]}}},
    }))
    .unwrap();
    let api = Api::<Job>::namespaced(client.clone(), ns);
    loop {
        match api.create(&PostParams::default(), &job).await {
            Ok(_) => return,
            Err(kube::Error::Api(e)) if e.code == 409 => return,
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The controller as a Deployment keeps it: started again whenever it exits.
pub struct Supervisor<'a> {
    cluster: &'a Cluster,
    args: Vec<String>,
    pub current: Controller,
    pub starts: usize,
    /// Exits the supervisor found (not counting the kills it made itself).
    pub exits: usize,
}

impl<'a> Supervisor<'a> {
    pub fn start(cluster: &'a Cluster, args: &[&str]) -> Supervisor<'a> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let current = Self::spawn(cluster, &args, 0);
        Supervisor {
            cluster,
            args,
            current,
            starts: 1,
            exits: 0,
        }
    }

    fn spawn(cluster: &Cluster, args: &[String], n: usize) -> Controller {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        start_controller(cluster, &format!("controller-{n}"), &a)
    }

    /// SIGKILLs the controller and starts the next one at once.
    pub fn kill_and_restart(&mut self) {
        self.current.signal(libc::SIGKILL);
        self.current.wait_exit(Duration::from_secs(10));
        self.current = Self::spawn(self.cluster, &self.args, self.starts);
        self.starts += 1;
    }

    /// Starts the controller again if it exited on its own.
    pub fn keep_running(&mut self) {
        if let Some(st) = self.current.proc.exited() {
            eprintln!(
                "faults: controller-{} exited ({st}); starting it again",
                self.starts - 1
            );
            self.exits += 1;
            self.current = Self::spawn(self.cluster, &self.args, self.starts);
            self.starts += 1;
        }
    }
}

/// Jobs complete so far, of all the fault namespaces; `None` while the API server is away.
pub async fn complete(client: &kube::Client) -> Option<usize> {
    complete_in(client, &NAMESPACES).await
}

/// Jobs complete so far in `namespaces`; `None` while the API server is away.
async fn complete_in(client: &kube::Client, namespaces: &[&str]) -> Option<usize> {
    let mut n = 0;
    for &ns in namespaces {
        let jobs = Api::<Job>::namespaced(client.clone(), ns)
            .list(&ListParams::default())
            .await
            .ok()?;
        n += jobs.items.iter().filter(|j| is_complete(j)).count();
    }
    Some(n)
}

fn is_complete(j: &Job) -> bool {
    j.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| {
            c.iter()
                .any(|c| c.type_ == "Complete" && c.status == "True")
        })
}

/// Each Job not complete, as the API server has it: the Job's suspend flag, counts and
/// conditions, its Workload's conditions and admission, its pods' phases; so a run that does
/// not drain says where each Job is stuck.
async fn unfinished(client: &kube::Client, namespaces: &[&str]) -> String {
    use k8s_openapi::api::core::v1::Pod;
    use std::fmt::Write;
    let mut out = String::new();
    for &ns in namespaces {
        let (Ok(jobs), Ok(wls), Ok(pods)) = (
            Api::<Job>::namespaced(client.clone(), ns)
                .list(&ListParams::default())
                .await,
            Api::<Workload>::namespaced(client.clone(), ns)
                .list(&ListParams::default())
                .await,
            Api::<Pod>::namespaced(client.clone(), ns)
                .list(&ListParams::default())
                .await,
        ) else {
            let _ = writeln!(out, "  {ns}: the API server did not answer");
            continue;
        };
        for j in jobs.items.iter().filter(|j| !is_complete(j)) {
            let name = j.metadata.name.clone().unwrap_or_default();
            let uid = j.metadata.uid.clone().unwrap_or_default();
            let st = j.status.clone().unwrap_or_default();
            let conds: Vec<String> = st
                .conditions
                .iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{}={} {}",
                        c.type_,
                        c.status,
                        c.reason.clone().unwrap_or_default()
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "  job {ns}/{name}: suspend={:?} active={:?} succeeded={:?} failed={:?} [{}]",
                j.spec.as_ref().and_then(|s| s.suspend),
                st.active,
                st.succeeded,
                st.failed,
                conds.join(", ")
            );
            let owned = |refs: &Option<
                Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>,
            >| { refs.iter().flatten().any(|r| r.uid == uid) };
            for w in wls
                .items
                .iter()
                .filter(|w| owned(&w.metadata.owner_references))
            {
                let ws = w.status.clone().unwrap_or_default();
                let conds: Vec<String> = ws
                    .conditions
                    .iter()
                    .map(|c| format!("{}={} {}", c.type_, c.status, c.reason))
                    .collect();
                let _ = writeln!(
                    out,
                    "    workload {}: admitted to {:?} [{}]",
                    w.metadata.name.clone().unwrap_or_default(),
                    ws.admission.as_ref().map(|a| a.cluster_queue.clone()),
                    conds.join(", ")
                );
            }
            for p in pods
                .items
                .iter()
                .filter(|p| owned(&p.metadata.owner_references))
            {
                let _ = writeln!(
                    out,
                    "    pod {}: {:?}{}",
                    p.metadata.name.clone().unwrap_or_default(),
                    p.status.as_ref().and_then(|s| s.phase.clone()),
                    if p.metadata.deletion_timestamp.is_some() {
                        " (terminating)"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    out
}

/// Waits (keeping the controller running) until `total` Jobs are complete; panics after
/// `timeout` with the progress, where each unfinished Job stands and the controller's log.
pub async fn drain(
    sup: &mut Supervisor<'_>,
    client: &kube::Client,
    total: usize,
    timeout: Duration,
) {
    drain_in(sup, client, &NAMESPACES, total, timeout).await
}

/// [`drain`] for the Jobs of `namespaces`.
pub async fn drain_in(
    sup: &mut Supervisor<'_>,
    client: &kube::Client,
    namespaces: &[&str],
    total: usize,
    timeout: Duration,
) {
    let deadline = Instant::now() + timeout;
    let mut last = 0;
    loop {
        sup.keep_running();
        if let Some(n) = complete_in(client, namespaces).await {
            last = n;
            if n >= total {
                return;
            }
        }
        if Instant::now() > deadline {
            panic!(
                "only {last} of {total} Jobs complete after {timeout:?}; the others:\n{}\ncontroller log:\n{}",
                unfinished(client, namespaces).await,
                sup.current.proc.log_tail(60)
            );
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Evictions recorded on the fault namespaces' Workloads (preemptions among them).
pub async fn evictions(client: &kube::Client) -> i64 {
    let mut n = 0;
    for ns in NAMESPACES {
        let wls = Api::<Workload>::namespaced(client.clone(), ns)
            .list(&ListParams::default())
            .await
            .map(|l| l.items)
            .unwrap_or_default();
        n += wls
            .iter()
            .filter_map(|w| w.status.as_ref()?.scheduling_stats.as_ref())
            .flat_map(|s| s.evictions.iter())
            .map(|e| e.count as i64)
            .sum::<i64>();
    }
    n
}

pub fn namespaces() -> Vec<String> {
    NAMESPACES.iter().map(|s| s.to_string()).collect()
}
