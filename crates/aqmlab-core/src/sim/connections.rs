//! The connections of workloads: a slot per connection open at once, reused once it is over and
//! none of its packets is left; its flow id is `n_flows + slot`, and it counts for its workload.

use super::{SimError, Simulation};
use crate::agent::FlowIds;
use crate::app::sink::Sink;
use crate::app::workload::Hop;
use crate::app::AnyAgent;
use crate::ids::{AgentId, FlowId};
use crate::stats::fct::FctRecord;
use crate::units::SimTime;

/// A connection of a workload, while it lasts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Connection {
    /// The workload it belongs to (a flow index): what its packets count for.
    pub(super) owner: u32,
    /// Its record in `Simulation::fct`.
    pub(super) row: u32,
    /// Offsets of its forward and reverse paths in `paths`.
    pub(super) fwd: u32,
    pub(super) rev: u32,
    /// Bumped at each opening in the slot: timer events of an earlier connection are stale.
    pub(super) epoch: u32,
    /// Its packets in queues or on the wire.
    pub(super) alive: u32,
    /// Every byte acknowledged.
    pub(super) done: bool,
}

impl Simulation {
    /// The connection slot a flow id names, if it is a connection's (see `n_flows`).
    #[inline]
    pub(super) fn slot_of(&self, flow: FlowId) -> Option<u32> {
        flow.0.checked_sub(self.n_flows)
    }

    /// The scenario flow (its index) that a packet's flow id counts for.
    #[inline]
    pub(super) fn owner_of(&self, flow: FlowId) -> usize {
        match self.slot_of(flow) {
            None => flow.0 as usize,
            Some(slot) => self.conns[slot as usize].owner as usize,
        }
    }

    /// The connection a packet's flow id names, if it is one.
    #[inline]
    pub(super) fn conn_mut(&mut self, flow: FlowId) -> Option<&mut Connection> {
        self.slot_of(flow).map(|c| &mut self.conns[c as usize])
    }

    /// The records of every connection opened so far (the workloads' flow completion times).
    pub fn connections(&self) -> &[FctRecord] {
        &self.fct
    }

    /// Connection slots made so far: the most connections open at once (slots are reused).
    pub fn connection_slots(&self) -> usize {
        self.conns.len()
    }

    /// The epoch of the slot an agent is in: 0 for a flow's, the connection's for a workload's.
    #[inline]
    pub(super) fn epoch_of(&self, agent: AgentId) -> u32 {
        match self.slot_of(agent.flow()) {
            Some(c) => self.conns[c as usize].epoch,
            None => 0,
        }
    }

    /// Open a connection that workload `flow` asks for: a slot (a free one, or a new one), a
    /// sender and a receiver of the workload's TCP settings, its record; it starts at once.
    pub(super) fn open_connection(
        &mut self,
        now: SimTime,
        flow: u32,
        req: crate::agent::ConnectionReq,
    ) -> Result<(), SimError> {
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
        let flow_id = FlowId(self.n_flows + slot);
        let ids = FlowIds { flow: flow_id.0, src: pair.src, dst: pair.dst };
        let hops = |links: &[u32]| -> Vec<Hop> {
            links
                .iter()
                .map(|&l| Hop {
                    rate_bps: self.links[l as usize].line.rate_bps(),
                    delay_ns: self.links[l as usize].line.delay().ns(),
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
        let agent = AgentId::sender(flow_id);
        self.agents[agent.index()] = sender;
        self.agents[AgentId::receiver(flow_id).index()] = receiver;
        self.agents[agent.index()].inner_mut().start(now, &mut self.out);
        self.flush_outbox(now, agent)
    }

    /// Free the slot of connection `flow_id` once it is over and none of its packets is left
    /// (later timer events of its agents are stale by the epoch).
    pub(super) fn settle(&mut self, flow_id: FlowId) {
        let slot = flow_id.0 - self.n_flows;
        let c = &self.conns[slot as usize];
        if c.done && c.alive == 0 {
            self.agents[AgentId::sender(flow_id).index()] = AnyAgent::Sink(Sink);
            self.agents[AgentId::receiver(flow_id).index()] = AnyAgent::Sink(Sink);
            self.conns[slot as usize].done = false;
            self.conns[slot as usize].alive = u32::MAX; // not settled twice
            self.free_conns.push(slot);
        }
    }
}
