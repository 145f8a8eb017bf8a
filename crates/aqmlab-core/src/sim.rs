//! The simulation: the event loop over links, queues and agents, with statistics.
//!
//! A packet's life: an agent emits it; it joins the output queue of the first link of its
//! path (data: the flow's forward path, ACKs: the reverse path); when the link's transmitter
//! takes it, its queueing delay is recorded and it occupies the line for size / rate; it
//! reaches the far node one propagation delay later, where it either joins the next queue or,
//! at its destination, is handed to the agent there.
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
//! the simulation through [`crate::view::SimView`], which it implements at the end of this file.

use crate::agent::{FlowIds, Outbox};
use crate::app::sink::Sink;
use crate::app::workload::Hop;
use crate::app::AnyAgent;
use crate::invariants;
use crate::link::{LinkModel, Processing};
use crate::packet::{flags, PacketArena, PacketId, PacketKind};
use crate::packet_trace::{PacketEvent, PacketTracer};
use crate::qdisc::{AnyQdisc, DropReason, LinkInfo, QdiscCtx, QueueDisc, Verdict};
use crate::results::{self, Results, SeriesRecorder};
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::sched::{Event, Scheduler};
use crate::stats::fct::FctRecord;
use crate::stats::gauges::GaugeAverage;
use crate::stats::hops::HopCounters;
use crate::stats::{overlap, AppDelays, DropPlace, FlowCounters, LinkCounters, LinkIntegrals, Window};
use crate::view::{hops_by_flow, SimView};

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
    /// When the queue-length integrals were last brought up to date.
    last_change: u64,
    tx_start: u64,
    /// What the line does to a packet the queue released: its transmission time, loss and
    /// propagation delay ([`crate::link`]).
    line: LinkModel,
    /// Whole-run counts ([`crate::stats`]): those every packet updates first.
    counts: LinkCounters,
    rng: SimRng,
    /// Time integrals of the discipline's gauges (links in `[trace] links` only).
    gauge_avg: Option<GaugeAverage>,
    /// When a wake-up is pending for a discipline that holds packets back (a shaper).
    wake_at: Option<u64>,
}

/// One flow at run time (`repr(C)`, cache-line aligned): what a packet's round trip touches
/// fits in the first four cache lines.
#[repr(C, align(64))]
struct FlowRt {
    /// Offsets of the forward and reverse paths in `Simulation::paths`.
    fwd: u32,
    rev: u32,
    /// Whole-run counts ([`crate::stats`]): those a packet's round trip updates first.
    counts: FlowCounters,
    /// Over the window.
    app_delays: AppDelays,
    completed_at: Option<u64>,
}

/// The links' and flows' whole-run counts as the clock reached the warmup.
struct Snapshot {
    links: Vec<LinkCounters>,
    flows: Vec<FlowCounters>,
}

/// One run of a scenario.
pub struct Simulation {
    sc: Scenario,
    seed: u64,
    sched: Scheduler,
    pkts: PacketArena,
    links: Vec<LinkRt>,
    flows: Vec<FlowRt>,
    /// Sender of flow f at 2f, receiver at 2f + 1.
    agents: Vec<AnyAgent>,
    /// Every flow's forward then reverse path, flattened; `hops` and `last_hop` run parallel.
    paths: Vec<u32>,
    /// Whether the hop ends its path (the packet has reached its destination): so an arrival
    /// needs nothing from the record of the link it came over.
    last_hop: Vec<bool>,
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
    measure_from: u64,
    end: u64,
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
    /// window, (time, RTT) in ns.
    rtt_log: Vec<Option<Vec<(u64, u64)>>>,
}

/// A connection of a workload, while it lasts.
#[derive(Clone, Copy, Debug)]
struct Connection {
    /// The workload it belongs to (a flow index): what its packets count for.
    owner: u32,
    /// Its record in `Simulation::fct`.
    row: u32,
    /// Offsets of its forward and reverse paths in `paths`.
    fwd: u32,
    rev: u32,
    /// Bumped at each opening in the slot: timer events of an earlier connection are stale.
    epoch: u32,
    /// Its packets in queues or on the wire.
    alive: u32,
    /// Every byte acknowledged.
    done: bool,
}

impl Simulation {
    /// Build a run of `sc` with master seed `seed` (the scenario's own when `None`).
    pub fn new(sc: &Scenario, seed: Option<u64>) -> Simulation {
        let seed = seed.unwrap_or(sc.seed);
        let mean_packet_size = if sc.flows.is_empty() {
            1000
        } else {
            (sc.flows.iter().map(|f| f.params.mean_packet_size()).sum::<f64>() / sc.flows.len() as f64).round().max(1.0)
                as u32
        };
        let links = sc
            .links
            .iter()
            .enumerate()
            .map(|(li, l)| {
                let info = LinkInfo { rate_bps: l.rate_bps, n_flows: sc.flows.len(), mean_packet_size };
                LinkRt {
                    line: LinkModel::new(l.rate_bps, l.delay_ns, l.loss, l.capacity.clone()),
                    q: l.queue.build(&info),
                    rng: SimRng::stream(seed, &format!("link:{}", l.name)),
                    tx: None,
                    tx_start: 0,
                    tx_gen: 0,
                    // The queue-length integrals start at the warmup.
                    last_change: sc.warmup_ns,
                    counts: LinkCounters::default(),
                    integrals: LinkIntegrals::default(),
                    gauge_avg: sc.trace.links.contains(&(li as u32)).then(GaugeAverage::default),
                    wake_at: None,
                }
            })
            .collect();
        let mut paths = Vec::new();
        let mut flows = Vec::new();
        let mut agents = Vec::new();
        let mut sched = Scheduler::new();
        let mut last_hop = Vec::new();
        let mut pair_paths = Vec::with_capacity(sc.flows.len());
        for (i, f) in sc.flows.iter().enumerate() {
            let mut offsets = Vec::new();
            for (fwd_path, rev_path) in f.path_pairs() {
                let fwd = paths.len() as u32;
                offsets.push((fwd, fwd + fwd_path.len() as u32));
                for path in [fwd_path, rev_path] {
                    paths.extend_from_slice(path);
                    last_hop.extend((0..path.len()).map(|k| k + 1 == path.len()));
                }
            }
            let (fwd, rev) = offsets[0];
            pair_paths.push(if f.pairs.is_empty() { vec![] } else { offsets });
            flows.push(FlowRt {
                counts: FlowCounters::default(),
                fwd,
                rev,
                app_delays: AppDelays::default(),
                completed_at: None,
            });
            let ids = FlowIds { flow: i as u32, src: f.src, dst: f.dst };
            // The start draw has its own stream, so jitter does not shift the flow's own draws.
            let mut when = f.when;
            if when.jitter > 0 {
                let u = SimRng::stream(seed, &format!("start:{}", f.name)).uniform();
                when.start += (u * when.jitter as f64) as u64;
            }
            let weights: Vec<f64> = f.pairs.iter().map(|p| p.weight).collect();
            let rng = SimRng::stream(seed, &format!("flow:{}", f.name));
            let (sender, receiver) = f.params.build(ids, when, rng, &weights);
            agents.push(sender);
            agents.push(receiver);
            sched.at(when.start, Event::Start { agent: 2 * i as u32 });
        }
        debug_assert!(
            hops_by_flow(sc).map(|(_, _, link)| link).eq(paths.iter().copied()),
            "hops_by_flow walks the layout built here"
        );
        let hops = HopCounters::new(paths.len(), sc.warmup_ns > 0);
        let processing = Processing::new(sc.links.iter().map(|l| (l.name.as_str(), l.processing_jitter_ns)), seed);
        let series = SeriesRecorder::new(sc);
        if let Some(interval) = sc.trace.interval {
            sched.at(sc.warmup_ns.min(interval), Event::Sample);
        }
        Simulation {
            sc: sc.clone(),
            seed,
            sched,
            pkts: PacketArena::new(),
            links,
            flows,
            agents,
            paths,
            last_hop,
            hops,
            window: Window::new(sc.warmup_ns > 0),
            processing,
            events: 0,
            work: 0,
            next_rate_check: crate::scenario::budget::EVENT_RATE_FIRST_CHECK,
            series,
            out: Outbox::default(),
            victims: Vec::new(),
            marks: Vec::new(),
            measure_from: sc.warmup_ns,
            end: sc.duration_ns,
            started: std::time::Instant::now(),
            loop_wall: std::time::Duration::ZERO,
            tracer: None,
            n_flows: sc.flows.len() as u32,
            conns: Vec::new(),
            free_conns: Vec::new(),
            pair_paths,
            fct: Vec::new(),
            rtt_log: sc
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let traced = sc.trace.rtt_samples && sc.trace.flows.contains(&(i as u32));
                    (f.params.kind().keeps_rtt_samples() || traced).then(Vec::new)
                })
                .collect(),
        }
    }

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

    fn trace(&mut self, now: u64, link: u32, event: PacketEvent, id: PacketId) {
        if self.tracer.is_some() {
            let packet_flow = self.pkts[id].flow;
            let flow = self.owner_of(packet_flow);
            let connection = packet_flow.checked_sub(self.n_flows).map(|c| {
                let row = self.conns[c as usize].row;
                (row, self.fct[row as usize].bytes)
            });
            let qlen = self.links[link as usize].q.len();
            if let Some(t) = &mut self.tracer {
                t.record(now, link, event, &self.pkts[id], flow, connection, qlen);
            }
        }
    }

    /// The scenario flow that a packet's flow id counts for (see `n_flows`).
    #[inline]
    fn owner_of(&self, flow: u32) -> usize {
        if flow < self.n_flows {
            flow as usize
        } else {
            self.conns[(flow - self.n_flows) as usize].owner as usize
        }
    }

    /// The connection a packet's flow id names, if it is one.
    #[inline]
    fn conn_mut(&mut self, flow: u32) -> Option<&mut Connection> {
        flow.checked_sub(self.n_flows).map(|c| &mut self.conns[c as usize])
    }

    /// The records of every connection opened so far (the workloads' flow completion times).
    pub fn connections(&self) -> &[FctRecord] {
        &self.fct
    }

    /// Connection slots made so far: the most connections open at once (slots are reused).
    pub fn connection_slots(&self) -> usize {
        self.conns.len()
    }

    /// Current simulated time, ns.
    pub fn now(&self) -> u64 {
        self.sched.now()
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
        let stop = limit.min(self.end);
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
                    t as f64 * 1e-9,
                    max_events
                )));
            }
            if self.work >= self.next_rate_check {
                self.next_rate_check = self.work + crate::scenario::budget::EVENT_RATE_CHECK_EVERY;
                if let Some(storm) = crate::scenario::budget::event_storm(&self.sc, self.work, t) {
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
                self.start_window();
            }
            // Between events, where the invariants are defined (an event in hand is in neither
            // the queue of pending events nor yet where it puts its packet).
            #[cfg(debug_assertions)]
            if self.events % 65_536 == 65_535 {
                self.assert_invariants();
            }
            let (now, ev) = self.sched.pop().expect("peeked");
            self.events += 1;
            self.work += 1;
            match ev {
                Event::TxDone { link, gen } => {
                    if self.links[link as usize].tx_gen == gen {
                        self.tx_done(now, link)
                    }
                }
                Event::Arrive { pkt, .. } => self.arrive(now, pkt)?,
                Event::Timer { agent, kind, gen, epoch } => {
                    if self.epoch_of(agent) == epoch {
                        self.agents[agent as usize].inner_mut().on_timer(now, kind, gen, &mut self.out);
                        self.flush_outbox(now, agent)?;
                    }
                }
                Event::Start { agent } => {
                    self.agents[agent as usize].inner_mut().start(now, &mut self.out);
                    self.flush_outbox(now, agent)?;
                }
                Event::Wake { link } => {
                    let l = &mut self.links[link as usize];
                    if l.wake_at == Some(now) {
                        l.wake_at = None;
                        if l.tx.is_none() {
                            self.start_tx(now, link);
                        }
                    }
                }
                Event::Sample => {
                    self.sample(now);
                    if let Some(iv) = self.sc.trace.interval {
                        self.sched.at(now + iv, Event::Sample);
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        self.assert_invariants();
        Ok(())
    }

    /// Check every invariant of [`crate::invariants`]; `Err` describes the first one broken.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check(self)
    }

    /// Panic if an invariant of [`crate::invariants`] is broken (debug builds check as they run).
    #[track_caller]
    pub fn assert_invariants(&self) {
        if let Err(e) = self.check_invariants() {
            panic!("invariant broken at {} ns after {} events: {e}", self.sched.now(), self.events);
        }
    }

    /// Results of the run so far (normally called once finished).
    pub fn results(&mut self) -> Results {
        let end = self.sched.now().max(self.end.min(self.sched.next_time().unwrap_or(self.end)));
        let end = if self.finished() { self.end } else { end };
        for l in &mut self.links {
            Self::touch(l, end, self.measure_from, self.end);
            if l.tx.is_some() {
                l.integrals.busy_ns += overlap(l.tx_start, end, self.measure_from, self.end);
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

    // -----------------------------------------------------------------------------------------

    /// Add the time since the last change to the queue-length (and traced gauge) integrals.
    #[inline]
    fn touch(l: &mut LinkRt, now: u64, lo: u64, hi: u64) {
        let dt = overlap(l.last_change, now, lo, hi);
        if dt > 0 {
            l.integrals.area_pkts += l.q.len() as u128 * dt as u128;
            l.integrals.area_bytes += l.q.bytes() as u128 * dt as u128;
            if let Some(g) = &mut l.gauge_avg {
                g.add(l.q.inner(), dt);
            }
        }
        l.last_change = l.last_change.max(now);
    }

    /// The epoch of the slot an agent is in: 0 for a flow's, the connection's for a workload's.
    #[inline]
    fn epoch_of(&self, agent: u32) -> u32 {
        match (agent / 2).checked_sub(self.n_flows) {
            Some(c) => self.conns[c as usize].epoch,
            None => 0,
        }
    }

    fn flush_outbox(&mut self, now: u64, agent: u32) -> Result<(), SimError> {
        let flow_id = agent / 2;
        let flow = self.owner_of(flow_id);
        let is_sender = agent.is_multiple_of(2);
        let epoch = self.epoch_of(agent);
        let out = &mut self.out;
        let f = &mut self.flows[flow];
        f.counts.goodput_bytes += out.goodput_bytes;
        f.counts.timeouts += out.timeouts as u64;
        for &r in &out.rtt_samples {
            f.counts.rtt_ns += r as u128;
            f.counts.rtt_samples += 1;
        }
        if let Some(log) = self.rtt_log[flow].as_mut().filter(|_| now >= self.measure_from) {
            log.extend(out.rtt_samples.iter().map(|&r| (now, r)));
        }
        if now >= self.measure_from {
            for &d in &out.app_delay_samples {
                f.app_delays.add(d);
            }
        }
        let completed = out.completed;
        if flow_id < self.n_flows && completed && f.completed_at.is_none() {
            f.completed_at = Some(now);
        }
        for t in out.timers.drain(..) {
            self.sched.at(t.at.max(now), Event::Timer { agent, kind: t.kind, gen: t.gen, epoch });
        }
        let timeouts = out.timeouts;
        let packets = std::mem::take(&mut out.packets);
        self.work += packets.len() as u64;
        let requests = std::mem::take(&mut out.connections);
        out.clear();
        let (fwd, rev) = match self.conn_mut(flow_id) {
            Some(c) => (c.fwd, c.rev),
            None => (self.flows[flow].fwd, self.flows[flow].rev),
        };
        let mut retransmits = 0;
        for mut p in packets.iter().copied() {
            if self.pkts.live() as u64 >= self.sc.max_packets {
                return Err(self.too_many_packets(now));
            }
            p.sent_at = now;
            p.qdelay = 0;
            debug_assert_eq!(is_sender, p.kind == PacketKind::Data, "senders send data, receivers ACKs");
            let base = if is_sender { fwd } else { rev };
            p.at = base;
            let link = self.paths[base as usize];
            self.flows[flow].counts.send(p.kind, p.size, p.has(flags::RETX));
            retransmits += u32::from(p.kind == PacketKind::Data && p.has(flags::RETX));
            if let Some(c) = self.conn_mut(flow_id) {
                c.alive += 1;
            }
            let id = self.pkts.alloc(p);
            self.enqueue(now, link, id)?;
        }
        if let Some(c) = self.conn_mut(flow_id) {
            let row = c.row as usize;
            let r = &mut self.fct[row];
            r.retransmits += retransmits;
            r.timeouts += timeouts;
            if completed && is_sender && r.finish.is_none() {
                r.finish = Some(now);
                self.conns[(flow_id - self.n_flows) as usize].done = true;
            }
            self.settle(flow_id);
        }
        // Give the vectors back so their capacity is reused.
        let mut packets = packets;
        packets.clear();
        self.out.packets = packets;
        for req in &requests {
            self.open_connection(now, flow_id, *req)?;
        }
        let mut requests = requests;
        requests.clear();
        self.out.connections = requests;
        Ok(())
    }

    /// Open a connection that workload `flow` asks for: a slot (a free one, or a new one), a
    /// sender and a receiver of the workload's TCP settings, its record; it starts at once.
    fn open_connection(&mut self, now: u64, flow: u32, req: crate::agent::ConnectionReq) -> Result<(), SimError> {
        let spec = &self.sc.flows[flow as usize];
        let pair = &spec.pairs[req.pair as usize];
        let (fwd, rev) = self.pair_paths[flow as usize][req.pair as usize];
        let slot = match self.free_conns.pop() {
            Some(s) => s,
            None => {
                self.conns.push(Connection { owner: flow, row: 0, fwd: 0, rev: 0, epoch: 0, alive: 0, done: true });
                self.agents.push(AnyAgent::Sink(Sink));
                self.agents.push(AnyAgent::Sink(Sink));
                self.conns.len() as u32 - 1
            }
        };
        let flow_id = self.n_flows + slot;
        let ids = FlowIds { flow: flow_id, src: pair.src, dst: pair.dst };
        let hops = |links: &[u32]| -> Vec<Hop> {
            links
                .iter()
                .map(|&l| Hop {
                    rate_bps: self.links[l as usize].line.rate_bps(),
                    delay_ns: self.links[l as usize].line.delay_ns(),
                })
                .collect()
        };
        let ideal_ns = spec.params.kind().ideal_fct_ns(&hops(&pair.fwd), &hops(&pair.rev), req.bytes);
        let (sender, receiver) =
            spec.params.kind().connection(ids, now, req.bytes).expect("a flow that asks for connections opens them");
        let row = self.fct.len() as u32;
        self.fct.push(FctRecord {
            workload: flow,
            src: pair.src,
            dst: pair.dst,
            bytes: req.bytes,
            start: now,
            finish: None,
            ideal_ns,
            retransmits: 0,
            timeouts: 0,
            drops: 0,
            marks: 0,
        });
        let c = &mut self.conns[slot as usize];
        *c = Connection { owner: flow, row, fwd, rev, epoch: c.epoch.wrapping_add(1), alive: 0, done: false };
        let agent = 2 * flow_id;
        self.agents[agent as usize] = sender;
        self.agents[agent as usize + 1] = receiver;
        self.agents[agent as usize].inner_mut().start(now, &mut self.out);
        self.flush_outbox(now, agent)
    }

    /// Free the slot of connection `flow_id` once it is over and none of its packets is left
    /// (later timer events of its agents are stale by the epoch).
    fn settle(&mut self, flow_id: u32) {
        let slot = flow_id - self.n_flows;
        let c = &self.conns[slot as usize];
        if c.done && c.alive == 0 {
            let agent = 2 * flow_id as usize;
            self.agents[agent] = AnyAgent::Sink(Sink);
            self.agents[agent + 1] = AnyAgent::Sink(Sink);
            self.conns[slot as usize].done = false;
            self.conns[slot as usize].alive = u32::MAX; // not settled twice
            self.free_conns.push(slot);
        }
    }

    /// Packet `id` joins the queue of `link_id`, the hop of its path it is at (`Packet::at`).
    fn enqueue(&mut self, now: u64, link_id: u32, id: PacketId) -> Result<(), SimError> {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        Self::touch(l, now, lo, hi);
        let size = self.pkts[id].size;
        let hop_idx = self.pkts[id].at as usize;
        self.pkts[id].enq_at = now;
        l.counts.offer(size);
        let full = l.q.is_full(size);
        self.hops.arrival(hop_idx, full);
        let mut cx = QdiscCtx {
            now,
            rng: &mut l.rng,
            pkts: &mut self.pkts,
            victims: &mut self.victims,
            marks: &mut self.marks,
            in_service: l.tx,
        };
        let verdict = l.q.enqueue(id, &mut cx);
        match verdict {
            Verdict::Enqueued => self.trace(now, link_id, PacketEvent::Enqueue, id),
            Verdict::Marked(reason) => self.mark_packet(now, link_id, id, reason),
            Verdict::Dropped(reason) => self.drop_packet(now, link_id, id, reason, DropPlace::Queued),
        }
        self.mark_others(now, link_id);
        self.drop_victims(now, link_id);
        // After the victims: a victim in transmission lets the next packet start (Random Drop
        // with in_service_candidate admits the arrival into a full queue on those terms).
        let len = self.links[link_id as usize].q.len();
        let integrals = &mut self.links[link_id as usize].integrals;
        integrals.max_len = integrals.max_len.max(len);
        debug_assert!(
            invariants::within_limit(self.links[link_id as usize].q.inner()),
            "link '{}': queue over its limit",
            self.sc.links[link_id as usize].name
        );
        let busy = self.links[link_id as usize].tx.is_some();
        if len as u64 > self.sc.max_queue_pkts {
            let main = invariants::main_flow_in_queue(self, link_id as usize)
                .map(|(f, n)| format!(", {n} of them from flow '{}'", self.sc.flows[f].name))
                .unwrap_or_default();
            let buffer = match self.links[link_id as usize].q.limit() {
                crate::conf::Limit::Unbounded => "the buffer is unbounded".to_string(),
                crate::conf::Limit::Bytes(b) => format!("its buffer ({b} bytes) holds more packets than that"),
                crate::conf::Limit::Packets(n) => format!("its buffer ({n} packets) is larger than that"),
            };
            return Err(SimError(format!(
                "link '{}': queue grew past {} packets (simulation.max_queue_pkts) at {:.3} s{main}; the offered load exceeds the link and {buffer}: give a smaller limit, or raise max_queue_pkts",
                self.sc.links[link_id as usize].name,
                self.sc.max_queue_pkts,
                now as f64 * 1e-9
            )));
        }
        if !busy {
            self.start_tx(now, link_id);
        }
        Ok(())
    }

    /// Account for a packet the discipline at `link_id` marked (set CE on) for `reason`.
    fn mark_packet(&mut self, now: u64, link_id: u32, id: PacketId, reason: DropReason) {
        self.trace(now, link_id, PacketEvent::Mark(reason), id);
        let p = self.pkts[id];
        self.hops.mark(p.at as usize);
        self.links[link_id as usize].counts.mark(reason);
        let flow = self.owner_of(p.flow);
        self.flows[flow].counts.mark(reason);
        if let Some(c) = self.conn_mut(p.flow) {
            let row = c.row as usize;
            self.fct[row].marks += u32::from(p.is_data());
        }
    }

    /// The marks a discipline reported in `cx.marks` (at dequeue, or on queued packets).
    fn mark_others(&mut self, now: u64, link_id: u32) {
        while let Some((id, reason)) = self.marks.pop() {
            self.mark_packet(now, link_id, id, reason);
        }
    }

    fn drop_victims(&mut self, now: u64, link_id: u32) {
        while let Some((victim, reason)) = self.victims.pop() {
            let l = &mut self.links[link_id as usize];
            if l.tx == Some(victim) {
                // Dropped in service: abort the transmission; the line is free from now.
                l.tx = None;
                l.tx_gen = l.tx_gen.wrapping_add(1);
                l.integrals.busy_ns += overlap(l.tx_start, now, self.measure_from, self.end);
                self.drop_packet(now, link_id, victim, reason, DropPlace::InService);
                self.start_tx(now, link_id);
            } else {
                self.drop_packet(now, link_id, victim, reason, DropPlace::Queued);
            }
        }
    }

    /// Account for and free a packet dropped at `link_id`, from where it was.
    fn drop_packet(&mut self, now: u64, link_id: u32, id: PacketId, reason: DropReason, place: DropPlace) {
        self.trace(now, link_id, PacketEvent::Drop(reason), id);
        let p = self.pkts[id];
        self.hops.drop(p.at as usize, place == DropPlace::Queued);
        self.links[link_id as usize].counts.drop(p.size, reason, place);
        let flow = self.owner_of(p.flow);
        self.flows[flow].counts.drop(p.kind, p.size, reason);
        self.pkts.free(id);
        if let Some(c) = self.conn_mut(p.flow) {
            c.alive -= 1;
            let row = c.row as usize;
            self.fct[row].drops += u32::from(p.is_data());
            self.settle(p.flow);
        }
    }

    /// Give the idle transmitter of `link_id` its next packet, if any.
    fn start_tx(&mut self, now: u64, link_id: u32) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        debug_assert!(l.tx.is_none());
        Self::touch(l, now, lo, hi);
        let mut cx = QdiscCtx {
            now,
            rng: &mut l.rng,
            pkts: &mut self.pkts,
            victims: &mut self.victims,
            marks: &mut self.marks,
            in_service: None,
        };
        let next = l.q.dequeue(&mut cx);
        if next.is_none() {
            // A shaper holding its next packet back: wake the link when it may go.
            if let Some(at) = l.q.ready_at() {
                if l.wake_at != Some(at) {
                    l.wake_at = Some(at);
                    self.sched.at(at.max(now), Event::Wake { link: link_id });
                }
            }
        }
        self.mark_others(now, link_id);
        self.drop_victims(now, link_id);
        let Some(id) = next else { return };
        let p = &mut self.pkts[id];
        let wait = now - p.enq_at;
        p.qdelay += wait;
        let size = p.size;
        let hi = p.at as usize;
        self.hops.departure(hi, wait);
        let l = &mut self.links[link_id as usize];
        l.counts.transmit(size, wait);
        l.tx = Some(id);
        l.tx_start = now;
        let gen = l.tx_gen;
        self.trace(now, link_id, PacketEvent::Dequeue, id);
        let done = self.links[link_id as usize].line.transmission_end(now, size);
        self.sched.at(done, Event::TxDone { link: link_id, gen });
    }

    fn tx_done(&mut self, now: u64, link_id: u32) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        let id = l.tx.take().expect("a transmission was in progress");
        l.integrals.busy_ns += overlap(l.tx_start, now, lo, hi);
        let size = self.pkts[id].size;
        if l.line.loses(&mut l.rng) {
            self.drop_packet(now, link_id, id, DropReason::LinkLoss, DropPlace::OnWire);
        } else {
            l.counts.propagate(size);
            let mut at = l.line.far_end_at(now);
            if self.processing.is_some() {
                at = self.processed_at(at, id);
            }
            self.sched.at(at, Event::Arrive { link: link_id, pkt: id });
        }
        self.start_tx(now, link_id);
    }

    /// When packet `id`, reaching the far end of its current hop at `reach`, gets through the
    /// processing of the router there (`reach` when that is its destination, or the next link
    /// has no processing time). The packet counts as on the wire until then.
    fn processed_at(&mut self, reach: u64, id: PacketId) -> u64 {
        let hop = self.pkts[id].at as usize;
        let Some(pr) = self.processing.as_deref_mut() else { return reach };
        if self.last_hop[hop] {
            return reach;
        }
        pr.admitted_at(self.paths[hop + 1] as usize, reach)
    }

    fn arrive(&mut self, now: u64, id: PacketId) -> Result<(), SimError> {
        let p = &mut self.pkts[id];
        if !self.last_hop[p.at as usize] {
            p.at += 1;
            let next = self.paths[p.at as usize];
            return self.enqueue(now, next, id);
        }
        let p = *p;
        self.pkts.free(id);
        let flow = self.owner_of(p.flow);
        self.flows[flow].counts.deliver(p.kind, p.size, now - p.sent_at, p.qdelay);
        let agent = if p.kind == PacketKind::Data { 2 * p.flow + 1 } else { 2 * p.flow };
        if let Some(c) = self.conn_mut(p.flow) {
            c.alive -= 1;
            if c.done {
                // Over: a late duplicate or ACK has nothing to tell its agents.
                self.settle(p.flow);
                return Ok(());
            }
        }
        self.agents[agent as usize].inner_mut().on_packet(now, &p, &mut self.out);
        self.flush_outbox(now, agent)
    }

    /// The `max_packets` guard tripped: say where the packets are.
    fn too_many_packets(&self, now: u64) -> SimError {
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
            now as f64 * 1e-9,
            self.sc.max_packets
        ))
    }

    fn sample(&mut self, now: u64) {
        let mut series = std::mem::take(&mut self.series);
        series.record(self, now);
        self.series = series;
    }
}

impl SimView for Simulation {
    fn scenario(&self) -> &Scenario {
        &self.sc
    }
    fn owner(&self, flow: u32) -> usize {
        self.owner_of(flow)
    }
    fn connections(&self) -> &[FctRecord] {
        &self.fct
    }
    fn rtt_samples(&self, flow: usize) -> Option<&[(u64, u64)]> {
        self.rtt_log[flow].as_deref()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn now(&self) -> u64 {
        self.sched.now()
    }
    fn next_event_time(&self) -> Option<u64> {
        self.sched.next_time()
    }
    fn peak_pending_events(&self) -> u64 {
        self.sched.peak_len() as u64
    }
    fn events(&self) -> u64 {
        self.events
    }
    fn measure_from(&self) -> u64 {
        self.measure_from
    }
    fn end(&self) -> u64 {
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
            Event::Arrive { link, pkt } => Some((link, pkt)),
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
        self.flows[flow].completed_at
    }
    fn sender_gauges(&self, flow: usize, out: &mut Vec<(&'static str, f64)>) {
        self.agents[2 * flow].inner().gauges(out)
    }
    fn hops(&self) -> &HopCounters {
        &self.hops
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
        assert!(link_hot_end <= 256, "link hot fields end at byte {link_hot_end}");
        let flow_hot_end = offset_of!(FlowRt, counts) + offset_of!(FlowCounters, dropped);
        assert!(flow_hot_end <= 256, "flow hot fields end at byte {flow_hot_end}");
    }
}
