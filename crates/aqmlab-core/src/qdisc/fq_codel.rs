//! FQ-CoDel: T. Hoeiland-Joergensen, P. McKenney, D. Taht, J. Gettys and E. Dumazet, "The Flow
//! Queue CoDel Packet Scheduler and Active Queue Management Algorithm", RFC 8290 (2018);
//! parameter names as Linux's sch_fq_codel (`limit`, `flows`, `quantum`, `target`, `interval`,
//! `memory_limit`, `ecn`, `ce_threshold`, `drop_batch`).
//!
//! The scheduler of [`super::flow_queues`] (hashed or exact flow queues, DRR++ over new and
//! old lists, drops from the fattest queue on overflow, reason `fattest_flow`) with CoDel
//! ([`super::codel`]) running on each queue at dequeue (reason `codel`). Gauges: `new_flows`
//! and `old_flows`, the lengths of the two lists.
//!
//! Choices and deviations (besides those of the two files it combines):
//! - `ecn` is on by default, as in Linux's fq_codel (off in its codel).
//! - CoDel's one-MTU rule looks at the bytes queued in all the queues, as Linux passes the
//!   qdisc's backlog to each queue's CoDel.

use serde::Serialize;

use super::codel::{CodelParams, CodelQueue, CodelVars, StampedFifo};
use super::flow_queues::{FlowAqm, FlowQueueParams, FlowQueues, Overflow};
use super::{DisciplineInfo, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Result};
use crate::packet::{PacketArena, PacketId};
use crate::units::SimTime;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "fq_codel",
    aliases: &[],
    summary: "Flow Queue CoDel (RFC 8290): hashed (or exact) flow queues served by DRR++ with new flows first, CoDel on each, drops from the fattest queue on overflow.",
    read: |f| Params::read(f).map(QdiscParams::FqCodel),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    #[serde(flatten)]
    pub queues: FlowQueueParams,
    #[serde(flatten)]
    pub codel: CodelParams,
    pub drop_batch: u32,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let queues = FlowQueueParams::read(f)?;
        let codel = CodelParams::read(f, true)?;
        let drop_batch: u32 = f.or(
            "drop_batch",
            64u32,
            "most packets dropped from the fattest queue at one overflow (until half its bytes are gone)",
        )?;
        f.ensure(drop_batch >= 1, "drop_batch", "allowed: 1 or more packets")?;
        Ok(Params { queues, codel, drop_batch })
    }
}

/// A flow queue as CoDel sees it: its packets, and the bytes of the whole buffer.
struct BufferView<'a> {
    queue: &'a mut StampedFifo,
    others: u64,
}

impl CodelQueue for BufferView<'_> {
    fn pop(&mut self, pkts: &PacketArena) -> Option<(PacketId, SimTime)> {
        self.queue.pop(pkts)
    }
    fn backlog(&self) -> u64 {
        self.others + self.queue.bytes()
    }
}

impl FlowAqm for CodelVars {
    type Params = CodelParams;

    fn dequeue(&mut self, p: &CodelParams, queue: &mut StampedFifo, others: u64, cx: &mut QdiscCtx) -> Option<PacketId> {
        CodelVars::dequeue(self, p, &mut BufferView { queue, others }, cx)
    }
}

pub struct FqCodel {
    codel: CodelParams,
    queues: FlowQueues<CodelVars>,
}

impl FqCodel {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        FqCodel {
            codel: p.codel,
            queues: FlowQueues::new(&p.queues, Overflow::FattestFlow { drop_batch: p.drop_batch }, link.n_flows),
        }
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.queues.enqueue(&self.codel, pkt, cx)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.queues.dequeue(&self.codel, cx)
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

    fn params(limit: u32, quantum: u64) -> Params {
        Params {
            queues: FlowQueueParams {
                limit: Limit::Packets(limit),
                flows: Classify::Exact,
                quantum: Bytes(quantum),
                memory_limit: Bytes(32 << 20),
            },
            codel: CodelParams {
                target: Duration(5 * MS),
                interval: Duration(100 * MS),
                ecn: true,
                ce_threshold: None,
                mtu: Bytes(1500),
            },
            drop_batch: 64,
        }
    }

    fn fq_codel(p: Params) -> Harness<FqCodel> {
        Harness::new(FqCodel::new(&p, &link(8)), 5)
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
    fn defaults_are_linux_sch_fq_codel_ones() {
        let p = read("").unwrap();
        assert_eq!(p.queues.limit, Limit::Packets(10240));
        assert_eq!(p.queues.flows, Classify::Hashed(1024));
        assert_eq!((p.queues.quantum, p.queues.memory_limit), (Bytes(1514), Bytes(32 << 20)));
        assert_eq!(p.drop_batch, 64);
        assert!(p.codel.ecn);
        assert_eq!(read("flows = \"exact\"").unwrap().queues.flows, Classify::Exact);
        assert!(read("flows = \"many\"").unwrap_err().message.contains("\"exact\""));
        assert!(read("flows = 0").is_err());
        assert!(read("drop_batch = 0").is_err());
    }

    #[test]
    fn deficit_with_a_quantum_smaller_than_the_packet() {
        // Quantum 500 bytes, packets of 1500: a queue sends one packet per three rounds. Two
        // backlogged flows each start with deficit 500 (> 0): flow 1 sends (500 - 1500 = -1000),
        // flow 2 sends (-1000). Then each needs two more quanta before its deficit is positive
        // again: -1000 -> -500 -> 0 -> 500, the queue moving to the tail of the old list at
        // each top-up. The order stays 1, 2, 1, 2, ... and the deficit sequence of flow 1 is
        // 500, -1000, -500, 0, 500, -1000.
        let mut h = fq_codel(params(100, 500));
        for _ in 0..4 {
            h.offer(1, 1500);
            h.offer(2, 1500);
        }
        assert_eq!(h.drain_flows(), vec![1, 2, 1, 2, 1, 2, 1, 2]);
        // Packets of 200 bytes: deficit 500 -> 300 -> 100 -> -100 (three packets), then +500 =
        // 400 -> 200 -> 0 (two), then +500 = 500 -> 300 (the last one).
        let mut h = fq_codel(params(100, 500));
        for _ in 0..6 {
            h.offer(1, 200);
        }
        for _ in 0..6 {
            h.offer(2, 200);
        }
        assert_eq!(h.drain_flows(), vec![1, 1, 1, 2, 2, 2, 1, 1, 2, 2, 1, 2]);
    }

    #[test]
    fn new_flows_are_served_before_old_ones() {
        // Flow 1 backlogged long enough to be old (it used its quantum); flow 2 then arrives
        // with one packet: it is new and goes first.
        let mut h = fq_codel(params(100, 1500));
        for _ in 0..5 {
            h.offer(1, 1500);
        }
        assert_eq!(h.serve(), Some(1)); // flow 1 new: deficit 1500 -> 0
        assert_eq!(h.serve(), Some(1)); // deficit 0: +1500, to the old list; then sends
        h.offer(2, 100);
        assert_eq!(h.serve(), Some(2), "the new flow jumps the old one");
        assert_eq!(h.serve(), Some(1));
    }

    #[test]
    fn an_emptied_new_flow_moves_to_the_old_list() {
        let mut h = fq_codel(params(100, 1500));
        h.offer(1, 100);
        assert_eq!(h.q.queues.list_lengths(), (1, 0));
        assert_eq!(h.serve(), Some(1));
        // Asked again with flow 1 empty: it goes to the old list, is found empty there, leaves.
        assert_eq!(h.serve(), None);
        assert_eq!(h.q.queues.list_lengths(), (0, 0));
        // Flow 2 (500-byte packets) sends three while new: deficit 1500 -> 0.
        for _ in 0..10 {
            h.offer(2, 500);
        }
        assert_eq!([h.serve(), h.serve(), h.serve()], [Some(2); 3]);
        // Flow 1 arrives: new. Flow 2 tops up (1500) and moves to the old list; flow 1 sends.
        h.offer(1, 100);
        assert_eq!(h.serve(), Some(1));
        // Flow 1, empty, moves from the new list to the tail of the old one, behind flow 2,
        // which sends (1500 -> 1000).
        assert_eq!(h.serve(), Some(2));
        assert_eq!(h.q.queues.list_lengths(), (0, 2));
        // A packet of flow 1 now finds it on the old list: it is not new, and waits for flow 2
        // to use up its deficit (1000 -> 500 -> 0).
        h.offer(1, 100);
        assert_eq!(h.drain_flows()[..3], [2, 2, 1]);
    }

    #[test]
    fn a_sparse_flow_is_never_dropped_beside_a_flood() {
        // Flow 1 floods at twice the line rate; flow 2 sends one small packet every 10 ms. The
        // line sends a 1500-byte packet every 1.2 ms (10 Mbps). Overflow takes flow 1's packets
        // (the fattest), CoDel drops only at flow 1's head; flow 2 always finds its queue empty,
        // goes first as new and waits for at most the packet in service.
        let mut h = fq_codel(params(50, 1514));
        for k in 0..20_000u64 {
            h.now = k * 600_000; // an arrival of flow 1 every 0.6 ms
            h.offer(1, 1500);
            if k % 2 == 1 {
                h.serve();
            }
            // (From the second on: at first flow 1 is new too, and ahead.)
            if k % 17 == 0 && k > 0 {
                h.offer(2, 100);
                assert_eq!(h.serve(), Some(2), "at {k}: the sparse packet goes next");
            }
        }
        assert!(h.dropped.len() > 5000, "the flood overflows: {}", h.dropped.len());
        assert!(h.dropped.iter().all(|&(f, _)| f == 1));
        assert!(h.dropped.iter().any(|&(_, why)| why == DropReason::FattestFlow));
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue_in_a_batch() {
        // Limit 10: flow 1 holds 8 packets of 1000 bytes, flow 2 holds 2. The 11th packet (flow
        // 2) overflows: the fattest is flow 1 (8000 bytes); drop from its head until half its
        // bytes (4000) are gone: 4 packets.
        let mut p = params(10, 1514);
        p.drop_batch = 64;
        let mut h = fq_codel(p.clone());
        for _ in 0..8 {
            h.offer(1, 1000);
        }
        h.offer(2, 1000);
        h.offer(2, 1000);
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::FattestFlow); 4]);
        assert_eq!(h.q.len(), 7);
        // drop_batch = 1: only one.
        p.drop_batch = 1;
        let mut h = fq_codel(p);
        for _ in 0..10 {
            h.offer(1, 1000);
        }
        assert_eq!(h.offer(1, 1000), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::FattestFlow)]);
    }

    #[test]
    fn an_arrival_that_overflows_its_own_single_packet_queue_is_refused() {
        // Limit 1: flow 1 holds one packet of 1500 bytes; flow 2's arrival of 100 bytes puts
        // the buffer over, and flow 1 is the fattest: its packet goes, the arrival stays.
        let mut h = fq_codel(params(1, 1514));
        h.offer(1, 1500);
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::FattestFlow)]);
        // Memory limit smaller than a packet: the arrival itself is the only thing to drop.
        let mut p = params(100, 1514);
        p.queues.memory_limit = Bytes(1000);
        let mut h = fq_codel(p);
        assert_eq!(h.offer(1, 1500), Verdict::Dropped(DropReason::FattestFlow));
        assert_eq!(h.q.len(), 0);
    }

    #[test]
    fn codel_acts_per_queue() {
        // Flow 1's queue has a standing 20-packet queue (sojourn time far above target), flow
        // 2 sends a packet now and then: after an interval CoDel drops flow 1's head packets,
        // never flow 2's.
        let mut p = params(1000, 1514);
        p.codel.ecn = false;
        let mut h = fq_codel(p);
        for _ in 0..20 {
            h.offer(1, 1000);
        }
        for k in 0..400u64 {
            h.now = k * MS;
            h.offer(1, 1000);
            if k % 10 == 0 {
                h.offer(2, 1000);
            }
            h.serve();
            if k % 10 == 0 {
                h.serve();
            }
        }
        assert!(!h.dropped.is_empty());
        assert!(h.dropped.iter().all(|&(f, why)| f == 1 && why == DropReason::Codel), "{:?}", h.dropped);
    }

    #[test]
    fn hashed_queues_keep_the_contract() {
        for seed in 1..=4 {
            let mut p = params(30, 300);
            p.queues.flows = Classify::Hashed(3);
            p.codel.target = Duration(MS);
            p.codel.interval = Duration(5 * MS);
            let mut h = Harness::new(FqCodel::new(&p, &link(8)), seed);
            hammer(&mut h, 5000, 8, seed);
        }
    }
}
