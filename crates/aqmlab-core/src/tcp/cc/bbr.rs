//! BBR v1: a model of the path's bottleneck bandwidth and round-trip propagation time, paced.
//!
//! N. Cardwell, Y. Cheng, S. Hassas Yeganeh, V. Jacobson, draft-cardwell-iccrg-bbr-congestion-
//! control-00 (2017), after Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM
//! Queue 2016; ns-3's TcpBbr and Linux's tcp_bbr.c follow it. On every ACK:
//! - BtlBw, the maximum delivery rate ([`super::RateSample`]) over the last 10 round trips
//!   (samples of an application-limited sender only when they raise it); RTprop, the minimum
//!   round trip over the last 10 s. BDP = BtlBw x RTprop.
//! - States: STARTUP (pacing and cwnd gain 2/ln 2) until BtlBw has grown by less than 25% for 3
//!   round trips ("full pipe"); DRAIN (pacing gain ln 2 / 2) until the packets in flight fall
//!   to the BDP; PROBE_BW cycling the pacing gain through 1.25, 0.75, 1, 1, 1, 1, 1, 1, a phase
//!   per RTprop (1.25 also until in flight reaches 1.25 BDP, 0.75 also ends once in flight is
//!   at most the BDP), from a random phase other than 0.75; PROBE_RTT when RTprop has not been
//!   refreshed for 10 s: cwnd 4 packets for 200 ms and a round trip, then back.
//! - Pacing rate = pacing gain x BtlBw (in STARTUP never lowered); cwnd grows by the packets
//!   delivered up to cwnd gain (2) x BDP, at least 4 packets.
//! - Loss: fast retransmit on the third duplicate ACK and NewReno's partial-ACK retransmissions;
//!   during the recovery packet conservation (cwnd = packets in flight + delivered, each
//!   duplicate ACK counting as one delivered packet, as Linux does without SACK), then cwnd back
//!   to at least its value before; a timeout sets cwnd to 1 and restores it after.
//!
//! Gauges: `bbr_btlbw_bps`, `bbr_rtprop_s`, `bbr_state` (0 STARTUP, 1 DRAIN, 2 PROBE_BW,
//! 3 PROBE_RTT), `bbr_cycle` (the PROBE_BW phase), `bbr_pacing_gain`.
//!
//! Deviations and open choices: counts in segments (every segment full); no SACK, so delivery
//! is counted from cumulative ACKs alone (rate samples over an interval shorter than the
//! smallest round trip are discarded, as Linux does); no idle restart (bulk senders are never
//! idle), no long-term bandwidth sampling (policer detection, in Linux, not in the draft), no
//! TSO-related cwnd allowance (the draft's quantisation budget: +3 segments is left out); the
//! initial pacing rate is 2/ln 2 x initial cwnd / the first RTT sample, and unpaced until a
//! sample exists. The random phase is drawn from the flow's own stream (a hash of its id).

use serde::Serialize;

use super::{AckInfo, CcInfo, CcParams, CongestionControl, Reaction, TimeoutInfo};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::RtoParams;
use crate::tcp::EcnUse;
use crate::units::{SimDuration, SimTime};

pub const INFO: CcInfo = CcInfo {
    name: "bbr",
    aliases: &[],
    summary: "BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00): paced at the measured bottleneck rate, cwnd 2 BDP, gain cycling, PROBE_RTT.",
    read: |f| Params::read(f).map(CcParams::Bbr),
    ecn: EcnUse::Unsupported,
    paces: true,
    sack: false,
};

/// STARTUP's pacing and cwnd gain, 2/ln 2: the smallest that doubles the delivery rate each
/// round trip.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
/// PROBE_BW's pacing gains, one phase per RTprop.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const BTLBW_ROUNDS: u64 = 10;
const MIN_CWND: f64 = 4.0;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub initial_cwnd: f64,
    pub rto: RtoParams,
    /// cwnd gain in PROBE_BW (the draft's 2).
    pub cwnd_gain: f64,
    /// How long RTprop stays valid without a new minimum, ns (10 s).
    pub rtprop_window_ns: u64,
    /// Time spent at 4 packets in PROBE_RTT, ns (200 ms).
    pub probe_rtt_ns: u64,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let initial_cwnd: f64 = f.or("initial_cwnd", 10.0, "congestion window at the start, packets (Linux: 10)")?;
        f.ensure(initial_cwnd >= 1.0, "initial_cwnd", "must be at least 1 packet")?;
        let cwnd_gain: f64 = f.or("cwnd_gain", 2.0, "cwnd as a multiple of the estimated BDP (the draft: 2)")?;
        f.ensure(cwnd_gain >= 1.0 && cwnd_gain.is_finite(), "cwnd_gain", "must be at least 1")?;
        let rtprop: crate::conf::Duration =
            f.or("rtprop_window", crate::conf::Duration(10_000_000_000), "how long a min RTT stays valid (10s)")?;
        f.ensure(rtprop.0 > 0, "rtprop_window", "must be above 0")?;
        let probe: crate::conf::Duration =
            f.or("probe_rtt_time", crate::conf::Duration(200_000_000), "time at 4 packets in PROBE_RTT (200ms)")?;
        let rto = RtoParams::read(f, RtoParams::RFC6298)?;
        Ok(Params { initial_cwnd, rto, cwnd_gain, rtprop_window_ns: rtprop.0, probe_rtt_ns: probe.0 })
    }
}

/// BBR's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The maximum of (round, value) samples over the last `len` rounds: a monotone deque.
#[derive(Clone, Debug, Default)]
pub struct MaxFilter {
    samples: std::collections::VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn update(&mut self, round: u64, value: f64, len: u64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| r + len <= round) {
            self.samples.pop_front();
        }
    }
    pub fn get(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }
}

pub struct Bbr {
    p: Params,
    state: State,
    cwnd: f64,
    /// Bottleneck bandwidth, segments/s.
    btlbw: MaxFilter,
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_rounds: u32,
    filled_pipe: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Segments per second; 0 until the first RTT sample.
    pacing_rate: f64,
    cycle: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    /// Loss recovery: the highest byte sent when it began; packet conservation for its first round.
    recover: Option<u64>,
    conservation_until: SimTime,
    rng: u64,
    max_window: f64,
    /// Bits per segment on the wire, for the pacing rate (set by the first ACK: mss + header is
    /// not known here; the sender scales).
    mss: u64,
}

impl Bbr {
    pub fn new(p: &Params, max_window: u32) -> Self {
        Bbr {
            p: p.clone(),
            state: State::Startup,
            cwnd: p.initial_cwnd.min(max_window as f64),
            btlbw: MaxFilter::default(),
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_rounds: 0,
            filled_pipe: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0.0,
            cycle: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            recover: None,
            conservation_until: SimTime::ZERO,
            rng: 0,
            max_window: max_window as f64,
            mss: 1,
        }
    }

    /// Seed the random start phase of PROBE_BW (the sender passes its flow's id, so flows differ).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = seed ^ 0x5bd1_e995_1234_5678;
    }

    pub fn state(&self) -> State {
        self.state
    }
    /// Bottleneck bandwidth estimate, segments/s.
    pub fn btlbw(&self) -> f64 {
        self.btlbw.get()
    }
    pub fn rtprop(&self) -> Option<SimDuration> {
        self.rtprop
    }
    pub fn cycle(&self) -> usize {
        self.cycle
    }

    /// The estimated BDP in segments at `gain` (None before a bandwidth and RTT estimate).
    fn bdp(&self, gain: f64) -> Option<f64> {
        let bw = self.btlbw.get();
        let rt = self.rtprop?;
        (bw > 0.0).then_some(gain * bw * rt.ns() as f64 * 1e-9)
    }

    fn next_random(&mut self) -> u64 {
        // SplitMix64: the flow's own deterministic stream.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.state = State::ProbeBw;
        self.cwnd_gain = self.p.cwnd_gain;
        // A random phase other than the 0.75 one (index 1): 0 or 2..7.
        let k = (self.next_random() % 7) as usize;
        self.cycle = if k == 0 { 0 } else { k + 1 };
        self.pacing_gain = GAIN_CYCLE[self.cycle];
        self.cycle_stamp = now;
    }

    fn update_round(&mut self, a: &AckInfo) {
        self.round_start = false;
        if let Some(rs) = a.rate {
            if rs.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = a.delivered;
                self.round += 1;
                self.round_start = true;
            }
        }
    }

    fn update_btlbw(&mut self, a: &AckInfo) {
        if let Some(rs) = a.rate {
            let r = rs.rate();
            if !rs.app_limited || r >= self.btlbw.get() {
                self.btlbw.update(self.round, r, BTLBW_ROUNDS);
            }
        }
    }

    fn check_full_pipe(&mut self) {
        if self.filled_pipe || !self.round_start {
            return;
        }
        let bw = self.btlbw.get();
        if bw >= self.full_bw * 1.25 {
            self.full_bw = bw;
            self.full_bw_rounds = 0;
        } else {
            self.full_bw_rounds += 1;
            if self.full_bw_rounds >= 3 {
                self.filled_pipe = true;
            }
        }
    }

    fn update_cycle(&mut self, a: &AckInfo) {
        if self.state != State::ProbeBw {
            return;
        }
        let full_length = a.now.saturating_since(self.cycle_stamp) > self.rtprop.unwrap_or_default();
        let inflight = a.in_use as f64;
        let advance = if self.pacing_gain > 1.0 {
            full_length && (a.dupacks > 0 || self.bdp(self.pacing_gain).is_some_and(|t| inflight >= t))
        } else if self.pacing_gain < 1.0 {
            full_length || self.bdp(1.0).is_some_and(|t| inflight <= t)
        } else {
            full_length
        };
        if advance {
            self.cycle = (self.cycle + 1) % GAIN_CYCLE.len();
            self.cycle_stamp = a.now;
            self.pacing_gain = GAIN_CYCLE[self.cycle];
        }
    }

    fn update_rtprop(&mut self, a: &AckInfo) {
        let expired = a.now > self.rtprop_stamp + SimDuration(self.p.rtprop_window_ns);
        if let Some(rtt) = a.rtt {
            if self.rtprop.is_none_or(|r| rtt <= r) || expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = a.now;
            }
        }
        if self.state != State::ProbeRtt && expired && self.rtprop.is_some() {
            self.state = State::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
            self.probe_rtt_done = None;
        }
        if self.state == State::ProbeRtt {
            match self.probe_rtt_done {
                None if (a.in_use as f64) <= MIN_CWND => {
                    self.probe_rtt_done = Some(a.now + SimDuration(self.p.probe_rtt_ns));
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = a.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && a.now >= done {
                        self.rtprop_stamp = a.now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        self.prior_cwnd = 0.0;
                        if self.filled_pipe {
                            self.enter_probe_bw(a.now);
                        } else {
                            self.state = State::Startup;
                            self.pacing_gain = HIGH_GAIN;
                            self.cwnd_gain = HIGH_GAIN;
                        }
                    }
                }
                None => {}
            }
        }
    }

    fn update_state(&mut self, a: &AckInfo) {
        if self.state == State::Startup && self.filled_pipe {
            self.state = State::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.state == State::Drain && self.bdp(1.0).is_some_and(|t| a.in_use as f64 <= t) {
            self.enter_probe_bw(a.now);
        }
    }

    fn update_pacing_rate(&mut self, a: &AckInfo) {
        let bw = self.btlbw.get();
        let rate = if bw > 0.0 {
            self.pacing_gain * bw
        } else if let Some(srtt) = a.srtt.or(a.rtt) {
            HIGH_GAIN * self.p.initial_cwnd / (srtt.ns().max(1) as f64 * 1e-9)
        } else {
            return;
        };
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn update_cwnd(&mut self, a: &AckInfo, newly: f64) {
        let target = self.bdp(self.cwnd_gain);
        if a.now < self.conservation_until {
            self.cwnd = self.cwnd.max(a.in_use as f64 + newly);
        } else if let (true, Some(t)) = (self.filled_pipe, target) {
            self.cwnd = (self.cwnd + newly).min(t);
        } else if target.is_none_or(|t| self.cwnd < t) || (a.delivered as f64) < self.p.initial_cwnd {
            self.cwnd += newly;
        }
        self.cwnd = self.cwnd.max(MIN_CWND);
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(MIN_CWND);
        }
        self.cwnd = self.cwnd.min(self.max_window);
    }

    fn on_any_ack(&mut self, a: &AckInfo, newly: f64) {
        self.mss = a.mss.max(1);
        self.update_round(a);
        self.update_btlbw(a);
        self.check_full_pipe();
        self.update_cycle(a);
        self.update_rtprop(a);
        self.update_state(a);
        self.update_pacing_rate(a);
        self.update_cwnd(a, newly);
    }
}

impl CongestionControl for Bbr {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn on_ack(&mut self, a: &AckInfo) -> Reaction {
        let mut r = Reaction::NONE;
        if let Some(recover) = self.recover {
            if a.ack >= recover {
                // Full ACK: recovery over, the window back to at least its value before.
                self.recover = None;
                self.cwnd = self.cwnd.max(self.prior_cwnd);
                self.prior_cwnd = 0.0;
            } else {
                r = Reaction::RETRANSMIT; // NewReno's partial ACK
            }
        }
        self.on_any_ack(a, a.acked as f64);
        r
    }

    fn on_dup_ack(&mut self, a: &AckInfo) -> Reaction {
        // Without SACK a duplicate ACK stands for one packet delivered (Linux's tcp_add_reno_sack).
        let mut r = Reaction::NONE;
        if self.recover.is_none() && a.dupacks == 3 {
            self.recover = Some(a.snd_max);
            self.prior_cwnd = self.cwnd;
            // Packet conservation for one round trip (the draft's BBRModulateCwndForRecovery).
            self.conservation_until = a.now + self.rtprop.unwrap_or_default();
            self.cwnd = a.in_use as f64 + 1.0;
            r = Reaction::RETRANSMIT;
        } else if self.recover.is_some() {
            self.cwnd += 1.0;
        }
        self.on_any_ack(a, 0.0);
        r
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        self.recover = Some(t.snd_max);
        self.conservation_until = SimTime::ZERO;
        self.cwnd = 1.0;
    }

    fn in_recovery(&self) -> bool {
        self.recover.is_some()
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        // Segments per second to bits per second, at the data packet's size: the sender passes
        // mss; the header (a few bytes) is left out, so BBR paces its payload at BtlBw.
        (self.pacing_rate > 0.0).then_some(self.pacing_rate * self.mss as f64 * 8.0)
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bbr_btlbw_bps", self.btlbw.get() * self.mss as f64 * 8.0));
        out.push(("bbr_rtprop_s", self.rtprop.map_or(f64::NAN, |r| r.ns() as f64 * 1e-9)));
        out.push(("bbr_state", self.state as u8 as f64));
        out.push(("bbr_cycle", self.cycle as f64));
        out.push(("bbr_pacing_gain", self.pacing_gain));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::RateSample;

    fn params() -> Params {
        Params {
            initial_cwnd: 10.0,
            rto: RtoParams::JACOBSON,
            cwnd_gain: 2.0,
            rtprop_window_ns: 10_000_000_000,
            probe_rtt_ns: 200_000_000,
        }
    }

    #[test]
    fn the_max_filter_keeps_the_largest_of_the_last_rounds() {
        let mut f = MaxFilter::default();
        for (round, v) in [(0, 5.0), (1, 9.0), (2, 3.0), (5, 4.0)] {
            f.update(round, v, 10);
        }
        assert_eq!(f.get(), 9.0);
        f.update(11, 2.0, 10); // the window is rounds 2..=11: round 1's 9 is out
        assert_eq!(f.get(), 4.0);
        f.update(15, 1.0, 10); // rounds 6..=15: round 5's 4 is out
        assert_eq!(f.get(), 2.0);
    }

    #[test]
    fn startup_gain_doubles_the_rate_per_round_and_probe_bw_never_starts_at_0_75() {
        // 2/ln 2: pacing at this gain times the delivery rate doubles delivery each round.
        assert!((HIGH_GAIN - 2.0 / std::f64::consts::LN_2).abs() < 1e-12);
        let mut starts = [0usize; 8];
        for seed in 0..700 {
            let mut b = Bbr::new(&params(), 1000);
            b.reseed(seed);
            b.enter_probe_bw(SimTime::ZERO);
            starts[b.cycle] += 1;
        }
        assert_eq!(starts[1], 0, "never the 0.75 phase: {starts:?}");
        assert!(starts.iter().enumerate().filter(|&(i, _)| i != 1).all(|(_, &n)| n > 60), "{starts:?}");
    }

    /// ACKs one per segment at a steady delivery rate.
    struct Feed {
        t: u64,
        delivered: u64,
    }

    impl Feed {
        /// `rounds` round trips of `rtt` ns at `bw` segments/s, `inflight` segments in flight,
        /// RTT samples of `sample` ns.
        fn run(&mut self, b: &mut Bbr, rounds: u64, bw: f64, rtt: u64, inflight: u32, sample: u64) {
            let per_round = (bw * rtt as f64 * 1e-9).round() as u64;
            for _ in 0..rounds * per_round {
                self.t += rtt / per_round;
                self.delivered += 1;
                let rs = RateSample {
                    delivered: per_round,
                    interval: SimDuration(rtt),
                    prior_delivered: self.delivered.saturating_sub(per_round),
                    app_limited: false,
                };
                b.on_ack(&AckInfo {
                    now: SimTime(self.t),
                    acked: 1,
                    mss: 1000,
                    in_use: inflight,
                    delivered: self.delivered,
                    rate: Some(rs),
                    rtt: Some(SimDuration(sample)),
                    ..Default::default()
                });
            }
        }
    }

    const RTT: u64 = 40_000_000; // 40 ms
    const BW: f64 = 1250.0; // 10 Mbit/s of 1000-byte segments: BDP 50 segments

    #[test]
    fn a_flat_bandwidth_fills_the_pipe_in_three_rounds_then_drain_then_probe_bw() {
        let mut b = Bbr::new(&params(), 10_000);
        let mut feed = Feed { t: 0, delivered: 0 };
        feed.run(&mut b, 3, BW, RTT, 200, RTT);
        assert!(!b.filled_pipe, "round 1 sets full_bw, rounds 2 and 3 count 1 and 2");
        feed.run(&mut b, 1, BW, RTT, 200, RTT);
        assert!(b.filled_pipe, "3 rounds without 25% growth: full pipe");
        assert_eq!(b.state(), State::Drain, "in flight 200 > BDP 50: still draining");
        assert!((b.pacing_gain - 1.0 / HIGH_GAIN).abs() < 1e-12);
        feed.run(&mut b, 1, BW, RTT, 40, RTT);
        assert_eq!(b.state(), State::ProbeBw, "in flight 40 <= BDP 50");
        // In PROBE_BW cwnd settles at cwnd_gain x BDP = 100 segments; 70 in flight lets every
        // phase end (1.25's needs 62.5 in flight).
        let mut seen = [false; 8];
        for _ in 0..20 {
            feed.run(&mut b, 1, BW, RTT, 70, RTT);
            seen[b.cycle()] = true;
        }
        assert!((b.cwnd() - 100.0).abs() < 1e-9, "{}", b.cwnd());
        assert!(seen.iter().all(|&s| s), "a phase per RTprop visits all eight: {seen:?}");
        assert!((b.pacing_rate_bps().unwrap() - b.pacing_gain * BW * 8000.0).abs() < 1e-6);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_holds_four_packets_for_200_ms_and_a_round() {
        let mut b = Bbr::new(&params(), 10_000);
        let mut feed = Feed { t: 0, delivered: 0 };
        feed.run(&mut b, 8, BW, RTT, 40, RTT);
        assert_eq!(b.state(), State::ProbeBw);
        let stamp = feed.t;
        // Then only samples 5 ms above RTprop: after 10 s the estimate expires.
        let (mut entered, mut left) = (None, None);
        while feed.t < stamp + 11_000_000_000 {
            let in_use = if b.state() == State::ProbeRtt { 4 } else { 60 };
            feed.run(&mut b, 1, BW, RTT, in_use, RTT + 5_000_000);
            if b.state() == State::ProbeRtt && entered.is_none() {
                entered = Some(feed.t);
                assert_eq!(b.cwnd(), MIN_CWND);
            }
            if entered.is_some() && left.is_none() && b.state() != State::ProbeRtt {
                left = Some(feed.t);
            }
        }
        let (e, l) = (entered.expect("entered PROBE_RTT"), left.expect("left PROBE_RTT"));
        assert!((stamp + 10_000_000_000..stamp + 10_000_000_000 + 2 * RTT).contains(&e), "entered at {e}");
        let held = l - e;
        assert!((200_000_000..=200_000_000 + 2 * RTT).contains(&held), "held {held} ns: 200 ms and a round trip");
        assert_eq!(b.state(), State::ProbeBw, "pipe filled: back to PROBE_BW");
        assert_eq!(b.rtprop(), Some(SimDuration(RTT + 5_000_000)), "the refreshed estimate");
        assert!(b.cwnd() > MIN_CWND, "cwnd restored");
    }
}
