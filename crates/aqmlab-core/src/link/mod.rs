//! The link model: what a link direction does to a packet between its queue and the far end.
//!
//! The event loop (`sim`) owns the queue and the transmitter's state (which packet is on the
//! line, since when); it asks this module three questions about a packet the queue released:
//! - when does its transmission end ([`LinkModel::transmission_end`]): `size / rate` at a
//!   constant rate, else what a varying capacity ([`Capacity`]: a rate schedule or a Mahimahi
//!   trace, `capacity.rs`) allows;
//! - does the wire lose it ([`LinkModel::loses`]): one draw of the link's random stream, only
//!   when the link has a loss probability (a link without one draws nothing);
//! - when does it reach the far end ([`LinkModel::far_end_at`]): one propagation delay later;
//!   then, when the router there forwards it into another link, when that router's processing
//!   lets it into the next queue ([`Processing`], `processing.rs`).
//!
//! A per-direction rate, a schedule or a trace is a property of one direction's `LinkModel`,
//! so a new kind of capacity is a new [`Capacity`] variant and changes nothing in the event
//! loop. A shaper in front of a discipline is not here: it is a discipline (`qdisc::tbf`) that
//! holds packets back and names the time it releases the next (`QueueDisc::ready_at`), at which
//! the event loop wakes the transmitter.
//!
//! Everything is integer nanoseconds and bits, so a run is exact and deterministic.

mod capacity;
mod processing;

pub use capacity::{Capacity, Shape, Transmitter, TRACE_MTU};
pub use processing::Processing;

use crate::rng::SimRng;
use crate::units::{tx_time_ns, SimDuration, SimTime};

/// One link direction's line: its rate (or varying capacity), propagation delay and loss.
pub struct LinkModel {
    /// The constant rate, or the nominal rate of a varying capacity ([`Capacity::nominal_rate_bps`]).
    rate_bps: u64,
    delay: SimDuration,
    /// Probability that the wire loses a transmitted packet.
    loss: f64,
    /// A capacity that varies over time (a schedule or a trace), else `rate_bps` throughout.
    transmitter: Option<Box<Transmitter>>,
}

impl LinkModel {
    pub fn new(rate_bps: u64, delay_ns: u64, loss: f64, capacity: Option<Capacity>) -> Self {
        let transmitter = capacity.map(|c| Box::new(Transmitter::new(c)));
        LinkModel { rate_bps, delay: SimDuration(delay_ns), loss, transmitter }
    }

    /// The rate where one number is needed (a workload's ideal completion time).
    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// The propagation delay.
    #[inline]
    pub fn delay(&self) -> SimDuration {
        self.delay
    }

    /// When the transmission of a packet of `size` bytes that starts at `now` ends.
    #[inline]
    pub fn transmission_end(&mut self, now: SimTime, size: u32) -> SimTime {
        match &mut self.transmitter {
            None => now + SimDuration(tx_time_ns(size, self.rate_bps)),
            Some(t) => SimTime(t.finish(now.ns(), size)),
        }
    }

    /// Whether the wire loses the packet whose transmission just ended; draws from `rng` (the
    /// link direction's stream) only when the link has a loss probability.
    #[inline]
    pub fn loses(&self, rng: &mut SimRng) -> bool {
        self.loss > 0.0 && rng.chance(self.loss)
    }

    /// When a packet whose transmission ended at `end` reaches the far end of the line.
    #[inline]
    pub fn far_end_at(&self, end: SimTime) -> SimTime {
        end + self.delay
    }
}
