//! Round-trip estimation and retransmission timeouts.
//!
//! Two estimators, as the papers use them:
//! - **generic** (Demers, Keshav & Shenker 1989, after XNS SPP and pre-1988 TCP): an
//!   exponentially weighted average `srtt += gain * (sample - srtt)` and a timeout of
//!   `beta * srtt` (beta = 2). A retransmitted packet's sample runs from its *first*
//!   transmission to its acknowledgement (the FQ paper's rule; see the sender).
//! - **jacobson** (Jacobson 1988, Jacobson & Karels; RFC 6298): `srtt` and the mean deviation
//!   `rttvar` with gains 1/8 and 1/4, first sample `srtt = R, rttvar = R/2`, timeout
//!   `srtt + 4 rttvar`. Samples follow Karn's rule: none from a retransmitted packet.
//!
//! Around either: a minimum and maximum timeout, exponential backoff (the timeout doubles with
//! each expiry, up to 64 times, and returns to the estimate after the next valid sample), and
//! an optional coarse timer `tick`. With `tick = T > 0` the model is 4.3BSD's slow timer
//! (T = 500 ms): round trips are measured in whole ticks (the number of tick boundaries between
//! sending and acknowledgement, so a sample can be 0), and a timeout of n ticks expires at the
//! n-th tick boundary after it is set, that is after between (n-1)T and nT. Tick boundaries are
//! at multiples of T from time 0, shared by every host (`tick_phase = "aligned"`), or each
//! flow's clock ticks at a phase of its own, uniform in [0, T) and drawn from the flow's random
//! stream (`"random"`), as the clocks of independent hosts do. The timers (`timers`) are one per
//! connection, restarted by each ACK of new data (RFC 6298; the Jacobson default), or one per
//! segment from its own sending (`per_segment`; always for the generic estimator): see the
//! sender.
//!
//! The Jacobson timeout is srtt + k rttvar with k = `rto_k`: 4 by default (RFC 6298,
//! 4.3BSD-Reno), 2 for Jacobson 1988 and 4.3BSD-Tahoe. Its samples come from every ACK of new
//! data (`rtt_timing = "every_ack"`, RFC 6298) or from one segment timed at a time
//! (`"one_at_a_time"`, BSD's `t_rtt`; see the sender). After `clear_srtt_after_backoffs` back-offs
//! in a row (0: never; 4.3BSD: 4) srtt is cleared and the next sample starts the estimate afresh
//! (RFC 6298 section 5 allows it); its weight moves into rttvar so the timeout holds until then,
//! as BSD's `tcp_timers` does (`t_rttvar += t_srtt >> 2; t_srtt = 0`, i.e. rttvar += srtt / k).
//!
//! On a coarse timer a sample counts the tick boundaries crossed, plus `rtt_count_from`: 0 by
//! default, 1 in BSD, whose `t_rtt` starts at 1 when a segment is timed (0 means "not timing")
//! and is taken whole as the sample, so every BSD sample is one tick longer.
//!
//! `tick_model = "ns2"` is the other coarse timer the papers ran on: the TCP agents of ns-2
//! (the simulator of the CHOKe paper; the defaults of its 1997-98 releases, `tcpTick_ = 0.1`,
//! `maxrto_ = 64`, no `minrto_`, before its RFC 2988 mode), whose `rtt_update`, `rtt_timeout`
//! and `rtt_backoff` differ from BSD's in three ways: a sample counts the tick boundaries
//! crossed but is at least one tick; the timeout is srtt + k rttvar cut down to whole ticks,
//! times the back-off, and at least two ticks after it; and it runs exactly from when it is set
//! rather than to a tick boundary (the clock's phase is each agent's `boot_time_`, uniform over
//! a tick: `tick_phase = "random"`).
//! Deviation: ns-2 keeps srtt and rttvar in whole ticks with 3 and 2 fraction bits; floats here.
//!
//! Deviation: 4.3BSD kept srtt and rttvar in scaled fixed point; we use floating point.
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the estimator itself is the first 480 or so.

use serde::Serialize;

use crate::conf::{choice_enum, Duration, DurationBound, Fields, Result};
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

/// Which estimate the timeout comes from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "estimator", rename_all = "snake_case")]
pub enum Estimator {
    /// EWMA with this gain; timeout = beta * srtt; `per_packet`: a sample for every packet an
    /// ACK covers (see [`Samples`]).
    Generic { gain: f64, beta: f64, per_packet: bool },
    /// srtt + k rttvar (RFC 6298: k = 4; 4.3BSD-Tahoe: 2); `one_at_a_time`: one segment timed
    /// at a time (see [`Timing`]), else the segment each ACK of new data acknowledges first.
    Jacobson {
        #[serde(skip_serializing_if = "is_rfc6298_k")]
        k: u8,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        one_at_a_time: bool,
        /// Clear srtt from this many back-offs in a row on (0: never).
        #[serde(skip_serializing_if = "is_zero")]
        clear_after_backoffs: u8,
    },
}

/// RFC 6298's K, left out of a serialised configuration (so results written before the key
/// existed read the same).
fn is_rfc6298_k(k: &u8) -> bool {
    *k == RFC6298_K
}

/// A key left out of a serialised configuration at its default 0.
fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// RFC 6298's K: the timeout is srtt + 4 rttvar.
pub const RFC6298_K: u8 = 4;

impl Estimator {
    /// Jacobson/Karels as RFC 6298 has it: k = 4, every ACK of new data samples.
    pub const JACOBSON: Estimator = Estimator::Jacobson { k: RFC6298_K, one_at_a_time: false, clear_after_backoffs: 0 };
}

choice_enum! {
    /// The `rtt_timing` key of the Jacobson estimator: which segments give round-trip samples.
    /// `every_ack`: the one each ACK of new data acknowledges first (RFC 6298 section 3; Karn's
    /// rule skips a retransmitted one). `one_at_a_time`: BSD's `t_rtt`, one segment timed at a
    /// time: a new segment sent while none is timed starts a timing, the ACK that covers it ends
    /// it with a sample, and a retransmission cancels it (4.3BSD `tcp_output`, `tcp_input`,
    /// `tcp_timers`), so about one sample per round trip.
    #[derive(Clone, Copy, PartialEq)]
    enum Timing {
        EveryAck = "every_ack",
        OneAtATime = "one_at_a_time",
    }
}

choice_enum! {
    /// The `samples` key of the generic estimator: which packets an ACK that advances the window
    /// samples. `per_ack`: the packet that caused it (from its last sending, or its first when it
    /// was retransmitted). `per_packet`: every packet it covers, each from its first sending, so
    /// that the packets delivered behind a lost one and acknowledged with it count their wait
    /// too: the FQ paper speaks of "the rtt estimate for retransmitted packets", a round trip per
    /// packet, without saying which packets give one.
    #[derive(Clone, Copy, PartialEq)]
    enum Samples {
        PerAck = "per_ack",
        PerPacket = "per_packet",
    }
}

choice_enum! {
    /// The `tick_phase` key: whether flows' coarse clocks tick together (`RtoParams::random_tick_phase`).
    #[derive(Clone, Copy, PartialEq)]
    enum TickPhase {
        Aligned = "aligned",
        Random = "random",
    }
}

choice_enum! {
    /// The `tick_model` key: whose coarse timer `tick` is (`RtoParams::ns2_ticks`).
    #[derive(Clone, Copy, PartialEq)]
    enum TickModel {
        Bsd = "bsd",
        Ns2 = "ns2",
    }
}

choice_enum! {
    /// The `timers` key: how many retransmission timers (`RtoParams::per_segment`).
    #[derive(Clone, Copy, PartialEq)]
    enum Timers {
        One = "one",
        PerSegment = "per_segment",
    }
}

/// Timeout settings (validated).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RtoParams {
    #[serde(flatten)]
    pub estimator: Estimator,
    /// Timeout before the first sample, ns.
    pub initial_rto_ns: u64,
    /// The timeout data starts with after the SYN timed out and the handshake gave no sample,
    /// when longer than `initial_rto_ns` (RFC 6298 5.7: 3 s), ns; none: `initial_rto_ns`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_syn_timeout_ns: Option<std::num::NonZeroU64>,
    pub min_rto_ns: u64,
    pub max_rto_ns: u64,
    /// Timer granularity, ns; 0 for exact timers.
    pub tick_ns: u64,
    /// Each flow's coarse clock ticks at a phase of its own (`tick_phase = "random"`), as
    /// independent hosts' clocks do; else every clock ticks at the multiples of `tick_ns`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub random_tick_phase: bool,
    /// Ticks a coarse sample starts counting from (BSD's `t_rtt`: 1), added to the boundaries crossed.
    #[serde(skip_serializing_if = "is_zero")]
    pub rtt_count_from: u8,
    /// The coarse timer is ns-2's agents' (`tick_model = "ns2"`): samples of at least one tick,
    /// the timeout cut to whole ticks and at least two after back-off, timers exact; else 4.3BSD's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ns2_ticks: bool,
    /// Double the timeout on each expiry (Karn's backoff).
    pub backoff: bool,
    /// One timer per outstanding segment, from its own sending, resending it alone (the FQ
    /// paper's generic flow control, and its JK model built on it); else one per connection.
    pub per_segment: bool,
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// Largest backoff multiplier (4.3BSD's table stops at 64).
pub const MAX_BACKOFF_SHIFT: u32 = 6;

impl RtoParams {
    /// The FQ paper's generic flow control: gain 1/8, beta 2, no backoff, neither floor nor
    /// ceiling (its timeout is "beta rtt", bounded neither way).
    pub const GENERIC: RtoParams = RtoParams {
        estimator: Estimator::Generic { gain: 0.125, beta: 2.0, per_packet: false },
        initial_rto_ns: 3 * S,
        after_syn_timeout_ns: None,
        min_rto_ns: 0,
        max_rto_ns: DurationBound::UNBOUNDED.0,
        tick_ns: 0,
        random_tick_phase: false,
        rtt_count_from: 0,
        ns2_ticks: false,
        backoff: false,
        per_segment: true,
    };
    /// Jacobson/Karels timeouts with Karn's backoff; exact timers, 200 ms floor (ns-2, Linux).
    pub const JACOBSON: RtoParams = RtoParams {
        estimator: Estimator::JACOBSON,
        initial_rto_ns: 3 * S,
        after_syn_timeout_ns: None,
        min_rto_ns: 200 * MS,
        max_rto_ns: 64 * S,
        tick_ns: 0,
        random_tick_phase: false,
        rtt_count_from: 0,
        ns2_ticks: false,
        backoff: true,
        per_segment: false,
    };
    /// Today's stacks: as [`RtoParams::JACOBSON`] with RFC 6298's initial timeout of 1 s (Linux's
    /// TCP_TIMEOUT_INIT) instead of RFC 1122's 3 s.
    pub const RFC6298: RtoParams = RtoParams {
        estimator: Estimator::JACOBSON,
        initial_rto_ns: S,
        after_syn_timeout_ns: None,
        min_rto_ns: 200 * MS,
        max_rto_ns: 64 * S,
        tick_ns: 0,
        random_tick_phase: false,
        rtt_count_from: 0,
        ns2_ticks: false,
        backoff: true,
        per_segment: false,
    };

    /// Read the timeout keys, with `d` as the defaults (and the estimator kind).
    pub fn read(f: &mut Fields, d: RtoParams) -> Result<Self> {
        let estimator = match d.estimator {
            Estimator::Generic { gain, beta, per_packet } => {
                let gain: f64 = f.or("gain", gain, "EWMA gain of the round-trip estimate")?;
                f.ensure(gain > 0.0 && gain <= 1.0, "gain", "must be in (0, 1]")?;
                let beta: f64 = f.or("beta", beta, "timeout = beta x smoothed round trip (the FQ paper's beta)")?;
                f.ensure(beta >= 1.0, "beta", "must be at least 1")?;
                let samples = f.choice(
                    "samples",
                    if per_packet { Samples::PerPacket } else { Samples::PerAck },
                    "round-trip samples an ACK of new data gives: per_ack, the packet that caused it; per_packet, \
                     every packet it covers, each from its first sending",
                )?;
                Estimator::Generic { gain, beta, per_packet: samples == Samples::PerPacket }
            }
            Estimator::Jacobson { k, one_at_a_time, clear_after_backoffs } => {
                let k: u32 = f.or(
                    "rto_k",
                    k as u32,
                    "the timeout is srtt + rto_k x rttvar (RFC 6298 and 4.3BSD-Reno: 4; Jacobson 1988 and \
                     4.3BSD-Tahoe: 2)",
                )?;
                f.ensure((1..=16).contains(&k), "rto_k", "must be a whole number from 1 to 16")?;
                let timing = f.choice(
                    "rtt_timing",
                    if one_at_a_time { Timing::OneAtATime } else { Timing::EveryAck },
                    "which segments give round-trip samples: every_ack, the one each ACK of new data acknowledges \
                     first (RFC 6298); one_at_a_time, one segment timed at a time, as BSD's t_rtt (a new segment \
                     sent while none is timed is timed until the ACK that covers it; a retransmission cancels it)",
                )?;
                let clear: u32 = f.or(
                    "clear_srtt_after_backoffs",
                    clear_after_backoffs as u32,
                    "clear srtt after this many back-offs in a row, so the next sample starts the estimate afresh \
                     (RFC 6298 section 5; 4.3BSD: 4); 0 never clears it",
                )?;
                f.ensure(
                    clear <= MAX_BACKOFF_SHIFT,
                    "clear_srtt_after_backoffs",
                    "must be a whole number from 0 (never) to 6 (the back-offs a timeout takes before it stops doubling)",
                )?;
                Estimator::Jacobson {
                    k: k as u8,
                    one_at_a_time: timing == Timing::OneAtATime,
                    clear_after_backoffs: clear as u8,
                }
            }
        };
        let initial: Duration = f.or(
            "initial_rto",
            Duration(d.initial_rto_ns),
            "retransmission timeout before the first round-trip sample",
        )?;
        f.ensure(initial.0 > 0, "initial_rto", "must be above 0")?;
        let after_syn: Option<Duration> = f.opt(
            "rto_after_syn_timeout",
            "with handshake = true: the retransmission timeout data starts with when the SYN timed out (the \
             handshake then gives no round-trip sample), if longer than initial_rto (RFC 6298 section 5.7 and \
             Linux: \"3s\"; default: initial_rto)",
        )?;
        if let Some(d) = after_syn {
            f.ensure(d.0 > 0, "rto_after_syn_timeout", "must be above 0")?;
        }
        let min: Duration = f.or("min_rto", Duration(d.min_rto_ns), "smallest retransmission timeout")?;
        let max: DurationBound = f.or(
            "max_rto",
            DurationBound(d.max_rto_ns),
            "largest retransmission timeout (backoff included), or \"unbounded\"",
        )?;
        f.ensure(max.0 > 0 && max.0 >= min.0, "max_rto", "must be above 0 and at least min_rto")?;
        let tick: Duration =
            f.or("tick", Duration(d.tick_ns), "coarse timer granularity (4.3BSD: \"500ms\"); 0 for exact timers")?;
        let tick_phase = f.choice(
            "tick_phase",
            TickPhase::Aligned,
            "with a coarse tick: aligned, every flow's clock ticks at the multiples of tick from time 0; random, each \
             flow's clock at a phase of its own drawn per flow, as independent hosts' clocks (4.3BSD's 500 ms \
             tcp_slowtimo) do",
        )?;
        let count_from: u32 = f.or(
            "rtt_count_from",
            0,
            "with a coarse tick: the count a timed round trip starts from, added to the tick boundaries it \
             crosses: 0, or 1 as BSD's t_rtt, which starts at 1",
        )?;
        f.ensure(count_from <= 1, "rtt_count_from", "must be 0 or 1")?;
        f.ensure(
            count_from == 0 || tick.0 > 0,
            "rtt_count_from",
            "counts coarse ticks: give tick (4.3BSD: \"500ms\") or leave rtt_count_from at 0",
        )?;
        let tick_model = f.choice(
            "tick_model",
            TickModel::Bsd,
            "with a coarse tick, whose timer: bsd, 4.3BSD's slow timer (a sample counts the tick boundaries \
             crossed; a timeout of n ticks expires at the n-th boundary); ns2, ns-2's TCP agents (a sample counts \
             the boundaries crossed but at least one tick; the timeout is srtt + rto_k x rttvar cut to whole ticks, \
             times the back-off, at least two ticks, and runs exactly from when it is set)",
        )?;
        f.ensure(
            tick_model == TickModel::Bsd || tick.0 > 0,
            "tick_model",
            "models a coarse timer: give tick (ns-2: \"100ms\") or leave tick_model at bsd",
        )?;
        f.ensure(
            tick_model == TickModel::Bsd || count_from == 0,
            "rtt_count_from",
            "is BSD's: leave it at 0 with tick_model = \"ns2\" (ns-2 counts from 0, at least one tick)",
        )?;
        let backoff: bool =
            f.or("backoff", d.backoff, "double the timeout after each expiry until a valid round-trip sample")?;
        let timers = f.choice(
            "timers",
            if d.per_segment { Timers::PerSegment } else { Timers::One },
            "retransmission timers: one per connection, restarted by each ACK of new data (RFC 6298), or one per \
             segment from its own sending, which resends that segment alone (the FQ paper's generic flow \
             control, and the JK model it built on it)",
        )?;
        let per_segment = timers == Timers::PerSegment;
        f.ensure(
            per_segment || !matches!(estimator, Estimator::Generic { .. }),
            "timers",
            "the generic timeout has one timer per segment",
        )?;
        Ok(RtoParams {
            estimator,
            initial_rto_ns: initial.0,
            // A zero wait lengthens nothing (`syn_timed_out` keeps the longer): the same as none.
            after_syn_timeout_ns: after_syn.and_then(|d| std::num::NonZeroU64::new(d.0)),
            min_rto_ns: min.0,
            max_rto_ns: max.0,
            tick_ns: tick.0,
            random_tick_phase: tick_phase == TickPhase::Random,
            rtt_count_from: count_from as u8,
            ns2_ticks: tick_model == TickModel::Ns2,
            backoff,
            per_segment,
        })
    }

    /// Whether this is the FQ paper's generic timeout mechanism (one timer per packet,
    /// samples from the first transmission) rather than Jacobson/Karels'.
    pub fn is_generic(&self) -> bool {
        matches!(self.estimator, Estimator::Generic { .. })
    }

    /// Whether one segment is timed at a time (`rtt_timing = "one_at_a_time"`).
    pub fn times_one_at_a_time(&self) -> bool {
        matches!(self.estimator, Estimator::Jacobson { one_at_a_time: true, .. })
    }

    /// Whether an ACK samples every packet it covers (`samples = "per_packet"`).
    pub fn samples_every_packet(&self) -> bool {
        matches!(self.estimator, Estimator::Generic { per_packet: true, .. })
    }
}

/// Jacobson's mean and mean deviation (RFC 6298 gains), in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeanDev {
    pub srtt: f64,
    pub rttvar: f64,
    pub valid: bool,
    /// srtt was cleared after back-offs: the next sample starts afresh (the timeout holds).
    pub cleared: bool,
}

impl MeanDev {
    pub fn update(&mut self, r: f64) {
        if self.valid && !self.cleared {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        } else {
            *self = MeanDev { srtt: r, rttvar: r / 2.0, valid: true, cleared: false };
        }
    }
    /// srtt + k rttvar, ns.
    pub fn timeout(&self, k: f64) -> f64 {
        self.srtt + k * self.rttvar
    }
}

/// A flow's round-trip estimate and timeout.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    p: RtoParams,
    md: MeanDev,
    /// With a coarse timer, its clock ticks at this many ns past each multiple of `tick_ns`
    /// (0 unless `tick_phase = "random"`: the host's own clock).
    phase_ns: u64,
}

impl RttEstimator {
    pub fn new(p: RtoParams) -> Self {
        RttEstimator { p, md: MeanDev::default(), phase_ns: 0 }
    }

    /// As [`RttEstimator::new`], the coarse clock's phase drawn from `clocks` when the
    /// parameters ask for a random one (from a stream derived from it: no other draw changes);
    /// `None` for a kind that refuses random phases when read (a workload).
    pub fn with_clock_of(p: RtoParams, clocks: Option<&SimRng>) -> Self {
        debug_assert!(clocks.is_some() || !p.random_tick_phase, "a random tick phase needs a stream");
        let mut e = RttEstimator::new(p);
        if let (true, Some(rng)) = (p.random_tick_phase && p.tick_ns > 0, clocks) {
            e.phase_ns = (rng.derived("tcp coarse clock").uniform() * p.tick_ns as f64) as u64;
        }
        e
    }

    /// How many ticks of the coarse clock (`tick`, at `phase_ns` past its multiples) have come
    /// by `t` ([`SimTime::ticks_by`]).
    fn ticks_by(&self, t: SimTime, tick: u64) -> u64 {
        t.ticks_by(SimDuration(tick), self.phase_ns)
    }

    pub fn params(&self) -> &RtoParams {
        &self.p
    }

    /// A round-trip sample: the packet left at `sent_at` and its acknowledgement came `now`.
    pub fn sample(&mut self, sent_at: SimTime, now: SimTime) {
        let r = match self.p.tick_ns {
            0 => (now - sent_at).ns() as f64,
            t => {
                let crossed = self.ticks_by(now, t) - self.ticks_by(sent_at, t) + self.p.rtt_count_from as u64;
                (if self.p.ns2_ticks { crossed.max(1) } else { crossed } * t) as f64
            }
        };
        match self.p.estimator {
            Estimator::Generic { gain, .. } => {
                if self.md.valid {
                    self.md.srtt += gain * (r - self.md.srtt);
                } else {
                    self.md = MeanDev { srtt: r, rttvar: 0.0, valid: true, cleared: false };
                }
            }
            Estimator::Jacobson { .. } => self.md.update(r),
        }
    }

    /// The timer has backed off `shift` times in a row: from `clear_srtt_after_backoffs` on, srtt
    /// is cleared and its weight moved into rttvar, so the timeout holds until the next sample
    /// starts the estimate afresh (4.3BSD `tcp_timers`).
    pub fn backed_off_to(&mut self, shift: u32) {
        if let Estimator::Jacobson { k, clear_after_backoffs: n @ 1.., .. } = self.p.estimator {
            if shift >= n as u32 && self.md.valid {
                self.md.rttvar += self.md.srtt / k as f64;
                self.md.srtt = 0.0;
                self.md.cleared = true;
            }
        }
    }

    /// The handshake ended after the SYN timed out, so without a sample: from now until the first
    /// sample the timeout is `after_syn_timeout` where that is longer (RFC 6298 section 5.7).
    pub fn syn_timed_out(&mut self) {
        if let (Some(after), false) = (self.p.after_syn_timeout_ns, self.md.valid) {
            self.p.initial_rto_ns = self.p.initial_rto_ns.max(after.get());
        }
    }

    /// Smoothed round trip, ns (`None` before the first sample, and once cleared after
    /// back-offs until the next).
    pub fn srtt(&self) -> Option<f64> {
        (self.md.valid && !self.md.cleared).then_some(self.md.srtt)
    }

    /// The timeout before backoff, within [min_rto, max_rto].
    pub fn rto(&self) -> SimDuration {
        let raw = if !self.md.valid {
            self.p.initial_rto_ns as f64
        } else {
            match self.p.estimator {
                Estimator::Generic { beta, .. } => beta * self.md.srtt,
                Estimator::Jacobson { k, .. } => self.md.timeout(k as f64),
            }
        };
        // ns-2's t_rtxcur_: the estimate in whole ticks, the fraction dropped.
        let raw = if self.p.ns2_ticks && self.md.valid {
            let tick = self.p.tick_ns as f64;
            (raw / tick).floor() * tick
        } else {
            raw
        };
        SimDuration((raw.round() as u64).clamp(self.p.min_rto_ns, self.p.max_rto_ns))
    }

    /// The timeout after `shift` backoffs.
    pub fn backed_off(&self, shift: u32) -> SimDuration {
        let shift = if self.p.backoff { shift.min(MAX_BACKOFF_SHIFT) } else { 0 };
        // Saturating: an unbounded ceiling must not let a doubling wrap.
        let doubled = self.rto().ns().saturating_mul(1 << shift);
        // ns-2's rtt_timeout: never under two ticks, whatever the floor.
        let floor = if self.p.ns2_ticks { self.p.min_rto_ns.max(2 * self.p.tick_ns) } else { self.p.min_rto_ns };
        SimDuration(doubled.min(self.p.max_rto_ns).max(floor))
    }

    /// When a timeout set `now` after `shift` backoffs expires (on a tick boundary when the
    /// timer is BSD's coarse one).
    pub fn deadline(&self, now: SimTime, shift: u32) -> SimTime {
        let rto = self.backed_off(shift);
        match self.p.tick_ns {
            0 => now + rto,
            _ if self.p.ns2_ticks => now + rto,
            t => SimTime(self.phase_ns + (self.ticks_by(now, t) + rto.ns().div_ceil(t).max(1) - 1) * t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobson_starts_at_r_and_r_over_2_and_floors_at_min_rto() {
        let mut e = RttEstimator::new(RtoParams::JACOBSON);
        assert_eq!(e.rto(), SimDuration(3 * S));
        e.sample(SimTime(0), SimTime(100 * MS));
        assert_eq!(e.srtt(), Some(100e6));
        assert_eq!(e.rto(), SimDuration(300 * MS)); // 100 + 4 * 50
        for _ in 0..200 {
            let t = SimTime(10 * S);
            e.sample(t, t + SimDuration(100 * MS));
        }
        assert_eq!(e.rto(), SimDuration(200 * MS), "rttvar decays; the floor holds");
    }

    #[test]
    fn generic_timeout_is_beta_times_the_ewma() {
        let mut e = RttEstimator::new(RtoParams::GENERIC);
        e.sample(SimTime(0), SimTime(S));
        assert_eq!(e.rto(), SimDuration(2 * S));
        e.sample(SimTime(0), SimTime(9 * S)); // srtt = 1 + (9 - 1) / 8 = 2 s
        assert_eq!(e.rto(), SimDuration(4 * S));
    }

    #[test]
    fn generic_timeout_has_no_ceiling_unless_one_is_given() {
        let mut e = RttEstimator::new(RtoParams::GENERIC);
        e.sample(SimTime(0), SimTime(100 * S));
        assert_eq!(e.rto(), SimDuration(200 * S), "beta x 100 s, above the 64 s of TCP's ceiling");
        let capped = read("max_rto = \"64s\"", RtoParams::GENERIC).unwrap();
        let mut c = RttEstimator::new(capped);
        c.sample(SimTime(0), SimTime(100 * S));
        assert_eq!(c.rto(), SimDuration(64 * S));
        let lifted = read("max_rto = \"unbounded\"", RtoParams::JACOBSON).unwrap();
        assert_eq!(lifted.max_rto_ns, u64::MAX);
        let backed = RttEstimator::new(RtoParams { backoff: true, ..lifted });
        assert_eq!(backed.backed_off(MAX_BACKOFF_SHIFT), SimDuration(192 * S), "3 s x 64, no wrap");
        for bad in ["max_rto = \"forever\"", "max_rto = 64", "max_rto = \"0s\""] {
            let e = read(bad, RtoParams::GENERIC).unwrap_err().to_string();
            assert!(e.contains("max_rto"), "{bad}: {e}");
        }
    }

    #[test]
    fn backoff_doubles_up_to_64_times_and_max_rto() {
        let e = RttEstimator::new(RtoParams { max_rto_ns: 1000 * S, ..RtoParams::JACOBSON });
        let seq: Vec<u64> = (0..9).map(|k| e.backed_off(k).ns() / S).collect();
        assert_eq!(seq, [3, 6, 12, 24, 48, 96, 192, 192, 192]);
        let capped = RttEstimator::new(RtoParams::JACOBSON);
        assert_eq!(capped.backed_off(5), SimDuration(64 * S));
        let none = RttEstimator::new(RtoParams::GENERIC);
        assert_eq!(none.backed_off(3), SimDuration(3 * S));
    }

    fn read(text: &str, d: RtoParams) -> Result<RtoParams> {
        use crate::conf::{parse_toml, Origin, Source};
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "flow", &t, Origin::Line(1));
        let p = RtoParams::read(&mut f, d)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn timers_are_one_per_connection_for_jacobson_and_per_segment_for_the_generic() {
        assert!(!read("", RtoParams::JACOBSON).unwrap().per_segment);
        assert!(read("timers = \"per_segment\"", RtoParams::JACOBSON).unwrap().per_segment);
        assert!(read("", RtoParams::GENERIC).unwrap().per_segment);
        let e = read("timers = \"one\"", RtoParams::GENERIC).unwrap_err();
        assert!(e.message.contains("one timer per segment"), "{}", e.message);
        assert!(read("timers = \"two\"", RtoParams::JACOBSON).unwrap_err().message.contains("not allowed"));
    }

    #[test]
    fn the_generic_estimator_samples_per_ack_unless_asked_per_packet() {
        assert!(!read("", RtoParams::GENERIC).unwrap().samples_every_packet());
        assert!(read("samples = \"per_packet\"", RtoParams::GENERIC).unwrap().samples_every_packet());
        assert!(!read("samples = \"per_ack\"", RtoParams::GENERIC).unwrap().samples_every_packet());
        let e = read("samples = \"per_packets\"", RtoParams::GENERIC).unwrap_err();
        assert!(e.message.contains("per_ack, per_packet"), "{}", e.message);
        // Jacobson's estimator follows Karn's rule and has no such key.
        assert!(read("samples = \"per_packet\"", RtoParams::JACOBSON).is_err());
    }

    #[test]
    fn coarse_tick_quantises_samples_and_expires_on_tick_boundaries() {
        let p = RtoParams { tick_ns: 500 * MS, min_rto_ns: S, ..RtoParams::JACOBSON };
        let mut e = RttEstimator::new(p);
        // 300 ms that cross one boundary measure one tick; 300 ms within a tick measure none.
        e.sample(SimTime(400 * MS), SimTime(700 * MS));
        assert_eq!(e.srtt(), Some(500e6));
        let mut z = RttEstimator::new(p);
        z.sample(SimTime(100 * MS), SimTime(400 * MS));
        assert_eq!(z.srtt(), Some(0.0));
        // A 1 s timeout (2 ticks) set at 1.2 s expires at the 2nd boundary after it: 2.0 s.
        assert_eq!(z.rto(), SimDuration(S));
        assert_eq!(z.deadline(SimTime(1200 * MS), 0), SimTime(2 * S));
        assert_eq!(z.deadline(SimTime(1000 * MS), 0), SimTime(2 * S));
    }

    #[test]
    fn ns2_ticks_count_at_least_one_cut_the_timeout_to_whole_ticks_and_run_exactly() {
        // ns-2's agents (tcpTick_ 0.1 s, no minrto_): a 30 ms round trip inside one tick still
        // measures one tick, where BSD's count gives none.
        let ns2 = RtoParams { tick_ns: 100 * MS, min_rto_ns: 0, ns2_ticks: true, ..RtoParams::JACOBSON };
        let mut e = RttEstimator::new(ns2);
        e.sample(SimTime(10 * MS), SimTime(40 * MS));
        assert_eq!(e.srtt(), Some(100e6));
        // srtt 1 tick, rttvar 1/2: srtt + 4 rttvar = 3 ticks exactly.
        assert_eq!(e.rto(), SimDuration(300 * MS));
        // A second sample of 2 ticks (200 ms across two boundaries): srtt = 1.125, rttvar = 0.625
        // ticks, so srtt + 4 rttvar = 3.625 ticks, cut to 3: ns-2's t_rtxcur_ drops the fraction.
        e.sample(SimTime(1_090 * MS), SimTime(1_290 * MS));
        assert_eq!(e.srtt(), Some(112.5e6));
        assert_eq!(e.rto(), SimDuration(300 * MS));
        // The timer runs exactly from when it is set: no wait for a tick boundary.
        assert_eq!(e.deadline(SimTime(1_234 * MS), 0), SimTime(1_534 * MS));
        assert_eq!(e.deadline(SimTime(1_234 * MS), 2), SimTime(2_434 * MS));
        // Two ticks at least, after the back-off, whatever the estimate.
        let mut small = RttEstimator::new(ns2);
        for _ in 0..100 {
            small.sample(SimTime(10 * MS), SimTime(40 * MS));
        }
        assert_eq!(small.rto(), SimDuration(100 * MS), "rttvar decays: srtt alone, one tick");
        assert_eq!(small.backed_off(0), SimDuration(200 * MS));
        assert_eq!(small.backed_off(1), SimDuration(200 * MS), "one tick doubled is two");
        assert_eq!(small.backed_off(2), SimDuration(400 * MS));
        // Before any sample the initial timeout is taken whole.
        let fresh = RttEstimator::new(RtoParams { initial_rto_ns: 6 * S + 50 * MS, ..ns2 });
        assert_eq!(fresh.rto(), SimDuration(6 * S + 50 * MS));
    }

    #[test]
    fn tick_model_reads_bsd_by_default_and_ns2_only_with_a_tick() {
        assert!(!read("tick = \"100ms\"", RtoParams::JACOBSON).unwrap().ns2_ticks);
        assert!(read("tick = \"100ms\"\ntick_model = \"ns2\"", RtoParams::JACOBSON).unwrap().ns2_ticks);
        let e = read("tick_model = \"ns2\"", RtoParams::JACOBSON).unwrap_err();
        assert!(e.message.contains("give tick"), "{}", e.message);
        let e = read("tick = \"100ms\"\ntick_model = \"ns2\"\nrtt_count_from = 1", RtoParams::JACOBSON).unwrap_err();
        assert!(e.message.contains("is BSD's"), "{}", e.message);
        assert!(read("tick = \"100ms\"\ntick_model = \"ns3\"", RtoParams::JACOBSON)
            .unwrap_err()
            .message
            .contains("bsd, ns2"));
    }

    #[test]
    fn tahoe_k_of_2_first_retransmits_at_twice_the_round_trip() {
        // 4.3BSD-Tahoe: srtt = R, rttvar = R / 2 after the first sample, timeout srtt + 2 rttvar
        // = 2R (its tcp_input's "first retransmit happens at 2*rtt"); RFC 6298's k = 4 gives 3R.
        let tahoe = RtoParams {
            estimator: Estimator::Jacobson { k: 2, one_at_a_time: true, clear_after_backoffs: 0 },
            min_rto_ns: 0,
            ..RtoParams::JACOBSON
        };
        let mut e = RttEstimator::new(tahoe);
        e.sample(SimTime(0), SimTime(100 * MS));
        assert_eq!(e.rto(), SimDuration(200 * MS));
        let mut rfc = RttEstimator::new(RtoParams { min_rto_ns: 0, ..RtoParams::JACOBSON });
        rfc.sample(SimTime(0), SimTime(100 * MS));
        assert_eq!(rfc.rto(), SimDuration(300 * MS));
    }

    #[test]
    fn bsd_counts_a_timed_round_trip_from_one_tick() {
        // BSD's t_rtt starts at 1 and counts slow-timer ticks: 300 ms within a tick measures one
        // tick, 300 ms across a boundary two (against none and one without the offset).
        let p = RtoParams { tick_ns: 500 * MS, min_rto_ns: S, rtt_count_from: 1, ..RtoParams::JACOBSON };
        let mut within = RttEstimator::new(p);
        within.sample(SimTime(100 * MS), SimTime(400 * MS));
        assert_eq!(within.srtt(), Some(500e6));
        let mut across = RttEstimator::new(p);
        across.sample(SimTime(400 * MS), SimTime(700 * MS));
        assert_eq!(across.srtt(), Some(1000e6));
        assert!(read("rtt_count_from = 1", RtoParams::JACOBSON).unwrap_err().message.contains("give tick"));
        assert!(read("tick = \"500ms\"\nrtt_count_from = 2", RtoParams::JACOBSON).is_err());
        assert_eq!(read("tick = \"500ms\"\nrtt_count_from = 1", RtoParams::JACOBSON).unwrap().rtt_count_from, 1);
    }

    #[test]
    fn bsd_clears_srtt_from_the_fourth_back_off_keeping_the_timeout_until_a_fresh_sample() {
        let bsd = RtoParams {
            estimator: Estimator::Jacobson { k: 2, one_at_a_time: true, clear_after_backoffs: 4 },
            min_rto_ns: 0,
            max_rto_ns: 1000 * S,
            ..RtoParams::JACOBSON
        };
        let warmed = |p: RtoParams| {
            let mut e = RttEstimator::new(p);
            e.sample(SimTime(0), SimTime(S)); // srtt 1 s, rttvar 0.5 s: timeout 2 s
            e.sample(SimTime(0), SimTime(3 * S)); // srtt 1.25 s, rttvar 0.875 s: 3 s
            e
        };
        let mut e = warmed(bsd);
        let before = e.rto();
        assert_eq!(before, SimDuration(3 * S));
        for shift in 1..=3 {
            e.backed_off_to(shift);
        }
        assert_eq!(e.srtt(), Some(1.25e9), "three back-offs keep srtt");
        e.backed_off_to(4);
        assert_eq!(e.srtt(), None, "cleared");
        assert_eq!(e.rto(), before, "the timeout holds: rttvar took srtt / k");
        assert_eq!(e.backed_off(4), SimDuration(48 * S));
        // The next sample starts afresh: srtt = R, rttvar = R / 2, timeout 2R.
        e.sample(SimTime(0), SimTime(10 * S));
        assert_eq!(e.srtt(), Some(10e9));
        assert_eq!(e.rto(), SimDuration(20 * S));
        // Without clearing, the same sample is smoothed in: 1.25 + (10 - 1.25) / 8.
        let mut keep = warmed(RtoParams {
            estimator: Estimator::Jacobson { k: 2, one_at_a_time: true, clear_after_backoffs: 0 },
            ..bsd
        });
        for shift in 1..=6 {
            keep.backed_off_to(shift);
        }
        keep.sample(SimTime(0), SimTime(10 * S));
        assert_eq!(keep.srtt(), Some(1.25e9 + 8.75e9 / 8.0));
        let e = read("clear_srtt_after_backoffs = 7", RtoParams::JACOBSON).unwrap_err();
        assert!(e.message.contains("from 0 (never) to 6"), "{}", e.message);
        assert!(read("clear_srtt_after_backoffs = 4", RtoParams::GENERIC).is_err(), "Jacobson's key only");
    }

    #[test]
    fn a_coarse_clock_with_a_phase_of_its_own_counts_and_expires_on_its_own_ticks() {
        let p = RtoParams { tick_ns: 500 * MS, min_rto_ns: S, random_tick_phase: true, ..RtoParams::JACOBSON };
        let mut e = RttEstimator::new(p);
        // Ticks at 0.3, 0.8, 1.3, 1.8, 2.3 s ...
        e.phase_ns = 300 * MS;
        // 400 -> 700 ms holds no tick, so measures none; 200 -> 700 ms holds the one at 0.3 s.
        e.sample(SimTime(400 * MS), SimTime(700 * MS));
        assert_eq!(e.srtt(), Some(0.0));
        let mut one = RttEstimator::new(p);
        one.phase_ns = 300 * MS;
        one.sample(SimTime(200 * MS), SimTime(700 * MS));
        assert_eq!(one.srtt(), Some(500e6));
        // A 1 s timeout counts down 2 ticks: set at 1.2 s it expires at the 2nd tick after
        // 1.2 s, 1.8 s; set on a tick (1.3 s) at 2.3 s; before the first tick (0.1 s) at 0.8 s.
        assert_eq!(e.rto(), SimDuration(S));
        assert_eq!(e.deadline(SimTime(1200 * MS), 0), SimTime(1800 * MS));
        assert_eq!(e.deadline(SimTime(1300 * MS), 0), SimTime(2300 * MS));
        assert_eq!(e.deadline(SimTime(100 * MS), 0), SimTime(800 * MS));
    }

    #[test]
    fn random_clock_phases_are_uniform_over_a_tick_and_aligned_ones_are_zero() {
        let p = RtoParams { tick_ns: 500 * MS, random_tick_phase: true, ..RtoParams::JACOBSON };
        let n = 4000;
        let phases: Vec<f64> =
            (0..n).map(|k| RttEstimator::with_clock_of(p, Some(&SimRng::stream(k, "tcp1"))).phase_ns as f64).collect();
        let mean = phases.iter().sum::<f64>() / n as f64;
        let tick = 500e6;
        assert!(phases.iter().all(|&x| (0.0..tick).contains(&x)));
        // Four standard errors of the mean of a uniform on [0, tick).
        assert!((mean - tick / 2.0).abs() < 4.0 * tick / (12.0 * n as f64).sqrt(), "mean {mean}");
        let aligned = RtoParams { random_tick_phase: false, ..p };
        assert_eq!(RttEstimator::with_clock_of(aligned, Some(&SimRng::stream(1, "tcp1"))).phase_ns, 0);
    }
}
