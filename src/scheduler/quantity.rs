//! Resource amounts: Kubernetes quantity strings in and out, and the saturating integer
//! arithmetic quota needs.
//!
//! Invariants: an [`Amount`] is an `i64` in the resource's scheduling unit (milli-units for
//! `cpu`, base units rounded up for everything else, as upstream's `ResourceValue`), and every
//! operator on it (`+ - *`, sums) saturates instead of wrapping, with [`Amount::UNLIMITED`]
//! absorbing additions, so summing huge or unlimited quotas never turns negative.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use serde::{Deserialize, Serialize};

/// Quantity in the resource's scheduling unit. Serializes as the plain number it is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Amount(i64);

impl Amount {
    pub const ZERO: Amount = Amount(0);
    /// The "no limit" value: saturating sums stop here, and it stays unlimited when
    /// something is taken away from it.
    pub const UNLIMITED: Amount = Amount(i64::MAX);

    pub const fn new(units: i64) -> Self {
        Amount(units)
    }

    /// The number of units.
    pub const fn get(self) -> i64 {
        self.0
    }

    pub const fn is_unlimited(self) -> bool {
        self.0 == i64::MAX
    }

    /// The same as `+` (every operator saturates), for code that reads like `i64`'s.
    pub fn saturating_add(self, rhs: Amount) -> Amount {
        self + rhs
    }

    /// The same as `-`.
    pub fn saturating_sub(self, rhs: Amount) -> Amount {
        self - rhs
    }

    /// The same as `*`.
    pub fn saturating_mul(self, factor: i64) -> Amount {
        self * factor
    }
}

/// The "no limit" amount, for callers that name it without the type.
pub const UNLIMITED: Amount = Amount::UNLIMITED;

impl From<i64> for Amount {
    fn from(units: i64) -> Self {
        Amount(units)
    }
}

impl From<Amount> for i64 {
    fn from(a: Amount) -> Self {
        a.0
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// The plain number of units (use [`format_amount`] for Kubernetes' quantity form).
impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl PartialEq<i64> for Amount {
    fn eq(&self, other: &i64) -> bool {
        self.0 == *other
    }
}

impl PartialOrd<i64> for Amount {
    fn partial_cmp(&self, other: &i64) -> Option<std::cmp::Ordering> {
        Some(self.0.cmp(other))
    }
}

/// Saturating; anything plus unlimited is unlimited.
impl Add for Amount {
    type Output = Amount;

    fn add(self, rhs: Amount) -> Amount {
        if self.is_unlimited() || rhs.is_unlimited() {
            return Amount::UNLIMITED;
        }
        Amount(self.0.saturating_add(rhs.0))
    }
}

/// Saturating, as upstream's `Amount.Sub`: unlimited minus a number stays unlimited, a number
/// minus unlimited is the lowest amount, and unlimited minus unlimited is zero.
impl Sub for Amount {
    type Output = Amount;

    fn sub(self, rhs: Amount) -> Amount {
        match (self.is_unlimited(), rhs.is_unlimited()) {
            (true, true) => Amount::ZERO,
            (true, false) => Amount::UNLIMITED,
            (false, true) => Amount(i64::MIN),
            (false, false) => Amount(self.0.saturating_sub(rhs.0)),
        }
    }
}

/// Saturating scale by a count (pods, podSets).
impl Mul<i64> for Amount {
    type Output = Amount;

    fn mul(self, factor: i64) -> Amount {
        Amount(self.0.saturating_mul(factor))
    }
}

/// Share per pod; the caller makes sure the count is positive.
impl Div<i64> for Amount {
    type Output = Amount;

    fn div(self, count: i64) -> Amount {
        Amount(self.0.saturating_div(count))
    }
}

impl Neg for Amount {
    type Output = Amount;

    fn neg(self) -> Amount {
        Amount(self.0.saturating_neg())
    }
}

impl AddAssign for Amount {
    fn add_assign(&mut self, rhs: Amount) {
        *self = *self + rhs;
    }
}

impl SubAssign for Amount {
    fn sub_assign(&mut self, rhs: Amount) {
        *self = *self - rhs;
    }
}

impl Sum for Amount {
    fn sum<I: Iterator<Item = Amount>>(iter: I) -> Amount {
        iter.fold(Amount::ZERO, Add::add)
    }
}

impl<'a> Sum<&'a Amount> for Amount {
    fn sum<I: Iterator<Item = &'a Amount>>(iter: I) -> Amount {
        iter.copied().sum()
    }
}

/// Does this resource count in milli-units?
pub fn is_milli_resource(resource: &str) -> bool {
    resource == "cpu"
}

fn is_binary_resource(resource: &str) -> bool {
    resource == "memory" || resource == "ephemeral-storage" || resource.starts_with("hugepages-")
}

/// A parse failure with the offending text, for error messages that name the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError {
    pub text: String,
    pub why: &'static str,
}

impl std::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "quantity {:?} is not valid: {}", self.text, self.why)
    }
}

impl std::error::Error for QuantityError {}

/// An exact decimal: `mantissa * 10^exp10 * 2^exp2`.
#[derive(Debug, Clone, Copy)]
struct Parsed {
    negative: bool,
    mantissa: u128,
    exp10: i32,
    exp2: u32,
}

fn parse_exact(text: &str) -> Result<Parsed, QuantityError> {
    let err = |why| QuantityError {
        text: text.to_string(),
        why,
    };
    let s = text.trim();
    if s.is_empty() {
        return Err(err("it is empty"));
    }
    let (negative, rest) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    if number.is_empty() || number == "." {
        return Err(err("it does not start with a number"));
    }
    if number.matches('.').count() > 1 {
        return Err(err("it has more than one decimal point"));
    }
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let digits: String = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return Err(err("it has too many digits"));
    }
    let mantissa: u128 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| err("it is not a number"))?
    };
    let mut exp10 = -(frac_part.len() as i32);
    let mut exp2 = 0u32;
    match suffix {
        "" => {}
        "n" => exp10 -= 9,
        "u" => exp10 -= 6,
        "m" => exp10 -= 3,
        "k" => exp10 += 3,
        "M" => exp10 += 6,
        "G" => exp10 += 9,
        "T" => exp10 += 12,
        "P" => exp10 += 15,
        "E" => exp10 += 18,
        "Ki" => exp2 = 10,
        "Mi" => exp2 = 20,
        "Gi" => exp2 = 30,
        "Ti" => exp2 = 40,
        "Pi" => exp2 = 50,
        "Ei" => exp2 = 60,
        other => {
            let exponent = other
                .strip_prefix('e')
                .or_else(|| other.strip_prefix('E'))
                .ok_or_else(|| {
                    err("its suffix is not one of n u m k M G T P E Ki Mi Gi Ti Pi Ei")
                })?;
            let value: i32 = exponent
                .parse()
                .map_err(|_| err("its exponent is not an integer"))?;
            if value.abs() > 40 {
                return Err(err("its exponent is out of range"));
            }
            exp10 += value;
        }
    }
    Ok(Parsed {
        negative,
        mantissa,
        exp10,
        exp2,
    })
}

/// Value scaled by `10^scale`, rounded up (towards +infinity), saturating.
fn scaled_ceil(p: Parsed, scale: i32) -> i64 {
    if p.mantissa == 0 {
        return 0;
    }
    let mut value: u128 = p.mantissa;
    let mut exp = p.exp10 + scale;
    let mut inexact = false;
    for _ in 0..p.exp2 {
        value = match value.checked_mul(2) {
            Some(v) => v,
            None => return if p.negative { i64::MIN } else { i64::MAX },
        };
    }
    while exp > 0 {
        value = match value.checked_mul(10) {
            Some(v) => v,
            None => return if p.negative { i64::MIN } else { i64::MAX },
        };
        exp -= 1;
    }
    while exp < 0 {
        if !value.is_multiple_of(10) {
            inexact = true;
        }
        value /= 10;
        exp += 1;
    }
    if p.negative {
        // Rounding up a negative number truncates towards zero.
        let v = i64::try_from(value).unwrap_or(i64::MAX);
        -v
    } else {
        let v = value + u128::from(inexact);
        i64::try_from(v).unwrap_or(i64::MAX)
    }
}

/// Parses a Kubernetes quantity into the scheduling unit of `resource`.
pub fn parse_amount(resource: &str, text: &str) -> Result<Amount, QuantityError> {
    let parsed = parse_exact(text)?;
    Ok(if is_milli_resource(resource) {
        // Upstream treats cpu quotas at or above MaxInt64/1000 cores as unlimited.
        let milli = scaled_ceil(parsed, 3);
        if milli >= (i64::MAX / 1000) * 1000 {
            UNLIMITED
        } else {
            Amount(milli)
        }
    } else {
        Amount(scaled_ceil(parsed, 0))
    })
}

/// Parses a quantity as a float (for fair-sharing weights).
pub fn parse_f64(text: &str) -> Result<f64, QuantityError> {
    let p = parse_exact(text)?;
    let v = p.mantissa as f64 * 10f64.powi(p.exp10) * 2f64.powi(p.exp2 as i32);
    Ok(if p.negative { -v } else { v })
}

/// Formats an amount of `resource` the way upstream's resource formatter does: cpu as
/// canonical decimal milli-quantities, memory and storage in canonical binary form,
/// everything else as a canonical decimal.
pub fn format_amount(resource: &str, amount: Amount) -> String {
    if amount.is_unlimited() {
        return "+Inf".to_string();
    }
    let units = amount.get();
    if is_milli_resource(resource) {
        format_decimal_milli(units)
    } else if is_binary_resource(resource) {
        format_binary(units)
    } else {
        format_decimal_milli(units.saturating_mul(1000))
    }
}

/// Canonical DecimalSI form of `milli / 1000`.
fn format_decimal_milli(milli: i64) -> String {
    if milli == 0 {
        return "0".to_string();
    }
    let negative = milli < 0;
    let mut mantissa = i128::from(milli).unsigned_abs();
    // Exponent of 10 relative to milli-units.
    let mut exp: i32 = -3;
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exp += 1;
    }
    // Use the largest multiple-of-3 exponent not above `exp`.
    let target = exp.div_euclid(3) * 3;
    for _ in 0..(exp - target) {
        mantissa *= 10;
    }
    let suffix = match target {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => "",
    };
    let sign = if negative { "-" } else { "" };
    format!("{sign}{mantissa}{suffix}")
}

fn format_binary(value: i64) -> String {
    if value == 0 {
        return "0".to_string();
    }
    let negative = value < 0;
    let mut mantissa = value.unsigned_abs();
    let mut power = 0usize;
    const SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    while mantissa.is_multiple_of(1024) && power < 6 {
        mantissa /= 1024;
        power += 1;
    }
    if power == 0 {
        // Not a whole number of KiB: Kubernetes falls back to the decimal form.
        return format_decimal_milli(value.saturating_mul(1000));
    }
    let sign = if negative { "-" } else { "" };
    format!("{sign}{mantissa}{}", SUFFIXES[power])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(units: i64) -> Amount {
        Amount::new(units)
    }

    #[test]
    fn parses_like_kubernetes() {
        assert_eq!(parse_amount("cpu", "500m").unwrap(), 500);
        assert_eq!(parse_amount("cpu", "2").unwrap(), 2000);
        assert_eq!(parse_amount("cpu", "1.5").unwrap(), 1500);
        assert_eq!(
            parse_amount("cpu", "0.0001").unwrap(),
            1,
            "cpu rounds up to a milli"
        );
        assert_eq!(parse_amount("memory", "128Gi").unwrap(), 128 << 30);
        assert_eq!(parse_amount("memory", "1G").unwrap(), 1_000_000_000);
        assert_eq!(parse_amount("memory", "1e3").unwrap(), 1000);
        assert_eq!(parse_amount("nvidia.com/gpu", "4").unwrap(), 4);
        assert_eq!(
            parse_amount("nvidia.com/gpu", "500m").unwrap(),
            1,
            "Value() rounds up"
        );
        assert_eq!(parse_amount("pods", "-3").unwrap(), -3);
        assert_eq!(
            parse_amount("memory", "99999999999999999999Ei").unwrap(),
            i64::MAX
        );
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "abc", "1.2.3", "4 GPUs", "1Zi", "--1", "."] {
            assert!(
                parse_amount("cpu", bad).is_err(),
                "{bad:?} should not parse"
            );
        }
    }

    #[test]
    fn formats_canonically() {
        assert_eq!(format_amount("cpu", a(500)), "500m");
        assert_eq!(format_amount("cpu", a(2000)), "2");
        assert_eq!(format_amount("cpu", a(1500)), "1500m");
        assert_eq!(format_amount("cpu", a(5_000_000)), "5k");
        assert_eq!(format_amount("memory", a(128 << 30)), "128Gi");
        assert_eq!(format_amount("memory", a(1_000_000_000)), "1G");
        assert_eq!(format_amount("memory", a(1536)), "1536");
        assert_eq!(format_amount("nvidia.com/gpu", a(5)), "5");
        assert_eq!(format_amount("nvidia.com/gpu", a(1000)), "1k");
        assert_eq!(format_amount("nvidia.com/gpu", UNLIMITED), "+Inf");
        assert_eq!(format_amount("cpu", a(0)), "0");
    }

    #[test]
    fn saturates() {
        assert_eq!(UNLIMITED + a(5), UNLIMITED);
        assert_eq!(UNLIMITED - a(5), UNLIMITED);
        assert_eq!(a(i64::MAX - 1) + a(10), UNLIMITED);
        assert_eq!(a(i64::MIN + 1) - a(10), i64::MIN);
        assert_eq!(a(5) - UNLIMITED, i64::MIN);
        assert_eq!(UNLIMITED - UNLIMITED, 0);
        assert_eq!(a(i64::MAX / 2) * 3, UNLIMITED);
        assert_eq!(-a(i64::MIN), UNLIMITED);
        assert_eq!(
            [a(i64::MAX - 1), a(2), a(-5)].iter().sum::<Amount>(),
            UNLIMITED
        );
    }

    #[test]
    fn serializes_as_the_number() {
        assert_eq!(serde_json::to_string(&a(1500)).unwrap(), "1500");
        assert_eq!(serde_json::from_str::<Amount>("-3").unwrap(), -3);
        assert_eq!(format!("{:?} {}", a(7), a(7)), "7 7");
    }
}
