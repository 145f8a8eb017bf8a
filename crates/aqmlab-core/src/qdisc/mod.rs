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
//! through [`Fields`], and a type implementing [`QueueDisc`]; then one line in the
//! `disciplines!` list below.

use serde::Serialize;

use crate::conf::{Fields, Limit, Origin, Result, Source, Table};
use crate::packet::{PacketArena, PacketId};
use crate::rng::SimRng;

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
    /// Non-zero counts by name, for results.
    pub fn to_map(&self) -> std::collections::BTreeMap<&'static str, u64> {
        DropReason::ALL.iter().filter(|r| self.get(**r) > 0).map(|r| (r.as_str(), self.get(*r))).collect()
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
    /// Current time, ns.
    pub now: u64,
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
    fn ready_at(&self) -> Option<u64> {
        None
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
            fn ready_at(&self) -> Option<u64> {
                match self { $( AnyQdisc::$ivariant(q) => q.ready_at(), )* $( AnyQdisc::$bvariant(q) => q.ready_at(), )* }
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
pub mod harness {
    use super::*;
    use crate::packet::Packet;

    pub struct Harness<Q: QueueDisc> {
        pub q: Q,
        pub pkts: PacketArena,
        pub rng: SimRng,
        pub now: u64,
        pub victims: Vec<(PacketId, DropReason)>,
        pub dropped: Vec<(u32, DropReason)>,
        /// `cx.marks` as the discipline filled it.
        pub mark_buf: Vec<(PacketId, DropReason)>,
        /// Every mark: (flow, reason), arrivals' and later ones alike.
        pub marked: Vec<(u32, DropReason)>,
        pub sent: Vec<PacketId>,
        /// What `offer` tells the discipline is in service (a packet the test allocated).
        pub in_service: Option<PacketId>,
    }

    /// Read a queue table written as TOML text with a discipline's `read` (the tests' parameters).
    pub fn read_table<P>(
        text: &str,
        read: impl FnOnce(&mut Fields) -> crate::conf::Result<P>,
    ) -> crate::conf::Result<P> {
        let src = crate::conf::Source { path: "t.toml".into() };
        let t = crate::conf::parse_toml(text, &src).expect("valid TOML");
        let mut f = Fields::new(&src, "queue", &t, crate::conf::Origin::Line(1));
        let p = read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    pub fn link(n_flows: usize) -> LinkInfo {
        LinkInfo { rate_bps: 1_000_000, n_flows, mean_packet_size: 1000 }
    }

    impl<Q: QueueDisc> Harness<Q> {
        pub fn new(q: Q, seed: u64) -> Self {
            Harness {
                q,
                pkts: PacketArena::new(),
                rng: SimRng::from_seed(seed),
                now: 0,
                victims: vec![],
                dropped: vec![],
                mark_buf: vec![],
                marked: vec![],
                sent: vec![],
                in_service: None,
            }
        }

        /// Offer a packet of `flow` and `size`; returns the verdict and records every drop.
        #[track_caller]
        pub fn offer(&mut self, flow: u32, size: u32) -> Verdict {
            self.offer_flags(flow, size, 0)
        }

        /// Offer a packet with `flags` set (`flags::ECT` for an ECN-capable one).
        #[track_caller]
        pub fn offer_flags(&mut self, flow: u32, size: u32, flags: u8) -> Verdict {
            self.offer_packet(Packet { flags, ..Packet::data(flow, flow, 1000, size) })
        }

        /// Offer a packet of `flow` from host `src` to host `dst`.
        #[track_caller]
        pub fn offer_between(&mut self, flow: u32, src: u32, dst: u32, size: u32) -> Verdict {
            self.offer_packet(Packet::data(flow, src, dst, size))
        }

        /// Offer `packet` (its `seq` is set to a serial number).
        #[track_caller]
        pub fn offer_packet(&mut self, packet: Packet) -> Verdict {
            let (flow, seq) = (packet.flow, self.pkts.capacity() as u64);
            let id = self.pkts.alloc(Packet { seq, ..packet });
            let before = self.q.len();
            let mut cx = QdiscCtx {
                now: self.now,
                rng: &mut self.rng,
                pkts: &mut self.pkts,
                victims: &mut self.victims,
                marks: &mut self.mark_buf,
                in_service: self.in_service,
            };
            let v = self.q.enqueue(id, &mut cx);
            self.take_marks();
            let evicted = self.victims.iter().filter(|v| Some(v.0) != self.in_service).count();
            for (vid, why) in self.victims.drain(..) {
                assert_ne!(vid, id, "the arrival must be reported in the verdict, not as a victim");
                if Some(vid) == self.in_service {
                    // Dropped in service: the transmission is aborted.
                    self.in_service = None;
                }
                self.dropped.push((self.pkts[vid].flow, why));
                self.pkts.free(vid);
            }
            let admitted = matches!(v, Verdict::Enqueued | Verdict::Marked(_)) as usize;
            if let Verdict::Marked(why) = v {
                assert!(self.pkts[id].has(crate::packet::flags::CE), "a marked arrival carries CE");
                self.marked.push((flow, why));
            }
            if let Verdict::Dropped(why) = v {
                self.dropped.push((flow, why));
                self.pkts.free(id);
            }
            assert_eq!(self.q.len(), before + admitted - evicted, "queue length identity broken");
            v
        }

        /// Take the next packet; returns its flow.
        pub fn serve(&mut self) -> Option<u32> {
            let mut cx = QdiscCtx {
                now: self.now,
                rng: &mut self.rng,
                pkts: &mut self.pkts,
                victims: &mut self.victims,
                marks: &mut self.mark_buf,
                in_service: None,
            };
            let out = self.q.dequeue(&mut cx);
            self.take_marks();
            for (vid, why) in self.victims.drain(..) {
                self.dropped.push((self.pkts[vid].flow, why));
                self.pkts.free(vid);
            }
            out.map(|id| {
                self.sent.push(id);
                let flow = self.pkts[id].flow;
                self.pkts.free(id);
                flow
            })
        }

        /// Record the marks the discipline reported; each names a packet that is still alive
        /// and carries CE.
        #[track_caller]
        fn take_marks(&mut self) {
            for (id, why) in self.mark_buf.drain(..) {
                assert!(self.pkts[id].has(crate::packet::flags::CE), "a marked packet carries CE");
                self.marked.push((self.pkts[id].flow, why));
            }
        }

        /// Flows of the queued packets in service order (drains the queue).
        pub fn drain_flows(&mut self) -> Vec<u32> {
            std::iter::from_fn(|| self.serve()).collect()
        }
    }

    /// Property check: `steps` random arrivals (flows below `n_flows`, sizes 40..=1500) and
    /// departures at random times. After every step the queue holds exactly the packets
    /// alive in the arena (admitted, not yet sent or dropped), its byte count is their sum and
    /// it respects its limit; at the end every packet offered was sent or dropped exactly once
    /// (the arena refuses a second free).
    #[track_caller]
    pub fn hammer<Q: QueueDisc>(h: &mut Harness<Q>, steps: usize, n_flows: u32, seed: u64) {
        let mut rng = SimRng::from_seed(seed ^ 0x5eed);
        let limit = h.q.limit();
        let mut offered = 0usize;
        for step in 0..steps {
            h.now += rng.below(2_000_000) as u64;
            // Slightly more arrivals than departures, so the queue visits empty and full.
            if rng.uniform() < 0.55 {
                h.offer(rng.below(n_flows as usize) as u32, 40 + rng.below(1461) as u32);
                offered += 1;
            } else {
                h.serve();
            }
            let live: Vec<PacketId> = h.pkts.live_ids().collect();
            let bytes: u64 = live.iter().map(|&id| h.pkts[id].size as u64).sum();
            assert_eq!(h.q.len(), live.len(), "step {step}: queue length vs packets alive");
            assert_eq!(h.q.bytes(), bytes, "step {step}: byte count vs packets alive");
            match limit {
                Limit::Packets(n) => {
                    assert!(h.q.len() <= n as usize, "step {step}: {} packets over a limit of {n}", h.q.len())
                }
                Limit::Bytes(b) => assert!(h.q.bytes() <= b, "step {step}: {} bytes over a limit of {b}", h.q.bytes()),
                Limit::Unbounded => {}
            }
        }
        h.drain_flows();
        assert_eq!(h.pkts.live(), 0, "packets neither sent nor dropped");
        assert_eq!(h.sent.len() + h.dropped.len(), offered, "every packet is sent or dropped exactly once");
    }
}
