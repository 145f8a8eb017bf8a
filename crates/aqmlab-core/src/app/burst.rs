//! `kind = "burst"`: packet trains, the bursts a queue must absorb (RFC 7928's burst-absorption
//! tests): `packets` datagrams of `packet_size` handed to the first link at once, every
//! `interval` from the flow's start. The first link sends them back to back, so the burst
//! reaches the next queue at that link's rate, as an aggregate from a host's offload or a
//! faster link does. Unresponsive (UDP), like CBR; its results are a datagram flow's: sent,
//! delivered and dropped packets, queueing and one-way delays.
//!
//! Choices: the bursts keep their interval whatever becomes of them; packet sizes are drawn
//! per packet (fixed by default).

use serde::Serialize;

use super::size::SizeDist;
use super::{sink::Sink, AnyAgent, FlowKind, FlowKindMeta, Transport};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Duration, Fields, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::{SimTime, NS_PER_S};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "burst",
    summary: "Packet trains (UDP): a number of datagrams at once every interval, the bursts an AQM must absorb.",
};

/// The most packets one burst may hold: a burst is in the outbox at once.
const MAX_PACKETS: u32 = 100_000;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub packets: u32,
    #[serde(rename = "interval_ns")]
    pub interval: Duration,
    pub packet_size: SizeDist,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let packets: u32 = f.or("packets", 10u32, "packets in each burst, sent at once")?;
        f.ensure((1..=MAX_PACKETS).contains(&packets), "packets", format!("{packets} (allowed: 1 to {MAX_PACKETS})"))?;
        let interval: Duration = f.or("interval", Duration(100_000_000), "time from one burst to the next")?;
        f.ensure(interval.0 >= 1_000, "interval", "must be at least 1us")?;
        let packet_size = f.or("packet_size", SizeDist::Fixed { bytes: 1000 }, "packet size on the wire")?;
        Ok(Params { packets, interval, packet_size })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        let sender = Burster { p: self.clone(), ids, when, rng, seq: 0 };
        (AnyAgent::Other(Box::new(sender)), AnyAgent::Sink(Sink))
    }
    fn mean_packet_size(&self) -> f64 {
        self.packet_size.mean()
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.packet_size.largest(), None)
    }
    fn demand_bps(&self) -> f64 {
        self.packets as f64 * self.packet_size.mean() * 8.0 * NS_PER_S as f64 / self.interval.0 as f64
    }
    fn transport(&self) -> Transport {
        Transport::Udp
    }
}

/// The bursts' sender.
struct Burster {
    p: Params,
    ids: FlowIds,
    when: Schedule,
    rng: SimRng,
    seq: u64,
}

/// Its one timer: the next burst.
const NEXT_BURST: TimerKind = TimerKind(0);

impl Burster {
    fn burst(&mut self, now: SimTime, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        for _ in 0..self.p.packets {
            let size = self.p.packet_size.draw(&mut self.rng);
            out.packets.push(Packet { seq: self.seq, ..Packet::data(self.ids.flow, self.ids.src, self.ids.dst, size) });
            self.seq += 1;
        }
        out.timers.push(TimerReq { at: now + self.p.interval.sim(), kind: NEXT_BURST, gen: 0 });
    }
}

impl Agent for Burster {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.burst(now, out);
    }
    fn on_packet(&mut self, _now: SimTime, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        self.burst(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimDuration;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_burst_is_its_packets_at_once_and_the_next_one_interval_later() {
        let p = Params { packets: 3, interval: Duration(40 * MS), packet_size: SizeDist::Fixed { bytes: 500 } };
        let when = Schedule { start: SimTime(10 * MS), jitter: SimDuration::ZERO, stop: Some(SimTime(60 * MS)) };
        let ids = FlowIds { flow: 2, src: 0, dst: 1 };
        let mut b = Burster { p, ids, when, rng: SimRng::from_seed(1), seq: 0 };
        let mut out = Outbox::default();
        b.start(SimTime(10 * MS), &mut out);
        assert_eq!(out.packets.iter().map(|p| (p.seq, p.size, p.flow)).collect::<Vec<_>>(), [(0, 500, 2), (1, 500, 2), (2, 500, 2)]);
        assert_eq!(out.timers, [TimerReq { at: SimTime(50 * MS), kind: NEXT_BURST, gen: 0 }]);
        out.clear();
        b.on_timer(SimTime(50 * MS), NEXT_BURST, 0, &mut out);
        assert_eq!(out.packets.iter().map(|p| p.seq).collect::<Vec<_>>(), [3, 4, 5]);
        out.clear();
        // Past the stop: nothing more, and no timer.
        b.on_timer(SimTime(90 * MS), NEXT_BURST, 0, &mut out);
        assert!(out.packets.is_empty() && out.timers.is_empty());
    }

    /// Ten bursts of 10 packets of 1000 bytes into a 10 Mbps link (0.8 ms a packet) with room
    /// for `limit` packets besides the one in service.
    fn bursts_into(limit: u32) -> crate::Results {
        let text = format!(
            r#"
[simulation]
duration = "1s"
[[link]]
name = "l"
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
queue = {{ discipline = "droptail", limit = {limit} }}
[[flow]]
name = "burst"
src = "a"
dst = "b"
kind = "burst"
packets = 10
interval = "100ms"
packet_size = 1000
"#
        );
        crate::run_text(&text, "burst.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_burst_queues_behind_itself_and_overflows_a_short_buffer() {
        // The k-th packet of a burst waits k x 0.8 ms: a mean of 4.5 x 0.8 = 3.6 ms, and
        // 3.6 + 0.8 + 10 = 14.4 ms from sending to delivery.
        let r = bursts_into(100);
        let f = &r.flows[0];
        assert_eq!((f.sent_pkts, f.delivered_pkts, f.dropped_pkts), (100, 100, 0));
        assert!((f.mean_qdelay_s.unwrap() - 3.6e-3).abs() < 1e-12, "{:?}", f.mean_qdelay_s);
        assert!((f.mean_delay_s.unwrap() - 14.4e-3).abs() < 1e-12, "{:?}", f.mean_delay_s);
        // Room for 4: the first goes into service, the next 4 wait (0.8 ms apart), the other 5
        // of every burst are dropped on arrival.
        let r = bursts_into(4);
        let f = &r.flows[0];
        assert_eq!((f.sent_pkts, f.delivered_pkts, f.dropped_pkts), (100, 50, 50));
        assert!((f.mean_qdelay_s.unwrap() - 1.6e-3).abs() < 1e-12, "{:?}", f.mean_qdelay_s);
    }
}
