//! The TCP sender: segments, the window, retransmission timers and RTT sampling.
//!
//! Sequence numbers count data bytes from 0. Segment k covers bytes [k mss, (k+1) mss), the
//! last one of a finite transfer shorter; a data packet is one segment plus `header` bytes.
//! `snd_una` is the first unacknowledged byte, `snd_nxt` the next to send and `snd_max` the
//! highest sent + 1 (they differ after going back); `segs` holds the segments in
//! [snd_una, snd_max), in order.
//!
//! Its rooms, by concern (each method is an `impl Sender` in the room of its concern; the
//! state they share, the sequence numbers and the segments, is declared here, so that what
//! `snd_una`, `snd_nxt`, `snd_max` and `segs` mean is written in one place):
//! - this file: the state, the opening (handshake), and the [`Agent`] contract's entry points;
//! - `send.rs`: the send path (the window rule, limited transmit, pacing, a transmission);
//! - `ack.rs`: the ACK path (round-trip samples, the control's reactions, duplicate ACKs, ECN);
//! - `sack.rs`: RFC 6675's scoreboard and loss recovery;
//! - `timers.rs`: the lazy timer and the timeouts (one timer, or one per segment);
//! - `delivery.rs`: the delivery-rate samples.
//!
//! Deviations: no slow-start restart after an idle period, no Nagle, no SYN/FIN exchange (the
//! connection exists from the start time), and the receiver window is the constant
//! `max_window`.

use std::collections::VecDeque;

use super::cc::AnyCc;
use super::rtt::{RttEstimator, MAX_BACKOFF_SHIFT};
use super::source::DataSource;
use super::{Common, Feedback, Timer};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind};
use crate::packet::{flags, Packet};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

mod ack;
mod delivery;
mod sack;
mod send;
mod timers;

use delivery::{Delivery, Snapshot};
use sack::SackRecovery;
use send::Pacer;
use timers::LazyTimer;

/// A segment sent and not yet acknowledged: what every sender keeps of it (24 bytes; with
/// 100,000 flows the records of their first windows are new memory the run touches).
#[derive(Clone, Copy, Debug)]
struct Seg {
    first_sent: SimTime,
    last_sent: SimTime,
    sends: u32,
    /// A SACK block covered it (SACK flows only).
    sacked: bool,
    /// Retransmitted since the last timeout (read with `retransmit_once`).
    rxt: bool,
    /// The segment being timed (`rtt_timing = "one_at_a_time"`).
    timed: bool,
}

// A segment record grown back past 24 bytes would cost S4's loop at 100,000 flows again (its
// 64-byte predecessor: 443 -> 495 ns per transmission, median of 12 interleaved runs).
const _: () = assert!(std::mem::size_of::<Seg>() == 24);

/// What only some senders keep of a segment, in `Sender::extras`, parallel to `segs`: the
/// delivery-rate snapshot (a control that reads rate samples: BBR), the application's time
/// stamp (a sender fed by an application: Telnet) and the segment's own timer (one timer per
/// segment).
#[derive(Clone, Copy, Debug)]
struct SegExtra {
    /// The delivery-rate snapshot at its last transmission (see [`Delivery`]).
    snap: Snapshot,
    /// When the application generated its data.
    app_ts: SimTime,
    /// When its own timer expires.
    deadline: SimTime,
}

/// Whether the control reads rate samples (BBR): only then do transmissions take delivery
/// snapshots.
fn reads_rate_samples(cc: &AnyCc) -> bool {
    matches!(cc, AnyCc::Bbr(_))
}

/// Where the connection is in its opening (`handshake = true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// No handshake, or it is over: data may flow.
    Open,
    /// `start` has not come yet, and the flow opens with a SYN.
    Closed,
    /// The SYN is out: first sent at `first`, `sends` times so far.
    SynSent { first: SimTime, sends: u32 },
}

pub struct Sender {
    ids: FlowIds,
    when: Schedule,
    /// Data bytes per full segment.
    mss: u64,
    header: u32,
    max_window: u32,
    /// Data bytes of a finite transfer; `u64::MAX` for an endless one (a sentinel, not an
    /// `Option`: 8 bytes, where the slot of every sender is what 100,000 flows pay for).
    total: u64,
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
    /// Their [`SegExtra`], index for index, for a sender that needs one (`None` otherwise).
    /// Boxed: 8 bytes in every sender's slot rather than a deque's 32, for the few that use it.
    #[allow(clippy::box_collection)]
    extras: Option<Box<VecDeque<SegExtra>>>,
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
    /// A segment is being timed (`rtt_timing = "one_at_a_time"`; it carries `Seg::timed`).
    timing: bool,
    /// RFC 3042: the first two duplicate ACKs each let one new segment beyond the window.
    limited_transmit: bool,
    /// RFC 6937: SACK recovery sends by proportional rate reduction.
    prr: bool,
    /// A partial ACK in SACK recovery also resends the first unacknowledged segment.
    partial_ack_retransmit: bool,
    /// SACK recovery resends no segment already retransmitted since the last timeout.
    retransmit_once: bool,
    /// Segments in `segs` SACKed.
    sacked: u32,
    /// Boxed: most senders never recover by SACK, and inline it made every slot 32 bytes larger.
    recovery: Option<Box<SackRecovery>>,
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
        clocks: Option<&SimRng>,
    ) -> Self {
        let mut cc = c.cc.build(c.max_window);
        if let AnyCc::Bbr(b) = &mut cc {
            b.reseed(ids.flow as u64);
        }
        let rto = c.cc.rto();
        let rate_samples = reads_rate_samples(&cc);
        Sender {
            ids,
            when,
            mss: c.mss() as u64,
            header: c.header,
            max_window: c.max_window,
            total: total.unwrap_or(u64::MAX),
            cc,
            rtt: RttEstimator::with_clock_of(rto, clocks),
            per_packet: rto.per_segment,
            sample_first_sent: rto.is_generic(),
            shift: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            segs: VecDeque::new(),
            extras: (rate_samples || source.is_some() || rto.per_segment).then(Box::default),
            dupacks: 0,
            rto: LazyTimer::new(Timer::Rto),
            feedback: c.feedback(),
            ect: if c.sends_ect1() { flags::ECT | flags::ECT1 } else { flags::ECT },
            ecn_recover: 0,
            send_cwr: false,
            delivery: Delivery { min_rtt: SimDuration(u64::MAX), ..Delivery::default() },
            pacer: (c.pacing || c.cc.info().paces)
                .then(|| Box::new(Pacer { next_send: SimTime::ZERO, timer: LazyTimer::new(Timer::Pace) })),
            sack: c.sack,
            timing: false,
            limited_transmit: c.limited_transmit,
            prr: c.prr,
            partial_ack_retransmit: c.partial_ack_retransmit,
            retransmit_once: c.retransmit_once,
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
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto.deadline()
    }

    /// The [`SegExtra`] of the segments in flight (a sender that keeps them).
    fn extras(&self) -> &VecDeque<SegExtra> {
        self.extras.as_ref().expect("this sender keeps per-segment extras")
    }

    fn extra_mut(&mut self, i: usize) -> &mut SegExtra {
        &mut self.extras.as_mut().expect("this sender keeps per-segment extras")[i]
    }

    fn seg_end(&self, seq: u64) -> u64 {
        (seq + self.mss).min(self.total)
    }

    /// Segments in [from, to), `from` on a segment boundary.
    fn segs_in(&self, from: u64, to: u64) -> u32 {
        (to - from).div_ceil(self.mss) as u32
    }

    /// The usable window, whole packets (at least 1).
    fn window(&self) -> u32 {
        (self.cc.inner().cwnd().min(self.max_window as f64).floor() as u32).max(1)
    }

    fn seg_at(&self, seq: u64) -> &Seg {
        &self.segs[((seq - self.snd_una) / self.mss) as usize]
    }

    /// The connection is open (at the start, or on the SYN-ACK): the application starts, and
    /// data goes out as the window allows.
    fn begin_data(&mut self, now: SimTime, out: &mut Outbox) {
        if self.source.as_mut().is_none_or(|s| s.start(now, out)) {
            self.send_allowed(now, out);
        }
    }

    /// Send the SYN (again), with the retransmission timer as for data (its initial value
    /// before any sample, backed off after each expiry).
    fn send_syn(&mut self, now: SimTime, out: &mut Outbox) {
        let Opening::SynSent { first, sends } = self.opening else { return };
        let fl = if sends > 0 { flags::SYN | flags::RETX } else { flags::SYN };
        out.packets
            .push(Packet { flags: fl, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, self.syn_size) });
        self.opening = Opening::SynSent { first, sends: sends + 1 };
        self.rto.set(self.rtt.deadline(now, self.shift), out);
    }
}

/// The sender keeps typed time throughout: its rooms, the RTT estimator, the timers, what it
/// tells the controls and the packets' stamps.
impl Agent for Sender {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        if self.opening == Opening::Closed {
            self.opening = Opening::SynSent { first: now, sends: 0 };
            return self.send_syn(now, out);
        }
        self.begin_data(now, out);
    }

    fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Outbox) {
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
                } else {
                    self.rtt.syn_timed_out();
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

    fn prefetch_state(&self) {
        // A timeout resends the first unacknowledged segment.
        if let Some(first) = self.segs.front() {
            crate::prefetch::record(first);
        }
    }

    fn on_timer(&mut self, now: SimTime, kind: TimerKind, gen: u32, out: &mut Outbox) {
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
                // What did not leave may be withdrawn (a Telnet's `on_full_window`); only data
                // never sent, above `snd_max`, so the window and the timers stay as they are.
                if let Some(source) = &mut self.source {
                    source.after_send(mss);
                    debug_assert!(source.supplied() >= self.snd_max);
                }
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
        out.push(("rto_s", self.rtt.backed_off(self.shift).ns() as f64 * 1e-9));
        if self.pacer.is_some() {
            out.push(("pacing_rate_bps", self.pacing_rate_bps().unwrap_or(f64::NAN)));
        }
        cc.gauges(out);
        if let Some(source) = &self.source {
            source.gauges(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::packet::flags;
    use crate::tcp::harness::{common, Bench, MS};

    pub(super) const GBPS: u64 = 1_000_000_000;
    pub(super) const SEG: u64 = 1000;

    /// Round trip on the bench: 2 x 50 ms plus the data packet's transmission.
    pub(super) const RTT: u64 = 100 * MS;
    /// Drop the first transmission of segment `k`.
    pub(super) fn drop_once(k: u64) -> crate::tcp::harness::Script {
        Box::new(move |p, _| p.seq == k * SEG && !p.has(flags::RETX))
    }

    /// The window just before the loss was detected, and the trace after it.
    pub(super) fn around_loss(b: &Bench, k: u64) -> (f64, Vec<(u64, f64, f64)>) {
        let retx = b.sent.iter().find(|s| s.seq == k * SEG && s.retx).expect("retransmitted").t;
        let before = b.trace.iter().take_while(|p| p.0 < retx).last().unwrap().1;
        (before, b.trace.iter().filter(|p| p.0 >= retx).copied().collect())
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
}
