//! Budgets checked before any work (part of the scenario layer: the figures are the scenario's): estimates of what a scenario will record and hold, against
//! limits the scenario may raise (`[simulation]` and `[trace]` keys), so that a typo (an interval
//! of 1 ns, fq on thousands of links with a million flows, a capture of a 400 Gbps link for an
//! hour) is refused in one line by `aqmlab validate` instead of exhausting memory or disk mid-run.
//! Also the event-rate guard a run checks as it goes, and the memory probe made before a run.
//!
//! The estimates are upper bounds of the usual kind (links busy throughout, the smallest packets
//! their flows send), not exact counts.

use crate::conf::{Origin, Result, Source};
use crate::qdisc::QdiscParams;
use crate::scenario::Scenario;

/// The limits, as the scenario gives them or by default.
#[derive(Clone, Debug, PartialEq)]
pub struct Budgets {
    /// Values in all time series together (samples x columns), `trace.series_limit`.
    pub series_values: u64,
    /// Bytes of all pcap files together, `trace.pcap_limit`.
    pub pcap_bytes: u64,
    /// Per-flow entries of the flow-queueing disciplines' tables, all links together,
    /// `simulation.flow_state_limit`.
    pub flow_state_entries: u64,
    /// Events per simulated second, `simulation.max_event_rate`; `None`: derived from the links.
    pub event_rate: Option<u64>,
    /// Where series_limit, pcap_limit and flow_state_limit are written (or their table), for messages.
    pub origins: [Origin; 3],
}

pub const DEFAULT_SERIES_VALUES: u64 = 200_000_000;
pub const DEFAULT_PCAP_BYTES: u64 = 2_000_000_000;
pub const DEFAULT_FLOW_STATE_ENTRIES: u64 = 20_000_000;

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            series_values: DEFAULT_SERIES_VALUES,
            pcap_bytes: DEFAULT_PCAP_BYTES,
            flow_state_entries: DEFAULT_FLOW_STATE_ENTRIES,
            event_rate: None,
            origins: [Origin::Default, Origin::Default, Origin::Default],
        }
    }
}

/// Columns of a traced link's series besides `t_s` (queue lengths, delays, the discipline's own
/// state: at most a dozen), and of a traced flow's (rates, window, RTT).
const LINK_COLUMNS: u64 = 12;
const FLOW_COLUMNS: u64 = 10;
/// A pcap record: 16 bytes of record header and the synthesised IPv4 and TCP/UDP/ICMP headers.
const PCAP_RECORD_BYTES: u64 = 16 + 60;
/// Bytes of one entry of a per-flow table (a queue with its deficit, list links and AQM state).
const FLOW_ENTRY_BYTES: u64 = 128;
/// The smallest packet any flow sends, bytes: the rate bound of the event guard.
const SMALLEST_PACKET: u64 = 40;
/// Events and packets sent a packet may cause on one link direction (arrival, transmission end,
/// timers it arms), times the overload a flood experiment offers: the guard trips far beyond both.
const EVENTS_PER_CARRIED_PACKET: f64 = 1000.0;
/// Events per simulated second always allowed (start-up, timers of idle flows).
const EVENT_RATE_FLOOR: f64 = 1e6;
/// The guard looks once this many events and packets sent have run (a burst at time 0 of a
/// scenario with many flows is not a storm), then every 2^20 more.
pub const EVENT_RATE_FIRST_CHECK: u64 = 10_000_000;
pub const EVENT_RATE_CHECK_EVERY: u64 = 1 << 20;

/// Values the time series will hold: samples x (1 + columns) for each traced link and flow.
pub fn series_values(sc: &Scenario) -> u64 {
    let Some(iv) = sc.trace.interval else { return 0 };
    let samples = sc.duration_ns / iv.max(1) + 1;
    let per_flow_queue = if sc.trace.queue_by_flow { sc.flows.len() as u64 } else { 0 };
    let columns = sc.trace.links.len() as u64 * (1 + LINK_COLUMNS + per_flow_queue)
        + sc.trace.flows.len() as u64 * (1 + FLOW_COLUMNS);
    samples.saturating_mul(columns)
}

/// Smallest data (or ACK) packet crossing each link direction, bytes; `u64::MAX` where none does.
fn smallest_packets(sc: &Scenario) -> Vec<u64> {
    let mut smallest = vec![u64::MAX; sc.links.len()];
    for fl in &sc.flows {
        let (data, ack) = fl.params.kind().largest_packets();
        for l in fl.data_links() {
            smallest[l as usize] = smallest[l as usize].min(data.max(1));
        }
        if let Some(ack) = ack {
            for l in fl.ack_links() {
                smallest[l as usize] = smallest[l as usize].min(ack.max(1));
            }
        }
    }
    smallest
}

/// Bytes of the pcap files: one record per packet the captured links carry, busy throughout.
pub fn pcap_bytes(sc: &Scenario) -> f64 {
    let smallest = smallest_packets(sc);
    let seconds = sc.duration_ns as f64 * 1e-9;
    sc.trace
        .pcap
        .iter()
        .filter(|&&l| smallest[l as usize] != u64::MAX)
        .map(|&l| {
            let packets = sc.links[l as usize].rate_bps as f64 * seconds / (8.0 * smallest[l as usize] as f64);
            packets * PCAP_RECORD_BYTES as f64
        })
        .sum()
}

/// Entries of per-flow (or per-bucket) tables a discipline allocates on one link direction
/// (each discipline's own `flow_state_entries`).
pub fn flow_state_entries(q: &QdiscParams, n_flows: u64) -> u64 {
    q.flow_state_entries(n_flows.max(1))
}

/// The link direction with the largest per-flow table and the entries of all of them together.
fn flow_state(sc: &Scenario) -> (u64, Option<usize>) {
    let n = sc.flows.len() as u64;
    let mut total = 0u64;
    let mut largest: Option<(usize, u64)> = None;
    for (i, l) in sc.links.iter().enumerate() {
        let entries = flow_state_entries(&l.queue, n);
        total = total.saturating_add(entries);
        if entries > 0 && largest.is_none_or(|(_, e)| entries > e) {
            largest = Some((i, entries));
        }
    }
    (total, largest.map(|(i, _)| i))
}

fn with_commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn gigabytes(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else {
        format!("{:.0} MB", (bytes / 1e6).ceil())
    }
}

/// Refuse a scenario whose estimates exceed its budgets.
pub(crate) fn check(sc: &Scenario, src: &Source) -> Result<()> {
    let b = &sc.budgets;
    let values = series_values(sc);
    if values > b.series_values {
        let at = &b.origins[0];
        let samples = sc.duration_ns / sc.trace.interval.unwrap_or(1).max(1) + 1;
        return Err(src.error(
            at,
            "trace.series_limit",
            format!(
                "the time series would hold about {} values ({} link and {} flow series x {} samples, about {} in memory), \
                 above series_limit ({}): sample less often (interval), trace fewer links or flows, or raise trace.series_limit",
                with_commas(values),
                sc.trace.links.len(),
                sc.trace.flows.len(),
                with_commas(samples),
                gigabytes(values as f64 * 8.0),
                with_commas(b.series_values)
            ),
        ));
    }
    let pcap = pcap_bytes(sc);
    if pcap > b.pcap_bytes as f64 {
        let at = &b.origins[1];
        return Err(src.error(
            at,
            "trace.pcap_limit",
            format!(
                "the pcap files could reach {} ({} link directions busy throughout, a record of {PCAP_RECORD_BYTES} bytes a packet), \
                 above pcap_limit ({}): capture fewer links or a shorter run, or raise trace.pcap_limit",
                gigabytes(pcap),
                sc.trace.pcap.len(),
                gigabytes(b.pcap_bytes as f64)
            ),
        ));
    }
    let (entries, largest) = flow_state(sc);
    if entries > b.flow_state_entries {
        let l = &sc.links[largest.unwrap_or(0)];
        let per_link = flow_state_entries(&l.queue, sc.flows.len() as u64);
        return Err(src.error(
            &b.origins[2],
            &format!("link[{}].queue", crate::scenario::shown(&l.name)),
            format!(
                "{} keeps {} per-flow entries on this link direction ({} flows in the scenario); all flow-queueing \
                 disciplines together {} entries (about {}), above simulation.flow_state_limit ({}): hash flows into \
                 fewer queues (flows, buckets or divisor), use it on fewer links, or raise simulation.flow_state_limit",
                l.queue.name(),
                with_commas(per_link),
                with_commas(sc.flows.len() as u64),
                with_commas(entries),
                gigabytes(entries as f64 * FLOW_ENTRY_BYTES as f64),
                with_commas(b.flow_state_entries)
            ),
        ));
    }
    Ok(())
}

/// Events and packets sent per simulated second beyond which a run is a storm: as given, or
/// 1000 for every packet the link directions could carry at 40-byte packets, plus 10^6 and the
/// sampling rate.
pub fn event_rate_limit(sc: &Scenario) -> f64 {
    if let Some(rate) = sc.budgets.event_rate {
        return rate as f64;
    }
    let carried: f64 = sc.links.iter().map(|l| l.rate_bps as f64 / (8.0 * SMALLEST_PACKET as f64)).sum();
    let sampling = sc.trace.interval.map(|iv| 1e9 / iv.max(1) as f64).unwrap_or(0.0);
    EVENT_RATE_FLOOR + sampling + EVENTS_PER_CARRIED_PACKET * carried
}

/// The storm's message when `work` events and packets sent by simulated time `now_ns` exceed
/// the limit.
pub fn event_storm(sc: &Scenario, work: u64, now_ns: u64) -> Option<String> {
    let limit = event_rate_limit(sc);
    let rate = work as f64 / (now_ns.max(1) as f64 * 1e-9);
    (rate > limit).then(|| {
        format!(
            "stopped at {:.6} s: {work} events and packets sent, {rate:.2e} per simulated second, far beyond what the links carry \
             (simulation.max_event_rate {limit:.2e}{})",
            now_ns as f64 * 1e-9,
            if sc.budgets.event_rate.is_some() { "" } else { ", derived from the link rates" }
        )
    })
}

/// Bytes the run will hold at most for its series, per-flow tables, flows and links (an
/// estimate; packets alive are bounded by simulation.max_packets on their own).
pub fn memory_estimate(sc: &Scenario) -> u64 {
    const FLOW_BYTES: u64 = 4096;
    const LINK_BYTES: u64 = 1024;
    let (entries, _) = flow_state(sc);
    series_values(sc)
        .saturating_mul(8)
        .saturating_add(entries.saturating_mul(FLOW_ENTRY_BYTES))
        .saturating_add((sc.flows.len() as u64).saturating_mul(FLOW_BYTES))
        .saturating_add((sc.links.len() as u64).saturating_mul(LINK_BYTES))
}

/// The machine's memory and swap, bytes (Linux; `None` elsewhere).
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> Option<u64> {
        let line = info.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((kib("MemTotal:")? + kib("SwapTotal:").unwrap_or(0)) * 1024)
}

/// Refuse a run whose estimated memory exceeds the machine's memory and swap, then reserve it
/// at once and free it: an allocation the system refuses becomes this error instead of an
/// abort of the process midway (Rust aborts on a failed allocation; mmap may overcommit, so the
/// comparison with the machine comes first).
pub fn probe_memory(sc: &Scenario) -> std::result::Result<(), String> {
    let bytes = memory_estimate(sc);
    let refuse = || {
        format!(
            "cannot allocate the memory this run needs (about {}: time series, per-flow queue tables, flows and \
             links{}); lower the budgets' figures (trace, simulation.flow_state_limit) or use a larger machine",
            gigabytes(bytes as f64),
            machine_memory().map(|m| format!("; this machine has {}", gigabytes(m as f64))).unwrap_or_default()
        )
    };
    if machine_memory().is_some_and(|m| bytes > m) {
        return Err(refuse());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes as usize).map_err(|_| refuse())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commas_group_thousands() {
        assert_eq!(with_commas(0), "0");
        assert_eq!(with_commas(999), "999");
        assert_eq!(with_commas(1000), "1,000");
        assert_eq!(with_commas(20_000_000), "20,000,000");
    }
}
