//! The event queue, ordered by (time, sequence number), so events at the same nanosecond run
//! in the order they were numbered and every run is deterministic. Events are numbered as they
//! are scheduled; a transmission's end is numbered when the transmission starts
//! ([`Scheduler::reserve`]), as the packet's arrival at the far end is scheduled (the order of
//! ns-3's point-to-point channel, which schedules both then), but put in the queue only when
//! something needs it ([`Scheduler::at_reserved`]). It then runs exactly where its number
//! places it, and the event loop finishes the transmissions nothing needed as if their ends had
//! run ([`Scheduler::would_have_run`]).
//!
//! It is a radix heap ([`radix_heap`]): the simulator never schedules before its clock, and for
//! such monotone keys a radix heap takes O(1) per push and amortised few sequential moves per
//! pop, against a binary heap's walk through log2(n) cache lines. The difference shows at scale:
//! every TCP flow keeps a retransmission timer pending, so with 10000 flows over 10000 events
//! are pending at once.

mod radix_heap;

use radix_heap::RadixHeap;

use crate::agent::TimerKind;
use crate::ids::{AgentId, LinkId};
use crate::packet::PacketId;
use crate::units::SimTime;

/// Everything that can happen. Events carry ids, never references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a link finished sending its current packet.
    /// Stale when `gen` no longer matches the link's (the transmission was aborted).
    TxDone { link: LinkId, gen: u32 },
    /// A packet reaches the far end of a link after propagation. `hop` is the packet's place
    /// in its path (its `at`) as it left, carried so that the loop can ask for that place in the
    /// flows' path array one event ahead, with the packet (not after reading it).
    Arrive { link: LinkId, pkt: PacketId, hop: u32 },
    /// An agent's timer; stale when `gen` no longer matches the agent's own (lazy cancel), or
    /// when the agent's slot has had another connection since (`epoch`: see the simulation).
    Timer { agent: AgentId, kind: TimerKind, gen: u32, epoch: u32 },
    /// An agent starts.
    Start { agent: AgentId },
    /// Take a sample of the traced time series.
    Sample,
    /// A discipline that held its next packet back (a shaper) lets it go now: the link's
    /// transmitter, if idle, asks it again.
    Wake { link: LinkId },
}

/// The pending events of one simulation.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: RadixHeap<Event>,
    next_seq: u64,
    now: SimTime,
    /// Sequence number of the event taken last: with `now`, where the run stands.
    now_seq: u64,
    /// The most events ever pending at once (a measure of the queue's memory).
    peak: usize,
}

impl Scheduler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Current simulated time: the time of the last event taken.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `event` at absolute time `time` (never in the past).
    #[inline]
    pub fn at(&mut self, time: SimTime, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        self.heap.push(time.ns(), self.next_seq, event);
        self.next_seq += 1;
        self.peak = self.peak.max(self.heap.len());
    }

    /// The sequence number of a transmission's end, taken as the transmission starts: its place
    /// among the events of its nanosecond, whenever it is scheduled ([`Scheduler::at_reserved`]),
    /// if at all.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `time` (never before the clock) with the number `seq` taken from
    /// [`Scheduler::reserve`]: it runs among the events at `time` in the place of that number.
    #[inline]
    pub fn at_reserved(&mut self, time: SimTime, seq: u64, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        self.heap.push_numbered_earlier(time.ns(), seq, event);
        self.peak = self.peak.max(self.heap.len());
    }

    /// Whether an event at `time` numbered `seq` comes before the event being handled (taken
    /// last): had it been in the queue, it would have run already.
    #[inline]
    pub fn would_have_run(&self, time: SimTime, seq: u64) -> bool {
        (time, seq) < (self.now, self.now_seq)
    }

    /// Whether an event now, numbered `seq`, would be the next to run: no pending event at this
    /// nanosecond has a smaller number (events at later times run after it anyway).
    #[inline]
    pub fn would_run_next(&self, seq: u64) -> bool {
        self.heap.first_seq_at_last().is_none_or(|first| first > seq)
    }

    /// The most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    /// Time of the next event, if any; prepares it to be taken.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.heap.peek_time().map(SimTime)
    }

    /// Time of the next event, if any, for callers holding `&self` (slower: checks, reports).
    pub fn next_time(&self) -> Option<SimTime> {
        self.heap.min_time().map(SimTime)
    }

    /// Take the next event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        let time = SimTime(e.time);
        debug_assert!(time >= self.now, "time went back");
        self.now = time;
        self.now_seq = e.seq;
        Some((time, e.item))
    }

    /// The event that runs next, or one soon after (see [`RadixHeap::next_up`]): what the
    /// event loop prefetches for.
    #[inline]
    pub fn next_up(&self) -> Option<&Event> {
        self.heap.next_up()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Every pending event, in no particular order (for checks and reports).
    pub fn pending(&self) -> impl Iterator<Item = &Event> + '_ {
        self.heap.iter().map(|e| &e.item)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_run_in_insertion_order() {
        let mut s = Scheduler::new();
        s.at(SimTime(5), Event::Start { agent: AgentId(2) });
        s.at(SimTime(3), Event::Start { agent: AgentId(9) });
        s.at(SimTime(5), Event::Start { agent: AgentId(1) });
        s.at(SimTime(5), Event::Sample);
        let order: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::Start { agent: AgentId(9) }),
                (SimTime(5), Event::Start { agent: AgentId(2) }),
                (SimTime(5), Event::Start { agent: AgentId(1) }),
                (SimTime(5), Event::Sample)
            ]
        );
    }

    #[test]
    fn reserved_numbers_keep_their_place_whenever_their_events_are_queued() {
        let mut s = Scheduler::new();
        let link = LinkId;
        let first = s.reserve();
        s.at(SimTime(5), Event::Start { agent: AgentId(1) });
        let second = s.reserve();
        s.at(SimTime(4), Event::Sample);
        s.at(SimTime(5), Event::Start { agent: AgentId(2) });
        // Queued late and out of order: each still takes the place of its number.
        s.at_reserved(SimTime(5), second, Event::TxDone { link: link(2), gen: 0 });
        assert_eq!(s.pop(), Some((SimTime(4), Event::Sample)));
        assert!(s.would_have_run(SimTime(3), first) && !s.would_have_run(SimTime(5), first));
        s.at_reserved(SimTime(5), first, Event::TxDone { link: link(1), gen: 0 });
        assert_eq!(s.pop(), Some((SimTime(5), Event::TxDone { link: link(1), gen: 0 })));
        assert_eq!(s.pop(), Some((SimTime(5), Event::Start { agent: AgentId(1) })));
        // Handling that start: the end numbered before it would have run, the one after not.
        assert!(s.would_have_run(SimTime(5), first) && !s.would_have_run(SimTime(5), second));
        let rest: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(
            rest,
            vec![
                (SimTime(5), Event::TxDone { link: link(2), gen: 0 }),
                (SimTime(5), Event::Start { agent: AgentId(2) }),
            ]
        );
    }
}
