//! Datagram sink: accepts every packet of its flow; all delivered bytes count as goodput.

use crate::agent::{Agent, Outbox};
use crate::packet::Packet;

pub struct Sink;

impl Agent for Sink {
    fn on_packet(&mut self, _now: u64, pkt: &Packet, out: &mut Outbox) {
        out.goodput_bytes += pkt.size as u64;
    }
}
