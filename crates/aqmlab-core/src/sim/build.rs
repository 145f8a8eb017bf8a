//! Building a run: the links' and flows' run-time records, the agents, the flattened paths,
//! the first events.

use std::sync::Arc;

use super::{FlowRt, LinkRt, Paths, Simulation};
use crate::agent::{FlowIds, Outbox};
use crate::ids::{AgentId, FlowId};
use crate::link::{LinkModel, Processing};
use crate::packet::PacketArena;
use crate::qdisc::{LinkInfo, QueueDisc};
use crate::results::SeriesRecorder;
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::sched::{Event, Scheduler};
use crate::stats::gauges::GaugeAverage;
use crate::stats::hops::HopCounters;
use crate::stats::{AppDelays, FlowCounters, LinkCounters, LinkIntegrals, Window};
use crate::units::{SimDuration, SimTime};
use crate::view::hops_by_flow;

impl Simulation {
    /// Build a run of `sc` with master seed `seed` (the scenario's own when `None`); the run
    /// keeps a copy of the scenario ([`Simulation::shared`] shares one instead).
    pub fn new(sc: &Scenario, seed: Option<u64>) -> Simulation {
        Simulation::shared(Arc::new(sc.clone()), seed)
    }

    /// Build a run of `sc`, as [`Simulation::new`], sharing the scenario rather than copying it.
    pub fn shared(scenario: Arc<Scenario>, seed: Option<u64>) -> Simulation {
        let sc: &Scenario = &scenario;
        let seed = seed.unwrap_or(sc.seed);
        let mean_packet_size = if sc.flows.is_empty() {
            1000
        } else {
            (sc.flows.iter().map(|f| f.params.mean_packet_size()).sum::<f64>() / sc.flows.len() as f64).round().max(1.0)
                as u32
        };
        let has_processing = sc.links.iter().any(|l| l.processing_jitter_ns > 0);
        let links = sc
            .links
            .iter()
            .enumerate()
            .map(|(li, l)| {
                let info = LinkInfo { rate_bps: l.rate_bps, n_flows: sc.flows.len(), mean_packet_size };
                let queue = l.queue.build(&info);
                let direct_capable = l.loss == 0.0 && !has_processing && !queue.may_drop_in_service();
                let gauged = sc.trace.links.contains(&(li as u32));
                LinkRt {
                    line: LinkModel::new(l.rate_bps, l.delay_ns, l.loss, l.capacity.clone()),
                    q: queue,
                    rng: SimRng::component(seed, "link", &l.name),
                    tx: None,
                    tx_start: SimTime::ZERO,
                    tx_gen: 0,
                    tx_direct: false,
                    tx_end_queued: false,
                    direct_capable,
                    tx_end: SimTime::ZERO,
                    tx_seq: 0,
                    // The queue-length integrals start at the warmup.
                    last_change: SimTime(sc.warmup_ns),
                    counts: LinkCounters::default(),
                    integrals: LinkIntegrals::default(),
                    gauge_avg: gauged.then(GaugeAverage::default),
                    gauged,
                    wake_at: None,
                }
            })
            .collect();
        // At their final sizes (grown by doubling, the agents of 100,000 flows took 117 MB for 90).
        let hops_total: usize =
            sc.flows.iter().flat_map(|f| f.path_pairs()).map(|(fwd, rev)| fwd.len() + rev.len()).sum();
        let mut paths = Paths::with_capacity(hops_total);
        let mut flows = Vec::with_capacity(sc.flows.len());
        let mut agents = Vec::with_capacity(2 * sc.flows.len());
        let mut sched = Scheduler::new();
        let mut pair_paths = Vec::with_capacity(sc.flows.len());
        for (i, f) in sc.flows.iter().enumerate() {
            // The pairs' offsets, for a flow spanning node sets only (a vector per flow was
            // 100,000 allocations for nothing).
            let (mut first, mut offsets) = (None, Vec::new());
            for (fwd_path, rev_path) in f.path_pairs() {
                let pair = (paths.push(fwd_path), paths.push(rev_path));
                first.get_or_insert(pair);
                if !f.pairs.is_empty() {
                    offsets.push(pair);
                }
            }
            let (fwd, rev) = first.expect("every flow has a path");
            pair_paths.push(offsets);
            flows.push(FlowRt {
                counts: FlowCounters::default(),
                fwd,
                rev,
                fwd_link: paths.link(fwd as usize),
                rev_link: paths.link(rev as usize),
                app_delays: AppDelays::default(),
                completed_at: None,
            });
            let ids = FlowIds { flow: i as u32, src: f.src, dst: f.dst };
            // The start draw has its own stream, so jitter does not shift the flow's own draws.
            let mut when = f.when;
            if when.jitter.ns() > 0 {
                let u = SimRng::component(seed, "start", &f.name).uniform();
                when.start += SimDuration((u * when.jitter.ns() as f64) as u64);
            }
            let weights: Vec<f64> = f.pairs.iter().map(|p| p.weight).collect();
            let rng = SimRng::component(seed, "flow", &f.name);
            let (sender, receiver) = f.params.build(ids, when, rng, &weights);
            agents.push(sender);
            agents.push(receiver);
            sched.at(when.start, Event::Start { agent: AgentId::sender(FlowId(i as u32)) });
        }
        debug_assert!(
            hops_by_flow(sc).map(|(_, _, link)| link).eq(paths.links()),
            "hops_by_flow walks the layout built here"
        );
        let hops = HopCounters::new(paths.len(), sc.warmup_ns > 0);
        let processing = Processing::new(sc.links.iter().map(|l| (l.name.as_str(), l.processing_jitter_ns)), seed);
        let series = SeriesRecorder::new(sc);
        if let Some(interval) = sc.trace.interval {
            sched.at(SimTime(sc.warmup_ns.min(interval)), Event::Sample);
        }
        Simulation {
            sc: Arc::clone(&scenario),
            seed,
            sched,
            pkts: PacketArena::new(),
            links,
            flows,
            agents,
            paths,
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
            measure_from: SimTime(sc.warmup_ns),
            end: SimTime(sc.duration_ns),
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
            tx_ends_in_place: true,
        }
    }
}
