//! The charts next to the summary (SVG): quota held over time per cohort, as a fraction of
//! the cohort's nominal quota, and the time-to-admission distribution per class (a CDF).

use std::path::Path;

use plotters::prelude::*;

const COLORS: [RGBColor; 6] = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];

type Series = Vec<(String, Vec<(f64, f64)>)>;

/// With the library's plotters (its `ab_glyph` feature is unified into this build) text needs
/// a registered font: the same embedded DejaVu Sans Mono the `--plot` charts use.
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let font: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

fn draw(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &Series,
    y_max: f64,
) -> Result<(), String> {
    let x_max = series
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    register_font();
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color))
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// `usage.svg`: per cohort, (seconds since the first creation, held / nominal).
pub fn usage(dir: &Path, per_cohort: &Series) -> Result<(), String> {
    // Many cohorts (large-scale) would be unreadable: the first six.
    let shown: Series = per_cohort.iter().take(COLORS.len()).cloned().collect();
    let y_max = shown
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.1))
        .fold(1.0f64, f64::max);
    draw(
        &dir.join("usage.svg"),
        "quota held / nominal, per cohort",
        "seconds",
        "held / nominal",
        &shown,
        y_max * 1.05,
    )
}

/// `tta.svg`: per class, the fraction of workloads admitted within x seconds.
pub fn tta(dir: &Path, per_class: &[(String, Vec<f64>)]) -> Result<(), String> {
    let series: Series = per_class
        .iter()
        .map(|(class, v)| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            let n = v.len().max(1) as f64;
            let pts = v
                .iter()
                .enumerate()
                .map(|(i, &x)| (x, (i + 1) as f64 / n))
                .collect();
            (class.clone(), pts)
        })
        .collect();
    draw(
        &dir.join("tta.svg"),
        "time to admission (CDF)",
        "seconds",
        "fraction admitted",
        &series,
        1.0,
    )
}
