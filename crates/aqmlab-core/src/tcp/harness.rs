//! Test bench for the TCP agents: one sender and one receiver joined by a forward path (a
//! bottleneck of `rate_bps` with an unbounded FIFO, then `delay_ns`) and a reverse path
//! (`delay_ns`, no queue). Data packets can be dropped or marked by script; the congestion
//! window is traced after every event that changes it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::source::DataSource;
use super::{Common, Receiver, Sender};
use crate::agent::{Agent, FlowIds, Outbox, Schedule, TimerKind};
use crate::packet::{flags, Packet};
use crate::units::{tx_time_ns, SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
enum Ev {
    ToReceiver(Packet),
    ToSender(Packet),
    Timer { sender: bool, kind: TimerKind, gen: u32 },
}

/// A data packet as it left the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sent {
    pub t: u64,
    pub seq: u64,
    pub retx: bool,
    pub dropped: bool,
    pub flags: u8,
}

pub type Script = Box<dyn FnMut(&Packet, u64) -> bool>;

pub struct Bench {
    pub sender: Sender,
    pub receiver: Receiver,
    pub now: u64,
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// Drop this data packet (decided when it is sent)?
    pub drop: Script,
    /// Set CE on this data packet?
    pub mark: Script,
    pub sent: Vec<Sent>,
    /// (time, cwnd, ssthresh) after each change.
    pub trace: Vec<(u64, f64, f64)>,
    /// Times of retransmission timeouts.
    pub timeouts: Vec<u64>,
    /// Times of fast retransmits (recoveries started by duplicate ACKs).
    pub fast_retransmits: Vec<u64>,
    pub goodput: u64,
    pub rtts: Vec<u64>,
    /// (time, cumulative ACK) of each ACK reaching the sender.
    pub acks: Vec<(u64, u64)>,
    pub app_delays: Vec<u64>,
    pub completed: Option<u64>,
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    events: Vec<Option<Ev>>,
    next: u64,
    link_free: u64,
    out: Outbox,
}

pub const MS: u64 = 1_000_000;

impl Bench {
    /// A bulk sender (`total` bytes, or unending) starting at time 0.
    pub fn new(c: &Common, total: Option<u64>, rate_bps: u64, delay_ns: u64) -> Self {
        Self::with_source(c, total, None, false, rate_bps, delay_ns)
    }

    /// A sender fed by `source` (bulk when `None`).
    pub fn with_source(
        c: &Common,
        total: Option<u64>,
        source: Option<Box<dyn DataSource>>,
        app_delay: bool,
        rate_bps: u64,
        delay_ns: u64,
    ) -> Self {
        let ids = FlowIds { flow: 0, src: 0, dst: 1 };
        let when = Schedule { start: SimTime::ZERO, jitter: SimDuration(0), stop: None };
        let mut b = Bench {
            sender: Sender::new(c, total, source, ids, when, Some(&crate::rng::SimRng::from_seed(0))),
            receiver: Receiver::new(c, ids, app_delay, Some(&crate::rng::SimRng::from_seed(0))),
            now: 0,
            rate_bps,
            delay_ns,
            drop: Box::new(|_, _| false),
            mark: Box::new(|_, _| false),
            sent: vec![],
            trace: vec![],
            timeouts: vec![],
            fast_retransmits: vec![],
            goodput: 0,
            rtts: vec![],
            acks: vec![],
            app_delays: vec![],
            completed: None,
            heap: BinaryHeap::new(),
            events: vec![],
            next: 0,
            link_free: 0,
            out: Outbox::default(),
        };
        b.trace_window();
        b
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.heap.push(Reverse((at, self.next)));
        self.events.push(Some(ev));
        self.next += 1;
    }

    fn trace_window(&mut self) {
        let cc = self.sender.cc().inner();
        let point = (cc.cwnd(), cc.ssthresh());
        if self.trace.last().is_none_or(|&(_, w, s)| (w, s) != point) {
            self.trace.push((self.now, point.0, point.1));
        }
    }

    /// Route what an agent asked for.
    fn flush(&mut self, from_sender: bool) {
        let mut out = std::mem::take(&mut self.out);
        self.goodput += out.goodput_bytes;
        self.rtts.extend(out.rtt_samples.iter().map(|d| d.ns()));
        self.app_delays.extend(out.app_delay_samples.iter().map(|d| d.ns()));
        self.timeouts.extend(std::iter::repeat_n(self.now, out.timeouts as usize));
        self.fast_retransmits.extend(std::iter::repeat_n(self.now, out.fast_retransmits as usize));
        if out.completed && self.completed.is_none() {
            self.completed = Some(self.now);
        }
        for t in out.timers.drain(..) {
            self.push(t.at.ns().max(self.now), Ev::Timer { sender: from_sender, kind: t.kind, gen: t.gen });
        }
        for mut p in out.packets.drain(..) {
            p.sent_at = SimTime(self.now);
            if from_sender {
                let dropped = (self.drop)(&p, self.now);
                self.sent.push(Sent { t: self.now, seq: p.seq, retx: p.has(flags::RETX), dropped, flags: p.flags });
                if dropped {
                    continue;
                }
                if p.has(flags::ECT) && (self.mark)(&p, self.now) {
                    p.flags |= flags::CE;
                }
                let start = self.now.max(self.link_free);
                self.link_free = start + tx_time_ns(p.size, self.rate_bps);
                self.push(self.link_free + self.delay_ns, Ev::ToReceiver(p));
            } else {
                self.push(self.now + self.delay_ns, Ev::ToSender(p));
            }
        }
        out.clear();
        self.out = out;
        if from_sender {
            self.trace_window();
        }
    }

    /// Start the sender and run every event before `until`.
    pub fn run_until(&mut self, until: u64) {
        if self.now == 0 && self.next == 0 {
            self.sender.start(SimTime::ZERO, &mut self.out);
            self.flush(true);
        }
        while let Some(&Reverse((t, i))) = self.heap.peek() {
            if t >= until {
                break;
            }
            self.heap.pop();
            self.now = t;
            match self.events[i as usize].take().expect("each event once") {
                Ev::ToReceiver(p) => {
                    self.receiver.on_packet(SimTime(t), &p, &mut self.out);
                    self.flush(false);
                }
                Ev::ToSender(p) => {
                    self.acks.push((t, p.ack));
                    self.sender.on_packet(SimTime(t), &p, &mut self.out);
                    self.flush(true);
                }
                Ev::Timer { sender: true, kind, gen } => {
                    self.sender.on_timer(SimTime(t), kind, gen, &mut self.out);
                    self.flush(true);
                }
                Ev::Timer { sender: false, kind, gen } => {
                    self.receiver.on_timer(SimTime(t), kind, gen, &mut self.out);
                    self.flush(false);
                }
            }
        }
        self.now = self.now.max(until.min(self.heap.peek().map_or(until, |r| r.0 .0)));
    }

    /// The congestion window at time `t` (the last value set at or before it).
    pub fn cwnd_at(&self, t: u64) -> f64 {
        self.trace.iter().take_while(|p| p.0 <= t).last().map_or(f64::NAN, |p| p.1)
    }

    /// Times at which segment `seq` was sent.
    pub fn sends_of(&self, seq: u64) -> Vec<u64> {
        self.sent.iter().filter(|s| s.seq == seq).map(|s| s.t).collect()
    }
}

/// Common settings for a test flow: `cc` with extra TOML keys, 1000-byte packets.
pub fn common(cc_and_keys: &str) -> Common {
    use crate::conf::{parse_toml, Fields, Origin, Source};
    let src = Source { path: "bench".into() };
    let t = parse_toml(cc_and_keys, &src).expect("valid TOML");
    let mut f = Fields::new(&src, "flow", &t, Origin::Default);
    let p = crate::app::tcp::Params::read(&mut f).expect("valid parameters");
    f.finish().expect("known keys");
    p.common
}
