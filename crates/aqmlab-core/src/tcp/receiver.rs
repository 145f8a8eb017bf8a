//! The TCP receiver: in-order delivery, cumulative ACKs, delayed ACKs, the congestion bit echoed.
//!
//! Data at `rcv_nxt` is delivered with whatever it makes contiguous from the out-of-order
//! buffer; every newly delivered byte counts once as goodput. ACKs carry `rcv_nxt` and are
//! `ack_size` bytes. An ACK goes out at once for out-of-order data (a duplicate ACK), for a
//! duplicate segment, for a segment that fills a hole, and for every in-order segment unless
//! delayed ACKs are on; then every second segment is acknowledged, or `delayed_ack_timeout`
//! after the first one not yet acknowledged (RFC 1122, RFC 5681 section 4.2). With
//! `delayed_ack_timer = "clocked"` that lone ACK goes instead at the next tick of a clock that
//! ticks every `delayed_ack_timeout` at a phase drawn per receiver, as 4.3BSD's 200 ms
//! `tcp_fasttimo` sends every pending delayed ACK (4.3BSD-Tahoe `tcp_timer.c`; W. R. Stevens,
//! TCP/IP Illustrated, Vol. 1, section 19.3): the wait is uniform in (0, delayed_ack_timeout].
//!
//! Each ACK echoes (in `echo` and `seq`) the `sent_at` and sequence number of the earliest data
//! packet it acknowledges for the first time (the one that caused it, for an immediate ACK),
//! carries `RETX` if that packet was a retransmission, and `ECE` as the flow's [`Feedback`]
//! says: DECbit's receiver copies the bit (ECE if any data packet the ACK acknowledges arrived
//! with CE); RFC 3168's sets ECE on every ACK from a CE packet until a packet with CWR arrives
//! (a CWR packet that is itself CE keeps it set); DCTCP's (RFC 8257 section 3.2) echoes CE
//! packet by packet: ECE is the CE state of the last data packet, and a delayed ACK pending
//! when the state changes is sent at once with the old state, so no ACK mixes both.
//! With SACK (`sack = true`, RFC 2018) every ACK sent while out-of-order data is held carries
//! up to three SACK blocks: the first is the block holding the segment that caused the ACK
//! (unless that segment advanced the cumulative ACK), then the blocks of the most recently
//! reported segments that are not already included, most recent first (RFC 2018 section 4).
//! Deviation: no D-SACK (RFC 2883) for duplicate segments.
//! For Telnet, each keystroke's delay (its generation time rides in the data packet's `echo`)
//! is reported when it is delivered.

use std::collections::VecDeque;

use super::{Common, Feedback, Timer};
use crate::agent::{Agent, FlowIds, Outbox, TimerKind, TimerReq};
use crate::packet::{flags, Packet, PacketKind, SackBlocks};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

/// The receiver's SACK state (RFC 2018): the out-of-order data as merged byte ranges, and the
/// segments most recently reported, which say which ranges the next ACK repeats.
#[derive(Debug, Default)]
struct SackState {
    /// Disjoint, non-adjacent [start, end) ranges above `rcv_nxt`, sorted.
    ranges: Vec<(u64, u64)>,
    /// Starts of the segments behind the latest first blocks, most recent first.
    recent: VecDeque<u64>,
}

/// How many recent segments are remembered: enough to fill three blocks when some of them
/// have since merged into one block.
const SACK_RECENT: usize = 8;

impl SackState {
    /// Data [start, end) arrived out of order.
    fn insert(&mut self, start: u64, end: u64) {
        let i = self.ranges.partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.ranges.len() && self.ranges[j].0 <= end {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, std::iter::once((s, e)));
        self.recent.retain(|&r| r != start);
        self.recent.push_front(start);
        self.recent.truncate(SACK_RECENT);
    }

    /// Everything below `rcv_nxt` has been delivered.
    fn advance(&mut self, rcv_nxt: u64) {
        let below = self.ranges.partition_point(|r| r.1 <= rcv_nxt);
        self.ranges.drain(..below);
        self.recent.retain(|&r| r >= rcv_nxt);
    }

    /// The range holding byte `seq`, if any.
    fn block_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.get(i).copied().filter(|r| r.0 <= seq)
    }

    /// The SACK option of an ACK of `rcv_nxt`.
    fn blocks(&self, rcv_nxt: u64) -> SackBlocks {
        let mut out = SackBlocks::NONE;
        let mut n = 0;
        for &seq in &self.recent {
            if n == out.0.len() {
                break;
            }
            let Some((s, e)) = self.block_of(seq) else { continue };
            let block = ((s - rcv_nxt) as u32, (e - rcv_nxt) as u32);
            if !out.0[..n].contains(&block) {
                out.0[n] = block;
                n += 1;
            }
        }
        out
    }
}

/// What an ACK echoes about the data packet that caused it.
#[derive(Clone, Copy, Debug)]
struct Echo {
    sent_at: SimTime,
    seq: u64,
    retx: bool,
}

pub struct Receiver {
    ids: FlowIds,
    header: u32,
    ack_size: u32,
    delayed: bool,
    /// How long the ACK of a lone segment waits, with `delayed`; the clock's period with
    /// `delack_phase`.
    delack: SimDuration,
    /// With a clocked delayed ACK (4.3BSD), when the clock ticks: at this many ns past each
    /// multiple of `delack`.
    delack_phase: Option<u64>,
    /// Report application delays (Telnet).
    app_delay: bool,
    rcv_nxt: u64,
    /// Out-of-order segments as (start, end, generation time), sorted by start, one per start.
    /// A window holds at most a hundred or so, and a deque keeps its buffer between losses
    /// where a B-tree would allocate and free a node for each episode.
    ooo: VecDeque<(u64, u64, SimTime)>,
    /// In-order segments not yet acknowledged (delayed ACKs).
    pending: u32,
    pending_echo: Option<Echo>,
    pending_ce: bool,
    delack_gen: u32,
    feedback: Feedback,
    /// RFC 3168: a CE packet arrived and no CWR since.
    ece_latched: bool,
    /// RFC 8257: the CE state of the last data packet.
    ce_state: bool,
    /// SACK flows only (boxed: most flows do not use it).
    sack: Option<Box<SackState>>,
}

impl Receiver {
    /// The receiver of flow `ids`; `clocks` is the flow's stream (a clocked delayed ACK draws
    /// its clock's phase from a stream derived from it, so no other draw changes), `None` for a
    /// kind that refuses clocked delayed ACKs when read (a workload).
    pub fn new(c: &Common, ids: FlowIds, app_delay: bool, clocks: Option<&SimRng>) -> Self {
        debug_assert!(clocks.is_some() || !c.delayed_ack_clocked, "a clocked delayed ACK needs a stream");
        let delack_phase = clocks
            .filter(|_| c.delayed_ack && c.delayed_ack_clocked)
            .map(|rng| (rng.derived("delayed-ack clock").uniform() * c.delayed_ack_timeout_ns as f64) as u64);
        Receiver {
            delack_phase,
            ids,
            header: c.header,
            ack_size: c.ack_size,
            delayed: c.delayed_ack,
            delack: SimDuration(c.delayed_ack_timeout_ns),
            app_delay,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            pending: 0,
            pending_echo: None,
            pending_ce: false,
            delack_gen: 0,
            feedback: c.feedback(),
            ece_latched: false,
            ce_state: false,
            sack: c.sack.then(Box::default),
        }
    }

    /// Next byte expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    fn deliver(&mut self, now: SimTime, from: u64, to: u64, app_ts: SimTime, out: &mut Outbox) {
        out.goodput_bytes += to - from;
        if self.app_delay {
            out.app_delay_samples.push(now - app_ts);
        }
        self.rcv_nxt = to;
    }

    /// Acknowledge now; `trigger` is the packet that caused this ACK, if not a pending one.
    fn ack_now(&mut self, trigger: Option<Echo>, ce: bool, out: &mut Outbox) {
        let e = trigger.or(self.pending_echo).expect("an ACK acknowledges some packet");
        let ece = match self.feedback {
            Feedback::None => false,
            Feedback::CopyBit => ce || self.pending_ce,
            Feedback::Classic => self.ece_latched,
            Feedback::PerPacket => self.ce_state,
        };
        let mut fl = 0;
        if ece {
            fl |= flags::ECE;
        }
        if e.retx {
            fl |= flags::RETX;
        }
        out.packets.push(Packet {
            kind: PacketKind::Ack,
            seq: e.seq,
            ack: self.rcv_nxt,
            echo: e.sent_at,
            flags: fl,
            sack: self.sack.as_ref().map_or(SackBlocks::NONE, |s| s.blocks(self.rcv_nxt)),
            ..Packet::data(self.ids.flow, self.ids.dst, self.ids.src, self.ack_size)
        });
        self.pending = 0;
        self.pending_echo = None;
        self.pending_ce = false;
        self.delack_gen = self.delack_gen.wrapping_add(1);
    }
}

impl Agent for Receiver {
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Outbox) {
        if !pkt.is_data() {
            return;
        }
        if pkt.has(flags::SYN) {
            // The SYN-ACK (again, for a SYN sent again): it carries no data and no echo of CE.
            out.packets.push(Packet {
                kind: PacketKind::Ack,
                flags: flags::SYN | (pkt.flags & flags::RETX),
                echo: pkt.sent_at,
                ..Packet::data(self.ids.flow, self.ids.dst, self.ids.src, self.ack_size)
            });
            return;
        }
        let seq = pkt.seq;
        let end = seq + pkt.size.saturating_sub(self.header) as u64;
        let echo = Echo { sent_at: pkt.sent_at, seq, retx: pkt.has(flags::RETX) };
        let ce = pkt.has(flags::CE);
        match self.feedback {
            Feedback::Classic => self.ece_latched = ce || (self.ece_latched && !pkt.has(flags::CWR)),
            Feedback::PerPacket if ce != self.ce_state => {
                if self.pending > 0 {
                    self.ack_now(None, false, out); // with the old state
                }
                self.ce_state = ce;
            }
            // DECbit's copy is made per ACK below; no feedback, or no change of CE state
            Feedback::CopyBit | Feedback::PerPacket | Feedback::None => {}
        }
        if end <= self.rcv_nxt {
            self.ack_now(Some(echo), ce, out); // a duplicate
        } else if seq > self.rcv_nxt {
            if let Err(i) = self.ooo.binary_search_by_key(&seq, |&(s, _, _)| s) {
                self.ooo.insert(i, (seq, end, pkt.echo));
            }
            if let Some(sack) = &mut self.sack {
                sack.insert(seq, end);
            }
            self.ack_now(Some(echo), ce, out); // out of order: a duplicate ACK
        } else {
            self.deliver(now, self.rcv_nxt, end, pkt.echo, out);
            let mut filled = false;
            while let Some(&(s, e, ts)) = self.ooo.front() {
                if s > self.rcv_nxt {
                    break;
                }
                self.ooo.pop_front();
                if e > self.rcv_nxt {
                    self.deliver(now, self.rcv_nxt, e, ts, out);
                }
                filled = true;
            }
            if let Some(sack) = &mut self.sack {
                sack.advance(self.rcv_nxt);
            }
            if self.pending_echo.is_none() {
                self.pending_echo = Some(echo);
            }
            self.pending += 1;
            self.pending_ce |= ce;
            if !self.delayed || filled || self.pending >= 2 || !self.ooo.is_empty() {
                self.ack_now(None, false, out);
            } else if self.pending == 1 {
                let at = match self.delack_phase {
                    None => now + self.delack,
                    Some(phase) => next_tick(now, self.delack, phase),
                };
                out.timers.push(TimerReq { at, kind: Timer::DelAck.kind(), gen: self.delack_gen });
            }
        }
    }

    fn on_timer(&mut self, _now: SimTime, kind: TimerKind, gen: u32, out: &mut Outbox) {
        if Timer::of(kind) == Some(Timer::DelAck) && gen == self.delack_gen && self.pending > 0 {
            self.ack_now(None, false, out);
        }
    }
}

/// The first tick after `now` of a clock that ticks at `phase` past every multiple of `period`.
fn next_tick(now: SimTime, period: SimDuration, phase: u64) -> SimTime {
    SimTime(phase + now.ticks_by(period, phase) * period.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::harness::common;

    const SEG: u64 = 1000;
    const DATA: Packet = Packet::data(0, 0, 1, 1000);

    fn rx(keys: &str) -> Receiver {
        Receiver::new(&common(keys), FlowIds { flow: 0, src: 0, dst: 1 }, false, Some(&SimRng::from_seed(7)))
    }

    /// Hand segment `k` (sent at `sent_at`) to the receiver; returns the ACKs it sends.
    #[track_caller]
    fn seg(r: &mut Receiver, k: u64, sent_at: u64, fl: u8, out: &mut Outbox) -> Vec<Packet> {
        out.clear();
        r.on_packet(SimTime(sent_at + 10), &Packet { seq: k * SEG, sent_at: SimTime(sent_at), flags: fl, ..DATA }, out);
        out.packets.clone()
    }

    #[test]
    fn acks_every_segment_and_echoes_the_cause() {
        let mut r = rx("cc = \"reno\"");
        let mut out = Outbox::default();
        let a = seg(&mut r, 0, 5, 0, &mut out);
        assert_eq!(a.len(), 1);
        assert_eq!(
            (a[0].kind, a[0].ack, a[0].echo, a[0].size, a[0].src, a[0].dst),
            (PacketKind::Ack, SEG, SimTime(5), 40, 1, 0)
        );
        assert_eq!(out.goodput_bytes, SEG);
    }

    #[test]
    fn out_of_order_data_gets_duplicate_acks_and_the_hole_fill_delivers_once() {
        let mut r = rx("cc = \"reno\"");
        let mut out = Outbox::default();
        seg(&mut r, 0, 1, 0, &mut out);
        for k in 2..5 {
            let a = seg(&mut r, k, 10 + k, 0, &mut out);
            assert_eq!(
                (a[0].ack, a[0].echo, a[0].seq),
                (SEG, SimTime(10 + k), k * SEG),
                "duplicate ACK echoing its cause"
            );
            assert_eq!(out.goodput_bytes, 0);
        }
        let a = seg(&mut r, 1, 20, flags::RETX, &mut out);
        assert_eq!(a[0].ack, 5 * SEG);
        assert!(a[0].has(flags::RETX), "caused by a retransmission: no RTT sample (Karn)");
        assert_eq!(out.goodput_bytes, 4 * SEG);
        let a = seg(&mut r, 3, 30, flags::RETX, &mut out);
        assert_eq!(
            (a[0].ack, out.goodput_bytes),
            (5 * SEG, 0),
            "a duplicate segment is acknowledged, not delivered again"
        );
    }

    #[test]
    fn delayed_acks_cover_two_segments_or_wait_for_the_timer() {
        let mut r = rx("cc = \"reno\"\ndelayed_ack = true\ndelayed_ack_timeout = \"100ms\"");
        let mut out = Outbox::default();
        assert!(seg(&mut r, 0, 7, 0, &mut out).is_empty());
        let timer = out.timers[0];
        assert_eq!((timer.kind, timer.at), (Timer::DelAck.kind(), SimTime(7 + 10 + 100_000_000)));
        let a = seg(&mut r, 1, 8, 0, &mut out);
        assert_eq!(
            (a[0].ack, a[0].echo),
            (2 * SEG, SimTime(7)),
            "the second segment is acknowledged, echoing the first"
        );
        out.clear();
        r.on_timer(timer.at, timer.kind, timer.gen, &mut out);
        assert!(out.packets.is_empty(), "that timer was superseded");
        assert!(seg(&mut r, 2, 9, 0, &mut out).is_empty());
        let t = out.timers[0];
        out.clear();
        r.on_timer(t.at, t.kind, t.gen, &mut out);
        assert_eq!(out.packets[0].ack, 3 * SEG, "a lone segment waits for the timer");
    }

    #[test]
    fn a_clock_ticks_at_its_phase_past_each_period() {
        let p = SimDuration(100);
        let ticks: Vec<u64> = [0, 29, 30, 129, 130, 131].iter().map(|&t| next_tick(SimTime(t), p, 30).ns()).collect();
        assert_eq!(ticks, [30, 30, 130, 130, 230, 230], "the first tick strictly after now");
    }

    #[test]
    fn a_clocked_delayed_ack_waits_uniformly_up_to_one_period() {
        // 4.3BSD's tcp_fasttimo: a lone segment's ACK goes at the clock's next tick, and the
        // clock's phase is the receiver's own, so over receivers the wait is uniform on
        // (0, period]: mean period / 2, variance period^2 / 12.
        let keys = "cc = \"reno\"\ndelayed_ack = true\ndelayed_ack_timer = \"clocked\"";
        let period = 200_000_000.0;
        let waits: Vec<f64> = (0..4000u64)
            .map(|k| {
                let ids = FlowIds { flow: 0, src: 0, dst: 1 };
                let mut r = Receiver::new(&common(keys), ids, false, Some(&SimRng::stream(k, "tcp1")));
                let mut out = Outbox::default();
                assert!(seg(&mut r, 0, 1_000_000_007, 0, &mut out).is_empty(), "a lone segment waits");
                let t = out.timers[0];
                assert_eq!(t.kind, Timer::DelAck.kind());
                (t.at.ns() - 1_000_000_017) as f64
            })
            .collect();
        assert!(waits.iter().all(|&w| w > 0.0 && w <= period), "within one period");
        let n = waits.len() as f64;
        let mean = waits.iter().sum::<f64>() / n;
        let var = waits.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0);
        // Four standard errors of the uniform's mean and (about) of its variance.
        assert!((mean - period / 2.0).abs() < 4.0 * period / (12.0 * n).sqrt(), "mean {mean}");
        assert!((var / (period * period / 12.0) - 1.0).abs() < 4.0 * (0.8 / n).sqrt(), "variance {var}");
    }

    #[test]
    fn a_clocked_receiver_still_acknowledges_every_second_segment_at_once() {
        let keys = "cc = \"reno\"\ndelayed_ack = true\ndelayed_ack_timer = \"clocked\"";
        let mut r =
            Receiver::new(&common(keys), FlowIds { flow: 0, src: 0, dst: 1 }, false, Some(&SimRng::from_seed(3)));
        let mut out = Outbox::default();
        assert!(seg(&mut r, 0, 7, 0, &mut out).is_empty());
        assert_eq!(seg(&mut r, 1, 8, 0, &mut out)[0].ack, 2 * SEG);
    }

    #[test]
    fn rfc3168_echoes_ece_from_a_ce_packet_until_cwr() {
        let mut r = rx("cc = \"reno\"\necn = true");
        let mut out = Outbox::default();
        let ect = flags::ECT;
        assert!(!seg(&mut r, 0, 1, ect, &mut out)[0].has(flags::ECE));
        assert!(seg(&mut r, 1, 2, ect | flags::CE, &mut out)[0].has(flags::ECE));
        assert!(seg(&mut r, 2, 3, ect, &mut out)[0].has(flags::ECE), "latched");
        assert!(seg(&mut r, 3, 4, ect, &mut out)[0].has(flags::ECE), "latched");
        assert!(!seg(&mut r, 4, 5, ect | flags::CWR, &mut out)[0].has(flags::ECE), "CWR clears it");
        assert!(!seg(&mut r, 5, 6, ect, &mut out)[0].has(flags::ECE));
        assert!(
            seg(&mut r, 6, 7, ect | flags::CWR | flags::CE, &mut out)[0].has(flags::ECE),
            "a CWR packet that is CE itself sets it again"
        );
    }

    #[test]
    fn dctcp_echoes_ce_per_packet_and_splits_delayed_acks_at_state_changes() {
        let mut r = rx("cc = \"dctcp\"\ndelayed_ack = true");
        let mut out = Outbox::default();
        let (ect, ce) = (flags::ECT, flags::ECT | flags::CE);
        assert!(seg(&mut r, 0, 1, ect, &mut out).is_empty(), "delayed");
        // CE arrives with one packet pending: that one is acknowledged at once, without ECE.
        let a = seg(&mut r, 1, 2, ce, &mut out);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].ack, a[0].has(flags::ECE)), (SEG, false));
        let a = seg(&mut r, 2, 3, ce, &mut out);
        assert_eq!((a[0].ack, a[0].has(flags::ECE)), (3 * SEG, true), "two CE packets, one ACK with ECE");
        assert!(seg(&mut r, 3, 4, ce, &mut out).is_empty());
        let a = seg(&mut r, 4, 5, ect, &mut out);
        assert_eq!((a[0].ack, a[0].has(flags::ECE)), (4 * SEG, true), "the CE packet pending, with ECE");
        let a = seg(&mut r, 5, 6, ect, &mut out);
        assert_eq!((a[0].ack, a[0].has(flags::ECE)), (6 * SEG, false));
        // Without delayed ACKs each ACK carries its own packet's CE.
        let mut r = rx("cc = \"dctcp\"");
        for (k, f) in [ect, ce, ect, ce, ce, ect].into_iter().enumerate() {
            assert_eq!(seg(&mut r, k as u64, 1, f, &mut out)[0].has(flags::ECE), f & flags::CE != 0);
        }
    }

    #[test]
    fn the_congestion_bit_is_echoed() {
        let mut r = rx("cc = \"decbit\"");
        let mut out = Outbox::default();
        assert!(seg(&mut r, 0, 1, flags::ECT | flags::CE, &mut out)[0].has(flags::ECE));
        assert!(!seg(&mut r, 1, 2, flags::ECT, &mut out)[0].has(flags::ECE));
        let mut d = rx("cc = \"decbit\"\ndelayed_ack = true");
        assert!(seg(&mut d, 0, 1, flags::ECT | flags::CE, &mut out).is_empty());
        assert!(
            seg(&mut d, 1, 2, flags::ECT, &mut out)[0].has(flags::ECE),
            "a delayed ACK carries the bit of any packet it covers"
        );
    }

    /// The SACK blocks of an ACK, in segments from 0: (start, end) absolute.
    fn blocks(a: &Packet) -> Vec<(u64, u64)> {
        a.sack.ranges(a.ack).map(|(s, e)| (s / SEG, e / SEG)).collect()
    }

    #[test]
    fn sack_blocks_put_the_newest_first_and_repeat_the_recent_ones() {
        // RFC 2018 section 4: the first block holds the segment that caused the ACK; the next
        // ones repeat the most recently reported blocks not already included; at most three.
        let mut r = rx("cc = \"reno\"\nsack = true");
        let mut out = Outbox::default();
        assert!(seg(&mut r, 0, 1, 0, &mut out)[0].sack.is_empty(), "in order: no blocks");
        let a = seg(&mut r, 2, 1, 0, &mut out);
        assert_eq!((a[0].ack / SEG, blocks(&a[0])), (1, vec![(2, 3)]));
        assert_eq!(blocks(&seg(&mut r, 3, 1, 0, &mut out)[0]), [(2, 4)], "adjacent data joins its block");
        assert_eq!(blocks(&seg(&mut r, 5, 1, 0, &mut out)[0]), [(5, 6), (2, 4)]);
        assert_eq!(blocks(&seg(&mut r, 7, 1, 0, &mut out)[0]), [(7, 8), (5, 6), (2, 4)]);
        assert_eq!(blocks(&seg(&mut r, 9, 1, 0, &mut out)[0]), [(9, 10), (7, 8), (5, 6)], "three at most");
        assert_eq!(blocks(&seg(&mut r, 10, 1, 0, &mut out)[0]), [(9, 11), (7, 8), (5, 6)]);
        // Filling the hole at 4 joins [2, 4) and [5, 6): that block comes first.
        assert_eq!(blocks(&seg(&mut r, 4, 1, 0, &mut out)[0]), [(2, 6), (9, 11), (7, 8)]);
        // Filling the hole at 1 delivers up to 6; the blocks left are repeated, newest first.
        let a = seg(&mut r, 1, 1, 0, &mut out);
        assert_eq!((a[0].ack / SEG, blocks(&a[0])), (6, vec![(9, 11), (7, 8)]));
        // Without sack = true an ACK carries none.
        let mut plain = rx("cc = \"reno\"");
        seg(&mut plain, 0, 1, 0, &mut out);
        assert!(seg(&mut plain, 2, 1, 0, &mut out)[0].sack.is_empty());
    }
}
