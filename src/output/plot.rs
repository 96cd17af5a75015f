//! `simulate --trace --plot DIR`: the charts, each as SVG and PNG. `usage`: per ClusterQueue,
//! the resource in use as a share of its nominal quota over the trace, averaged per hour
//! (above 100%: borrowing); `wait`: per ClusterQueue, the share of jobs admitted within a
//! wait (a cumulative distribution). With two setups both charts show each queue before
//! (thin, light) and after (thick).
//!
//! Text is drawn with the embedded DejaVu Sans Mono (assets/fonts, Bitstream Vera licence),
//! so no system font is needed. Writes only under DIR; returns the files written.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::simulate::trace::TraceJob;
use crate::simulate::trace::replay::Replay;
use crate::simulate::trace::summary::{cluster_series, usage_series, wait_samples};

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
const COLORS: [RGBColor; 6] = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
const SIZE: (u32, u32) = (1000, 520);

/// One setup's replay, with its label ("before", "after", or empty when alone).
pub struct Run<'a> {
    pub label: &'a str,
    pub replay: &'a Replay,
}

struct Series {
    name: String,
    color: RGBColor,
    thin: bool,
    points: Vec<(f64, f64)>,
}

struct Chart {
    title: String,
    /// y values are shares: labelled as percentages.
    percent_y: bool,
    legend: SeriesLabelPosition,
    x_label: String,
    y_label: String,
    y_max: f64,
    series: Vec<Series>,
}

fn register_font() -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "the embedded chart font could not be read".to_string())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &Chart) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let x_max = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_max, 0f64..c.y_max)
        .map_err(e)?;
    let y_fmt = |v: &f64| {
        if c.percent_y {
            format!("{:.0}%", v * 100.0)
        } else {
            format!("{v:.1}")
        }
    };
    let x_fmt = |v: &f64| format!("{v:.0}");
    chart
        .configure_mesh()
        .x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .label_style(("sans-serif", 13))
        .y_label_formatter(&y_fmt)
        .x_label_formatter(&x_fmt)
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(e)?;
    for s in &c.series {
        let style = if s.thin {
            s.color.mix(0.45).stroke_width(1)
        } else {
            s.color.stroke_width(2)
        };
        let legend = style;
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), style))
            .map_err(e)?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], legend));
    }
    chart
        .configure_series_labels()
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(c.legend.clone())
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

fn write_both(dir: &Path, stem: &str, c: &Chart) -> Result<Vec<PathBuf>, String> {
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    draw(SVGBackend::new(&svg, SIZE).into_drawing_area(), c)
        .map_err(|m| format!("{}: {m}", svg.display()))?;
    draw(BitMapBackend::new(&png, SIZE).into_drawing_area(), c)
        .map_err(|m| format!("{}: {m}", png.display()))?;
    Ok(vec![svg, png])
}

/// Time-weighted averages of a step series per `bucket` (x in hours).
fn per_bucket(steps: &[(f64, f64)], bucket: f64) -> Vec<(f64, f64)> {
    let Some(end) = steps.last().map(|p| p.0) else {
        return Vec::new();
    };
    let n = (end / bucket).ceil().max(1.0) as usize;
    let mut sums = vec![0.0; n];
    for w in steps.windows(2) {
        let (mut a, b, v) = (w[0].0, w[1].0, w[0].1);
        while a < b {
            let k = ((a / bucket) as usize).min(n - 1);
            let edge = ((k + 1) as f64 * bucket).min(b);
            let edge = if edge <= a { b } else { edge };
            sums[k] += v * (edge - a);
            a = edge;
        }
    }
    (0..n)
        .map(|k| ((k as f64 + 0.5) * bucket, sums[k] / bucket))
        .collect()
}

fn label(name: &str, run: &str) -> String {
    if run.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({run})")
    }
}

/// Writes `usage.{svg,png}` and `wait.{svg,png}` into `dir` (created if missing).
pub fn charts(
    dir: &Path,
    runs: &[Run<'_>],
    trace: &[TraceJob],
    resource: &str,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    register_font()?;
    let compare = runs.len() > 1;
    let start = runs
        .first()
        .map(|r| crate::simulate::trace::format::rfc3339(r.replay.start))
        .unwrap_or_default();
    let mut usage = Chart {
        percent_y: true,
        legend: SeriesLabelPosition::UpperRight,
        title: format!(
            "{resource} in use / nominal quota, per ClusterQueue and cluster (hourly average)"
        ),
        x_label: format!("hours since {start}"),
        y_label: "share of nominal quota".to_string(),
        y_max: 1.0,
        series: Vec::new(),
    };
    let mut wait = Chart {
        percent_y: true,
        legend: SeriesLabelPosition::LowerRight,
        title: "jobs admitted within a wait, per ClusterQueue".to_string(),
        x_label: String::new(),
        y_label: "share of admitted jobs".to_string(),
        y_max: 1.0,
        series: Vec::new(),
    };
    let mut wait_max: f64 = 1.0;
    let mut waits = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let thin = compare && k == 0;
        for (i, (cq, steps)) in usage_series(run.replay, resource).into_iter().enumerate() {
            let hours: Vec<(f64, f64)> = steps.iter().map(|(s, f)| (s / 3600.0, *f)).collect();
            let points = per_bucket(&hours, 1.0);
            usage.y_max = points.iter().map(|p| p.1).fold(usage.y_max, f64::max);
            usage.series.push(Series {
                name: label(&cq, run.label),
                color: COLORS[i % COLORS.len()],
                thin,
                points,
            });
        }
        let cluster: Vec<(f64, f64)> = cluster_series(run.replay, resource)
            .iter()
            .map(|(s, f)| (s / 3600.0, *f))
            .collect();
        if !cluster.is_empty() {
            usage.series.push(Series {
                name: label("cluster", run.label),
                color: RGBColor(90, 90, 90),
                thin,
                points: per_bucket(&cluster, 1.0),
            });
        }
        waits.push((thin, run.label, wait_samples(run.replay, trace)));
    }
    // Minutes, or hours when some wait is over three hours.
    let longest = waits
        .iter()
        .flat_map(|(_, _, m)| m.values().flatten())
        .fold(0.0f64, |a, b| a.max(*b));
    let unit = if longest > 3.0 * 3600.0 { 3600.0 } else { 60.0 };
    wait.x_label = if unit > 60.0 {
        "wait (hours)"
    } else {
        "wait (minutes)"
    }
    .to_string();
    for (thin, run_label, samples) in waits {
        for (i, (cq, mut w)) in samples.into_iter().enumerate() {
            w.sort_by(f64::total_cmp);
            let n = w.len() as f64;
            let mut points = vec![(0.0, 0.0)];
            for (j, s) in w.iter().enumerate() {
                let m = s / unit;
                wait_max = wait_max.max(m);
                points.push((m, (j + 1) as f64 / n));
            }
            wait.series.push(Series {
                name: label(&cq, run_label),
                color: COLORS[i % COLORS.len()],
                thin,
                points,
            });
        }
    }
    usage.y_max *= 1.1;
    for s in &mut wait.series {
        if let Some(last) = s.points.last().copied() {
            s.points.push((wait_max, last.1));
        }
    }
    wait.y_max = 1.05;
    let mut out = write_both(dir, "usage", &usage)?;
    out.extend(write_both(dir, "wait", &wait)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::per_bucket;

    #[test]
    fn hourly_averages_weigh_by_time() {
        // 1 for the first half hour, 0 after, over two hours.
        let steps = [(0.0, 1.0), (0.5, 0.0), (2.0, 0.0)];
        assert_eq!(per_bucket(&steps, 1.0), vec![(0.5, 0.5), (1.5, 0.0)]);
    }
}
