//! Scalable TCP: a window that grows by a fixed fraction per round trip and shrinks by a fixed
//! fraction per loss, so that the round trips it takes to regain a window after a loss do not
//! grow with the window.
//!
//! T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area Networks", ACM SIGCOMM
//! Computer Communication Review 33(2), 2003. In congestion avoidance each ACK adds a = 0.01
//! packets to the window, so a window of w grows by a w per round trip; a congestion event (the
//! third duplicate ACK, or an ECN echo) sets ssthresh = max((1 - b) cwnd, 2) with b = 0.125.
//! Regaining the window lost takes ln(1 / (1 - b)) / ln(1 + a), about 13.4 round trips, at any
//! window, where Reno's halving takes w / 2.
//!
//! Slow start and loss recovery are NewReno's (RFC 6582), with the window on entering recovery
//! set to ssthresh + 3 and inflated as NewReno does, as for CUBIC.
//!
//! Choices the paper leaves open: while Reno's increase (1/cwnd per ACK) is the larger, that
//! is, below 1/a = 100 packets, it is used (Linux's tcp_scalable: one packet per min(cwnd,
//! 100) ACKs); a timeout sets ssthresh as a congestion event does (Linux), unless it comes
//! during a recovery, which keeps its own (one reduction per window of data, as for CUBIC).

use serde::Serialize;

use super::newreno::NewRenoRecovery;
use super::slowstart::{self, LossBased};
use super::{AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::RtoParams;
use crate::tcp::EcnUse;

pub const INFO: CcInfo = CcInfo {
    name: "scalable",
    aliases: &[],
    summary: "Scalable TCP (Kelly 2003): +0.01 packets per ACK, -1/8 per loss: recovery in a number of round trips that does not grow with the window.",
    read: |f| Params::read(f).map(CcParams::Scalable),
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
    /// Packets added to the window per ACK in congestion avoidance.
    pub a: f64,
    /// The fraction of the window a congestion event takes away.
    pub b: f64,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let base = slowstart::Params::read_today(f, true)?;
        let a: f64 = f.or("a", 0.01, "packets added to the window per ACK in congestion avoidance (Kelly: 0.01)")?;
        f.ensure(a > 0.0 && a <= 1.0, "a", "must be in (0, 1]")?;
        let b: f64 = f.or("b", 0.125, "fraction of the window a loss or an ECN echo takes away (Kelly: 0.125)")?;
        f.ensure(b > 0.0 && b < 1.0, "b", "must be in (0, 1)")?;
        Ok(Params {
            initial_cwnd: base.initial_cwnd,
            initial_ssthresh: base.initial_ssthresh,
            dupack_threshold: base.dupack_threshold,
            rto: base.rto,
            a,
            b,
        })
    }

    fn base(&self) -> slowstart::Params {
        slowstart::Params::rfc5681(self.initial_cwnd, self.initial_ssthresh, self.dupack_threshold, self.rto)
    }
}

pub struct Scalable {
    a: f64,
    b: f64,
    /// Slow start, recovery and timeouts (NewReno's); Scalable TCP replaces congestion
    /// avoidance and the reductions.
    lb: LossBased<NewRenoRecovery>,
    threshold: u32,
}

impl Scalable {
    pub fn new(p: &Params, max_window: u32) -> Self {
        Scalable { a: p.a, b: p.b, lb: LossBased::new(&p.base(), max_window), threshold: p.dupack_threshold }
    }

    /// The slow-start threshold after a congestion event with the window at `cwnd`.
    fn reduced(&self, cwnd: f64) -> f64 {
        (cwnd * (1.0 - self.b)).max(2.0)
    }
}

impl CongestionControl for Scalable {
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
        if self.lb.in_recovery() || self.lb.w.cwnd < self.lb.w.ssthresh {
            return self.lb.on_ack(a);
        }
        let w = &mut self.lb.w;
        w.cwnd = (w.cwnd + (1.0 / w.cwnd).max(self.a)).min(w.max);
        Reaction::NONE
    }

    fn on_dup_ack(&mut self, a: &AckInfo) -> Reaction {
        let (cwnd, was) = (self.lb.w.cwnd, self.lb.in_recovery());
        let r = self.lb.on_dup_ack(a);
        if !was && self.lb.in_recovery() {
            let ssthresh = self.reduced(cwnd);
            self.lb.w.ssthresh = ssthresh;
            self.lb.w.cwnd = ssthresh + self.threshold as f64;
        }
        r
    }

    fn on_ece(&mut self, _a: &AckInfo) {
        let ssthresh = self.reduced(self.lb.w.cwnd);
        self.lb.w.ssthresh = ssthresh;
        self.lb.w.cwnd = ssthresh.min(self.lb.w.max);
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        let (cwnd, reduced) = (self.lb.w.cwnd, self.lb.in_recovery() || t.in_sack_recovery);
        let ssthresh = self.lb.w.ssthresh;
        self.lb.on_timeout(t);
        self.lb.w.ssthresh = if reduced { ssthresh } else { self.reduced(cwnd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalable(cwnd: f64, ssthresh: f64) -> Scalable {
        let p = Params {
            initial_cwnd: cwnd,
            initial_ssthresh: Some(ssthresh),
            dupack_threshold: 3,
            rto: RtoParams::RFC6298,
            a: 0.01,
            b: 0.125,
        };
        Scalable::new(&p, 1_000_000)
    }

    fn ack(c: &mut Scalable) {
        c.on_ack(&AckInfo { acked: 1, ..Default::default() });
    }

    #[test]
    fn each_ack_adds_a_hundredth_of_a_packet_above_a_hundred_and_reno_s_share_below() {
        let mut c = scalable(200.0, 100.0);
        for _ in 0..100 {
            ack(&mut c);
        }
        assert!((c.cwnd() - 201.0).abs() < 1e-9, "{}", c.cwnd());
        let mut c = scalable(50.0, 10.0);
        ack(&mut c);
        assert_eq!(c.cwnd(), 50.0 + 1.0 / 50.0);
    }

    #[test]
    fn a_loss_takes_an_eighth_and_recovery_is_newreno_s() {
        let mut c = scalable(200.0, 100.0);
        let dup = |n| AckInfo { dupacks: n, flight: 200, snd_max: 200_000, ack: 1000, ..Default::default() };
        for n in 1..3 {
            assert_eq!(c.on_dup_ack(&dup(n)), Reaction::NONE);
        }
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::RETRANSMIT);
        assert_eq!((c.ssthresh(), c.cwnd()), (175.0, 178.0));
        // A full ACK ends recovery at min(ssthresh, flight after + 1).
        c.on_ack(&AckInfo { ack: 200_000, acked: 20, flight: 200, ..Default::default() });
        assert!(!c.in_recovery());
        assert_eq!(c.cwnd(), 175.0);
        // An ECN echo takes the eighth at once, without recovery.
        let mut c = scalable(400.0, 100.0);
        c.on_ece(&AckInfo::default());
        assert_eq!((c.ssthresh(), c.cwnd()), (350.0, 350.0));
    }

    #[test]
    fn the_round_trips_to_regain_a_window_do_not_grow_with_it() {
        // After a loss at w the window is 7/8 w; each round trip acknowledges a window of
        // packets: 1.01^13 x 7/8 < 1 <= 1.01^14 x 7/8, so 14 round trips at any w above 100.
        for w in [1_000.0, 10_000.0, 100_000.0] {
            let mut c = scalable(w, 100.0);
            c.on_ece(&AckInfo::default());
            let mut rounds = 0;
            while c.cwnd() < w {
                for _ in 0..c.cwnd() as u64 {
                    ack(&mut c);
                }
                rounds += 1;
            }
            assert_eq!(rounds, 14, "w = {w}");
        }
    }
}
