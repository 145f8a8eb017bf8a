//! Stochastic Fair BLUE: W. Feng, D. Kandlur, D. Saha and K. G. Shin, "Stochastic Fair Blue: A
//! Queue Management Algorithm for Enforcing Fairness", IEEE INFOCOM 2001; parameter names and
//! defaults from Linux's sch_sfb (`tc qdisc ... sfb rehash db limit max target increment
//! decrement penalty_rate penalty_burst`).
//!
//! L levels of N bins, a Bloom filter of the flows: each level hashes a flow into one of its
//! bins (independent hash functions), and each bin counts the packets queued from the flows
//! that hash there (qlen) and keeps a BLUE marking probability p_m:
//!
//! ```text
//! on arrival of a packet of flow f, for each level i, bin b = B[i][h_i(f)]:
//!     if b.qlen == 0:          b.p_m -= decrement
//!     elif b.qlen >= target:   b.p_m += increment
//! p_min = min over levels of b.p_m,  qlen_min = min over levels of b.qlen
//! qlen_min >= max:  drop                               (reason flow_limit)
//! p_min == 1:       the flow is unresponsive: rate-limit it to penalty_rate packets/s with
//!                   a burst of penalty_burst (a token bucket); over the rate: drop (rate_limit)
//! otherwise:        mark or drop with probability p_min   (reason blue)
//! on enqueue / departure: qlen += 1 / -= 1 in the flow's bin at every level
//! ```
//!
//! A responsive flow keeps its bins' qlen low and sees a small p_min; an unresponsive one
//! drives every bin it maps to up to p_m = 1, which singles it out (a responsive flow is hit
//! only if each of its L bins is shared with such a flow).
//!
//! Moving hash functions with double buffering (paper, section 4.3): two sets of bins, each
//! with its own hash seed. Decisions use the current set; during the last `db` before each
//! `rehash` every arrival also updates the standby set (its probabilities and counts, with its
//! own seed), so that when the sets swap the new current set has learnt the traffic. At the
//! swap the old set becomes standby with a new seed, emptied. Done as the paper describes it.
//!
//! Deviations and choices left open:
//! - Linux warms the standby set only with packets of flows already rate-limited; here every
//!   arrival warms it (the paper's description). Linux does not clear the old set at the swap;
//!   here it is cleared, so its counts only ever hold packets hashed with its current seed.
//! - The token bucket refills continuously at `penalty_rate`, capped at `penalty_burst`
//!   (Linux refills only when it is empty, by the time since its last refill, at most 10 s).
//! - p_min > 1/2: as in Linux, the arrival is dropped with probability 2 (p_min - 1/2) even if
//!   it is ECN-capable; otherwise an ECN-capable packet is marked (with `ecn = true`) where it
//!   would have been dropped. Linux always marks ECN-capable packets; `ecn` defaults to false
//!   here, as for every discipline in this engine.
//! - The hash key is the scenario's flow; `levels` (Linux: 8) and `bins` (Linux: 16) are
//!   parameters; the hash is the seeded SplitMix64 of `drr.rs`, one seed per level.
//! - `limit` (Linux: the device's queue length, typically 1000 packets) may be in bytes.
//! - The rehash clock starts at the first arrival; the swap happens at the first arrival at or
//!   after its time (the bins are only read by arrivals).
//!
//! Traced gauges: `max_p_mark` and `avg_p_mark` over the current set's bins (Linux's maxprob and
//! avgprob).

use std::collections::VecDeque;

use serde::Serialize;

use super::drr::bucket_of;
use super::sfq::draw_seed;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Duration, Fields, Limit, Prob, Result};
use crate::packet::{flags, PacketId};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "sfb",
    aliases: &["stochastic_fair_blue"],
    summary: "Stochastic Fair BLUE (Feng et al. 2001; Linux sch_sfb): BLUE probabilities in L levels x N bins of flow accounting; flows whose bins all reach 1 are rate-limited.",
    read: |f| Params::read(f).map(QdiscParams::Sfb),
};

/// Most levels and bins accepted: the tables are allocated whole and the gauges scan them.
pub const MAX_LEVELS: u32 = 16;
pub const MAX_BINS: u32 = 1024;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// Interval between hash changes; 0: never.
    pub rehash: Duration,
    /// Double-buffering time before each change.
    pub db: Duration,
    /// qlen_min at which an arrival is dropped.
    pub max: u32,
    /// Bin qlen at which its p_m rises (the paper's bin_size).
    pub target: u32,
    pub increment: f64,
    pub decrement: f64,
    /// Packets per second allowed to a flow whose p_min is 1.
    pub penalty_rate: f64,
    pub penalty_burst: u32,
    pub levels: u32,
    pub bins: u32,
    pub ecn: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or("limit", Limit::Packets(1000), "physical buffer (Linux: the device queue, 1000 packets)")?;
        let rehash: Duration =
            f.or("rehash", Duration(600 * NS_PER_S), "interval between changes of the hash functions; 0: never")?;
        let db: Duration = f.or(
            "db",
            Duration(60 * NS_PER_S),
            "double buffering: how long before each change the standby bins learn the traffic",
        )?;
        f.ensure(rehash.0 == 0 || db.0 < rehash.0, "db", "must be shorter than rehash")?;
        let max: u32 = f.or("max", 25, "an arrival whose smallest bin count (qlen_min) is this many packets is dropped")?;
        f.ensure(max >= 1, "max", "must be at least 1 packet")?;
        let target: u32 =
            f.or("target", 20, "bin count (packets) at or above which the bin's p_mark rises (the paper's bin_size)")?;
        let increment: Prob =
            f.or("increment", Prob(0.001), "p_mark step up (Linux: 66/65535, 0.1%)")?;
        let decrement: Prob = f.or(
            "decrement",
            Prob(0.000168),
            "p_mark step down for an arrival finding its bin empty (Linux: 11/65535)",
        )?;
        let penalty_rate: f64 =
            f.or("penalty_rate", 10.0, "packets/s allowed to a flow whose bins all have p_mark = 1 (0: none)")?;
        f.ensure(penalty_rate >= 0.0, "penalty_rate", "must not be negative")?;
        let penalty_burst: u32 = f.or("penalty_burst", 20, "token bucket depth of the rate limit, packets")?;
        let levels: u32 = f.or("levels", 8, "L: number of hash levels (Linux: 8)")?;
        f.ensure((1..=MAX_LEVELS).contains(&levels), "levels", format!("{levels} is not allowed (1 to {MAX_LEVELS})"))?;
        let bins: u32 = f.or("bins", 16, "N: bins per level (Linux: 16)")?;
        f.ensure((1..=MAX_BINS).contains(&bins), "bins", format!("{bins} is not allowed (1 to {MAX_BINS})"))?;
        let ecn = f.or("ecn", false, "mark ECN-capable packets (set CE) instead of dropping them while p_min <= 1/2")?;
        Ok(Params {
            limit,
            rehash,
            db,
            max,
            target,
            increment: increment.0,
            decrement: decrement.0,
            penalty_rate,
            penalty_burst,
            levels,
            bins,
            ecn,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules

/// A bin's p_m after an arrival finds `qlen` packets in it.
#[inline]
pub fn bin_update(p_m: f64, qlen: u32, target: u32, increment: f64, decrement: f64) -> f64 {
    if qlen == 0 {
        (p_m - decrement).max(0.0)
    } else if qlen >= target {
        (p_m + increment).min(1.0)
    } else {
        p_m
    }
}

/// What SFB does with an arrival, given the minima over its bins and a uniform draw `u`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SfbAction {
    Admit,
    /// qlen_min >= max.
    BinFull,
    /// p_min = 1: subject to the rate limit.
    RateLimit,
    /// Drop whatever the packet's ECN capability (p_min > 1/2 and u < 2 (p_min - 1/2)).
    Drop,
    /// Mark if ECN-capable (and `ecn`), else drop.
    MarkOrDrop,
}

pub fn sfb_action(p_min: f64, qlen_min: u32, max: u32, u: f64) -> SfbAction {
    if qlen_min >= max {
        SfbAction::BinFull
    } else if p_min >= 1.0 {
        SfbAction::RateLimit
    } else if u < p_min {
        if p_min > 0.5 && u < 2.0 * (p_min - 0.5) {
            SfbAction::Drop
        } else {
            SfbAction::MarkOrDrop
        }
    } else {
        SfbAction::Admit
    }
}

/// A token bucket of `burst` tokens refilled at `rate` per second: tokens at `now`, given
/// `tokens` at `then`.
#[inline]
pub fn refill(tokens: f64, then: SimTime, now: SimTime, rate: f64, burst: u32) -> f64 {
    (tokens + now.saturating_since(then).ns() as f64 / NS_PER_S as f64 * rate).min(burst as f64)
}

// ---------------------------------------------------------------------------------------------
// State

#[derive(Clone, Copy, Debug, Default)]
struct Bin {
    qlen: u32,
    p_m: f64,
}

/// One set of L x N bins with its hash seed.
#[derive(Debug)]
struct BinSet {
    seed: u64,
    bins: Vec<Bin>,
}

impl BinSet {
    fn new(levels: u32, n: u32, seed: u64) -> Self {
        BinSet { seed, bins: vec![Bin::default(); (levels * n) as usize] }
    }

    /// Index of flow `flow`'s bin at `level` under `seed`.
    fn index(seed: u64, flow: u32, level: u32, n: u32) -> usize {
        let level_seed = seed ^ (level as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        level as usize * n as usize + bucket_of(flow as u64, level_seed, n)
    }
}

#[derive(Clone, Copy, Debug)]
struct Queued {
    pkt: PacketId,
    size: u32,
    flow: u32,
    /// The seed each set counted this packet under (None: not counted there).
    counted: [Option<u64>; 2],
}

pub struct Sfb {
    p: Params,
    sets: [BinSet; 2],
    /// The set decisions use.
    current: usize,
    double_buffering: bool,
    /// When the current hash started (None before the first arrival).
    rehash_time: Option<SimTime>,
    tokens: f64,
    token_time: SimTime,
    queue: VecDeque<Queued>,
    bytes: u64,
    swaps: u64,
}

impl Sfb {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        Sfb {
            p: p.clone(),
            sets: [BinSet::new(p.levels, p.bins, 0), BinSet::new(p.levels, p.bins, 0)],
            current: 0,
            double_buffering: false,
            rehash_time: None,
            tokens: p.penalty_burst as f64,
            token_time: SimTime::ZERO,
            queue: VecDeque::new(),
            bytes: 0,
            swaps: 0,
        }
    }

    /// Update set `s`'s bins for an arrival of `flow`; returns (p_min, qlen_min) over them.
    fn update_bins(&mut self, s: usize, flow: u32) -> (f64, u32) {
        let (n, target, inc, dec) = (self.p.bins, self.p.target, self.p.increment, self.p.decrement);
        let set = &mut self.sets[s];
        let (mut p_min, mut q_min) = (f64::INFINITY, u32::MAX);
        for level in 0..self.p.levels {
            let b = &mut set.bins[BinSet::index(set.seed, flow, level, n)];
            b.p_m = bin_update(b.p_m, b.qlen, target, inc, dec);
            p_min = p_min.min(b.p_m);
            q_min = q_min.min(b.qlen);
        }
        (p_min, q_min)
    }

    /// Add (`+1`) or remove (`-1`) a packet of `flow` counted under `seed` in set `s`.
    fn count(&mut self, s: usize, seed: u64, flow: u32, add: bool) {
        let n = self.p.bins;
        for level in 0..self.p.levels {
            let b = &mut self.sets[s].bins[BinSet::index(seed, flow, level, n)];
            b.qlen = if add { b.qlen.saturating_add(1) } else { b.qlen.saturating_sub(1) };
        }
    }

    /// Start the hash clock, switch double buffering on, or swap the sets, as time says.
    fn clock(&mut self, now: SimTime, rng: &mut SimRng) {
        let Some(start) = self.rehash_time else {
            self.sets[0].seed = draw_seed(rng);
            self.sets[1].seed = draw_seed(rng);
            self.rehash_time = Some(now);
            return;
        };
        let (rehash, db) = (self.p.rehash.sim(), self.p.db.sim());
        if rehash == SimDuration::ZERO {
            return;
        }
        let due = start.saturating_add(rehash);
        if now >= due {
            // The standby set becomes current; the old current set starts afresh as standby.
            let old = self.current;
            self.current ^= 1;
            self.sets[old].seed = draw_seed(rng);
            self.sets[old].bins.iter_mut().for_each(|b| *b = Bin::default());
            for q in &mut self.queue {
                q.counted[old] = None;
            }
            self.double_buffering = false;
            self.rehash_time = Some(now);
            self.swaps += 1;
        } else if !self.double_buffering && db > SimDuration::ZERO && now >= due - db {
            self.double_buffering = true;
        }
    }

    /// The largest and the mean p_m over the current set's bins.
    pub fn p_mark_stats(&self) -> (f64, f64) {
        let bins = &self.sets[self.current].bins;
        let max = bins.iter().map(|b| b.p_m).fold(0.0, f64::max);
        (max, bins.iter().map(|b| b.p_m).sum::<f64>() / bins.len() as f64)
    }

    /// p_min of `flow` in the current set (tests).
    pub fn p_min_of(&self, flow: u32) -> f64 {
        let set = &self.sets[self.current];
        (0..self.p.levels).map(|l| set.bins[BinSet::index(set.seed, flow, l, self.p.bins)].p_m).fold(1.0, f64::min)
    }

    /// How many times the hash sets were swapped.
    pub fn swaps(&self) -> u64 {
        self.swaps
    }
}

impl QueueDisc for Sfb {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let (size, flow) = (cx.pkts[pkt].size, cx.pkts[pkt].flow);
        if self.p.limit.overflows(self.queue.len(), self.bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.clock(cx.now, cx.rng);
        let (p_min, q_min) = self.update_bins(self.current, flow);
        let standby = self.current ^ 1;
        if self.double_buffering {
            self.update_bins(standby, flow);
        }
        let u = if p_min > 0.0 && p_min < 1.0 { cx.rng.uniform() } else { 1.0 };
        let mut verdict = Verdict::Enqueued;
        match sfb_action(p_min, q_min, self.p.max, u) {
            SfbAction::Admit => {}
            SfbAction::BinFull => return Verdict::Dropped(DropReason::FlowLimit),
            SfbAction::RateLimit => {
                self.tokens = refill(self.tokens, self.token_time, cx.now, self.p.penalty_rate, self.p.penalty_burst);
                self.token_time = cx.now;
                if self.tokens < 1.0 {
                    return Verdict::Dropped(DropReason::RateLimit);
                }
                self.tokens -= 1.0;
            }
            SfbAction::Drop => return Verdict::Dropped(DropReason::Blue),
            SfbAction::MarkOrDrop => {
                if self.p.ecn && cx.pkts[pkt].has(flags::ECT) {
                    cx.pkts[pkt].flags |= flags::CE;
                    verdict = Verdict::Marked(DropReason::Blue);
                } else {
                    return Verdict::Dropped(DropReason::Blue);
                }
            }
        }
        let mut counted = [None, None];
        for s in [self.current, standby] {
            if s == self.current || self.double_buffering {
                let seed = self.sets[s].seed;
                self.count(s, seed, flow, true);
                counted[s] = Some(seed);
            }
        }
        self.queue.push_back(Queued { pkt, size, flow, counted });
        self.bytes += size as u64;
        verdict
    }

    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<PacketId> {
        let q = self.queue.pop_front()?;
        self.bytes -= q.size as u64;
        for (s, counted) in q.counted.iter().enumerate() {
            if let Some(seed) = *counted {
                self.count(s, seed, q.flow, false);
            }
        }
        Some(q.pkt)
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
        let (max, avg) = self.p_mark_stats();
        out.push(("max_p_mark", max));
        out.push(("avg_p_mark", avg));
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
    fn defaults_are_linux_ones() {
        let p = read("").unwrap();
        assert_eq!((p.rehash, p.db, p.max, p.target), (Duration(600 * NS_PER_S), Duration(60 * NS_PER_S), 25, 20));
        assert_eq!((p.penalty_rate, p.penalty_burst, p.levels, p.bins), (10.0, 20, 8, 16));
        assert!((p.increment * 65535.0 - 66.0).abs() < 0.5 && (p.decrement * 65535.0 - 11.0).abs() < 0.5);
        assert!(read("rehash = \"1s\"\ndb = \"2s\"").unwrap_err().message.contains("shorter than rehash"));
        assert!(read("levels = 0").is_err());
        assert!(read("max = 0").is_err());
    }

    #[test]
    fn the_rules_are_the_papers() {
        assert_eq!(bin_update(0.5, 0, 20, 0.1, 0.01), 0.49);
        assert_eq!(bin_update(0.5, 19, 20, 0.1, 0.01), 0.5);
        assert_eq!(bin_update(0.5, 20, 20, 0.1, 0.01), 0.6);
        assert_eq!(bin_update(0.95, 25, 20, 0.1, 0.01), 1.0);
        assert_eq!(bin_update(0.005, 0, 20, 0.1, 0.01), 0.0);
        assert_eq!(sfb_action(0.0, 25, 25, 0.0), SfbAction::BinFull);
        assert_eq!(sfb_action(1.0, 3, 25, 0.0), SfbAction::RateLimit);
        assert_eq!(sfb_action(0.3, 3, 25, 0.29), SfbAction::MarkOrDrop);
        assert_eq!(sfb_action(0.3, 3, 25, 0.31), SfbAction::Admit);
        assert_eq!(sfb_action(0.8, 3, 25, 0.59), SfbAction::Drop);
        assert_eq!(sfb_action(0.8, 3, 25, 0.61), SfbAction::MarkOrDrop);
        // 2 tokens left, 0.25 s at 10 pps adds 2.5, capped at the burst of 4.
        assert_eq!(refill(2.0, SimTime::ZERO, SimTime(250 * MS), 10.0, 20), 4.5);
        assert_eq!(refill(2.0, SimTime::ZERO, SimTime(250 * MS), 10.0, 4), 4.0);
    }

    /// Every 10 ms, flow 1 offers `arrivals` packets and `departures` leave.
    fn drive(h: &mut Harness<Sfb>, steps: u64, arrivals: usize, departures: usize) -> Vec<f64> {
        let mut out = vec![];
        for _ in 0..steps {
            h.now += 10 * MS;
            for _ in 0..arrivals {
                h.offer(1, 1000);
            }
            for _ in 0..departures {
                h.serve();
            }
            out.push(h.q.p_min_of(1));
        }
        out
    }

    #[test]
    fn a_flows_probability_rises_with_its_backlog_and_falls_when_it_drains() {
        // target 5: while flow 1 keeps more than 5 packets queued, each of its arrivals raises
        // its bins' p_m by the increment; once it is drained, each arrival finding its bins
        // empty lowers them by the decrement.
        let p = Params { target: 5, max: 1000, increment: 0.01, decrement: 0.002, ..read("").unwrap() };
        let mut h = Harness::new(Sfb::new(&p, &link(4)), 3);
        // 2 arrivals, 1 departure per step: the backlog reaches 5 after 5 steps (the first
        // arrival that finds 5 queued raises p_m); from then on 2 raises per step, less the
        // arrivals the rising probability drops (each dropped one still counted its raise).
        let up = drive(&mut h, 50, 2, 1);
        assert!(up.windows(2).all(|w| w[1] >= w[0]));
        assert!(up[3] == 0.0 && up[49] > 0.5, "{:?}", &up[..10]);
        // Drain (no arrivals: nothing changes p_m, which moves only at arrivals), then 1
        // arrival and 2 departures per step: every arrival finds the bins empty, so p_min falls
        // by exactly the decrement each step: 300 steps take 0.6 off.
        let top = up[49];
        let drained = drive(&mut h, 100, 0, 2);
        assert!(drained.iter().all(|&p| p == top) && h.q.is_empty());
        let down = drive(&mut h, 300, 1, 2);
        assert!(down.windows(2).all(|w| w[1] <= w[0]));
        let expected = (top - 300.0 * 0.002).max(0.0);
        assert!((down[299] - expected).abs() < 1e-9, "{} after {top}, expected {expected}", down[299]);
        // An unrelated flow's bins are untouched by flow 1 (8 levels of 16 bins: it shares all
        // eight with flow 1 with probability 16^-8).
        assert_eq!(h.q.p_min_of(2), 0.0);
    }

    #[test]
    fn an_unresponsive_flow_is_rate_limited_once_its_bins_saturate() {
        // Flow 1 offers 10 packets per 10 ms and nothing leaves (max and limit out of the way):
        // its bins pass the target (20) and each arrival raises them by 0.001, so p_min reaches
        // 1 after about 1000 arrivals (1 s); from then on only the penalty rate passes. Over the
        // next 5 s the bins stay full (nothing leaves), p_min stays 1, and the token bucket
        // admits 10 packets/s x 5 s = 50 (+1 for the fraction carried).
        let p = Params { max: 100_000, limit: Limit::Packets(100_000), ..read("").unwrap() };
        let mut h = Harness::new(Sfb::new(&p, &link(4)), 3);
        drive(&mut h, 200, 10, 0);
        assert_eq!(h.q.p_min_of(1), 1.0);
        let (before, queued) = (h.dropped.len(), h.q.len());
        drive(&mut h, 500, 10, 0);
        let admitted = h.q.len() - queued;
        assert!((49..=51).contains(&admitted), "{admitted} admitted in 5 s");
        assert_eq!(h.dropped.len() - before, 5000 - admitted);
        assert!(h.dropped[before..].iter().all(|d| d.1 == DropReason::RateLimit));
        // A second flow arriving now is not penalised: its bins are its own.
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
    }

    #[test]
    fn the_hash_sets_swap_after_warming_up() {
        // Flow 1 offers 2 packets per 10 ms, 1 leaves: its backlog grows and its bins' p_m
        // rises (target 5). rehash 1 s, db 0.5 s: the standby set counts flow 1's new packets
        // from 0.5 s on and raises its own p_m once they pass the target, so right after the
        // swap flow 1 is still singled out.
        let base = Params { target: 5, max: 10_000, increment: 0.01, limit: Limit::Packets(10_000), ..read("").unwrap() };
        let p = Params { rehash: Duration(1000 * MS), db: Duration(500 * MS), ..base.clone() };
        let mut h = Harness::new(Sfb::new(&p, &link(4)), 3);
        drive(&mut h, 99, 2, 1);
        assert_eq!(h.q.swaps(), 0);
        let before = h.q.p_min_of(1);
        drive(&mut h, 2, 2, 1);
        assert_eq!(h.q.swaps(), 1);
        assert!(before > 0.5 && h.q.p_min_of(1) > 0.3, "{before} -> {}", h.q.p_min_of(1));
        // Without double buffering the new set starts from nothing: two steps later flow 1's
        // bins have at most a few increments.
        let p = Params { rehash: Duration(1000 * MS), db: Duration(0), ..base };
        let mut h = Harness::new(Sfb::new(&p, &link(4)), 3);
        drive(&mut h, 101, 2, 1);
        assert_eq!(h.q.swaps(), 1);
        assert!(h.q.p_min_of(1) < 0.05, "{}", h.q.p_min_of(1));
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p = Params {
                limit,
                rehash: Duration(300 * MS),
                db: Duration(100 * MS),
                target: 3,
                max: 6,
                increment: 0.05,
                levels: 2,
                bins: 4,
                ecn: seed == 2,
                ..read("").unwrap()
            };
            let mut h = Harness::new(Sfb::new(&p, &link(4)), seed);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
