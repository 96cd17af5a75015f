//! Reads the cluster's Kueue objects, queue-labelled Jobs, Namespaces and Nodes into an
//! [`Inventory`], the same picture `simulate` builds from files.

use anyhow::Context;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Namespace, Node};
use kube::api::{Api, ListParams};
use kube::{Client, Resource};
use serde::de::DeserializeOwned;

use crate::api::{
    ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use crate::manifests::{Inventory, Origin, Sourced};

fn origin(kind: &str, order: &mut usize) -> Origin {
    *order += 1;
    Origin {
        file: format!("cluster ({kind})"),
        document: *order,
        order: *order,
    }
}

async fn list<K>(
    client: &Client,
    order: &mut usize,
    lp: &ListParams,
) -> anyhow::Result<Vec<Sourced<K>>>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
{
    let api: Api<K> = Api::all(client.clone());
    let kind = K::kind(&()).to_string();
    let items = api
        .list(lp)
        .await
        .with_context(|| format!("cannot list {kind} objects"))?;
    let mut out: Vec<Sourced<K>> = items
        .items
        .into_iter()
        .map(|obj| Sourced {
            obj,
            origin: Origin::default(),
        })
        .collect();
    // Creation order, then name: the cluster's notion of "earlier document".
    out.sort_by(|a, b| {
        let (ma, mb) = (a.obj.meta(), b.obj.meta());
        (
            ma.creation_timestamp.as_ref().map(|t| t.0),
            &ma.namespace,
            &ma.name,
        )
            .cmp(&(
                mb.creation_timestamp.as_ref().map(|t| t.0),
                &mb.namespace,
                &mb.name,
            ))
    });
    for s in &mut out {
        s.origin = origin(&kind, order);
    }
    Ok(out)
}

/// Lists everything scheduling depends on. `Cohort` objects are optional (clusters running
/// an older Kueue may not have the CRD).
pub async fn read_inventory(client: &Client) -> anyhow::Result<Inventory> {
    let mut order = 0;
    let all = ListParams::default();
    let mut inv = Inventory {
        flavors: list::<ResourceFlavor>(client, &mut order, &all).await?,
        cluster_queues: list::<ClusterQueue>(client, &mut order, &all).await?,
        local_queues: list::<LocalQueue>(client, &mut order, &all).await?,
        priority_classes: list::<WorkloadPriorityClass>(client, &mut order, &all).await?,
        workloads: list::<Workload>(client, &mut order, &all).await?,
        namespaces: list::<Namespace>(client, &mut order, &all).await?,
        nodes: list::<Node>(client, &mut order, &all).await?,
        ..Default::default()
    };
    inv.cohorts = match list::<Cohort>(client, &mut order, &all).await {
        Ok(c) => c,
        Err(e) => {
            inv.warnings.push(format!("Cohort objects not read: {e:#}"));
            Vec::new()
        }
    };
    let labelled = ListParams::default().labels(crate::api::QUEUE_NAME_LABEL);
    inv.jobs = list::<Job>(client, &mut order, &labelled).await?;
    Ok(inv)
}
