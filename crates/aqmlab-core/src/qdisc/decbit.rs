//! The DECbit gateway: K. K. Ramakrishnan and R. Jain, "A Binary Feedback Scheme for
//! Congestion Avoidance in Computer Networks" (ACM TOCS 8(2), 1990; DEC TR-508, 1987; SIGCOMM
//! 1988), as used by Demers, Keshav and Shenker 1989 (DEC/DEC runs); the selective variant after
//! Ramakrishnan, Chiu and Jain, DEC TR-510 (1987), approximated (below).
//!
//! The gateway is first come first served. It averages the number of packets in the system
//! (waiting plus the one being transmitted) as a time integral over a window that starts at
//! the beginning of the previous regeneration cycle (a busy period and the idle period after
//! it; a cycle begins when a packet arrives to an empty system) and ends now, so it covers
//! the last complete cycle and the current one. A packet arriving while that average is at
//! least 1 gets the congestion-indication bit. This is TOCS 1990's router policy: the bit is set
//! "when the average queue length at the router at the time the packet arrives is greater than
//! or equal to one", the average over "the last (busy + idle) cycle time plus the busy period of
//! the current cycle" (Sec. 2), the packet in service included (Sec. 4.1). (The sources, not
//! here, shrink their window to 0.875 of itself when at least half the bits of a window come
//! back set, else add one: `tcp::cc::decbit`.)
//!
//! Selective DECbit (`selective = true`) sets the bit only on conversations that use at least
//! their fair share. What the sources say of it:
//! - Demers, Keshav and Shenker 1989 (Sec. 3): the selective proposal "has the gateway measure
//!   the flows of the various conversations and only send congestion signals to those users who
//!   are using more than their fair share of bandwidth"; their fair share is max-min, a
//!   criterion they credit partly to TR-510 ("The maxmin fairness criterion [Hah86, Gaf84,
//!   DEC87d]").
//! - TR-510's own rules could not be found (searched November 2026). RFC 1254 (Mankin and
//!   Ramakrishnan, 1991) describes the scheme in section 3.3.1, "Selective Feedback Congestion
//!   Indication", and the end system's answer in 4.4, as did the 1989 IETF draft it grew from
//!   ("Gateway Congestion Control Policies", whose contents list both); but every stored copy
//!   reachable here gives only the opening of the text (header, abstract, the start of the
//!   introduction), and no file the code index holds has the RFC's text. The TOCS paper,
//!   found whole, gives the router and user policies above and nothing of selective feedback.
//!   Jain, Ramakrishnan and Chiu's summary report (DEC-TR-506, arXiv cs/9809094) and Keshav's
//!   thesis (whose chapter 2 extends the DKS paper): abstracts only.
//!
//! So the sources leave open how a conversation's throughput is measured, over what interval,
//! what capacity is shared, whether a tolerance applies and how the bit relates to the queue
//! average. aqmlab's approximation, and the DEC/DEC rows of the Demers, Keshav and Shenker
//! reproductions rest on it (docs/reproductions.md, *The selective DECbit gateway*, lists the
//! rows whose verdict turns on it):
//! - each conversation's throughput is the bytes of its packets that started transmission
//!   within the same window as the queue average (previous cycle + current cycle);
//! - its fair share is the max-min share (water filling) of `capacity_factor` x line rate x
//!   window length among the conversations that sent in the window, their measured
//!   throughputs standing for their demands: conversations below the equal share are
//!   satisfied and leave, the rest split what remains;
//! - an arrival gets the bit when the average is >= `threshold` AND its conversation's
//!   throughput is >= that share (DKS: "more than"; with measured throughputs the two differ
//!   only on exact ties). A conversation that sent nothing in the window is never above its
//!   share.
//! - `capacity_factor` (default 0.9) is our assumption, from no source: a share of the whole
//!   line would leave only the largest user of a saturated line at or above it.
//!
//! Deviations and choices:
//! - `threshold` defaults to 1 (the paper's "average queue length >= 1").
//! - The number in the system counts the packet being transmitted (from `cx.in_service` on
//!   arrivals; a departure is the link asking for its next packet).
//! - The average is taken when a packet arrives, before it joins. Before any cycle has
//!   completed the window is the current cycle alone; an empty window averages 0.
//! - The bit (`flags::CE`, answered as `Verdict::Marked` with reason `decbit`) is set on admitted data packets
//!   only: ACKs count in the average but are never marked. Tail drop at `limit`.

use std::collections::VecDeque;

use serde::Serialize;

use super::fq::{ConvIndex, User};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Result};
use crate::packet::{flags, PacketId};
use crate::units::SimTime;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "decbit",
    aliases: &["dec"],
    summary: "DECbit gateway (Ramakrishnan & Jain): set the congestion bit while the regeneration-cycle average queue is >= 1; optionally selective (TR-510, approximated: its rules not found).",
    read: |f| Params::read(f).map(QdiscParams::DecBit),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// Average number in the system at or above which arrivals get the bit.
    pub threshold: f64,
    pub selective: bool,
    /// Conversation key for the selective variant.
    pub user: User,
    /// Fraction of the line rate shared out as fair shares (selective variant; an assumption,
    /// no source gives it).
    pub capacity_factor: f64,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or("limit", Limit::Packets(100), "buffer size (tail drop when full)")?;
        let threshold: f64 = f.or(
            "threshold",
            1.0,
            "set the bit on arrivals while the cycle-averaged number in the system is at least this",
        )?;
        f.ensure(threshold > 0.0, "threshold", "must be above 0")?;
        let selective: bool = f.or(
            "selective",
            false,
            "selective DECbit: bits only for conversations at or above their fair share of throughput",
        )?;
        let user = User::read(f, "selective variant: what a conversation is")?;
        let capacity_factor: f64 =
            f.or("capacity_factor", 0.9, "selective variant: fair shares divide this fraction of the line rate")?;
        f.ensure(capacity_factor > 0.0 && capacity_factor <= 1.0, "capacity_factor", "must be in (0, 1]")?;
        Ok(Params { limit, threshold, selective, user, capacity_factor })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure pieces

/// The regeneration-cycle average of the number in the system (a time integral, packet-ns).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleAverage {
    /// Start and area of the last complete cycle.
    prev: Option<(SimTime, u128)>,
    /// Whether a first busy period has begun.
    started: bool,
    cur_start: SimTime,
    /// Area of the current cycle up to `last`, packet-nanoseconds.
    cur_area: u128,
    last: SimTime,
    /// Number in the system since `last`.
    n: u32,
    /// Cycles begun so far.
    pub cycles: u64,
}

impl CycleAverage {
    /// The number in the system becomes `n` at `now`.
    pub fn set(&mut self, now: SimTime, n: u32) {
        debug_assert!(now >= self.last);
        if self.started {
            self.cur_area += self.n as u128 * now.saturating_since(self.last).ns() as u128;
        }
        self.last = now;
        self.n = n;
    }

    /// A busy period begins at `now` (an arrival to an empty system): the current cycle
    /// becomes the previous one.
    pub fn regenerate(&mut self, now: SimTime) {
        self.set(now, self.n);
        if self.started {
            self.prev = Some((self.cur_start, self.cur_area));
        }
        self.started = true;
        self.cur_start = now;
        self.cur_area = 0;
        self.cycles += 1;
    }

    /// Start of the averaging window.
    pub fn window_start(&self) -> SimTime {
        self.prev.map(|(s, _)| s).unwrap_or(self.cur_start)
    }

    /// The average over [window start, now]; 0 for an empty window.
    pub fn average(&self, now: SimTime) -> f64 {
        if !self.started {
            return 0.0;
        }
        let area = self.prev.map(|(_, a)| a).unwrap_or(0)
            + self.cur_area
            + self.n as u128 * now.saturating_since(self.last).ns() as u128;
        let start = self.window_start();
        if now > start {
            area as f64 / (now - start).ns() as f64
        } else {
            0.0
        }
    }
}

/// The max-min fair share (water level) of `capacity` among users whose demands are `xs`
/// (sorted in place): users below the equal share of what is left are satisfied and leave;
/// the level is the equal share of the rest. Infinite when every user is satisfied.
pub fn water_level(xs: &mut [f64], capacity: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let mut rest = capacity;
    for (i, &x) in xs.iter().enumerate() {
        let share = rest / (xs.len() - i) as f64;
        if x < share {
            rest -= x;
        } else {
            return share;
        }
    }
    f64::INFINITY
}

// ---------------------------------------------------------------------------------------------
// State

/// Bytes a conversation started sending in the current and the previous cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Sent {
    cycle: u64,
    cur: u64,
    prev: u64,
}

impl Sent {
    /// Bring the counters to cycle `k`.
    fn roll(&mut self, k: u64) {
        if self.cycle + 1 == k {
            self.prev = self.cur;
            self.cur = 0;
        } else if self.cycle != k {
            self.prev = 0;
            self.cur = 0;
        }
        self.cycle = k;
    }

    fn in_window(&self, k: u64) -> u64 {
        if self.cycle == k {
            self.cur + self.prev
        } else if self.cycle + 1 == k {
            self.cur
        } else {
            0
        }
    }
}

/// What this discipline counts beyond the link's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub marked: u64,
    /// Selective variant: arrivals spared the bit for being below their fair share.
    pub spared: u64,
}

pub struct DecBit {
    p: Params,
    rate_bps: u64,
    queue: VecDeque<PacketId>,
    bytes: u64,
    /// A packet is being transmitted.
    busy: bool,
    avg: CycleAverage,
    index: ConvIndex,
    sent: Vec<Sent>,
    scratch: Vec<f64>,
    pub counters: Counters,
}

impl DecBit {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        let n = if p.selective { (2 * link.n_flows).max(8) } else { 0 };
        DecBit {
            p: p.clone(),
            rate_bps: link.rate_bps,
            queue: VecDeque::new(),
            bytes: 0,
            busy: false,
            avg: CycleAverage::default(),
            index: ConvIndex::with_capacity(n),
            sent: Vec::with_capacity(n),
            scratch: Vec::with_capacity(n),
            counters: Counters::default(),
        }
    }

    /// The cycle average as it would be seen by an arrival at `now`.
    pub fn average(&self, now: SimTime) -> f64 {
        self.avg.average(now)
    }

    fn conv(&mut self, key: u64) -> usize {
        let (c, new) = self.index.get_or_insert(key);
        if new {
            self.sent.push(Sent::default());
        }
        c
    }

    /// Selective variant: is conversation `c` at or above its fair share of the window?
    fn at_or_above_share(&mut self, c: usize, now: SimTime) -> bool {
        let k = self.avg.cycles;
        let mine = self.sent[c].in_window(k);
        if mine == 0 {
            return false;
        }
        self.scratch.clear();
        self.scratch.extend(self.sent.iter().map(|s| s.in_window(k)).filter(|&b| b > 0).map(|b| b as f64 * 8.0));
        let window_s = now.saturating_since(self.avg.window_start()).ns() as f64 * 1e-9;
        let capacity = self.p.capacity_factor * self.rate_bps as f64 * window_s;
        mine as f64 * 8.0 >= water_level(&mut self.scratch, capacity)
    }
}

impl QueueDisc for DecBit {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let now = cx.now;
        self.busy = cx.in_service.is_some();
        let n_before = self.queue.len() as u32 + self.busy as u32;
        self.avg.set(now, n_before);
        let size = cx.pkts[pkt].size;
        if self.p.limit.overflows(self.queue.len(), self.bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if n_before == 0 {
            self.avg.regenerate(now);
        }
        let congested = self.avg.average(now) >= self.p.threshold;
        self.queue.push_back(pkt);
        self.bytes += size as u64;
        self.avg.set(now, n_before + 1);
        if !congested || !cx.pkts[pkt].is_data() {
            return Verdict::Enqueued;
        }
        if self.p.selective {
            let c = self.conv(self.p.user.key(&cx.pkts[pkt]));
            if !self.at_or_above_share(c, now) {
                self.counters.spared += 1;
                return Verdict::Enqueued;
            }
        }
        cx.pkts[pkt].flags |= flags::CE;
        self.counters.marked += 1;
        Verdict::Marked(DropReason::Decbit)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        // Called when the line is free: a transmission just ended (if one was under way).
        let next = self.queue.pop_front();
        self.busy = next.is_some();
        self.avg.set(cx.now, self.queue.len() as u32 + self.busy as u32);
        let pkt = next?;
        let size = cx.pkts[pkt].size;
        self.bytes -= size as u64;
        if self.p.selective {
            let c = self.conv(self.p.user.key(&cx.pkts[pkt]));
            let k = self.avg.cycles;
            let s = &mut self.sent[c];
            s.roll(k);
            s.cur += size as u64;
        }
        Some(pkt)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("avg_queue", self.avg.average(self.avg.last)));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(p: &Params, n_flows: u64) -> u64 {
    if p.selective {
        (2 * n_flows).max(8)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::Line;
    use super::*;

    /// A line of 8 Gbit/s: one byte per ns, so a packet of s bytes is on the wire s ns.
    fn line(p: Params) -> Line<DecBit> {
        let link = LinkInfo { rate_bps: 8_000_000_000, n_flows: 4, mean_packet_size: 100 };
        Line::new(DecBit::new(&p, &link), &link, 1)
    }

    fn params() -> Params {
        Params { limit: Limit::Packets(100), threshold: 1.0, selective: false, user: User::Flow, capacity_factor: 0.9 }
    }

    #[test]
    fn averages_over_the_previous_cycle_and_the_current_one() {
        // Hand-made schedule (ns; n = packets in the system, the one on the wire included):
        //   cycle 1: A(30 B) at 0 -> wire [0,30); B(20 B) at 10 -> wire [30,50); idle from 50.
        //     area = 1*10 + 2*20 + 1*20 = 70 over [0, 100).
        //   cycle 2 begins at 100: C, D, E, F (100 B each) at 100, 110, 120, 130; on the wire
        //     [100,200), [200,300), [300,400), [400,500); idle from 500.
        //     Arrivals see: C: 70/100; D: (70+1*10)/110; E: (80+2*10)/120; F: (100+3*10)/130 = 1.
        //     area of cycle 2 = 1*10+2*10+3*10+4*70+3*100+2*100+1*100 = 940 over [100, 1000).
        //   cycle 3 begins at 1000 (cycle 1 leaves the window): G(150 B) and H(50 B) at 1000:
        //     both see 940/900; I at 1100 sees (940 + 2*100)/1000.
        let mut l = line(params());
        let mut seen = vec![];
        for (t, size) in
            [(0, 30), (10, 20), (100, 100), (110, 100), (120, 100), (130, 100), (1000, 150), (1000, 50), (1100, 10)]
        {
            l.run_until(t);
            let v = l.arrive(t, 1, size);
            // The arrival took no time: the average now is the one it saw.
            seen.push((l.q.average(SimTime(t)), v));
        }
        let expect = [
            (0.0, Verdict::Enqueued),
            (10.0 / 10.0, Verdict::Marked(DropReason::Decbit)), // cycle 1 alone: [0,10) with one in the system
            (70.0 / 100.0, Verdict::Enqueued),
            (80.0 / 110.0, Verdict::Enqueued),
            (100.0 / 120.0, Verdict::Enqueued),
            (130.0 / 130.0, Verdict::Marked(DropReason::Decbit)),
            (940.0 / 900.0, Verdict::Marked(DropReason::Decbit)),
            (940.0 / 900.0, Verdict::Marked(DropReason::Decbit)),
            (1140.0 / 1000.0, Verdict::Marked(DropReason::Decbit)),
        ];
        assert_eq!(seen, expect);
        assert_eq!(l.q.avg.cycles, 3);
        l.drain();
        l.check_accounting();
    }

    #[test]
    fn a_higher_threshold_marks_only_above_it() {
        // The schedule above with threshold 1.1: only I (1140/1000) is at or above it.
        let mut l = line(Params { threshold: 1.1, ..params() });
        for (t, size) in
            [(0, 30), (10, 20), (100, 100), (110, 100), (120, 100), (130, 100), (1000, 150), (1000, 50), (1100, 10)]
        {
            l.run_until(t);
            let v = l.arrive(t, 1, size);
            assert_eq!(v == Verdict::Marked(DropReason::Decbit), t == 1100, "at {t}: {v:?}");
        }
    }

    #[test]
    fn tail_drops_at_the_limit_and_never_marks_acks() {
        let mut l = line(Params { limit: Limit::Packets(2), ..params() });
        assert_eq!(l.arrive(0, 1, 100), Verdict::Enqueued); // on the wire
        assert_eq!(l.arrive(0, 1, 100), Verdict::Enqueued); // waits; average over an empty window: 0
        assert_eq!(l.arrive(50, 1, 100), Verdict::Marked(DropReason::Decbit)); // (2*50)/50 = 2 in the system
        assert_eq!(l.arrive(60, 1, 100), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(l.arrive_ack(70, 2, 40), Verdict::Dropped(DropReason::Overflow));
        l.run_until(100);
        assert_eq!(l.arrive_ack(100, 2, 40), Verdict::Enqueued, "ACKs are never marked");
        l.drain();
        l.check_accounting();
    }

    #[test]
    fn water_level_is_the_max_min_share() {
        // Demands 2, 3, 5 of capacity 9: 2 < 3 leaves; 3 < 7/2 leaves; 5 >= 4: level 4.
        assert_eq!(water_level(&mut [5.0, 2.0, 3.0], 9.0), 4.0);
        assert_eq!(water_level(&mut [5.0, 5.0], 9.0), 4.5);
        assert_eq!(water_level(&mut [0.1, 0.2], 1.0), f64::INFINITY);
        // Demands 1, 2, 6, 6 of capacity 10: 1 and 2 satisfied, 6 and 6 share 7: level 3.5.
        assert_eq!(water_level(&mut [6.0, 1.0, 6.0, 2.0], 10.0), 3.5);
    }

    /// Flow 1 sends three packets for each one of flow 2, keeping the line exactly loaded
    /// with a standing queue of about 3: the average is above 1 throughout.
    fn three_to_one(selective: bool, pattern: &[u32]) -> Vec<(u32, Verdict)> {
        let mut l = line(Params { selective, ..params() });
        let mut out = vec![];
        for k in 0..3 {
            l.arrive(0, pattern[k % pattern.len()], 100);
        }
        for k in 0..400u64 {
            let t = 100 * k + 50;
            l.run_until(t);
            let flow = pattern[k as usize % pattern.len()];
            out.push((flow, l.arrive(t, flow, 100)));
        }
        l.drain();
        l.check_accounting();
        out
    }

    #[test]
    fn plain_decbit_marks_every_conversation_when_congested() {
        let out = three_to_one(false, &[1, 1, 1, 2]);
        assert!(out[10..].iter().all(|&(_, v)| v == Verdict::Marked(DropReason::Decbit)));
    }

    #[test]
    fn selective_decbit_marks_only_conversations_at_or_above_their_share() {
        // Throughputs 3/4 and 1/4 of the line; shares of 0.9 of it: 1/4 < 0.45 is satisfied,
        // leaving 0.65 for flow 1, which uses 0.75: flow 1 is marked, flow 2 never.
        let out = three_to_one(true, &[1, 1, 1, 2]);
        for &(flow, v) in &out[20..] {
            assert_eq!(v == Verdict::Marked(DropReason::Decbit), flow == 1, "{flow}: {v:?}");
        }
        // Equal users: each uses 1/2 >= 0.45: both are marked.
        let out = three_to_one(true, &[1, 2]);
        assert!(out[20..].iter().all(|&(_, v)| v == Verdict::Marked(DropReason::Decbit)));
    }
}
