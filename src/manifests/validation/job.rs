//! The rules of upstream's batch/v1 Job validating webhook (`vjob.kb.io`) as CEL error lists:
//! the queue-name and prebuilt-workload label formats, `max-exec-time-seconds`,
//! `job-min-parallelism` bounds, `job-completions-equal-parallelism`, and on update the fields
//! frozen while the Job runs and the priority-class add/remove rules.
//!
//! Not expressible here: "queue-name must not be empty in namespace with default queue" needs
//! to read the namespace's LocalQueues (the controller treats such a Job as unmanaged), and the
//! feature-gated TAS and admission-gate annotations are not supported by this product.

use super::cel::{
    Path, all, atoi_error, dns1123_subdomain_messages, invalid, is_atoi, is_parse_bool, lit,
    parse_bool_true, quoted, typed_detail, when,
};

const QUEUE: &str = "kueue.x-k8s.io/queue-name";
const PRIORITY_CLASS: &str = "kueue.x-k8s.io/priority-class";
const MAX_EXEC: &str = "kueue.x-k8s.io/max-exec-time-seconds";
const PREBUILT: &str = "kueue.x-k8s.io/prebuilt-workload-name";
const MIN_PARALLELISM: &str = "kueue.x-k8s.io/job-min-parallelism";
const SYNC_COMPLETIONS: &str = "kueue.x-k8s.io/job-completions-equal-parallelism";
const ELASTIC: &str = "kueue.x-k8s.io/elastic-job";

/// `obj.metadata.<map>[key]`, or `""` when absent.
fn meta(obj: &str, map: &str, key: &str) -> String {
    format!(
        "(has({obj}.metadata.{map}) && \"{key}\" in {obj}.metadata.{map} ? {obj}.metadata.{map}[\"{key}\"] : \"\")"
    )
}

fn has_meta(obj: &str, map: &str, key: &str) -> String {
    format!("(has({obj}.metadata.{map}) && \"{key}\" in {obj}.metadata.{map})")
}

fn suspended(obj: &str) -> String {
    format!("(has({obj}.spec.suspend) && {obj}.spec.suspend)")
}

fn label_path(key: &str) -> Path {
    Path::new(&format!("metadata.labels[{key}]"))
}

fn annotation_path(key: &str) -> Path {
    Path::new(&format!("metadata.annotations[{key}]"))
}

/// A label that must be a DNS-1123 subdomain (its messages joined by `,`).
fn subdomain_label(key: &str) -> String {
    let value = meta("object", "labels", key);
    let messages = dns1123_subdomain_messages(&value, "");
    when(
        &format!(
            "{} && size({messages}) > 0",
            has_meta("object", "labels", key)
        ),
        &invalid(
            &label_path(key),
            &quoted(&value),
            &format!("{messages}.join(\",\")"),
        ),
    )
}

/// `ValidateJobOnCreate`, then the partial-admission and completions checks.
fn on_create(min_parallelism_changed: &str) -> String {
    let max_exec = meta("object", "labels", MAX_EXEC);
    let max_exec_errors = when(
        &has_meta("object", "labels", MAX_EXEC),
        &format!(
            "(!{} ? {} : {})",
            is_atoi(&max_exec),
            invalid(
                &label_path(MAX_EXEC),
                &quoted(&max_exec),
                &atoi_error(&max_exec)
            ),
            when(
                &format!("int({max_exec}) <= 0"),
                &invalid(
                    &label_path(MAX_EXEC),
                    &format!("string(int({max_exec}))"),
                    &lit("should be greater than 0"),
                ),
            )
        ),
    );
    let min = meta("object", "annotations", MIN_PARALLELISM);
    let min_path = annotation_path(MIN_PARALLELISM);
    let min_errors = when(
        &format!(
            "{} && ({min_parallelism_changed})",
            has_meta("object", "annotations", MIN_PARALLELISM)
        ),
        &all(&[
            format!(
                "(!{} ? {} : {})",
                is_atoi(&min),
                invalid(&min_path, &quoted(&min), &atoi_error(&min)),
                when(
                    &format!("int({min}) >= variables.podsCount || int({min}) <= 0"),
                    &invalid(
                        &min_path,
                        &format!("string(int({min}))"),
                        "\"should be between 0 and \" + string(variables.podsCount - 1)",
                    ),
                )
            ),
            when(
                "variables.elastic",
                &invalid(
                    &min_path,
                    &quoted(&min),
                    &lit("partial admission and elastic job cannot be used together"),
                ),
            ),
        ]),
    );
    let sync = meta("object", "annotations", SYNC_COMPLETIONS);
    let sync_path = annotation_path(SYNC_COMPLETIONS);
    let sync_errors = when(
        &has_meta("object", "annotations", SYNC_COMPLETIONS),
        &all(&[
            when(
                &format!("!{}", is_parse_bool(&sync)),
                &invalid(
                    &sync_path,
                    &quoted(&sync),
                    &format!(
                        "\"strconv.ParseBool: parsing \" + {} + \": invalid syntax\"",
                        quoted(&sync)
                    ),
                ),
            ),
            when(
                &parse_bool_true(&sync),
                &all(&[
                    when(
                        "!has(object.spec.completionMode) || object.spec.completionMode == \"NonIndexed\"",
                        &invalid(
                            &sync_path,
                            &quoted(&sync),
                            &lit("should not be enabled for NonIndexed jobs"),
                        ),
                    ),
                    when(
                        "(has(object.spec.parallelism) ? object.spec.parallelism : 1) != (has(object.spec.completions) ? object.spec.completions : 1)",
                        &invalid(
                            &Path::new("spec.completions"),
                            "(has(object.spec.completions) ? string(object.spec.completions) : \"null\")",
                            &lit(&format!(
                                "should be equal to parallelism when {SYNC_COMPLETIONS} annotation is true"
                            )),
                        ),
                    ),
                ]),
            ),
        ]),
    );
    all(&[
        subdomain_label(QUEUE),
        subdomain_label(PREBUILT),
        max_exec_errors,
        min_errors,
        sync_errors,
    ])
}

/// `ValidateJobOnUpdate` and `validatePartialAdmissionUpdate`.
fn on_update() -> String {
    let queue = |o: &str| meta(o, "labels", QUEUE);
    let prebuilt = |o: &str| meta(o, "labels", PREBUILT);
    let max_exec = |o: &str| meta(o, "labels", MAX_EXEC);
    let wpc = |o: &str| meta(o, "labels", PRIORITY_CLASS);
    let immutable = lit("field is immutable");
    let sync_on = |o: &str| parse_bool_true(&meta(o, "annotations", SYNC_COMPLETIONS));
    all(&[
        when(
            &format!(
                "!{} && {} != {}",
                suspended("object"),
                queue("object"),
                queue("oldObject")
            ),
            &invalid(&label_path(QUEUE), &quoted(&queue("object")), &immutable),
        ),
        when(
            &format!(
                "!{} && !{} && {} != {}",
                suspended("object"),
                parse_bool_true(&meta("oldObject", "annotations", ELASTIC)),
                prebuilt("object"),
                prebuilt("oldObject")
            ),
            &invalid(
                &label_path(PREBUILT),
                &quoted(&prebuilt("object")),
                &immutable,
            ),
        ),
        when(
            &format!(
                "(!{} || !{}) && {} != {}",
                suspended("object"),
                suspended("oldObject"),
                max_exec("object"),
                max_exec("oldObject")
            ),
            &invalid(
                &label_path(MAX_EXEC),
                &quoted(&max_exec("object")),
                &immutable,
            ),
        ),
        format!(
            "((!{} && {} == \"\" && {} != \"\") ? {} : {})",
            suspended("object"),
            wpc("oldObject"),
            wpc("object"),
            invalid(
                &label_path(PRIORITY_CLASS),
                &quoted(&wpc("object")),
                &lit("WorkloadPriorityClass cannot be added to a non-suspended workload"),
            ),
            when(
                &format!("{} == \"\" && {} != \"\"", wpc("object"), wpc("oldObject")),
                &invalid(
                    &label_path(PRIORITY_CLASS),
                    "\"\\\"\\\"\"",
                    &lit("WorkloadPriorityClass cannot be removed from a workload"),
                ),
            )
        ),
        when(
            "variables.elastic != variables.oldElastic",
            &invalid(
                &annotation_path(ELASTIC),
                "string(variables.elastic)",
                &immutable,
            ),
        ),
        when(
            &format!(
                "{} && !{} && (has(oldObject.spec.parallelism) ? oldObject.spec.parallelism : 1) != (has(object.spec.parallelism) ? object.spec.parallelism : 1)",
                has_meta("oldObject", "annotations", MIN_PARALLELISM),
                suspended("oldObject")
            ),
            &typed_detail(
                &Path::new("spec.parallelism"),
                "Forbidden",
                "cannot change when partial admission is enabled and the job is not suspended",
            ),
        ),
        when(
            &format!(
                "{} == {} && !{} && {} != {}",
                suspended("oldObject"),
                suspended("object"),
                suspended("object"),
                sync_on("oldObject"),
                sync_on("object")
            ),
            &typed_detail(
                &annotation_path(SYNC_COMPLETIONS),
                "Forbidden",
                "field is immutable while the job is not suspended",
            ),
        ),
    ])
}

/// Variables of the Job policy (before `errors`).
pub fn variables() -> Vec<(&'static str, String)> {
    vec![
        (
            "podsCount",
            "(has(object.spec.completions) && object.spec.completions < (has(object.spec.parallelism) ? object.spec.parallelism : 1)) ? object.spec.completions : (has(object.spec.parallelism) ? object.spec.parallelism : 1)".into(),
        ),
        ("elastic", parse_bool_true_exact(&meta("object", "annotations", ELASTIC))),
        (
            "oldElastic",
            format!(
                "oldObject != null && {}",
                parse_bool_true_exact(&meta("oldObject", "annotations", ELASTIC))
            ),
        ),
    ]
}

/// `workloadslicing.Enabled`: the annotation is exactly `true`.
fn parse_bool_true_exact(s: &str) -> String {
    format!("({s} == \"true\")")
}

/// Every error of a Job create or update, in upstream's order.
pub fn errors() -> String {
    let min_changed = format!(
        "oldObject == null || {} != {}",
        meta("object", "annotations", MIN_PARALLELISM),
        meta("oldObject", "annotations", MIN_PARALLELISM)
    );
    all(&[
        on_create(&min_changed),
        when("oldObject != null", &on_update()),
    ])
}

/// Evaluate the policy only for Jobs that carry (or carried) a Kueue label or annotation.
pub fn match_condition() -> String {
    let kueue = |o: &str, m: &str| {
        format!(
            "(has({o}.metadata.{m}) && {o}.metadata.{m}.exists(k, k.startsWith(\"kueue.x-k8s.io/\")))"
        )
    };
    format!(
        "{} || {} || (oldObject != null && ({} || {}))",
        kueue("object", "labels"),
        kueue("object", "annotations"),
        kueue("oldObject", "labels"),
        kueue("oldObject", "annotations")
    )
}
