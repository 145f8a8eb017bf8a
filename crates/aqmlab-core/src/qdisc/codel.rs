//! CoDel, Controlled Delay: K. Nichols, V. Jacobson, A. McGregor and J. Iyengar, "Controlled
//! Delay Active Queue Management", RFC 8289 (2018), its section 5 pseudocode; parameter names
//! as Linux's sch_codel (`target`, `interval`, `limit`, `ecn`, `ce_threshold`).
//!
//! CoDel looks at the sojourn time of each packet as it leaves (dequeue time minus enqueue
//! time). Once the sojourn time has stayed at or above `target` for `interval`, it drops (or,
//! with `ecn`, marks) the head packet and enters the dropping state, where the next drops
//! follow the control law drop_next = drop_next + interval / sqrt(count), count being the drops
//! of this dropping state. It leaves the dropping state as soon as a sojourn time is below
//! target (or the queue holds at most one MTU). Arrivals are only refused when the buffer is
//! full (`limit`, tail drop: reason `overflow`); CoDel's own drops have reason `codel`.
//!
//! Re-entering the dropping state soon after leaving it (now - drop_next < 16 interval) starts
//! from count = count - lastcount (the drops of the previous cycle beyond its start) when that
//! is above 1, else from 1: RFC 8289's pseudocode, which is Linux's rule (the 2012 ACM Queue
//! article had count - 2 within 8 intervals).
//!
//! The state machine ([`CodelVars`]) drives any queue that can pop its head with the head's
//! enqueue time ([`CodelQueue`]); FQ-CoDel runs one per flow queue. The decisions are the pure
//! [`control_law`], [`reentry_count`] and [`sojourn_above_target`].
//!
//! Gauges: `dropping` (0 or 1), `count`, `drop_next_s` (absolute time of the next drop, while
//! dropping), `sojourn_s` (of the last packet dequeued).
//!
//! Choices the specification leaves open, and deviations:
//! - The control law is exact (interval / sqrt(count) in floating point, truncated to whole
//!   ns), as the RFC's pseudocode; Linux approximates 1/sqrt(count) by Newton steps in 32-bit
//!   fixed point.
//! - "Above target for an interval" is now >= first_above_time (the RFC); Linux uses now >
//!   first_above_time. A sojourn time equal to target counts as above it (both).
//! - The MTU of the "at most one MTU queued" rule is the parameter `mtu` (default 1500 bytes;
//!   Linux takes the device's MTU), compared with the bytes left queued after the head left.
//! - With `ecn`, an ECN-capable packet (ECT) that would be dropped is marked (CE) and sent, as
//!   Linux does: at most one mark per dequeue, the mark counting as a drop in `count`. Without
//!   `ecn` (the default, as Linux's sch_codel) every packet is dropped.
//! - `ce_threshold` (off unless given): an ECN-capable packet whose sojourn time is above it
//!   is marked with reason `ce_threshold`, whatever `ecn` says (Linux). A packet CoDel has
//!   just marked is not counted a second time (Linux counts it in both counters).
//! - Time is integer ns; no wrap-around arithmetic is needed.
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 370 or so.

use std::collections::VecDeque;

use serde::Serialize;

use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Bytes, Duration, Fields, Limit, Result};
use crate::packet::{flags, PacketArena, PacketId};
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "codel",
    aliases: &[],
    summary: "Controlled Delay (RFC 8289): drops or marks at dequeue once the sojourn time has stayed above target for an interval, then at interval/sqrt(count).",
    read: |f| Params::read(f).map(QdiscParams::Codel),
};

// ---------------------------------------------------------------------------------------------
// The algorithm's parameters and pure decisions

/// CoDel's parameters (also FQ-CoDel's, per flow queue).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelParams {
    /// Acceptable standing sojourn time, ns.
    pub target: Duration,
    /// The sliding window over which the sojourn time must stay above target, ns.
    pub interval: Duration,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Mark ECN-capable packets whose sojourn time is above this, ns.
    pub ce_threshold: Option<Duration>,
    /// No drop while at most this many bytes are queued.
    pub mtu: Bytes,
}

impl CodelParams {
    /// Read CoDel's parameters with `ecn_default` (off for codel, on for fq_codel, as Linux).
    pub fn read(f: &mut Fields, ecn_default: bool) -> Result<Self> {
        let target: Duration = f.or(
            "target",
            Duration(5_000_000),
            "acceptable standing queue delay: CoDel acts once the sojourn time has stayed at or above it for an interval",
        )?;
        f.ensure(target.0 > 0, "target", "must be above 0 (a queue delay of 0 cannot be held)")?;
        let interval: Duration = f.or(
            "interval",
            Duration(100_000_000),
            "how long the sojourn time must stay above target before the first drop, and the control law's base (interval/sqrt(count)); about a worst-case round-trip time",
        )?;
        f.ensure(interval.0 > 0, "interval", "must be above 0")?;
        let ecn = f.or(
            "ecn",
            ecn_default,
            "mark ECN-capable packets (set CE) instead of dropping them; others are still dropped",
        )?;
        let ce_threshold: Option<Duration> = f.opt(
            "ce_threshold",
            "mark ECN-capable packets whose sojourn time is above this (shallow marking for DCTCP-style senders); off unless given",
        )?;
        let mtu: Bytes = f.or(
            "mtu",
            Bytes(1500),
            "no drop while at most this many bytes are queued (RFC 8289's MAXPACKET; Linux takes the device MTU)",
        )?;
        Ok(CodelParams { target, interval, ecn, ce_threshold, mtu })
    }
}

/// The control law: the next drop `interval / sqrt(count)` after `t`.
pub fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    t + SimDuration((interval.ns() as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// The count to start a dropping state with, entered at `now`: the drops of the previous state
/// beyond its starting count (`count - lastcount`) when above 1 and the previous state's next
/// drop was due less than 16 intervals ago; else 1.
pub fn reentry_count(count: u32, lastcount: u32, now: SimTime, drop_next: SimTime, interval: SimDuration) -> u32 {
    let delta = count.saturating_sub(lastcount);
    // now - drop_next, signed: a next drop still in the future is recent.
    let since = now.ns() as i128 - drop_next.ns() as i128;
    if delta > 1 && since < 16 * interval.ns() as i128 {
        delta
    } else {
        1
    }
}

/// Whether a packet that waited `sojourn`, leaving `backlog` bytes behind it, is above target
/// in CoDel's sense (not below target, and more than one MTU still queued).
pub fn sojourn_above_target(p: &CodelParams, sojourn: SimDuration, backlog: u64) -> bool {
    sojourn >= p.target.sim() && backlog > p.mtu.0
}

// ---------------------------------------------------------------------------------------------
// The state machine

/// A queue CoDel can drain: its head with the time it was enqueued, and the bytes it holds.
pub trait CodelQueue {
    /// Take the head packet and its enqueue time.
    fn pop(&mut self, pkts: &PacketArena) -> Option<(PacketId, SimTime)>;
    /// Bytes still queued (after the pops so far), for the one-MTU rule.
    fn backlog(&self) -> u64;
}

/// CoDel's state (RFC 8289's variables).
#[derive(Clone, Debug, Default)]
pub struct CodelVars {
    /// Drops (and marks) of the current or last dropping state.
    pub count: u32,
    /// count when the last dropping state was entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// When the next drop is due, while dropping.
    pub drop_next: SimTime,
    /// When the sojourn time, above target since, will have been so for an interval.
    first_above_time: Option<SimTime>,
    /// Sojourn time of the last packet dequeued.
    pub last_sojourn: SimDuration,
}

/// The head packet as `dodequeue` returns it.
struct Head {
    pkt: Option<PacketId>,
    ok_to_drop: bool,
}

impl CodelVars {
    /// RFC 8289's `dodequeue`: take the head and say whether CoDel may drop it.
    fn dodequeue(&mut self, p: &CodelParams, q: &mut impl CodelQueue, now: SimTime, pkts: &PacketArena) -> Head {
        let Some((pkt, enqueued)) = q.pop(pkts) else {
            self.first_above_time = None;
            return Head { pkt: None, ok_to_drop: false };
        };
        let sojourn = now.saturating_since(enqueued);
        self.last_sojourn = sojourn;
        let mut ok_to_drop = false;
        if !sojourn_above_target(p, sojourn, q.backlog()) {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval.sim()),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        Head { pkt: Some(pkt), ok_to_drop }
    }

    /// Whether CoDel marks `pkt` rather than dropping it.
    fn marks(p: &CodelParams, pkt: PacketId, pkts: &PacketArena) -> bool {
        p.ecn && pkts[pkt].has(flags::ECT)
    }

    /// RFC 8289's `dequeue` over `q`: the packet to send, if any. Drops go to `cx.victims` with
    /// reason `codel`, marks through `cx.mark`.
    pub fn dequeue(&mut self, p: &CodelParams, q: &mut impl CodelQueue, cx: &mut QdiscCtx) -> Option<PacketId> {
        let (now, interval) = (cx.now, p.interval.sim());
        let mut head = self.dodequeue(p, q, now, cx.pkts);
        let Some(mut pkt) = head.pkt else {
            self.dropping = false;
            return None;
        };
        let mut marked = false;
        if self.dropping {
            if !head.ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // A large backlog may make the next drop due at once: hence the loop.
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                if Self::marks(p, pkt, cx.pkts) {
                    cx.mark(pkt, DropReason::Codel);
                    marked = true;
                    self.drop_next = control_law(self.drop_next, interval, self.count);
                    break;
                }
                cx.victims.push((pkt, DropReason::Codel));
                head = self.dodequeue(p, q, now, cx.pkts);
                if !head.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, interval, self.count);
                }
                match head.pkt {
                    Some(next) => pkt = next,
                    None => return None,
                }
            }
        } else if head.ok_to_drop {
            if Self::marks(p, pkt, cx.pkts) {
                cx.mark(pkt, DropReason::Codel);
                marked = true;
            } else {
                cx.victims.push((pkt, DropReason::Codel));
                head = self.dodequeue(p, q, now, cx.pkts);
            }
            self.dropping = true;
            self.count = reentry_count(self.count, self.lastcount, now, self.drop_next, interval);
            self.lastcount = self.count;
            self.drop_next = control_law(now, interval, self.count);
            pkt = head.pkt?;
        }
        if let Some(threshold) = p.ce_threshold {
            if !marked && self.last_sojourn > threshold.sim() && cx.pkts[pkt].has(flags::ECT) {
                cx.mark(pkt, DropReason::CeThreshold);
            }
        }
        Some(pkt)
    }

    pub fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("dropping", self.dropping as u8 as f64));
        out.push(("count", self.count as f64));
        if self.dropping {
            out.push(("drop_next_s", self.drop_next.ns() as f64 / NS_PER_S as f64));
        }
        out.push(("sojourn_s", self.last_sojourn.ns() as f64 / NS_PER_S as f64));
    }
}

/// A FIFO of packets with their enqueue times and its byte count.
#[derive(Debug, Default)]
pub struct StampedFifo {
    q: VecDeque<(PacketId, SimTime)>,
    bytes: u64,
}

impl StampedFifo {
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// When the head packet was enqueued.
    pub fn head_time(&self) -> Option<SimTime> {
        self.q.front().map(|&(_, t)| t)
    }
    pub fn push(&mut self, pkt: PacketId, now: SimTime, pkts: &PacketArena) {
        self.bytes += pkts[pkt].size as u64;
        self.q.push_back((pkt, now));
    }
    pub fn pop(&mut self, pkts: &PacketArena) -> Option<(PacketId, SimTime)> {
        let (pkt, t) = self.q.pop_front()?;
        self.bytes -= pkts[pkt].size as u64;
        Some((pkt, t))
    }
}

impl CodelQueue for StampedFifo {
    fn pop(&mut self, pkts: &PacketArena) -> Option<(PacketId, SimTime)> {
        StampedFifo::pop(self, pkts)
    }
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

// ---------------------------------------------------------------------------------------------
// The discipline

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    #[serde(flatten)]
    pub codel: CodelParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(1000),
            "physical buffer: an arrival that does not fit is dropped (overflow); Linux's default is 1000 packets",
        )?;
        let codel = CodelParams::read(f, false)?;
        Ok(Params { limit, codel })
    }
}

pub struct Codel {
    limit: Limit,
    p: CodelParams,
    queue: StampedFifo,
    vars: CodelVars,
}

impl Codel {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        Codel { limit: p.limit, p: p.codel, queue: StampedFifo::default(), vars: CodelVars::default() }
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if self.limit.overflows(self.queue.len(), self.queue.bytes(), cx.pkts[pkt].size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.queue.push(pkt, cx.now, cx.pkts);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.vars.dequeue(&self.p, &mut self.queue, cx)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn bytes(&self) -> u64 {
        self.queue.bytes()
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        self.vars.gauges(out);
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use crate::units::SimTime;
    use super::super::harness::{hammer, link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};
    use crate::packet::Packet;
    use crate::rng::SimRng;

    const MS: u64 = 1_000_000;

    const PARAMS: CodelParams = CodelParams {
        target: Duration(5 * MS),
        interval: Duration(100 * MS),
        ecn: false,
        ce_threshold: None,
        mtu: Bytes(1500),
    };

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn defaults_are_linux_sch_codel_ones() {
        let p = read("").unwrap();
        assert_eq!(p.limit, Limit::Packets(1000));
        assert_eq!(p.codel, PARAMS);
        let p = read("target = \"2ms\"\ninterval = \"50ms\"\necn = true\nce_threshold = \"1ms\"").unwrap();
        assert_eq!((p.codel.target, p.codel.interval), (Duration(2 * MS), Duration(50 * MS)));
        assert_eq!((p.codel.ecn, p.codel.ce_threshold), (true, Some(Duration(MS))));
    }

    #[test]
    fn refuses_zero_times_with_the_field_named() {
        let e = read("target = 0").unwrap_err();
        assert!(e.to_string().contains("target") && e.message.contains("above 0"), "{e}");
        assert!(read("interval = 0").unwrap_err().message.contains("above 0"));
        assert!(read("target = 5").is_err(), "a bare number has no unit");
    }

    #[test]
    fn control_law_for_counts_1_to_128() {
        // interval / sqrt(count) for interval = 100 ms: 100 ms, 100/sqrt(2) = 70.7106781 ms,
        // 50 ms, 100/sqrt(8) = 35.3553391 ms, 25 ms, 100/sqrt(32) = 17.6776695 ms, 12.5 ms,
        // 100/sqrt(128) = 8.8388348 ms (truncated to ns).
        let expected = [100_000_000, 70_710_678, 50_000_000, 35_355_339, 25_000_000, 17_677_669, 12_500_000, 8_838_834];
        for (k, want) in expected.into_iter().enumerate() {
            let count = 1u32 << k;
            assert_eq!(control_law(SimTime(1_000), SimDuration(100 * MS), count), SimTime(1_000 + want), "count {count}");
        }
    }

    #[test]
    fn reentry_keeps_the_excess_count_only_when_recent() {
        // Previous state: entered with count 1, ended at count 5; its next drop was due at 423 ms.
        let interval = SimDuration(100 * MS);
        assert_eq!(reentry_count(5, 1, SimTime(600 * MS), SimTime(423 * MS), interval), 4);
        // 16 intervals or more after drop_next: start over.
        assert_eq!(reentry_count(5, 1, SimTime((423 + 1600) * MS), SimTime(423 * MS), interval), 1);
        assert_eq!(reentry_count(5, 1, SimTime((423 + 1599) * MS), SimTime(423 * MS), interval), 4);
        // A next drop still in the future is recent.
        assert_eq!(reentry_count(5, 1, SimTime(400 * MS), SimTime(423 * MS), interval), 4);
        // An excess of 1 or less starts over.
        assert_eq!(reentry_count(2, 1, SimTime(600 * MS), SimTime(423 * MS), interval), 1);
        assert_eq!(reentry_count(3, 3, SimTime(600 * MS), SimTime(423 * MS), interval), 1);
    }

    /// A queue whose packets have scripted sojourn times: `next_sojourn` is the sojourn time of
    /// the head at the next pop; `backlog` stays at 10 packets of 1000 bytes unless set.
    struct Scripted {
        next_sojourn: u64,
        now: u64,
        backlog: u64,
    }

    impl CodelQueue for Scripted {
        fn pop(&mut self, pkts: &PacketArena) -> Option<(PacketId, SimTime)> {
            // Any live packet will do as the head: the state machine only reads its flags.
            let id = pkts.live_ids().next().expect("the test allocated a packet");
            Some((id, SimTime(self.now - self.next_sojourn)))
        }
        fn backlog(&self) -> u64 {
            self.backlog
        }
    }

    /// Drives CodelVars over a scripted queue: one dequeue per `step` ns, the sojourn time of
    /// every packet given by `sojourn(t)`. Returns the times of the drops (each drop pops
    /// one extra packet at the same instant) and of the marks. The clock the state machine
    /// sees runs `CLOCK_BASE` ahead of the script's `t`, so that a packet with a long sojourn
    /// at t = 0 was enqueued at a time that exists.
    const CLOCK_BASE: u64 = 1_000 * NS_PER_S;

    struct Script {
        vars: CodelVars,
        p: CodelParams,
        pkts: PacketArena,
        rng: SimRng,
        ect: bool,
    }

    impl Script {
        fn new(p: CodelParams, ect: bool) -> Self {
            let mut pkts = PacketArena::new();
            let flags = if ect { flags::ECT } else { 0 };
            pkts.alloc(Packet { flags, ..Packet::data(0, 0, 1, 1000) });
            Script { vars: CodelVars::default(), p, pkts, rng: SimRng::from_seed(1), ect }
        }

        fn run(&mut self, from: u64, to: u64, step: u64, sojourn: impl Fn(u64) -> u64) -> (Vec<u64>, Vec<u64>) {
            let (mut drops, mut marks) = (vec![], vec![]);
            let mut t = from;
            while t < to {
                let mut victims = vec![];
                let mut marked = vec![];
                let now = t + CLOCK_BASE;
                let mut q = Scripted { next_sojourn: sojourn(t), now, backlog: 10_000 };
                let mut cx = QdiscCtx {
                    now: SimTime(now),
                    rng: &mut self.rng,
                    pkts: &mut self.pkts,
                    victims: &mut victims,
                    marks: &mut marked,
                    in_service: None,
                };
                assert!(self.vars.dequeue(&self.p, &mut q, &mut cx).is_some());
                drops.extend(victims.iter().map(|_| t));
                marks.extend(marked.iter().map(|_| t));
                // Our one packet stands for every head: clear its mark.
                let id = self.pkts.live_ids().next().unwrap();
                self.pkts[id].flags = if self.ect { flags::ECT } else { 0 };
                t += step;
            }
            (drops, marks)
        }
    }

    #[test]
    fn no_drop_while_the_sojourn_time_is_below_target() {
        let mut s = Script::new(PARAMS, false);
        let (drops, _) = s.run(0, 10_000 * MS, MS, |_| 5 * MS - 1);
        assert!(drops.is_empty());
        assert!(!s.vars.dropping);
    }

    #[test]
    fn no_drop_with_one_mtu_or_less_queued() {
        let mut vars = CodelVars::default();
        let p = PARAMS;
        // Sojourn 50 ms but only 1500 bytes left behind: never above target. (The clock starts
        // at 50 ms, so that the first head was enqueued at time 0, not before it.)
        let mut pkts = PacketArena::new();
        pkts.alloc(Packet::data(0, 0, 1, 1000));
        for k in 50..1050u64 {
            let t = k * MS;
            let mut q = Scripted { next_sojourn: 50 * MS, now: t, backlog: 1500 };
            let head = vars.dodequeue(&p, &mut q, SimTime(t), &pkts);
            assert!(!head.ok_to_drop);
        }
        let mut q = Scripted { next_sojourn: 50 * MS, now: 1050 * MS, backlog: 1501 };
        assert!(!vars.dodequeue(&p, &mut q, SimTime(1050 * MS), &pkts).ok_to_drop, "the first above-target sample starts the interval");
        let mut q = Scripted { next_sojourn: 50 * MS, now: 1150 * MS, backlog: 1501 };
        assert!(vars.dodequeue(&p, &mut q, SimTime(1150 * MS), &pkts).ok_to_drop);
    }

    #[test]
    fn one_drop_after_an_interval_above_target_then_the_control_law() {
        // Sojourn 10 ms from t = 0, a dequeue every ms. First above target at 0: the first
        // drop at 100 ms, then drop_next = 100 + 100/sqrt(1) = 200, + 100/sqrt(2) = 270.71,
        // + 100/sqrt(3) = 328.45, + 100/sqrt(4) = 378.45, + 100/sqrt(5) = 423.17,
        // + 100/sqrt(6) = 463.99 ms: each drop at the first dequeue at or after it.
        let mut s = Script::new(PARAMS, false);
        let (drops, _) = s.run(0, 500 * MS, MS, |_| 10 * MS);
        assert_eq!(drops, [100, 200, 271, 329, 379, 424, 464].map(|ms| ms * MS));
        assert_eq!(s.vars.count, 7);
        // Exactly one drop in the first interval after target was exceeded for one.
        assert_eq!(drops.iter().filter(|&&t| t < 200 * MS).count(), 1);
    }

    #[test]
    fn target_exceeded_for_less_than_an_interval_drops_nothing() {
        // 99 ms above target, then below: never an interval.
        let mut s = Script::new(PARAMS, false);
        let (drops, _) = s.run(0, 2_000 * MS, MS, |t| if (t / MS) % 200 < 99 { 10 * MS } else { MS });
        assert!(drops.is_empty());
    }

    #[test]
    fn count_carries_over_into_a_dropping_state_entered_soon_after() {
        // Above target 0..400 ms: drops at 100, 200, 271, 329, 379 (count 5, lastcount 1,
        // drop_next 423.17 ms). Below target 400..500 ms. Above again from 500 ms: the first
        // drop at 600 ms, where now - drop_next = 176.8 ms < 16 intervals, so count = 5 - 1 = 4
        // and the next drop is 100/sqrt(4) = 50 ms later, at 650 ms, then 100/sqrt(5) = 44.72
        // ms after that (694.72 -> 695 ms).
        let mut s = Script::new(PARAMS, false);
        let sojourn = |t: u64| if (400 * MS..500 * MS).contains(&t) { MS } else { 10 * MS };
        let (drops, _) = s.run(0, 700 * MS, MS, sojourn);
        assert_eq!(drops, [100, 200, 271, 329, 379, 600, 650, 695].map(|ms| ms * MS));
        assert_eq!((s.vars.count, s.vars.lastcount), (6, 4));
    }

    #[test]
    fn count_restarts_at_one_after_a_long_pause() {
        // The same, but above target again only from 2100 ms: 2200 - 423.17 > 1600 ms, so
        // count = 1: drops at 2200 and 2300 ms.
        let mut s = Script::new(PARAMS, false);
        let sojourn = |t: u64| if (400 * MS..2100 * MS).contains(&t) { MS } else { 10 * MS };
        let (drops, _) = s.run(0, 2350 * MS, MS, sojourn);
        assert_eq!(drops[5..], [2200 * MS, 2300 * MS]);
        assert_eq!(s.vars.lastcount, 1);
    }

    #[test]
    fn ecn_marks_capable_packets_at_the_drop_times_instead() {
        let mut s = Script::new(CodelParams { ecn: true, ..PARAMS }, true);
        let (drops, marks) = s.run(0, 500 * MS, MS, |_| 10 * MS);
        assert!(drops.is_empty());
        assert_eq!(marks, [100, 200, 271, 329, 379, 424, 464].map(|ms| ms * MS));
        // Not capable: dropped as without ecn.
        let mut s = Script::new(CodelParams { ecn: true, ..PARAMS }, false);
        let (drops, marks) = s.run(0, 500 * MS, MS, |_| 10 * MS);
        assert_eq!((drops.len(), marks.len()), (7, 0));
    }

    #[test]
    fn ce_threshold_marks_capable_packets_above_it() {
        let p = CodelParams { ce_threshold: Some(Duration(2 * MS)), ..PARAMS };
        // Sojourn 3 ms: below target (no CoDel action), above the threshold: every packet.
        let mut s = Script::new(p, true);
        let (drops, marks) = s.run(0, 300 * MS, MS, |_| 3 * MS);
        assert_eq!((drops.len(), marks.len()), (0, 300));
        // At the threshold exactly: not above it.
        let mut s = Script::new(p, true);
        assert_eq!(s.run(0, 300 * MS, MS, |_| 2 * MS).1.len(), 0);
        // Not ECN-capable: never marked.
        let mut s = Script::new(p, false);
        assert_eq!(s.run(0, 300 * MS, MS, |_| 3 * MS), (vec![], vec![]));
    }

    fn codel(limit: Limit, p: CodelParams) -> Harness<Codel> {
        Harness::new(Codel::new(&Params { limit, codel: p }, &link(4)), 3)
    }

    #[test]
    fn reasons_reach_the_caller() {
        // A standing queue of 20 packets, one arrival and one departure per ms: sojourn 20 ms.
        let mut h = codel(Limit::Packets(30), PARAMS);
        for _ in 0..20 {
            h.offer(1, 1000);
        }
        for k in 0..300 {
            h.now = k * MS;
            h.offer_flags(1 + (k % 2) as u32, 1000, if k % 2 == 0 { flags::ECT } else { 0 });
            h.serve();
        }
        assert!(!h.dropped.is_empty());
        assert!(h.dropped.iter().all(|&(_, why)| why == DropReason::Codel), "{:?}", h.dropped);
        assert!(h.marked.is_empty(), "no ecn: no marks");
        // With ecn, ECT packets are marked, with reason codel.
        let mut h = codel(Limit::Packets(30), CodelParams { ecn: true, ..PARAMS });
        for _ in 0..20 {
            h.offer_flags(1, 1000, flags::ECT);
        }
        for k in 0..300 {
            h.now = k * MS;
            h.offer_flags(1, 1000, flags::ECT);
            h.serve();
        }
        assert!(h.dropped.is_empty());
        assert!(!h.marked.is_empty() && h.marked.iter().all(|&(_, why)| why == DropReason::Codel));
        // The buffer still overflows.
        let mut h = codel(Limit::Packets(2), PARAMS);
        h.offer(1, 100);
        h.offer(1, 100);
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Overflow));
    }

    #[test]
    fn gauges_show_the_state() {
        let mut h = codel(Limit::Packets(100), PARAMS);
        for _ in 0..20 {
            h.offer(1, 1000);
        }
        h.now = 150 * MS;
        h.serve(); // first above target: starts the interval
        h.now = 250 * MS;
        h.serve(); // drops one, enters dropping
        let mut g = vec![];
        h.q.gauges(&mut g);
        let g: std::collections::BTreeMap<_, _> = g.into_iter().collect();
        assert_eq!(g["dropping"], 1.0);
        assert_eq!(g["count"], 1.0);
        assert!((g["drop_next_s"] - 0.35).abs() < 1e-12);
        assert!((g["sojourn_s"] - 0.25).abs() < 1e-12);
    }

    #[test]
    fn hammered_it_keeps_the_contract() {
        for seed in 1..=5 {
            let p = CodelParams { ecn: seed % 2 == 0, ce_threshold: Some(Duration(MS)), ..PARAMS };
            let mut h = codel(Limit::Packets(40), p);
            hammer(&mut h, 5000, 4, seed);
        }
    }
}
