//! Telnet: an interactive source behind a flow-controlled window.
//!
//! Demers, Keshav & Shenker 1989, section 3: "The Telnet sources generate 40 byte packets by a
//! Poisson process with a mean interpacket interval of 5 seconds", sent with the same flow
//! control as the FTPs and a maximum window of 5. Each keystroke is one segment of
//! `packet_size` bytes, handed to the TCP sender when generated; it leaves at once if the
//! window has room, else when it opens. The receiver reports each keystroke's delay from its
//! generation to its in-order delivery (`mean_app_delay_s`, `sd_app_delay_s`), and the sender
//! its round-trip times (`mean_rtt_s`).
//!
//! Deviations: keystrokes waiting for the window are not coalesced into one segment (no
//! Nagle); the first keystroke comes one exponential gap after the start.

use std::collections::VecDeque;

use super::source::DataSource;
use super::Timer;
use crate::agent::{Outbox, TimerReq};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

/// The keystroke process feeding a Telnet sender.
pub struct Keystrokes {
    mean_gap_ns: f64,
    rng: SimRng,
    /// Data bytes generated so far.
    supplied: u64,
    /// Generation times of keystrokes not yet sent.
    waiting: VecDeque<SimTime>,
}

impl Keystrokes {
    /// Keystrokes `mean_interval_ns` apart on average.
    pub fn new(mean_interval_ns: u64, rng: SimRng) -> Self {
        Keystrokes { mean_gap_ns: mean_interval_ns as f64, rng, supplied: 0, waiting: VecDeque::new() }
    }

    /// Arm the timer for the next keystroke.
    fn schedule_next(&mut self, now: SimTime, out: &mut Outbox) {
        let gap = self.rng.exponential(self.mean_gap_ns).round() as u64;
        out.timers.push(TimerReq { at: now + SimDuration(gap.max(1)), kind: Timer::App.kind(), gen: 0 });
    }
}

impl DataSource for Keystrokes {
    fn supplied(&self) -> u64 {
        self.supplied
    }

    /// No keystroke yet: the first comes one exponential gap after the start.
    fn start(&mut self, now: SimTime, out: &mut Outbox) -> bool {
        self.schedule_next(now, out);
        false
    }

    /// A keystroke of one segment now; the next one is scheduled.
    fn on_timer(&mut self, now: SimTime, mss: u64, out: &mut Outbox) {
        self.supplied += mss;
        self.waiting.push_back(now);
        self.schedule_next(now, out);
    }

    /// The generation time of the next keystroke to be sent.
    fn take(&mut self, now: SimTime) -> SimTime {
        self.waiting.pop_front().unwrap_or(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::telnet::Params;
    use crate::conf::{parse_toml, Fields, Origin, Source};
    use crate::tcp::harness::{Bench, MS};

    #[test]
    fn keystrokes_arrive_as_a_poisson_process_and_report_their_delay() {
        let src = Source { path: "t".into() };
        let t = parse_toml("mean_interval = \"1s\"", &src).unwrap();
        let mut f = Fields::new(&src, "flow", &t, Origin::Default);
        let p = Params::read(&mut f).unwrap();
        assert_eq!((p.common.packet_size, p.common.max_window, p.common.cc.name()), (40, 5, "generic"));
        let keys = Keystrokes::new(p.mean_interval_ns, SimRng::from_seed(3));
        // 56 kbps and 10 ms each way: a keystroke takes 40 x 8 / 56000 s + 10 ms to arrive.
        let mut b = Bench::with_source(&p.common, None, Some(Box::new(keys)), true, 56_000, 10 * MS);
        b.run_until(2_000_000 * MS);
        let n = b.sent.len() as f64;
        assert!((n - 2000.0).abs() < 4.0 * 2000f64.sqrt(), "{n} keystrokes in 2000 s at 1/s");
        assert!(b.sent.iter().all(|s| !s.retx));
        assert_eq!(b.app_delays.len(), b.sent.len());
        let one_way = 10 * MS + crate::units::tx_time_ns(40, 56_000);
        assert!(b.app_delays.iter().all(|&d| d >= one_way && d < one_way + 6 * MS), "{:?}", b.app_delays.iter().max());
        let mean_rtt = b.rtts.iter().sum::<u64>() as f64 / b.rtts.len() as f64;
        assert!((mean_rtt - (one_way + 10 * MS) as f64).abs() < 1e6, "{mean_rtt}");
        assert_eq!(b.goodput, 40 * b.sent.len() as u64);
    }
}
