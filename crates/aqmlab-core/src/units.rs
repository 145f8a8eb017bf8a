//! Quantities with units, as written in scenario files: durations (`"100ms"`), bit rates
//! (`"1.5Mbps"`) and byte sizes (`"64KB"`). Inside the engine time is integer nanoseconds,
//! rates are integer bits per second and sizes integer bytes; conversion happens once, here.

use std::ops::{Add, AddAssign, Div, Sub};

use serde::Serialize;

/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;

/// A point in simulated time, in nanoseconds from the start of the run. `#[repr(transparent)]`
/// over the `u64` it wraps: the event queue, the event loop (a packet's life, the links'
/// transmissions and wake-ups, the measurement window), the link model, the agent contract, the
/// TCP sender and its congestion controls' inputs, the packets' stamps, the disciplines (their
/// context, `QdiscCtx::now`, and their state), the statistics' records and the read-only view
/// of a run (`SimView`) speak it at no cost, and a time cannot be passed where a duration or an
/// id is meant. The statistics' sums and the results, which count
/// in nanoseconds, take [`SimTime::ns`] at their edge; a scenario's durations become
/// [`SimDuration`]s through `conf::Duration::sim`.
/// Serialised as the number of nanoseconds.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds. Serialised as the number of nanoseconds.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);

    /// Nanoseconds from the start of the run.
    #[inline]
    pub const fn ns(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to `self`, or zero when `earlier` is later.
    #[inline]
    pub const fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    /// `d` after `self`, or the last representable time.
    #[inline]
    pub const fn saturating_add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }

    /// The start of the `period` that holds `self`, periods counted from time 0 (`period`
    /// must not be zero): when a clock ticking every `period` last ticked.
    #[inline]
    pub const fn period_start(self, period: SimDuration) -> SimTime {
        SimTime(self.0 / period.0 * period.0)
    }

    /// For a clock that ticks at `phase` (below `period`) past every multiple of `period`: how
    /// many of its ticks have come by `self`, counting one at `phase - period`, so that the
    /// count is never negative. Its next tick after `self` is at `phase + count x period`.
    #[inline]
    pub const fn ticks_by(self, period: SimDuration, phase: u64) -> u64 {
        (self.0 + period.0 - phase) / period.0
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    /// Nanoseconds.
    #[inline]
    pub const fn ns(self) -> u64 {
        self.0
    }

    /// How many whole `period`s fit in `self` (`period` must not be zero).
    #[inline]
    pub const fn periods_of(self, period: SimDuration) -> u64 {
        self.0 / period.0
    }

    /// `n` times `self`, or the longest representable span.
    #[inline]
    pub const fn saturating_mul(self, n: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(n))
    }

    /// `self` less `d`, or zero when `d` is longer.
    #[inline]
    pub const fn saturating_sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

impl Div<u64> for SimDuration {
    type Output = SimDuration;
    /// A `n`th of `self`, rounded down.
    #[inline]
    fn div(self, n: u64) -> SimDuration {
        SimDuration(self.0 / n)
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0 + d.0)
    }
}

impl AddAssign<SimDuration> for SimTime {
    #[inline]
    fn add_assign(&mut self, d: SimDuration) {
        self.0 += d.0;
    }
}

impl AddAssign for SimDuration {
    #[inline]
    fn add_assign(&mut self, d: SimDuration) {
        self.0 += d.0;
    }
}

impl Sub<SimDuration> for SimTime {
    type Output = SimTime;
    /// `d` before `self` (`d` must not reach before time 0).
    #[inline]
    fn sub(self, d: SimDuration) -> SimTime {
        SimTime(self.0 - d.0)
    }
}

impl Sub for SimTime {
    type Output = SimDuration;
    /// The time from `earlier` to `self` (`earlier` must not be later).
    #[inline]
    fn sub(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0 - earlier.0)
    }
}

fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    // "1e3s" is fine, but a unit starting with 'e' must not be eaten: back off if parsing fails.
    let mut cut = end;
    while cut > 0 {
        if let Ok(v) = text[..cut].parse::<f64>() {
            return Some((v, text[cut..].trim()));
        }
        cut -= 1;
    }
    None
}

fn scaled(text: &str, units: &[(&str, f64)], what: &str) -> Result<u64, String> {
    let allowed = units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ");
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("'{text}' is not a {what}: write a number and a unit ({allowed})"))?;
    let factor = units.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f).ok_or_else(|| {
        if unit.is_empty() {
            format!("'{text}' has no unit: write a number and a unit ({allowed})")
        } else {
            let hint = crate::suggest::did_you_mean(unit, units.iter().map(|(u, _)| *u));
            format!("'{text}' has an unknown unit '{unit}'{hint} (allowed: {allowed})")
        }
    })?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("'{text}' must be a finite, non-negative {what}"));
    }
    let scaled = (value * factor).round();
    if scaled >= u64::MAX as f64 / 4.0 {
        return Err(format!("'{text}' is too large a {what}"));
    }
    Ok(scaled as u64)
}

/// A duration string to nanoseconds: `s`, `ms`, `us`, `ns`, `min`.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    scaled(text, &[("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0), ("min", 60e9)], "duration")
}

/// A bit-rate string to bits per second: `bps`, `kbps`, `Mbps`, `Gbps` (decimal prefixes).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    scaled(text, &[("bps", 1.0), ("kbps", 1e3), ("Kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9)], "bit rate")
}

/// A size string to bytes: `B`, `KB`, `MB`, `GB` (decimal prefixes, as networking uses),
/// and `KiB`, `MiB` (binary).
pub fn parse_size(text: &str) -> Result<u64, String> {
    scaled(text, &[("B", 1.0), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("KiB", 1024.0), ("MiB", 1048576.0)], "size")
}

/// Seconds as a float, for reports.
pub fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// Time to serialise `bytes` at `rate_bps`, rounded up to the next nanosecond.
#[inline]
pub fn tx_time_ns(bytes: u32, rate_bps: u64) -> u64 {
    let bits = bytes as u128 * 8 * NS_PER_S as u128;
    bits.div_ceil(rate_bps as u128) as u64
}

/// Format a duration in ns as a short human string (for messages).
pub fn fmt_duration(ns: u64) -> String {
    if ns.is_multiple_of(NS_PER_S) {
        format!("{}s", ns / NS_PER_S)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else {
        format!("{}ns", ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_convert_to_nanoseconds() {
        assert_eq!(parse_duration("100s"), Ok(100 * NS_PER_S));
        assert_eq!(parse_duration("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_duration(" 20 us"), Ok(20_000));
        assert_eq!(parse_duration("1e-3s"), Ok(1_000_000));
    }

    #[test]
    fn rates_and_sizes_use_decimal_prefixes() {
        assert_eq!(parse_rate("1Mbps"), Ok(1_000_000));
        assert_eq!(parse_rate("19.2kbps"), Ok(19_200));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("1KiB"), Ok(1024));
    }

    #[test]
    fn missing_or_unknown_units_are_explained() {
        assert!(parse_duration("100").unwrap_err().contains("no unit"));
        assert!(parse_rate("1 Mbit").unwrap_err().contains("unknown unit 'Mbit'"));
        assert!(parse_rate("-1Mbps").is_err());
        assert!(parse_duration("fast").unwrap_err().contains("not a duration"));
    }

    #[test]
    fn a_time_since_a_later_one_is_zero() {
        assert_eq!(SimTime(5).saturating_since(SimTime(3)), SimDuration(2));
        assert_eq!(SimTime(3).saturating_since(SimTime(5)), SimDuration(0));
    }

    #[test]
    fn transmission_time_is_exact_or_rounded_up() {
        assert_eq!(tx_time_ns(1000, 1_000_000), 8_000_000);
        assert_eq!(tx_time_ns(1, 3), 2_666_666_667);
    }
}
