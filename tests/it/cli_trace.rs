//! `simulate --trace` and `history generate` offline: the five-job trace of
//! [`crate::trace_replay`] as a table, as data, compared under an edit, against a `--compare`
//! setup and with an `--add`ed queue (figures worked out by hand), with charts; the example
//! week with its charts and the README's transcripts of it; bad rows named by file, line and
//! field.
#![cfg(feature = "cli")]

use crate::support::cli::run;
use crate::trace_replay::TINY;

fn tiny_file() -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::fs::write(f.path(), TINY).unwrap();
    f
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let r = run(args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn the_table_shows_waits_usage_and_preemptions_per_queue() {
    let f = tiny_file();
    let r = run(&["simulate", "--trace", f.path().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.stdout;
    assert!(
        out.contains("5 jobs from 2025-07-21T09:00:00Z to 2025-07-21T10:30:00Z: 5 admitted, 5 finished, 2 preemptions"),
        "{out}"
    );
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    // CLUSTERQUEUE JOBS P50 P90 MAX NEVER USAGE BORROWED ADMITTED-BORROWING PREEMPTED
    assert_eq!(
        row("team-a-queue"),
        [
            "team-a-queue",
            "3",
            "0s",
            "4m",
            "4m",
            "0",
            "121%",
            "1.42",
            "1",
            "2"
        ],
        "{out}"
    );
    assert_eq!(
        row("team-b/training-queue"),
        ["team-b/training-queue", "2", "0s", "0s", "0s", "0", "0"],
        "{out}"
    );
}

#[test]
fn compare_and_plot_write_charts_and_the_same_figures() {
    let f = tiny_file();
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("charts");
    let trace = f.path().to_str().unwrap();
    let edit = "cq/team-b-queue.preemption.reclaimWithinCohort=Never";
    let with_plot = json_of(&[
        "simulate",
        "--trace",
        trace,
        "--set",
        edit,
        "--plot",
        plot.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let without = json_of(&["simulate", "--trace", trace, "--set", edit, "-o", "json"]);
    assert_eq!(with_plot["before"], without["before"]);
    assert_eq!(with_plot["after"], without["after"]);
    assert_eq!(with_plot["after"]["preemptions"], 0);
    assert_eq!(with_plot["waitChanged"][0]["workload"], "team-b/b1");
    assert_eq!(with_plot["waitChanged"][0]["afterSeconds"], 3540.0);
    let charts: Vec<String> = with_plot["charts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(charts.len(), 4, "{charts:?}");
    for name in ["usage.svg", "usage.png", "wait.svg", "wait.png"] {
        let bytes = std::fs::read(plot.join(name)).unwrap();
        assert!(bytes.len() > 1000, "{name}: {} bytes", bytes.len());
        if name.ends_with(".png") {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.starts_with("<svg"), "{name}");
            // The legend names both setups of each queue.
            assert!(
                text.contains("team-a-queue (before)") && text.contains("team-a-queue (after)"),
                "{name}"
            );
        }
    }
}

/// A table row's cells (the first line starting with `name`).
fn row(out: &str, name: &str) -> Vec<String> {
    out.lines()
        .find(|l| l.starts_with(name))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The seed's setup files (namespaces, priority classes, queues) copied into a directory, with
/// `edit` applied to `setup.yaml`.
fn seed_setup_dir(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    for name in ["namespaces.yaml", "priorities.yaml", "setup.yaml"] {
        let text =
            std::fs::read_to_string(format!("{root}/examples/gpu-two-teams/{name}")).unwrap();
        let text = if name == "setup.yaml" {
            edit(&text)
        } else {
            text
        };
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn compare_shows_a_second_setup_side_by_side() {
    // The proposal: team A's nominal quota 4 -> 12 GPUs (its first nominalQuota in the file).
    // Every job of the tiny trace then fits without borrowing: a1 (6), a2 (2) and a3 (4) run
    // together inside team A's 12, b1 and b2 inside team B's 4. So no preemptions, a3 starts
    // at once (4m before), and a1 runs its hour once: the span ends at 10:00, not 10:30.
    // Usage (GPU-seconds over the span and nominal quota): A 6x3600 + 2x300 + 4x600 = 24600
    // over 3600 s of 12 = 57%; B 4x600 + 4x600 = 4800 over 3600 s of 4 = 33% (22% before,
    // over 5400 s); the cluster 29400 over 3600 s of 16 = 51% (30840 / 5400 / 8 = 71% before).
    let root = env!("CARGO_MANIFEST_DIR");
    let f = tiny_file();
    let proposed = seed_setup_dir(|t| t.replacen("nominalQuota: 4\n", "nominalQuota: 12\n", 1));
    let proposed_path = proposed.path().to_str().unwrap();
    let r = run(&[
        "simulate",
        "--trace",
        f.path().to_str().unwrap(),
        "-f",
        &format!("{root}/examples/gpu-two-teams"),
        "--compare",
        proposed_path,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "Before: 5 jobs from 2025-07-21T09:00:00Z to 2025-07-21T10:30:00Z: 5 admitted, 5 finished, 2 preemptions; cluster nvidia.com/gpu usage 71%".to_string(),
            format!("After (--compare {proposed_path}): 5 jobs from 2025-07-21T09:00:00Z to 2025-07-21T10:00:00Z: 5 admitted, 5 finished, 0 preemptions; cluster nvidia.com/gpu usage 51%"),
        ],
        "{out}"
    );
    // CLUSTERQUEUE P50 P90 MAX USAGE-OF-NOMINAL BORROWED PREEMPTED; a changed cell is `a → b`.
    assert_eq!(
        row(&out, "team-a-queue"),
        [
            "team-a-queue",
            "0s",
            "4m",
            "→",
            "0s",
            "4m",
            "→",
            "0s",
            "121%",
            "→",
            "57%",
            "1.42",
            "→",
            "0.00",
            "2",
            "→",
            "0"
        ],
        "{out}"
    );
    assert_eq!(
        row(&out, "team-b-queue"),
        [
            "team-b-queue",
            "0s",
            "0s",
            "0s",
            "22%",
            "→",
            "33%",
            "0.00",
            "0"
        ],
        "{out}"
    );
    assert_eq!(
        row(&out, "team-a/training-queue"),
        [
            "team-a/training-queue",
            "0s",
            "4m",
            "→",
            "0s",
            "4m",
            "→",
            "0s",
            "2",
            "→",
            "0"
        ],
        "{out}"
    );
    // The one job whose wait changed.
    assert_eq!(row(&out, "team-a/a3"), ["team-a/a3", "4m", "0s"], "{out}");
    assert!(!out.contains("team-b/b"), "{out}");
}

#[test]
fn add_replays_the_setup_with_the_added_queue() {
    // The proposal: a lending ClusterQueue with 4 GPUs joins the cohort (12 GPUs). Team B now
    // finds free quota at 09:01, so nothing is reclaimed from a1: no preemptions. But team A
    // stays at its borrowing limit (4 + 4): with a1 (6) running, a3 (4) waits for a1's end at
    // 10:00 (57m instead of 4m) and runs to 10:10. Team A holds 24600 GPU-seconds over 4200 s
    // of 4 = 146% of nominal, above nominal 2x120 + 4x300 + 2x3180 = 7800 / 4200 = 1.86 GPUs
    // on average; the cluster 29400 over 4200 s of 12 = 58%.
    let root = env!("CARGO_MANIFEST_DIR");
    let f = tiny_file();
    let dir = tempfile::tempdir().unwrap();
    let spare = dir.path().join("spare.yaml");
    std::fs::write(
        &spare,
        r#"apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: spare-queue
spec:
  cohort: gpu-cluster
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: gpu-a100
      resources:
      - name: "nvidia.com/gpu"
        nominalQuota: 4
"#,
    )
    .unwrap();
    let spare = spare.to_str().unwrap();
    let r = run(&[
        "simulate",
        "--trace",
        f.path().to_str().unwrap(),
        "-f",
        &format!("{root}/examples/gpu-two-teams"),
        "--add",
        spare,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.stdout;
    assert!(
        out.contains(&format!("After (--add {spare}): 5 jobs from 2025-07-21T09:00:00Z to 2025-07-21T10:10:00Z: 5 admitted, 5 finished, 0 preemptions; cluster nvidia.com/gpu usage 58%")),
        "{out}"
    );
    assert_eq!(
        row(&out, "team-a-queue"),
        [
            "team-a-queue",
            "0s",
            "4m",
            "→",
            "57m",
            "4m",
            "→",
            "57m",
            "121%",
            "→",
            "146%",
            "1.42",
            "→",
            "1.86",
            "2",
            "→",
            "0"
        ],
        "{out}"
    );
    // The added queue has no jobs: no waits, no usage of its own.
    assert_eq!(
        row(&out, "spare-queue"),
        [
            "spare-queue",
            "-",
            "-",
            "-",
            "-",
            "→",
            "0%",
            "-",
            "→",
            "0.00",
            "-",
            "→",
            "0"
        ],
        "{out}"
    );
    assert_eq!(row(&out, "team-a/a3"), ["team-a/a3", "4m", "57m"], "{out}");

    // A Job is not a setup object: the replay would drop it and "after" would equal
    // "before", so it is refused.
    let job = format!("{root}/examples/gpu-two-teams/jobs/experiment-42.yaml");
    let r = run(&[
        "simulate",
        "--trace",
        f.path().to_str().unwrap(),
        "-f",
        &format!("{root}/examples/gpu-two-teams"),
        "--add",
        &job,
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "{job}: document 1: --add with --trace takes setup objects"
        )) && r.stderr.contains("not a Job"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_example_week_replays_with_charts() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let trace = format!("{root}/examples/traces/seed-week.jsonl");
    let lines = std::fs::read_to_string(&trace).unwrap().lines().count();
    let v = json_of(&[
        "simulate",
        "--trace",
        &trace,
        "--plot",
        dir.path().to_str().unwrap(),
        "-o",
        "json",
    ]);
    let s = &v["summary"];
    assert_eq!(s["jobs"], lines as u64);
    assert_eq!(s["admitted"], s["jobs"]);
    let cqs: Vec<&str> = s["clusterQueues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    assert_eq!(cqs, ["team-a-queue", "team-b-queue"]);
    let jobs: u64 = s["clusterQueues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["jobs"].as_u64().unwrap())
        .sum();
    assert_eq!(jobs, lines as u64);
    for name in ["usage.svg", "usage.png", "wait.svg", "wait.png"] {
        assert!(
            std::fs::metadata(dir.path().join(name)).unwrap().len() > 1000,
            "{name}"
        );
    }
}

/// The README's transcripts of `kubectl kueue simulate --trace examples/traces/seed-week.jsonl
/// ...` whose first argument after it is `first`: the arguments (continuation lines joined) and
/// the lines shown after the command.
fn readme_transcripts(first: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let prefix = "$ kubectl kueue simulate --trace examples/traces/seed-week.jsonl";
    let mut out = Vec::new();
    for block in readme.split("```").skip(1).step_by(2) {
        let block = block.trim_start_matches(|c: char| c != '\n').trim_start();
        if !block.starts_with(prefix) {
            continue;
        }
        let mut lines = block.lines();
        let mut command = String::new();
        for l in lines.by_ref() {
            match l.strip_suffix('\\') {
                Some(cont) => command.push_str(cont),
                None => {
                    command.push_str(l);
                    break;
                }
            }
        }
        let args: Vec<String> = command
            .split_whitespace()
            .skip(3) // $ kubectl kueue
            .map(str::to_string)
            .collect();
        if args.get(3).map(String::as_str) == Some(first) {
            out.push((args, lines.map(str::to_string).collect()));
        }
    }
    out
}

/// Runs a README transcript's command in the repository (`--plot` into a temporary directory,
/// its paths shown as the README's) and checks the README's lines: all of the output (stdout,
/// then stderr), or, after a `...` line, a run of consecutive lines in it.
fn check_readme_transcript(args: &[String], shown: &[String]) {
    let root = env!("CARGO_MANIFEST_DIR");
    let plot = tempfile::tempdir().unwrap();
    let plot_path = plot.path().to_str().unwrap().to_string();
    let mut readme_plot = None;
    let mut args = args.to_vec();
    if let Some(i) = args.iter().position(|a| a == "--plot") {
        readme_plot = Some(std::mem::replace(&mut args[i + 1], plot_path.clone()));
    }
    let out = crate::support::cli::kueue_process()
        .current_dir(root)
        .args(&args)
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if let Some(p) = &readme_plot {
        text = text.replace(&plot_path, p);
    }
    assert_eq!(out.status.code(), Some(0), "{args:?}:\n{text}");
    let got: Vec<&str> = text.lines().collect();
    let want: Vec<&str> = shown.iter().map(String::as_str).collect();
    match want.split_first() {
        Some((&"...", rest)) => assert!(
            got.windows(rest.len()).any(|w| w == rest),
            "README lines\n{}\nnot in the output of {args:?}:\n{text}",
            rest.join("\n")
        ),
        _ => assert_eq!(
            got, want,
            "the README's transcript of {args:?} differs from what it prints"
        ),
    }
}

#[test]
fn the_readme_example_week_transcript_is_what_simulate_prints() {
    let transcripts = readme_transcripts("--set");
    assert_eq!(transcripts.len(), 1, "the README's example-week replay");
    for (args, shown) in &transcripts {
        assert!(shown.len() > 10, "{shown:?}");
        check_readme_transcript(args, shown);
    }
}

#[test]
fn the_readme_example_week_forecast_accuracy_is_what_simulate_prints() {
    let transcripts = readme_transcripts("--forecast-accuracy");
    assert_eq!(
        transcripts.len(),
        1,
        "the README's forecast accuracy example"
    );
    for (args, shown) in &transcripts {
        check_readme_transcript(args, shown);
    }
}

#[test]
fn the_example_week_is_what_the_generator_writes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let committed =
        std::fs::read_to_string(format!("{root}/examples/traces/seed-week.jsonl")).unwrap();
    let r = run(&["history", "generate"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout == committed,
        "regenerate with: kubectl kueue history generate -o examples/traces/seed-week.jsonl"
    );
}

#[test]
fn bad_rows_are_named_by_file_line_and_field() {
    let f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    let bad = TINY.replacen("\"nvidia.com/gpu\":\"4\"", "\"nvidia.com/gpu\":\"four\"", 1);
    std::fs::write(f.path(), bad).unwrap();
    let path = f.path().to_str().unwrap();
    let r = run(&["simulate", "--trace", path]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "{path}:2: field podSets[0].requests.nvidia.com/gpu:"
        )),
        "{}",
        r.stderr
    );
    let r = run(&["simulate", "--trace", "/nonexistent/trace.jsonl"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("/nonexistent/trace.jsonl"),
        "{}",
        r.stderr
    );
    let r = run(&["simulate", "--plot", "x"]);
    assert_eq!(r.code, 2, "--plot needs --trace: {}", r.stderr);
}

#[test]
fn forecast_accuracy_is_reported_for_both_runtime_sources() {
    let f = tiny_file();
    let v = json_of(&[
        "simulate",
        "--trace",
        f.path().to_str().unwrap(),
        "--forecast-accuracy",
        "-o",
        "json",
    ]);
    let acc = v["forecastAccuracy"].as_array().unwrap();
    assert_eq!(acc[0]["runtimes"], "exact");
    assert_eq!(acc[0]["all"]["jobs"], 5);
    assert_eq!(acc[0]["all"]["medianSeconds"], 0.0);
    assert_eq!(acc[1]["runtimes"], "history");
    assert_eq!(acc[1]["noTime"], 1);
}
