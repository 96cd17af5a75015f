//! The rules of upstream's Workload validating webhook (`workloads` and `workloads/status`,
//! create and update) as CEL error lists over `object` and, on update, `oldObject`.
//!
//! Values upstream prints as JSON structs (a whole podSet, an admission) print as `"object"`
//! or `"array"` here, as the API server's own CEL errors do: CEL cannot encode JSON. The
//! multiple-of-count check prints the count where upstream prints a pointer's address.
//! Left to the engine's backstop: podSet template label and annotation syntax,
//! `metav1.ValidateConditions` (the schema covers the condition fields), the feature-gated
//! TAS slice-size and admission-gate annotation rules, and the podSetUpdates' contents other
//! than their podSet name (this product does not run admission checks).

use super::cel::{
    Path, all, bind, each, invalid, lit, non_negative_quantity, quoted, typed_detail, typed_value,
    when,
};

const ELASTIC: &str = "kueue.x-k8s.io/elastic-job";

/// `cond` of `obj` is True.
fn condition_true(obj: &str, cond: &str) -> String {
    format!(
        "(has({obj}.status) && has({obj}.status.conditions) && {obj}.status.conditions.exists(c, c.type == \"{cond}\" && c.status == \"True\"))"
    )
}

/// Variables of the Workload policy (before `errors`).
pub fn variables() -> Vec<(&'static str, String)> {
    vec![
        (
            "podSets",
            "(has(object.spec.podSets) ? object.spec.podSets : [])".into(),
        ),
        ("reserved", condition_true("object", "QuotaReserved")),
        (
            "oldReserved",
            format!(
                "(oldObject != null && {})",
                condition_true("oldObject", "QuotaReserved")
            ),
        ),
        (
            "elastic",
            format!(
                "(has(object.metadata.annotations) && \"{ELASTIC}\" in object.metadata.annotations && object.metadata.annotations[\"{ELASTIC}\"] == \"true\")"
            ),
        ),
        (
            "podSetNames",
            "variables.podSets.map(ps, has(ps.name) ? ps.name : \"main\")".into(),
        ),
    ]
}

/// `validateResourceList` for one list (`requests` or `limits`) of one resources block.
fn resource_list(list: &str, path: &Path) -> String {
    each(
        list,
        "rk",
        "rv",
        &all(&[
            when(
                "rk == \"pods\"",
                &invalid(
                    &path.key("rk"),
                    "\"\\\"pods\\\"\"",
                    &lit("the key is reserved for internal kueue use"),
                ),
            ),
            non_negative_quantity(&path.key("rk"), "rv"),
        ]),
    )
}

fn resources_of(block: &str, path: &Path) -> String {
    all(&[
        when(
            &format!("has({block}.requests)"),
            &resource_list(&format!("{block}.requests"), &path.child("requests")),
        ),
        when(
            &format!("has({block}.limits)"),
            &resource_list(&format!("{block}.limits"), &path.child("limits")),
        ),
    ])
}

fn containers(kind: &str, pod_set: &Path) -> String {
    let list = format!("ps.template.spec.{kind}");
    let path = pod_set.child("template.spec").child(kind).index("ci");
    when(
        &format!("has(ps.template.spec) && has({list})"),
        &each(
            &list,
            "ci",
            "c",
            &when(
                "has(c.resources)",
                &resources_of("c.resources", &path.child("resources")),
            ),
        ),
    )
}

/// `ValidateWorkload`: requests and limits of every podSet, minCount use, the admission while
/// quota is reserved, reclaimable pods and podSetUpdates' podSet names.
fn workload() -> String {
    let pod_set = Path::new("spec.podSets").index("i");
    let pod_sets = each(
        "variables.podSets",
        "i",
        "ps",
        &all(&[
            containers("initContainers", &pod_set),
            containers("containers", &pod_set),
            when(
                "has(ps.template.spec) && has(ps.template.spec.resources)",
                &resources_of(
                    "ps.template.spec.resources",
                    &pod_set.child("template.spec.resources"),
                ),
            ),
        ]),
    );
    let min_counts = "size(variables.podSets.filter(ps, has(ps.minCount)))";
    let pod_sets_path = Path::new("spec.podSets");
    let admission = Path::new("status.admission");
    let assignment = admission.child("podSetAssignments").index("i");
    let admission_errors = format!(
        "(has(object.status.admission) ? {} : {})",
        each(
            "object.status.admission.podSetAssignments",
            "i",
            "a",
            &all(&[
                when(
                    "!((has(a.name) ? a.name : \"main\") in variables.podSetNames)",
                    &typed_value(&assignment.child("name"), "Not found", &quoted("a.name")),
                ),
                when(
                    "has(a.count) && a.count > 0 && has(a.resourceUsage)",
                    &each(
                        "a.resourceUsage",
                        "rk",
                        "rv",
                        &when(
                            "int(quantity(string(rv)).asApproximateFloat() * (rk == \"cpu\" ? 1000.0 : 1.0) + 0.5) % a.count != 0",
                            &invalid(
                                &assignment.child("resourceUsage").key("rk"),
                                &quoted("string(rv)"),
                                "\"is not a multiple of \" + string(a.count)",
                            ),
                        ),
                    ),
                ),
            ]),
        ),
        when(
            // One that already reserved quota without an admission may converge.
            "!(variables.oldReserved && !has(oldObject.status.admission))",
            &typed_detail(
                &admission,
                "Required value",
                "must be set while the QuotaReserved condition is true",
            ),
        ),
    );
    let reclaimable = Path::new("status.reclaimablePods").key("rp.name");
    let supported = "variables.podSetNames.map(n, \"\\\"\" + n + \"\\\"\").join(\", \")";
    let reclaimable_errors = each(
        "object.status.reclaimablePods",
        "ri",
        "rp",
        &format!(
            "(!(rp.name in variables.podSetNames) ? {} : {})",
            format_args!(
                "[{} + \": Unsupported value: \" + {} + \": supported values: \" + {supported}]",
                reclaimable.child("name").expr(),
                quoted("rp.name")
            ),
            when(
                "variables.podSets.exists(ps, (has(ps.name) ? ps.name : \"main\") == rp.name && rp.count > (has(ps.count) ? ps.count : 1))",
                &invalid(
                    &reclaimable.child("count"),
                    "string(rp.count)",
                    "\"should be less or equal to \" + string(variables.podSets.filter(ps, (has(ps.name) ? ps.name : \"main\") == rp.name).map(ps, has(ps.count) ? ps.count : 1)[0])",
                ),
            )
        ),
    );
    let update = Path::new("status.admissionChecks")
        .index("i")
        .child("podSetUpdates")
        .index("j");
    let pod_set_updates = each(
        "object.status.admissionChecks",
        "i",
        "ac",
        &when(
            "has(ac.podSetUpdates)",
            &each(
                "ac.podSetUpdates",
                "j",
                "u",
                &when(
                    "!(u.name in variables.podSetNames)",
                    &format!(
                        "[{} + \": Unsupported value: \" + {} + \": supported values: \" + variables.podSetNames.sort().map(n, \"\\\"\" + n + \"\\\"\").join(\", \")]",
                        update.child("name").expr(),
                        quoted("u.name")
                    ),
                ),
            ),
        ),
    );
    all(&[
        pod_sets,
        when(
            &format!("{min_counts} > 1"),
            &invalid(
                &pod_sets_path,
                &format!("string({min_counts})"),
                &lit("at most one podSet can use minCount"),
            ),
        ),
        when(
            &format!("{min_counts} > 0 && variables.elastic"),
            &invalid(
                &pod_sets_path,
                &format!("string({min_counts})"),
                &lit("partial admission and elastic job cannot be used together"),
            ),
        ),
        when("variables.reserved", &format!("({admission_errors})")),
        when(
            "has(object.status) && has(object.status.reclaimablePods)",
            &reclaimable_errors,
        ),
        when(
            "has(object.status) && has(object.status.admissionChecks)",
            &pod_set_updates,
        ),
    ])
}

/// Every field of a podSet but `count`, which may only decrease (elastic scale-down, gate on
/// by default upstream).
fn same_pod_set(new: &str, old: &str) -> String {
    let same = |f: &str| {
        format!("(has({new}.{f}) == has({old}.{f}) && (!has({new}.{f}) || {new}.{f} == {old}.{f}))")
    };
    format!(
        "({} && {} && {} && {} && (has({new}.count) ? {new}.count : 1) <= (has({old}.count) ? {old}.count : 1))",
        same("name"),
        same("template"),
        same("minCount"),
        same("topologyRequest")
    )
}

/// An admission equal to the old one, topology assignments aside (TAS may set them).
fn same_admission(new: &str, old: &str) -> String {
    let same = |f: &str| format!("(has(a.{f}) == has(b.{f}) && (!has(a.{f}) || a.{f} == b.{f}))");
    format!(
        "({new}.clusterQueue == {old}.clusterQueue && size({new}.podSetAssignments) == size({old}.podSetAssignments) && {new}.podSetAssignments.all(i, a, {}))",
        bind(
            "b",
            &format!("{old}.podSetAssignments[i]"),
            &format!(
                "{} && {} && {} && {}",
                same("name"),
                same("flavors"),
                same("resourceUsage"),
                same("count")
            )
        )
    )
}

/// `ValidateWorkloadUpdate`'s additions: podSets frozen once quota was reserved, reclaimable
/// counts that only grow, an admission that is set or cleared but never edited, Ready checks'
/// podSetUpdates frozen, and a first clusterName among the nominated ones.
fn update() -> String {
    let pod_sets = Path::new("spec.podSets");
    let old_pod_sets = "(has(oldObject.spec.podSets) ? oldObject.spec.podSets : [])";
    let frozen = when(
        "variables.oldReserved",
        &format!(
            "(size(variables.podSets) != size({old_pod_sets}) ? {} : {})",
            invalid(&pod_sets, "\"\\\"array\\\"\"", &lit("field is immutable")),
            each(
                "variables.podSets",
                "i",
                "ps",
                &when(
                    &format!("!{}", same_pod_set("ps", &format!("{old_pod_sets}[i]"))),
                    &invalid(
                        &pod_sets.dot_index("i"),
                        "\"\\\"object\\\"\"",
                        &lit("field is immutable")
                    ),
                ),
            )
        ),
    );
    let reclaimable = Path::new("status.reclaimablePods");
    let new_reclaimable = "(has(object.status) && has(object.status.reclaimablePods) ? object.status.reclaimablePods : [])";
    let old_reclaimable = "(has(oldObject.status) && has(oldObject.status.reclaimablePods) ? oldObject.status.reclaimablePods : [])";
    let reclaimable_update = when(
        "variables.reserved && variables.oldReserved",
        &all(&[
            each(
                new_reclaimable,
                "ri",
                "rp",
                &when(
                    &format!(
                        "{old_reclaimable}.exists(o, o.name == rp.name && rp.count < o.count)"
                    ),
                    &invalid(
                        &reclaimable.key("rp.name").child("count"),
                        "string(rp.count)",
                        &format!(
                            "\"cannot be less than \" + string({old_reclaimable}.filter(o, o.name == rp.name)[0].count)"
                        ),
                    ),
                ),
            ),
            each(
                old_reclaimable,
                "oi",
                "o",
                &when(
                    &format!("!{new_reclaimable}.exists(rp, rp.name == o.name)"),
                    &format!(
                        "[{} + \": Required value: cannot be removed\"]",
                        reclaimable.key("o.name").expr()
                    ),
                ),
            ),
        ]),
    );
    let admission = when(
        "has(object.status) && has(object.status.admission) && has(oldObject.status) && has(oldObject.status.admission)",
        &when(
            &format!(
                "!{}",
                same_admission("object.status.admission", "oldObject.status.admission")
            ),
            &invalid(
                &Path::new("status.admission"),
                "\"\\\"object\\\"\"",
                &lit("field is immutable"),
            ),
        ),
    );
    let checks = Path::new("status.admissionChecks");
    let new_checks = "(has(object.status) && has(object.status.admissionChecks) ? object.status.admissionChecks : [])";
    let ready_updates = when(
        "has(oldObject.status) && has(oldObject.status.admissionChecks)",
        &each(
            "oldObject.status.admissionChecks",
            "i",
            "o",
            &when(
                &format!(
                    "o.state == \"Ready\" && {new_checks}.exists(n, n.name == o.name && n.state == \"Ready\" && (has(n.podSetUpdates) ? n.podSetUpdates : []) != (has(o.podSetUpdates) ? o.podSetUpdates : []))"
                ),
                &invalid(
                    &checks.index("i").child("podSetUpdates"),
                    "\"\\\"array\\\"\"",
                    &lit("field is immutable"),
                ),
            ),
        ),
    );
    let cluster_name = when(
        "!(has(oldObject.status) && has(oldObject.status.clusterName)) && has(object.status) && has(object.status.clusterName)",
        &when(
            "!(has(oldObject.status) && has(oldObject.status.nominatedClusterNames) && object.status.clusterName in oldObject.status.nominatedClusterNames)",
            &invalid(
                &Path::new("status.clusterName"),
                &quoted("object.status.clusterName"),
                &lit("when setting clusterName it must be one of the nominatedClusterNames"),
            ),
        ),
    );
    all(&[
        frozen,
        reclaimable_update,
        admission,
        ready_updates,
        cluster_name,
    ])
}

/// Every error of a Workload create or update, in upstream's order.
pub fn errors() -> String {
    all(&[workload(), when("oldObject != null", &update())])
}
