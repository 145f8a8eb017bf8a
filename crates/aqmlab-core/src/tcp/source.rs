//! Where a TCP sender's data comes from: the sender asks its source how many bytes the
//! application has handed over, and sends no further. A bulk transfer has no source (it is never
//! short of data, up to its `bytes`); an interactive one (Telnet's keystrokes) hands data over in
//! pieces, on a timer of its own, and records when each piece was made so that its delay to the
//! receiver's application can be measured.

use crate::agent::Outbox;
use crate::units::SimTime;

/// An application feeding a TCP sender.
pub trait DataSource: Send {
    /// Data bytes handed to TCP so far.
    fn supplied(&self) -> u64;
    /// The flow starts: arm the source's timers; whether data is there to send at once.
    fn start(&mut self, now: SimTime, out: &mut Outbox) -> bool;
    /// The source's timer ([`super::Timer::App`]) fired: new data of `mss` bytes per segment
    /// may have come.
    fn on_timer(&mut self, now: SimTime, mss: u64, out: &mut Outbox);
    /// When the data of the next new segment was made (the start of its application delay).
    fn take(&mut self, now: SimTime) -> SimTime;
    /// The sender has sent what the window let out after the source's timer: a source that keeps
    /// no backlog behind a full window withdraws the data it handed over that did not leave (it
    /// was never sent, so the sender's state does not change). Nothing by default.
    fn after_send(&mut self, _mss: u64) {}
    /// Quantities of the source worth tracing, after the sender's own. None by default.
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
}
