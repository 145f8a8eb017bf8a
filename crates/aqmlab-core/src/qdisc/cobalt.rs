//! COBALT, CoDel + BLUE: T. Høiland-Jørgensen, D. Täht and J. Morton, "Piece of CAKE: A
//! Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018 (section on
//! COBALT), as a single-queue discipline like ns-3's CobaltQueueDisc; the state machine follows
//! Linux's sch_cake (cobalt_should_drop, cobalt_queue_full, cobalt_queue_empty).
//!
//! Two AQMs on one FIFO, both acting on the packet being dequeued:
//! - CoDel's control law, reworked: once a sojourn time exceeds `target`, the first signal comes
//!   an `interval` later and the next ones `interval / sqrt(count)` apart, count rising by one per
//!   signal. Unlike RFC 8289's CoDel, count is not restarted when the sojourn time falls below
//!   target: while no signal is due it decays, one step per `interval / sqrt(count)` elapsed
//!   (also when the queue is found empty), so a new episode soon after the last resumes near its
//!   old rate. Signals mark ECN-capable packets with `ecn`, else drop them (reason `codel`).
//! - BLUE: p_drop rises by `increment` when the buffer overflows and falls by `decrement` when
//!   the queue is found empty, each at most once per `target` (BLUE's freeze time); every
//!   dequeued packet is dropped with probability p_drop, ECN or not (reason `blue`): BLUE is
//!   there for flows that do not respond to CoDel's signals.
//!
//! CoDel's control law is `codel.rs`'s [`control_law`]; its FIFO with enqueue times is
//! `codel.rs`'s [`StampedFifo`].
//!
//! Deviations and choices left open:
//! - Above target means sojourn > target, alone: CAKE also requires more than 2 MTU times per
//!   bulk flow (and 4 MTU times), which a single queue without flows does not have.
//! - As in CAKE, the last packet in the queue is never dropped (it may still be marked).
//! - `blue_threshold` (ns-3's BlueThreshold; absent by default): a dequeued packet whose sojourn
//!   time exceeds it counts as an overflow for BLUE.
//! - The control law is exact (interval / sqrt(count) in floating point, as `codel.rs`); Linux
//!   uses a cached fixed-point reciprocal square root.
//! - The BLUE timer starts at time 0, so no BLUE change happens in the first `target` of a run
//!   (Linux starts it at boot).
//! - Overflow is a tail drop of the arrival (reason `overflow`); CAKE drops from its fattest flow.
//!
//! Traced gauges: `dropping`, `count` (as CoDel's) and `p_drop`.

use serde::Serialize;

use super::codel::{control_law, StampedFifo};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Duration, Fields, Limit, Prob, Result};
use crate::packet::{flags, PacketId};
use crate::units::{SimDuration, SimTime};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "cobalt",
    aliases: &[],
    summary: "COBALT (CAKE's AQM, Høiland-Jørgensen et al. 2018): CoDel with a decaying count plus BLUE for unresponsive traffic, on one FIFO.",
    read: |f| Params::read(f).map(QdiscParams::Cobalt),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
    /// BLUE's step up on overflow.
    pub increment: f64,
    /// BLUE's step down when the queue is found empty.
    pub decrement: f64,
    pub blue_threshold: Option<Duration>,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or("limit", Limit::Packets(1000), "physical buffer; an arrival that finds it full is dropped and raises BLUE's p_drop")?;
        let target: Duration = f.or("target", Duration(5_000_000), "sojourn time above which CoDel's signals start (and BLUE's freeze time)")?;
        let interval: Duration =
            f.or("interval", Duration(100_000_000), "delay of the first signal; signals then come interval / sqrt(count) apart")?;
        f.ensure(interval.0 > 0, "interval", "must be above 0")?;
        let ecn = f.or("ecn", false, "mark ECN-capable packets (set CE) instead of dropping them for CoDel's signals (BLUE always drops)")?;
        let increment: Prob = f.or("increment", Prob(1.0 / 256.0), "BLUE's p_drop step up on overflow (CAKE: 1/256)")?;
        let decrement: Prob =
            f.or("decrement", Prob(1.0 / 4096.0), "BLUE's p_drop step down when the queue is found empty (CAKE: 1/4096)")?;
        let blue_threshold: Option<Duration> = f.opt(
            "blue_threshold",
            "a dequeued packet that waited longer counts as an overflow for BLUE (ns-3's BlueThreshold); absent: overflows only",
        )?;
        Ok(Params { limit, target, interval, ecn, increment: increment.0, decrement: decrement.0, blue_threshold })
    }
}

// ---------------------------------------------------------------------------------------------
// The state machine

/// What COBALT decides about a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Decision {
    /// CoDel's signal is due: mark or drop.
    pub codel: bool,
    /// BLUE's random drop.
    pub blue: bool,
}

/// COBALT's variables (Linux's cobalt_vars).
#[derive(Clone, Debug, Default)]
pub struct CobaltVars {
    pub count: u32,
    /// When the next signal is due (or, with count 0, an activity timeout).
    pub drop_next: SimTime,
    pub dropping: bool,
    pub blue_timer: SimTime,
    pub p_drop: f64,
}

impl CobaltVars {
    /// The buffer overflowed at `now` (or a sojourn passed `blue_threshold`).
    pub fn queue_full(&mut self, p: &Params, now: SimTime) {
        if now.saturating_since(self.blue_timer) > p.target.sim() {
            self.p_drop = (self.p_drop + p.increment).min(1.0);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// The queue was found empty at `now`.
    pub fn queue_empty(&mut self, p: &Params, now: SimTime) {
        if self.p_drop > 0.0 && now.saturating_since(self.blue_timer) > p.target.sim() {
            self.p_drop = (self.p_drop - p.decrement).max(0.0);
            self.blue_timer = now;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = control_law(self.drop_next, p.interval.sim(), self.count);
        }
    }

    /// The decision about a packet dequeued at `now` after `sojourn`; `u` is a uniform draw
    /// for BLUE, `can_mark` whether a CoDel signal would mark it rather than drop it.
    pub fn should_drop(&mut self, p: &Params, now: SimTime, sojourn: SimDuration, u: f64, can_mark: bool) -> Decision {
        let interval = p.interval.sim();
        let over_target = sojourn > p.target.sim();
        let mut next_due = self.count > 0 && now >= self.drop_next;
        let mut d = Decision::default();
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, interval, self.count);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        if next_due && self.dropping {
            d.codel = true;
            self.count = self.count.saturating_add(1);
            self.drop_next = control_law(self.drop_next, interval, self.count);
        } else {
            // Not signalling: the count decays by the steps of the control law already past.
            while next_due {
                self.count -= 1;
                self.drop_next = control_law(self.drop_next, interval, self.count);
                next_due = self.count > 0 && now >= self.drop_next;
            }
        }
        d.blue = self.p_drop > 0.0 && u < self.p_drop;
        let dropped = (d.codel && !can_mark) || d.blue;
        if self.count == 0 {
            // drop_next doubles as an activity timeout.
            self.drop_next = now + interval;
        } else if now > self.drop_next && !dropped {
            self.drop_next = now;
        }
        d
    }
}

/// Carry out `d` on the dequeued packet `pkt`: BLUE drops it; CoDel marks it if `can_mark`,
/// else drops it; but the queue's `last` packet is sent whatever the decision (as in CAKE).
/// Returns whether it was dropped.
pub fn apply(d: Decision, pkt: PacketId, can_mark: bool, last: bool, cx: &mut QdiscCtx) -> bool {
    if d.blue && !last {
        cx.victims.push((pkt, DropReason::Blue));
        return true;
    }
    if d.codel {
        if can_mark {
            cx.mark(pkt, DropReason::Codel);
        } else if !last {
            cx.victims.push((pkt, DropReason::Codel));
            return true;
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// The discipline

pub struct Cobalt {
    p: Params,
    vars: CobaltVars,
    fifo: StampedFifo,
}

impl Cobalt {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        Cobalt { p: p.clone(), vars: CobaltVars::default(), fifo: StampedFifo::default() }
    }

    pub fn vars(&self) -> &CobaltVars {
        &self.vars
    }
}

impl QueueDisc for Cobalt {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if self.p.limit.overflows(self.fifo.len(), self.fifo.bytes(), cx.pkts[pkt].size) {
            self.vars.queue_full(&self.p, cx.now);
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(pkt, cx.now, cx.pkts);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            let Some((pkt, enqueued)) = self.fifo.pop(cx.pkts) else {
                self.vars.queue_empty(&self.p, cx.now);
                return None;
            };
            let sojourn = cx.now.saturating_since(enqueued);
            if self.p.blue_threshold.is_some_and(|b| sojourn > b.sim()) {
                self.vars.queue_full(&self.p, cx.now);
            }
            let u = if self.vars.p_drop > 0.0 { cx.rng.uniform() } else { 1.0 };
            let can_mark = self.p.ecn && cx.pkts[pkt].has(flags::ECT);
            let d = self.vars.should_drop(&self.p, cx.now, sojourn, u, can_mark);
            if apply(d, pkt, can_mark, self.fifo.is_empty(), cx) {
                continue;
            }
            return Some(pkt);
        }
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn limit(&self) -> Limit {
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("dropping", self.vars.dropping as u8 as f64));
        out.push(("count", self.vars.count as f64));
        out.push(("p_drop", self.vars.p_drop));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::super::harness::{hammer, link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    const MS: u64 = 1_000_000;

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn defaults_are_cakes() {
        let p = read("").unwrap();
        assert_eq!((p.target, p.interval, p.increment, p.decrement), (Duration(5 * MS), Duration(100 * MS), 1.0 / 256.0, 1.0 / 4096.0));
        assert!(read("interval = 0").is_err());
    }

    #[test]
    fn a_standing_queue_is_signalled_on_the_control_law() {
        // Every packet waits about 10 ms (> target 5 ms): a 10-packet FIFO, one departure and
        // refills every ms. The first dequeue (10 ms) starts the episode: next signal at
        // 10 + 100 = 110 ms, then interval / sqrt(count) later with count 2, 3, 4, 5:
        // 180.71, 238.45, 288.45, 333.17 ms; dequeues happen on whole ms, so at 110, 181, 239,
        // 289, 334.
        let p = read("").unwrap();
        let mut h = Harness::new(Cobalt::new(&p, &link(1)), 1);
        for t in 0..10 {
            h.now = t * MS;
            h.offer(1, 1000);
        }
        let mut drops = vec![];
        for t in 10..340 {
            h.now = t * MS;
            let before = h.dropped.len();
            h.serve();
            if h.dropped.len() > before {
                assert_eq!(h.dropped.len(), before + 1);
                assert_eq!(h.dropped[before].1, DropReason::Codel);
                drops.push(t);
            }
            while h.q.len() < 10 {
                h.offer(1, 1000);
            }
        }
        assert_eq!(drops, vec![110, 181, 239, 289, 334]);
        assert_eq!(h.q.vars().count, 6);
    }

    #[test]
    fn the_count_decays_instead_of_restarting() {
        // After signals with count 5 (drop_next at 400 ms), nothing is above target: each time
        // a dequeue finds a step of the control law past, count falls by one and drop_next moves
        // interval / sqrt(count) on: at 500 ms, 400 + 100/2 = 450 and 450 + 100/sqrt(3) = 507.7:
        // count 5 -> 4 (to 450) -> 3 (to 507.7), stop.
        let p = read("").unwrap();
        let mut v = CobaltVars { count: 5, drop_next: SimTime(400 * MS), dropping: false, ..CobaltVars::default() };
        let d = v.should_drop(&p, SimTime(500 * MS), SimDuration(0), 1.0, false);
        assert_eq!(d, Decision::default());
        assert_eq!(v.count, 3);
        assert_eq!(v.drop_next, SimTime(450 * MS + (100.0 * MS as f64 / 3f64.sqrt()) as u64));
        // An episode starting now resumes from count 3: the first signal an interval after the
        // start uses count 3 -> 4.
        let d = v.should_drop(&p, SimTime(501 * MS), SimDuration(10 * MS), 1.0, false);
        assert!(!d.codel && v.dropping && v.count == 3);
        assert_eq!(v.drop_next, SimTime(501 * MS + (100.0 * MS as f64 / 3f64.sqrt()) as u64));
        // The empty queue decays it too, one step when the step is due.
        let mut v = CobaltVars { count: 2, drop_next: SimTime(10 * MS), ..CobaltVars::default() };
        v.queue_empty(&p, SimTime(10 * MS));
        assert_eq!((v.count, v.drop_next), (1, SimTime(110 * MS)));
    }

    #[test]
    fn blue_rises_on_overflow_and_falls_on_empty_at_most_once_per_target() {
        // Overflows every ms from 10 ms: p_drop changes when more than 5 ms have passed since
        // the last change: at 10, 16, 22, ... (every 6 ms); 60 events up to 69 ms: 10 changes.
        let p = read("").unwrap();
        let mut v = CobaltVars::default();
        for t in 10..70 {
            v.queue_full(&p, SimTime(t * MS));
        }
        assert!((v.p_drop - 10.0 / 256.0).abs() < 1e-15, "{}", v.p_drop);
        // Empty-queue events every ms from 100 ms to 159 ms: again 10 changes of 1/4096.
        for t in 100..160 {
            v.queue_empty(&p, SimTime(t * MS));
        }
        assert!((v.p_drop - (10.0 / 256.0 - 10.0 / 4096.0)).abs() < 1e-15, "{}", v.p_drop);
    }

    #[test]
    fn blue_follows_overflows_and_empty_queues_through_the_discipline() {
        // A 20-packet buffer fed 2 packets per ms and drained 1 per ms overflows from about
        // 18-19 ms on; p_drop then rises by 1/256 every 6 ms (more than target = 5 ms apart):
        // by 99 ms, floor((99 - 19) / 6) + 1 = 14 steps, one or two fewer if the first drops
        // delay an overflow. (An overflow also makes CoDel's next signal due at once, as in
        // CAKE, so CoDel drops too, about one packet per overflowing ms: the queue stays full.)
        let p = Params { limit: Limit::Packets(20), ..read("").unwrap() };
        let mut h = Harness::new(Cobalt::new(&p, &link(1)), 2);
        for t in 0..100 {
            h.now = t * MS;
            h.offer(1, 1000);
            h.offer(1, 1000);
            h.serve();
        }
        let top = h.q.vars().p_drop;
        assert!((12.0 / 256.0 - 1e-12..=14.0 / 256.0 + 1e-12).contains(&top), "{}", top * 256.0);
        assert!(h.dropped.iter().any(|d| d.1 == DropReason::Codel));
        // No arrivals from 100 ms: the queue drains within 20 ms, then every dequeue finds it
        // empty and p_drop falls by 1/4096 every 6 ms: 10 to 15 steps by 199 ms (the drain
        // ends between about 112 and 120 ms, depending on the drops on the way).
        for t in 100..200 {
            h.now = t * MS;
            h.serve();
        }
        let fell = (top - h.q.vars().p_drop) * 4096.0;
        assert!((9.99..=15.01).contains(&fell), "{fell} steps down");
    }

    #[test]
    fn ecn_marks_codel_signals_but_blue_still_drops() {
        let p = read("ecn = true").unwrap();
        let mut v = CobaltVars { count: 1, drop_next: SimTime::ZERO, dropping: true, p_drop: 0.5, ..CobaltVars::default() };
        let d = v.should_drop(&p, SimTime(10 * MS), SimDuration(10 * MS), 0.4, true);
        assert!(d.codel && d.blue);
        let d = v.should_drop(&p, SimTime(10 * MS), SimDuration(10 * MS), 0.6, true);
        assert!(!d.blue);
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p = Params {
                limit,
                target: Duration(200_000),
                interval: Duration(2 * MS),
                ecn: seed == 2,
                increment: 0.05,
                decrement: 0.01,
                blue_threshold: (seed == 3).then_some(Duration(5 * MS)),
            };
            let mut h = Harness::new(Cobalt::new(&p, &link(4)), seed);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
