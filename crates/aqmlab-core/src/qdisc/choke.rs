//! CHOKe ("CHOose and Keep for responsive flows, CHOose and Kill for unresponsive flows"): RED
//! with a stateless fairness test. An arrival is compared with packets drawn at random from
//! the FIFO; if one belongs to the same flow, both go. Defined in R. Pan, B. Prabhakar and
//! K. Psounis, "CHOKe: a stateless active queue management scheme for approximating fair
//! bandwidth allocation", IEEE INFOCOM 2000 (Sec. II-A, Fig. 1; variants in Sec. III-C, IV).
//!
//! On every arrival (Fig. 1):
//! 1. update RED's average (with its idle-time correction, [`RedCore`]);
//! 2. avg < min_th: admit;
//! 3. otherwise draw `candidates` packets uniformly from the FIFO and compare their flow with
//!    the arrival's: every matching candidate and the arrival are dropped (reason `match`);
//! 4. no match: RED decides (early drop with count-spaced p_a; avg >= max_th: forced drop,
//!    after the comparison, "to bring the queue occupancy back below max_th as fast as
//!    possible");
//! 5. an admitted packet that does not fit in `limit` is dropped (overflow).
//!
//! Variants (Sec. III-C, IV):
//! - "CHOKe with drop k" is `candidates = k - 1`; basic CHOKe is drop 2, `candidates = 1`;
//! - self-adjusting CHOKe, `regions = k`: [min_th, max_th] is split into k equal regions and
//!   region i uses m(i) candidates. The paper is inconsistent: Sec. II-A proposes "m = 2i"
//!   candidates, Sec. III-C (which produced Fig. 10) "2i drops", i.e. 2i - 1 candidates, and
//!   k is never given. Default `region_rule = "drops_2i"` (Sec. III-C: with k = 3 the
//!   candidates are 1, 3, 5, our reading of Fig. 10); `"candidates_2i"` gives 2, 4, 6.
//!   `regions` defaults to 1 (basic CHOKe); write `regions = 3` for Fig. 10. Above max_th m
//!   stays at region k's value (footnote 7);
//! - `variant = "front"` (Sec. IV-A's analysed model): the arrival is compared with the head
//!   of the queue, which in the model is the packet in service; a match drops it, aborting
//!   its transmission. When the line is idle the queue is empty and the arrival is admitted;
//! - `drop_bit = true` (Sec. II-A's implementation: "we propose to add one extra bit to the
//!   packet header. The bit is set to one if the drop candidate is to be dropped. When a packet
//!   advances to the head of the FIFO buffer, the status of this bit determines whether it is
//!   to be immediately discarded or transmitted"): a matching candidate is marked, not
//!   removed; it keeps its place (and counts in the queue and RED's average) until it reaches
//!   the head, where it is discarded (reason `match`, counted then). A marked packet can be
//!   drawn again: it still matches its flow's arrivals, which are dropped, and stays marked;
//! - `variant = "back"` with `memory = M` (Sec. IV-B): "Mloc" holds the flows of the M most
//!   recently admitted packets; an arrival whose flow is in Mloc is dropped, even into an empty
//!   queue; otherwise it is admitted and its flow pushed into Mloc (the oldest falls out).
//!
//! Flow identity is `Packet::flow`, the scenario's flow index (a TCP flow's data and ACKs
//! share it but use opposite link directions, so never meet in one queue).
//!
//! With `min_th = 0`, `max_p = 0`, a very large `max_th` and `limit = "unbounded"` every
//! arrival is compared and nothing else drops: the paper's analytic queue models exactly.
//!
//! Deviations from the paper (its open choices, with ours):
//! - candidates are drawn with replacement (`replacement = true`); a packet drawn twice is
//!   dropped once. The packet being transmitted is never a candidate in the random variant
//!   (it has left the FIFO), and an empty FIFO means no comparison;
//! - a match drop restarts RED's count, like any drop of the arrival
//!   (`match_resets_count = true`);
//! - w_q, max_p and wait are not given in the paper: ns-2 era defaults (0.002, 0.1, true);
//! - the comparison is made when avg >= min_th (the paper: "greater than min_th"); the
//!   forced zone starts at avg >= max_th (F&J 1993);
//! - above max_th the arrival is still compared (`forced_compare = "always"`), as Sec. II-A
//!   says ("we still compare and drop packets from the queue when the queue size is above the
//!   max_th"); `"queue_above_max_th"` reads its "queue size" as the queue's own length (compare
//!   only while more than max_th packets wait), `"never"` drops the arrival alone, as RED;
//! - no ECN: CHOKe drops (the paper's hardware drop bit only changes buffer occupancy).
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 380 or so.

use serde::Serialize;

use super::fifo::Fifo;
use super::red::{RedAction, RedCore, RedParams, RedZone};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Fields, Limit, Result};
use crate::packet::{PacketArena, PacketId};
use crate::rng::SimRng;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "choke",
    aliases: &[],
    summary:
        "CHOKe (Pan, Prabhakar & Psounis 2000): RED plus dropping arrivals that match random packets of the queue.",
    read: |f| Params::read(f).map(QdiscParams::Choke),
};

/// Most candidates drawn per arrival (and so at most half as many regions).
pub const MAX_CANDIDATES: u32 = 1000;
/// Largest Mloc of the back variant.
pub const MAX_MEMORY: u32 = 1_000_000;

choice_enum! {
    /// Which packet(s) the arrival is compared with.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Variant {
        /// Original CHOKe: candidates drawn at random from the FIFO.
        Random = "random",
        /// Front CHOKe: the head of the queue (the packet in service when there is one).
        Front = "front",
        /// Back CHOKe: the flows of the last `memory` admitted packets (Mloc).
        Back = "back",
    }
}

choice_enum! {
    /// Whether an arrival is still compared once RED's average is at or above max_th (where
    /// the arrival itself is dropped in any case). Sec. II-A: "In order to bring the queue
    /// occupancy back to below max_th as fast as possible, we still compare and drop packets
    /// from the queue when the queue size is above the max_th".
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ForcedCompare {
        /// Every arrival is compared ("queue size" read as the average that defines the zone).
        Always = "always",
        /// Only while the instantaneous queue holds more than max_th packets ("queue size"
        /// read as the queue's own length).
        QueueAboveMaxTh = "queue_above_max_th",
        /// Never: the forced zone drops the arrival only, as RED does (the reading the
        /// sentence above rules out; a bound for the demonstration).
        Never = "never",
    }
}

choice_enum! {
    /// How self-adjusting CHOKe maps region i (1-based) to a number of candidates.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum RegionRule {
        /// Sec. III-C: 2i drops, so 2i - 1 candidates.
        Drops2i = "drops_2i",
        /// Sec. II-A: m = 2i candidates.
        Candidates2i = "candidates_2i",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    #[serde(flatten)]
    pub red: RedParams,
    pub variant: Variant,
    pub candidates: u32,
    pub replacement: bool,
    pub regions: u32,
    pub region_rule: RegionRule,
    pub memory: u32,
    pub match_resets_count: bool,
    pub drop_bit: bool,
    pub forced_compare: ForcedCompare,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "physical buffer: an admitted packet that does not fit is dropped (overflow)",
        )?;
        let red = RedParams::read(f)?;
        red.check_against_limit(f, limit)?;
        let variant = f.choice(
            "variant",
            Variant::Random,
            "compare with random packets of the queue (CHOKe), the head of the queue / packet in service (front CHOKe model), or the last admitted flows (back CHOKe model, see memory)",
        )?;
        let candidates: u32 = f.or(
            "candidates",
            1u32,
            "drop candidates drawn per arrival (\"CHOKe with drop k\" has k - 1); random variant",
        )?;
        f.ensure(candidates >= 1, "candidates", "must be at least 1")?;
        // Every arrival draws this many: a typo's billions would stall the run.
        f.ensure(
            candidates <= MAX_CANDIDATES,
            "candidates",
            format!("{candidates} is more than {MAX_CANDIDATES} draws per arrival"),
        )?;
        let replacement: bool =
            f.or("replacement", true, "draw candidates with replacement (false: distinct packets)")?;
        let regions: u32 = f.or("regions", 1u32, "self-adjusting CHOKe: split [min_th, max_th] into this many regions, more candidates in higher ones (1: off; the paper's Fig. 10 is read as 3)")?;
        f.ensure(regions >= 1, "regions", "must be at least 1")?;
        f.ensure(
            regions <= MAX_CANDIDATES / 2,
            "regions",
            format!("{regions} regions would draw more than {MAX_CANDIDATES} candidates per arrival"),
        )?;
        f.ensure(
            regions == 1 || candidates == 1,
            "candidates",
            "is set by region_rule when regions > 1: leave it out",
        )?;
        let region_rule = f.choice(
            "region_rule",
            RegionRule::Drops2i,
            "candidates in region i of self-adjusting CHOKe: 2i - 1 (2i drops, Sec. III-C) or 2i (Sec. II-A)",
        )?;
        f.ensure(regions == 1 || variant == Variant::Random, "regions", "applies to the random variant only")?;
        let memory: u32 = f.or(
            "memory",
            1u32,
            "back variant: Mloc holds the flows of this many most recently admitted packets (0 admits everything)",
        )?;
        f.ensure(memory <= MAX_MEMORY, "memory", format!("{memory} is more than {MAX_MEMORY} remembered packets"))?;
        let match_resets_count: bool =
            f.or("match_resets_count", true, "a match drop restarts RED's count of packets since the last drop")?;
        let drop_bit: bool = f.or(
            "drop_bit",
            false,
            "mark a matching candidate and discard it when it reaches the head (the paper's Sec. II-A implementation) instead of removing it at once; random variant",
        )?;
        f.ensure(!drop_bit || variant == Variant::Random, "drop_bit", "applies to the random variant only")?;
        let forced_compare = f.choice(
            "forced_compare",
            ForcedCompare::Always,
            "whether arrivals are still compared when the average is at or above max_th: always (Sec. II-A), only while the queue itself holds more than max_th packets, or never",
        )?;
        Ok(Params {
            limit,
            red,
            variant,
            candidates,
            replacement,
            regions,
            region_rule,
            memory,
            match_resets_count,
            drop_bit,
            forced_compare,
        })
    }
}

/// Candidates for average `avg`: `candidates` for basic CHOKe, the region's for
/// self-adjusting CHOKe (region k above max_th).
pub fn candidates_at(p: &Params, avg: f64) -> usize {
    if p.regions <= 1 {
        return p.candidates as usize;
    }
    let k = p.regions as f64;
    let x = ((avg - p.red.min_th) / (p.red.max_th - p.red.min_th)).max(0.0);
    // In floating point until clamped: with max_th - min_th tiny, x * k overflows any integer.
    let i = ((x * k).floor() + 1.0).min(k) as usize;
    match p.region_rule {
        RegionRule::Drops2i => 2 * i - 1,
        RegionRule::Candidates2i => 2 * i,
    }
}

/// Draw `m` positions of a FIFO of `len` packets (with or without replacement) and put the
/// ones whose packet belongs to `flow` in `out`, highest position first, each once.
pub fn matching_candidates(
    fifo: &Fifo,
    pkts: &PacketArena,
    flow: u32,
    m: usize,
    replacement: bool,
    rng: &mut SimRng,
    out: &mut Vec<usize>,
) {
    out.clear();
    let len = fifo.len();
    if len == 0 {
        return;
    }
    let is_match = |i: usize| fifo.get(i).is_some_and(|id| pkts[id].flow == flow);
    if replacement {
        for _ in 0..m {
            let i = rng.below(len);
            if is_match(i) {
                out.push(i);
            }
        }
    } else if m >= len {
        out.extend((0..len).filter(|&i| is_match(i)));
    } else {
        // m distinct positions by rejection (m is small next to the queue).
        while out.len() < m {
            let i = rng.below(len);
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out.retain(|&i| is_match(i));
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    out.dedup();
}

pub struct Choke {
    p: Params,
    core: RedCore,
    fifo: Fifo,
    /// Back variant: flows of the last `memory` admitted packets, oldest first.
    mloc: std::collections::VecDeque<u32>,
    scratch: Vec<usize>,
    /// With `drop_bit`: queued packets marked for discarding at the head.
    marked: std::collections::HashSet<PacketId>,
}

impl Choke {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        Choke {
            p: *p,
            core: RedCore::new(&p.red, link),
            fifo: Fifo::new(),
            mloc: std::collections::VecDeque::with_capacity(p.memory as usize),
            scratch: Vec::new(),
            marked: std::collections::HashSet::new(),
        }
    }

    pub fn avg(&self) -> f64 {
        self.core.avg()
    }

    /// Whether an arrival in RED's `zone` is compared with the queue (see [`ForcedCompare`]).
    fn compares(&self, zone: RedZone) -> bool {
        match zone {
            RedZone::Below => false,
            RedZone::Early { .. } => true,
            RedZone::Forced => match self.p.forced_compare {
                ForcedCompare::Always => true,
                ForcedCompare::QueueAboveMaxTh => self.fifo.len() as f64 > self.p.red.max_th,
                ForcedCompare::Never => false,
            },
        }
    }

    /// Compare the arrival of `flow` as the variant says; matching queued packets go to
    /// `cx.victims`. True when the arrival must be dropped.
    fn compare(&mut self, flow: u32, cx: &mut QdiscCtx) -> bool {
        match self.p.variant {
            Variant::Random => {
                let m = candidates_at(&self.p, self.core.avg());
                matching_candidates(&self.fifo, cx.pkts, flow, m, self.p.replacement, cx.rng, &mut self.scratch);
                for &i in &self.scratch {
                    if self.p.drop_bit {
                        self.marked.insert(self.fifo.get(i).expect("candidate position is in the queue"));
                    } else {
                        let victim = self.fifo.remove(i, cx.pkts).expect("candidate position is in the queue");
                        cx.victims.push((victim, DropReason::Match));
                    }
                }
                !self.scratch.is_empty()
            }
            Variant::Front => match cx.in_service {
                Some(head) if cx.pkts[head].flow == flow => {
                    // The engine aborts the transmission of a victim in service.
                    cx.victims.push((head, DropReason::Match));
                    true
                }
                Some(_) => false,
                None => match self.fifo.front() {
                    Some(head) if cx.pkts[head].flow == flow => {
                        let victim = self.fifo.pop(cx.pkts).expect("head exists");
                        cx.victims.push((victim, DropReason::Match));
                        true
                    }
                    _ => false,
                },
            },
            Variant::Back => self.mloc.contains(&flow),
        }
    }
}

impl QueueDisc for Choke {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let flow = cx.pkts[pkt].flow;
        let idle = self.fifo.is_empty() && cx.in_service.is_none();
        self.core.update_avg(cx.now, self.fifo.len(), idle);
        if self.compares(self.core.zone()) && self.compare(flow, cx) {
            if self.p.match_resets_count {
                self.core.reset_count();
            }
            return Verdict::Dropped(DropReason::Match);
        }
        match self.core.decide(cx.rng) {
            RedAction::Admit => {}
            RedAction::Early => return Verdict::Dropped(DropReason::Early),
            RedAction::Forced => return Verdict::Dropped(DropReason::Forced),
        }
        if self.fifo.overflows(self.p.limit, cx.pkts[pkt].size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(pkt, cx.pkts);
        if self.p.variant == Variant::Back && self.p.memory > 0 {
            if self.mloc.len() == self.p.memory as usize {
                self.mloc.pop_front();
            }
            self.mloc.push_back(flow);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        let mut next = self.fifo.pop(cx.pkts);
        while let Some(head) = next.filter(|id| self.marked.remove(id)) {
            cx.victims.push((head, DropReason::Match));
            next = self.fifo.pop(cx.pkts);
        }
        if next.is_none() {
            self.core.went_idle(cx.now);
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
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("avg", self.core.avg()));
    }

    fn may_drop_in_service(&self) -> bool {
        self.p.variant == Variant::Front
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
    use crate::packet::Packet;

    /// Every arrival is compared and RED never drops: the thresholds of the analytic models.
    const MODEL: RedParams = RedParams { w_q: 0.002, min_th: 0.0, max_th: 1e9, max_p: 0.0, wait: true, gentle: false };

    const BASE: Params = Params {
        limit: Limit::Unbounded,
        red: MODEL,
        variant: Variant::Random,
        candidates: 1,
        replacement: true,
        regions: 1,
        region_rule: RegionRule::Drops2i,
        memory: 1,
        match_resets_count: true,
        drop_bit: false,
        forced_compare: ForcedCompare::Always,
    };

    fn choke(p: Params) -> Harness<Choke> {
        Harness::new(Choke::new(&p, &link(16)), 5)
    }

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn reads_defaults_and_the_model_settings() {
        let p = read("").unwrap();
        assert_eq!((p.variant, p.candidates, p.replacement, p.regions, p.memory), (Variant::Random, 1, true, 1, 1));
        assert!(p.match_resets_count);
        let p =
            read("variant = \"back\"\nmemory = 3\nmin_th = 0\nmax_p = 0\nmax_th = 1e9\nlimit = \"unbounded\"").unwrap();
        assert_eq!((p.variant, p.memory, p.limit), (Variant::Back, 3, Limit::Unbounded));
        assert!(read("variant = \"middle\"").unwrap_err().message.contains("not allowed"));
        assert!(read("regions = 3\ncandidates = 2").unwrap_err().message.contains("region_rule"));
        assert!(read("candidates = 0").is_err());
    }

    #[test]
    fn a_tiny_threshold_gap_puts_the_average_in_the_top_region() {
        // Found by fuzzing: with min_th 0 and max_th 1e-300 the region index overflowed (a
        // panic with overflow checks; in release, usize::MAX candidates per arrival: a hang).
        let p = Params { red: RedParams { min_th: 0.0, max_th: 1e-300, ..MODEL }, regions: 100, ..BASE };
        assert_eq!([0.0, 1e-301, 5.0, f64::MAX].map(|a| candidates_at(&p, a)), [1, 21, 199, 199]);
    }

    #[test]
    fn self_adjusting_regions_use_one_three_five_candidates() {
        let p = Params { red: RedParams { min_th: 30.0, max_th: 60.0, ..MODEL }, regions: 3, ..BASE };
        assert_eq!(
            [29.0, 30.0, 39.9, 40.0, 50.0, 59.9, 60.0, 500.0].map(|a| candidates_at(&p, a)),
            [1, 1, 1, 3, 5, 5, 5, 5]
        );
        let p = Params { region_rule: RegionRule::Candidates2i, ..p };
        assert_eq!([35.0, 45.0, 55.0].map(|a| candidates_at(&p, a)), [2, 4, 6]);
        assert_eq!(candidates_at(&Params { candidates: 4, ..BASE }, 100.0), 4);
    }

    #[test]
    fn arrival_matching_the_only_queued_flow_drops_both() {
        let mut h = choke(BASE);
        assert_eq!(h.offer(3, 500), Verdict::Enqueued);
        assert_eq!(h.offer(3, 500), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.dropped, vec![(3, DropReason::Match), (3, DropReason::Match)]);
        assert!(h.q.is_empty());
        assert_eq!(h.q.bytes(), 0);
    }

    /// Three packets of flow 5 queued below min_th, then the average pinned in the forced zone
    /// (above max_th = 2; w_q so small that the arrivals do not move it).
    fn forced_with_three_of_flow_5(forced_compare: ForcedCompare) -> Harness<Choke> {
        let red = RedParams { w_q: 1e-12, min_th: 1.0, max_th: 2.0, max_p: 0.0, wait: true, gentle: false };
        let mut h = choke(Params { red, forced_compare, ..BASE });
        for _ in 0..3 {
            assert_eq!(h.offer(5, 500), Verdict::Enqueued);
        }
        h.q.core.pin_avg(10.0);
        h
    }

    #[test]
    fn in_the_forced_zone_the_arrival_is_compared_as_the_reading_says() {
        // Always (Sec. II-A): the arrival still draws a candidate, here surely of its flow.
        let mut h = forced_with_three_of_flow_5(ForcedCompare::Always);
        assert_eq!(h.offer(5, 500), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.q.len(), 2);
        assert_eq!(h.offer(5, 500), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.q.len(), 1);
        // While the queue itself holds more than max_th: 3 > 2 compares, 2 does not.
        let mut h = forced_with_three_of_flow_5(ForcedCompare::QueueAboveMaxTh);
        assert_eq!(h.offer(5, 500), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.q.len(), 2);
        assert_eq!(h.offer(5, 500), Verdict::Dropped(DropReason::Forced));
        assert_eq!(h.q.len(), 2);
        // Never: the arrival alone goes, as in RED.
        let mut h = forced_with_three_of_flow_5(ForcedCompare::Never);
        assert_eq!(h.offer(5, 500), Verdict::Dropped(DropReason::Forced));
        assert_eq!((h.q.len(), h.dropped.len()), (3, 1));
    }

    #[test]
    fn forced_compare_is_read_and_checked() {
        assert_eq!(read("").unwrap().forced_compare, ForcedCompare::Always);
        assert_eq!(read("forced_compare = \"queue_above_max_th\"").unwrap().forced_compare, ForcedCompare::QueueAboveMaxTh);
        let e = read("forced_compare = \"sometimes\"").unwrap_err().to_string();
        assert!(e.contains("forced_compare") && e.contains("queue_above_max_th, never"), "{e}");
    }

    #[test]
    fn with_the_drop_bit_a_matched_candidate_stays_until_the_head_and_is_discarded_there() {
        let mut h = choke(Params { drop_bit: true, ..BASE });
        assert_eq!(h.offer(3, 500), Verdict::Enqueued);
        assert_eq!(h.offer(3, 500), Verdict::Dropped(DropReason::Match));
        // Only the arrival went; the candidate is marked and keeps its place.
        assert_eq!(h.dropped, vec![(3, DropReason::Match)]);
        assert_eq!((h.q.len(), h.q.bytes()), (1, 500));
        // Drawn again, it still matches: the arrival goes, the candidate is not dropped twice.
        assert_eq!(h.offer(3, 500), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.dropped.len(), 2);
        assert_eq!(h.offer(7, 100), Verdict::Enqueued);
        // At the head the marked packet is discarded and the next one leaves.
        assert_eq!(h.serve(), Some(7));
        assert_eq!(h.dropped, vec![(3, DropReason::Match); 3]);
        assert!(h.q.is_empty());
        assert_eq!(h.serve(), None);
        assert!(read("drop_bit = true\nvariant = \"front\"").unwrap_err().message.contains("random variant"));
    }

    #[test]
    fn arrival_of_another_flow_leaves_the_candidate_in_place() {
        let mut h = choke(BASE);
        for f in [1, 2, 3] {
            assert_eq!(h.offer(f, 100), Verdict::Enqueued);
        }
        assert_eq!(h.offer(4, 100), Verdict::Enqueued);
        assert_eq!(h.drain_flows(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn single_candidate_matches_with_the_flows_share_of_the_queue() {
        // Queue: 1 packet of flow 7 among 4; a flow-7 arrival matches with probability 1/4.
        let mut matches = 0;
        for seed in 0..4000 {
            let mut h = Harness::new(Choke::new(&BASE, &link(16)), seed);
            for f in [1, 7, 2, 3] {
                h.offer(f, 100);
            }
            if h.offer(7, 100) == Verdict::Dropped(DropReason::Match) {
                matches += 1;
                assert_eq!(h.drain_flows(), vec![1, 2, 3], "the matching packet is the one removed");
            }
        }
        assert!((matches as f64 / 4000.0 - 0.25).abs() < 0.025, "{matches}");
    }

    #[test]
    fn several_candidates_drop_every_match_once() {
        // Without replacement and more candidates than packets, every packet is compared.
        // (w_q = 1 and min_th = 5: the first five arrivals are not compared.)
        let red = RedParams { w_q: 1.0, min_th: 5.0, ..MODEL };
        let mut h = choke(Params { red, candidates: 10, replacement: false, ..BASE });
        for f in [5, 1, 5, 2, 5] {
            assert_eq!(h.offer(f, 100), Verdict::Enqueued);
        }
        assert_eq!(h.offer(5, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.dropped.iter().filter(|d| d.1 == DropReason::Match).count(), 4);
        assert_eq!(h.drain_flows(), vec![1, 2]);
        // With replacement a packet drawn twice is dropped once: a lone packet, 3 draws.
        let mut h = choke(Params { candidates: 3, ..BASE });
        h.offer(9, 100);
        assert_eq!(h.offer(9, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.dropped.len(), 2);
    }

    #[test]
    fn matching_candidates_come_back_highest_position_first() {
        let mut pkts = PacketArena::new();
        let mut fifo = Fifo::new();
        for f in [1, 2, 1, 1, 3] {
            let id = pkts.alloc(Packet::data(f, 0, 1, 100));
            fifo.push(id, &pkts);
        }
        let mut out = vec![];
        matching_candidates(&fifo, &pkts, 1, 5, false, &mut SimRng::from_seed(1), &mut out);
        assert_eq!(out, vec![3, 2, 0]);
        matching_candidates(&fifo, &pkts, 1, 200, true, &mut SimRng::from_seed(1), &mut out);
        assert_eq!(out, vec![3, 2, 0]);
        matching_candidates(&fifo, &pkts, 4, 200, true, &mut SimRng::from_seed(1), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn below_min_th_nothing_is_compared() {
        let mut h = choke(Params { red: RedParams { w_q: 1.0, min_th: 3.0, max_th: 10.0, ..MODEL }, ..BASE });
        for _ in 0..3 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
        // avg = 3 = min_th: from now on, compare.
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Match));
    }

    #[test]
    fn above_max_th_compares_then_forces() {
        let p = Params { red: RedParams { w_q: 1.0, min_th: 0.0, max_th: 2.0, max_p: 0.0, ..MODEL }, ..BASE };
        let mut h = choke(p);
        h.offer(1, 100);
        h.offer(2, 100);
        // avg = 2 = max_th; flow 3 matches nothing: forced drop.
        assert_eq!(h.offer(3, 100), Verdict::Dropped(DropReason::Forced));
        let mut h = choke(Params { candidates: 10, replacement: false, ..p });
        h.offer(1, 100);
        h.offer(2, 100);
        // The comparison comes first: flow 2 matches, and only then would RED force.
        assert_eq!(h.offer(2, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.drain_flows(), vec![1]);
    }

    #[test]
    fn full_buffer_drops_the_arrival_as_overflow() {
        let mut h = choke(Params { limit: Limit::Packets(2), ..BASE });
        h.offer(1, 100);
        h.offer(2, 100);
        assert_eq!(h.offer(3, 100), Verdict::Dropped(DropReason::Overflow));
    }

    #[test]
    fn front_variant_compares_with_the_head_when_the_line_is_idle() {
        let mut h = choke(Params { variant: Variant::Front, ..BASE });
        for f in [1, 2, 3] {
            assert_eq!(h.offer(f, 100), Verdict::Enqueued);
        }
        // Flow 2 is queued, but not at the head.
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.drain_flows(), vec![2, 3, 2]);
    }

    #[test]
    fn front_variant_matches_the_packet_in_service() {
        let mut h = choke(Params { variant: Variant::Front, ..BASE });
        h.in_service = Some(h.pkts.alloc(Packet::data(4, 0, 1, 100)));
        assert_eq!(h.offer(5, 100), Verdict::Enqueued);
        // The head of the model's queue is the packet in service, not the first one waiting.
        assert_eq!(h.offer(5, 100), Verdict::Enqueued);
        assert_eq!(h.offer(4, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.dropped, vec![(4, DropReason::Match), (4, DropReason::Match)]);
        assert_eq!(h.in_service, None, "its transmission is aborted");
        assert_eq!(h.drain_flows(), vec![5, 5]);
    }

    #[test]
    fn back_variant_remembers_the_last_admitted_flows() {
        let mut h = choke(Params { variant: Variant::Back, memory: 2, ..BASE });
        assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Match));
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Match), "Mloc = (1, 2)");
        assert_eq!(h.offer(3, 100), Verdict::Enqueued);
        assert_eq!(h.offer(1, 100), Verdict::Enqueued, "Mloc = (2, 3): flow 1 fell out");
        // Nothing is taken from the queue, and an empty queue does not help.
        h.drain_flows();
        assert_eq!(h.offer(3, 100), Verdict::Dropped(DropReason::Match), "Mloc = (3, 1)");
        assert!(h.dropped.iter().all(|d| d.1 == DropReason::Match) && h.dropped.len() == 3);
    }

    #[test]
    fn back_variant_without_memory_admits_everything() {
        let mut h = choke(Params { variant: Variant::Back, memory: 0, ..BASE });
        for _ in 0..10 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
    }

    #[test]
    fn match_restarts_reds_count_unless_told_otherwise() {
        for resets in [true, false] {
            let red = RedParams { w_q: 1.0, min_th: 0.0, max_th: 100.0, max_p: 0.0, wait: false, gentle: false };
            let mut h = choke(Params { red, match_resets_count: resets, ..BASE });
            h.offer(1, 100);
            h.offer(2, 100);
            h.offer(3, 100);
            assert_eq!(h.q.core.count(), 3);
            // A lone flow-9 packet at the head would only match flow 9: queue it, then match.
            let mut h2 = choke(Params { red, match_resets_count: resets, ..BASE });
            h2.offer(9, 100);
            assert_eq!(h2.q.core.count(), 1);
            assert_eq!(h2.offer(9, 100), Verdict::Dropped(DropReason::Match));
            assert_eq!(h2.q.core.count(), if resets { 0 } else { 1 });
        }
    }

    #[test]
    fn keeps_the_contract_on_a_line() {
        // The shared conformance driver puts a packet on the wire: front CHOKe aborts it.
        let red = RedParams { w_q: 0.02, min_th: 2.0, max_th: 10.0, max_p: 0.1, wait: true, gentle: false };
        for (seed, p) in [
            (1, Params { limit: Limit::Packets(20), red, ..BASE }),
            (2, Params { limit: Limit::Bytes(12_000), red, candidates: 3, ..BASE }),
            (3, Params { limit: Limit::Packets(20), red, variant: Variant::Front, ..BASE }),
            (4, Params { limit: Limit::Packets(20), red, variant: Variant::Back, memory: 2, ..BASE }),
            (5, Params { variant: Variant::Front, ..BASE }),
        ] {
            let (sent, refused, evicted) = super::super::conformance::hammer(|l| Choke::new(&p, l), seed);
            assert!(sent > 1000 && refused > 100, "{sent} {refused}");
            assert_eq!(evicted > 0, p.variant != Variant::Back, "victims: {evicted}");
        }
    }

    #[test]
    fn random_operations_keep_the_contract() {
        let red = RedParams { w_q: 0.05, min_th: 2.0, max_th: 10.0, max_p: 0.1, wait: true, gentle: false };
        let cases = [
            Params { limit: Limit::Packets(15), red, ..BASE },
            Params { limit: Limit::Bytes(9000), red, candidates: 3, replacement: false, ..BASE },
            Params { limit: Limit::Packets(30), red, regions: 3, ..BASE },
            Params { limit: Limit::Packets(20), red, variant: Variant::Front, ..BASE },
            Params { limit: Limit::Packets(20), red, variant: Variant::Back, memory: 2, ..BASE },
            Params { limit: Limit::Unbounded, ..BASE },
        ];
        for (seed, p) in cases.into_iter().enumerate() {
            let mut h = choke(p);
            hammer(&mut h, 20_000, 4, seed as u64);
        }
    }
}
