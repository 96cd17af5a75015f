//! Reading one `kueue.x-k8s.io` document (v1beta1 or v1beta2) or one `Configuration` into the
//! internal form, recording the version it was written in. A v1beta2 document is read with the
//! v1beta2 types, so a type error names its v1beta2 field path, checked against the rules
//! upstream's CRD would enforce where conversion relies on them, then converted by upstream's
//! rules.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use super::documents::Document;
use super::error::InputError;
use super::inventory::{Inventory, Sourced};
use super::key::ObjectKey;
use super::sources::KueueKind;
use crate::api::config::Configuration;
use crate::api::config::support;
use crate::api::v1beta2 as v2;
use crate::api::{KueueVersion, convert};

/// Deserializes the document as `T`, with the field path of any error.
pub(super) fn typed<T: DeserializeOwned>(doc: &Document, id: &str) -> Result<T, InputError> {
    crate::api::from_value::<T>(doc.value.clone()).map_err(|e| {
        InputError::new(&doc.origin, e.message)
            .object(id)
            .field(e.path)
    })
}

fn cluster_scoped(meta: &ObjectMeta) -> ObjectKey {
    ObjectKey::cluster_scoped(meta)
}

fn namespaced(meta: &ObjectMeta) -> ObjectKey {
    ObjectKey::namespaced(meta)
}

/// Reads a Kueue document of `kind` written in `version` into `inv`.
pub(super) fn read(
    inv: &mut Inventory,
    doc: &Document,
    id: &str,
    kind: KueueKind,
    version: KueueVersion,
) -> Result<(), InputError> {
    fn sourced<T>(doc: &Document, obj: T) -> Sourced<T> {
        Sourced {
            obj,
            origin: doc.origin.clone(),
        }
    }
    let v1 = version == KueueVersion::V1beta1;
    let key = match kind {
        KueueKind::ResourceFlavor => {
            let obj = if v1 {
                typed(doc, id)?
            } else {
                convert::resource_flavor::to_v1beta1(&typed(doc, id)?)
            };
            let key = cluster_scoped(&obj.metadata);
            inv.flavors.push(sourced(doc, obj));
            key
        }
        KueueKind::Cohort => {
            let obj = if v1 {
                typed(doc, id)?
            } else {
                convert::cohort::to_v1beta1(&typed(doc, id)?)
            };
            let key = cluster_scoped(&obj.metadata);
            inv.cohorts.push(sourced(doc, obj));
            key
        }
        KueueKind::LocalQueue => {
            let obj = if v1 {
                typed(doc, id)?
            } else {
                convert::local_queue::to_v1beta1(&typed(doc, id)?)
            };
            let key = namespaced(&obj.metadata);
            inv.local_queues.push(sourced(doc, obj));
            key
        }
        KueueKind::WorkloadPriorityClass => {
            let obj = if v1 {
                typed(doc, id)?
            } else {
                convert::workload_priority_class::to_v1beta1(&typed(doc, id)?)
            };
            let key = cluster_scoped(&obj.metadata);
            inv.priority_classes.push(sourced(doc, obj));
            key
        }
        KueueKind::ClusterQueue if v1 => {
            let obj: crate::api::ClusterQueue = typed(doc, id)?;
            let key = cluster_scoped(&obj.metadata);
            inv.cluster_queues.push(sourced(doc, obj));
            key
        }
        KueueKind::ClusterQueue => {
            let original: v2::ClusterQueue = typed(doc, id)?;
            let key = cluster_scoped(&original.metadata);
            inv.cluster_queues
                .push(sourced(doc, convert::cluster_queue::to_v1beta1(&original)));
            inv.sources.keep_cluster_queue(key.clone(), original);
            key
        }
        KueueKind::Workload if v1 => {
            let obj: crate::api::Workload = typed(doc, id)?;
            let key = namespaced(&obj.metadata);
            inv.workloads.push(sourced(doc, obj));
            key
        }
        KueueKind::Workload => {
            let original: v2::Workload = typed(doc, id)?;
            check_topology(&original).map_err(|e| {
                InputError::new(&doc.origin, e.message)
                    .object(id)
                    .field(e.path)
            })?;
            let key = namespaced(&original.metadata);
            inv.workloads
                .push(sourced(doc, convert::workload::to_v1beta1(&original)));
            inv.sources.keep_workload(key.clone(), original);
            key
        }
    };
    inv.sources.record(kind, key, version);
    Ok(())
}

/// The slice rules of every topology assignment of a v1beta2 Workload.
fn check_topology(wl: &v2::Workload) -> Result<(), crate::api::FieldError> {
    let Some(admission) = wl.status.as_ref().and_then(|s| s.admission.as_ref()) else {
        return Ok(());
    };
    for (i, psa) in admission.pod_set_assignments.iter().enumerate() {
        if let Some(ta) = &psa.topology_assignment {
            let path = format!("status.admission.podSetAssignments[{i}].topologyAssignment");
            convert::topology::check(ta, &path)?;
        }
    }
    Ok(())
}

/// Reads a Configuration written in `version`: a v1beta1 one as written, a v1beta2 one with
/// v1beta2's defaults applied and converted, as upstream loads it. A field we do not act on
/// that would change decisions refuses it ([`support`]); the fields accepted but not acted on
/// are added to `warnings`.
pub(super) fn read_config(
    doc: &Document,
    id: &str,
    version: KueueVersion,
    warnings: &mut Vec<String>,
) -> Result<Configuration, InputError> {
    let (config, found) = match version {
        KueueVersion::V1beta1 => {
            let config = typed(doc, id)?;
            let mut found = support::check(&config);
            found
                .refused
                .extend(support::zero_pods_ready_timeout(&config));
            (config, found)
        }
        KueueVersion::V1beta2 => {
            let written: v2::config::Configuration = typed(doc, id)?;
            let mut found = support::check(&convert::config::to_v1beta1(&written));
            if let Some(v) = &written.visibility_server {
                found.refused.extend(support::visibility_server(v));
            }
            (convert::config::internal_from_v1beta2(written, None), found)
        }
    };
    let finding = |f: &support::Finding| {
        InputError::new(&doc.origin, f.message.clone())
            .object(id)
            .field(f.field.clone())
    };
    if let Some((first, rest)) = found.refused.split_first() {
        let mut e = finding(first);
        if !rest.is_empty() {
            let others: Vec<&str> = rest.iter().map(|f| f.field.as_str()).collect();
            e.message = format!("{} (also not supported: {})", e.message, others.join(", "));
        }
        return Err(e);
    }
    warnings.extend(found.warnings.iter().map(|f| finding(f).to_string()));
    Ok(config)
}
