//! Packet sizes: fixed, or drawn per packet from a distribution (exponential sizes make the
//! bottleneck's service times exponential, so an M/M/1 queue can be built).

use serde::Serialize;

use crate::conf::{FromNode, Val};
use crate::rng::SimRng;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "dist", rename_all = "snake_case")]
pub enum SizeDist {
    Fixed {
        bytes: u32,
    },
    /// Exponential with this mean, rounded to whole bytes, at least 1.
    Exponential {
        mean: f64,
    },
    /// Uniform on whole bytes in [min, max].
    Uniform {
        min: u32,
        max: u32,
    },
}

impl SizeDist {
    /// The largest size drawn; an exponential has none, so its mean stands in.
    pub fn largest(&self) -> u64 {
        match *self {
            SizeDist::Fixed { bytes } => bytes as u64,
            SizeDist::Uniform { max, .. } => max as u64,
            SizeDist::Exponential { mean } => mean.round().max(1.0) as u64,
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Fixed { bytes } => bytes as f64,
            SizeDist::Exponential { mean } => mean,
            SizeDist::Uniform { min, max } => (min as f64 + max as f64) / 2.0,
        }
    }

    #[inline]
    pub fn draw(&self, rng: &mut SimRng) -> u32 {
        match *self {
            SizeDist::Fixed { bytes } => bytes,
            SizeDist::Exponential { mean } => rng.exponential(mean).round().clamp(1.0, u32::MAX as f64) as u32,
            SizeDist::Uniform { min, max } => min + rng.below((max - min + 1) as usize) as u32,
        }
    }
}

const MAX_PACKET: i64 = 1 << 20;

fn bytes_field(t: &crate::conf::Table, key: &str) -> Result<u32, String> {
    match t.get(key).map(|n| &n.val) {
        Some(Val::Int(i)) if *i >= 1 && *i <= MAX_PACKET => Ok(*i as u32),
        Some(Val::Int(i)) => Err(format!("{key} = {i} is not a packet size (allowed: 1 to {MAX_PACKET} bytes)")),
        Some(v) => Err(format!("{key} must be a whole number of bytes, got {}", v.type_name())),
        None => Err(format!("needs '{key}'")),
    }
}

impl FromNode for SizeDist {
    const UNIT: &'static str = "bytes, or {dist = \"exponential\", mean = B} / {dist = \"uniform\", min = B, max = B}";

    fn from_node(val: &Val) -> Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 1 && *i <= MAX_PACKET => Ok(SizeDist::Fixed { bytes: *i as u32 }),
            Val::Int(i) => Err(format!("{i} bytes is not a packet size (allowed: 1 to {MAX_PACKET})")),
            Val::Table(t) => {
                let dist = match t.get("dist").map(|n| &n.val) {
                    Some(Val::Str(s)) => s.as_str(),
                    _ => return Err("a size distribution needs dist = \"exponential\" or \"uniform\"".into()),
                };
                let allowed: &[&str] = match dist {
                    "exponential" => &["dist", "mean"],
                    "uniform" => &["dist", "min", "max"],
                    other => {
                        return Err(format!("unknown size distribution '{other}' (allowed: exponential, uniform)"))
                    }
                };
                if let Some((k, _)) = t.entries.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
                    return Err(format!("unknown key '{k}' in a {dist} size (allowed: {})", allowed.join(", ")));
                }
                match dist {
                    "exponential" => Ok(SizeDist::Exponential { mean: bytes_field(t, "mean")? as f64 }),
                    _ => {
                        let (min, max) = (bytes_field(t, "min")?, bytes_field(t, "max")?);
                        if min > max {
                            return Err(format!("min ({min}) must not exceed max ({max})"));
                        }
                        Ok(SizeDist::Uniform { min, max })
                    }
                }
            }
            v => Err(format!("expected a packet size in bytes or a size distribution, got {}", v.type_name())),
        }
    }

    fn show(&self) -> String {
        match self {
            SizeDist::Fixed { bytes } => bytes.to_string(),
            SizeDist::Exponential { mean } => format!("{{dist = \"exponential\", mean = {mean}}}"),
            SizeDist::Uniform { min, max } => format!("{{dist = \"uniform\", min = {min}, max = {max}}}"),
        }
    }
}
