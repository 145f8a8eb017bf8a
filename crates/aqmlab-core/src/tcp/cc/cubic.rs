//! CUBIC: a window that grows as a cubic function of the time since the last reduction.
//!
//! L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-Distance Networks",
//! RFC 9438 (2023), after Ha, Rhee & Xu, ACM SIGOPS OSR 42(5), 2008. Windows in packets, time
//! in seconds. In congestion avoidance, with t the time since the current epoch began (the
//! first ACK in congestion avoidance after a reduction):
//! - W_cubic(t) = C (t - K)^3 + W_max, K = cbrt((W_max - cwnd_epoch) / C), cwnd_epoch the
//!   window when the epoch began (4.2); after a reduction cwnd_epoch = beta W_max, so
//!   K = cbrt(W_max (1 - beta) / C);
//! - each ACK moves cwnd by (target - cwnd) / cwnd per packet acknowledged, target =
//!   W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd], RTT the smoothed round trip (4.4, 4.5);
//! - the Reno-friendly estimate W_est starts at cwnd_epoch and grows by alpha_cubic per
//!   window of ACKs, alpha_cubic = 3 (1 - beta) / (1 + beta) until W_est reaches cwnd_prior,
//!   then 1; while W_cubic(t) < W_est, cwnd = W_est (4.3);
//! - on a congestion event (the third duplicate ACK, or an ECN echo): cwnd_prior = cwnd,
//!   W_max = cwnd, or cwnd (1 + beta) / 2 with fast convergence when cwnd < the previous W_max
//!   (4.7); ssthresh = max(beta cwnd, 2); the new epoch starts after recovery (4.6);
//! - on a timeout: ssthresh as above, cwnd = 1 and slow start; the first epoch after it has
//!   K = 0 and W_max = the window when it begins (4.8), as has the first epoch of a flow. A
//!   timeout during fast recovery keeps the recovery's ssthresh: one reduction per window of
//!   data (RFC 5681's FlightSize would count what the inflated window sent; Linux does the
//!   same in tcp_enter_loss). With `reduce_again_on_timeout = true` it reduces again, from the
//!   recovery's window: ssthresh = max(beta ssthresh, 2), as ns-3 3.44's
//!   `TcpSocketBase::ReTxTimeout` does at the first timeout of a recovery (its CUBIC takes beta
//!   times its uninflated window, which PRR has brought to about ssthresh by then).
//!
//! C = 0.4, beta = 0.7. Slow start and loss recovery are NewReno's (RFC 6582: RFC 9438 keeps
//! the standard fast retransmit and recovery), with the window on entering recovery set to
//! ssthresh + 3 and inflated as NewReno does. With `hystart = true`, slow start is HyStart++
//! (RFC 9406, [`super::hystart`]).
//!
//! Deviations: ssthresh is beta times cwnd (as in Linux), not times the flight size: after a
//! timeout's go-back the flight counts segments sent before it and would overshoot (a variant
//! with the flight size had 24 timeouts where this one has none, tests/core/cubic.rs's
//! Reno-friendly case); outside recovery the window is never inflated, and a timeout during
//! recovery keeps the recovery's ssthresh (above). ssthresh is not rounded to whole packets; a window reduced by an ECN echo goes straight to
//! ssthresh; no special handling of spurious retransmissions (4.9) or of application-limited
//! periods.

use serde::Serialize;

use super::hystart::HyStart;
use super::newreno::NewRenoRecovery;
use super::slowstart::{self, LossBased};
use super::{AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::RtoParams;
use crate::tcp::EcnUse;
use crate::units::SimTime;

pub const INFO: CcInfo = CcInfo {
    name: "cubic",
    aliases: &[],
    summary: "CUBIC (RFC 9438): window C (t - K)^3 + W_max since the last reduction, beta 0.7, Reno-friendly region.",
    read: |f| Params::read(f).map(CcParams::Cubic),
    ecn: EcnUse::Optional,
    paces: false,
    sack: true,
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub initial_cwnd: f64,
    pub initial_ssthresh: Option<f64>,
    pub dupack_threshold: u32,
    pub rto: RtoParams,
    /// C: the cubic's scale, packets / s^3.
    pub c: f64,
    /// beta_cubic: the window after a reduction, as a fraction of the window before.
    pub beta: f64,
    pub fast_convergence: bool,
    /// Slow start by HyStart++ (RFC 9406).
    pub hystart: bool,
    /// A timeout during recovery reduces ssthresh again (beta times the recovery's), instead
    /// of keeping the recovery's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reduce_again_on_timeout: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let base = slowstart::Params::read_today(f, true)?;
        let c: f64 = f.or("c", 0.4, "C, the scale of the cubic, packets per second cubed (RFC 9438: 0.4)")?;
        f.ensure(c > 0.0 && c.is_finite(), "c", "must be above 0")?;
        let beta: f64 = f.or("beta", 0.7, "multiplicative decrease factor beta_cubic (RFC 9438: 0.7)")?;
        f.ensure(beta > 0.0 && beta < 1.0, "beta", "must be in (0, 1)")?;
        let fast_convergence: bool = f.or(
            "fast_convergence",
            true,
            "release bandwidth faster: W_max = cwnd (1 + beta) / 2 when a loss comes below the previous W_max",
        )?;
        let hystart: bool = f.or("hystart", false, "HyStart++ (RFC 9406): leave slow start when round trips grow")?;
        let reduce_again_on_timeout: bool = f.or(
            "reduce_again_on_timeout",
            false,
            "a timeout during loss recovery reduces again, ssthresh = beta times the recovery's ssthresh (as ns-3 \
             3.44, after RFC 5681's rule for a first timeout); off, the recovery's ssthresh is kept, one reduction \
             per window of data (as Linux's tcp_enter_loss)",
        )?;
        Ok(Params {
            initial_cwnd: base.initial_cwnd,
            initial_ssthresh: base.initial_ssthresh,
            dupack_threshold: base.dupack_threshold,
            rto: base.rto,
            c,
            beta,
            fast_convergence,
            hystart,
            reduce_again_on_timeout,
        })
    }

    fn base(&self) -> slowstart::Params {
        slowstart::Params::rfc5681(self.initial_cwnd, self.initial_ssthresh, self.dupack_threshold, self.rto)
    }
}

/// W_cubic(t) = C (t - K)^3 + W_max (RFC 9438 eq. 1).
#[inline]
pub fn w_cubic(c: f64, k: f64, w_max: f64, t: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// K = cbrt((W_max - cwnd_epoch) / C) (RFC 9438 eq. 2), 0 when the epoch starts at or above W_max.
#[inline]
pub fn k_of(c: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
    ((w_max - cwnd_epoch).max(0.0) / c).cbrt()
}

/// alpha_cubic = 3 (1 - beta) / (1 + beta): the AIMD increase with the same average window as
/// Reno at every loss rate (RFC 9438 4.3).
#[inline]
pub fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    /// Slow start, recovery and timeouts (NewReno's); CUBIC replaces congestion avoidance
    /// and the reductions.
    lb: LossBased<NewRenoRecovery>,
    threshold: u32,
    w_max: f64,
    k: f64,
    /// When the current epoch began (ns); none until the first ACK in congestion avoidance.
    epoch_start: Option<SimTime>,
    w_est: f64,
    cwnd_prior: f64,
    hystart: Option<HyStart>,
    reduce_again_on_timeout: bool,
}

impl Cubic {
    pub fn new(p: &Params, max_window: u32) -> Self {
        Cubic {
            c: p.c,
            beta: p.beta,
            fast_convergence: p.fast_convergence,
            lb: LossBased::new(&p.base(), max_window),
            threshold: p.dupack_threshold,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            cwnd_prior: 0.0,
            hystart: p.hystart.then(HyStart::new),
            reduce_again_on_timeout: p.reduce_again_on_timeout,
        }
    }

    /// W_max, packets.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current epoch, s (none before it begins).
    pub fn k(&self) -> Option<f64> {
        self.epoch_start.map(|_| self.k)
    }

    /// A congestion event with the window at `cwnd` (RFC 9438 4.6, 4.7): returns the new ssthresh.
    fn reduce(&mut self, cwnd: f64) -> f64 {
        self.epoch_start = None;
        self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        (cwnd * self.beta).max(2.0)
    }

    /// Congestion avoidance on one ACK of `a.acked` packets (RFC 9438 4.2-4.5).
    fn avoid(&mut self, a: &AckInfo) {
        let w = &mut self.lb.w;
        let start = *self.epoch_start.get_or_insert_with(|| {
            if w.cwnd < self.w_max {
                self.k = k_of(self.c, self.w_max, w.cwnd);
            } else {
                self.k = 0.0;
                self.w_max = w.cwnd;
            }
            self.w_est = w.cwnd;
            a.now
        });
        let t = (a.now - start).ns() as f64 * 1e-9;
        let rtt = a.srtt.map_or(0, |s| s.ns()) as f64 * 1e-9;
        let acked = a.acked.max(1) as f64;
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { alpha_cubic(self.beta) };
        self.w_est += alpha * acked / w.cwnd;
        if w_cubic(self.c, self.k, self.w_max, t) < self.w_est {
            w.cwnd = self.w_est;
        } else {
            let target = w_cubic(self.c, self.k, self.w_max, t + rtt).clamp(w.cwnd, 1.5 * w.cwnd);
            w.cwnd += (target - w.cwnd) / w.cwnd * acked;
        }
        w.cwnd = w.cwnd.min(w.max);
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> f64 {
        self.lb.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.lb.w.ssthresh
    }
    fn in_recovery(&self) -> bool {
        self.lb.in_recovery()
    }

    fn on_ack(&mut self, a: &AckInfo) -> Reaction {
        if let Some(h) = &mut self.hystart {
            h.on_ack(a);
        }
        if self.lb.in_recovery() || self.lb.w.cwnd < self.lb.w.ssthresh {
            let before = self.lb.w.cwnd;
            let slow_start = !self.lb.in_recovery();
            let r = self.lb.on_ack(a);
            if slow_start {
                if let Some(h) = &mut self.hystart {
                    // HyStart++ decides the growth and when slow start ends.
                    let w = &mut self.lb.w;
                    w.cwnd = (before + h.growth(a.acked.max(1) as f64)).min(w.max);
                    if h.slow_start_over() {
                        w.ssthresh = w.cwnd;
                    }
                }
            }
            return r;
        }
        self.avoid(a);
        Reaction::NONE
    }

    fn on_dup_ack(&mut self, a: &AckInfo) -> Reaction {
        let (cwnd, was) = (self.lb.w.cwnd, self.lb.in_recovery());
        let r = self.lb.on_dup_ack(a);
        if !was && self.lb.in_recovery() {
            let ssthresh = self.reduce(cwnd);
            self.lb.w.ssthresh = ssthresh;
            self.lb.w.cwnd = ssthresh + self.threshold as f64;
            if let Some(h) = &mut self.hystart {
                h.exit();
            }
        }
        r
    }

    fn on_ece(&mut self, _a: &AckInfo) {
        let ssthresh = self.reduce(self.lb.w.cwnd);
        self.lb.w.ssthresh = ssthresh;
        self.lb.w.cwnd = ssthresh.min(self.lb.w.max);
        if let Some(h) = &mut self.hystart {
            h.exit();
        }
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        let (cwnd, reduced) = (self.lb.w.cwnd, self.lb.in_recovery() || t.in_sack_recovery);
        let ssthresh = self.lb.w.ssthresh;
        self.lb.on_timeout(t);
        if reduced && !self.reduce_again_on_timeout {
            // Within the window of the recovery's reduction: no second one (the flight then
            // counts what the inflated window sent, not the path's capacity).
            self.lb.w.ssthresh = ssthresh;
        } else {
            // In recovery the window to reduce from is the recovery's, not NewReno's inflated one.
            let window = if reduced { ssthresh } else { cwnd };
            self.lb.w.ssthresh = (window * self.beta).max(2.0);
            self.cwnd_prior = window;
        }
        // The first epoch after a timeout starts with K = 0 and W_max = its first window (4.8).
        self.w_max = 0.0;
        self.epoch_start = None;
        if let Some(h) = &mut self.hystart {
            h.exit();
        }
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cubic_w_max_pkts", if self.w_max > 0.0 { self.w_max } else { f64::NAN }));
        out.push(("cubic_k_s", self.k().unwrap_or(f64::NAN)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimDuration;

    #[test]
    fn k_is_the_time_back_to_w_max() {
        // RFC 9438 eq. 2 with cwnd_epoch = beta W_max: K = cbrt(W_max (1 - beta) / C).
        let (c, beta, w_max) = (0.4, 0.7, 100.0);
        let k = k_of(c, w_max, beta * w_max);
        assert!((k - (75.0f64).cbrt()).abs() < 1e-12);
        assert!((w_cubic(c, k, w_max, 0.0) - 70.0).abs() < 1e-9, "starts at beta W_max");
        assert_eq!(w_cubic(c, k, w_max, k), w_max);
        assert!((alpha_cubic(0.7) - 0.9 / 1.7).abs() < 1e-15);
    }

    fn cubic(keys: &str) -> Cubic {
        let p = crate::tcp::harness::common(&format!("cc = \"cubic\"\n{keys}")).cc;
        match p {
            CcParams::Cubic(p) => Cubic::new(&p, 10_000),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_loss_sets_w_max_and_fast_convergence_lowers_it_when_below_the_last() {
        let mut c = cubic("initial_cwnd = 100\ninitial_ssthresh = 50");
        let dup = |n| AckInfo { dupacks: n, flight: 100, snd_max: 100_000, ack: 1000, mss: 1000, ..Default::default() };
        for n in 1..=3 {
            c.on_dup_ack(&dup(n));
        }
        assert_eq!((c.w_max(), c.ssthresh(), c.cwnd()), (100.0, 70.0, 73.0));
        // Recovery ends at ssthresh; a second loss at 80 < W_max = 100 lowers W_max to 80 x 0.85.
        c.on_ack(&AckInfo { ack: 100_000, acked: 99, flight: 100, mss: 1000, ..Default::default() });
        c.on_ack(&AckInfo { ack: 150_000, acked: 1, flight: 100, mss: 1000, ..Default::default() });
        c.lb.w.cwnd = 80.0;
        for n in 1..=3 {
            c.on_dup_ack(&AckInfo { ack: 150_000, snd_max: 300_000, ..dup(n) });
        }
        assert!((c.w_max() - 68.0).abs() < 1e-9, "{}", c.w_max());
        assert!((c.ssthresh() - 56.0).abs() < 1e-9);
        let mut slow = cubic("initial_cwnd = 100\ninitial_ssthresh = 50\nfast_convergence = false");
        slow.w_max = 120.0;
        for n in 1..=3 {
            slow.on_dup_ack(&dup(n));
        }
        assert_eq!(slow.w_max(), 100.0);
    }

    #[test]
    fn a_timeout_in_recovery_keeps_its_ssthresh_unless_told_to_reduce_again() {
        // A window of 100 loses a segment: recovery sets ssthresh = 70. The timer then expires
        // with 100 segments outstanding, in SACK recovery and in NewReno's (window inflated to
        // 73 by the duplicate ACKs).
        let timeout = |sack: bool| TimeoutInfo { flight: 100, snd_max: 100_000, in_sack_recovery: sack, ..Default::default() };
        let dup = |n| AckInfo { dupacks: n, flight: 100, snd_max: 100_000, ack: 1000, mss: 1000, ..Default::default() };
        let after = |keys: &str, sack: bool| {
            let mut c = cubic(&format!("initial_cwnd = 100\ninitial_ssthresh = 50\n{keys}"));
            if sack {
                c.on_loss(&dup(3));
            } else {
                for n in 1..=3 {
                    c.on_dup_ack(&dup(n));
                }
            }
            assert!((c.ssthresh() - 70.0).abs() < 1e-9);
            c.on_timeout(&timeout(sack));
            assert_eq!(c.cwnd(), 1.0, "slow start again from one segment");
            c.ssthresh()
        };
        for sack in [true, false] {
            // Linux's tcp_enter_loss: one reduction per window of data.
            let kept = after("", sack);
            assert!((kept - 70.0).abs() < 1e-9);
            // ns-3 3.44: beta times the recovery's window, 0.7 x 70 (not 0.7 x the inflated 73).
            let again = after("reduce_again_on_timeout = true", sack);
            assert!((again - 49.0).abs() < 1e-9);
            // Either way within RFC 5681's bound for a first timeout, ssthresh <= max(FlightSize
            // / 2, 2), with RFC 9438's beta in place of 1/2: 0.7 x 100 segments outstanding.
            assert!(kept.max(again) <= 0.7 * 100.0 + 1e-9);
        }
        // Outside recovery the option changes nothing: beta times the window.
        for keys in ["", "reduce_again_on_timeout = true"] {
            let mut c = cubic(&format!("initial_cwnd = 100\ninitial_ssthresh = 50\n{keys}"));
            c.on_timeout(&timeout(false));
            assert!((c.ssthresh() - 70.0).abs() < 1e-9);
        }
    }

    #[test]
    fn reno_friendly_region_follows_w_est_where_the_cubic_is_slower() {
        // A small W_max on a long round trip: the cubic barely moves in a few seconds while
        // W_est grows by alpha_cubic per window of ACKs.
        let mut c = cubic("initial_cwnd = 10\ninitial_ssthresh = 5");
        c.w_max = 10.0;
        c.cwnd_prior = 10.0;
        c.lb.w.cwnd = 7.0;
        c.lb.w.ssthresh = 7.0;
        let mut now = SimTime::ZERO;
        for _ in 0..20 {
            let n = c.cwnd().floor() as u32;
            for _ in 0..n {
                now += SimDuration(1_000_000);
                c.on_ack(&AckInfo { now, acked: 1, srtt: Some(SimDuration(10_000_000)), mss: 1, ..Default::default() });
            }
        }
        // RFC 9438 4.3 written out: per ACK, W_est += alpha / cwnd (alpha_cubic until W_est
        // reaches cwnd_prior, then 1), and cwnd = W_est while the cubic is below it.
        let (mut w_est, mut cwnd, alpha) = (7.0f64, 7.0f64, alpha_cubic(0.7));
        for _ in 0..20 {
            for _ in 0..(cwnd.floor() as u32) {
                w_est += if w_est >= 10.0 { 1.0 } else { alpha } / cwnd;
                cwnd = w_est;
            }
        }
        let k = c.k().unwrap();
        assert!((k - 7.5f64.cbrt()).abs() < 1e-12);
        assert!(w_cubic(0.4, k, 10.0, now.ns() as f64 * 1e-9) < c.cwnd(), "in the Reno-friendly region");
        assert!((c.cwnd() - cwnd).abs() < 1e-9, "{} vs {cwnd}", c.cwnd());
        assert!(cwnd > 20.0, "W_est grew past cwnd_prior at one packet per window: {cwnd}");
    }
}

#[cfg(test)]
mod bench_tests {
    use super::{k_of, w_cubic};
    use crate::packet::flags;
    use crate::tcp::cc::AnyCc;
    use crate::tcp::harness::{common, Bench, MS};

    const GBPS: u64 = 1_000_000_000;
    const SEG: u64 = 1000;
    const RTT_S: f64 = 0.1;

    #[test]
    fn after_one_loss_the_window_follows_the_cubic_from_beta_w_max_back_to_w_max() {
        // 100 ms round trip, no other loss; one packet lost in slow start, near a window of 600.
        // W_max is then large enough (K about 8 s) that the Reno-friendly estimate, growing by
        // alpha_cubic = 0.53 packets per round trip, stays far below the cubic up to 2K.
        // The window of the 1990s stacks (one packet): the loss falls at a window of 600 in slow start.
        let mut b = Bench::new(&common("cc = \"cubic\"\ninitial_cwnd = 1"), None, GBPS, 50 * MS);
        let lost = 600 * SEG;
        b.drop = Box::new(move |p, _| p.seq == lost && !p.has(flags::RETX));
        b.run_until(20_000 * MS);
        assert!(b.timeouts.is_empty());
        let retx = b.sent.iter().find(|s| s.seq == lost && s.retx).unwrap().t;
        let w_max = b.trace.iter().take_while(|p| p.0 < retx).last().unwrap().1;
        // The epoch starts when recovery ends: the first point after the retransmission at
        // which the window is back at ssthresh (deflated) and growing.
        let (c, beta) = (0.4, 0.7);
        let ssthresh = b.trace.iter().find(|p| p.0 >= retx).unwrap().2;
        assert!((ssthresh - beta * w_max).abs() < 1e-9, "ssthresh {ssthresh} = beta x W_max {w_max}");
        let epoch = *b.trace.iter().find(|p| p.0 > retx && p.1 <= ssthresh + 1e-9).unwrap();
        let k = k_of(c, w_max, epoch.1);
        eprintln!("W_max {w_max:.2}, cwnd_epoch {:.2}, K {k:.3} s (cbrt(W_max (1 - beta) / C) = {:.3})", epoch.1, (w_max * (1.0 - beta) / c).cbrt());
        assert!((k - (w_max * (1.0 - beta) / c).cbrt()).abs() < 0.05, "the epoch starts at beta W_max");
        if let AnyCc::Cubic(cc) = b.sender.cc() {
            assert_eq!(cc.w_max(), w_max);
        }
        // Along the curve from the epoch to 2K: the window at each instant is W_cubic(t) within
        // what the curve moves in one round trip (each ACK aims at W_cubic(t + RTT)) plus one
        // packet of ACK-clock granularity.
        let mut checked = 0;
        for p in b.trace.iter().filter(|p| p.0 > epoch.0) {
            let t = (p.0 - epoch.0) as f64 * 1e-9;
            if t > 2.0 * k {
                break;
            }
            let want = w_cubic(c, k, w_max, t);
            let slope = 3.0 * c * (t - k).powi(2);
            let tolerance = slope * RTT_S + 1.0;
            assert!((p.1 - want).abs() <= tolerance, "t = {t:.3} s: cwnd {:.3}, W_cubic {want:.3} (+- {tolerance:.2})", p.1);
            checked += 1;
        }
        assert!(checked > 10_000, "{checked} points on the curve");
        // The plateau: near t = K the window is W_max within a packet.
        let at_k = b.cwnd_at(epoch.0 + (k * 1e9) as u64);
        assert!((at_k - w_max).abs() <= 1.0, "{at_k} at K vs W_max {w_max}");
    }

    #[test]
    fn hystart_ends_slow_start_on_a_growing_queue_before_any_loss() {
        // 10 Mbps, 100 ms: one BDP is 125 packets; the queue (unbounded) never drops. Plain
        // slow start goes on doubling; HyStart++ sees the round trips grow by RttThresh
        // (12.5 ms, 16 packets of queue), spends 5 rounds in CSS (x1.25 each, the rounds
        // lengthening as the queue grows) and sets ssthresh.
        let run = |hystart: bool| {
            let mut b = Bench::new(&common(&format!("cc = \"cubic\"\nhystart = {hystart}")), None, 10_000_000, 50 * MS);
            b.run_until(8000 * MS);
            b
        };
        let (with, without) = (run(true), run(false));
        assert!(without.trace.iter().all(|p| p.2.is_infinite()), "no loss, no threshold");
        let exit = with.trace.iter().find(|p| p.2.is_finite()).expect("HyStart++ set ssthresh");
        // CSS begins where an ACK first adds less than a whole packet (1/4 instead of 1).
        let css = with.trace.windows(2).find(|w| w[1].1 - w[0].1 < 0.99).unwrap()[0];
        let bdp = 125.0;
        eprintln!(
            "CSS from {:.2} s at window {:.1}; slow start over at {:.2} s, window {:.1}",
            css.0 as f64 * 1e-9,
            css.1,
            exit.0 as f64 * 1e-9,
            exit.1
        );
        assert!(css.1 > bdp, "round trips grow only once the window exceeds the BDP: {}", css.1);
        // CSS_ROUNDS = 5 rounds at x1.25 each, the first of them partial (CSS begins mid-round).
        let growth = exit.1 / css.1;
        assert!((1.25f64.powi(4)..=1.25f64.powi(5) * 1.01).contains(&growth), "{growth}");
        assert_eq!(exit.1, exit.2, "ssthresh = cwnd when slow start ends");
        assert!(with.sent.iter().all(|s| !s.retx) && with.timeouts.is_empty());
        assert!(without.cwnd_at(exit.0 + 500 * MS) > 2.0 * with.cwnd_at(exit.0 + 500 * MS));
    }
}
