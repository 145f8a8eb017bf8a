//! Results of a run: the `aqmlab.results/1` JSON document, and the time series recorder
//! (`series.rs`), both read from a [`SimView`]. Keys are stable: add, never rename.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::qdisc::{DropReason, PerReason};
use crate::stats::fct::{percentile, summarise, FctBucket};
use crate::stats::gauges::GaugeAverage;
use crate::stats::FlowCounters;
use crate::units::SimTime;
use crate::view::{hops_by_flow, SimView};

mod series;
mod tables;

pub use series::{Columns, Series, SeriesRecorder};
pub use tables::Selection;

pub const FORMAT: &str = "aqmlab.results/1";

/// One run's results: the `aqmlab.results/1` document.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// What was run and what it cost: the document's scalar keys, first.
    #[serde(flatten)]
    pub run: RunInfo,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub fairness: Fairness,
    pub series: Series,
    /// Each workload's flow completion times by size bucket (absent when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<WorkloadResult>,
    /// One row per connection a workload opened: too many for the document, a table (see
    /// [`Results::connection_table`]).
    #[serde(skip)]
    pub connections: Vec<ConnectionResult>,
}

/// One workload's summary.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadResult {
    pub name: String,
    /// Arrivals per second, and the data rate they offer (arrivals x mean size), bit/s.
    pub arrivals_per_s: f64,
    pub mean_size_bytes: f64,
    pub offered_bps: f64,
    /// Connections opened in the window, and how many of them finished.
    pub opened: u64,
    pub finished: u64,
    pub unfinished: u64,
    /// FCT and slowdown by size bucket, the last over every size.
    pub buckets: Vec<FctBucket>,
}

/// One connection of a workload.
#[derive(Clone, Debug, Serialize)]
pub struct ConnectionResult {
    pub workload: String,
    pub src: String,
    pub dst: String,
    pub bytes: u64,
    pub start_s: f64,
    /// `None` (NaN in the table): not finished by the end of the run.
    pub finish_s: Option<f64>,
    pub fct_s: Option<f64>,
    pub ideal_fct_s: f64,
    pub slowdown: Option<f64>,
    pub retransmits: u32,
    pub timeouts: u32,
    pub drops: u32,
    pub marks: u32,
    /// Opened inside the measurement window (the ones the summary counts).
    pub in_window: bool,
}

/// The scalar keys of the results: the run, its seed, its window and its cost.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    pub format: &'static str,
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub measure_from_s: f64,
    pub events: u64,
    /// The most events pending at once in the event queue.
    pub peak_pending_events: u64,
    /// Wall time from the end of the build to these results, building them included.
    pub wall_s: f64,
    /// Wall time in the event loop alone (the benchmarks' time per simulated packet; with
    /// 10000 flows, building the per-link, per-flow results adds a fifth to it).
    pub loop_wall_s: f64,
    pub aqmlab_version: &'static str,
    /// What the run did that the scenario may not mean ([`Scenario::warnings`]), one line each.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    pub name: Arc<str>,
    pub kind: &'static str,
    pub group: Option<String>,
    pub src: Arc<str>,
    pub dst: Arc<str>,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub goodput_bytes: u64,
    pub throughput_bps: f64,
    pub goodput_bps: f64,
    pub dropped_pkts: u64,
    pub drops_by_reason: ReasonCounts,
    pub ack_drops: u64,
    pub marks: u64,
    /// Marks by reason (`codel`, `early`, `ce_threshold`, ...), as `drops_by_reason`.
    pub marks_by_reason: ReasonCounts,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub mean_rtt_s: Option<f64>,
    /// Mean over the data packets acknowledged in the window of the time from each one's first
    /// transmission to the ACK that covered it (TCP).
    pub mean_packet_rtt_s: Option<f64>,
    pub mean_qdelay_s: Option<f64>,
    pub mean_delay_s: Option<f64>,
    pub mean_app_delay_s: Option<f64>,
    pub sd_app_delay_s: Option<f64>,
    pub completion_s: Option<f64>,
    /// Whole-run counts (not windowed): sent = delivered + dropped + in flight.
    pub total_sent_pkts: u64,
    pub total_delivered_pkts: u64,
    pub total_dropped_pkts: u64,
    pub in_flight_pkts: u64,
    /// The distribution of the round-trip samples, for a flow that keeps them (a probe, a
    /// traced flow): median, 95th and 99th percentiles (numpy's interpolation) and largest, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p50_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p95_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p99_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_max_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkFlowResult {
    pub flow: Arc<str>,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub marks: u64,
    pub mean_qdelay_s: Option<f64>,
    pub sd_qdelay_s: Option<f64>,
    pub overflow_arrivals: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    pub name: String,
    pub from: Arc<str>,
    pub to: Arc<str>,
    pub discipline: &'static str,
    pub rate_bps: u64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops_by_reason: ReasonCounts,
    pub dropped_pkts: u64,
    pub marks: u64,
    pub marks_by_reason: ReasonCounts,
    pub mean_queue_pkts: f64,
    pub mean_queue_bytes: f64,
    pub max_queue_pkts: u64,
    /// Packets waiting at the end of the run.
    pub queue_pkts_end: u64,
    pub mean_qdelay_s: Option<f64>,
    pub utilization: f64,
    /// Time average over the window of each gauge of the discipline (`avg`, `flows_estimate`,
    /// ...), for the links listed in `[trace] links` (empty for the others). A gauge that is
    /// undefined for part of the window (SRED's `flows_estimate` while P = 0) is averaged over
    /// the time it is defined.
    pub gauges: BTreeMap<&'static str, f64>,
    pub flows: Vec<LinkFlowResult>,
}

/// Counts by reason (`overflow`, `early`, ...), the non-zero ones in name order, as the
/// document's `drops_by_reason` and `marks_by_reason` maps. A short list rather than a BTreeMap,
/// whose first node alone took 320 bytes per flow (32 MB at 100,000 flows) for one or two
/// reasons; serialised as the same map.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ReasonCounts(Vec<(&'static str, u64)>);

impl ReasonCounts {
    /// The non-zero counts of `counts`.
    pub fn of(counts: &PerReason) -> ReasonCounts {
        let mut by_name: Vec<(&'static str, u64)> =
            DropReason::ALL.iter().filter(|r| counts.get(**r) > 0).map(|r| (r.as_str(), counts.get(*r))).collect();
        by_name.sort_unstable_by_key(|&(name, _)| name);
        ReasonCounts(by_name)
    }
    pub fn get(&self, reason: &str) -> Option<&u64> {
        self.0.iter().find(|(name, _)| *name == reason).map(|(_, n)| n)
    }
    pub fn keys(&self) -> impl Iterator<Item = &&'static str> + '_ {
        self.0.iter().map(|(name, _)| name)
    }
    pub fn values(&self) -> impl Iterator<Item = &u64> + '_ {
        self.0.iter().map(|(_, n)| n)
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&&'static str, &u64)> + '_ {
        self.0.iter().map(|(name, n)| (name, n))
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The count of a reason, as a map's index: panics when the reason has none.
impl std::ops::Index<&str> for ReasonCounts {
    type Output = u64;
    fn index(&self, reason: &str) -> &u64 {
        self.get(reason).unwrap_or_else(|| panic!("no count for the reason {reason:?}"))
    }
}

/// Counts given by hand (tests), put in name order.
impl<const N: usize> From<[(&'static str, u64); N]> for ReasonCounts {
    fn from(counts: [(&'static str, u64); N]) -> ReasonCounts {
        let mut by_name = counts.to_vec();
        by_name.sort_unstable_by_key(|&(name, _)| name);
        ReasonCounts(by_name)
    }
}

impl std::fmt::Debug for ReasonCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for ReasonCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Fairness {
    /// Jain's index over the throughput of every flow.
    pub jain: Option<f64>,
    /// Jain's index within each group.
    pub groups: BTreeMap<String, f64>,
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); `None` for no values or all zero.
pub fn jain(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (n * s2))
    }
}

fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

fn sd(sum: f64, sum_sq: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| {
        let m = sum / n as f64;
        (sum_sq / n as f64 - m * m).max(0.0).sqrt()
    })
}

/// The results of `sim` with the window ending at `end`, and the time series recorded.
pub fn build(sim: &impl SimView, end: SimTime, series: Series) -> Results {
    let sc = sim.scenario();
    let measure_from = sim.measure_from();
    let window_s = end.saturating_since(measure_from).ns() as f64 * 1e-9;
    let per_s = |x: f64| if window_s > 0.0 { x / window_s } else { 0.0 };
    // Names shared by the rows that repeat them, one allocation each (at 100,000 flows a copy per
    // row was 700,000 allocations, most of building the results).
    let node_names: Vec<Arc<str>> = sc.nodes.iter().map(|n| Arc::from(n.as_str())).collect();
    let node = |i: u32| Arc::clone(&node_names[i as usize]);
    let flow_names: Vec<Arc<str>> = sc.flows.iter().map(|f| Arc::from(f.name.as_str())).collect();
    let in_flight = sim.in_flight_by_flow();
    let flows: Vec<FlowResult> = sc
        .flows
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let s = sim.flow_window(i);
            let total = sim.flow_counts(i);
            let sent = FlowCounters::data(&s.sent);
            let delivered = FlowCounters::data(&s.delivered);
            let app = sim.app_delays(i);
            let mut rtts: Vec<f64> =
                sim.rtt_samples(i).unwrap_or_default().iter().map(|&(_, r)| r.ns() as f64 * 1e-9).collect();
            rtts.sort_by(f64::total_cmp);
            FlowResult {
                name: Arc::clone(&flow_names[i]),
                kind: spec.params.name(),
                group: spec.group.clone(),
                // A workload's endpoints as written (its node sets).
                src: spec.endpoints.as_ref().map_or_else(|| node(spec.src), |(s, _)| Arc::from(s.as_str())),
                dst: spec.endpoints.as_ref().map_or_else(|| node(spec.dst), |(_, d)| Arc::from(d.as_str())),
                sent_pkts: sent.pkts,
                sent_bytes: sent.bytes,
                delivered_pkts: delivered.pkts,
                delivered_bytes: delivered.bytes,
                goodput_bytes: s.goodput_bytes,
                throughput_bps: per_s(delivered.bytes as f64 * 8.0),
                goodput_bps: per_s(s.goodput_bytes as f64 * 8.0),
                dropped_pkts: s.data_drops.total(),
                drops_by_reason: ReasonCounts::of(&s.data_drops),
                ack_drops: FlowCounters::acks(&s.dropped).pkts,
                marks: s.marks.total(),
                marks_by_reason: ReasonCounts::of(&s.marks.dense()),
                retransmits: s.retransmits,
                timeouts: s.timeouts.into(),
                fast_retransmits: s.fast_retransmits.into(),
                mean_rtt_s: mean(s.rtt_ns as f64 * 1e-9, s.rtt_samples),
                mean_packet_rtt_s: mean(s.packet_rtt_ns as f64 * 1e-9, s.packets_acked),
                mean_qdelay_s: mean(s.qdelay_ns as f64 * 1e-9, delivered.pkts),
                mean_delay_s: mean(s.delay_ns as f64 * 1e-9, delivered.pkts),
                mean_app_delay_s: mean(app.sum_ns as f64 * 1e-9, app.samples),
                sd_app_delay_s: sd(app.sum_ns as f64 * 1e-9, app.sum_sq_s2, app.samples),
                completion_s: sim.completed_at(i).map(|t| t as f64 * 1e-9),
                total_sent_pkts: FlowCounters::data(&total.sent).pkts,
                total_delivered_pkts: FlowCounters::data(&total.delivered).pkts,
                total_dropped_pkts: FlowCounters::data(&total.dropped).pkts,
                in_flight_pkts: in_flight[i],
                rtt_p50_s: percentile(&rtts, 50.0),
                rtt_p95_s: percentile(&rtts, 95.0),
                rtt_p99_s: percentile(&rtts, 99.0),
                rtt_max_s: rtts.last().copied(),
            }
        })
        .collect();

    // Which (flow, hop) pairs cross each link direction, link by link in one array (a vector per
    // link was 200,000 allocations at 100,000 flows). Within a link they come flow by flow, in
    // increasing flow order, as `hops_by_flow` walks them.
    let mut crossing_start = vec![0usize; sc.links.len() + 1];
    for (_, _, l) in hops_by_flow(sc) {
        crossing_start[l as usize + 1] += 1;
    }
    for l in 0..sc.links.len() {
        crossing_start[l + 1] += crossing_start[l];
    }
    let mut crossing = vec![(0usize, 0usize); crossing_start[sc.links.len()]];
    let mut filled = crossing_start.clone();
    for (fi, hop, l) in hops_by_flow(sc) {
        crossing[filled[l as usize]] = (fi, hop);
        filled[l as usize] += 1;
    }
    drop(filled);
    let links = sc
        .links
        .iter()
        .enumerate()
        .map(|(li, spec)| {
            let s = sim.link_window(li);
            let integrals = sim.link_integrals(li);
            let here = &crossing[crossing_start[li]..crossing_start[li + 1]];
            // The flows crossing it, in flow order, each with the sum over its hops here.
            // At most one entry per crossing (a flow crosses a link once, but for a loop).
            let mut per_flow: Vec<LinkFlowResult> = Vec::with_capacity(here.len());
            let mut at = 0;
            while at < here.len() {
                let fi = here[at].0;
                let mut e = LinkFlowResult {
                    flow: Arc::clone(&flow_names[fi]),
                    arrivals: 0,
                    departures: 0,
                    drops: 0,
                    marks: 0,
                    mean_qdelay_s: None,
                    sd_qdelay_s: None,
                    overflow_arrivals: 0,
                };
                let (mut sum_ns, mut sq, mut n) = (0u64, 0f64, 0u64);
                while at < here.len() && here[at].0 == fi {
                    let h = sim.hops().window(here[at].1);
                    e.arrivals += h.arrivals;
                    e.departures += h.departures;
                    e.drops += h.drops;
                    e.marks += h.marks;
                    e.overflow_arrivals += h.overflow_arrivals;
                    sum_ns += h.qdelay_ns;
                    sq += h.qdelay_sq_s2;
                    n += h.departures;
                    at += 1;
                }
                // Flows with any count in the window (a packet that arrived before warmup may leave after it).
                if e.arrivals + e.departures + e.drops > 0 {
                    e.mean_qdelay_s = mean(sum_ns as f64 * 1e-9, n);
                    e.sd_qdelay_s = sd(sum_ns as f64 * 1e-9, sq, n);
                    per_flow.push(e);
                }
            }
            per_flow.shrink_to_fit();
            let window_ns = end.saturating_since(measure_from).ns().max(1) as f64;
            LinkResult {
                name: spec.name.clone(),
                from: node(spec.from),
                to: node(spec.to),
                discipline: spec.queue.name(),
                rate_bps: spec.rate_bps,
                arrivals: s.offered.pkts,
                departures: s.transmitted.pkts,
                drops_by_reason: ReasonCounts::of(&s.drops.dense()),
                dropped_pkts: s.drops.total(),
                marks: s.marks.total(),
                marks_by_reason: ReasonCounts::of(&s.marks.dense()),
                mean_queue_pkts: integrals.area_pkts as f64 / window_ns,
                mean_queue_bytes: integrals.area_bytes as f64 / window_ns,
                max_queue_pkts: integrals.max_len as u64,
                queue_pkts_end: sim.queue(li).len() as u64,
                mean_qdelay_s: mean(s.qdelay_ns as f64 * 1e-9, s.transmitted.pkts),
                utilization: integrals.busy_ns as f64 / window_ns,
                gauges: sim.link_gauges(li).map(GaugeAverage::means).unwrap_or_default(),
                flows: per_flow,
            }
        })
        .collect();
    drop(crossing);

    let throughputs: Vec<f64> = flows.iter().map(|f| f.throughput_bps).collect();
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for f in &flows {
        if let Some(g) = &f.group {
            groups.entry(g.clone()).or_default().push(f.throughput_bps);
        }
    }
    let (workloads, connections) = workload_results(sim, end);
    let mut series = series;
    for (i, f) in sc.flows.iter().enumerate() {
        if let Some(samples) = sim.rtt_samples(i) {
            let mut c =
                Columns { t_s: samples.iter().map(|&(t, _)| t.ns() as f64 * 1e-9).collect(), ..Columns::default() };
            c.values.insert("rtt_s".into(), samples.iter().map(|&(_, r)| r.ns() as f64 * 1e-9).collect());
            series.rtt.insert(f.name.clone(), c);
        }
    }
    Results {
        run: RunInfo {
            format: FORMAT,
            scenario: sc.name.clone(),
            seed: sim.seed(),
            sim_time_s: end.ns() as f64 * 1e-9,
            measure_from_s: measure_from.ns() as f64 * 1e-9,
            events: sim.events(),
            peak_pending_events: sim.peak_pending_events(),
            wall_s: sim.wall_s(),
            loop_wall_s: sim.loop_wall_s(),
            aqmlab_version: env!("CARGO_PKG_VERSION"),
            warnings: sc.warnings(),
        },
        flows,
        links,
        fairness: Fairness {
            jain: jain(&throughputs),
            groups: groups.into_iter().filter_map(|(g, xs)| jain(&xs).map(|j| (g, j))).collect(),
        },
        series,
        workloads,
        connections,
    }
}

/// The workloads' summaries and their connections' rows.
fn workload_results(sim: &impl SimView, end: SimTime) -> (Vec<WorkloadResult>, Vec<ConnectionResult>) {
    let sc = sim.scenario();
    let from = sim.measure_from();
    let records = sim.connections();
    let s = |ns: u64| ns as f64 * 1e-9;
    let connections = records
        .iter()
        .map(|r| ConnectionResult {
            workload: sc.flows[r.workload as usize].name.clone(),
            src: sc.nodes[r.src as usize].clone(),
            dst: sc.nodes[r.dst as usize].clone(),
            bytes: r.bytes,
            start_s: s(r.start.ns()),
            finish_s: r.finish.map(|t| s(t.ns())),
            fct_s: r.fct().map(|d| s(d.ns())),
            ideal_fct_s: s(r.ideal_ns),
            slowdown: r.slowdown(),
            retransmits: r.retransmits,
            timeouts: r.timeouts,
            drops: r.drops,
            marks: r.marks,
            in_window: (from..end).contains(&r.start),
        })
        .collect();
    let workloads = sc
        .flows
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match &*f.params {
            crate::app::FlowParams::Workload(w) => Some((i, w)),
            _ => None,
        })
        .map(|(i, w)| {
            let mine = records.iter().filter(move |r| r.workload as usize == i && (from..end).contains(&r.start));
            let buckets = summarise(mine.clone(), &w.buckets);
            let all = buckets.last().expect("the summary ends with every size");
            WorkloadResult {
                name: sc.flows[i].name.clone(),
                arrivals_per_s: w.arrivals_per_s,
                mean_size_bytes: w.sizes.mean(),
                offered_bps: w.arrivals_per_s * w.sizes.mean() * 8.0,
                opened: all.flows,
                finished: all.finished,
                unfinished: all.unfinished,
                buckets,
            }
        })
        .collect();
    (workloads, connections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_counts_serialise_as_the_map_of_the_non_zero_counts() {
        let mut counts = PerReason::default();
        for (reason, n) in [(DropReason::Overflow, 3), (DropReason::Early, 2), (DropReason::Forced, 1)] {
            for _ in 0..n {
                counts.add(reason);
            }
        }
        let list = ReasonCounts::of(&counts);
        let map = counts.to_map();
        assert_eq!(serde_json::to_string(&list).unwrap(), serde_json::to_string(&map).unwrap());
        assert_eq!(format!("{list:?}"), format!("{map:?}"));
        assert_eq!(list.get("early"), Some(&2));
        assert_eq!(list.get("codel"), None);
        assert_eq!(serde_json::to_string(&ReasonCounts::default()).unwrap(), "{}");
    }

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), Some(1.0));
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }
}
