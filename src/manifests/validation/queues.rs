//! The rules of upstream's ClusterQueue, Cohort and ResourceFlavor validating webhooks, as CEL
//! error lists over `object` (they check the new object only, on create and on update).
//!
//! Rules the CRD schema already enforces with the same outcome (and which therefore never
//! reach the webhook upstream either) are left out: `borrowingLimit` without a cohort on a
//! ClusterQueue, `reclaimWithinCohort=Never` with `borrowWithinCohort`, and `preference`
//! without `TryNextFlavor`. The feature-gated `concurrentAdmissionPolicy` checks do not apply
//! to v1beta1.

use super::cel::{
    Path, all, bind, each, invalid, invalid_each, label_key_messages, label_value_messages,
    labels_errors, lit, non_negative_quantity, quantity, quoted, typed_detail, typed_value, when,
};

/// Which object the resource groups belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    ClusterQueue,
    Cohort,
}

/// CEL for the object's resource groups (empty when unset).
pub const GROUPS: &str = "(has(object.spec.resourceGroups) ? object.spec.resourceGroups : [])";

fn has_parent(owner: Owner) -> String {
    match owner {
        Owner::ClusterQueue => "(has(object.spec.cohort) && object.spec.cohort != \"\")".into(),
        Owner::Cohort => "(has(object.spec.parentName) && object.spec.parentName != \"\")".into(),
    }
}

/// `validateResourceGroups`: names, duplicates across groups, and each flavor's quotas.
fn resource_groups(owner: Owner) -> String {
    let groups = Path::new("spec.resourceGroups");
    let covered = groups.index("i").child("coveredResources").index("j");
    let covered_errors = all(&[
        invalid_each(&covered, &quoted("r"), &label_key_messages("r")),
        // A resource seen in an earlier group, or earlier in this group.
        when(
            "variables.groups.exists(k, g2, k < i && r in g2.coveredResources) || g.coveredResources.exists(l, r2, l < j && r2 == r)",
            &typed_value(&covered, "Duplicate value", &quoted("r")),
        ),
    ]);
    let flavor = groups.index("i").child("flavors").index("j");
    let flavor_errors = all(&[
        flavor_quotas(owner, &flavor),
        when(
            "variables.groups.exists(k, g2, k < i && g2.flavors.exists(f2, f2.name == f.name)) || g.flavors.exists(l, f2, l < j && f2.name == f.name)",
            &typed_value(&flavor.child("name"), "Duplicate value", &quoted("f.name")),
        ),
    ]);
    each(
        "variables.groups",
        "i",
        "g",
        &all(&[
            each("g.coveredResources", "j", "r", &covered_errors),
            each("g.flavors", "j", "f", &flavor_errors),
        ]),
    )
}

/// `validateFlavorQuotas`: names among the covered resources, signs, limits that need a parent,
/// and (on a ClusterQueue) `lendingLimit <= nominalQuota`. Only the first
/// `len(coveredResources)` entries are checked, as upstream does (the CRD rule covers the
/// count). Upstream also wants the same order as `coveredResources`; we match by name.
fn flavor_quotas(owner: Owner, flavor: &Path) -> String {
    let res = flavor.child("resources").index("k");
    let parent_word = match owner {
        Owner::ClusterQueue => "cohort",
        Owner::Cohort => "parent",
    };
    let no_parent = |field: &str| {
        when(
            &format!("!{}", has_parent(owner)),
            &invalid(
                &res.child(field),
                &quoted(&format!("string(q.{field})")),
                &lit(&format!("must be nil when {parent_word} is empty")),
            ),
        )
    };
    let mut lending = vec![
        non_negative_quantity(&res.child("lendingLimit"), "q.lendingLimit"),
        no_parent("lendingLimit"),
    ];
    if owner == Owner::ClusterQueue {
        lending.push(when(
            &format!(
                "{}.isGreaterThan({})",
                quantity("q.lendingLimit"),
                quantity("q.nominalQuota")
            ),
            &invalid(
                &res.child("lendingLimit"),
                &quoted("string(q.lendingLimit)"),
                &lit("must be less than or equal to the nominalQuota"),
            ),
        ));
    }
    let per_resource = all(&[
        when(
            // By name, not position: the seed's flavors list their resources in another
            // order than coveredResources (see the README's differences).
            "!(q.name in g.coveredResources)",
            &invalid(
                &res.child("name"),
                &quoted("q.name"),
                &lit("must match the name in coveredResources"),
            ),
        ),
        non_negative_quantity(&res.child("nominalQuota"), "q.nominalQuota"),
        when(
            "has(q.borrowingLimit)",
            &all(&[
                no_parent("borrowingLimit"),
                non_negative_quantity(&res.child("borrowingLimit"), "q.borrowingLimit"),
            ]),
        ),
        when("has(q.lendingLimit)", &all(&lending)),
    ]);
    each(
        "f.resources",
        "k",
        "q",
        &when("k < size(g.coveredResources)", &per_resource),
    )
}

/// `validateFairSharing`: a weight that is negative, or so small it collapses to zero.
fn fair_sharing() -> String {
    let path = Path::new("spec.fairSharing");
    let weight = "object.spec.fairSharing.weight";
    let value = quoted(&format!("string({weight})"));
    when(
        &format!("has(object.spec.fairSharing) && has({weight})"),
        &all(&[
            non_negative_quantity(&path, weight),
            when(
                &format!(
                    "{q}.isGreaterThan(quantity(\"0\")) && !{q}.isGreaterThan(quantity(\"1n\"))",
                    q = quantity(weight)
                ),
                &invalid(&path, &value, &lit("When not 0, weight must be > 10e-9")),
            ),
        ]),
    )
}

/// Rules 16-18: totals across the resource groups.
fn totals() -> String {
    let groups = Path::new("spec.resourceGroups");
    all(&[
        when(
            "variables.totalFlavors > 256",
            &invalid(
                &groups,
                "string(variables.totalFlavors)",
                "\"total number of flavors across all resourceGroups must be ≤ 256, got \" + string(variables.totalFlavors)",
            ),
        ),
        when(
            "variables.totalCovered > 256",
            &invalid(
                &groups,
                "string(variables.totalCovered)",
                "\"total number of covered resources across all resourceGroups must be ≤ 256, got \" + string(variables.totalCovered)",
            ),
        ),
        each(
            "variables.groups",
            "i",
            "g",
            &bind(
                "n",
                "g.flavors.map(f, size(f.resources)).sum()",
                &when(
                    "n > 512",
                    &invalid(
                        &groups.index("i"),
                        "string(n)",
                        "\"number of flavor-resource combinations in a resourceGroup must be ≤ 512, got \" + string(n)",
                    ),
                ),
            ),
        ),
    ])
}

/// `namespaceSelector`: `ValidateLabelSelector`.
fn namespace_selector() -> String {
    let sel = "object.spec.namespaceSelector";
    let path = Path::new("spec.namespaceSelector");
    let expr = path.child("matchExpressions").index("i");
    let values = "(has(e.values) ? e.values : [])";
    let per_expression = all(&[
        when(
            &format!("e.operator in [\"In\", \"NotIn\"] && size({values}) == 0"),
            &typed_detail(
                &expr.child("values"),
                "Required value",
                "must be specified when `operator` is 'In' or 'NotIn'",
            ),
        ),
        when(
            &format!("e.operator in [\"Exists\", \"DoesNotExist\"] && size({values}) > 0"),
            &typed_detail(
                &expr.child("values"),
                "Forbidden",
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
        ),
        when(
            "!(e.operator in [\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"])",
            &invalid(
                &expr.child("operator"),
                &quoted("e.operator"),
                &lit("not a valid selector operator"),
            ),
        ),
        invalid_each(
            &expr.child("key"),
            &quoted("e.key"),
            &label_key_messages("e.key"),
        ),
        each(
            values,
            "vi",
            "v",
            &invalid_each(
                &expr.child("values").index("vi"),
                &quoted("v"),
                &label_value_messages("v"),
            ),
        ),
    ]);
    when(
        &format!("has({sel})"),
        &all(&[
            when(
                &format!("has({sel}.matchLabels)"),
                &labels_errors(&format!("{sel}.matchLabels"), &path.child("matchLabels")),
            ),
            when(
                &format!("has({sel}.matchExpressions)"),
                &each(
                    &format!("{sel}.matchExpressions"),
                    "i",
                    "e",
                    &per_expression,
                ),
            ),
        ]),
    )
}

/// `admissionChecksStrategy.admissionChecks[i].onFlavors[j]` must name a flavor of the queue.
fn on_flavors() -> String {
    let path = Path::new("spec.admissionChecksStrategy.admissionChecks");
    let flavors = "variables.groups.map(g, g.flavors.map(f, f.name)).flatten()";
    let supported = format!("{flavors}.map(n, \"\\\"\" + n + \"\\\"\").join(\", \")");
    when(
        "has(object.spec.admissionChecksStrategy) && has(object.spec.admissionChecksStrategy.admissionChecks)",
        &each(
            "object.spec.admissionChecksStrategy.admissionChecks",
            "i",
            "c",
            &each(
                "(has(c.onFlavors) ? c.onFlavors : [])",
                "j",
                "fl",
                &when(
                    &format!("!(fl in {flavors})"),
                    &format!(
                        "[{} + \": Unsupported value: \" + {} + \": supported values: \" + {supported}]",
                        path.index("i").child("onFlavors").index("j").expr(),
                        quoted("fl")
                    ),
                ),
            ),
        ),
    )
}

/// Variables every queue policy defines before `errors`.
pub fn variables() -> Vec<(&'static str, String)> {
    vec![
        ("groups", GROUPS.to_string()),
        (
            "totalFlavors",
            "variables.groups.map(g, size(g.flavors)).sum()".into(),
        ),
        (
            "totalCovered",
            "variables.groups.map(g, size(g.coveredResources)).sum()".into(),
        ),
    ]
}

/// The errors of a ClusterQueue, in upstream's order. The per-element checks run only when the
/// totals are within upstream's bounds, which keeps the CEL cost bounded.
pub fn cluster_queue_errors() -> String {
    all(&[
        when(
            "variables.totalFlavors <= 256 && variables.totalCovered <= 256",
            &resource_groups(Owner::ClusterQueue),
        ),
        namespace_selector(),
        fair_sharing(),
        totals(),
        on_flavors(),
    ])
}

/// The errors of a Cohort (no totals, no lending-versus-nominal rule, "parent" wording).
pub fn cohort_errors() -> String {
    all(&[
        fair_sharing(),
        when(
            "variables.totalFlavors <= 256 && variables.totalCovered <= 256",
            &resource_groups(Owner::Cohort),
        ),
    ])
}

/// `ValidateResourceFlavor`: node labels, taints (key, value, unique by key and effect) and
/// toleration keys.
pub fn resource_flavor_errors() -> String {
    let spec = "object.spec";
    let taints = Path::new("spec.nodeTaints");
    let taint = taints.index("i");
    let taint_errors = all(&[
        invalid_each(
            &taint.child("key"),
            &quoted("t.key"),
            &label_key_messages("t.key"),
        ),
        bind(
            "v",
            "has(t.value) ? t.value : \"\"",
            &when(
                &format!("size({}) > 0", label_value_messages("v")),
                &invalid(
                    &taint.child("value"),
                    &quoted("v"),
                    &format!("{}.join(\";\")", label_value_messages("v")),
                ),
            ),
        ),
        when(
            &format!(
                "{spec}.nodeTaints.exists(k, t2, k < i && t2.key == t.key && t2.effect == t.effect)"
            ),
            &format!(
                "[{} + \": Duplicate value: \" + \"{{\\\"key\\\":\\\"\" + t.key + \"\\\"\" + (has(t.value) && t.value != \"\" ? \",\\\"value\\\":\\\"\" + t.value + \"\\\"\" : \"\") + \",\\\"effect\\\":\\\"\" + t.effect + \"\\\"}}\" + \": taints must be unique by key and effect pair\"]",
                taint.expr()
            ),
        ),
    ]);
    let toleration = Path::new("spec.tolerations").index("i");
    all(&[
        when(
            &format!("has({spec}.nodeLabels)"),
            &labels_errors(&format!("{spec}.nodeLabels"), &Path::new("spec.nodeLabels")),
        ),
        when(
            &format!("has({spec}.nodeTaints)"),
            &each(&format!("{spec}.nodeTaints"), "i", "t", &taint_errors),
        ),
        when(
            &format!("has({spec}.tolerations)"),
            &each(
                &format!("{spec}.tolerations"),
                "i",
                "t",
                &when(
                    "has(t.key) && t.key != \"\"",
                    &invalid_each(
                        &toleration.child("key"),
                        &quoted("t.key"),
                        &label_key_messages("t.key"),
                    ),
                ),
            ),
        ),
    ])
}
