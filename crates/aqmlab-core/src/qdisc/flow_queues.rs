//! The flow-queueing scheduler of FQ-CoDel: T. Hoeiland-Joergensen, P. McKenney, D. Taht,
//! J. Gettys and E. Dumazet, "The Flow Queue CoDel Packet Scheduler and Active Queue
//! Management Algorithm", RFC 8290 (2018), section 4; Linux's sch_fq_codel and sch_fq_pie for
//! parameter names. A container shared by `fq_codel` (CoDel per queue) and `fq_pie` (PIE per
//! queue), not a discipline itself: the per-queue AQM is the [`FlowAqm`] type parameter.
//!
//! - Classification: a packet goes to one of `flows` queues by a hash of its flow identity
//!   (source, destination and flow: the 5-tuple's equivalent here) mixed with a random
//!   perturbation drawn once from the queue's random stream; or, with [`Classify::Exact`], to
//!   its flow's own queue (no collisions).
//! - Scheduling, DRR++ (section 4.2): queues with packets sit on the list of new queues or of
//!   old queues. A queue that gets a packet while on neither joins the tail of the new list
//!   with a deficit of one `quantum`. Dequeue takes the first queue of the new list, else of
//!   the old list; a queue whose deficit is not positive gets a quantum more and moves to the
//!   tail of the old list; otherwise its AQM gives a packet, whose size is taken from the
//!   deficit. A queue found empty moves from the new list to the tail of the old list (so that
//!   a flow cannot starve the old ones by emptying and coming back as new), and leaves the old
//!   list.
//! - Overflow (section 4.1): with [`Overflow::FattestFlow`] (FQ-CoDel) the arrival joins first;
//!   when more than `limit` packets (or `memory_limit` bytes) are then queued, packets are
//!   dropped from the head of the queue with the most bytes, up to `drop_batch` of them or
//!   until half its bytes are gone (reason `fattest_flow`), again while still over. With
//!   [`Overflow::TailDrop`] (FQ-PIE) an arrival that would exceed `limit` or `memory_limit` is
//!   refused (`overflow`).
//!
//! Choices and deviations:
//! - The hash is SplitMix64 over (source, destination, flow, perturbation), reduced by
//!   multiply-and-shift; Linux uses jhash over the real 5-tuple, so which flows collide
//!   differs, not how often.
//! - A new queue that empties always moves to the old list (RFC 8290's text); Linux's
//!   fq_codel does so only when the old list is not empty, and otherwise removes it.
//! - `memory_limit` counts packet bytes (Linux counts the socket buffers' true size).
//! - Ties for the fattest queue go to the lowest index (as Linux's scan).

use std::collections::VecDeque;

use serde::Serialize;

use super::codel::StampedFifo;
use super::{DropReason, QdiscCtx, Verdict};
use crate::conf::{choice_enum, Bytes, Choice, Fields, Limit, Result};
use crate::packet::{Packet, PacketId};

/// How packets are sorted into queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Classify {
    /// `flows` hash buckets.
    Hashed(u32),
    /// One queue per flow of the scenario.
    Exact,
}

impl Classify {
    /// The queues' table entries with `n_flows` flows: one per flow, or one per bucket.
    pub fn entries(&self, n_flows: u64) -> u64 {
        match self {
            Classify::Exact => n_flows,
            Classify::Hashed(b) => *b as u64,
        }
    }
}

/// What happens when the buffer is over its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// FQ-CoDel: drop from the head of the fattest queue, at most this many packets per batch.
    FattestFlow { drop_batch: u32 },
    /// FQ-PIE: refuse the arrival.
    TailDrop,
}

/// The scheduler's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FlowQueueParams {
    pub limit: Limit,
    pub flows: Classify,
    pub quantum: Bytes,
    pub memory_limit: Bytes,
}

impl FlowQueueParams {
    /// Read `limit`, `flows`, `quantum` and `memory_limit` with Linux's defaults.
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(10240),
            "buffer over all queues (Linux's default 10240 packets); what happens beyond it depends on the discipline",
        )?;
        let doc = flows_doc();
        let flows = match f.node("flows") {
            Some(node) if matches!(node.val, crate::conf::Val::Str(_)) => {
                let s: String = f.or("flows", String::new(), &doc)?;
                match FlowsWord::from_name(&s) {
                    Some(word) => word.classify(),
                    None => {
                        return Err(f.error("flows", format!("'{s}' is not a number of queues ({})", flows_allowed())))
                    }
                }
            }
            _ => {
                let n: u32 = f.or("flows", 1024u32, &doc)?;
                f.ensure((1..=MAX_BUCKETS).contains(&n), "flows", format!("{n} queues ({})", flows_allowed()))?;
                Classify::Hashed(n)
            }
        };
        let quantum: Bytes = f.or(
            "quantum",
            Bytes(1514),
            "bytes a queue may send per round of the deficit round robin (Linux: the device MTU, 1514)",
        )?;
        f.ensure(quantum.0 >= 1 && quantum.0 <= 1 << 20, "quantum", "allowed: 1 byte to 1 MiB")?;
        let memory_limit: Bytes =
            f.or("memory_limit", Bytes(32 << 20), "bytes over all queues (Linux's default 32 MiB)")?;
        f.ensure(memory_limit.0 >= 1, "memory_limit", "a limit of 0 bytes holds nothing")?;
        Ok(FlowQueueParams { limit, flows, quantum, memory_limit })
    }
}

const MAX_BUCKETS: u32 = 65536;

choice_enum! {
    /// The words `flows` takes instead of a number of hash buckets.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum FlowsWord {
        Exact = "exact",
    }
}

impl FlowsWord {
    fn classify(self) -> Classify {
        match self {
            FlowsWord::Exact => Classify::Exact,
        }
    }

    /// What the word asks for, as the catalogue says it.
    fn meaning(self) -> &'static str {
        match self {
            FlowsWord::Exact => "one queue per flow",
        }
    }
}

fn flows_doc() -> String {
    let words: Vec<String> =
        FlowsWord::ALL.iter().map(|w| format!(", or \"{}\" for {}", w.name(), w.meaning())).collect();
    format!("number of hash buckets (queues){}", words.concat())
}

/// What `flows` allows, for messages.
fn flows_allowed() -> String {
    let words: Vec<String> = FlowsWord::NAMES.iter().map(|n| format!(", or \"{n}\"")).collect();
    format!("allowed: 1 to {MAX_BUCKETS}{}", words.concat())
}

/// The AQM each queue runs.
pub trait FlowAqm: Default {
    type Params;
    /// Decide about `pkt` arriving to `queue` before it joins: `Enqueued`, `Marked` (the AQM
    /// set CE) or `Dropped`. PIE decides here; CoDel admits everything.
    fn on_arrival(&mut self, _p: &Self::Params, _queue: &StampedFifo, _pkt: PacketId, _cx: &mut QdiscCtx) -> Verdict {
        Verdict::Enqueued
    }
    /// The next packet of `queue`, if any; drops go to `cx.victims`. `others` is the bytes
    /// queued in the other queues (CoDel's one-MTU rule looks at the whole buffer, as Linux).
    fn dequeue(
        &mut self,
        p: &Self::Params,
        queue: &mut StampedFifo,
        others: u64,
        cx: &mut QdiscCtx,
    ) -> Option<PacketId>;
}

/// Which list a queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnList {
    None,
    New,
    Old,
}

struct FlowQueue<A> {
    queue: StampedFifo,
    deficit: i64,
    list: OnList,
    aqm: A,
}

/// The queues, their lists and the totals.
pub struct FlowQueues<A: FlowAqm> {
    p: FlowQueueParams,
    overflow: Overflow,
    queues: Vec<FlowQueue<A>>,
    new_list: VecDeque<usize>,
    old_list: VecDeque<usize>,
    /// Drawn at the first arrival (the discipline has no random stream before).
    perturbation: Option<u64>,
    len: usize,
    bytes: u64,
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bucket of a packet with this identity among `buckets`, under `perturbation`.
pub fn bucket(src: u32, dst: u32, flow: u32, perturbation: u64, buckets: u32) -> usize {
    reduce(flow_hash(src, dst, flow, perturbation), buckets)
}

/// The 64-bit hash of a flow's identity (source, destination, flow) with a perturbation.
pub fn flow_hash(src: u32, dst: u32, flow: u32, perturbation: u64) -> u64 {
    mix(mix(mix(perturbation ^ src as u64) ^ dst as u64) ^ flow as u64)
}

/// A hash onto [0, n) by multiply-and-shift of its high 32 bits.
pub fn reduce(hash: u64, n: u32) -> usize {
    (((hash >> 32) * n as u64) >> 32) as usize
}

/// The queue to drop from on overflow: the most bytes, lowest index among equals.
pub fn fattest(backlogs: impl Iterator<Item = u64>) -> Option<usize> {
    let mut best: Option<(usize, u64)> = None;
    for (i, b) in backlogs.enumerate() {
        if b > 0 && best.is_none_or(|(_, m)| b > m) {
            best = Some((i, b));
        }
    }
    best.map(|(i, _)| i)
}

impl<A: FlowAqm> FlowQueue<A> {
    fn empty() -> Self {
        FlowQueue { queue: StampedFifo::default(), deficit: 0, list: OnList::None, aqm: A::default() }
    }
}

impl<A: FlowAqm> FlowQueues<A> {
    pub fn new(p: &FlowQueueParams, overflow: Overflow, n_flows: usize) -> Self {
        let n = match p.flows {
            Classify::Hashed(n) => n as usize,
            Classify::Exact => n_flows.max(1),
        };
        let queues = (0..n).map(|_| FlowQueue::empty()).collect();
        FlowQueues {
            p: *p,
            overflow,
            queues,
            new_list: VecDeque::new(),
            old_list: VecDeque::new(),
            perturbation: None,
            len: 0,
            bytes: 0,
        }
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
        self.p.limit
    }
    /// Queues on the new list and on the old list.
    pub fn list_lengths(&self) -> (usize, usize) {
        (self.new_list.len(), self.old_list.len())
    }
    /// The AQM state of every queue that has packets or is on a list.
    pub fn active_aqms(&self) -> impl Iterator<Item = &A> {
        self.queues.iter().filter(|q| q.list != OnList::None).map(|q| &q.aqm)
    }

    fn classify(&mut self, pkt: &Packet, cx: &mut QdiscCtx) -> usize {
        match self.p.flows {
            Classify::Exact => {
                // A queue per flow: a flow the scenario did not list (a workload's connection)
                // gets its own when it first comes.
                let q = pkt.flow as usize;
                if q >= self.queues.len() {
                    self.queues.resize_with(q + 1, FlowQueue::empty);
                }
                q
            }
            Classify::Hashed(n) => {
                let perturbation = *self.perturbation.get_or_insert_with(|| cx.rng.below(u32::MAX as usize) as u64);
                bucket(pkt.src, pkt.dst, pkt.flow, perturbation, n)
            }
        }
    }

    /// Whether `len` packets and `bytes` bytes are over the limits.
    fn over(&self, len: usize, bytes: u64) -> bool {
        let over_limit = match self.p.limit {
            Limit::Packets(n) => len > n as usize,
            Limit::Bytes(b) => bytes > b,
            Limit::Unbounded => false,
        };
        over_limit || bytes > self.p.memory_limit.0
    }

    /// An arrival: classified, offered to its queue's AQM, queued, and the overflow rule.
    pub fn enqueue(&mut self, aqm: &A::Params, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let packet = cx.pkts[pkt];
        let idx = self.classify(&packet, cx);
        if self.overflow == Overflow::TailDrop && self.over(self.len + 1, self.bytes + packet.size as u64) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        let fq = &mut self.queues[idx];
        let verdict = fq.aqm.on_arrival(aqm, &fq.queue, pkt, cx);
        if let Verdict::Dropped(_) = verdict {
            return verdict;
        }
        fq.queue.push(pkt, cx.now, cx.pkts);
        self.len += 1;
        self.bytes += packet.size as u64;
        if fq.list == OnList::None {
            fq.list = OnList::New;
            fq.deficit = self.p.quantum.0 as i64;
            self.new_list.push_back(idx);
        }
        let Overflow::FattestFlow { drop_batch } = self.overflow else { return verdict };
        let mut arrival_dropped = false;
        while self.over(self.len, self.bytes) {
            arrival_dropped |= self.drop_from_fattest(drop_batch, pkt, cx);
        }
        if arrival_dropped {
            Verdict::Dropped(DropReason::FattestFlow)
        } else {
            verdict
        }
    }

    /// One batch from the fattest queue; whether it took `arrival` (reported in the verdict,
    /// not as a victim).
    fn drop_from_fattest(&mut self, drop_batch: u32, arrival: PacketId, cx: &mut QdiscCtx) -> bool {
        let idx = fattest(self.queues.iter().map(|q| q.queue.bytes())).expect("over the limit with nothing queued");
        let fq = &mut self.queues[idx];
        let threshold = fq.queue.bytes() / 2;
        let (mut dropped, mut count, mut took_arrival) = (0u64, 0u32, false);
        while let Some((victim, _)) = fq.queue.pop(cx.pkts) {
            let size = cx.pkts[victim].size as u64;
            dropped += size;
            count += 1;
            self.len -= 1;
            self.bytes -= size;
            if victim == arrival {
                took_arrival = true;
            } else {
                cx.victims.push((victim, DropReason::FattestFlow));
            }
            if count >= drop_batch.max(1) || dropped >= threshold {
                break;
            }
        }
        took_arrival
    }

    /// DRR++: the next packet to send.
    pub fn dequeue(&mut self, aqm: &A::Params, cx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            let (idx, from_new) = match self.new_list.front() {
                Some(&i) => (i, true),
                None => (*self.old_list.front()?, false),
            };
            if self.queues[idx].deficit <= 0 {
                self.queues[idx].deficit += self.p.quantum.0 as i64;
                self.pop_list(from_new);
                self.queues[idx].list = OnList::Old;
                self.old_list.push_back(idx);
                continue;
            }
            let others = self.bytes - self.queues[idx].queue.bytes();
            let fq = &mut self.queues[idx];
            let (len_before, bytes_before) = (fq.queue.len(), fq.queue.bytes());
            let next = fq.aqm.dequeue(aqm, &mut fq.queue, others, cx);
            let (gone, gone_bytes) = (len_before - fq.queue.len(), bytes_before - fq.queue.bytes());
            if let Some(pkt) = next {
                fq.deficit -= cx.pkts[pkt].size as i64;
            }
            self.len -= gone;
            self.bytes -= gone_bytes;
            if next.is_some() {
                return next;
            }
            self.pop_list(from_new);
            if from_new {
                self.queues[idx].list = OnList::Old;
                self.old_list.push_back(idx);
            } else {
                self.queues[idx].list = OnList::None;
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_list.pop_front();
        } else {
            self.old_list.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_spread_flows_evenly_and_depend_on_the_perturbation() {
        // 64000 flows into 64 buckets: each bucket's count is binomial(64000, 1/64), mean 1000,
        // sd 31; all within 5 sd.
        let mut counts = [0u32; 64];
        for f in 0..64_000 {
            counts[bucket(f, 1000, f, 42, 64)] += 1;
        }
        assert!(counts.iter().all(|&c| (845..=1155).contains(&c)), "{counts:?}");
        let moved = (0..1000).filter(|&f| bucket(f, 1000, f, 42, 64) != bucket(f, 1000, f, 43, 64)).count();
        // A new perturbation reshuffles: a flow keeps its bucket with probability 1/64.
        assert!(moved > 950, "{moved}");
    }

    #[test]
    fn the_fattest_queue_is_the_one_with_most_bytes_lowest_index_first() {
        assert_eq!(fattest([0, 3000, 1500, 3000].into_iter()), Some(1));
        assert_eq!(fattest([0, 0].into_iter()), None);
    }

    #[test]
    fn flows_is_a_number_or_a_word_and_a_bad_one_names_both() {
        let read = |text: &str| {
            let src = crate::conf::Source { path: "t.toml".into() };
            let t = crate::conf::parse_toml(text, &src).unwrap();
            let mut f = Fields::new(&src, "queue", &t, crate::conf::Origin::Line(1));
            FlowQueueParams::read(&mut f).map(|p| p.flows).map_err(|e| e.message)
        };
        assert_eq!(read("flows = 8"), Ok(Classify::Hashed(8)));
        assert_eq!(read("flows = \"exact\""), Ok(Classify::Exact));
        assert_eq!(
            read("flows = \"many\""),
            Err("'many' is not a number of queues (allowed: 1 to 65536, or \"exact\")".to_string())
        );
        assert_eq!(read("flows = 0"), Err("0 queues (allowed: 1 to 65536, or \"exact\")".to_string()));
        assert_eq!(flows_doc(), "number of hash buckets (queues), or \"exact\" for one queue per flow");
    }
}
