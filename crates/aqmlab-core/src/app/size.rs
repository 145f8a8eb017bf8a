//! Packet sizes: fixed, or drawn per packet from a distribution (exponential sizes make the
//! bottleneck's service times exponential, so an M/M/1 queue can be built).

use std::borrow::Cow;

use serde::Serialize;

use crate::conf::{choice_enum, Choice, FromNode, Val};
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

choice_enum! {
    /// The distributions a size table names in its `dist` key.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum DistName {
        Exponential = "exponential",
        Uniform = "uniform",
    }
}

impl DistName {
    /// The keys a size table of this distribution may hold.
    fn keys(self) -> &'static [&'static str] {
        match self {
            DistName::Exponential => &["dist", "mean"],
            DistName::Uniform => &["dist", "min", "max"],
        }
    }
}

impl FromNode for SizeDist {
    /// Bytes, or each distribution with its keys, from `DistName`.
    fn unit() -> Cow<'static, str> {
        let shape = |d: &DistName| {
            let params: String = d.keys()[1..].iter().map(|k| format!(", {k} = B")).collect();
            format!("{{dist = \"{}\"{params}}}", d.name())
        };
        let shapes: Vec<String> = DistName::ALL.iter().map(shape).collect();
        format!("bytes, or {}", shapes.join(" / ")).into()
    }

    fn from_node(val: &Val) -> Result<Self, String> {
        match val {
            Val::Int(i) if *i >= 1 && *i <= MAX_PACKET => Ok(SizeDist::Fixed { bytes: *i as u32 }),
            Val::Int(i) => Err(format!("{i} bytes is not a packet size (allowed: 1 to {MAX_PACKET})")),
            Val::Table(t) => {
                let dist = match t.get("dist").map(|n| &n.val) {
                    Some(Val::Str(s)) => s.as_str(),
                    _ => {
                        let quoted: Vec<String> = DistName::NAMES.iter().map(|n| format!("\"{n}\"")).collect();
                        return Err(format!("a size distribution needs dist = {}", quoted.join(" or ")));
                    }
                };
                let Some(name) = DistName::from_name(dist) else {
                    let allowed = DistName::NAMES.join(", ");
                    return Err(format!("unknown size distribution '{dist}' (allowed: {allowed})"));
                };
                let allowed = name.keys();
                if let Some((k, _)) = t.entries.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
                    return Err(format!("unknown key '{k}' in a {dist} size (allowed: {})", allowed.join(", ")));
                }
                match name {
                    DistName::Exponential => Ok(SizeDist::Exponential { mean: bytes_field(t, "mean")? as f64 }),
                    DistName::Uniform => {
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
            SizeDist::Exponential { mean } => {
                format!("{{dist = \"{}\", mean = {mean}}}", DistName::Exponential.name())
            }
            SizeDist::Uniform { min, max } => {
                format!("{{dist = \"{}\", min = {min}, max = {max}}}", DistName::Uniform.name())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_text_lists_every_distribution_with_its_keys() {
        assert_eq!(
            SizeDist::unit(),
            "bytes, or {dist = \"exponential\", mean = B} / {dist = \"uniform\", min = B, max = B}"
        );
    }

    #[test]
    fn a_bad_distribution_is_answered_with_the_names_allowed() {
        let read = |text: &str| SizeDist::from_node(&crate::conf::parse_override_value("x", text).val);
        assert_eq!(
            read("{ mean = 1 }").unwrap_err(),
            "a size distribution needs dist = \"exponential\" or \"uniform\""
        );
        assert_eq!(
            read("{ dist = \"pareto\", mean = 1 }").unwrap_err(),
            "unknown size distribution 'pareto' (allowed: exponential, uniform)"
        );
        assert_eq!(
            read("{ dist = \"uniform\", mean = 1 }").unwrap_err(),
            "unknown key 'mean' in a uniform size (allowed: dist, min, max)"
        );
        assert_eq!(read("{ dist = \"uniform\", min = 2, max = 9 }"), Ok(SizeDist::Uniform { min: 2, max: 9 }));
    }
}
