//! The API server's floor (`scripts/perf.sh <scenario> --api-floor`): the same generator and
//! job side, but instead of `kubectl-kueue run-controller` an admitter that thinks nothing
//! and writes nothing else: every Workload it sees without a reservation gets one status
//! apply (`QuotaReserved` and `Admitted` with the admission, the shape our controller
//! writes), whatever the quota. The wall of that run is what the API server needs just to
//! create, admit and finish the scenario's Workloads on this machine; no controller can
//! do better on the same API server.

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};

use super::scenario::Arrival;

/// The field manager of the floor's admissions.
const MANAGER: &str = "perf-api-floor-admitter";

/// Admits the Workload of `a` (seen without a reservation; nothing else writes it here).
pub async fn admit(client: kube::Client, a: &Arrival) {
    let now = super::live::now_rfc3339();
    let cond = |ty: &str| {
        json!({ "type": ty, "status": "True", "reason": ty, "lastTransitionTime": now,
                "message": format!("Quota reserved in ClusterQueue {}", a.namespace) })
    };
    let body: Value = json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": { "name": a.name, "namespace": a.namespace },
        "status": {
            "conditions": [cond("QuotaReserved"), cond("Admitted")],
            "admission": { "clusterQueue": a.namespace, "podSetAssignments": [{
                "name": "main", "count": 1, "flavors": { "cpu": "rf" },
                "resourceUsage": { "cpu": format!("{}m", a.cpu_milli) },
            }] },
        },
    });
    let api: Api<DynamicObject> =
        Api::namespaced_with(client, &a.namespace, &super::live::workload_resource());
    let pp = PatchParams::apply(MANAGER).force();
    if let Err(e) = api.patch_status(&a.name, &pp, &Patch::Apply(&body)).await {
        eprintln!("perf: floor admission of {}/{}: {e}", a.namespace, a.name);
    }
}
