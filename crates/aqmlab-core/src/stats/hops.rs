//! Counters of each flow at each hop of its path: what the per-link, per-flow results report
//! (arrivals, departures, drops, marks, overflow-position arrivals, queueing delay and its
//! spread) and how many of the flow's packets each queue holds now.
//!
//! Every packet updates one of these at every hop, and with 10000 flows the 60000 of them no
//! longer stay in the caches between a flow's packets, so they are kept small: what every packet
//! touches (arrivals, departures, queueing delay) in 32 bytes, two hops to a cache line; what
//! only drops, marks and full queues touch in a parallel, colder array. Counts run over the
//! whole run; the window's are the difference from a snapshot taken as the clock reaches the
//! warmup ([`super::Window`]), as for every count. The packets a queue holds are not counted
//! separately: they are the arrivals that have neither left nor been dropped.

use super::{Counts, Window};

/// One (flow, hop)'s counts over the window, for results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HopWindow {
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub marks: u64,
    pub overflow_arrivals: u64,
    pub qdelay_ns: u64,
    pub qdelay_sq_s2: f64,
}

/// What every packet updates, whole-run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
struct Hot {
    arrivals: u64,
    /// Packets taken by the transmitter.
    departures: u64,
    /// Sum of the departures' queueing delays.
    qdelay_ns: u64,
    /// Sum of their squares, s^2 (f64: ns^2 would overflow).
    qdelay_sq_s2: f64,
}

/// What drops, marks and full queues update, whole-run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
struct Cold {
    drops: u64,
    /// Drops of packets that had not left: refused on arrival or removed from the queue (not
    /// those aborted in transmission or lost on the wire, which had departed).
    drops_before_departure: u64,
    marks: u64,
    overflow_arrivals: u64,
}

impl Counts for Hot {
    fn since(&self, e: &Hot) -> Hot {
        Hot {
            arrivals: self.arrivals - e.arrivals,
            departures: self.departures - e.departures,
            qdelay_ns: self.qdelay_ns - e.qdelay_ns,
            qdelay_sq_s2: self.qdelay_sq_s2 - e.qdelay_sq_s2,
        }
    }
}

impl Counts for Cold {
    fn since(&self, e: &Cold) -> Cold {
        Cold {
            drops: self.drops - e.drops,
            drops_before_departure: self.drops_before_departure - e.drops_before_departure,
            marks: self.marks - e.marks,
            overflow_arrivals: self.overflow_arrivals - e.overflow_arrivals,
        }
    }
}

/// The counters of every (flow, hop), indexed like the simulation's flattened paths.
#[derive(Clone, Debug)]
pub struct HopCounters {
    hot: Vec<Hot>,
    cold: Vec<Cold>,
    /// Both arrays as the clock reached the warmup.
    window: Window<(Vec<Hot>, Vec<Cold>)>,
}

impl HopCounters {
    /// Counters for `hops` hops; with `warmup`, the window waits for `start_window`.
    pub fn new(hops: usize, warmup: bool) -> Self {
        HopCounters { hot: vec![Hot::default(); hops], cold: vec![Cold::default(); hops], window: Window::new(warmup) }
    }

    /// Where the counters every packet updates at `hop` lie (for a prefetch hint).
    #[inline]
    pub fn hot_address(&self, hop: usize) -> *const u8 {
        self.hot.as_ptr().wrapping_add(hop) as *const u8
    }

    /// Where the counters drops and marks update at `hop` lie (for a prefetch hint).
    #[inline]
    pub fn cold_address(&self, hop: usize) -> *const u8 {
        self.cold.as_ptr().wrapping_add(hop) as *const u8
    }

    #[inline]
    pub fn arrival(&mut self, hop: usize, queue_full: bool) {
        self.hot[hop].arrivals += 1;
        if queue_full {
            self.cold[hop].overflow_arrivals += 1;
        }
    }

    /// The transmitter took the packet after `wait_ns` in the queue.
    #[inline]
    pub fn departure(&mut self, hop: usize, wait_ns: u64) {
        let h = &mut self.hot[hop];
        h.departures += 1;
        h.qdelay_ns += wait_ns;
        h.qdelay_sq_s2 += (wait_ns as f64 * 1e-9).powi(2);
    }

    /// A packet dropped at this hop; `before_departure` unless it was being transmitted or on
    /// the wire.
    #[inline]
    pub fn drop(&mut self, hop: usize, before_departure: bool) {
        let c = &mut self.cold[hop];
        c.drops += 1;
        c.drops_before_departure += before_departure as u64;
    }

    #[inline]
    pub fn mark(&mut self, hop: usize) {
        self.cold[hop].marks += 1;
    }

    /// Packets of this flow in this hop's queue now.
    pub fn queued(&self, hop: usize) -> u64 {
        self.hot[hop].arrivals - self.hot[hop].departures - self.cold[hop].drops_before_departure
    }

    /// Whether the window waits for the clock to reach the warmup.
    #[inline]
    pub fn awaits_window(&self) -> bool {
        self.window.waiting()
    }

    /// The clock has reached the warmup: later events count in the window.
    pub fn start_window(&mut self) {
        self.window = Window::From((self.hot.clone(), self.cold.clone()));
    }

    /// The counts of the window.
    pub fn window(&self, hop: usize) -> HopWindow {
        let h = self.window.counts(&self.hot[hop], |(hot, _)| &hot[hop]);
        let c = self.window.counts(&self.cold[hop], |(_, cold)| &cold[hop]);
        HopWindow {
            arrivals: h.arrivals,
            departures: h.departures,
            drops: c.drops,
            marks: c.marks,
            overflow_arrivals: c.overflow_arrivals,
            qdelay_ns: h.qdelay_ns,
            qdelay_sq_s2: h.qdelay_sq_s2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_counts_arrivals_that_neither_left_nor_were_dropped_first() {
        let mut c = HopCounters::new(2, false);
        for _ in 0..5 {
            c.arrival(1, false);
        }
        c.departure(1, 1_000);
        c.drop(1, true); // refused or pushed out
        c.departure(1, 3_000);
        c.drop(1, false); // aborted in transmission: it had departed
        assert_eq!(c.queued(1), 2);
        assert_eq!(c.queued(0), 0);
        let w = c.window(1);
        assert_eq!((w.arrivals, w.departures, w.drops, w.qdelay_ns), (5, 2, 2, 4_000));
        assert!((w.qdelay_sq_s2 - 1e-11).abs() < 1e-24);
    }

    #[test]
    fn the_window_counts_from_the_warmup() {
        let mut c = HopCounters::new(1, true);
        c.arrival(0, true);
        c.mark(0);
        assert_eq!(c.window(0).arrivals, 0, "before the warmup nothing counts");
        assert!(c.awaits_window());
        c.start_window();
        assert!(!c.awaits_window());
        c.arrival(0, false);
        c.arrival(0, true);
        c.departure(0, 10);
        let w = c.window(0);
        assert_eq!((w.arrivals, w.overflow_arrivals, w.marks, w.departures), (2, 1, 0, 1));
        assert_eq!(c.queued(0), 2);
        assert_eq!(std::mem::size_of::<Hot>(), 32, "two hops to a cache line");
    }
}
