//! Early Random Drop: the congestion-avoidance use of Random Drop that A. Mankin, "Random
//! Drop Congestion Control", SIGCOMM 1990 (section 1.2), discusses and sets aside (evaluated
//! by E. Hashem, MIT 1989/1990).
//!
//! While the queue is longer than a drop level (`threshold`), each arriving packet is dropped
//! with a fixed probability (`drop_prob`), before the queue overflows; a connection sending
//! more packets loses more of them. Otherwise, and for the packets it spares, the gateway is
//! first come first served with tail drop at the buffer limit.
//!
//! Deviations from the paper and choices it leaves open:
//! - Mankin gives the concept, not the numbers: the drop level and the probability are
//!   required parameters, with no default.
//! - "Above the threshold" means the waiting packets (not counting the one being transmitted)
//!   number more than `threshold` when the packet arrives. The drop level is in packets even
//!   when the buffer limit is in bytes.
//! - The fixed-probability draw comes before the limit check: an early drop is counted as
//!   early even when the buffer was also full.

use serde::Serialize;

use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Prob, Result};
use crate::packet::PacketId;
use crate::rng::SimRng;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "early_random_drop",
    aliases: &["erd"],
    summary: "Early Random Drop (Mankin 1990, Hashem 1989): above a queue length, drop arrivals with a fixed probability; tail drop at the limit.",
    read: |f| Params::read(f).map(QdiscParams::EarlyRandomDrop),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// Drop level, packets waiting.
    pub threshold: u32,
    pub drop_prob: Prob,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or("limit", Limit::Packets(100), "buffer size (tail drop when full)")?;
        let threshold: u32 = f.req("threshold", 0, "drop level: early drops while more than this many packets wait")?;
        let drop_prob: Prob = f.req(
            "drop_prob",
            Prob(0.0),
            "probability of dropping an arrival while the queue is above the drop level",
        )?;
        if let Limit::Packets(n) = limit {
            f.ensure(
                threshold < n,
                "threshold",
                format!("must be below the limit ({n} packets), or early drop never acts"),
            )?;
        }
        Ok(Params { limit, threshold, drop_prob })
    }
}

/// The early-drop rule for one arrival: above the drop level, drop with probability p.
/// Draws from `rng` only above the drop level.
pub fn erd_drops(waiting: usize, threshold: u32, p: f64, rng: &mut SimRng) -> bool {
    waiting > threshold as usize && rng.chance(p)
}

pub struct EarlyRandomDrop {
    p: Params,
    fifo: Fifo,
}

impl EarlyRandomDrop {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        EarlyRandomDrop { p: p.clone(), fifo: Fifo::new() }
    }
}

impl QueueDisc for EarlyRandomDrop {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if erd_drops(self.fifo.len(), self.p.threshold, self.p.drop_prob.0, cx.rng) {
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

    fn erd(limit: u32, threshold: u32, p: f64, seed: u64) -> Harness<EarlyRandomDrop> {
        Harness::new(
            EarlyRandomDrop::new(&Params { limit: Limit::Packets(limit), threshold, drop_prob: Prob(p) }, &link(4)),
            seed,
        )
    }

    #[test]
    fn never_drops_early_at_or_below_the_drop_level() {
        let mut h = erd(10, 3, 1.0, 1);
        for _ in 0..3 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
        // 3 waiting: not above the level, even with probability 1.
        assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        // 4 waiting: above.
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn drops_arrivals_above_the_level_with_the_given_probability() {
        // Hold the queue at 5 waiting (level 2): 40000 arrivals, each dropped with p = 0.3.
        // Binomial sd = sqrt(40000 * 0.21) = 92; allow 5 sd.
        let mut h = erd(100, 2, 0.3, 3);
        for _ in 0..5 {
            h.offer(1, 100);
        }
        let mut early = 0;
        for _ in 0..40_000 {
            match h.offer(2, 100) {
                Verdict::Dropped(DropReason::Early) => early += 1,
                Verdict::Enqueued => {
                    h.serve();
                }
                v => panic!("{v:?}"),
            }
        }
        assert!((early as f64 - 12_000.0).abs() < 460.0, "{early}");
    }

    #[test]
    fn tail_drops_at_the_limit_when_spared() {
        let mut h = erd(4, 2, 0.0, 1);
        for _ in 0..4 {
            assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        }
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Overflow));
    }
}
