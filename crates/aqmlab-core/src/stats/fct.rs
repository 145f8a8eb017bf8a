//! Flow completion times: the record of each connection of a workload, and their summary by
//! flow-size bucket.
//!
//! A connection counts in the summary when it opened inside the measurement window. Its FCT runs
//! from its opening (the SYN with a handshake, else its first data packet) to the ACK of its
//! last byte; its slowdown is the FCT over the ideal FCT of an empty network. Connections still
//! open at the end are counted as unfinished beside every statistic, which covers the finished
//! ones only. Percentiles interpolate linearly between order statistics (numpy's default), so
//! `numpy.percentile` over the connections table gives the same numbers.

use serde::Serialize;

use crate::units::{SimDuration, SimTime};

/// What becomes of one connection of a workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FctRecord {
    /// The workload (a flow index) and the pair's nodes.
    pub workload: u32,
    pub src: u32,
    pub dst: u32,
    pub bytes: u64,
    /// When it opened, and when its last byte was acknowledged (`None`: not by the end).
    pub start: SimTime,
    pub finish: Option<SimTime>,
    /// The completion time over an empty network, ns.
    pub ideal_ns: u64,
    pub retransmits: u32,
    pub timeouts: u32,
    /// Its data packets dropped and marked.
    pub drops: u32,
    pub marks: u32,
}

impl FctRecord {
    /// Its flow completion time, once finished.
    pub fn fct(&self) -> Option<SimDuration> {
        self.finish.map(|f| f - self.start)
    }
    pub fn slowdown(&self) -> Option<f64> {
        self.fct().map(|t| t.ns() as f64 / self.ideal_ns.max(1) as f64)
    }
}

/// The FCT statistics of the connections of one size bucket.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FctBucket {
    /// `"< 10KB"`, `"10KB-100KB"`, `">= 1MB"`, or `"all"`.
    pub bucket: String,
    /// Sizes in [min_bytes, max_bytes), bytes (`None`: no upper edge).
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    /// Connections opened in the window, finished and not.
    pub flows: u64,
    pub finished: u64,
    pub unfinished: u64,
    pub fct_mean_s: Option<f64>,
    pub fct_p50_s: Option<f64>,
    pub fct_p95_s: Option<f64>,
    pub fct_p99_s: Option<f64>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_p50: Option<f64>,
    pub slowdown_p95: Option<f64>,
    pub slowdown_p99: Option<f64>,
}

/// The `p`-th percentile (0..=100) of sorted values, interpolating linearly between order
/// statistics; `None` for no values.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = p / 100.0 * last as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64))
}

/// A size as the bucket labels write it: 10KB, 1MB, 1500B.
fn size_label(b: u64) -> String {
    match b {
        b if b >= 1_000_000 && b.is_multiple_of(1_000_000) => format!("{}MB", b / 1_000_000),
        b if b >= 1_000 && b.is_multiple_of(1_000) => format!("{}KB", b / 1_000),
        b => format!("{b}B"),
    }
}

/// The summary of `records` by the buckets with upper edges `edges` (rising), then over all.
pub fn summarise<'a>(records: impl Iterator<Item = &'a FctRecord> + Clone, edges: &[u64]) -> Vec<FctBucket> {
    let mut bounds: Vec<(String, u64, Option<u64>)> = Vec::with_capacity(edges.len() + 2);
    let mut lo = 0;
    for &hi in edges {
        let label =
            if lo == 0 { format!("< {}", size_label(hi)) } else { format!("{}-{}", size_label(lo), size_label(hi)) };
        bounds.push((label, lo, Some(hi)));
        lo = hi;
    }
    bounds.push((if lo == 0 { "all sizes".into() } else { format!(">= {}", size_label(lo)) }, lo, None));
    let mut out: Vec<FctBucket> = bounds
        .into_iter()
        .map(|(label, lo, hi)| {
            bucket(label, lo, hi, records.clone().filter(|r| r.bytes >= lo && hi.is_none_or(|h| r.bytes < h)))
        })
        .collect();
    out.push(bucket("all".into(), 0, None, records));
    out
}

fn bucket<'a>(
    label: String,
    min_bytes: u64,
    max_bytes: Option<u64>,
    records: impl Iterator<Item = &'a FctRecord>,
) -> FctBucket {
    let (mut fcts, mut slowdowns, mut flows) = (Vec::new(), Vec::new(), 0u64);
    for r in records {
        flows += 1;
        if let (Some(t), Some(s)) = (r.fct(), r.slowdown()) {
            fcts.push(t.ns() as f64 * 1e-9);
            slowdowns.push(s);
        }
    }
    fcts.sort_by(f64::total_cmp);
    slowdowns.sort_by(f64::total_cmp);
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    FctBucket {
        bucket: label,
        min_bytes,
        max_bytes,
        flows,
        finished: fcts.len() as u64,
        unfinished: flows - fcts.len() as u64,
        fct_mean_s: mean(&fcts),
        fct_p50_s: percentile(&fcts, 50.0),
        fct_p95_s: percentile(&fcts, 95.0),
        fct_p99_s: percentile(&fcts, 99.0),
        slowdown_mean: mean(&slowdowns),
        slowdown_p50: percentile(&slowdowns, 50.0),
        slowdown_p95: percentile(&slowdowns, 95.0),
        slowdown_p99: percentile(&slowdowns, 99.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(bytes: u64, fct_ms: Option<u64>) -> FctRecord {
        FctRecord {
            workload: 0,
            src: 0,
            dst: 1,
            bytes,
            start: SimTime(1_000_000),
            finish: fct_ms.map(|t| SimTime(1_000_000 + t * 1_000_000)),
            ideal_ns: 2_000_000,
            retransmits: 0,
            timeouts: 0,
            drops: 0,
            marks: 0,
        }
    }

    #[test]
    fn percentiles_interpolate_as_numpy_does() {
        let v = [1.0, 2.0, 3.0, 4.0];
        // numpy.percentile([1, 2, 3, 4], [50, 95, 99]) = [2.5, 3.85, 3.97]
        assert_eq!(percentile(&v, 50.0), Some(2.5));
        assert!((percentile(&v, 95.0).unwrap() - 3.85).abs() < 1e-12);
        assert!((percentile(&v, 99.0).unwrap() - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn buckets_split_by_size_and_count_the_unfinished_beside() {
        let rs = [rec(500, Some(4)), rec(9_999, Some(2)), rec(10_000, None), rec(2_000_000, Some(100))];
        let b = summarise(rs.iter(), &[10_000, 100_000, 1_000_000]);
        let labels: Vec<&str> = b.iter().map(|b| b.bucket.as_str()).collect();
        assert_eq!(labels, ["< 10KB", "10KB-100KB", "100KB-1MB", ">= 1MB", "all"]);
        assert_eq!((b[0].flows, b[0].finished, b[0].unfinished), (2, 2, 0));
        assert_eq!(b[0].fct_mean_s, Some(0.003));
        assert_eq!(b[0].slowdown_p50, Some(1.5), "FCTs of 2 and 4 ms over an ideal 2 ms");
        assert_eq!((b[1].flows, b[1].finished, b[1].unfinished), (1, 0, 1));
        assert_eq!(b[1].fct_p50_s, None, "no finished flow: no statistic");
        assert_eq!(b[2].flows, 0);
        assert_eq!((b[4].flows, b[4].unfinished), (4, 1));
        assert_eq!(b[4].slowdown_p99.map(|s| (s * 1e6).round() / 1e6), Some(49.04));
    }
}
