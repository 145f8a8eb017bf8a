//! The sender's timeouts: the lazily re-armed timer ([`LazyTimer`], also the pacer's) and what
//! an expiry does ([`Sender::on_timeout`]).
//!
//! Two timeout mechanisms, chosen by the congestion control's estimator:
//! - Jacobson/Karels (every cc but generic and decbit): one retransmission timer, started when a
//!   segment leaves with none running, restarted by each ACK of new data (RFC 6298), stopped
//!   when nothing is outstanding. On expiry the timeout backs off, the congestion control is
//!   told, and the sender goes back to `snd_una` and resends as the window allows. Round-trip
//!   samples follow Karn's rule: an ACK caused by a retransmitted packet gives none.
//! - generic (the FQ paper): each outstanding segment has its own timer; a segment not
//!   acknowledged in time is retransmitted alone and its timer set again. A sample from an ACK
//!   caused by a retransmission runs from the segment's first transmission.
//! - Jacobson/Karels on per-segment timers (`timers = "per_segment"`: the FQ paper's JK model,
//!   "adding ... adjustable windows, better timeout calculations, and fast retransmit to our
//!   generic flow control algorithm", section 4): the generic's timers, each set to the
//!   Jacobson timeout backed off as Karn's rule says (doubled by each expiry of the segment,
//!   and the largest such back-off kept for every segment sent until a valid sample), Karn's
//!   sampling rule, and the control's
//!   reactions; a fast retransmit resends the missing segment alone (4.3BSD-Tahoe's), never
//!   going back.
//!
//! Timers are re-armed lazily: the agent keeps the deadline it wants and schedules a timer
//! event only when none is pending before it; a timer event that finds the deadline moved
//! later re-arms itself, and a generation number discards superseded events.
//!
//! Where the timers are set: as a segment leaves (`send.rs`), on each ACK (`ack.rs`) and as a
//! SACK recovery begins (`sack.rs`).

use super::super::cc::TimeoutInfo;
use super::super::rtt::MAX_BACKOFF_SHIFT;
use super::super::Timer;
use super::Sender;
use crate::agent::{Outbox, TimerReq};
use crate::units::SimTime;

/// A one-shot timer re-armed lazily (see the module doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LazyTimer {
    kind: Timer,
    gen: u32,
    /// When the agent wants to be woken, if at all.
    deadline: Option<SimTime>,
    /// The time of the timer event of generation `gen` in the queue, if any.
    pending: Option<SimTime>,
}

impl LazyTimer {
    pub(crate) const fn new(kind: Timer) -> Self {
        LazyTimer { kind, gen: 0, deadline: None, pending: None }
    }

    pub(crate) fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Want to be woken at `at`.
    pub(crate) fn set(&mut self, at: SimTime, out: &mut Outbox) {
        self.deadline = Some(at);
        if self.pending.is_none_or(|p| p > at) {
            self.gen = self.gen.wrapping_add(1);
            self.pending = Some(at);
            out.timers.push(TimerReq { at, kind: self.kind.kind(), gen: self.gen });
        }
    }

    pub(crate) fn cancel(&mut self) {
        self.deadline = None;
    }

    /// A timer event of generation `gen` fired: whether the deadline has come (it is then
    /// cleared). A deadline still ahead is re-armed.
    pub(crate) fn fire(&mut self, now: SimTime, gen: u32, out: &mut Outbox) -> bool {
        if gen != self.gen || self.pending.is_none() {
            return false;
        }
        self.pending = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                self.set(d, out);
                false
            }
            None => false,
        }
    }
}

impl Sender {
    pub(super) fn on_timeout(&mut self, now: SimTime, out: &mut Outbox) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let info = TimeoutInfo {
            now,
            flight: self.segs_in(self.snd_una, self.snd_max),
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            in_sack_recovery: self.recovery.is_some(),
        };
        if self.per_packet {
            let due: Vec<u64> = (0..self.segs.len())
                .filter(|&i| self.extras()[i].deadline <= now)
                .map(|i| self.snd_una + i as u64 * self.mss)
                .collect();
            if !due.is_empty() {
                out.timeouts += due.len() as u32;
                if !self.sample_first_sent {
                    // Karn: the largest back-off of a segment timed out holds until a sample.
                    let most = due.iter().map(|&seq| self.seg_at(seq).sends).max().unwrap_or(0);
                    self.shift = self.shift.max(most).min(MAX_BACKOFF_SHIFT);
                    self.rtt.backed_off_to(self.shift);
                }
                self.cc.inner_mut().on_timeout(&info);
                for seq in due {
                    self.transmit(now, seq, out);
                }
            }
            if let Some(d) = self.extras().iter().map(|s| s.deadline).min() {
                self.rto.set(d, out);
            }
        } else {
            out.timeouts += 1;
            self.ecn_recover = self.ecn_recover.max(self.snd_max);
            self.send_cwr = true;
            self.shift = (self.shift + 1).min(MAX_BACKOFF_SHIFT);
            self.rtt.backed_off_to(self.shift);
            self.cc.inner_mut().on_timeout(&info);
            // RFC 6675 section 5.1: the recovery ends, and no new one before this is acknowledged.
            self.recovery = None;
            self.no_recovery_before = self.snd_max;
            for s in &mut self.segs {
                s.rxt = false;
            }
            self.snd_nxt = self.snd_una;
            self.dupacks = 0;
            self.send_allowed(now, out);
            self.rto.set(self.rtt.deadline(now, self.shift), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{drop_once, GBPS, RTT, SEG};
    use super::*;
    use crate::packet::flags;
    use crate::tcp::harness::{common, Bench, MS};

    /// A flow whose packets sent in [2 s, 12 s) are all lost, run to 20 s; with the times its
    /// first lost segment was sent again, after checking that each expiry doubled the timeout.
    fn through_an_outage(config: &str) -> (Bench, Vec<u64>) {
        let mut b = Bench::new(&common(config), None, GBPS, 50 * MS);
        b.drop = Box::new(|_, t| (2000 * MS..12000 * MS).contains(&t));
        b.run_until(20_000 * MS);
        let una = b.sent.iter().find(|s| s.dropped).unwrap().seq;
        let resends: Vec<u64> = b.sends_of(una).into_iter().skip(1).collect();
        let gaps: Vec<u64> = resends.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 4, "{resends:?}");
        for g in gaps.windows(2).take(4) {
            assert_eq!(g[1], 2 * g[0], "each expiry doubles the timeout: {gaps:?}");
        }
        (b, resends)
    }

    #[test]
    fn after_a_syn_timeout_data_starts_with_the_timeout_rfc_6298_asks() {
        // The first SYN and every first sending of data are lost. The SYN is resent after the
        // initial 1 s; its SYN-ACK gives no sample (Karn), so the first flight's timer runs with
        // no estimate: initial_rto (1 s), or with rto_after_syn_timeout = "3s" RFC 6298 5.7's 3 s.
        let timeouts = |keys: &str, syn_lost: bool| {
            let c = common(&format!("cc = \"cubic\"\nhandshake = true\n{keys}"));
            let mut b = Bench::new(&c, Some(10 * SEG), GBPS, 50 * MS);
            b.drop = Box::new(
                move |p, _| {
                    if p.has(flags::SYN) {
                        syn_lost && !p.has(flags::RETX)
                    } else {
                        !p.has(flags::RETX)
                    }
                },
            );
            b.run_until(20_000 * MS);
            assert!(b.completed.is_some());
            let data = b.sent.iter().find(|s| s.flags & flags::SYN == 0).unwrap().t;
            (data, b.timeouts.clone())
        };
        let (data, rfc6298) = timeouts("rto_after_syn_timeout = \"3s\"", true);
        assert_eq!(rfc6298, vec![1000 * MS, data + 3000 * MS], "the SYN's, then the data's at 3 s");
        let (data, initial) = timeouts("", true);
        assert_eq!(initial, vec![1000 * MS, data + 1000 * MS], "without the key: initial_rto");
        // A SYN answered the first time gives a sample (100 ms): the key changes nothing, the
        // data's timeout is the estimate's (3 x 100 ms).
        let (data, sampled) = timeouts("rto_after_syn_timeout = \"3s\"", false);
        assert_eq!(sampled.len(), 1);
        assert!((sampled[0] - data).abs_diff(300 * MS) < MS, "{sampled:?} after data at {data}");
        assert_eq!(timeouts("", false).1, sampled);
    }

    #[test]
    fn bsd_clears_srtt_after_four_back_offs_and_starts_it_from_the_next_sample() {
        let outage = |clear: u32| {
            let c = common(&format!("cc = \"tahoe\"\nrto_k = 2\nclear_srtt_after_backoffs = {clear}"));
            let mut b = Bench::new(&c, None, GBPS, 50 * MS);
            b.drop = Box::new(|_, t| (2000 * MS..12000 * MS).contains(&t));
            b.run_until(11_000 * MS);
            let during = (b.sender.shift, b.sender.rtt.srtt());
            b.run_until(20_000 * MS);
            (during, b.sender.rtt.srtt())
        };
        let ((shift, cleared), after) = outage(4);
        assert!(shift >= 4, "{shift} back-offs by 11 s");
        assert_eq!(cleared, None, "srtt cleared during the outage");
        assert!(after.is_some_and(|s| (s - 1e8).abs() < 2e7), "a fresh estimate near the 100 ms path: {after:?}");
        let ((_, kept), _) = outage(0);
        assert!(kept.is_some(), "without the key srtt is kept through the back-offs");
    }

    #[test]
    fn a_timeout_backs_off_exponentially_until_an_ack_returns() {
        let (b, resends) = through_an_outage("cc = \"reno\"");
        // The window sits at one packet through the outage, the threshold falls to 2.
        let during: Vec<(u64, f64, f64)> =
            b.trace.iter().filter(|p| (resends[1]..12_000 * MS).contains(&p.0)).copied().collect();
        assert!(during.iter().all(|p| p.1 == 1.0 && p.2 == 2.0), "{during:?}");
        // After the outage the flow recovers and the timeout is the estimate again.
        assert!(b.goodput > b.sent.iter().filter(|s| s.t < 12_000 * MS && !s.dropped).count() as u64 * SEG);
        assert!(b.sender.rtt.backed_off(b.sender.shift).ns() < 1_000 * MS);
        // Karn: no sample from the retransmissions (they took seconds).
        assert!(b.rtts.iter().all(|&r| r < 2 * RTT), "{:?}", b.rtts.iter().max());
    }

    #[test]
    fn duplicates_provoked_by_going_back_after_a_timeout_trigger_no_fast_retransmit() {
        // Twenty losses in one large window: NewReno repairs one per round trip, its impatient
        // timer (200 ms, two round trips) expires, and it goes back N, resending segments the
        // receiver already holds. Their duplicate ACKs acknowledge exactly what was outstanding
        // at the timeout and must not be taken for a new loss (ssthresh would collapse to 2).
        let mut b = Bench::new(&common("cc = \"newreno\""), None, GBPS, 50 * MS);
        b.drop =
            Box::new(|p, _| (200 * SEG..400 * SEG).contains(&p.seq) && p.seq % (10 * SEG) == 0 && !p.has(flags::RETX));
        b.run_until(3000 * MS);
        assert!(!b.timeouts.is_empty(), "the scenario needs a timeout during recovery");
        let after: Vec<f64> = b.trace.iter().filter(|p| p.0 > b.timeouts[0]).map(|p| p.2).collect();
        let lowest = after.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(lowest > 20.0, "ssthresh fell to {lowest} after the timeout");
    }

    #[test]
    fn coarse_ticks_put_timeouts_on_tick_boundaries() {
        let c = common("cc = \"slowstart\"\nmax_window = 8\ntick = \"500ms\"\nmin_rto = \"1s\"");
        let mut b = Bench::new(&c, None, GBPS, 50 * MS);
        b.drop = Box::new(|_, t| (2000 * MS..5000 * MS).contains(&t));
        b.run_until(10_000 * MS);
        assert!(b.timeouts.len() >= 2);
        assert!(b.timeouts.iter().all(|t| t % (500 * MS) == 0), "{:?}", b.timeouts);
        // Round trips of 100 ms measure 0 or 1 ticks: the floor sets the timeout.
        assert_eq!(b.sender.rtt.rto().ns(), 1000 * MS);
    }

    #[test]
    fn bsd_timing_samples_one_segment_per_round_trip_and_none_across_a_retransmission() {
        // 4.3BSD's t_rtt: with a window of 8 over a 100 ms round trip, the segment timed is
        // acknowledged a round trip after it left, and the next one timed leaves at that ACK,
        // so there is one sample per round trip; every_ack takes one per ACK of new data.
        let run = |timing: &str| {
            let c = common(&format!("cc = \"slowstart\"\nmax_window = 8\nrtt_timing = \"{timing}\""));
            let mut b = Bench::new(&c, None, GBPS, 50 * MS);
            b.drop = drop_once(100);
            b.run_until(4000 * MS);
            b
        };
        let (every, one) = (run("every_ack"), run("one_at_a_time"));
        assert!(every.timeouts.len() == 1 && one.timeouts.len() == 1, "the drop costs a timeout");
        // Round trips outside the outage (from the lost segment's sending to its timeout).
        let round_trips = (4000 * MS - (one.timeouts[0] - one.sends_of(100 * SEG)[0])) / RTT;
        assert!(one.rtts.len() as u64 <= round_trips + 1, "{} samples, {round_trips} round trips", one.rtts.len());
        assert!(one.rtts.len() as u64 >= round_trips - 8, "{} samples, {round_trips} round trips", one.rtts.len());
        assert!(every.rtts.len() > 6 * one.rtts.len(), "{} against {}", every.rtts.len(), one.rtts.len());
        // Karn: the timing in flight at the loss gives no sample; every sample is one round trip.
        assert!(one.rtts.iter().all(|&r| r.abs_diff(RTT) < MS), "{:?}", one.rtts);
    }

    #[test]
    fn generic_times_each_packet_alone_and_never_goes_back() {
        // 10 Mbps: a window of 5 leaves over 3.2 ms, so the packets' timers differ.
        let mut b = Bench::new(&common("cc = \"generic\"\nmax_window = 5"), None, 10_000_000, 50 * MS);
        b.drop = drop_once(12);
        b.run_until(5000 * MS);
        assert!(b.trace.iter().all(|p| p.1 == 5.0), "the window never changes");
        // Segment 12 and the four sent after it (received, but not acknowledgeable before the
        // hole is filled) time out, each on its own timer, each resent once; nothing else is.
        let resent: Vec<u64> = (0..40).filter(|k| b.sends_of(k * SEG).len() > 1).collect();
        assert_eq!(resent, [12, 13, 14, 15, 16]);
        assert_eq!(b.timeouts.len(), 5);
        let waits: Vec<u64> = resent.iter().map(|k| b.sends_of(k * SEG)[1] - b.sends_of(k * SEG)[0]).collect();
        let srtt = b.rtts[..10].iter().sum::<u64>() as f64 / 10.0;
        for w in &waits {
            assert!((*w as f64 - 2.0 * srtt).abs() < 0.05 * srtt, "timeout = 2 x srtt: {waits:?}, srtt {srtt}");
        }
        let firsts: Vec<u64> = resent.iter().map(|k| b.sends_of(k * SEG)[0]).collect();
        assert!(
            firsts.windows(2).all(|f| f[1] > f[0]) && waits.windows(2).all(|w| w[0].abs_diff(w[1]) < MS),
            "own timers: {firsts:?} {waits:?}"
        );
        // The retransmitted packet's sample runs from its first transmission.
        let (first, again) = (b.sends_of(12 * SEG)[0], b.sends_of(12 * SEG)[1]);
        assert!(b.rtts.iter().any(|&r| r >= again - first + RTT), "{:?}", b.rtts);
    }

    #[test]
    fn generic_per_packet_samples_take_every_packet_an_ack_covers_from_its_first_sending() {
        let run = |samples: &str| {
            let c = common(&format!("cc = \"generic\"\nmax_window = 5\nsamples = \"{samples}\""));
            let mut b = Bench::new(&c, None, 10_000_000, 50 * MS);
            b.drop = drop_once(12);
            b.run_until(5000 * MS);
            b
        };
        let (per_ack, per_packet) = (run("per_ack"), run("per_packet"));
        // One sample per segment acknowledged, in order: segment k's is rtts[k].
        let acked = (per_packet.sender.snd_una / SEG) as usize;
        assert_eq!(per_packet.rtts.len(), acked);
        // Segments 12-16 are acknowledged by one ACK (the hole filled): each sample runs from
        // that segment's own first sending to the same instant.
        let ack_at: Vec<u64> =
            (12..17).map(|k| per_packet.sends_of(k * SEG)[0] + per_packet.rtts[k as usize]).collect();
        assert!(ack_at.iter().all(|&t| t == ack_at[0]), "{ack_at:?}");
        assert!(ack_at[0] > per_packet.sends_of(12 * SEG)[1], "after the hole's resend");
        // The estimate is the EWMA (gain 1/8) of those samples, computed here apart.
        let mut srtt = per_packet.rtts[0] as f64;
        for &r in &per_packet.rtts[1..] {
            srtt += (r as f64 - srtt) / 8.0;
        }
        let got = per_packet.sender.rtt.srtt().unwrap();
        assert!((got - srtt).abs() < 1e-6 * srtt, "{got} against {srtt}");
        // The default samples the packet that caused each ACK: segments 13-16, delivered behind
        // the hole, give none; the same run otherwise.
        assert_eq!(per_ack.rtts.len(), (per_ack.sender.snd_una / SEG) as usize - 4);
    }

    #[test]
    fn jk_on_per_segment_timers_resends_the_hole_at_the_third_duplicate_and_never_goes_back() {
        let jk = "cc = \"jk\"\nmax_window = 5\ninitial_ssthresh = 5\ntimers = \"per_segment\"";
        let mut b = Bench::new(&common(jk), None, 10_000_000, 50 * MS);
        b.drop = drop_once(12);
        b.run_until(5000 * MS);
        // Segment 12 goes again on the third duplicate ACK, well before a timer could expire.
        let sends = b.sends_of(12 * SEG);
        assert_eq!(sends.len(), 2, "{sends:?}");
        assert!(sends[1] - sends[0] < RTT + 10 * MS, "fast retransmit: {sends:?}");
        // Nothing outside the window of the loss is resent, and nothing twice (no going back).
        let resent: Vec<u64> = (0..60).filter(|k| b.sends_of(k * SEG).len() > 1).collect();
        assert!(resent.iter().all(|k| (12..17).contains(k)), "{resent:?}");
        assert!((0..60).all(|k| b.sends_of(k * SEG).len() <= 2));
        // The window fell to one packet and grows again.
        assert!(b.trace.iter().any(|p| p.1 == 1.0));
        assert_eq!(b.trace.last().unwrap().1, 5.0);
    }

    #[test]
    fn jk_resuming_after_a_fast_retransmit_resends_only_the_holes() {
        // Two losses in one window of 5 (segments 12 and 14). Going back (ns-2) resends from 14
        // on when the partial ACK comes, segments the receiver holds among them; resuming
        // (4.3BSD-Tahoe) resends 12 alone, then 14 on its timeout, and nothing else.
        let run = |after: &str| {
            let jk = format!("cc = \"jk\"\nmax_window = 5\ninitial_ssthresh = 5\nafter_fast_retransmit = \"{after}\"");
            let mut b = Bench::new(&common(&jk), None, 10_000_000, 50 * MS);
            b.drop = Box::new(|p, _| (p.seq == 12 * SEG || p.seq == 14 * SEG) && !p.has(flags::RETX));
            b.run_until(5000 * MS);
            b
        };
        let resent = |b: &Bench| -> Vec<u64> { (0..60).filter(|k| b.sends_of(k * SEG).len() > 1).collect() };
        let (back, resume) = (run("go_back"), run("resume"));
        assert_eq!(resent(&resume), [12, 14]);
        assert!((0..60).all(|k| resume.sends_of(k * SEG).len() <= 2));
        assert_eq!(resume.timeouts.len(), 1, "the second hole waits for the timer");
        let sends = resume.sends_of(12 * SEG);
        assert!(sends[1] - sends[0] < RTT + 10 * MS, "12 by fast retransmit: {sends:?}");
        let held: Vec<u64> = resent(&back).into_iter().filter(|k| ![12, 14].contains(k)).collect();
        assert!(!held.is_empty(), "going back resends what the receiver holds: {:?}", resent(&back));
        assert!(back.timeouts.is_empty(), "going back repairs both holes without the timer");
    }

    #[test]
    fn jk_on_per_segment_timers_backs_off_as_karn_until_a_valid_sample() {
        let jk = "cc = \"jk\"\nmax_window = 5\ninitial_ssthresh = 5\ntimers = \"per_segment\"";
        let (b, _) = through_an_outage(jk);
        // After the outage: recovered, the timeout back to the estimate, no sample from a resend.
        assert!(b.sender.rtt.backed_off(b.sender.shift).ns() < 1_000 * MS);
        assert!(b.rtts.iter().all(|&r| r < 2 * RTT), "{:?}", b.rtts.iter().max());
    }

    #[test]
    fn lazy_timer_fires_once_at_the_latest_deadline() {
        let mut out = Outbox::default();
        let mut t = LazyTimer::new(Timer::Rto);
        t.set(SimTime(100), &mut out);
        t.set(SimTime(150), &mut out); // later: no new event
        assert_eq!(out.timers.len(), 1);
        t.set(SimTime(80), &mut out); // earlier: a new event supersedes the first
        assert_eq!(out.timers.len(), 2);
        let (first, second) = (out.timers[0], out.timers[1]);
        out.timers.clear();
        assert!(!t.fire(SimTime(100), first.gen, &mut out), "superseded");
        t.set(SimTime(120), &mut out);
        assert!(!t.fire(SimTime(80), second.gen, &mut out), "deadline moved to 120: re-armed");
        assert_eq!(out.timers[0].at, SimTime(120));
        assert!(t.fire(SimTime(120), out.timers[0].gen, &mut out));
        t.set(SimTime(200), &mut out);
        t.cancel();
        let gen = out.timers.last().unwrap().gen;
        assert!(!t.fire(SimTime(200), gen, &mut out), "cancelled");
    }
}
