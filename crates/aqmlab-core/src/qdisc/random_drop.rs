//! Random Drop congestion recovery (RDCR): A. Mankin, "Random Drop Congestion Control",
//! SIGCOMM 1990 (sections 2 and 3); the algorithm proposed by V. Jacobson (IETF, 1989).
//!
//! The queue is first come, first served. Only when an arrival finds the buffer full does
//! the gateway act: instead of dropping the arrival, it draws j uniformly from {0, ..., Qmax}
//! (Qmax + 1 values): j = 0 drops the head of the queue (the next packet to be sent),
//! 1 <= j < Qmax the packet at position j, and j = Qmax the arrival itself ("the chance for
//! the arriving packet to be dropped is retained"). Whenever a queued packet is drawn, the
//! arrival is enqueued. The victim is thus uniform over the queued packets and the arrival,
//! so a connection is hit in proportion to its share of the queue.
//!
//! Deviations from the paper and choices it leaves open:
//! - The draw covers the packets queued now plus the arrival. With a limit in packets that is
//!   exactly Qmax + 1 values (the queue holds Qmax when it overflows).
//! - The packet being transmitted is not a candidate (our choice: 4.3BSD dequeues a SLIP
//!   packet before sending it). `in_service_candidate = true` adds it to the draw (Qmax + 2
//!   values); if it is drawn its transmission is aborted and the arrival is admitted: the
//!   transmitter takes the head at once, so the buffer is back within its limit at the same
//!   instant. That option needs a limit in packets.
//! - With a limit in bytes one victim may not make room: the draw is repeated (each time over
//!   the queue and the arrival) until the arrival fits or is itself drawn.
//! - Mankin's kernel used Knuth's subtractive generator; here the link's own random stream.

use serde::Serialize;

use super::fifo::Fifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Fields, Limit, Result};
use crate::packet::PacketId;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "random_drop",
    aliases: &["rdcr"],
    summary: "Random Drop congestion recovery (Mankin 1990): on overflow, drop a packet drawn uniformly from the queue and the arrival.",
    read: |f| Params::read(f).map(QdiscParams::RandomDrop),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    pub in_service_candidate: bool,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "buffer size (Qmax); an arrival that finds it full triggers the random draw",
        )?;
        let in_service_candidate: bool = f.or(
            "in_service_candidate",
            false,
            "also draw the packet being transmitted (aborting it); Mankin's BSD gateway did not",
        )?;
        f.ensure(
            !in_service_candidate || matches!(limit, Limit::Packets(_)),
            "in_service_candidate",
            "needs a limit in packets (aborting the transmission frees a packet slot, not a number of bytes)",
        )?;
        Ok(Params { limit, in_service_candidate })
    }
}

/// Which packet a draw names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The packet being transmitted.
    InService,
    /// The queued packet at this position (0 = head).
    Queued(usize),
    /// The arriving packet.
    Arrival,
}

/// Mankin's mapping of the draw `j`, uniform in `0..=queued` (or `0..=queued + 1` when the
/// packet in service is a candidate, which then takes j = 0): the head first, the arrival last.
pub fn rdcr_pick(j: usize, queued: usize, in_service: bool) -> Pick {
    let j = if in_service {
        match j {
            0 => return Pick::InService,
            j => j - 1,
        }
    } else {
        j
    };
    debug_assert!(j <= queued);
    if j == queued {
        Pick::Arrival
    } else {
        Pick::Queued(j)
    }
}

/// What this discipline counts beyond the link's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Draws made (one per victim).
    pub draws: u64,
    /// Draws that named the arrival.
    pub arrival_drawn: u64,
    /// Draws that named the packet in transmission.
    pub in_service_drawn: u64,
}

pub struct RandomDrop {
    p: Params,
    fifo: Fifo,
    pub counters: Counters,
}

impl RandomDrop {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        RandomDrop { p: p.clone(), fifo: Fifo::new(), counters: Counters::default() }
    }
}

impl QueueDisc for RandomDrop {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let size = cx.pkts[pkt].size;
        let mut in_service = if self.p.in_service_candidate { cx.in_service } else { None };
        while self.fifo.overflows(self.p.limit, size) {
            let candidates = self.fifo.len() + in_service.is_some() as usize + 1;
            let j = cx.rng.below(candidates);
            self.counters.draws += 1;
            match rdcr_pick(j, self.fifo.len(), in_service.is_some()) {
                Pick::Arrival => {
                    self.counters.arrival_drawn += 1;
                    return Verdict::Dropped(DropReason::RandomDrop);
                }
                Pick::InService => {
                    self.counters.in_service_drawn += 1;
                    let victim = in_service.take().expect("drawn only when present");
                    cx.victims.push((victim, DropReason::RandomDrop));
                    // The transmitter takes the head at once: the arrival has its slot.
                    break;
                }
                Pick::Queued(i) => {
                    let victim = self.fifo.remove(i, cx.pkts).expect("position within the queue");
                    cx.victims.push((victim, DropReason::RandomDrop));
                }
            }
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

    fn may_drop_in_service(&self) -> bool {
        self.p.in_service_candidate
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
    use super::super::harness::{link, Harness};
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::SimRng;

    fn rdcr(limit: Limit, seed: u64) -> Harness<RandomDrop> {
        Harness::new(RandomDrop::new(&Params { limit, in_service_candidate: false }, &link(8)), seed)
    }

    #[test]
    fn admits_freely_below_the_limit() {
        let mut h = rdcr(Limit::Packets(3), 1);
        for flow in [1, 2, 3] {
            assert_eq!(h.offer(flow, 100), Verdict::Enqueued);
        }
        assert!(h.dropped.is_empty());
        assert_eq!(h.q.counters.draws, 0);
    }

    #[test]
    fn draw_maps_head_first_and_the_arrival_last() {
        assert_eq!(rdcr_pick(0, 30, false), Pick::Queued(0));
        assert_eq!(rdcr_pick(29, 30, false), Pick::Queued(29));
        assert_eq!(rdcr_pick(30, 30, false), Pick::Arrival);
        assert_eq!(rdcr_pick(0, 30, true), Pick::InService);
        assert_eq!(rdcr_pick(1, 30, true), Pick::Queued(0));
        assert_eq!(rdcr_pick(31, 30, true), Pick::Arrival);
        assert_eq!(rdcr_pick(0, 0, false), Pick::Arrival);
    }

    #[test]
    fn overflow_drops_one_packet_and_admits_the_arrival_unless_drawn() {
        // Queue of flows 1..=4 (limit 4), then flow 9 arrives: exactly one packet goes.
        for seed in 0..50 {
            let mut h = rdcr(Limit::Packets(4), seed);
            for flow in 1..=4 {
                h.offer(flow, 100);
            }
            let v = h.offer(9, 100);
            assert_eq!(h.dropped.len(), 1);
            let (victim, why) = h.dropped[0];
            assert_eq!(why, DropReason::RandomDrop);
            let mut left = h.drain_flows();
            if victim == 9 {
                assert_eq!(v, Verdict::Dropped(DropReason::RandomDrop));
                assert_eq!(left, vec![1, 2, 3, 4]);
            } else {
                assert_eq!(v, Verdict::Enqueued);
                assert_eq!(left.pop(), Some(9), "the arrival joins the tail");
                let mut expect: Vec<u32> = (1..=4).filter(|&f| f != victim).collect();
                expect.sort();
                assert_eq!(left, expect, "the others keep their order");
            }
        }
    }

    #[test]
    fn victim_is_uniform_over_queue_positions_and_the_arrival() {
        // Limit 5: 6 candidates. The arrival is flow 0, the packet at position i is flow i + 1.
        // 60000 trials: 10000 expected per candidate; Pearson's chi-square with 5 degrees of
        // freedom exceeds 20.5 with probability 0.001.
        let trials = 60_000;
        let mut counts = [0u64; 6];
        let mut h = rdcr(Limit::Packets(5), 7);
        for _ in 0..trials {
            for flow in 1..=5 {
                h.offer(flow, 100);
            }
            h.dropped.clear();
            h.offer(0, 100);
            let (victim, _) = h.dropped[0];
            counts[if victim == 0 { 5 } else { victim as usize - 1 }] += 1;
            h.drain_flows();
        }
        let expected = trials as f64 / 6.0;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
        assert!(chi2 < 20.5, "chi-square {chi2:.2} for counts {counts:?} (head first, arrival last)");
    }

    #[test]
    fn byte_limit_draws_again_until_the_arrival_fits() {
        // 1000-byte buffer holding 10 x 100 bytes; a 250-byte arrival needs three victims
        // unless it is drawn first.
        for seed in 0..40 {
            let mut h = rdcr(Limit::Bytes(1000), seed);
            for _ in 0..10 {
                h.offer(1, 100);
            }
            let v = h.offer(2, 250);
            match v {
                Verdict::Enqueued => {
                    assert_eq!(h.dropped.len(), 3);
                    assert!(h.dropped.iter().all(|&(f, _)| f == 1));
                    assert_eq!(h.q.bytes(), 950);
                }
                Verdict::Dropped(DropReason::RandomDrop) => {
                    assert!(h.dropped.len() <= 3);
                    assert_eq!(h.dropped.last(), Some(&(2, DropReason::RandomDrop)));
                    assert_eq!(h.q.bytes(), 1000 - 100 * (h.dropped.len() as u64 - 1));
                }
                v => panic!("{v:?}"),
            }
        }
    }

    #[test]
    fn packet_in_service_is_drawn_only_when_asked() {
        let p = Params { limit: Limit::Packets(2), in_service_candidate: true };
        let mut seen_in_service = 0;
        for seed in 0..300 {
            let mut q = RandomDrop::new(&p, &link(4));
            let mut pkts = PacketArena::new();
            let mut rng = SimRng::from_seed(seed);
            let mut victims = vec![];
            let wire = pkts.alloc(Packet::data(7, 7, 99, 100));
            let ids: Vec<PacketId> = (0..3).map(|f| pkts.alloc(Packet::data(f, f, 99, 100))).collect();
            let mut cx =
                QdiscCtx {
                now: SimTime::ZERO,
                rng: &mut rng,
                pkts: &mut pkts,
                victims: &mut victims,
                marks: &mut Vec::new(),
                in_service: Some(wire),
            };
            q.enqueue(ids[0], &mut cx);
            q.enqueue(ids[1], &mut cx);
            let v = q.enqueue(ids[2], &mut cx);
            if victims == vec![(wire, DropReason::RandomDrop)] {
                seen_in_service += 1;
                assert_eq!(v, Verdict::Enqueued);
                assert_eq!(q.len(), 3, "until the transmitter takes the head");
            } else {
                assert!(q.len() <= 2);
            }
        }
        // 4 candidates: the wire is drawn with probability 1/4 (75 of 300, sd 7.5).
        assert!((45..=105).contains(&seen_in_service), "{seen_in_service}");
    }
}
