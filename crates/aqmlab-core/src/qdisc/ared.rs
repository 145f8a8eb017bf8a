//! Adaptive RED: S. Floyd, R. Gummadi and S. Shenker, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management", ICSI technical report, 2001
//! (the algorithm of their Fig. 5 and the parameter rules of their section 4).
//!
//! RED (`red.rs`, reused whole: average, count-spaced early drops, gentle mode) whose max_p is
//! adapted, every `interval` (0.5 s), to keep the average queue in a target band:
//!
//! ```text
//! target = [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]
//! if avg > target and max_p <= 0.5:  max_p <- max_p + alpha,  alpha = min(0.01, max_p / 4)
//! elif avg < target and max_p >= 0.01: max_p <- max_p * beta,  beta = 0.9
//! ```
//!
//! and whose other parameters are set from the link (section 4): with C the link capacity in
//! packets per second, w_q = 1 - exp(-1/C) (the average's time constant is one second of
//! arrivals), min_th = max(5, target_delay C / 2) and max_th = 3 min_th (the average queue then
//! sits near target_delay C). A value given in the scenario overrides the automatic one.
//!
//! Deviations and choices the paper leaves open:
//! - The rule is applied as printed: an increase is allowed while max_p <= 0.5 and a decrease
//!   while max_p >= 0.01, so max_p may end one step outside [0.01, 0.5] (at most 0.51, at
//!   least 0.009), as in the paper's pseudo-code.
//! - The adaptation runs at the first arrival at or after each multiple of `interval` from the
//!   first arrival, once per elapsed interval, reading the average as the arrival finds it
//!   (before its own update): what a timer reading the average would see, since the average
//!   changes only at arrivals. Once max_p has stopped moving, the remaining intervals of a long
//!   idle period change nothing and are skipped.
//! - C uses the scenario's mean data packet size unless `mean_pktsize` is given (ns-2's
//!   name); thresholds are in packets, whatever the unit of `limit`.
//! - `gentle` is on by default (the paper recommends it with Adaptive RED); `wait` as in RED.
//!
//! Traced gauges: `avg` and `max_p`.

use serde::Serialize;

use super::red::{self, Red, RedParams};
use super::{DisciplineInfo, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Bytes, Duration, Fields, Limit, Prob, Result};
use crate::packet::PacketId;
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "ared",
    aliases: &["adaptive_red"],
    summary: "Adaptive RED (Floyd, Gummadi & Shenker 2001): RED whose max_p is adapted by AIMD every 0.5 s toward a target band of the average; w_q and thresholds set from the link.",
    read: |f| Params::read(f).map(QdiscParams::Ared),
};

/// The paper's bounds and steps.
pub const MAX_P_TOP: f64 = 0.5;
pub const MAX_P_BOTTOM: f64 = 0.01;
pub const ALPHA_CAP: f64 = 0.01;
pub const BETA: f64 = 0.9;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// None: automatic from the link.
    pub w_q: Option<f64>,
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    /// The initial max_p.
    pub max_p: f64,
    pub target_delay: Duration,
    pub interval: Duration,
    pub mean_pktsize: Option<Bytes>,
    pub wait: bool,
    pub gentle: bool,
    pub ecn: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(1000),
            "physical buffer: an admitted packet that does not fit is dropped (overflow)",
        )?;
        let w_q: Option<f64> = f.opt("w_q", "EWMA weight of the average queue; absent: 1 - exp(-1/C), C the link capacity in packets/s")?;
        if let Some(w) = w_q {
            f.ensure(w > 0.0 && w <= 1.0, "w_q", format!("{w} is not a weight (allowed: above 0, at most 1)"))?;
        }
        let min_th: Option<f64> =
            f.opt("min_th", "packets; absent: max(5, target_delay x C / 2), C the link capacity in packets/s")?;
        if let Some(m) = min_th {
            f.ensure(m >= 0.0, "min_th", "must not be negative")?;
        }
        let max_th: Option<f64> = f.opt("max_th", "packets; absent: 3 x min_th")?;
        if let (Some(lo), Some(hi)) = (min_th, max_th) {
            f.ensure(hi > lo, "max_th", format!("must be above min_th ({lo})"))?;
        }
        if let (None, Some(hi)) = (min_th, max_th) {
            f.ensure(hi > 0.0, "max_th", "must be above 0")?;
        }
        if let (Some(lo), None) = (min_th, max_th) {
            f.ensure(lo > 0.0, "min_th", "0 needs max_th too (the automatic max_th is 3 x min_th)")?;
        }
        let max_p: Prob = f.or("max_p", Prob(0.1), "initial max_p (then adapted within about [0.01, 0.5])")?;
        let target_delay: Duration = f.or(
            "target_delay",
            Duration(5_000_000),
            "queueing delay the automatic thresholds aim at: min_th = max(5, target_delay x C / 2)",
        )?;
        let interval: Duration = f.or("interval", Duration(NS_PER_S / 2), "time between adaptations of max_p")?;
        f.ensure(interval.0 > 0, "interval", "must be above 0")?;
        let mean_pktsize: Option<Bytes> = f.opt(
            "mean_pktsize",
            "packet size for C = rate / (8 x size); absent: the scenario's mean data packet size",
        )?;
        if let Some(b) = mean_pktsize {
            f.ensure(b.0 >= 1, "mean_pktsize", "must be at least 1 byte")?;
        }
        let wait: bool =
            f.or("wait", true, "ns-2 wait_: no drop until count >= 1/p_b (as in red)")?;
        let gentle: bool =
            f.or("gentle", true, "gentle RED: p_b from max_p to 1 between max_th and 2 max_th (the paper's advice)")?;
        let ecn = f.or(
            "ecn",
            false,
            "mark ECN-capable packets (set CE) instead of early-dropping them; forced drops still drop",
        )?;
        Ok(Params { limit, w_q, min_th, max_th, max_p: max_p.0, target_delay, interval, mean_pktsize, wait, gentle, ecn })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules

/// The automatic parameters for a link of `rate_bps` carrying packets of `packet_size` bytes:
/// (w_q, min_th, max_th) = (1 - exp(-1/C), max(5, target_delay C / 2), 3 min_th), C in
/// packets per second.
pub fn automatic(rate_bps: u64, packet_size: u32, target_delay_ns: u64) -> (f64, f64, f64) {
    let c = rate_bps as f64 / (8.0 * packet_size.max(1) as f64);
    let w_q = if c > 0.0 { -(-1.0 / c).exp_m1() } else { 1.0 };
    let min_th = f64::max(5.0, target_delay_ns as f64 / NS_PER_S as f64 * c / 2.0);
    (w_q.clamp(f64::MIN_POSITIVE, 1.0), min_th, 3.0 * min_th)
}

/// The target band of the average: [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)].
pub fn target_band(min_th: f64, max_th: f64) -> (f64, f64) {
    let span = max_th - min_th;
    (min_th + 0.4 * span, min_th + 0.6 * span)
}

/// One adaptation of max_p (the paper's Fig. 5), given the average and the target band.
pub fn adapt_max_p(max_p: f64, avg: f64, band: (f64, f64)) -> f64 {
    if avg > band.1 && max_p <= MAX_P_TOP {
        max_p + f64::min(ALPHA_CAP, max_p / 4.0)
    } else if avg < band.0 && max_p >= MAX_P_BOTTOM {
        max_p * BETA
    } else {
        max_p
    }
}

// ---------------------------------------------------------------------------------------------
// The discipline

pub struct Ared {
    red: Red,
    band: (f64, f64),
    interval: SimDuration,
    /// When max_p is next adapted (set at the first arrival).
    next_adapt: Option<SimTime>,
    adaptations: u64,
}

impl Ared {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        let size = p.mean_pktsize.map_or(link.mean_packet_size, |b| b.0.min(u32::MAX as u64) as u32);
        let (w_auto, min_auto, _) = automatic(link.rate_bps, size, p.target_delay.0);
        let min_th = p.min_th.unwrap_or(match p.max_th {
            // max_th given alone: keep min_th below it.
            Some(hi) => f64::min(min_auto, hi / 3.0),
            None => min_auto,
        });
        let max_th = p.max_th.unwrap_or(3.0 * min_th);
        let red_params = RedParams {
            w_q: p.w_q.unwrap_or(w_auto),
            min_th,
            max_th,
            max_p: p.max_p,
            wait: p.wait,
            gentle: p.gentle,
        };
        Ared {
            red: Red::new(&red::Params { limit: p.limit, red: red_params, ecn: p.ecn, harddrop: true }, link),
            band: target_band(min_th, max_th),
            interval: p.interval.sim(),
            next_adapt: None,
            adaptations: 0,
        }
    }

    /// The RED parameters in use (automatic ones resolved), with the current max_p.
    pub fn red_params(&self) -> RedParams {
        *self.red.core().params()
    }

    pub fn max_p(&self) -> f64 {
        self.red.core().max_p()
    }

    pub fn avg(&self) -> f64 {
        self.red.avg()
    }

    /// Adaptation intervals elapsed so far (those that changed nothing included).
    pub fn adaptations(&self) -> u64 {
        self.adaptations
    }

    /// Apply the adaptations due by `now`.
    fn adapt(&mut self, now: SimTime) {
        let next = *self.next_adapt.get_or_insert(now.saturating_add(self.interval));
        if now < next {
            return;
        }
        let due = (now - next).periods_of(self.interval) + 1;
        self.adaptations += due;
        let avg = self.red.avg();
        let mut max_p = self.red.core().max_p();
        for _ in 0..due {
            let new = adapt_max_p(max_p, avg, self.band);
            if new == max_p {
                // The average does not change between arrivals: nothing more will move.
                break;
            }
            max_p = new;
        }
        self.red.core_mut().set_max_p(max_p);
        self.next_adapt = Some(next.saturating_add(self.interval.saturating_mul(due)));
    }

    #[cfg(test)]
    fn pin_avg(&mut self, avg: f64) {
        self.red.core_mut().pin_avg(avg);
    }
}

impl QueueDisc for Ared {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.adapt(cx.now);
        self.red.enqueue(pkt, cx)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.red.dequeue(cx)
    }

    fn len(&self) -> usize {
        self.red.len()
    }

    fn bytes(&self) -> u64 {
        self.red.bytes()
    }

    fn limit(&self) -> Limit {
        self.red.limit()
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("avg", self.red.avg()));
        out.push(("max_p", self.max_p()));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::super::harness::{hammer, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    fn link(rate_bps: u64, size: u32) -> LinkInfo {
        LinkInfo { rate_bps, n_flows: 4, mean_packet_size: size }
    }

    #[test]
    fn automatic_parameters_follow_the_papers_formulas() {
        // 10 Mbps, 1500-byte packets: C = 10e6 / 12000 = 833.33 packets/s.
        // w_q = 1 - exp(-1/833.33) = 1 - exp(-0.0012) = 0.0012 - 0.0012^2/2 + 0.0012^3/6 = 0.00119928.
        // target_delay C / 2 = 0.005 x 833.33 / 2 = 2.08 < 5: min_th = 5, max_th = 15.
        let (w_q, min_th, max_th) = automatic(10_000_000, 1500, 5_000_000);
        assert!((w_q - 0.001_199_280_3).abs() < 1e-10, "{w_q}");
        assert_eq!((min_th, max_th), (5.0, 15.0));
        // 100 Mbps, 1000-byte packets: C = 12500; min_th = 0.005 x 12500 / 2 = 31.25, max_th = 93.75.
        let (w_q, min_th, max_th) = automatic(100_000_000, 1000, 5_000_000);
        assert!((w_q - 7.99968e-5).abs() < 1e-9, "{w_q}");
        assert!((min_th - 31.25).abs() < 1e-9 && (max_th - 93.75).abs() < 1e-9);
        // Through the discipline: the defaults resolve to these, the target band is [9, 11].
        let q = Ared::new(&read("").unwrap(), &link(10_000_000, 1500));
        let r = q.red_params();
        assert!((r.w_q - 0.001_199_280_3).abs() < 1e-10);
        assert_eq!((r.min_th, r.max_th, r.max_p, r.gentle), (5.0, 15.0, 0.1, true));
        assert_eq!(q.band, (9.0, 11.0));
        // Given values override; mean_pktsize overrides the scenario's size.
        let q = Ared::new(&read("min_th = 20\nw_q = 0.01\nmean_pktsize = \"1000B\"").unwrap(), &link(100_000_000, 1500));
        let r = q.red_params();
        assert_eq!((r.w_q, r.min_th, r.max_th), (0.01, 20.0, 60.0));
        let q = Ared::new(&read("mean_pktsize = \"1000B\"").unwrap(), &link(100_000_000, 1500));
        assert!((q.red_params().min_th - 31.25).abs() < 1e-9);
    }

    #[test]
    fn refuses_bad_parameters() {
        assert!(read("min_th = 10\nmax_th = 10").unwrap_err().message.contains("above min_th"));
        assert!(read("w_q = 0").unwrap_err().message.contains("not a weight"));
        assert!(read("interval = 0").unwrap_err().message.contains("above 0"));
        assert!(read("min_th = 0").unwrap_err().message.contains("needs max_th"));
        assert!(read("max_p = 2").is_err());
    }

    #[test]
    fn the_rule_is_the_papers() {
        let band = (9.0, 11.0);
        // Above the band: + min(0.01, max_p / 4).
        assert!((adapt_max_p(0.1, 12.0, band) - 0.11).abs() < 1e-15);
        assert!((adapt_max_p(0.02, 12.0, band) - 0.025).abs() < 1e-15);
        // Below: x 0.9. In the band: unchanged.
        assert!((adapt_max_p(0.1, 8.0, band) - 0.09).abs() < 1e-15);
        assert_eq!(adapt_max_p(0.1, 10.0, band), 0.1);
        assert_eq!(adapt_max_p(0.1, 9.0, band), 0.1);
        assert_eq!(adapt_max_p(0.1, 11.0, band), 0.1);
        // The bounds, as printed: a step may cross them once.
        assert!((adapt_max_p(0.495, 12.0, band) - 0.505).abs() < 1e-15);
        assert_eq!(adapt_max_p(0.505, 12.0, band), 0.505);
        assert!((adapt_max_p(0.0105, 3.0, band) - 0.00945).abs() < 1e-15);
        assert_eq!(adapt_max_p(0.00945, 3.0, band), 0.00945);
    }

    #[test]
    fn max_p_follows_a_scripted_average_every_half_second() {
        // Thresholds 5 / 15 (band [9, 11]), max_p from 0.1. The average is pinned before
        // each arrival; arrivals every 0.25 s, so every other one sees an adaptation due.
        // By hand from the rule:
        //   avg 12 for 4 adaptations: 0.11, 0.12, 0.13, 0.14 (alpha = 0.01 throughout);
        //   avg 10 for 2: unchanged 0.14;
        //   avg 8 for 3: 0.126, 0.1134, 0.10206;
        //   avg 20 for 1: 0.10206 + 0.01 = 0.11206.
        let p = Params { w_q: Some(1e-9), ..read("").unwrap() };
        let mut h = Harness::new(Ared::new(&p, &link(10_000_000, 1500)), 1);
        let script = [(12.0, 4), (10.0, 2), (8.0, 3), (20.0, 1)];
        let expected = [0.11, 0.12, 0.13, 0.14, 0.14, 0.14, 0.126, 0.1134, 0.10206, 0.11206];
        let mut seen = vec![];
        h.offer(0, 1500); // the first arrival starts the clock: first adaptation at 0.5 s
        h.serve();
        let mut t = 0u64;
        for (avg, n) in script {
            for _ in 0..n {
                for _ in 0..2 {
                    t += 250_000_000;
                    h.now = t;
                    h.q.pin_avg(avg);
                    h.offer(0, 1500);
                    h.serve();
                }
                seen.push(h.q.max_p());
            }
        }
        for (i, (s, e)) in seen.iter().zip(expected).enumerate() {
            assert!((s - e).abs() < 1e-12, "adaptation {}: max_p {s}, by hand {e}", i + 1);
        }
        assert_eq!(h.q.adaptations(), 10);
    }

    #[test]
    fn an_idle_gap_applies_every_interval_it_spans() {
        // max_p 0.02, average pinned at 12 (above the band), then 2 s without arrivals: four
        // adaptations at once, alpha = max_p / 4 each time: 0.025, 0.03125, 0.0390625,
        // 0.048828125.
        let p = Params { w_q: Some(1e-9), max_p: 0.02, ..read("").unwrap() };
        let mut h = Harness::new(Ared::new(&p, &link(10_000_000, 1500)), 1);
        h.offer(0, 1500);
        h.serve();
        // The adaptation reads the average before the arrival updates it.
        h.q.pin_avg(12.0);
        h.now = 2_000_000_000;
        h.offer(0, 1500);
        assert!((h.q.max_p() - 0.048828125).abs() < 1e-12, "{}", h.q.max_p());
        assert_eq!(h.q.adaptations(), 4);
        // A very long gap with the average below the band stops at the bottom bound.
        h.q.pin_avg(0.0);
        h.now = 3_600_000_000_000;
        h.offer(0, 1500);
        assert!(h.q.max_p() < 0.01 && h.q.max_p() >= 0.009, "{}", h.q.max_p());
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p = Params { limit, interval: Duration(20_000_000), ecn: seed == 2, ..read("").unwrap() };
            let mut h = Harness::new(Ared::new(&p, &link(1_000_000, 500)), seed);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
