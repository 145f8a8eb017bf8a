//! A read-only view of a running simulation: all that the results and the invariants read.
//!
//! [`crate::sim::Simulation`] implements it; [`crate::results`] and [`crate::invariants`] are
//! functions over it. So neither reads the simulation's fields, and the event loop uses both
//! without an import circle: sim -> {results, invariants} -> view -> {stats, qdisc, packet}.

use crate::packet::{PacketArena, PacketId, PacketKind};
use crate::qdisc::QueueDisc;
use crate::scenario::Scenario;
use crate::stats::fct::FctRecord;
use crate::stats::gauges::GaugeAverage;
use crate::stats::hops::HopCounters;
use crate::stats::{AppDelays, FlowCounters, LinkCounters, LinkIntegrals};
use crate::units::{SimDuration, SimTime};

/// What a simulation shows between events. Links and flows are indexed as in the scenario.
pub trait SimView {
    fn scenario(&self) -> &Scenario;
    /// The master seed of the run.
    fn seed(&self) -> u64;
    /// The clock.
    fn now(&self) -> SimTime;
    /// The time of the next pending event, if any.
    fn next_event_time(&self) -> Option<SimTime>;
    /// The most events pending at once so far.
    fn peak_pending_events(&self) -> u64;
    /// Events handled so far.
    fn events(&self) -> u64;
    /// The start of the measurement window and the end of the run.
    fn measure_from(&self) -> SimTime;
    fn end(&self) -> SimTime;
    /// Wall time since the build, and in the event loop alone, s.
    fn wall_s(&self) -> f64;
    fn loop_wall_s(&self) -> f64;

    /// The packets alive.
    fn packets(&self) -> &PacketArena;
    /// The packets on a wire now, with their links (the pending arrival events).
    fn on_wire(&self) -> impl Iterator<Item = (u32, PacketId)> + '_;

    fn queue(&self, link: usize) -> &dyn QueueDisc;
    /// The packet the link's transmitter is sending.
    fn in_service(&self, link: usize) -> Option<PacketId>;
    /// Whole-run counts of a link, and their part in the window.
    fn link_counts(&self, link: usize) -> &LinkCounters;
    fn link_window(&self, link: usize) -> LinkCounters;
    fn link_integrals(&self, link: usize) -> &LinkIntegrals;
    /// Time averages of the discipline's gauges (traced links only).
    fn link_gauges(&self, link: usize) -> Option<&GaugeAverage>;

    /// Whole-run counts of a flow, and their part in the window.
    fn flow_counts(&self, flow: usize) -> &FlowCounters;
    fn flow_window(&self, flow: usize) -> FlowCounters;
    fn app_delays(&self, flow: usize) -> &AppDelays;
    /// When the flow's source finished its data, if it has.
    fn completed_at(&self, flow: usize) -> Option<u64>;
    /// The sender's gauges now (window, RTT estimate, ...).
    fn sender_gauges(&self, flow: usize, out: &mut Vec<(&'static str, f64)>);

    /// The counters of every (flow, hop), indexed as [`hops_by_flow`] walks them.
    fn hops(&self) -> &HopCounters;

    /// Every connection the workloads opened, in order of opening.
    fn connections(&self) -> &[FctRecord];

    /// A flow's round-trip samples in the window, (time, RTT) ns, if it keeps them (a probe, a
    /// traced flow).
    fn rtt_samples(&self, flow: usize) -> Option<&[(SimTime, SimDuration)]>;

    /// The scenario flow a packet's flow id belongs to: itself, or for a connection of a
    /// workload (ids from the number of flows up) the workload.
    fn owner(&self, flow: u32) -> usize {
        flow as usize
    }

    /// Data packets of each flow still in queues or on the wire, counted from the arena.
    fn in_flight_by_flow(&self) -> Vec<u64> {
        let mut counts = vec![0u64; self.scenario().flows.len()];
        for id in self.packets().live_ids() {
            let p = &self.packets()[id];
            if p.kind == PacketKind::Data {
                counts[self.owner(p.flow)] += 1;
            }
        }
        counts
    }
}

/// Every (flow, hop index, link) of the simulation's flattened paths, in their order: flow by
/// flow, the forward path then the reverse one (the layout `Simulation::new` builds, and the
/// indexing of [`HopCounters`]).
pub fn hops_by_flow(sc: &Scenario) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    sc.flows
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.path_pairs().flat_map(|(fwd, rev)| fwd.iter().chain(rev)).map(move |&link| (fi, link)))
        .enumerate()
        .map(|(hop, (fi, link))| (fi, hop, link))
}
