//! Writes whose answer nobody reads.
//!
//! The API server answers every create and patch with the whole object. The controller's
//! Events and queue status writes only need to know whether the write landed, yet decoding
//! the answer builds an `Event` or a `ClusterQueue` (every string, map and condition) only
//! to drop it: a few thousand times per thousand workloads. A [`Discard<K>`] names the same
//! API resource as `K` and encodes the object it carries, and decodes any answer to nothing:
//! the JSON reader checks and skips it without allocating.
//!
//! Invariants: `Api<Discard<K>>` talks to the URLs `Api<K>` does and sends what `K` sends; an
//! answer that is not JSON is still an error. Data in: `K` (or nothing, for a patch); data
//! out: nothing.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `K` as a write's body, with an answer that is not decoded.
#[derive(Clone, Debug)]
pub struct Discard<K> {
    /// What a create sends (`None` for a patch, whose body is its own).
    object: Option<K>,
    /// The metadata of an answer (never read: always empty).
    nothing: ObjectMeta,
}

impl<K> Discard<K> {
    /// The body of a create.
    pub fn sending(object: K) -> Discard<K> {
        Discard {
            object: Some(object),
            nothing: ObjectMeta::default(),
        }
    }
}

impl<K: Serialize> Serialize for Discard<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.object.serialize(s)
    }
}

impl<'de, K> Deserialize<'de> for Discard<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d)?;
        Ok(Discard {
            object: None,
            nothing: ObjectMeta::default(),
        })
    }
}

impl<K: Resource<DynamicType = ()>> Resource for Discard<K> {
    type DynamicType = ();
    type Scope = K::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        K::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        K::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        K::version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        K::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        self.object.as_ref().map_or(&self.nothing, K::meta)
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        match &mut self.object {
            Some(k) => k.meta_mut(),
            None => &mut self.nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::events::v1::Event;

    #[test]
    fn sends_the_object_and_skips_the_answer() {
        let ev = Event {
            metadata: ObjectMeta {
                name: Some("e".into()),
                namespace: Some("ns".into()),
                ..Default::default()
            },
            note: Some("quota reserved".into()),
            ..Default::default()
        };
        let body = Discard::sending(ev.clone());
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::to_value(&ev).unwrap()
        );
        assert_eq!(body.meta().name.as_deref(), Some("e"));
        assert_eq!(
            Discard::<Event>::url_path(&(), Some("ns")),
            Event::url_path(&(), Some("ns"))
        );
        let answer = serde_json::to_string(&ev).unwrap();
        let back: Discard<Event> = serde_json::from_str(&answer).unwrap();
        assert!(back.object.is_none());
        assert!(serde_json::from_str::<Discard<Event>>("{not json").is_err());
    }
}
