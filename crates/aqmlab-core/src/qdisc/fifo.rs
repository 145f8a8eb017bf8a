//! The first-come-first-served packet queue most disciplines keep: packet ids in arrival order
//! and their byte count, with removal by position for disciplines that drop from inside the
//! queue (Random Drop, CHOKe). A container, not a discipline: DropTail is `droptail.rs`.

use std::collections::VecDeque;

use crate::conf::Limit;
use crate::packet::{PacketArena, PacketId};

/// A FIFO of packets that keeps its byte count.
#[derive(Debug, Default)]
pub struct Fifo {
    q: VecDeque<PacketId>,
    bytes: u64,
}

impl Fifo {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// The packet at position `i` (0 = head).
    pub fn get(&self, i: usize) -> Option<PacketId> {
        self.q.get(i).copied()
    }
    pub fn front(&self) -> Option<PacketId> {
        self.q.front().copied()
    }
    pub fn push(&mut self, pkt: PacketId, pkts: &PacketArena) {
        self.bytes += pkts[pkt].size as u64;
        self.q.push_back(pkt);
    }
    pub fn pop(&mut self, pkts: &PacketArena) -> Option<PacketId> {
        let pkt = self.q.pop_front()?;
        self.bytes -= pkts[pkt].size as u64;
        Some(pkt)
    }
    /// Take out the packet at position `i`.
    pub fn remove(&mut self, i: usize, pkts: &PacketArena) -> Option<PacketId> {
        let pkt = self.q.remove(i)?;
        self.bytes -= pkts[pkt].size as u64;
        Some(pkt)
    }
    /// Would a packet of `size` bytes overflow `limit`?
    pub fn overflows(&self, limit: Limit, size: u32) -> bool {
        limit.overflows(self.q.len(), self.bytes, size)
    }
}
