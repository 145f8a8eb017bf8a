//! A packet's life through the event loop, and where each of its counts is taken: sent
//! (`flush_outbox`), offered to a queue (`enqueue`), marked or dropped (`mark_packet`,
//! `drop_packet`: every mark and drop goes through one of them), transmitted (`start_tx`), on
//! the wire (`tx_done`, asking the link model, [`crate::link`]), arrived at the next hop or
//! delivered (`arrive`).

use super::{LinkRt, SimError, Simulation};
use crate::ids::{AgentId, FlowId, LinkId};
use crate::invariants;
use crate::packet::{flags, PacketId, PacketKind};
use crate::packet_trace::PacketEvent;
use crate::prefetch;
use crate::qdisc::{DropReason, QdiscCtx, QueueDisc, Verdict};
use crate::sched::Event;
use crate::stats::{overlap, DropPlace};
use crate::units::{SimDuration, SimTime};

impl Simulation {
    pub(super) fn trace(&mut self, now: SimTime, link: LinkId, event: PacketEvent, id: PacketId) {
        if self.tracer.is_some() {
            let packet_flow = FlowId(self.pkts[id].flow);
            let flow = self.owner_of(packet_flow);
            let connection = self.slot_of(packet_flow).map(|c| {
                let row = self.conns[c as usize].row;
                (row, self.fct[row as usize].bytes)
            });
            let qlen = self.links[link.index()].q.len();
            if let Some(t) = &mut self.tracer {
                t.record(now.ns(), link.0, event, &self.pkts[id], flow, connection, qlen);
            }
        }
    }

    /// Add the time since the last change to the queue-length (and traced gauge) integrals.
    #[inline]
    pub(super) fn touch(l: &mut LinkRt, now: SimTime, lo: SimTime, hi: SimTime) {
        let dt = overlap(l.last_change, now, lo, hi);
        if dt > SimDuration::ZERO {
            l.integrals.area_pkts += l.q.len() as u128 * dt.ns() as u128;
            l.integrals.area_bytes += l.q.bytes() as u128 * dt.ns() as u128;
            if l.gauged {
                if let Some(g) = &mut l.gauge_avg {
                    g.add(l.q.inner(), dt);
                }
            }
        }
        l.last_change = l.last_change.max(now);
    }

    pub(super) fn flush_outbox(&mut self, now: SimTime, agent: AgentId) -> Result<(), SimError> {
        let flow_id = agent.flow();
        let flow = self.owner_of(flow_id);
        let is_sender = agent.is_sender();
        let epoch = self.epoch_of(agent);
        let out = &mut self.out;
        let f = &mut self.flows[flow];
        // Each count is written only when there is something to add: a receiver's event adds
        // none of these, and at 100,000 flows each line of the flow's record not already asked
        // for (`prefetch_event`) is a miss.
        if out.goodput_bytes != 0 {
            f.counts.goodput_bytes += out.goodput_bytes;
        }
        if out.timeouts != 0 {
            f.counts.timeouts += out.timeouts;
        }
        if out.fast_retransmits != 0 {
            f.counts.fast_retransmits += out.fast_retransmits;
        }
        for &r in &out.rtt_samples {
            f.counts.rtt_ns += r.ns() as u128;
            f.counts.rtt_samples += 1;
        }
        if out.packets_acked != 0 {
            f.counts.packet_rtt_ns += out.packet_rtt_ns;
            f.counts.packets_acked += out.packets_acked;
        }
        // The log is read only when there is something to log: at 100,000 flows its entry is one
        // more cache line out of reach for every packet a timer sends.
        if !out.rtt_samples.is_empty() && now >= self.measure_from {
            if let Some(log) = self.rtt_log[flow].as_mut() {
                log.extend(out.rtt_samples.iter().map(|&r| (now, r)));
            }
        }
        if now >= self.measure_from {
            for &d in &out.app_delay_samples {
                f.app_delays.add(d.ns());
            }
        }
        let completed = out.completed;
        if flow_id.0 < self.n_flows && completed && f.completed_at.is_none() {
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
        let (base, link) = self.first_hop(agent);
        let mut retransmits = 0;
        for mut p in packets.iter().copied() {
            if self.pkts.live() as u64 >= self.sc.max_packets {
                return Err(self.too_many_packets(now));
            }
            p.sent_at = now;
            p.qdelay = SimDuration::ZERO;
            debug_assert_eq!(is_sender, p.kind == PacketKind::Data, "senders send data, receivers ACKs");
            p.at = base;
            self.flows[flow].counts.send(p.kind, p.size, p.has(flags::RETX));
            retransmits += u32::from(p.kind == PacketKind::Data && p.has(flags::RETX));
            if let Some(c) = self.conn_mut(flow_id) {
                c.alive += 1;
            }
            let id = self.pkts.alloc(p);
            self.enqueue(now, link, id, false)?;
        }
        if let Some(c) = self.conn_mut(flow_id) {
            let row = c.row as usize;
            let r = &mut self.fct[row];
            r.retransmits += retransmits;
            r.timeouts += timeouts;
            if completed && is_sender && r.finish.is_none() {
                r.finish = Some(now);
                self.conns[(flow_id.0 - self.n_flows) as usize].done = true;
            }
            self.settle(flow_id);
        }
        // Give the vectors back so their capacity is reused.
        let mut packets = packets;
        packets.clear();
        self.out.packets = packets;
        for req in &requests {
            // A workload asks: its flow id is its scenario flow's index.
            self.open_connection(now, flow_id.0, *req)?;
        }
        let mut requests = requests;
        requests.clear();
        self.out.connections = requests;
        Ok(())
    }

    /// Packet `id` joins the queue of `link_id`, the hop of its path it is at (`Packet::at`).
    /// `ends_event`: nothing else happens in the event being handled after this (a packet's
    /// arrival from its previous hop), so an end of transmission that would be the next event
    /// may run here, in its place, instead of through the event queue.
    pub(super) fn enqueue(
        &mut self,
        now: SimTime,
        link_id: LinkId,
        id: PacketId,
        ends_event: bool,
    ) -> Result<(), SimError> {
        self.finish_tx_if_over(link_id);
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id.index()];
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
        let len = self.links[link_id.index()].q.len();
        let integrals = &mut self.links[link_id.index()].integrals;
        integrals.max_len = integrals.max_len.max(len);
        debug_assert!(
            invariants::within_limit(self.links[link_id.index()].q.inner()),
            "link '{}': queue over its limit",
            self.sc.links[link_id.index()].name
        );
        let busy = self.links[link_id.index()].tx.is_some();
        if len as u64 > self.sc.max_queue_pkts {
            let main = invariants::main_flow_in_queue(self, link_id.index())
                .map(|(f, n)| format!(", {n} of them from flow '{}'", self.sc.flows[f].name))
                .unwrap_or_default();
            let buffer = match self.links[link_id.index()].q.limit() {
                crate::conf::Limit::Unbounded => "the buffer is unbounded".to_string(),
                crate::conf::Limit::Bytes(b) => format!("its buffer ({b} bytes) holds more packets than that"),
                crate::conf::Limit::Packets(n) => format!("its buffer ({n} packets) is larger than that"),
            };
            return Err(SimError(format!(
                "link '{}': queue grew past {} packets (simulation.max_queue_pkts) at {:.3} s{main}; the offered load exceeds the link and {buffer}: give a smaller limit, or raise max_queue_pkts",
                self.sc.links[link_id.index()].name,
                self.sc.max_queue_pkts,
                now.ns() as f64 * 1e-9
            )));
        }
        if !busy {
            self.start_tx(now, link_id);
        } else {
            // A packet now waits for the line: the transmission's end must run as an event.
            let l = &mut self.links[link_id.index()];
            if !l.tx_end_queued && !l.q.is_empty() {
                debug_assert_eq!(now, self.sched.now(), "a packet queued outside its event");
                if ends_event && self.tx_ends_in_place && l.tx_end == now && self.sched.would_run_next(l.tx_seq) {
                    // It ends this nanosecond, after this event, and no pending event comes
                    // between: it would be the very next event (a packet that arrives as its
                    // predecessor's transmission ends, on a line as fast as the one before).
                    // Run it now, in its place in the order, without a trip through the queue.
                    self.tx_done(now, link_id);
                } else {
                    l.tx_end_queued = true;
                    let done = Event::TxDone { link: link_id, gen: l.tx_gen };
                    self.sched.at_reserved(l.tx_end, l.tx_seq, done);
                }
            }
        }
        Ok(())
    }

    /// Account for a packet the discipline at `link_id` marked (set CE on) for `reason`.
    pub(super) fn mark_packet(&mut self, now: SimTime, link_id: LinkId, id: PacketId, reason: DropReason) {
        self.trace(now, link_id, PacketEvent::Mark(reason), id);
        let p = self.pkts[id];
        self.hops.mark(p.at as usize);
        self.links[link_id.index()].counts.mark(reason);
        let flow = self.owner_of(FlowId(p.flow));
        self.flows[flow].counts.mark(reason);
        if let Some(c) = self.conn_mut(FlowId(p.flow)) {
            let row = c.row as usize;
            self.fct[row].marks += u32::from(p.is_data());
        }
    }

    /// The marks a discipline reported in `cx.marks` (at dequeue, or on queued packets).
    pub(super) fn mark_others(&mut self, now: SimTime, link_id: LinkId) {
        while let Some((id, reason)) = self.marks.pop() {
            self.mark_packet(now, link_id, id, reason);
        }
    }

    pub(super) fn drop_victims(&mut self, now: SimTime, link_id: LinkId) {
        while let Some((victim, reason)) = self.victims.pop() {
            let l = &mut self.links[link_id.index()];
            if l.tx == Some(victim) {
                // Dropped in service: abort the transmission; the line is free from now.
                l.tx = None;
                l.tx_gen = l.tx_gen.wrapping_add(1);
                l.integrals.busy_ns += overlap(l.tx_start, now, self.measure_from, self.end).ns();
                self.drop_packet(now, link_id, victim, reason, DropPlace::InService);
                self.start_tx(now, link_id);
            } else {
                self.drop_packet(now, link_id, victim, reason, DropPlace::Queued);
            }
        }
    }

    /// Account for and free a packet dropped at `link_id`, from where it was.
    pub(super) fn drop_packet(
        &mut self,
        now: SimTime,
        link_id: LinkId,
        id: PacketId,
        reason: DropReason,
        place: DropPlace,
    ) {
        self.trace(now, link_id, PacketEvent::Drop(reason), id);
        let p = self.pkts[id];
        self.hops.drop(p.at as usize, place == DropPlace::Queued);
        self.links[link_id.index()].counts.drop(p.size, reason, place);
        let flow_id = FlowId(p.flow);
        let flow = self.owner_of(flow_id);
        self.flows[flow].counts.drop(p.kind, p.size, reason);
        self.pkts.free(id);
        if let Some(c) = self.conn_mut(flow_id) {
            c.alive -= 1;
            let row = c.row as usize;
            self.fct[row].drops += u32::from(p.is_data());
            self.settle(flow_id);
        }
    }

    /// Give the idle transmitter of `link_id` its next packet, if any.
    pub(super) fn start_tx(&mut self, now: SimTime, link_id: LinkId) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id.index()];
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
                    // (Never when a direct transmission's end is caught up with later: its
                    // link's queue stayed empty, and an empty shaper holds nothing back.)
                    debug_assert_eq!(now, self.sched.now(), "a wake-up scheduled from the past");
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
        let wait = wait.ns();
        let size = p.size;
        let hi = p.at as usize;
        self.hops.departure(hi, wait);
        self.trace(now, link_id, PacketEvent::Dequeue, id);
        let l = &mut self.links[link_id.index()];
        l.counts.transmit(size, wait);
        l.tx = Some(id);
        l.tx_start = now;
        let done = l.line.transmission_end(now, size);
        l.tx_end = done;
        l.tx_seq = self.sched.reserve();
        // Direct: the far end's arrival is scheduled now, and the transmission's end becomes an
        // event only if a packet waits for the line (at once when one does already, else when
        // one arrives: `enqueue`); otherwise it is caught up with by the next thing that looks
        // at the link (`finish_tx_if_over`), exactly as if it had run. A shaper that may hold
        // its next packet back needs the end at its time, so its links never go direct.
        l.tx_direct = l.direct_capable && l.q.ready_at().is_none();
        l.tx_end_queued = !l.tx_direct || !l.q.is_empty();
        if l.tx_end_queued {
            self.sched.at_reserved(done, l.tx_seq, Event::TxDone { link: link_id, gen: l.tx_gen });
        }
        if l.tx_direct {
            let at = l.line.far_end_at(done);
            let hop = self.pkts[id].at;
            self.sched.at(at, Event::Arrive { link: link_id, pkt: id, hop });
        }
    }

    /// If the direct transmission of `link_id` has ended by the event being handled (its end
    /// would have run already, had it been an event), finish it now, at the time it ended.
    #[inline]
    pub(super) fn finish_tx_if_over(&mut self, link_id: LinkId) {
        if let Some((end, seq)) = self.links[link_id.index()].unqueued_end() {
            if self.sched.would_have_run(end, seq) {
                self.tx_done(end, link_id);
            }
        }
    }

    /// Finish every direct transmission whose end would have run by now (for reports).
    pub(super) fn finish_txs_that_would_have_run(&mut self) {
        for li in 0..self.links.len() {
            self.finish_tx_if_over(LinkId(li as u32));
        }
    }

    /// Finish every direct transmission that ended before `time`: for readers of every link at
    /// once (the window's start, the results).
    pub(super) fn finish_txs_before(&mut self, time: SimTime) {
        for li in 0..self.links.len() {
            if let Some((end, _)) = self.links[li].unqueued_end().filter(|&(end, _)| end < time) {
                self.tx_done(end, LinkId(li as u32));
            }
        }
    }

    pub(super) fn tx_done(&mut self, now: SimTime, link_id: LinkId) {
        let (lo, hi) = (self.measure_from, self.end);
        let l = &mut self.links[link_id.index()];
        let id = l.tx.take().expect("a transmission was in progress");
        l.tx_end_queued = false;
        l.integrals.busy_ns += overlap(l.tx_start, now, lo, hi).ns();
        let size = self.pkts[id].size;
        if std::mem::take(&mut l.tx_direct) {
            // Its arrival is scheduled already.
            l.counts.propagate(size);
        } else if l.line.loses(&mut l.rng) {
            self.drop_packet(now, link_id, id, DropReason::LinkLoss, DropPlace::OnWire);
        } else {
            l.counts.propagate(size);
            let mut at = l.line.far_end_at(now);
            if self.processing.is_some() {
                at = self.processed_at(at, id);
            }
            let hop = self.pkts[id].at;
            self.sched.at(at, Event::Arrive { link: link_id, pkt: id, hop });
        }
        self.start_tx(now, link_id);
    }

    /// When packet `id`, reaching the far end of its current hop at `reach`, gets through the
    /// processing of the router there (`reach` when that is its destination, or the next link
    /// has no processing time). The packet counts as on the wire until then.
    pub(super) fn processed_at(&mut self, reach: SimTime, id: PacketId) -> SimTime {
        let hop = self.pkts[id].at as usize;
        let Some(pr) = self.processing.as_deref_mut() else { return reach };
        if self.paths.ends_path(hop) {
            return reach;
        }
        pr.admitted_at(self.paths.link(hop + 1), reach)
    }

    pub(super) fn arrive(&mut self, now: SimTime, link_id: LinkId, id: PacketId) -> Result<(), SimError> {
        if self.links[link_id.index()].tx == Some(id) {
            // A direct transmission nothing looked at since: it ended before its arrival.
            debug_assert!(!self.links[link_id.index()].tx_end_queued);
            self.finish_tx_if_over(link_id);
            debug_assert!(self.links[link_id.index()].tx != Some(id), "arrived before its transmission ended");
        }
        let p = &mut self.pkts[id];
        if !self.paths.ends_path(p.at as usize) {
            p.at += 1;
            let (next, flow) = (self.paths.link(p.at as usize), p.flow as usize);
            if self.prefetching() {
                prefetch::bytes(&self.links[next.index()], super::LINK_HOT_BYTES);
                // And what a drop there would update: the flow's drop counts (the hop's were
                // asked for with the event: `prefetch_event`).
                if flow < self.flows.len() {
                    prefetch::bytes(&self.flows[flow].counts.dropped, 64);
                }
            }
            return self.enqueue(now, next, id, true);
        }
        let p = *p;
        self.pkts.free(id);
        let flow_id = FlowId(p.flow);
        let flow = self.owner_of(flow_id);
        let agent = if p.kind == PacketKind::Data { AgentId::receiver(flow_id) } else { AgentId::sender(flow_id) };
        if self.prefetching() {
            prefetch::record(&self.agents[agent.index()]);
            prefetch::bytes(&self.flows[flow], super::flow_hot_bytes(agent));
        }
        self.flows[flow].counts.deliver(p.kind, p.size, (now - p.sent_at).ns(), p.qdelay.ns());
        if let Some(c) = self.conn_mut(flow_id) {
            c.alive -= 1;
            if c.done {
                // Over: a late duplicate or ACK has nothing to tell its agents.
                self.settle(flow_id);
                return Ok(());
            }
        }
        self.agents[agent.index()].inner_mut().on_packet(now, &p, &mut self.out);
        self.flush_outbox(now, agent)
    }
}
