//! What the recorder keeps per workload, fed by the Workload watch (times are milliseconds
//! since the generator started, taken when the watch delivered the event), and the figures
//! it derives at the end. Pure: the live run feeds it observations.

use std::collections::BTreeMap;

use super::scenario::{Arrival, Scenario};
use super::stats::{ClassSummary, QueueSummary, distribution, usage_fraction, whole_seconds_tta};

/// The parts of a Workload the recorder reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observation {
    pub quota_reserved: bool,
    pub admitted: bool,
    pub admitted_since_s: Option<i64>,
    pub evicted: bool,
    pub finished: bool,
    pub created_s: Option<i64>,
    pub cluster_queue: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Track {
    pub first_seen_ms: Option<u64>,
    pub created_s: Option<i64>,
    pub last: Observation,
    pub reserved_since: Option<(u64, String)>,
    pub admitted_since: Option<u64>,
    pub last_admission_ms: Option<u64>,
    pub last_admitted_s: Option<i64>,
    pub admissions: u64,
    pub evictions: u64,
    pub finished_ms: Option<u64>,
    /// (start, end, cluster queue) of every reservation.
    pub held: Vec<(u64, u64, String)>,
    /// (start, end) of the run that finished.
    pub useful: Option<(u64, u64)>,
}

impl Track {
    /// Folds one observation in. Returns true when the workload has just been admitted.
    pub fn observe(&mut self, at: u64, o: Observation) -> bool {
        self.first_seen_ms.get_or_insert(at);
        if self.created_s.is_none() {
            self.created_s = o.created_s;
        }
        let mut newly_admitted = false;
        if o.quota_reserved && self.reserved_since.is_none() {
            self.reserved_since = Some((at, o.cluster_queue.clone().unwrap_or_default()));
        }
        if (!o.quota_reserved || o.finished)
            && let Some((s, cq)) = self.reserved_since.take()
        {
            self.held.push((s, at, cq));
        }
        if o.admitted && !o.finished && self.admitted_since.is_none() {
            self.admitted_since = Some(at);
            self.last_admission_ms = Some(at);
            self.last_admitted_s = o.admitted_since_s;
            self.admissions += 1;
            newly_admitted = true;
        }
        if !o.admitted && !o.finished {
            self.admitted_since = None;
        }
        if o.evicted && !self.last.evicted {
            self.evictions += 1;
        }
        if o.finished && self.finished_ms.is_none() {
            self.finished_ms = Some(at);
            if let Some(s) = self.admitted_since.take() {
                self.useful = Some((s, at));
            }
        }
        self.last = o;
        newly_admitted
    }
}

/// Everything derived from the tracks.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    pub first_ms: u64,
    pub last_finish_ms: u64,
    pub usage_held: f64,
    pub usage_useful: f64,
    pub classes: BTreeMap<String, ClassSummary>,
    pub tta: BTreeMap<String, Vec<f64>>,
    pub queues: BTreeMap<String, QueueSummary>,
    pub admissions: u64,
    pub preemptions: u64,
    pub readmissions: u64,
    pub unfinished: usize,
    /// Per cohort: (seconds, held / cohort nominal) every half second.
    pub held_by_cohort: Vec<(String, Vec<(f64, f64)>)>,
}

/// `created_ms[i]`: when the create for `schedule[i]` was sent (the clock's start of its wait).
pub fn derive(s: &Scenario, schedule: &[Arrival], tracks: &[Track], created_ms: &[u64]) -> Derived {
    let mut d = Derived {
        first_ms: created_ms.iter().copied().min().unwrap_or(0),
        ..Default::default()
    };
    d.last_finish_ms = tracks
        .iter()
        .filter_map(|t| t.finished_ms)
        .max()
        .unwrap_or(d.first_ms);
    let queue_index: BTreeMap<&str, usize> = s
        .queues
        .iter()
        .enumerate()
        .map(|(i, q)| (q.name.as_str(), i))
        .collect();
    let mut held: Vec<Vec<(u64, u64, i64)>> = vec![Vec::new(); s.queues.len()];
    let mut useful: Vec<(u64, u64, i64)> = Vec::new();
    let mut whole: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (i, (a, t)) in schedule.iter().zip(tracks).enumerate() {
        let q = &mut d.queues.entry(s.queues[a.queue].name.clone()).or_default();
        q.admissions += t.admissions;
        q.preemptions += t.evictions;
        q.readmissions += t.admissions.saturating_sub(1);
        if t.finished_ms.is_none() {
            d.unfinished += 1;
        }
        for (start, end, cq) in &t.held {
            let qi = queue_index.get(cq.as_str()).copied().unwrap_or(a.queue);
            held[qi].push((*start, *end, a.cpu_milli));
        }
        if let Some((start, end)) = t.useful {
            useful.push((start, end, a.cpu_milli));
        }
        let tta = t
            .last_admission_ms
            .map_or(0.0, |m| m.saturating_sub(created_ms[i]) as f64 / 1000.0);
        d.tta.entry(a.class.clone()).or_default().push(tta);
        let w = match (t.created_s, t.last_admitted_s) {
            (Some(c), Some(ad)) => whole_seconds_tta(c, ad),
            _ => 0.0,
        };
        whole.entry(a.class.clone()).or_default().push(w);
        let c = d.classes.entry(a.class.clone()).or_default();
        c.evictions += t.evictions;
    }
    for (class, v) in &d.tta {
        let dist = distribution(v);
        let c = d.classes.get_mut(class).expect("class");
        c.count = dist.count;
        c.tta_avg_seconds = dist.avg;
        c.tta_p50_seconds = dist.p50;
        c.tta_p95_seconds = dist.p95;
        c.tta_max_seconds = dist.max;
        c.tta_avg_whole_seconds = distribution(&whole[class]).avg;
    }
    let (from, to) = (d.first_ms, d.last_finish_ms);
    let all_held: Vec<(u64, u64, i64)> = held.iter().flatten().copied().collect();
    d.usage_held = usage_fraction(&all_held, s.nominal_milli(), from, to);
    d.usage_useful = usage_fraction(&useful, s.nominal_milli(), from, to);
    for (qi, q) in s.queues.iter().enumerate() {
        let qs = d.queues.entry(q.name.clone()).or_default();
        qs.usage_held = usage_fraction(&held[qi], q.nominal_milli, from, to);
        let mine: Vec<(u64, u64, i64)> = schedule
            .iter()
            .zip(tracks)
            .filter(|(a, _)| a.queue == qi)
            .filter_map(|(a, t)| t.useful.map(|(s, e)| (s, e, a.cpu_milli)))
            .collect();
        qs.usage_useful = usage_fraction(&mine, q.nominal_milli, from, to);
    }
    d.admissions = d.queues.values().map(|q| q.admissions).sum();
    d.preemptions = d.queues.values().map(|q| q.preemptions).sum();
    d.readmissions = d.queues.values().map(|q| q.readmissions).sum();
    // cohort -> (nominal, reservations)
    type Reservations = Vec<(u64, u64, i64)>;
    let mut by_cohort: BTreeMap<String, (i64, Reservations)> = BTreeMap::new();
    for (qi, h) in held.iter().enumerate() {
        let e = by_cohort.entry(s.cohort_of(qi)).or_default();
        e.0 += s.queues[qi].nominal_milli;
        e.1.extend_from_slice(h);
    }
    for (cohort, (nominal, intervals)) in by_cohort {
        let steps = super::stats::steps_of(&intervals);
        let mut pts = Vec::new();
        let mut k = 0;
        let mut level = 0.0;
        let mut t = from;
        while t <= to {
            while k < steps.len() && steps[k].0 <= t {
                level = steps[k].1;
                k += 1;
            }
            pts.push(((t - from) as f64 / 1000.0, level / nominal as f64));
            t += 500;
        }
        d.held_by_cohort.push((cohort, pts));
    }
    d
}

/// Seconds since the epoch of an RFC 3339 UTC time as the API server writes it
/// (`2026-12-01T14:58:20Z`, optionally with fractional seconds).
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    Some(days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// The same format for a time in seconds since the epoch.
pub fn format_rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

// Howard Hinnant's civil-date algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + if m <= 2 { 1 } else { 0 }, m, d)
}
