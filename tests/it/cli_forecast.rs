//! `explain -f` shows the estimated start offline: Monday's eight experiments (each with
//! `spec.maximumExecutionTimeSeconds: 7200`, admitted 09:01 to 09:08) hold all eight GPUs at
//! 10:00, so a new experiment starts when the first one hits its limit, at 11:01:02, at the
//! latest; without limits the runtimes are unknown and so is the start.
#![cfg(feature = "cli")]

const NOW: &str = "2025-07-21T10:00:00Z";

fn monday(limit: bool) -> tempfile::NamedTempFile {
    let root = env!("CARGO_MANIFEST_DIR");
    let text =
        std::fs::read_to_string(format!("{root}/examples/gpu-two-teams/monday/running.yaml"))
            .unwrap();
    let text = if limit {
        text.replace(
            "\nspec:\n",
            "\nspec:\n  maximumExecutionTimeSeconds: 7200\n",
        )
    } else {
        text
    };
    let f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}

fn explain(limit: bool, extra: &[&str]) -> String {
    let running = monday(limit);
    let mut args = vec![
        "explain",
        "job/experiment-42",
        "-n",
        "team-a",
        "--now",
        NOW,
        "-f",
        "examples/gpu-two-teams",
        "-f",
        running.path().to_str().unwrap(),
        "-f",
        "examples/gpu-two-teams/jobs/experiment-42.yaml",
    ];
    args.extend(extra);
    let r = crate::support::cli::run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn explain_gives_the_start_when_the_first_limit_runs_out() {
    let out = explain(true, &[]);
    assert!(out.contains("Estimated start"), "{out}");
    assert!(
        out.contains(
            "expected to start in at most 61m (11:01 UTC), once team-a/job-experiment-1-9f7b8 finish"
        ),
        "{out}"
    );
    assert!(
        out.contains("team-a/job-experiment-1-9f7b8: at most 120m (spec.maximumExecutionTimeSeconds), expected to end 11:01 UTC"),
        "{out}"
    );
    assert!(
        out.contains("in ClusterQueue team-a-queue on flavor gpu-a100"),
        "{out}"
    );
}

#[test]
fn explain_json_carries_the_estimate_as_data() {
    let v: serde_json::Value = serde_json::from_str(&explain(true, &["-o", "json"])).unwrap();
    let e = &v["estimatedStart"];
    let at: k8s_openapi::jiff::Timestamp = "2025-07-21T11:01:02Z".parse().unwrap();
    assert_eq!(e["start"]["state"], "at", "{e}");
    assert_eq!(e["start"]["at"], at.as_millisecond(), "{e}");
    assert_eq!(e["upperBound"], true, "{e}");
    assert_eq!(e["flavors"], serde_json::json!(["gpu-a100"]), "{e}");
    assert_eq!(
        e["waitsFor"],
        serde_json::json!(["team-a/job-experiment-1-9f7b8"]),
        "{e}"
    );
    assert_eq!(
        e["assumptions"][0]["runtime"]["source"]["kind"], "maximumExecutionTime",
        "{e}"
    );
}

#[test]
fn without_limits_or_history_the_start_is_unknown() {
    let out = explain(false, &[]);
    assert!(
        out.contains("no estimate: it waits for team-a/job-experiment-1-9f7b8, "),
        "{out}"
    );
    assert!(out.contains("whose runtime is unknown"), "{out}");
}
