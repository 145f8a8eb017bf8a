//! The agent contract: what the event loop and the endpoints of a flow say to each other. A leaf:
//! it imports nothing but the packet and typed time, so the agents (datagram sources, the TCP
//! family, probes, workload generators) and the simulation both stand on it and never on each
//! other.
//!
//! Agents are sans-IO state machines (as smoltcp's sockets): the simulation hands them the
//! time, a packet or a timer, and they answer through an [`Outbox`] with packets to send,
//! timers to arm and what to count. Each flow has a sender agent at its source and a receiver
//! agent at its destination; data travels the flow's forward path and ACKs the reverse path.
//! An agent owns its random stream, derived from (seed, flow name).

use crate::packet::Packet;
use crate::units::{SimDuration, SimTime};

/// Which of an agent's timers fired: each agent names its own kinds (TCP: retransmission,
/// application, delayed ACK, pacing) and converts them to and from this; the event loop only
/// carries it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKind(pub u8);

/// A timer request: fire `kind` at `at` unless the agent's generation moved on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerReq {
    pub at: SimTime,
    pub kind: TimerKind,
    pub gen: u32,
}

/// A connection a workload asks for (see [`Outbox::connections`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionReq {
    /// Which of the flow's (source, destination) pairs it joins.
    pub pair: u32,
    /// Data bytes to transfer.
    pub bytes: u64,
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
    /// Recoveries that duplicate ACKs started with a fast retransmit (senders).
    pub fast_retransmits: u32,
    /// Round-trip time samples (senders).
    pub rtt_samples: Vec<SimDuration>,
    /// Data packets newly acknowledged (senders), and the sum over them of the time from each
    /// one's first transmission to this acknowledgement, ns.
    pub packets_acked: u64,
    pub packet_rtt_ns: u128,
    /// A finite transfer has completed (senders: every byte acknowledged).
    pub completed: bool,
    /// Application-level delay samples (e.g. a Telnet keystroke's time to delivery).
    pub app_delay_samples: Vec<SimDuration>,
    /// Connections to open now (a workload's arrivals), each a TCP transfer of its own.
    pub connections: Vec<ConnectionReq>,
}

impl Outbox {
    pub fn clear(&mut self) {
        self.packets.clear();
        self.timers.clear();
        self.goodput_bytes = 0;
        self.timeouts = 0;
        self.fast_retransmits = 0;
        self.rtt_samples.clear();
        self.packets_acked = 0;
        self.packet_rtt_ns = 0;
        self.completed = false;
        self.app_delay_samples.clear();
        self.connections.clear();
    }
}

/// Identity of the flow an agent serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowIds {
    /// The flow as the network sees it (what queue disciplines classify by).
    pub flow: u32,
    /// Source and destination node of the flow (data direction).
    pub src: u32,
    pub dst: u32,
}

/// When a flow's source runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Schedule {
    pub start: SimTime,
    /// The start is drawn uniformly from [start, start + jitter] (a stream of its own).
    pub jitter: SimDuration,
    pub stop: Option<SimTime>,
}

impl Schedule {
    #[inline]
    pub fn active_at(&self, t: SimTime) -> bool {
        t >= self.start && self.stop.is_none_or(|s| t < s)
    }
}

/// An endpoint of a flow.
/// (`Send`: a simulation runs on whichever thread the binding gives it.)
pub trait Agent: Send {
    /// The flow's start time has come (senders; receivers are never started).
    fn start(&mut self, _now: SimTime, _out: &mut Outbox) {}
    /// A packet of this flow reached this endpoint.
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Outbox);
    /// A timer armed through the outbox fired (stale ones included: check `gen`).
    fn on_timer(&mut self, _now: SimTime, _kind: TimerKind, _gen: u32, _out: &mut Outbox) {}
    /// Quantities worth tracing (congestion window, slow-start threshold, RTT estimate).
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// A timer of this agent comes next: ask for what it will read beyond the agent's own
    /// record (a prefetch hint, [`crate::prefetch`]; nothing by default).
    fn prefetch_state(&self) {}
    /// Whether no timer event of this agent is pending, so that its slot can be given to another
    /// connection without a stale event reaching the newcomer (a workload's connections).
    fn quiescent(&self) -> bool {
        true
    }
}
