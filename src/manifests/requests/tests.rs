use super::*;

fn spec(yaml: &str) -> PodSpec {
    serde_yaml::from_str(yaml).unwrap()
}

fn none() -> RequestContext {
    RequestContext::default()
}

fn reqs(s: &PodSpec, ctx: &RequestContext) -> PodRequests {
    pod_requests(s, "ns", "spec", ctx).unwrap()
}

fn limit_range(ns: &str, name: &str, items: &str) -> LimitRange {
    serde_yaml::from_str(&format!(
        "metadata: {{name: {name}, namespace: {ns}}}\nspec:\n  limits: {items}\n"
    ))
    .unwrap()
}

#[test]
fn containers_add_up_and_init_containers_peak() {
    let s = spec(
        "containers:\n- name: a\n  resources: {requests: {cpu: 500m, nvidia.com/gpu: 1}}\n- name: b\n  resources: {limits: {cpu: '1'}}\ninitContainers:\n- name: i\n  resources: {requests: {cpu: '4'}}\n",
    );
    let r = reqs(&s, &none()).per_pod;
    assert_eq!(r["cpu"], 4000, "the init container's peak wins");
    assert_eq!(r["nvidia.com/gpu"], 1);
}

#[test]
fn sidecars_run_alongside_and_count_for_later_init_containers() {
    let s = spec(
        "containers:\n- name: a\n  resources: {requests: {cpu: '1'}}\ninitContainers:\n- name: side\n  restartPolicy: Always\n  resources: {requests: {cpu: '1'}}\n- name: setup\n  resources: {requests: {cpu: '2'}}\n",
    );
    // Containers 1 + sidecar 1 = 2; the init container after the sidecar peaks at 2 + 1.
    assert_eq!(reqs(&s, &none()).per_pod["cpu"], 3000);
}

#[test]
fn bad_quantity_names_its_field() {
    let s = spec("containers:\n- name: a\n  resources: {requests: {cpu: lots}}\n");
    let e = pod_requests(&s, "ns", "spec.template.spec", &none()).unwrap_err();
    assert_eq!(
        e.field,
        "spec.template.spec.containers[0].resources.requests[cpu]"
    );
}

#[test]
fn pod_level_requests_replace_cpu_and_memory_only() {
    let s = spec(
        "resources: {requests: {cpu: '3', nvidia.com/gpu: '8'}, limits: {memory: 2Gi}}\ncontainers:\n- name: a\n  resources: {requests: {cpu: '1', memory: 1Gi, nvidia.com/gpu: '1'}}\n",
    );
    let r = reqs(&s, &none()).per_pod;
    assert_eq!(r["cpu"], 3000, "pod level wins for cpu");
    assert_eq!(
        r["memory"],
        2 << 30,
        "a pod-level limit stands in for its request"
    );
    assert_eq!(
        r["nvidia.com/gpu"], 1,
        "not a pod-level resource: containers count"
    );
}

#[test]
fn overhead_comes_from_the_runtime_class_unless_the_template_has_one() {
    let rc: RuntimeClass = serde_yaml::from_str(
        "metadata: {name: kata}\nhandler: kata\noverhead: {podFixed: {cpu: 250m, memory: 64Mi}}\n",
    )
    .unwrap();
    let ctx = RequestContext::new([], [&rc]);
    let s = spec(
        "runtimeClassName: kata\ncontainers:\n- name: a\n  resources: {requests: {cpu: '1'}}\n",
    );
    let r = reqs(&s, &ctx).per_pod;
    assert_eq!(r["cpu"], 1250);
    assert_eq!(r["memory"], 64 << 20);
    let own = spec(
        "runtimeClassName: kata\noverhead: {cpu: 100m}\ncontainers:\n- name: a\n  resources: {requests: {cpu: '1'}}\n",
    );
    assert_eq!(
        reqs(&own, &ctx).per_pod["cpu"],
        1100,
        "the template's own overhead is kept"
    );
    let unknown = spec(
        "runtimeClassName: gvisor\ncontainers:\n- name: a\n  resources: {requests: {cpu: '1'}}\n",
    );
    assert_eq!(reqs(&unknown, &ctx).per_pod["cpu"], 1000);
}

#[test]
fn limit_range_defaults_fill_missing_requests_before_limits_do() {
    let lr = limit_range(
        "ns",
        "a",
        "[{type: Container, default: {cpu: '2', memory: 1Gi}, defaultRequest: {cpu: 500m}}]",
    );
    let later = limit_range(
        "ns",
        "b",
        "[{type: Container, defaultRequest: {cpu: '9', nvidia.com/gpu: '1'}}]",
    );
    let other_ns = limit_range(
        "elsewhere",
        "c",
        "[{type: Container, defaultRequest: {cpu: '7'}}]",
    );
    let ctx = RequestContext::new([&later, &other_ns, &lr], []);
    let s = spec(
        "containers:\n- name: none\n- name: own\n  resources: {requests: {cpu: '1'}}\ninitContainers:\n- name: i\n",
    );
    let r = reqs(&s, &ctx).per_pod;
    // `none`: defaultRequest 500m (the first LimitRange by name wins); `own`: 1; memory from
    // the default limit standing in for the missing request, per container.
    assert_eq!(r["cpu"], 1500);
    assert_eq!(r["memory"], 2 << 30);
    assert_eq!(
        r["nvidia.com/gpu"], 2,
        "keys only a later LimitRange has still count"
    );
    assert_eq!(
        reqs(&s, &none()).per_pod.get("cpu"),
        Some(&Amount::new(1000))
    );
}

#[test]
fn a_container_item_is_defaulted_as_the_api_server_does() {
    // Only max: it becomes the default limit and so the default request.
    let lr = limit_range(
        "ns",
        "a",
        "[{type: Container, max: {cpu: '2'}, min: {memory: 10Mi}}]",
    );
    let ctx = RequestContext::new([&lr], []);
    let r = reqs(&spec("containers:\n- name: a\n"), &ctx).per_pod;
    assert_eq!(r["cpu"], 2000);
    assert_eq!(
        r["memory"],
        10 << 20,
        "min stands in for a missing default request"
    );
}

#[test]
fn pod_defaults_apply_only_to_templates_with_pod_level_resources() {
    let lr = limit_range("ns", "a", "[{type: Pod, defaultRequest: {memory: 1Gi}}]");
    let ctx = RequestContext::new([&lr], []);
    let with = spec("resources: {requests: {cpu: '2'}}\ncontainers:\n- name: a\n");
    let r = reqs(&with, &ctx).per_pod;
    assert_eq!(
        (r["cpu"], r["memory"]),
        (Amount::new(2000), Amount::new(1 << 30))
    );
    let without = spec("containers:\n- name: a\n  resources: {requests: {cpu: '1'}}\n");
    assert_eq!(reqs(&without, &ctx).per_pod.get("memory"), None);
}

#[test]
fn negative_requests_are_problems_and_never_count() {
    let s = spec(
        "containers:\n- name: a\n  resources: {requests: {cpu: '-8'}}\n- name: b\n  resources: {requests: {cpu: '10'}, limits: {memory: '-1'}}\n",
    );
    let r = pod_requests(&s, "ns", "spec.podSets[0].template.spec", &none()).unwrap();
    assert_eq!(
        r.problems,
        [
            "spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: \"-8\": must be greater than or equal to 0",
            "spec.podSets[0].template.spec.containers[1].resources.limits[memory]: Invalid value: \"-1\": must be greater than or equal to 0",
        ]
    );
    assert_eq!(r.per_pod["cpu"], 2000, "summed as given, never below zero");
    assert_eq!(r.per_pod["memory"], 0);
}

#[test]
fn requests_above_limits_are_problems_after_the_defaults() {
    let lr = limit_range("ns", "a", "[{type: Container, default: {cpu: '1'}}]");
    let ctx = RequestContext::new([&lr], []);
    let s = spec(
        "containers:\n- name: a\n  resources: {requests: {cpu: '2', memory: 1Gi}, limits: {memory: 512Mi}}\n",
    );
    assert_eq!(
        reqs(&s, &ctx).problems,
        [
            "spec.containers[0]: Invalid value: [\"cpu\",\"memory\"]: requests must not exceed its limits"
        ]
    );
    assert_eq!(
        reqs(&s, &none()).problems,
        ["spec.containers[0]: Invalid value: [\"memory\"]: requests must not exceed its limits"]
    );
}
