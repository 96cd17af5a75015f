//! OpenAPI v3 schemas for the CRDs: field-level schema helpers used by the types'
//! `#[schemars(...)]` attributes, and the pass that turns a schemars schema into a Kubernetes
//! structural schema.
//!
//! Why our own pass instead of kube-derive's: we need to know which subschema is a `Quantity`,
//! an `IntOrString`, an embedded `ObjectMeta` or a `Condition` to give each the shape upstream's
//! CRDs have (`anyOf: [integer, string]` with the quantity pattern, a minimal template metadata,
//! the condition field rules). That is only visible while the schemas are still `$ref`s, so we
//! generate without inlining, resolve the references ourselves, then normalize.
//!
//! Invariants of [`structural_schema_for`]'s output: no `$ref`, no `nullable`, no `oneOf`/`allOf`,
//! `anyOf` only as the int-or-string pair, `type` on every node except int-or-string and
//! preserve-unknown-fields nodes, and never `additionalProperties` beside `properties`.
//! [`check_structural`] verifies this and is run over every CRD by the tests.

use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use serde_json::{Map, Value, json};

/// DNS-1123 subdomain: the names of ClusterQueues, ResourceFlavors, Cohorts and LocalQueues.
pub const DNS1123_SUBDOMAIN: &str =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// DNS-1123 label: pod set names.
pub const DNS1123_LABEL: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
/// What the API server accepts as a quantity string (upstream's CRDs use the same pattern).
pub const QUANTITY_PATTERN: &str = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

const QUANTITY_REF: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const INT_OR_STRING_REF: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const OBJECT_META_REF: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const CONDITION_REF: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Condition";

// ---- field-level helpers for `#[schemars(schema_with = "...")]` ----

/// Name of a cluster-scoped object (ClusterQueue, ResourceFlavor, Cohort, LocalQueue).
pub fn object_name(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "maxLength": 253, "pattern": DNS1123_SUBDOMAIN })
}

/// A list of object names.
pub fn object_names(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": object_name(generator) })
}

/// Pod set name (a DNS label, at most 63 characters).
pub fn pod_set_name(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "maxLength": 63, "pattern": DNS1123_LABEL })
}

/// Pod set name that defaults to `main` when omitted.
pub fn pod_set_name_default_main(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = pod_set_name(generator);
    schema.insert("default".into(), "main".into());
    schema
}

/// Name of an AdmissionCheck (at most 316 characters, upstream's limit).
pub fn admission_check_name(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "maxLength": 316 })
}

/// Resource name to flavor name.
pub fn flavor_by_resource(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "additionalProperties": object_name(generator) })
}

/// `status.conditions`: a list map keyed by `type`, each entry a `metav1.Condition` with the
/// API machinery's own validation rules.
pub fn conditions(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": condition(),
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
    })
}

/// CEL rules upstream puts on every list of tolerations it accepts (the API server's own pod
/// validation would reject the same things later, at pod creation).
pub fn toleration_rules() -> Value {
    json!([
        {
            "rule": "self.all(x, !has(x.key) ? x.operator == 'Exists' : true)",
            "message": "operator must be Exists when 'key' is empty, which means 'match all values and all keys'",
        },
        {
            "rule": "self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)",
            "message": "effect must be 'NoExecute' when 'tolerationSeconds' is set",
        },
        {
            "rule": "self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])",
            "message": "supported toleration values: 'Equal'(default), 'Exists'",
        },
        {
            "rule": "self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
            "message": "a value must be empty when 'operator' is 'Exists'",
        },
        {
            "rule": "self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
            "message": "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
        },
    ])
}

fn condition() -> Value {
    json!({
        "type": "object",
        "description": "One aspect of the object's current state.",
        "required": ["lastTransitionTime", "message", "reason", "status", "type"],
        "properties": {
            "lastTransitionTime": { "type": "string", "format": "date-time" },
            "message": { "type": "string", "maxLength": 32768 },
            "observedGeneration": { "type": "integer", "format": "int64", "minimum": 0 },
            "reason": {
                "type": "string", "minLength": 1, "maxLength": 1024,
                "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            },
            "status": { "type": "string", "enum": ["True", "False", "Unknown"] },
            "type": {
                "type": "string", "maxLength": 316,
                "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
            },
        },
    })
}

fn quantity() -> Value {
    json!({
        "anyOf": [{ "type": "integer" }, { "type": "string" }],
        "pattern": QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": true,
    })
}

fn int_or_string() -> Value {
    json!({
        "anyOf": [{ "type": "integer" }, { "type": "string" }],
        "x-kubernetes-int-or-string": true,
    })
}

/// The part of an embedded object's metadata that a pod template may carry.
fn template_metadata() -> Value {
    let string_map = json!({ "type": "object", "additionalProperties": { "type": "string" } });
    json!({
        "type": "object",
        "properties": {
            "annotations": string_map,
            "finalizers": { "type": "array", "items": { "type": "string" } },
            "labels": string_map,
            "name": { "type": "string" },
            "namespace": { "type": "string" },
        },
    })
}

// ---- whole-type generation ----

/// Generates the structural OpenAPI v3 schema of `T` (a spec or status type).
///
/// `keep_k8s_descriptions` keeps the descriptions of the embedded Kubernetes types (pod
/// templates, selectors, tolerations); our own fields always keep theirs.
pub fn structural_schema_for<T: JsonSchema>(keep_k8s_descriptions: bool) -> Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = false;
        s.meta_schema = None;
        // Keep `$ref` siblings (a field's description) where they are: we inline them ourselves.
        s.transforms.clear();
    });
    let mut generator = SchemaGenerator::new(settings);
    let mut root = generator.root_schema_for::<T>().to_value();
    let definitions = match root.as_object_mut().and_then(|r| r.remove("definitions")) {
        Some(Value::Object(definitions)) => definitions,
        _ => Map::new(),
    };
    let mut schema = Resolver {
        definitions: &definitions,
        keep_k8s_descriptions,
    }
    .resolve(root, false);
    normalize(&mut schema);
    schema
}

struct Resolver<'a> {
    definitions: &'a Map<String, Value>,
    keep_k8s_descriptions: bool,
}

impl Resolver<'_> {
    /// Replaces every `$ref` by its definition (special-casing the Kubernetes types whose CRD
    /// shape differs from their OpenAPI shape). `in_k8s` is true below a Kubernetes type.
    fn resolve(&self, value: Value, in_k8s: bool) -> Value {
        match value {
            Value::Object(mut map) => {
                if let Some(Value::String(reference)) = map.remove("$ref") {
                    let name = reference.rsplit('/').next().unwrap_or_default().to_owned();
                    let is_k8s = name.starts_with("io.k8s.");
                    let target = match name.as_str() {
                        QUANTITY_REF => quantity(),
                        INT_OR_STRING_REF => int_or_string(),
                        OBJECT_META_REF => template_metadata(),
                        CONDITION_REF => condition(),
                        _ => self.definitions.get(&name).cloned().unwrap_or_else(|| {
                            panic!("schema reference {reference} has no definition")
                        }),
                    };
                    let mut target = match self.resolve(target, in_k8s || is_k8s) {
                        Value::Object(target) => target,
                        other => panic!("definition {name} is not an object schema: {other}"),
                    };
                    // The referring site's own keys (its description, default, limits) win.
                    for (key, sibling) in map {
                        let sibling = self.resolve(sibling, in_k8s);
                        if key == "description" && in_k8s && !self.keep_k8s_descriptions {
                            continue;
                        }
                        target.insert(key, sibling);
                    }
                    if (in_k8s || is_k8s) && !self.keep_k8s_descriptions {
                        target.remove("description");
                    }
                    return Value::Object(target);
                }
                let resolved: Map<String, Value> = map
                    .into_iter()
                    .filter(|(key, _)| {
                        !(in_k8s && !self.keep_k8s_descriptions && key == "description")
                    })
                    .map(|(key, child)| {
                        // Property names and enum values are data, not schemas, but resolving
                        // them is harmless: they hold no `$ref`.
                        let child = self.resolve(child, in_k8s);
                        (key, child)
                    })
                    .collect();
                Value::Object(resolved)
            }
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.resolve(v, in_k8s)).collect())
            }
            other => other,
        }
    }
}

/// Rewrites a resolved schema into Kubernetes' structural dialect. See the module docs.
fn normalize(value: &mut Value) {
    let Value::Object(map) = value else { return };

    // Option<T>: `type: [T, "null"]` or `anyOf/oneOf: [T, {type: null}]`.
    if let Some(Value::Array(types)) = map.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if non_null.len() == 1 {
            map.insert("type".into(), non_null[0].clone());
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get(key) else {
            continue;
        };
        let non_null: Vec<Value> = branches
            .iter()
            .filter(|b| !is_null_schema(b))
            .cloned()
            .collect();
        if non_null.len() == 1 && branches.len() == 2 {
            map.remove(key);
            if let Value::Object(inner) = non_null.into_iter().next().unwrap_or_default() {
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
    // Unit enums whose variants carry docs come out as `oneOf` of constants.
    if let Some(Value::Array(branches)) = map.get("oneOf")
        && let Some(values) = enum_values(branches)
    {
        map.remove("oneOf");
        map.insert("type".into(), "string".into());
        map.insert("enum".into(), Value::Array(values));
    }
    if let Some(constant) = map.remove("const") {
        map.insert("enum".into(), json!([constant]));
    }

    for key in [
        "title",
        "$schema",
        "nullable",
        "uniqueItems",
        "examples",
        "definitions",
        "$defs",
    ] {
        map.remove(key);
    }
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            map.remove("additionalProperties");
        }
        Some(Value::Bool(true)) => {
            map.remove("additionalProperties");
            map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
        _ => {}
    }
    // An unconstrained schema (a `serde_json::Value`) keeps whatever it is given.
    let only_docs = map.keys().all(|k| k == "description" || k == "default");
    if only_docs {
        map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    }

    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(normalize);
                }
            }
            "items" | "additionalProperties" | "not" => normalize(child),
            "anyOf" | "allOf" | "oneOf" => {
                if let Value::Array(branches) = child {
                    branches.iter_mut().for_each(normalize);
                }
            }
            _ => {}
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("null"))
        || schema.get("const") == Some(&Value::Null)
        || schema.get("enum") == Some(&json!([null]))
}

fn enum_values(branches: &[Value]) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    for branch in branches {
        if let Some(constant) = branch.get("const") {
            values.push(constant.clone());
        } else if let Some(Value::Array(list)) = branch.get("enum") {
            values.extend(list.iter().cloned());
        } else {
            return None;
        }
    }
    values.iter().all(Value::is_string).then_some(values)
}

/// Checks the rules a CRD schema must follow to be structural (and a few of ours).
/// Returns every violation with its path.
pub fn check_structural(schema: &Value) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check_node(schema, "", &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check_node(node: &Value, path: &str, problems: &mut Vec<String>) {
    let Value::Object(map) = node else {
        problems.push(format!("{path}: schema is not an object"));
        return;
    };
    let here = if path.is_empty() { "." } else { path };
    for forbidden in [
        "$ref",
        "nullable",
        "oneOf",
        "allOf",
        "not",
        "definitions",
        "$defs",
        "title",
        "const",
        "uniqueItems",
    ] {
        if map.contains_key(forbidden) {
            problems.push(format!("{here}: has `{forbidden}`"));
        }
    }
    let int_or_string = map.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    let preserve = map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if let Some(any_of) = map.get("anyOf")
        && (!int_or_string || any_of != &json!([{ "type": "integer" }, { "type": "string" }]))
    {
        problems.push(format!("{here}: anyOf other than the int-or-string pair"));
    }
    match map.get("type") {
        Some(Value::String(_)) => {
            if int_or_string {
                problems.push(format!("{here}: int-or-string with a type"));
            }
        }
        Some(other) => problems.push(format!("{here}: type is not a single string: {other}")),
        None if int_or_string || preserve => {}
        None => problems.push(format!("{here}: no type")),
    }
    if map.get("type") == Some(&json!("array")) && !map.get("items").is_some_and(Value::is_object) {
        problems.push(format!("{here}: array without an items schema"));
    }
    if map.contains_key("properties") && map.contains_key("additionalProperties") {
        problems.push(format!("{here}: both properties and additionalProperties"));
    }
    if let Some(Value::Bool(_)) = map.get("additionalProperties") {
        problems.push(format!("{here}: boolean additionalProperties"));
    }
    if let Some(Value::Array(required)) = map.get("required") {
        let props = map.get("properties").and_then(Value::as_object);
        for name in required.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(name)) {
                problems.push(format!("{here}: required `{name}` is not a property"));
            }
        }
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, child) in props {
            check_node(child, &format!("{path}.{name}"), problems);
        }
    }
    if let Some(items) = map.get("items") {
        check_node(items, &format!("{path}[]"), problems);
    }
    if let Some(additional @ Value::Object(_)) = map.get("additionalProperties") {
        check_node(additional, &format!("{path}{{}}"), problems);
    }
}
