//! Durations and ages as kubectl prints them (`45s`, `5m10s`, `3h`, `2d4h`, `1y`).

use kube_core::Resource;

use crate::scheduler::model::Millis;

/// kubectl's short human duration: `45s`, `5m10s`, `3h`, `2d4h`, `1y`.
pub fn human_duration(ms: Millis) -> String {
    let s = ms.max(0) / 1000;
    if s < 60 * 2 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        let rest = s % 60;
        return if rest == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rest}s")
        };
    }
    if m < 60 * 3 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        let rest = m % 60;
        return if rest == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rest}m")
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    let d = h / 24;
    if d < 8 {
        let rest = h % 24;
        return if rest == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{rest}h")
        };
    }
    if d < 365 * 2 {
        return format!("{d}d");
    }
    format!("{}y", d / 365)
}

/// Age of an object, like kubectl's AGE column.
pub fn age<K: Resource>(obj: &K, now: Millis) -> String {
    match &obj.meta().creation_timestamp {
        Some(t) => human_duration(now - crate::manifests::convert::millis(t)),
        None => "<unknown>".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_kubectl() {
        assert_eq!(human_duration(0), "0s");
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(119_000), "119s");
        assert_eq!(human_duration(130_000), "2m10s");
        assert_eq!(human_duration(600_000), "10m");
        assert_eq!(human_duration(3 * 3_600_000 + 60_000), "3h1m");
        assert_eq!(human_duration(30 * 3_600_000), "30h");
        assert_eq!(human_duration(50 * 3_600_000), "2d2h");
        assert_eq!(human_duration(800 * 86_400_000), "2y");
    }
}
