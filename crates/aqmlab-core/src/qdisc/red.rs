//! RED, Random Early Detection: a FIFO that drops (or marks) arrivals early, with a
//! probability that grows with an exponentially weighted average of the queue length.
//! Defined in S. Floyd and V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM Transactions on Networking 1(4), 1993 (the algorithm of their Fig. 2).
//!
//! On every arrival:
//! 1. avg <- (1 - w_q) avg + w_q q, with q the packets waiting; after an idle period of length
//!    t, avg <- (1 - w_q)^m avg instead, m = t / (typical transmission time of a packet);
//! 2. avg < min_th: admit. min_th <= avg < max_th: p_b = max_p (avg - min_th) / (max_th - min_th)
//!    and drop with p_a = p_b / (1 - count p_b), count = packets admitted since the last drop,
//!    so drops are spaced uniformly rather than geometrically. avg >= max_th: drop;
//! 3. an admitted packet that does not fit in the buffer (`limit`) is dropped (tail drop).
//!
//! The average and the decision live in [`RedCore`] and the pure [`red_action`], which CHOKe
//! reuses; [`Fifo`] is the queue that RED and its descendants keep. Traced gauge: `avg`.
//!
//! Deviations from the paper:
//! - `count` is "the number of unmarked packets that have arrived since the last marked
//!   packet" (F&J Sec. 7), so at constant p_b the gap between drops is uniform on
//!   1..1/p_b. (F&J's Fig. 2 pseudo-code and ns-2 count the arrival itself, one more, which
//!   gives 1..1/p_b - 1.) count restarts at 0 whenever avg falls below min_th.
//! - `wait = true` (the default, as in ns-2 1998-2000) is ns-2's `wait_`: no drop until
//!   count >= 1/p_b, then p_a = p_b / (2 - count p_b): gaps uniform on 1/p_b+1..2/p_b.
//!   F&J's original is `wait = false`.
//! - `gentle` (Floyd 2000, not in the 1993 paper): p_b rises from max_p to 1 as avg goes from
//!   max_th to 2 max_th; those drops are probabilistic ("early"); only avg >= 2 max_th forces.
//! - `ecn`: an early decision about an ECN-capable packet marks it (CE) instead of dropping
//!   it; forced decisions drop too unless `harddrop = false`, overflows always drop. RFC 3168
//!   and ns-3's RedQueueDisc (UseHardDrop) drop above max_th, hence the default
//!   `harddrop = true`; Linux's sch_red marks there unless its `harddrop` flag is given.
//!   `harddrop = false` with `min_th = max_th` and `w_q = 1` is the step marking at an
//!   instantaneous queue of K packets that DCTCP expects (RFC 8257 section 4).
//! - `min_th = max_th` is allowed: no early zone, every arrival at or above it is forced.
//! - q excludes the packet being transmitted (as in ns-2); the line is idle when nothing is
//!   queued and nothing is in service. m is real-valued (F&J's f is linear in time; ns-2
//!   truncates it to an integer). The typical transmission time is the scenario's mean data
//!   packet size over the line rate.
//! - Thresholds are in packets, whatever the unit of `limit`.
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 420 or so.

use serde::Serialize;

pub use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Prob, Result};
use crate::packet::{flags, PacketId};
use crate::rng::SimRng;
use crate::units::{SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "red",
    aliases: &[],
    summary: "Random Early Detection (Floyd & Jacobson 1993): early drops by the average queue length, count-spaced.",
    read: |f| Params::read(f).map(QdiscParams::Red),
};

// ---------------------------------------------------------------------------------------------
// The RED core: average and decision, shared with CHOKe

/// RED's averaging and decision parameters (Floyd & Jacobson's names).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RedParams {
    /// w_q: weight of the newest queue sample in the average.
    pub w_q: f64,
    /// min_th, max_th: thresholds on the average, packets.
    pub min_th: f64,
    pub max_th: f64,
    /// max_p: p_b when the average reaches max_th.
    pub max_p: f64,
    /// ns-2's wait_: space drops by at least 1/p_b packets.
    pub wait: bool,
    /// Floyd's gentle RED: p_b from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
}

impl RedParams {
    /// Read and check the RED parameters (ns-2 era defaults); max_th must exceed min_th.
    pub fn read(f: &mut Fields) -> Result<Self> {
        Self::read_thresholds(f, false)
    }

    /// As [`RedParams::read`], with `step` allowing min_th = max_th (plain RED's step marker).
    pub fn read_thresholds(f: &mut Fields, step: bool) -> Result<Self> {
        let w_q: f64 =
            f.or("w_q", 0.002, "w_q: weight of the newest sample in the average queue length (0 < w_q <= 1)")?;
        f.ensure(w_q > 0.0 && w_q <= 1.0, "w_q", format!("{w_q} is not a weight (allowed: above 0, at most 1)"))?;
        let min_th: f64 = f.or("min_th", 5.0, "min_th: average queue length (packets) where early drops start")?;
        f.ensure(min_th >= 0.0, "min_th", "must not be negative")?;
        let max_th: f64 = f.or(
            "max_th",
            15.0,
            "max_th: average queue length (packets) where p_b reaches max_p; above it every arrival is dropped",
        )?;
        if step {
            f.ensure(
                max_th >= min_th,
                "max_th",
                format!("must be at least min_th ({min_th}); equal, RED is a step at that queue length"),
            )?;
        } else {
            f.ensure(max_th > min_th, "max_th", format!("must be above min_th ({min_th})"))?;
        }
        let max_p: Prob = f.or("max_p", Prob(0.1), "max_p: early drop probability p_b at max_th (ns-2's 1/linterm)")?;
        let wait: bool = f.or("wait", true, "ns-2 wait_: no drop until count >= 1/p_b, then gaps uniform on 1/p_b+1..2/p_b (false: F&J 1993, gaps uniform on 1..1/p_b)")?;
        let gentle: bool = f.or(
            "gentle",
            false,
            "gentle RED: p_b rises from max_p to 1 between max_th and 2 max_th instead of jumping to 1",
        )?;
        Ok(RedParams { w_q, min_th, max_th, max_p: max_p.0, wait, gentle })
    }
}

impl RedParams {
    /// min_th must be below a buffer given in packets: the average cannot exceed the buffer, so
    /// a higher threshold (a typo, as 300 for 30) would leave RED a plain tail-drop queue.
    pub fn check_against_limit(&self, f: &Fields, limit: Limit) -> Result<()> {
        if let Limit::Packets(n) = limit {
            let ok = self.min_th < n as f64;
            f.ensure(ok, "min_th", format!("{} is not below the buffer limit ({n} packets): the average never reaches it, so early drop would never act", self.min_th))?;
        }
        Ok(())
    }
}

/// Where the average queue length puts an arrival.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RedZone {
    /// avg < min_th: admit, no drop.
    Below,
    /// Drop with probability p_b (before count spacing).
    Early { p_b: f64 },
    /// avg >= max_th (2 max_th when gentle): drop.
    Forced,
}

/// RED's answer about one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAction {
    Admit,
    /// A probabilistic ("unforced") drop, or a mark with ECN.
    Early,
    /// avg above the top threshold: drop.
    Forced,
}

/// The zone of average queue length `avg` (F&J Fig. 2, with Floyd's gentle variant).
pub fn red_zone(p: &RedParams, avg: f64) -> RedZone {
    if avg < p.min_th {
        RedZone::Below
    } else if avg < p.max_th {
        RedZone::Early { p_b: p.max_p * (avg - p.min_th) / (p.max_th - p.min_th) }
    } else if p.gentle && avg < 2.0 * p.max_th {
        RedZone::Early { p_b: p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th }
    } else {
        RedZone::Forced
    }
}

/// p_a: the drop probability p_b spread over `count` packets since the last drop, so that
/// drops come at uniform rather than geometric intervals.
pub fn spaced_probability(p_b: f64, count: u64, wait: bool) -> f64 {
    let c = count as f64 * p_b;
    let p_a = if wait {
        if c < 1.0 {
            0.0
        } else if c < 2.0 {
            p_b / (2.0 - c)
        } else {
            1.0
        }
    } else if c < 1.0 {
        p_b / (1.0 - c)
    } else {
        1.0
    };
    p_a.min(1.0)
}

/// RED's decision, pure: average `avg`, `count` packets admitted since the last drop, and a
/// uniform draw `u` in [0, 1) (used only in the early zone).
pub fn red_action(p: &RedParams, avg: f64, count: u64, u: f64) -> RedAction {
    match red_zone(p, avg) {
        RedZone::Below => RedAction::Admit,
        RedZone::Forced => RedAction::Forced,
        RedZone::Early { p_b } => {
            if u < spaced_probability(p_b, count, p.wait) {
                RedAction::Early
            } else {
                RedAction::Admit
            }
        }
    }
}

/// RED's state: the average queue length, the count, and when the line went idle.
#[derive(Clone, Debug)]
pub struct RedCore {
    p: RedParams,
    /// Typical transmission time of a packet, ns: the unit of idle time in the correction.
    typical_tx_ns: f64,
    avg: f64,
    /// Packets admitted since the last drop or mark (while avg >= min_th).
    count: u64,
    /// When the line last went idle.
    idle_since: SimTime,
}

impl RedCore {
    pub fn new(p: &RedParams, link: &LinkInfo) -> Self {
        let typical_tx_ns = link.mean_packet_size as f64 * 8.0 * NS_PER_S as f64 / link.rate_bps.max(1) as f64;
        RedCore { p: *p, typical_tx_ns, avg: 0.0, count: 0, idle_since: SimTime::ZERO }
    }

    pub fn params(&self) -> &RedParams {
        &self.p
    }

    /// The average queue length, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Fold an arrival's view into the average: `qlen` packets waiting, and whether the line
    /// is idle (nothing waiting, nothing in service).
    pub fn update_avg(&mut self, now: SimTime, qlen: usize, idle: bool) {
        let w = self.p.w_q;
        if idle {
            let m = now.saturating_since(self.idle_since).ns() as f64 / self.typical_tx_ns;
            self.avg *= (1.0 - w).powf(m);
            // The decay up to now is applied; should the arrival be dropped, the line stays
            // idle and the next arrival decays from here.
            self.idle_since = now;
        } else {
            self.avg = (1.0 - w) * self.avg + w * qlen as f64;
        }
    }

    /// The current max_p (Adaptive RED changes it).
    pub fn max_p(&self) -> f64 {
        self.p.max_p
    }

    /// Set max_p (Adaptive RED's adaptation; the thresholds and the average stay).
    pub fn set_max_p(&mut self, max_p: f64) {
        self.p.max_p = max_p;
    }

    /// The line went idle (the transmitter found nothing to send).
    pub fn went_idle(&mut self, now: SimTime) {
        self.idle_since = now;
    }

    pub fn zone(&self) -> RedZone {
        red_zone(&self.p, self.avg)
    }

    /// RED's decision about the arrival, with the count bookkeeping. Draws a uniform only in
    /// the early zone.
    pub fn decide(&mut self, rng: &mut SimRng) -> RedAction {
        let zone = self.zone();
        let u = if matches!(zone, RedZone::Early { .. }) { rng.uniform() } else { 0.0 };
        let action = red_action(&self.p, self.avg, self.count, u);
        self.count = match (zone, action) {
            (RedZone::Early { .. }, RedAction::Admit) => self.count + 1,
            (RedZone::Early { .. }, RedAction::Early | RedAction::Forced) | (RedZone::Below | RedZone::Forced, _) => 0,
        };
        action
    }

    /// Restart the count (a drop RED did not decide, such as a CHOKe match).
    pub fn reset_count(&mut self) {
        self.count = 0;
    }

    #[cfg(test)]
    pub(crate) fn pin_avg(&mut self, avg: f64) {
        self.avg = avg;
    }
}

// ---------------------------------------------------------------------------------------------
// The FIFO RED and its descendants (CHOKe, SRED, ZL-RED) queue into

// ---------------------------------------------------------------------------------------------
// The discipline

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    #[serde(flatten)]
    pub red: RedParams,
    /// Mark ECN-capable packets instead of early-dropping them.
    pub ecn: bool,
    /// With `ecn`: forced decisions (avg above the top threshold) drop ECN-capable packets
    /// too; `false` marks them.
    pub harddrop: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "physical buffer: an admitted packet that does not fit is dropped (overflow)",
        )?;
        let red = RedParams::read_thresholds(f, true)?;
        red.check_against_limit(f, limit)?;
        let ecn = f.or(
            "ecn",
            false,
            "mark ECN-capable packets (set CE) instead of early-dropping them; forced drops too if harddrop = false",
        )?;
        let harddrop = f.or(
            "harddrop",
            true,
            "with ecn: drop ECN-capable packets when avg is above the top threshold (RFC 3168, ns-3); false marks \
             them (Linux's default, and step marking for DCTCP with min_th = max_th, w_q = 1)",
        )?;
        f.ensure(
            ecn || harddrop,
            "harddrop",
            "false has no effect without ecn = true (only ECN-capable packets can be marked instead of dropped); \
             add ecn = true or leave harddrop out",
        )?;
        Ok(Params { limit, red, ecn, harddrop })
    }
}

pub struct Red {
    limit: Limit,
    ecn: bool,
    harddrop: bool,
    core: RedCore,
    fifo: Fifo,
}

impl Red {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        Red { limit: p.limit, ecn: p.ecn, harddrop: p.harddrop, core: RedCore::new(&p.red, link), fifo: Fifo::new() }
    }

    pub fn avg(&self) -> f64 {
        self.core.avg()
    }

    /// The average and the decision (Adaptive RED adapts max_p in it).
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    pub fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let idle = self.fifo.is_empty() && cx.in_service.is_none();
        self.core.update_avg(cx.now, self.fifo.len(), idle);
        let mut verdict = Verdict::Enqueued;
        match self.core.decide(cx.rng) {
            RedAction::Admit => {}
            RedAction::Forced => {
                if self.ecn && !self.harddrop && cx.pkts[pkt].has(flags::ECT) {
                    verdict = Verdict::Marked(DropReason::Forced);
                } else {
                    return Verdict::Dropped(DropReason::Forced);
                }
            }
            RedAction::Early => {
                if self.ecn && cx.pkts[pkt].has(flags::ECT) {
                    verdict = Verdict::Marked(DropReason::Early);
                } else {
                    return Verdict::Dropped(DropReason::Early);
                }
            }
        }
        if self.fifo.overflows(self.limit, cx.pkts[pkt].size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if matches!(verdict, Verdict::Marked(_)) {
            cx.pkts[pkt].flags |= flags::CE;
        }
        self.fifo.push(pkt, cx.pkts);
        verdict
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        let next = self.fifo.pop(cx.pkts);
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
        self.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("avg", self.core.avg()));
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

    const PARAMS: RedParams =
        RedParams { w_q: 0.002, min_th: 5.0, max_th: 15.0, max_p: 0.1, wait: false, gentle: false };

    fn red(limit: Limit, red: RedParams, ecn: bool) -> Harness<Red> {
        Harness::new(Red::new(&Params { limit, red, ecn, harddrop: true }, &link(8)), 7)
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
    fn defaults_are_the_ns2_era_ones() {
        let p = read("").unwrap();
        assert_eq!(p.red, RedParams { w_q: 0.002, min_th: 5.0, max_th: 15.0, max_p: 0.1, wait: true, gentle: false });
        assert_eq!(p.limit, Limit::Packets(100));
        assert!(!p.ecn);
    }

    #[test]
    fn refuses_thresholds_out_of_order_and_bad_weights() {
        assert!(read("min_th = 15\nmax_th = 14").unwrap_err().message.contains("must be at least min_th"));
        assert!(read("w_q = 0").unwrap_err().message.contains("not a weight"));
        assert!(read("w_q = 1.5").unwrap_err().message.contains("not a weight"));
        assert!(read("max_p = 1.2").unwrap_err().message.contains("not a probability"));
        assert!(read("min_th = -1").is_err());
        // The analytic CHOKe models need min_th = 0 and max_p = 0.
        assert!(read("min_th = 0\nmax_p = 0\nw_q = 1\nlimit = \"unbounded\"").is_ok());
    }

    #[test]
    fn zones_follow_the_thresholds() {
        assert_eq!(red_zone(&PARAMS, 4.99), RedZone::Below);
        assert_eq!(red_zone(&PARAMS, 5.0), RedZone::Early { p_b: 0.0 });
        assert_eq!(red_zone(&PARAMS, 10.0), RedZone::Early { p_b: 0.05 });
        assert_eq!(red_zone(&PARAMS, 15.0), RedZone::Forced);
        let gentle = RedParams { gentle: true, ..PARAMS };
        assert_eq!(red_zone(&gentle, 15.0), RedZone::Early { p_b: 0.1 });
        assert_eq!(red_zone(&gentle, 22.5), RedZone::Early { p_b: 0.55 });
        assert_eq!(red_zone(&gentle, 30.0), RedZone::Forced);
    }

    #[test]
    fn count_spreads_the_probability() {
        // F&J: p_a = p_b / (1 - count p_b), reaching 1 at count = 1/p_b - 1.
        assert_eq!(spaced_probability(0.1, 0, false), 0.1);
        assert!((spaced_probability(0.1, 5, false) - 0.2).abs() < 1e-12);
        assert_eq!(spaced_probability(0.1, 10, false), 1.0);
        // ns-2 wait_: nothing below count = 1/p_b, then p_b / (2 - count p_b).
        assert_eq!(spaced_probability(0.1, 9, true), 0.0);
        assert!((spaced_probability(0.1, 10, true) - 0.1).abs() < 1e-12);
        assert!((spaced_probability(0.1, 15, true) - 0.2).abs() < 1e-12);
        assert_eq!(spaced_probability(0.1, 20, true), 1.0);
        assert_eq!(spaced_probability(0.0, 1_000_000, false), 0.0);
        assert_eq!(spaced_probability(0.0, 1_000_000, true), 0.0);
    }

    #[test]
    fn red_action_reads_like_the_paper() {
        assert_eq!(red_action(&PARAMS, 3.0, 0, 0.0), RedAction::Admit);
        assert_eq!(red_action(&PARAMS, 10.0, 0, 0.049), RedAction::Early);
        assert_eq!(red_action(&PARAMS, 10.0, 0, 0.051), RedAction::Admit);
        assert_eq!(red_action(&PARAMS, 10.0, 19, 0.999), RedAction::Early);
        assert_eq!(red_action(&PARAMS, 16.0, 0, 0.999), RedAction::Forced);
    }

    #[test]
    fn average_follows_the_ewma() {
        let mut core = RedCore::new(&PARAMS, &link(1));
        core.update_avg(SimTime::ZERO, 10, false);
        assert!((core.avg() - 0.02).abs() < 1e-12);
        core.update_avg(SimTime::ZERO, 10, false);
        assert!((core.avg() - (0.998 * 0.02 + 0.02)).abs() < 1e-12);
    }

    #[test]
    fn idle_time_decays_the_average_as_if_empty_samples_arrived() {
        // harness link: 1 Mbps, 1000-byte packets -> 8 ms typical transmission time.
        let mut core = RedCore::new(&PARAMS, &link(1));
        core.pin_avg(10.0);
        core.went_idle(SimTime(1_000_000_000));
        core.update_avg(SimTime(1_000_000_000 + 100 * 8_000_000), 0, true);
        let expected = 10.0 * 0.998f64.powi(100);
        assert!((core.avg() - expected).abs() < 1e-9, "{} vs {expected}", core.avg());
        // A busy line with an empty queue is a sample of 0, not idle time.
        core.pin_avg(10.0);
        core.update_avg(SimTime(5_000_000_000), 0, false);
        assert!((core.avg() - 9.98).abs() < 1e-12);
    }

    #[test]
    fn dequeue_on_empty_starts_the_idle_clock() {
        let mut h = red(Limit::Packets(100), RedParams { w_q: 0.5, ..PARAMS }, false);
        h.offer(1, 1000);
        h.offer(1, 1000);
        assert!((h.q.avg() - 0.5).abs() < 1e-12);
        h.now = 1_000_000;
        h.drain_flows();
        // idle from 1 ms; an arrival 8 ms later (one typical transmission) decays avg once.
        h.now = 9_000_000;
        h.offer(2, 1000);
        assert!((h.q.avg() - 0.25).abs() < 1e-12, "{}", h.q.avg());
    }

    #[test]
    fn forced_drop_above_max_th_and_overflow_at_the_limit() {
        let mut h = red(Limit::Packets(3), RedParams { w_q: 1.0, min_th: 5.0, max_th: 6.0, ..PARAMS }, false);
        for _ in 0..3 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
        // avg = 3 < min_th: admitted by RED, but the buffer is full.
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Overflow));
        let mut h = red(Limit::Packets(100), RedParams { w_q: 1.0, min_th: 1.0, max_th: 2.0, ..PARAMS }, false);
        h.offer(1, 100);
        h.offer(1, 100);
        // avg = 2 = max_th.
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Forced));
    }

    /// Offer an ECN-capable packet of flow 1.
    fn offer_ect(h: &mut Harness<Red>) -> (PacketId, Verdict) {
        let id = h.pkts.alloc(crate::packet::Packet { flags: flags::ECT, ..crate::packet::Packet::data(1, 0, 1, 100) });
        let mut cx =
            QdiscCtx {
            now: SimTime(h.now),
            rng: &mut h.rng,
            pkts: &mut h.pkts,
            victims: &mut h.victims,
            marks: &mut h.mark_buf,
            in_service: None,
        };
        (id, h.q.enqueue(id, &mut cx))
    }

    #[test]
    fn ecn_marks_capable_packets_instead_of_dropping_them() {
        // avg = q (w_q = 1) climbs from 0 to 39 over a 40-packet burst: p_b reaches 1.
        let p = RedParams { w_q: 1.0, min_th: 0.0, max_th: 40.0, max_p: 1.0, wait: false, gentle: false };
        let mut h = red(Limit::Packets(100), p, true);
        let mut marked = 0;
        for _ in 0..40 {
            let (id, v) = offer_ect(&mut h);
            assert_ne!(v, Verdict::Dropped(DropReason::Early));
            assert_eq!(h.pkts[id].has(flags::CE), v == Verdict::Marked(DropReason::Early));
            marked += (v == Verdict::Marked(DropReason::Early)) as u32;
        }
        assert!(marked > 5, "{marked}");
        assert_eq!(h.q.len(), 40);
        // Above max_th the drop is forced even for an ECN-capable packet.
        assert_eq!(offer_ect(&mut h).1, Verdict::Dropped(DropReason::Forced));
        // Packets that are not ECN-capable are dropped as usual.
        let mut h = red(Limit::Packets(100), p, true);
        let early = (0..40).filter(|_| h.offer(1, 100) == Verdict::Dropped(DropReason::Early)).count();
        assert!(early > 5, "{early}");
    }

    #[test]
    fn step_marking_with_equal_thresholds_and_harddrop_off() {
        // DCTCP's gateway (RFC 8257 section 4): w_q = 1, min_th = max_th = K = 3: an ECN-capable
        // arrival finding K or more packets waiting is marked, never dropped; below K admitted
        // unmarked. A Not-ECT arrival in the same place is dropped (forced).
        let step = RedParams { w_q: 1.0, min_th: 3.0, max_th: 3.0, max_p: 0.1, wait: false, gentle: false };
        let mut h = Harness::new(Red::new(&Params { limit: Limit::Packets(10), red: step, ecn: true, harddrop: false }, &link(8)), 7);
        let verdicts: Vec<Verdict> = (0..10).map(|_| offer_ect(&mut h).1).collect();
        // q at each arrival (excluding the one in service: the harness transmits nothing here).
        let expected: Vec<Verdict> = (0..10)
            .map(|q| if q >= 3 { Verdict::Marked(DropReason::Forced) } else { Verdict::Enqueued })
            .collect();
        assert_eq!(verdicts, expected);
        assert_eq!(offer_ect(&mut h).1, Verdict::Dropped(DropReason::Overflow), "the buffer still overflows");
        let mut h = Harness::new(Red::new(&Params { limit: Limit::Packets(10), red: step, ecn: true, harddrop: false }, &link(8)), 7);
        for _ in 0..3 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Forced), "not ECN-capable: dropped");
        // harddrop = true (the default) drops the ECN-capable arrival above the threshold.
        let mut h = red(Limit::Packets(10), step, true);
        for _ in 0..3 {
            offer_ect(&mut h);
        }
        assert_eq!(offer_ect(&mut h).1, Verdict::Dropped(DropReason::Forced));
        assert!(read("min_th = 3\nmax_th = 3\nw_q = 1\necn = true\nharddrop = false").is_ok());
        let e = read("harddrop = false").unwrap_err();
        assert!(e.message.contains("no effect without ecn = true"), "{e}");
        let e = read("min_th = 4\nmax_th = 3").unwrap_err();
        assert!(e.message.contains("must be at least min_th (4)"), "{e}");
    }

    /// Gaps (in arrivals) between early drops at a fixed average.
    fn gaps_at(avg: f64, wait: bool, n_drops: usize) -> Vec<u64> {
        let mut core = RedCore::new(&RedParams { wait, ..PARAMS }, &link(1));
        core.pin_avg(avg);
        let mut rng = SimRng::from_seed(11);
        let mut gaps = Vec::with_capacity(n_drops);
        let mut since = 0;
        // Start right after a drop: count = 0.
        core.reset_count();
        while gaps.len() < n_drops {
            since += 1;
            if core.decide(&mut rng) == RedAction::Early {
                gaps.push(since);
                since = 0;
            }
        }
        gaps
    }

    fn mean_var(xs: &[u64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<u64>() as f64 / n;
        let v = xs.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v)
    }

    #[test]
    fn drop_gaps_are_uniform_not_geometric() {
        // avg 10 -> p_b = 0.05 -> gaps uniform on 1..20: mean 10.5, variance (20^2 - 1)/12.
        // Independent drops would be geometric: mean 20, variance 0.95 / 0.05^2 = 380.
        let gaps = gaps_at(10.0, false, 20_000);
        assert_eq!(*gaps.iter().max().unwrap(), 20);
        assert_eq!(*gaps.iter().min().unwrap(), 1);
        let (m, v) = mean_var(&gaps);
        assert!((m - 10.5).abs() < 0.15, "mean gap {m}");
        assert!((v - 33.25).abs() < 1.5, "gap variance {v} (uniform 33.25, geometric 380)");
        // Every gap value is about equally likely: 1000 expected in each of the 20 bins.
        let mut bins = [0u32; 21];
        for &g in &gaps {
            bins[g as usize] += 1;
        }
        for (g, &n) in bins.iter().enumerate().skip(1) {
            assert!((850..1150).contains(&n), "gap {g} seen {n} times");
        }
    }

    #[test]
    fn wait_spaces_drops_by_at_least_one_over_p_b() {
        // ns-2 wait_: gaps uniform on 21..40: mean 30.5, same variance as above.
        let gaps = gaps_at(10.0, true, 20_000);
        assert_eq!(*gaps.iter().min().unwrap(), 21);
        assert_eq!(*gaps.iter().max().unwrap(), 40);
        let (m, v) = mean_var(&gaps);
        assert!((m - 30.5).abs() < 0.15, "mean gap {m}");
        assert!((v - 33.25).abs() < 1.5, "gap variance {v}");
    }

    #[test]
    fn drop_gaps_through_the_queue_are_uniform() {
        // Hold the queue at 10 packets with w_q = 1 (avg = q): every admitted arrival is
        // followed by one departure.
        let mut h = red(Limit::Packets(100), RedParams { w_q: 1.0, ..PARAMS }, false);
        while h.q.len() < 10 {
            h.offer(1, 1000);
        }
        let mut gaps = vec![];
        let mut since = 0;
        while gaps.len() < 5000 {
            since += 1;
            match h.offer(1, 1000) {
                Verdict::Enqueued => {
                    h.serve();
                }
                Verdict::Dropped(DropReason::Early) => {
                    gaps.push(since);
                    since = 0;
                }
                v => panic!("{v:?}"),
            }
        }
        assert!(*gaps.iter().max().unwrap() <= 20);
        let (m, v) = mean_var(&gaps[1..]);
        assert!((m - 10.5).abs() < 0.35, "mean gap {m}");
        assert!((v - 33.25).abs() < 3.0, "gap variance {v}");
    }

    /// Drive RED with arrivals `load` times faster than departures (Poisson or periodic
    /// arrivals, exponential or constant service); returns the mean, lowest and highest
    /// average seen by the arrivals after a warm-up, and the forced drops.
    fn overload(
        p: RedParams,
        load: f64,
        poisson_arrivals: bool,
        exp_service: bool,
        seed: u64,
    ) -> (f64, f64, f64, usize) {
        let mut h = red(Limit::Packets(100), p, false);
        // Stands for whichever packet is being transmitted (RED only asks whether one is).
        let transmitting = Some(h.pkts.alloc(crate::packet::Packet::data(99, 0, 1, 1000)));
        let mut rng = SimRng::from_seed(seed);
        let mut gap = |mean: f64, random: bool| if random { rng.exponential(mean) } else { mean };
        let (mut next_arrival, mut next_service) = (0.0f64, f64::INFINITY);
        let (mut sum, mut n, mut lo, mut hi) = (0.0, 0u64, f64::INFINITY, 0.0f64);
        let (mut arrivals, mut warm) = (0u64, 0usize);
        while arrivals < 400_000 {
            // Time unit: one mean service = one typical transmission (8 ms on the harness link).
            if next_arrival < next_service {
                h.now = (next_arrival * 8e6) as u64;
                let v = h.offer(arrivals as u32 % 8, 1000);
                arrivals += 1;
                if h.in_service.is_none() && v == Verdict::Enqueued {
                    h.serve();
                    h.in_service = transmitting;
                    next_service = next_arrival + gap(1.0, exp_service);
                }
                next_arrival += gap(1.0 / load, poisson_arrivals);
                if arrivals == 50_000 {
                    warm = h.dropped.len();
                }
                if arrivals > 50_000 {
                    let a = h.q.avg();
                    sum += a;
                    n += 1;
                    lo = lo.min(a);
                    hi = hi.max(a);
                }
            } else {
                h.now = (next_service * 8e6) as u64;
                h.in_service = None;
                next_service = f64::INFINITY;
                if h.serve().is_some() {
                    h.in_service = transmitting;
                    next_service = h.now as f64 / 8e6 + gap(1.0, exp_service);
                }
            }
        }
        let forced = h.dropped[warm..].iter().filter(|d| d.1 == DropReason::Forced).count();
        (sum / n as f64, lo, hi, forced)
    }

    #[test]
    fn average_settles_between_the_thresholds_under_steady_overload() {
        // Arrivals 10% faster than departures (periodic arrivals, equal packets: an aggregate
        // of CBR sources). The early drops must remove f = 1 - 1/1.1 of the arrivals. With
        // count spacing the fraction dropped at constant p_b is 1 / mean gap = 2 p_b / (1 + p_b)
        // (gaps uniform on 1..1/p_b), so the average must settle where p_b = f / (2 - f):
        // avg* = min_th + (max_th - min_th) p_b / max_p = 9.76.
        let f = 1.0 - 1.0 / 1.1;
        let p_b = f / (2.0 - f);
        let expected = 5.0 + 10.0 * p_b / 0.1;
        let (mean, lo, hi, forced) = overload(PARAMS, 1.1, false, false, 3);
        assert!(lo > 5.0 && hi < 15.0, "avg left [min_th, max_th]: {lo:.2}..{hi:.2}");
        assert!((mean - expected).abs() < 0.3, "mean avg {mean:.2}, expected {expected:.2}");
        assert_eq!(forced, 0);
        // With ns-2's wait the gaps are uniform on 1/p_b+1..2/p_b: fraction 2 p_b / (3 + p_b).
        // At 5% overload: p_b = 3 f / (2 - f), f = 1 - 1/1.05, avg* = 12.32.
        let f = 1.0 - 1.0 / 1.05;
        let expected = 5.0 + 10.0 * (3.0 * f / (2.0 - f)) / 0.1;
        let (mean, lo, hi, forced) = overload(RedParams { wait: true, ..PARAMS }, 1.05, false, false, 4);
        assert!(lo > 5.0 && hi < 15.0, "avg left [min_th, max_th]: {lo:.2}..{hi:.2}");
        assert!((mean - expected).abs() < 0.3, "mean avg {mean:.2}, expected {expected:.2}");
        assert_eq!(forced, 0);
        // Poisson arrivals and exponential service are another matter: at the equilibrium the
        // queue is a critically loaded random walk that moves by tens of packets within the
        // ~1/w_q = 500 arrivals the average remembers, so avg does cross max_th now and then
        // (Floyd & Jacobson's thresholds assume responsive traffic). Its mean still sits
        // between the thresholds.
        let (mean, ..) = overload(PARAMS, 1.1, true, true, 5);
        assert!(mean > 5.0 && mean < 15.0, "{mean}");
    }

    #[test]
    fn keeps_the_contract_on_a_line() {
        // The shared conformance driver: a transmitter, bursts, ACKs, overload and idle phases.
        let p = RedParams { w_q: 0.02, min_th: 3.0, max_th: 9.0, max_p: 0.1, wait: true, gentle: false };
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000))] {
            let (sent, refused, evicted) =
                super::super::conformance::hammer(|l| Red::new(&Params { limit, red: p, ecn: false, harddrop: true }, l), seed);
            assert!(sent > 1000 && refused > 100, "{sent} {refused}");
            assert_eq!(evicted, 0, "RED only drops arrivals");
        }
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p =
                RedParams { w_q: 0.05, min_th: 3.0, max_th: 12.0, max_p: 0.2, wait: seed % 2 == 0, gentle: seed == 3 };
            let mut h = red(limit, p, seed == 2);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
