//! Flow sizes drawn from an empirical distribution: a cumulative distribution function given at
//! points, linear between them, as the datacenter simulators' workload files give it (pFabric's
//! and HPCC's generators and the DCTCP authors' traffic generator all interpolate linearly).
//!
//! A CDF file has one point per line: a size in bytes, then the probability that a flow is no
//! larger, as a fraction (ending at 1) or a percentage (ending at 100); a middle column, as in
//! pFabric's ns-2 files, is ignored. `#` starts a comment. The points must rise in both size
//! and probability, and end at probability 1. The built-in distributions are files of this
//! format in the repository (`data/workloads/`), each stating its source.
//!
//! A draw inverts the CDF at a uniform variate (rounded to whole bytes, at least 1); the mean is
//! the exact mean of the piecewise-linear distribution.

use serde::Serialize;

use crate::rng::SimRng;

/// The built-in distributions: name, file text.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("web_search", include_str!("../../data/workloads/web_search.cdf")),
    ("data_mining", include_str!("../../data/workloads/data_mining.cdf")),
    ("hadoop", include_str!("../../data/workloads/hadoop.cdf")),
];

/// A piecewise-linear CDF over flow sizes in bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeCdf {
    /// Where it came from: a built-in name or a file's path.
    pub source: String,
    /// (size in bytes, cumulative probability), rising in both, the last at probability 1.
    pub points: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// The built-in distribution `name`, if there is one.
    pub fn built_in(name: &str) -> Option<SizeCdf> {
        let (_, text) = BUILT_IN.iter().find(|(n, _)| *n == name)?;
        Some(SizeCdf::parse(text, name).expect("the built-in distributions are valid"))
    }

    /// Read a CDF file's text; an error names the line and what is wrong.
    pub fn parse(text: &str, source: &str) -> Result<SizeCdf, String> {
        // (line, size, probability as written)
        let mut read: Vec<(usize, f64, f64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |what: String| format!("line {}: {what}", i + 1);
            let fields: Vec<&str> =
                line.split(|c: char| c.is_whitespace() || c == ',').filter(|f| !f.is_empty()).collect();
            if !(2..=3).contains(&fields.len()) {
                return Err(at(format!("expected a size and a cumulative probability, got {line:?}")));
            }
            let number = |s: &str| -> Result<f64, String> {
                s.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| at(format!("{s:?} is not a number")))
            };
            let size = number(fields[0])?;
            if size < 0.0 {
                return Err(at(format!("size {size} is negative")));
            }
            read.push((i + 1, size, number(fields[fields.len() - 1])?));
        }
        let Some(&(_, _, top)) = read.last() else {
            return Err("no points (one line per point: a size in bytes and a cumulative probability)".into());
        };
        // A percentage ends at 100, a fraction at 1.
        let scale = if (top - 100.0).abs() < 1e-9 {
            100.0
        } else if (top - 1.0).abs() < 1e-9 {
            1.0
        } else {
            return Err(format!("the last probability is {top}: a CDF ends at 1 (or 100 in percent)"));
        };
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(read.len() + 1);
        for &(line, size, p) in &read {
            if !(0.0..=scale).contains(&p) {
                return Err(format!("line {line}: probability {p} is outside [0, {scale}]"));
            }
            if let Some(&(last_size, last_p)) = points.last() {
                if size < last_size || p / scale < last_p {
                    return Err(format!(
                        "line {line}: the points must rise: ({size}, {p}) follows ({last_size}, {})",
                        last_p * scale
                    ));
                }
            }
            points.push((size, p / scale));
        }
        if points.iter().all(|&(size, _)| size < 1.0) {
            return Err("every size is below 1 byte".into());
        }
        // Below the first point the CDF is 0 (a first point above 0 has an atom there).
        if points[0].1 > 0.0 {
            points.insert(0, (points[0].0, 0.0));
        }
        Ok(SizeCdf { source: source.to_string(), points })
    }

    /// The size at cumulative probability `u` (in [0, 1)), bytes, at least 1.
    pub fn quantile(&self, u: f64) -> u64 {
        let i = self.points.partition_point(|&(_, p)| p <= u).clamp(1, self.points.len() - 1);
        let (x0, p0) = self.points[i - 1];
        let (x1, p1) = self.points[i];
        let x = if p1 > p0 { x0 + (x1 - x0) * (u - p0) / (p1 - p0) } else { x1 };
        (x.round() as u64).max(1)
    }

    /// Draw one flow size, bytes.
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        self.quantile(rng.uniform())
    }

    /// The mean size, bytes (sizes under 1 byte count as 1, as drawn).
    pub fn mean(&self) -> f64 {
        self.points.windows(2).map(|w| (w[1].1 - w[0].1) * ((w[0].0 + w[1].0) / 2.0).max(1.0)).sum()
    }

    /// The probability that a flow is no larger than `size` bytes.
    pub fn cdf(&self, size: f64) -> f64 {
        let i = self.points.partition_point(|&(x, _)| x <= size);
        if i == 0 {
            return 0.0;
        }
        if i == self.points.len() {
            return 1.0;
        }
        let (x0, p0) = self.points[i - 1];
        let (x1, p1) = self.points[i];
        p0 + (p1 - p0) * (size - x0) / (x1 - x0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_distributions_have_their_published_means() {
        // Means of the piecewise-linear CDFs, computed by hand from the files' points.
        let web = SizeCdf::built_in("web_search").unwrap();
        assert!((web.mean() - 1_711_250.0).abs() < 1.0, "{}", web.mean());
        let hadoop = SizeCdf::built_in("hadoop").unwrap();
        assert!((hadoop.mean() - 120_420.75).abs() < 1.0, "{}", hadoop.mean());
        let mining = SizeCdf::built_in("data_mining").unwrap();
        assert!((mining.mean() - 12_658_198.6).abs() < 10.0, "{}", mining.mean());
        assert!(SizeCdf::built_in("ftp").is_none());
    }

    #[test]
    fn draws_follow_the_cdf_and_its_mean() {
        // Kolmogorov-Smirnov: the empirical CDF of 200,000 draws stays within 1.36 / sqrt(n)
        // (the 5% critical value) of the file's, at every point; the sample mean within 4
        // standard errors.
        let cdf = SizeCdf::built_in("web_search").unwrap();
        let mut rng = SimRng::from_seed(11);
        let n = 200_000;
        let mut sizes: Vec<u64> = (0..n).map(|_| cdf.draw(&mut rng)).collect();
        sizes.sort_unstable();
        let worst = cdf.points[1..]
            .iter()
            .map(|&(x, p)| (sizes.partition_point(|&s| s as f64 <= x) as f64 / n as f64 - p).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1.36 / (n as f64).sqrt(), "KS distance {worst}");
        let mean = sizes.iter().sum::<u64>() as f64 / n as f64;
        let var = sizes.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - cdf.mean()).abs() < 4.0 * (var / n as f64).sqrt(), "{mean} vs {}", cdf.mean());
    }

    #[test]
    fn percentages_and_three_columns_are_read_and_bad_files_are_refused() {
        let pct = SizeCdf::parse("100 0 50\n300 0 100 # pFabric's three columns, in percent\n", "f").unwrap();
        assert_eq!(pct.points, vec![(100.0, 0.0), (100.0, 0.5), (300.0, 1.0)]);
        assert_eq!(pct.quantile(0.25), 100, "the atom at the first point");
        assert_eq!(pct.quantile(0.75), 200);
        let err = |text: &str| SizeCdf::parse(text, "f").unwrap_err();
        assert!(err("10 0.5\n5 1").contains("line 2: the points must rise"));
        assert!(err("10 0.5\n20 0.4\n30 1").contains("must rise"));
        assert!(err("10 0\n20 1.5\n30 1").contains("line 2: probability 1.5 is outside [0, 1]"));
        assert!(err("10 0.5\n20 0.9").contains("the last probability is 0.9"));
        assert!(err("ten 0.5").contains("line 1: \"ten\" is not a number"));
        assert!(err("# nothing\n").contains("no points"));
        assert!(err("-5 0\n10 1").contains("negative"));
        assert!(err("1 2 3 4").contains("expected a size and a cumulative probability"));
        assert!(err("10 -0.5\n20 1").contains("line 1: probability -0.5 is outside [0, 1]"));
    }
}
