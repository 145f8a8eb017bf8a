//! TCP Vegas: congestion avoidance from round-trip times.
//!
//! L. Brakmo, L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global Internet",
//! IEEE JSAC 13(8), 1995 (and SIGCOMM 1994, with S. O'Malley). Parameters alpha = 1, beta = 3,
//! gamma = 1 packets (the ns-2 defaults). Once per round trip (when the first segment sent in
//! the round is acknowledged) Vegas compares the rate it expects, `window / BaseRTT` (BaseRTT
//! the smallest round trip seen), with the rate it gets, `window / RTT` (RTT the mean of the
//! round's samples). `diff = (expected - actual) x BaseRTT` estimates the packets it holds in
//! the bottleneck queue:
//! - congestion avoidance: below alpha the window grows by one packet over the next round,
//!   above beta it shrinks by one, in between it holds;
//! - modified slow start: the window doubles only every other round, holding in between so the
//!   comparison is valid, and slow start ends (window cut by 1/8) once diff exceeds gamma;
//! - fine-grained retransmission: on a duplicate ACK, and on the first two new ACKs after a
//!   retransmission, the first unacknowledged segment is resent at once if it was sent more
//!   than a fine-grained timeout ago (Jacobson's srtt + 4 rttvar on the exact clock), without
//!   waiting for three duplicates or the coarse timer. The window is cut only if the segment
//!   was sent after the last cut: to 3/4 (1/2 for a segment already resent, 2 packets for a
//!   window of 3 or less). Otherwise losses are handled as Reno does (fast retransmit on the
//!   third duplicate, inflation, deflation on the next new ACK); a timeout restarts slow start
//!   at 2 packets.
//!
//! Deviations: details the paper leaves open follow ns-2's Vegas (after USC's NetBSD Vegas):
//! the 1/8 cut on leaving slow start, the window used for `expected` is the data outstanding,
//! the fine timeout grows by 1/8 (doubles for a resent segment) at each fine-grained
//! retransmission until the next sample, the window never goes below 2 packets, and growth
//! waits while the window is not being filled. Unlike ns-2 we compare diff unrounded and grow
//! in the first round of slow start.

use serde::Serialize;

use crate::tcp::EcnUse;
use super::{half_flight, AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::{MeanDev, RtoParams};
use crate::units::SimTime;

pub const INFO: CcInfo = CcInfo {
    name: "vegas",
    aliases: &[],
    summary: "Vegas (Brakmo & Peterson): keep alpha..beta packets queued, judged from round-trip times.",
    read: |f| Params::read(f).map(CcParams::Vegas),
    ecn: EcnUse::Unsupported,
    paces: false,
    sack: false,
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub initial_cwnd: f64,
    pub initial_ssthresh: Option<f64>,
    pub dupack_threshold: u32,
    pub rto: RtoParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let alpha: f64 = f.or("alpha", 1.0, "grow when fewer packets than this are queued (congestion avoidance)")?;
        let beta: f64 = f.or("beta", 3.0, "shrink when more packets than this are queued (congestion avoidance)")?;
        f.ensure(alpha >= 0.0 && beta >= alpha, "beta", "needs 0 <= alpha <= beta")?;
        let gamma: f64 = f.or("gamma", 1.0, "leave slow start when more packets than this are queued")?;
        f.ensure(gamma >= 0.0, "gamma", "must not be negative")?;
        let initial_cwnd: f64 = f.or("initial_cwnd", 1.0, "congestion window at the start, packets")?;
        f.ensure(initial_cwnd >= 1.0, "initial_cwnd", "must be at least 1 packet")?;
        let initial_ssthresh: Option<f64> =
            f.opt("initial_ssthresh", "slow-start threshold at the start, packets (default: none)")?;
        let dupack_threshold: u32 = f.or("dupack_threshold", 3u32, "duplicate ACKs that trigger fast retransmit")?;
        f.ensure(dupack_threshold >= 1, "dupack_threshold", "must be at least 1")?;
        let rto = RtoParams::read(f, RtoParams::JACOBSON)?;
        Ok(Params { alpha, beta, gamma, initial_cwnd, initial_ssthresh, dupack_threshold, rto })
    }
}

/// Smallest window Vegas cuts to.
const MIN_CWND: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct Vegas {
    p: Params,
    cwnd: f64,
    ssthresh: f64,
    max: f64,
    slow_start: bool,
    /// Smallest round trip seen, ns (infinite before the first).
    base_rtt: f64,
    /// The round ends when an ACK passes this byte (snd_nxt when the round began).
    round_end: u64,
    round_sum: f64,
    round_n: u32,
    /// In slow start: whether this round may grow.
    grow_round: bool,
    /// Window increment per ACK, decided at the start of the round.
    incr: f64,
    /// Fine-grained round-trip estimate (exact clock) and its backoff factor.
    fine: MeanDev,
    fine_scale: f64,
    /// When the window was last cut, ns.
    last_cut: Option<SimTime>,
    in_recovery: bool,
    new_cwnd: f64,
    /// New ACKs still to check for an expired segment after a retransmission.
    worried: u32,
    /// After a timeout, duplicate ACKs are ignored until an ACK passes this byte.
    guard: Option<u64>,
    /// Last diff computed (packets), for the trace.
    last_diff: f64,
}

impl Vegas {
    pub fn new(p: &Params, max_window: u32) -> Self {
        let max = max_window as f64;
        Vegas {
            p: p.clone(),
            cwnd: p.initial_cwnd.min(max),
            ssthresh: p.initial_ssthresh.unwrap_or(f64::INFINITY),
            max,
            slow_start: true,
            base_rtt: f64::INFINITY,
            round_end: 0,
            round_sum: 0.0,
            round_n: 0,
            grow_round: false,
            incr: 0.0,
            fine: MeanDev::default(),
            fine_scale: 1.0,
            last_cut: None,
            in_recovery: false,
            new_cwnd: 0.0,
            worried: 0,
            guard: None,
            last_diff: f64::NAN,
        }
    }

    /// The fine-grained timeout, ns (infinite before the first sample).
    pub fn fine_timeout(&self) -> f64 {
        if self.fine.valid {
            self.fine.timeout(4.0) * self.fine_scale
        } else {
            f64::INFINITY
        }
    }

    fn expired(&self, a: &AckInfo) -> bool {
        a.una_sent_at.is_some_and(|t| (a.now - t).ns() as f64 >= self.fine_timeout())
    }

    /// Once per round: compare expected and actual rates.
    fn decide(&mut self, a: &AckInfo) {
        if self.round_n > 0 && self.base_rtt.is_finite() {
            let rtt = self.round_sum / self.round_n as f64;
            let diff = a.flight as f64 * (rtt - self.base_rtt) / rtt;
            self.last_diff = diff;
            if self.slow_start {
                self.grow_round = !self.grow_round;
                if !self.grow_round {
                    self.incr = 0.0;
                } else if diff > self.p.gamma {
                    self.cwnd = (self.cwnd - self.cwnd / 8.0).max(MIN_CWND);
                    self.slow_start = false;
                    self.ssthresh = self.cwnd;
                    self.incr = 0.0;
                } else {
                    self.incr = 1.0;
                }
            } else if diff > self.p.beta {
                self.cwnd = (self.cwnd - 1.0).max(MIN_CWND);
                self.incr = 0.0;
            } else if diff < self.p.alpha {
                self.incr = 1.0 / self.cwnd;
            } else {
                self.incr = 0.0;
            }
        }
        self.round_sum = 0.0;
        self.round_n = 0;
        self.round_end = a.snd_nxt;
    }
}

impl CongestionControl for Vegas {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    fn on_ack(&mut self, a: &AckInfo) -> Reaction {
        if self.guard.is_some_and(|r| a.ack > r) {
            self.guard = None;
        }
        if self.in_recovery {
            self.cwnd = self.cwnd.min(self.new_cwnd);
            self.in_recovery = false;
            self.slow_start = false;
            self.ssthresh = self.cwnd;
            self.incr = 0.0;
        }
        if let Some(r) = a.rtt {
            let r = r.ns() as f64;
            self.fine.update(r);
            self.fine_scale = 1.0;
            self.base_rtt = self.base_rtt.min(r);
            self.round_sum += r;
            self.round_n += 1;
        }
        if a.ack > self.round_end {
            self.decide(a);
        }
        if self.slow_start && self.cwnd >= self.ssthresh {
            self.slow_start = false;
            self.incr = 0.0;
        }
        if self.incr > 0.0 && self.cwnd - a.in_use as f64 <= 2.0 {
            self.cwnd = (self.cwnd + self.incr).min(self.max);
        }
        if self.worried > 0 {
            self.worried -= 1;
            if self.expired(a) {
                return Reaction::RETRANSMIT;
            }
            self.worried = 0;
        }
        Reaction::NONE
    }

    fn on_dup_ack(&mut self, a: &AckInfo) -> Reaction {
        if self.guard.is_some() {
            return Reaction::NONE;
        }
        let third = a.dupacks == self.p.dupack_threshold && !self.in_recovery;
        if !(third || self.expired(a)) {
            if self.in_recovery {
                self.cwnd += 1.0;
            }
            return Reaction::NONE;
        }
        self.worried = a.in_use.min(2);
        self.fine_scale *= if a.una_sends > 1 { 2.0 } else { 1.125 };
        let sent = a.una_sent_at.unwrap_or(a.now);
        if self.last_cut.is_none_or(|t| t < sent) {
            let win = self.cwnd.floor();
            let win = if win <= 3.0 {
                MIN_CWND
            } else if a.una_sends > 1 {
                (win / 2.0).floor()
            } else {
                win - (win / 4.0).floor()
            };
            self.new_cwnd = win;
            self.cwnd = win + a.dupacks as f64;
            self.last_cut = Some(a.now);
        } else if !self.in_recovery {
            self.new_cwnd = self.cwnd;
        }
        self.in_recovery = true;
        Reaction::RETRANSMIT
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("vegas_diff_pkts", self.last_diff));
        out.push(("base_rtt_s", if self.base_rtt.is_finite() { self.base_rtt * 1e-9 } else { f64::NAN }));
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.ssthresh = half_flight(t.flight);
        self.cwnd = MIN_CWND.min(self.max);
        self.slow_start = true;
        self.grow_round = false;
        self.incr = 0.0;
        self.in_recovery = false;
        self.worried = 0;
        self.last_cut = Some(t.now);
        self.guard = Some(t.snd_max);
        self.round_end = t.snd_max;
        self.round_sum = 0.0;
        self.round_n = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimDuration;

    fn vegas() -> Vegas {
        let p = Params {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            initial_cwnd: 10.0,
            initial_ssthresh: Some(10.0),
            dupack_threshold: 3,
            rto: RtoParams::JACOBSON,
        };
        Vegas::new(&p, 1000)
    }

    const MS: u64 = 1_000_000;

    /// One round of `n` ACKs with round trip `rtt_ms` (base 100 ms).
    fn round(c: &mut Vegas, start: u64, rtt_ms: u64) -> u64 {
        let n = c.cwnd().floor() as u64;
        for k in 0..n {
            let ack = (start + k + 1) * 1000;
            // Window-limited: the ACK of packet start + k releases packet start + n + k.
            c.on_ack(&AckInfo {
                now: SimTime::ZERO,
                ack,
                mss: 1000,
                acked: 1,
                flight: n as u32,
                in_use: n as u32 - 1,
                snd_nxt: (start + n + k) * 1000,
                rtt: Some(SimDuration(rtt_ms * MS)),
                ..Default::default()
            });
        }
        start + n
    }

    #[test]
    fn avoidance_grows_below_alpha_holds_between_and_shrinks_above_beta() {
        let mut c = vegas();
        let mut s = round(&mut c, 0, 100); // base 100 ms, in avoidance (cwnd = ssthresh)
        let w0 = c.cwnd();
        s = round(&mut c, s, 100); // diff 0 < alpha: +1 over the next round
        s = round(&mut c, s, 100);
        assert!(c.cwnd() > w0 + 0.8, "{} -> {}", w0, c.cwnd());
        // RTT 125 ms with ~11 packets: diff = 11 * 25/125 = 2.2, between alpha and beta.
        s = round(&mut c, s, 125);
        let held = c.cwnd();
        s = round(&mut c, s, 125);
        assert!((c.cwnd() - held).abs() < 0.2, "holds: {} -> {}", held, c.cwnd());
        // RTT 200 ms: diff = 5.5 > beta: one packet less.
        s = round(&mut c, s, 200);
        round(&mut c, s, 200);
        assert!(c.cwnd() < held - 0.5, "{} -> {}", held, c.cwnd());
    }

    #[test]
    fn fine_grained_check_retransmits_on_the_first_duplicate_and_cuts_to_three_quarters() {
        let mut c = vegas();
        round(&mut c, 0, 100);
        let dup = AckInfo {
            now: SimTime(1_000 * MS),
            ack: 10_000,
            dupacks: 1,
            flight: 10,
            in_use: 10,
            una_sent_at: Some(SimTime(850 * MS)),
            una_sends: 1,
            ..Default::default()
        };
        assert_eq!(
            c.on_dup_ack(&AckInfo { una_sent_at: Some(SimTime(950 * MS)), ..dup }),
            Reaction::NONE,
            "sent 50 ms ago: not expired"
        );
        let w = c.cwnd().floor();
        assert_eq!(c.on_dup_ack(&dup), Reaction::RETRANSMIT, "sent 150 ms ago with srtt 100 ms");
        assert_eq!(c.cwnd(), w - (w / 4.0).floor() + 1.0, "cut to 3/4, inflated by the duplicate");
        // The next new ACK deflates and, if the next segment is overdue too, resends it.
        let r = c.on_ack(&AckInfo {
            now: SimTime(1_100 * MS),
            ack: 11_000,
            mss: 1000,
            acked: 1,
            flight: 10,
            in_use: 9,
            una_sent_at: Some(SimTime(900 * MS)),
            una_sends: 1,
            ..Default::default()
        });
        assert_eq!(r, Reaction::RETRANSMIT);
        // Deflated to the cut window; this ACK also ends a round at the base RTT (diff 0 <
        // alpha), which adds 1/cwnd.
        let cut = w - (w / 4.0).floor();
        assert_eq!(c.cwnd(), cut + 1.0 / cut);
    }
}
