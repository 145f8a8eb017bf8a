//! SRED, Stabilized RED: a FIFO whose drop probability depends on the instantaneous queue
//! length and on an estimate of the number of active flows, taken from a "zombie list" of
//! recently seen flows. Defined in T. J. Ott, T. V. Lakshman and L. Wong, "SRED: Stabilized
//! RED", IEEE INFOCOM 1999; implemented as restated in K. Kurata, G. Hasegawa and M. Murata,
//! "ZL-RED" (IEICE technical report, c. 2000), Sec. 2.1, eq. (1)-(3).
//!
//! On every arrival of flow f:
//! 1. zombie list of M entries (flow, count, timestamp): while it has a free entry, the arrival
//!    fills one (count 0). Once full, a zombie drawn at random is compared with f: a hit
//!    (Hit(t) = 1) adds 1 to its count; a miss (Hit(t) = 0) overwrites it with (f, 0, now)
//!    with probability p_swap;
//! 2. hit frequency P(t) = (1 - alpha) P(t-1) + alpha Hit(t); 1/P(t) estimates the number of
//!    active flows (exact for flows of equal rate);
//! 3. eq. (1): p1 = 0 if q < B/6, p_max/4 if B/6 <= q < B/3, p_max if q >= B/3 (q packets in
//!    the buffer at the arrival, B the buffer size);
//!    eq. (2): p2 = p1 min(1, 1/(256 P(t))^2);
//!    eq. (3): p3 = p2 (1 + Hit(t)/P(t));
//! 4. drop the arrival with probability min(p3, 1) (reason `early`); an admitted packet that
//!    does not fit in the buffer is dropped (overflow).
//!
//! The zombie list and P(t) are [`ZombieList`], shared with ZL-RED (`zl_red.rs`), which also
//! reads the zombies' counts (T, and F per flow: kept incrementally, O(1) per arrival).
//! Traced gauges: `hit_rate` (P(t)) and `flows_estimate` (1/P(t); absent while P = 0).
//!
//! Deviations from the paper (its open choices, with ours):
//! - the averaging rule of P(t) is not in the ZL-RED paper: Ott et al.'s EMA, gain
//!   `alpha = 1/M` (a public ns-3 SRED uses p_swap/M; settable), P(0) = `p_init` = 0. P is
//!   updated before the probabilities are computed; Hit/P and the factor of eq. (2) are
//!   taken as 0 and 1 while P = 0;
//! - while the list fills there is no hit test and no P update (`fill = "insert"`);
//!   `fill = "compare"` compares with a random filled zombie and updates P from the start;
//! - eq. (2) is 1/(256 P)^2, not 1/(256 P^2);
//! - p3 above 1 is clamped to 1;
//! - q excludes the packet being transmitted; B is `limit` in packets (a byte limit is divided
//!   by the scenario's mean packet size), so `limit` must be finite;
//! - the timestamp is kept (a hit refreshes it, as in Ott et al.) but no equation reads it.

use serde::Serialize;

use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Fields, Limit, Prob, Result};
use crate::packet::PacketId;
use crate::rng::SimRng;
use crate::units::SimTime;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "sred",
    aliases: &[],
    summary: "Stabilized RED (Ott, Lakshman & Wong 1999): drops by queue length and a zombie-list estimate of the number of flows.",
    read: |f| Params::read(f).map(QdiscParams::Sred),
};

// ---------------------------------------------------------------------------------------------
// The zombie list and the hit frequency P(t), shared with ZL-RED

choice_enum! {
    /// What happens while the zombie list still has free entries.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum FillRule {
        /// Fill a free entry; no hit test, no update of P.
        Insert = "insert",
        /// Compare with a random filled entry (a hit counts; a miss fills a free entry) and update P.
        Compare = "compare",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZombieParams {
    /// M: entries in the zombie list.
    pub zombies: u32,
    pub p_swap: f64,
    /// Gain of the EMA of Hit(t).
    pub alpha: f64,
    /// P(0).
    pub p_init: f64,
    pub fill: FillRule,
}

impl ZombieParams {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let zombies: u32 = f.or("zombies", 1000u32, "M: entries in the zombie list")?;
        f.ensure(zombies >= 1, "zombies", "must be at least 1")?;
        // The list is allocated whole: a typo's billions would exhaust memory.
        f.ensure(zombies <= 1_000_000, "zombies", format!("{zombies} is more than 1000000 entries"))?;
        let p_swap: Prob =
            f.or("p_swap", Prob(0.25), "probability that a miss overwrites the zombie drawn with the arrival's flow")?;
        let alpha: Option<f64> =
            f.opt("alpha", "gain of the hit frequency P(t) = (1 - alpha) P + alpha Hit (default 1/zombies)")?;
        let alpha = alpha.unwrap_or(1.0 / zombies as f64);
        f.ensure(alpha > 0.0 && alpha <= 1.0, "alpha", format!("{alpha} is not a gain (allowed: above 0, at most 1)"))?;
        let p_init: Prob = f.or("p_init", Prob(0.0), "P(0), the hit frequency before any arrival")?;
        let fill = f.choice(
            "fill",
            FillRule::Insert,
            "while the list has free entries: only fill them, or also compare and update P",
        )?;
        Ok(ZombieParams { zombies, p_swap: p_swap.0, alpha, p_init: p_init.0, fill })
    }
}

/// One entry of the zombie list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zombie {
    pub flow: u32,
    pub count: u64,
    /// When the zombie was written or last hit.
    pub stamp: SimTime,
}

/// The zombie list with the hit frequency P(t) and the count sums ZL-RED reads.
#[derive(Clone, Debug)]
pub struct ZombieList {
    p: ZombieParams,
    list: Vec<Zombie>,
    hit_rate: f64,
    /// T: sum of every zombie's count.
    total: u64,
    /// F by flow: sum of the counts of the zombies of that flow.
    by_flow: Vec<u64>,
}

impl ZombieList {
    pub fn new(p: &ZombieParams, n_flows: usize) -> Self {
        ZombieList {
            p: p.clone(),
            list: Vec::with_capacity(p.zombies as usize),
            hit_rate: p.p_init,
            total: 0,
            by_flow: vec![0; n_flows],
        }
    }

    /// P(t), the hit frequency.
    pub fn hit_rate(&self) -> f64 {
        self.hit_rate
    }

    /// 1/P(t), the estimated number of active flows (infinite while P = 0).
    pub fn flows_estimate(&self) -> f64 {
        1.0 / self.hit_rate
    }

    /// T: the sum of the counts of every zombie.
    pub fn total_count(&self) -> u64 {
        self.total
    }

    /// F: the sum of the counts of the zombies of `flow`.
    pub fn flow_count(&self, flow: u32) -> u64 {
        self.by_flow.get(flow as usize).copied().unwrap_or(0)
    }

    pub fn zombies(&self) -> &[Zombie] {
        &self.list
    }

    fn add_count(&mut self, flow: u32, n: u64) {
        let i = flow as usize;
        if i >= self.by_flow.len() {
            self.by_flow.resize(i + 1, 0);
        }
        self.by_flow[i] += n;
        self.total += n;
    }

    fn overwrite(&mut self, i: usize, flow: u32, now: SimTime) {
        let old = self.list[i];
        if old.count > 0 {
            // A zombie with a count has been through add_count, so its flow has a slot.
            self.by_flow[old.flow as usize] -= old.count;
            self.total -= old.count;
        }
        self.list[i] = Zombie { flow, count: 0, stamp: now };
    }

    fn update(&mut self, hit: bool) {
        self.hit_rate = (1.0 - self.p.alpha) * self.hit_rate + self.p.alpha * hit as u8 as f64;
    }

    /// One arrival of `flow` at `now`: updates the list and P(t); returns Hit(t).
    pub fn observe(&mut self, flow: u32, now: SimTime, rng: &mut SimRng) -> bool {
        let full = self.list.len() == self.p.zombies as usize;
        if !full && (self.p.fill == FillRule::Insert || self.list.is_empty()) {
            self.list.push(Zombie { flow, count: 0, stamp: now });
            if self.p.fill == FillRule::Compare {
                self.update(false);
            }
            return false;
        }
        let i = rng.below(self.list.len());
        let hit = self.list[i].flow == flow;
        if hit {
            self.list[i].count += 1;
            self.list[i].stamp = now;
            self.add_count(flow, 1);
        } else if !full {
            self.list.push(Zombie { flow, count: 0, stamp: now });
        } else if rng.chance(self.p.p_swap) {
            self.overwrite(i, flow, now);
        }
        self.update(hit);
        hit
    }
}

// ---------------------------------------------------------------------------------------------
// The equations, pure

/// The staircase of eq. (1) and ZL-RED's eq. (7): 0 below `low`, p_max/4 from `low`, p_max
/// from `high` (tested in that order).
pub fn staircase(qlen: f64, low: f64, high: f64, p_max: f64) -> f64 {
    if qlen < low {
        0.0
    } else if qlen < high {
        p_max / 4.0
    } else {
        p_max
    }
}

/// Eq. (1): p1 from the queue length `qlen` and the buffer size `buffer`, packets.
pub fn sred_p1(qlen: f64, buffer: f64, p_max: f64) -> f64 {
    staircase(qlen, buffer / 6.0, buffer / 3.0, p_max)
}

/// Eq. (2) and (3): p3 from p1, the hit frequency P(t) and Hit(t); not clamped.
pub fn sred_p3(p1: f64, hit_rate: f64, hit: bool) -> f64 {
    if hit_rate <= 0.0 {
        return p1;
    }
    let p2 = p1 * (1.0 / (256.0 * hit_rate).powi(2)).min(1.0);
    p2 * (1.0 + hit as u8 as f64 / hit_rate)
}

/// B in packets: SRED's thresholds are fractions of the buffer.
pub fn buffer_packets(limit: Limit, link: &LinkInfo) -> f64 {
    limit.in_packets(link.mean_packet_size)
}

/// Refuse an unbounded buffer (B/6 and B/3 would be infinite).
pub fn require_finite_buffer(f: &Fields, limit: Limit) -> Result<()> {
    f.ensure(
        limit != Limit::Unbounded,
        "limit",
        "the thresholds are fractions of the buffer (B/6, B/3): give a finite limit",
    )
}

// ---------------------------------------------------------------------------------------------
// The discipline

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    pub p_max: f64,
    #[serde(flatten)]
    pub zombies: ZombieParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "buffer B: thresholds at B/6 and B/3; an admitted packet that does not fit is dropped (overflow)",
        )?;
        require_finite_buffer(f, limit)?;
        let p_max: Prob =
            f.or("p_max", Prob(0.15), "drop probability p1 at a queue of B/3 or more (p_max/4 from B/6)")?;
        let zombies = ZombieParams::read(f)?;
        Ok(Params { limit, p_max: p_max.0, zombies })
    }
}

pub struct Sred {
    limit: Limit,
    p_max: f64,
    /// B, packets.
    buffer: f64,
    zl: ZombieList,
    fifo: Fifo,
}

impl Sred {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        Sred {
            limit: p.limit,
            p_max: p.p_max,
            buffer: buffer_packets(p.limit, link),
            zl: ZombieList::new(&p.zombies, link.n_flows),
            fifo: Fifo::new(),
        }
    }

    pub fn zombie_list(&self) -> &ZombieList {
        &self.zl
    }
}

impl QueueDisc for Sred {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let hit = self.zl.observe(cx.pkts[pkt].flow, cx.now, cx.rng);
        let p1 = sred_p1(self.fifo.len() as f64, self.buffer, self.p_max);
        let p = sred_p3(p1, self.zl.hit_rate(), hit).min(1.0);
        if cx.rng.chance(p) {
            return Verdict::Dropped(DropReason::Early);
        }
        if self.fifo.overflows(self.limit, cx.pkts[pkt].size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(pkt, cx.pkts);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.fifo.pop(cx.pkts)
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
        out.push(("hit_rate", self.zl.hit_rate()));
        // No estimate while P = 0, or so close to 0 that 1/P overflows (a subnormal P, after
        // a long run of misses with a large alpha): the series shows a gap, not an infinity.
        let estimate = self.zl.flows_estimate();
        if self.zl.hit_rate() > 0.0 && estimate.is_finite() {
            out.push(("flows_estimate", estimate));
        }
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

    const ZP: ZombieParams =
        ZombieParams { zombies: 4, p_swap: 0.25, alpha: 0.25, p_init: 0.0, fill: FillRule::Insert };

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn defaults_follow_the_zl_red_papers_settings() {
        let p = read("").unwrap();
        assert_eq!(p.p_max, 0.15);
        assert_eq!(
            p.zombies,
            ZombieParams { zombies: 1000, p_swap: 0.25, alpha: 0.001, p_init: 0.0, fill: FillRule::Insert }
        );
        assert_eq!(read("zombies = 10").unwrap().zombies.alpha, 0.1);
        assert!(read("limit = \"unbounded\"").unwrap_err().message.contains("finite limit"));
        assert!(read("alpha = 0").is_err());
        assert!(read("zombies = 0").is_err());
    }

    #[test]
    fn the_list_fills_before_anything_is_compared() {
        let mut zl = ZombieList::new(&ZP, 4);
        let mut rng = SimRng::from_seed(1);
        for f in [1, 1, 2, 3] {
            assert!(!zl.observe(f, SimTime(5), &mut rng));
        }
        assert_eq!(zl.hit_rate(), 0.0);
        assert_eq!(zl.zombies().iter().map(|z| z.flow).collect::<Vec<_>>(), vec![1, 1, 2, 3]);
        assert_eq!(zl.total_count(), 0);
    }

    #[test]
    fn a_hit_counts_and_raises_the_hit_frequency() {
        let mut zl = ZombieList::new(&ZombieParams { zombies: 2, ..ZP }, 4);
        let mut rng = SimRng::from_seed(1);
        zl.observe(3, SimTime(0), &mut rng);
        zl.observe(3, SimTime(0), &mut rng);
        assert!(zl.observe(3, SimTime(10), &mut rng), "every zombie is flow 3");
        assert_eq!(zl.hit_rate(), 0.25);
        assert!(zl.observe(3, SimTime(20), &mut rng));
        assert_eq!(zl.hit_rate(), 0.25 * 0.75 + 0.25);
        assert_eq!((zl.total_count(), zl.flow_count(3), zl.flow_count(1)), (2, 2, 0));
        assert!(zl.zombies().iter().any(|z| z.stamp == SimTime(20)));
    }

    #[test]
    fn a_miss_overwrites_the_zombie_with_probability_p_swap() {
        // p_swap = 1: every miss overwrites, and the counts it held leave T and F.
        let mut zl = ZombieList::new(&ZombieParams { zombies: 1, p_swap: 1.0, ..ZP }, 4);
        let mut rng = SimRng::from_seed(1);
        zl.observe(1, SimTime(0), &mut rng);
        zl.observe(1, SimTime(0), &mut rng);
        zl.observe(1, SimTime(0), &mut rng);
        assert_eq!((zl.total_count(), zl.flow_count(1)), (2, 2));
        assert!(!zl.observe(2, SimTime(7), &mut rng));
        assert_eq!(zl.zombies(), &[Zombie { flow: 2, count: 0, stamp: SimTime(7) }]);
        assert_eq!((zl.total_count(), zl.flow_count(1)), (0, 0));
        // p_swap = 0.25: about a quarter of misses overwrite.
        let mut swaps = 0;
        let mut zl = ZombieList::new(&ZombieParams { zombies: 1, ..ZP }, 4);
        zl.observe(0, SimTime(0), &mut rng);
        for k in 0..20_000u32 {
            let before = zl.zombies()[0].flow;
            let flow = if before == 0 { 1 } else { 0 };
            zl.observe(flow, SimTime(k as u64), &mut rng);
            swaps += (zl.zombies()[0].flow != before) as u32;
        }
        assert!((swaps as f64 / 20_000.0 - 0.25).abs() < 0.015, "{swaps}");
    }

    #[test]
    fn compare_fill_counts_hits_from_the_first_arrivals() {
        let mut zl = ZombieList::new(&ZombieParams { fill: FillRule::Compare, ..ZP }, 4);
        let mut rng = SimRng::from_seed(1);
        assert!(!zl.observe(1, SimTime(0), &mut rng));
        assert!(zl.observe(1, SimTime(0), &mut rng));
        assert_eq!(zl.zombies().len(), 1, "a hit does not fill");
        assert!(!zl.observe(2, SimTime(0), &mut rng));
        assert_eq!(zl.zombies().len(), 2, "a miss fills a free entry");
        assert!(zl.hit_rate() > 0.0);
    }

    #[test]
    fn equations_one_to_three() {
        // B = 600: thresholds 100 and 200.
        assert_eq!(
            [99.0, 100.0, 199.0, 200.0, 600.0].map(|q| sred_p1(q, 600.0, 0.15)),
            [0.0, 0.0375, 0.0375, 0.15, 0.15]
        );
        // (256 P)^2 <= 1: p2 = p1; P = 1/128: p2 = p1 / 4; a hit multiplies by 1 + 1/P.
        assert_eq!(sred_p3(0.15, 1.0 / 256.0, false), 0.15);
        assert!((sred_p3(0.15, 1.0 / 128.0, false) - 0.0375).abs() < 1e-15);
        assert!((sred_p3(0.15, 1.0 / 128.0, true) - 0.0375 * 129.0).abs() < 1e-12);
        assert!((sred_p3(0.1, 0.01, false) - 0.1 / 6.5536).abs() < 1e-12, "(256 P)^2, not 256 P^2");
        assert_eq!(sred_p3(0.15, 0.0, true), 0.15, "while P = 0, Hit/P counts 0");
    }

    #[test]
    fn hit_frequency_estimates_the_number_of_equal_rate_flows() {
        for n in [5u32, 20, 100] {
            let p = ZombieParams { zombies: 1000, alpha: 0.001, ..ZP };
            let mut zl = ZombieList::new(&p, n as usize);
            let mut rng = SimRng::from_seed(n as u64);
            let (mut sum, mut k) = (0.0, 0);
            for t in 0..400_000u64 {
                let flow = rng.below(n as usize) as u32;
                zl.observe(flow, SimTime(t), &mut rng);
                if t >= 100_000 {
                    sum += zl.hit_rate();
                    k += 1;
                }
            }
            let estimate = k as f64 / sum;
            assert!((estimate / n as f64 - 1.0).abs() < 0.05, "{n} flows estimated as {estimate:.1}");
        }
    }

    #[test]
    fn drop_probability_steps_at_b_over_6_and_b_over_3() {
        // B = 60, p_max = 1; a long list stays in its fill phase, so P = 0 and p = p1.
        let p = Params { limit: Limit::Packets(60), p_max: 1.0, zombies: ZombieParams { zombies: 100_000, ..ZP } };
        let mut h = Harness::new(Sred::new(&p, &link(4)), 1);
        for k in 0..10 {
            assert_eq!(h.offer(k % 2, 100), Verdict::Enqueued, "q < B/6: p1 = 0");
        }
        while h.q.len() < 15 {
            h.offer(0, 100);
        }
        // Held at q = 15 (one departure per admission): p1 = p_max / 4.
        let mut early = 0;
        for k in 0..4000 {
            match h.offer(k % 4, 100) {
                Verdict::Enqueued => {
                    h.serve();
                }
                _ => early += 1,
            }
        }
        assert!((early as f64 / 4000.0 - 0.25).abs() < 0.03, "{early}");
        while h.q.len() < 20 {
            h.offer(0, 100);
        }
        for k in 0..50 {
            assert_eq!(h.offer(k % 4, 100), Verdict::Dropped(DropReason::Early), "q >= B/3: p1 = p_max = 1");
        }
    }

    #[test]
    fn keeps_the_contract_on_a_line() {
        let p = Params { limit: Limit::Packets(30), p_max: 0.15, zombies: ZombieParams { zombies: 20, ..ZP } };
        let (sent, refused, evicted) = super::super::conformance::hammer(|l| Sred::new(&p, l), 1);
        assert!(sent > 1000 && refused > 100 && evicted == 0, "{sent} {refused} {evicted}");
    }

    #[test]
    fn random_operations_keep_the_contract() {
        let cases = [
            Params { limit: Limit::Packets(24), p_max: 0.5, zombies: ZombieParams { zombies: 8, ..ZP } },
            Params {
                limit: Limit::Bytes(20_000),
                p_max: 0.15,
                zombies: ZombieParams { zombies: 3, fill: FillRule::Compare, ..ZP },
            },
        ];
        for (seed, p) in cases.into_iter().enumerate() {
            let mut h = Harness::new(Sred::new(&p, &link(6)), seed as u64);
            hammer(&mut h, 20_000, 6, seed as u64);
        }
    }
}
