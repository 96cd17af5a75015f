//! A reflector whose re-lists update its store in place.
//!
//! kube's `reflector` keeps a re-list's objects in a buffer of their own and swaps it in when
//! the list is complete: for as long as a re-list takes, the store is held twice. A watch is
//! re-listed when the API server answers 410 Gone, which it does when its own watch cache has
//! fallen behind, that is when it is saturated: at upstream's large-scale shape (50,000
//! Workloads on two cores) it did so about 260 s into the run, and the re-list took 11 s with
//! every stored Workload held twice. (RSS rose by 140 MiB after it with or without this module:
//! most of that rise had other causes, the README's "Finished Workloads slimmer".) Here the first
//! list goes through kube's way (it is what makes the store ready); a later re-list writes each
//! listed object into the live store as it comes, and once the list is complete, removes what
//! it did not list (deleted while the watch was down).
//!
//! Invariants: after every complete list the store holds exactly the listed objects, as with
//! kube's reflector; during a re-list it holds every object either as listed or as before,
//! never fewer. The events are passed on unchanged, so a consumer still sees `InitDone` after
//! every list. Data in: a watcher's event stream and the store's writer; data out: the same
//! stream, the store kept.

use std::collections::HashSet;

use futures::{Stream, StreamExt};
use kube::Resource;
use kube::runtime::reflector::{ObjectRef, Store, store::Writer};
use kube::runtime::watcher;

/// kube's `reflector::reflector`, but a re-list after the first list updates the store in
/// place (see the module's comment).
pub fn reflect_in_place<K, S>(
    mut writer: Writer<K>,
    reader: Store<K>,
    stream: S,
) -> impl Stream<Item = watcher::Result<watcher::Event<K>>>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
    S: Stream<Item = watcher::Result<watcher::Event<K>>>,
{
    let mut listed = false;
    let mut seen: HashSet<ObjectRef<K>> = HashSet::new();
    stream.map(move |event| {
        let event = event?;
        match &event {
            watcher::Event::Init if listed => seen.clear(),
            watcher::Event::InitApply(obj) if listed => {
                seen.insert(ObjectRef::from_obj(obj));
                writer.apply_watcher_event(&watcher::Event::Apply(obj.clone()));
            }
            watcher::Event::InitDone if listed => {
                for obj in reader.state() {
                    if !seen.contains(&ObjectRef::from_obj(&*obj)) {
                        writer.apply_watcher_event(&watcher::Event::Delete((*obj).clone()));
                    }
                }
                seen = HashSet::new();
            }
            _ => {
                writer.apply_watcher_event(&event);
                listed |= matches!(event, watcher::Event::InitDone);
            }
        }
        Ok(event)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::runtime::reflector;

    fn cm(name: &str, value: &str) -> ConfigMap {
        let mut c = ConfigMap::default();
        c.metadata.name = Some(name.into());
        c.metadata.namespace = Some("ns".into());
        c.data = Some([("v".to_string(), value.to_string())].into());
        c
    }

    fn contents(store: &Store<ConfigMap>) -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> = store
            .state()
            .iter()
            .map(|c| {
                (
                    c.metadata.name.clone().unwrap(),
                    c.data.as_ref().unwrap()["v"].clone(),
                )
            })
            .collect();
        all.sort();
        all
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// The store's contents after each event passed on, the events run through a fresh
    /// store's [`reflect_in_place`].
    fn run(events: Vec<watcher::Event<ConfigMap>>) -> Vec<Vec<(String, String)>> {
        let (reader, writer) = reflector::store::<ConfigMap>();
        let stream = reflect_in_place(
            writer,
            reader.clone(),
            futures::stream::iter(events.into_iter().map(Ok)),
        );
        let mut after = Vec::new();
        futures::executor::block_on(stream.for_each(|ev| {
            assert!(ev.is_ok());
            after.push(contents(&reader));
            async {}
        }));
        after
    }

    /// A re-list keeps every object in the store while it runs, updates the listed ones,
    /// removes the one it did not list, and passes every event on.
    #[test]
    fn a_relist_updates_the_store_in_place() {
        use watcher::Event::*;
        let events = vec![
            Init,
            InitApply(cm("a", "1")),
            InitApply(cm("b", "1")),
            InitDone,
            Apply(cm("c", "1")),
            // The re-list: b was deleted while the watch was down, a changed.
            Init,
            InitApply(cm("a", "2")),
            InitApply(cm("c", "1")),
            InitDone,
        ];
        let n = events.len();
        let after = run(events);
        assert_eq!(after.len(), n, "every event is passed on");
        // The first list is swapped in whole, as kube's reflector does.
        assert!(after[2].is_empty());
        assert_eq!(after[3], pairs(&[("a", "1"), ("b", "1")]));
        assert_eq!(after[4], pairs(&[("a", "1"), ("b", "1"), ("c", "1")]));
        // During the re-list nothing is missing.
        assert_eq!(after[5], after[4]);
        assert_eq!(after[6], pairs(&[("a", "2"), ("b", "1"), ("c", "1")]));
        assert_eq!(after[7], after[6]);
        // Complete: exactly what was listed.
        assert_eq!(after[8], pairs(&[("a", "2"), ("c", "1")]));
    }

    /// A re-list cut short starts again: what the first attempt listed does not count.
    #[test]
    fn a_restarted_relist_counts_only_its_own_objects() {
        use watcher::Event::*;
        let events = vec![
            Init,
            InitApply(cm("a", "1")),
            InitApply(cm("b", "1")),
            InitDone,
            Init,
            InitApply(cm("b", "2")),
            Init,
            InitApply(cm("a", "2")),
            InitDone,
        ];
        let after = run(events);
        assert_eq!(after.last().unwrap(), &pairs(&[("a", "2")]));
    }
}
