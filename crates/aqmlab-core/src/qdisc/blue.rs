//! BLUE: W. Feng, D. Kandlur, D. Saha and K. G. Shin, "BLUE: A New Class of Active Queue
//! Management Algorithms", U. Michigan CSE-TR-387-99, 1999 (IEEE/ACM Transactions on Networking
//! 10(4), 2002); the algorithm of its Fig. "The BLUE algorithm".
//!
//! One marking probability p_m for the whole queue, moved by events rather than by a queue
//! average:
//!
//! ```text
//! upon packet loss (or qlen > L):  if now - last_update > freeze_time: p_m += d1, last_update = now
//! upon link idle:                  if now - last_update > freeze_time: p_m -= d2, last_update = now
//! ```
//!
//! and every arrival is marked (ECN) or dropped with probability p_m. d1 is much larger than d2
//! so that BLUE reacts quickly to overload and leaves p_m slowly once it has passed.
//!
//! Deviations and choices the paper leaves open:
//! - "Packet loss" is a buffer overflow here (an arrival that finds `limit` full); the optional
//!   `threshold` L adds the paper's "qlen > L" event: an arrival that finds L or more packets
//!   waiting (so that the queue would exceed L with it).
//! - "Link idle" is the transmitter finding the queue empty when it ends a transmission (one
//!   event per idle period, however long).
//! - The first event ever always updates (there is no last update to be frozen after).
//! - p_m is kept in [0, 1].
//! - Defaults d1 = 0.0025, d2 = 0.00025, freeze_time = 100 ms are those of the BLUE ns
//!   scripts of its authors (increment, decrement, hold-time).
//! - `ecn`: a decision about an ECN-capable packet marks it instead of dropping it (reason
//!   `blue` either way); overflows drop.
//!
//! [`BlueCore`] (p_m, its events and the freeze) is separate from the queue. Traced gauge:
//! `p_mark`.

use serde::Serialize;

use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Duration, Fields, Limit, Prob, Result};
use crate::packet::{flags, PacketId};
use crate::units::{SimDuration, SimTime};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "blue",
    aliases: &[],
    summary: "BLUE (Feng, Kandlur, Saha, Shin 1999): one marking probability raised by d1 on loss, lowered by d2 when the link idles, at most once per freeze_time.",
    read: |f| Params::read(f).map(QdiscParams::Blue),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// d1: step up on loss.
    pub increment: f64,
    /// d2: step down on idle.
    pub decrement: f64,
    pub freeze_time: Duration,
    /// L: an arrival finding this many packets waiting counts as a loss event.
    pub threshold: Option<u32>,
    pub ecn: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or("limit", Limit::Packets(100), "physical buffer; an arrival that finds it full is dropped (a loss event)")?;
        let increment: Prob = f.or("increment", Prob(0.0025), "d1: p_mark step up on a loss event")?;
        let decrement: Prob = f.or("decrement", Prob(0.00025), "d2: p_mark step down when the link goes idle")?;
        let freeze_time: Duration =
            f.or("freeze_time", Duration(100_000_000), "minimum time between two changes of p_mark")?;
        let threshold: Option<u32> = f.opt(
            "threshold",
            "L, packets: an arrival finding L or more packets waiting is a loss event too; absent: only overflows",
        )?;
        let ecn = f.or("ecn", false, "mark ECN-capable packets (set CE) instead of dropping them")?;
        Ok(Params { limit, increment: increment.0, decrement: decrement.0, freeze_time, threshold, ecn })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules and the probability's state

/// Whether an event at `now` may change p_m: the first event, or more than `freeze` after the
/// last change.
#[inline]
pub fn may_update(now: SimTime, last_update: Option<SimTime>, freeze: SimDuration) -> bool {
    last_update.is_none_or(|last| now.saturating_since(last) > freeze)
}

/// BLUE's marking probability and its two events.
#[derive(Clone, Debug)]
pub struct BlueCore {
    pub p_m: f64,
    last_update: Option<SimTime>,
    d1: f64,
    d2: f64,
    freeze: SimDuration,
}

impl BlueCore {
    pub fn new(d1: f64, d2: f64, freeze: SimDuration) -> Self {
        BlueCore { p_m: 0.0, last_update: None, d1, d2, freeze }
    }

    /// A packet loss (or qlen > L) at `now`.
    pub fn on_congestion(&mut self, now: SimTime) {
        if may_update(now, self.last_update, self.freeze) {
            self.p_m = (self.p_m + self.d1).min(1.0);
            self.last_update = Some(now);
        }
    }

    /// The link went idle at `now`.
    pub fn on_idle(&mut self, now: SimTime) {
        if may_update(now, self.last_update, self.freeze) {
            self.p_m = (self.p_m - self.d2).max(0.0);
            self.last_update = Some(now);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The discipline

pub struct Blue {
    limit: Limit,
    threshold: Option<u32>,
    ecn: bool,
    core: BlueCore,
    fifo: Fifo,
}

impl Blue {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        Blue {
            limit: p.limit,
            threshold: p.threshold,
            ecn: p.ecn,
            core: BlueCore::new(p.increment, p.decrement, p.freeze_time.sim()),
            fifo: Fifo::new(),
        }
    }

    pub fn p_mark(&self) -> f64 {
        self.core.p_m
    }
}

impl QueueDisc for Blue {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if self.fifo.overflows(self.limit, cx.pkts[pkt].size) {
            self.core.on_congestion(cx.now);
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.threshold.is_some_and(|l| self.fifo.len() >= l as usize) {
            self.core.on_congestion(cx.now);
        }
        let mut verdict = Verdict::Enqueued;
        if cx.rng.chance(self.core.p_m) {
            if self.ecn && cx.pkts[pkt].has(flags::ECT) {
                cx.pkts[pkt].flags |= flags::CE;
                verdict = Verdict::Marked(DropReason::Blue);
            } else {
                return Verdict::Dropped(DropReason::Blue);
            }
        }
        self.fifo.push(pkt, cx.pkts);
        verdict
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        let next = self.fifo.pop(cx.pkts);
        if next.is_none() {
            self.core.on_idle(cx.now);
        }
        next
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("p_mark", self.core.p_m));
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
    fn reads_its_parameters() {
        let p = read("").unwrap();
        assert_eq!((p.increment, p.decrement, p.freeze_time, p.threshold), (0.0025, 0.00025, Duration(100 * MS), None));
        assert_eq!(read("threshold = 30").unwrap().threshold, Some(30));
        assert!(read("increment = 2").is_err());
    }

    #[test]
    fn the_probability_follows_the_events_and_the_freeze() {
        // Loss events every 10 ms from 0 to 990 ms with a 100 ms freeze: changes at 0 (the
        // first event), then at the first event more than 100 ms after the last change:
        // 110, 220, ..., 990 ms: 10 changes of d1.
        let mut b = BlueCore::new(0.0025, 0.00025, SimDuration(100 * MS));
        let mut changes = vec![];
        for k in 0..100u64 {
            let before = b.p_m;
            b.on_congestion(SimTime(k * 10 * MS));
            if b.p_m != before {
                changes.push(k * 10);
            }
        }
        assert_eq!(changes, (0..10).map(|i| i * 110).collect::<Vec<_>>());
        assert!((b.p_m - 0.025).abs() < 1e-15);
        // Idle events every 10 ms from 1000 ms: the first change at 1100 ms (more than 100 ms
        // after 990), then every 110 ms; 2 s of them: 1100, 1210, ..., 2970: 18 changes of d2.
        for k in 0..200u64 {
            b.on_idle(SimTime(1000 * MS + k * 10 * MS));
        }
        assert!((b.p_m - (0.025 - 18.0 * 0.00025)).abs() < 1e-12, "{}", b.p_m);
        // Bounded: never below 0 nor above 1.
        let mut b = BlueCore::new(0.6, 0.6, SimDuration(0));
        b.on_idle(SimTime(1));
        assert_eq!(b.p_m, 0.0);
        b.on_congestion(SimTime(2));
        b.on_congestion(SimTime(3));
        assert_eq!(b.p_m, 1.0);
    }

    /// Every 10 ms for `steps` steps, `arrivals` packets arrive and `departures` leave; returns
    /// p_mark after each step.
    fn drive(h: &mut Harness<Blue>, steps: u64, arrivals: usize, departures: usize) -> Vec<f64> {
        let mut out = vec![];
        for _ in 0..steps {
            h.now += 10 * MS;
            for _ in 0..arrivals {
                h.offer(1, 1000);
            }
            for _ in 0..departures {
                h.serve();
            }
            out.push(h.q.p_mark());
        }
        out
    }

    #[test]
    fn marking_probability_rises_with_overload_and_falls_with_underload() {
        // A 10-packet buffer. Overload for 2 s (3 arrivals, 1 departure per 10 ms): the buffer
        // is full after a few steps and from then every step has a loss, so p_mark changes at
        // least every 110 ms: after 2 s it is between d1 x floor(1.9 / 0.11) = 17 d1 and
        // d1 x (2 / 0.1 + 1) = 21 d1. Then underload for 4 s (1 arrival, 2 departures): the
        // queue drains in about 100 ms, then the link idles every step and p_mark falls by d2
        // at least every 110 ms and at most every 100 ms over 3.9 s: 35 to 40 steps down.
        let p = Params { limit: Limit::Packets(10), ..read("").unwrap() };
        let mut h = Harness::new(Blue::new(&p, &link(1)), 5);
        let up = drive(&mut h, 200, 3, 1);
        assert!(up.windows(2).all(|w| w[1] >= w[0]), "p_mark must not fall under overload");
        let top = *up.last().unwrap();
        assert!((17.0 * 0.0025 - 1e-12..=21.0 * 0.0025 + 1e-12).contains(&top), "{top}");
        let down = drive(&mut h, 400, 1, 2);
        assert!(down.windows(2).all(|w| w[1] <= w[0]), "p_mark must not rise under underload");
        let fell = (top - down.last().unwrap()) / 0.00025;
        assert!((34.99..=40.01).contains(&fell), "{fell} steps of d2");
        // And the probability acts: about p_mark of the arrivals are dropped as 'blue'.
        assert!(h.dropped.iter().any(|d| d.1 == DropReason::Blue));
    }

    #[test]
    fn the_threshold_is_a_loss_event_before_any_loss() {
        let p = Params { limit: Limit::Packets(100), threshold: Some(5), ..read("").unwrap() };
        let mut h = Harness::new(Blue::new(&p, &link(1)), 5);
        for _ in 0..5 {
            h.offer(1, 1000);
        }
        assert_eq!(h.q.p_mark(), 0.0);
        h.offer(1, 1000); // finds 5 waiting
        assert_eq!(h.q.p_mark(), 0.0025);
        assert!(h.dropped.is_empty());
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p = Params {
                limit,
                freeze_time: Duration(MS),
                increment: 0.05,
                threshold: (seed == 3).then_some(10),
                ecn: seed == 2,
                ..read("").unwrap()
            };
            let mut h = Harness::new(Blue::new(&p, &link(4)), seed);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
