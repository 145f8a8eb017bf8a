//! Constant bit rate source: packets leave at exactly the rate asked for (the k-th packet at
//! start + bits sent before it / rate, with no rounding drift). Unresponsive: it ignores
//! drops, which makes it the ill-behaved source of the FQ and CHOKe papers.

use serde::Serialize;

use super::size::SizeDist;
use super::{sink::Sink, AnyAgent, FlowKind, FlowKindMeta, Transport};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Fields, Rate, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "cbr",
    summary: "Constant bit rate datagrams (UDP): unresponsive, the papers' ill-behaved source.",
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub rate_bps: u64,
    pub packet_size: SizeDist,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let rate = f.req("rate", Rate(1), "sending rate")?;
        f.ensure(rate.0 > 0, "rate", "must be above 0")?;
        let packet_size = f.or("packet_size", SizeDist::Fixed { bytes: 1000 }, "packet size on the wire")?;
        Ok(Params { rate_bps: rate.0, packet_size })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        (AnyAgent::Cbr(Cbr::new(self, ids, when, rng)), AnyAgent::Sink(Sink))
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

pub struct Cbr {
    p: Params,
    ids: FlowIds,
    when: Schedule,
    rng: SimRng,
    /// Bits sent so far: the next packet leaves at start + bits / rate.
    bits_sent: u128,
    seq: u64,
}

/// Its one timer: the next packet is due.
const EMIT: TimerKind = TimerKind(0);

impl Cbr {
    pub fn new(p: &Params, ids: FlowIds, when: Schedule, rng: SimRng) -> Self {
        Cbr { p: p.clone(), ids, when, rng, bits_sent: 0, seq: 0 }
    }

    fn next_time(&self) -> SimTime {
        self.when.start + SimDuration((self.bits_sent * NS_PER_S as u128 / self.p.rate_bps as u128) as u64)
    }

    fn emit(&mut self, now: SimTime, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        let size = self.p.packet_size.draw(&mut self.rng);
        out.packets.push(Packet { seq: self.seq, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, size) });
        self.seq += 1;
        self.bits_sent += size as u128 * 8;
        out.timers.push(TimerReq { at: self.next_time(), kind: EMIT, gen: 0 });
    }
}

impl Agent for Cbr {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.emit(now, out);
    }
    fn on_packet(&mut self, _now: SimTime, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        self.emit(now, out);
    }
}
