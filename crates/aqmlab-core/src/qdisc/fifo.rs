//! The first-come-first-served packet queue most disciplines keep: packet ids in arrival order
//! and their byte count, with removal by position for disciplines that drop from inside the
//! queue (Random Drop, CHOKe). A container, not a discipline: DropTail is `droptail.rs`.

use std::collections::VecDeque;

use crate::conf::Limit;
use crate::packet::{PacketArena, PacketId};

/// A FIFO of packets that keeps its byte count. The packet at the head is held inline and the
/// rest in a ring buffer allocated on first need: a queue that never holds more than one packet
/// (an access link whose transmitter takes each arrival at once) allocates nothing, and its
/// packets cost no cache line beyond the queue's record (at 100,000 flows, one miss a packet).
#[derive(Debug)]
pub struct Fifo {
    /// The head, or [`NONE`]; when it is `NONE` the rest is empty.
    head: PacketId,
    rest: VecDeque<PacketId>,
    bytes: u64,
}

/// No packet at the head.
const NONE: PacketId = PacketId(u32::MAX);

impl Default for Fifo {
    fn default() -> Self {
        Fifo { head: NONE, rest: VecDeque::new(), bytes: 0 }
    }
}

impl Fifo {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        usize::from(self.head != NONE) + self.rest.len()
    }
    pub fn is_empty(&self) -> bool {
        self.head == NONE
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// The packet at position `i` (0 = head).
    pub fn get(&self, i: usize) -> Option<PacketId> {
        match i {
            _ if self.head == NONE => None,
            0 => Some(self.head),
            _ => self.rest.get(i - 1).copied(),
        }
    }
    pub fn front(&self) -> Option<PacketId> {
        (self.head != NONE).then_some(self.head)
    }
    pub fn push(&mut self, pkt: PacketId, pkts: &PacketArena) {
        debug_assert_ne!(pkt, NONE, "packet id {} is the empty head's", NONE.0);
        self.bytes += pkts[pkt].size as u64;
        if self.head == NONE {
            self.head = pkt;
        } else {
            self.rest.push_back(pkt);
        }
    }
    pub fn pop(&mut self, pkts: &PacketArena) -> Option<PacketId> {
        let pkt = self.front()?;
        self.head = self.rest.pop_front().unwrap_or(NONE);
        self.bytes -= pkts[pkt].size as u64;
        Some(pkt)
    }
    /// Take out the packet at position `i`.
    pub fn remove(&mut self, i: usize, pkts: &PacketArena) -> Option<PacketId> {
        if i == 0 {
            return self.pop(pkts);
        }
        let pkt = self.rest.remove(i.checked_sub(1)?)?;
        self.bytes -= pkts[pkt].size as u64;
        Some(pkt)
    }
    /// Would a packet of `size` bytes overflow `limit`?
    pub fn overflows(&self, limit: Limit, size: u32) -> bool {
        limit.overflows(self.len(), self.bytes, size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use crate::rng::SimRng;

    /// Against a plain VecDeque: random pushes, pops and removals from anywhere, the queue
    /// often emptied and refilled past its inline head, lengths, bytes and every position.
    #[test]
    fn same_as_a_ring_buffer() {
        let mut pkts = PacketArena::new();
        let ids: Vec<PacketId> = (0..64).map(|i| pkts.alloc(Packet::data(i, 0, 1, 40 + i))).collect();
        let mut rng = SimRng::stream(3, "fifo");
        let (mut fifo, mut reference) = (Fifo::new(), VecDeque::new());
        let mut next = 0;
        for _ in 0..20_000 {
            let r = rng.uniform();
            if r < 0.5 && reference.len() < 40 {
                let id = ids[next % ids.len()];
                next += 1;
                fifo.push(id, &pkts);
                reference.push_back(id);
            } else if r < 0.8 {
                assert_eq!(fifo.pop(&pkts), reference.pop_front());
            } else {
                let i = (rng.uniform() * (reference.len() + 1) as f64) as usize;
                assert_eq!(fifo.remove(i, &pkts), reference.remove(i));
            }
            assert_eq!((fifo.len(), fifo.is_empty()), (reference.len(), reference.is_empty()));
            assert_eq!(fifo.front(), reference.front().copied());
            let bytes: u64 = reference.iter().map(|&id| pkts[id].size as u64).sum();
            assert_eq!(fifo.bytes(), bytes);
            for i in 0..=reference.len() {
                assert_eq!(fifo.get(i), reference.get(i).copied());
            }
        }
    }
}
