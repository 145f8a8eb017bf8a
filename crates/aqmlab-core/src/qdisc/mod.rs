//! Queue disciplines: what a link's output queue admits, drops, marks and sends next.
//!
//! The contract (shape after ns-3's QueueDisc and Linux's sch_* files):
//! - `enqueue` sees the arriving packet and answers with a [`Verdict`] about *it*. Packets
//!   already queued that the discipline removes (Random Drop's victim, CHOKe's matching
//!   candidates, Fair Queueing's push-out) go to `cx.victims` with their reason.
//! - `dequeue` returns the next packet to transmit, in any order the discipline likes (Fair
//!   Queueing reorders); drops it makes on the way out also go to `cx.victims`.
//! - a discipline may mark instead of dropping. An arrival marked as it joins: the discipline
//!   sets [`flags::CE`] on it and answers [`Verdict::Marked`] with the reason. A packet marked
//!   later (CoDel marks the packet it dequeues): [`QdiscCtx::mark`], which sets the bit and
//!   reports the packet in `cx.marks`.
//! - time and randomness come in through [`QdiscCtx`]; no discipline reads a global.
//!
//! The link around the discipline keeps the statistics and checks the identities
//! `arrivals = enqueued + dropped_on_arrival` and
//! `len = enqueued - dequeued - evicted`.
//!
//! Adding a discipline: one file with `INFO` (name, summary, reader), a `Params` type read
//! through [`Fields`], `flow_state_entries` (its per-flow tables, for the memory budget: 0 when
//! it keeps none) and a type implementing [`QueueDisc`]; then one line in the `disciplines!`
//! list below.

use serde::Serialize;

use crate::conf::{Fields, Limit, Origin, Result, Source, Table};
use crate::packet::{PacketArena, PacketId};
use crate::rng::SimRng;
use crate::units::SimTime;

#[cfg(test)]
mod conformance;
pub mod fifo;
pub mod flow_queues;

/// Why a packet was dropped or marked (a mark is a drop the discipline turned into a congestion
/// signal, so the two share their reasons). The names are stable column names in results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The buffer was full (tail drop, or the physical limit behind an AQM).
    Overflow,
    /// An AQM's probabilistic early drop (RED, SRED, ZL-RED, early random drop).
    Early,
    /// An AQM's forced drop (RED's average above max_th).
    Forced,
    /// CHOKe: the arrival matched a packet drawn from the queue (both go).
    Match,
    /// Random Drop congestion recovery: the packet drawn to make room.
    RandomDrop,
    /// Pushed out of the longest conversation or flow queue when the shared buffer was full
    /// (Fair Queueing, DRR, SFQ; the arrival itself when its own queue is the longest).
    Pushout,
    /// Random loss on the link itself (not a queue decision).
    LinkLoss,
    /// CoDel's control law (RFC 8289): the sojourn time stayed above target for an interval.
    Codel,
    /// PIE's random drop (RFC 8033) with its drop probability.
    Pie,
    /// A flow-queueing scheduler's overflow: dropped from the queue with the largest backlog
    /// (FQ-CoDel's and FQ-PIE's fattest flow, RFC 8290 section 4.1).
    FattestFlow,
    /// A mark only: CoDel's `ce_threshold`, set on ECN-capable packets whose sojourn time is
    /// above it (Linux's shallow marking for DCTCP-style senders).
    CeThreshold,
    /// A mark only: DECbit's congestion bit (average queue length at or above the threshold).
    Decbit,
    /// A mark only: FQbit's congestion bit (a conversation above alpha of its fair share).
    FairShare,
    /// The arrival's flow queue (or hash bucket) held its own limit (SFQ's depth), or its flow
    /// was over its allowance (FRED's non-adaptive flows, SFB's bins at `max`).
    FlowLimit,
    /// BLUE's (or SFB's bins') marking probability.
    Blue,
    /// SFB: a flow whose bins all reached probability 1, over its penalty rate.
    RateLimit,
    /// DualPI2's PI2 controller (RFC 9332): a Classic packet at p'^2, an L4S packet at k p'.
    DualPi2,
    /// A mark only: a step threshold on the sojourn time (DualPI2's L queue).
    Step,
}

impl DropReason {
    pub const ALL: [DropReason; 18] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::Match,
        DropReason::RandomDrop,
        DropReason::Pushout,
        DropReason::LinkLoss,
        DropReason::Codel,
        DropReason::Pie,
        DropReason::FattestFlow,
        DropReason::CeThreshold,
        DropReason::Decbit,
        DropReason::FairShare,
        DropReason::FlowLimit,
        DropReason::Blue,
        DropReason::RateLimit,
        DropReason::DualPi2,
        DropReason::Step,
    ];
    pub const COUNT: usize = Self::ALL.len();

    pub const fn as_str(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::Match => "match",
            DropReason::RandomDrop => "random_drop",
            DropReason::Pushout => "pushout",
            DropReason::LinkLoss => "link_loss",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
            DropReason::FattestFlow => "fattest_flow",
            DropReason::CeThreshold => "ce_threshold",
            DropReason::Decbit => "decbit",
            DropReason::FairShare => "fair_share",
            DropReason::FlowLimit => "flow_limit",
            DropReason::Blue => "blue",
            DropReason::RateLimit => "rate_limit",
            DropReason::DualPi2 => "dualpi2",
            DropReason::Step => "step",
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Counters indexed by reason, of drops or of marks (a fixed array, no map on the hot path).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerReason(pub [u64; DropReason::COUNT]);

impl PerReason {
    #[inline]
    pub fn add(&mut self, r: DropReason) {
        self.0[r.index()] += 1;
    }
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    pub fn get(&self, r: DropReason) -> u64 {
        self.0[r.index()]
    }
    /// The counts since `earlier`, counts of the same whole run taken then.
    pub fn minus(&self, earlier: &PerReason) -> PerReason {
        PerReason(std::array::from_fn(|i| self.0[i] - earlier.0[i]))
    }
    /// Non-zero counts by name, for results.
    pub fn to_map(&self) -> std::collections::BTreeMap<&'static str, u64> {
        DropReason::ALL.iter().filter(|r| self.get(**r) > 0).map(|r| (r.as_str(), self.get(*r))).collect()
    }
}

/// [`PerReason`] kept only once something is counted: of the 200,000 link directions of a
/// 100,000-flow run one drops or marks anything, and two arrays inline in each link's record
/// were 51 MB of a 550 MB run.
#[derive(Clone, Debug, Default)]
pub struct SparsePerReason(Option<Box<PerReason>>);

impl SparsePerReason {
    #[inline]
    pub fn add(&mut self, r: DropReason) {
        self.0.get_or_insert_with(Box::default).add(r);
    }
    pub fn total(&self) -> u64 {
        self.0.as_ref().map_or(0, |c| c.total())
    }
    pub fn get(&self, r: DropReason) -> u64 {
        self.0.as_ref().map_or(0, |c| c.get(r))
    }
    /// Every reason's count (zeros where nothing was counted).
    pub fn dense(&self) -> PerReason {
        self.0.as_deref().copied().unwrap_or_default()
    }
    /// The counts since `earlier`, counts of the same whole run taken then.
    pub fn since(&self, earlier: &SparsePerReason) -> SparsePerReason {
        match (&self.0, &earlier.0) {
            (None, _) => SparsePerReason(None),
            (Some(now), None) => SparsePerReason(Some(now.clone())),
            (Some(now), Some(then)) => SparsePerReason(Some(Box::new(now.minus(then)))),
        }
    }
}

/// As counts: nothing counted equals counts of zero.
impl PartialEq for SparsePerReason {
    fn eq(&self, other: &Self) -> bool {
        self.dense() == other.dense()
    }
}

/// The answer about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    /// Enqueued with the congestion bit set (DECbit, ECN), and why.
    Marked(DropReason),
    Dropped(DropReason),
}

/// What a discipline may use while deciding.
pub struct QdiscCtx<'a> {
    /// Current time.
    pub now: SimTime,
    pub rng: &'a mut SimRng,
    pub pkts: &'a mut PacketArena,
    /// Packets removed from the queue (or on dequeue) with their reasons. Naming the packet
    /// in service here aborts its transmission (the front-CHOKe model drops it).
    pub victims: &'a mut Vec<(PacketId, DropReason)>,
    /// Packets marked other than as the arrival's verdict (at dequeue), with their reasons;
    /// filled by [`QdiscCtx::mark`].
    pub marks: &'a mut Vec<(PacketId, DropReason)>,
    /// The packet the link is transmitting now, if any (`None` inside `dequeue`: the
    /// transmitter is choosing its next packet; `None` there with an empty queue means the
    /// line goes idle).
    pub in_service: Option<PacketId>,
}

impl QdiscCtx<'_> {
    /// Mark `pkt` (set CE) for `reason`: for a packet that is not the arrival being decided,
    /// such as the one a discipline is about to dequeue.
    pub fn mark(&mut self, pkt: PacketId, reason: DropReason) {
        self.pkts[pkt].flags |= crate::packet::flags::CE;
        self.marks.push((pkt, reason));
    }
}

/// What a discipline needs to know about its link when it is built.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    pub rate_bps: u64,
    /// Number of flows in the scenario (flow ids are below it), for per-flow tables.
    pub n_flows: usize,
    /// Mean data packet size of the scenario's flows, bytes (RED's idle-time correction).
    pub mean_packet_size: u32,
}

/// A queue discipline.
pub trait QueueDisc {
    /// Decide about the arriving packet `pkt`.
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict;
    /// The next packet to transmit, if any.
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId>;
    /// Packets queued.
    fn len(&self) -> usize;
    /// Bytes queued.
    fn bytes(&self) -> u64;
    /// The physical buffer limit.
    fn limit(&self) -> Limit;
    /// Internal quantities worth tracing (RED's average, SRED's flow estimate).
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// Would an arrival of `size` bytes find the buffer full (overflow position)?
    fn is_full(&self, size: u32) -> bool {
        self.limit().overflows(self.len(), self.bytes(), size)
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// For a discipline that holds packets back (a shaper): when it will let the next one go,
    /// if its last `dequeue` held one back; the link is woken then. Work-conserving ones: never.
    fn ready_at(&self) -> Option<SimTime> {
        None
    }
    /// Whether an arrival may name the packet in transmission (`cx.in_service`) as a victim,
    /// aborting its transmission. Those that never do let the event loop schedule a packet's
    /// arrival at the far end as its transmission starts (one event instead of two).
    fn may_drop_in_service(&self) -> bool {
        false
    }
}

/// A discipline's entry in the catalogue; each discipline file defines one as `INFO`.
pub struct DisciplineInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub read: fn(&mut Fields) -> Result<QdiscParams>,
}

/// Declares every discipline once: `Variant(module::Type)`. The module provides `INFO`, a
/// `Params` type (`Clone + Debug + PartialEq + Serialize`) and `Type::new(&Params, &LinkInfo)`.
///
/// Disciplines listed under `inline` live inside the link; those under `boxed` on the heap. A
/// scenario with 10000 flows has 20000 access links with a DropTail queue each, touched by every
/// packet: inline, with the enum only as large as DropTail, a link is a few cache lines. The
/// larger disciplines (FQ's conversations, RED's state) usually sit on a few bottlenecks, where
/// one pointer costs nothing.
macro_rules! disciplines {
    (
        inline: $( $ivariant:ident($imodule:ident :: $ity:ident) ),* ;
        boxed: $( $bvariant:ident($bmodule:ident :: $bty:ident) ),* $(,)?
    ) => {
        // The modules themselves: a new one is its file and its line in the list below, no more.
        $( pub mod $imodule; )*
        $( pub mod $bmodule; )*

        /// Every discipline, in catalogue order.
        pub const REGISTRY: &[DisciplineInfo] = &[ $( $imodule::INFO, )* $( $bmodule::INFO, )* ];

        /// Validated parameters of one discipline.
        #[derive(Clone, Debug, PartialEq)]
        pub enum QdiscParams { $( $ivariant($imodule::Params), )* $( $bvariant($bmodule::Params), )* }

        impl QdiscParams {
            /// The discipline's registered name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( QdiscParams::$ivariant(_) => $imodule::INFO.name, )*
                    $( QdiscParams::$bvariant(_) => $bmodule::INFO.name, )*
                }
            }
            /// Entries of per-flow (or per-bucket) tables on one link direction with `n_flows`
            /// flows (at least 1), for the memory budget: each discipline's file says (its
            /// `flow_state_entries`), so a new one cannot be left out.
            pub fn flow_state_entries(&self, n_flows: u64) -> u64 {
                match self {
                    $( QdiscParams::$ivariant(p) => $imodule::flow_state_entries(p, n_flows), )*
                    $( QdiscParams::$bvariant(p) => $bmodule::flow_state_entries(p, n_flows), )*
                }
            }
            pub fn build(&self, link: &LinkInfo) -> AnyQdisc {
                match self {
                    $( QdiscParams::$ivariant(p) => AnyQdisc::$ivariant($imodule::$ity::new(p, link)), )*
                    $( QdiscParams::$bvariant(p) => AnyQdisc::$bvariant(Box::new($bmodule::$bty::new(p, link))), )*
                }
            }
        }

        impl Serialize for QdiscParams {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Tagged<'a, P: Serialize> {
                    discipline: &'static str,
                    #[serde(flatten)]
                    params: &'a P,
                }
                match self {
                    $( QdiscParams::$ivariant(p) => Tagged { discipline: self.name(), params: p }.serialize(s), )*
                    $( QdiscParams::$bvariant(p) => Tagged { discipline: self.name(), params: p }.serialize(s), )*
                }
            }
        }

        /// Static dispatch over every discipline.
        pub enum AnyQdisc {
            $( $ivariant($imodule::$ity), )*
            $( $bvariant(Box<$bmodule::$bty>), )*
        }

        impl AnyQdisc {
            #[inline]
            pub fn inner(&self) -> &dyn QueueDisc {
                match self {
                    $( AnyQdisc::$ivariant(q) => q, )*
                    $( AnyQdisc::$bvariant(q) => q.as_ref(), )*
                }
            }
            #[inline]
            pub fn inner_mut(&mut self) -> &mut dyn QueueDisc {
                match self {
                    $( AnyQdisc::$ivariant(q) => q, )*
                    $( AnyQdisc::$bvariant(q) => q.as_mut(), )*
                }
            }
        }

        /// The same calls without a virtual call in between, for the per-packet path: each
        /// arm calls its discipline directly, so the small ones (DropTail's) inline.
        impl QueueDisc for AnyQdisc {
            #[inline]
            fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
                match self { $( AnyQdisc::$ivariant(q) => q.enqueue(pkt, cx), )* $( AnyQdisc::$bvariant(q) => q.enqueue(pkt, cx), )* }
            }
            #[inline]
            fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
                match self { $( AnyQdisc::$ivariant(q) => q.dequeue(cx), )* $( AnyQdisc::$bvariant(q) => q.dequeue(cx), )* }
            }
            #[inline]
            fn len(&self) -> usize {
                match self { $( AnyQdisc::$ivariant(q) => q.len(), )* $( AnyQdisc::$bvariant(q) => q.len(), )* }
            }
            #[inline]
            fn bytes(&self) -> u64 {
                match self { $( AnyQdisc::$ivariant(q) => q.bytes(), )* $( AnyQdisc::$bvariant(q) => q.bytes(), )* }
            }
            #[inline]
            fn ready_at(&self) -> Option<SimTime> {
                match self { $( AnyQdisc::$ivariant(q) => q.ready_at(), )* $( AnyQdisc::$bvariant(q) => q.ready_at(), )* }
            }
            fn may_drop_in_service(&self) -> bool {
                self.inner().may_drop_in_service()
            }
            #[inline]
            fn limit(&self) -> Limit {
                match self { $( AnyQdisc::$ivariant(q) => q.limit(), )* $( AnyQdisc::$bvariant(q) => q.limit(), )* }
            }
            fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
                self.inner().gauges(out)
            }
            #[inline]
            fn is_full(&self, size: u32) -> bool {
                match self { $( AnyQdisc::$ivariant(q) => q.is_full(size), )* $( AnyQdisc::$bvariant(q) => q.is_full(size), )* }
            }
        }
    };
}

// One line per discipline; keep one discipline per file.
disciplines! {
    inline:
        DropTail(droptail::DropTail);
    boxed:
        RandomDrop(random_drop::RandomDrop),
        EarlyRandomDrop(early_random_drop::EarlyRandomDrop),
        Fq(fq::Fq),
        FqBit(fq_bit::FqBit),
        DecBit(decbit::DecBit),
        Red(red::Red),
        Choke(choke::Choke),
        Sred(sred::Sred),
        ZlRed(zl_red::ZlRed),
        Codel(codel::Codel),
        Drr(drr::Drr),
        Sfq(sfq::Sfq),
        Ared(ared::Ared),
        Blue(blue::Blue),
        Sfb(sfb::Sfb),
        Fred(fred::Fred),
        Cobalt(cobalt::Cobalt),
        Cake(cake::Cake),
        DualPi2(dualpi2::DualPi2),
        FqCodel(fq_codel::FqCodel),
        Pie(pie::Pie),
        FqPie(fq_pie::FqPie),
        Tbf(tbf::Tbf),
}

/// Read a `queue = { discipline = ..., ... }` table.
pub fn read_queue(src: &Source, path: &str, t: &Table, at: Origin) -> Result<QdiscParams> {
    let mut f = Fields::new(src, path, t, at);
    let names: Vec<&str> = REGISTRY.iter().map(|d| d.name).collect();
    let discipline: String = f.req("discipline", String::new(), "queue discipline")?;
    let Some(info) = find(&discipline) else {
        let known = REGISTRY.iter().flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()));
        let hint = crate::suggest::did_you_mean(&discipline, known);
        return Err(
            f.error("discipline", format!("unknown discipline '{discipline}'{hint} (allowed: {})", names.join(", ")))
        );
    };
    let params = (info.read)(&mut f)?;
    let own_keys = discipline_keys(info);
    f.finish().map_err(|mut e| {
        // A parameter of another discipline: say whose, and how to switch to it in one step.
        let key = e.field.rsplit('.').next().unwrap_or("").to_string();
        let owners: Vec<&str> = REGISTRY
            .iter()
            .filter(|d| !own_keys.contains(&key) && discipline_keys(d).contains(&key))
            .map(|d| d.name)
            .collect();
        if let Some(first) = owners.first() {
            let set_path = path.replace('[', ".").replace(']', "");
            // What the switch does (scenario/overrides.rs, switch_discipline): keys both read stay.
            let first_keys = find(first).map(discipline_keys).unwrap_or_default();
            let kept: Vec<&str> = t
                .entries
                .iter()
                .map(|(k, _)| k.as_str())
                .filter(|k| *k != "discipline" && *k != key && first_keys.iter().any(|f| f == k))
                .collect();
            let keeps = if kept.is_empty() {
                format!("the queue then takes {first}'s defaults")
            } else {
                format!("the queue then keeps {} and takes {first}'s defaults for the rest", kept.join(", "))
            };
            e.message += &format!(
                "; {key} is a parameter of {}: switch with --set {set_path}.discipline={first} \
                 ({keeps}), or write the whole table, as queue = {{ discipline = \"{first}\", {key} = ... }}",
                owners.join(", ")
            );
        }
        e
    })?;
    Ok(params)
}

/// The keys a discipline reads (`discipline` aside), from its reader in catalogue mode.
pub fn discipline_keys(info: &DisciplineInfo) -> Vec<String> {
    let src = Source { path: "<catalogue>".into() };
    let mut docs = Vec::new();
    let _ = (info.read)(&mut Fields::catalogue(&src, &mut docs));
    docs.into_iter().map(|d| d.name).collect()
}

/// Look a discipline up by name or alias.
pub fn find(name: &str) -> Option<&'static DisciplineInfo> {
    REGISTRY.iter().find(|d| d.name == name || d.aliases.contains(&name))
}

/// Test support shared by the discipline files: a tiny harness that drives a discipline
/// directly and checks the contract after every step.
#[cfg(test)]
pub mod harness;
