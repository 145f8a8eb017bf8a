//! Telnet: an interactive source behind a flow-controlled window.
//!
//! Demers, Keshav & Shenker 1989, section 3: "The Telnet sources generate 40 byte packets by a
//! Poisson process with a mean interpacket interval of 5 seconds", sent with the same flow
//! control as the FTPs and "Both FTP's and Telnet's have their maximum window size set to 5".
//! Each keystroke is one segment of `packet_size` bytes, handed to the TCP sender when
//! generated; it leaves at once if the window has room. The receiver reports each keystroke's
//! delay from its generation to its in-order delivery (`mean_app_delay_s`, `sd_app_delay_s`),
//! and the sender its round-trip times (`mean_rtt_s`).
//!
//! A keystroke that finds the window full (it cannot leave at once) is an open choice, the
//! `on_full_window` key. The paper does not say: its section 2.3 treats "a general Telnet packet
//! generation process (ignoring the effects of flow control)", section 3 gives the Poisson
//! process and the window without saying how the two meet, and its simulator (Keshav's REAL,
//! whose module list calls the Telnet a "flow controlled poisson source (with windowing)") is
//! not available. The choices:
//! - `queue` (the default): it waits, in order behind any others, and leaves when the window
//!   opens, each waiting keystroke on the ACK that frees a slot;
//! - `skip`: it is not sent at all (not sent, not lost: the sender never sees it; a traced
//!   flow's series counts it in `keystrokes_skipped`). As the gaps are exponential
//!   (memoryless), this is also a Poisson generator stopped while the window is full and
//!   restarted when it opens;
//! - `hold_one`: it waits if no other keystroke does, else it is skipped (an application
//!   buffer of one keystroke).
//!
//! Under `skip` and `hold_one` no backlog builds behind a closed window; the window, the
//! retransmissions and the round-trip samples differ from `queue`'s only through the keystrokes
//! the sender is given. The keystroke process itself is the same (the same draws, the same
//! times) under every choice.
//!
//! Deviations: keystrokes waiting for the window are not coalesced into one segment (no
//! Nagle); the first keystroke comes one exponential gap after the start.

use std::collections::VecDeque;

use serde::Serialize;

use super::source::DataSource;
use super::Timer;
use crate::agent::{Outbox, TimerReq};
use crate::conf::choice_enum;
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

choice_enum! {
    /// The `on_full_window` key: what becomes of a keystroke that finds the window full.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum OnFullWindow {
        /// It waits for the window, behind any others (no limit).
        Queue = "queue",
        /// It is not sent.
        Skip = "skip",
        /// It waits if no other does, else it is not sent.
        HoldOne = "hold_one",
    }
}

impl OnFullWindow {
    /// Keystrokes that may wait for the window.
    fn may_wait(self) -> usize {
        match self {
            OnFullWindow::Queue => usize::MAX,
            OnFullWindow::Skip => 0,
            OnFullWindow::HoldOne => 1,
        }
    }
}

/// The keystroke process feeding a Telnet sender.
pub struct Keystrokes {
    mean_gap_ns: f64,
    rng: SimRng,
    on_full_window: OnFullWindow,
    /// Data bytes handed to the sender so far (less those withdrawn).
    supplied: u64,
    /// Generation times of keystrokes not yet sent.
    waiting: VecDeque<SimTime>,
    /// Keystrokes withdrawn unsent (`on_full_window` other than `queue`).
    skipped: u64,
}

impl Keystrokes {
    /// Keystrokes `mean_interval_ns` apart on average.
    pub fn new(mean_interval_ns: u64, on_full_window: OnFullWindow, rng: SimRng) -> Self {
        Keystrokes {
            mean_gap_ns: mean_interval_ns as f64,
            rng,
            on_full_window,
            supplied: 0,
            waiting: VecDeque::new(),
            skipped: 0,
        }
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

    /// Keystrokes beyond those that may wait are withdrawn, the newest first: the one just
    /// generated, as the others waited before it (a backlog only `queue` builds).
    fn after_send(&mut self, mss: u64) {
        while self.waiting.len() > self.on_full_window.may_wait() {
            self.waiting.pop_back();
            self.supplied -= mss;
            self.skipped += 1;
        }
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("keystrokes_waiting", self.waiting.len() as f64));
        out.push(("keystrokes_skipped", self.skipped as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::telnet::Params;
    use crate::conf::{parse_toml, Fields, Origin, Source};
    use crate::tcp::harness::{Bench, MS};

    fn params(keys: &str) -> Result<Params, String> {
        let src = Source { path: "t".into() };
        let t = parse_toml(keys, &src).unwrap();
        let mut f = Fields::new(&src, "flow", &t, Origin::Default);
        let p = Params::read(&mut f).map_err(|e| e.to_string())?;
        f.finish().map_err(|e| e.to_string())?;
        Ok(p)
    }

    #[test]
    fn on_full_window_defaults_to_queue_and_names_its_choices() {
        assert_eq!(params("").unwrap().on_full_window, OnFullWindow::Queue);
        assert_eq!(params("on_full_window = \"skip\"").unwrap().on_full_window, OnFullWindow::Skip);
        assert_eq!(params("on_full_window = \"hold_one\"").unwrap().on_full_window, OnFullWindow::HoldOne);
        let e = params("on_full_window = \"drop\"").unwrap_err();
        assert!(e.contains("queue, skip, hold_one"), "{e}");
    }

    /// A Telnet (1 keystroke a second, window 5, generic flow control) whose packets are all
    /// lost for its first 60 s, so that its window stays full until a retransmission gets through.
    fn held_shut(mode: &str) -> Bench {
        let p = params(&format!("mean_interval = \"1s\"\non_full_window = \"{mode}\"")).unwrap();
        let keys = Keystrokes::new(p.mean_interval_ns, p.on_full_window, SimRng::from_seed(3));
        let mut b = Bench::with_source(&p.common, None, Some(Box::new(keys)), true, 56_000, 10 * MS);
        b.drop = Box::new(|_, t| t < 60_000 * MS);
        b.run_until(300_000 * MS);
        b
    }

    /// When each new segment should leave, by a model of the choice written from its definition
    /// alone, fed the keystroke times (drawn here from the flow's stream, as the process is
    /// defined: exponential gaps, rounded to the ns) and the ACKs the sender received.
    fn expected_sends(b: &Bench, may_wait: usize, until: u64) -> (Vec<u64>, usize) {
        let mut rng = SimRng::from_seed(3);
        let mut gens = vec![];
        let mut t = 0u64;
        loop {
            t += (rng.exponential(1e9).round() as u64).max(1);
            if t >= until {
                break;
            }
            gens.push(t);
        }
        let (mut sends, mut una, mut waiting, mut skipped) = (vec![], 0u64, 0usize, 0usize);
        let (mut g, mut a) = (gens.iter().peekable(), b.acks.iter().peekable());
        loop {
            let ack_first = match (g.peek(), a.peek()) {
                (None, None) => break,
                (Some(&&tg), Some(&&(ta, _))) => ta < tg,
                (None, Some(_)) => true,
                (Some(_), None) => false,
            };
            let now;
            if ack_first {
                let &(ta, cum) = a.next().unwrap();
                una = una.max(cum / 40);
                now = ta;
            } else {
                now = *g.next().unwrap();
                if waiting < may_wait || (waiting == 0 && sends.len() as u64 - una < 5) {
                    waiting += 1;
                } else {
                    skipped += 1;
                }
            }
            while waiting > 0 && (sends.len() as u64 - una) < 5 {
                sends.push(now);
                waiting -= 1;
            }
        }
        (sends, skipped)
    }

    #[test]
    fn a_full_window_holds_back_keystrokes_as_the_choice_says_and_nothing_else() {
        let until = 300_000 * MS;
        let runs: Vec<(usize, Bench)> =
            [(usize::MAX, "queue"), (0, "skip"), (1, "hold_one")].into_iter().map(|(w, m)| (w, held_shut(m))).collect();
        let new_sends = |b: &Bench| b.sent.iter().filter(|s| !s.retx).map(|s| s.t).collect::<Vec<u64>>();
        // The window reopens on the first ACK, at the same time under every choice.
        let reopen = runs[0].1.acks[0].0;
        assert!(reopen > 60_000 * MS);
        let mut counts = vec![];
        for (may_wait, b) in &runs {
            let (expected, skipped) = expected_sends(b, *may_wait, until);
            assert_eq!(new_sends(b), expected, "may wait: {may_wait}");
            assert!(b.sent.iter().filter(|s| !s.retx).map(|s| s.seq).eq((0..expected.len() as u64).map(|k| 40 * k)));
            // Until the window reopens, the sender's own packets are the same: the first five
            // keystrokes and the retransmissions of their timeouts.
            let before =
                |b: &Bench| b.sent.iter().filter(|s| s.t <= reopen).map(|s| (s.t, s.seq, s.retx)).collect::<Vec<_>>();
            assert_eq!(before(b), before(&runs[0].1));
            assert_eq!(b.acks[0].0, reopen);
            // Keystrokes that left on an ACK rather than when generated: those that waited.
            let on_acks = new_sends(b).iter().filter(|&&t| b.acks.iter().any(|a| a.0 == t)).count();
            counts.push((on_acks, skipped));
        }
        // Queue: the keystrokes of the shut minute but the five in flight (about 55) wait and
        // none is skipped; skip: none waits, they are skipped; hold_one: one of them waits.
        let [(q_waited, q_skipped), (s_waited, s_skipped), (h_waited, h_skipped)] = counts[..] else { panic!() };
        assert!(q_waited > 40 && q_skipped == 0, "{counts:?}");
        assert!(s_waited == 0 && s_skipped > 40, "{counts:?}");
        assert!(h_waited >= 1 && h_skipped > 40 && h_skipped < s_skipped, "{counts:?}");
        // Every keystroke generated is sent under queue (the window is open at the end).
        assert_eq!(new_sends(&runs[0].1).len(), expected_sends(&runs[1].1, 0, until).0.len() + s_skipped);
    }

    #[test]
    fn keystrokes_arrive_as_a_poisson_process_and_report_their_delay() {
        let src = Source { path: "t".into() };
        let t = parse_toml("mean_interval = \"1s\"", &src).unwrap();
        let mut f = Fields::new(&src, "flow", &t, Origin::Default);
        let p = Params::read(&mut f).unwrap();
        assert_eq!((p.common.packet_size, p.common.max_window, p.common.cc.name()), (40, 5, "generic"));
        let keys = Keystrokes::new(p.mean_interval_ns, p.on_full_window, SimRng::from_seed(3));
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
