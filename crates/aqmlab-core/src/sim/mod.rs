//! The simulation: the event loop over links, queues and agents, with statistics.
//!
//! A packet's life: an agent emits it; it joins the output queue of the first link of its
//! path (data: the flow's forward path, ACKs: the reverse path); when the link's transmitter
//! takes it, its queueing delay is recorded and it occupies the line for size / rate; it
//! reaches the far node one propagation delay later, where it either joins the next queue or,
//! at its destination, is handed to the agent there.
//!
//! Events per packet: on a link whose transmissions may go direct (no loss on the wire, no
//! routers' processing, a discipline that never aborts a transmission), the far end's arrival
//! is scheduled as the transmission starts, and its end (TxDone) is queued only when a packet
//! waits for the line. Otherwise nothing needs that end at its time: whatever next looks at the
//! link (an arrival into its queue, the packet's own arrival, a wake-up, a trace sample, the
//! window's start, the results) first finishes the transmission at the time it ended, as the
//! event would have (`finish_tx_if_over`); what the discipline does at that end (a dequeue
//! from an empty queue starts RED's idle clock) sees the same state and time. And an end that
//! is needed but would be the very next event (a packet arrives from its previous hop in the
//! nanosecond its predecessor's transmission ends, and no pending event comes between) runs at
//! once, at the end of that arrival, without a trip through the event queue: the same state
//! changes in the same order, one event fewer (on a line as fast as the one before it, each
//! packet's).
//!
//! Definitions kept by the statistics (over the window `[warmup, duration)`):
//! - queueing delay: from arrival at a link's queue to the start of its transmission;
//! - queue length: packets waiting, not counting the one being transmitted (time average);
//! - utilization: time the transmitter is busy / window length;
//! - throughput: bytes delivered to the destination / window length (retransmissions too);
//! - goodput: bytes of new data delivered in order (for datagrams: all delivered bytes).
//!
//! Every count goes through [`crate::stats`], whole-run, and the window is the difference from a
//! snapshot taken as the clock reaches the warmup: a packet sent before warmup and delivered
//! after it counts as delivered, not as sent. [`crate::results`] and [`crate::invariants`] read
//! the simulation through [`crate::view::SimView`], which it implements (`view.rs`).
//!
//! Rooms: this file holds the run-time records, the event loop and its guards; `build.rs` makes
//! a run from a scenario; `packets.rs` is a packet's life (sent, queued, marked or dropped,
//! transmitted, on the wire, arrived) with every count it takes; `connections.rs` the slots of
//! the workloads' connections. What the line does to a packet (transmission time, loss,
//! propagation delay, routers' processing) is the link model's, [`crate::link`].

use std::sync::Arc;

use crate::agent::Outbox;
use crate::app::AnyAgent;
use crate::ids::{AgentId, LinkId};
use crate::invariants;
use crate::link::{LinkModel, Processing};
use crate::packet::{PacketArena, PacketId};
use crate::packet_trace::PacketTracer;
use crate::prefetch;
use crate::qdisc::{AnyQdisc, DropReason};
use crate::results::{self, Results, SeriesRecorder};
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::sched::{Event, Scheduler};
use crate::stats::fct::FctRecord;
use crate::stats::gauges::GaugeAverage;
use crate::stats::hops::HopCounters;
use crate::stats::{overlap, AppDelays, FlowCounters, LinkCounters, LinkIntegrals, Window};
use crate::units::{SimDuration, SimTime};
use crate::view::SimView;

mod build;
mod connections;
#[cfg(test)]
mod in_place_tests;
mod packets;
mod paths;
mod view;

use connections::Connection;
use paths::Paths;

/// A run that cannot go on: a guard tripped.
#[derive(Clone, Debug, PartialEq)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

/// One link direction at run time. Fields in declaration order (`repr(C)`, cache-line aligned):
/// what every packet touches comes first, within four cache lines, the rest follows. With
/// 10000 flows there are 20000 access links, and a packet crossing one should cost four lines,
/// not the whole record.
#[repr(C, align(64))]
struct LinkRt {
    integrals: LinkIntegrals,
    q: AnyQdisc,
    tx: Option<PacketId>,
    /// Generation of the current transmission; an abort bumps it so its TxDone is ignored.
    tx_gen: u32,
    /// The current transmission's arrival at the far end was scheduled as it started (a direct
    /// transmission, see `start_tx`); and whether its end (TxDone) is in the event queue.
    tx_direct: bool,
    tx_end_queued: bool,
    /// Whether this link's transmissions may go direct: no loss on the wire, no routers'
    /// processing in the run, a discipline that never aborts a transmission.
    direct_capable: bool,
    /// Whether `gauge_avg` is kept: the check every queue change makes, here rather than on
    /// the record's last cache line.
    gauged: bool,
    /// When the queue-length integrals were last brought up to date.
    last_change: SimTime,
    tx_start: SimTime,
    /// When the current transmission ends, and the sequence number its TxDone takes among the
    /// events of that nanosecond (reserved as it starts: [`Scheduler::reserve`]).
    tx_end: SimTime,
    tx_seq: u64,
    /// What the line does to a packet the queue released: its transmission time, loss and
    /// propagation delay ([`crate::link`]).
    line: LinkModel,
    /// Whole-run counts ([`crate::stats`]): those every packet updates first.
    counts: LinkCounters,
    rng: SimRng,
    /// Time integrals of the discipline's gauges (links in `[trace] links` only: `gauged`).
    gauge_avg: Option<GaugeAverage>,
    /// When a wake-up is pending for a discipline that holds packets back (a shaper).
    wake_at: Option<SimTime>,
}

impl LinkRt {
    /// The end (time, sequence number) of a transmission whose TxDone is not in the event queue
    /// (a direct one nothing has waited behind): what `finish_tx_if_over` catches up with.
    #[inline]
    fn unqueued_end(&self) -> Option<(SimTime, u64)> {
        (self.tx.is_some() && !self.tx_end_queued).then_some((self.tx_end, self.tx_seq))
    }
}

/// The leading part of a link record that a packet's passage touches ([`LinkRt`]).
const LINK_HOT_BYTES: usize = 256;

/// One flow at run time (`repr(C)`, cache-line aligned): what a packet's round trip touches
/// fits in the first four cache lines.
#[repr(C, align(64))]
struct FlowRt {
    /// Offsets of the forward and reverse paths in `Simulation::paths`.
    fwd: u32,
    rev: u32,
    /// The first link of each (`paths[fwd]`, `paths[rev]`): where the flow's agents send, known
    /// without a look into `paths`, an array out of cache at 100,000 flows.
    fwd_link: LinkId,
    rev_link: LinkId,
    /// Whole-run counts ([`crate::stats`]): those a packet's round trip updates first.
    counts: FlowCounters,
    /// Over the window.
    app_delays: AppDelays,
    completed_at: Option<SimTime>,
}

/// The links' and flows' whole-run counts as the clock reached the warmup.
struct Snapshot {
    links: Vec<LinkCounters>,
    flows: Vec<FlowCounters>,
}

/// The leading part of a flow's record an event of `agent` updates: the counts of what it
/// sends and receives, and a sender's also those of the round trips its ACKs close (its RTT
/// samples, packets acknowledged, goodput: `flush_outbox`), a line further.
#[inline]
fn flow_hot_bytes(agent: AgentId) -> usize {
    if agent.is_sender() {
        192
    } else {
        128
    }
}

/// Prefetch hints pay once the records the events visit outgrow a core's private caches (1 MiB
/// of second-level cache here, 0.5-2 MiB on today's servers); below that they only cost
/// instructions (8% on a dumbbell of a few flows).
const PREFETCH_ABOVE_BYTES: usize = 2 << 20;

/// One run of a scenario.
pub struct Simulation {
    /// Shared, not copied: the scenario of 100,000 flows is over 100 MB, and the caller keeps it.
    sc: Arc<Scenario>,
    seed: u64,
    sched: Scheduler,
    pkts: PacketArena,
    links: Vec<LinkRt>,
    flows: Vec<FlowRt>,
    /// Sender of flow f at 2f, receiver at 2f + 1.
    agents: Vec<AnyAgent>,
    /// Every flow's forward then reverse path, flattened; `hops` runs parallel.
    paths: Paths,
    hops: HopCounters,
    /// Where the window's link and flow counts start ([`crate::stats::Window`]).
    window: Window<Snapshot>,
    /// Routers' processing times (`link.processing_jitter`); `None` when no link has one, so
    /// a run without them draws nothing and takes no detour.
    processing: Option<Box<Processing>>,
    events: u64,
    /// Events plus packets sent: what the event-rate guard counts (a timer that resends a
    /// whole window is one event but a window of work), and when it looks next.
    work: u64,
    next_rate_check: u64,
    series: SeriesRecorder,
    out: Outbox,
    victims: Vec<(PacketId, DropReason)>,
    /// Packets a discipline marked other than as an arrival's verdict (CoDel at dequeue).
    marks: Vec<(PacketId, DropReason)>,
    measure_from: SimTime,
    end: SimTime,
    started: std::time::Instant,
    /// Wall time spent handling events (in `run_for`), apart from building and reporting.
    loop_wall: std::time::Duration,
    /// pcap files and the packet log, when `[trace]` asks for them ([`Simulation::trace_packets_to`]).
    tracer: Option<Box<PacketTracer>>,
    /// The scenario's flows: a packet of flow id `f < n_flows` is flow `f`'s; ids from `n_flows`
    /// up are connections of workloads, `conns[f - n_flows]`, and count for their workload.
    n_flows: u32,
    /// Connection slots, reused once a connection is over and no packet of it is left; its
    /// agents are `2 (n_flows + slot)` and the one after.
    conns: Vec<Connection>,
    free_conns: Vec<u32>,
    /// Per flow spanning node sets (a workload): the offsets of its pairs' (forward, reverse)
    /// paths in `paths`, pair by pair; empty for the others.
    pair_paths: Vec<Vec<(u32, u32)>>,
    /// One record per connection ever opened, in order of opening.
    fct: Vec<FctRecord>,
    /// Per flow that keeps them (a probe, a traced flow): every round-trip sample in the
    /// window, (time, RTT).
    rtt_log: Vec<Option<Vec<(SimTime, SimDuration)>>>,
    /// Whether an end of transmission that would be the next event runs in place (`enqueue`);
    /// off only in the test that checks it changes nothing but the count of events.
    tx_ends_in_place: bool,
}

impl Simulation {
    /// Write the packet traces `[trace]` asks for (pcap files, the packet log) into `dir`; the
    /// files are complete after [`Simulation::finish_traces`]. Nothing when it asks for none.
    pub fn trace_packets_to(&mut self, dir: &std::path::Path) -> std::io::Result<()> {
        self.tracer = PacketTracer::create(&self.sc, dir)?.map(Box::new);
        Ok(())
    }

    /// Flush the packet traces; the files written.
    pub fn finish_traces(&mut self) -> std::io::Result<Vec<std::path::PathBuf>> {
        match &mut self.tracer {
            Some(t) => t.finish().map(|()| t.files.clone()),
            None => Ok(vec![]),
        }
    }

    /// Current simulated time, ns.
    pub fn now(&self) -> u64 {
        self.sched.now().ns()
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Packets taken by a transmitter, over every link and the whole run: the "simulated
    /// packets" of the benchmarks (one transmission over one link).
    pub fn transmissions(&self) -> u64 {
        self.links.iter().map(|l| l.counts.transmitted.pkts).sum()
    }

    /// Whether the run has reached its end.
    pub fn finished(&self) -> bool {
        self.sched.next_time().is_none_or(|t| t >= self.end)
    }

    /// Run to the end.
    pub fn run(&mut self) -> Result<(), SimError> {
        self.run_until(u64::MAX)
    }

    /// Handle every event before `limit` (and before the end of the run).
    pub fn run_until(&mut self, limit: u64) -> Result<(), SimError> {
        self.run_for(limit, u64::MAX)
    }

    /// Handle the events before `limit` (and before the end of the run), at most `budget` of
    /// them: a caller that must stay responsive (to Ctrl-C, for progress) runs in budgets, since
    /// a stretch of simulated time can hold any number of events.
    pub fn run_for(&mut self, limit: u64, budget: u64) -> Result<(), SimError> {
        let t0 = std::time::Instant::now();
        let outcome = self.handle_events(limit, budget);
        self.loop_wall += t0.elapsed();
        outcome
    }

    /// Wall time spent in the event loop so far: what "time per simulated packet" measures.
    pub fn loop_wall(&self) -> std::time::Duration {
        self.loop_wall
    }

    fn handle_events(&mut self, limit: u64, budget: u64) -> Result<(), SimError> {
        let stop = SimTime(limit).min(self.end);
        let max_events = self.sc.max_events.unwrap_or(u64::MAX);
        let last = self.events.saturating_add(budget);
        while let Some(t) = self.sched.peek_time() {
            if t >= stop || self.events >= last {
                break;
            }
            // Guards stop before the event or packet that would cross them, so the state stays
            // whole (the invariants hold, and results can still be read).
            if self.events >= max_events {
                let (link, flow) = invariants::busiest(self);
                let link = link
                    .map(|(l, n)| format!("; busiest link '{}' ({n} packets offered)", self.sc.links[l].name))
                    .unwrap_or_default();
                let flow = flow
                    .map(|(f, n)| format!(", busiest flow '{}' ({n} packets sent)", self.sc.flows[f].name))
                    .unwrap_or_default();
                return Err(SimError(format!(
                    "stopped at {:.3} s after {} events (simulation.max_events){link}{flow}; raise max_events if the run is meant to be this long",
                    t.ns() as f64 * 1e-9,
                    max_events
                )));
            }
            if self.work >= self.next_rate_check {
                self.next_rate_check = self.work + crate::scenario::budget::EVENT_RATE_CHECK_EVERY;
                if let Some(storm) = crate::scenario::budget::event_storm(&self.sc, self.work, t.ns()) {
                    let (_, flow) = invariants::busiest(self);
                    let flow = flow
                        .map(|(f, n)| format!("; busiest flow '{}' ({n} packets sent)", self.sc.flows[f].name))
                        .unwrap_or_default();
                    return Err(SimError(format!(
                        "{storm}{flow}; raise max_event_rate if the run is meant to be this dense"
                    )));
                }
            }
            if t >= self.measure_from && self.window.waiting() {
                // Transmissions that ended before the first event of the window count before it.
                self.finish_txs_before(t);
                self.start_window();
            }
            // Between events, where the invariants are defined (an event in hand is in neither
            // the queue of pending events nor yet where it puts its packet).
            #[cfg(debug_assertions)]
            if self.events % 65_536 == 65_535 {
                self.assert_invariants();
            }
            let (now, ev) = self.sched.pop().expect("peeked");
            let prefetching = self.prefetching();
            if prefetching {
                // The next event's records are fetched while this one runs. (Asking for the two
                // next, or three, measured no faster.)
                if let Some(next) = self.sched.next_up() {
                    self.prefetch_event(next);
                }
            }
            self.events += 1;
            self.work += 1;
            match ev {
                Event::TxDone { link, gen } => {
                    if self.links[link.index()].tx_gen == gen {
                        self.tx_done(now, link)
                    }
                }
                Event::Arrive { link, pkt, hop } => {
                    debug_assert_eq!(hop, self.pkts[pkt].at, "an arrival's hop is its packet's place");
                    self.arrive(now, link, pkt)?
                }
                Event::Timer { agent, kind, gen, epoch } => {
                    if prefetching {
                        self.agents[agent.index()].inner().prefetch_state();
                        self.prefetch_first_hop(agent);
                    }
                    if self.epoch_of(agent) == epoch {
                        self.agents[agent.index()].inner_mut().on_timer(now, kind, gen, &mut self.out);
                        self.flush_outbox(now, agent)?;
                    }
                }
                Event::Start { agent } => {
                    if prefetching {
                        self.prefetch_first_hop(agent);
                    }
                    self.agents[agent.index()].inner_mut().start(now, &mut self.out);
                    self.flush_outbox(now, agent)?;
                }
                Event::Wake { link } => {
                    self.finish_tx_if_over(link);
                    let l = &mut self.links[link.index()];
                    if l.wake_at == Some(now) {
                        l.wake_at = None;
                        if l.tx.is_none() {
                            self.start_tx(now, link);
                        }
                    }
                }
                Event::Sample => {
                    // The traced links' disciplines are read as they stand.
                    for i in 0..self.sc.trace.links.len() {
                        self.finish_tx_if_over(LinkId(self.sc.trace.links[i]));
                    }
                    self.sample(now);
                    if let Some(iv) = self.sc.trace.interval {
                        self.sched.at(now + SimDuration(iv), Event::Sample);
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        self.assert_invariants();
        Ok(())
    }

    /// Whether the run's records are large enough for prefetch hints to pay
    /// ([`PREFETCH_ABOVE_BYTES`]); connections add agents as they open.
    #[inline]
    pub(super) fn prefetching(&self) -> bool {
        let bytes = self.agents.len() * std::mem::size_of::<AnyAgent>()
            + self.flows.len() * std::mem::size_of::<FlowRt>()
            + self.links.len() * std::mem::size_of::<LinkRt>();
        bytes > PREFETCH_ABOVE_BYTES
    }

    /// Ask for the records an event will read first: an agent's, and its flow's counts and
    /// paths (which its packets, if it sends any, need next); a packet's.
    #[inline]
    fn prefetch_event(&self, event: &Event) {
        match *event {
            Event::Timer { agent, .. } | Event::Start { agent } => {
                prefetch::record(&self.agents[agent.index()]);
                prefetch::bytes(&self.flows[self.owner_of(agent.flow())], flow_hot_bytes(agent));
            }
            Event::Arrive { link, pkt, hop } => {
                prefetch::record(&self.pkts[pkt]);
                // Whether the packet is home, and where it goes next (`arrive`); if it goes on,
                // its counts at the next hop, which it updates as it joins that queue or is
                // refused there (at a path's end these are the next path's: a wasted hint).
                prefetch::bytes(self.paths.address(hop as usize), 8);
                prefetch::bytes(self.hops.hot_address(hop as usize + 1), 32);
                prefetch::bytes(self.hops.cold_address(hop as usize + 1), 32);
                // The arrival first asks its link whether it still shows it in transmission.
                prefetch::bytes(&self.links[link.index()].tx, 16);
            }
            Event::TxDone { .. } | Event::Wake { .. } | Event::Sample => {}
        }
    }

    /// Ask for what the packets an agent sends meet first: its first hop's link record and
    /// counters. Read from its flow's record, which [`Simulation::prefetch_event`] asked for as
    /// the event before this one was taken.
    #[inline]
    fn prefetch_first_hop(&self, agent: AgentId) {
        let (base, link) = self.first_hop(agent);
        prefetch::bytes(&self.links[link.index()], LINK_HOT_BYTES);
        prefetch::bytes(self.hops.hot_address(base as usize), 32);
    }

    /// Where the packets `agent` sends start: the offset of their path in `paths`, and its
    /// first link.
    #[inline]
    fn first_hop(&self, agent: AgentId) -> (u32, LinkId) {
        let flow_id = agent.flow();
        match self.slot_of(flow_id) {
            Some(c) => {
                let c = &self.conns[c as usize];
                let base = if agent.is_sender() { c.fwd } else { c.rev };
                (base, self.paths.link(base as usize))
            }
            None => {
                let f = &self.flows[flow_id.0 as usize];
                if agent.is_sender() {
                    (f.fwd, f.fwd_link)
                } else {
                    (f.rev, f.rev_link)
                }
            }
        }
    }

    /// Check every invariant of [`crate::invariants`]; `Err` describes the first one broken.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check(self)
    }

    /// Panic if an invariant of [`crate::invariants`] is broken (debug builds check as they run).
    #[track_caller]
    pub fn assert_invariants(&self) {
        if let Err(e) = self.check_invariants() {
            panic!("invariant broken at {} ns after {} events: {e}", self.sched.now().ns(), self.events);
        }
    }

    /// Results of the run, ending it: what the results do not read (the agents: 90 MB at
    /// 100,000 flows) is freed before they are built, so the run's state at its largest and
    /// the results are not held together.
    pub fn into_results(mut self) -> Results {
        self.free_agents();
        self.results()
    }

    /// End the run's agents, freeing them: the results do not read them, and no event can be
    /// handled after this (what [`Simulation::into_results`] does first, for a caller that
    /// wants the memory back before the results are built).
    pub fn free_agents(&mut self) {
        self.agents = Vec::new();
    }

    /// Results of the run so far (normally called once finished).
    pub fn results(&mut self) -> Results {
        let end = self.sched.now().max(self.end.min(self.sched.next_time().unwrap_or(self.end)));
        let end = if self.finished() {
            // Every event before the end ran: so did the end of every transmission before it.
            self.finish_txs_before(self.end);
            self.end
        } else {
            self.finish_txs_that_would_have_run();
            end
        };
        for l in &mut self.links {
            Self::touch(l, end, self.measure_from, self.end);
            if l.tx.is_some() {
                l.integrals.busy_ns += overlap(l.tx_start, end, self.measure_from, self.end).ns();
                l.tx_start = end;
            }
        }
        results::build(self, end, self.series.finish(&self.sc))
    }

    /// The clock has reached the warmup: later events count in the window.
    fn start_window(&mut self) {
        self.window = Window::From(Snapshot {
            links: self.links.iter().map(|l| l.counts.clone()).collect(),
            flows: self.flows.iter().map(|f| f.counts.clone()).collect(),
        });
        self.hops.start_window();
    }

    /// Data packets of each flow still in queues or on the wire, counted from the arena.
    pub fn in_flight_by_flow(&self) -> Vec<u64> {
        SimView::in_flight_by_flow(self)
    }

    /// The `max_packets` guard tripped: say where the packets are.
    fn too_many_packets(&mut self, now: SimTime) -> SimError {
        self.finish_txs_that_would_have_run();
        let link = invariants::fullest_link(self)
            .map(|(l, q, w)| {
                format!(
                    "; link '{}' holds the most ({q} queued or in transmission, {w} on the wire)",
                    self.sc.links[l].name
                )
            })
            .unwrap_or_default();
        let in_flight = SimView::in_flight_by_flow(self);
        let flow = (0..in_flight.len())
            .max_by_key(|&f| (in_flight[f], std::cmp::Reverse(f)))
            .map(|f| {
                format!(", flow '{}' has the most data packets in flight ({})", self.sc.flows[f].name, in_flight[f])
            })
            .unwrap_or_default();
        SimError(format!(
            "stopped at {:.3} s: more than {} packets alive at once (simulation.max_packets){link}{flow}; a window or a bandwidth-delay product this large needs more memory than it is worth",
            now.ns() as f64 * 1e-9,
            self.sc.max_packets
        ))
    }

    fn sample(&mut self, now: SimTime) {
        let mut series = std::mem::take(&mut self.series);
        series.record(self, now.ns());
        self.series = series;
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::offset_of;

    /// What every packet touches stays within the first four cache lines of a link or flow
    /// record (a field added in the wrong place would spread it over more).
    #[test]
    fn hot_fields_fit_in_four_cache_lines() {
        let link_hot_end = offset_of!(LinkRt, counts) + offset_of!(LinkCounters, queue_dropped);
        assert!(link_hot_end <= LINK_HOT_BYTES, "link hot fields end at byte {link_hot_end}");
        assert!(offset_of!(LinkRt, gauged) < LINK_HOT_BYTES, "the gauge check costs a cache line");
        let flow_hot_end = offset_of!(FlowRt, counts) + offset_of!(FlowCounters, dropped);
        assert!(flow_hot_end <= 256, "flow hot fields end at byte {flow_hot_end}");
    }
}
