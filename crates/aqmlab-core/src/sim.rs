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
//! Counters are taken at the event: a packet sent before warmup and delivered after it counts
//! as delivered, not as sent.

use crate::app::{AnyAgent, FlowIds, Outbox};
use crate::hops::HopCounters;
use crate::invariants::{FlowLedger, LinkLedger};
use crate::packet::{flags, PacketArena, PacketId, PacketKind};
use crate::packet_trace::{PacketEvent, PacketTracer};
use crate::qdisc::{AnyQdisc, DropReason, LinkInfo, PerReason, QdiscCtx, QueueDisc, Verdict};
use crate::results::{self, Results};
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::sched::{Event, Scheduler};
use crate::units::tx_time_ns;

/// A run that cannot go on: a guard tripped.
#[derive(Clone, Debug, PartialEq)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

/// Counters of one link direction over the window that every packet updates (drops and marks,
/// rarer, are in [`LinkRt`]'s cold part).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Integral of queue length over time, packet-ns and byte-ns.
    pub area_pkts: u128,
    pub area_bytes: u128,
    pub qdelay_ns: u128,
    pub arrivals: u64,
    pub departures: u64,
    pub busy_ns: u64,
    pub max_len: usize,
}

/// Counters of one flow. In declaration order (`repr(C)`): those a packet's round trip updates
/// first, so that they share cache lines (see [`FlowRt`]).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct FlowStats {
    pub delay_ns: u128,
    pub qdelay_ns: u128,
    pub rtt_ns: u128,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub retransmits: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub goodput_bytes: u64,
    pub rtt_samples: u64,
    pub timeouts: u64,
    pub ack_drops: u64,
    pub marks: u64,
    pub app_delay_ns: u128,
    pub app_delay_sq_s2: f64,
    pub app_delay_samples: u64,
    pub completed_at: Option<u64>,
    pub drops: PerReason,
}

/// One link direction at run time. Fields in declaration order (`repr(C)`, cache-line aligned):
/// what every packet touches fills the first four cache lines exactly, the rest follows. With
/// 10000 flows there are 20000 access links, and a packet crossing one should cost four lines,
/// not the whole record.
#[repr(C, align(64))]
pub(crate) struct LinkRt {
    pub stats: LinkStats,
    pub q: AnyQdisc,
    pub tx: Option<PacketId>,
    /// Generation of the current transmission; an abort bumps it so its TxDone is ignored.
    pub tx_gen: u32,
    /// When the queue-length integrals were last brought up to date.
    pub last_change: u64,
    pub tx_start: u64,
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub loss: f64,
    /// Whole-run counts, for the invariants ([`crate::invariants`]).
    pub ledger: LinkLedger,
    /// Drops and marks over the window.
    pub drops: PerReason,
    pub marks: u64,
    pub rng: SimRng,
    /// Time integrals of the discipline's gauges (links in `[trace] links` only).
    pub gauge_avg: Option<results::GaugeAverage>,
}

/// One flow at run time (`repr(C)`, cache-line aligned): what a packet's round trip touches
/// fits in the first four cache lines.
#[repr(C, align(64))]
pub(crate) struct FlowRt {
    /// Whole-run counts, for the invariants ([`crate::invariants`]).
    pub ledger: FlowLedger,
    /// Offsets of the forward and reverse paths in `Simulation::paths`.
    pub fwd: u32,
    pub rev: u32,
    pub stats: FlowStats,
}

/// One run of a scenario.
pub struct Simulation {
    pub(crate) sc: Scenario,
    pub(crate) seed: u64,
    pub(crate) sched: Scheduler,
    pub(crate) pkts: PacketArena,
    pub(crate) links: Vec<LinkRt>,
    pub(crate) flows: Vec<FlowRt>,
    /// Sender of flow f at 2f, receiver at 2f + 1.
    pub(crate) agents: Vec<AnyAgent>,
    /// Every flow's forward then reverse path, flattened; `hops` and `last_hop` run parallel.
    pub(crate) paths: Vec<u32>,
    /// Whether the hop ends its path (the packet has reached its destination): so an arrival
    /// needs nothing from the record of the link it came over.
    last_hop: Vec<bool>,
    pub(crate) hops: HopCounters,
    pub(crate) events: u64,
    pub(crate) series: results::SeriesRecorder,
    out: Outbox,
    victims: Vec<(PacketId, DropReason)>,
    pub(crate) measure_from: u64,
    pub(crate) end: u64,
    pub(crate) started: std::time::Instant,
    /// Wall time spent handling events (in `run_for`), apart from building and reporting.
    pub(crate) loop_wall: std::time::Duration,
    /// pcap files and the packet log, when `[trace]` asks for them ([`Simulation::trace_packets_to`]).
    tracer: Option<Box<PacketTracer>>,
}

/// Every (flow, hop index, link) of the simulation's flattened paths, in their order: flow by
/// flow, the forward path then the reverse one (the layout `Simulation::new` builds).
pub(crate) fn hops_by_flow(sc: &Scenario) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    sc.flows
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.fwd.iter().chain(&f.rev).map(move |&link| (fi, link)))
        .enumerate()
        .map(|(hop, (fi, link))| (fi, hop, link))
}

/// Length of the overlap of [a, b) with [lo, hi).
#[inline]
fn overlap(a: u64, b: u64, lo: u64, hi: u64) -> u64 {
    b.min(hi).saturating_sub(a.max(lo))
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
                    rate_bps: l.rate_bps,
                    delay_ns: l.delay_ns,
                    loss: l.loss,
                    q: l.queue.build(&info),
                    rng: SimRng::stream(seed, &format!("link:{}", l.name)),
                    tx: None,
                    tx_start: 0,
                    tx_gen: 0,
                    // The queue-length integrals start at the warmup.
                    last_change: sc.warmup_ns,
                    stats: LinkStats::default(),
                    gauge_avg: sc.trace.links.contains(&(li as u32)).then(results::GaugeAverage::default),
                    ledger: LinkLedger::default(),
                    drops: PerReason::default(),
                    marks: 0,
                }
            })
            .collect();
        let mut paths = Vec::new();
        let mut flows = Vec::new();
        let mut agents = Vec::new();
        let mut sched = Scheduler::new();
        let mut last_hop = Vec::new();
        for (i, f) in sc.flows.iter().enumerate() {
            let fwd = paths.len() as u32;
            let rev = fwd + f.fwd.len() as u32;
            for path in [&f.fwd, &f.rev] {
                paths.extend_from_slice(path);
                last_hop.extend((0..path.len()).map(|k| k + 1 == path.len()));
            }
            flows.push(FlowRt { ledger: FlowLedger::default(), fwd, rev, stats: FlowStats::default() });
            let ids = FlowIds { flow: i as u32, src: f.src, dst: f.dst };
            // The start draw has its own stream, so jitter does not shift the flow's own draws.
            let mut when = f.when;
            if when.jitter > 0 {
                let u = SimRng::stream(seed, &format!("start:{}", f.name)).uniform();
                when.start += (u * when.jitter as f64) as u64;
            }
            let (sender, receiver) = f.params.build(ids, when, SimRng::stream(seed, &format!("flow:{}", f.name)));
            agents.push(sender);
            agents.push(receiver);
            sched.at(when.start, Event::Start { agent: 2 * i as u32 });
        }
        debug_assert!(
            hops_by_flow(sc).map(|(_, _, link)| link).eq(paths.iter().copied()),
            "hops_by_flow walks the layout built here"
        );
        let hops = HopCounters::new(paths.len(), sc.warmup_ns > 0);
        let series = results::SeriesRecorder::new(sc);
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
            events: 0,
            series,
            out: Outbox::default(),
            victims: Vec::new(),
            measure_from: sc.warmup_ns,
            end: sc.duration_ns,
            started: std::time::Instant::now(),
            loop_wall: std::time::Duration::ZERO,
            tracer: None,
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
        if let Some(t) = &mut self.tracer {
            t.record(now, link, event, &self.pkts[id], self.links[link as usize].q.len());
        }
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
        self.links.iter().map(|l| l.ledger.transmitted.pkts).sum()
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
                let (link, flow) = self.busiest();
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
            if t >= self.measure_from && self.hops.awaits_window() {
                self.hops.start_window();
            }
            // Between events, where the invariants are defined (an event in hand is in neither
            // the queue of pending events nor yet where it puts its packet).
            #[cfg(debug_assertions)]
            if self.events % 65_536 == 65_535 {
                self.assert_invariants();
            }
            let (now, ev) = self.sched.pop().expect("peeked");
            self.events += 1;
            match ev {
                Event::TxDone { link, gen } => {
                    if self.links[link as usize].tx_gen == gen {
                        self.tx_done(now, link)
                    }
                }
                Event::Arrive { pkt, .. } => self.arrive(now, pkt)?,
                Event::Timer { agent, kind, gen } => {
                    self.agents[agent as usize].inner_mut().on_timer(now, kind, gen, &mut self.out);
                    self.flush_outbox(now, agent)?;
                }
                Event::Start { agent } => {
                    self.agents[agent as usize].inner_mut().start(now, &mut self.out);
                    self.flush_outbox(now, agent)?;
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
                l.stats.busy_ns += overlap(l.tx_start, end, self.measure_from, self.end);
                l.tx_start = end;
            }
        }
        results::build(self, end)
    }

    /// Data packets of each flow still in queues or on the wire, counted from the arena.
    pub fn in_flight_by_flow(&self) -> Vec<u64> {
        let mut counts = vec![0u64; self.flows.len()];
        for id in self.pkts.live_ids() {
            let p = &self.pkts[id];
            if p.kind == PacketKind::Data {
                counts[p.flow as usize] += 1;
            }
        }
        counts
    }

    // -----------------------------------------------------------------------------------------

    #[inline]
    fn measuring(&self, now: u64) -> bool {
        now >= self.measure_from
    }

    /// Add the time since the last change to the queue-length (and traced gauge) integrals.
    #[inline]
    fn touch(l: &mut LinkRt, now: u64, lo: u64, hi: u64) {
        let dt = overlap(l.last_change, now, lo, hi);
        if dt > 0 {
            l.stats.area_pkts += l.q.len() as u128 * dt as u128;
            l.stats.area_bytes += l.q.bytes() as u128 * dt as u128;
            if let Some(g) = &mut l.gauge_avg {
                g.add(l.q.inner(), dt);
            }
        }
        l.last_change = l.last_change.max(now);
    }

    fn flush_outbox(&mut self, now: u64, agent: u32) -> Result<(), SimError> {
        let flow = (agent / 2) as usize;
        let is_sender = agent.is_multiple_of(2);
        let measuring = self.measuring(now);
        let out = &mut self.out;
        let st = &mut self.flows[flow].stats;
        if measuring {
            st.goodput_bytes += out.goodput_bytes;
            st.timeouts += out.timeouts as u64;
            for &r in &out.rtt_samples {
                st.rtt_ns += r as u128;
                st.rtt_samples += 1;
            }
            for &d in &out.app_delay_samples {
                st.app_delay_ns += d as u128;
                st.app_delay_sq_s2 += (d as f64 * 1e-9).powi(2);
                st.app_delay_samples += 1;
            }
        }
        if out.completed && st.completed_at.is_none() {
            st.completed_at = Some(now);
        }
        for t in out.timers.drain(..) {
            self.sched.at(t.at.max(now), Event::Timer { agent, kind: t.kind, gen: t.gen });
        }
        let packets = std::mem::take(&mut out.packets);
        out.clear();
        for mut p in packets.iter().copied() {
            if self.pkts.live() as u64 >= self.sc.max_packets {
                return Err(self.too_many_packets(now));
            }
            p.sent_at = now;
            p.qdelay = 0;
            if is_sender && p.kind == PacketKind::Data {
                let st = &mut self.flows[flow].stats;
                if measuring {
                    st.sent_pkts += 1;
                    st.sent_bytes += p.size as u64;
                    if p.has(flags::RETX) {
                        st.retransmits += 1;
                    }
                }
            }
            let base = if is_sender { self.flows[flow].fwd } else { self.flows[flow].rev };
            p.at = base;
            let link = self.paths[base as usize];
            self.flows[flow].ledger.sent(p.kind, p.size);
            let id = self.pkts.alloc(p);
            self.enqueue(now, link, id)?;
        }
        // Give the vector back so its capacity is reused.
        let mut packets = packets;
        packets.clear();
        self.out.packets = packets;
        Ok(())
    }

    /// Packet `id` joins the queue of `link_id`, the hop of its path it is at (`Packet::at`).
    fn enqueue(&mut self, now: u64, link_id: u32, id: PacketId) -> Result<(), SimError> {
        let measuring = self.measuring(now);
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        Self::touch(l, now, lo, hi);
        let size = self.pkts[id].size;
        let hop_idx = self.pkts[id].at as usize;
        self.pkts[id].enq_at = now;
        l.ledger.offered.add(size);
        let full = l.q.is_full(size);
        if measuring {
            l.stats.arrivals += 1;
        }
        self.hops.arrival(hop_idx, full);
        let mut cx =
            QdiscCtx { now, rng: &mut l.rng, pkts: &mut self.pkts, victims: &mut self.victims, in_service: l.tx };
        let verdict = l.q.enqueue(id, &mut cx);
        match verdict {
            Verdict::Enqueued => self.trace(now, link_id, PacketEvent::Enqueue, id),
            Verdict::Marked => {
                self.trace(now, link_id, PacketEvent::Mark, id);
                self.hops.mark(hop_idx);
                if measuring {
                    self.links[link_id as usize].marks += 1;
                    self.flows[self.pkts[id].flow as usize].stats.marks += 1;
                }
            }
            Verdict::Dropped(reason) => {
                self.links[link_id as usize].ledger.queue_dropped.add(size);
                self.drop_packet(now, link_id, id, reason, false)
            }
        }
        self.drop_victims(now, link_id);
        // After the victims: a victim in transmission lets the next packet start (Random Drop
        // with in_service_candidate admits the arrival into a full queue on those terms).
        let len = self.links[link_id as usize].q.len();
        let stats = &mut self.links[link_id as usize].stats;
        stats.max_len = stats.max_len.max(len);
        debug_assert!(
            crate::invariants::within_limit(self.links[link_id as usize].q.inner()),
            "link '{}': queue over its limit",
            self.sc.links[link_id as usize].name
        );
        let busy = self.links[link_id as usize].tx.is_some();
        if len as u64 > self.sc.max_queue_pkts {
            let main = self
                .main_flow_in_queue(link_id as usize)
                .map(|(f, n)| format!(", {n} of them from flow '{}'", self.sc.flows[f].name))
                .unwrap_or_default();
            return Err(SimError(format!(
                "link '{}': queue grew past {} packets (simulation.max_queue_pkts) at {:.3} s{main}; the offered load exceeds the link and the buffer is unbounded",
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

    fn drop_victims(&mut self, now: u64, link_id: u32) {
        while let Some((victim, reason)) = self.victims.pop() {
            let size = self.pkts[victim].size;
            let l = &mut self.links[link_id as usize];
            if l.tx == Some(victim) {
                l.ledger.aborted.add(size);
                // Dropped in service: abort the transmission; the line is free from now.
                l.tx = None;
                l.tx_gen = l.tx_gen.wrapping_add(1);
                l.stats.busy_ns += overlap(l.tx_start, now, self.measure_from, self.end);
                self.drop_packet(now, link_id, victim, reason, true);
                self.start_tx(now, link_id);
            } else {
                l.ledger.queue_dropped.add(size);
                self.drop_packet(now, link_id, victim, reason, false);
            }
        }
    }

    /// Account for and free a dropped packet; `departed` if the transmitter had taken it (a
    /// transmission aborted, a packet lost on the wire), not if refused or taken from the queue.
    fn drop_packet(&mut self, now: u64, link_id: u32, id: PacketId, reason: DropReason, departed: bool) {
        self.trace(now, link_id, PacketEvent::Drop(reason), id);
        let p = self.pkts[id];
        let hi = p.at as usize;
        self.hops.drop(hi, !departed);
        let measuring = self.measuring(now);
        self.flows[p.flow as usize].ledger.dropped(p.kind, p.size);
        let st = &mut self.flows[p.flow as usize].stats;
        if measuring {
            self.links[link_id as usize].drops.add(reason);
            if p.kind == PacketKind::Data {
                st.drops.add(reason);
            } else {
                st.ack_drops += 1;
            }
        }
        self.pkts.free(id);
    }

    /// Give the idle transmitter of `link_id` its next packet, if any.
    fn start_tx(&mut self, now: u64, link_id: u32) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        debug_assert!(l.tx.is_none());
        Self::touch(l, now, lo, hi);
        let mut cx =
            QdiscCtx { now, rng: &mut l.rng, pkts: &mut self.pkts, victims: &mut self.victims, in_service: None };
        let next = l.q.dequeue(&mut cx);
        let rate = l.rate_bps;
        self.drop_victims(now, link_id);
        let Some(id) = next else { return };
        let measuring = self.measuring(now);
        let p = &mut self.pkts[id];
        let wait = now - p.enq_at;
        p.qdelay += wait;
        let size = p.size;
        let hi = p.at as usize;
        self.hops.departure(hi, wait);
        self.links[link_id as usize].ledger.transmitted.add(size);
        let l = &mut self.links[link_id as usize];
        if measuring {
            l.stats.departures += 1;
            l.stats.qdelay_ns += wait as u128;
        }
        l.tx = Some(id);
        l.tx_start = now;
        let gen = l.tx_gen;
        self.trace(now, link_id, PacketEvent::Dequeue, id);
        self.sched.at(now + tx_time_ns(size, rate), Event::TxDone { link: link_id, gen });
    }

    fn tx_done(&mut self, now: u64, link_id: u32) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id as usize];
        let id = l.tx.take().expect("a transmission was in progress");
        l.stats.busy_ns += overlap(l.tx_start, now, lo, hi);
        let size = self.pkts[id].size;
        if l.loss > 0.0 && l.rng.chance(l.loss) {
            self.links[link_id as usize].ledger.lost.add(size);
            self.drop_packet(now, link_id, id, DropReason::LinkLoss, true);
        } else {
            l.ledger.propagated.add(size);
            let at = now + l.delay_ns;
            self.sched.at(at, Event::Arrive { link: link_id, pkt: id });
        }
        self.start_tx(now, link_id);
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
        let flow = p.flow as usize;
        self.flows[flow].ledger.delivered(p.kind, p.size);
        let agent = if p.kind == PacketKind::Data {
            let st = &mut self.flows[flow].stats;
            if now >= self.measure_from {
                st.delivered_pkts += 1;
                st.delivered_bytes += p.size as u64;
                st.delay_ns += (now - p.sent_at) as u128;
                st.qdelay_ns += p.qdelay as u128;
            }
            2 * flow as u32 + 1
        } else {
            2 * flow as u32
        };
        self.agents[agent as usize].inner_mut().on_packet(now, &p, &mut self.out);
        self.flush_outbox(now, agent)
    }

    /// The `max_packets` guard tripped: say where the packets are.
    fn too_many_packets(&self, now: u64) -> SimError {
        let link = self
            .fullest_link()
            .map(|(l, q, w)| {
                format!(
                    "; link '{}' holds the most ({q} queued or in transmission, {w} on the wire)",
                    self.sc.links[l].name
                )
            })
            .unwrap_or_default();
        let in_flight = self.in_flight_by_flow();
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

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::offset_of;

    /// What every packet touches stays within the first four cache lines of a link or flow
    /// record (a field added in the wrong place would spread it over more).
    #[test]
    fn hot_fields_fit_in_four_cache_lines() {
        let link_hot_end = offset_of!(LinkRt, ledger) + offset_of!(LinkLedger, queue_dropped);
        assert!(link_hot_end <= 256, "link hot fields end at byte {link_hot_end}");
        let flow_hot_end = offset_of!(FlowRt, stats) + offset_of!(FlowStats, rtt_samples);
        assert!(flow_hot_end <= 256, "flow hot fields end at byte {flow_hot_end}");
    }
}
