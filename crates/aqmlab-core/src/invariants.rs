//! Whole-run bookkeeping of every packet, and the invariants it must satisfy.
//!
//! The statistics in [`crate::sim`] cover the measurement window; the ledgers count every
//! packet and byte over the whole run, at each place a packet can be: offered to a link's queue,
//! dropped by it, taken by its transmitter, dropped in transmission, lost on the wire, put on
//! the wire; and, per flow, sent, delivered and dropped. What is on each wire now is read from
//! the pending arrival events, not counted (counting arrivals would cost every packet a visit
//! to the record of the link it leaves). From these [`Simulation::check_invariants`] checks, at
//! any moment between events:
//!
//! - per link, packets and bytes: offered = dropped by the queue + transmitted + queued now;
//! - per link: transmitted = aborted + lost on the wire + put on the wire + in transmission now;
//! - per link: what is on the wire now (pending arrivals) was put on it, and is alive;
//! - per flow, data and ACKs, packets and bytes: sent = delivered + dropped + alive now;
//! - the packets alive are exactly those queued, in transmission or on a wire;
//! - each queue holds what its per-flow counters say and no more than its limit;
//! - no pending event is earlier than the clock, and the clock is before the end of the run.
//!
//! Debug builds check them after every `run_until`; the property tests check them in release
//! builds too. The counters are a few additions per packet, so they are always kept.

use crate::conf::Limit;
use crate::packet::PacketKind;
use crate::qdisc::QueueDisc;
use crate::sim::{hops_by_flow, Simulation};

/// A link or flow index and a packet count.
type IndexAndCount = (usize, u64);

/// Packets and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub pkts: u64,
    pub bytes: u64,
}

impl Count {
    #[inline]
    pub fn add(&mut self, size: u32) {
        self.pkts += 1;
        self.bytes += size as u64;
    }
    fn plus(self, o: Count) -> Count {
        Count { pkts: self.pkts + o.pkts, bytes: self.bytes + o.bytes }
    }
}

/// One link direction, whole run (`repr(C)`: the counts every packet updates first).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkLedger {
    /// Offered to the queue.
    pub offered: Count,
    /// Taken by the transmitter.
    pub transmitted: Count,
    /// Transmitted whole and put on the wire.
    pub propagated: Count,
    /// Dropped by the queue: refused on arrival or removed while queued.
    pub queue_dropped: Count,
    /// Dropped while being transmitted (front CHOKe's match on the packet in service).
    pub aborted: Count,
    /// Lost on the wire (`loss`).
    pub lost: Count,
}

/// One flow, whole run: data packets and ACKs apart.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct FlowLedger {
    pub sent: [Count; 2],
    pub delivered: [Count; 2],
    pub dropped: [Count; 2],
}

#[inline]
fn k(kind: PacketKind) -> usize {
    kind as usize
}

impl FlowLedger {
    /// Whole-run count of this flow's data packets (or ACKs) sent, delivered or dropped.
    #[inline]
    pub fn data(counts: &[Count; 2]) -> Count {
        counts[k(PacketKind::Data)]
    }
    #[inline]
    pub fn sent(&mut self, kind: PacketKind, size: u32) {
        self.sent[k(kind)].add(size)
    }
    #[inline]
    pub fn delivered(&mut self, kind: PacketKind, size: u32) {
        self.delivered[k(kind)].add(size)
    }
    #[inline]
    pub fn dropped(&mut self, kind: PacketKind, size: u32) {
        self.dropped[k(kind)].add(size)
    }
}

/// Whether a queue holds no more than its limit.
pub fn within_limit(q: &dyn QueueDisc) -> bool {
    match q.limit() {
        Limit::Packets(n) => q.len() <= n as usize,
        Limit::Bytes(b) => q.bytes() <= b,
        Limit::Unbounded => true,
    }
}

impl Simulation {
    /// Check every invariant of the module docs; `Err` describes the first one broken.
    /// Cost: one pass over the packets alive, the links and the flows' paths.
    pub fn check_invariants(&self) -> Result<(), String> {
        let now = self.sched.now();
        if let Some(t) = self.sched.next_time() {
            if t < now {
                return Err(format!("an event is pending at {t} ns, before the clock ({now} ns)"));
            }
        }
        if now > self.end {
            return Err(format!("the clock ({now} ns) is past the end of the run ({} ns)", self.end));
        }
        let name = |l: usize| &self.sc.links[l].name;

        // What the wires hold, from the pending arrivals.
        let mut on_wire = vec![Count::default(); self.links.len()];
        for (link, pkt) in self.pending_arrivals() {
            if !self.pkts.is_alive(pkt) {
                return Err(format!("link '{}': a packet on the wire was freed", name(link as usize)));
            }
            on_wire[link as usize].add(self.pkts[pkt].size);
        }

        // What the queues and transmitters hold, from the queues themselves.
        let mut held = Count::default();
        let mut per_link_queued = vec![0u64; self.links.len()];
        for (hop, &l) in self.paths.iter().enumerate() {
            per_link_queued[l as usize] += self.hops.queued(hop);
        }
        for (li, l) in self.links.iter().enumerate() {
            let led = &l.ledger;
            let q = l.q.inner();
            let queued = Count { pkts: q.len() as u64, bytes: q.bytes() };
            if led.offered != led.queue_dropped.plus(led.transmitted).plus(queued) {
                return Err(format!(
                    "link '{}': offered {:?} != dropped by the queue {:?} + transmitted {:?} + queued {:?}",
                    name(li),
                    led.offered,
                    led.queue_dropped,
                    led.transmitted,
                    queued
                ));
            }
            let mut in_tx = Count::default();
            if let Some(id) = l.tx {
                in_tx.add(self.pkts[id].size);
            }
            if led.transmitted != led.aborted.plus(led.lost).plus(led.propagated).plus(in_tx) {
                return Err(format!(
                    "link '{}': transmitted {:?} != aborted {:?} + lost {:?} + put on the wire {:?} + in transmission {:?}",
                    name(li),
                    led.transmitted,
                    led.aborted,
                    led.lost,
                    led.propagated,
                    in_tx
                ));
            }
            let on_wire = on_wire[li];
            if on_wire.pkts > led.propagated.pkts || on_wire.bytes > led.propagated.bytes {
                return Err(format!(
                    "link '{}': more on the wire {:?} than was ever put on it {:?}",
                    name(li),
                    on_wire,
                    led.propagated
                ));
            }
            held = held.plus(queued).plus(in_tx).plus(on_wire);
            if per_link_queued[li] != queued.pkts {
                return Err(format!(
                    "link '{}': the queue holds {} packets, its per-flow counters say {}",
                    name(li),
                    queued.pkts,
                    per_link_queued[li]
                ));
            }
            if !within_limit(q) {
                return Err(format!(
                    "link '{}': {} packets ({} bytes) queued, over the limit {:?}",
                    name(li),
                    queued.pkts,
                    queued.bytes,
                    q.limit()
                ));
            }
        }

        // What is alive, from the arena.
        let mut alive = Count::default();
        let mut alive_by_flow = vec![[Count::default(); 2]; self.flows.len()];
        for id in self.pkts.live_ids() {
            let p = &self.pkts[id];
            alive.add(p.size);
            alive_by_flow[p.flow as usize][k(p.kind)].add(p.size);
        }
        if alive != held {
            return Err(format!("{alive:?} packets alive, but queues, transmitters and wires hold {held:?}"));
        }
        for (fi, led) in self.flows.iter().map(|f| &f.ledger).enumerate() {
            for (kind, what) in [(PacketKind::Data, "data"), (PacketKind::Ack, "ACKs")] {
                let i = k(kind);
                if led.sent[i] != led.delivered[i].plus(led.dropped[i]).plus(alive_by_flow[fi][i]) {
                    return Err(format!(
                        "flow '{}', {what}: sent {:?} != delivered {:?} + dropped {:?} + alive {:?}",
                        self.sc.flows[fi].name, led.sent[i], led.delivered[i], led.dropped[i], alive_by_flow[fi][i]
                    ));
                }
            }
        }
        Ok(())
    }

    /// The packets on a wire now, with their links: the pending arrival events.
    fn pending_arrivals(&self) -> impl Iterator<Item = (u32, crate::packet::PacketId)> + '_ {
        self.sched.pending().filter_map(|e| match *e {
            crate::sched::Event::Arrive { link, pkt } => Some((link, pkt)),
            _ => None,
        })
    }

    /// The link holding the most packets (queued, in transmission or on the wire) and how many.
    pub(crate) fn fullest_link(&self) -> Option<(usize, u64, u64)> {
        let mut on_wire = vec![0u64; self.links.len()];
        for (link, _) in self.pending_arrivals() {
            on_wire[link as usize] += 1;
        }
        (0..self.links.len())
            .map(|li| {
                let queued = self.links[li].q.inner().len() as u64 + self.links[li].tx.is_some() as u64;
                (li, queued, on_wire[li])
            })
            .max_by_key(|&(li, q, w)| (q + w, std::cmp::Reverse(li)))
    }

    /// The flow with the most packets of `link`'s queue, and how many.
    pub(crate) fn main_flow_in_queue(&self, link: usize) -> Option<(usize, u64)> {
        let mut per_flow = vec![0u64; self.flows.len()];
        for (fi, hop, l) in hops_by_flow(&self.sc) {
            if l as usize == link {
                per_flow[fi] += self.hops.queued(hop);
            }
        }
        per_flow.into_iter().enumerate().filter(|&(_, n)| n > 0).max_by_key(|&(fi, n)| (n, std::cmp::Reverse(fi)))
    }

    /// The link offered the most packets and the flow that sent the most, over the whole run:
    /// each as (index, packets).
    pub(crate) fn busiest(&self) -> (Option<IndexAndCount>, Option<IndexAndCount>) {
        let link = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l.ledger.offered.pkts))
            .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)));
        let flow = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (i, f.ledger.sent[0].pkts + f.ledger.sent[1].pkts))
            .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)));
        (link, flow)
    }
}
