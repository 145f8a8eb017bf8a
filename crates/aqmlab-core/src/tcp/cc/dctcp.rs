//! DCTCP: a window reduced in proportion to the fraction of marked packets.
//!
//! S. Bensley, D. Thaler, P. Balasubramanian, L. Eggert, G. Judd, RFC 8257 (2017), after
//! Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010. Data is always ECT(0); the receiver
//! echoes CE packet by packet (section 3.2, [`Feedback::PerPacket`]). The sender, per section 3.3:
//! - counts the packets acknowledged and, of them, those acknowledged by an ACK with ECE;
//! - when the cumulative ACK passes `window_end` (one observation window, about a round trip),
//!   sets alpha <- (1 - g) alpha + g M with M the marked fraction of that window, then
//!   `window_end` = SND.NXT and the counts restart;
//! - on an ECE, at most once per round trip (the sender's RFC 3168 rule) and never during loss
//!   recovery, reduces cwnd to cwnd (1 - alpha / 2) (ssthresh too, at least 2 packets);
//! - reacts to loss and timeouts as NewReno does (section 3.3: "as conventional TCP").
//!
//! g = 1/16 and an initial alpha of 1 (the conservative start RFC 8257 section 3.3 mentions;
//! Linux's dctcp_alpha_on_init and ns-3's TcpDctcp default) are parameters. Gauge:
//! `dctcp_alpha`. With `ect1 = true` data is ECT(1), the L4S identifier (RFC 9331), so that a
//! DualPI2 gateway (RFC 9332) serves it from its low-latency queue.
//!
//! Deviations: counts are in segments, not bytes (every segment of a bulk transfer is full, so
//! the fraction is the same); alpha is a real number (Linux keeps it in 1/1024 units); no
//! special handling of a receiver that is not DCTCP (section 4.3), the receiver being ours.

use serde::Serialize;

use super::newreno::NewRenoRecovery;
use super::slowstart::{self, LossBased};
use super::{AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::RtoParams;
use crate::tcp::{EcnUse, Feedback};

pub const INFO: CcInfo = CcInfo {
    name: "dctcp",
    aliases: &[],
    summary: "DCTCP (RFC 8257): ECN marks echoed per packet, cwnd cut by alpha/2 once per window, alpha the marked fraction's EWMA.",
    read: |f| Params::read(f).map(CcParams::Dctcp),
    ecn: EcnUse::Own(Feedback::PerPacket),
    paces: false,
    sack: true,
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub initial_cwnd: f64,
    pub initial_ssthresh: Option<f64>,
    pub dupack_threshold: u32,
    pub rto: RtoParams,
    /// g: the weight of the newest window's marked fraction in alpha.
    pub g: f64,
    /// alpha before the first observation window ends.
    pub initial_alpha: f64,
    /// Send ECT(1), the L4S identifier (RFC 9331), instead of ECT(0).
    pub ect1: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let base = slowstart::Params::read_today(f, true)?;
        let g: f64 = f.or("g", 1.0 / 16.0, "g: weight of the last window's marked fraction in alpha (RFC 8257: 1/16)")?;
        f.ensure(g > 0.0 && g <= 1.0, "g", format!("{g} is not a weight (allowed: above 0, at most 1)"))?;
        let initial_alpha: f64 =
            f.or("initial_alpha", 1.0, "alpha at the start (RFC 8257, Linux and ns-3: 1, the cautious value)")?;
        f.ensure((0.0..=1.0).contains(&initial_alpha), "initial_alpha", "must be in [0, 1]")?;
        let ect1: bool = f.or(
            "ect1",
            false,
            "send ECT(1), the L4S identifier of RFC 9331 (dualpi2 queues it in its L queue and marks it by its \
             step), instead of RFC 8257's ECT(0)",
        )?;
        Ok(Params {
            initial_cwnd: base.initial_cwnd,
            initial_ssthresh: base.initial_ssthresh,
            dupack_threshold: base.dupack_threshold,
            rto: base.rto,
            g,
            initial_alpha,
            ect1,
        })
    }
}

/// alpha after one observation window in which `marked` of `acked` segments were marked
/// (RFC 8257 section 3.3, steps 5-6). A window with nothing acknowledged leaves alpha alone.
pub fn next_alpha(alpha: f64, g: f64, acked: u64, marked: u64) -> f64 {
    if acked == 0 {
        return alpha;
    }
    let m = marked as f64 / acked as f64;
    (1.0 - g) * alpha + g * m
}

/// The window after an ECN echo: cwnd (1 - alpha / 2), at least 2 packets.
pub fn reduced_window(cwnd: f64, alpha: f64) -> f64 {
    (cwnd * (1.0 - alpha / 2.0)).max(2.0)
}

pub struct Dctcp {
    lb: LossBased<NewRenoRecovery>,
    g: f64,
    alpha: f64,
    /// The observation window ends when the cumulative ACK passes this byte.
    window_end: u64,
    acked: u64,
    marked: u64,
}

impl Dctcp {
    pub fn new(p: &Params, max_window: u32) -> Self {
        let base = slowstart::Params::rfc5681(p.initial_cwnd, p.initial_ssthresh, p.dupack_threshold, p.rto);
        Dctcp {
            lb: LossBased::new(&base, max_window),
            g: p.g,
            alpha: p.initial_alpha,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Steps 1-8 of RFC 8257 section 3.3 for one ACK of new data.
    fn observe(&mut self, a: &AckInfo) {
        self.acked += a.acked as u64;
        if a.ece {
            self.marked += a.acked as u64;
        }
        if a.ack > self.window_end {
            self.alpha = next_alpha(self.alpha, self.g, self.acked, self.marked);
            self.window_end = a.snd_nxt;
            self.acked = 0;
            self.marked = 0;
        }
    }
}

impl CongestionControl for Dctcp {
    fn cwnd(&self) -> f64 {
        self.lb.cwnd()
    }
    fn ssthresh(&self) -> f64 {
        self.lb.ssthresh()
    }
    fn on_ack(&mut self, a: &AckInfo) -> Reaction {
        self.observe(a);
        self.lb.on_ack(a)
    }
    fn on_dup_ack(&mut self, a: &AckInfo) -> Reaction {
        self.lb.on_dup_ack(a)
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.lb.on_timeout(t)
    }
    fn in_recovery(&self) -> bool {
        self.lb.in_recovery()
    }
    fn on_loss(&mut self, a: &AckInfo) {
        // RFC 8257 section 3.3: a loss is answered as by standard TCP (halving).
        self.lb.on_ece(a)
    }
    fn on_ack_in_recovery(&mut self, a: &AckInfo) {
        self.observe(a);
    }
    fn on_ece(&mut self, _a: &AckInfo) {
        let w = reduced_window(self.lb.w.cwnd, self.alpha);
        self.lb.w.ssthresh = w;
        self.lb.w.cwnd = w.min(self.lb.w.max);
    }
    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("dctcp_alpha", self.alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            initial_cwnd: 10.0,
            initial_ssthresh: Some(10.0),
            dupack_threshold: 3,
            rto: RtoParams::JACOBSON,
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
            ect1: false,
        }
    }

    /// One ACK per segment of a window of `n` segments starting at `seq` (1000-byte segments),
    /// `marked` of them with ECE; SND.NXT is the window's end.
    fn window(c: &mut Dctcp, seq: u64, n: u64, marked: u64) -> u64 {
        for i in 0..n {
            let ack = seq + (i + 1) * 1000;
            c.on_ack(&AckInfo { ack, acked: 1, ece: i < marked, snd_nxt: seq + n * 1000, mss: 1000, ..Default::default() });
        }
        seq + n * 1000
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_window_by_window() {
        // A window closes on the first ACK past window_end, which it counts in the window it
        // closes (step 4 comes after steps 1-3).
        let g = 1.0 / 16.0;
        let mut c = Dctcp::new(&params(), 1000);
        // A lone unmarked ACK closes the window that ends at 0: M = 0/1.
        c.on_ack(&AckInfo { ack: 1000, acked: 1, snd_nxt: 1000, ..Default::default() });
        let mut expected = (1.0 - g) * 1.0;
        assert!((c.alpha() - expected).abs() < 1e-12);
        // The first (marked) ACK of the next window closes a window of itself alone: M = 1/1.
        let mut seq = window(&mut c, 1000, 20, 5);
        expected = (1.0 - g) * expected + g * 1.0;
        // Each later window's first (marked) ACK closes the previous one: its 19 other ACKs,
        // 4 of them marked, plus itself: M = 5/20. alpha tends to 1/4.
        for _ in 0..60 {
            seq = window(&mut c, seq, 20, 5);
            expected = (1.0 - g) * expected + g * 0.25;
        }
        assert!((c.alpha() - expected).abs() < 1e-12, "{} vs {expected}", c.alpha());
        assert!((c.alpha() - 0.25).abs() < 0.02, "{}", c.alpha());
    }

    #[test]
    fn next_alpha_and_the_reduction_follow_the_rfc_formulas() {
        assert_eq!(next_alpha(1.0, 1.0 / 16.0, 10, 0), 15.0 / 16.0);
        assert_eq!(next_alpha(0.5, 0.5, 4, 4), 0.75);
        assert_eq!(next_alpha(0.3, 0.1, 0, 0), 0.3, "nothing acknowledged: no change");
        assert_eq!(reduced_window(100.0, 0.25), 87.5);
        assert_eq!(reduced_window(100.0, 1.0), 50.0, "every packet marked: halve, as RFC 3168");
        assert_eq!(reduced_window(3.0, 1.0), 2.0);
        let mut c = Dctcp::new(&Params { initial_alpha: 0.5, ..params() }, 1000);
        c.on_ece(&AckInfo::default());
        assert_eq!((c.cwnd(), c.ssthresh()), (7.5, 7.5));
    }

    #[test]
    fn a_loss_halves_as_newreno_whatever_alpha() {
        let mut c = Dctcp::new(&Params { initial_alpha: 0.0, initial_cwnd: 20.0, ..params() }, 1000);
        let dup = |n| AckInfo { dupacks: n, flight: 20, snd_max: 20_000, ack: 0, ..Default::default() };
        c.on_dup_ack(&dup(1));
        c.on_dup_ack(&dup(2));
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::RETRANSMIT);
        assert_eq!(c.ssthresh(), 10.0);
        assert!(c.in_recovery());
    }
}
