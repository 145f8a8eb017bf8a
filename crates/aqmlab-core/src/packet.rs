//! Packets. A packet is a small `Copy` record with no payload, living in an arena; queues and
//! events hold its `PacketId`. Slots are recycled through a free list, so a steady-state run
//! allocates nothing per packet.

use crate::units::{SimDuration, SimTime};

/// Index of a packet in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PacketId(pub u32);

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    /// Data from a flow's source to its destination.
    Data = 0,
    /// An acknowledgement from the destination back to the source.
    Ack = 1,
}

/// Flag bits.
pub mod flags {
    /// The packet may be marked instead of dropped (ECN-capable / DECbit source): ECT(0), or
    /// ECT(1) when [`ECT1`] is set too. Gateways test this bit alone.
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced: set by a gateway (DECbit's bit, ECN's CE).
    pub const CE: u8 = 1 << 1;
    /// On an ACK: the data packet it acknowledges carried CE (the receiver's echo).
    pub const ECE: u8 = 1 << 2;
    /// A retransmission (its bytes were sent before).
    pub const RETX: u8 = 1 << 3;
    /// With [`ECT`]: the codepoint is ECT(1) (RFC 3168's second codepoint, the L4S
    /// identifier of RFC 9331) rather than ECT(0).
    pub const ECT1: u8 = 1 << 4;
    /// On a data packet: Congestion Window Reduced, the sender's answer to ECE (RFC 3168).
    pub const CWR: u8 = 1 << 5;
    /// A connection opening (the three-way handshake): a data-direction packet with it is a
    /// SYN, an ACK with it the SYN-ACK. It carries no data.
    pub const SYN: u8 = 1 << 6;
}

/// One packet in flight or in a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// Flow index (the scenario's expanded flow order).
    pub flow: u32,
    /// Source and destination node of this packet (an ACK's are the flow's reversed).
    pub src: u32,
    pub dst: u32,
    /// Size on the wire in bytes, headers included.
    pub size: u32,
    /// Where the packet is: the index, in the simulation's flattened paths, of the hop (link)
    /// it is queued at or on. Set when it is sent; kept in the packet so that moving it on
    /// needs no look-up in its flow.
    pub at: u32,
    pub kind: PacketKind,
    pub flags: u8,
    /// Sequence number: first byte for TCP data, packet number for datagrams.
    pub seq: u64,
    /// Cumulative acknowledgement (next byte expected) on ACKs.
    pub ack: u64,
    /// When this copy left its source.
    pub sent_at: SimTime,
    /// On an ACK: the `sent_at` of the data packet that caused it (for RTT samples); on TCP
    /// data: when the application generated it (Telnet's keystrokes), else time 0.
    pub echo: SimTime,
    /// When it joined its current queue.
    pub enq_at: SimTime,
    /// Queueing delay accumulated over the hops so far.
    pub qdelay: SimDuration,
    /// On an ACK of a SACK flow: the SACK option (RFC 2018), empty blocks last.
    pub sack: SackBlocks,
}

/// Up to three SACK blocks (RFC 2018: three fit beside the timestamp option), each a byte
/// range given by its offsets from the ACK's cumulative acknowledgement, so that a block costs
/// 8 bytes rather than 16. An empty block (`start == end`) ends the list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks(pub [(u32, u32); 3]);

impl SackBlocks {
    pub const NONE: SackBlocks = SackBlocks([(0, 0); 3]);

    /// The blocks as absolute byte ranges [start, end), given the ACK's cumulative `ack`.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().take_while(|b| b.1 > b.0).map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    pub fn is_empty(&self) -> bool {
        self.0[0].1 <= self.0[0].0
    }
}

impl Packet {
    /// A data packet template; fields not given are zero.
    pub const fn data(flow: u32, src: u32, dst: u32, size: u32) -> Packet {
        Packet {
            flow,
            src,
            dst,
            size,
            at: 0,
            kind: PacketKind::Data,
            flags: 0,
            seq: 0,
            ack: 0,
            sent_at: SimTime::ZERO,
            echo: SimTime::ZERO,
            enq_at: SimTime::ZERO,
            qdelay: SimDuration::ZERO,
            sack: SackBlocks::NONE,
        }
    }

    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    alive: Vec<bool>,
    free: Vec<u32>,
    live: usize,
}

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn alloc(&mut self, pkt: Packet) -> PacketId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = pkt;
            self.alive[i as usize] = true;
            PacketId(i)
        } else {
            self.slots.push(pkt);
            self.alive.push(true);
            PacketId((self.slots.len() - 1) as u32)
        }
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        assert!(self.alive[id.0 as usize], "packet {} freed twice", id.0);
        self.alive[id.0 as usize] = false;
        self.live -= 1;
        self.free.push(id.0);
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Whether `id` names a packet alive now.
    pub fn is_alive(&self, id: PacketId) -> bool {
        self.alive.get(id.0 as usize).copied().unwrap_or(false)
    }

    /// Ids of the packets alive now.
    pub fn live_ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.alive.iter().enumerate().filter(|(_, a)| **a).map(|(i, _)| PacketId(i as u32))
    }

    /// Slots ever allocated (the high-water mark of live packets).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

impl std::ops::Index<PacketId> for PacketArena {
    type Output = Packet;
    #[inline]
    fn index(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }
}

impl std::ops::IndexMut<PacketId> for PacketArena {
    #[inline]
    fn index_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::new();
        let p = a.alloc(Packet::data(1, 0, 1, 100));
        let q = a.alloc(Packet::data(2, 0, 1, 100));
        a.free(p);
        let r = a.alloc(Packet::data(3, 0, 1, 100));
        assert_eq!(r, p);
        assert_eq!(a[r].flow, 3);
        assert_eq!(a[q].flow, 2);
        assert_eq!(a.live(), 2);
        assert_eq!(a.capacity(), 2);
    }
}
