//! The ACK path: what an acknowledgement does to the window and the sequence state (the
//! round-trip sample, the control's answer and carrying it out, duplicate ACKs, the start and
//! end of a SACK recovery) and the ECN echo.
//!
//! ECN (RFC 3168, with [`Feedback::Classic`] or DCTCP's [`Feedback::PerPacket`]): new data
//! packets are sent ECT(0) (retransmissions not ECT, RFC 3168 section 6.1.5). An ACK carrying
//! ECE makes the congestion control reduce its window ([`on_ece`](super::super::cc::CongestionControl::on_ece)) unless
//! a reduction, for ECN or for a loss, happened within the last round trip (while `snd_una`
//! has not passed `snd_max` as it was then) or a loss recovery is under way; the next new data
//! packet then carries CWR. DECbit's bit ([`Feedback::CopyBit`]) is read by its control alone,
//! and every DECbit packet, retransmissions included, is capable.

use super::super::cc::{AckInfo, RateSample, Reaction};
use super::super::Feedback;
use super::sack::DUP_THRESH;
use super::Sender;
use crate::agent::Outbox;
use crate::packet::{flags, Packet};
use crate::units::{SimDuration, SimTime};

impl Sender {
    fn ack_info(&self, now: SimTime, pkt: &Packet, acked: u32, flight: u32, rtt: Option<SimDuration>) -> AckInfo {
        self.ack_info_with(now, pkt, acked, flight, rtt, None)
    }

    fn ack_info_with(
        &self,
        now: SimTime,
        pkt: &Packet,
        acked: u32,
        flight: u32,
        rtt: Option<SimDuration>,
        rate: Option<RateSample>,
    ) -> AckInfo {
        let una = self.segs.front();
        AckInfo {
            delivered: self.delivery.delivered,
            rate,
            now,
            ack: self.snd_una,
            mss: self.mss,
            acked,
            flight,
            in_use: self.segs_in(self.snd_una, self.snd_nxt),
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            dupacks: self.dupacks,
            ece: pkt.has(flags::ECE),
            rtt,
            srtt: self.rtt.srtt().map(|s| SimDuration(s as u64)),
            una_sent_at: una.map(|s| s.last_sent),
            una_sends: una.map_or(0, |s| s.sends),
        }
    }

    /// An ECN echo on this ACK: reduce once per round trip (see the module doc).
    fn ecn_echo(&mut self, pkt: &Packet, info: &AckInfo) {
        let reacts = matches!(self.feedback, Feedback::Classic | Feedback::PerPacket);
        let recovering = self.recovery.is_some() || self.cc.inner().in_recovery();
        if reacts && pkt.has(flags::ECE) && self.snd_una > self.ecn_recover && !recovering {
            self.cc.inner_mut().on_ece(info);
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
        }
    }

    /// Carry out the congestion control's answer.
    fn react(&mut self, now: SimTime, r: Reaction, out: &mut Outbox) {
        if (r.retransmit || r.go_back) && self.snd_una > self.ecn_recover {
            // A loss reduction: no ECN reduction for the data now outstanding, and CWR on the
            // next new data (RFC 3168 section 6.1.2: for any reduction).
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
        }
        // Per-segment timers resend the missing segment alone: going back becomes a retransmit.
        if r.go_back && !self.per_packet {
            self.snd_nxt = self.snd_una;
        }
        if (r.retransmit || (r.go_back && self.per_packet)) && self.snd_una < self.snd_max {
            let una = self.snd_una;
            self.transmit(now, una, out);
            if self.snd_nxt == una {
                self.snd_nxt = self.seg_end(una);
            }
        }
        if (r.go_back || r.retransmit) && !r.keep_timer && !self.per_packet {
            self.rto.set(self.rtt.deadline(now, self.shift), out);
        }
    }

    pub(super) fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Outbox) {
        let ack = pkt.ack.min(self.snd_max);
        if ack > self.snd_una {
            // The round trip of the packet that caused this ACK.
            let sent_at = if !pkt.has(flags::RETX) {
                Some(pkt.echo)
            } else if self.sample_first_sent && pkt.seq >= self.snd_una && pkt.seq < self.snd_max {
                Some(self.segs[((pkt.seq - self.snd_una) / self.mss) as usize].first_sent)
            } else {
                None // Karn
            };
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let acked = self.segs_in(self.snd_una, ack);
            let rtt = if self.rtt.params().samples_every_packet() {
                // The generic estimator's `samples = "per_packet"`: every packet this ACK covers,
                // in order, each from its first sending.
                for i in 0..acked as usize {
                    let first = self.segs[i].first_sent;
                    self.rtt.sample(first, now);
                    out.rtt_samples.push(now - first);
                }
                self.shift = 0;
                sent_at.map(|t| now - t)
            } else {
                let from = if self.rtt.params().times_one_at_a_time() {
                    // BSD's t_rtt: a sample only from the ACK that covers the timed segment.
                    let timed = self.segs.iter().take(acked as usize).find(|s| s.timed).map(|s| s.first_sent);
                    self.timing &= timed.is_none();
                    timed
                } else {
                    sent_at
                };
                let rtt = from.map(|t| {
                    self.rtt.sample(t, now);
                    self.shift = 0;
                    now - t
                });
                out.rtt_samples.extend(rtt);
                rtt
            };
            if let Some(t) = rtt {
                self.delivery.min_rtt = self.delivery.min_rtt.min(t);
            }
            let rate = self.rate_sample(now, acked);
            // Segments this ACK delivers (PRR's DeliveredData): those newly acknowledged that
            // were not SACKed before, and below those newly SACKed.
            let mut delivered = acked;
            if self.sacked > 0 {
                let were_sacked = self.segs.iter().take(acked as usize).filter(|s| s.sacked).count() as u32;
                self.sacked -= were_sacked;
                delivered -= were_sacked;
            }
            // Every segment this ACK covers, its round trip from its first sending (the FQ
            // paper's "average round trip time of the packets"): a statistic, not a sample.
            out.packets_acked += acked as u64;
            out.packet_rtt_ns +=
                self.segs.iter().take(acked as usize).map(|s| (now - s.first_sent).ns() as u128).sum::<u128>();
            self.segs.drain(..acked as usize);
            if let Some(x) = self.extras.as_deref_mut() {
                x.drain(..acked as usize);
            }
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.dupacks = 0;
            if ack >= self.total {
                out.completed = true;
                self.done = true;
                self.rto.cancel();
                return;
            }
            if self.sack {
                delivered += self.mark_sacked(pkt);
            }
            let info = self.ack_info_with(now, pkt, acked, flight, rtt, rate);
            let r = if let Some(rec) = self.recovery.as_deref().copied() {
                // RFC 6675 (A): an ACK reaching the recovery point ends it; (B) a partial one
                // updates the scoreboard (done above) and pipe. The window holds still.
                self.cc.inner_mut().on_ack_in_recovery(&info);
                if ack >= rec.point {
                    self.recovery = None;
                } else {
                    self.recovery_delivered(delivered);
                    if self.partial_ack_retransmit {
                        self.resend_head_on_partial_ack(now, out);
                    }
                }
                Reaction::NONE
            } else {
                self.cc.inner_mut().on_ack(&info)
            };
            self.react(now, r, out);
            self.ecn_echo(pkt, &info);
            if self.sack && self.recovery.is_none() && self.una_lost() && self.snd_una >= self.no_recovery_before {
                // The new first unacknowledged segment is already lost by the scoreboard (data
                // sent during the last recovery was lost too): its SACKed successors sent no
                // duplicate ACKs to come, so a new recovery begins now (as Linux's).
                let flight = self.segs_in(self.snd_una, self.snd_max);
                let info = self.ack_info(now, pkt, 0, flight, None);
                self.enter_sack_recovery(now, &info, delivered, out);
            }
            if !self.per_packet {
                if self.snd_una == self.snd_max {
                    self.rto.cancel();
                } else if !r.keep_timer {
                    self.rto.set(self.rtt.deadline(now, self.shift), out);
                }
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una && self.sack {
            // RFC 6675: a duplicate ACK is one that SACKs new data.
            let newly = self.mark_sacked(pkt);
            if newly > 0 && self.recovery.is_none() {
                self.dupacks += 1;
                if self.snd_una >= self.no_recovery_before && (self.dupacks as usize >= DUP_THRESH || self.una_lost()) {
                    let flight = self.segs_in(self.snd_una, self.snd_max);
                    let info = self.ack_info(now, pkt, 0, flight, None);
                    self.enter_sack_recovery(now, &info, newly, out);
                }
            } else {
                self.recovery_delivered(newly);
            }
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let info = self.ack_info(now, pkt, 0, flight, None);
            self.ecn_echo(pkt, &info);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let info = self.ack_info(now, pkt, 0, flight, None);
            let r = self.cc.inner_mut().on_dup_ack(&info);
            out.fast_retransmits += u32::from(r.retransmit || r.go_back);
            self.react(now, r, out);
            self.ecn_echo(pkt, &info);
        }
        self.send_allowed(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{around_loss, drop_once, GBPS, RTT, SEG};
    use crate::packet::flags;
    use crate::tcp::harness::{common, Bench, MS};

    #[test]
    fn reno_halves_on_three_duplicate_acks_and_does_not_return_to_slow_start() {
        let mut b = Bench::new(&common("cc = \"reno\"\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.drop = drop_once(150);
        b.run_until(3000 * MS);
        assert!(b.timeouts.is_empty());
        let (w, after) = around_loss(&b, 150);
        let half = (w as u32 / 2) as f64;
        assert!(w > 25.0, "in congestion avoidance at {w}");
        assert_eq!(after[0].2, half, "ssthresh = half the flight");
        assert_eq!(after[0].1, half + 3.0, "inflated by the three duplicates");
        let settled: Vec<f64> = after.iter().skip_while(|p| p.1 > half).map(|p| p.1).collect();
        assert_eq!(settled[0], half, "deflated to ssthresh");
        assert!(settled.iter().all(|&c| c >= half), "never back to slow start: {settled:?}");
        assert_eq!(b.sends_of(150 * SEG).len(), 2);
        assert_eq!(b.fast_retransmits.len(), 1, "one recovery, one fast retransmit");
    }

    #[test]
    fn tahoe_returns_to_slow_start_after_three_duplicate_acks() {
        let mut b = Bench::new(&common("cc = \"tahoe\"\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.drop = drop_once(150);
        b.run_until(3000 * MS);
        assert!(b.timeouts.is_empty());
        let (w, after) = around_loss(&b, 150);
        let half = (w as u32 / 2) as f64;
        assert_eq!((after[0].1, after[0].2), (1.0, half));
        assert_eq!(b.fast_retransmits, [after[0].0], "the fast retransmit is the reduction");
        // Then it doubles each round trip up to ssthresh: 1, 2, 4, 8 at round trips after.
        let t0 = after[0].0;
        let w: Vec<f64> = (0..4).map(|k| b.cwnd_at(t0 + k * RTT + RTT / 2)).collect();
        assert_eq!(w, [1.0, 2.0, 4.0, 8.0]);
    }

    #[test]
    fn newreno_repairs_two_losses_in_one_window_without_a_timeout() {
        let mut b = Bench::new(&common("cc = \"newreno\"\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.drop = Box::new(|p, _| (p.seq == 150 * SEG || p.seq == 155 * SEG) && !p.has(flags::RETX));
        b.run_until(3000 * MS);
        assert!(b.timeouts.is_empty());
        let (w, after) = around_loss(&b, 150);
        let half = (w as u32 / 2) as f64;
        assert!(after.iter().all(|p| p.2 == half), "one halving for both losses");
        assert_eq!(b.sends_of(155 * SEG).len(), 2);
        // Two packets resent in one recovery: a count of episodes, not of packets.
        assert_eq!(b.fast_retransmits.len(), 1);
    }

    /// Times at which the window fell.
    fn reductions(b: &Bench) -> Vec<u64> {
        b.trace.windows(2).filter(|w| w[1].1 < w[0].1).map(|w| w[1].0).collect()
    }

    #[test]
    fn ecn_reduces_at_most_once_per_round_trip_and_announces_it_with_cwr() {
        let mut b = Bench::new(&common("cc = \"reno\"\necn = true\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        // A gateway that marks every ECN-capable packet sent in [2 s, 4 s).
        b.mark = Box::new(|_, t| (2000 * MS..4000 * MS).contains(&t));
        b.run_until(6000 * MS);
        let cuts = reductions(&b);
        // Marks reach the sender from 2.1 s to 4.1 s: 20 round trips, one reduction each.
        assert!((15..=21).contains(&cuts.len()), "{cuts:?}");
        assert!(cuts.windows(2).all(|w| w[1] - w[0] >= RTT), "two reductions within a round trip: {cuts:?}");
        assert!(cuts.iter().all(|&t| (2000 * MS + RTT..4000 * MS + 2 * RTT).contains(&t)), "{cuts:?}");
        assert!(b.timeouts.is_empty() && b.sent.iter().all(|s| !s.retx), "marks are not losses");
        assert!(b.sent.iter().all(|s| s.flags & flags::ECT != 0), "new data is ECT");
        // Each reduction is followed by exactly one CWR packet: the first new data after it.
        let cwr: Vec<u64> = b.sent.iter().filter(|s| s.flags & flags::CWR != 0).map(|s| s.t).collect();
        assert_eq!(cwr.len(), cuts.len());
        for (c, r) in cwr.iter().zip(&cuts) {
            let first_after = b.sent.iter().find(|s| s.t >= *r).unwrap().t;
            assert_eq!(*c, first_after);
        }
        // Halving (no slow start): the window after a cut is half the flight, at least 2.
        assert!(b.trace.iter().filter(|p| p.0 > 2000 * MS).all(|p| p.1 >= 2.0));
    }

    #[test]
    fn without_ecn_packets_are_not_capable_and_marks_cannot_happen() {
        let mut b = Bench::new(&common("cc = \"reno\"\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.mark = Box::new(|_, _| true);
        b.run_until(3000 * MS);
        assert!(b.sent.iter().all(|s| s.flags & (flags::ECT | flags::CWR) == 0));
        assert!(reductions(&b).is_empty());
    }

    #[test]
    fn an_ecn_echo_during_loss_recovery_is_not_a_second_reduction() {
        let mut b = Bench::new(&common("cc = \"newreno\"\necn = true\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.drop = drop_once(150);
        // Mark packets whose duplicate ACKs come after the third: their echoes reach the
        // sender during fast recovery.
        b.mark = Box::new(|p, _| (154 * SEG..160 * SEG).contains(&p.seq));
        b.run_until(3000 * MS);
        let retx = b.sent.iter().find(|s| s.seq == 150 * SEG && s.retx).unwrap().t;
        let thresholds: Vec<f64> = b.trace.iter().filter(|p| p.0 >= retx).map(|p| p.2).collect();
        let changes = thresholds.windows(2).filter(|w| w[1] != w[0]).count();
        assert_eq!(changes, 0, "one reduction (the loss's) for the window: {thresholds:?}");
        // The loss reduction is announced with CWR too (RFC 3168 section 6.1.2), which ends the
        // receiver's echo.
        let cwr: Vec<&crate::tcp::harness::Sent> = b.sent.iter().filter(|s| s.flags & flags::CWR != 0).collect();
        assert_eq!(cwr.len(), 1);
        assert!(cwr[0].t >= retx && !cwr[0].retx);
    }
}
