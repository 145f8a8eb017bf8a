//! Packet traces: a pcap file per traced link direction and a per-packet event log.
//!
//! pcap files use the classic libpcap format with nanosecond timestamps (magic `0xa1b23c4d`,
//! version 2.4) and link type `LINKTYPE_RAW` (101: every record starts with an IPv4 header), as
//! described in the IETF draft "PCAP Capture File Format" (draft-ietf-opsawg-pcap). A record is
//! written when a packet starts its transmission on the link, as a capture at the output
//! interface would see it. Packets have no payload in the simulator, so each record holds the
//! synthesised headers only (captured length), and states the packet's size on the wire
//! (original length):
//! - IPv4 (RFC 791): node `n` is address `10.x.y.z` with `x.y.z` = n + 1; the ECN field
//!   (RFC 3168) is ECT(0) for an ECN-capable packet and CE once marked; the identification is
//!   the low 16 bits of a datagram's packet number; the header checksum is computed.
//! - TCP (RFC 9293): source port 10000 + flow index (modulo 55536), destination port 5001;
//!   the data's sequence number is its first byte, an ACK's acknowledgement number the next
//!   byte expected (both modulo 2^32, as on the wire); ACKs carry ACK (and ECE when echoing
//!   CE), data carries PSH. The checksum is left 0: there is no payload to sum. An ACK of a
//!   SACK flow carries its blocks as the SACK option (RFC 2018: kind 5, after two NOPs); the
//!   headers then exceed a 40-byte `ack_size`, and the record's original length is the larger.
//! - UDP (RFC 768) for datagram flows, with the same ports and a zero (absent) checksum.
//!
//! The event log has one line per event at a traced link: a packet joining the queue
//! (`enqueue`, or `mark` with the reason when the discipline marked it as it joined), starting
//! its transmission (`dequeue`, after a `mark` when the discipline marked it as it left), or
//! being dropped (`drop`, with the reason), with the queue length after the event. It is written as CSV here; the Python side turns it into Parquet.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::app::{Transport, Wire};
use crate::packet::{flags, Packet, PacketKind};
use crate::qdisc::DropReason;
use crate::scenario::Scenario;

/// What happened to a packet at a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    Enqueue,
    /// Marked (CE set) for the reason: as it joined, or as it leaves (then before `Dequeue`).
    Mark(DropReason),
    Dequeue,
    Drop(DropReason),
}

const LINKTYPE_RAW: u32 = 101;
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
const DATA_PORT: u16 = 5001;

/// The IPv4 address of node `n`: 10.0.0.1 for node 0, and so on.
pub fn node_address(n: u32) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// The source port of flow `f`'s data (its ACKs use it as destination).
pub fn flow_port(f: u32) -> u16 {
    10_000 + (f % 55_536) as u16
}

/// One connection as a capture shows it: its port, and for a finite TCP transfer its length,
/// whose last segment carries FIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    /// The flow's source port (its ACKs' destination port).
    pub port: u16,
    /// The transfer's data bytes (`None`: unending).
    pub bytes: Option<u64>,
}

/// A packet's headers as they would be on the wire, and the IPv4 total length they state: IPv4,
/// then TCP, UDP or ICMP, of a packet of `stream`.
///
/// A TCP flow's sequence space starts at 0 with its SYN (whether or not the run had one), so its
/// data's sequence numbers are 1 + the first data byte and every segment after the SYN carries
/// ACK with the other side's 1 + bytes received; the payload is the packet's data (its size less
/// the flow's `header`), so that sequence numbers advance by each segment's payload, as an
/// analyser checks. The stated length is the headers and the payload: the packet's size when
/// `header` is the 40 bytes of IPv4 and TCP, more when it is smaller (the papers' packets were
/// all data).
///
/// A finite transfer closes as a capture expects: its last data segment carries FIN (which takes
/// one sequence number), and the receiver's ACK of it FIN too, acknowledging the sender's FIN.
/// The sender's ACK of that FIN is not sent (the simulation has no such packet).
pub fn headers(p: &Packet, wire: Wire, stream: Stream) -> (Vec<u8>, u16) {
    let port = stream.port;
    let tcp = wire.transport == Transport::Tcp;
    let syn = tcp && p.has(flags::SYN);
    let sack: Vec<(u64, u64)> = if tcp && !syn { p.sack.ranges(p.ack).collect() } else { vec![] };
    let sack_permitted = syn && wire.sack;
    let options_len = if sack_permitted {
        4
    } else if sack.is_empty() {
        0
    } else {
        4 + 8 * sack.len()
    };
    let l4_len = if tcp { 20 + options_len } else { 8 }; // UDP's header and ICMP echo's are 8 bytes
    let header_len = 20 + l4_len;
    let total = if tcp {
        let payload = if syn || p.kind == PacketKind::Ack { 0 } else { p.size.saturating_sub(wire.header) as usize };
        header_len + payload
    } else {
        (p.size as usize).max(header_len)
    }
    .min(u16::MAX as usize) as u16;
    let ecn = if p.flags & flags::CE != 0 {
        0b11
    } else if p.flags & flags::ECT != 0 {
        0b10
    } else {
        0
    };
    let (src, dst) = (node_address(p.src), node_address(p.dst));
    let mut h = Vec::with_capacity(header_len);
    h.push(0x45); // version 4, header length 5 words
    h.push(ecn);
    h.extend_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&(if tcp { 0 } else { p.seq as u16 }).to_be_bytes()); // identification
    h.extend_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    h.push(64); // TTL
    h.push(match wire.transport {
        Transport::Tcp => 6,
        Transport::Udp => 17,
        Transport::Icmp => 1,
    });
    h.extend_from_slice(&[0, 0]); // checksum, filled below
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let sum = ipv4_checksum(&h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    if wire.transport == Transport::Icmp {
        // Echo request (8) or reply (0), code 0, the checksum over the 8 bytes written (the
        // payload is not carried), the flow as identifier and the probe's number as sequence.
        let mut icmp = vec![if p.kind == PacketKind::Data { 8 } else { 0 }, 0, 0, 0];
        icmp.extend_from_slice(&port.to_be_bytes());
        icmp.extend_from_slice(&(p.seq as u16).to_be_bytes());
        let sum = ipv4_checksum(&icmp);
        icmp[2..4].copy_from_slice(&sum.to_be_bytes());
        h.extend_from_slice(&icmp);
        return (h, total);
    }
    let (sport, dport) = match p.kind {
        PacketKind::Data => (port, DATA_PORT),
        PacketKind::Ack => (DATA_PORT, port),
    };
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    if tcp {
        const FIN: u8 = 0x01;
        const SYN: u8 = 0x02;
        const ACK: u8 = 0x10;
        const ECE: u8 = 0x40;
        const CWR: u8 = 0x80;
        let (seq, ack, tcp_flags) = match (p.kind, syn) {
            // The SYN (ECN-setup: ECE and CWR), and the SYN-ACK (ECE).
            (PacketKind::Data, true) => (0u32, 0u32, SYN | if wire.ecn { ECE | CWR } else { 0 }),
            (PacketKind::Ack, true) => (0, 1, SYN | ACK | if wire.ecn { ECE } else { 0 }),
            (PacketKind::Data, false) => {
                let end = p.seq + p.size.saturating_sub(wire.header) as u64;
                let fin = if stream.bytes == Some(end) { FIN } else { 0 };
                (1u32.wrapping_add(p.seq as u32), 1, ACK | fin | if p.flags & flags::CWR != 0 { CWR } else { 0 })
            }
            (PacketKind::Ack, false) => {
                let fin = stream.bytes.is_some_and(|bytes| p.ack >= bytes);
                let ack = 1u32.wrapping_add(p.ack as u32).wrapping_add(fin as u32);
                (1, ack, ACK | if fin { FIN } else { 0 } | if p.flags & flags::ECE != 0 { ECE } else { 0 })
            }
        };
        h.extend_from_slice(&seq.to_be_bytes());
        h.extend_from_slice(&ack.to_be_bytes());
        h.push(((20 + options_len) / 4) as u8 * 16); // data offset, in 32-bit words
        h.push(tcp_flags);
        h.extend_from_slice(&u16::MAX.to_be_bytes()); // window
        h.extend_from_slice(&[0, 0, 0, 0]); // checksum (no payload to sum), urgent pointer
        if sack_permitted {
            h.extend_from_slice(&[1, 1, 4, 2]); // NOP, NOP, SACK-permitted, length
        }
        if !sack.is_empty() {
            h.extend_from_slice(&[1, 1, 5, (2 + 8 * sack.len()) as u8]); // NOP, NOP, SACK, length
            for (start, end) in sack {
                h.extend_from_slice(&1u32.wrapping_add(start as u32).to_be_bytes());
                h.extend_from_slice(&1u32.wrapping_add(end as u32).to_be_bytes());
            }
        }
    } else {
        h.extend_from_slice(&(total - 20).to_be_bytes());
        h.extend_from_slice(&[0, 0]);
    }
    (h, total)
}

/// The one's-complement sum of the header's 16-bit words, complemented (RFC 791, RFC 1071).
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|w| u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes the traces of one run.
pub struct PacketTracer {
    /// Per link direction: its pcap writer, if traced.
    pcap: Vec<Option<BufWriter<File>>>,
    /// Per link direction: whether its events are logged.
    log_link: Vec<bool>,
    /// Per flow: whether its packets are logged.
    log_flow: Vec<bool>,
    /// Per flow: how its packets look on the wire.
    wire: Vec<Wire>,
    window: (u64, u64),
    log: Option<BufWriter<File>>,
    link_names: Vec<String>,
    flow_names: Vec<String>,
    /// The first write error.
    error: Option<io::Error>,
    /// The files written, for the caller.
    pub files: Vec<PathBuf>,
}

impl PacketTracer {
    /// Open the files the scenario's `[trace]` asks for, in `dir` (created if missing); `None`
    /// when it asks for none.
    pub fn create(sc: &Scenario, dir: &Path) -> io::Result<Option<PacketTracer>> {
        let t = &sc.trace;
        if t.pcap.is_empty() && t.packets.is_empty() {
            return Ok(None);
        }
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        let mut pcap: Vec<Option<BufWriter<File>>> = (0..sc.links.len()).map(|_| None).collect();
        for &l in &t.pcap {
            let path = dir.join(format!("{}.pcap", file_stem(&sc.links[l as usize].name)));
            let mut w = BufWriter::new(File::create(&path)?);
            for word in [PCAP_MAGIC_NS.to_le_bytes(), [2, 0, 4, 0]] {
                w.write_all(&word)?;
            }
            w.write_all(&0i32.to_le_bytes())?; // timezone offset
            w.write_all(&0u32.to_le_bytes())?; // timestamp accuracy
            w.write_all(&65_535u32.to_le_bytes())?; // snapshot length
            w.write_all(&LINKTYPE_RAW.to_le_bytes())?;
            pcap[l as usize] = Some(w);
            files.push(path);
        }
        let mut log_link = vec![false; sc.links.len()];
        let log = if t.packets.is_empty() {
            None
        } else {
            for &l in &t.packets {
                log_link[l as usize] = true;
            }
            let path = dir.join("packets.csv");
            let mut w = BufWriter::new(File::create(&path)?);
            writeln!(w, "time_ns,link,event,flow,connection,kind,seq,size,reason,qlen_pkts")?;
            files.push(path);
            Some(w)
        };
        let mut log_flow = vec![t.packets_flows.is_empty(); sc.flows.len()];
        for &f in &t.packets_flows {
            log_flow[f as usize] = true;
        }
        Ok(Some(PacketTracer {
            pcap,
            log_link,
            log_flow,
            wire: sc.flows.iter().map(|f| f.params.kind().wire()).collect(),
            window: (t.packets_from, t.packets_to.unwrap_or(u64::MAX)),
            log,
            link_names: sc.links.iter().map(|l| l.name.clone()).collect(),
            flow_names: sc.flows.iter().map(|f| f.name.clone()).collect(),
            error: None,
            files,
        }))
    }

    /// Record `event` of packet `p` at `link` at time `now`; `qlen` is the queue's length after
    /// it. `flow` is the scenario flow it belongs to; a workload's connection also names its rank
    /// among the workloads' connections and its bytes. A write error is kept and reported by
    /// [`PacketTracer::finish`].
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        now: u64,
        link: u32,
        event: PacketEvent,
        p: &Packet,
        flow: usize,
        connection: Option<(u32, u64)>,
        qlen: usize,
    ) {
        if self.error.is_none() {
            if let Err(e) = self.write(now, link, event, p, flow, connection, qlen) {
                self.error = Some(e);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        now: u64,
        link: u32,
        event: PacketEvent,
        p: &Packet,
        flow: usize,
        connection: Option<(u32, u64)>,
        qlen: usize,
    ) -> io::Result<()> {
        let l = link as usize;
        if event == PacketEvent::Dequeue {
            if let Some(w) = &mut self.pcap[l] {
                let wire = self.wire[flow];
                // A connection's port follows the flows' (one port each: one stream each).
                let stream = match connection {
                    Some((rank, bytes)) => {
                        Stream { port: flow_port(self.wire.len() as u32 + rank), bytes: Some(bytes) }
                    }
                    None => Stream { port: flow_port(p.flow), bytes: wire.bytes },
                };
                let (h, total) = headers(p, wire, stream);
                w.write_all(&((now / 1_000_000_000) as u32).to_le_bytes())?;
                w.write_all(&((now % 1_000_000_000) as u32).to_le_bytes())?;
                w.write_all(&(h.len() as u32).to_le_bytes())?;
                w.write_all(&(total as u32).to_le_bytes())?;
                w.write_all(&h)?;
            }
        }
        if let Some(w) = &mut self.log {
            if self.log_link[l] && self.log_flow[flow] && now >= self.window.0 && now < self.window.1 {
                let (name, reason) = match event {
                    PacketEvent::Enqueue => ("enqueue", ""),
                    PacketEvent::Mark(r) => ("mark", r.as_str()),
                    PacketEvent::Dequeue => ("dequeue", ""),
                    PacketEvent::Drop(r) => ("drop", r.as_str()),
                };
                let kind = if p.kind == PacketKind::Data { "data" } else { "ack" };
                let seq = if p.kind == PacketKind::Data { p.seq } else { p.ack };
                write!(w, "{now},{},{name},{},", csv_field(&self.link_names[l]), csv_field(&self.flow_names[flow]))?;
                // A workload's connection: its row in the connections table; empty for other flows.
                if let Some((row, _)) = connection {
                    write!(w, "{row}")?;
                }
                writeln!(w, ",{kind},{seq},{},{reason},{qlen}", p.size)?;
            }
        }
        Ok(())
    }

    /// Flush every file; the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in self.pcap.iter_mut().flatten() {
            w.flush()?;
        }
        if let Some(w) = &mut self.log {
            w.flush()?;
        }
        Ok(())
    }
}

/// A link direction's name as a file name: `r1->r2` becomes `r1-r2`.
pub fn file_stem(name: &str) -> String {
    name.replace("->", "-").chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_checksum_matches_the_worked_example() {
        // The commonly worked example: 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7.
        let header = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&header), 0xb861);
    }

    #[test]
    fn a_header_with_its_checksum_sums_to_zero() {
        let mut p = Packet::data(3, 0, 300, 1000);
        p.seq = 123_456;
        p.flags = flags::ECT | flags::CE;
        let (h, _) = headers(
            &p,
            Wire { transport: Transport::Tcp, header: 0, ecn: false, bytes: None, sack: false },
            Stream { port: flow_port(p.flow), bytes: None },
        );
        assert_eq!(h.len(), 40);
        assert_eq!(ipv4_checksum(&h[..20]), 0);
        assert_eq!(h[1] & 0b11, 0b11, "CE");
        assert_eq!(&h[16..20], &[10, 0, 1, 45], "node 300 is 10.0.1.45");
        assert_eq!(u32::from_be_bytes(h[24..28].try_into().unwrap()), 123_457, "1 + its first byte");
    }

    #[test]
    fn a_finite_transfer_closes_with_fin_on_its_last_segment_and_on_the_ack_of_it() {
        // 2500 bytes of data in 1000-byte segments behind 40 bytes of headers.
        let wire = Wire { transport: Transport::Tcp, header: 40, ecn: false, bytes: Some(2500), sack: false };
        let stream = Stream { port: 10_000, bytes: Some(2500) };
        let seq = |h: &[u8]| u32::from_be_bytes(h[24..28].try_into().unwrap());
        let ack = |h: &[u8]| u32::from_be_bytes(h[28..32].try_into().unwrap());
        let tcp_flags = |h: &[u8]| h[33];
        let segment = |first: u64, size: u32| {
            let mut p = Packet::data(0, 0, 1, size);
            p.seq = first;
            headers(&p, wire, stream)
        };
        let (middle, total) = segment(1000, 1040);
        assert_eq!((seq(&middle), tcp_flags(&middle), total), (1001, 0x10, 1040), "ACK alone, 1000 bytes of payload");
        let (last, total) = segment(2000, 540);
        assert_eq!((seq(&last), tcp_flags(&last), total), (2001, 0x11, 540), "FIN|ACK on the last 500 bytes");
        let reply = |acked: u64| {
            let mut p = Packet::data(0, 0, 1, 40);
            p.kind = PacketKind::Ack;
            p.ack = acked;
            headers(&p, wire, stream).0
        };
        assert_eq!((ack(&reply(2000)), tcp_flags(&reply(2000))), (2001, 0x10));
        // The ACK of the last byte acknowledges the FIN too (it took sequence number 2501).
        assert_eq!((ack(&reply(2500)), tcp_flags(&reply(2500))), (2502, 0x11));
    }

    #[test]
    fn file_names_keep_direction_names_readable() {
        assert_eq!(file_stem("r1->r2"), "r1-r2");
        assert_eq!(file_stem("b 1/x"), "b_1_x");
    }
}
