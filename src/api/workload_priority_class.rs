//! `WorkloadPriorityClass`: a named priority value for workloads, independent of pod priority.
//!
//! Its fields sit at the top level of the object (no `spec`), which `#[derive(CustomResource)]`
//! cannot express, so the root type, its `Resource` impl and its CRD skeleton are written here by
//! hand; [`crate::api::crds`] adds the schema like for the other kinds.

use std::borrow::Cow;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceValidation,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_core::{ClusterResourceScope, Resource, crd::v1::CustomResourceExt, dynamic::ApiResource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, ser::SerializeStruct};

use super::{API_VERSION, GROUP, VERSION};

const KIND: &str = "WorkloadPriorityClass";
const PLURAL: &str = "workloadpriorityclasses";

/// A priority value that Jobs choose with the label `kueue.x-k8s.io/priority-class`.
///
/// Changing `value` does not change the priority of workloads that already exist.
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPriorityClass {
    /// Standard object metadata.
    #[schemars(skip)]
    pub metadata: ObjectMeta,

    /// The priority workloads of this class get; higher is more important.
    pub value: i32,

    /// When this class should be used, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl WorkloadPriorityClass {
    /// A class with the given name and value.
    pub fn new(name: &str, value: i32) -> Self {
        WorkloadPriorityClass {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                ..ObjectMeta::default()
            },
            value,
            description: None,
        }
    }
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

impl CustomResourceExt for WorkloadPriorityClass {
    /// The CRD without its schema; [`crate::api::crds`] fills that in.
    fn crd() -> CustomResourceDefinition {
        CustomResourceDefinition {
            metadata: ObjectMeta {
                name: Some(Self::crd_name().into()),
                ..ObjectMeta::default()
            },
            spec: CustomResourceDefinitionSpec {
                group: GROUP.into(),
                names: CustomResourceDefinitionNames {
                    kind: KIND.into(),
                    plural: PLURAL.into(),
                    singular: Some("workloadpriorityclass".into()),
                    short_names: Some(vec!["wpc".into()]),
                    ..CustomResourceDefinitionNames::default()
                },
                scope: "Cluster".into(),
                versions: vec![CustomResourceDefinitionVersion {
                    name: VERSION.into(),
                    served: true,
                    storage: true,
                    additional_printer_columns: Some(vec![CustomResourceColumnDefinition {
                        name: "Value".into(),
                        type_: "integer".into(),
                        json_path: ".value".into(),
                        description: Some("Priority value of this class".into()),
                        ..CustomResourceColumnDefinition::default()
                    }]),
                    schema: Some(CustomResourceValidation {
                        open_api_v3_schema: None,
                    }),
                    ..CustomResourceDefinitionVersion::default()
                }],
                ..CustomResourceDefinitionSpec::default()
            },
            status: None,
        }
    }

    fn crd_name() -> &'static str {
        "workloadpriorityclasses.kueue.x-k8s.io"
    }

    fn api_resource() -> ApiResource {
        ApiResource::erase::<Self>(&())
    }

    fn shortnames() -> &'static [&'static str] {
        &["wpc"]
    }
}
