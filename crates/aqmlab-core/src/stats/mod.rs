//! The one accounting layer: every count that the results and the invariants read, and the one
//! way the measurement window is taken from them.
//!
//! Each event of a packet's life updates one record here through one method (in the manner of
//! ns-3's `QueueDisc`, which counts around `DoEnqueue`/`DoDequeue` so that no discipline does):
//! a link's [`LinkCounters`] on offer, drop, transmission, loss and hand-over to the wire; a
//! flow's [`FlowCounters`] on sending, delivery, drop and what its agents report; the
//! (flow, hop) counters of [`hops`] beside them. Counts run over the whole run, which is what the
//! invariants balance; the window `[warmup, end)` of the results is the difference from a
//! snapshot taken as the clock reaches the warmup ([`Window`]), so the per-packet path has no
//! "measuring yet?" test. What spans events instead (the time integrals of queue length and busy
//! time) is clipped to the window as it is added ([`overlap`]).
//!
//! A count belongs to the window when its event's time is at or after the warmup: a packet sent
//! before the warmup and delivered after it counts as delivered, not as sent.

pub mod fct;
pub mod gauges;
pub mod hops;

use crate::packet::PacketKind;
use crate::qdisc::{DropReason, PerReason, SparsePerReason};
use crate::units::{SimDuration, SimTime};

/// Packets and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub pkts: u64,
    pub bytes: u64,
}

impl Count {
    #[inline]
    pub fn add(&mut self, size: u32) {
        self.pkts += 1;
        self.bytes += size as u64;
    }
    pub fn plus(self, o: Count) -> Count {
        Count { pkts: self.pkts + o.pkts, bytes: self.bytes + o.bytes }
    }
    pub fn minus(self, o: Count) -> Count {
        Count { pkts: self.pkts - o.pkts, bytes: self.bytes - o.bytes }
    }
}

/// Length of the overlap of [a, b) with [lo, hi).
#[inline]
pub fn overlap(a: SimTime, b: SimTime, lo: SimTime, hi: SimTime) -> SimDuration {
    b.min(hi).saturating_since(a.max(lo))
}

/// One link direction's counts, whole run. In declaration order (`repr(C)`): those every packet
/// updates first, so that they share cache lines with the link's other hot fields.
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct LinkCounters {
    /// Offered to the queue (the results' arrivals).
    pub offered: Count,
    /// Taken by the transmitter (the results' departures).
    pub transmitted: Count,
    /// Sum of the queueing delays of the packets transmitted.
    pub qdelay_ns: u128,
    /// Transmitted whole and put on the wire.
    pub propagated: Count,
    /// Dropped by the queue: refused on arrival or removed while queued.
    pub queue_dropped: Count,
    /// Dropped while being transmitted (front CHOKe's match on the packet in service).
    pub aborted: Count,
    /// Lost on the wire (`loss`).
    pub lost: Count,
    /// Every drop (queue, transmission, wire) by reason.
    pub drops: SparsePerReason,
    /// Every mark, by reason.
    pub marks: SparsePerReason,
}

impl LinkCounters {
    #[inline]
    pub fn offer(&mut self, size: u32) {
        self.offered.add(size);
    }
    /// The transmitter took a packet after `wait_ns` in the queue.
    #[inline]
    pub fn transmit(&mut self, size: u32, wait_ns: u64) {
        self.transmitted.add(size);
        self.qdelay_ns += wait_ns as u128;
    }
    #[inline]
    pub fn propagate(&mut self, size: u32) {
        self.propagated.add(size);
    }
    #[inline]
    pub fn mark(&mut self, reason: DropReason) {
        self.marks.add(reason);
    }
    /// A drop at this link: `Queued` packets had not reached the transmitter, `InService` ones
    /// were being transmitted, `OnWire` ones were lost after it.
    #[inline]
    pub fn drop(&mut self, size: u32, reason: DropReason, place: DropPlace) {
        match place {
            DropPlace::Queued => self.queue_dropped.add(size),
            DropPlace::InService => self.aborted.add(size),
            DropPlace::OnWire => self.lost.add(size),
        }
        self.drops.add(reason);
    }
}

impl Counts for LinkCounters {
    fn since(&self, earlier: &LinkCounters) -> LinkCounters {
        LinkCounters {
            offered: self.offered.minus(earlier.offered),
            transmitted: self.transmitted.minus(earlier.transmitted),
            qdelay_ns: self.qdelay_ns - earlier.qdelay_ns,
            propagated: self.propagated.minus(earlier.propagated),
            queue_dropped: self.queue_dropped.minus(earlier.queue_dropped),
            aborted: self.aborted.minus(earlier.aborted),
            lost: self.lost.minus(earlier.lost),
            drops: self.drops.since(&earlier.drops),
            marks: self.marks.since(&earlier.marks),
        }
    }
}

/// Where a packet was when it was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropPlace {
    Queued,
    InService,
    OnWire,
}

/// Time integrals of one link direction over the window (clipped to it as they are added).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkIntegrals {
    /// Queue length times time, packet-ns and byte-ns.
    pub area_pkts: u128,
    pub area_bytes: u128,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    /// The longest the queue has been (whole run).
    pub max_len: usize,
}

/// One flow's counts, whole run, data packets and ACKs apart where both exist. In declaration
/// order (`repr(C)`): those a packet's round trip updates first.
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct FlowCounters {
    pub sent: [Count; 2],
    pub delivered: [Count; 2],
    /// Of the data delivered: sums of the delays from sending to delivery, and in queues.
    pub delay_ns: u128,
    pub qdelay_ns: u128,
    /// Round-trip-time samples the sender took.
    pub rtt_ns: u128,
    pub rtt_samples: u64,
    /// Data packets acknowledged, and the sum of their times from first transmission to
    /// acknowledgement (every packet, retransmitted or not: see `mean_packet_rtt_s`).
    pub packet_rtt_ns: u128,
    pub packets_acked: u64,
    /// New data delivered in order (for datagrams: all delivered bytes).
    pub goodput_bytes: u64,
    pub retransmits: u64,
    pub dropped: [Count; 2],
    /// Drops of data packets by reason.
    pub data_drops: PerReason,
    /// Marks of the flow's packets (data and ACKs) by reason: kept once one is marked (most runs
    /// mark nothing; drops, which most flows meet, stay inline beside the other counts).
    pub marks: SparsePerReason,
    pub timeouts: u32,
    /// Fast retransmits (recoveries started by duplicate ACKs); u32 like `timeouts`, so the two
    /// share the word `timeouts` had alone.
    pub fast_retransmits: u32,
}

#[inline]
fn k(kind: PacketKind) -> usize {
    kind as usize
}

impl FlowCounters {
    /// A packet sent; `retransmission` if it carries the retransmission flag (which an ACK
    /// echoes from the data it answers, and which counts only on data).
    #[inline]
    pub fn send(&mut self, kind: PacketKind, size: u32, retransmission: bool) {
        self.sent[k(kind)].add(size);
        // A branch, not an add of 0: `retransmits` lies on a line an ACK need not touch.
        if retransmission && kind == PacketKind::Data {
            self.retransmits += 1;
        }
    }
    /// Delivery of a packet sent `delay_ns` ago that waited `qdelay_ns` in queues.
    #[inline]
    pub fn deliver(&mut self, kind: PacketKind, size: u32, delay_ns: u64, qdelay_ns: u64) {
        self.delivered[k(kind)].add(size);
        if kind == PacketKind::Data {
            self.delay_ns += delay_ns as u128;
            self.qdelay_ns += qdelay_ns as u128;
        }
    }
    #[inline]
    pub fn drop(&mut self, kind: PacketKind, size: u32, reason: DropReason) {
        self.dropped[k(kind)].add(size);
        if kind == PacketKind::Data {
            self.data_drops.add(reason);
        }
    }
    #[inline]
    pub fn mark(&mut self, reason: DropReason) {
        self.marks.add(reason);
    }
    /// Data packets (or bytes) of `counts`, one of `sent`, `delivered`, `dropped`.
    #[inline]
    pub fn data(counts: &[Count; 2]) -> Count {
        counts[k(PacketKind::Data)]
    }
    #[inline]
    pub fn acks(counts: &[Count; 2]) -> Count {
        counts[k(PacketKind::Ack)]
    }
}

impl Counts for FlowCounters {
    fn since(&self, earlier: &FlowCounters) -> FlowCounters {
        let pair = |a: &[Count; 2], b: &[Count; 2]| [a[0].minus(b[0]), a[1].minus(b[1])];
        FlowCounters {
            sent: pair(&self.sent, &earlier.sent),
            delivered: pair(&self.delivered, &earlier.delivered),
            delay_ns: self.delay_ns - earlier.delay_ns,
            qdelay_ns: self.qdelay_ns - earlier.qdelay_ns,
            rtt_ns: self.rtt_ns - earlier.rtt_ns,
            rtt_samples: self.rtt_samples - earlier.rtt_samples,
            packet_rtt_ns: self.packet_rtt_ns - earlier.packet_rtt_ns,
            packets_acked: self.packets_acked - earlier.packets_acked,
            goodput_bytes: self.goodput_bytes - earlier.goodput_bytes,
            retransmits: self.retransmits - earlier.retransmits,
            dropped: pair(&self.dropped, &earlier.dropped),
            data_drops: self.data_drops.minus(&earlier.data_drops),
            marks: self.marks.since(&earlier.marks),
            timeouts: self.timeouts - earlier.timeouts,
            fast_retransmits: self.fast_retransmits - earlier.fast_retransmits,
        }
    }
}

/// Delays an application measured (Telnet's keystroke echoes), over the window. Kept as sums in
/// floating point, which a difference of snapshots would round, so these count only once the
/// window has started (they are rare: one per keystroke).
#[derive(Clone, Debug, Default)]
pub struct AppDelays {
    pub sum_ns: u128,
    pub sum_sq_s2: f64,
    pub samples: u64,
}

impl AppDelays {
    #[inline]
    pub fn add(&mut self, delay_ns: u64) {
        self.sum_ns += delay_ns as u128;
        self.sum_sq_s2 += (delay_ns as f64 * 1e-9).powi(2);
        self.samples += 1;
    }
}

/// Where the window's counts start from: the snapshot scheme every windowed count uses.
#[derive(Clone, Debug)]
pub enum Window<T> {
    /// No warmup: the window is the whole run.
    WholeRun,
    /// The clock has not reached the warmup yet: nothing counts.
    NotYet,
    /// The counts as the clock reached the warmup.
    From(T),
}

impl<T> Window<T> {
    /// The window of a run with (`true`) or without a warmup.
    pub fn new(warmup: bool) -> Self {
        if warmup {
            Window::NotYet
        } else {
            Window::WholeRun
        }
    }

    /// Whether the window waits for the clock to reach the warmup.
    #[inline]
    pub fn waiting(&self) -> bool {
        matches!(self, Window::NotYet)
    }

    /// The window's part of `now`, a whole-run count whose value at the warmup `start` finds in
    /// the snapshot.
    pub fn counts<C: Counts>(&self, now: &C, start: impl FnOnce(&T) -> &C) -> C {
        match self {
            Window::WholeRun => now.clone(),
            Window::NotYet => C::default(),
            Window::From(snapshot) => now.since(start(snapshot)),
        }
    }
}

/// Whole-run counts that a window takes the difference of.
pub trait Counts: Clone + Default {
    /// The counts since `earlier`, a snapshot of the same record.
    fn since(&self, earlier: &Self) -> Self;
}

impl Counts for u64 {
    fn since(&self, earlier: &Self) -> Self {
        self - earlier
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_counts_since_a_snapshot_are_the_differences() {
        let mut c = LinkCounters::default();
        c.offer(100);
        c.transmit(100, 5);
        let before = c.clone();
        c.offer(200);
        c.drop(200, DropReason::Early, DropPlace::Queued);
        c.offer(300);
        c.transmit(300, 7);
        c.drop(300, DropReason::LinkLoss, DropPlace::OnWire);
        let w = c.since(&before);
        assert_eq!(w.offered, Count { pkts: 2, bytes: 500 });
        assert_eq!(w.transmitted, Count { pkts: 1, bytes: 300 });
        assert_eq!(w.qdelay_ns, 7);
        assert_eq!((w.queue_dropped.pkts, w.lost.pkts, w.aborted.pkts), (1, 1, 0));
        assert_eq!((w.drops.get(DropReason::Early), w.drops.total()), (1, 2));
        assert_eq!(c.since(&c), LinkCounters::default());
    }

    /// A link's counts by reason are kept only once one is counted, and read as zeros before.
    #[test]
    fn counts_by_reason_start_empty_and_subtract() {
        let mut c = LinkCounters::default();
        assert_eq!((c.drops.total(), c.marks.get(DropReason::Early)), (0, 0));
        c.drop(100, DropReason::Early, DropPlace::Queued);
        let before = c.clone();
        c.drop(100, DropReason::Early, DropPlace::Queued);
        c.drop(100, DropReason::Overflow, DropPlace::Queued);
        c.mark(DropReason::Early);
        let w = c.since(&before);
        assert_eq!((w.drops.get(DropReason::Early), w.drops.get(DropReason::Overflow), w.drops.total()), (1, 1, 2));
        assert_eq!((w.marks.get(DropReason::Early), w.marks.total()), (1, 1));
        assert_eq!(w.drops.dense().total(), 2);
        assert_eq!(before.since(&before).drops, LinkCounters::default().drops, "zeros equal nothing counted");
    }

    #[test]
    fn flow_counts_keep_data_and_acks_apart() {
        let mut f = FlowCounters::default();
        f.send(PacketKind::Data, 1000, false);
        f.send(PacketKind::Data, 1000, true);
        f.send(PacketKind::Ack, 40, true);
        f.deliver(PacketKind::Data, 1000, 30, 10);
        f.deliver(PacketKind::Ack, 40, 20, 0);
        f.drop(PacketKind::Data, 1000, DropReason::Overflow);
        assert_eq!(FlowCounters::data(&f.sent), Count { pkts: 2, bytes: 2000 });
        assert_eq!(FlowCounters::acks(&f.sent), Count { pkts: 1, bytes: 40 });
        assert_eq!((f.retransmits, f.delay_ns, f.qdelay_ns), (1, 30, 10), "ACK delays are not data delays");
        assert_eq!(f.data_drops.total(), 1);
        let w = f.since(&FlowCounters::default());
        assert_eq!(w, f);
    }

    #[test]
    fn a_window_counts_from_its_snapshot() {
        let now = 10u64;
        assert_eq!(Window::<u64>::WholeRun.counts(&now, |s| s), 10);
        assert_eq!(Window::<u64>::NotYet.counts(&now, |s| s), 0);
        assert_eq!(Window::From(4u64).counts(&now, |s| s), 6);
        assert!(Window::<u64>::new(true).waiting());
        assert!(!Window::<u64>::new(false).waiting());
    }

    #[test]
    fn overlap_clips_to_the_window() {
        let clipped = |a, b, lo, hi| overlap(SimTime(a), SimTime(b), SimTime(lo), SimTime(hi)).ns();
        assert_eq!(clipped(0, 10, 5, 20), 5);
        assert_eq!(clipped(6, 8, 5, 20), 2);
        assert_eq!(clipped(0, 4, 5, 20), 0);
        assert_eq!(clipped(18, 30, 5, 20), 2);
    }
}
