//! The controller's Events (events.k8s.io/v1), sent off the write path the way client-go's
//! broadcaster does it for upstream: [`EventSink::send`] never waits, a bounded queue
//! ([`QUEUE`] events, as client-go's) drops what does not fit (counted, logged), and a
//! worker publishes them one at a time ([`IN_FLIGHT`], as client-go's sink goroutine does),
//! outside the writes' token bucket, so an Event never holds up a write that admits, evicts
//! or starts something, and a saturated API server gets at most one Event request of ours at
//! a time (measured at half the baseline: 8 in flight took a tenth of the API server's
//! capacity from admissions and their `Finished` marks).
//!
//! The same Event (object, type, reason, note) again within [`SERIES_WINDOW`] becomes a
//! series on the first one (a patch of `series.count`/`lastObservedTime`), as the events API
//! asks of recorders. The series cache forgets entries in arrival order, so each send costs
//! O(1) amortized however many Events are remembered (kube's recorder scans its whole cache
//! on every publish).
//!
//! Invariants: nothing is sent when the fence is closed; a failed publish is logged at debug
//! and forgotten (Events are best effort, upstream's too).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::Client;
use kube::api::{Api, Patch, PatchParams, PostParams};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::discard::Discard;
use super::lease::Fence;

/// Events waiting to be published, at most (client-go's `maxQueuedEvents`).
pub const QUEUE: usize = 1000;
/// Publishes in flight at once: one, as client-go's broadcaster (its sink writes each Event
/// before it takes the next). The rest wait in the queue, and past [`QUEUE`] are dropped.
pub const IN_FLIGHT: usize = 1;
/// A repeat within this window is a series on the first Event.
pub const SERIES_WINDOW: Duration = Duration::from_secs(6 * 60);
/// Events remembered for series at most (client-go's recorder keeps 4,096 in its LRU): past
/// that the oldest is forgotten first, so the cache's memory is bounded however many
/// distinct Events a busy window brings (each workload's admission note is its own).
pub const SERIES_CAPACITY: usize = 4096;

/// One Event to publish.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub about: ObjectReference,
    pub warning: bool,
    pub reason: String,
    pub note: String,
}

/// The sending side; cheap to clone.
#[derive(Clone)]
pub struct EventSink {
    tx: mpsc::Sender<Outgoing>,
    dropped: Arc<AtomicU64>,
    /// Events queued or being published (a graceful stop waits for none before the lease
    /// is released).
    pending: Arc<AtomicU64>,
}

/// Who reports the Events.
#[derive(Debug, Clone)]
pub struct Reporter {
    pub controller: String,
    pub instance: String,
}

impl EventSink {
    /// Starts the worker on the current runtime.
    pub fn start(client: Client, reporter: Reporter, fence: Option<Fence>) -> EventSink {
        let (tx, rx) = mpsc::channel(QUEUE);
        let pending = Arc::new(AtomicU64::new(0));
        tokio::spawn(run(client, reporter, fence, rx, pending.clone()));
        EventSink {
            tx,
            dropped: Arc::new(AtomicU64::new(0)),
            pending,
        }
    }

    /// Events queued or being published now.
    pub fn pending(&self) -> u64 {
        self.pending.load(Ordering::SeqCst)
    }

    /// Queues an Event; drops it when the queue is full.
    pub fn send(&self, ev: Outgoing) {
        self.pending.fetch_add(1, Ordering::SeqCst);
        if self.tx.try_send(ev).is_err() {
            self.pending.fetch_sub(1, Ordering::SeqCst);
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(
                    dropped = n,
                    "the event queue is full; dropping events (as upstream's recorder does)"
                );
            }
        }
    }

    /// Events dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// What makes two Events the same.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SeriesKey {
    uid: Option<String>,
    namespace: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    warning: bool,
    reason: String,
    note: String,
}

impl SeriesKey {
    fn of(ev: &Outgoing) -> SeriesKey {
        SeriesKey {
            uid: ev.about.uid.clone(),
            namespace: ev.about.namespace.clone(),
            kind: ev.about.kind.clone(),
            name: ev.about.name.clone(),
            warning: ev.warning,
            reason: ev.reason.clone(),
            note: ev.note.clone(),
        }
    }
}

/// The first Event of a series and how often it happened.
struct Seen {
    namespace: String,
    name: String,
    count: i32,
    first: Instant,
}

/// Remembered Events, forgotten in arrival order after [`SERIES_WINDOW`] or beyond
/// [`SERIES_CAPACITY`].
#[derive(Default)]
struct SeriesCache {
    seen: HashMap<SeriesKey, Seen>,
    order: VecDeque<(Instant, SeriesKey)>,
}

impl SeriesCache {
    fn expire(&mut self, now: Instant) {
        while let Some((t, _)) = self.order.front() {
            if now.duration_since(*t) < SERIES_WINDOW && self.order.len() <= SERIES_CAPACITY {
                break;
            }
            self.forget_oldest();
        }
    }

    fn forget_oldest(&mut self) {
        if let Some((t, key)) = self.order.pop_front()
            && self.seen.get(&key).is_some_and(|s| s.first == t)
        {
            self.seen.remove(&key);
        }
    }

    /// A repeat: the first Event's namespace and name, and the new count.
    fn repeat(&mut self, key: &SeriesKey) -> Option<(String, String, i32)> {
        let s = self.seen.get_mut(key)?;
        s.count += 1;
        Some((s.namespace.clone(), s.name.clone(), s.count))
    }

    fn remember(&mut self, key: SeriesKey, namespace: String, name: String, now: Instant) {
        if self.order.len() >= SERIES_CAPACITY {
            self.forget_oldest();
        }
        self.order.push_back((now, key.clone()));
        self.seen.insert(
            key,
            Seen {
                namespace,
                name,
                count: 1,
                first: now,
            },
        );
    }
}

/// Cluster-scoped objects' Events go to `default`, as kube's and client-go's recorders do.
fn event_namespace(about: &ObjectReference) -> String {
    about
        .namespace
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

/// The Event object for a first occurrence.
fn event_object(ev: &Outgoing, reporter: &Reporter, namespace: &str, now: MicroTime) -> Event {
    let nanos = now.0.as_nanosecond();
    Event {
        metadata: ObjectMeta {
            namespace: Some(namespace.to_string()),
            name: Some(format!(
                "{}.{nanos:x}",
                ev.about.name.as_deref().unwrap_or(&reporter.controller)
            )),
            ..Default::default()
        },
        action: Some(ev.reason.clone()),
        reason: Some(ev.reason.clone()),
        note: Some(ev.note.clone()),
        event_time: Some(now),
        regarding: Some(ev.about.clone()),
        reporting_controller: Some(reporter.controller.clone()),
        reporting_instance: Some(reporter.instance.clone()),
        type_: Some(if ev.warning { "Warning" } else { "Normal" }.to_string()),
        ..Default::default()
    }
}

fn now_micro() -> MicroTime {
    MicroTime(k8s_openapi::jiff::Timestamp::now())
}

/// The fence again right before the request: a publish task may start a while after the
/// worker looked.
fn fenced(fence: &Option<Fence>) -> kube::Result<()> {
    match fence {
        Some(f) => f.check().map_err(|e| kube::Error::Service(Box::new(e))),
        None => Ok(()),
    }
}

async fn publish(client: Client, ev: Event, fence: Option<Fence>) -> kube::Result<()> {
    fenced(&fence)?;
    let ns = ev.metadata.namespace.clone().unwrap_or_default();
    // The answer is not read (only whether the create landed).
    Api::<Discard<Event>>::namespaced(client, &ns)
        .create(&PostParams::default(), &Discard::sending(ev))
        .await
        .map(|_| ())
}

async fn publish_repeat(
    client: Client,
    namespace: String,
    name: String,
    count: i32,
    fence: Option<Fence>,
) -> kube::Result<()> {
    fenced(&fence)?;
    let series = EventSeries {
        count,
        last_observed_time: now_micro(),
    };
    let patch = serde_json::json!({ "series": series });
    Api::<Discard<Event>>::namespaced(client, &namespace)
        .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map(|_| ())
}

async fn run(
    client: Client,
    reporter: Reporter,
    fence: Option<Fence>,
    mut rx: mpsc::Receiver<Outgoing>,
    pending: Arc<AtomicU64>,
) {
    let mut cache = SeriesCache::default();
    let mut running: JoinSet<(String, kube::Result<()>)> = JoinSet::new();
    let done = |r: Option<Result<(String, kube::Result<()>), _>>| {
        if let Some(Ok((reason, Err(e)))) = r {
            tracing::debug!(error = %e, reason, "cannot publish event");
        }
    };
    loop {
        let ev = tokio::select! {
            ev = rx.recv() => match ev {
                Some(ev) => ev,
                None => return,
            },
            r = running.join_next(), if !running.is_empty() => {
                done(r);
                pending.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
        };
        while running.len() >= IN_FLIGHT {
            done(running.join_next().await);
            pending.fetch_sub(1, Ordering::SeqCst);
        }
        if fence.as_ref().is_some_and(|f| f.check().is_err()) {
            pending.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let now = Instant::now();
        cache.expire(now);
        let key = SeriesKey::of(&ev);
        let client = client.clone();
        let reason = ev.reason.clone();
        let fence = fence.clone();
        match cache.repeat(&key) {
            Some((ns, name, count)) => {
                running.spawn(async move {
                    (reason, publish_repeat(client, ns, name, count, fence).await)
                });
            }
            None => {
                let namespace = event_namespace(&ev.about);
                let obj = event_object(&ev, &reporter, &namespace, now_micro());
                let name = obj.metadata.name.clone().unwrap_or_default();
                cache.remember(key, namespace, name, now);
                running.spawn(async move { (reason, publish(client, obj, fence).await) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(name: &str, note: &str) -> Outgoing {
        Outgoing {
            about: ObjectReference {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                uid: Some(format!("uid-{name}")),
                kind: Some("Workload".into()),
                ..Default::default()
            },
            warning: false,
            reason: "Pending".into(),
            note: note.into(),
        }
    }

    #[test]
    fn a_repeat_within_the_window_counts_on_the_first_event() {
        let mut c = SeriesCache::default();
        let t0 = Instant::now();
        let k = SeriesKey::of(&ev("a", "x"));
        assert!(c.repeat(&k).is_none());
        c.remember(k.clone(), "ns".into(), "a.1".into(), t0);
        assert_eq!(c.repeat(&k), Some(("ns".into(), "a.1".into(), 2)));
        assert_eq!(c.repeat(&k), Some(("ns".into(), "a.1".into(), 3)));
        // Another note is another Event.
        assert!(c.repeat(&SeriesKey::of(&ev("a", "y"))).is_none());
    }

    #[test]
    fn entries_are_forgotten_in_arrival_order_after_the_window() {
        let mut c = SeriesCache::default();
        let t0 = Instant::now();
        let (a, b) = (SeriesKey::of(&ev("a", "x")), SeriesKey::of(&ev("b", "x")));
        c.remember(a.clone(), "ns".into(), "a.1".into(), t0);
        c.remember(
            b.clone(),
            "ns".into(),
            "b.1".into(),
            t0 + Duration::from_secs(60),
        );
        c.expire(t0 + SERIES_WINDOW);
        assert!(c.repeat(&a).is_none());
        assert!(c.repeat(&b).is_some());
        c.expire(t0 + SERIES_WINDOW + Duration::from_secs(60));
        assert!(c.seen.is_empty() && c.order.is_empty());
    }

    #[test]
    fn at_capacity_the_oldest_entry_is_forgotten_first() {
        let mut c = SeriesCache::default();
        let t0 = Instant::now();
        let key = |i: usize| SeriesKey::of(&ev(&format!("w{i}"), "x"));
        for i in 0..SERIES_CAPACITY + 10 {
            c.remember(key(i), "ns".into(), format!("w{i}.1"), t0);
        }
        assert_eq!(
            (c.seen.len(), c.order.len()),
            (SERIES_CAPACITY, SERIES_CAPACITY)
        );
        assert!(c.repeat(&key(9)).is_none(), "the oldest ten are gone");
        assert!(c.repeat(&key(10)).is_some());
        assert!(c.repeat(&key(SERIES_CAPACITY + 9)).is_some());
    }

    #[test]
    fn cluster_scoped_objects_report_into_default() {
        let mut r = ev("cq", "x").about;
        r.namespace = None;
        assert_eq!(event_namespace(&r), "default");
        let o = event_object(
            &ev("a", "n"),
            &Reporter {
                controller: "c".into(),
                instance: "i".into(),
            },
            "ns",
            now_micro(),
        );
        assert_eq!(o.reason.as_deref(), Some("Pending"));
        assert_eq!(o.type_.as_deref(), Some("Normal"));
        assert!(o.metadata.name.unwrap().starts_with("a."));
    }
}
