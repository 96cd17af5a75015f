//! Rendering for people and scripts: kubectl-style tables (upper-case headers, no borders),
//! colors only on a terminal (`NO_COLOR`, `--color`), `-o json|yaml|name`, and error text.
//! Wording of explanations lives here, next to the data the engine returns.

pub mod capacity;
pub mod explain;
pub mod forecast;
pub mod list;
pub mod plot;
pub mod printer;
pub mod simulate;
pub mod status;
pub mod submit;
pub mod time;
pub mod trace;

use std::io::IsTerminal;

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use crate::cli::ColorChoice;

pub use printer::Printer;

/// Whether to color stdout.
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    }
}

/// A table that prints like kubectl's: no borders, three spaces between columns.
pub fn table(headers: &[&str], no_headers: bool, color: bool) -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    if !no_headers {
        t.set_header(headers.iter().map(Cell::new));
    }
    for c in t.column_iter_mut() {
        c.set_padding((0, 3));
    }
    t
}

/// Sets the kubectl-style padding on every column once rows are in.
pub fn finish(t: &mut Table) -> String {
    let n = t.column_count();
    for i in 0..n {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, if i + 1 == n { 0 } else { 3 }));
            c.set_cell_alignment(CellAlignment::Left);
        }
    }
    t.to_string()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cell helpers that color only when enabled.
pub struct Paint {
    pub color: bool,
}

impl Paint {
    pub fn cell(&self, text: impl ToString, color: Color) -> Cell {
        let c = Cell::new(text.to_string());
        if self.color { c.fg(color) } else { c }
    }

    pub fn good(&self, text: impl ToString) -> Cell {
        self.cell(text, Color::Green)
    }

    pub fn warn(&self, text: impl ToString) -> Cell {
        self.cell(text, Color::Yellow)
    }

    pub fn bad(&self, text: impl ToString) -> Cell {
        self.cell(text, Color::Red)
    }

    pub fn plain(&self, text: impl ToString) -> Cell {
        Cell::new(text.to_string())
    }

    /// A bold section title.
    pub fn title(&self, text: &str) -> String {
        if self.color {
            use owo_colors::OwoColorize;
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }
}

/// A usage bar such as `██████░░ 6/8`.
pub fn bar(used: i64, capacity: i64, width: usize) -> String {
    if capacity <= 0 {
        return " ".repeat(width);
    }
    let filled = ((used.max(0) as f64 / capacity as f64) * width as f64).round() as usize;
    let filled = filled.min(width);
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// `error: <what failed>: <why>` on stderr, with the cause chain.
pub fn print_error(err: &anyhow::Error) {
    eprintln!("error: {err:#}");
}

/// `warning: ...` on stderr.
pub fn warn(message: &str) {
    eprintln!("warning: {message}");
}

/// JSON or YAML of a serializable value, for `-o json|yaml`.
pub fn serialize(value: &serde_json::Value, yaml: bool) -> anyhow::Result<String> {
    if yaml {
        Ok(serde_yaml::to_string(value)?)
    } else {
        Ok(format!("{}\n", serde_json::to_string_pretty(value)?))
    }
}
