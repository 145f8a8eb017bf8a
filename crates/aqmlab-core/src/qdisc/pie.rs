//! PIE, Proportional Integral controller Enhanced: R. Pan, P. Natarajan, F. Baker and G. White,
//! "Proportional Integral Controller Enhanced (PIE): A Lightweight Control Scheme to Address the
//! Bufferbloat Problem", RFC 8033 (2017); parameter names as Linux's sch_pie (`target`,
//! `tupdate`, `alpha`, `beta`, `limit`, `ecn`, `bytemode`, `max_burst`).
//!
//! Arrivals are dropped (reason `pie`) at random with the drop probability p, which every
//! `tupdate` moves by alpha (qdelay - target) + beta (qdelay - qdelay_old) (section 4.2), both
//! terms scaled down while p is small (the auto-tuning of section 4.2: divided by 2 below 10%,
//! 8 below 1%, 32 below 0.1%, 128, 512 and 2048 below 1e-4, 1e-5 and 1e-6), an increase capped
//! at 2% once p is at least 10% (section 5.5), and p decayed by 1/64 when the delay has been 0
//! for two updates. No early drop while the burst allowance (`max_burst`, section 4.4) lasts,
//! while the delay is under half the target with p under 20%, or with fewer than two MTUs
//! queued. The allowance shrinks by `tupdate` per update and is restored once the delay has
//! been under half the target for two updates with p at 0. A full buffer (`limit`) drops the
//! arrival (`overflow`). The pure parts are [`probability_step`] and [`drop_early_gate`].
//!
//! The queue delay is Linux's timestamp estimate (its default): the sojourn time of the last
//! packet dequeued, 0 once the queue is empty; RFC 8033 section 5.2's dequeue-rate estimate
//! is not implemented. Gauges: `drop_prob`, `qdelay_s`, `burst_allowance_s`.
//!
//! Choices the RFC leaves open, and deviations:
//! - De-randomization (section 5.4, optional in the RFC; always on in Linux): `derandomize =
//!   true` (the default here, as Linux) accumulates p over arrivals and drops never before the
//!   sum reaches 0.85 and always once it reaches 8.5; `false` draws each arrival alone.
//! - `alpha` and `beta` are in RFC 8033's units, per second (0.125 and 1.25, as ns-3's A and
//!   B); tc takes sixteenths of them (its `alpha 2`, `beta 20`): divide a tc value by 16.
//! - ECN (section 5.1): with `ecn`, an ECN-capable packet PIE would drop is marked instead while
//!   p is at most 10% (reason `pie`); above, it is dropped.
//! - `bytemode`: a packet of size s <= MTU is dropped with p s / MTU (Linux).
//! - The update runs every `tupdate` from time 0, as Linux's timer; here it is run when the
//!   queue is next touched, for every boundary passed meanwhile (nothing it reads changes
//!   between events, so the result is the timer's). The burst allowance shrinks at the
//!   updates (RFC); Linux shrinks it by the time between dequeues.
//! - Linux's extra 2% increase while the delay exceeds 250 ms is not applied, nor section 5.3's
//!   active/inactive switch (Linux has neither of the latter).
//! - The accumulated probability restarts at every drop, overflow ones included (Linux).
//!
//! Longer than 600 lines with its tests, which stay beside the code they check (as everywhere
//! in the core); the discipline itself is the first 400 or so.

use serde::Serialize;

use super::codel::StampedFifo;
use super::{DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Bytes, Duration, Fields, Limit, Result};
use crate::packet::{flags, PacketId};
use crate::units::{SimDuration, SimTime, NS_PER_S};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "pie",
    aliases: &[],
    summary: "Proportional Integral controller Enhanced (RFC 8033): random early drop with a probability steered every tupdate towards a target queue delay.",
    read: |f| Params::read(f).map(QdiscParams::Pie),
};

// ---------------------------------------------------------------------------------------------
// Parameters and pure decisions

/// PIE's parameters (also FQ-PIE's, per flow queue).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PieParams {
    pub target: Duration,
    pub tupdate: Duration,
    /// Per second (RFC 8033's units).
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Duration,
    pub ecn: bool,
    /// Mark rather than drop only while p is at most this.
    pub ecn_prob: f64,
    pub bytemode: bool,
    pub derandomize: bool,
    /// The MTU of the two-MTU rule and of bytemode.
    pub mtu: Bytes,
}

impl PieParams {
    /// Read PIE's parameters. `ecn_prob` is read only when `read_ecn_prob` (fq_pie's
    /// parameter; pie marks up to 10%, fixed, as Linux).
    pub fn read(f: &mut Fields, read_ecn_prob: bool) -> Result<Self> {
        let target: Duration = f.or("target", Duration(15_000_000), "the queue delay PIE steers towards")?;
        f.ensure(target.0 > 0, "target", "must be above 0")?;
        let tupdate: Duration =
            f.or("tupdate", Duration(15_000_000), "how often the drop probability is updated")?;
        f.ensure(tupdate.0 >= 1_000, "tupdate", "allowed: 1us or more")?;
        let alpha: f64 = f.or(
            "alpha",
            0.125,
            "weight of (delay - target), in seconds, in the update, per second (RFC 8033; tc's alpha is 16 times it)",
        )?;
        f.ensure((0.0..=2.0).contains(&alpha), "alpha", format!("{alpha} (allowed: 0 to 2 per second, tc's 0 to 32)"))?;
        let beta: f64 = f.or(
            "beta",
            1.25,
            "weight of the delay's change since the last update, per second (RFC 8033; tc's beta is 16 times it)",
        )?;
        f.ensure((0.0..=2.0).contains(&beta), "beta", format!("{beta} (allowed: 0 to 2 per second, tc's 0 to 32)"))?;
        let max_burst: Duration = f.or(
            "max_burst",
            Duration(150_000_000),
            "burst allowance: no early drop for this long after PIE starts or has been idle",
        )?;
        let ecn = f.or("ecn", false, "mark ECN-capable packets (set CE) instead of dropping them while the drop probability is low")?;
        let ecn_prob = if read_ecn_prob {
            let percent: u32 = f.or(
                "ecn_prob",
                10u32,
                "with ecn: mark only while the drop probability is at most this many percent, drop above",
            )?;
            f.ensure(percent <= 100, "ecn_prob", format!("{percent} (allowed: 0 to 100 percent)"))?;
            percent as f64 / 100.0
        } else {
            0.1
        };
        let bytemode = f.or("bytemode", false, "scale the drop probability by packet size / MTU (small packets dropped less)")?;
        let derandomize = f.or(
            "derandomize",
            true,
            "RFC 8033 section 5.4: space drops by accumulating the probability over arrivals (always on in Linux)",
        )?;
        let mtu: Bytes =
            f.or("mtu", Bytes(1500), "no early drop with fewer than two of these queued; bytemode's reference size")?;
        f.ensure(mtu.0 >= 1, "mtu", "allowed: 1 byte or more")?;
        Ok(PieParams { target, tupdate, alpha, beta, max_burst, ecn, ecn_prob, bytemode, derandomize, mtu })
    }
}

/// One update's change of the drop probability `prob`, before it is added and clamped to
/// [0, 1]: alpha (qdelay - target) + beta (qdelay - qdelay_old), times in seconds, alpha and
/// beta in per second, both scaled down while `prob` is small, the increase capped at 0.02 when
/// `prob` >= 0.1.
pub fn probability_step(prob: f64, qdelay_s: f64, qdelay_old_s: f64, target_s: f64, alpha: f64, beta: f64) -> f64 {
    let scale = if prob < 1e-6 {
        1.0 / 2048.0
    } else if prob < 1e-5 {
        1.0 / 512.0
    } else if prob < 1e-4 {
        1.0 / 128.0
    } else if prob < 1e-3 {
        1.0 / 32.0
    } else if prob < 1e-2 {
        1.0 / 8.0
    } else if prob < 0.1 {
        1.0 / 2.0
    } else {
        1.0
    };
    let delta = scale * (alpha * (qdelay_s - target_s) + beta * (qdelay_s - qdelay_old_s));
    if prob >= 0.1 && delta > 0.02 {
        0.02
    } else {
        delta
    }
}

/// Whether PIE may drop early at all: no burst allowance left, the delay not under half the
/// target with p under 20%, and at least two MTUs queued.
pub fn drop_early_gate(burst_left: SimDuration, qdelay: SimDuration, prob: f64, backlog: u64, p: &PieParams) -> bool {
    burst_left == SimDuration::ZERO && !(qdelay < p.target.sim() / 2 && prob < 0.2) && backlog >= 2 * p.mtu.0
}

/// `d` in seconds, as the update's equation and the gauges take it.
fn secs(d: SimDuration) -> f64 {
    d.ns() as f64 / NS_PER_S as f64
}

// ---------------------------------------------------------------------------------------------
// State

/// PIE's state.
#[derive(Clone, Debug, Default)]
pub struct PieVars {
    pub prob: f64,
    /// The current queue delay estimate and the one at the previous update.
    pub qdelay: SimDuration,
    pub qdelay_old: SimDuration,
    /// Burst allowance left (starts full: set at the first touch).
    pub burst_left: SimDuration,
    pub accu_prob: f64,
    /// The last update boundary processed; `None` before the first touch.
    last_update: Option<SimTime>,
}

impl PieVars {
    /// One update; whether it restored the burst allowance.
    fn update(&mut self, p: &PieParams, backlog: u64) -> bool {
        let mut update_prob = !(self.qdelay == SimDuration::ZERO && backlog != 0);
        let delta =
            probability_step(self.prob, secs(self.qdelay), secs(self.qdelay_old), secs(p.target.sim()), p.alpha, p.beta);
        self.prob += delta;
        if self.prob > 1.0 {
            self.prob = 1.0;
            update_prob = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        if self.qdelay == SimDuration::ZERO && self.qdelay_old == SimDuration::ZERO && update_prob {
            self.prob -= self.prob / 64.0;
        }
        self.burst_left = self.burst_left.saturating_sub(p.tupdate.sim());
        let half_target = p.target.sim() / 2;
        let restore = self.qdelay < half_target && self.qdelay_old < half_target && self.prob == 0.0;
        if restore {
            self.burst_left = p.max_burst.sim();
            self.accu_prob = 0.0;
        }
        self.qdelay_old = self.qdelay;
        restore
    }

    /// Run the updates due by `now` (every `tupdate` from time 0) with `backlog` bytes queued,
    /// which has not changed since the last touch.
    pub fn catch_up(&mut self, p: &PieParams, now: SimTime, backlog: u64) {
        let tupdate = p.tupdate.sim();
        let last = *self.last_update.get_or_insert_with(|| {
            self.burst_left = p.max_burst.sim();
            SimTime::ZERO
        });
        let due = now.period_start(tupdate);
        let mut t = last;
        while t < due {
            t += tupdate;
            let before = (self.prob, self.qdelay_old, self.accu_prob);
            let restored = self.update(p, backlog);
            if t < due {
                t += self.jump_within_band(p, (due - t).periods_of(tupdate), backlog);
            }
            if (self.prob, self.qdelay_old, self.accu_prob) == before {
                // The probability has settled (the delay estimate does not move between
                // events): the remaining updates only wear the burst allowance down, unless
                // they restore it each time.
                if !restored {
                    let remaining = (due - t).periods_of(tupdate);
                    self.burst_left = self.burst_left.saturating_sub(tupdate.saturating_mul(remaining));
                }
                t = due;
            }
        }
        self.last_update = Some(due.max(last));
    }

    /// With the delay estimate steady and no decay (the estimate above 0, or 0 with packets
    /// queued: PIE then leaves the decay out), every update within one range of the
    /// auto-tuning adds the same step: apply up to `remaining` of them at once, stopping short
    /// of the range's edges (where the next update is taken one by one). Returns the time
    /// covered. Only long waits with packets queued need it (a line slower than a packet per
    /// update); p differs from step-by-step addition by rounding only.
    fn jump_within_band(&mut self, p: &PieParams, remaining: u64, backlog: u64) -> SimDuration {
        if remaining < 1000 || (self.qdelay == SimDuration::ZERO && backlog == 0) || self.qdelay != self.qdelay_old {
            return SimDuration::ZERO;
        }
        let delta =
            probability_step(self.prob, secs(self.qdelay), secs(self.qdelay), secs(p.target.sim()), p.alpha, p.beta);
        const EDGES: [f64; 8] = [0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0];
        let Some(band) = EDGES.windows(2).position(|w| self.prob >= w[0] && self.prob < w[1]) else {
            return SimDuration::ZERO;
        };
        let (lower, upper) = (EDGES[band], EDGES[band + 1]);
        let room = if delta > 0.0 {
            (upper - self.prob) / delta
        } else if delta < 0.0 {
            (self.prob - lower) / -delta
        } else {
            return SimDuration::ZERO;
        };
        // Strictly inside the range after the jump: the last step to an edge is taken normally.
        let steps = ((room.floor() as u64).saturating_sub(1)).min(remaining - 1);
        if steps == 0 {
            return SimDuration::ZERO;
        }
        self.prob += steps as f64 * delta;
        let covered = p.tupdate.sim().saturating_mul(steps);
        self.burst_left = self.burst_left.saturating_sub(covered);
        covered
    }

    /// PIE's decision about an arrival of `size` bytes with `backlog` bytes queued (after
    /// `catch_up`): drop it? `u` is a uniform draw, taken only when needed.
    pub fn drop_early(&mut self, p: &PieParams, size: u32, backlog: u64, u: impl FnOnce() -> f64) -> bool {
        if !drop_early_gate(self.burst_left, self.qdelay, self.prob, backlog, p) {
            return false;
        }
        let local = if p.bytemode && (size as u64) <= p.mtu.0 {
            self.prob * size as f64 / p.mtu.0 as f64
        } else {
            self.prob
        };
        if !p.derandomize {
            return u() < local;
        }
        if local == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += local;
        }
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        if u() < local {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// An arrival to `queue` at `cx.now`: `Dropped(pie)`, `Marked(pie)` or `Enqueued`. The
    /// caller checks the buffer first.
    pub fn on_arrival(&mut self, p: &PieParams, queue: &StampedFifo, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        self.catch_up(p, cx.now, queue.bytes());
        let size = cx.pkts[pkt].size;
        let rng = &mut *cx.rng;
        if !self.drop_early(p, size, queue.bytes(), || rng.uniform()) {
            return Verdict::Enqueued;
        }
        if p.ecn && self.prob <= p.ecn_prob && cx.pkts[pkt].has(flags::ECT) {
            cx.pkts[pkt].flags |= flags::CE;
            return Verdict::Marked(DropReason::Pie);
        }
        self.accu_prob = 0.0;
        Verdict::Dropped(DropReason::Pie)
    }

    /// The head of `queue` leaves at `cx.now`: the delay estimate is its sojourn time (0 when
    /// it leaves the queue empty).
    pub fn dequeue(&mut self, p: &PieParams, queue: &mut StampedFifo, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.catch_up(p, cx.now, queue.bytes());
        let (pkt, enqueued) = queue.pop(cx.pkts)?;
        self.qdelay = if queue.is_empty() { SimDuration::ZERO } else { cx.now.saturating_since(enqueued) };
        Some(pkt)
    }

    pub fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("drop_prob", self.prob));
        out.push(("qdelay_s", secs(self.qdelay)));
        out.push(("burst_allowance_s", secs(self.burst_left)));
    }
}

// ---------------------------------------------------------------------------------------------
// The discipline

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub limit: Limit,
    #[serde(flatten)]
    pub pie: PieParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let limit = f.or(
            "limit",
            Limit::Packets(1000),
            "physical buffer: an arrival that does not fit is dropped (overflow); Linux's default is 1000 packets",
        )?;
        Ok(Params { limit, pie: PieParams::read(f, false)? })
    }
}

pub struct Pie {
    limit: Limit,
    p: PieParams,
    queue: StampedFifo,
    vars: PieVars,
}

impl Pie {
    pub fn new(p: &Params, _link: &LinkInfo) -> Self {
        Pie { limit: p.limit, p: p.pie, queue: StampedFifo::default(), vars: PieVars::default() }
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        if self.limit.overflows(self.queue.len(), self.queue.bytes(), cx.pkts[pkt].size) {
            self.vars.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        let verdict = self.vars.on_arrival(&self.p, &self.queue, pkt, cx);
        if !matches!(verdict, Verdict::Dropped(_)) {
            self.queue.push(pkt, cx.now, cx.pkts);
        }
        verdict
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.vars.dequeue(&self.p, &mut self.queue, cx)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn bytes(&self) -> u64 {
        self.queue.bytes()
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        self.vars.gauges(out);
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::super::harness::{hammer, link, Harness};
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    const MS: u64 = 1_000_000;

    const PARAMS: PieParams = PieParams {
        target: Duration(15 * MS),
        tupdate: Duration(15 * MS),
        alpha: 0.125,
        beta: 1.25,
        max_burst: Duration(150 * MS),
        ecn: false,
        ecn_prob: 0.1,
        bytemode: false,
        derandomize: true,
        mtu: Bytes(1500),
    };

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "queue", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn defaults_are_linux_sch_pie_ones() {
        let p = read("").unwrap();
        assert_eq!(p.limit, Limit::Packets(1000));
        assert_eq!(p.pie, PARAMS);
        assert!(read("alpha = 2.5").unwrap_err().message.contains("0 to 2 per second"));
        assert!(read("beta = -1").is_err());
        assert!(read("target = 0").is_err());
        assert!(read("ecn_prob = 10").unwrap_err().message.contains("unknown key"), "fq_pie's only");
    }

    #[test]
    fn probability_steps_follow_rfc_8033_with_auto_tuning() {
        // alpha = 0.125/s, beta = 1.25/s, target 15 ms. Hand-computed from section 4.2:
        // p = 0, qdelay 30 ms from 0: (0.125 * 0.015 + 1.25 * 0.030) / 2048 = 0.039375 / 2048.
        let step = |p: f64, q: f64, q_old: f64| probability_step(p, q, q_old, 0.015, 0.125, 1.25);
        assert!((step(0.0, 0.030, 0.0) - 0.039375 / 2048.0).abs() < 1e-15);
        // p = 5e-6 (below 1e-5): / 512. Delay steady at 30 ms: 0.125 * 0.015 / 512.
        assert!((step(5e-6, 0.030, 0.030) - 0.001875 / 512.0).abs() < 1e-15);
        // p = 5e-5: / 128; p = 5e-4: / 32; p = 5e-3: / 8; p = 0.05: / 2; p = 0.5: / 1.
        assert!((step(5e-5, 0.030, 0.030) - 0.001875 / 128.0).abs() < 1e-15);
        assert!((step(5e-4, 0.030, 0.030) - 0.001875 / 32.0).abs() < 1e-15);
        assert!((step(5e-3, 0.030, 0.030) - 0.001875 / 8.0).abs() < 1e-15);
        assert!((step(0.05, 0.030, 0.030) - 0.001875 / 2.0).abs() < 1e-15);
        assert!((step(0.5, 0.030, 0.030) - 0.001875).abs() < 1e-15);
        // Delay falling from 60 to 5 ms at p = 0.5: 0.125 * (-0.010) + 1.25 * (-0.055) = -0.07
        assert!((step(0.5, 0.005, 0.060) + 0.07).abs() < 1e-15);
        // Rising from 0 to 100 ms at p = 0.5: 0.125 * 0.085 + 1.25 * 0.1 = 0.135625, capped at 0.02.
        assert_eq!(step(0.5, 0.100, 0.0), 0.02);
        // Below 10% no cap: at p = 0.05, (0.135625) / 2.
        assert!((step(0.05, 0.100, 0.0) - 0.135625 / 2.0).abs() < 1e-15);
    }

    #[test]
    fn scripted_delays_move_the_probability_as_computed_by_hand() {
        // A queue whose delay estimate is set by hand before each update (tupdate 15 ms), with
        // 10 packets queued. Sequence of qdelay at the updates: 30, 30, 45, 45, 0 ms.
        // p1 = 0 + (0.125 * 0.015 + 1.25 * 0.030) / 2048           = 1.922607421875e-5
        // p2 = p1 + (0.125 * 0.015 + 1.25 * 0) / 128               = 3.387451171875e-5
        // p3 = p2 + (0.125 * 0.030 + 1.25 * 0.015) / 128           = 2.096557617187e-4
        // p4 = p3 + (0.125 * 0.030 + 0) / 32                       = 3.268432617187e-4
        // p5 = p4 + (0.125 * -0.015 + 1.25 * -0.045) / 32 (< 0)    = 0, clamped
        let mut v = PieVars::default();
        let backlog = 10_000;
        v.catch_up(&PARAMS, SimTime::ZERO, backlog);
        let expected = [1.922607421875e-5, 3.387451171875e-5, 2.0965576171875e-4, 3.2684326171875e-4, 0.0];
        for (k, (q_ms, want)) in [30, 30, 45, 45, 0].into_iter().zip(expected).enumerate() {
            v.qdelay = SimDuration(q_ms * MS);
            v.catch_up(&PARAMS, SimTime((k as u64 + 1) * 15 * MS), backlog);
            assert!((v.prob - want).abs() < 1e-12, "update {}: {} vs {want}", k + 1, v.prob);
        }
        // Burst allowance: 150 ms less 5 updates of 15 ms.
        assert_eq!(v.burst_left, SimDuration(75 * MS));
    }

    #[test]
    fn decay_when_the_delay_has_been_zero_for_two_updates() {
        // p = 0.5 with the delay 0 twice and the queue empty: the step is
        // 0.125 * (0 - 0.015) = -0.001875, then p -= p/64.
        let mut v = PieVars { prob: 0.5, ..PieVars::default() };
        v.catch_up(&PARAMS, SimTime::ZERO, 0);
        v.catch_up(&PARAMS, SimTime(15 * MS), 0);
        let p1 = 0.5 - 0.001875;
        let p1 = p1 - p1 / 64.0;
        assert!((v.prob - p1).abs() < 1e-15, "{}", v.prob);
    }

    #[test]
    fn catching_up_at_once_equals_updating_at_every_boundary() {
        // The delay estimate frozen at 40 ms (or 0) over 30 s: the updates replayed at once, with
        // the shortcut once p settles, give what the timer would, boundary by boundary.
        for (qdelay, prob, backlog) in [(40 * MS, 0.0, 50_000), (0, 0.3, 0), (5 * MS, 0.01, 50_000), (16 * MS, 0.0, 50_000)] {
            let start = PieVars { qdelay: SimDuration(qdelay), prob, ..PieVars::default() };
            let (mut at_once, mut stepwise) = (start.clone(), start);
            at_once.catch_up(&PARAMS, SimTime::ZERO, backlog);
            at_once.catch_up(&PARAMS, SimTime(30_000 * MS + 7), backlog);
            stepwise.catch_up(&PARAMS, SimTime::ZERO, backlog);
            for k in 1..=2000 {
                stepwise.catch_up(&PARAMS, SimTime(k * 15 * MS), backlog);
            }
            assert_eq!(
                (at_once.qdelay_old, at_once.burst_left, at_once.accu_prob),
                (stepwise.qdelay_old, stepwise.burst_left, stepwise.accu_prob),
                "qdelay {qdelay}"
            );
            // p to rounding: steps within a range of the auto-tuning are added at once.
            assert!((at_once.prob - stepwise.prob).abs() <= 1e-12 * stepwise.prob.max(1e-300), "qdelay {qdelay}: {} vs {}", at_once.prob, stepwise.prob);
        }
    }

    #[test]
    fn a_long_wait_with_a_tiny_alpha_is_computed_in_bounded_time() {
        // A fuzz case: alpha = 1e-300, 1 ms updates, packets queued and 1000 s without a
        // dequeue: 10^6 updates whose steps are too small for p ever to settle.
        let p = PieParams { alpha: 1e-300, tupdate: Duration(MS), ..PARAMS };
        let mut v = PieVars { qdelay: SimDuration(20 * MS), qdelay_old: SimDuration(20 * MS), ..PieVars::default() };
        let t0 = std::time::Instant::now();
        v.catch_up(&p, SimTime::ZERO, 50_000);
        v.catch_up(&p, SimTime(1_000_000 * MS), 50_000);
        assert!(t0.elapsed().as_secs_f64() < 0.5, "{:?}", t0.elapsed());
        // 10^6 steps of 1e-300 * 0.005 / 2048 each.
        let want = 1e6 * 1e-300 * 0.005 / 2048.0;
        assert!((v.prob - want).abs() < 1e-9 * want, "{} vs {want}", v.prob);
    }

    fn pie(p: PieParams, limit: u32) -> Harness<Pie> {
        Harness::new(Pie::new(&Params { limit: Limit::Packets(limit), pie: p }, &link(4)), 11)
    }

    /// One arrival every `gap` ns and one departure every `serve_every` arrivals, from `from`
    /// to `to`; returns the times of PIE's drops.
    fn drive(h: &mut Harness<Pie>, from: u64, to: u64, gap: u64, serve_every: u64) -> Vec<u64> {
        let mut drops = vec![];
        let mut k = 0;
        let mut t = from;
        while t < to {
            h.now = t;
            let n = h.dropped.len();
            h.offer(1, 1000);
            if h.dropped.len() > n {
                drops.push(t);
            }
            k += 1;
            if k % serve_every == 0 {
                h.serve();
            }
            t += gap;
        }
        drops
    }

    #[test]
    fn no_drop_during_the_burst_allowance() {
        // Twice the arrivals the line serves: the delay climbs past the target at once. The
        // first 150 ms (10 updates) are the burst allowance: no early drop, though p rises.
        let mut h = pie(PARAMS, 100_000);
        let drops = drive(&mut h, 0, 150 * MS, MS / 2, 2);
        assert!(drops.is_empty(), "{drops:?}");
        assert!(h.q.vars.prob > 0.0, "p rose meanwhile");
        // After it, PIE drops.
        let drops = drive(&mut h, 150 * MS, 2_000 * MS, MS / 2, 2);
        assert!(!drops.is_empty());
        assert!(h.dropped.iter().all(|&(_, why)| why == DropReason::Pie));
    }

    #[test]
    fn derandomized_drops_are_spaced_by_the_accumulated_probability() {
        // p fixed at 0.1 (no update in the window): after a drop the sum restarts, reaches 0.85
        // at the 9th arrival and 8.5 at the 85th (or 86th, as 0.1 adds up in binary), so no
        // two drops are closer than 9 arrivals and none further than 86.
        let mut v = PieVars { prob: 0.1, qdelay: SimDuration(20 * MS), last_update: Some(SimTime::ZERO), ..PieVars::default() };
        let mut rng = crate::rng::SimRng::from_seed(3);
        let mut last = None;
        let mut gaps = vec![];
        for k in 0..10_000usize {
            if v.drop_early(&PARAMS, 1000, 10_000, || rng.uniform()) {
                if let Some(l) = last {
                    gaps.push(k - l);
                }
                last = Some(k);
                v.accu_prob = 0.0;
            }
        }
        assert!(gaps.iter().all(|&g| (9..=86).contains(&g)), "{:?}", (gaps.iter().min(), gaps.iter().max()));
        // The 8 arrivals after a drop are never dropped, then each is with p = 0.1: gaps of 8
        // plus a geometric number of mean 10 (sd 9.5): mean 18, within 3 standard errors.
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        let se = 9.5 / (gaps.len() as f64).sqrt();
        assert!((mean - 18.0).abs() < 3.0 * se, "{mean} over {} gaps", gaps.len());
    }

    #[test]
    fn ecn_marks_below_ten_percent_and_drops_above() {
        let p = PieParams { ecn: true, ..PARAMS };
        let mut h = pie(p, 1000);
        for _ in 0..20 {
            h.offer(1, 1000);
        }
        h.q.vars.prob = 0.05;
        h.q.vars.burst_left = SimDuration::ZERO;
        h.q.vars.qdelay = SimDuration(20 * MS);
        h.q.vars.last_update = Some(SimTime::ZERO);
        for _ in 0..200 {
            h.offer_flags(1, 1000, flags::ECT);
        }
        assert!(h.dropped.is_empty());
        assert!(!h.marked.is_empty() && h.marked.iter().all(|&(_, why)| why == DropReason::Pie));
        h.q.vars.prob = 0.3;
        for _ in 0..200 {
            h.offer_flags(1, 1000, flags::ECT);
        }
        assert!(!h.dropped.is_empty());
    }

    #[test]
    fn hammered_it_keeps_the_contract() {
        for seed in 1..=5 {
            let p = PieParams {
                target: Duration(MS),
                tupdate: Duration(MS),
                max_burst: Duration(5 * MS),
                ecn: seed % 2 == 0,
                bytemode: seed % 3 == 0,
                derandomize: seed % 2 == 1,
                ..PARAMS
            };
            let mut h = pie(p, 40);
            hammer(&mut h, 5000, 4, seed);
        }
    }
}
