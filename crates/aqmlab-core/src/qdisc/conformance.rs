//! Test support: a [`Line`] that drives a discipline the way `sim.rs` does (arrivals see the
//! packet on the wire as `in_service`; the transmitter asks for the next packet when a
//! transmission ends, or at once when it is idle; a victim on the wire aborts it) and checks
//! the contract after every step; and property tests that hammer every discipline with random
//! traffic: the limit is never exceeded, every packet is sent or dropped exactly once, and
//! packet and byte counts agree with the packets actually queued.

use std::collections::BTreeMap;

use super::{DropReason, LinkInfo, QdiscCtx, QueueDisc, Verdict};
use crate::conf::Limit;
use crate::packet::{flags, Packet, PacketArena, PacketId, PacketKind};
use crate::rng::SimRng;
use crate::units::tx_time_ns;

/// What became of an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Queued,
    OnWire,
    Sent,
    /// Dropped on arrival (the verdict).
    Refused(DropReason),
    /// Removed after it was queued (or while on the wire).
    Evicted(DropReason),
}

/// A link around a discipline, for tests.
pub struct Line<Q: QueueDisc> {
    pub q: Q,
    pub pkts: PacketArena,
    rng: SimRng,
    rate_bps: u64,
    victims: Vec<(PacketId, DropReason)>,
    /// The packet on the wire and when its transmission ends.
    wire: Option<(PacketId, u64)>,
    pub now: u64,
    /// Every offered packet, by tag (the packet's `seq`): size and fate.
    pub offered: Vec<(u32, Fate)>,
    /// Tags and sizes of the packets the discipline holds, as far as the contract tells.
    queued: BTreeMap<u64, u32>,
}

impl<Q: QueueDisc> Line<Q> {
    pub fn new(q: Q, link: &LinkInfo, seed: u64) -> Self {
        Line {
            q,
            pkts: PacketArena::new(),
            rng: SimRng::from_seed(seed),
            rate_bps: link.rate_bps,
            victims: vec![],
            wire: None,
            now: 0,
            offered: vec![],
            queued: BTreeMap::new(),
        }
    }

    /// A data packet of `flow` (from node `flow` to node 1000) arrives at `t`.
    #[track_caller]
    pub fn arrive(&mut self, t: u64, flow: u32, size: u32) -> Verdict {
        self.offer(t, Packet::data(flow, flow, 1000, size))
    }

    /// An ACK of `flow` (from node 1000 to node `flow`) arrives at `t`.
    #[track_caller]
    pub fn arrive_ack(&mut self, t: u64, flow: u32, size: u32) -> Verdict {
        self.offer(t, Packet { kind: PacketKind::Ack, ..Packet::data(flow, 1000, flow, size) })
    }

    /// Offer `pkt` at `t` (transmissions that end by then finish first).
    #[track_caller]
    pub fn offer(&mut self, t: u64, pkt: Packet) -> Verdict {
        self.run_until(t);
        let tag = self.offered.len() as u64;
        let id = self.pkts.alloc(Packet { seq: tag, flags: pkt.flags & !flags::CE, enq_at: t, ..pkt });
        self.offered.push((pkt.size, Fate::Queued));
        let in_service = self.wire.map(|(w, _)| w);
        let mut cx = QdiscCtx { now: t, rng: &mut self.rng, pkts: &mut self.pkts, victims: &mut self.victims, in_service };
        let v = self.q.enqueue(id, &mut cx);
        match v {
            Verdict::Enqueued | Verdict::Marked => {
                assert_eq!(self.pkts[id].has(flags::CE), v == Verdict::Marked, "CE is set exactly on marked packets");
                self.queued.insert(tag, pkt.size);
            }
            Verdict::Dropped(why) => {
                self.offered[tag as usize].1 = Fate::Refused(why);
                self.pkts.free(id);
            }
        }
        assert!(self.victims.iter().all(|&(vid, _)| vid != id), "the arrival is reported in the verdict, never as a victim");
        self.take_victims();
        if self.wire.is_none() {
            self.start();
        }
        self.check();
        v
    }

    fn take_victims(&mut self) {
        let victims = std::mem::take(&mut self.victims);
        for (vid, why) in victims {
            let tag = self.pkts[vid].seq;
            if self.wire.map(|(w, _)| w) == Some(vid) {
                assert_eq!(self.offered[tag as usize].1, Fate::OnWire);
                self.wire = None;
                self.offered[tag as usize].1 = Fate::Evicted(why);
                self.pkts.free(vid);
                self.start();
            } else {
                assert!(self.queued.remove(&tag).is_some(), "victim {tag} was not queued");
                assert_eq!(self.offered[tag as usize].1, Fate::Queued, "victim {tag} dropped twice");
                self.offered[tag as usize].1 = Fate::Evicted(why);
                self.pkts.free(vid);
            }
        }
    }

    /// The idle transmitter takes its next packet.
    fn start(&mut self) {
        debug_assert!(self.wire.is_none());
        let mut cx = QdiscCtx { now: self.now, rng: &mut self.rng, pkts: &mut self.pkts, victims: &mut self.victims, in_service: None };
        let next = self.q.dequeue(&mut cx);
        self.take_victims();
        if let Some(id) = next {
            let tag = self.pkts[id].seq;
            assert!(self.queued.remove(&tag).is_some(), "dequeued {tag}, which was not queued");
            self.offered[tag as usize].1 = Fate::OnWire;
            self.wire = Some((id, self.now + tx_time_ns(self.pkts[id].size, self.rate_bps)));
        }
    }

    /// Let time run to `t`: transmissions that end by then complete.
    pub fn run_until(&mut self, t: u64) {
        assert!(t >= self.now, "time runs forward");
        while let Some((id, end)) = self.wire {
            if end > t {
                break;
            }
            self.now = end;
            let tag = self.pkts[id].seq;
            self.offered[tag as usize].1 = Fate::Sent;
            self.pkts.free(id);
            self.wire = None;
            self.start();
            self.check();
        }
        self.now = t;
    }

    /// Run until the line is idle and the queue empty.
    pub fn drain(&mut self) {
        while let Some((_, end)) = self.wire {
            self.run_until(end);
        }
        assert_eq!(self.q.len(), 0, "an idle line with packets queued");
    }

    /// The contract, now.
    #[track_caller]
    fn check(&self) {
        assert_eq!(self.q.len(), self.queued.len(), "len() disagrees with the packets queued");
        let bytes: u64 = self.queued.values().map(|&s| s as u64).sum();
        assert_eq!(self.q.bytes(), bytes, "bytes() disagrees with the packets queued");
        match self.q.limit() {
            Limit::Packets(n) => assert!(self.q.len() <= n as usize, "{} packets queued, limit {n}", self.q.len()),
            Limit::Bytes(b) => assert!(self.q.bytes() <= b, "{} bytes queued, limit {b}", self.q.bytes()),
            Limit::Unbounded => {}
        }
        let mut g = vec![];
        self.q.gauges(&mut g);
        assert!(g.iter().all(|(_, v)| v.is_finite()), "{g:?}");
    }

    /// After `drain`: every packet was sent or dropped exactly once; packets and bytes add up.
    #[track_caller]
    pub fn check_accounting(&self) -> (usize, usize, usize) {
        assert!(self.wire.is_none() && self.queued.is_empty());
        let (mut sent, mut refused, mut evicted) = (0, 0, 0);
        let (mut sent_b, mut dropped_b, mut total_b) = (0u64, 0u64, 0u64);
        for &(size, fate) in &self.offered {
            total_b += size as u64;
            match fate {
                Fate::Sent => {
                    sent += 1;
                    sent_b += size as u64;
                }
                Fate::Refused(_) => {
                    refused += 1;
                    dropped_b += size as u64;
                }
                Fate::Evicted(_) => {
                    evicted += 1;
                    dropped_b += size as u64;
                }
                f => panic!("a packet left in state {f:?}"),
            }
        }
        assert_eq!(sent + refused + evicted, self.offered.len());
        assert_eq!(sent_b + dropped_b, total_b);
        assert_eq!(self.pkts.live(), 0, "packets leaked");
        (sent, refused, evicted)
    }
}

/// Random traffic: phases of overload and of light load, mixed sizes, some ACKs, bursts at
/// the same instant. Returns (sent, refused, evicted).
pub fn hammer<Q: QueueDisc>(make: impl Fn(&LinkInfo) -> Q, seed: u64) -> (usize, usize, usize) {
    let link = LinkInfo { rate_bps: 10_000_000, n_flows: 6, mean_packet_size: 500 };
    let mut line = Line::new(make(&link), &link, seed);
    let mut rng = SimRng::from_seed(seed ^ 0x5eed_5eed);
    let packet_ns = tx_time_ns(500, link.rate_bps) as f64;
    let mut t = 0u64;
    for k in 0..6000 {
        let load = if (k / 600) % 2 == 0 { 2.5 } else { 0.3 };
        if !rng.chance(0.2) {
            t += rng.exponential(packet_ns / load).round() as u64;
        }
        // Flow 0 sends half the packets; flows 1..5 share the rest.
        let flow = if rng.chance(0.5) { 0 } else { 1 + rng.below(5) as u32 };
        if rng.chance(0.1) {
            line.arrive_ack(t, flow, 40);
        } else {
            line.arrive(t, flow, [40, 200, 576, 1000, 1500][rng.below(5)]);
        }
    }
    line.drain();
    line.check_accounting()
}

#[cfg(test)]
mod tests {
    use super::super::{decbit, droptail, early_random_drop, fq, fq_bit, random_drop};
    use super::*;
    use crate::conf::{Bytes, Prob};

    const LIMITS: [Limit; 3] = [Limit::Packets(20), Limit::Bytes(12_000), Limit::Packets(1)];

    /// Every seed and limit: the contract holds, and the run did drop packets (the limit was
    /// exercised) and did send most of them.
    fn every_run<Q: QueueDisc>(make: impl Fn(Limit, &LinkInfo) -> Q) {
        for limit in LIMITS {
            for seed in 1..=4 {
                let (sent, refused, evicted) = hammer(|l| make(limit, l), seed);
                assert!(refused + evicted > 100, "{limit:?}: the limit was never exercised");
                assert!(sent > 1000, "{limit:?}: only {sent} sent");
            }
        }
    }

    fn fq_params(limit: Limit) -> fq::Params {
        fq::Params { limit, delta: Bytes(0), user: fq::User::Pair, pushout_ties: fq::PushoutTies::LargerId, weights: fq::Weights::default() }
    }

    #[test]
    fn droptail_keeps_the_contract() {
        every_run(|limit, l| droptail::DropTail::new(&droptail::Params { limit }, l));
    }

    #[test]
    fn random_drop_keeps_the_contract() {
        every_run(|limit, l| random_drop::RandomDrop::new(&random_drop::Params { limit, in_service_candidate: false }, l));
        for seed in 1..=4 {
            let p = random_drop::Params { limit: Limit::Packets(10), in_service_candidate: true };
            let (_, _, evicted) = hammer(|l| random_drop::RandomDrop::new(&p, l), seed);
            assert!(evicted > 100);
        }
    }

    #[test]
    fn early_random_drop_keeps_the_contract() {
        every_run(|limit, l| {
            early_random_drop::EarlyRandomDrop::new(&early_random_drop::Params { limit, threshold: 0, drop_prob: Prob(0.05) }, l)
        });
    }

    #[test]
    fn fq_keeps_the_contract() {
        every_run(|limit, l| fq::Fq::new(&fq_params(limit), l));
        for (user, ties, delta) in [
            (fq::User::Source, fq::PushoutTies::Random, 0),
            (fq::User::Flow, fq::PushoutTies::LargerId, 1500),
            (fq::User::Pair, fq::PushoutTies::Random, 300),
        ] {
            every_run(|limit, l| fq::Fq::new(&fq::Params { user, pushout_ties: ties, delta: Bytes(delta), ..fq_params(limit) }, l));
        }
        every_run(|limit, l| fq::Fq::new(&fq::Params { user: fq::User::Flow, weights: fq::Weights(vec![3, 1, 2]), ..fq_params(limit) }, l));
        let (_, refused, evicted) = hammer(|l| fq::Fq::new(&fq_params(Limit::Unbounded), l), 9);
        assert_eq!(refused + evicted, 0, "an unbounded FQ drops nothing");
    }

    #[test]
    fn fq_bit_keeps_the_contract() {
        every_run(|limit, l| fq_bit::FqBit::new(&fq_bit::Params { fq: fq_params(limit), alpha: 0.5 }, l));
    }

    #[test]
    fn decbit_keeps_the_contract() {
        for selective in [false, true] {
            every_run(|limit, l| {
                decbit::DecBit::new(&decbit::Params { limit, threshold: 1.0, selective, user: fq::User::Pair, capacity_factor: 0.9 }, l)
            });
        }
    }
}
