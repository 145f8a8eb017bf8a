//! FRED, Flow Random Early Drop: D. Lin and R. Morris, "Dynamics of Random Early Detection",
//! ACM SIGCOMM 1997 (the algorithm of their section 4, "FRED").
//!
//! RED's average and thresholds (`red.rs`: its average, zones and count spacing are reused),
//! plus per-active-flow accounting: qlen_i (packets of flow i queued) and strike_i (times flow i
//! overran its allowance), kept while the flow has packets queued. Globals: nactive (flows with
//! packets queued), avgcq = max(1, avg / nactive), the average per-flow queue, and maxq, the
//! per-flow allowance: min_th, or 2 once avg >= max_th.
//!
//! ```text
//! arrival of a packet of flow i:
//!   if qlen_i >= maxq  or  (avg >= max_th and qlen_i > 2 avgcq)  or  (qlen_i >= avgcq and strike_i > 1):
//!       strike_i += 1; drop                                   (non-adaptive flow: flow_limit)
//!   if min_th <= avg < max_th:
//!       count += 1
//!       if qlen_i >= max(minq, avgcq):                        (only robust flows are dropped)
//!           p_b = max_p (avg - min_th) / (max_th - min_th); p_a = p_b / (1 - count p_b)
//!           with probability p_a: drop, count = 0             (early)
//!   elif avg < min_th: count = -1                             (no drop)
//!   else: count = 0; drop                                     (drop-tail mode: forced)
//!   enqueue; qlen_i += 1
//! departure of a packet of flow i: qlen_i -= 1; a flow with qlen_i = 0 is forgotten (strike too)
//! ```
//!
//! The average is updated at every departure (with the queue after it) and at arrivals to an
//! empty queue (with the idle-time decay), not at every arrival: FRED's change to RED, so that
//! avg follows the queue down as well as up.
//!
//! Deviations and choices the paper leaves open:
//! - A flow is the scenario's flow.
//! - The idle-time decay is RED's (`red.rs`): idle time over the typical transmission time of
//!   the scenario's mean data packet.
//! - count restarts at -1 in the no-drop zone as printed, so the first arrival of the random-drop
//!   zone has count 0 (p_a = p_b).
//! - An admitted packet that does not fit in `limit` is dropped (overflow) and counts as nothing
//!   else.
//!
//! Traced gauges: `avg`, `avgcq`, `n_active`.

use serde::Serialize;

use super::fifo::Fifo;
use super::red::{red_zone, spaced_probability, RedCore, RedParams, RedZone};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Prob, Result};
use crate::packet::PacketId;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "fred",
    aliases: &["flow_red"],
    summary: "Flow Random Early Drop (Lin & Morris 1997): RED with per-active-flow queue counts and strikes; non-adaptive flows held to their share.",
    read: |f| Params::read(f).map(QdiscParams::Fred),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    pub w_q: f64,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// Packets a flow may always have queued without a random drop.
    pub minq: f64,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "physical buffer: an admitted packet that does not fit is dropped (overflow)",
        )?;
        let w_q: f64 = f.or("w_q", 0.002, "w_q: weight of the newest sample in the average queue length (the paper's 0.002)")?;
        f.ensure(w_q > 0.0 && w_q <= 1.0, "w_q", format!("{w_q} is not a weight (allowed: above 0, at most 1)"))?;
        let min_th: f64 = f.or(
            "min_th",
            5.0,
            "min_th, packets: random drops start; also each flow's allowance maxq below max_th",
        )?;
        f.ensure(min_th >= 1.0, "min_th", "must be at least 1 packet (it is each flow's allowance)")?;
        let max_th: f64 = f.or("max_th", 15.0, "max_th, packets: above it every arrival is dropped and maxq = 2")?;
        f.ensure(max_th > min_th, "max_th", format!("must be above min_th ({min_th})"))?;
        let max_p: Prob = f.or("max_p", Prob(0.02), "max_p: p_b at max_th (the paper's 0.02)")?;
        let minq: f64 = f.or(
            "minq",
            2.0,
            "packets a flow may have queued before it can be dropped at random (the paper: 2, or 4 with large buffers)",
        )?;
        f.ensure(minq >= 0.0, "minq", "must not be negative")?;
        Ok(Params { limit, w_q, min_th, max_th, max_p: max_p.0, minq })
    }

    fn red(&self) -> RedParams {
        RedParams {
            w_q: self.w_q,
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            wait: false,
            gentle: false,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules

/// The per-flow allowance maxq: min_th, or 2 once the average reaches max_th.
#[inline]
pub fn maxq(avg: f64, min_th: f64, max_th: f64) -> f64 {
    if avg >= max_th {
        2.0
    } else {
        min_th
    }
}

/// avgcq = max(1, avg / nactive) (avg itself with no active flow).
#[inline]
pub fn avgcq(avg: f64, nactive: usize) -> f64 {
    let per_flow = if nactive > 0 { avg / nactive as f64 } else { avg };
    per_flow.max(1.0)
}

/// FRED's test for a non-adaptive flow: flow i with `qlen` packets queued and `strike` strikes.
#[inline]
pub fn is_non_adaptive(qlen: f64, strike: u32, avg: f64, max_th: f64, maxq: f64, avgcq: f64) -> bool {
    qlen >= maxq || (avg >= max_th && qlen > 2.0 * avgcq) || (qlen >= avgcq && strike > 1)
}

// ---------------------------------------------------------------------------------------------
// State

#[derive(Clone, Copy, Debug, Default)]
struct FlowState {
    qlen: u32,
    strike: u32,
}

pub struct Fred {
    p: Params,
    core: RedCore,
    fifo: Fifo,
    flows: Vec<FlowState>,
    nactive: usize,
    /// The paper's count (-1 in the no-drop zone).
    count: i64,
}

impl Fred {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        Fred {
            p: p.clone(),
            core: RedCore::new(&p.red(), link),
            fifo: Fifo::new(),
            flows: vec![FlowState::default(); link.n_flows],
            nactive: 0,
            count: -1,
        }
    }

    pub fn avg(&self) -> f64 {
        self.core.avg()
    }

    pub fn avgcq(&self) -> f64 {
        avgcq(self.core.avg(), self.nactive)
    }

    /// Packets and strikes of `flow` (zero once it has nothing queued).
    pub fn flow_state(&self, flow: u32) -> (u32, u32) {
        self.flows.get(flow as usize).map_or((0, 0), |s| (s.qlen, s.strike))
    }

    fn state(&mut self, flow: u32) -> &mut FlowState {
        let i = flow as usize;
        if i >= self.flows.len() {
            self.flows.resize(i + 1, FlowState::default());
        }
        &mut self.flows[i]
    }

    #[cfg(test)]
    fn pin_avg(&mut self, avg: f64) {
        self.core.pin_avg(avg);
    }
}

impl QueueDisc for Fred {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if self.fifo.is_empty() {
            let idle = cx.in_service.is_none();
            self.core.update_avg(cx.now, 0, idle);
        }
        let avg = self.core.avg();
        let (min_th, max_th) = (self.p.min_th, self.p.max_th);
        let cq = avgcq(avg, self.nactive);
        let flow = cx.pkts[pkt].flow;
        let st = *self.state(flow);
        if is_non_adaptive(st.qlen as f64, st.strike, avg, max_th, maxq(avg, min_th, max_th), cq) {
            self.state(flow).strike += 1;
            return Verdict::Dropped(DropReason::FlowLimit);
        }
        match red_zone(&self.p.red(), avg) {
            RedZone::Early { p_b } => {
                self.count += 1;
                if st.qlen as f64 >= self.p.minq.max(cq) {
                    let p_a = spaced_probability(p_b, self.count.max(0) as u64, false);
                    if cx.rng.chance(p_a) {
                        self.count = 0;
                        return Verdict::Dropped(DropReason::Early);
                    }
                }
            }
            RedZone::Below => self.count = -1,
            RedZone::Forced => {
                self.count = 0;
                return Verdict::Dropped(DropReason::Forced);
            }
        }
        if self.fifo.overflows(self.p.limit, cx.pkts[pkt].size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.state(flow).qlen == 0 {
            self.nactive += 1;
        }
        self.state(flow).qlen += 1;
        self.fifo.push(pkt, cx.pkts);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        let Some(pkt) = self.fifo.pop(cx.pkts) else {
            self.core.went_idle(cx.now);
            return None;
        };
        self.core.update_avg(cx.now, self.fifo.len(), false);
        let st = self.state(cx.pkts[pkt].flow);
        st.qlen -= 1;
        if st.qlen == 0 {
            // The flow leaves the table: its strikes are forgotten.
            *st = FlowState::default();
            self.nactive -= 1;
        }
        Some(pkt)
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
        out.push(("avgcq", self.avgcq()));
        out.push(("n_active", self.nactive as f64));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, n_flows: u64) -> u64 {
    n_flows
}

#[cfg(test)]
mod tests {
    use super::super::harness::{hammer, link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    fn fred(p: Params) -> Harness<Fred> {
        Harness::new(Fred::new(&p, &link(8)), 9)
    }

    #[test]
    fn reads_the_papers_constants() {
        let p = read("").unwrap();
        assert_eq!((p.w_q, p.max_p, p.minq, p.min_th, p.max_th), (0.002, 0.02, 2.0, 5.0, 15.0));
        assert!(read("min_th = 0.5").unwrap_err().message.contains("at least 1 packet"));
        assert!(read("min_th = 5\nmax_th = 5").is_err());
    }

    #[test]
    fn the_rules_read_like_the_paper() {
        assert_eq!(maxq(4.0, 5.0, 15.0), 5.0);
        assert_eq!(maxq(15.0, 5.0, 15.0), 2.0);
        assert_eq!(avgcq(6.0, 3), 2.0);
        assert_eq!(avgcq(1.0, 4), 1.0);
        assert_eq!(avgcq(3.0, 0), 3.0);
        // qlen at the allowance; above twice the average per-flow queue past max_th; at the
        // average per-flow queue with two strikes.
        assert!(is_non_adaptive(5.0, 0, 4.0, 15.0, 5.0, 1.0));
        assert!(!is_non_adaptive(4.0, 0, 4.0, 15.0, 5.0, 1.0));
        assert!(is_non_adaptive(1.0, 0, 16.0, 15.0, 2.0, 0.4));
        assert!(is_non_adaptive(3.0, 2, 8.0, 15.0, 5.0, 3.0));
        assert!(!is_non_adaptive(3.0, 1, 8.0, 15.0, 5.0, 3.0));
        assert!(!is_non_adaptive(2.0, 5, 8.0, 15.0, 5.0, 3.0));
    }

    #[test]
    fn a_flow_over_its_allowance_is_struck_and_then_held_to_the_average() {
        // min_th 3, max_th 6, w_q 1 (avg = queue after the last departure).
        let p = Params { w_q: 1.0, min_th: 3.0, max_th: 6.0, max_p: 0.02, minq: 2.0, ..read("").unwrap() };
        let mut h = fred(p);
        // avg 0: flow 1 may queue maxq = min_th = 3 packets; the 4th and 5th are struck.
        for _ in 0..3 {
            assert_eq!(h.offer(1, 1000), Verdict::Enqueued);
        }
        assert_eq!(h.offer(1, 1000), Verdict::Dropped(DropReason::FlowLimit));
        assert_eq!(h.offer(1, 1000), Verdict::Dropped(DropReason::FlowLimit));
        assert_eq!(h.q.flow_state(1), (3, 2));
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
        // A departure (flow 1's): queue 3, avg 3, two active flows: avgcq 1.5.
        assert_eq!(h.serve(), Some(1));
        assert_eq!((h.q.avg(), h.q.avgcq()), (3.0, 1.5));
        // Flow 1 (2 queued, below maxq) is at or above avgcq with 2 strikes: dropped, struck again.
        assert_eq!(h.offer(1, 1000), Verdict::Dropped(DropReason::FlowLimit));
        assert_eq!(h.q.flow_state(1), (2, 3));
        // Flow 2 (1 queued < avgcq) passes; in the random-drop zone it is below max(minq, avgcq),
        // so it cannot be dropped at random.
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
        // Once flow 1's packets have all left, its strikes are forgotten.
        h.drain_flows();
        assert_eq!(h.q.flow_state(1), (0, 0));
    }

    #[test]
    fn above_max_th_every_arrival_is_dropped_and_the_allowance_is_two() {
        let p = Params { w_q: 1.0, min_th: 2.0, max_th: 4.0, limit: Limit::Packets(100), ..read("").unwrap() };
        let mut h = fred(p);
        for f in [0, 1, 1, 2, 3, 4] {
            assert_eq!(h.offer(f, 1000), Verdict::Enqueued);
        }
        // Flow 0 leaves: queue 5, avg 5 >= max_th: maxq = 2; 4 active flows, avgcq 1.25.
        assert_eq!(h.serve(), Some(0));
        assert_eq!((h.q.avg(), h.q.avgcq()), (5.0, 1.25));
        // Flow 3 (1 queued) is within its allowance: dropped by the drop-tail mode.
        assert_eq!(h.offer(3, 1000), Verdict::Dropped(DropReason::Forced));
        // Flow 1 (2 queued) is at maxq = 2: dropped as non-adaptive, and struck.
        assert_eq!(h.offer(1, 1000), Verdict::Dropped(DropReason::FlowLimit));
        assert_eq!(h.q.flow_state(1), (2, 1));
    }

    #[test]
    fn only_robust_flows_are_dropped_at_random() {
        // min_th 10, max_th 40, max_p 1, the average held at 30 (no departure updates it):
        // p_b = 2/3. Ten flows with a packet each: avgcq = 30 / 10 = 3, so a flow is robust
        // from max(minq, avgcq) = 3 packets queued; the count is large by then, p_a = 1.
        let p = Params { min_th: 10.0, max_th: 40.0, max_p: 1.0, minq: 2.0, limit: Limit::Packets(1000), ..read("").unwrap() };
        let mut h = fred(p);
        h.offer(9, 1000); // the first arrival finds the queue empty and updates the average
        h.q.pin_avg(30.0);
        for f in 0..9 {
            assert_eq!(h.offer(f, 1000), Verdict::Enqueued);
        }
        assert_eq!(h.q.avgcq(), 3.0);
        assert_eq!(h.offer(0, 1000), Verdict::Enqueued); // qlen 1 < 3
        assert_eq!(h.offer(0, 1000), Verdict::Enqueued); // qlen 2 < 3
        assert_eq!(h.offer(0, 1000), Verdict::Dropped(DropReason::Early)); // qlen 3: robust
        assert_eq!(h.q.flow_state(0), (3, 0), "a random drop is not a strike");
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            let p = Params { limit, w_q: 0.05, min_th: 3.0, max_th: 9.0, max_p: 0.2, minq: 2.0 };
            let mut h = fred(p);
            hammer(&mut h, 20_000, 8, seed);
        }
    }
}
