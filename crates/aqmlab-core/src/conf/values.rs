//! The typed values a scenario's fields hold (a duration, a rate, a size, a probability, a seed,
//! a buffer limit) and how each is read from a TOML value, with its units ([`FromNode`]).

use std::borrow::Cow;

use serde::Serialize;

use super::Val;
use crate::units;
use crate::units::SimDuration;

/// A duration in ns, written with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Duration(pub u64);

impl Duration {
    /// The span of simulated time it stands for (the engine's typed duration; this type stays
    /// the scenario's, with its units and its catalogue entry).
    #[inline]
    pub const fn sim(self) -> SimDuration {
        SimDuration(self.0)
    }
}

/// A bit rate in bits per second, written with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rate(pub u64);
/// A size in bytes: an integer, or a string with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bytes(pub u64);
/// A probability in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prob(pub f64);
/// A random seed, 0 to 2^64-1: an integer, or (above TOML's largest integer, 2^63-1) a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Seed(pub u64);

/// A buffer limit: packets (an integer), bytes (a size string) or `"unbounded"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
    Unbounded,
}

impl Limit {
    /// Would a queue holding `len` packets and `bytes` bytes overflow if a packet of `size` joined?
    #[inline]
    pub fn overflows(&self, len: usize, bytes: u64, size: u32) -> bool {
        match *self {
            Limit::Packets(n) => len >= n as usize,
            Limit::Bytes(b) => bytes + size as u64 > b,
            Limit::Unbounded => false,
        }
    }
    /// The limit in packets of `packet_size` bytes (for thresholds and fair shares).
    pub fn in_packets(&self, packet_size: u32) -> f64 {
        match *self {
            Limit::Packets(n) => n as f64,
            Limit::Bytes(b) => b as f64 / packet_size.max(1) as f64,
            Limit::Unbounded => f64::INFINITY,
        }
    }
}

/// A value kind that can be read from the tree.
pub trait FromNode: Sized {
    /// Unit or type shown in the catalogue; asked for only when the catalogue is made, so a
    /// unit built from names (a size distribution's) costs nothing when a scenario is read.
    fn unit() -> Cow<'static, str>;
    fn from_node(val: &Val) -> std::result::Result<Self, String>;
    fn show(&self) -> String;
}

fn expect(val: &Val, what: &str) -> String {
    match val {
        Val::Array(_) | Val::Table(_) => format!("expected {what}, got {}", val.type_name()),
        _ => format!("expected {what}, got {} {}", val.type_name(), val.show()),
    }
}

impl FromNode for f64 {
    fn unit() -> Cow<'static, str> {
        "number".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Float(f) if f.is_finite() => Ok(*f),
            Val::Float(_) => Err("must be a finite number".into()),
            Val::Int(i) => Ok(*i as f64),
            v => Err(expect(v, "a number")),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl FromNode for i64 {
    fn unit() -> Cow<'static, str> {
        "integer".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) => Ok(*i),
            v => Err(expect(v, "an integer")),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl FromNode for u32 {
    fn unit() -> Cow<'static, str> {
        "integer >= 0".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 0 && *i <= u32::MAX as i64 => Ok(*i as u32),
            Val::Int(i) => Err(format!("{i} is out of range (0 to {})", u32::MAX)),
            v => Err(expect(v, "a whole number")),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl FromNode for u64 {
    fn unit() -> Cow<'static, str> {
        "integer >= 0".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 0 => Ok(*i as u64),
            Val::Int(i) => Err(format!("{i} must not be negative")),
            v => Err(expect(v, "a whole number")),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl FromNode for bool {
    fn unit() -> Cow<'static, str> {
        "boolean".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Bool(b) => Ok(*b),
            v => Err(expect(v, "true or false")),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl FromNode for String {
    fn unit() -> Cow<'static, str> {
        "string".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Str(s) => Ok(s.clone()),
            v => Err(expect(v, "a string")),
        }
    }
    fn show(&self) -> String {
        format!("\"{self}\"")
    }
}

impl FromNode for Duration {
    fn unit() -> Cow<'static, str> {
        "duration (s, ms, us, ns)".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Str(s) => units::parse_duration(s).map(Duration),
            Val::Int(0) => Ok(Duration(0)),
            v => Err(expect(v, "a duration string such as \"100ms\"")),
        }
    }
    fn show(&self) -> String {
        format!("\"{}\"", units::fmt_duration(self.0))
    }
}

/// A largest duration in ns, or "unbounded" (`u64::MAX`): a bound a scenario may lift.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DurationBound(pub u64);

impl DurationBound {
    pub const UNBOUNDED: DurationBound = DurationBound(u64::MAX);
}

impl FromNode for DurationBound {
    fn unit() -> Cow<'static, str> {
        "duration (s, ms, us, ns) or \"unbounded\"".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Str(s) if s == "unbounded" => Ok(DurationBound::UNBOUNDED),
            v => Duration::from_node(v).map(|d| DurationBound(d.0)).map_err(|e| format!("{e}; or write \"unbounded\"")),
        }
    }
    fn show(&self) -> String {
        if *self == DurationBound::UNBOUNDED {
            "\"unbounded\"".into()
        } else {
            Duration(self.0).show()
        }
    }
}

impl FromNode for Rate {
    fn unit() -> Cow<'static, str> {
        "bit rate (bps, kbps, Mbps, Gbps)".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Str(s) => units::parse_rate(s).map(Rate),
            v => Err(expect(v, "a rate string such as \"10Mbps\"")),
        }
    }
    fn show(&self) -> String {
        format!("\"{}bps\"", self.0)
    }
}

impl FromNode for Bytes {
    fn unit() -> Cow<'static, str> {
        "bytes (integer, or string with B, KB, MB)".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 0 => Ok(Bytes(*i as u64)),
            Val::Int(i) => Err(format!("{i} must not be negative")),
            Val::Str(s) => units::parse_size(s).map(Bytes),
            v => Err(expect(v, "a size in bytes")),
        }
    }
    fn show(&self) -> String {
        self.0.to_string()
    }
}

impl FromNode for Prob {
    fn unit() -> Cow<'static, str> {
        "probability in [0, 1]".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        let p = f64::from_node(val)?;
        if (0.0..=1.0).contains(&p) {
            Ok(Prob(p))
        } else {
            Err(format!("{p} is not a probability (allowed: 0 to 1)"))
        }
    }
    fn show(&self) -> String {
        self.0.to_string()
    }
}

impl FromNode for Seed {
    fn unit() -> Cow<'static, str> {
        "integer from 0 to 2^64-1 (above 2^63-1 as a string)".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 0 => Ok(Seed(*i as u64)),
            Val::Str(s) => {
                s.trim().parse::<u64>().map(Seed).map_err(|_| format!("\"{s}\" is not a seed (allowed: 0 to 2^64-1)"))
            }
            Val::Int(i) => Err(format!("{i} is not a seed (allowed: 0 to 2^64-1)")),
            v => Err(expect(v, "a whole number from 0 to 2^64-1")),
        }
    }
    fn show(&self) -> String {
        self.0.to_string()
    }
}

impl FromNode for Limit {
    fn unit() -> Cow<'static, str> {
        "packets (integer), bytes (\"64KB\") or \"unbounded\"".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 1 && *i <= u32::MAX as i64 => Ok(Limit::Packets(*i as u32)),
            Val::Int(i) if *i > u32::MAX as i64 => Err(format!(
                "{i} packets is more than the largest packet limit, {} (for a larger buffer give bytes, or \"unbounded\")",
                u32::MAX
            )),
            Val::Int(i) => Err(format!("{i} packets is not a buffer (allowed: 1 to {} packets)", u32::MAX)),
            Val::Str(s) if s == "unbounded" => Ok(Limit::Unbounded),
            Val::Str(s) => match units::parse_size(s) {
                Ok(0) => Err("a buffer of 0 bytes holds nothing".into()),
                Ok(b) => Ok(Limit::Bytes(b)),
                Err(e) => Err(format!("{e}; or write \"unbounded\" or a number of packets")),
            },
            v => Err(expect(v, "a number of packets, a size string or \"unbounded\"")),
        }
    }
    fn show(&self) -> String {
        match self {
            Limit::Packets(n) => n.to_string(),
            Limit::Bytes(b) => format!("\"{b}B\""),
            Limit::Unbounded => "\"unbounded\"".into(),
        }
    }
}
