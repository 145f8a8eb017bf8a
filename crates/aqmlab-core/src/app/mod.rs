//! The flow kinds: the sources and sinks at the ends of each flow, and their registry.
//!
//! Agents follow the contract of [`crate::agent`] (a leaf, which this registry and every agent
//! import; nothing here is imported back by an agent). A flow kind is one file, with
//!
//! - `INFO`, its name and one-line summary for the catalogue;
//! - `Params`, read and validated through [`Fields`], implementing [`FlowKind`] (its agents,
//!   mean packet size, demand and whether it is responsive or ECN-capable);
//! - its agents, implementing [`crate::agent::Agent`],
//!
//! and one line in [`flow_kinds!`] below, which declares the module and makes the parameter
//! enum, its dispatch and the registry that feeds the parser, `aqmlab list` and the catalogue.
//! Agents listed in [`AnyAgent`] are dispatched statically (the per-packet ones); any other
//! agent goes in [`AnyAgent::Other`], boxed, with no line of its own.

use serde::Serialize;

use crate::agent::{Agent, FlowIds, Schedule};
use crate::conf::{Fields, Result};
use crate::rng::SimRng;
use crate::units::SimTime;

pub mod size;

/// A flow kind's name and summary, for the catalogue.
pub struct FlowKindMeta {
    pub name: &'static str,
    pub summary: &'static str,
}

/// A flow kind's entry in the registry.
pub struct FlowKindInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub read: fn(&mut Fields) -> Result<FlowParams>,
}

/// How a flow's packets travel, as a capture shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Udp,
    Tcp,
    /// ICMP echo requests and replies (ping).
    Icmp,
}

/// How one flow's packets look on the wire: what the packet tracer (`packet_trace`)
/// needs to write their headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wire {
    pub transport: Transport,
    /// Bytes of a data packet that are headers in the simulation (a TCP flow's `header`): the
    /// rest is data, and the capture's TCP payload.
    pub header: u32,
    /// The flow is ECN-capable (its SYN and SYN-ACK negotiate ECN, RFC 3168 section 6.1.1).
    pub ecn: bool,
    /// A finite transfer's data bytes (a workload's connections have their own).
    pub bytes: Option<u64>,
    /// The flow uses SACK: its SYN and SYN-ACK carry SACK-permitted (RFC 2018 section 2).
    pub sack: bool,
}

impl Wire {
    pub const UDP: Wire = Wire { transport: Transport::Udp, header: 0, ecn: false, bytes: None, sack: false };
}

/// What the validated parameters of every flow kind answer.
pub trait FlowKind {
    /// The sender and receiver agents of one flow; `pair_weights` are the weights of its
    /// (source, destination) pairs when it spans node sets (a workload's), else empty.
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, pair_weights: &[f64]) -> (AnyAgent, AnyAgent);
    /// Mean size of the data packets, bytes.
    fn mean_packet_size(&self) -> f64;
    /// The largest packets it sends regularly, bytes: data (forward path) and ACKs (reverse).
    fn largest_packets(&self) -> (u64, Option<u64>);
    /// A datagram source's sending rate (its peak), bit/s.
    fn peak_rate_bps(&self) -> Option<u64> {
        None
    }
    /// A windowed source's largest window, packets.
    fn max_window(&self) -> Option<u32> {
        None
    }
    fn transport(&self) -> Transport;
    /// How its packets look in a capture: the transport, the bytes of a data packet that are
    /// headers, whether it negotiates ECN.
    fn wire(&self) -> Wire {
        Wire { transport: self.transport(), header: 0, ecn: self.ecn_capable(), bytes: None, sack: false }
    }
    /// The rate the flow would send at with the network to itself, bit/s (infinite for a greedy
    /// TCP): its demand in the max-min fair shares ([`crate::fair_share`]).
    fn demand_bps(&self) -> f64;
    /// Whether its data packets are ECN-capable, so that gateways may mark them.
    fn ecn_capable(&self) -> bool {
        false
    }
    /// For a kind whose flows open connections (a workload): the sender and receiver of one,
    /// starting at `start` and carrying `bytes` of data.
    fn connection(&self, _ids: FlowIds, _start: SimTime, _bytes: u64) -> Option<(AnyAgent, AnyAgent)> {
        None
    }
    /// For such a kind: a connection's completion time over an empty network, ns.
    fn ideal_fct_ns(&self, _fwd: &[workload::Hop], _rev: &[workload::Hop], _bytes: u64) -> u64 {
        0
    }
    /// Whether every round-trip sample of the flow is kept for its distribution (a probe's; a
    /// flow in `[trace] flows` keeps them too).
    fn keeps_rtt_samples(&self) -> bool {
        false
    }
    /// Whether its `src` and `dst` are node sets (lists or globs) whose pairs it connects over
    /// time, rather than two nodes.
    fn spans_node_sets(&self) -> bool {
        false
    }
}

/// Declares the flow kinds: `Variant(module)`, one line each, in catalogue order; each module is
/// the file `app/module.rs`.
macro_rules! flow_kinds {
    ($( $variant:ident($module:ident) ),* $(,)?) => {
        $( pub mod $module; )*

        /// Every flow kind, in catalogue order.
        pub const REGISTRY: &[FlowKindInfo] = &[ $(
            FlowKindInfo {
                name: $module::INFO.name,
                summary: $module::INFO.summary,
                read: |f| $module::Params::read(f).map(FlowParams::$variant),
            },
        )* ];

        /// Validated parameters of one flow kind.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum FlowParams { $( $variant($module::Params), )* }

        impl FlowParams {
            /// The kind's registered name.
            pub fn name(&self) -> &'static str {
                match self { $( FlowParams::$variant(_) => $module::INFO.name, )* }
            }

            /// The kind's parameters, through what every kind answers.
            pub fn kind(&self) -> &dyn FlowKind {
                match self { $( FlowParams::$variant(p) => p, )* }
            }
        }
    };
}

flow_kinds! {
    Cbr(cbr),
    Poisson(poisson),
    OnOff(onoff),
    Tcp(tcp),
    Telnet(telnet),
    Workload(workload),
    Ping(ping),
    Burst(burst),
}

pub mod cdf;
pub mod sink;

pub fn find(name: &str) -> Option<&'static FlowKindInfo> {
    REGISTRY.iter().find(|k| k.name == name)
}

impl FlowParams {
    /// Mean size of the data packets this flow sends, bytes.
    pub fn mean_packet_size(&self) -> f64 {
        self.kind().mean_packet_size()
    }

    /// The flow's demand in the max-min fair shares, bit/s (see [`FlowKind::demand_bps`]).
    pub fn demand_bps(&self) -> f64 {
        self.kind().demand_bps()
    }

    /// Whether the flow reacts to congestion (is flow-controlled): a TCP, not a datagram source.
    pub fn is_responsive(&self) -> bool {
        self.kind().transport() == Transport::Tcp
    }

    /// Whether its data packets are ECN-capable, so that gateways may mark them.
    pub fn ecn_capable(&self) -> bool {
        self.kind().ecn_capable()
    }

    /// Build the sender and receiver agents (see [`FlowKind::build`]).
    pub fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, pair_weights: &[f64]) -> (AnyAgent, AnyAgent) {
        self.kind().build(ids, when, rng, pair_weights)
    }
}

/// Static dispatch over the agents on the per-packet path; any other goes in `Other`.
///
/// The TCP sender (440 bytes) is held inline although the other agents are much smaller: with
/// 10000 flows, a boxed sender cost every ACK and timeout a second cache miss after the one on
/// the agent slot (S4 at 10000 flows: 5-8% slower boxed; at 100 flows no difference). A flow's
/// sender and receiver sit side by side.
///
/// Slots start on a cache line and hold a sender in 7 lines (the assertion below keeps it so): a
/// 496-byte slot at any offset spanned 8 or 9, and a receiver 2 or 3 lines where it now spans 2
/// (S4 at 100,000 flows, 14 interleaved runs: median 400 -> 386 ns a packet with 8 lines).
#[allow(clippy::large_enum_variant)]
#[repr(align(64))]
pub enum AnyAgent {
    Cbr(cbr::Cbr),
    Poisson(poisson::Poisson),
    OnOff(onoff::OnOff),
    Sink(sink::Sink),
    TcpSender(crate::tcp::Sender),
    TcpReceiver(crate::tcp::Receiver),
    /// An agent of a kind with no variant here (a probe, a workload's generator): boxed.
    Other(Box<dyn Agent>),
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<AnyAgent>() == 7 * 64, "an agent's slot is 7 cache lines");

impl AnyAgent {
    #[inline]
    pub fn inner_mut(&mut self) -> &mut dyn Agent {
        match self {
            AnyAgent::Cbr(a) => a,
            AnyAgent::Poisson(a) => a,
            AnyAgent::OnOff(a) => a,
            AnyAgent::Sink(a) => a,
            AnyAgent::TcpSender(a) => a,
            AnyAgent::TcpReceiver(a) => a,
            AnyAgent::Other(a) => a.as_mut(),
        }
    }
    #[inline]
    pub fn inner(&self) -> &dyn Agent {
        match self {
            AnyAgent::Cbr(a) => a,
            AnyAgent::Poisson(a) => a,
            AnyAgent::OnOff(a) => a,
            AnyAgent::Sink(a) => a,
            AnyAgent::TcpSender(a) => a,
            AnyAgent::TcpReceiver(a) => a,
            AnyAgent::Other(a) => a.as_ref(),
        }
    }
}

/// How the packets of a TCP flow kind look on the wire (its `header`, ECN and SACK), with the
/// transfer's length when it is finite.
pub(crate) fn tcp_wire(common: &crate::tcp::Common, bytes: Option<u64>) -> Wire {
    Wire { transport: Transport::Tcp, header: common.header, ecn: common.ecn_capable(), bytes, sack: common.sack }
}
