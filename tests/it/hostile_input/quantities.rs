//! Quantities at the extremes, as the engine reads requests and quotas: an amount is an exact
//! integer in the resource's unit (millis for cpu, units otherwise) rounded up, as upstream's
//! `MilliValue`/`Value`; too large for an i64 is "unlimited" for cpu quotas and saturates or
//! fails otherwise, never wraps. Rounding up means a request never counts for less than it
//! asks (the submitter never gains); the same rounding on a quota can only give a fraction of
//! a milli more than written (upstream's reading too).

use kubectl_kueue::scheduler::quantity::parse_amount;
use proptest::prelude::*;

/// `mantissa * 10^exp` (or `* 1024^k` for binary suffixes) in the resource's unit, as f64.
fn exact(text: &str, milli: bool) -> Option<f64> {
    let (num, mult) = [
        ("Ki", 1024f64),
        ("Mi", 1024f64.powi(2)),
        ("Gi", 1024f64.powi(3)),
        ("Ti", 1024f64.powi(4)),
        ("Pi", 1024f64.powi(5)),
        ("Ei", 1024f64.powi(6)),
        ("n", 1e-9),
        ("u", 1e-6),
        ("m", 1e-3),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("E", 1e18),
    ]
    .iter()
    .find_map(|(s, m)| text.strip_suffix(s).map(|n| (n, *m)))
    .unwrap_or((text, 1.0));
    let v: f64 = num.parse().ok()?;
    Some(v * mult * if milli { 1000.0 } else { 1.0 })
}

fn quantity() -> impl Strategy<Value = String> {
    (
        0u64..1_000_000_000,
        0u32..7,
        prop_oneof![
            Just(""),
            Just("m"),
            Just("n"),
            Just("u"),
            Just("k"),
            Just("M"),
            Just("G"),
            Just("T"),
            Just("P"),
            Just("E"),
            Just("Ki"),
            Just("Mi"),
            Just("Gi"),
            Just("Ei"),
        ],
        proptest::option::of(-20i32..20),
    )
        .prop_map(|(m, frac, suffix, exp)| {
            let digits = m.to_string();
            let num = if frac > 0 && (frac as usize) < digits.len() {
                let (a, b) = digits.split_at(digits.len() - frac as usize);
                format!("{a}.{b}")
            } else {
                digits
            };
            match exp {
                Some(e) if suffix.is_empty() => format!("{num}e{e}"),
                _ => format!("{num}{suffix}"),
            }
        })
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn an_amount_is_never_below_what_is_written(q in quantity(), cpu in any::<bool>()) {
        let resource = if cpu { "cpu" } else { "memory" };
        let Ok(a) = parse_amount(resource, &q) else { return Ok(()) };
        prop_assert!(a.get() >= 0, "{q} read as {}", a.get());
        let want = exact(&q, cpu).unwrap();
        if !a.is_unlimited() && want < 9.0e18 {
            // Never below (up to f64's own rounding of `want`), and at most one unit above.
            prop_assert!(a.get() as f64 >= want * (1.0 - 1e-12) - 1e-6, "{q}: {} < {want}", a.get());
            prop_assert!((a.get() as f64) < want * (1.0 + 1e-12) + 1.0 + 1e-6, "{q}: {} > {want}+1", a.get());
        }
    }
}

#[test]
fn the_extremes() {
    let cases: &[(&str, &str, Option<i64>)] = &[
        ("cpu", "0", Some(0)),
        ("cpu", "0.0001m", Some(1)),
        ("cpu", "1n", Some(1)),
        ("cpu", "1.5m", Some(2)),
        ("memory", "0.5", Some(1)),
        ("memory", "1e18", Some(1_000_000_000_000_000_000)),
        ("memory", "1Ei", Some(1_152_921_504_606_846_976)),
        ("nvidia.com/gpu", "9223372036854775807", Some(i64::MAX)),
    ];
    for (res, q, want) in cases {
        let got = parse_amount(res, q).ok().map(|a| a.get());
        assert_eq!(got, *want, "{res} {q}");
    }
    // Beyond i64: unlimited or an error, never a wrapped (negative or small) number.
    for (res, q) in [
        ("cpu", "1e18"),
        ("cpu", "1Ei"),
        ("memory", "1e19"),
        ("memory", "16Ei"),
        ("memory", "1e400"),
    ] {
        if let Ok(a) = parse_amount(res, q) {
            assert!(
                a.is_unlimited() || a.get() >= 1_000_000_000_000_000_000,
                "{res} {q}: {}",
                a.get()
            );
        }
    }
}

/// A request of a fraction of a milli is a whole milli: it does not fit a zero quota, and a
/// request of 1e18 CPUs (unlimited for a quota) does not fit 4.
#[test]
fn tiny_and_huge_requests_are_not_admitted_for_free() {
    for (quota, request, admitted) in [
        ("0", "0.0001m", false),
        // Each pod's 0.0001m counts as 1m (per pod, as upstream): 3m for three pods.
        ("2m", "0.0001m", false),
        ("3m", "0.0001m", true),
        ("4", "1e18", false),
        ("4", "1Ei", false),
        ("12", "4", true),
    ] {
        let text = format!(
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {{name: f}}\n---\n\
             apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {{name: q}}\nspec:\n  \
             resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      \
             resources: [{{name: cpu, nominalQuota: '{quota}'}}]\n---\n\
             apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {{name: lq, namespace: ns}}\nspec: {{clusterQueue: q}}\n---\n\
             apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {{name: w, namespace: ns}}\n\
             spec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 3\n    template:\n      spec:\n        \
             containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{request}'}}}}}}]\n"
        );
        let mut order = 0;
        let docs =
            kubectl_kueue::manifests::documents::parse_documents("q.yaml", &text, &mut order)
                .unwrap();
        let inv = kubectl_kueue::manifests::Inventory::from_documents(docs).unwrap();
        let opts = kubectl_kueue::manifests::ConvertOptions {
            now: 0,
            strict_namespace_selector: false,
        };
        let out = kubectl_kueue::simulate::Simulation::run(inv, &[], &opts)
            .unwrap()
            .output();
        let w = out["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["kind"] == "Workload")
            .unwrap();
        let got = w["status"]["admission"].is_object();
        assert_eq!(
            got, admitted,
            "quota {quota}, 3 x {request}: {}",
            w["status"]
        );
    }
}
