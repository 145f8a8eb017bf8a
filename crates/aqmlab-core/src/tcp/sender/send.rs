//! The send path: what the window, the application and the pacer let out, and putting a
//! segment on the wire.
//!
//! The sender sends while fewer than `min(cwnd, max_window)` whole segments are in
//! [snd_una, snd_nxt) (the 4.3BSD rule, so Reno's inflated window lets new data out during fast
//! recovery); limited transmit (RFC 3042, `limited_transmit = true`) adds a segment for each of
//! the first two duplicate ACKs. A paced sender (`pacing = true`, or BBR) spaces its packets at
//! the pacing rate and wakes on its own timer for the next. New data is sent ECT when the flow
//! is ECN-capable, with CWR after a reduction (see `ack.rs`); each transmission sets the
//! retransmission timers (`timers.rs`) and records the delivery-rate snapshot (`delivery.rs`).

use super::super::Feedback;
use super::delivery::Snapshot;
use super::timers::LazyTimer;
use super::{Seg, SegExtra, Sender};
use crate::agent::Outbox;
use crate::packet::{flags, Packet};
use crate::units::{SimDuration, SimTime};

/// A paced sender's state: when the next packet may leave, and the timer that wakes it then.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacer {
    pub(super) next_send: SimTime,
    pub(super) timer: LazyTimer,
}

impl Sender {
    /// Bytes the application lets the sender send by `now`.
    pub(super) fn limit(&self, now: SimTime) -> u64 {
        let supplied = self.source.as_ref().map_or(u64::MAX, |s| s.supplied());
        let cap = supplied.min(self.total);
        if self.when.stop.is_some_and(|s| now >= s) {
            cap.min(self.snd_max)
        } else {
            cap
        }
    }

    /// The pacing rate, bit/s: the control's own (BBR), else Linux's rule for a paced flow
    /// (tcp_update_pacing_rate: cwnd x packet size / srtt, times 2 in slow start and 1.2 after);
    /// none before the first round-trip sample.
    pub fn pacing_rate_bps(&self) -> Option<f64> {
        self.pacer.as_ref()?;
        let cc = self.cc.inner();
        if let Some(r) = cc.pacing_rate_bps() {
            return Some(r);
        }
        let srtt = self.rtt.srtt()?;
        let ratio = if cc.cwnd() < cc.ssthresh() / 2.0 { 2.0 } else { 1.2 };
        Some(ratio * cc.cwnd() * (self.mss + self.header as u64) as f64 * 8.0 / (srtt.max(1.0) * 1e-9))
    }

    /// Send what the window and the application allow (and, paced, what the rate allows now:
    /// the rest when the pacing timer fires).
    pub(super) fn send_allowed(&mut self, now: SimTime, out: &mut Outbox) {
        if self.recovery.is_some() {
            return self.sack_send(now, out);
        }
        let limit = self.limit(now);
        let wnd = self.window() + self.limited_transmit_allowance();
        while self.snd_nxt < limit {
            if self.sacked > 0 {
                // Going back after a timeout: the receiver holds the SACKed segments.
                while self.snd_nxt < self.snd_max && self.seg_at(self.snd_nxt).sacked {
                    self.snd_nxt = self.seg_end(self.snd_nxt);
                }
                if self.snd_nxt >= limit {
                    break;
                }
            }
            if self.in_use() >= wnd {
                break;
            }
            let seq = self.snd_nxt;
            if !self.pace(now, seq, out) {
                return;
            }
            self.transmit(now, seq, out);
            self.snd_nxt = self.seg_end(seq);
        }
    }

    /// Segments beyond the window that limited transmit allows now (RFC 3042 section 2): one per
    /// duplicate ACK for the first two, new data only, within the receiver's window; the
    /// congestion window itself is unchanged. From the third on the control's fast retransmit
    /// (or RFC 6675's recovery) takes over.
    fn limited_transmit_allowance(&self) -> u32 {
        if !self.limited_transmit || self.recovery.is_some() || self.snd_nxt < self.snd_max || self.dupacks > 2 {
            return 0;
        }
        let cwnd = self.window();
        (cwnd + self.dupacks).min(self.max_window.max(1)).saturating_sub(cwnd)
    }

    /// Segments the window is holding: those in [snd_una, snd_nxt), less the SACKed ones when
    /// going back after a timeout. (Outside recovery and timeouts SACKed segments still hold
    /// the window; `limited_transmit` adds its two segments on top.)
    fn in_use(&self) -> u32 {
        let n = self.segs_in(self.snd_una, self.snd_nxt);
        if self.sacked == 0 || self.snd_nxt >= self.snd_max {
            n
        } else {
            n - self.segs.iter().take(n as usize).filter(|s| s.sacked).count() as u32
        }
    }

    /// A paced sender: whether the segment at `seq` may leave now (if so, the next one's time is
    /// set); if not, the pacing timer is armed for when it may.
    pub(super) fn pace(&mut self, now: SimTime, seq: u64, out: &mut Outbox) -> bool {
        let Some(rate) = self.pacing_rate_bps() else { return true };
        let bits = ((self.seg_end(seq) - seq) + self.header as u64) as f64 * 8.0;
        let p = self.pacer.as_mut().expect("paced");
        if now < p.next_send {
            p.timer.set(p.next_send, out);
            return false;
        }
        p.next_send = now + SimDuration((bits / rate.max(1.0) * 1e9).ceil() as u64);
        true
    }

    /// Put the segment starting at `seq` on the wire (new or again).
    pub(super) fn transmit(&mut self, now: SimTime, seq: u64, out: &mut Outbox) {
        let idx = ((seq - self.snd_una) / self.mss) as usize;
        let end = self.seg_end(seq);
        let retx = seq < self.snd_max;
        if self.snd_una == self.snd_max {
            // Nothing in flight: a new sending burst starts (the draft's "pipe was empty").
            self.delivery.first_sent_time = now;
            self.delivery.delivered_time = now;
        }
        // Taken only by a sender that keeps per-segment extras (most keep none).
        let d = self.delivery;
        let snap = || Snapshot {
            delivered: d.delivered,
            delivered_time: d.delivered_time,
            first_sent_time: d.first_sent_time,
        };
        let app_ts = if retx {
            if self.timing {
                // A retransmission ends BSD's timing (Karn): the timed segment gives no sample.
                self.timing = false;
                self.segs.iter_mut().for_each(|s| s.timed = false);
            }
            let s = &mut self.segs[idx];
            s.sends += 1;
            s.rxt = true;
            s.last_sent = now;
            match self.extras.as_deref_mut() {
                Some(x) => {
                    x[idx].snap = snap();
                    x[idx].app_ts
                }
                None => SimTime::ZERO,
            }
        } else {
            debug_assert_eq!((seq, idx), (self.snd_max, self.segs.len()));
            let app_ts = self.source.as_mut().map_or(SimTime::ZERO, |s| s.take(now));
            let timed = !self.timing && self.rtt.params().times_one_at_a_time();
            self.timing |= timed;
            self.segs.push_back(Seg { first_sent: now, last_sent: now, sends: 1, sacked: false, rxt: false, timed });
            if let Some(x) = self.extras.as_deref_mut() {
                x.push_back(SegExtra { snap: snap(), app_ts, deadline: SimTime::ZERO });
            }
            self.snd_max = end;
            app_ts
        };
        let mut fl = 0;
        match self.feedback {
            Feedback::None => {}
            Feedback::CopyBit => fl |= flags::ECT,
            Feedback::Classic | Feedback::PerPacket if !retx => {
                fl |= self.ect;
                if std::mem::take(&mut self.send_cwr) {
                    fl |= flags::CWR;
                }
            }
            Feedback::Classic | Feedback::PerPacket => {}
        }
        if retx {
            fl |= flags::RETX;
        }
        let size = (end - seq) as u32 + self.header;
        out.packets.push(Packet {
            seq,
            echo: app_ts,
            flags: fl,
            ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, size)
        });
        if self.per_packet {
            // The generic backs each segment's timer off by its own resendings (when it backs
            // off at all); Karn's rule keeps the back-off for every segment until a sample.
            let own = self.segs[idx].sends - 1;
            let shift = if self.sample_first_sent { own } else { self.shift.max(own) };
            let d = self.rtt.deadline(now, shift);
            self.extra_mut(idx).deadline = d;
            if self.rto.deadline().is_none_or(|x| x > d) {
                self.rto.set(d, out);
            }
        } else if self.rto.deadline().is_none() {
            self.rto.set(self.rtt.deadline(now, self.shift), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{drop_once, GBPS, RTT, SEG};
    use crate::tcp::harness::{common, Bench, MS};

    /// The smallest gap between consecutive data transmissions in [from, to), and the largest
    /// window seen there.
    fn min_gap_and_max_cwnd(b: &Bench, from: u64, to: u64) -> (u64, f64) {
        let times: Vec<u64> = b.sent.iter().filter(|s| s.t >= from && s.t < to).map(|s| s.t).collect();
        let gap = times.windows(2).map(|w| w[1] - w[0]).min().unwrap();
        let cwnd = b.trace.iter().filter(|p| p.0 >= from && p.0 < to).map(|p| p.1).fold(0.0, f64::max);
        (gap, cwnd)
    }

    #[test]
    fn a_paced_sender_spaces_its_packets_at_srtt_over_1_2_cwnd() {
        // Linux's rule in congestion avoidance: rate = 1.2 cwnd x size / srtt, so consecutive
        // packets leave at least srtt / (1.2 cwnd) apart; unpaced, an ACK that opens the window
        // by two sends two back to back (the link's packet time apart at most).
        let config = "cc = \"reno\"\ninitial_ssthresh = 20";
        let mut paced = Bench::new(&common(&format!("{config}\npacing = true")), None, GBPS, 50 * MS);
        let mut unpaced = Bench::new(&common(config), None, GBPS, 50 * MS);
        paced.run_until(3000 * MS);
        unpaced.run_until(3000 * MS);
        let (gap, cwnd) = min_gap_and_max_cwnd(&paced, 2000 * MS, 3000 * MS);
        let expected = RTT as f64 / (1.2 * cwnd);
        assert!(gap as f64 >= 0.99 * expected, "paced: smallest gap {gap} ns, srtt / (1.2 cwnd) = {expected:.0} ns");
        let (gap, _) = min_gap_and_max_cwnd(&unpaced, 2000 * MS, 3000 * MS);
        assert!((gap as f64) < expected / 10.0, "unpaced: smallest gap {gap} ns");
        // Pacing costs no throughput here: the same data acknowledged within a round trip's worth.
        let acked = |b: &Bench| b.sent.iter().filter(|s| !s.retx).count() as f64;
        assert!((acked(&paced) - acked(&unpaced)).abs() <= cwnd, "{} vs {}", acked(&paced), acked(&unpaced));
    }

    #[test]
    fn limited_transmit_turns_a_small_windows_timeout_into_a_fast_retransmit() {
        // Six segments, a window of three in congestion avoidance, the second lost: its two
        // successors in flight send two duplicate ACKs, one short of fast retransmit. RFC 3042
        // sends a new segment on each, whose duplicate ACKs complete the three.
        for (cc, sack) in [("reno", false), ("newreno", false), ("cubic", false), ("cubic", true), ("dctcp", true)] {
            let keys = |lt: bool| {
                format!("cc = \"{cc}\"\ninitial_cwnd = 3\ninitial_ssthresh = 2\nsack = {sack}\nlimited_transmit = {lt}")
            };
            let mut without = Bench::new(&common(&keys(false)), Some(6 * SEG), GBPS, 50 * MS);
            without.drop = drop_once(1);
            without.run_until(5000 * MS);
            assert_eq!(without.timeouts.len(), 1, "{cc} sack={sack} without limited transmit: a timeout");
            let mut with = Bench::new(&common(&keys(true)), Some(6 * SEG), GBPS, 50 * MS);
            with.drop = drop_once(1);
            with.run_until(5000 * MS);
            assert!(with.timeouts.is_empty(), "{cc} sack={sack} with limited transmit: {:?}", with.timeouts);
            assert_eq!(with.sends_of(SEG).len(), 2, "{cc} sack={sack}: the lost segment resent once");
            let (done_with, done_without) = (with.completed.unwrap(), without.completed.unwrap());
            assert!(done_with + 100 * MS < done_without, "{cc} sack={sack}: {done_with} vs {done_without}");
            // Only new data went out on the first two duplicate ACKs, and never more than two
            // segments beyond the window of three: segments 3, 4 and 5 once each.
            for k in 3..6 {
                assert_eq!(with.sends_of(k * SEG).len(), 1, "{cc} sack={sack}: segment {k}");
            }
        }
    }
}
