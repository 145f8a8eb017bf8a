//! CAKE, Common Applications Kept Enhanced: T. Høiland-Jørgensen, D. Täht
//! and J. Morton, "Piece of CAKE: A Comprehensive Queue Management Solution for Home Gateways",
//! IEEE LANMAN 2018; the details follow Linux's net/sched/sch_cake.c (cake_hash, cake_enqueue,
//! cake_dequeue, cake_drop, cake_get_flow_quantum, cake_set_rate).
//!
//! - Flow isolation (`isolation`, tc-cake's keywords): packets are sorted into 1024 queues by a
//!   hash of what the mode isolates: nothing (`flowblind`), the source or destination host
//!   (`srchost`, `dsthost`), the host pair (`hosts`) or the flow (`flows`, and the three modes
//!   below). The table is 8-way set-associative: the hash picks a set of 8 queues; a queue of
//!   the set already holding this flow is used, else a free one (no packets and no state left
//!   to decay), else the hash's own queue is taken over (a way collision, counted).
//! - Host fairness (`dual-srchost`, `dual-dsthost`, `triple-isolate`, the default): each host
//!   counts its bulk flows, and a flow's quantum is divided by that count (the larger of its
//!   source's and destination's in `triple-isolate`), so that hosts, not flows, share the link.
//! - DRR++ over three lists: a queue that gets a packet while on none joins the new (sparse)
//!   list with one quantum of deficit; dequeue serves the new list first, then the old (bulk)
//!   list, then the decaying list. A queue out of deficit gets a quantum more and moves to the
//!   old list (and, still backlogged, counts as bulk). A queue found empty moves to the
//!   decaying list while its COBALT state has not come to rest (count, p_drop, or drop_next
//!   ahead), else leaves the lists.
//! - COBALT per queue (`cobalt.rs`'s state machine): CoDel's signals mark ECN-capable packets
//!   (CAKE always uses ECN) and drop others; BLUE drops. A queue's last packet is never
//!   dropped. A sojourn is above target only when it is also above 4 MTU times.
//! - Overflow: when the bytes queued exceed the buffer, the head packet of the queue with the
//!   most bytes is dropped (reason `overflow`, the arrival's own queue included), one at a
//!   time until under, and that queue's BLUE counts an overflow.
//! - The shaper (`bandwidth`, tc-cake's): a virtual clock, as Linux's cake_advance_shaper: a
//!   packet may leave at `next_send`, which each packet sent moves on by its time at the
//!   bandwidth (from now, if the link was idle longer); until then the link waits, woken at
//!   `next_send` ([`QueueDisc::ready_at`]). No burst: CAKE paces packet by packet.
//! - From the rate (Linux's cake_set_rate: the `bandwidth` if set, else the link's rate): the
//!   quantum is rate / 4096 bytes per second within [300, 1514]; target is the larger of `rtt`
//!   / 20 and 1.5 MTU times; interval is `rtt` + target - `rtt` / 20; the buffer defaults to
//!   the larger of 4 intervals at the rate and 4 MiB, at most `limit` (packets count 1514
//!   bytes each, as Linux's sch->limit) unless `memlimit` sets it.
//!
//! Deviations and choices left open:
//! - No overhead compensation, DiffServ tins (one best-effort tin), ACK
//!   filter, NAT lookup, `wash`, `ingress` mode or GSO splitting.
//! - Host bulk counts are kept per host exactly; Linux keeps them in two more 8-way
//!   set-associative tables of 1024 hosts, where collisions need more than 8 hosts per set.
//! - The hash is SplitMix64 over the keys and a perturbation drawn from the queue's stream
//!   (Linux: jhash of the real 5-tuple), so which flows collide differs, not how often.
//! - The quantum is divided exactly (Linux: a reciprocal in 16-bit fixed point with random
//!   dithering).
//! - The buffer counts packet bytes (Linux counts the socket buffers' true size).
//!
//! Traced gauges: `sparse_flows`, `bulk_flows`, `decaying_flows`, `way_collisions` and
//! `p_drop` (the largest BLUE probability among the queues).
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 570 or so.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use super::cobalt::{self, CobaltVars};
use super::codel::StampedFifo;
use super::flow_queues::{fattest, flow_hash, reduce};
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Bytes, Choice, Duration, Fields, Limit, Result};
use crate::packet::{flags, Packet, PacketId};
use crate::units::{tx_time_ns, SimDuration, SimTime};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "cake",
    aliases: &[],
    summary: "CAKE without its shaper (Høiland-Jørgensen et al. 2018, Linux sch_cake): 8-way set-associative flow queues, host isolation, DRR++ with COBALT per queue.",
    read: |f| Params::read(f).map(QdiscParams::Cake),
};

/// Queues in the table (Linux's CAKE_QUEUES).
pub const QUEUES: usize = 1024;
/// Ways of a set (CAKE_SET_WAYS).
pub const WAYS: usize = 8;
/// The MTU CAKE assumes for its buffer and its MTU time (psched_mtu of Ethernet).
const MTU: u64 = 1514;

choice_enum! {
    /// What a queue (and the host accounting) isolates: tc-cake's flow isolation keywords.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Isolation {
        Flowblind = "flowblind",
        Srchost = "srchost",
        Dsthost = "dsthost",
        Hosts = "hosts",
        Flows = "flows",
        DualSrchost = "dual-srchost",
        DualDsthost = "dual-dsthost",
        TripleIsolate = "triple-isolate",
    }
}

impl Isolation {
    /// The key a packet's queue is found by.
    pub fn queue_key(self, p: &Packet) -> (u32, u32, u32) {
        match self {
            Isolation::Flowblind => (0, 0, 0),
            Isolation::Srchost => (p.src, 0, 0),
            Isolation::Dsthost => (0, p.dst, 0),
            Isolation::Hosts => (p.src, p.dst, 0),
            // the dual and triple modes find a flow's queue by flow; host fairness is separate
            Isolation::Flows | Isolation::DualSrchost | Isolation::DualDsthost | Isolation::TripleIsolate => {
                (p.src, p.dst, p.flow)
            }
        }
    }

    /// Whether the source (destination) host's bulk flows divide a flow's quantum.
    fn by_src(self) -> bool {
        matches!(self, Isolation::DualSrchost | Isolation::TripleIsolate)
    }
    fn by_dst(self) -> bool {
        matches!(self, Isolation::DualDsthost | Isolation::TripleIsolate)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub isolation: Isolation,
    /// The round trip CAKE is tuned for: interval, and target = rtt / 20.
    pub rtt: Duration,
    /// The buffer's cap: packets of 1514 bytes each (Linux's sch->limit), or bytes.
    pub limit: Limit,
    /// Buffer in bytes, if set (tc-cake's memlimit); else derived from the rate.
    pub memlimit: Option<Bytes>,
    /// The shaper's rate, bit/s (tc-cake's bandwidth); `None`: unshaped, the link's rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_bps: Option<u64>,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        // tc-cake's words for the message, rather than Fields::choice's
        let names = Isolation::NAMES;
        let doc = format!("what queues isolate and which hosts share fairly (tc-cake's keywords): {}", names.join(", "));
        let mode: String = f.or("isolation", Isolation::TripleIsolate.name().to_string(), &doc)?;
        let Some(isolation) = Isolation::from_name(&mode) else {
            let hint = crate::suggest::did_you_mean(&mode, names.iter().copied());
            return Err(f.error("isolation", format!("unknown isolation '{mode}'{hint} (allowed: {})", names.join(", "))));
        };
        let rtt: Duration =
            f.or("rtt", Duration(100_000_000), "the round trip to tune for: interval = rtt, target = rtt / 20 (tc-cake's rtt)")?;
        f.ensure(rtt.0 >= 20_000, "rtt", "must be at least 20us (target = rtt / 20 >= 1us)")?;
        let limit: Limit = f.or(
            "limit",
            Limit::Packets(10240),
            "cap on the byte buffer: packets count 1514 bytes each, as Linux's (default 10240 packets)",
        )?;
        f.ensure(limit != Limit::Packets(0), "limit", "must be at least 1 packet")?;
        let memlimit: Option<Bytes> = f.opt(
            "memlimit",
            "buffer in bytes (tc-cake's memlimit); default: 4 intervals at the link's rate, at least 4 MiB, at most limit x 1514",
        )?;
        if let Some(m) = memlimit {
            f.ensure(m.0 >= MTU, "memlimit", "must hold one 1514-byte packet at least")?;
        }
        let bandwidth: Option<crate::conf::Rate> = f.opt(
            "bandwidth",
            "shape the output to this rate (tc-cake's bandwidth: CAKE's own shaper, so that its queue, not the \
             next one's, is where packets wait); the rate-dependent settings then follow it",
        )?;
        if let Some(b) = bandwidth {
            f.ensure(b.0 > 0, "bandwidth", "must be above 0")?;
        }
        Ok(Params { isolation, rtt, limit, memlimit, bandwidth_bps: bandwidth.map(|b| b.0) })
    }
}

/// What CAKE derives from the rate (Linux's cake_set_rate with the link's rate as the shaper's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    pub quantum: u32,
    pub target_ns: u64,
    pub interval_ns: u64,
    pub mtu_time_ns: u64,
    pub buffer_bytes: u64,
}

pub fn tuning(p: &Params, rate_bps: u64) -> Tuning {
    let rate_bytes = rate_bps / 8;
    let quantum = (rate_bytes >> 12).clamp(300, MTU) as u32;
    let mtu_time_ns = (MTU * 1_000_000_000).checked_div(rate_bytes).unwrap_or(0);
    let base_target = (p.rtt.0 / 20).max(1_000);
    let target_ns = base_target.max(mtu_time_ns * 3 / 2);
    let interval_ns = (p.rtt.0 + target_ns - base_target).max(2 * target_ns);
    let by_rate = (rate_bytes as u128 * interval_ns as u128 * 4 / 1_000_000_000) as u64;
    let buffer_bytes = match p.memlimit {
        Some(m) => m.0,
        None => by_rate.max(4 << 20).min(match p.limit {
            Limit::Packets(n) => n as u64 * MTU,
            Limit::Bytes(b) => b,
            Limit::Unbounded => u64::MAX,
        }),
    };
    Tuning { quantum, target_ns, interval_ns, mtu_time_ns, buffer_bytes }
}

/// The queue for `key` in a table whose queues hold `tags` and are free where `free(i)`:
/// within the set of `home` (8 queues), the queue already holding `key`, else the first free
/// one, else `home` itself taken over. Returns the queue and whether it was a way collision.
pub fn set_associative(tags: &[Option<u64>], free: impl Fn(usize) -> bool, key: u64, home: usize) -> (usize, bool) {
    let set = home - home % WAYS;
    let ways = set..set + WAYS;
    if let Some(i) = ways.clone().find(|&i| tags[i] == Some(key)) {
        return (i, false);
    }
    if let Some(i) = ways.clone().find(|&i| free(i)) {
        return (i, false);
    }
    (home, true)
}

/// Where a queue is in DRR++ (Linux's CAKE_SET_*).
/// The DRR++ list a queue is served from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DrrList {
    New,
    Old,
    Decaying,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlowSet {
    None,
    Sparse,
    /// Empty and moved to the old list while still counted as sparse.
    SparseWait,
    Bulk,
    Decaying,
}

struct FlowQueue {
    fifo: StampedFifo,
    deficit: i64,
    set: FlowSet,
    cvars: CobaltVars,
    /// The hosts of the flow it holds (for host fairness).
    src: u32,
    dst: u32,
}

pub struct Cake {
    p: Params,
    t: Tuning,
    cobalt: cobalt::Params,
    queues: Vec<FlowQueue>,
    new_list: VecDeque<usize>,
    old_list: VecDeque<usize>,
    decaying_list: VecDeque<usize>,
    /// Bulk flows per source and per destination host.
    src_bulk: HashMap<u32, u32>,
    dst_bulk: HashMap<u32, u32>,
    sparse: u32,
    bulk: u32,
    decaying: u32,
    way_collisions: u64,
    perturbation: Option<u64>,
    len: usize,
    bytes: u64,
    tags: Vec<Option<u64>>,
    /// The shaper (`bandwidth`): when the next packet may leave, and whether the last dequeue
    /// was held back by it.
    next_send: SimTime,
    shaped: bool,
}

impl Cake {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        let t = tuning(p, p.bandwidth_bps.unwrap_or(link.rate_bps));
        let cobalt = cobalt::Params {
            limit: Limit::Bytes(t.buffer_bytes),
            target: Duration(t.target_ns),
            interval: Duration(t.interval_ns),
            ecn: true,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            blue_threshold: None,
        };
        let queues = (0..QUEUES)
            .map(|_| FlowQueue {
                fifo: StampedFifo::default(),
                deficit: 0,
                set: FlowSet::None,
                cvars: CobaltVars::default(),
                src: 0,
                dst: 0,
            })
            .collect();
        Cake {
            p: p.clone(),
            t,
            cobalt,
            queues,
            new_list: VecDeque::new(),
            old_list: VecDeque::new(),
            decaying_list: VecDeque::new(),
            src_bulk: HashMap::new(),
            dst_bulk: HashMap::new(),
            sparse: 0,
            bulk: 0,
            decaying: 0,
            way_collisions: 0,
            perturbation: None,
            len: 0,
            bytes: 0,
            tags: vec![None; QUEUES],
            next_send: SimTime::ZERO,
            shaped: false,
        }
    }

    fn list_mut(&mut self, list: DrrList) -> &mut VecDeque<usize> {
        match list {
            DrrList::New => &mut self.new_list,
            DrrList::Old => &mut self.old_list,
            DrrList::Decaying => &mut self.decaying_list,
        }
    }

    /// DRR++ over the lists and COBALT per queue: the next packet, the shaper aside.
    fn dequeue_unshaped(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            if self.len == 0 {
                return None;
            }
            let (list, idx) = if let Some(&i) = self.new_list.front() {
                (DrrList::New, i)
            } else if let Some(&i) = self.old_list.front() {
                (DrrList::Old, i)
            } else if let Some(&i) = self.decaying_list.front() {
                (DrrList::Decaying, i)
            } else {
                return None;
            };
            if self.queues[idx].deficit <= 0 {
                // Out of deficit: a quantum more and to the tail of the old list; a sparse
                // queue with packets becomes bulk, an empty one waits there as sparse.
                if self.queues[idx].set == FlowSet::Sparse {
                    if self.queues[idx].fifo.is_empty() {
                        self.queues[idx].set = FlowSet::SparseWait;
                    } else {
                        self.queues[idx].set = FlowSet::Bulk;
                        self.sparse -= 1;
                        self.bulk += 1;
                        self.host_bulk(idx, true);
                    }
                }
                self.queues[idx].deficit += self.flow_quantum(idx);
                self.list_mut(list).pop_front();
                self.old_list.push_back(idx);
                continue;
            }
            // A packet through COBALT; drops go on, the queue's last packet is never dropped.
            let q = &mut self.queues[idx];
            let mut chosen = None;
            while let Some((pkt, enqueued)) = q.fifo.pop(cx.pkts) {
                self.len -= 1;
                self.bytes -= cx.pkts[pkt].size as u64;
                let sojourn = cx.now.saturating_since(enqueued);
                // Above target only beyond 4 MTU times too (cobalt_should_drop's condition).
                let sojourn = if sojourn.ns() > 4 * self.t.mtu_time_ns { sojourn } else { SimDuration::ZERO };
                let u = if q.cvars.p_drop > 0.0 { cx.rng.uniform() } else { 1.0 };
                let can_mark = cx.pkts[pkt].has(flags::ECT);
                let d = q.cvars.should_drop(&self.cobalt, cx.now, sojourn, u, can_mark);
                if cobalt::apply(d, pkt, can_mark, q.fifo.is_empty(), cx) {
                    continue;
                }
                chosen = Some(pkt);
                break;
            }
            let Some(pkt) = chosen else {
                // Found empty: decaying while its COBALT state is not at rest, else off the lists.
                q.cvars.queue_empty(&self.cobalt, cx.now);
                let resting = q.cvars.p_drop == 0.0 && q.cvars.count == 0 && cx.now >= q.cvars.drop_next;
                let was = q.set;
                self.list_mut(list).pop_front();
                match was {
                    FlowSet::Sparse | FlowSet::SparseWait => self.sparse -= 1,
                    FlowSet::Bulk => {
                        self.bulk -= 1;
                        self.host_bulk(idx, false);
                    }
                    FlowSet::Decaying => self.decaying -= 1,
                    FlowSet::None => unreachable!("a queue on a list has a set"),
                }
                if resting {
                    self.queues[idx].set = FlowSet::None;
                } else {
                    self.queues[idx].set = FlowSet::Decaying;
                    self.decaying += 1;
                    self.decaying_list.push_back(idx);
                }
                continue;
            };
            self.queues[idx].deficit -= cx.pkts[pkt].size as i64;
            return Some(pkt);
        }
    }

    pub fn tuning(&self) -> Tuning {
        self.t
    }

    /// Sparse, bulk and decaying flow counts.
    pub fn flow_counts(&self) -> (u32, u32, u32) {
        (self.sparse, self.bulk, self.decaying)
    }

    pub fn way_collisions(&self) -> u64 {
        self.way_collisions
    }

    fn classify(&mut self, pkt: &Packet, cx: &mut QdiscCtx) -> usize {
        let perturbation = *self.perturbation.get_or_insert_with(|| cx.rng.below(u32::MAX as usize) as u64);
        let (a, b, c) = self.p.isolation.queue_key(pkt);
        let key = flow_hash(a, b, c, perturbation);
        let home = reduce(key, QUEUES as u32);
        let queues = &self.queues;
        let (idx, collided) =
            set_associative(&self.tags, |i| queues[i].set == FlowSet::None && queues[i].fifo.is_empty(), key, home);
        if self.tags[idx] != Some(key) {
            // The queue changes hands (a free one, or taken over): a bulk queue now counts for
            // the newcomer's hosts.
            let bulk = self.queues[idx].set == FlowSet::Bulk;
            if bulk {
                self.host_bulk(idx, false);
            }
            self.tags[idx] = Some(key);
            self.queues[idx].src = pkt.src;
            self.queues[idx].dst = pkt.dst;
            if bulk {
                self.host_bulk(idx, true);
            }
            self.way_collisions += u64::from(collided);
        }
        idx
    }

    /// Count queue `idx`'s flow in (or out of) its hosts' bulk flows.
    fn host_bulk(&mut self, idx: usize, add: bool) {
        let (src, dst) = (self.queues[idx].src, self.queues[idx].dst);
        for (map, host, on) in
            [(&mut self.src_bulk, src, self.p.isolation.by_src()), (&mut self.dst_bulk, dst, self.p.isolation.by_dst())]
        {
            if !on {
                continue;
            }
            let n = map.entry(host).or_insert(0);
            if add {
                *n += 1;
            } else {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// A flow's quantum: the base quantum over its hosts' bulk flow counts.
    fn flow_quantum(&self, idx: usize) -> i64 {
        let q = &self.queues[idx];
        let mut load = 1;
        if self.p.isolation.by_src() {
            load = load.max(self.src_bulk.get(&q.src).copied().unwrap_or(0));
        }
        if self.p.isolation.by_dst() {
            load = load.max(self.dst_bulk.get(&q.dst).copied().unwrap_or(0));
        }
        (self.t.quantum as i64 / load as i64).max(1)
    }

    fn remove_from(list: &mut VecDeque<usize>, idx: usize) {
        if let Some(pos) = list.iter().position(|&i| i == idx) {
            list.remove(pos);
        }
    }

    /// Drop the head of the fattest queue (cake_drop); returns the packet dropped.
    fn drop_from_fattest(&mut self, now: SimTime, pkts: &crate::packet::PacketArena) -> PacketId {
        let idx = fattest(self.queues.iter().map(|q| q.fifo.bytes())).expect("over the buffer with nothing queued");
        let q = &mut self.queues[idx];
        let (pkt, _) = q.fifo.pop(pkts).expect("the fattest queue has a packet");
        q.cvars.queue_full(&self.cobalt, now);
        self.len -= 1;
        self.bytes -= pkts[pkt].size as u64;
        pkt
    }
}

impl QueueDisc for Cake {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        let packet = cx.pkts[pkt];
        let idx = self.classify(&packet, cx);
        self.queues[idx].fifo.push(pkt, cx.now, cx.pkts);
        self.len += 1;
        self.bytes += packet.size as u64;
        match self.queues[idx].set {
            FlowSet::None | FlowSet::Decaying => {
                if self.queues[idx].set == FlowSet::Decaying {
                    Self::remove_from(&mut self.decaying_list, idx);
                    self.decaying -= 1;
                }
                self.new_list.push_back(idx);
                self.queues[idx].set = FlowSet::Sparse;
                self.sparse += 1;
                self.queues[idx].deficit = self.flow_quantum(idx);
            }
            FlowSet::SparseWait => {
                // Empty but already in the bulk rotation: now it is a bulk flow.
                self.queues[idx].set = FlowSet::Bulk;
                self.sparse -= 1;
                self.bulk += 1;
                self.host_bulk(idx, true);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }
        let mut arrival_dropped = false;
        while self.bytes > self.t.buffer_bytes {
            let victim = self.drop_from_fattest(cx.now, cx.pkts);
            if victim == pkt {
                arrival_dropped = true;
            } else {
                cx.victims.push((victim, DropReason::Overflow));
            }
        }
        if arrival_dropped {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::Enqueued
        }
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        let Some(bandwidth) = self.p.bandwidth_bps else { return self.dequeue_unshaped(cx) };
        self.shaped = self.len > 0 && self.next_send > cx.now;
        if self.shaped {
            return None;
        }
        let pkt = self.dequeue_unshaped(cx)?;
        self.next_send = self.next_send.max(cx.now) + SimDuration(tx_time_ns(cx.pkts[pkt].size, bandwidth));
        Some(pkt)
    }

    fn ready_at(&self) -> Option<SimTime> {
        self.shaped.then_some(self.next_send)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        Limit::Bytes(self.t.buffer_bytes)
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("sparse_flows", self.sparse as f64));
        out.push(("bulk_flows", self.bulk as f64));
        out.push(("decaying_flows", self.decaying as f64));
        out.push(("way_collisions", self.way_collisions as f64));
        let p_drop = self.queues.iter().map(|q| q.cvars.p_drop).fold(0.0, f64::max);
        out.push(("p_drop", p_drop));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::super::harness::{hammer, link, read_table, Harness};
    use super::*;

    const MS: u64 = 1_000_000;

    fn read(text: &str) -> Result<Params> {
        read_table(text, Params::read)
    }

    fn cake(text: &str, rate_bps: u64) -> Cake {
        Cake::new(&read(text).unwrap(), &LinkInfo { rate_bps, ..link(16) })
    }

    #[test]
    fn its_shaper_paces_the_link_at_its_bandwidth_and_tunes_for_it() {
        // bandwidth = 10 Mbps on a 1 Gbps link: 200 packets of 1250 bytes (1 ms each at 10 Mbps)
        // queued at once leave one per millisecond, the first at once; CAKE tunes for 10 Mbps.
        use crate::qdisc::conformance::{Fate, Line};
        let q = cake("bandwidth = \"10Mbps\"", 1_000_000_000);
        assert_eq!(q.tuning(), tuning(&read("").unwrap(), 10_000_000));
        let mut line = Line::new(q, &LinkInfo { rate_bps: 1_000_000_000, ..link(16) }, 1);
        for k in 0..200 {
            line.arrive(0, k % 4, 1250);
        }
        line.run_until(99_999_999);
        let sent = line.offered.iter().filter(|(_, f)| matches!(f, Fate::Sent)).count();
        assert_eq!(sent, 100, "one packet per ms for 100 ms (the 100th ends at 99.01 ms)");
        // The backlog waits at the shaper, in CAKE's queues, where COBALT sees its sojourn grow.
        line.drain();
        assert!(line.offered.iter().all(|(_, f)| matches!(f, Fate::Sent | Fate::Evicted(DropReason::Codel))));
        assert!(line.offered.iter().any(|(_, f)| matches!(f, Fate::Evicted(DropReason::Codel))));
    }

    #[test]
    fn parameters_and_their_errors() {
        let p = read("").unwrap();
        assert_eq!((p.isolation, p.rtt, p.limit, p.memlimit), (Isolation::TripleIsolate, Duration(100 * MS), Limit::Packets(10240), None));
        assert_eq!(read("isolation = \"dual-srchost\"").unwrap().isolation, Isolation::DualSrchost);
        let e = read("isolation = \"triple-isolat\"").unwrap_err();
        assert!(e.message.contains("did you mean 'triple-isolate'"), "{e}");
        assert!(read("memlimit = 100").is_err());
        assert!(read("rtt = \"10us\"").is_err());
    }

    #[test]
    fn the_rate_sets_quantum_target_interval_and_buffer_as_cake_set_rate() {
        // 10 Mbps: 1.25e6 B/s >> 12 = 305 bytes; an MTU time of 1514 B / 1.25e6 B/s = 1.2112
        // ms, so target = max(100 ms / 20, 1.5 x 1.2112 ms) = 5 ms and interval 100 ms; the
        // buffer max(4 x 0.1 s x 1.25e6 B/s, 4 MiB) = 4 MiB.
        let t = tuning(&read("").unwrap(), 10_000_000);
        assert_eq!((t.quantum, t.mtu_time_ns, t.target_ns, t.interval_ns), (305, 1_211_200, 5 * MS, 100 * MS));
        assert_eq!(t.buffer_bytes, 4 << 20);
        // 1 Mbps: the quantum floor 300; the MTU time 12.112 ms makes target 18.168 ms and
        // interval 100 + 18.168 - 5 = 113.168 ms.
        let t = tuning(&read("").unwrap(), 1_000_000);
        assert_eq!((t.quantum, t.target_ns, t.interval_ns), (300, 18_168_000, 113_168_000));
        // 1 Gbps: the quantum ceiling 1514; 4 intervals at the rate, 50 MB, capped by 10240 MTUs.
        let t = tuning(&read("").unwrap(), 1_000_000_000);
        assert_eq!((t.quantum, t.target_ns, t.buffer_bytes), (1514, 5 * MS, 10240 * 1514));
        assert_eq!(tuning(&read("limit = 1000").unwrap(), 10_000_000).buffer_bytes, 1000 * 1514);
        assert_eq!(tuning(&read("memlimit = 64000").unwrap(), 10_000_000).buffer_bytes, 64_000);
    }

    #[test]
    fn the_set_associative_table_gives_colliding_flows_their_own_queues_up_to_eight() {
        let mut tags = vec![None; QUEUES];
        // Nine flows whose hashes all land on queue 13 (set 8..16).
        let mut got = vec![];
        for key in 1..=9u64 {
            let (i, collided) = set_associative(&tags, |i| tags[i].is_none(), key, 13);
            got.push((i, collided));
            if !collided {
                tags[i] = Some(key);
            }
        }
        let expected: Vec<(usize, bool)> = (8..16).map(|i| (i, false)).chain([(13, true)]).collect();
        assert_eq!(got, expected, "eight ways, then the home queue is taken over");
        // A flow already in the set finds its queue again.
        assert_eq!(set_associative(&tags, |_| false, 5, 13), (12, false));
    }

    /// Backlog every (flow, src, dst) with 1000-byte packets and serve `n` packets, a
    /// microsecond apart (no AQM signal); returns the packets served per flow.
    fn shares(q: Cake, flows: &[(u32, u32, u32)], n: usize) -> Vec<usize> {
        let mut h = Harness::new(q, 1);
        let n_flows = flows.iter().map(|f| f.0 as usize + 1).max().unwrap();
        let (mut served, mut offered) = (vec![0; n_flows], vec![0; n_flows]);
        for step in 0..n {
            h.now = step as u64 * 1000;
            for &(flow, src, dst) in flows {
                if offered[flow as usize] - served[flow as usize] < 4 {
                    h.offer_between(flow, src, dst, 1000);
                    offered[flow as usize] += 1;
                }
            }
            served[h.serve().unwrap() as usize] += 1;
        }
        assert!(h.dropped.is_empty(), "{:?}", &h.dropped[..h.dropped.len().min(5)]);
        served
    }

    #[test]
    fn host_isolation_shares_the_link_between_hosts_not_flows() {
        // Host 1 has one flow, host 2 has eight, all backlogged, 1000-byte packets at 10 Mbps
        // (quantum 305). Each of host 2's flows gets an eighth of the quantum (host 2 has 8
        // bulk flows), host 1's flow a whole one: the hosts share equally.
        let one_vs_eight = |dst2: u32| -> Vec<(u32, u32, u32)> {
            std::iter::once((0, 1, 100)).chain((1..=8).map(|f| (f, 2, dst2))).collect()
        };
        let n = 18_000;
        let host1 = |s: &[usize]| s[0] as f64 / s.iter().sum::<usize>() as f64;
        // dual-srchost: fairness over sources, whatever the destinations.
        let s = shares(cake("isolation = \"dual-srchost\"", 10_000_000), &one_vs_eight(100), n);
        assert!((host1(&s) - 0.5).abs() < 0.02, "dual-srchost: host 1 {:.3} {s:?}", host1(&s));
        // triple-isolate with distinct destinations: the same.
        let s = shares(cake("", 10_000_000), &one_vs_eight(200), n);
        assert!((host1(&s) - 0.5).abs() < 0.02, "triple-isolate: host 1 {:.3} {s:?}", host1(&s));
        // triple-isolate with one destination: its 9 bulk flows divide every quantum by 9, so
        // each flow gets a ninth (the destination host shares among its flows).
        let s = shares(cake("", 10_000_000), &one_vs_eight(100), n);
        assert!((host1(&s) - 1.0 / 9.0).abs() < 0.02, "triple-isolate, one destination: {:.3} {s:?}", host1(&s));
        // flows: per-flow fairness, a ninth each.
        let s = shares(cake("isolation = \"flows\"", 10_000_000), &one_vs_eight(200), n);
        for (f, &k) in s.iter().enumerate() {
            assert!((k as f64 / n as f64 - 1.0 / 9.0).abs() < 0.01, "flows: flow {f} {k} of {n}");
        }
    }

    #[test]
    fn a_sparse_flow_is_served_next_and_never_dropped() {
        // Two bulk flows keep a 16-packet byte buffer full; a sparse flow sends a packet every
        // 20 services. Each sparse packet is the next one served, and none is dropped, while
        // the bulk flows lose packets to overflow.
        let mut h = Harness::new(cake("isolation = \"flows\"\nmemlimit = 16000", 10_000_000), 1);
        let mut waited = vec![];
        for step in 0..2000u64 {
            h.now = step * 1000;
            h.offer(1, 1000);
            h.offer(2, 1000);
            if step % 20 == 0 {
                h.offer(3, 200);
                waited.push(0);
            }
            let flow = h.serve().unwrap();
            if flow == 3 {
                *waited.last_mut().unwrap() += 0;
            } else if h.q.queues.iter().any(|q| !q.fifo.is_empty() && q.src == 3) {
                *waited.last_mut().unwrap() += 1;
            }
        }
        // (The first waits behind the bulk flows' first packets: they were new flows too.)
        assert!(waited[1..].iter().all(|&w| w == 0), "a sparse packet waited behind bulk ones: {waited:?}");
        assert!(h.dropped.iter().all(|d| d.0 != 3), "the sparse flow lost a packet");
        assert!(h.dropped.iter().filter(|d| d.1 == DropReason::Overflow).count() > 500, "{}", h.dropped.len());
    }

    #[test]
    fn overflow_drops_the_head_of_the_fattest_queue() {
        // A 5000-byte buffer: flow 0 holds 4 x 1000, flow 1 one; flow 1's next packet goes
        // over, and flow 0, the fattest, loses its head (the oldest packet), not the arrival.
        let mut h = Harness::new(cake("isolation = \"flows\"\nmemlimit = 5000", 10_000_000), 1);
        h.now = 10 * MS; // past BLUE's first freeze time (target), which starts at 0
        for _ in 0..4 {
            h.offer(0, 1000);
        }
        h.offer(1, 1000);
        assert_eq!(h.offer(1, 1000), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(0, DropReason::Overflow)]);
        let first_left = h.q.queues.iter().find(|q| q.fifo.len() == 3).unwrap().fifo.head_time();
        assert!(first_left.is_some());
        // The fattest queue's BLUE counted the overflow.
        assert!(h.q.queues.iter().any(|q| q.cvars.p_drop > 0.0));
        // An arrival to the fattest queue itself is dropped from that queue's head instead,
        // and the arrival stays.
        h.offer(0, 1000);
        assert_eq!(h.dropped.len(), 2);
        assert_eq!(h.q.len(), 5);
    }

    #[test]
    fn a_standing_queue_gets_cobalt_signals_and_marks_ecn_packets() {
        // One flow holding 10 packets, served one per ms: every sojourn is about 10 ms, above
        // target (5 ms) and 4 MTU times at 10 Mbps (4.8 ms). The first signal comes an interval
        // after the first dequeue: at 110 ms, then 181, 239, 289, 334 (the control law).
        // ECN-capable packets are marked, not dropped.
        for ect in [false, true] {
            let mut h = Harness::new(cake("isolation = \"flows\"", 10_000_000), 1);
            let fl = if ect { flags::ECT } else { 0 };
            for t in 0..10 {
                h.now = t * MS;
                h.offer_flags(1, 1000, fl);
            }
            let mut signals = vec![];
            for t in 10..340 {
                h.now = t * MS;
                let before = h.dropped.len() + h.marked.len();
                h.serve();
                if h.dropped.len() + h.marked.len() > before {
                    signals.push(t);
                }
                while h.q.len() < 10 {
                    h.offer_flags(1, 1000, fl);
                }
            }
            assert_eq!(signals, vec![110, 181, 239, 289, 334], "ecn {ect}");
            assert_eq!(h.marked.len(), if ect { 5 } else { 0 });
            assert!(h.marked.iter().chain(&h.dropped).all(|m| m.1 == DropReason::Codel));
        }
    }

    #[test]
    fn random_operations_keep_the_contract() {
        for (seed, text) in [
            (1, "memlimit = 12000"),
            (2, "isolation = \"flows\"\nmemlimit = 8000"),
            (3, "isolation = \"flowblind\"\nmemlimit = 30000\nrtt = \"1ms\""),
            (4, "isolation = \"dual-dsthost\"\nlimit = 20\nrtt = \"2ms\""),
            (5, "isolation = \"hosts\"\nmemlimit = 20000\nrtt = \"1ms\""),
        ] {
            let mut h = Harness::new(cake(text, 10_000_000), seed);
            hammer(&mut h, 20_000, 12, seed);
        }
    }
}
