//! DualPI2, the coupled dual-queue AQM of L4S: K. De Schepper, B. Briscoe (ed.) and G. White,
//! "Dual-Queue Coupled Active Queue Management (AQM) for Low Latency, Low Loss, and Scalable
//! Throughput (L4S)", RFC 9332 (2023), its Appendix A (DualPI2); parameter names and defaults
//! as Linux's sch_dualpi2 (`limit`, `target`, `tupdate`, `alpha`, `beta`, `step_thresh`,
//! `min_qlen_step`, `coupling_factor`, `classic_protection`, `drop_overload`).
//!
//! Two FIFOs share one buffer. Packets whose ECN field is ECT(1) or CE (the L4S identifier of
//! RFC 9331) go to the L queue, the others (not-ECT, ECT(0)) to the C (Classic) queue. One PI
//! controller (PI2) updates a base probability p' every `tupdate` from the queueing delay:
//! p' += alpha (qdelay - target) + beta (qdelay - previous qdelay), clamped to [0, 1]. Classic
//! packets are dropped (not-ECT) or marked (ECT(0)) with probability p_C = p'^2, which a
//! Reno-like flow answers with a rate ~ 1/sqrt(p_C) = 1/p'; L4S packets are marked with the
//! coupled probability p_CL = k p', which a scalable (DCTCP-like) flow answers with a rate
//! ~ 1/p_CL = 1/(k p'): the two kinds of flow get comparable rates (k = 2). L packets are also
//! marked when their own sojourn time reaches `step_thresh` (the L queue's native AQM), so the
//! L queue stays about a millisecond deep. Drops for the controller have reason `dualpi2`,
//! marks `dualpi2` (coupled or squared) or `step` (the L step); a full buffer drops the arrival
//! (`overflow`).
//!
//! Scheduling is Linux's weighted round robin with Classic protection: while both queues are
//! backlogged, the L queue is served unless the C queue's credit says it is owed service, so
//! that C gets `classic_protection` percent of the bytes (10%) and L the rest; an idle queue
//! leaves the other the whole link.
//!
//! Choices the specification leaves open, and deviations:
//! - The queueing delay the controller sees is the larger of the two head packets' sojourn
//!   times at the update instant (Linux; RFC 9332 A.2 discusses both queues). Updates run at
//!   exact multiples of `tupdate` from the first packet, caught up at the next enqueue or
//!   dequeue (the queue does not change between events, so each update sees what a timer would).
//! - The L queue's native AQM is a step at `step_thresh` of sojourn time (Linux's default),
//!   not the RFC's ramp from 800 us over 400 us; `min_qlen_step` packets must be queued in L for
//!   a step mark (default 0, Linux).
//! - Probabilities are applied with one random draw against p'^2 (Linux draws twice against
//!   p'; the distribution is the same), in double precision (Linux: 32-bit fixed point).
//! - No drop or mark while fewer than two MTUs (2 x 1500 bytes) are queued in all, the dequeued
//!   packet included (Linux's guard against starving a link of its last packets).
//! - Overload (k p' > 1, the coupled probability saturated): L packets are dropped with
//!   probability p'^2 like Classic ones and every L packet not dropped is marked; Classic
//!   ECT(0) packets are dropped instead of marked (`drop_overload = true`, Linux's default);
//!   with `drop_overload = false` nothing is dropped for overload, only marked.
//! - The Classic protection credit starts at 1500 x (wc - wl) bytes and is reset when both
//!   queues are empty (Linux); the MTU is fixed at 1500 bytes.
//! - `limit` counts both queues together (packets by default, as Linux's 10000, or bytes).
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 420 or so.

use serde::Serialize;

use super::codel::StampedFifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Duration, Fields, Limit, Result};
use crate::packet::{flags, PacketId};
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "dualpi2",
    aliases: &[],
    summary: "Coupled dual-queue AQM for L4S (RFC 9332): ECT(1)/CE packets in a shallow L queue marked at k p', Classic ones dropped or marked at p'^2 by one PI2 controller.",
    read: |f| Params::read(f).map(QdiscParams::DualPi2),
};

/// The MTU of the two-MTU guard and of the Classic protection credit, bytes.
const MTU: u64 = 1500;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// The Classic queue's delay target, ns.
    pub target: Duration,
    /// The PI2 update interval, ns.
    pub tupdate: Duration,
    /// Integral gain, per update (Hz x tupdate, as RFC 9332 defines it).
    pub alpha: f64,
    /// Proportional gain, per update.
    pub beta: f64,
    /// The L queue's step: mark L packets whose sojourn time reaches this, ns.
    pub step_thresh: Duration,
    /// Packets that must be queued in L for a step mark.
    pub min_qlen_step: u32,
    /// k: the L queue's marking probability is k p'.
    pub coupling_factor: f64,
    /// Percent of the bytes the C queue is guaranteed while both queues are backlogged.
    pub classic_protection: u32,
    /// Under overload, drop rather than mark.
    pub drop_overload: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(10_000),
            "physical buffer of both queues together: an arrival that does not fit is dropped (overflow); Linux's default is 10000 packets",
        )?;
        let target: Duration =
            f.or("target", Duration(15_000_000), "Classic queueing delay the PI2 controller holds")?;
        f.ensure(target.0 > 0, "target", "must be above 0")?;
        let tupdate: Duration = f.or("tupdate", Duration(16_000_000), "interval between PI2 probability updates")?;
        // Linux takes tupdate in microseconds; below that, the updates caught up between two
        // packets of a slow link run into the billions (as PIE's floor).
        f.ensure(
            tupdate.0 >= 1_000,
            "tupdate",
            "must be 1us or more (above 0: the controller must run; Linux counts it in microseconds)",
        )?;
        let alpha: f64 =
            f.or("alpha", 0.16, "integral gain: p' += alpha (qdelay - target) per update, qdelay in seconds")?;
        let beta: f64 =
            f.or("beta", 3.2, "proportional gain: p' += beta (qdelay - previous qdelay) per update, in seconds")?;
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            f.ensure(v.is_finite() && v >= 0.0, name, "must be a finite number >= 0")?;
        }
        let step_thresh: Duration = f.or(
            "step_thresh",
            Duration(1_000_000),
            "mark an L packet (ECT(1) or CE) whose sojourn time reaches this: the L queue's own shallow AQM",
        )?;
        let min_qlen_step: u32 =
            f.or("min_qlen_step", 0, "packets that must be queued in L for a step mark (0: any)")?;
        let coupling_factor: f64 = f.or(
            "coupling_factor",
            2.0,
            "k: L packets are marked with probability k p' while Classic ones see p'^2",
        )?;
        f.ensure(coupling_factor.is_finite() && coupling_factor > 0.0, "coupling_factor", "must be a number above 0")?;
        let classic_protection: u32 = f.or(
            "classic_protection",
            10,
            "percent of the bytes the Classic queue is guaranteed while both queues are backlogged",
        )?;
        f.ensure(classic_protection <= 100, "classic_protection", "must be a percentage, 0 to 100")?;
        let drop_overload = f.or(
            "drop_overload",
            true,
            "when k p' exceeds 1 (overload), drop with probability p'^2 from both queues instead of marking",
        )?;
        Ok(Params {
            limit,
            target,
            tupdate,
            alpha,
            beta,
            step_thresh,
            min_qlen_step,
            coupling_factor,
            classic_protection,
            drop_overload,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure decisions

/// Whether a packet with these flags belongs in the L queue: ECT(1) or CE (RFC 9331's
/// identifier; a CE packet may have been ECT(1) before an earlier bottleneck marked it).
pub fn is_l4s(packet_flags: u8) -> bool {
    packet_flags & flags::CE != 0 || (packet_flags & flags::ECT != 0 && packet_flags & flags::ECT1 != 0)
}

/// One PI2 update: the new base probability from the old one and the queueing delays (s).
pub fn pi2_update(p: f64, alpha: f64, beta: f64, target_s: f64, qdelay_s: f64, prev_qdelay_s: f64) -> f64 {
    (p + alpha * (qdelay_s - target_s) + beta * (qdelay_s - prev_qdelay_s)).clamp(0.0, 1.0)
}

/// `d` in seconds, as PI2's equation and the gauges take it.
fn secs(d: SimDuration) -> f64 {
    d.ns() as f64 / NS_PER_S as f64
}

// ---------------------------------------------------------------------------------------------
// The discipline

pub struct DualPi2 {
    p: Params,
    l: StampedFifo,
    c: StampedFifo,
    /// The base probability p'.
    prob: f64,
    prev_qdelay: SimDuration,
    /// When the next PI2 update is due (None before the first packet).
    next_update: Option<SimTime>,
    /// Classic protection credit, bytes x weight: L is served while it is <= 0.
    credit: i64,
}

impl DualPi2 {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        let mut q = DualPi2 {
            p: p.clone(),
            l: StampedFifo::default(),
            c: StampedFifo::default(),
            prob: 0.0,
            prev_qdelay: SimDuration::ZERO,
            next_update: None,
            credit: 0,
        };
        q.reset_credit();
        q
    }

    fn weights(&self) -> (i64, i64) {
        let wc = self.p.classic_protection as i64;
        (wc, 100 - wc)
    }

    fn reset_credit(&mut self) {
        let (wc, wl) = self.weights();
        self.credit = MTU as i64 * (wc - wl);
    }

    /// The base probability p'.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// The head packets' larger sojourn time at `t`.
    fn qdelay_at(&self, t: SimTime) -> SimDuration {
        [self.l.head_time(), self.c.head_time()]
            .into_iter()
            .flatten()
            .map(|e| t.saturating_since(e))
            .max()
            .unwrap_or(SimDuration::ZERO)
    }

    /// Run every PI2 update due by `now` (the queues have not changed since they were due).
    fn catch_up(&mut self, now: SimTime) {
        let tupdate = self.p.tupdate.sim();
        let Some(mut due) = self.next_update else {
            self.next_update = Some(now + tupdate);
            return;
        };
        let mut updated = false;
        while due <= now {
            let empty = self.l.is_empty() && self.c.is_empty();
            if self.prob == 0.0 && self.prev_qdelay == SimDuration::ZERO && empty {
                // Idle with p' = 0: the updates still due until now would change nothing.
                due += tupdate.saturating_mul((now - due).periods_of(tupdate) + 1);
                break;
            }
            let qdelay = self.qdelay_at(due);
            let before = self.prob;
            self.prob = pi2_update(
                self.prob,
                self.p.alpha,
                self.p.beta,
                secs(self.p.target.sim()),
                secs(qdelay),
                secs(self.prev_qdelay),
            );
            self.prev_qdelay = qdelay;
            due += tupdate;
            if due > now {
                break;
            }
            let remaining = (now - due).periods_of(tupdate) + 1;
            if updated && remaining >= 1000 && before == 0.0 && self.prob == 0.0 && !empty {
                // Held at 0 with the same head packets: the update at a later due keeps p' at 0
                // while alpha (qdelay - target) + beta tupdate <= 0, qdelay growing by tupdate
                // per update. Those updates are skipped at once (exact: p' stays 0), stopping
                // two short of the first that would raise it.
                let (alpha, beta) = (self.p.alpha, self.p.beta);
                let tu = secs(tupdate);
                let keep = if alpha > 0.0 {
                    let threshold = secs(self.p.target.sim()) - beta * tu / alpha;
                    let next = secs(self.qdelay_at(due));
                    ((threshold - next) / tu).floor().max(0.0).min(remaining as f64) as u64
                } else if beta == 0.0 {
                    remaining
                } else {
                    0
                };
                let skip = keep.saturating_sub(2).min(remaining);
                if skip > 0 {
                    due += tupdate.saturating_mul(skip);
                    self.prev_qdelay = self.qdelay_at(due - tupdate);
                    continue;
                }
            }
            if updated && remaining >= 1000 && before == 1.0 && self.prob == 1.0 && !empty {
                // Held at 1 with the same head packets: their delay grows by tupdate per update,
                // so (alpha, beta >= 0) every update still due adds at least as much: p' stays 1.
                // Jumped at once (a slow line leaves billions of them between two packets).
                let last = due + tupdate.saturating_mul(remaining - 1);
                self.prev_qdelay = self.qdelay_at(last);
                due = last + tupdate;
                break;
            }
            if updated && remaining >= 1000 && !empty {
                // Between the clamps, with the same head packets, the update at due + j tupdate
                // adds a + j b (qdelay grows by tupdate per update): p' after k of them is
                // p' + k a + b k (k - 1) / 2. The most updates that keep it within [0, 1] (found
                // by bisection: the sums are convex in k) are applied at once, less one, for
                // long waits only (rounding differs from the steps).
                let tu = secs(tupdate);
                let a = self.p.alpha * (secs(self.qdelay_at(due)) - secs(self.p.target.sim())) + self.p.beta * tu;
                let b = self.p.alpha * tu;
                let p0 = self.prob;
                let at = |k: f64| p0 + k * a + b * k * (k - 1.0) / 2.0;
                let within = |k: u64| {
                    let kf = k as f64;
                    let lowest = if b > 0.0 {
                        let vertex = (0.5 - a / b).clamp(0.0, kf);
                        at(vertex.floor()).min(at(vertex.ceil()))
                    } else {
                        at(kf).min(p0)
                    };
                    at(kf) <= 1.0 && lowest >= 0.0
                };
                let (mut lo, mut hi) = (0u64, remaining);
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    if within(mid) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                let skip = lo.saturating_sub(1);
                if skip > 0 {
                    self.prob = at(skip as f64).clamp(0.0, 1.0);
                    due += tupdate.saturating_mul(skip);
                    self.prev_qdelay = self.qdelay_at(due - tupdate);
                    continue;
                }
            }
            if updated && empty && remaining >= 1000 && self.prev_qdelay == SimDuration::ZERO {
                // Empty, so every update still due subtracts alpha x target: p' falls linearly
                // to 0, taken in one step (only for long waits: rounding differs from the steps).
                let fall = self.p.alpha * secs(self.p.target.sim());
                let steps = if fall > 0.0 { (self.prob / fall).ceil().min(remaining as f64) as u64 } else { remaining };
                self.prob = (self.prob - steps as f64 * fall).max(0.0);
                due += tupdate.saturating_mul(steps);
                continue;
            }
            updated = true;
        }
        self.next_update = Some(due);
    }

    /// Whether the controller may act: at least two MTUs queued, the dequeued packet included.
    fn may_act(&self, head_size: u32) -> bool {
        self.l.bytes() + self.c.bytes() + head_size as u64 >= 2 * MTU
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.catch_up(cx.now);
        let size = cx.pkts[pkt].size;
        if self.p.limit.overflows(self.len(), self.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if is_l4s(cx.pkts[pkt].flags) {
            self.l.push(pkt, cx.now, cx.pkts);
        } else {
            self.c.push(pkt, cx.now, cx.pkts);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.catch_up(cx.now);
        let k = self.p.coupling_factor;
        let overload = k * self.prob > 1.0;
        let (wc, wl) = self.weights();
        loop {
            let serve_l = !self.l.is_empty() && (self.c.is_empty() || self.credit <= 0);
            let both = !self.l.is_empty() && !self.c.is_empty();
            let (pkt, enqueued) = if serve_l {
                self.l.pop(cx.pkts)?
            } else if let Some(head) = self.c.pop(cx.pkts) {
                head
            } else {
                self.reset_credit();
                return None;
            };
            let size = cx.pkts[pkt].size;
            if both {
                self.credit += if serve_l { wc } else { -wl } * size as i64;
            }
            let act = self.may_act(size);
            let ect = cx.pkts[pkt].has(flags::ECT);
            if !serve_l {
                // Classic: squared probability; not-ECT (or any, under overload) dropped.
                if act && cx.rng.chance(self.prob * self.prob) {
                    if !ect || (overload && self.p.drop_overload) {
                        cx.victims.push((pkt, DropReason::DualPi2));
                        continue;
                    }
                    cx.mark(pkt, DropReason::DualPi2);
                }
                return Some(pkt);
            }
            // L4S.
            if overload {
                if act && self.p.drop_overload && cx.rng.chance(self.prob * self.prob) {
                    cx.victims.push((pkt, DropReason::DualPi2));
                    continue;
                }
                cx.mark(pkt, DropReason::DualPi2);
                return Some(pkt);
            }
            if act && cx.rng.chance(k * self.prob) {
                cx.mark(pkt, DropReason::DualPi2);
            } else if cx.now.saturating_since(enqueued) >= self.p.step_thresh.sim()
                && self.l.len() + 1 >= self.p.min_qlen_step as usize
            {
                cx.mark(pkt, DropReason::Step);
            }
            return Some(pkt);
        }
    }

    fn len(&self) -> usize {
        self.l.len() + self.c.len()
    }

    fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    fn limit(&self) -> Limit {
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("prob", self.prob));
        out.push(("p_c", self.prob * self.prob));
        out.push(("p_cl", (self.p.coupling_factor * self.prob).min(1.0)));
        out.push(("qdelay_s", secs(self.prev_qdelay)));
        out.push(("l_len", self.l.len() as f64));
        out.push(("c_len", self.c.len() as f64));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::super::harness::{link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    const MS: u64 = 1_000_000;
    const ECT0: u8 = flags::ECT;
    const ECT1: u8 = flags::ECT | flags::ECT1;

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    fn harness(text: &str) -> Harness<DualPi2> {
        Harness::new(DualPi2::new(&read(text).unwrap(), &link(4)), 7)
    }

    #[test]
    fn defaults_are_linux_sch_dualpi2_ones() {
        let p = read("").unwrap();
        assert_eq!(p.limit, Limit::Packets(10_000));
        assert_eq!((p.target, p.tupdate, p.step_thresh), (Duration(15 * MS), Duration(16 * MS), Duration(MS)));
        assert_eq!((p.alpha, p.beta, p.coupling_factor), (0.16, 3.2, 2.0));
        assert_eq!((p.classic_protection, p.drop_overload, p.min_qlen_step), (10, true, 0));
        let e = read("classic_protection = 101").unwrap_err();
        assert!(e.to_string().contains("classic_protection") && e.message.contains("0 to 100"), "{e}");
        assert!(read("tupdate = 0").unwrap_err().message.contains("above 0"));
        // A fuzz finding: 1 ns between updates on a 10 kbit/s line was a billion updates a packet.
        assert!(read("tupdate = \"999ns\"").unwrap_err().message.contains("1us or more"));
        assert!(read("tupdate = \"1us\"").is_ok());
        assert!(read("coupling_factor = 0").is_err());
    }

    #[test]
    fn ect1_and_ce_go_to_l_others_to_c() {
        // RFC 9332 A.1's classifier: ECN field ECT(1) or CE -> L; not-ECT or ECT(0) -> C.
        assert!(is_l4s(ECT1));
        assert!(is_l4s(flags::ECT | flags::CE));
        assert!(is_l4s(ECT1 | flags::CE));
        assert!(!is_l4s(0));
        assert!(!is_l4s(ECT0));
        let mut h = harness("");
        for f in [0, ECT0, ECT1, ECT0 | flags::CE] {
            h.offer_flags(0, 1000, f);
        }
        assert_eq!((h.q.l.len(), h.q.c.len()), (2, 2));
    }

    #[test]
    fn the_pi2_update_follows_the_rfc_formula() {
        // Five packets at t = 0; the first update is due one tupdate (16 ms) after the first
        // packet: qdelay = 16 ms, previous 0, so p' = 0.16 (0.016 - 0.015) + 3.2 (0.016 - 0)
        // = 0.00016 + 0.0512 = 0.05136.
        let mut h = harness("");
        for _ in 0..5 {
            h.offer(0, 1000);
        }
        h.now = 16 * MS;
        h.offer(0, 1000);
        assert!((h.q.prob() - 0.05136).abs() < 1e-12, "{}", h.q.prob());
        // The queue drains at once; at 32 ms qdelay is 0: p' = 0.05136 + 0.16 (0 - 0.015)
        // + 3.2 (0 - 0.016) = -0.00224, clamped to 0.
        while h.serve().is_some() {}
        h.now = 32 * MS;
        h.offer(0, 1000);
        assert_eq!(h.q.prob(), 0.0);
        // Pure function, with a value in range: 0.1 + 0.16 (0.020 - 0.015) + 3.2 (0.020 - 0.018).
        let p = pi2_update(0.1, 0.16, 3.2, 0.015, 0.020, 0.018);
        assert!((p - (0.1 + 0.0008 + 0.0064)).abs() < 1e-12);
        assert_eq!(pi2_update(0.99, 0.16, 3.2, 0.015, 0.5, 0.0), 1.0);
    }

    /// Serve `n` packets of `flags` from a queue held at p' = `prob`, refilling it; returns
    /// (marked, dropped) counts.
    fn at_prob(text: &str, prob: f64, packet_flags: u8, n: usize) -> (usize, usize) {
        let mut h = harness(text);
        // The controller only runs on the clock, which stays at 0; hold p' where the test sets it.
        h.q.next_update = Some(SimTime(u64::MAX));
        h.q.prob = prob;
        for _ in 0..n {
            while h.q.len() < 10 {
                h.offer_flags(0, 1000, packet_flags);
            }
            h.serve();
        }
        (h.marked.len(), h.dropped.len())
    }

    /// |observed - expected| within 4.5 standard deviations of a binomial count.
    fn binomial_ok(observed: usize, n: usize, p: f64) -> bool {
        let mean = n as f64 * p;
        (observed as f64 - mean).abs() <= 4.5 * (mean * (1.0 - p)).sqrt().max(1.0)
    }

    #[test]
    fn classic_packets_see_the_square_and_l_packets_k_times_the_base_probability() {
        let n = 40_000;
        let p = 0.2;
        // Not-ECT Classic: dropped with p'^2 = 0.04; ECT(0) Classic: marked with 0.04.
        let (marked, dropped) = at_prob("", p, 0, n);
        assert_eq!(marked, 0);
        // Each drop is followed by another packet from the queue: n served + drops offered.
        assert!(binomial_ok(dropped, n + dropped, p * p), "{dropped} of {n}");
        let (marked, dropped) = at_prob("", p, ECT0, n);
        assert_eq!(dropped, 0);
        assert!(binomial_ok(marked, n, p * p), "{marked}");
        // L4S: marked with k p' = 0.4 (none of these packets waited a step_thresh).
        let (marked, dropped) = at_prob("", p, ECT1, n);
        assert_eq!(dropped, 0);
        assert!(binomial_ok(marked, n, 2.0 * p), "{marked}");
        let (marked, _) = at_prob("coupling_factor = 1.5", p, ECT1, n);
        assert!(binomial_ok(marked, n, 1.5 * p), "{marked}");
    }

    #[test]
    fn overload_drops_from_both_queues_with_the_square() {
        // k p' = 1.2 > 1: L packets dropped with p'^2 = 0.36, the rest marked; ECT(0) Classic
        // packets dropped too.
        let n = 20_000;
        let (marked, dropped) = at_prob("", 0.6, ECT1, n);
        assert!(binomial_ok(dropped, n + dropped, 0.36), "{dropped}");
        assert_eq!(marked, n);
        let (marked, dropped) = at_prob("", 0.6, ECT0, n);
        assert_eq!(marked, 0);
        assert!(binomial_ok(dropped, n + dropped, 0.36), "{dropped}");
        // Without drop_overload every L packet is marked and none dropped.
        let (marked, dropped) = at_prob("drop_overload = false", 0.6, ECT1, n);
        assert_eq!((marked, dropped), (n, 0));
    }

    #[test]
    fn l_packets_are_marked_from_the_step_threshold_on() {
        let mut h = harness("");
        h.offer_flags(0, 1000, ECT1);
        h.offer_flags(0, 1000, ECT1);
        h.offer_flags(0, 1000, ECT1);
        h.now = MS - 1;
        h.serve();
        assert!(h.marked.is_empty(), "999.999 us: below the 1 ms step");
        h.now = MS;
        h.serve();
        assert_eq!(h.marked, vec![(0, DropReason::Step)]);
        // Classic packets are never step-marked.
        let mut h = harness("");
        h.offer_flags(0, 1000, ECT0);
        h.now = 100 * MS;
        h.serve();
        assert!(h.marked.is_empty());
    }

    #[test]
    fn nothing_is_dropped_below_two_mtus() {
        // p' = 1 would drop every not-ECT Classic packet, but one 1000-byte packet with one
        // more behind it is 2000 bytes < 3000: the guard holds.
        let mut h = harness("");
        h.offer(0, 1000);
        h.offer(0, 1000);
        h.q.next_update = Some(SimTime(u64::MAX));
        h.q.prob = 1.0;
        assert!(h.serve().is_some());
        assert!(h.serve().is_some());
        assert!(h.dropped.is_empty());
    }

    #[test]
    fn classic_protection_gives_c_its_share_of_bytes() {
        // Both queues backlogged with 1000-byte packets: C is served 10% of the time.
        for (protection, want) in [(10u32, 0.10), (30, 0.30), (50, 0.50)] {
            let mut h = harness(&format!("classic_protection = {protection}"));
            h.q.next_update = Some(SimTime(u64::MAX));
            let mut c_served = 0;
            for _ in 0..5000 {
                h.offer_flags(0, 1000, ECT1);
                h.offer_flags(1, 1000, 0);
                match h.serve() {
                    Some(1) => c_served += 1,
                    Some(_) => {}
                    None => panic!("backlogged"),
                }
            }
            let share = c_served as f64 / 5000.0;
            assert!((share - want).abs() < 0.002, "protection {protection}: C share {share}");
        }
    }
}
