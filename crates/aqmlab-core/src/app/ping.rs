//! `kind = "ping"`: latency probes, as ping sends them (ICMP echo, RFC 792): a request of `size`
//! bytes every `interval`, through the same queues as the data, answered at once by the
//! destination with a reply of the same size along the way back. Each reply is a round-trip time
//! sample; the flow's results give their distribution (`rtt_p50_s` ... `rtt_max_s`) and every
//! sample as the series `series.rtt` (time, RTT). A probe lost on the way or back shows in the
//! flow's drops (`dropped_pkts` for requests, `ack_drops` for replies).
//!
//! Choices: the first request goes at the start; requests keep their interval whatever happens to
//! the replies (ping's default, not its adaptive or flood modes); a request carries its sending
//! time, echoed by the reply (ping's timestamp in the payload).

use serde::Serialize;

use super::{AnyAgent, FlowKind, FlowKindMeta, Transport};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Duration, Fields, Result};
use crate::packet::{Packet, PacketKind};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "ping",
    summary: "Latency probes (ICMP echo): a request every interval, answered by the destination; \
              its results are the round-trip times.",
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub interval_ns: u64,
    /// Bytes of a request and of its reply on the wire.
    pub size: u32,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let interval: Duration = f.or("interval", Duration(200_000_000), "time between requests (Flent's RRUL: 200ms)")?;
        f.ensure(interval.0 >= 1_000, "interval", "must be at least 1us")?;
        let size: u32 =
            f.or("size", 84u32, "bytes of a request and of its reply on the wire (ping's default: 84, 56 of data)")?;
        f.ensure((28..=65_535).contains(&size), "size", format!("{size} bytes is not an echo's size (allowed: 28 to 65535)"))?;
        Ok(Params { interval_ns: interval.0, size })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, _rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        let sender = Pinger { p: self.clone(), ids, when, seq: 0 };
        (AnyAgent::Other(Box::new(sender)), AnyAgent::Other(Box::new(Echo { ids })))
    }
    fn mean_packet_size(&self) -> f64 {
        self.size as f64
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.size as u64, Some(self.size as u64))
    }
    fn demand_bps(&self) -> f64 {
        self.size as f64 * 8.0 / (self.interval_ns as f64 * 1e-9)
    }
    fn peak_rate_bps(&self) -> Option<u64> {
        Some(self.demand_bps().ceil() as u64)
    }
    fn transport(&self) -> Transport {
        Transport::Icmp
    }
    fn keeps_rtt_samples(&self) -> bool {
        true
    }
}

/// The requests' sender.
struct Pinger {
    p: Params,
    ids: FlowIds,
    when: Schedule,
    seq: u64,
}

/// Its one timer: the next request.
const REQUEST: TimerKind = TimerKind(0);

impl Pinger {
    fn request(&mut self, now: SimTime, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        out.packets.push(Packet { seq: self.seq, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, self.p.size) });
        self.seq += 1;
        out.timers.push(TimerReq { at: now + SimDuration(self.p.interval_ns), kind: REQUEST, gen: 0 });
    }
}

impl Agent for Pinger {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.request(now, out);
    }
    /// A reply: its request's round trip.
    fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Outbox) {
        out.rtt_samples.push(now - pkt.echo);
    }
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        self.request(now, out);
    }
}

/// The destination's answer: a reply to each request, at once.
struct Echo {
    ids: FlowIds,
}

impl Agent for Echo {
    fn on_packet(&mut self, _now: SimTime, pkt: &Packet, out: &mut Outbox) {
        out.packets.push(Packet {
            kind: PacketKind::Ack,
            seq: pkt.seq,
            echo: pkt.sent_at,
            ..Packet::data(self.ids.flow, self.ids.dst, self.ids.src, pkt.size)
        });
    }
}
