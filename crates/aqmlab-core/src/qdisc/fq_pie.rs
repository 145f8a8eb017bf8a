//! FQ-PIE: the flow-queue scheduler of FQ-CoDel (RFC 8290, [`super::flow_queues`]) with PIE
//! (RFC 8033, [`super::pie`]) on each queue in place of CoDel, as Linux's sch_fq_pie (G. Ramakrishnan,
//! M. Bhasin, L. Monis and M. P. Tahiliani, 2020); parameter names as there (`limit`, `flows`,
//! `target`, `tupdate`, `alpha`, `beta`, `quantum`, `memory_limit`, `ecn`, `ecn_prob`,
//! `bytemode`).
//!
//! Each queue has its own PIE state: its drop probability is updated every `tupdate` from its
//! own delay estimate and backlog, and each arrival is decided by its queue's PIE (reason `pie`)
//! before it joins. A full buffer refuses the arrival (`overflow`), as Linux's fq_pie; with
//! `overflow = "fattest_flow"` it drops from the fattest queue instead, in batches of up to
//! `drop_batch`, as FQ-CoDel and ns-3's FqPieQueueDisc (reason `fattest_flow`). Gauges:
//! `new_flows`, `old_flows`.
//!
//! Choices and deviations (besides those of the files it combines):
//! - `memory_limit` refuses arrivals that would exceed it; Linux's fq_pie only counts them.
//! - With `ecn`, a packet is marked while its queue's p is at most `ecn_prob` percent (10).

use serde::Serialize;

use super::codel::StampedFifo;
use super::flow_queues::{FlowAqm, FlowQueueParams, FlowQueues, Overflow};
use super::pie::{PieParams, PieVars};
use super::{DisciplineInfo, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Fields, Limit, Result};
use crate::packet::PacketId;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "fq_pie",
    aliases: &[],
    summary: "Flow Queue PIE (Linux sch_fq_pie): FQ-CoDel's flow queues and DRR++ scheduler with PIE deciding arrivals on each queue.",
    read: |f| Params::read(f).map(QdiscParams::FqPie),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    #[serde(flatten)]
    pub queues: FlowQueueParams,
    #[serde(flatten)]
    pub pie: PieParams,
    pub overflow: Overflow,
}

choice_enum! {
    /// The `overflow` key: which [`Overflow`] (the fattest flow's takes `drop_batch` too).
    #[derive(Clone, Copy)]
    enum OverflowRule {
        TailDrop = "tail_drop",
        FattestFlow = "fattest_flow",
    }
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let queues = FlowQueueParams::read(f)?;
        let pie = PieParams::read(f, true)?;
        let rule = f.choice(
            "overflow",
            OverflowRule::TailDrop,
            "over the limit: refuse the arrival (Linux's fq_pie) or drop from the fattest queue (FQ-CoDel's rule, ns-3's FqPieQueueDisc)",
        )?;
        let drop_batch: u32 =
            f.or("drop_batch", 64u32, "with overflow = \"fattest_flow\": most packets dropped from the fattest queue at once")?;
        f.ensure(drop_batch >= 1, "drop_batch", "allowed: 1 or more packets")?;
        let overflow = match rule {
            OverflowRule::FattestFlow => Overflow::FattestFlow { drop_batch },
            OverflowRule::TailDrop => Overflow::TailDrop,
        };
        Ok(Params { queues, pie, overflow })
    }
}

impl FlowAqm for PieVars {
    type Params = PieParams;

    fn on_arrival(&mut self, p: &PieParams, queue: &StampedFifo, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        PieVars::on_arrival(self, p, queue, pkt, cx)
    }

    fn dequeue(&mut self, p: &PieParams, queue: &mut StampedFifo, _others: u64, cx: &mut QdiscCtx) -> Option<PacketId> {
        PieVars::dequeue(self, p, queue, cx)
    }
}

pub struct FqPie {
    pie: PieParams,
    queues: FlowQueues<PieVars>,
}

impl FqPie {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        FqPie { pie: p.pie, queues: FlowQueues::new(&p.queues, p.overflow, link.n_flows) }
    }
}

impl QueueDisc for FqPie {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.queues.enqueue(&self.pie, pkt, cx)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.queues.dequeue(&self.pie, cx)
    }

    fn len(&self) -> usize {
        self.queues.len()
    }

    fn bytes(&self) -> u64 {
        self.queues.bytes()
    }

    fn limit(&self) -> Limit {
        self.queues.limit()
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        let (new, old) = self.queues.list_lengths();
        out.push(("new_flows", new as f64));
        out.push(("old_flows", old as f64));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(p: &Params, n_flows: u64) -> u64 {
    p.queues.flows.entries(n_flows)
}

#[cfg(test)]
mod tests {
    use super::super::flow_queues::Classify;
    use super::super::harness::{hammer, link, Harness};
    use super::super::DropReason;
    use super::*;
    use crate::conf::{parse_toml, Bytes, Duration, Origin, Source};

    const MS: u64 = 1_000_000;

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    fn params(limit: u32) -> Params {
        let mut p = read("flows = \"exact\"").unwrap();
        p.queues.limit = Limit::Packets(limit);
        p
    }

    #[test]
    fn defaults_are_linux_sch_fq_pie_ones() {
        let p = read("").unwrap();
        assert_eq!(p.queues.limit, Limit::Packets(10240));
        assert_eq!(p.queues.flows, Classify::Hashed(1024));
        assert_eq!((p.queues.quantum, p.queues.memory_limit), (Bytes(1514), Bytes(32 << 20)));
        assert_eq!((p.pie.target, p.pie.tupdate), (Duration(15 * MS), Duration(15 * MS)));
        assert_eq!((p.pie.alpha, p.pie.beta, p.pie.ecn, p.pie.ecn_prob), (0.125, 1.25, false, 0.1));
        assert!(read("ecn_prob = 101").is_err());
        assert_eq!(p.overflow, Overflow::TailDrop);
        let p = read("overflow = \"fattest_flow\"\ndrop_batch = 8").unwrap();
        assert_eq!(p.overflow, Overflow::FattestFlow { drop_batch: 8 });
        assert!(read("overflow = \"head\"").is_err());
    }

    #[test]
    fn a_full_buffer_refuses_the_arrival_instead_of_robbing_the_fattest() {
        let mut h = Harness::new(FqPie::new(&params(3), &link(4)), 1);
        h.offer(1, 1000);
        h.offer(1, 1000);
        h.offer(2, 100);
        assert_eq!(h.offer(3, 100), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(h.q.len(), 3);
        // The ns-3 rule: the fattest queue (flow 1, 2000 bytes) loses its head.
        let mut p = params(3);
        p.overflow = Overflow::FattestFlow { drop_batch: 64 };
        let mut h = Harness::new(FqPie::new(&p, &link(4)), 1);
        h.offer(1, 1000);
        h.offer(1, 1000);
        h.offer(2, 100);
        assert_eq!(h.offer(3, 100), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::FattestFlow)]);
    }

    #[test]
    fn pie_acts_per_queue() {
        // Flow 1 arrives at twice the line's rate, flow 2 at a tenth of it: flow 1's queue builds
        // delay and PIE drops its arrivals; flow 2's queue never holds two MTUs, so PIE never
        // drops there.
        let mut h = Harness::new(FqPie::new(&params(100_000), &link(4)), 1);
        for k in 0..40_000u64 {
            h.now = k * MS / 2;
            h.offer(1, 1000);
            if k % 20 == 0 {
                h.offer(2, 1000);
            }
            if k % 2 == 0 {
                h.serve();
            }
        }
        assert!(h.dropped.len() > 1000, "{}", h.dropped.len());
        assert!(h.dropped.iter().all(|&(f, why)| f == 1 && why == DropReason::Pie));
    }

    #[test]
    fn hashed_queues_keep_the_contract() {
        for seed in 1..=4 {
            let mut p = params(30);
            p.queues.flows = Classify::Hashed(3);
            p.pie.target = Duration(MS);
            p.pie.tupdate = Duration(MS);
            p.pie.max_burst = Duration(2 * MS);
            p.pie.ecn = seed % 2 == 0;
            let mut h = Harness::new(FqPie::new(&p, &link(8)), seed);
            hammer(&mut h, 5000, 8, seed);
        }
    }
}
