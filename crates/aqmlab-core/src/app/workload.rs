//! `kind = "workload"`: flows that arrive and finish. One entry stands for many TCP transfers:
//! they arrive as a Poisson process, each between a source and a destination drawn from the
//! entry's node sets (uniformly, or by a traffic matrix), with a size drawn from a measured
//! distribution ([`super::cdf`]); each is a real TCP connection through the network, freed when
//! its last byte is acknowledged. Its result is the flow completion time (FCT) and its slowdown
//! against the ideal FCT of an empty network ([`ideal_fct_ns`]).
//!
//! The arrival rate is given directly (`arrival_rate`, flows per second) or as a target load of
//! a link direction (`load` of `load_link`): rate = load x link rate / (8 x mean flow size), as
//! the datacenter studies define it (pFabric, HPCC), on data bytes: headers add
//! `packet_size / (packet_size - header)` to what the link carries.
//!
//! Choices: the generator stops at `stop` (no new arrivals), transfers under way go on; source
//! and destination are drawn together (a pair), never a node to itself; sizes below one byte
//! count as one.

use serde::Serialize;

use super::cdf::SizeCdf;
use super::{sink::Sink, AnyAgent, FlowKind, FlowKindMeta, Transport, Wire};
use crate::agent::{Agent, ConnectionReq, FlowIds, Outbox, Schedule, TimerKind, TimerReq};
use crate::conf::{Bytes, Fields, Result};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::tcp::{Common, Defaults, Receiver, Sender};
use crate::units::{tx_time_ns, SimDuration, SimTime};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "workload",
    summary: "Flows that arrive and finish: Poisson arrivals of TCP transfers, sizes from a measured \
              distribution, between sets of nodes; judged by flow completion time.",
};

/// How often flows arrive.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// Flows per second.
    Rate(f64),
    /// A target load of a link direction, in (0, 1].
    Load { load: f64, link: String },
}

/// The flow-size buckets of the FCT summary by default, bytes: under 10 KB, 10-100 KB,
/// 100 KB-1 MB, over 1 MB (the buckets of the DCTCP and pFabric papers' figures).
pub const DEFAULT_BUCKETS: [u64; 3] = [10_000, 100_000, 1_000_000];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    /// The TCP settings of every transfer.
    #[serde(flatten)]
    pub common: Common,
    pub sizes: SizeCdf,
    pub arrivals: Arrivals,
    /// Flows per second, once the load's link is known (the builder resolves it).
    pub arrivals_per_s: f64,
    /// Weights of (source, destination) pairs, a row per source, a column per destination, in
    /// the order the node sets list them; `None`: every pair of distinct nodes alike.
    pub matrix: Option<Vec<Vec<f64>>>,
    /// Upper edges of the FCT summary's size buckets, bytes, rising (the last bucket has none).
    pub buckets: Vec<u64>,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let common = Common::read(f, &Defaults { cc: "cubic", packet_size: 1500, header: 40, max_window: 10_000 })?;
        f.ensure(
            !common.delayed_ack_clocked,
            "delayed_ack_timer",
            "\"clocked\" is for tcp and telnet flows (its phase is drawn per flow); a workload's connections take \"after_segment\"",
        )?;
        f.ensure(
            !common.cc.rto().random_tick_phase,
            "tick_phase",
            "\"random\" is for tcp and telnet flows (the phase is drawn per flow); a workload's connections take \"aligned\"",
        )?;
        let names: Vec<&str> = super::cdf::BUILT_IN.iter().map(|(n, _)| *n).collect();
        let built_in: Option<String> = f.opt(
            "sizes",
            &format!(
                "flow sizes from a built-in distribution, one of: {} (default web_search; see the workloads \
                 how-to for their sources)",
                names.join(", ")
            ),
        )?;
        let file: Option<String> = f.opt(
            "sizes_file",
            "flow sizes from a CDF file: a size in bytes and a cumulative probability (or percentage) per line, \
             rising (relative to the scenario file)",
        )?;
        let sizes = match (built_in, file) {
            _ if f.is_catalogue() => SizeCdf::built_in("web_search").expect("built in"),
            (Some(name), None) => SizeCdf::built_in(&name).ok_or_else(|| {
                let hint = crate::suggest::did_you_mean(&name, names.iter().copied());
                f.error("sizes", format!("unknown distribution '{name}'{hint} (allowed: {})", names.join(", ")))
            })?,
            (None, Some(path)) => {
                let resolved = f.source().relative(&path);
                let text = std::fs::read_to_string(&resolved)
                    .map_err(|e| {
                        let why = crate::conf::io_message(&e);
                        f.error("sizes_file", format!("cannot read '{path}' (relative to the scenario file): {why}"))
                    })?;
                SizeCdf::parse(&text, &path).map_err(|e| f.error("sizes_file", format!("{path}: {e}")))?
            }
            (Some(_), Some(_)) => return Err(f.error("sizes_file", "give sizes or sizes_file, not both")),
            (None, None) => SizeCdf::built_in("web_search").expect("built in"),
        };
        let rate = read_arrival_rate(f)?;
        let load: Option<f64> = f.opt(
            "load",
            "target load of load_link, in (0, 1]: arrival_rate = load x link rate / (8 x mean flow size)",
        )?;
        let link: Option<String> = f.opt("load_link", "the link direction (name or A->B) whose load is given")?;
        let arrivals = match (rate, load, link) {
            _ if f.is_catalogue() => Arrivals::Rate(1.0),
            (Some(r), None, None) => {
                f.ensure(r > 0.0 && r.is_finite(), "arrival_rate", format!("{r} is not a rate (allowed: above 0)"))?;
                // More than one arrival per tick of the nanosecond clock cannot be represented.
                f.ensure(
                    r <= 1e9,
                    "arrival_rate",
                    format!("{r:e} flows per second is more than one per nanosecond, the clock's tick (at most 1e9)"),
                )?;
                Arrivals::Rate(r)
            }
            (None, Some(load), Some(link)) => {
                f.ensure(load > 0.0 && load <= 1.0, "load", format!("{load} is not a load (allowed: above 0, at most 1)"))?;
                Arrivals::Load { load, link }
            }
            (None, Some(_), None) => return Err(f.error("load_link", "is required with load: the link direction it loads")),
            (None, None, Some(_)) => return Err(f.error("load", "is required with load_link")),
            (Some(_), Some(_), _) | (Some(_), None, Some(_)) => {
                return Err(f.error("arrival_rate", "give arrival_rate or load (with load_link), not both"))
            }
            (None, None, None) => {
                return Err(f.error("arrival_rate", "is required, or load with load_link: how often flows arrive"))
            }
        };
        let matrix = read_matrix(f)?;
        let buckets = read_sizes(f, "buckets", "upper edges of the FCT summary's size buckets, rising (default: 10KB, 100KB, 1MB)")?
            .unwrap_or_else(|| DEFAULT_BUCKETS.to_vec());
        f.ensure(
            buckets.windows(2).all(|w| w[0] < w[1]) && buckets.first().is_none_or(|&b| b > 0),
            "buckets",
            "must rise, from above 0 bytes",
        )?;
        let arrivals_per_s = match arrivals {
            Arrivals::Rate(r) => r,
            Arrivals::Load { .. } => 0.0,
        };
        Ok(Params { common, sizes, arrivals, arrivals_per_s, matrix, buckets })
    }

    /// Resolve a load into flows per second, given the loaded link's rate (bit/s).
    pub fn resolve_load(&mut self, link_rate_bps: u64) {
        if let Arrivals::Load { load, .. } = self.arrivals {
            self.arrivals_per_s = load * link_rate_bps as f64 / (8.0 * self.sizes.mean());
        }
    }
}

/// `arrival_rate`: required unless `load` and `load_link` are given (the catalogue lists it as
/// required, with that said).
fn read_arrival_rate(f: &mut Fields) -> Result<Option<f64>> {
    use crate::conf::FromNode;
    let doc = "flows arriving per second (a Poisson process); required unless load and load_link are given";
    match f.documented("arrival_rate", &f64::unit(), true, doc) {
        None => Ok(None),
        Some(n) => f64::from_node(&n.val).map(Some).map_err(|m| f.error("arrival_rate", m)),
    }
}

/// A list of sizes (bytes), or nothing.
fn read_sizes(f: &mut Fields, key: &str, doc: &str) -> Result<Option<Vec<u64>>> {
    use crate::conf::{FromNode, Val};
    match f.documented(key, "list of sizes (bytes, or strings with B, KB, MB)", false, doc) {
        None => Ok(None),
        Some(n) => match &n.val {
            Val::Array(items) => items
                .iter()
                .map(|i| Bytes::from_node(&i.val).map(|b| b.0).map_err(|m| f.error(key, m)))
                .collect::<Result<Vec<u64>>>()
                .map(Some),
            v => Err(f.error(key, format!("expected a list of sizes, got {}", v.type_name()))),
        },
    }
}

/// `matrix`: a list of rows of non-negative weights, or nothing.
fn read_matrix(f: &mut Fields) -> Result<Option<Vec<Vec<f64>>>> {
    use crate::conf::{FromNode, Val};
    let doc = "weights of the (source, destination) pairs: a row per source, a column per destination, in the \
               order src and dst list them (default: every pair of distinct nodes alike)";
    let Some(node) = f.documented("matrix", "list of lists of numbers", false, doc) else { return Ok(None) };
    let Val::Array(rows) = &node.val else {
        return Err(f.error("matrix", format!("expected a list of rows, got {}", node.val.type_name())));
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Val::Array(cells) = &row.val else {
            return Err(f.error("matrix", format!("expected rows of numbers, got {}", row.val.type_name())));
        };
        let mut r = Vec::with_capacity(cells.len());
        for c in cells {
            let w = f64::from_node(&c.val).map_err(|m| f.error("matrix", m))?;
            if w < 0.0 {
                return Err(f.error("matrix", format!("weight {w} is negative")));
            }
            r.push(w);
        }
        out.push(r);
    }
    Ok(Some(out))
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, pair_weights: &[f64]) -> (AnyAgent, AnyAgent) {
        let total: f64 = pair_weights.iter().sum();
        let mut acc = 0.0;
        let cumulative = pair_weights
            .iter()
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        let gen = Generator {
            sizes: self.sizes.clone(),
            mean_gap_ns: 1e9 / self.arrivals_per_s,
            cumulative,
            when,
            rng,
            ids,
        };
        (AnyAgent::Other(Box::new(gen)), AnyAgent::Sink(Sink))
    }
    fn mean_packet_size(&self) -> f64 {
        self.common.packet_size as f64
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.common.packet_size as u64, Some(self.common.ack_size as u64))
    }
    /// The offered data rate.
    fn demand_bps(&self) -> f64 {
        self.arrivals_per_s * self.sizes.mean() * 8.0
    }
    fn max_window(&self) -> Option<u32> {
        Some(self.common.max_window)
    }
    fn transport(&self) -> Transport {
        Transport::Tcp
    }
    fn wire(&self) -> Wire {
        super::tcp_wire(&self.common, None)
    }
    fn ecn_capable(&self) -> bool {
        self.common.ecn_capable()
    }
    fn spans_node_sets(&self) -> bool {
        true
    }
    fn connection(&self, ids: FlowIds, start: SimTime, bytes: u64) -> Option<(AnyAgent, AnyAgent)> {
        let when = Schedule { start, jitter: SimDuration(0), stop: None };
        Some((
            // No clock streams: a workload refuses random clock phases when read.
            AnyAgent::TcpSender(Sender::new(&self.common, Some(bytes), None, ids, when, None)),
            AnyAgent::TcpReceiver(Receiver::new(&self.common, ids, false, None)),
        ))
    }
    fn ideal_fct_ns(&self, fwd: &[Hop], rev: &[Hop], bytes: u64) -> u64 {
        let c = &self.common;
        ideal_fct_ns(fwd, rev, bytes, c.packet_size, c.header, c.ack_size, c.handshake)
    }
}

/// The arrival process: the workload's sender agent, which sends no packet itself but asks for
/// connections (see [`Outbox::connections`]).
struct Generator {
    sizes: SizeCdf,
    mean_gap_ns: f64,
    /// Cumulative probabilities of the endpoint pairs, the last 1.
    cumulative: Vec<f64>,
    when: Schedule,
    rng: SimRng,
    ids: FlowIds,
}

/// Its one timer: the next arrival.
const ARRIVAL: TimerKind = TimerKind(0);

impl Generator {
    fn schedule_next(&mut self, now: SimTime, out: &mut Outbox) {
        let gap = self.rng.exponential(self.mean_gap_ns).round() as u64;
        out.timers.push(TimerReq { at: now + SimDuration(gap.max(1)), kind: ARRIVAL, gen: 0 });
    }
}

impl Agent for Generator {
    /// The first flow comes one exponential gap after the start, like every later one.
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.schedule_next(now, out);
    }
    fn on_packet(&mut self, _now: SimTime, _pkt: &Packet, _out: &mut Outbox) {
        debug_assert!(false, "flow {}: a workload's generator receives no packet", self.ids.flow);
    }
    fn on_timer(&mut self, now: SimTime, _kind: TimerKind, _gen: u32, out: &mut Outbox) {
        if !self.when.active_at(now) {
            return;
        }
        let u = self.rng.uniform();
        let pair = self.cumulative.partition_point(|&c| c <= u).min(self.cumulative.len() - 1) as u32;
        let bytes = self.sizes.draw(&mut self.rng);
        out.connections.push(ConnectionReq { pair, bytes });
        self.schedule_next(now, out);
    }
}

/// One hop of a path as the ideal FCT sees it: its rate (bit/s) and propagation delay (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    pub rate_bps: u64,
    pub delay_ns: u64,
}

/// The ideal flow completion time of `bytes` of data over an empty network, ns: what the
/// sender would see if it could send the whole transfer at once (an unbounded window) and no
/// other packet were in the way. It is the time from the start (the SYN with `handshake`, else
/// the first data packet) to the arrival at the sender of the ACK of the last byte:
///
/// - with `handshake`, a SYN and a SYN-ACK of `ack_size` bytes cross the path and come back;
/// - the `n` data packets (full ones of `packet_size`, the last with the remainder plus the
///   header) leave back to back and cross the forward hops store-and-forward: packet `k`
///   finishes hop `h` at `max(finish(h-1, k) + delay(h-1), finish(h, k-1)) + its time at h`,
///   which for the `n - 1` full packets is `sum tx + (n - 2) max tx + sum delays` (a pipeline
///   is as slow as its slowest stage), and for the last one follows the recursion over hops;
/// - the ACK of `ack_size` bytes crosses the reverse hops.
///
/// Processing times are left out.
pub fn ideal_fct_ns(fwd: &[Hop], rev: &[Hop], bytes: u64, packet_size: u32, header: u32, ack_size: u32, handshake: bool) -> u64 {
    let crossing = |hops: &[Hop], size: u32| hops.iter().map(|h| tx_time_ns(size, h.rate_bps) + h.delay_ns).sum::<u64>();
    let opening = if handshake { crossing(fwd, ack_size) + crossing(rev, ack_size) } else { 0 };
    let mss = (packet_size - header) as u64;
    let n = bytes.div_ceil(mss).max(1);
    let last = (bytes - (n - 1) * mss) as u32 + header;
    // The n - 1 full packets finish hop h at sum_{j<=h} tx_j + (n - 2) max_{j<=h} tx_j +
    // sum_{j<h} d_j; the last one when both it has arrived and they have gone.
    let (mut sum_tx, mut max_tx, mut sum_d) = (0u64, 0u64, 0u64);
    let mut last_arrives = 0u64;
    for h in fwd {
        let tx = tx_time_ns(packet_size, h.rate_bps);
        sum_tx += tx;
        max_tx = max_tx.max(tx);
        let full_done = if n >= 2 { sum_tx + (n - 2) * max_tx + sum_d } else { 0 };
        last_arrives = last_arrives.max(full_done) + tx_time_ns(last, h.rate_bps) + h.delay_ns;
        sum_d += h.delay_ns;
    }
    opening + last_arrives + crossing(rev, ack_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MBPS_10: Hop = Hop { rate_bps: 10_000_000, delay_ns: 1_000_000 };

    #[test]
    fn ideal_fct_of_one_packet_is_its_round_trip() {
        // 1000 data bytes + 40 of header: 832 us per 10 Mbps hop, 1 ms of propagation; the
        // 40-byte ACK 32 us per hop.
        let fwd = [MBPS_10, MBPS_10];
        let rev = [MBPS_10, MBPS_10];
        let t = ideal_fct_ns(&fwd, &rev, 1000, 1500, 40, 40, false);
        assert_eq!(t, 2 * (832_000 + 1_000_000) + 2 * (32_000 + 1_000_000));
        let with_handshake = ideal_fct_ns(&fwd, &rev, 1000, 1500, 40, 40, true);
        assert_eq!(with_handshake - t, 4 * (32_000 + 1_000_000), "a SYN and a SYN-ACK more");
    }

    #[test]
    fn ideal_fct_of_many_packets_is_paced_by_the_slowest_hop() {
        // 100 full packets over a 100 Mbps hop then a 10 Mbps one: the last leaves the fast
        // hop long before the slow one frees, so it finishes at (tx_fast + d) + 100 tx_slow.
        let fast = Hop { rate_bps: 100_000_000, delay_ns: 1_000_000 };
        let slow = Hop { rate_bps: 10_000_000, delay_ns: 0 };
        let t = ideal_fct_ns(&[fast, slow], &[], 146_000, 1500, 40, 40, false);
        assert_eq!(t, 120_000 + 1_000_000 + 100 * 1_200_000);
        // Checked against the packet-by-packet recursion it sums up, for a partial last packet.
        let hops = [fast, slow, Hop { rate_bps: 50_000_000, delay_ns: 300_000 }];
        for bytes in [1, 1459, 1460, 1461, 10_000, 99_999] {
            assert_eq!(ideal_fct_ns(&hops, &[], bytes, 1500, 40, 40, false), recursion(&hops, bytes, 1500, 40), "{bytes}");
        }
    }

    /// Packet by packet: finish(h, k) = max(finish(h-1, k) + d(h-1), finish(h, k-1)) + tx(h, k).
    fn recursion(hops: &[Hop], bytes: u64, packet_size: u32, header: u32) -> u64 {
        let mss = (packet_size - header) as u64;
        let n = bytes.div_ceil(mss).max(1) as usize;
        let sizes: Vec<u32> =
            (0..n).map(|k| if k + 1 < n { packet_size } else { (bytes - (n as u64 - 1) * mss) as u32 + header }).collect();
        let mut prev: Vec<u64> = vec![0; n]; // arrival times at the current hop
        for h in hops {
            let mut free = 0u64;
            for k in 0..n {
                free = prev[k].max(free) + tx_time_ns(sizes[k], h.rate_bps);
                prev[k] = free + h.delay_ns;
            }
        }
        prev[n - 1]
    }
}
