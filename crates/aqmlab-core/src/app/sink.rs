//! Datagram sink: accepts every packet of its flow; all delivered bytes count as goodput.

use crate::agent::{Agent, Outbox};
use crate::packet::Packet;
use crate::units::SimTime;

pub struct Sink;

impl Agent for Sink {
    fn on_packet(&mut self, _now: SimTime, pkt: &Packet, out: &mut Outbox) {
        out.goodput_bytes += pkt.size as u64;
    }
}
