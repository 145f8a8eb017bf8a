//! Poisson datagram source: exponential gaps between packets with mean (mean packet size /
//! rate), so the arrivals at an uncongested first queue form a Poisson process.

use serde::Serialize;

use super::size::SizeDist;
use super::{sink::Sink, AnyAgent, FlowKind, FlowKindMeta, Transport};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Fields, Rate, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "poisson",
    summary: "Datagrams (UDP) with exponential inter-departure times: a Poisson stream.",
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub rate_bps: u64,
    pub packet_size: SizeDist,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let rate = f.req("rate", Rate(1), "mean sending rate")?;
        f.ensure(rate.0 > 0, "rate", "must be above 0")?;
        let packet_size = f.or("packet_size", SizeDist::Fixed { bytes: 1000 }, "packet size on the wire")?;
        Ok(Params { rate_bps: rate.0, packet_size })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        (AnyAgent::Poisson(Poisson::new(self, ids, when, rng)), AnyAgent::Sink(Sink))
    }
    fn mean_packet_size(&self) -> f64 {
        self.packet_size.mean()
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.packet_size.largest(), None)
    }
    fn demand_bps(&self) -> f64 {
        self.rate_bps as f64
    }
    fn peak_rate_bps(&self) -> Option<u64> {
        Some(self.rate_bps)
    }
    fn transport(&self) -> Transport {
        Transport::Udp
    }
}

pub struct Poisson {
    packet_size: SizeDist,
    /// Mean gap between packets, ns.
    mean_gap_ns: f64,
    ids: FlowIds,
    when: Schedule,
    rng: SimRng,
    seq: u64,
}

/// Its one timer: the next packet is due.
const EMIT: TimerKind = TimerKind(0);

impl Poisson {
    pub fn new(p: &Params, ids: FlowIds, when: Schedule, rng: SimRng) -> Self {
        let mean_gap_ns = p.packet_size.mean() * 8.0 * NS_PER_S as f64 / p.rate_bps as f64;
        Poisson { packet_size: p.packet_size, mean_gap_ns, ids, when, rng, seq: 0 }
    }

    fn schedule_next(&mut self, now: SimTime, out: &mut Outbox) {
        let gap = SimDuration(self.rng.exponential(self.mean_gap_ns).round() as u64);
        out.timers.push(TimerReq { at: now + gap, kind: EMIT, gen: 0 });
    }
}

impl Agent for Poisson {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        // The first packet comes one exponential gap after the start, like every later one.
        self.schedule_next(now, out);
    }
    fn on_packet(&mut self, _now: SimTime, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        let size = self.packet_size.draw(&mut self.rng);
        out.packets.push(Packet { seq: self.seq, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, size) });
        self.seq += 1;
        self.schedule_next(now, out);
    }
}
