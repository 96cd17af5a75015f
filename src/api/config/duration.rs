//! Durations written the way Go's `time.Duration` (and so `metav1.Duration`) reads and writes
//! them: `"90s"`, `"1m30s"`, `"1.5h"`, `"300ms"`; the one duration parser of the project (the
//! command line's `--timeout` reads the same notation, plus bare seconds).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A non-negative duration in Go's notation. Reading validates it; writing uses Go's canonical
/// form (`5m0s`), so a value read and written back may change spelling but not length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoDuration(pub Duration);

impl GoDuration {
    /// A duration of `secs` seconds.
    pub const fn from_secs(secs: u64) -> Self {
        GoDuration(Duration::from_secs(secs))
    }

    /// Whether it is zero (Go's "unset" for a `metav1.Duration`).
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// Parses Go's notation: one or more `<number><unit>` with units `ns`, `us` (or `µs`), `ms`,
    /// `s`, `m`, `h`; a bare `0` is zero. Negative durations are rejected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let invalid = || {
            format!("invalid duration {text:?}: expected Go notation such as \"90s\" or \"1m30s\"")
        };
        let rest = text.strip_prefix('+').unwrap_or(text);
        if rest.starts_with('-') {
            return Err(format!("invalid duration {text:?}: must not be negative"));
        }
        if rest == "0" {
            return Ok(GoDuration(Duration::ZERO));
        }
        if rest.is_empty() {
            return Err(invalid());
        }
        let mut total_nanos: u128 = 0;
        let mut chars = rest;
        while !chars.is_empty() {
            let number_len = chars
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(invalid)?;
            let (number, after) = chars.split_at(number_len);
            let unit_len = after
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(after.len());
            let (unit, next) = after.split_at(unit_len);
            let unit_nanos: u128 = match unit {
                "ns" => 1,
                "us" | "µs" | "μs" => 1_000,
                "ms" => 1_000_000,
                "s" => 1_000_000_000,
                "m" => 60 * 1_000_000_000,
                "h" => 3_600 * 1_000_000_000,
                _ => return Err(invalid()),
            };
            let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
            if whole.is_empty() && fraction.is_empty() {
                return Err(invalid());
            }
            let whole: u128 = if whole.is_empty() {
                0
            } else {
                whole.parse().map_err(|_| invalid())?
            };
            let mut nanos = whole.checked_mul(unit_nanos).ok_or_else(invalid)?;
            let mut scale = unit_nanos;
            for digit in fraction.chars() {
                scale /= 10;
                nanos += u128::from(digit.to_digit(10).ok_or_else(invalid)?) * scale;
            }
            total_nanos = total_nanos.checked_add(nanos).ok_or_else(invalid)?;
            chars = next;
        }
        let secs = u64::try_from(total_nanos / 1_000_000_000).map_err(|_| invalid())?;
        Ok(GoDuration(Duration::new(
            secs,
            (total_nanos % 1_000_000_000) as u32,
        )))
    }
}

/// A duration flag (`--timeout`): Go's notation (`90s`, `10m`, `1h30m`), or plain seconds.
pub fn parse_flag(text: &str) -> Result<Duration, String> {
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    GoDuration::parse(text)
        .map(|d| d.0)
        .map_err(|_| format!("{text:?} is not a duration such as 90s, 10m or 1h30m"))
}

impl fmt::Display for GoDuration {
    /// Go's `time.Duration.String()`: `0s`, `1.5s`, `300ms`, `2m0s`, `1h30m0s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = self.0.as_nanos();
        if nanos == 0 {
            return f.write_str("0s");
        }
        if nanos < 1_000_000_000 {
            let (value, unit, digits) = if nanos < 1_000 {
                (nanos, "ns", 0)
            } else if nanos < 1_000_000 {
                (nanos, "µs", 3)
            } else {
                (nanos, "ms", 6)
            };
            return write!(f, "{}{unit}", decimal(value, digits));
        }
        let hours = nanos / 3_600_000_000_000;
        let minutes = (nanos / 60_000_000_000) % 60;
        let seconds = nanos % 60_000_000_000;
        if hours > 0 {
            write!(f, "{hours}h")?;
        }
        if hours > 0 || minutes > 0 {
            write!(f, "{minutes}m")?;
        }
        write!(f, "{}s", decimal(seconds, 9))
    }
}

/// `value / 10^digits` with trailing fractional zeros (and the point) dropped.
fn decimal(value: u128, digits: u32) -> String {
    let scale = 10u128.pow(digits);
    let whole = value / scale;
    let fraction = value % scale;
    if fraction == 0 {
        return whole.to_string();
    }
    let fraction = format!("{fraction:0width$}", width = digits as usize);
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

impl Serialize for GoDuration {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let text = String::deserialize(de)?;
        GoDuration::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_notation() {
        assert_eq!(GoDuration::parse("15s").unwrap(), GoDuration::from_secs(15));
        assert_eq!(
            GoDuration::parse("1m30s").unwrap(),
            GoDuration::from_secs(90)
        );
        assert_eq!(
            GoDuration::parse("1.5h").unwrap(),
            GoDuration::from_secs(5400)
        );
        assert_eq!(
            GoDuration::parse("300ms").unwrap().0,
            Duration::from_millis(300)
        );
        assert_eq!(GoDuration::parse("0").unwrap(), GoDuration::default());
        assert!(GoDuration::parse("15").is_err());
        assert!(GoDuration::parse("-1s").is_err());
        assert!(GoDuration::parse("1x").is_err());
        assert!(GoDuration::parse("").is_err());
    }

    #[test]
    fn flags_take_go_notation_or_seconds() {
        assert_eq!(parse_flag("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_flag("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_flag("45").unwrap(), Duration::from_secs(45));
        assert!(parse_flag("10x").is_err());
        assert!(parse_flag("1h30").is_err());
    }

    #[test]
    fn prints_like_go() {
        assert_eq!(GoDuration::from_secs(15).to_string(), "15s");
        assert_eq!(GoDuration::from_secs(300).to_string(), "5m0s");
        assert_eq!(GoDuration::from_secs(5400).to_string(), "1h30m0s");
        assert_eq!(GoDuration(Duration::from_millis(1500)).to_string(), "1.5s");
        assert_eq!(GoDuration(Duration::from_millis(300)).to_string(), "300ms");
        assert_eq!(GoDuration::default().to_string(), "0s");
    }
}
