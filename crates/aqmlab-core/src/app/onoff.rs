//! Exponential on/off source: bursts at a peak rate separated by silences, both of
//! exponentially distributed length (ns-2's `Application/Traffic/Exponential`). Unresponsive
//! and bursty: an ill-behaved source whose mean rate is `rate x mean_on / (mean_on + mean_off)`.
//!
//! During an on period packets leave back to back at `rate` (the k-th at the period's start +
//! bits before it / rate); a packet due after the period's end is not sent, and the next
//! period starts after an off period. The source starts with an on period.

use serde::Serialize;

use super::size::SizeDist;
use super::{sink::Sink, AnyAgent, FlowKind, FlowKindMeta, Transport};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Duration, Fields, Rate, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "onoff",
    summary: "Exponential on/off datagram source: bursts at a peak rate, unresponsive and bursty.",
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub rate_bps: u64,
    pub packet_size: SizeDist,
    pub mean_on_ns: u64,
    pub mean_off_ns: u64,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let rate = f.req("rate", Rate(1), "sending rate during an on period (peak rate)")?;
        f.ensure(rate.0 > 0, "rate", "must be above 0")?;
        let packet_size = f.or("packet_size", SizeDist::Fixed { bytes: 1000 }, "packet size on the wire")?;
        let on: Duration = f.or("mean_on", Duration(500_000_000), "mean length of an on period (exponential)")?;
        f.ensure(on.0 > 0, "mean_on", "must be above 0")?;
        let off: Duration = f.or("mean_off", Duration(500_000_000), "mean length of an off period (exponential)")?;
        f.ensure(off.0 > 0, "mean_off", "must be above 0")?;
        Ok(Params { rate_bps: rate.0, packet_size, mean_on_ns: on.0, mean_off_ns: off.0 })
    }

    /// Long-run mean rate, bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        self.rate_bps as f64 * self.mean_on_ns as f64 / (self.mean_on_ns + self.mean_off_ns) as f64
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        (AnyAgent::OnOff(OnOff::new(self, ids, when, rng)), AnyAgent::Sink(Sink))
    }
    fn mean_packet_size(&self) -> f64 {
        self.packet_size.mean()
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.packet_size.largest(), None)
    }
    fn demand_bps(&self) -> f64 {
        self.mean_rate_bps()
    }
    fn peak_rate_bps(&self) -> Option<u64> {
        Some(self.rate_bps)
    }
    fn transport(&self) -> Transport {
        Transport::Udp
    }
}

pub struct OnOff {
    p: Params,
    ids: FlowIds,
    when: Schedule,
    rng: SimRng,
    /// Start and end of the current on period.
    on_start: SimTime,
    on_end: SimTime,
    /// Bits sent in the current on period.
    bits: u128,
    seq: u64,
}

/// Its one timer: the next packet is due.
const EMIT: TimerKind = TimerKind(0);

impl OnOff {
    pub fn new(p: &Params, ids: FlowIds, when: Schedule, rng: SimRng) -> Self {
        OnOff { p: p.clone(), ids, when, rng, on_start: SimTime::ZERO, on_end: SimTime::ZERO, bits: 0, seq: 0 }
    }

    fn begin_on(&mut self, at: SimTime) {
        self.on_start = at;
        self.on_end = at + SimDuration(self.rng.exponential(self.p.mean_on_ns as f64).round() as u64);
        self.bits = 0;
    }

    fn emit(&mut self, now: SimTime, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        let size = self.p.packet_size.draw(&mut self.rng);
        out.packets.push(Packet { seq: self.seq, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, size) });
        self.seq += 1;
        self.bits += size as u128 * 8;
        let mut next = self.on_start + SimDuration((self.bits * NS_PER_S as u128 / self.p.rate_bps as u128) as u64);
        if next >= self.on_end {
            let off = SimDuration(self.rng.exponential(self.p.mean_off_ns as f64).round() as u64);
            self.begin_on(self.on_end + off);
            next = self.on_start;
        }
        out.timers.push(TimerReq { at: next, kind: EMIT, gen: 0 });
    }
}

impl Agent for OnOff {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.begin_on(now);
        self.emit(now, out);
    }
    fn on_packet(&mut self, _now: SimTime, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        self.emit(now, out);
    }
}
