//! A link direction's capacity when it is not a constant rate: how long it takes to send a
//! packet that starts at a given time.
//!
//! - **Schedule** (`rate_schedule`): rates from given times on, held (`step`) or changing
//!   linearly between the points (`linear`); the last rate holds to the end. A packet whose
//!   transmission spans a change is sent at each rate in turn: the bits it still has to send at
//!   the change go at the new rate (its end is where the integral of the rate reaches its bits).
//!   A rate of 0 is an outage: nothing is sent until the rate rises again.
//! - **Trace** (`trace`, Mahimahi's format: Netravali et al., "Mahimahi: Accurate Record-and-Replay
//!   for HTTP", USENIX ATC 2015): each line is a time in milliseconds at which the link may
//!   deliver one MTU of 1500 bytes; the trace repeats, its period the last line's time. A packet
//!   takes the bytes of the opportunities from its start on (and what is left of the opportunity
//!   at which the packet before it ended, if it starts right then), and is sent at the
//!   opportunity that completes it. Bytes of an opportunity that no queued packet uses are lost,
//!   as in Mahimahi: an idle link saves nothing.
//!
//! Everything is integer nanoseconds and bits, so a run with a schedule or a trace is as exact and
//! as deterministic as one at a constant rate.

use serde::Serialize;

use crate::conf::choice_enum;
use crate::units::fmt_duration;

/// Bytes one delivery opportunity of a trace carries (the MTU).
pub const TRACE_MTU: u32 = 1500;

choice_enum! {
    /// How a rate schedule goes from one point to the next.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Shape {
        /// Each rate holds until the next point.
        Step = "step",
        /// The rate changes linearly between points.
        Linear = "linear",
    }
}

/// A link direction's capacity over time, when it is not a constant rate.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Capacity {
    /// (time ns, rate bit/s), the first at 0, times rising; the last rate holds.
    Schedule { points: Vec<(u64, u64)>, shape: Shape },
    /// Delivery opportunities (ns within a period), rising, repeating every `period_ns`.
    Trace { source: String, opportunities_ns: Vec<u64>, period_ns: u64 },
}

impl Capacity {
    /// A schedule from its points, checked: times rising from 0, rates not all 0 from some point
    /// on (a packet would never end).
    pub fn schedule(points: Vec<(u64, u64)>, shape: Shape) -> Result<Capacity, String> {
        match points.first() {
            None => return Err("has no points: give [time, rate] pairs, the first at 0s".into()),
            Some(&(t, _)) if t != 0 => {
                return Err(format!("must start at 0s (its first point is at {})", fmt_duration(t)))
            }
            Some(_) => {}
        }
        if let Some(w) = points.windows(2).find(|w| w[1].0 <= w[0].0) {
            return Err(format!("times must rise: {} follows {}", fmt_duration(w[1].0), fmt_duration(w[0].0)));
        }
        if points.last().is_some_and(|&(_, r)| r == 0) {
            return Err("ends at a rate of 0: packets queued then would never be sent".into());
        }
        Ok(Capacity::Schedule { points, shape })
    }

    /// A Mahimahi trace from its text; `source` names it in messages.
    pub fn trace(text: &str, source: &str) -> Result<Capacity, String> {
        let mut ms: Vec<u64> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let t: u64 =
                line.parse().map_err(|_| format!("line {}: {line:?} is not a time in whole milliseconds", i + 1))?;
            if let Some(&last) = ms.last() {
                if t < last {
                    return Err(format!("line {}: times must not fall ({t} ms follows {last} ms)", i + 1));
                }
            }
            ms.push(t);
        }
        let Some(&period) = ms.last() else {
            return Err("has no delivery opportunities (one time in milliseconds per line)".into());
        };
        if period == 0 {
            return Err("its last time is 0 ms: the trace repeats with the last time as its period".into());
        }
        Ok(Capacity::Trace {
            source: source.to_string(),
            opportunities_ns: ms.iter().map(|t| t * 1_000_000).collect(),
            period_ns: period * 1_000_000,
        })
    }

    /// The rate a link direction is taken to have where one number is needed (disciplines'
    /// rate-dependent settings, fair shares, the ideal FCT): a schedule's first rate, a trace's
    /// mean.
    pub fn nominal_rate_bps(&self) -> u64 {
        match self {
            Capacity::Schedule { points, .. } => points[0].1.max(1),
            Capacity::Trace { opportunities_ns, period_ns, .. } => {
                (opportunities_ns.len() as u128 * TRACE_MTU as u128 * 8 * 1_000_000_000 / *period_ns as u128).max(1)
                    as u64
            }
        }
    }
}

/// A varying capacity with the state its transmissions need (a trace's place).
#[derive(Clone, Debug)]
pub struct Transmitter {
    capacity: Capacity,
    /// Trace: the next opportunity not yet used (counted over every period).
    next: u64,
    /// Trace: the time and bytes left of the opportunity the last packet ended at.
    leftover: (u64, u32),
}

impl Transmitter {
    pub fn new(capacity: Capacity) -> Self {
        Transmitter { capacity, next: 0, leftover: (0, 0) }
    }

    /// When a transmission of `size` bytes that starts at `now` ends.
    pub fn finish(&mut self, now: u64, size: u32) -> u64 {
        match &self.capacity {
            Capacity::Schedule { points, shape: Shape::Step } => step_finish(points, now, size as u128 * 8),
            Capacity::Schedule { points, shape: Shape::Linear } => linear_finish(points, now, size as f64 * 8.0),
            Capacity::Trace { opportunities_ns, period_ns, .. } => {
                let (n, period) = (opportunities_ns.len() as u64, *period_ns);
                let at = |k: u64| (k / n) * period + opportunities_ns[(k % n) as usize];
                let mut need = size;
                // What is left of the opportunity the previous packet ended at, if this one starts then.
                let (t, left) = self.leftover;
                if t == now && left > 0 {
                    let used = left.min(need);
                    need -= used;
                    self.leftover = (t, left - used);
                    if need == 0 {
                        return now;
                    }
                }
                // Opportunities that passed while the link was idle are lost: skip to the first
                // at or after now (the last of a period is at the same time as the period's end).
                let block = now / period;
                let mut first = block * n + opportunities_ns.partition_point(|&o| o < now - block * period) as u64;
                while first > 0 && at(first - 1) >= now {
                    first -= 1;
                }
                self.next = self.next.max(first);
                loop {
                    let t = at(self.next);
                    self.next += 1;
                    let used = TRACE_MTU.min(need);
                    need -= used;
                    if need == 0 {
                        self.leftover = (t, TRACE_MTU - used);
                        return t;
                    }
                }
            }
        }
    }
}

/// A step schedule: the time at which `bits` are sent from `now` on.
fn step_finish(points: &[(u64, u64)], now: u64, bits: u128) -> u64 {
    let mut i = points.partition_point(|&(t, _)| t <= now) - 1;
    let (mut t, mut left) = (now, bits * 1_000_000_000); // bit-nanoseconds still to send
    loop {
        let rate = points[i].1 as u128;
        let end = points.get(i + 1).map(|p| p.0);
        if rate > 0 {
            let need_ns = left.div_ceil(rate);
            match end {
                Some(e) if (t as u128) + need_ns > e as u128 => left -= rate * (e - t) as u128,
                _ => return t + need_ns as u64,
            }
        }
        t = end.expect("the last rate is above 0");
        i += 1;
    }
}

/// A linear schedule: the time at which `bits` are sent from `now` on (the rate between two
/// points is their straight line; the integral over a segment is a quadratic, solved per segment).
fn linear_finish(points: &[(u64, u64)], now: u64, bits: f64) -> u64 {
    let rate_at = |i: usize, t: f64| -> f64 {
        match points.get(i + 1) {
            Some(&(t1, r1)) => {
                let (t0, r0) = (points[i].0 as f64, points[i].1 as f64);
                r0 + (r1 as f64 - r0) * (t - t0) / (t1 as f64 - t0)
            }
            None => points[i].1 as f64,
        }
    };
    let mut i = points.partition_point(|&(t, _)| t <= now) - 1;
    let (mut t, mut left) = (now as f64, bits); // bits still to send
    loop {
        let end = points.get(i + 1).map(|p| p.0 as f64);
        let (r0, r1) = (rate_at(i, t), end.map_or(rate_at(i, t), |e| rate_at(i, e)));
        let span = end.map_or(f64::INFINITY, |e| e - t) * 1e-9; // s
                                                                // Bits over [t, t + x]: r0 x + (r1 - r0) / span x^2 / 2, x in seconds.
        let slope = if span.is_finite() && span > 0.0 { (r1 - r0) / span } else { 0.0 };
        let whole = if span.is_finite() { (r0 + r1) / 2.0 * span } else { f64::INFINITY };
        if whole >= left {
            let x = if slope.abs() < 1e-12 {
                left / r0
            } else {
                // slope/2 x^2 + r0 x - left = 0, the root in [0, span].
                (-r0 + (r0 * r0 + 2.0 * slope * left).max(0.0).sqrt()) / slope
            };
            return (t + x * 1e9).ceil() as u64;
        }
        left -= whole;
        t = end.expect("an infinite span holds every bit");
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::tx_time_ns;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_step_schedule_sends_each_bit_at_the_rate_of_its_moment() {
        // 1 Mbps until 10 ms, then 4 Mbps: a 1500-byte packet (12,000 bits) from 4 ms sends 6,000
        // bits by 10 ms and the other 6,000 in 1.5 ms.
        let mut tx =
            Transmitter::new(Capacity::schedule(vec![(0, 1_000_000), (10 * MS, 4_000_000)], Shape::Step).unwrap());
        assert_eq!(tx.finish(4 * MS, 1500), 11_500_000);
        assert_eq!(tx.finish(0, 1000), tx_time_ns(1000, 1_000_000), "within one segment: the constant rate's");
        // An outage from 10 to 20 ms: the packet waits it out.
        let mut out = Transmitter::new(
            Capacity::schedule(vec![(0, 1_000_000), (10 * MS, 0), (20 * MS, 1_000_000)], Shape::Step).unwrap(),
        );
        assert_eq!(out.finish(4 * MS, 1500), 26 * MS);
    }

    #[test]
    fn a_linear_schedule_integrates_its_ramp() {
        // From 0 to 2 Mbps over 1 s: the bits sent by t are t^2 (Mbit, t in s); 12,000 bits take
        // sqrt(0.012) s = 109.545 ms.
        let mut tx =
            Transmitter::new(Capacity::schedule(vec![(0, 0), (1_000 * MS, 2_000_000)], Shape::Linear).unwrap());
        assert_eq!(tx.finish(0, 1500), (0.012f64.sqrt() * 1e9).ceil() as u64);
        // Past the ramp the last rate holds.
        assert_eq!(tx.finish(2_000 * MS, 1500), 2_000 * MS + tx_time_ns(1500, 2_000_000));
    }

    #[test]
    fn a_trace_delivers_an_mtu_per_opportunity_and_repeats() {
        // Opportunities at 1, 1, 3 ms, period 3 ms.
        let c = Capacity::trace("1\n1\n3\n", "t").unwrap();
        assert_eq!(c.nominal_rate_bps(), 3 * 1500 * 8 * 1000 / 3);
        let mut tx = Transmitter::new(c);
        assert_eq!(tx.finish(0, 1500), MS, "the first opportunity");
        assert_eq!(tx.finish(MS, 1000), MS, "the second, at the same instant");
        assert_eq!(tx.finish(MS, 800), 3 * MS, "500 left of the second, then 300 of the third");
        assert_eq!(tx.finish(3 * MS, 1200), 3 * MS, "the rest of the third");
        assert_eq!(tx.finish(3 * MS, 3000), 4 * MS, "the next period's first two");
        // Idle until 10 ms: the opportunities at 6, 7, 7, 9 ms are lost; 10 and 10 come next.
        assert_eq!(tx.finish(10 * MS, 3000), 10 * MS);
        assert_eq!(tx.finish(10 * MS, 1), 12 * MS);
    }

    #[test]
    fn bad_schedules_and_traces_are_refused() {
        assert!(Capacity::schedule(vec![], Shape::Step).unwrap_err().contains("no points"));
        assert!(Capacity::schedule(vec![(5, 1)], Shape::Step).unwrap_err().contains("must start at 0s"));
        assert!(Capacity::schedule(vec![(0, 1), (0, 2)], Shape::Step).unwrap_err().contains("times must rise"));
        assert!(Capacity::schedule(vec![(0, 1), (5, 0)], Shape::Step).unwrap_err().contains("ends at a rate of 0"));
        assert!(Capacity::trace("", "t").unwrap_err().contains("no delivery opportunities"));
        assert!(Capacity::trace("5\n3\n", "t").unwrap_err().contains("line 2: times must not fall"));
        assert!(Capacity::trace("1.5\n", "t").unwrap_err().contains("not a time in whole milliseconds"));
        assert!(Capacity::trace("0\n0\n", "t").unwrap_err().contains("last time is 0 ms"));
    }
}
