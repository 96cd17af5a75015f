//! Read-only queries the live controller needs beyond [`super::inspect`]: queue lengths split
//! the way upstream's `kueue_pending_workloads` gauge reports them.

use super::state::Engine;

/// Pending workloads of one ClusterQueue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCounts {
    pub cluster_queue: String,
    /// In the queue, to be tried (upstream status `active`).
    pub active: usize,
    /// Parked after a failed attempt until capacity frees (upstream status `inadmissible`).
    pub inadmissible: usize,
}

/// Pending workloads of one LocalQueue, split as [`PendingCounts`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalPendingCounts {
    pub active: usize,
    pub inadmissible: usize,
}

impl Engine {
    /// Per LocalQueue (namespace, name) with pending workloads, from the same queues as
    /// [`Engine::pending_counts`].
    pub fn local_pending_counts(
        &self,
    ) -> std::collections::BTreeMap<(String, String), LocalPendingCounts> {
        // Counted under borrowed names, owned once per queue at the end.
        let mut out: std::collections::BTreeMap<(&str, &str), LocalPendingCounts> =
            Default::default();
        for q in &self.queues {
            for (key, active) in q.entries() {
                let id = key.id;
                let Some(st) = self.wls[id].as_ref() else {
                    continue;
                };
                let c = out
                    .entry((st.w.namespace.as_str(), st.w.queue_name.as_str()))
                    .or_default();
                if active {
                    c.active += 1;
                } else {
                    c.inadmissible += 1;
                }
            }
        }
        out.into_iter()
            .map(|((ns, q), c)| ((ns.to_string(), q.to_string()), c))
            .collect()
    }

    /// Per ClusterQueue, in name order.
    pub fn pending_counts(&self) -> Vec<PendingCounts> {
        self.cqs
            .iter()
            .zip(&self.queues)
            .map(|(cq, q)| PendingCounts {
                cluster_queue: cq.name.clone(),
                active: q.active_len(),
                inadmissible: q.parked_len(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::scheduler::model::*;
    use crate::scheduler::quantity::Amount;
    use crate::scheduler::state::Engine;

    fn state(workloads: usize) -> ClusterState {
        let mut s = ClusterState::default();
        s.flavors.insert("f".into(), ResourceFlavor::default());
        s.cluster_queues.insert(
            "cq".into(),
            ClusterQueue {
                resource_groups: vec![ResourceGroup {
                    covered_resources: vec!["cpu".into()],
                    flavors: vec![FlavorQuotas {
                        name: "f".into(),
                        resources: vec![ResourceQuota {
                            name: "cpu".into(),
                            nominal: Amount::new(1000),
                            borrowing_limit: None,
                            lending_limit: None,
                        }],
                    }],
                }],
                ..Default::default()
            },
        );
        s.local_queues.insert(
            ("ns".into(), "lq".into()),
            LocalQueue {
                cluster_queue: "cq".into(),
                ..Default::default()
            },
        );
        for i in 0..workloads {
            s.workloads.push(Workload {
                namespace: "ns".into(),
                name: format!("w{i}"),
                queue_name: "lq".into(),
                active: true,
                queue_time: i as i64,
                tiebreak: i as u64,
                pod_sets: vec![PodSet {
                    name: "main".into(),
                    count: 1,
                    per_pod: BTreeMap::from([("cpu".into(), Amount::new(1000))]),
                    ..Default::default()
                }],
                ..Default::default()
            });
        }
        s
    }

    #[test]
    fn counts_split_queued_and_parked() {
        let mut e = Engine::new(state(3));
        assert_eq!(e.pending_counts()[0].active, 3);
        e.run_cycle(10);
        // One admitted, two still to try.
        assert_eq!(
            (
                e.pending_counts()[0].active,
                e.pending_counts()[0].inadmissible
            ),
            (2, 0)
        );
        e.run_cycle(20);
        // The next head did not fit and was parked with its equivalent.
        let c = &e.pending_counts()[0];
        assert_eq!((c.active, c.inadmissible), (0, 2));
        assert_eq!(c.cluster_queue, "cq");
    }
}
