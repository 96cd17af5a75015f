//! Input built to exhaust the reader: nesting deeper than any manifest, aliases that expand
//! exponentially, a long file. Each ends in bounded time (generous for a debug build on a
//! loaded machine) and, for the alias bomb, without the memory its expansion would take
//! (the process's peak resident size, `VmHWM`, grows by less than 256 MiB).

use std::time::{Duration, Instant};

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn timed(what: &str, limit: Duration, text: &str) -> Result<(), String> {
    let start = Instant::now();
    let r = super::run(text);
    let took = start.elapsed();
    assert!(took < limit, "{what}: {took:?} (limit {limit:?})");
    eprintln!(
        "{what}: {took:?}, {}",
        if r.is_ok() { "read" } else { "refused" }
    );
    r
}

#[test]
fn deep_nesting_is_refused_quickly_with_the_document_named() {
    // Time grows with the file's size (tens of microseconds per level in a debug build).
    for (depth, secs) in [(200, 2), (10_000, 10), (50_000, 30)] {
        let limit = Duration::from_secs(secs);
        let flow = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let e = timed(&format!("flow depth {depth}"), limit, &flow).unwrap_err();
        assert!(e.contains("document 1"), "{e}");
        let mut block = String::from(
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n",
        );
        // Block nesting costs its indentation: 2,000 levels are 4 MB.
        for i in 0..depth.min(2_000) {
            block += &" ".repeat(2 * (i + 1));
            block += "a:\n";
        }
        let _ = timed(&format!("block depth {}", depth.min(2_000)), limit, &block);
    }
}

#[test]
fn an_alias_bomb_is_refused_without_expanding() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb += &format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        );
    }
    bomb += "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: *a11}\n";
    let before = peak_rss_kib();
    let e = timed("alias bomb (10^12 nodes)", Duration::from_secs(5), &bomb).unwrap_err();
    let grew = peak_rss_kib().saturating_sub(before);
    assert!(grew < 256 * 1024, "peak memory grew by {grew} KiB");
    assert!(e.contains("document 1"), "{e}");
}

#[test]
fn a_long_file_reads_in_bounded_time() {
    let mut text = String::from(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n\
         apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  \
         resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      \
         resources: [{name: cpu, nominalQuota: 100}]\n---\n\
         apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: lq, namespace: ns}\nspec: {clusterQueue: q}\n",
    );
    let n = 5_000;
    for i in 0..n {
        text += &format!(
            "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {{name: w{i}, namespace: ns}}\n\
             spec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n        \
             containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]\n"
        );
    }
    eprintln!("long file: {} documents, {} KiB", n + 3, text.len() / 1024);
    let start = Instant::now();
    let mut order = 0;
    let docs = kubectl_kueue::manifests::documents::parse_documents("long.yaml", &text, &mut order)
        .unwrap();
    let inv = kubectl_kueue::manifests::Inventory::from_documents(docs).unwrap();
    let opts = kubectl_kueue::manifests::ConvertOptions {
        now: 0,
        strict_namespace_selector: false,
    };
    let converted = kubectl_kueue::manifests::convert(&inv, &opts).unwrap();
    let took = start.elapsed();
    eprintln!("long file read and converted in {took:?}");
    assert!(
        took < Duration::from_secs(30),
        "reading and converting took {took:?}"
    );
    assert_eq!(converted.state.workloads.len(), n);
}
