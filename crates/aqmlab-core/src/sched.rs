//! The event queue: a binary heap ordered by (time, insertion sequence), so events at the same
//! nanosecond run in the order they were scheduled and every run is deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::packet::PacketId;

/// Everything that can happen. Events carry ids, never references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a link finished sending its current packet.
    /// Stale when `gen` no longer matches the link's (the transmission was aborted).
    TxDone { link: u32, gen: u32 },
    /// A packet reaches the far end of a link after propagation.
    Arrive { link: u32, pkt: PacketId },
    /// An agent's timer; stale when `gen` no longer matches the agent's own (lazy cancel).
    Timer { agent: u32, kind: u8, gen: u32 },
    /// An agent starts.
    Start { agent: u32 },
    /// Take a sample of the traced time series.
    Sample,
}

#[derive(Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // BinaryHeap is a max-heap: reverse so the earliest (time, seq) is on top.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// The pending events of one simulation.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: u64,
    /// The most events ever pending at once (a measure of the queue's memory).
    peak: usize,
}

impl Scheduler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Current simulated time in ns: the time of the last event taken.
    #[inline]
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Schedule `event` at absolute time `time` (never in the past).
    #[inline]
    pub fn at(&mut self, time: u64, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        self.heap.push(Entry { time, seq: self.next_seq, event });
        self.next_seq += 1;
        self.peak = self.peak.max(self.heap.len());
    }

    /// The most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.time)
    }

    /// Take the next event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        let e = self.heap.pop()?;
        debug_assert!(e.time >= self.now, "time went back");
        self.now = e.time;
        Some((e.time, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
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
        s.at(5, Event::Start { agent: 2 });
        s.at(3, Event::Start { agent: 9 });
        s.at(5, Event::Start { agent: 1 });
        s.at(5, Event::Sample);
        let order: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::Start { agent: 9 }),
                (5, Event::Start { agent: 2 }),
                (5, Event::Start { agent: 1 }),
                (5, Event::Sample)
            ]
        );
    }
}
