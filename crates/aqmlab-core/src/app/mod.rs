//! Traffic agents: the sources and sinks at the ends of each flow.
//!
//! Agents are sans-IO state machines (as smoltcp's sockets): the simulation hands them the
//! time, a packet or a timer, and they answer through an [`Outbox`] with packets to send and
//! timers to arm. Each flow has a sender agent at its source and a receiver agent at its
//! destination; data travels the flow's forward path and ACKs the reverse path. An agent owns
//! its random stream, derived from (seed, flow name).
//!
//! Adding a flow kind: one file with `Params` (`read` through [`Fields`]) and the agents, then
//! one line in each of [`REGISTRY`], [`FlowParams`] and [`AnyAgent`].

use serde::Serialize;

use crate::conf::{Fields, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::tcp;

pub mod cbr;
pub mod onoff;
pub mod poisson;
pub mod sink;
pub mod size;

/// A timer request: fire `kind` at `at` unless the agent's generation moved on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerReq {
    pub at: u64,
    pub kind: u8,
    pub gen: u32,
}

/// What an agent asks of the simulation after handling one event.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to send now (the simulation sets `sent_at` and routes them).
    pub packets: Vec<Packet>,
    pub timers: Vec<TimerReq>,
    /// Bytes of new data delivered in order to the application (receivers).
    pub goodput_bytes: u64,
    /// Retransmission timeouts that fired (senders).
    pub timeouts: u32,
    /// Round-trip time samples, ns (senders).
    pub rtt_samples: Vec<u64>,
    /// A finite transfer has completed (senders: every byte acknowledged).
    pub completed: bool,
    /// Application-level delay samples, ns (e.g. a Telnet keystroke's time to delivery).
    pub app_delay_samples: Vec<u64>,
}

impl Outbox {
    pub fn clear(&mut self) {
        self.packets.clear();
        self.timers.clear();
        self.goodput_bytes = 0;
        self.timeouts = 0;
        self.rtt_samples.clear();
        self.completed = false;
        self.app_delay_samples.clear();
    }
}

/// Identity of the flow an agent serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowIds {
    pub flow: u32,
    /// Source and destination node of the flow (data direction).
    pub src: u32,
    pub dst: u32,
}

/// When a flow's source runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Schedule {
    pub start: u64,
    /// The start is drawn uniformly from [start, start + jitter] (a stream of its own).
    pub jitter: u64,
    pub stop: Option<u64>,
}

impl Schedule {
    #[inline]
    pub fn active_at(&self, t: u64) -> bool {
        t >= self.start && self.stop.is_none_or(|s| t < s)
    }
}

/// An endpoint of a flow.
pub trait Agent {
    /// The flow's start time has come (senders; receivers are never started).
    fn start(&mut self, _now: u64, _out: &mut Outbox) {}
    /// A packet of this flow reached this endpoint.
    fn on_packet(&mut self, now: u64, pkt: &Packet, out: &mut Outbox);
    /// A timer armed through the outbox fired (stale ones included: check `gen`).
    fn on_timer(&mut self, _now: u64, _kind: u8, _gen: u32, _out: &mut Outbox) {}
    /// Quantities worth tracing (congestion window, slow-start threshold, RTT estimate).
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// A flow kind's entry in the catalogue.
pub struct FlowKindInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub read: fn(&mut Fields) -> Result<FlowParams>,
}

/// Every flow kind, in catalogue order.
pub const REGISTRY: &[FlowKindInfo] = &[
    FlowKindInfo {
        name: "cbr",
        summary: "Constant bit rate datagrams (UDP): unresponsive, the papers' ill-behaved source.",
        read: |f| cbr::Params::read(f).map(FlowParams::Cbr),
    },
    FlowKindInfo {
        name: "poisson",
        summary: "Datagrams (UDP) with exponential inter-departure times: a Poisson stream.",
        read: |f| poisson::Params::read(f).map(FlowParams::Poisson),
    },
    FlowKindInfo {
        name: "onoff",
        summary: "Exponential on/off datagram source: bursts at a peak rate, unresponsive and bursty.",
        read: |f| onoff::Params::read(f).map(FlowParams::OnOff),
    },
    FlowKindInfo {
        name: "tcp",
        summary: "A TCP bulk transfer (finite with bytes, else unending) under a congestion control (cc).",
        read: |f| tcp::Params::read(f).map(FlowParams::Tcp),
    },
    FlowKindInfo {
        name: "telnet",
        summary: "Interactive source (the FQ paper's Telnet): Poisson keystrokes sent through a TCP window.",
        read: |f| tcp::telnet::Params::read(f).map(FlowParams::Telnet),
    },
];

pub fn find(name: &str) -> Option<&'static FlowKindInfo> {
    REGISTRY.iter().find(|k| k.name == name)
}

/// Validated parameters of one flow kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowParams {
    Cbr(cbr::Params),
    Poisson(poisson::Params),
    OnOff(onoff::Params),
    Tcp(tcp::Params),
    Telnet(tcp::telnet::Params),
}

impl FlowParams {
    pub fn name(&self) -> &'static str {
        match self {
            FlowParams::Cbr(_) => "cbr",
            FlowParams::Poisson(_) => "poisson",
            FlowParams::OnOff(_) => "onoff",
            FlowParams::Tcp(_) => "tcp",
            FlowParams::Telnet(_) => "telnet",
        }
    }

    /// Mean size of the data packets this flow sends, bytes.
    pub fn mean_packet_size(&self) -> f64 {
        match self {
            FlowParams::Cbr(p) => p.packet_size.mean(),
            FlowParams::Poisson(p) => p.packet_size.mean(),
            FlowParams::OnOff(p) => p.packet_size.mean(),
            FlowParams::Tcp(p) => p.common.packet_size as f64,
            FlowParams::Telnet(p) => p.common.packet_size as f64,
        }
    }

    /// The rate the flow would send at with the network to itself, bit/s (infinite for a greedy
    /// TCP): its demand in the max-min fair shares ([`crate::fair_share`]).
    pub fn demand_bps(&self) -> f64 {
        match self {
            FlowParams::Cbr(p) => p.rate_bps as f64,
            FlowParams::Poisson(p) => p.rate_bps as f64,
            FlowParams::OnOff(p) => p.rate_bps as f64 * p.mean_on_ns as f64 / (p.mean_on_ns + p.mean_off_ns) as f64,
            FlowParams::Telnet(p) => p.common.packet_size as f64 * 8.0 / (p.mean_interval_ns as f64 * 1e-9),
            FlowParams::Tcp(_) => f64::INFINITY,
        }
    }

    /// Whether the flow reacts to congestion (is flow-controlled): a TCP, not a datagram source.
    pub fn is_responsive(&self) -> bool {
        matches!(self, FlowParams::Tcp(_) | FlowParams::Telnet(_))
    }

    /// Whether its data packets are ECN-capable, so that gateways may mark them.
    pub fn ecn_capable(&self) -> bool {
        match self {
            FlowParams::Tcp(p) => p.common.ecn_capable(),
            FlowParams::Telnet(p) => p.common.ecn_capable(),
            FlowParams::Cbr(_) | FlowParams::Poisson(_) | FlowParams::OnOff(_) => false,
        }
    }

    /// Build the sender and receiver agents.
    pub fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng) -> (AnyAgent, AnyAgent) {
        match self {
            FlowParams::Cbr(p) => (AnyAgent::Cbr(cbr::Cbr::new(p, ids, when, rng)), AnyAgent::Sink(sink::Sink)),
            FlowParams::Poisson(p) => {
                (AnyAgent::Poisson(poisson::Poisson::new(p, ids, when, rng)), AnyAgent::Sink(sink::Sink))
            }
            FlowParams::OnOff(p) => (AnyAgent::OnOff(onoff::OnOff::new(p, ids, when, rng)), AnyAgent::Sink(sink::Sink)),
            FlowParams::Tcp(p) => (
                AnyAgent::TcpSender(tcp::Sender::new(&p.common, p.bytes, tcp::sender::App::Bulk, ids, when)),
                AnyAgent::TcpReceiver(tcp::Receiver::new(&p.common, ids, false)),
            ),
            FlowParams::Telnet(p) => {
                let keys = tcp::telnet::Keystrokes::new(p, rng);
                (
                    AnyAgent::TcpSender(tcp::Sender::new(
                        &p.common,
                        None,
                        tcp::sender::App::Telnet(Box::new(keys)),
                        ids,
                        when,
                    )),
                    AnyAgent::TcpReceiver(tcp::Receiver::new(&p.common, ids, true)),
                )
            }
        }
    }
}

/// Static dispatch over every agent.
///
/// The TCP sender (400 bytes) is held inline although the other agents are much smaller: with
/// 10000 flows, a boxed sender cost every ACK and timeout a second cache miss after the one on
/// the agent slot (S4 at 10000 flows: 5-8% slower boxed; at 100 flows no difference). A flow's
/// sender and receiver sit side by side.
#[allow(clippy::large_enum_variant)]
pub enum AnyAgent {
    Cbr(cbr::Cbr),
    Poisson(poisson::Poisson),
    OnOff(onoff::OnOff),
    Sink(sink::Sink),
    TcpSender(tcp::Sender),
    TcpReceiver(tcp::Receiver),
}

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
        }
    }
}
