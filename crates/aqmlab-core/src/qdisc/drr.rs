//! Deficit Round Robin: M. Shreedhar and G. Varghese, "Efficient Fair Queuing using Deficit
//! Round Robin", SIGCOMM 1995 (the algorithm of their Fig. 3 and section 3).
//!
//! Each flow i has its own FIFO, a quantum Q_i (bytes) and a deficit counter DC_i. The
//! ActiveList holds the flows with packets queued, in round-robin order. A visit to the flow
//! at the head of the list adds Q_i to DC_i, then sends its head packets while the head's
//! size is at most DC_i, subtracting each size; a flow whose queue empties leaves the list
//! with DC_i = 0, a flow that still has packets goes to the tail keeping DC_i. An arrival to
//! an empty flow appends it to the list with DC_i = 0. Over any interval in which two flows
//! stay backlogged, the bytes they are sent differ by at most Q + Max (Max the largest packet)
//! per unit of quantum: throughput shares are byte-fair whatever the packet sizes. The buffer
//! is shared; when it is full a packet is dropped from the longest queue (section 3, "buffer
//! stealing").
//!
//! The round robin and the per-flow queues live in [`FlowQueues`], which SFQ (`sfq.rs`)
//! reuses with its own hash; [`grants_to_send`] is the pure rule behind the deficit counter.
//!
//! Deviations from the paper and choices it leaves open:
//! - The paper sends a flow's packets back to back in one visit; here the transmitter takes
//!   one packet per `dequeue`, and the visit goes on at the next `dequeue` (the head flow keeps
//!   its turn, its quantum granted once per visit): the order of transmissions is the paper's.
//! - Rounds in which no flow could send (a quantum smaller than the head packets) are skipped
//!   in one step, each flow's counter advancing by the quanta those rounds would have added:
//!   the same order as visiting them one by one, without a loop per byte of quantum.
//! - Flow identity: the scenario's flow (default, `buckets = 0`), or a seeded hash of it into
//!   `buckets` queues (flows that collide share a queue and its quantum). The hash seed is
//!   drawn from the link's random stream at the first arrival.
//! - Weights: flow i's quantum is `quantum` x weight_i (the paper's Q_i proportional to the
//!   reserved share), `weights = [2, 1, 1]` in the scenario's expanded flow order; flows beyond
//!   the list weigh 1. Weights name flows, so they need `buckets = 0`.
//! - Overflow: the arrival counts in its own queue; the queue with the most buffer per unit of
//!   weight loses its *last* packet (the arrival itself if its own queue is the longest), again
//!   until the arrival fits. Buffer is measured in the unit of `limit` (packets, or bytes for a
//!   byte limit). Ties: uniform among the tied queues, from the link's stream (a fixed order
//!   biases equally overloaded flows; see `fq.rs`). Reason `pushout`.
//! - The packet being transmitted is outside the buffer (as for every discipline here).
//!
//! Traced gauge: `active_queues` (the ActiveList's length).
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 440 or so.

use std::collections::VecDeque;

use serde::Serialize;

use super::fq::{pushout_pick, PushoutTies, Weights};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Bytes, Fields, Limit, Result};
use crate::packet::PacketId;
use crate::rng::SimRng;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "drr",
    aliases: &["deficit_round_robin"],
    summary: "Deficit Round Robin (Shreedhar & Varghese 1995): per-flow queues served by quantum and deficit counter; drop from the longest queue.",
    read: |f| Params::read(f).map(QdiscParams::Drr),
};

// ---------------------------------------------------------------------------------------------
// Parameters

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// Bytes a flow of weight 1 may send per round.
    pub quantum: Bytes,
    /// 0: every flow its own queue; otherwise flows hashed into this many queues.
    pub buckets: u32,
    pub weights: Weights,
}

/// The most queues a hash may have: the table is allocated whole.
pub const MAX_BUCKETS: u32 = 1 << 20;

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "shared buffer; when full, the longest queue (per unit of weight) loses its last packet",
        )?;
        let quantum: Bytes = f.or(
            "quantum",
            Bytes(1500),
            "bytes a flow of weight 1 may send per round (the paper's Q; at least the largest packet keeps the work per packet O(1))",
        )?;
        f.ensure(quantum.0 >= 1, "quantum", "must be at least 1 byte")?;
        let buckets: u32 = f.or(
            "buckets",
            0,
            "0: every flow has its own queue; N: flows are hashed (seeded) into N queues",
        )?;
        f.ensure(
            buckets <= MAX_BUCKETS,
            "buckets",
            format!("{buckets} is too many (allowed: 0 for exact flows, or 1 to {MAX_BUCKETS})"),
        )?;
        let weights: Weights = f.or(
            "weights",
            Weights::default(),
            "per-flow weights: flow i's quantum is quantum x weight_i, in the scenario's flow order; flows beyond the list weigh 1",
        )?;
        f.ensure(
            weights.0.is_empty() || buckets == 0,
            "weights",
            "weights name flows: they need buckets = 0 (every flow its own queue)",
        )?;
        Ok(Params { limit, quantum, buckets, weights })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules

/// How many more grants of `quantum` a flow with deficit counter `deficit` needs before its
/// head packet of `head` bytes fits (0 when it fits now).
#[inline]
pub fn grants_to_send(deficit: u64, quantum: u64, head: u64) -> u64 {
    if head <= deficit {
        0
    } else {
        (head - deficit).div_ceil(quantum.max(1))
    }
}

/// The queue a key lands in: a seeded SplitMix64 hash of `key`, reduced to `buckets`.
#[inline]
pub fn bucket_of(key: u64, seed: u64, buckets: u32) -> usize {
    let mut z = key ^ seed;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    // Multiply-shift reduction: uniform over the buckets without a division.
    ((z as u128 * buckets.max(1) as u128) >> 64) as usize
}

// ---------------------------------------------------------------------------------------------
// The round robin and the queues (shared with SFQ)

#[derive(Debug, Default)]
struct Queue {
    pkts: VecDeque<(PacketId, u32)>,
    bytes: u64,
    /// Bytes this queue may send per round.
    quantum: u64,
    /// Weight of the queue in the longest-queue comparison.
    weight: u32,
    /// DC_i, bytes.
    deficit: u64,
    listed: bool,
}

/// Per-flow FIFOs served by deficit round robin, with a shared buffer and drop from the
/// longest queue.
#[derive(Debug)]
pub struct FlowQueues {
    queues: Vec<Queue>,
    /// The ActiveList: queues with packets, in service order.
    active: VecDeque<u32>,
    /// The head of the ActiveList has had its quantum for the current visit.
    granted: bool,
    len: usize,
    bytes: u64,
    limit: Limit,
    default_quantum: u64,
}

impl FlowQueues {
    pub fn new(limit: Limit, quantum: u64, n: usize) -> Self {
        let mut q = FlowQueues {
            queues: Vec::new(),
            active: VecDeque::with_capacity(n),
            granted: false,
            len: 0,
            bytes: 0,
            limit,
            default_quantum: quantum,
        };
        q.ensure(n);
        q
    }

    /// Make queues `0..n` exist (quantum as given at construction, weight 1).
    pub fn ensure(&mut self, n: usize) {
        let quantum = self.default_quantum;
        if self.queues.len() < n {
            self.queues.resize_with(n, || Queue { quantum, weight: 1, ..Queue::default() });
        }
    }

    /// Give queue `q` a weight: its quantum becomes quantum x weight.
    pub fn set_weight(&mut self, q: usize, weight: u32) {
        self.ensure(q + 1);
        let queue = &mut self.queues[q];
        queue.weight = weight.max(1);
        queue.quantum = self.default_quantum.saturating_mul(queue.weight as u64);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Queues with packets (the ActiveList's length).
    pub fn active(&self) -> usize {
        self.active.len()
    }

    /// Packets and bytes in queue `q`.
    pub fn backlog(&self, q: usize) -> (usize, u64) {
        self.queues.get(q).map_or((0, 0), |x| (x.pkts.len(), x.bytes))
    }

    /// DC of queue `q`, bytes.
    pub fn deficit(&self, q: usize) -> u64 {
        self.queues.get(q).map_or(0, |x| x.deficit)
    }

    /// Make room for an arrival of `size` bytes to queue `q` by dropping from the longest
    /// queues (the arrival counted in its own). Returns false if the arrival itself is the one
    /// to drop; victims go to `victims` with reason `pushout`.
    pub fn make_room(
        &mut self,
        q: usize,
        size: u32,
        rng: &mut SimRng,
        victims: &mut Vec<(PacketId, DropReason)>,
    ) -> bool {
        self.ensure(q + 1);
        let by_bytes = matches!(self.limit, Limit::Bytes(_));
        while self.limit.overflows(self.len, self.bytes, size) {
            let measure = |i: usize, x: &Queue| {
                let extra = (i == q) as u64;
                if by_bytes {
                    x.bytes + extra * size as u64
                } else {
                    x.pkts.len() as u64 + extra
                }
            };
            // The candidates: the arrival's queue, then every backlogged queue.
            let candidates = std::iter::once(q).chain(self.active.iter().map(|&i| i as usize).filter(|&i| i != q));
            let pos = pushout_pick(
                candidates.clone().map(|i| (measure(i, &self.queues[i]), self.queues[i].weight, i as u64)),
                PushoutTies::Random,
                rng,
            )
            .expect("the arrival's queue is a candidate");
            let victim_q = candidates.clone().nth(pos).expect("position from the same list");
            if victim_q == q {
                return false;
            }
            let (victim, vsize) = self.queues[victim_q].pkts.pop_back().expect("a backlogged queue");
            self.queues[victim_q].bytes -= vsize as u64;
            self.len -= 1;
            self.bytes -= vsize as u64;
            if self.queues[victim_q].pkts.is_empty() {
                self.deactivate(victim_q);
            }
            victims.push((victim, DropReason::Pushout));
        }
        true
    }

    /// Append a packet to queue `q`; an empty queue joins the tail of the ActiveList with
    /// DC = 0.
    pub fn push(&mut self, q: usize, pkt: PacketId, size: u32) {
        self.ensure(q + 1);
        let queue = &mut self.queues[q];
        queue.pkts.push_back((pkt, size));
        queue.bytes += size as u64;
        if !queue.listed {
            queue.listed = true;
            queue.deficit = 0;
            self.active.push_back(q as u32);
        }
        self.len += 1;
        self.bytes += size as u64;
    }

    /// Queue `q` is empty: it leaves the ActiveList and its deficit is forgotten.
    fn deactivate(&mut self, q: usize) {
        let queue = &mut self.queues[q];
        debug_assert!(queue.listed && queue.pkts.is_empty());
        queue.listed = false;
        queue.deficit = 0;
        if self.active.front() == Some(&(q as u32)) {
            self.active.pop_front();
            self.granted = false;
        } else if let Some(pos) = self.active.iter().position(|&i| i == q as u32) {
            self.active.remove(pos);
        }
    }

    /// The next packet in DRR order, with its queue.
    pub fn pop(&mut self) -> Option<(PacketId, usize)> {
        let mut misses = 0usize;
        loop {
            let q = *self.active.front()? as usize;
            let queue = &mut self.queues[q];
            if !self.granted {
                queue.deficit = queue.deficit.saturating_add(queue.quantum);
                self.granted = true;
            }
            let (pkt, size) = *queue.pkts.front().expect("a listed queue has packets");
            if size as u64 <= queue.deficit {
                queue.deficit -= size as u64;
                queue.pkts.pop_front();
                queue.bytes -= size as u64;
                self.len -= 1;
                self.bytes -= size as u64;
                if queue.pkts.is_empty() {
                    self.deactivate(q);
                }
                return Some((pkt, q));
            }
            // The head does not fit: the visit ends, the queue goes to the tail.
            self.active.rotate_left(1);
            self.granted = false;
            misses += 1;
            if misses == self.active.len() {
                self.skip_idle_rounds();
                misses = 0;
            }
        }
    }

    /// Every listed queue has just missed its turn: add at once the quanta of the rounds that
    /// would pass before the first of them can send.
    fn skip_idle_rounds(&mut self) {
        let grants = |x: &Queue| grants_to_send(x.deficit, x.quantum, x.pkts.front().map_or(0, |p| p.1 as u64));
        let Some(rounds) = self.active.iter().map(|&i| grants(&self.queues[i as usize])).min() else { return };
        let skip = rounds.saturating_sub(1);
        if skip == 0 {
            return;
        }
        for &i in &self.active {
            let x = &mut self.queues[i as usize];
            x.deficit = x.deficit.saturating_add(x.quantum.saturating_mul(skip));
        }
    }

    /// Take every packet out (queue by queue in ActiveList order, each in FIFO order), leaving
    /// all queues empty with their deficits forgotten (SFQ's rehash).
    pub fn take_all(&mut self) -> Vec<(PacketId, u32)> {
        let mut out = Vec::with_capacity(self.len);
        for &i in &self.active {
            let x = &mut self.queues[i as usize];
            out.extend(x.pkts.drain(..));
            x.bytes = 0;
            x.deficit = 0;
            x.listed = false;
        }
        self.active.clear();
        self.granted = false;
        self.len = 0;
        self.bytes = 0;
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The discipline

pub struct Drr {
    buckets: u32,
    /// Hash seed (drawn at the first arrival when hashing).
    seed: Option<u64>,
    queues: FlowQueues,
}

impl Drr {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        let n = if p.buckets == 0 { link.n_flows.max(1) } else { p.buckets as usize };
        let mut queues = FlowQueues::new(p.limit, p.quantum.0, n);
        if p.buckets == 0 {
            for (flow, &w) in p.weights.0.iter().enumerate() {
                queues.set_weight(flow, w);
            }
        }
        Drr { buckets: p.buckets, seed: None, queues }
    }

    /// The queue of a packet of `flow`.
    fn classify(&mut self, flow: u32, rng: &mut SimRng) -> usize {
        if self.buckets == 0 {
            // A queue per flow: a flow the scenario did not list (a workload's connection) gets
            // its own when it first comes.
            self.queues.ensure(flow as usize + 1);
            return flow as usize;
        }
        let seed = *self.seed.get_or_insert_with(|| (rng.uniform() * u64::MAX as f64) as u64);
        bucket_of(flow as u64, seed, self.buckets)
    }

    /// DC of the queue of `flow` (exact identity), bytes (tests).
    pub fn deficit_of(&self, flow: u32) -> u64 {
        self.queues.deficit(flow as usize)
    }
}

impl QueueDisc for Drr {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let p = cx.pkts[pkt];
        let q = self.classify(p.flow, cx.rng);
        if !self.queues.make_room(q, p.size, cx.rng, cx.victims) {
            return Verdict::Dropped(DropReason::Pushout);
        }
        self.queues.push(q, pkt, p.size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, _cx: &mut QdiscCtx) -> Option<PacketId> {
        self.queues.pop().map(|(pkt, _)| pkt)
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
        out.push(("active_queues", self.queues.active() as f64));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(p: &Params, n_flows: u64) -> u64 {
    if p.buckets == 0 {
        n_flows
    } else {
        p.buckets as u64
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::harness::{hammer, link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    fn drr(limit: Limit, quantum: u64, buckets: u32, weights: &[u32], n_flows: usize) -> Harness<Drr> {
        let p = Params { limit, quantum: Bytes(quantum), buckets, weights: Weights(weights.to_vec()) };
        Harness::new(Drr::new(&p, &link(n_flows)), 3)
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
    fn reads_its_parameters_and_refuses_bad_ones() {
        let p = read("quantum = \"500B\"\nweights = [2, 1]").unwrap();
        assert_eq!((p.quantum, p.buckets, p.weights.0.clone()), (Bytes(500), 0, vec![2, 1]));
        assert!(read("quantum = 0").unwrap_err().message.contains("at least 1 byte"));
        assert!(read("buckets = 8\nweights = [2]").unwrap_err().message.contains("need buckets = 0"));
        assert!(read("buckets = 2000000").unwrap_err().message.contains("too many"));
    }

    #[test]
    fn grants_count_the_quanta_still_missing() {
        assert_eq!(grants_to_send(500, 500, 200), 0);
        assert_eq!(grants_to_send(300, 500, 600), 1);
        assert_eq!(grants_to_send(0, 100, 1500), 15);
        assert_eq!(grants_to_send(1, 100, 1500), 15);
        assert_eq!(grants_to_send(0, 100, 1501), 16);
    }

    #[test]
    fn the_deficit_counters_follow_the_paper_on_a_scripted_sequence() {
        // Quantum 500. Flow 0: 200, 600, 300; flow 1: 700; flow 2: 400, 400 (all queued at once).
        // Round 1: f0 DC 500, sends 200 (300 left), 600 > 300 ends the visit; f1 DC 500 < 700;
        //          f2 DC 500, sends 400 (100), 400 > 100.
        // Round 2: f0 DC 800, sends 600 (200), 300 > 200; f1 DC 1000, sends 700, empty: DC 0;
        //          f2 DC 600, sends 400, empty: DC 0.
        // Round 3: f0 DC 700, sends 300, empty: DC 0.
        let mut h = drr(Limit::Packets(100), 500, 0, &[], 3);
        for (flow, size) in [(0, 200), (0, 600), (0, 300), (1, 700), (2, 400), (2, 400)] {
            assert_eq!(h.offer(flow, size), Verdict::Enqueued);
        }
        let expected = [
            // (flow sent, size, DC of flows 0, 1, 2 after the send)
            (0, 200, [300, 0, 0]),
            (2, 400, [300, 500, 100]),
            (0, 600, [200, 500, 100]),
            (1, 700, [200, 0, 100]),
            (2, 400, [200, 0, 0]),
            (0, 300, [0, 0, 0]),
        ];
        for (step, (flow, size, dc)) in expected.into_iter().enumerate() {
            assert_eq!(h.serve(), Some(flow), "step {step}");
            assert_eq!([h.q.deficit_of(0), h.q.deficit_of(1), h.q.deficit_of(2)], dc, "step {step} (sent {size})");
        }
        assert_eq!(h.serve(), None);
    }

    #[test]
    fn an_arrival_to_an_empty_flow_joins_the_tail_with_no_deficit() {
        // Quantum 1000, flows 0 and 1 hold 600-byte packets; flow 2 arrives after flow 0's first
        // packet went: it waits for flow 1's turn, then starts from DC 0 + 1000.
        let mut h = drr(Limit::Packets(100), 1000, 0, &[], 3);
        for flow in [0, 0, 1, 1] {
            h.offer(flow, 600);
        }
        assert_eq!(h.serve(), Some(0)); // f0 DC 1000 -> 400
        h.offer(2, 900);
        assert_eq!(h.drain_flows(), vec![1, 2, 0, 1]);
    }

    #[test]
    fn a_small_quantum_takes_several_rounds_in_the_same_order() {
        // Quantum 100: flow 0 holds one 1500-byte packet, flow 1 two of 400. Round r gives
        // each 100 r: flow 1 sends in round 4 (DC back to 0) and round 8, flow 0 in round 15.
        let mut h = drr(Limit::Packets(100), 100, 0, &[], 2);
        h.offer(0, 1500);
        h.offer(1, 400);
        h.offer(1, 400);
        assert_eq!(h.serve(), Some(1));
        assert_eq!((h.q.deficit_of(0), h.q.deficit_of(1)), (400, 0));
        assert_eq!(h.serve(), Some(1));
        assert_eq!((h.q.deficit_of(0), h.q.deficit_of(1)), (800, 0));
        assert_eq!(h.serve(), Some(0));
        assert_eq!(h.q.deficit_of(0), 0);
    }

    #[test]
    fn overflow_drops_the_last_packet_of_the_longest_queue() {
        let mut h = drr(Limit::Packets(4), 1500, 0, &[], 3);
        for flow in [0, 0, 0, 1] {
            h.offer(flow, 1000);
        }
        // Full: flow 2's arrival pushes out flow 0's last packet.
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(0, DropReason::Pushout)]);
        // Flow 0 (2 queued + the arrival = 3) is the longest: its own arrival goes.
        assert_eq!(h.offer(0, 1000), Verdict::Dropped(DropReason::Pushout));
        // In bytes: the queue with the most bytes loses packets until the arrival fits.
        let mut h = drr(Limit::Bytes(3000), 1500, 0, &[], 3);
        h.offer(0, 1500);
        h.offer(1, 500);
        h.offer(1, 500);
        assert_eq!(h.offer(2, 1000), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(0, DropReason::Pushout)]);
        assert_eq!(h.q.bytes(), 2000);
    }

    #[test]
    fn one_bucket_is_a_fifo() {
        let mut h = drr(Limit::Packets(100), 1500, 1, &[], 4);
        let flows = [3, 1, 2, 0, 0, 3, 1];
        for f in flows {
            h.offer(f, 700);
        }
        assert_eq!(h.drain_flows(), flows.to_vec());
    }

    #[test]
    fn the_hash_spreads_keys_evenly() {
        // 100000 keys into 16 buckets: 6250 each expected, s.d. sqrt(6250 x 15/16) = 76.5.
        let mut n = [0u32; 16];
        for k in 0..100_000u64 {
            n[bucket_of(k, 0x1234_5678, 16)] += 1;
        }
        for c in n {
            assert!((6250i64 - c as i64).abs() < 4 * 77, "{n:?}");
        }
        assert_ne!(bucket_of(7, 1, 1 << 20), bucket_of(7, 2, 1 << 20));
    }

    /// Max-min (water-filling) allocation of `capacity` among `demands` with `weights`: an
    /// independent computation, not the scheduler.
    pub(crate) fn max_min(capacity: f64, demands: &[f64], weights: &[f64]) -> Vec<f64> {
        let mut share = vec![0.0; demands.len()];
        let mut open: Vec<usize> = (0..demands.len()).collect();
        let mut left = capacity;
        while !open.is_empty() {
            let w: f64 = open.iter().map(|&i| weights[i]).sum();
            let level = left / w;
            let (sat, unsat): (Vec<usize>, Vec<usize>) =
                open.iter().partition(|&&i| demands[i] <= level * weights[i] + 1e-12);
            if sat.is_empty() {
                for &i in &unsat {
                    share[i] = level * weights[i];
                }
                break;
            }
            for &i in &sat {
                share[i] = demands[i];
                left -= demands[i];
            }
            open = unsat;
        }
        share
    }

    /// A line of `rate` bytes per time unit fed by periodic sources `(flow packet size, demand
    /// in bytes per time unit)`, for `duration` time units; returns the bytes each flow was sent
    /// after `warmup`.
    pub(crate) fn run_line<Q: QueueDisc>(
        h: &mut Harness<Q>,
        sources: &[(u32, f64)],
        duration: f64,
        warmup: f64,
    ) -> Vec<f64> {
        // Time is counted in bytes of line work; sources start staggered by a byte.
        let mut next: Vec<f64> = (0..sources.len()).map(|i| i as f64).collect();
        let mut sent = vec![0.0; sources.len()];
        // When the line finishes its current transmission.
        let mut line_free = 0.0f64;
        loop {
            let (i, t) = next.iter().enumerate().fold((0, f64::INFINITY), |b, (i, &t)| if t < b.1 { (i, t) } else { b });
            // Transmissions that start before the next arrival.
            while line_free <= t && !h.q.is_empty() {
                h.now = line_free as u64;
                let flow = h.serve().unwrap() as usize;
                line_free += sources[flow].0 as f64;
                if line_free > warmup && line_free <= duration {
                    sent[flow] += sources[flow].0 as f64;
                }
            }
            if t > duration {
                break;
            }
            // An idle line starts sending at the arrival.
            line_free = line_free.max(t);
            h.now = t as u64;
            h.offer(i as u32, sources[i].0);
            next[i] = t + sources[i].0 as f64 / sources[i].1;
        }
        sent
    }

    #[test]
    fn byte_shares_are_max_min_whatever_the_packet_sizes() {
        // Packets of 200, 800 and 1500 bytes, a quantum (500) below the largest. Demands
        // 0.2, 0.6 and 0.6 of the line: max-min gives 0.2, 0.4, 0.4.
        let sources = [(200, 0.2), (800, 0.6), (1500, 0.6)];
        let expected = max_min(1.0, &[0.2, 0.6, 0.6], &[1.0; 3]);
        assert_eq!(expected, vec![0.2, 0.4, 0.4]);
        let mut h = drr(Limit::Packets(60), 500, 0, &[], 3);
        let (duration, warmup) = (20e6, 2e6);
        let sent = run_line(&mut h, &sources, duration, warmup);
        for (i, (s, e)) in sent.iter().zip(&expected).enumerate() {
            let share = s / (duration - warmup);
            // DRR's bound: backlogged flows differ by at most quantum + largest packet.
            assert!((share - e).abs() < 0.005, "flow {i}: share {share:.4}, max-min {e}");
        }
        // All three backlogged at equal demand: equal bytes.
        let mut h = drr(Limit::Packets(60), 500, 0, &[], 3);
        let sent = run_line(&mut h, &[(200, 0.5), (800, 0.5), (1500, 0.5)], duration, warmup);
        for (i, s) in sent.iter().enumerate() {
            let share = s / (duration - warmup);
            assert!((share - 1.0 / 3.0).abs() < 0.005, "flow {i}: share {share:.4}");
        }
    }

    #[test]
    fn weights_give_weighted_shares() {
        // Weights 2, 1, 1, equal packets. All overloaded: 0.5, 0.25, 0.25. Then the weight-2
        // flow asks only 0.3: max-min gives it 0.3 and the others 0.35 each.
        let duration = 20e6;
        for (demands, weights) in [([0.9, 0.9, 0.9], [2u32, 1, 1]), ([0.3, 0.9, 0.9], [2, 1, 1])] {
            let w: Vec<f64> = weights.iter().map(|&w| w as f64).collect();
            let expected = max_min(1.0, &demands, &w);
            let mut h = drr(Limit::Packets(60), 1000, 0, &weights, 3);
            let sources: Vec<(u32, f64)> = demands.iter().map(|&d| (1000, d)).collect();
            let sent = run_line(&mut h, &sources, duration, 2e6);
            for (i, (s, e)) in sent.iter().zip(&expected).enumerate() {
                let share = s / (duration - 2e6);
                assert!((share - e).abs() < 0.005, "{demands:?}: flow {i} share {share:.4}, weighted max-min {e:.4}");
            }
        }
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, limit) in [(1, Limit::Packets(20)), (2, Limit::Bytes(12_000)), (3, Limit::Unbounded)] {
            for (quantum, buckets) in [(1500, 0), (100, 0), (700, 3)] {
                let mut h = drr(limit, quantum, buckets, if buckets == 0 { &[3, 1] } else { &[] }, 8);
                hammer(&mut h, 5_000, 8, seed);
            }
        }
    }
}
