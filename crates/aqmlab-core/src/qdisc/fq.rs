//! Fair Queueing: A. Demers, S. Keshav and S. Shenker, "Analysis and Simulation of a Fair
//! Queueing Algorithm", SIGCOMM 1989 (section 2.2; weights from section 5).
//!
//! The gateway emulates a hypothetical bit-by-bit round robin (BR) among conversations.
//! R(t), the round number, advances at dR/dt = line rate / N_ac(t), where N_ac counts the
//! conversations that would still have bits in the BR system (a conversation is active while
//! R(t) <= F of its last arrival). Packet i of conversation a, of P bits, gets
//! S = max(F_prev, R(t_arrival)), F = S + P and the bid B = P + max(F_prev, R(t) - delta).
//! When a transmission ends, the queued packet with the smallest bid is sent (nonpreemptive).
//! One buffer is shared; when it is full the LAST packet of the conversation using the most
//! buffer space is dropped, and F and S are not rolled back, so a conversation is charged for
//! the packets it loses.
//!
//! Implementation notes:
//! - R and F are exact integers in *nanobits of round* (1e-9 bit), so the work the line does
//!   in `dt` ns at `rate_bps` is exactly `rate_bps * dt` nanobits. `advance` moves R
//!   piecewise: it spends that work on the current active set, and each time R reaches the
//!   smallest last-finish number it removes that conversation (iterated deletion), exactly, in
//!   integer arithmetic. The division work / N_ac leaves a remainder that is carried, so R is
//!   exact between activations however often it is advanced.
//! - The one rounding: when a conversation becomes active while R is between two nanobits,
//!   R is floored to the nanobit (N_ac changes, and the carried remainder cannot follow it).
//!   That is exactly a BR server pausing for the work it could not share out: less than
//!   N_ac nanobits of work (N_ac x 1e-9 bit-times) per such activation, counted in
//!   `counters.discarded_nanobits`. R is otherwise exact, and all comparisons (ties
//!   included) are exact comparisons of these integers.
//! - Within a conversation bids strictly increase (B_i > F_{i-1} >= B_{i-1}), so only the
//!   head of each conversation competes: a heap of heads, one entry per backlogged
//!   conversation (entries left stale by a push-out are skipped when popped).
//! - Conversations get dense indices on first sight (a map from key to index); their state is
//!   kept for the whole run, so the hot path allocates nothing once every conversation has
//!   been seen and its queue has grown to its peak.
//!
//! Deviations from the paper and choices it leaves open:
//! - `user`: the conversation key: "pair" (source and destination node, the paper's choice,
//!   default), "source" (source node) or "flow" (the scenario's flow). ACKs travel the
//!   reverse path, so on any one link direction a flow's data and its ACKs never meet.
//! - `delta` is in bytes of round (the paper uses bits with line speed 1): default 0, as in
//!   all of the paper's simulations, which makes the bid equal to F.
//! - While N_ac = 0, R stays constant (our choice; some implementations reset it).
//! - Ties between equal bids: earlier arrival time first, then the smaller conversation id,
//!   where the id is the key itself: (src, dst) in lexicographic order, the source node id,
//!   or the flow index.
//! - Push-out counts the arrival in its own conversation: if that conversation is then the
//!   longest, the arrival itself is dropped (`pushout_arrival = "counted"`, the default). The
//!   paper's "the last packet from the source currently using the most buffer space" reads
//!   either way; `"admitted"` lets the space held before the arrival decide, so a conversation
//!   that already holds the most loses its last queued packet and the arrival takes its place
//!   (the arrival goes only when nothing is left to push out). "Longest" is measured in packets, or in bytes
//!   when the limit is in bytes (then pushing out repeats until the arrival fits). Ties:
//!   `pushout_ties` = "random" (default: uniform among the tied, from the link's stream),
//!   "larger_id" (the larger conversation id loses its packet), "smaller_id" (the smaller
//!   one loses: a scan in id order keeping the first strictly longest) or "arrival" (with the
//!   arrival counted, its own conversation loses whenever it is among the longest, so the
//!   arrival is dropped; other ties are drawn uniformly). Equally long queues are
//!   common among overloaded conversations, and a fixed order biases their bandwidth: three
//!   500 kbps CBR flows whose max-min share is 233.3 kbps got 236/236/228 kbps with
//!   "larger_id" (the largest id lost every tie); with "random", over six seeds, every one
//!   stayed within 1.5% of 233.3 and no id was favoured.
//! - A dropped arrival still moves its conversation's F (and activates it in the BR system):
//!   R, N_ac, S and F depend on arrivals only, as the paper defines them.
//!
//! A consequence of charging for drops, which tests/core/fq.rs pins down: an unresponsive
//! conversation above its fair share has F advancing at its own arrival rate / n_a, ahead
//! of R, so overloaded conversations are served in increasing order of that rate: the
//! lowest gets its whole demand and the highest what is left, possibly nothing (DKS's
//! ill-behaved source got 3 to 8 packets). That is not max-min among them. Equal rates
//! share, in a split set by the offsets their F had when they started (the 1.5% above).
//! Conversations below their fair share are not affected: they get exactly their demand.
//! - Weights (section 5): conversation a counts n_a times in N_ac and its packets count
//!   P / n_a (floored to the nanobit). The paper weights only the round robin; here push-out
//!   also compares buffer space per unit of weight (queue / n_a), or an overloaded
//!   conversation of weight 2 is held to an equal buffer and falls short of its share
//!   (measured, weights 2/1/1, demands 1000/500/500 kbps on 1 Mbps beside a 100 kbps flow:
//!   the weight-2 flow got 307 kbps with unweighted push-out, 469 to 475 with weighted,
//!   against a weighted max-min share of 450). Weights are given per flow
//!   (`weights = [2, 1, 1]`, in the scenario's expanded flow order, flows beyond the list
//!   weigh 1) and need `user = "flow"`. Queues are read before flows, so a list longer than
//!   the number of flows cannot be refused here; its extra entries are unused.
//! - The buffer holds waiting packets; the packet being transmitted is outside it (as for
//!   every discipline in this engine).
//!
//! Longer than 600 lines: the discipline alone is about 610 (this header, the exact round-number
//! arithmetic, the conversation keys, push-out and weights, which all read and write the same
//! per-conversation state and are kept together); its tests follow.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use serde::Serialize;

use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{choice_enum, Bytes, Fields, FromNode, Limit, Result, Val};
use crate::packet::{Packet, PacketId};
use crate::rng::SimRng;
use crate::units::SimTime;

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "fq",
    aliases: &["fair_queueing"],
    summary: "Fair Queueing (Demers, Keshav, Shenker 1989): bit-by-bit round robin emulated by finish numbers; push-out from the longest conversation.",
    read: |f| Params::read(f).map(QdiscParams::Fq),
};

/// Nanobits per bit: the unit of R, F and bids.
const NANO: u128 = 1_000_000_000;

// ---------------------------------------------------------------------------------------------
// Conversations (shared with fq_bit and the selective DECbit)

choice_enum! {
    /// Who a packet belongs to: the paper's "user".
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum User {
        /// Source and destination node (a conversation, the paper's choice).
        Pair = "pair",
        /// Source node.
        Source = "source",
        /// The scenario's flow.
        Flow = "flow",
    }
}

impl User {
    /// Read the `user` parameter.
    pub fn read(f: &mut Fields, doc: &str) -> Result<User> {
        f.choice("user", User::Pair, doc)
    }

    /// The conversation key of a packet; it is also the conversation's id in tie-breaks.
    #[inline]
    pub fn key(self, p: &Packet) -> u64 {
        match self {
            User::Pair => ((p.src as u64) << 32) | p.dst as u64,
            User::Source => p.src as u64,
            User::Flow => p.flow as u64,
        }
    }
}

/// Dense indices for conversation keys, given on first sight.
#[derive(Debug, Default)]
pub(crate) struct ConvIndex {
    map: HashMap<u64, u32>,
}

impl ConvIndex {
    pub fn with_capacity(n: usize) -> Self {
        ConvIndex { map: HashMap::with_capacity(n) }
    }

    /// The index of `key`, and whether it is new (then it is the next index).
    #[inline]
    pub fn get_or_insert(&mut self, key: u64) -> (usize, bool) {
        let next = self.map.len() as u32;
        let i = *self.map.entry(key).or_insert(next);
        (i as usize, i == next)
    }
}

// ---------------------------------------------------------------------------------------------
// Parameters

/// Per-flow weights (the paper's n_a, "how many queue slots that conversation gets").
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Weights(pub Vec<u32>);

impl FromNode for Weights {
    fn unit() -> Cow<'static, str> {
        "list of integers >= 1, one per flow in the scenario's flow order".into()
    }
    fn from_node(val: &Val) -> std::result::Result<Self, String> {
        let Val::Array(items) = val else {
            return Err(format!("expected a list of integers such as [2, 1, 1], got {}", val.type_name()));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, n)| match n.val {
                Val::Int(w) if w >= 1 && w <= u32::MAX as i64 => Ok(w as u32),
                Val::Int(w) => Err(format!("entry {} is {w}: a weight is an integer of 1 or more", i + 1)),
                ref v => Err(format!("entry {} is {}: a weight is an integer of 1 or more", i + 1, v.type_name())),
            })
            .collect::<std::result::Result<Vec<u32>, String>>()
            .map(Weights)
    }
    fn show(&self) -> String {
        format!("[{}]", self.0.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))
    }
}

choice_enum! {
    /// Whether push-out counts the arrival in its own conversation (the paper's sentence reads
    /// either way: "the last packet from the source currently using the most buffer space").
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum PushoutArrival {
        /// The arrival counts in its conversation's space; if that conversation is then the
        /// longest, the arrival itself is dropped.
        Counted = "counted",
        /// The space held before the arrival decides; the longest conversation loses its last
        /// queued packet even when it is the arrival's own, and the arrival is admitted.
        Admitted = "admitted",
    }
}

choice_enum! {
    /// How push-out chooses among conversations of equal length.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum PushoutTies {
        /// The conversation with the larger id loses its last packet.
        LargerId = "larger_id",
        /// The conversation with the smaller id loses its last packet: what a scan of the
        /// conversations in id order that keeps the first strictly longest one picks.
        SmallerId = "smaller_id",
        /// Uniformly among the tied conversations.
        Random = "random",
        /// The arrival's own conversation, when it is among the longest (counting the arrival):
        /// the arrival is dropped, as code that first asks "is the arriving conversation the
        /// longest?" does; among other tied conversations, uniformly.
        Arrival = "arrival",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    /// Promptness parameter delta, bytes of round.
    pub delta: Bytes,
    pub user: User,
    pub pushout_ties: PushoutTies,
    pub pushout_arrival: PushoutArrival,
    pub weights: Weights,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(100),
            "shared buffer; when full, the last packet of the longest conversation is dropped (push-out)",
        )?;
        let delta = f.or(
            "delta",
            Bytes(0),
            "promptness delta in bytes of round: bid B = P + max(F_prev, R - delta); 0 sends in finish-number order (every DKS simulation)",
        )?;
        let user =
            User::read(f, "what a conversation is: source-destination node pair (the paper), source node, or flow")?;
        let pushout_ties = f.choice(
            "pushout_ties",
            PushoutTies::Random,
            "which of several equally long conversations loses its last packet (the arrival counts in its own)",
        )?;
        let pushout_arrival = f.choice(
            "pushout_arrival",
            PushoutArrival::Counted,
            "whether the arrival counts in its conversation when push-out picks the longest (counted: it may be dropped itself) or the space held before it decides and the arrival is admitted (admitted)",
        )?;
        let weights: Weights = f.or(
            "weights",
            Weights::default(),
            "per-flow weights n_a (DKS section 5); needs user = \"flow\"; flows beyond the list weigh 1",
        )?;
        f.ensure(
            weights.0.is_empty() || user == User::Flow,
            "weights",
            "weights are given per flow: set user = \"flow\"",
        )?;
        Ok(Params {
            limit,
            delta,
            user,
            pushout_ties,
            pushout_arrival,
            weights,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules

/// The paper's start and finish numbers: S = max(F_prev, R), F = S + P.
#[inline]
pub fn start_finish(f_prev: u128, r: u128, p: u128) -> (u128, u128) {
    let s = f_prev.max(r);
    (s, s + p)
}

/// The bid B = P + max(F_prev, R - delta) (with R - delta floored at 0).
#[inline]
pub fn bid(f_prev: u128, r: u128, p: u128, delta: u128) -> u128 {
    p + f_prev.max(r.saturating_sub(delta))
}

/// Buffer space per unit of weight, `(space, weight)` against another, compared exactly
/// (cross-multiplied in u128).
#[inline]
pub fn space_per_weight(a: (u64, u32), b: (u64, u32)) -> std::cmp::Ordering {
    (a.0 as u128 * b.1 as u128).cmp(&(b.0 as u128 * a.1 as u128))
}

/// Push-out: among `(space, weight, id)` of the candidate conversations (the arrival already
/// counted in its own), the one that loses its last packet: the most buffer space per unit
/// of weight (compared exactly); ties go to the larger or the smaller id, or are drawn
/// uniformly with `rng`.
/// Returns the position in `candidates`.
pub fn pushout_pick(
    candidates: impl Iterator<Item = (u64, u32, u64)>,
    ties: PushoutTies,
    rng: &mut SimRng,
) -> Option<usize> {
    let mut best: Option<(usize, u64, u32, u64)> = None;
    let mut tied = 0usize;
    for (pos, (m, w, id)) in candidates.enumerate() {
        let order = match best {
            None => std::cmp::Ordering::Greater,
            Some((_, bm, bw, _)) => space_per_weight((m, w), (bm, bw)),
        };
        match (order, best) {
            (std::cmp::Ordering::Less, _) => {}
            (std::cmp::Ordering::Equal, Some((_, _, _, bid))) if ties == PushoutTies::LargerId => {
                if id > bid {
                    best = Some((pos, m, w, id));
                }
            }
            (std::cmp::Ordering::Equal, Some((_, _, _, bid))) if ties == PushoutTies::SmallerId => {
                if id < bid {
                    best = Some((pos, m, w, id));
                }
            }
            // Random, and Arrival among conversations other than the arrival's (decided by the caller).
            (std::cmp::Ordering::Equal, _) => {
                tied += 1;
                if rng.below(tied) == 0 {
                    best = Some((pos, m, w, id));
                }
            }
            (std::cmp::Ordering::Greater, _) => {
                best = Some((pos, m, w, id));
                tied = 1;
            }
        }
    }
    best.map(|(pos, _, _, _)| pos)
}

// ---------------------------------------------------------------------------------------------
// State

#[derive(Clone, Copy, Debug)]
struct Slot {
    pkt: PacketId,
    size: u32,
    bid: u128,
    arrived: SimTime,
    seq: u64,
}

#[derive(Debug)]
struct Conv {
    key: u64,
    weight: u32,
    /// F of the conversation's last arrival (charged even if that packet was dropped).
    f_last: u128,
    /// In the BR system: R <= f_last.
    active: bool,
    queue: VecDeque<Slot>,
    bytes: u64,
}

/// The head of a backlogged conversation, ordered as the sending rule orders packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Head {
    bid: u128,
    arrived: SimTime,
    key: u64,
    seq: u64,
    conv: u32,
}

/// The BR emulation: R(t) and the active set.
#[derive(Debug)]
struct Clock {
    /// Time R was last advanced to.
    t: SimTime,
    /// R, nanobits of round (floor of the exact value: R = round + rem / w_active).
    round: u128,
    rem: u128,
    /// Sum of the weights of the active conversations (N_ac without weights).
    w_active: u64,
    n_active: u32,
    /// (f_last, conversation) for every active conversation; an entry whose f_last has since
    /// grown is refreshed when it reaches the top.
    finish: BinaryHeap<Reverse<(u128, u32)>>,
}

/// What this discipline counts beyond the link's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Conversations that became active in the BR system.
    pub activations: u64,
    /// Queued packets pushed out to make room.
    pub pushed_out: u64,
    /// Arrivals that were themselves the pushed-out packet.
    pub arrivals_pushed: u64,
    /// Line work discarded by flooring R at activations, nanobits (bounds R's error).
    pub discarded_nanobits: u128,
}

pub struct Fq {
    p: Params,
    /// Work the line does per ns, nanobits (= rate in bit/s).
    rate: u128,
    delta: u128,
    convs: Vec<Conv>,
    index: ConvIndex,
    clock: Clock,
    heads: BinaryHeap<Reverse<Head>>,
    len: usize,
    bytes: u64,
    seq: u64,
    /// Sum of the weights of every conversation seen so far (fq_bit's `share = "known"`).
    w_known: u64,
    pub counters: Counters,
}

impl Fq {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        let n = (2 * link.n_flows).max(8);
        Fq {
            p: p.clone(),
            rate: link.rate_bps as u128,
            delta: p.delta.0 as u128 * 8 * NANO,
            convs: Vec::with_capacity(n),
            index: ConvIndex::with_capacity(n),
            clock: Clock { t: SimTime::ZERO, round: 0, rem: 0, w_active: 0, n_active: 0, finish: BinaryHeap::with_capacity(n) },
            heads: BinaryHeap::with_capacity(n),
            len: 0,
            bytes: 0,
            seq: 0,
            w_known: 0,
            counters: Counters::default(),
        }
    }

    /// R(t) at the last update, in bits.
    pub fn round_bits(&self) -> f64 {
        let c = &self.clock;
        let frac = if c.w_active > 0 { c.rem as f64 / c.w_active as f64 } else { 0.0 };
        (c.round as f64 + frac) / NANO as f64
    }

    /// R at the last update, nanobits, floored.
    pub fn round_nanobits(&self) -> u128 {
        self.clock.round
    }

    /// N_ac: conversations active in the BR system.
    pub fn n_active(&self) -> u32 {
        self.clock.n_active
    }

    /// Sum of the weights of the active conversations.
    pub fn w_active(&self) -> u64 {
        self.clock.w_active
    }

    /// Sum of the weights of every conversation this queue has seen (active or not).
    pub fn w_known(&self) -> u64 {
        self.w_known
    }

    /// Packets and bytes queued for conversation `c`, and its weight.
    pub(crate) fn conv_backlog(&self, c: usize) -> (usize, u64, u32) {
        let conv = &self.convs[c];
        (conv.queue.len(), conv.bytes, conv.weight)
    }

    /// The last finish number of the conversation of key `key`, nanobits (tests).
    #[cfg(test)]
    fn f_last_of(&self, key: u64) -> Option<u128> {
        self.convs.iter().find(|c| c.key == key).map(|c| c.f_last)
    }

    /// R exactly, nanobits: (floor, remainder, denominator) (tests).
    #[cfg(test)]
    fn round_exact(&self) -> (u128, u128, u64) {
        (self.clock.round, self.clock.rem, self.clock.w_active.max(1))
    }

    /// Keys of the active conversations, sorted (tests).
    #[cfg(test)]
    fn active_keys(&self) -> Vec<u64> {
        let mut k: Vec<u64> = self.convs.iter().filter(|c| c.active).map(|c| c.key).collect();
        k.sort();
        k
    }

    /// Advance R to `now`: spend the line's work on the active set, removing each
    /// conversation as R reaches its last finish number.
    fn advance(&mut self, now: SimTime) {
        let c = &mut self.clock;
        debug_assert!(now >= c.t, "time went backwards");
        let dt = now.saturating_since(c.t).ns();
        c.t = c.t.max(now);
        if c.w_active == 0 {
            return; // nobody active: R stays where it is
        }
        let mut work = c.rem + self.rate * dt as u128;
        while let Some(&Reverse((f, i))) = c.finish.peek() {
            let conv = &mut self.convs[i as usize];
            if conv.f_last != f {
                c.finish.pop();
                c.finish.push(Reverse((conv.f_last, i)));
                continue;
            }
            let need = (f - c.round) * c.w_active as u128;
            if need > work {
                break;
            }
            work -= need;
            c.round = f;
            c.finish.pop();
            conv.active = false;
            c.w_active -= conv.weight as u64;
            c.n_active -= 1;
            if c.w_active == 0 {
                work = 0; // the BR system empties: R stops here
                break;
            }
        }
        if c.w_active > 0 {
            let w = c.w_active as u128;
            c.round += work / w;
            c.rem = work % w;
        } else {
            c.rem = 0;
        }
    }

    /// The enqueue decision, also returning the arrival's conversation (for fq_bit).
    pub(crate) fn admit(&mut self, id: PacketId, cx: &mut QdiscCtx) -> (Verdict, usize) {
        self.advance(cx.now);
        let pkt = cx.pkts[id];
        let key = self.p.user.key(&pkt);
        let (c, new) = self.index.get_or_insert(key);
        if new {
            let weight = match self.p.user {
                User::Flow => self.p.weights.0.get(pkt.flow as usize).copied().unwrap_or(1),
                User::Pair | User::Source => 1,
            };
            self.convs.push(Conv { key, weight, f_last: 0, active: false, queue: VecDeque::new(), bytes: 0 });
            self.w_known += weight as u64;
        }
        let conv = &mut self.convs[c];
        let p = pkt.size as u128 * 8 * NANO / conv.weight as u128;
        let joining = !conv.active;
        if joining {
            // Joining changes N_ac: R is snapped onto the nanobit grid (see the header).
            self.counters.discarded_nanobits += self.clock.rem;
            self.clock.rem = 0;
        }
        let r = self.clock.round;
        let b = bid(conv.f_last, r, p, self.delta);
        let (_, f) = start_finish(conv.f_last, r, p);
        conv.f_last = f;
        if joining {
            conv.active = true;
            self.clock.w_active += conv.weight as u64;
            self.clock.n_active += 1;
            self.clock.finish.push(Reverse((f, c as u32)));
            self.counters.activations += 1;
        }

        // The shared buffer: push out until the arrival fits.
        let size = pkt.size;
        let counted = self.p.pushout_arrival == PushoutArrival::Counted;
        while self.p.limit.overflows(self.len, self.bytes, size) {
            let by_bytes = matches!(self.p.limit, Limit::Bytes(_));
            let measure = |conv: &Conv, i: usize| {
                let (n, b) = (conv.queue.len() as u64, conv.bytes);
                let (n, b) = if counted && i == c { (n + 1, b + size as u64) } else { (n, b) };
                if by_bytes {
                    b
                } else {
                    n
                }
            };
            let candidates =
                self.convs.iter().enumerate().filter(|(i, conv)| (counted && *i == c) || !conv.queue.is_empty());
            if counted && self.p.pushout_ties == PushoutTies::Arrival {
                let own = (measure(&self.convs[c], c), self.convs[c].weight);
                let arrival_is_longest = candidates
                    .clone()
                    .all(|(i, conv)| space_per_weight(own, (measure(conv, i), conv.weight)).is_ge());
                if arrival_is_longest {
                    self.counters.arrivals_pushed += 1;
                    return (Verdict::Dropped(DropReason::Pushout), c);
                }
            }
            // Admitted, with nothing left to push out (an arrival larger than the whole limit):
            // the arrival goes.
            let Some(pos) = pushout_pick(
                candidates.clone().map(|(i, conv)| (measure(conv, i), conv.weight, conv.key)),
                self.p.pushout_ties,
                cx.rng,
            ) else {
                self.counters.arrivals_pushed += 1;
                return (Verdict::Dropped(DropReason::Pushout), c);
            };
            let (v, _) = candidates.clone().nth(pos).expect("position from the same list");
            if counted && v == c {
                self.counters.arrivals_pushed += 1;
                return (Verdict::Dropped(DropReason::Pushout), c);
            }
            let victim = self.convs[v].queue.pop_back().expect("a candidate other than the arrival's is backlogged");
            self.convs[v].bytes -= victim.size as u64;
            self.len -= 1;
            self.bytes -= victim.size as u64;
            self.counters.pushed_out += 1;
            cx.victims.push((victim.pkt, DropReason::Pushout));
        }

        let conv = &mut self.convs[c];
        let slot = Slot { pkt: id, size, bid: b, arrived: cx.now, seq: self.seq };
        self.seq += 1;
        if conv.queue.is_empty() {
            self.heads.push(Reverse(Head { bid: b, arrived: cx.now, key, seq: slot.seq, conv: c as u32 }));
        }
        conv.queue.push_back(slot);
        conv.bytes += size as u64;
        self.len += 1;
        self.bytes += size as u64;
        (Verdict::Enqueued, c)
    }
}

impl QueueDisc for Fq {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.admit(pkt, cx).0
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.advance(cx.now);
        while let Some(Reverse(h)) = self.heads.pop() {
            let conv = &mut self.convs[h.conv as usize];
            match conv.queue.front() {
                Some(s) if s.seq == h.seq => {}
                _ => continue, // stale: that head was pushed out
            }
            let s = conv.queue.pop_front().expect("checked");
            conv.bytes -= s.size as u64;
            if let Some(n) = conv.queue.front() {
                self.heads.push(Reverse(Head {
                    bid: n.bid,
                    arrived: n.arrived,
                    key: conv.key,
                    seq: n.seq,
                    conv: h.conv,
                }));
            }
            self.len -= 1;
            self.bytes -= s.size as u64;
            return Some(s.pkt);
        }
        None
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        self.p.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("n_active", self.clock.n_active as f64));
        out.push(("round_bits", self.round_bits()));
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, n_flows: u64) -> u64 {
    (2 * n_flows).max(8)
}

#[cfg(test)]
mod tests {
    use crate::units::SimTime;
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::PacketArena;

    /// A line of 1 bit per ns, so times in ns and rounds in bits read the same.
    fn gigabit(n_flows: usize) -> LinkInfo {
        LinkInfo { rate_bps: 1_000_000_000, n_flows, mean_packet_size: 1000 }
    }

    fn params(limit: Limit) -> Params {
        Params {
            limit,
            delta: Bytes(0),
            user: User::Flow,
            pushout_ties: PushoutTies::LargerId,
            pushout_arrival: PushoutArrival::Counted,
            weights: Weights::default(),
        }
    }

    fn fq(limit: Limit) -> Harness<Fq> {
        Harness::new(Fq::new(&params(limit), &gigabit(8)), 1)
    }

    /// Offer `bytes` from `flow` at time `t` ns.
    #[track_caller]
    fn at(h: &mut Harness<Fq>, t: u64, flow: u32, bytes: u32) -> Verdict {
        h.now = t;
        h.offer(flow, bytes)
    }

    fn bits(b: u128) -> u128 {
        b * NANO
    }

    #[test]
    fn finish_numbers_follow_the_round_as_conversations_go_inactive_between_arrivals() {
        // Line 1 bit/ns. Hand computation (bits):
        //   t=0    A 800:  R=0,    N=1, F_A=800
        //   t=200  B 800:  R=200 (N=1 for 200 ns),        F_B=1000, N=2
        //   t=1000 C 400:  R=200+800/2=600,               F_C=1000, N=3
        //   R reaches F_A=800 at t=1000+3*200=1600 (A leaves, N=2), then F_B=F_C=1000 at
        //   t=1600+2*200=2000: both leave together, N=0.
        //   t=2000 D 800:  R=1000 exactly, N was 0,       F_D=1800, N=1
        //   D leaves at t=2800 (R=1800); then nobody is active and R stays at 1800.
        //   t=5000 E 400:  R=1800,                         F_E=2200
        let mut h = fq(Limit::Unbounded);
        at(&mut h, 0, 1, 100);
        assert_eq!(h.q.f_last_of(1), Some(bits(800)));
        at(&mut h, 200, 2, 100);
        assert_eq!(h.q.round_nanobits(), bits(200));
        assert_eq!(h.q.f_last_of(2), Some(bits(1000)));
        at(&mut h, 1000, 3, 50);
        assert_eq!(h.q.round_nanobits(), bits(600));
        assert_eq!(h.q.f_last_of(3), Some(bits(1000)));
        assert_eq!(h.q.n_active(), 3);
        at(&mut h, 2000, 4, 100);
        assert_eq!(h.q.round_nanobits(), bits(1000));
        assert_eq!(h.q.active_keys(), vec![4], "A, B and C left the BR system before D came");
        assert_eq!(h.q.f_last_of(4), Some(bits(1800)));
        at(&mut h, 5000, 5, 50);
        assert_eq!(h.q.round_nanobits(), bits(1800), "R stands still while nobody is active");
        assert_eq!(h.q.f_last_of(5), Some(bits(2200)));
        assert_eq!(h.q.active_keys(), vec![5]);
    }

    #[test]
    fn sends_in_bid_order_with_ties_to_the_earlier_arrival() {
        // Line 1 bit/ns; nothing is dequeued until every packet is in (the line is busy with
        // an earlier packet). Hand computation (bits; A = flow 1, B = 2, C = 3):
        //   t=0  A1 800:  R=0 (N=1 from here), F=800
        //   t=1  A2 800:  A active, F=1600
        //   t=2  B1 400:  R=2, B joins, F=402 (N=2 from here)
        //   t=3  B2 400:  F=802
        //   t=4  C1 1600: R=2+2/2=3, C joins, F=1603 (N=3)
        //   t=5  C2 400:  F=2003
        //   t=6  B3 800:  F=802+800=1602
        // Bids (= F with delta 0): B1 402 < A1 800 < B2 802 < A2 1600 < B3 1602 < C1 1603 < C2 2003.
        let mut h = fq(Limit::Unbounded);
        for (t, flow, bytes) in [(0, 1, 100), (1, 1, 100), (2, 2, 50), (3, 2, 50), (4, 3, 200), (5, 3, 50), (6, 2, 100)]
        {
            assert_eq!(at(&mut h, t, flow, bytes), Verdict::Enqueued);
        }
        assert_eq!(h.q.f_last_of(2), Some(bits(1602)));
        assert_eq!(h.q.f_last_of(3), Some(bits(2003)));
        assert_eq!(h.drain_flows(), vec![2, 1, 2, 1, 2, 3, 3]);

        // Equal bids: two conversations arriving at the same R with equal sizes. The earlier
        // arrival goes first, whatever its id.
        let mut h = fq(Limit::Unbounded);
        h.now = 10_000;
        h.offer(7, 100); // R = 0 (nothing was active), F = 800
        h.offer(3, 100); // same time, same R, same bid: the smaller id goes first
        assert_eq!(h.q.round_nanobits(), 0);
        assert_eq!(h.drain_flows(), vec![3, 7]);
        let mut h = fq(Limit::Unbounded);
        at(&mut h, 0, 7, 100); // F = 800
        at(&mut h, 400, 3, 50); // R = 400, F = 800: same bid, later arrival
        assert_eq!(h.q.f_last_of(3), h.q.f_last_of(7));
        assert_eq!(h.drain_flows(), vec![7, 3]);
    }

    #[test]
    fn delta_lets_a_new_conversation_bid_below_the_round() {
        // Line 1 bit/ns. At t=0 A (flow 1) queues three 800-bit packets (F 800, 1600, 2400)
        // and B (flow 2) two (F 800, 1600). At t=1000, with A and B active, R = 1000/2 = 500.
        // C (flow 3, new) brings 400 bits: F = 900 whatever delta is.
        //   delta = 0:        bid 900 = F: after A1 and B1 (800), before A2 (1600).
        //   delta = 100 bytes (800 bits): bid = 400 + max(0, 500 - 800) = 400: first.
        for (delta, order) in [(0, vec![1, 2, 3, 1, 2, 1]), (100, vec![3, 1, 2, 1, 2, 1])] {
            let p = Params { delta: Bytes(delta), ..params(Limit::Unbounded) };
            let mut h = Harness::new(Fq::new(&p, &gigabit(4)), 1);
            for flow in [1, 1, 1, 2, 2] {
                at(&mut h, 0, flow, 100);
            }
            at(&mut h, 1000, 3, 50);
            assert_eq!(h.q.round_nanobits(), bits(500));
            assert_eq!(h.q.f_last_of(3), Some(bits(900)));
            assert_eq!(h.drain_flows(), order, "delta = {delta} bytes");
        }
    }

    #[test]
    fn pushout_drops_the_last_packet_of_the_longest_conversation() {
        let mut h = fq(Limit::Packets(4));
        for flow in [1, 1, 2, 3] {
            assert_eq!(h.offer(flow, 100), Verdict::Enqueued);
        }
        // A new conversation: flow 1 is the longest (2), its last packet goes.
        assert_eq!(h.offer(4, 100), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::Pushout)]);
        // Flow 2 arrives: counting the arrival, 2 has 2 packets, 1/3/4 have 1: the arrival goes.
        assert_eq!(h.offer(2, 100), Verdict::Dropped(DropReason::Pushout));
        assert_eq!(h.q.len(), 4);
        assert_eq!(h.drain_flows(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn admitted_arrivals_push_out_the_last_queued_packet_even_of_their_own_conversation() {
        let admitted = |limit| Params { pushout_arrival: PushoutArrival::Admitted, ..params(limit) };
        let mut h = Harness::new(Fq::new(&admitted(Limit::Packets(4)), &gigabit(8)), 1);
        for (flow, size) in [(1, 100), (1, 200), (2, 100), (3, 100)] {
            assert_eq!(h.offer(flow, size), Verdict::Enqueued);
        }
        // Flow 1 holds the most (2) before its arrival: its last queued packet (200 bytes) goes
        // and the arrival (300) takes its place, where `counted` drops the arrival.
        assert_eq!(h.offer(1, 300), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(1, DropReason::Pushout)]);
        assert_eq!((h.q.len(), h.q.bytes()), (4, 100 + 300 + 100 + 100));
        // Flow 2 arrives: flow 1 still holds the most, its last queued packet goes. Flow 2 again:
        // now flow 2 holds the most before its arrival, and its own last queued packet goes.
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.dropped.last(), Some(&(1, DropReason::Pushout)));
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.dropped.last(), Some(&(2, DropReason::Pushout)));
        assert_eq!(h.drain_flows(), vec![1, 2, 3, 2]);
        // Counted, the same arrival is dropped itself.
        let mut c = fq(Limit::Packets(4));
        for (flow, size) in [(1, 100), (1, 200), (2, 100), (3, 100)] {
            c.offer(flow, size);
        }
        assert_eq!(c.offer(1, 300), Verdict::Dropped(DropReason::Pushout));
        assert_eq!(c.q.bytes(), 500);
        // An arrival larger than a byte limit with nothing left to push out goes itself.
        let mut b = Harness::new(Fq::new(&admitted(Limit::Bytes(150)), &gigabit(8)), 1);
        assert_eq!(b.offer(1, 200), Verdict::Dropped(DropReason::Pushout));
        assert_eq!(b.q.len(), 0);
    }

    #[test]
    fn pushout_ties_go_to_the_larger_conversation_id() {
        let mut h = fq(Limit::Packets(4));
        for flow in [5, 5, 2, 2] {
            h.offer(flow, 100);
        }
        // Flow 9 arrives: 5 and 2 both hold 2; the larger id (5) loses its last packet.
        assert_eq!(h.offer(9, 100), Verdict::Enqueued);
        assert_eq!(h.dropped, vec![(5, DropReason::Pushout)]);
        // Flow 2 arrives: 2 now counts 3 with its arrival: the arrival goes.
        assert_eq!(h.offer(2, 100), Verdict::Dropped(DropReason::Pushout));
        // Flow 5 arrives: 5 counts 2 with the arrival, ties with 2; 5 is larger: the arrival goes.
        assert_eq!(h.offer(5, 100), Verdict::Dropped(DropReason::Pushout));
        // Flow 1 arrives: 1 counts 1; 2 (2 packets) is the longest.
        assert_eq!(h.offer(1, 100), Verdict::Enqueued);
        assert_eq!(h.dropped.last(), Some(&(2, DropReason::Pushout)));
    }

    #[test]
    fn random_pushout_ties_pick_each_tied_conversation() {
        let p = Params { pushout_ties: PushoutTies::Random, ..params(Limit::Packets(4)) };
        let mut losers = std::collections::BTreeMap::new();
        for seed in 0..200 {
            let mut h = Harness::new(Fq::new(&p, &gigabit(8)), seed);
            for flow in [1, 1, 2, 2] {
                h.offer(flow, 100);
            }
            h.offer(3, 100);
            *losers.entry(h.dropped[0].0).or_insert(0) += 1;
        }
        // Two tied conversations, 200 trials: each loses about 100 times (binomial sd 7).
        assert_eq!(losers.len(), 2);
        assert!(losers.values().all(|&n| (65..=135).contains(&n)), "{losers:?}");
    }

    #[test]
    fn arrival_ties_drop_the_arrival_whenever_its_conversation_is_among_the_longest() {
        let p = Params { pushout_ties: PushoutTies::Arrival, ..params(Limit::Packets(6)) };
        for seed in 0..50 {
            let mut h = Harness::new(Fq::new(&p, &gigabit(8)), seed);
            for flow in [1, 1, 1, 2, 2, 3] {
                h.offer(flow, 100);
            }
            // Flow 2 arrives: counted, it holds 3 and ties with flow 1; under random ties flow 1
            // would lose half the time, here the arrival goes, whatever the seed.
            assert_eq!(h.offer(2, 100), Verdict::Dropped(DropReason::Pushout));
            // Flow 3 arrives (2 with it): flow 1 alone is the longest and loses its last packet.
            assert_eq!(h.offer(3, 100), Verdict::Enqueued);
            assert_eq!(h.dropped.last(), Some(&(1, DropReason::Pushout)));
        }
        // The weighted measure decides "among the longest" too: flow 2 of weight 2 with 4 packets
        // counted holds 2 per unit of weight, no more than flow 1's 3, so flow 1 loses.
        let w = Params { pushout_ties: PushoutTies::Arrival, weights: Weights(vec![1, 1, 2]), ..params(Limit::Packets(6)) };
        let mut h = Harness::new(Fq::new(&w, &gigabit(8)), 1);
        for flow in [1, 1, 1, 2, 2, 2] {
            h.offer(flow, 100);
        }
        assert_eq!(h.offer(2, 100), Verdict::Enqueued);
        assert_eq!(h.dropped.last(), Some(&(1, DropReason::Pushout)));
    }

    #[test]
    fn byte_limit_pushes_out_by_bytes_until_the_arrival_fits() {
        let mut h = fq(Limit::Bytes(1000));
        h.offer(1, 300);
        h.offer(1, 300); // flow 1: 600 bytes in 2 packets
        h.offer(2, 200);
        h.offer(2, 100);
        h.offer(2, 100); // flow 2: 400 bytes in 3 packets
                         // Flow 3 brings 700 bytes: counting it, flow 3 is the longest (700 > 600 > 400): it goes.
        assert_eq!(h.offer(3, 700), Verdict::Dropped(DropReason::Pushout));
        // Flow 3 brings 500: flow 1 (600) is the longest and loses its last 300; 700 + 500
        // still overflows, and now flow 3 (500) beats flow 2 (400) and flow 1 (300): it goes.
        assert_eq!(h.offer(3, 500), Verdict::Dropped(DropReason::Pushout));
        assert_eq!(h.dropped[1..], [(1, DropReason::Pushout), (3, DropReason::Pushout)]);
        assert_eq!(h.q.bytes(), 700);
        // Flow 4 brings 300: fits exactly.
        assert_eq!(h.offer(4, 300), Verdict::Enqueued);
        assert_eq!(h.q.bytes(), 1000);
    }

    #[test]
    fn dropped_packets_are_still_charged_to_their_conversation() {
        // Buffer of 2. Line 1 bit/ns, everything at t=0 (R stays 0).
        let mut h = fq(Limit::Packets(2));
        h.offer(1, 100); // F=800
        h.offer(1, 100); // F=1600
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Pushout)); // F=2400, not rolled back
        assert_eq!(h.q.f_last_of(1), Some(bits(2400)));
        h.offer(2, 100); // flow 1's last queued packet (F=1600) is pushed out; F_2 = 800
        assert_eq!(h.offer(1, 100), Verdict::Dropped(DropReason::Pushout)); // 1 counts 2 vs 1
                                                                            // Flow 1's next admitted packet bids 800 * 5 = 4000, behind a fresh conversation.
        assert_eq!(h.serve(), Some(1)); // bid 800, ties with flow 2: same time, smaller id
        assert_eq!(h.serve(), Some(2));
        h.offer(1, 100); // F = 4000
        h.offer(3, 100); // new: F = R + 800 = 800
        assert_eq!(h.q.f_last_of(1), Some(bits(4000)));
        assert_eq!(h.drain_flows(), vec![3, 1]);
    }

    #[test]
    fn weights_divide_packet_sizes_and_count_in_the_active_sum() {
        // Flow 0 weighs 2: its 800-bit packets count 400 rounds, and it counts twice in N_ac.
        let p = Params { weights: Weights(vec![2]), ..params(Limit::Unbounded) };
        let mut h = Harness::new(Fq::new(&p, &gigabit(2)), 1);
        at(&mut h, 0, 0, 100); // F_0 = 400
        at(&mut h, 0, 1, 100); // F_1 = 800
        assert_eq!(h.q.w_active(), 3);
        // R grows at 1/3 bit per ns: it reaches 400 at t = 1200, then 1/1 up to 800 at t=1600.
        at(&mut h, 1300, 2, 100);
        assert_eq!(h.q.round_nanobits(), bits(500));
        assert_eq!(h.q.active_keys(), vec![1, 2]);
    }

    // -----------------------------------------------------------------------------------------
    // R(t) against an independent fluid simulation of the bit-by-bit round robin.

    /// An exact fraction (test only).
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Q(i128, i128);
    /// Multiplication that fails loudly instead of wrapping (release builds do not check).
    fn m(a: i128, b: i128) -> i128 {
        a.checked_mul(b).expect("fraction overflow")
    }
    fn gcd(a: i128, b: i128) -> i128 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    impl Q {
        fn new(n: i128, d: i128) -> Q {
            let g = gcd(n, d).max(1);
            let s = if d < 0 { -1 } else { 1 };
            Q(s * n / g, s * d / g)
        }
        fn int(n: i128) -> Q {
            Q(n, 1)
        }
        fn add(self, o: Q) -> Q {
            Q::new(m(self.0, o.1).checked_add(m(o.0, self.1)).expect("overflow"), m(self.1, o.1))
        }
        fn sub(self, o: Q) -> Q {
            self.add(Q(-o.0, o.1))
        }
        fn mul(self, o: Q) -> Q {
            Q::new(m(self.0, o.0), m(self.1, o.1))
        }
        fn div(self, o: Q) -> Q {
            Q::new(m(self.0, o.1), m(self.1, o.0))
        }
        fn lt(self, o: Q) -> bool {
            m(self.0, o.1) < m(o.0, self.1)
        }
    }

    /// Processor sharing at 1 bit/ns in real time, in exact fractions: each backlogged
    /// conversation drains its remaining bits at 1/N bit/ns, and R(t) is the integral of 1/N
    /// over busy time. It never looks at finish numbers or at the active-set rule.
    struct Fluid {
        left: Vec<Q>,
        r: Q,
        t: Q,
    }

    impl Fluid {
        fn backlogged(&self) -> Vec<usize> {
            (0..self.left.len()).filter(|&i| Q::int(0).lt(self.left[i])).collect()
        }

        /// Serve until `until`, then stand still (a pause) until `then`.
        fn run(&mut self, until: Q, then: Q) {
            loop {
                let busy = self.backlogged();
                if busy.is_empty() {
                    break;
                }
                let n = Q::int(busy.len() as i128);
                let smallest =
                    busy.iter().map(|&i| self.left[i]).fold(self.left[busy[0]], |a, b| if b.lt(a) { b } else { a });
                let t_empty = self.t.add(smallest.mul(n));
                let stop = if t_empty.lt(until) { t_empty } else { until };
                let served = stop.sub(self.t).div(n);
                for &i in &busy {
                    self.left[i] = self.left[i].sub(served);
                }
                self.r = self.r.add(served);
                self.t = stop;
                if !t_empty.lt(until) {
                    break;
                }
            }
            self.t = then;
        }
    }

    #[test]
    fn round_number_matches_a_fluid_round_robin_simulation() {
        // Random arrivals of 5 conversations on a 1 bit/ns line at about 90% load, so
        // conversations drain and leave between arrivals and the BR system often empties.
        // FQ's R must equal the round number of the fluid system exactly, and its active set
        // the fluid's backlogged set, once the fluid server pauses for the work FQ discards
        // when it floors R at an activation (the documented rounding: `loss` nanobits of work,
        // a pause of loss / 1e9 ns just before the arrival).
        let mut rng = SimRng::from_seed(42);
        let n_conv = 5;
        let mut q = Fq::new(&params(Limit::Unbounded), &gigabit(n_conv));
        let mut fluid = Fluid { left: vec![Q::int(0); n_conv], r: Q::int(0), t: Q::int(0) };
        let mut pkts = PacketArena::new();
        let mut qrng = SimRng::from_seed(1);
        let mut victims = vec![];
        let mut sizes = [0usize; 6];
        let mut t = 0u64;
        for k in 0..400 {
            t += rng.below(11_000) as u64;
            let c = rng.below(n_conv);
            let bytes = [40u32, 100, 576, 1000, 1500][rng.below(5)];
            let before = q.counters.discarded_nanobits;
            let id = pkts.alloc(Packet::data(c as u32, c as u32, 99, bytes));
            let mut cx = QdiscCtx {
                now: SimTime(t),
                rng: &mut qrng,
                pkts: &mut pkts,
                victims: &mut victims,
                marks: &mut Vec::new(),
                in_service: None,
            };
            assert_eq!(q.enqueue(id, &mut cx), Verdict::Enqueued);
            // Keep the real queue short: it does not influence R.
            let out = q.dequeue(&mut cx).expect("a packet is queued");
            pkts.free(out);

            let loss = (q.counters.discarded_nanobits - before) as i128;
            let ta = Q::int(t as i128);
            fluid.run(ta.sub(Q::new(loss, NANO as i128)), ta);
            fluid.left[c] = fluid.left[c].add(Q::int(bytes as i128 * 8));

            let (round, rem, w) = q.round_exact();
            let r_fq = Q::int(round as i128).add(Q::new(rem as i128, w as i128));
            assert_eq!(r_fq, fluid.r.mul(Q::int(NANO as i128)), "arrival {k} at t={t}: R differs");
            let busy = fluid.backlogged();
            assert_eq!(
                q.active_keys(),
                busy.iter().map(|&c| c as u64).collect::<Vec<_>>(),
                "arrival {k} at t={t}: active sets differ"
            );
            sizes[busy.len()] += 1;
        }
        eprintln!(
            "discarded {} nanobits of work; active-set sizes after arrivals {sizes:?}",
            q.counters.discarded_nanobits
        );
        // The check has teeth: the active set took every size, and the floors did act.
        assert!(sizes[1] > 30 && sizes[2] > 30 && sizes[3] > 30 && sizes[4] + sizes[5] > 30, "{sizes:?}");
        assert!(q.counters.discarded_nanobits > 0);
    }

    #[test]
    fn pure_rules_match_the_paper() {
        assert_eq!(start_finish(500, 300, 100), (500, 600)); // active: S = F_prev
        assert_eq!(start_finish(200, 300, 100), (300, 400)); // inactive: S = R
        assert_eq!(bid(200, 300, 100, 0), 400); // delta = 0: B = F
        assert_eq!(bid(200, 300, 100, 50), 350);
        assert_eq!(bid(200, 300, 100, 1000), 300); // delta = infinity: B = P + F_prev
        let mut rng = SimRng::from_seed(1);
        let cands = [(3, 1, 10), (5, 1, 2), (5, 1, 7), (1, 1, 99)];
        assert_eq!(pushout_pick(cands.iter().copied(), PushoutTies::LargerId, &mut rng), Some(2));
        // Space per unit of weight: 9/3 = 3 < 4/1; 8/2 = 4/1 ties, the larger id loses.
        let cands = [(9, 3, 1), (4, 1, 2), (8, 2, 3)];
        assert_eq!(pushout_pick(cands.iter().copied(), PushoutTies::LargerId, &mut rng), Some(2));
        assert_eq!(pushout_pick(cands.iter().copied(), PushoutTies::SmallerId, &mut rng), Some(1));
        // The smaller id loses whatever order the candidates come in.
        let cands = [(5, 1, 7), (3, 1, 10), (5, 1, 2), (1, 1, 99)];
        assert_eq!(pushout_pick(cands.iter().copied(), PushoutTies::SmallerId, &mut rng), Some(2));
        assert_eq!(pushout_pick(cands.iter().copied(), PushoutTies::LargerId, &mut rng), Some(0));
    }
}
