//! The invariants that the whole-run counts of [`crate::stats`] must satisfy, checked over a
//! [`SimView`]; and, for the guards' messages, where the packets are.
//!
//! The counts cover every packet and byte over the whole run, at each place a packet can be:
//! offered to a link's queue, dropped by it, taken by its transmitter, dropped in transmission,
//! lost on the wire, put on the wire; and, per flow, sent, delivered and dropped. What is on each
//! wire now is read from the pending arrival events, not counted (counting arrivals would cost
//! every packet a visit to the record of the link it leaves). From these [`check`] checks, at
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
use crate::stats::Count;
use crate::view::{hops_by_flow, SimView};

/// A link or flow index and a packet count.
type IndexAndCount = (usize, u64);

/// Whether a queue holds no more than its limit.
pub fn within_limit(q: &dyn QueueDisc) -> bool {
    match q.limit() {
        Limit::Packets(n) => q.len() <= n as usize,
        Limit::Bytes(b) => q.bytes() <= b,
        Limit::Unbounded => true,
    }
}

/// Check every invariant of the module docs; `Err` describes the first one broken.
/// Cost: one pass over the packets alive, the links and the flows' paths.
pub fn check(sim: &impl SimView) -> Result<(), String> {
    let sc = sim.scenario();
    let pkts = sim.packets();
    let n_links = sc.links.len();
    let now = sim.now();
    if let Some(t) = sim.next_event_time() {
        if t < now {
            return Err(format!("an event is pending at {} ns, before the clock ({} ns)", t.ns(), now.ns()));
        }
    }
    if now > sim.end() {
        return Err(format!("the clock ({} ns) is past the end of the run ({} ns)", now.ns(), sim.end().ns()));
    }
    let name = |l: usize| &sc.links[l].name;

    // What the wires hold, from the pending arrivals.
    let mut on_wire = vec![Count::default(); n_links];
    for (link, pkt) in sim.on_wire() {
        if !pkts.is_alive(pkt) {
            return Err(format!("link '{}': a packet on the wire was freed", name(link as usize)));
        }
        on_wire[link as usize].add(pkts[pkt].size);
    }

    // What the queues and transmitters hold, from the queues themselves.
    let mut held = Count::default();
    let mut per_link_queued = vec![0u64; n_links];
    for (_, hop, l) in hops_by_flow(sc) {
        per_link_queued[l as usize] += sim.hops().queued(hop);
    }
    for li in 0..n_links {
        let led = sim.link_counts(li);
        let q = sim.queue(li);
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
        if let Some(id) = sim.in_service(li) {
            in_tx.add(pkts[id].size);
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
    let mut alive_by_flow = vec![[Count::default(); 2]; sc.flows.len()];
    for id in pkts.live_ids() {
        let p = &pkts[id];
        alive.add(p.size);
        alive_by_flow[sim.owner(p.flow)][p.kind as usize].add(p.size);
    }
    if alive != held {
        return Err(format!("{alive:?} packets alive, but queues, transmitters and wires hold {held:?}"));
    }
    for (fi, alive) in alive_by_flow.iter().enumerate() {
        let led = sim.flow_counts(fi);
        for (kind, what) in [(PacketKind::Data, "data"), (PacketKind::Ack, "ACKs")] {
            let i = kind as usize;
            if led.sent[i] != led.delivered[i].plus(led.dropped[i]).plus(alive[i]) {
                return Err(format!(
                    "flow '{}', {what}: sent {:?} != delivered {:?} + dropped {:?} + alive {:?}",
                    sc.flows[fi].name, led.sent[i], led.delivered[i], led.dropped[i], alive[i]
                ));
            }
        }
    }
    Ok(())
}

/// The link holding the most packets (queued, in transmission or on the wire) and how many.
pub fn fullest_link(sim: &impl SimView) -> Option<(usize, u64, u64)> {
    let n_links = sim.scenario().links.len();
    let mut on_wire = vec![0u64; n_links];
    for (link, _) in sim.on_wire() {
        on_wire[link as usize] += 1;
    }
    (0..n_links)
        .map(|li| {
            let queued = sim.queue(li).len() as u64 + sim.in_service(li).is_some() as u64;
            (li, queued, on_wire[li])
        })
        .max_by_key(|&(li, q, w)| (q + w, std::cmp::Reverse(li)))
}

/// The flow with the most packets of `link`'s queue, and how many.
pub fn main_flow_in_queue(sim: &impl SimView, link: usize) -> Option<(usize, u64)> {
    let mut per_flow = vec![0u64; sim.scenario().flows.len()];
    for (fi, hop, l) in hops_by_flow(sim.scenario()) {
        if l as usize == link {
            per_flow[fi] += sim.hops().queued(hop);
        }
    }
    per_flow.into_iter().enumerate().filter(|&(_, n)| n > 0).max_by_key(|&(fi, n)| (n, std::cmp::Reverse(fi)))
}

/// The link offered the most packets and the flow that sent the most, over the whole run:
/// each as (index, packets).
pub fn busiest(sim: &impl SimView) -> (Option<IndexAndCount>, Option<IndexAndCount>) {
    let link = (0..sim.scenario().links.len())
        .map(|i| (i, sim.link_counts(i).offered.pkts))
        .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)));
    let flow = (0..sim.scenario().flows.len())
        .map(|i| {
            let c = sim.flow_counts(i);
            (i, c.sent[0].pkts + c.sent[1].pkts)
        })
        .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)));
    (link, flow)
}
