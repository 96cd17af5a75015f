//! Which parts of a `Configuration` this product acts on. No field is ignored in silence:
//! a field that would make upstream Kueue decide differently from us (a feature we do not
//! implement, switched on) refuses the file, naming the field; a field that only configures
//! upstream's own machinery (TLS options, pprof, controller-runtime tuning) or that upstream
//! itself drops is accepted with a warning naming it.
//!
//! Acted on (no finding): `namespace`, `leaderElection` (its `resourceLock` must be `leases`,
//! the only lock upstream's leader election can take), `metrics.bindAddress`,
//! `metrics.enableClusterQueueResources`, `metrics.localQueueMetrics`, `health`,
//! `clientConnection`,
//! `manageJobsWithoutQueueName`, `managedJobsNamespaceSelector`, `fairSharing`,
//! `resources.excludeResourcePrefixes`, `resources.quotaCheckStrategy`,
//! `integrations.frameworks` with `batch/job`, `waitForPodsReady`, the `ConcurrentAdmission`,
//! `DisableWaitForPodsReady`, `LocalQueueMetrics`, `MetricsForCohorts` and
//! `MetricForWorkloadCreationLatency` feature gates, `webhook` and `internalCertManagement` (the
//! conversion webhook `run-controller` serves), v1beta2's `visibilityServer` (where
//! `run-controller` serves the visibility API; its values are checked as upstream does,
//! [`visibility_server`]).
//!
//! Values upstream's validation rejects refuse the file too ([`invalid_values`]), naming the
//! field as upstream does.
//!
//! Data in (the internal Configuration as written, before defaults: a v1beta2 file is
//! checked on its conversion without v1beta2's defaults), findings out.

use super::Configuration;
use crate::api::v1beta2::config::VisibilityServer;

/// One field and what we do not do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The field path, as written in the file.
    pub field: String,
    pub message: String,
}

/// The findings of [`check`]: fields that refuse the file, fields accepted with a warning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Support {
    pub refused: Vec<Finding>,
    pub warnings: Vec<Finding>,
}

/// Feature gates whose setting we act on.
const GATES_ACTED_ON: &[&str] = &[
    "ConcurrentAdmission",
    "DisableWaitForPodsReady",
    "LocalQueueMetrics",
    "MetricsForCohorts",
    "MetricForWorkloadCreationLatency",
];

/// The job framework we integrate.
const BATCH_JOB: &str = "batch/job";

impl Support {
    fn refuse(&mut self, field: &str, message: impl Into<String>) {
        self.refused.push(Finding {
            field: field.to_string(),
            message: message.into(),
        });
    }

    fn warn(&mut self, field: &str, message: impl Into<String>) {
        self.warnings.push(Finding {
            field: field.to_string(),
            message: message.into(),
        });
    }
}

/// What of `c` (the fields as written, before any defaulting) we do not act on.
pub fn check(c: &Configuration) -> Support {
    let mut s = Support::default();
    s.refused.extend(invalid_values(c));
    features_we_lack(c, &mut s);
    leader_election(c, &mut s);
    integrations(c, &mut s);
    upstream_machinery(c, &mut s);
    s
}

/// Values upstream's `validateWaitForPodsReady` rejects (a negative count or number of
/// seconds; negative durations do not parse). A zero `timeout` is checked where the version
/// is known ([`zero_pods_ready_timeout`]): in v1beta2 zero means the default.
pub fn invalid_values(c: &Configuration) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(w) = c.wait_for_pods_ready.as_ref().filter(|w| w.enable) else {
        return out;
    };
    let Some(r) = &w.requeuing_strategy else {
        return out;
    };
    for (name, v) in [
        ("backoffLimitCount", r.backoff_limit_count),
        ("backoffBaseSeconds", r.backoff_base_seconds),
        ("backoffMaxSeconds", r.backoff_max_seconds),
    ] {
        if let Some(v) = v.filter(|v| *v < 0) {
            out.push(Finding {
                field: format!("waitForPodsReady.requeuingStrategy.{name}"),
                message: format!("Invalid value: {v}: must be greater than or equal to 0"),
            });
        }
    }
    out
}

/// A v1beta1 file's `waitForPodsReady.timeout: 0s` with `enable: true`: upstream keeps the
/// zero through defaulting and its validation then asks for a value.
pub fn zero_pods_ready_timeout(c: &Configuration) -> Option<Finding> {
    let w = c.wait_for_pods_ready.as_ref().filter(|w| w.enable)?;
    w.timeout.filter(|t| t.is_zero()).map(|_| Finding {
        field: "waitForPodsReady.timeout".to_string(),
        message: "Required value: must be specified".to_string(),
    })
}

/// The values of a v1beta2 file's `visibilityServer` upstream's validation rejects: an address
/// that is not an IP, a port outside 1-65535. (v1beta1 has no such field.)
pub fn visibility_server(v: &VisibilityServer) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(a) = &v.bind_address
        && a.parse::<std::net::IpAddr>().is_err()
    {
        out.push(Finding {
            field: "visibilityServer.bindAddress".to_string(),
            message: format!("Invalid value: {a:?}: must be a valid IP address"),
        });
    }
    if let Some(p) = v.bind_port.filter(|p| !(1..=65535).contains(p)) {
        out.push(Finding {
            field: "visibilityServer.bindPort".to_string(),
            message: format!("Invalid value: {p}: must be a valid port number (1-65535)"),
        });
    }
    out
}

/// The lock upstream's leader election takes: client-go knows `leases` only and fails to
/// start with any other (`Invalid lock-type`). With `leaderElect: false` no lock is taken,
/// upstream's or ours, and the field does nothing.
fn leader_election(c: &Configuration, s: &mut Support) {
    let Some(le) = &c.leader_election else { return };
    let Some(lock) = le.resource_lock.as_deref().filter(|l| !l.is_empty()) else {
        return;
    };
    if lock == super::DEFAULT_LEADER_ELECTION_RESOURCE_LOCK {
        return;
    }
    if le.leader_elect == Some(false) {
        s.warn(
            "leaderElection.resourceLock",
            format!("{lock:?} is not used: leaderElection.leaderElect is false"),
        );
    } else {
        s.refuse(
            "leaderElection.resourceLock",
            format!(
                "not supported: {lock:?}; the only lock upstream Kueue and kubectl-kueue take is \"{}\" (a Lease)",
                super::DEFAULT_LEADER_ELECTION_RESOURCE_LOCK
            ),
        );
    }
}

/// Features that change what is admitted or evicted: on, they refuse the file.
fn features_we_lack(c: &Configuration, s: &mut Support) {
    if c.admission_fair_sharing.is_some() {
        s.refuse(
            "admissionFairSharing",
            "not supported: kubectl-kueue does not order workloads by their LocalQueue's past usage",
        );
    }
    if c.multi_kueue.is_some() {
        s.refuse(
            "multiKueue",
            "not supported: kubectl-kueue does not dispatch workloads to worker clusters",
        );
    }
    if let Some(r) = &c.resources {
        if !r.transformations.is_empty() {
            s.refuse(
                "resources.transformations",
                "not supported: kubectl-kueue counts requested resources as requested",
            );
        }
        if r.device_class_mappings.as_ref().is_some_and(non_empty) {
            s.refuse(
                "resources.deviceClassMappings",
                "not supported: kubectl-kueue does not count dynamic resource allocation (DRA) claims",
            );
        }
    }
    if c.object_retention_policies.as_ref().is_some_and(non_empty) {
        s.refuse(
            "objectRetentionPolicies",
            "not supported: kubectl-kueue does not delete finished or deactivated Workloads",
        );
    }
    if let Some(m) = &c.metrics
        && m.custom_labels.as_ref().is_some_and(non_empty)
    {
        s.refuse(
            "metrics.customLabels",
            "not supported: kubectl-kueue's metrics carry upstream's labels only",
        );
    }
    for (gate, on) in &c.feature_gates {
        if !GATES_ACTED_ON.contains(&gate.as_str()) {
            s.warn(
                &format!("featureGates.{gate}"),
                format!("set to {on}, but kubectl-kueue does not read this gate; it behaves as upstream v0.19 does with the gate at its default"),
            );
        }
    }
}

/// Which jobs are managed: only batch/v1 Jobs are.
fn integrations(c: &Configuration, s: &mut Support) {
    let Some(i) = &c.integrations else { return };
    if !i.frameworks.is_empty() && !i.frameworks.iter().any(|f| f == BATCH_JOB) {
        s.refuse(
            "integrations.frameworks",
            format!(
                "kubectl-kueue integrates {BATCH_JOB} only, and this list leaves it out ({})",
                i.frameworks.join(", ")
            ),
        );
    }
    let others: Vec<&str> = i
        .frameworks
        .iter()
        .map(String::as_str)
        .filter(|f| *f != BATCH_JOB)
        .collect();
    if !others.is_empty() && i.frameworks.iter().any(|f| f == BATCH_JOB) {
        s.warn(
            "integrations.frameworks",
            format!(
                "not integrated, their objects are not managed: {}",
                others.join(", ")
            ),
        );
    }
    if !i.external_frameworks.is_empty() {
        s.refuse(
            "integrations.externalFrameworks",
            "not supported: kubectl-kueue manages batch/v1 Jobs only",
        );
    }
    if i.pod_options.is_some() {
        s.warn(
            "integrations.podOptions",
            "deprecated, and dropped by upstream Kueue too (it configured the pod integration, which kubectl-kueue does not integrate)",
        );
    }
    if !i.label_keys_to_copy.is_empty() {
        s.refuse(
            "integrations.labelKeysToCopy",
            "not supported: kubectl-kueue does not copy Job labels to Workloads",
        );
    }
}

/// Settings of upstream's own servers and libraries: nothing of ours to configure.
fn upstream_machinery(c: &Configuration, s: &mut Support) {
    let ignored = "configures upstream Kueue's own process; kubectl-kueue ignores it";
    if c.tls.is_some() {
        s.warn("tls", ignored);
    }
    if c.pprof_bind_address
        .as_deref()
        .is_some_and(|a| !a.is_empty())
    {
        s.warn("pprofBindAddress", ignored);
    }
    if c.controller.is_some() {
        s.warn(
            "controller",
            format!("{ignored} (controller-runtime tuning)"),
        );
    }
    if c.queue_visibility.is_some() {
        s.warn(
            "queueVisibility",
            "deprecated, and dropped by upstream Kueue too",
        );
    }
}

fn non_empty(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Array(a) => !a.is_empty(),
        serde_json::Value::Object(o) => o.values().any(non_empty),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> Configuration {
        crate::api::from_yaml_str(yaml).expect("valid Configuration")
    }

    fn fields(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.field.as_str()).collect()
    }

    #[test]
    fn what_we_act_on_gives_no_finding() {
        let c = config(
            "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nnamespace: kueue-system\nleaderElection: {leaderElect: true, resourceLock: leases}\nmetrics: {bindAddress: ':8443', enableClusterQueueResources: true, localQueueMetrics: {enable: true, localQueueSelector: {matchLabels: {team: a}}}}\nhealth: {healthProbeBindAddress: ':8081'}\nclientConnection: {qps: 50, burst: 100}\nmanageJobsWithoutQueueName: true\nfairSharing: {enable: true}\nresources: {excludeResourcePrefixes: [example.com/]}\nintegrations: {frameworks: [batch/job]}\nwaitForPodsReady: {enable: true, timeout: 5m, blockAdmission: true, recoveryTimeout: 1m, requeuingStrategy: {timestamp: Creation, backoffLimitCount: 3, backoffBaseSeconds: 10, backoffMaxSeconds: 300}}\nfeatureGates: {ConcurrentAdmission: false, LocalQueueMetrics: true, MetricsForCohorts: false, MetricForWorkloadCreationLatency: false}\n",
        );
        assert_eq!(check(&c), Support::default());
    }

    #[test]
    fn local_queue_metrics_follow_the_gate_and_the_field_as_upstream() {
        let with_defaults = |yaml: &str| config(yaml).with_defaults(None);
        // No file's worth of settings: on for every LocalQueue (gate on since v0.17, the
        // field defaulted to enable: true).
        assert_eq!(with_defaults("{}").local_queue_metrics(), Some(None));
        assert_eq!(
            with_defaults("metrics: {localQueueMetrics: {enable: false}}").local_queue_metrics(),
            None
        );
        assert_eq!(
            with_defaults("featureGates: {LocalQueueMetrics: false}").local_queue_metrics(),
            None
        );
        let c = with_defaults(
            "metrics: {localQueueMetrics: {enable: true, localQueueSelector: {matchLabels: {team: a}}}}",
        );
        let selector = c.local_queue_metrics().expect("on").expect("a selector");
        assert_eq!(
            selector.match_labels.as_ref().and_then(|m| m.get("team")),
            Some(&"a".to_string())
        );
    }

    #[test]
    fn features_that_change_decisions_refuse_the_file() {
        let c = config(
            "admissionFairSharing: {usageHalfLifeTime: 1h}\nmultiKueue: {gcInterval: 1m}\nresources: {transformations: [{input: nvidia.com/mig-1g.5gb, outputs: {nvidia.com/gpu: 1}}]}\nobjectRetentionPolicies: {workloads: {afterFinished: 1h}}\nintegrations: {frameworks: [batch/job], labelKeysToCopy: [team]}\nmetrics: {customLabels: [{name: team, sourceLabelKey: team}]}\n",
        );
        let s = check(&c);
        assert_eq!(
            fields(&s.refused),
            [
                "admissionFairSharing",
                "multiKueue",
                "resources.transformations",
                "objectRetentionPolicies",
                "metrics.customLabels",
                "integrations.labelKeysToCopy",
            ]
        );
        assert!(s.refused[0].message.starts_with("not supported: "));
    }

    #[test]
    fn upstreams_default_file_is_accepted_with_warnings() {
        // The shape of upstream's shipped controller_manager_config.yaml.
        let c = config(
            "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nhealth: {healthProbeBindAddress: ':8081'}\nmetrics: {bindAddress: ':8443'}\nwebhook: {port: 9443}\nleaderElection: {leaderElect: true, resourceName: c1f6bfd2.kueue.x-k8s.io}\ncontroller: {groupKindConcurrency: {Job.batch: 5, Workload.kueue.x-k8s.io: 5}}\nclientConnection: {qps: 50, burst: 100}\nintegrations: {frameworks: [batch/job, kubeflow.org/mpijob, ray.io/rayjob, jobset.x-k8s.io/jobset]}\n",
        );
        let s = check(&c);
        assert!(s.refused.is_empty(), "{:?}", s.refused);
        assert_eq!(
            fields(&s.warnings),
            ["integrations.frameworks", "controller"]
        );
        assert!(
            s.warnings[0]
                .message
                .contains("kubeflow.org/mpijob, ray.io/rayjob")
        );
    }

    #[test]
    fn negative_backoff_values_refuse_the_file_naming_the_field() {
        let c = config(
            "waitForPodsReady: {enable: true, requeuingStrategy: {backoffLimitCount: -1, backoffBaseSeconds: 5, backoffMaxSeconds: -2}}\n",
        );
        let s = check(&c);
        assert_eq!(
            fields(&s.refused),
            [
                "waitForPodsReady.requeuingStrategy.backoffLimitCount",
                "waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
            ]
        );
        assert_eq!(
            s.refused[0].message,
            "Invalid value: -1: must be greater than or equal to 0"
        );
        // Off: not validated, as upstream.
        let off = config(
            "waitForPodsReady: {enable: false, requeuingStrategy: {backoffLimitCount: -1}}\n",
        );
        assert!(check(&off).refused.is_empty());
        let zero = config("waitForPodsReady: {enable: true, timeout: 0s}\n");
        assert_eq!(
            zero_pods_ready_timeout(&zero).map(|f| f.field),
            Some("waitForPodsReady.timeout".to_string())
        );
        assert_eq!(
            zero_pods_ready_timeout(&config("waitForPodsReady: {enable: true}\n")),
            None
        );
    }

    #[test]
    fn a_lock_other_than_leases_refuses_the_file_naming_the_field() {
        let c = config("leaderElection: {leaderElect: true, resourceLock: configmaps}\n");
        let s = check(&c);
        assert_eq!(fields(&s.refused), ["leaderElection.resourceLock"]);
        assert!(s.refused[0].message.contains("\"configmaps\""));
        assert!(s.refused[0].message.starts_with("not supported: "));
        // leaderElect defaults to true: the lock is taken, so refused too.
        let c = config("leaderElection: {resourceLock: endpointsleases}\n");
        assert_eq!(fields(&check(&c).refused), ["leaderElection.resourceLock"]);
        // No election, no lock: named, not refused.
        let off = check(&config(
            "leaderElection: {leaderElect: false, resourceLock: configmaps}\n",
        ));
        assert!(off.refused.is_empty());
        assert_eq!(fields(&off.warnings), ["leaderElection.resourceLock"]);
        // Leases, or nothing written (the default): no finding.
        for ok in [
            "leaderElection: {resourceLock: leases}\n",
            "leaderElection: {resourceLock: ''}\n",
        ] {
            assert_eq!(check(&config(ok)), Support::default(), "{ok}");
        }
    }

    #[test]
    fn pod_options_are_named_as_dropped() {
        let c = config(
            "integrations: {frameworks: [batch/job], podOptions: {namespaceSelector: {matchLabels: {a: b}}}}\n",
        );
        let s = check(&c);
        assert!(s.refused.is_empty());
        assert_eq!(fields(&s.warnings), ["integrations.podOptions"]);
        assert!(s.warnings[0].message.contains("dropped by upstream"));
    }

    #[test]
    fn visibility_server_values_upstream_rejects_refuse_the_file() {
        let v = |yaml: &str| -> VisibilityServer { crate::api::from_yaml_str(yaml).unwrap() };
        assert!(visibility_server(&v("{bindAddress: 127.0.0.1, bindPort: 9082}")).is_empty());
        assert!(visibility_server(&v("{bindAddress: '::1'}")).is_empty());
        let bad = visibility_server(&v("{bindAddress: localhost, bindPort: 70000}"));
        assert_eq!(
            fields(&bad),
            ["visibilityServer.bindAddress", "visibilityServer.bindPort"]
        );
        assert_eq!(
            bad[1].message,
            "Invalid value: 70000: must be a valid port number (1-65535)"
        );
        assert_eq!(
            fields(&visibility_server(&v("{bindPort: 0}"))),
            ["visibilityServer.bindPort"]
        );
    }

    #[test]
    fn the_visibility_server_as_written_is_where_it_listens() {
        let v2: crate::api::v1beta2::config::Configuration = crate::api::from_yaml_str(
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nvisibilityServer: {bindAddress: 127.0.0.1, bindPort: 9082}\n",
        )
        .unwrap();
        let internal = crate::api::convert::config::internal_from_v1beta2(v2, None);
        let v = internal.visibility_server.as_ref().expect("kept");
        assert_eq!(v.address(), Some("127.0.0.1:9082".parse().unwrap()));
        // Defaulting again (as run-controller does) keeps it.
        assert_eq!(internal.clone().with_defaults(None), internal);
        // Only the port: all interfaces. Nothing written: not set (run-controller's own
        // default applies), although v1beta2's defaults give bindPort 8082.
        let port_only = VisibilityServer {
            bind_address: None,
            bind_port: None,
        };
        assert_eq!(port_only.address(), Some("0.0.0.0:8082".parse().unwrap()));
        let none = crate::api::convert::config::internal_from_v1beta2(
            crate::api::v1beta2::config::Configuration::default(),
            None,
        );
        assert_eq!(none.visibility_server, None);
        // A v1beta1 file cannot carry it.
        assert!(
            crate::api::from_yaml_str::<Configuration>("visibilityServer: {bindPort: 1}\n")
                .is_err()
        );
    }

    #[test]
    fn a_framework_list_without_batch_job_refuses_the_file() {
        let c = config("integrations: {frameworks: [kubeflow.org/mpijob]}\n");
        assert_eq!(fields(&check(&c).refused), ["integrations.frameworks"]);
    }

    #[test]
    fn gates_we_do_not_read_are_named() {
        let c =
            config("featureGates: {TopologyAwareScheduling: true, ConcurrentAdmission: true}\n");
        let s = check(&c);
        assert_eq!(
            fields(&s.warnings),
            ["featureGates.TopologyAwareScheduling"]
        );
    }
}
