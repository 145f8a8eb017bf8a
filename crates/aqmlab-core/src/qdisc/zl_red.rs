//! ZL-RED, Zombie Listed RED: SRED whose zombie list also identifies misbehaving flows (those
//! with more than the mean count in the list) and drops their packets more often, keeping
//! the overall drop rate near SRED's. Defined in K. Kurata, G. Hasegawa and M. Murata, "More
//! Results on ZL-RED for fairness enhancement between TCP Reno and Vegas" (IEICE technical
//! report, c. 2000), Sec. 3, eq. (4)-(8).
//!
//! On every arrival of flow f (SRED's zombie list and P(t): [`ZombieList`]):
//! 1. eq. (7): p1' = 0 if q < th_min, p_max/4 if th_min <= q < B/3, p_max if q >= B/3
//!    (th_min a constant instead of SRED's B/6); p3 from p1' by SRED's eq. (2)-(3);
//! 2. T = sum of every zombie's count, F = sum of the counts of f's zombies;
//!    eq. (4)/(8): f is misbehaving if F > a T P(t) (T P(t) is the mean count per flow;
//!    a = 1 is ZL-RED, the paper also tries 2 and 4);
//! 3. misbehaving: eq. (5) p4 = p3 F / (T P(t)), eq. (6) p5 = p4 p3 / P_avg(t), with P_avg(t)
//!    "the average drop probability so far"; others keep p3;
//!
//! Eq. (8) as printed only raises the bar for being misbehaving, while the paper's text says a
//! larger a makes the misbehaving flows' drop rate, and the overall loss, larger. `a_reading`
//! chooses how a applies: `threshold` (as printed, F > a T P(t)), `factor` (eq. (4) unchanged,
//! a multiplies eq. (5)'s increase: p4 = a p3 F / (T P(t))) or `divided` (the threshold divided,
//! F > T P(t) / a); `normalise = false` leaves out eq. (6);
//! 4. drop the arrival with that probability (reason `early`); overflow is a tail drop.
//!
//! Traced gauges: `hit_rate`, `flows_estimate` (as SRED) and `p_avg` (P_avg(t)).
//!
//! Deviations from the paper (its open choices, with ours):
//! - P_avg(t) (`p_avg`): by default the running mean of the final drop probability over every
//!   arrival since the start ("mean_final"); "mean_p3" averages p3 instead, and "ema_final",
//!   "ema_p3" are exponential averages with gain `p_avg_gain` (default 0.001, our choice: the
//!   paper gives no averaging rule). The value before the current arrival is used; while it
//!   is 0 the factor p3/P_avg is left out (taken as 1);
//! - eq. (5)-(6) apply to misbehaving packets only; probabilities are clamped to [0, 1];
//! - F and T are read after the arrival has updated the list (a hit has counted);
//! - P(t), the fill phase, q and B as in SRED (`sred.rs`); th_min defaults to 5 packets.

use serde::Serialize;

use super::fifo::Fifo;
use super::sred::{buffer_packets, require_finite_buffer, sred_p3, staircase, ZombieList, ZombieParams};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Fields, Limit, Prob, Result};
use crate::packet::PacketId;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "zl_red",
    aliases: &["zlred"],
    summary:
        "ZL-RED (Kurata, Hasegawa & Murata 2000): SRED that drops more from flows with above-average zombie counts.",
    read: |f| Params::read(f).map(QdiscParams::ZlRed),
};

choice_enum! {
    /// How the constant a of eq. (8) applies.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum AReading {
        /// As printed: misbehaving when F > a T P(t).
        Threshold = "threshold",
        /// Eq. (4) unchanged; a multiplies eq. (5)'s increase, p4 = a p3 F / (T P(t)).
        Factor = "factor",
        /// The threshold divided: misbehaving when F > T P(t) / a.
        Divided = "divided",
    }
}

choice_enum! {
    /// What P_avg(t), the "average drop probability so far" of eq. (6), averages and how.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum PavgRule {
        /// Running mean of the final drop probability of every arrival.
        MeanFinal = "mean_final",
        /// Running mean of p3 (SRED's probability) of every arrival.
        MeanP3 = "mean_p3",
        /// EMA of the final drop probability.
        EmaFinal = "ema_final",
        /// EMA of p3.
        EmaP3 = "ema_p3",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    pub p_max: f64,
    pub th_min: f64,
    pub a: f64,
    pub a_reading: AReading,
    /// Whether eq. (6) scales a misbehaving flow's probability by p3 / P_avg(t).
    pub normalise: bool,
    pub p_avg: PavgRule,
    pub p_avg_gain: f64,
    #[serde(flatten)]
    pub zombies: ZombieParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "buffer B: p_max from B/3; an admitted packet that does not fit is dropped (overflow)",
        )?;
        require_finite_buffer(f, limit)?;
        let p_max: Prob =
            f.or("p_max", Prob(0.15), "drop probability at a queue of B/3 or more (p_max/4 from th_min)")?;
        let th_min: f64 = f.or("th_min", 5.0, "th_min: queue length (packets) where drops start, eq. (7)")?;
        f.ensure(th_min >= 0.0, "th_min", "must not be negative")?;
        let a: f64 = f.or("a", 1.0, "a of eq. (8): a flow is misbehaving when F > a T P(t) (1 is ZL-RED)")?;
        f.ensure(a > 0.0, "a", "must be above 0")?;
        let a_reading = f.choice(
            "a_reading",
            AReading::Threshold,
            "how a applies: threshold F > a T P(t) (eq. (8) as printed), factor a on eq. (5)'s increase, \
             divided F > T P(t) / a",
        )?;
        let normalise: bool =
            f.or("normalise", true, "apply eq. (6), p5 = p4 p3 / P_avg(t), to a misbehaving flow's probability")?;
        let p_avg = f.choice(
            "p_avg",
            PavgRule::MeanFinal,
            "P_avg of eq. (6): running mean or EMA of the final drop probability or of p3, over every arrival",
        )?;
        let p_avg_gain: f64 = f.or("p_avg_gain", 0.001, "gain of P_avg when p_avg is an EMA")?;
        f.ensure(p_avg_gain > 0.0 && p_avg_gain <= 1.0, "p_avg_gain", "must be above 0 and at most 1")?;
        let zombies = ZombieParams::read(f)?;
        Ok(Params { limit, p_max: p_max.0, th_min, a, a_reading, normalise, p_avg, p_avg_gain, zombies })
    }
}

/// Eq. (4)/(8): is a flow with zombie count F misbehaving, given T, P(t) and how a applies?
pub fn misbehaving(f: u64, t: u64, hit_rate: f64, a: f64, reading: AReading) -> bool {
    let mean_count = t as f64 * hit_rate;
    let bar = match reading {
        AReading::Threshold => a * mean_count,
        AReading::Factor => mean_count,
        AReading::Divided => mean_count / a,
    };
    hit_rate > 0.0 && f as f64 > bar
}

/// How a's reading and eq. (6) shape the drop probability of a misbehaving flow.
#[derive(Clone, Copy, Debug)]
pub struct Eq8 {
    pub a: f64,
    pub reading: AReading,
    pub normalise: bool,
}

/// Eq. (5)-(6): the drop probability of an arrival with SRED probability `p3`, zombie counts
/// F and T, hit frequency P(t) and average drop probability `p_avg`; clamped to [0, 1].
pub fn zl_probability(p3: f64, f: u64, t: u64, hit_rate: f64, eq8: Eq8, p_avg: f64) -> f64 {
    let p = if misbehaving(f, t, hit_rate, eq8.a, eq8.reading) {
        let gain = if eq8.reading == AReading::Factor { eq8.a } else { 1.0 };
        let p4 = gain * p3 * f as f64 / (t as f64 * hit_rate);
        if eq8.normalise && p_avg > 0.0 {
            p4 * p3 / p_avg
        } else {
            p4
        }
    } else {
        p3
    };
    p.clamp(0.0, 1.0)
}

/// P_avg(t), kept by its rule.
#[derive(Clone, Debug)]
pub struct DropAverage {
    rule: PavgRule,
    gain: f64,
    sum: f64,
    n: u64,
    ema: f64,
}

impl DropAverage {
    pub fn new(rule: PavgRule, gain: f64) -> Self {
        DropAverage { rule, gain, sum: 0.0, n: 0, ema: 0.0 }
    }

    pub fn value(&self) -> f64 {
        match self.rule {
            PavgRule::MeanFinal | PavgRule::MeanP3 if self.n == 0 => 0.0,
            PavgRule::MeanFinal | PavgRule::MeanP3 => self.sum / self.n as f64,
            PavgRule::EmaFinal | PavgRule::EmaP3 => self.ema,
        }
    }

    /// Fold in one arrival's final probability and p3.
    pub fn record(&mut self, p_final: f64, p3: f64) {
        let x = match self.rule {
            PavgRule::MeanFinal | PavgRule::EmaFinal => p_final,
            PavgRule::MeanP3 | PavgRule::EmaP3 => p3,
        };
        self.sum += x;
        self.n += 1;
        self.ema = (1.0 - self.gain) * self.ema + self.gain * x;
    }
}

pub struct ZlRed {
    p: Params,
    /// B, packets.
    buffer: f64,
    zl: ZombieList,
    p_avg: DropAverage,
    fifo: Fifo,
}

impl ZlRed {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        ZlRed {
            p: p.clone(),
            buffer: buffer_packets(p.limit, link),
            zl: ZombieList::new(&p.zombies, link.n_flows),
            p_avg: DropAverage::new(p.p_avg, p.p_avg_gain),
            fifo: Fifo::new(),
        }
    }

    pub fn zombie_list(&self) -> &ZombieList {
        &self.zl
    }
}

impl QueueDisc for ZlRed {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let flow = cx.pkts[pkt].flow;
        let hit = self.zl.observe(flow, cx.now, cx.rng);
        let hit_rate = self.zl.hit_rate();
        let p1 = staircase(self.fifo.len() as f64, self.p.th_min, self.buffer / 3.0, self.p.p_max);
        let p3 = sred_p3(p1, hit_rate, hit);
        let eq8 = Eq8 { a: self.p.a, reading: self.p.a_reading, normalise: self.p.normalise };
        let p = zl_probability(p3, self.zl.flow_count(flow), self.zl.total_count(), hit_rate, eq8, self.p_avg.value());
        self.p_avg.record(p, p3.min(1.0));
        if cx.rng.chance(p) {
            return Verdict::Dropped(DropReason::Early);
        }
        if self.fifo.overflows(self.p.limit, cx.pkts[pkt].size) {
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
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("hit_rate", self.zl.hit_rate()));
        // No estimate while P = 0, or so close to 0 that 1/P overflows (a subnormal P, after
        // a long run of misses with a large alpha): the series shows a gap, not an infinity.
        let estimate = self.zl.flows_estimate();
        if self.zl.hit_rate() > 0.0 && estimate.is_finite() {
            out.push(("flows_estimate", estimate));
        }
        out.push(("p_avg", self.p_avg.value()));
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
    use super::super::sred::{self, FillRule, Sred};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};
    use crate::rng::SimRng;

    const ZP: ZombieParams =
        ZombieParams { zombies: 1000, p_swap: 0.25, alpha: 0.001, p_init: 0.0, fill: FillRule::Insert };

    const BASE: Params = Params {
        limit: Limit::Packets(300),
        p_max: 0.15,
        th_min: 5.0,
        a: 1.0,
        a_reading: AReading::Threshold,
        normalise: true,
        p_avg: PavgRule::MeanFinal,
        p_avg_gain: 0.001,
        zombies: ZP,
    };

    const PRINTED: Eq8 = Eq8 { a: 1.0, reading: AReading::Threshold, normalise: true };

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn defaults_follow_the_paper_and_our_choices() {
        let p = read("").unwrap();
        assert_eq!((p.p_max, p.th_min, p.a, p.p_avg), (0.15, 5.0, 1.0, PavgRule::MeanFinal));
        assert_eq!(p.zombies.zombies, 1000);
        assert!(read("a = 0").is_err());
        assert!(read("p_avg = \"median\"").is_err());
        assert_eq!((p.a_reading, p.normalise), (AReading::Threshold, true));
        let q = read("a_reading = \"factor\"\nnormalise = false").unwrap();
        assert_eq!((q.a_reading, q.normalise), (AReading::Factor, false));
        assert!(read("a_reading = \"times\"").is_err());
        assert!(read("limit = \"unbounded\"").is_err());
    }

    #[test]
    fn equation_seven_starts_at_th_min() {
        assert_eq!([4.0, 5.0, 99.0, 100.0].map(|q| staircase(q, 5.0, 300.0 / 3.0, 0.15)), [0.0, 0.0375, 0.0375, 0.15]);
    }

    #[test]
    fn a_flow_above_the_mean_count_is_misbehaving() {
        // T = 100 over 10 flows (P = 0.1): mean count 10.
        let t = AReading::Threshold;
        assert!(misbehaving(11, 100, 0.1, 1.0, t));
        assert!(!misbehaving(10, 100, 0.1, 1.0, t));
        assert!(!misbehaving(30, 100, 0.1, 4.0, t), "eq. (8): a = 4 needs F > 40");
        assert!(!misbehaving(5, 0, 0.0, 1.0, t), "P = 0: nothing is known");
    }

    #[test]
    fn the_readings_of_equation_eight_move_the_bar_or_the_increase() {
        // Mean count T P = 10, F = 30, p3 = 0.1, P_avg = 0.05.
        assert!(misbehaving(6, 100, 0.1, 2.0, AReading::Divided), "divided: F > 5");
        assert!(misbehaving(11, 100, 0.1, 4.0, AReading::Factor), "factor: the bar stays at the mean count");
        let factor = Eq8 { a: 2.0, reading: AReading::Factor, normalise: false };
        assert!((zl_probability(0.1, 30, 100, 0.1, factor, 0.05) - 0.6).abs() < 1e-12, "p4 = a p3 F / (T P)");
        let unnormalised = Eq8 { normalise: false, ..PRINTED };
        assert!((zl_probability(0.1, 30, 100, 0.1, unnormalised, 0.05) - 0.3).abs() < 1e-12, "no eq. (6)");
    }

    #[test]
    fn misbehaving_flows_get_p3_times_their_excess_normalised() {
        // F = 30, T P = 10: p4 = 3 p3; P_avg = 0.05: p5 = p4 p3 / 0.05.
        assert!((zl_probability(0.1, 30, 100, 0.1, PRINTED, 0.05) - 0.6).abs() < 1e-12);
        assert!((zl_probability(0.1, 30, 100, 0.1, PRINTED, 0.0) - 0.3).abs() < 1e-12, "no P_avg yet: p4");
        assert_eq!(zl_probability(0.1, 5, 100, 0.1, PRINTED, 0.05), 0.1, "well-behaved: p3");
        assert_eq!(zl_probability(0.5, 90, 100, 0.1, PRINTED, 0.05), 1.0, "clamped");
    }

    #[test]
    fn drop_average_is_the_running_mean_or_ema() {
        let mut m = DropAverage::new(PavgRule::MeanFinal, 0.5);
        assert_eq!(m.value(), 0.0);
        m.record(0.2, 0.9);
        m.record(0.4, 0.9);
        assert!((m.value() - 0.3).abs() < 1e-12);
        let mut e = DropAverage::new(PavgRule::EmaP3, 0.5);
        e.record(0.2, 0.8);
        e.record(0.2, 0.4);
        assert!((e.value() - 0.4).abs() < 1e-12);
    }

    /// Drop fraction of flow 0 (sending `heavy` times as often as each of `n - 1` others)
    /// over the others', with the queue held at `q` packets.
    fn heavy_drop_ratio<Q: QueueDisc>(q: Q, n: u32, heavy: f64, hold: usize) -> (f64, f64) {
        let mut h = Harness::new(q, 9);
        let mut rng = SimRng::from_seed(4);
        let (mut arrivals, mut drops) = ([0u64; 2], [0u64; 2]);
        let w0 = heavy / (heavy + (n - 1) as f64);
        for k in 0..400_000 {
            let flow = if rng.uniform() < w0 { 0 } else { 1 + rng.below(n as usize - 1) as u32 };
            let v = h.offer(flow, 1000);
            if h.q.len() > hold {
                h.serve();
            }
            if k >= 100_000 {
                let c = (flow != 0) as usize;
                arrivals[c] += 1;
                drops[c] += matches!(v, Verdict::Dropped(_)) as u64;
            }
        }
        let frac = |c: usize| drops[c] as f64 / arrivals[c] as f64;
        let overall = (drops[0] + drops[1]) as f64 / (arrivals[0] + arrivals[1]) as f64;
        (frac(0) / frac(1), overall)
    }

    #[test]
    fn zl_red_drops_a_heavy_flow_harder_than_sred_does() {
        // 300 flows (P ~ 1/300, so eq. (2) does not damp p1), one at 10 times the others'
        // rate, the queue held in the p_max/4 band.
        let sred_params = sred::Params { limit: Limit::Packets(300), p_max: 0.15, zombies: ZP };
        let (sred_ratio, sred_overall) = heavy_drop_ratio(Sred::new(&sred_params, &link(300)), 300, 10.0, 50);
        let (zl_ratio, zl_overall) = heavy_drop_ratio(ZlRed::new(&BASE, &link(300)), 300, 10.0, 50);
        // SRED's only flow bias is the hit term 1 + Hit/P: about 1 + p_0/P for flow 0 against
        // about 1 + p_j/P for the others, with p_0 = 10/309, P ~ sum p_j^2 ~ 1/225.
        assert!(sred_ratio > 1.5, "SRED ratio {sred_ratio:.2}");
        assert!(zl_ratio > 2.0 * sred_ratio, "ZL-RED ratio {zl_ratio:.2} vs SRED {sred_ratio:.2}");
        assert!(zl_overall > 0.02 && sred_overall > 0.02, "{zl_overall} {sred_overall}");
    }

    #[test]
    fn keeps_the_contract_on_a_line() {
        let p = Params { limit: Limit::Packets(30), zombies: ZombieParams { zombies: 20, alpha: 0.05, ..ZP }, ..BASE };
        let (sent, refused, evicted) = super::super::conformance::hammer(|l| ZlRed::new(&p, l), 1);
        assert!(sent > 1000 && refused > 100 && evicted == 0, "{sent} {refused} {evicted}");
    }

    #[test]
    fn random_operations_keep_the_contract() {
        let small = ZombieParams { zombies: 6, alpha: 0.1, ..ZP };
        let cases = [
            Params { limit: Limit::Packets(24), p_max: 0.5, th_min: 2.0, zombies: small.clone(), ..BASE },
            Params {
                limit: Limit::Bytes(20_000),
                a: 2.0,
                p_avg: PavgRule::EmaP3,
                zombies: ZombieParams { fill: FillRule::Compare, ..small },
                ..BASE
            },
        ];
        for (seed, p) in cases.into_iter().enumerate() {
            let mut h = Harness::new(ZlRed::new(&p, &link(6)), seed as u64);
            hammer(&mut h, 20_000, 6, seed as u64);
        }
    }
}
