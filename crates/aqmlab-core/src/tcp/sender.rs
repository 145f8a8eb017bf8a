//! The TCP sender: segments, the window, retransmission timers and RTT sampling.
//!
//! Sequence numbers count data bytes from 0. Segment k covers bytes [k mss, (k+1) mss), the
//! last one of a finite transfer shorter; a data packet is one segment plus `header` bytes.
//! `snd_una` is the first unacknowledged byte, `snd_nxt` the next to send and `snd_max` the
//! highest sent + 1 (they differ after going back). The sender sends while fewer than
//! `min(cwnd, max_window)` whole segments are in [snd_una, snd_nxt) (the 4.3BSD rule, so Reno's
//! inflated window lets new data out during fast recovery).
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
//! ECN (RFC 3168, with [`Feedback::Classic`] or DCTCP's [`Feedback::PerPacket`]): new data
//! packets are sent ECT(0) (retransmissions not ECT, RFC 3168 section 6.1.5). An ACK carrying
//! ECE makes the congestion control reduce its window ([`on_ece`](super::cc::CongestionControl::on_ece)) unless
//! a reduction, for ECN or for a loss, happened within the last round trip (while `snd_una`
//! has not passed `snd_max` as it was then) or a loss recovery is under way; the next new data
//! packet then carries CWR. DECbit's bit ([`Feedback::CopyBit`]) is read by its control alone,
//! and every DECbit packet, retransmissions included, is capable.
//!
//! SACK (`sack = true`; RFC 6675 over RFC 2018's blocks) replaces the control's fast recovery.
//! Each ACK's blocks mark segments SACKed on a scoreboard. A segment is lost once three
//! segments above it are SACKed (DupThresh = 3). Loss recovery starts on the third duplicate
//! ACK that SACKs new data, or sooner when the first unacknowledged segment is lost by that
//! rule; its reduction is the control's ([`on_loss`](super::cc::CongestionControl::on_loss):
//! ssthresh = cwnd = half the flight for Reno, beta cwnd for CUBIC). It retransmits the first
//! unacknowledged segment and from then on, while `cwnd - pipe >= 1`, sends what NextSeg()
//! picks: the first lost segment not yet retransmitted, else new data, else the first
//! unSACKed segment below the highest SACKed one. `pipe` counts the segments not SACKed and
//! not lost, and again those retransmitted in this recovery. Recovery ends when the cumulative
//! ACK reaches the highest byte sent when it began; the window does not grow during it. After
//! a timeout no recovery begins until that timeout's highest byte is acknowledged (RFC 6675
//! section 5.1), and going back skips the segments SACKed (the receiver never reneges here).
//! Choices: no rescue retransmission (NextSeg rule 4, a MAY), limited transmit (RFC 3042) only
//! with `limited_transmit = true`, blocks are taken on whole segments.
//!
//! Deviations: no slow-start restart after an idle period, no Nagle, no SYN/FIN exchange (the
//! connection exists from the start time), and the receiver window is the constant
//! `max_window`.
//!
//! Longer than 600 lines: the first 940 or so are one state machine (the send path, the ACK path
//! and the timeouts read and write the same window and sequence state, so splitting them would
//! spread one invariant, what `snd_una`, `snd_nxt`, `snd_max` and `segs` mean, over several
//! files); its tests follow. The seams that exist (the SACK recovery, the delivery-rate
//! estimate, the lazy timer) are a few dozen lines each.

use std::collections::VecDeque;

use super::cc::{AckInfo, AnyCc, RateSample, Reaction, TimeoutInfo};
use super::rtt::{RttEstimator, MAX_BACKOFF_SHIFT};
use super::source::DataSource;
use super::{Common, Feedback, Timer};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::packet::{flags, Packet};

/// A segment sent and not yet acknowledged.
#[derive(Clone, Copy, Debug)]
struct Seg {
    first_sent: u64,
    last_sent: u64,
    /// The delivery-rate snapshot at its last transmission (see [`Delivery`]).
    snap: Snapshot,
    sends: u32,
    /// When the application generated its data (Telnet), else 0.
    app_ts: u64,
    /// When its own timer expires (generic timeouts only).
    deadline: u64,
    /// A SACK block covered it (SACK flows only).
    sacked: bool,
}

/// Duplicate ACKs, or segments SACKed above a hole, that make it a loss (RFC 6675's DupThresh).
const DUP_THRESH: usize = 3;

/// An RFC 6675 loss recovery under way.
#[derive(Clone, Copy, Debug)]
struct SackRecovery {
    /// It ends when the cumulative ACK reaches this (snd_max when it began).
    point: u64,
    /// End of the highest segment retransmitted in it (RFC 6675's HighRxt + 1).
    high_rxt: u64,
}

/// A one-shot timer re-armed lazily (see the module doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LazyTimer {
    kind: Timer,
    gen: u32,
    /// When the agent wants to be woken, if at all.
    deadline: Option<u64>,
    /// The time of the timer event of generation `gen` in the queue, if any.
    pending: Option<u64>,
}

impl LazyTimer {
    pub(crate) const fn new(kind: Timer) -> Self {
        LazyTimer { kind, gen: 0, deadline: None, pending: None }
    }

    pub(crate) fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// Want to be woken at `at`.
    pub(crate) fn set(&mut self, at: u64, out: &mut Outbox) {
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
    pub(crate) fn fire(&mut self, now: u64, gen: u32, out: &mut Outbox) -> bool {
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

/// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00): the sender counts
/// the segments delivered (cumulatively acknowledged) and when the count last moved; each
/// transmission snapshots both and the start of the current sending burst, so that the ACK of
/// a segment gives a rate sample over the longer of its send and ACK intervals.
#[derive(Clone, Copy, Debug, Default)]
struct Delivery {
    delivered: u64,
    delivered_time: u64,
    /// When the first segment of the current flight was sent.
    first_sent_time: u64,
    /// The smallest round trip seen: rate samples over a shorter interval are discarded (a
    /// cumulative ACK that jumps after a repair would otherwise claim a rate the path never had).
    min_rtt: u64,
}

/// What a transmission records of [`Delivery`].
#[derive(Clone, Copy, Debug, Default)]
struct Snapshot {
    delivered: u64,
    delivered_time: u64,
    first_sent_time: u64,
}

/// Where the connection is in its opening (`handshake = true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// No handshake, or it is over: data may flow.
    Open,
    /// `start` has not come yet, and the flow opens with a SYN.
    Closed,
    /// The SYN is out: first sent at `first`, `sends` times so far.
    SynSent { first: u64, sends: u32 },
}

/// A paced sender's state: when the next packet may leave, and the timer that wakes it then.
#[derive(Clone, Copy, Debug)]
struct Pacer {
    next_send: u64,
    timer: LazyTimer,
}

pub struct Sender {
    ids: FlowIds,
    when: Schedule,
    /// Data bytes per full segment.
    mss: u64,
    header: u32,
    max_window: u32,
    /// Data bytes of a finite transfer.
    total: Option<u64>,
    cc: AnyCc,
    rtt: RttEstimator,
    /// One timer per segment (generic timeouts, or `timers = "per_segment"`).
    per_packet: bool,
    /// The generic estimator: a retransmitted segment's sample runs from its first sending.
    sample_first_sent: bool,
    /// Backoffs since the last valid round-trip sample.
    shift: u32,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Segments in [snd_una, snd_max), in order.
    segs: VecDeque<Seg>,
    dupacks: u32,
    rto: LazyTimer,
    feedback: Feedback,
    /// The ECN codepoint of new data when the flow is ECN-capable: ECT, with ECT1 for ECT(1).
    ect: u8,
    /// No ECN reduction until `snd_una` passes this (`snd_max` at the last reduction).
    ecn_recover: u64,
    /// Set CWR on the next new data packet.
    send_cwr: bool,
    delivery: Delivery,
    /// Pacing (`pacing = true`, or a control that paces: BBR); boxed, most senders do not pace.
    pacer: Option<Box<Pacer>>,
    /// SACK loss recovery (`sack = true`).
    sack: bool,
    /// RFC 3042: the first two duplicate ACKs each let one new segment beyond the window.
    limited_transmit: bool,
    /// Segments in `segs` SACKed.
    sacked: u32,
    recovery: Option<SackRecovery>,
    /// After a timeout, no SACK recovery begins before `snd_una` reaches this.
    no_recovery_before: u64,
    done: bool,
    /// The three-way handshake, when the flow opens with one.
    opening: Opening,
    /// Size of a SYN, bytes (the flow's ACK size: a header without data).
    syn_size: u32,
    /// The application feeding it; `None` for a bulk transfer, as much as the window allows (up
    /// to `total`). Boxed: a bulk sender, the common case, carries only the pointer.
    source: Option<Box<dyn DataSource>>,
}

impl Sender {
    pub fn new(
        c: &Common,
        total: Option<u64>,
        source: Option<Box<dyn DataSource>>,
        ids: FlowIds,
        when: Schedule,
    ) -> Self {
        let mut cc = c.cc.build(c.max_window);
        if let AnyCc::Bbr(b) = &mut cc {
            b.reseed(ids.flow as u64);
        }
        let rto = c.cc.rto();
        Sender {
            ids,
            when,
            mss: c.mss() as u64,
            header: c.header,
            max_window: c.max_window,
            total,
            cc,
            rtt: RttEstimator::new(rto),
            per_packet: rto.per_segment,
            sample_first_sent: rto.is_generic(),
            shift: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            segs: VecDeque::new(),
            dupacks: 0,
            rto: LazyTimer::new(Timer::Rto),
            feedback: c.feedback(),
            ect: if c.sends_ect1() { flags::ECT | flags::ECT1 } else { flags::ECT },
            ecn_recover: 0,
            send_cwr: false,
            delivery: Delivery { min_rtt: u64::MAX, ..Delivery::default() },
            pacer: (c.pacing || c.cc.info().paces)
                .then(|| Box::new(Pacer { next_send: 0, timer: LazyTimer::new(Timer::Pace) })),
            sack: c.sack,
            limited_transmit: c.limited_transmit,
            sacked: 0,
            recovery: None,
            no_recovery_before: 0,
            done: false,
            opening: if c.handshake { Opening::Closed } else { Opening::Open },
            syn_size: c.ack_size,
            source,
        }
    }

    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }

    /// First unacknowledged byte, next byte to send, highest byte sent + 1.
    pub fn seqs(&self) -> (u64, u64, u64) {
        (self.snd_una, self.snd_nxt, self.snd_max)
    }

    /// The retransmission timer's deadline, if running.
    pub fn rto_deadline(&self) -> Option<u64> {
        self.rto.deadline()
    }

    fn seg_end(&self, seq: u64) -> u64 {
        (seq + self.mss).min(self.total.unwrap_or(u64::MAX))
    }

    /// Segments in [from, to), `from` on a segment boundary.
    fn segs_in(&self, from: u64, to: u64) -> u32 {
        (to - from).div_ceil(self.mss) as u32
    }

    /// The usable window, whole packets (at least 1).
    fn window(&self) -> u32 {
        (self.cc.inner().cwnd().min(self.max_window as f64).floor() as u32).max(1)
    }

    /// Bytes the application lets the sender send by `now`.
    fn limit(&self, now: u64) -> u64 {
        let supplied = self.source.as_ref().map_or(u64::MAX, |s| s.supplied());
        let cap = supplied.min(self.total.unwrap_or(u64::MAX));
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
    fn send_allowed(&mut self, now: u64, out: &mut Outbox) {
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
    fn pace(&mut self, now: u64, seq: u64, out: &mut Outbox) -> bool {
        let Some(rate) = self.pacing_rate_bps() else { return true };
        let bits = ((self.seg_end(seq) - seq) + self.header as u64) as f64 * 8.0;
        let p = self.pacer.as_mut().expect("paced");
        if now < p.next_send {
            p.timer.set(p.next_send, out);
            return false;
        }
        p.next_send = now + (bits / rate.max(1.0) * 1e9).ceil() as u64;
        true
    }

    fn seg_at(&self, seq: u64) -> &Seg {
        &self.segs[((seq - self.snd_una) / self.mss) as usize]
    }

    /// Mark the segments this ACK's SACK blocks cover; returns how many were newly SACKed.
    fn mark_sacked(&mut self, pkt: &Packet) -> u32 {
        let mut newly = 0;
        for (start, end) in pkt.sack.ranges(pkt.ack) {
            let start = start.max(self.snd_una);
            let end = end.min(self.snd_max);
            if start >= end {
                continue;
            }
            // Whole segments only: from the first starting at or after `start`.
            let first = (start - self.snd_una).div_ceil(self.mss) as usize;
            for i in first..self.segs.len() {
                let seq = self.snd_una + i as u64 * self.mss;
                if self.seg_end(seq) > end {
                    break;
                }
                if !self.segs[i].sacked {
                    self.segs[i].sacked = true;
                    newly += 1;
                }
            }
        }
        self.sacked += newly;
        newly
    }

    /// Index of the segment below which every unSACKed segment is lost (RFC 6675's IsLost:
    /// DupThresh segments SACKed above it), or 0 when none is.
    fn lost_below(&self) -> usize {
        let mut seen = 0;
        for (i, s) in self.segs.iter().enumerate().rev() {
            if s.sacked {
                seen += 1;
                if seen == DUP_THRESH {
                    return i;
                }
            }
        }
        0
    }

    /// Whether the first unacknowledged segment is lost by RFC 6675's IsLost.
    fn una_lost(&self) -> bool {
        self.sacked as usize >= DUP_THRESH && self.segs.front().is_some_and(|s| !s.sacked) && self.lost_below() > 0
    }

    /// Begin an RFC 6675 loss recovery (step 4): reduce, retransmit the first unacknowledged
    /// segment, then send as `pipe` allows.
    fn enter_sack_recovery(&mut self, now: u64, info: &AckInfo, out: &mut Outbox) {
        self.cc.inner_mut().on_loss(info);
        self.ecn_recover = self.snd_max;
        self.send_cwr = true;
        let una = self.snd_una;
        self.recovery = Some(SackRecovery { point: self.snd_max, high_rxt: self.seg_end(una) });
        self.transmit(now, una, out);
        self.rto.set(self.rtt.deadline(now, self.shift), out);
        self.sack_send(now, out);
    }

    /// RFC 6675 step (C): while cwnd - pipe >= 1, send the segment NextSeg() picks.
    fn sack_send(&mut self, now: u64, out: &mut Outbox) {
        let Some(mut rec) = self.recovery else { return };
        let lost = self.lost_below();
        let mut pipe = 0u32;
        for (i, s) in self.segs.iter().enumerate() {
            if !s.sacked {
                let seq = self.snd_una + i as u64 * self.mss;
                pipe += u32::from(i >= lost) + u32::from(seq < rec.high_rxt);
            }
        }
        let high_sacked =
            self.segs.iter().rposition(|s| s.sacked).map_or(self.snd_una, |i| self.snd_una + i as u64 * self.mss);
        let limit = self.limit(now);
        let wnd = self.window();
        while pipe < wnd {
            let from = (rec.high_rxt.max(self.snd_una) - self.snd_una).div_ceil(self.mss) as usize;
            // Rule 1: the first lost segment not retransmitted yet.
            let lost_seg = (from..lost).find(|&i| !self.segs[i].sacked);
            let seq = if let Some(i) = lost_seg {
                self.snd_una + i as u64 * self.mss
            } else if self.snd_max < limit && self.segs_in(self.snd_una, self.snd_max) < self.max_window {
                // Rule 2: new data.
                self.snd_max
            } else {
                // Rule 3: the first unSACKed segment below the highest SACKed one.
                match (from..self.segs.len()).find(|&i| !self.segs[i].sacked) {
                    Some(i) if self.snd_una + (i as u64) * self.mss < high_sacked => self.snd_una + i as u64 * self.mss,
                    _ => break,
                }
            };
            if !self.pace(now, seq, out) {
                break;
            }
            if seq < self.snd_max {
                // (C.2): a retransmission moves HighRxt (data sent during this recovery and
                // lost too is retransmitted by it, once).
                rec.high_rxt = self.seg_end(seq);
            }
            self.transmit(now, seq, out);
            self.snd_nxt = self.snd_max;
            pipe += 1;
        }
        self.recovery = Some(rec);
    }

    /// Put the segment starting at `seq` on the wire (new or again).
    fn transmit(&mut self, now: u64, seq: u64, out: &mut Outbox) {
        let idx = ((seq - self.snd_una) / self.mss) as usize;
        let end = self.seg_end(seq);
        let retx = seq < self.snd_max;
        if self.snd_una == self.snd_max {
            // Nothing in flight: a new sending burst starts (the draft's "pipe was empty").
            self.delivery.first_sent_time = now;
            self.delivery.delivered_time = now;
        }
        let d = self.delivery;
        let snap =
            Snapshot { delivered: d.delivered, delivered_time: d.delivered_time, first_sent_time: d.first_sent_time };
        let app_ts = if retx {
            let s = &mut self.segs[idx];
            s.sends += 1;
            s.last_sent = now;
            s.snap = snap;
            s.app_ts
        } else {
            debug_assert_eq!((seq, idx), (self.snd_max, self.segs.len()));
            let app_ts = self.source.as_mut().map_or(0, |s| s.take(now));
            self.segs.push_back(Seg {
                first_sent: now,
                last_sent: now,
                snap,
                sends: 1,
                app_ts,
                deadline: 0,
                sacked: false,
            });
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
            self.segs[idx].deadline = d;
            if self.rto.deadline().is_none_or(|x| x > d) {
                self.rto.set(d, out);
            }
        } else if self.rto.deadline().is_none() {
            self.rto.set(self.rtt.deadline(now, self.shift), out);
        }
    }

    fn ack_info(&self, now: u64, pkt: &Packet, acked: u32, flight: u32, rtt: Option<u64>) -> AckInfo {
        self.ack_info_with(now, pkt, acked, flight, rtt, None)
    }

    fn ack_info_with(
        &self,
        now: u64,
        pkt: &Packet,
        acked: u32,
        flight: u32,
        rtt: Option<u64>,
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
            srtt: self.rtt.srtt().map(|s| s as u64),
            una_sent_at: una.map(|s| s.last_sent),
            una_sends: una.map_or(0, |s| s.sends),
        }
    }

    /// Count `acked` segments delivered at `now` and take the rate sample of the last of them
    /// (the draft's P, the most recently sent segment this ACK covers).
    fn rate_sample(&mut self, now: u64, acked: u32) -> Option<RateSample> {
        let last = *self.segs.get(acked.checked_sub(1)? as usize)?;
        self.delivery.delivered += acked as u64;
        self.delivery.delivered_time = now;
        // The next burst is measured from this segment's transmission.
        self.delivery.first_sent_time = last.last_sent;
        let send_elapsed = last.last_sent.saturating_sub(last.snap.first_sent_time);
        let ack_elapsed = now.saturating_sub(last.snap.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivery.delivered - last.snap.delivered;
        if interval == 0 || interval < self.delivery.min_rtt {
            return None;
        }
        Some(RateSample {
            delivered,
            interval_ns: interval,
            prior_delivered: last.snap.delivered,
            app_limited: self.limit(now) != u64::MAX && self.snd_nxt >= self.limit(now),
        })
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
    fn react(&mut self, now: u64, r: Reaction, out: &mut Outbox) {
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

    fn on_ack(&mut self, now: u64, pkt: &Packet, out: &mut Outbox) {
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
            let rtt = sent_at.map(|t| {
                self.rtt.sample(t, now);
                self.shift = 0;
                now - t
            });
            out.rtt_samples.extend(rtt);
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let acked = self.segs_in(self.snd_una, ack);
            if let Some(t) = rtt {
                self.delivery.min_rtt = self.delivery.min_rtt.min(t);
            }
            let rate = self.rate_sample(now, acked);
            if self.sacked > 0 {
                self.sacked -= self.segs.iter().take(acked as usize).filter(|s| s.sacked).count() as u32;
            }
            self.segs.drain(..acked as usize);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.dupacks = 0;
            if self.total.is_some_and(|t| ack >= t) {
                out.completed = true;
                self.done = true;
                self.rto.cancel();
                return;
            }
            if self.sack {
                self.mark_sacked(pkt);
            }
            let info = self.ack_info_with(now, pkt, acked, flight, rtt, rate);
            let r = if let Some(rec) = self.recovery {
                // RFC 6675 (A): an ACK reaching the recovery point ends it; (B) a partial one
                // updates the scoreboard (done above) and pipe. The window holds still.
                self.cc.inner_mut().on_ack_in_recovery(&info);
                if ack >= rec.point {
                    self.recovery = None;
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
                self.enter_sack_recovery(now, &info, out);
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
            if self.mark_sacked(pkt) > 0 && self.recovery.is_none() {
                self.dupacks += 1;
                if self.snd_una >= self.no_recovery_before && (self.dupacks as usize >= DUP_THRESH || self.una_lost()) {
                    let flight = self.segs_in(self.snd_una, self.snd_max);
                    let info = self.ack_info(now, pkt, 0, flight, None);
                    self.enter_sack_recovery(now, &info, out);
                }
            }
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let info = self.ack_info(now, pkt, 0, flight, None);
            self.ecn_echo(pkt, &info);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            let flight = self.segs_in(self.snd_una, self.snd_max);
            let info = self.ack_info(now, pkt, 0, flight, None);
            let r = self.cc.inner_mut().on_dup_ack(&info);
            self.react(now, r, out);
            self.ecn_echo(pkt, &info);
        }
        self.send_allowed(now, out);
    }

    /// The connection is open (at the start, or on the SYN-ACK): the application starts, and
    /// data goes out as the window allows.
    fn begin_data(&mut self, now: u64, out: &mut Outbox) {
        if self.source.as_mut().is_none_or(|s| s.start(now, out)) {
            self.send_allowed(now, out);
        }
    }

    /// Send the SYN (again), with the retransmission timer as for data (its initial value
    /// before any sample, backed off after each expiry).
    fn send_syn(&mut self, now: u64, out: &mut Outbox) {
        let Opening::SynSent { first, sends } = self.opening else { return };
        let fl = if sends > 0 { flags::SYN | flags::RETX } else { flags::SYN };
        out.packets
            .push(Packet { flags: fl, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, self.syn_size) });
        self.opening = Opening::SynSent { first, sends: sends + 1 };
        self.rto.set(self.rtt.deadline(now, self.shift), out);
    }

    fn on_timeout(&mut self, now: u64, out: &mut Outbox) {
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
                .filter(|&i| self.segs[i].deadline <= now)
                .map(|i| self.snd_una + i as u64 * self.mss)
                .collect();
            if !due.is_empty() {
                out.timeouts += due.len() as u32;
                if !self.sample_first_sent {
                    // Karn: the largest back-off of a segment timed out holds until a sample.
                    let most = due.iter().map(|&seq| self.seg_at(seq).sends).max().unwrap_or(0);
                    self.shift = self.shift.max(most).min(MAX_BACKOFF_SHIFT);
                }
                self.cc.inner_mut().on_timeout(&info);
                for seq in due {
                    self.transmit(now, seq, out);
                }
            }
            if let Some(d) = self.segs.iter().map(|s| s.deadline).min() {
                self.rto.set(d, out);
            }
        } else {
            out.timeouts += 1;
            self.ecn_recover = self.ecn_recover.max(self.snd_max);
            self.send_cwr = true;
            self.shift = (self.shift + 1).min(MAX_BACKOFF_SHIFT);
            self.cc.inner_mut().on_timeout(&info);
            // RFC 6675 section 5.1: the recovery ends, and no new one before this is acknowledged.
            self.recovery = None;
            self.no_recovery_before = self.snd_max;
            self.snd_nxt = self.snd_una;
            self.dupacks = 0;
            self.send_allowed(now, out);
            self.rto.set(self.rtt.deadline(now, self.shift), out);
        }
    }
}

impl Agent for Sender {
    fn start(&mut self, now: u64, out: &mut Outbox) {
        if self.opening == Opening::Closed {
            self.opening = Opening::SynSent { first: now, sends: 0 };
            return self.send_syn(now, out);
        }
        self.begin_data(now, out);
    }

    fn on_packet(&mut self, now: u64, pkt: &Packet, out: &mut Outbox) {
        if self.done || pkt.is_data() {
            return;
        }
        match self.opening {
            Opening::Open if !pkt.has(flags::SYN) => self.on_ack(now, pkt, out),
            Opening::SynSent { first, sends } if pkt.has(flags::SYN) => {
                // Karn's rule: a SYN sent more than once gives no sample.
                if sends == 1 {
                    self.rtt.sample(first, now);
                    out.rtt_samples.push(now - first);
                    self.delivery.min_rtt = self.delivery.min_rtt.min(now - first);
                }
                self.shift = 0;
                self.rto.cancel();
                self.opening = Opening::Open;
                self.begin_data(now, out);
            }
            // A SYN-ACK repeated after the opening, or an ACK before it.
            Opening::Open | Opening::Closed | Opening::SynSent { .. } => {}
        }
    }

    fn on_timer(&mut self, now: u64, kind: TimerKind, gen: u32, out: &mut Outbox) {
        let Some(timer) = Timer::of(kind) else { return };
        if self.done {
            return;
        }
        match timer {
            Timer::Rto => {
                if !self.rto.fire(now, gen, out) {
                    return;
                }
                if let Opening::SynSent { .. } = self.opening {
                    out.timeouts += 1;
                    self.shift = (self.shift + 1).min(MAX_BACKOFF_SHIFT);
                    self.send_syn(now, out);
                } else {
                    self.on_timeout(now, out);
                }
            }
            Timer::Pace => {
                if self.pacer.as_mut().is_some_and(|p| p.timer.fire(now, gen, out)) {
                    self.send_allowed(now, out);
                }
            }
            Timer::App => {
                if self.when.stop.is_some_and(|s| now >= s) {
                    return;
                }
                let mss = self.mss;
                if let Some(source) = &mut self.source {
                    source.on_timer(now, mss, out);
                }
                self.send_allowed(now, out);
            }
            // The receiver's.
            Timer::DelAck => {}
        }
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        let cc = self.cc.inner();
        let ssthresh = cc.ssthresh();
        out.push(("cwnd_pkts", cc.cwnd()));
        out.push(("ssthresh_pkts", if ssthresh.is_finite() { ssthresh } else { f64::NAN }));
        out.push(("srtt_s", self.rtt.srtt().map_or(f64::NAN, |s| s * 1e-9)));
        out.push(("rto_s", self.rtt.backed_off(self.shift) as f64 * 1e-9));
        if self.pacer.is_some() {
            out.push(("pacing_rate_bps", self.pacing_rate_bps().unwrap_or(f64::NAN)));
        }
        cc.gauges(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::harness::{common, Bench, MS};

    const GBPS: u64 = 1_000_000_000;
    const SEG: u64 = 1000;

    /// Round trip on the bench: 2 x 50 ms plus the data packet's transmission.
    const RTT: u64 = 100 * MS;

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
    fn slow_start_doubles_the_window_each_round_trip() {
        let mut b = Bench::new(&common("cc = \"reno\""), None, GBPS, 50 * MS);
        b.run_until(900 * MS);
        let w: Vec<f64> = (0..8).map(|k| b.cwnd_at(k * RTT + RTT / 2)).collect();
        assert_eq!(w, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_packet_per_round_trip() {
        let mut b = Bench::new(&common("cc = \"reno\"\ninitial_ssthresh = 8"), None, GBPS, 50 * MS);
        b.run_until(40 * RTT);
        let (w10, w30) = (b.cwnd_at(10 * RTT + RTT / 2), b.cwnd_at(30 * RTT + RTT / 2));
        let per_rtt = (w30 - w10) / 20.0;
        assert!((0.9..=1.05).contains(&per_rtt), "{w10} -> {w30}: {per_rtt} per round trip");
    }

    /// Drop the first transmission of segment `k`.
    fn drop_once(k: u64) -> crate::tcp::harness::Script {
        Box::new(move |p, _| p.seq == k * SEG && !p.has(flags::RETX))
    }

    /// The window just before the loss was detected, and the trace after it.
    fn around_loss(b: &Bench, k: u64) -> (f64, Vec<(u64, f64, f64)>) {
        let retx = b.sent.iter().find(|s| s.seq == k * SEG && s.retx).expect("retransmitted").t;
        let before = b.trace.iter().take_while(|p| p.0 < retx).last().unwrap().1;
        (before, b.trace.iter().filter(|p| p.0 >= retx).copied().collect())
    }

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

    #[test]
    fn tahoe_returns_to_slow_start_after_three_duplicate_acks() {
        let mut b = Bench::new(&common("cc = \"tahoe\"\ninitial_ssthresh = 20"), None, GBPS, 50 * MS);
        b.drop = drop_once(150);
        b.run_until(3000 * MS);
        assert!(b.timeouts.is_empty());
        let (w, after) = around_loss(&b, 150);
        let half = (w as u32 / 2) as f64;
        assert_eq!((after[0].1, after[0].2), (1.0, half));
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
    }

    /// Drop the first transmissions of segments `ks`.
    fn drop_first(ks: &'static [u64]) -> crate::tcp::harness::Script {
        Box::new(move |p, _| ks.iter().any(|&k| p.seq == k * SEG) && !p.has(flags::RETX))
    }

    #[test]
    fn sack_repairs_three_losses_of_one_window_in_one_round_trip_where_newreno_needs_three() {
        // RFC 6675 against RFC 6582 on the same three losses in one window of about 30 packets.
        const LOST: &[u64] = &[150, 153, 156];
        let run = |keys: &str| {
            let mut b =
                Bench::new(&common(&format!("cc = \"newreno\"\ninitial_ssthresh = 20\n{keys}")), None, GBPS, 50 * MS);
            b.drop = drop_first(LOST);
            b.run_until(3000 * MS);
            b
        };
        // RFC 6298's 1 s floor on the timeout: with 200 ms NewReno's impatient timer (RFC 6582
        // section 4) expires in its third round trip of recovery, as checked below.
        let (sack, newreno) = (run("sack = true\nmin_rto = \"1s\""), run("min_rto = \"1s\""));
        // When each lost segment was sent again, from the first retransmission.
        let repairs = |b: &Bench| {
            let t: Vec<u64> = LOST.iter().map(|&k| b.sends_of(k * SEG)[1]).collect();
            t.iter().map(|x| x - t[0]).collect::<Vec<u64>>()
        };
        assert!(sack.timeouts.is_empty() && newreno.timeouts.is_empty(), "{:?} {:?}", sack.timeouts, newreno.timeouts);
        let (s, n) = (repairs(&sack), repairs(&newreno));
        assert!(s.iter().all(|&d| d < RTT / 10), "SACK resends all three within the first round trip: {s:?}");
        assert!(n[1] >= RTT && n[2] >= 2 * RTT, "NewReno learns of one loss per round trip: {n:?}");
        // Each segment is sent twice at most (nothing SACKed is resent), and one halving each.
        for b in [&sack, &newreno] {
            let again: Vec<u64> = (100..300).filter(|k| b.sends_of(k * SEG).len() > 1).collect();
            assert_eq!(again, LOST);
            let (w, after) = around_loss(b, 150);
            assert!(after.iter().all(|p| p.2 == (w as u32 / 2) as f64), "one reduction");
        }
        // SACK's recovery ends one round trip after it begins: the retransmissions' ACKs reach
        // the highest segment sent before it. NewReno's ends three round trips after.
        let ended = |b: &Bench| {
            let began = b.sends_of(150 * SEG)[1];
            let point = b.sent.iter().filter(|x| x.t < began).map(|x| x.seq + SEG).max().unwrap();
            b.acks.iter().find(|a| a.1 >= point).unwrap().0 - began
        };
        let (s, n) = (ended(&sack), ended(&newreno));
        assert!(s <= RTT + MS, "SACK's recovery over after {} us", s / 1000);
        assert!(n >= 3 * RTT, "NewReno's recovery over after {} us", n / 1000);
        // With Linux's 200 ms floor SACK still needs no timeout; NewReno's expires.
        let (sack, newreno) = (run("sack = true"), run(""));
        assert_eq!((sack.timeouts.len(), newreno.timeouts.len()), (0, 1));
    }

    #[test]
    fn sack_recovery_keeps_pipe_at_the_halved_window() {
        // During RFC 6675 recovery the sender keeps cwnd - pipe < 1: the segments sent in the
        // round trip after the loss is detected are the halved window, not the inflated one.
        let mut b = Bench::new(&common("cc = \"reno\"\ninitial_ssthresh = 40\nsack = true"), None, GBPS, 50 * MS);
        b.drop = drop_first(&[300]);
        b.run_until(3000 * MS);
        assert!(b.timeouts.is_empty());
        let (w, after) = around_loss(&b, 300);
        let half = (w as u32 / 2) as f64;
        assert_eq!(after[0].1, half, "cwnd = ssthresh = half the flight, no inflation");
        let t0 = b.sends_of(300 * SEG)[1];
        // In the round trip after detection the w - 4 other duplicate ACKs arrive, each SACKing
        // one more segment: pipe falls from w - 3 (the w - 4 not SACKed above the loss, plus
        // the retransmission), and once it is below half each ACK lets one new segment out.
        // When the retransmission's ACK ends recovery a round trip later, pipe is the halved
        // window: the retransmission and half - 1 new segments.
        let sent: usize = b.sent.iter().filter(|s| s.t > t0 && s.t <= t0 + RTT).count();
        let expected = half as usize - 1;
        assert_eq!(sent, expected, "sent in the round trip of recovery (w {w})");
    }

    #[test]
    fn sack_times_out_less_than_newreno_under_random_loss_and_delivers_as_much() {
        // Bernoulli loss on two paths, 20 seeds of 30 s each. The first transmission of each
        // segment is lost or not by the seed alone (the same segments for both senders), a
        // retransmission with probability p from a stream of its own. SACK repairs several
        // losses per round trip where NewReno's impatient timer expires, so it times out less
        // often; its goodput is at least NewReno's, to within the paired 95% interval (most
        // windows hold one loss, which both repair alike). Measured: timeouts 100 against 127
        // at 2% and 1 against 10 at 0.3%, goodput ratios 1.015 +- 0.007 and 1.004 +- 0.016.
        for (rate, delay, p) in [(10_000_000u64, 20 * MS, 0.02), (100_000_000, 50 * MS, 0.003)] {
            let (mut ratios, mut timeouts) = (vec![], [0usize; 2]);
            for seed in 1..=20u64 {
                let mut goodput = [0u64; 2];
                for (i, keys) in ["", "sack = true"].iter().enumerate() {
                    let mut b = Bench::new(&common(&format!("cc = \"newreno\"\n{keys}")), None, rate, delay);
                    let mut retx_rng = crate::rng::SimRng::from_seed(seed);
                    b.drop = Box::new(move |pk, _| {
                        if pk.has(flags::RETX) {
                            retx_rng.chance(p)
                        } else {
                            crate::rng::SimRng::from_seed(seed * 1_000_003 + pk.seq).chance(p)
                        }
                    });
                    b.run_until(30_000 * MS);
                    goodput[i] = b.goodput;
                    timeouts[i] += b.timeouts.len();
                }
                ratios.push(goodput[1] as f64 / goodput[0] as f64);
            }
            let n = ratios.len() as f64;
            let mean = ratios.iter().sum::<f64>() / n;
            let sd = (ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let half_width = 2.093 * sd / n.sqrt(); // t(0.975, 19)
            let [to_newreno, to_sack] = timeouts;
            eprintln!("p = {p}: timeouts SACK {to_sack}, NewReno {to_newreno}; goodput {mean:.3} +- {half_width:.3}");
            assert!(to_sack < to_newreno, "p = {p}: timeouts SACK {to_sack}, NewReno {to_newreno}");
            assert!(mean + half_width >= 1.0, "p = {p}: SACK / NewReno goodput {mean:.3} +- {half_width:.3}");
        }
    }

    #[test]
    fn a_timeout_backs_off_exponentially_until_an_ack_returns() {
        let mut b = Bench::new(&common("cc = \"reno\""), None, GBPS, 50 * MS);
        // Everything sent in [2 s, 12 s) is lost.
        b.drop = Box::new(|_, t| (2000 * MS..12000 * MS).contains(&t));
        b.run_until(20_000 * MS);
        let una = b.sent.iter().find(|s| s.dropped).unwrap().seq;
        let resends: Vec<u64> = b.sends_of(una).into_iter().skip(1).collect();
        let gaps: Vec<u64> = resends.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 4, "{resends:?}");
        for g in gaps.windows(2).take(4) {
            assert_eq!(g[1], 2 * g[0], "each timeout doubles: {gaps:?}");
        }
        // The window sits at one packet through the outage, the threshold falls to 2.
        let during: Vec<(u64, f64, f64)> =
            b.trace.iter().filter(|p| (resends[1]..12_000 * MS).contains(&p.0)).copied().collect();
        assert!(during.iter().all(|p| p.1 == 1.0 && p.2 == 2.0), "{during:?}");
        // After the outage the flow recovers and the timeout is the estimate again.
        assert!(b.goodput > b.sent.iter().filter(|s| s.t < 12_000 * MS && !s.dropped).count() as u64 * SEG);
        assert!(b.sender.rtt.backed_off(b.sender.shift) < 1_000 * MS);
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
        assert_eq!(b.sender.rtt.rto(), 1000 * MS);
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
    fn jk_on_per_segment_timers_backs_off_as_karn_until_a_valid_sample() {
        let jk = "cc = \"jk\"\nmax_window = 5\ninitial_ssthresh = 5\ntimers = \"per_segment\"";
        let mut b = Bench::new(&common(jk), None, GBPS, 50 * MS);
        b.drop = Box::new(|_, t| (2000 * MS..12000 * MS).contains(&t));
        b.run_until(20_000 * MS);
        let una = b.sent.iter().find(|s| s.dropped).unwrap().seq;
        let resends: Vec<u64> = b.sends_of(una).into_iter().skip(1).collect();
        let gaps: Vec<u64> = resends.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 4, "{resends:?}");
        for g in gaps.windows(2).take(4) {
            assert_eq!(g[1], 2 * g[0], "each expiry doubles the timeout: {gaps:?}");
        }
        // After the outage: recovered, the timeout back to the estimate, no sample from a resend.
        assert!(b.sender.rtt.backed_off(b.sender.shift) < 1_000 * MS);
        assert!(b.rtts.iter().all(|&r| r < 2 * RTT), "{:?}", b.rtts.iter().max());
    }

    #[test]
    fn finite_transfer_completes_with_every_byte_delivered_once() {
        for cc in [
            "generic\"\nmax_window = \"8",
            "slowstart",
            "tahoe",
            "reno",
            "newreno",
            "cubic",
            "cubic\"\nhystart = \"true",
            "vegas",
            "decbit\"\nmax_window = \"8",
        ] {
            let c = common(&format!("cc = \"{cc}\"").replace("= \"8\"", "= 8").replace("= \"true\"", "= true"));
            let total = 300 * SEG + 123;
            let mut b = Bench::new(&c, Some(total), 10_000_000, 20 * MS);
            // Lose a few packets, retransmissions included.
            let mut n = 0u64;
            b.drop = Box::new(move |_, _| {
                n += 1;
                n.is_multiple_of(37)
            });
            b.run_until(120_000 * MS);
            assert!(b.completed.is_some(), "{cc}: not completed, {} of {total}", b.goodput);
            assert_eq!(b.goodput, total, "{cc}");
            assert_eq!(b.receiver.rcv_nxt(), total);
            assert!(b.sent.iter().all(|s| s.seq < total), "{cc}: nothing past the end");
            assert_eq!(
                b.sent.last().unwrap().seq,
                b.sent.iter().map(|s| s.seq).max().unwrap().min(b.sent.last().unwrap().seq)
            );
        }
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

    #[test]
    fn lazy_timer_fires_once_at_the_latest_deadline() {
        let mut out = Outbox::default();
        let mut t = LazyTimer::new(Timer::Rto);
        t.set(100, &mut out);
        t.set(150, &mut out); // later: no new event
        assert_eq!(out.timers.len(), 1);
        t.set(80, &mut out); // earlier: a new event supersedes the first
        assert_eq!(out.timers.len(), 2);
        let (first, second) = (out.timers[0], out.timers[1]);
        out.timers.clear();
        assert!(!t.fire(100, first.gen, &mut out), "superseded");
        t.set(120, &mut out);
        assert!(!t.fire(80, second.gen, &mut out), "deadline moved to 120: re-armed");
        assert_eq!(out.timers[0].at, 120);
        assert!(t.fire(120, out.timers[0].gen, &mut out));
        t.set(200, &mut out);
        t.cancel();
        let gen = out.timers.last().unwrap().gen;
        assert!(!t.fire(200, gen, &mut out), "cancelled");
    }
}
