//! DropTail (alias `fifo`): first come, first served; an arrival that does not fit in the
//! buffer is dropped. The baseline every paper compares against ("FCFS" in Demers, Keshav
//! and Shenker 1989; "Random Drop off" in Mankin 1990).

use serde::Serialize;

use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Result};
use crate::packet::PacketId;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "droptail",
    aliases: &["fifo"],
    summary: "First come first served with tail drop when the buffer is full.",
    read: |f| Params::read(f).map(QdiscParams::DropTail),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        Ok(Params { limit: f.or("limit", Limit::Packets(100), "buffer size")? })
    }
}

pub struct DropTail {
    limit: Limit,
    fifo: Fifo,
}

impl DropTail {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        DropTail { limit: p.limit, fifo: Fifo::new() }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
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

    fn droptail(limit: Limit) -> Harness<DropTail> {
        Harness::new(DropTail::new(&Params { limit }, &link(4)), 1)
    }

    #[test]
    fn drops_arrivals_beyond_a_packet_limit() {
        let mut h = droptail(Limit::Packets(2));
        assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.offer(3, 100), Verdict::Dropped(DropReason::Overflow));
        assert!(h.q.is_full(100));
        assert_eq!(h.drain_flows(), vec![1, 2]);
    }

    #[test]
    fn byte_limit_admits_what_fits() {
        let mut h = droptail(Limit::Bytes(250));
        assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        assert_eq!(h.offer(2, 200), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(h.offer(3, 150), Verdict::Enqueued);
        assert_eq!(h.q.bytes(), 250);
    }
}
