//! The read-only view of a simulation that `results` and `invariants` read ([`crate::view::SimView`]).

use super::Simulation;
use crate::ids::{AgentId, FlowId};
use crate::packet::{PacketArena, PacketId};
use crate::qdisc::QueueDisc;
use crate::scenario::Scenario;
use crate::sched::Event;
use crate::stats::fct::FctRecord;
use crate::stats::gauges::GaugeAverage;
use crate::stats::hops::HopCounters;
use crate::stats::{AppDelays, FlowCounters, LinkCounters, LinkIntegrals};
use crate::units::{SimDuration, SimTime};
use crate::view::SimView;

impl SimView for Simulation {
    fn scenario(&self) -> &Scenario {
        &self.sc
    }
    fn owner(&self, flow: u32) -> usize {
        self.owner_of(FlowId(flow))
    }
    fn connections(&self) -> &[FctRecord] {
        &self.fct
    }
    fn rtt_samples(&self, flow: usize) -> Option<&[(SimTime, SimDuration)]> {
        self.rtt_log[flow].as_deref()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn now(&self) -> SimTime {
        self.sched.now()
    }
    fn next_event_time(&self) -> Option<SimTime> {
        self.sched.next_time()
    }
    fn peak_pending_events(&self) -> u64 {
        self.sched.peak_len() as u64
    }
    fn events(&self) -> u64 {
        self.events
    }
    fn measure_from(&self) -> SimTime {
        self.measure_from
    }
    fn end(&self) -> SimTime {
        self.end
    }
    fn wall_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
    fn loop_wall_s(&self) -> f64 {
        self.loop_wall.as_secs_f64()
    }
    fn packets(&self) -> &PacketArena {
        &self.pkts
    }
    fn on_wire(&self) -> impl Iterator<Item = (u32, PacketId)> + '_ {
        self.sched.pending().filter_map(|e| match *e {
            // A direct transmission's arrival is scheduled as it starts: until the line is done
            // with the packet, it is in transmission, not on the wire.
            Event::Arrive { link, pkt, .. } => (self.links[link.index()].tx != Some(pkt)).then_some((link.0, pkt)),
            // Listed, not `_`: an event that carries a packet must be counted here.
            Event::TxDone { .. } | Event::Timer { .. } | Event::Start { .. } | Event::Sample | Event::Wake { .. } => {
                None
            }
        })
    }
    fn queue(&self, link: usize) -> &dyn QueueDisc {
        self.links[link].q.inner()
    }
    fn in_service(&self, link: usize) -> Option<PacketId> {
        self.links[link].tx
    }
    fn link_counts(&self, link: usize) -> &LinkCounters {
        &self.links[link].counts
    }
    fn link_window(&self, link: usize) -> LinkCounters {
        self.window.counts(&self.links[link].counts, |s| &s.links[link])
    }
    fn link_integrals(&self, link: usize) -> &LinkIntegrals {
        &self.links[link].integrals
    }
    fn link_gauges(&self, link: usize) -> Option<&GaugeAverage> {
        self.links[link].gauge_avg.as_ref()
    }
    fn flow_counts(&self, flow: usize) -> &FlowCounters {
        &self.flows[flow].counts
    }
    fn flow_window(&self, flow: usize) -> FlowCounters {
        self.window.counts(&self.flows[flow].counts, |s| &s.flows[flow])
    }
    fn app_delays(&self, flow: usize) -> &AppDelays {
        &self.flows[flow].app_delays
    }
    fn completed_at(&self, flow: usize) -> Option<u64> {
        self.flows[flow].completed_at.map(SimTime::ns)
    }
    fn sender_gauges(&self, flow: usize, out: &mut Vec<(&'static str, f64)>) {
        self.agents[AgentId::sender(FlowId(flow as u32)).index()].inner().gauges(out)
    }
    fn hops(&self) -> &HopCounters {
        &self.hops
    }
}
