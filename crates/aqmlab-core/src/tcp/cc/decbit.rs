//! DECbit: the binary feedback scheme's source algorithm.
//!
//! K. K. Ramakrishnan, R. Jain, "A Binary Feedback Scheme for Congestion Avoidance in Computer
//! Networks", ACM TOCS 8(2), 1990 (DEC-TR-508, 1987); as used by Demers, Keshav & Shenker 1989.
//! Gateways set a congestion bit in data packets (their average queue is at least one); the
//! receiver copies it into the acknowledgement. The source sends its packets marked capable
//! (ECT) and adjusts its window once per decision epoch: after a change it waits for the
//! packets sent with the old window to be acknowledged, then looks at the bits on the ACKs of
//! the next window's worth of packets. If fewer than half carried the bit, the window grows by
//! one packet; otherwise it shrinks to 0.875 times. So a decision takes about two round trips.
//! The window stays within [1, max_window]. It is kept as a real number and used rounded to the
//! nearest whole packet, as TOCS 1990 (Sec. 5.4) states it: "we maintain the window sizes as
//! real values at the individual sources. The actual window size, which is the number of
//! packets that may be outstanding in the network, is obtained by rounding the real value of
//! the window size to the nearest integer value" (so 1.75, one decrease from 2, is still 2);
//! `cwnd()` is that window in use, and a decision looks at the bits of that many packets
//! ("Only the bits corresponding to the last W_c packets ... are examined"). Halves round up.
//! `window = "truncated"` uses the whole part instead (aqmlab's rule before it followed the
//! paper; kept to show its effect side by side).
//!
//! Deviations: the timeout machinery is the FQ paper's generic one (DECbit sources there are
//! "descendants of the generic algorithm"); on a retransmission timeout, which the scheme is
//! meant to avoid and the papers do not specify, the window returns to 1 packet (our choice,
//! after Jain's CUTE timeout scheme) and a new epoch starts. With delayed ACKs an ACK's bit
//! counts for every packet it acknowledges.

use serde::Serialize;

use crate::tcp::{EcnUse, Feedback};
use super::{AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{choice_enum, Fields, Result};
use crate::tcp::rtt::RtoParams;

pub const INFO: CcInfo = CcInfo {
    name: "decbit",
    aliases: &[],
    summary: "DECbit source (Ramakrishnan & Jain): +1 packet if under half the ACKs carry the bit, else x0.875.",
    read: |f| Params::read(f).map(CcParams::Decbit),
    ecn: EcnUse::Own(Feedback::CopyBit),
    paces: false,
    sack: false,
};

choice_enum! {
    /// The `window` key: how the real-valued window becomes the number of packets in use.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum WindowInUse {
        /// Rounded to the nearest whole packet (TOCS 1990, Sec. 5.4).
        Rounded = "rounded",
        /// Its whole part.
        Truncated = "truncated",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub initial_window: f64,
    pub increase: f64,
    pub decrease: f64,
    pub threshold: f64,
    pub window: WindowInUse,
    pub rto: RtoParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let initial_window: f64 = f.or("initial_window", 1.0, "window at the start, packets")?;
        f.ensure(initial_window >= 1.0, "initial_window", "must be at least 1 packet")?;
        let increase: f64 = f.or("increase", 1.0, "additive increase per epoch, packets")?;
        f.ensure(increase > 0.0, "increase", "must be above 0")?;
        let decrease: f64 = f.or("decrease", 0.875, "multiplicative decrease factor")?;
        f.ensure(decrease > 0.0 && decrease < 1.0, "decrease", "must be in (0, 1)")?;
        let threshold: f64 = f.or("threshold", 0.5, "fraction of marked ACKs at which the window decreases")?;
        f.ensure(threshold > 0.0 && threshold <= 1.0, "threshold", "must be in (0, 1]")?;
        let window = f.choice(
            "window",
            WindowInUse::Rounded,
            "packets in use from the real-valued window: rounded to the nearest (the paper's rule) or truncated",
        )?;
        let rto = RtoParams::read(f, RtoParams::GENERIC)?;
        Ok(Params { initial_window, increase, decrease, threshold, window, rto })
    }
}

#[derive(Clone, Debug)]
pub struct Decbit {
    p: Params,
    w: f64,
    max: f64,
    /// First byte sent after the last change: ACKs below it belong to the old window.
    epoch_start: u64,
    /// Packets of this epoch acknowledged so far, and how many of them carried the bit.
    counted: u32,
    marked: u32,
}

impl Decbit {
    pub fn new(p: &Params, max_window: u32) -> Self {
        let max = max_window as f64;
        Decbit { p: p.clone(), w: p.initial_window.min(max), max, epoch_start: 0, counted: 0, marked: 0 }
    }

    /// The window in use: the real-valued window rounded to the nearest whole packet (or
    /// truncated, with `window = "truncated"`).
    fn in_use(&self) -> f64 {
        let w = match self.p.window {
            WindowInUse::Rounded => self.w.round(),
            WindowInUse::Truncated => self.w.floor(),
        };
        w.clamp(1.0, self.max)
    }

    fn new_epoch(&mut self, snd_nxt: u64) {
        self.epoch_start = snd_nxt;
        self.counted = 0;
        self.marked = 0;
    }
}

impl CongestionControl for Decbit {
    fn cwnd(&self) -> f64 {
        self.in_use()
    }

    fn on_ack(&mut self, a: &AckInfo) -> Reaction {
        if a.ack <= self.epoch_start {
            return Reaction::NONE; // sent with the old window
        }
        // Packets of this ACK sent after the epoch began (the ACK may straddle its start).
        let n = a.acked.min((a.ack - self.epoch_start).div_ceil(a.mss.max(1)) as u32).max(1);
        self.counted += n;
        if a.ece {
            self.marked += n;
        }
        if self.counted as f64 >= self.in_use() {
            if (self.marked as f64) < self.p.threshold * self.counted as f64 {
                self.w = (self.w + self.p.increase).min(self.max);
            } else {
                self.w = (self.w * self.p.decrease).max(1.0);
            }
            self.new_epoch(a.snd_nxt);
        }
        Reaction::NONE
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.w = 1.0;
        self.new_epoch(t.snd_nxt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decbit(w: f64) -> Decbit {
        decbit_with(w, WindowInUse::Rounded)
    }

    fn decbit_with(w: f64, window: WindowInUse) -> Decbit {
        let p = Params { initial_window: w, increase: 1.0, decrease: 0.875, threshold: 0.5, window, rto: RtoParams::GENERIC };
        Decbit::new(&p, 100)
    }

    /// ACK packet `k` (segments of 1 byte for simplicity) with or without the bit.
    fn ack(k: u64, ece: bool, snd_nxt: u64) -> AckInfo {
        AckInfo { ack: k + 1, acked: 1, ece, snd_nxt, mss: 1, ..Default::default() }
    }

    #[test]
    fn increases_by_one_when_under_half_the_window_is_marked() {
        let mut c = decbit(4.0);
        // First epoch: packets 0..4, one marked.
        for k in 0..4 {
            c.on_ack(&ack(k, k == 0, 8));
        }
        assert_eq!(c.cwnd(), 5.0);
        // Packets 4..8 were sent with the old window: ignored, however marked.
        for k in 4..8 {
            c.on_ack(&ack(k, true, 13));
        }
        assert_eq!(c.cwnd(), 5.0);
        // Next epoch: 8..13, two of five marked (under half) -> 6.
        for k in 8..13 {
            c.on_ack(&ack(k, k % 4 == 0, 19));
        }
        assert_eq!(c.cwnd(), 6.0);
    }

    #[test]
    fn decreases_by_an_eighth_when_half_or_more_are_marked() {
        let mut c = decbit(8.0);
        for k in 0..8 {
            c.on_ack(&ack(k, k % 2 == 0, 16));
        }
        assert_eq!(c.cwnd(), 7.0);
        // 7 packets counted next epoch, all marked: 7 * 0.875 = 6.125, used as 6.
        for k in 16..23 {
            c.on_ack(&ack(k, true, 30));
        }
        assert_eq!(c.w, 7.0 * 0.875);
        assert_eq!(c.cwnd(), 6.0);
    }

    #[test]
    fn the_window_in_use_is_the_real_window_rounded_to_the_nearest_packet() {
        // From 2, a decrease gives 1.75: still 2 packets in use (truncation would give 1), and
        // the next decision counts 2 packets. A second decrease gives 1.53125: still 2; a third,
        // 1.33984375: 1.
        let mut c = decbit(2.0);
        c.on_ack(&ack(0, true, 2));
        c.on_ack(&ack(1, true, 2));
        assert_eq!((c.w, c.cwnd()), (1.75, 2.0));
        c.on_ack(&ack(2, true, 4));
        assert_eq!(c.w, 1.75, "one packet is not yet a decision: the window in use is 2");
        c.on_ack(&ack(3, true, 4));
        assert_eq!((c.w, c.cwnd()), (1.53125, 2.0));
        c.on_ack(&ack(4, true, 6));
        c.on_ack(&ack(5, true, 6));
        assert_eq!((c.w, c.cwnd()), (1.33984375, 1.0));
        // From 1, unmarked: one packet decides, +1 -> 2.33984375, used as 2.
        c.on_ack(&ack(6, false, 7));
        assert_eq!((c.w, c.cwnd()), (2.33984375, 2.0));
    }

    #[test]
    fn a_truncated_window_uses_the_whole_part() {
        // From 2, a decrease gives 1.75, used as 1: the next packet alone decides.
        let mut c = decbit_with(2.0, WindowInUse::Truncated);
        c.on_ack(&ack(0, true, 2));
        c.on_ack(&ack(1, true, 2));
        assert_eq!((c.w, c.cwnd()), (1.75, 1.0));
        c.on_ack(&ack(2, true, 3));
        assert_eq!((c.w, c.cwnd()), (1.53125, 1.0));
    }

    #[test]
    fn the_window_key_reads_its_two_names_and_rejects_others() {
        use crate::conf::{parse_toml, Origin, Source};
        let read = |text: &str| {
            let src = Source { path: "t.toml".into() };
            let t = parse_toml(text, &src).unwrap();
            let mut f = Fields::new(&src, "flow", &t, Origin::Line(1));
            let p = Params::read(&mut f)?;
            f.finish()?;
            Ok::<_, crate::conf::ScenarioError>(p.window)
        };
        assert_eq!(read("").unwrap(), WindowInUse::Rounded);
        assert_eq!(read("window = \"truncated\"").unwrap(), WindowInUse::Truncated);
        let err = read("window = \"floor\"").unwrap_err().to_string();
        assert!(err.contains("window") && err.contains("rounded") && err.contains("truncated"), "{err}");
    }
}

#[cfg(test)]
mod bench_tests {
    use crate::tcp::harness::{common, Bench, MS};

    #[test]
    fn sends_marked_capable_and_follows_the_echoed_bit() {
        let mut b = Bench::new(&common("cc = \"decbit\"\nmax_window = 50"), None, 1_000_000_000, 50 * MS);
        // A gateway that marks everything sent between 6 s and 9 s (the bench marks only ECT packets).
        b.mark = Box::new(|_, t| (6000 * MS..9000 * MS).contains(&t));
        b.run_until(12_000 * MS);
        // Unmarked: +1 per decision, a decision every two round trips (100 ms each).
        let w = |t: u64| b.cwnd_at(t * MS);
        let rise = w(5900) - w(1900);
        assert!((rise - 20.0).abs() <= 2.0, "{} -> {}", w(1900), w(5900));
        // Marked: times 0.875 per decision.
        let (hi, lo) = (w(6400), w(9000));
        let decisions = (hi / lo).ln() / (1.0 / 0.875f64).ln();
        assert!((12.0..=16.0).contains(&decisions), "{hi} -> {lo}: {decisions} decreases");
        assert!(w(12_000) > lo + 10.0, "grows again");
        assert_eq!(b.timeouts.len(), 0);
        assert!(b.sent.iter().all(|s| !s.retx));
    }
}
