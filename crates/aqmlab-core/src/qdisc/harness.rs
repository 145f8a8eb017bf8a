//! Test support shared by the discipline files: a tiny harness that drives a discipline
//! directly and checks the contract after every step.

use super::*;
use crate::packet::Packet;

pub struct Harness<Q: QueueDisc> {
    pub q: Q,
    pub pkts: PacketArena,
    pub rng: SimRng,
    pub now: u64,
    pub victims: Vec<(PacketId, DropReason)>,
    pub dropped: Vec<(u32, DropReason)>,
    /// `cx.marks` as the discipline filled it.
    pub mark_buf: Vec<(PacketId, DropReason)>,
    /// Every mark: (flow, reason), arrivals' and later ones alike.
    pub marked: Vec<(u32, DropReason)>,
    pub sent: Vec<PacketId>,
    /// What `offer` tells the discipline is in service (a packet the test allocated).
    pub in_service: Option<PacketId>,
}

/// Read a queue table written as TOML text with a discipline's `read` (the tests' parameters).
pub fn read_table<P>(text: &str, read: impl FnOnce(&mut Fields) -> crate::conf::Result<P>) -> crate::conf::Result<P> {
    let src = crate::conf::Source { path: "t.toml".into() };
    let t = crate::conf::parse_toml(text, &src).expect("valid TOML");
    let mut f = Fields::new(&src, "queue", &t, crate::conf::Origin::Line(1));
    let p = read(&mut f)?;
    f.finish()?;
    Ok(p)
}

pub fn link(n_flows: usize) -> LinkInfo {
    LinkInfo { rate_bps: 1_000_000, n_flows, mean_packet_size: 1000 }
}

impl<Q: QueueDisc> Harness<Q> {
    pub fn new(q: Q, seed: u64) -> Self {
        Harness {
            q,
            pkts: PacketArena::new(),
            rng: SimRng::from_seed(seed),
            now: 0,
            victims: vec![],
            dropped: vec![],
            mark_buf: vec![],
            marked: vec![],
            sent: vec![],
            in_service: None,
        }
    }

    /// Offer a packet of `flow` and `size`; returns the verdict and records every drop.
    #[track_caller]
    pub fn offer(&mut self, flow: u32, size: u32) -> Verdict {
        self.offer_flags(flow, size, 0)
    }

    /// Offer a packet with `flags` set (`flags::ECT` for an ECN-capable one).
    #[track_caller]
    pub fn offer_flags(&mut self, flow: u32, size: u32, flags: u8) -> Verdict {
        self.offer_packet(Packet { flags, ..Packet::data(flow, flow, 1000, size) })
    }

    /// Offer a packet of `flow` from host `src` to host `dst`.
    #[track_caller]
    pub fn offer_between(&mut self, flow: u32, src: u32, dst: u32, size: u32) -> Verdict {
        self.offer_packet(Packet::data(flow, src, dst, size))
    }

    /// Offer `packet` (its `seq` is set to a serial number).
    #[track_caller]
    pub fn offer_packet(&mut self, packet: Packet) -> Verdict {
        let (flow, seq) = (packet.flow, self.pkts.capacity() as u64);
        let id = self.pkts.alloc(Packet { seq, ..packet });
        let before = self.q.len();
        let mut cx = QdiscCtx {
            now: SimTime(self.now),
            rng: &mut self.rng,
            pkts: &mut self.pkts,
            victims: &mut self.victims,
            marks: &mut self.mark_buf,
            in_service: self.in_service,
        };
        let v = self.q.enqueue(id, &mut cx);
        self.take_marks();
        let evicted = self.victims.iter().filter(|v| Some(v.0) != self.in_service).count();
        for (vid, why) in self.victims.drain(..) {
            assert_ne!(vid, id, "the arrival must be reported in the verdict, not as a victim");
            if Some(vid) == self.in_service {
                // Dropped in service: the transmission is aborted.
                self.in_service = None;
            }
            self.dropped.push((self.pkts[vid].flow, why));
            self.pkts.free(vid);
        }
        let admitted = matches!(v, Verdict::Enqueued | Verdict::Marked(_)) as usize;
        if let Verdict::Marked(why) = v {
            assert!(self.pkts[id].has(crate::packet::flags::CE), "a marked arrival carries CE");
            self.marked.push((flow, why));
        }
        if let Verdict::Dropped(why) = v {
            self.dropped.push((flow, why));
            self.pkts.free(id);
        }
        assert_eq!(self.q.len(), before + admitted - evicted, "queue length identity broken");
        v
    }

    /// Take the next packet; returns its flow.
    pub fn serve(&mut self) -> Option<u32> {
        let mut cx = QdiscCtx {
            now: SimTime(self.now),
            rng: &mut self.rng,
            pkts: &mut self.pkts,
            victims: &mut self.victims,
            marks: &mut self.mark_buf,
            in_service: None,
        };
        let out = self.q.dequeue(&mut cx);
        self.take_marks();
        for (vid, why) in self.victims.drain(..) {
            self.dropped.push((self.pkts[vid].flow, why));
            self.pkts.free(vid);
        }
        out.map(|id| {
            self.sent.push(id);
            let flow = self.pkts[id].flow;
            self.pkts.free(id);
            flow
        })
    }

    /// Record the marks the discipline reported; each names a packet that is still alive
    /// and carries CE.
    #[track_caller]
    fn take_marks(&mut self) {
        for (id, why) in self.mark_buf.drain(..) {
            assert!(self.pkts[id].has(crate::packet::flags::CE), "a marked packet carries CE");
            self.marked.push((self.pkts[id].flow, why));
        }
    }

    /// Flows of the queued packets in service order (drains the queue).
    pub fn drain_flows(&mut self) -> Vec<u32> {
        std::iter::from_fn(|| self.serve()).collect()
    }
}

/// Property check: `steps` random arrivals (flows below `n_flows`, sizes 40..=1500) and
/// departures at random times. After every step the queue holds exactly the packets
/// alive in the arena (admitted, not yet sent or dropped), its byte count is their sum and
/// it respects its limit; at the end every packet offered was sent or dropped exactly once
/// (the arena refuses a second free).
#[track_caller]
pub fn hammer<Q: QueueDisc>(h: &mut Harness<Q>, steps: usize, n_flows: u32, seed: u64) {
    let mut rng = SimRng::from_seed(seed ^ 0x5eed);
    let limit = h.q.limit();
    let mut offered = 0usize;
    for step in 0..steps {
        h.now += rng.below(2_000_000) as u64;
        // Slightly more arrivals than departures, so the queue visits empty and full.
        if rng.uniform() < 0.55 {
            h.offer(rng.below(n_flows as usize) as u32, 40 + rng.below(1461) as u32);
            offered += 1;
        } else {
            h.serve();
        }
        let live: Vec<PacketId> = h.pkts.live_ids().collect();
        let bytes: u64 = live.iter().map(|&id| h.pkts[id].size as u64).sum();
        assert_eq!(h.q.len(), live.len(), "step {step}: queue length vs packets alive");
        assert_eq!(h.q.bytes(), bytes, "step {step}: byte count vs packets alive");
        match limit {
            Limit::Packets(n) => {
                assert!(h.q.len() <= n as usize, "step {step}: {} packets over a limit of {n}", h.q.len())
            }
            Limit::Bytes(b) => assert!(h.q.bytes() <= b, "step {step}: {} bytes over a limit of {b}", h.q.bytes()),
            Limit::Unbounded => {}
        }
    }
    h.drain_flows();
    assert_eq!(h.pkts.live(), 0, "packets neither sent nor dropped");
    assert_eq!(h.sent.len() + h.dropped.len(), offered, "every packet is sent or dropped exactly once");
}
