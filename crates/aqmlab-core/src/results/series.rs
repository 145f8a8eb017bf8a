//! The time series of a run: every `trace.interval`, one sample per traced link (queue length,
//! drops and marks by reason, the discipline's gauges, each flow's packets queued) and per traced
//! flow (throughput, drops and marks, the sender's gauges), kept as columns.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::qdisc::{DropReason, PerReason};
use crate::scenario::Scenario;
use crate::stats::FlowCounters;
use crate::view::{hops_by_flow, SimView};

/// Columns of one traced object: a time column and named value columns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Columns {
    pub t_s: Vec<f64>,
    #[serde(flatten)]
    pub values: BTreeMap<String, Vec<f64>>,
}

impl Columns {
    fn push(&mut self, name: &str, v: f64) {
        let n = self.t_s.len();
        let col = self.values.entry(name.to_string()).or_insert_with(|| vec![f64::NAN; n - 1]);
        // A gauge that appears late is padded; one that disappears leaves NaN.
        col.resize(n - 1, f64::NAN);
        col.push(v);
    }
    /// A count over the interval: a column that appears late was 0 before (nothing counted).
    fn push_count(&mut self, name: &str, v: u64) {
        let n = self.t_s.len();
        let col = self.values.entry(name.to_string()).or_insert_with(|| vec![0.0; n - 1]);
        col.push(v as f64);
    }
    fn pad(&mut self) {
        let n = self.t_s.len();
        for col in self.values.values_mut() {
            col.resize(n, f64::NAN);
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Series {
    pub links: BTreeMap<String, Columns>,
    pub flows: BTreeMap<String, Columns>,
    /// Every round-trip sample of the flows that keep them (probes, traced flows): `t_s` when
    /// it was taken and `rtt_s`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rtt: BTreeMap<String, Columns>,
}

/// Samples the traced links and flows at the trace interval.
#[derive(Debug, Default)]
pub struct SeriesRecorder {
    links: Vec<(u32, Columns)>,
    flows: Vec<(u32, Columns)>,
    /// Total delivered bytes per traced flow at the previous sample.
    last_bytes: Vec<u64>,
    last_t: u64,
    gauges: Vec<(&'static str, f64)>,
    /// (flow, hop index) pairs per traced link, for per-flow occupancy.
    occupancy: Vec<Vec<(usize, usize)>>,
    /// Drops and marks so far per traced link, and per traced flow (its data's), at the
    /// previous sample.
    last_link_signals: Vec<[PerReason; 2]>,
    last_flow_signals: Vec<[PerReason; 2]>,
}

/// Push the drops and marks since `last` (their totals, and one column per reason seen so far
/// at this link or flow), then remember `now`.
fn push_signals(cols: &mut Columns, now: [PerReason; 2], last: &mut [PerReason; 2]) {
    for (k, what) in ["drops", "marks"].into_iter().enumerate() {
        cols.push_count(what, now[k].total() - last[k].total());
        for r in DropReason::ALL {
            if now[k].get(r) > 0 {
                cols.push_count(&format!("{what}:{}", r.as_str()), now[k].get(r) - last[k].get(r));
            }
        }
    }
    *last = now;
}

impl SeriesRecorder {
    pub fn new(sc: &Scenario) -> Self {
        let mut occupancy = vec![];
        if sc.trace.queue_by_flow {
            for &l in &sc.trace.links {
                occupancy
                    .push(hops_by_flow(sc).filter(|&(_, _, link)| link == l).map(|(fi, hop, _)| (fi, hop)).collect());
            }
        }
        SeriesRecorder {
            links: sc.trace.links.iter().map(|&l| (l, Columns::default())).collect(),
            flows: sc.trace.flows.iter().map(|&f| (f, Columns::default())).collect(),
            last_bytes: vec![0; sc.trace.flows.len()],
            last_t: 0,
            gauges: vec![],
            occupancy,
            last_link_signals: vec![[PerReason::default(); 2]; sc.trace.links.len()],
            last_flow_signals: vec![[PerReason::default(); 2]; sc.trace.flows.len()],
        }
    }

    /// Take a sample of every traced link and flow.
    pub fn record(&mut self, sim: &impl SimView, now: u64) {
        let t = now as f64 * 1e-9;
        for (k, (l, cols)) in self.links.iter_mut().enumerate() {
            let q = sim.queue(*l as usize);
            cols.t_s.push(t);
            cols.push("qlen_pkts", q.len() as f64);
            cols.push("qlen_bytes", q.bytes() as f64);
            let counts = sim.link_counts(*l as usize);
            push_signals(cols, [counts.drops.dense(), counts.marks.dense()], &mut self.last_link_signals[k]);
            self.gauges.clear();
            q.gauges(&mut self.gauges);
            for (name, v) in &self.gauges {
                cols.push(name, *v);
            }
            if let Some(pairs) = self.occupancy.get(k) {
                for &(fi, hi) in pairs {
                    cols.push(&format!("queued:{}", sim.scenario().flows[fi].name), sim.hops().queued(hi) as f64);
                }
            }
        }
        let dt = (now - self.last_t) as f64 * 1e-9;
        for (k, (f, cols)) in self.flows.iter_mut().enumerate() {
            let total = FlowCounters::data(&sim.flow_counts(*f as usize).delivered).bytes;
            cols.t_s.push(t);
            let bps = if dt > 0.0 { (total - self.last_bytes[k]) as f64 * 8.0 / dt } else { f64::NAN };
            cols.push("throughput_bps", bps);
            self.last_bytes[k] = total;
            let counts = sim.flow_counts(*f as usize);
            push_signals(cols, [counts.data_drops, counts.marks.dense()], &mut self.last_flow_signals[k]);
            self.gauges.clear();
            sim.sender_gauges(*f as usize, &mut self.gauges);
            for (name, v) in &self.gauges {
                cols.push(name, *v);
            }
        }
        self.last_t = now;
    }

    pub fn finish(&self, sc: &Scenario) -> Series {
        let mut series = Series::default();
        for (l, cols) in &self.links {
            let mut c = cols.clone();
            c.pad();
            series.links.insert(sc.links[*l as usize].name.clone(), c);
        }
        for (f, cols) in &self.flows {
            let mut c = cols.clone();
            c.pad();
            series.flows.insert(sc.flows[*f as usize].name.clone(), c);
        }
        series
    }
}
