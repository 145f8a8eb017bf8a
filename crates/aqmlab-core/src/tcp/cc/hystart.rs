//! HyStart++: slow start that ends when round trips start to grow, before the first loss.
//!
//! P. Balasubramanian, Y. Huang, M. Olson, "HyStart++: Modified Slow Start for TCP", RFC 9406
//! (2023). Rounds are delimited by the data outstanding when a round begins (`windowEnd`).
//! In each round the smallest of the first N_RTT_SAMPLE = 8 round-trip samples is compared
//! with the last round's: when it grew by at least RttThresh = clamp(lastRoundMinRTT / 8,
//! 4 ms, 16 ms), slow start gives way to Conservative Slow Start (CSS), where the window grows
//! by 1/CSS_GROWTH_DIVISOR = 1/4 of what slow start would add. If a CSS round's minimum falls
//! below the minimum that triggered CSS, that was a false alarm and slow start resumes; after
//! CSS_ROUNDS = 5 rounds of CSS, slow start is over (ssthresh = cwnd). A loss or ECN echo ends
//! both (the congestion control reduces as usual).
//!
//! Deviations: the per-ACK growth limit L does not apply (windows grow by whole packets per ACK
//! here, never by more than the packets acknowledged); rounds are counted by the first ACK past
//! `windowEnd`, the highest byte sent when the round began.

use super::AckInfo;

const MIN_RTT_THRESH_NS: f64 = 4e6;
const MAX_RTT_THRESH_NS: f64 = 16e6;
const MIN_RTT_DIVISOR: f64 = 8.0;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Conservative slow start, with the rounds spent in it.
    Css(u32),
    /// Slow start is over (or a reduction ended it).
    Done,
}

/// RttThresh of RFC 9406: the rise in a round's minimum RTT that ends slow start, ns.
pub fn rtt_thresh(last_round_min_ns: f64) -> f64 {
    (last_round_min_ns / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH_NS, MAX_RTT_THRESH_NS)
}

#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    window_end: u64,
    last_round_min: f64,
    current_round_min: f64,
    samples: u32,
    css_baseline: f64,
}

impl Default for HyStart {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStart {
    pub fn new() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            window_end: 0,
            last_round_min: f64::INFINITY,
            current_round_min: f64::INFINITY,
            samples: 0,
            css_baseline: f64::INFINITY,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Every ACK of new data (in any phase: rounds and samples are kept up to date).
    pub fn on_ack(&mut self, a: &AckInfo) {
        if self.phase == Phase::Done {
            return;
        }
        if a.ack > self.window_end {
            // A new round.
            self.last_round_min = self.current_round_min;
            self.current_round_min = f64::INFINITY;
            self.samples = 0;
            self.window_end = a.snd_max;
            if let Phase::Css(n) = self.phase {
                self.phase = if n + 1 >= CSS_ROUNDS { Phase::Done } else { Phase::Css(n + 1) };
            }
        }
        if let Some(rtt) = a.rtt {
            self.current_round_min = self.current_round_min.min(rtt.ns() as f64);
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE && self.current_round_min.is_finite();
        match self.phase {
            Phase::SlowStart
                if enough
                    && self.last_round_min.is_finite()
                    && self.current_round_min >= self.last_round_min + rtt_thresh(self.last_round_min) =>
            {
                self.css_baseline = self.current_round_min;
                self.phase = Phase::Css(0);
            }
            Phase::Css(_) if enough && self.current_round_min < self.css_baseline => {
                self.css_baseline = f64::INFINITY;
                self.phase = Phase::SlowStart;
            }
            Phase::SlowStart | Phase::Css(_) | Phase::Done => {}
        }
    }

    /// The window increase for `acked` packets acknowledged in the current phase.
    pub fn growth(&self, acked: f64) -> f64 {
        match self.phase {
            Phase::Css(_) => acked / CSS_GROWTH_DIVISOR,
            Phase::SlowStart | Phase::Done => acked,
        }
    }

    /// Whether slow start is over (set ssthresh to the window).
    pub fn slow_start_over(&self) -> bool {
        self.phase == Phase::Done
    }

    /// A reduction ended slow start.
    pub fn exit(&mut self) {
        self.phase = Phase::Done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimDuration;

    const MS: u64 = 1_000_000;

    /// One round of `n` ACKs, each with round trip `rtt`, acknowledging bytes (start, start + n].
    fn round(h: &mut HyStart, start: u64, n: u64, rtt: u64) -> u64 {
        for i in 0..n {
            h.on_ack(&AckInfo {
                ack: start + i + 1,
                snd_max: start + n,
                rtt: Some(SimDuration(rtt)),
                ..Default::default()
            });
        }
        start + n
    }

    #[test]
    fn rtt_thresh_is_an_eighth_clamped_to_4_and_16_ms() {
        assert_eq!(rtt_thresh(20.0 * MS as f64), 4.0 * MS as f64);
        assert_eq!(rtt_thresh(80.0 * MS as f64), 10.0 * MS as f64);
        assert_eq!(rtt_thresh(400.0 * MS as f64), 16.0 * MS as f64);
    }

    #[test]
    fn a_rise_of_rtt_thresh_starts_css_and_five_css_rounds_end_slow_start() {
        let mut h = HyStart::new();
        let mut at = round(&mut h, 0, 10, 80 * MS);
        at = round(&mut h, at, 20, 89 * MS); // +9 ms < 10 ms: still slow start
        assert_eq!(h.phase(), Phase::SlowStart);
        at = round(&mut h, at, 40, 100 * MS); // +11 ms < 89 / 8: still slow start
        assert_eq!(h.phase(), Phase::SlowStart);
        at = round(&mut h, at, 40, 113 * MS); // +13 ms >= 100 / 8: CSS
        assert_eq!(h.phase(), Phase::Css(0));
        assert_eq!(h.growth(4.0), 1.0);
        for _ in 0..4 {
            at = round(&mut h, at, 40, 113 * MS);
        }
        assert_eq!(h.phase(), Phase::Css(4));
        round(&mut h, at, 40, 113 * MS);
        assert!(h.slow_start_over());
    }

    #[test]
    fn a_css_round_below_the_baseline_resumes_slow_start() {
        let mut h = HyStart::new();
        let mut at = round(&mut h, 0, 10, 80 * MS);
        at = round(&mut h, at, 20, 100 * MS);
        assert_eq!(h.phase(), Phase::Css(0));
        round(&mut h, at, 20, 90 * MS);
        assert_eq!(h.phase(), Phase::SlowStart);
    }
}
