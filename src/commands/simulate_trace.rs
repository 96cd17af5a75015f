//! `kubectl kueue simulate --trace FILE`: a trace replayed on the virtual clock under the
//! setup (`-f`, `--live`, or the embedded seed setup), with `--set`/`--add` edits or a
//! `--compare` setup side by side, `--plot DIR` charts and `--forecast-accuracy`.
//!
//! Reads files and the cluster, calls the pure replay ([`crate::simulate::trace`]), renders.

use anyhow::Context;
use clap::Args;

use super::simulate::{SimulateArgs, parse_now};
use super::{CliResult, Outcome};
use crate::cli::{GlobalArgs, OutputFormat};
use crate::manifests::documents::{Document, parse_documents};
use crate::manifests::{ConvertOptions, Inventory};
use crate::output::Printer;
use crate::output::plot::{Run, charts};
use crate::scheduler::model::ClusterState;
use crate::simulate::Edit;
use crate::simulate::trace::accuracy::{Runtimes, measure};
use crate::simulate::trace::summary::{default_resource, summarize, wait_changes};
use crate::simulate::trace::{self, TraceJob};

/// `simulate --trace` and the flags that go with it.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Replay this trace (JSON Lines, as `history export` writes it) on the setup: wait
    /// times, usage, borrowing and preemptions per ClusterQueue and LocalQueue.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// With --trace: replay also on the setup in these manifests and show both side by side.
    #[arg(long, value_name = "PATH", requires = "trace")]
    pub compare: Vec<String>,
    /// With --trace: write charts (usage over time, wait distribution; SVG and PNG) into DIR.
    #[arg(long, value_name = "DIR", requires = "trace")]
    pub plot: Option<String>,
    /// With --trace: measure the start-time forecast made at each submission against the
    /// admission the replay produced (median and p90 absolute error).
    #[arg(long, requires = "trace")]
    pub forecast_accuracy: bool,
    /// With --trace: the resource usage figures are about (default nvidia.com/gpu when a
    /// ClusterQueue has quota for it).
    #[arg(long, value_name = "NAME", requires = "trace")]
    pub resource: Option<String>,
    /// With --trace and two setups: how many jobs whose wait changed most to list.
    #[arg(long, value_name = "N", default_value_t = 10, requires = "trace")]
    pub top: usize,
}

fn read_trace(path: &str) -> anyhow::Result<Vec<TraceJob>> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the trace from stdin")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read trace {path}"))?
    };
    let jobs = trace::parse(path, &text)?;
    if jobs.is_empty() {
        anyhow::bail!("{path}: the trace has no jobs");
    }
    Ok(jobs)
}

fn docs_of(paths: &[String]) -> anyhow::Result<Vec<Document>> {
    Ok(crate::manifests::documents::read_all(paths)?)
}

fn added_docs(paths: &[String], order_from: usize) -> anyhow::Result<Vec<Document>> {
    let mut order = order_from;
    let mut docs = Vec::new();
    for path in paths {
        for file in crate::manifests::documents::expand_path(path)? {
            let text = crate::manifests::documents::read_text(&file)?;
            docs.extend(parse_documents(&file, &text, &mut order)?);
        }
    }
    Ok(docs)
}

/// The setup as given (before) and as edited (after, when there is an edit or --compare).
fn setups(
    global: &GlobalArgs,
    args: &SimulateArgs,
    opts: &ConvertOptions,
) -> anyhow::Result<(ClusterState, Option<(ClusterState, String)>)> {
    let edits: Vec<Edit> = args
        .set
        .iter()
        .map(|s| Edit::parse(s))
        .collect::<Result<_, _>>()?;
    if !args.remove.is_empty() {
        anyhow::bail!(
            "--remove does not apply to --trace: the trace is the load (edit the trace file instead)"
        );
    }
    let (inventory, docs) = if args.live {
        if !args.add.is_empty() {
            anyhow::bail!("--add with --trace needs -f: the added objects join the setup's files");
        }
        let inv = super::common::block_on(async {
            let conn = super::common::connect(global).await?;
            conn.read_inventory().await
        })?;
        (inv, None)
    } else {
        let docs = if args.files.is_empty() {
            crate::simulate::embedded::setup_documents()?
        } else {
            docs_of(&args.files)?
        };
        (Inventory::from_documents(docs.clone())?, Some(docs))
    };
    for w in &inventory.warnings {
        crate::output::warn(w);
    }
    let before = trace::setup(inventory.clone(), &[], opts)?;
    if !args.replay.compare.is_empty() {
        if !edits.is_empty() || !args.add.is_empty() {
            anyhow::bail!(
                "--compare takes the other setup as it is: give --set/--add edits without --compare (they are compared with the unchanged setup)"
            );
        }
        let other = Inventory::from_documents(docs_of(&args.replay.compare)?)?;
        let after = trace::setup(other, &[], opts)?;
        return Ok((
            before,
            Some((
                after,
                format!("--compare {}", args.replay.compare.join(" ")),
            )),
        ));
    }
    if edits.is_empty() && args.add.is_empty() {
        return Ok((before, None));
    }
    let edited = match docs {
        Some(mut docs) if !args.add.is_empty() => {
            let added = added_docs(&args.add, 1_000_000)?;
            trace::refuse_added_load(&added).map_err(anyhow::Error::msg)?;
            docs.extend(added);
            Inventory::from_documents(docs)?
        }
        _ => inventory,
    };
    let after = trace::setup(edited, &edits, opts)?;
    let mut words: Vec<String> = edits
        .iter()
        .map(|e| format!("--set {}", e.expression))
        .collect();
    words.extend(args.add.iter().map(|a| format!("--add {a}")));
    Ok((before, Some((after, words.join(" ")))))
}

pub fn run(global: &GlobalArgs, args: &SimulateArgs, path: &str) -> CliResult {
    let jobs = read_trace(path)?;
    let opts = ConvertOptions {
        now: parse_now(&args.now)?,
        strict_namespace_selector: args.strict_namespace_selector,
    };
    let (before_setup, after_setup) = setups(global, args, &opts)?;
    let before = trace::replay(&before_setup, &jobs, None);
    let after = after_setup
        .as_ref()
        .map(|(s, words)| (trace::replay(s, &jobs, None), words.clone()));
    let resource = args
        .replay
        .resource
        .clone()
        .unwrap_or_else(|| default_resource(&before));
    let s_before = summarize(&before, &jobs, &resource);
    let s_after = after.as_ref().map(|(r, _)| summarize(r, &jobs, &resource));
    let changes = after
        .as_ref()
        .map(|(r, _)| wait_changes(&before, r, &jobs, args.replay.top))
        .unwrap_or_default();
    let accuracy = if args.replay.forecast_accuracy {
        let setup = after_setup.as_ref().map_or(&before_setup, |(s, _)| s);
        vec![
            measure(setup, &jobs, Runtimes::Exact).1,
            measure(setup, &jobs, Runtimes::History).1,
        ]
    } else {
        Vec::new()
    };
    let mut written = Vec::new();
    if let Some(dir) = &args.replay.plot {
        let mut runs = vec![Run {
            label: if after.is_some() { "before" } else { "" },
            replay: &before,
        }];
        if let Some((r, _)) = &after {
            runs.push(Run {
                label: "after",
                replay: r,
            });
        }
        written = charts(std::path::Path::new(dir), &runs, &jobs, &resource)
            .map_err(|m| anyhow::anyhow!("--plot {dir}: {m}"))?;
    }
    let printer = Printer::new(args.output, args.no_headers, global.color);
    let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    let mut data = match &s_after {
        None => serde_json::json!({ "summary": s_before }),
        Some(a) => serde_json::json!({ "before": s_before, "after": a, "waitChanged": changes }),
    };
    if !accuracy.is_empty() {
        data["forecastAccuracy"] = serde_json::to_value(&accuracy)?;
    }
    if !files.is_empty() {
        data["charts"] = serde_json::to_value(&files)?;
    }
    if args.output == OutputFormat::Name {
        return Err(
            anyhow::anyhow!("-o name does not apply to --trace: use table, json or yaml").into(),
        );
    }
    if !printer.data(&data)? {
        let mut text = match (&s_after, &after) {
            (Some(a), Some((_, words))) => crate::output::trace::render_compare(
                &s_before,
                a,
                &changes,
                words,
                printer.no_headers(),
                printer.color(),
            ),
            _ => crate::output::trace::render(&s_before, printer.no_headers(), printer.color()),
        };
        if !accuracy.is_empty() {
            text.push('\n');
            text.push_str(&crate::output::trace::render_accuracy(
                &accuracy,
                printer.no_headers(),
                printer.color(),
            ));
        }
        if !files.is_empty() {
            text.push_str(&format!("\nCharts: {}\n", files.join(", ")));
        }
        printer.write(&text)?;
    }
    let unsettled =
        s_before.unsettled_instants + s_after.as_ref().map_or(0, |a| a.unsettled_instants);
    if unsettled > 0 {
        crate::output::warn(&format!(
            "at {unsettled} instants the scheduler did not settle (workloads preempting each other); the replay went on"
        ));
    }
    Ok(Outcome::Success)
}
