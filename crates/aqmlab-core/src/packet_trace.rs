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

use crate::app::Transport;
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

/// The packet's headers as they would be on the wire: IPv4, then TCP, UDP or ICMP.
pub fn headers(p: &Packet, transport: Transport) -> Vec<u8> {
    let tcp = transport == Transport::Tcp;
    let sack: Vec<(u64, u64)> = if tcp { p.sack.ranges(p.ack).collect() } else { vec![] };
    let options_len = if sack.is_empty() { 0 } else { 4 + 8 * sack.len() };
    let l4_len = if tcp { 20 + options_len } else { 8 }; // UDP's header and ICMP echo's are 8 bytes
    let header_len = 20 + l4_len;
    let total = (p.size as usize).max(header_len).min(u16::MAX as usize) as u16;
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
    h.push(match transport {
        Transport::Tcp => 6,
        Transport::Udp => 17,
        Transport::Icmp => 1,
    });
    h.extend_from_slice(&[0, 0]); // checksum, filled below
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let sum = ipv4_checksum(&h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    if transport == Transport::Icmp {
        // Echo request (8) or reply (0), code 0, the checksum over the 8 bytes written (the
        // payload is not carried), the flow as identifier and the probe's number as sequence.
        let mut icmp = vec![if p.kind == PacketKind::Data { 8 } else { 0 }, 0, 0, 0];
        icmp.extend_from_slice(&flow_port(p.flow).to_be_bytes());
        icmp.extend_from_slice(&(p.seq as u16).to_be_bytes());
        let sum = ipv4_checksum(&icmp);
        icmp[2..4].copy_from_slice(&sum.to_be_bytes());
        h.extend_from_slice(&icmp);
        return h;
    }
    let (sport, dport) = match p.kind {
        PacketKind::Data => (flow_port(p.flow), DATA_PORT),
        PacketKind::Ack => (DATA_PORT, flow_port(p.flow)),
    };
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    if tcp {
        let (seq, ack, tcp_flags) = match p.kind {
            PacketKind::Data => (p.seq as u32, 0u32, 0x08u8),
            PacketKind::Ack => (0, p.ack as u32, 0x10 | if p.flags & flags::ECE != 0 { 0x40 } else { 0 }),
        };
        h.extend_from_slice(&seq.to_be_bytes());
        h.extend_from_slice(&ack.to_be_bytes());
        h.push(((20 + options_len) / 4) as u8 * 16); // data offset, in 32-bit words
        h.push(tcp_flags);
        h.extend_from_slice(&u16::MAX.to_be_bytes()); // window
        h.extend_from_slice(&[0, 0, 0, 0]); // checksum (no payload to sum), urgent pointer
        if !sack.is_empty() {
            h.extend_from_slice(&[1, 1, 5, (2 + 8 * sack.len()) as u8]); // NOP, NOP, SACK, length
            for (start, end) in sack {
                h.extend_from_slice(&(start as u32).to_be_bytes());
                h.extend_from_slice(&(end as u32).to_be_bytes());
            }
        }
    } else {
        h.extend_from_slice(&(total - 20).to_be_bytes());
        h.extend_from_slice(&[0, 0]);
    }
    h
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
    /// Per flow: what its packets carry (TCP, UDP or ICMP headers).
    transport: Vec<Transport>,
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
            writeln!(w, "time_ns,link,event,flow,kind,seq,size,reason,qlen_pkts")?;
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
            transport: sc.flows.iter().map(|f| f.params.kind().transport()).collect(),
            window: (t.packets_from, t.packets_to.unwrap_or(u64::MAX)),
            log,
            link_names: sc.links.iter().map(|l| l.name.clone()).collect(),
            flow_names: sc.flows.iter().map(|f| f.name.clone()).collect(),
            error: None,
            files,
        }))
    }

    /// Record `event` of packet `p` at `link` at time `now`; `qlen` is the queue's length after
    /// it. A write error is kept and reported by [`PacketTracer::finish`].
    /// Record `event` of packet `p` at `link`; `flow` is the scenario flow it belongs to (a
    /// workload's, for one of its connections).
    pub fn record(&mut self, now: u64, link: u32, event: PacketEvent, p: &Packet, flow: usize, qlen: usize) {
        if self.error.is_none() {
            if let Err(e) = self.write(now, link, event, p, flow, qlen) {
                self.error = Some(e);
            }
        }
    }

    fn write(
        &mut self,
        now: u64,
        link: u32,
        event: PacketEvent,
        p: &Packet,
        flow: usize,
        qlen: usize,
    ) -> io::Result<()> {
        let l = link as usize;
        if event == PacketEvent::Dequeue {
            if let Some(w) = &mut self.pcap[l] {
                let h = headers(p, self.transport[flow]);
                w.write_all(&((now / 1_000_000_000) as u32).to_le_bytes())?;
                w.write_all(&((now % 1_000_000_000) as u32).to_le_bytes())?;
                w.write_all(&(h.len() as u32).to_le_bytes())?;
                w.write_all(&p.size.max(h.len() as u32).to_le_bytes())?;
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
                writeln!(
                    w,
                    "{now},{},{name},{},{kind},{seq},{},{reason},{qlen}",
                    csv_field(&self.link_names[l]),
                    csv_field(&self.flow_names[flow]),
                    p.size
                )?;
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
        let h = headers(&p, Transport::Tcp);
        assert_eq!(h.len(), 40);
        assert_eq!(ipv4_checksum(&h[..20]), 0);
        assert_eq!(h[1] & 0b11, 0b11, "CE");
        assert_eq!(&h[16..20], &[10, 0, 1, 45], "node 300 is 10.0.1.45");
        assert_eq!(u32::from_be_bytes(h[24..28].try_into().unwrap()), 123_456);
    }

    #[test]
    fn file_names_keep_direction_names_readable() {
        assert_eq!(file_stem("r1->r2"), "r1-r2");
        assert_eq!(file_stem("b 1/x"), "b_1_x");
    }
}
