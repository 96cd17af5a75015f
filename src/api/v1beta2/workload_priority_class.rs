//! v1beta2 `WorkloadPriorityClass`: v1beta1's fields (`value`, `description`, at the top level
//! of the object), with `description` limited to 2048 characters. Like v1beta1's, the root type
//! is written by hand because it has no `spec`.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_core::{ClusterResourceScope, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, ser::SerializeStruct};

use super::{API_VERSION, VERSION};
use crate::api::GROUP;

const KIND: &str = "WorkloadPriorityClass";
const PLURAL: &str = "workloadpriorityclasses";

/// A priority value that Jobs choose with the label `kueue.x-k8s.io/priority-class`.
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPriorityClass {
    /// Standard object metadata.
    #[schemars(skip)]
    pub metadata: ObjectMeta,

    /// The priority workloads of this class get; higher is more important.
    pub value: i32,

    /// When this class should be used, for people (at most 2048 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 2048))]
    pub description: Option<String>,
}

impl Serialize for WorkloadPriorityClass {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let fields = 4 + usize::from(self.description.is_some());
        let mut obj = ser.serialize_struct(KIND, fields)?;
        obj.serialize_field("apiVersion", API_VERSION)?;
        obj.serialize_field("kind", KIND)?;
        obj.serialize_field("metadata", &self.metadata)?;
        obj.serialize_field("value", &self.value)?;
        if let Some(description) = &self.description {
            obj.serialize_field("description", description)?;
        }
        obj.end()
    }
}

impl Resource for WorkloadPriorityClass {
    type DynamicType = ();
    type Scope = ClusterResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        KIND.into()
    }

    fn group(_: &()) -> Cow<'_, str> {
        GROUP.into()
    }

    fn version(_: &()) -> Cow<'_, str> {
        VERSION.into()
    }

    fn api_version(_: &()) -> Cow<'_, str> {
        API_VERSION.into()
    }

    fn plural(_: &()) -> Cow<'_, str> {
        PLURAL.into()
    }

    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}
