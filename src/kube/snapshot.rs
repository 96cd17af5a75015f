//! Reads the cluster's Kueue objects, queue-labelled Jobs, Namespaces, Nodes and the Pods
//! running on them into an [`Inventory`], the same picture `simulate` builds from files, and
//! the [`Snapshot`] the commands show; and a stream that ticks whenever one of the kinds
//! `status -w` shows changes. The Pods are read only when there are Nodes (the capacity check
//! needs both), in every namespace, bound and not finished (a field selector); a user who may
//! not list them gets the check on the nodes taken as empty and a warning, never a failure.
//! The Kueue kinds are read in v1beta2 when the cluster serves it (converted to the internal
//! form), else in v1beta1 ([`super::versions`]).

use anyhow::Context;
use futures::StreamExt;
use futures::stream::BoxStream;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use kube::api::{Api, ListParams};
use kube::runtime::watcher;
use kube::{Client, Resource};
use serde::de::DeserializeOwned;

use crate::api::{
    ClusterQueue, Cohort, KueueVersion, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass,
};
use crate::manifests::{Inventory, Origin, Sourced};
use crate::view::Snapshot;

use super::Connection;

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
    list_as::<K, K>(client, order, lp, K::clone).await
}

/// Lists `V` (the version served) and gives each as `K` (the internal form).
async fn list_as<V, K>(
    client: &Client,
    order: &mut usize,
    lp: &ListParams,
    convert: impl Fn(&V) -> K,
) -> anyhow::Result<Vec<Sourced<K>>>
where
    V: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
    K: Resource<DynamicType = ()>,
{
    let api: Api<V> = Api::all(client.clone());
    let kind = V::kind(&()).to_string();
    let items = api
        .list(lp)
        .await
        .with_context(|| format!("cannot list {kind} objects"))?;
    let mut out: Vec<Sourced<K>> = items
        .items
        .iter()
        .map(convert)
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

/// The Pods bound to a node and not finished, into `inv.pods`; when there are Nodes only
/// (without them nothing checks capacity). A list that fails (`list pods` forbidden) leaves
/// them unread, with a warning.
async fn read_running_pods(client: &Client, order: &mut usize, inv: &mut Inventory) {
    if inv.nodes.is_empty() {
        return;
    }
    let bound = ListParams::default()
        .fields("spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed");
    match list::<Pod>(client, order, &bound).await {
        Ok(pods) => inv.pods = pods,
        Err(e) => {
            let why = format!("{e:#}");
            inv.warnings.push(format!(
                "Pod objects not read ({why}): the capacity check takes the nodes as empty"
            ));
            inv.pods_unread = Some(why);
        }
    }
}

/// Lists everything scheduling depends on, and the Pods running on the Nodes. `Cohort`
/// objects are optional (clusters running an older Kueue may not have the CRD).
pub async fn read_inventory(client: &Client) -> anyhow::Result<Inventory> {
    read(client, true).await
}

/// [`read_inventory`] without the Pods (what needs no capacity check: the visibility API,
/// `history export`).
pub async fn read_inventory_without_pods(client: &Client) -> anyhow::Result<Inventory> {
    read(client, false).await
}

async fn read(client: &Client, pods: bool) -> anyhow::Result<Inventory> {
    let served = super::versions::served(client).await?;
    match super::versions::preferred(&served) {
        Some(KueueVersion::V1beta2) => return read_inventory_v1beta2(client, pods).await,
        Some(KueueVersion::V1beta1) => {}
        None => anyhow::bail!(
            "the cluster does not serve kueue.x-k8s.io (install Kueue's CRDs: kubectl kueue install, or upstream Kueue)"
        ),
    }
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
    // A Job's pod template may name a PriorityClass; a user who may not list them sees
    // those Jobs without a Workload.
    inv.pod_priority_classes = match list::<PriorityClass>(client, &mut order, &all).await {
        Ok(c) => c,
        Err(e) => {
            inv.warnings
                .push(format!("PriorityClass objects not read: {e:#}"));
            Vec::new()
        }
    };
    let labelled = ListParams::default().labels(crate::api::QUEUE_NAME_LABEL);
    inv.jobs = list::<Job>(client, &mut order, &labelled).await?;
    if pods {
        read_running_pods(client, &mut order, &mut inv).await;
    }
    Ok(inv)
}

/// [`read_inventory`] from a cluster that serves v1beta2: the Kueue kinds read in v1beta2
/// and converted to the internal form (upstream's conversion, what a v1beta1 read through
/// the conversion webhook gives).
async fn read_inventory_v1beta2(client: &Client, pods: bool) -> anyhow::Result<Inventory> {
    use crate::api::convert;
    use crate::api::v1beta2 as v2;
    let mut order = 0;
    let all = ListParams::default();
    let mut inv = Inventory {
        flavors: list_as(
            client,
            &mut order,
            &all,
            convert::resource_flavor::to_v1beta1,
        )
        .await?,
        cluster_queues: list_as(client, &mut order, &all, convert::cluster_queue::to_v1beta1)
            .await?,
        local_queues: list_as(client, &mut order, &all, convert::local_queue::to_v1beta1).await?,
        priority_classes: list_as(
            client,
            &mut order,
            &all,
            convert::workload_priority_class::to_v1beta1,
        )
        .await?,
        workloads: list_as(client, &mut order, &all, |w: &v2::Workload| {
            convert::workload::to_v1beta1(w)
        })
        .await?,
        cohorts: list_as(client, &mut order, &all, convert::cohort::to_v1beta1).await?,
        namespaces: list::<Namespace>(client, &mut order, &all).await?,
        nodes: list::<Node>(client, &mut order, &all).await?,
        ..Default::default()
    };
    inv.pod_priority_classes = match list::<PriorityClass>(client, &mut order, &all).await {
        Ok(c) => c,
        Err(e) => {
            inv.warnings
                .push(format!("PriorityClass objects not read: {e:#}"));
            Vec::new()
        }
    };
    let labelled = ListParams::default().labels(crate::api::QUEUE_NAME_LABEL);
    inv.jobs = list::<Job>(client, &mut order, &labelled).await?;
    if pods {
        read_running_pods(client, &mut order, &mut inv).await;
    }
    Ok(inv)
}

impl Connection {
    /// Everything scheduling depends on, as [`read_inventory`] reads it.
    pub async fn read_inventory(&self) -> anyhow::Result<Inventory> {
        read_inventory(&self.client).await
    }

    /// [`read_inventory_without_pods`].
    pub async fn read_inventory_without_pods(&self) -> anyhow::Result<Inventory> {
        read_inventory_without_pods(&self.client).await
    }

    /// The cluster read now, with the engine built on it.
    pub async fn snapshot(&self) -> anyhow::Result<Snapshot> {
        let inventory = self.read_inventory().await?;
        let now = k8s_openapi::jiff::Timestamp::now().as_millisecond();
        Ok(Snapshot::from_inventory(inventory, now)?)
    }

    /// [`Connection::snapshot`] without the Pods (no capacity check needs it).
    pub async fn snapshot_without_pods(&self) -> anyhow::Result<Snapshot> {
        let inventory = self.read_inventory_without_pods().await?;
        let now = k8s_openapi::jiff::Timestamp::now().as_millisecond();
        Ok(Snapshot::from_inventory(inventory, now)?)
    }

    /// One item per watch event on Workloads, ClusterQueues, LocalQueues and ResourceFlavors
    /// (errors included: the watchers retry); ends when every watch has ended.
    pub fn changes(&self) -> BoxStream<'static, ()> {
        let cfg = watcher::Config::default();
        let c = &self.watch_client;
        futures::stream::select_all(vec![
            watcher(Api::<Workload>::all(c.clone()), cfg.clone())
                .map(|_| ())
                .boxed(),
            watcher(Api::<ClusterQueue>::all(c.clone()), cfg.clone())
                .map(|_| ())
                .boxed(),
            watcher(Api::<LocalQueue>::all(c.clone()), cfg.clone())
                .map(|_| ())
                .boxed(),
            watcher(Api::<ResourceFlavor>::all(c.clone()), cfg)
                .map(|_| ())
                .boxed(),
        ])
        .boxed()
    }
}
