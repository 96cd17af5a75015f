//! The text `/metrics` serves: the Prometheus text format 0.0.4 (the content type it
//! advertises, and what upstream's Go client writes), made from the OpenMetrics text
//! `prometheus-client` encodes.
//!
//! The two differ where it matters here: OpenMetrics names a counter's family without its
//! `_total` suffix, so the counter `kueue_finished_workloads_total` and upstream's gauge
//! `kueue_finished_workloads` would be one family named twice; in 0.0.4 a counter's family is
//! its sample name, so both live side by side as upstream serves them. The conversion, one
//! family at a time:
//! - a counter family's `# HELP` and `# TYPE` carry the `_total` name of its samples;
//! - `# HELP` carries upstream's text ([`super::help`]), escaped as 0.0.4 wants (`\\` and
//!   `\n`), in place of the registered placeholder;
//! - a family without samples is left out (the Go client writes none for an empty vector);
//! - infinities are written `+Inf` and `-Inf`; the `# EOF` marker goes.
//!
//! Data in: the encoder's text. Data out: the served text. Sample lines pass unchanged
//! otherwise.

/// Converts `openmetrics` (as [`prometheus_client::encoding::text::encode`] writes it, every
/// family registered under the `kueue` prefix) to the 0.0.4 text format.
pub fn to_prometheus_text(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    let mut family: Option<Family> = None;
    for line in openmetrics.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            flush(&mut out, family.take());
            let name = rest.split(' ').next().unwrap_or_default();
            family = Some(Family {
                name: name.to_string(),
                kind: String::new(),
                samples: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            if let Some(f) = family.as_mut() {
                f.kind = rest.rsplit(' ').next().unwrap_or_default().to_string();
            }
        } else if line.starts_with('#') {
            // `# EOF`, `# UNIT`: nothing in 0.0.4.
        } else if let Some(f) = family.as_mut() {
            f.samples.push(sample(line));
        }
    }
    flush(&mut out, family);
    out
}

struct Family {
    /// The family's OpenMetrics name.
    name: String,
    kind: String,
    samples: Vec<String>,
}

fn flush(out: &mut String, family: Option<Family>) {
    let Some(f) = family.filter(|f| !f.samples.is_empty()) else {
        return;
    };
    let name = if f.kind == "counter" {
        format!("{}_total", f.name)
    } else {
        f.name
    };
    let short = name.strip_prefix("kueue_").unwrap_or(&name);
    let help = super::help::upstream(short).unwrap_or_default();
    out.push_str(&format!("# HELP {name} {}\n", escape_help(help)));
    out.push_str(&format!("# TYPE {name} {}\n", f.kind));
    for s in f.samples {
        out.push_str(&s);
        out.push('\n');
    }
}

/// 0.0.4's `# HELP` escaping: backslash and line feed.
fn escape_help(help: &str) -> String {
    help.replace('\\', r"\\").replace('\n', r"\n")
}

/// A sample line with its value spelled as 0.0.4 spells infinities.
fn sample(line: &str) -> String {
    match line.rsplit_once(' ') {
        Some((series, "inf")) => format!("{series} +Inf"),
        Some((series, "-inf")) => format!("{series} -Inf"),
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::to_prometheus_text;

    #[test]
    fn counters_take_their_total_name_and_empty_families_go() {
        let om = "# HELP kueue_finished_workloads .\n\
                  # TYPE kueue_finished_workloads counter\n\
                  kueue_finished_workloads_total{cluster_queue=\"cq\"} 2\n\
                  # HELP kueue_finished_workloads .\n\
                  # TYPE kueue_finished_workloads gauge\n\
                  kueue_finished_workloads{cluster_queue=\"cq\"} 1\n\
                  # HELP kueue_cluster_queue_info .\n\
                  # TYPE kueue_cluster_queue_info gauge\n\
                  # HELP kueue_cluster_queue_borrowing_limit .\n\
                  # TYPE kueue_cluster_queue_borrowing_limit gauge\n\
                  kueue_cluster_queue_borrowing_limit{cluster_queue=\"cq\"} inf\n\
                  # EOF\n";
        let text = to_prometheus_text(om);
        assert_eq!(
            text,
            "# HELP kueue_finished_workloads_total The total number of finished workloads per 'cluster_queue'\n\
             # TYPE kueue_finished_workloads_total counter\n\
             kueue_finished_workloads_total{cluster_queue=\"cq\"} 2\n\
             # HELP kueue_finished_workloads The number of finished workloads per 'cluster_queue'.\n\
             # TYPE kueue_finished_workloads gauge\n\
             kueue_finished_workloads{cluster_queue=\"cq\"} 1\n\
             # HELP kueue_cluster_queue_borrowing_limit Reports the cluster_queue's resource borrowing limit within all the flavors. If borrowingLimit is unset, this metric reports +Inf.\n\
             # TYPE kueue_cluster_queue_borrowing_limit gauge\n\
             kueue_cluster_queue_borrowing_limit{cluster_queue=\"cq\"} +Inf\n"
        );
    }

    #[test]
    fn help_keeps_upstream_line_breaks_escaped() {
        let om = "# HELP kueue_pending_workloads .\n\
                  # TYPE kueue_pending_workloads gauge\n\
                  kueue_pending_workloads{cluster_queue=\"cq\",status=\"active\"} 0\n";
        let text = to_prometheus_text(om);
        let help = text.lines().next().unwrap();
        assert!(
            help.starts_with(
                r#"# HELP kueue_pending_workloads The number of pending workloads, per 'cluster_queue' and 'status'.\n'status' can have the following values:\n- "active" means"#
            ),
            "{help}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");
    }
}
