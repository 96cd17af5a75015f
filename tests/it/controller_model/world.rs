//! A model under test with a pretend API server: a [`MemoryCache`] for the watches, a clock
//! that moves only when told, and [`World::perform`] doing what the API server would do with
//! each action (store the object with a new resourceVersion, then the watch notice), so a
//! test can run a story turn by turn and look at every plan on the way.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use kubectl_kueue::api::Workload;
use kubectl_kueue::controller::model::{
    Action, EventText, Input, MemoryCache, Model, Now, Settings, WriteError,
};
use kubectl_kueue::integration::job::JobStep;
use kubectl_kueue::kube::watch::Kind;
use kubectl_kueue::manifests::ObjectKey;
use kubectl_kueue::manifests::convert::time_from_millis;
use kubectl_kueue::metrics::MetricUpdate;
use kubectl_kueue::scheduler::key::WorkloadKey;
use serde_json::{Value, json};

pub struct World {
    pub model: Model,
    pub cache: MemoryCache,
    pub now: Now,
    /// Events published so far: (object name, text).
    pub events: Vec<(String, EventText)>,
    pub metrics: Vec<MetricUpdate>,
    /// Jobs the API server has but the (queue-labelled) Job watch does not show.
    pub unwatched_jobs: BTreeMap<ObjectKey, Job>,
    /// Workloads the API server holds newer than the watch has delivered (a lagging watch):
    /// writes and reads see these, the model's cache does not.
    pub behind_the_watch: BTreeMap<WorkloadKey, Workload>,
    next_rv: u64,
}

pub fn key(ns: &str, name: &str) -> WorkloadKey {
    WorkloadKey::new(ns, name)
}

pub fn job_key(ns: &str, name: &str) -> ObjectKey {
    ObjectKey {
        namespace: Some(ns.into()),
        name: name.into(),
    }
}

/// RFC 7386 JSON merge patch.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = json!({});
            }
            let t = target.as_object_mut().unwrap();
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        _ => *target = patch.clone(),
    }
}

impl World {
    pub fn new() -> World {
        World::with(Settings::default())
    }

    pub fn with(settings: Settings) -> World {
        World {
            model: Model::new(settings),
            cache: MemoryCache::default(),
            now: Now {
                wall: 1_767_225_600_000,
                instant: Instant::now(),
            },
            events: Vec::new(),
            metrics: Vec::new(),
            unwatched_jobs: BTreeMap::new(),
            behind_the_watch: BTreeMap::new(),
            next_rv: 100,
        }
    }

    pub fn rv(&mut self) -> String {
        self.next_rv += 1;
        self.next_rv.to_string()
    }

    pub fn advance(&mut self, d: Duration) {
        self.now.wall += d.as_millis() as i64;
        self.now.instant += d;
    }

    /// The model's first look, after the caches are synced; returns the first turn's actions.
    pub fn start(&mut self) -> Vec<Action> {
        self.model.start(&self.cache, self.now);
        self.turn()
    }

    pub fn turn(&mut self) -> Vec<Action> {
        self.model.turn(&self.cache, self.now);
        self.model.take_actions()
    }

    /// One input, then a turn.
    pub fn input(&mut self, input: Input) -> Vec<Action> {
        self.model.handle(&self.cache, input, self.now);
        self.turn()
    }

    pub fn tick(&mut self) -> Vec<Action> {
        self.input(Input::Tick)
    }

    /// An object changed in the cluster: into the cache, and its watch notice.
    pub fn put_workload(&mut self, mut w: Workload) -> Vec<Action> {
        w.metadata.resource_version = Some(self.rv());
        let key = ObjectKey::namespaced(&w.metadata);
        self.cache.put_workload(w);
        self.input(Input::Changed {
            kind: Kind::Workload,
            key,
        })
    }

    /// Someone else writes a Workload and the watch lags: the API server has the new
    /// version, the model's cache the old one, until [`World::deliver`].
    pub fn write_behind_the_watch(&mut self, mut w: Workload) {
        w.metadata.resource_version = Some(self.rv());
        let k = key(
            w.metadata.namespace.as_deref().unwrap_or_default(),
            w.metadata.name.as_deref().unwrap_or_default(),
        );
        self.behind_the_watch.insert(k, w);
    }

    /// The watch catches up with a Workload written behind it.
    pub fn deliver(&mut self, key: &WorkloadKey) -> Vec<Action> {
        let w = self
            .behind_the_watch
            .remove(key)
            .expect("written behind the watch");
        self.cache.put_workload(w);
        self.input(changed(Kind::Workload, key))
    }

    /// The API server's copy of a Workload: newer than the cache's when the watch lags.
    fn api_workload(&self, key: &WorkloadKey) -> Option<Workload> {
        self.behind_the_watch
            .get(key)
            .cloned()
            .or_else(|| self.cache.workloads.get(key).map(|w| (**w).clone()))
    }

    pub fn put_job(&mut self, mut j: Job) -> Vec<Action> {
        j.metadata.resource_version = Some(self.rv());
        let key = ObjectKey::namespaced(&j.metadata);
        self.cache.put_job(j);
        self.input(Input::Changed {
            kind: Kind::Job,
            key,
        })
    }

    pub fn workload(&self, ns: &str, name: &str) -> Arc<Workload> {
        self.cache.workloads[&key(ns, name)].clone()
    }

    pub fn job(&self, ns: &str, name: &str) -> Arc<Job> {
        self.cache.jobs[&job_key(ns, name)].clone()
    }

    /// What the API server answers to `action` when it succeeds (after updating the cache),
    /// followed by the watch notices; Events and metrics are recorded.
    pub fn perform(&mut self, action: &Action) -> Vec<Input> {
        match action {
            Action::WriteWorkloadStatus { key, write, object } => {
                let mut w = self.api_workload(key).expect("the written Workload exists");
                // As the API server: a status apply carrying a resourceVersion other than the
                // stored one is refused (the shell sends the copy's resourceVersion).
                if object.metadata.resource_version.is_some()
                    && object.metadata.resource_version != w.metadata.resource_version
                {
                    return vec![Input::WorkloadWritten {
                        key: key.clone(),
                        result: Err(WriteError::Conflict),
                    }];
                }
                w.status = Some(write.status.clone());
                w.metadata.resource_version = Some(self.rv());
                // The watch delivers in order: this write's notice brings what was behind it.
                self.behind_the_watch.remove(key);
                self.cache.put_workload(w.clone());
                vec![
                    Input::WorkloadWritten {
                        key: key.clone(),
                        result: Ok(w),
                    },
                    changed(Kind::Workload, key),
                ]
            }
            Action::CreateWorkload { job, workload } => {
                let mut w = (**workload).clone();
                let name = w.metadata.name.clone().unwrap();
                w.metadata.uid = Some(format!("uid-{name}"));
                w.metadata.resource_version = Some(self.rv());
                w.metadata.creation_timestamp = Some(time_from_millis(self.now.wall));
                let key = ObjectKey::workload(&w.metadata);
                self.cache.put_workload(w.clone());
                vec![
                    Input::WorkloadCreated {
                        job: job.clone(),
                        result: Ok(w),
                    },
                    changed(Kind::Workload, &key),
                ]
            }
            Action::RemoveFinalizer { key, finalizer, .. } => {
                let mut w = (*self.cache.workloads[key]).clone();
                if let Some(f) = w.metadata.finalizers.as_mut() {
                    f.retain(|x| x != finalizer);
                }
                w.metadata.resource_version = Some(self.rv());
                let gone = w.metadata.deletion_timestamp.is_some()
                    && w.metadata.finalizers.as_ref().is_none_or(|f| f.is_empty());
                if gone {
                    self.cache.workloads.remove(key);
                } else {
                    self.cache.put_workload(w.clone());
                }
                vec![
                    Input::WorkloadPatched {
                        key: key.clone(),
                        result: Ok(w),
                    },
                    changed(Kind::Workload, key),
                ]
            }
            Action::PatchWorkload { key, patch, .. } => {
                let mut v = serde_json::to_value(&*self.cache.workloads[key]).unwrap();
                merge(&mut v, patch);
                let mut w: Workload = serde_json::from_value(v).unwrap();
                w.metadata.resource_version = Some(self.rv());
                self.cache.put_workload(w.clone());
                vec![
                    Input::WorkloadPatched {
                        key: key.clone(),
                        result: Ok(w),
                    },
                    changed(Kind::Workload, key),
                ]
            }
            Action::DeleteWorkload { key, .. } => {
                let mut w = (*self.cache.workloads[key]).clone();
                w.metadata.resource_version = Some(self.rv());
                if w.metadata.finalizers.as_ref().is_none_or(|f| f.is_empty()) {
                    self.cache.workloads.remove(key);
                } else {
                    w.metadata.deletion_timestamp = Some(time_from_millis(self.now.wall));
                    self.cache.put_workload(w.clone());
                }
                vec![
                    Input::WorkloadPatched {
                        key: key.clone(),
                        result: Ok(w),
                    },
                    changed(Kind::Workload, key),
                ]
            }
            Action::WriteJob { key, steps, event } => {
                let mut last = None;
                let mut event = event.clone();
                let mut happened = None;
                for step in steps {
                    let (JobStep::Patch(p) | JobStep::PatchStatus(p) | JobStep::PatchAfter(p)) =
                        step;
                    let mut p = p.clone();
                    let current = &self.cache.jobs[key];
                    let guard = p["metadata"]["resourceVersion"].take();
                    if !guard.is_null()
                        && guard.as_str() != current.metadata.resource_version.as_deref()
                        && !matches!(step, JobStep::PatchAfter(_))
                    {
                        return vec![Input::JobWritten {
                            key: key.clone(),
                            result: Err(WriteError::Conflict),
                            event: happened,
                        }];
                    }
                    let mut v = serde_json::to_value(&**current).unwrap();
                    merge(&mut v, &p);
                    let mut j: Job = serde_json::from_value(v).unwrap();
                    j.metadata.resource_version = Some(self.rv());
                    self.cache.put_job(j.clone());
                    last = Some(j);
                    happened = happened.or_else(|| event.take());
                }
                vec![
                    Input::JobWritten {
                        key: key.clone(),
                        result: Ok(last),
                        event: happened,
                    },
                    Input::Changed {
                        kind: Kind::Job,
                        key: key.clone(),
                    },
                ]
            }
            Action::WriteClusterQueueStatus { key, .. }
            | Action::WriteLocalQueueStatus { key, .. } => vec![Input::QueueWritten {
                key: key.clone(),
                ok: true,
            }],
            Action::WriteQueueFinalizers {
                kind,
                name,
                resource_version,
                finalizers,
            } => {
                let rv = self.rv();
                let mut meta = match kind {
                    Kind::ClusterQueue => self.cache.cluster_queues[name].metadata.clone(),
                    _ => self.cache.flavors[name].metadata.clone(),
                };
                if meta.resource_version != *resource_version {
                    return vec![Input::QueueFinalizersWritten {
                        kind: *kind,
                        name: name.clone(),
                        result: Err(WriteError::Conflict),
                    }];
                }
                meta.finalizers = Some(finalizers.clone());
                meta.resource_version = Some(rv);
                let gone = meta.deletion_timestamp.is_some() && finalizers.is_empty();
                match kind {
                    Kind::ClusterQueue if gone => {
                        self.cache.cluster_queues.remove(name);
                    }
                    Kind::ClusterQueue => {
                        let mut cq = (*self.cache.cluster_queues[name]).clone();
                        cq.metadata = meta;
                        self.cache.put_cluster_queue(cq);
                    }
                    _ if gone => {
                        self.cache.flavors.remove(name);
                    }
                    _ => {
                        let mut rf = (*self.cache.flavors[name]).clone();
                        rf.metadata = meta;
                        self.cache.put_flavor(rf);
                    }
                }
                vec![
                    Input::QueueFinalizersWritten {
                        kind: *kind,
                        name: name.clone(),
                        result: Ok(()),
                    },
                    Input::Changed {
                        kind: *kind,
                        key: ObjectKey {
                            namespace: None,
                            name: name.clone(),
                        },
                    },
                ]
            }
            Action::ReadJob { key, workload } => vec![Input::JobRead {
                key: key.clone(),
                workload: workload.clone(),
                result: Ok(self
                    .cache
                    .jobs
                    .get(key)
                    .map(|j| (**j).clone())
                    .or_else(|| self.unwatched_jobs.get(key).cloned())),
            }],
            Action::ReadWorkload { key } => vec![Input::WorkloadRead {
                key: key.clone(),
                result: Ok(self.api_workload(key)),
            }],
            Action::Event { about, text } => {
                self.events
                    .push((about.name.clone().unwrap_or_default(), text.clone()));
                Vec::new()
            }
            Action::Metric(m) => {
                self.metrics.push(m.clone());
                Vec::new()
            }
        }
    }

    /// Performs `actions` as the API server would and feeds every answer back, turn by turn,
    /// until the model has nothing more to do. Returns every action seen on the way.
    pub fn settle(&mut self, actions: Vec<Action>) -> Vec<Action> {
        self.settle_within(actions, 100)
    }

    /// [`World::settle`] in at most `rounds` rounds of answers (background writes go out one
    /// at a time: a thousand waiting Workloads need a thousand rounds).
    pub fn settle_within(&mut self, mut actions: Vec<Action>, rounds: usize) -> Vec<Action> {
        let mut seen = Vec::new();
        for _ in 0..rounds {
            if actions.is_empty() {
                return seen;
            }
            let mut inputs = Vec::new();
            for a in &actions {
                inputs.extend(self.perform(a));
            }
            seen.append(&mut actions);
            for i in inputs {
                self.model.handle(&self.cache, i, self.now);
            }
            actions = self.turn();
        }
        panic!("the model did not settle: {seen:#?}");
    }

    /// Like [`World::settle`], but stops at the first batch of actions holding one that
    /// `pred` picks, and returns that batch unperformed.
    pub fn settle_until(
        &mut self,
        mut actions: Vec<Action>,
        pred: impl Fn(&Action) -> bool,
    ) -> Vec<Action> {
        for _ in 0..100 {
            if actions.iter().any(&pred) {
                return actions;
            }
            assert!(!actions.is_empty(), "settled without the action looked for");
            let mut inputs = Vec::new();
            for a in &actions {
                inputs.extend(self.perform(a));
            }
            for i in inputs {
                self.model.handle(&self.cache, i, self.now);
            }
            actions = self.turn();
        }
        panic!("the model did not settle");
    }

    /// The events published about `name`, as (reason, note).
    pub fn events_of(&self, name: &str) -> Vec<(String, String)> {
        self.events
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, t)| (t.reason.clone(), t.note.clone()))
            .collect()
    }
}

pub fn changed(kind: Kind, key: &WorkloadKey) -> Input {
    Input::Changed {
        kind,
        key: ObjectKey {
            namespace: Some(key.namespace.clone()),
            name: key.name.clone(),
        },
    }
}

/// The status writes among `actions`, by Workload name.
pub fn status_writes(
    actions: &[Action],
) -> BTreeMap<String, Vec<&kubectl_kueue::controller::model::StatusWrite>> {
    let mut out: BTreeMap<String, Vec<_>> = BTreeMap::new();
    for a in actions {
        if let Action::WriteWorkloadStatus { key, write, .. } = a {
            out.entry(key.name.clone()).or_default().push(&**write);
        }
    }
    out
}
