//! The `[trace]` section: time series, pcap files and the packet log.

use super::budget;
use super::overrides::glob_match;
use super::{list_of_strings, Builder, FlowSpec, TraceSpec};
use crate::conf::{Duration, Fields, Origin, Result, Table};
/// A line of the packet log, bytes, for the size estimate (a measured mean is about 50).
const BYTES_PER_LOG_LINE: f64 = 60.0;

/// The flows `names` (names or globs; "all" for every flow) pick, each once, in order.
pub(super) fn match_flows(f: &Fields, key: &str, names: &[String], flows: &[FlowSpec]) -> Result<Vec<u32>> {
    let mut ids: Vec<u32> = Vec::new();
    let mut seen = vec![false; flows.len()];
    for n in names {
        let pattern = if n == "all" { "*" } else { n.as_str() };
        let matching: Vec<u32> =
            (0..flows.len() as u32).filter(|&id| glob_match(pattern, &flows[id as usize].name)).collect();
        if matching.is_empty() {
            let hint = crate::suggest::did_you_mean(n, flows.iter().map(|fl| fl.name.as_str()));
            return Err(f.error(key, format!("no flow named '{n}'{hint}")));
        }
        for id in matching {
            if !std::mem::replace(&mut seen[id as usize], true) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// The keys of `[trace]`.
pub(super) struct TraceKeys {
    interval: Option<Duration>,
    links: Vec<String>,
    flows: Vec<String>,
    queue_by_flow: bool,
    rtt_samples: bool,
    pcap: Vec<String>,
    packets: Vec<String>,
    packets_flows: Vec<String>,
    packets_from: Duration,
    packets_to: Option<Duration>,
    packets_limit: crate::conf::Bytes,
    series_limit: u64,
    pcap_limit: crate::conf::Bytes,
}

/// Read the keys of `[trace]` (in catalogue mode: document them).
pub(super) fn read_trace_keys(f: &mut Fields) -> Result<TraceKeys> {
    let interval: Option<Duration> =
        f.opt("interval", "sampling interval of the time series (required with links or flows)")?;
    f.ensure(interval.is_none_or(|d| d.0 > 0), "interval", "must be above 0")?;
    let links = list_of_strings(
        f,
        "links",
        "link directions whose time series to record (names, A->B, or globs such as \"b*\")",
    )?;
    let flows = list_of_strings(
        f,
        "flows",
        "flows whose time series to record (names or globs such as \"tcp*\"; \"all\" for every flow)",
    )?;
    let queue_by_flow: bool = f.or("queue_by_flow", false, "record each flow's packets in each traced queue")?;
    let rtt_samples: bool = f.or(
        "rtt_samples",
        false,
        "keep every round-trip sample of the traced flows: their RTT percentiles in the flow results and \
         series.rtt (ping flows always keep theirs)",
    )?;
    let pcap = list_of_strings(
        f,
        "pcap",
        "link directions to capture, one pcap file each in the traces folder (aqmlab run --traces DIR), with synthesised IPv4 and TCP/UDP headers",
    )?;
    let packets = list_of_strings(
        f,
        "packets",
        "link directions whose packet events (enqueue, dequeue, drop with reason, mark) go to packets.parquet in the traces folder",
    )?;
    let packets_flows =
        list_of_strings(f, "packets_flows", "log only these flows' packets (names or globs; default: every flow)")?;
    let packets_from: Duration = f.or("packets_from", Duration(0), "log packet events from this time")?;
    let packets_to: Option<Duration> = f.opt("packets_to", "log packet events before this time (default: the end)")?;
    let packets_limit = f.or(
        "packets_limit",
        crate::conf::Bytes(1_000_000_000),
        "refuse a packet log whose estimated size (links busy throughout) is larger, bytes",
    )?;
    let series_limit: u64 = f.or(
        "series_limit",
        budget::DEFAULT_SERIES_VALUES,
        "refuse time series that would hold more values than this (samples x columns, all traced links and flows \
         together; 8 bytes each in memory, more as JSON)",
    )?;
    let pcap_limit = f.or(
        "pcap_limit",
        crate::conf::Bytes(budget::DEFAULT_PCAP_BYTES),
        "refuse pcap captures whose estimated size (links busy throughout, 76 bytes a packet) is larger, bytes",
    )?;
    Ok(TraceKeys {
        series_limit,
        pcap_limit,
        interval,
        links,
        flows,
        queue_by_flow,
        rtt_samples,
        pcap,
        packets,
        packets_flows,
        packets_from,
        packets_to,
        packets_limit,
    })
}

impl Builder<'_> {
    pub(super) fn read_trace(
        &self,
        t: &Table,
        at: Origin,
        flows: &[FlowSpec],
        duration: u64,
        budgets: &mut budget::Budgets,
    ) -> Result<TraceSpec> {
        let mut f = Fields::new(self.src, "trace", t, at);
        let keys = read_trace_keys(&mut f)?;
        budgets.series_values = keys.series_limit;
        budgets.pcap_bytes = keys.pcap_limit.0;
        budgets.origins[0] = f.origin("series_limit");
        budgets.origins[1] = f.origin("pcap_limit");
        let links = self.match_links(&f, "links", &keys.links)?;
        let flow_ids = match_flows(&f, "flows", &keys.flows, flows)?;
        let pcap = self.match_links(&f, "pcap", &keys.pcap)?;
        let packets = self.match_links(&f, "packets", &keys.packets)?;
        let packets_flows = match_flows(&f, "packets_flows", &keys.packets_flows, flows)?;
        let series_asked = !links.is_empty() || !flow_ids.is_empty();
        f.ensure(
            keys.interval.is_some() || !series_asked,
            "interval",
            "is required to record time series (links, flows): add interval = \"100ms\", say",
        )?;
        // Options that only qualify another would do nothing alone, silently: refused instead.
        let written = |key: &str| f.origin(key) != f.origin("");
        let qualifiers = [
            ("interval", written("interval"), series_asked, "samples the traced links and flows: add links or flows"),
            (
                "queue_by_flow",
                keys.queue_by_flow,
                !links.is_empty(),
                "counts each flow's packets in the traced links' queues: add links",
            ),
            (
                "rtt_samples",
                keys.rtt_samples,
                !flow_ids.is_empty(),
                "keeps the round trips of the traced flows: add flows",
            ),
            (
                "packets_flows",
                written("packets_flows"),
                !packets.is_empty(),
                "selects what the packet log keeps: add packets",
            ),
            ("packets_from", written("packets_from"), !packets.is_empty(), "starts the packet log: add packets"),
            ("packets_to", written("packets_to"), !packets.is_empty(), "ends the packet log: add packets"),
        ];
        // Said after the unknown keys (f.finish): a misspelt `links` is the better answer.
        let alone = qualifiers
            .iter()
            .find(|(_, set, needed, _)| *set && !*needed && !f.is_catalogue())
            .map(|(key, _, _, what)| f.error(key, format!("{what} (alone it would do nothing)")));
        let to = keys.packets_to.map(|d| d.0).unwrap_or(duration);
        f.ensure(to > keys.packets_from.0, "packets_to", "must be after packets_from")?;
        if !packets.is_empty() {
            // Each packet crossing a logged link gives at most an enqueue, a dequeue and a drop or
            // mark line; a busy link sends rate / (8 x smallest packet) packets a second.
            let window_s = (to.min(duration) - keys.packets_from.0.min(duration)) as f64 * 1e-9;
            let mut smallest = vec![u64::MAX; self.links.len()];
            for fl in flows {
                let (data, ack) = fl.params.kind().largest_packets();
                for l in fl.data_links() {
                    smallest[l as usize] = smallest[l as usize].min(data);
                }
                for l in fl.ack_links().filter(|_| ack.is_some()) {
                    smallest[l as usize] = smallest[l as usize].min(ack.unwrap_or(u64::MAX));
                }
            }
            let lines: f64 = packets
                .iter()
                .filter(|&&l| smallest[l as usize] != u64::MAX)
                .map(|&l| 3.0 * self.links[l as usize].rate_bps as f64 * window_s / (8.0 * smallest[l as usize] as f64))
                .sum();
            let estimate = lines * BYTES_PER_LOG_LINE;
            f.ensure(
                estimate <= keys.packets_limit.0 as f64,
                "packets",
                format!(
                    "the packet log could reach {:.0} MB ({:.2e} lines with the links busy throughout), above \
                     packets_limit ({} MB): raise trace.packets_limit, or log less with packets_flows, \
                     packets_from and packets_to",
                    estimate / 1e6,
                    lines,
                    keys.packets_limit.0 / 1_000_000
                ),
            )?;
        }
        f.finish()?;
        if let Some(e) = alone {
            return Err(e);
        }
        Ok(TraceSpec {
            interval: if series_asked { keys.interval.map(|d| d.0) } else { None },
            links,
            flows: flow_ids,
            queue_by_flow: keys.queue_by_flow,
            rtt_samples: keys.rtt_samples,
            pcap,
            packets,
            packets_flows,
            packets_from: keys.packets_from.0,
            packets_to: keys.packets_to.map(|d| d.0),
        })
    }

    /// The link directions `names` (names, `A->B`, or globs) pick, each once, in order.
    pub(super) fn match_links(&self, f: &Fields, key: &str, names: &[String]) -> Result<Vec<u32>> {
        let mut links: Vec<u32> = Vec::new();
        let mut seen = vec![false; self.links.len()];
        for n in names {
            let matching: Vec<u32> = (0..self.links.len() as u32)
                .filter(|&id| {
                    let l = &self.links[id as usize];
                    let direction = format!("{}->{}", self.nodes[l.from as usize], self.nodes[l.to as usize]);
                    glob_match(n, &l.name) || glob_match(n, &direction)
                })
                .collect();
            if matching.is_empty() {
                let hint = crate::suggest::did_you_mean(n, self.links.iter().map(|l| l.name.as_str()));
                return Err(f.error(key, format!("no link direction named '{n}'{hint}")));
            }
            for id in matching {
                if !std::mem::replace(&mut seen[id as usize], true) {
                    links.push(id);
                }
            }
        }
        Ok(links)
    }
}
