//! Token bucket filter: a shaper in front of another discipline (Linux sch_tbf, A. Kuznetsov;
//! the shaper of OpenWrt's SQM, which shapes a router's egress below the modem's rate so that the
//! router's own queue, managed by fq_codel or CAKE, is where packets wait).
//!
//! Tokens are bytes in a bucket of `burst` bytes, filled at `rate`; a packet leaves when the
//! bucket holds its size, which it then takes. The backlog is held and scheduled by the `inner`
//! discipline (its limit, its drops and marks, its order); the shaper only decides when the next
//! packet may go. A packet the link may not send yet is held at the head (as Linux's
//! `qdisc_peek_dequeued` holds it), and the link is woken when the bucket will hold it
//! ([`QueueDisc::ready_at`]).
//!
//! A packet larger than the bucket is dropped as it arrives (`overflow`), as Linux's tbf drops
//! one above its largest size. The shaper's limit is the inner discipline's plus the head it
//! holds (one packet, at most a bucket of bytes).
//!
//! Deviations from Linux: no `peakrate` or `mtu` (a second bucket limiting bursts to a peak
//! rate); tokens are exact integers (bit-nanoseconds), not Linux's psched ticks; the inner
//! discipline's dequeue happens when the shaper asks for the head, so an AQM inside it (CoDel)
//! judges the packet's sojourn then, as in Linux, and the wait for tokens after that counts in
//! the link's queueing delay but not in the AQM's sojourn.

use serde::Serialize;

use super::{AnyQdisc, DisciplineInfo, DropReason, LinkInfo, QdiscCtx, QdiscParams, QueueDisc, Verdict};
use crate::conf::{Bytes, Fields, Limit, Rate, Result};
use crate::packet::PacketId;
use crate::units::{SimDuration, SimTime};

pub const INFO: DisciplineInfo = DisciplineInfo {
    name: "tbf",
    aliases: &["shaper"],
    summary: "Token bucket shaper (Linux tbf) in front of the discipline named by inner: it holds \
              the link to rate, with bursts of burst bytes.",
    read: |f| Params::read(f).map(QdiscParams::Tbf),
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub rate_bps: u64,
    pub burst_bytes: u64,
    /// The discipline that holds the backlog.
    pub inner: Box<QdiscParams>,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let rate: Rate = f.req("rate", Rate(1), "shaped rate (Linux tbf's rate)")?;
        f.ensure(rate.0 > 0, "rate", "must be above 0")?;
        let burst: Option<Bytes> = f.opt(
            "burst",
            "bucket size, bytes: the largest burst at the link's own rate (default: 1 ms at rate, at least 1514 bytes)",
        )?;
        let burst = burst.map_or_else(|| (rate.0 / 8_000).max(1514), |b| b.0);
        f.ensure(burst > 0, "burst", "must be above 0")?;
        let inner = match f.table("inner", "the discipline that holds the backlog (default: droptail, limit 1000)")? {
            _ if f.is_catalogue() => QdiscParams::DropTail(super::droptail::Params { limit: Limit::Packets(1000) }),
            Some((t, at)) => {
                let path = f.field("inner");
                let inner = super::read_queue(f.source(), &path, t, at)?;
                if matches!(inner, QdiscParams::Tbf(_)) {
                    return Err(f.error("inner", "is a shaper too: a shaper around a shaper shapes nothing more"));
                }
                inner
            }
            None => QdiscParams::DropTail(super::droptail::Params { limit: Limit::Packets(1000) }),
        };
        Ok(Params { rate_bps: rate.0, burst_bytes: burst, inner: Box::new(inner) })
    }
}

pub struct Tbf {
    rate_bps: u128,
    /// Bucket size and content, bit-nanoseconds (bits x 1e9): exact, filled `rate` per ns.
    capacity: u128,
    tokens: u128,
    /// When the tokens were last brought up to date.
    updated: SimTime,
    inner: AnyQdisc,
    /// The head, taken from the inner discipline but not yet allowed to leave.
    held: Option<(PacketId, u32)>,
    /// The largest packet that passes: the bucket, bytes.
    max_size: u64,
    /// When the bucket will hold the head, if it did not at the last dequeue.
    ready: Option<SimTime>,
}

const NS: u128 = 1_000_000_000;

impl Tbf {
    pub fn new(p: &Params, link: &LinkInfo) -> Self {
        // The inner discipline's rate-dependent settings follow the shaped rate, not the line's.
        let shaped = LinkInfo { rate_bps: p.rate_bps.min(link.rate_bps), ..link.clone() };
        let capacity = p.burst_bytes as u128 * 8 * NS;
        Tbf {
            rate_bps: p.rate_bps as u128,
            capacity,
            tokens: capacity,
            updated: SimTime::ZERO,
            inner: p.inner.build(&shaped),
            held: None,
            max_size: p.burst_bytes,
            ready: None,
        }
    }

    fn refill(&mut self, now: SimTime) {
        self.tokens = (self.tokens + self.rate_bps * (now - self.updated).ns() as u128).min(self.capacity);
        self.updated = now;
    }

    /// Tokens, bytes (for the gauge).
    fn tokens_bytes(&self) -> f64 {
        self.tokens as f64 / (8.0 * NS as f64)
    }
}

impl QueueDisc for Tbf {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QdiscCtx) -> Verdict {
        // A packet larger than the bucket could never leave: dropped at once, as Linux's tbf
        // drops a packet above its max_size (a scenario whose flows cross with such packets
        // is refused before it runs).
        if cx.pkts[pkt].size as u128 * 8 * NS > self.capacity {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.inner.enqueue(pkt, cx)
    }

    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<PacketId> {
        self.refill(cx.now);
        let (pkt, size) = match self.held {
            Some(h) => h,
            None => {
                let pkt = self.inner.dequeue(cx)?;
                (pkt, cx.pkts[pkt].size)
            }
        };
        let need = size as u128 * 8 * NS;
        if self.tokens >= need {
            self.tokens -= need;
            self.held = None;
            self.ready = None;
            Some(pkt)
        } else {
            self.held = Some((pkt, size));
            self.ready = Some(cx.now + SimDuration((need - self.tokens).div_ceil(self.rate_bps) as u64));
            None
        }
    }

    fn ready_at(&self) -> Option<SimTime> {
        self.ready.filter(|_| self.held.is_some())
    }

    fn may_drop_in_service(&self) -> bool {
        self.inner.may_drop_in_service()
    }

    fn len(&self) -> usize {
        self.inner.len() + usize::from(self.held.is_some())
    }

    fn bytes(&self) -> u64 {
        self.inner.bytes() + self.held.map_or(0, |(_, s)| s as u64)
    }

    /// The inner discipline's limit and the one packet held at the head (at most a bucket).
    fn limit(&self) -> Limit {
        match self.inner.limit() {
            Limit::Packets(n) => Limit::Packets(n.saturating_add(1)),
            Limit::Bytes(b) => Limit::Bytes(b.saturating_add(self.max_size)),
            Limit::Unbounded => Limit::Unbounded,
        }
    }

    /// Whether the inner discipline is full (the held head does not count against it).
    fn is_full(&self, size: u32) -> bool {
        self.inner.is_full(size)
    }

    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("tokens_bytes", self.tokens_bytes()));
        self.inner.gauges(out);
    }
}

/// Entries of per-flow (or per-bucket) tables this discipline keeps on one link direction
/// with `n_flows` flows (at least 1): what the memory budget counts (`scenario::budget`).
pub fn flow_state_entries(_: &Params, _n_flows: u64) -> u64 {
    0 // no per-flow state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::conformance::{Fate, Line};
    use crate::qdisc::harness::read_table;

    fn tbf(text: &str) -> Tbf {
        let link = LinkInfo { rate_bps: 1_000_000_000, n_flows: 4, mean_packet_size: 1000 };
        Tbf::new(&read_table(text, Params::read).unwrap(), &link)
    }

    fn sent_by(line: &Line<Tbf>) -> u64 {
        line.offered.iter().filter(|(_, f)| matches!(f, Fate::Sent)).map(|(s, _)| *s as u64).sum()
    }

    #[test]
    fn a_backlog_leaves_at_the_shaped_rate_after_one_burst() {
        // 10 Mbps with a 15,000-byte bucket behind a 1 Gbps line, 1000-byte packets offered
        // faster than 10 Mbps for 1 s: the bucket's 15 packets go back to back at the line rate
        // (8 us each), then one packet every 0.8 ms; 1 s sends the burst plus 10 Mbit.
        let mut line = Line::new(
            tbf("rate = \"10Mbps\"\nburst = 15000\ninner = { discipline = \"droptail\", limit = 100000 }"),
            &LinkInfo { rate_bps: 1_000_000_000, n_flows: 1, mean_packet_size: 1000 },
            1,
        );
        for k in 0..2_000u64 {
            line.arrive(k * 400_000, 0, 1000); // 20 Mbps
        }
        line.run_until(1_000_000_000);
        let sent = sent_by(&line);
        // The burst, then 10 Mbit/s x (1 s - its 120 us): within a packet.
        let expected = 15_000 + (10_000_000.0 / 8.0 * (1.0 - 120e-6)) as u64;
        assert!(sent.abs_diff(expected) <= 1000, "{sent} bytes sent, expected {expected}");
        line.drain();
    }

    #[test]
    fn an_idle_bucket_lets_its_burst_out_at_the_line_rate() {
        let mut line = Line::new(
            tbf("rate = \"1Mbps\"\nburst = 5000"),
            &LinkInfo { rate_bps: 1_000_000_000, n_flows: 1, mean_packet_size: 1000 },
            1,
        );
        for _ in 0..6 {
            line.arrive(0, 0, 1000);
        }
        line.run_until(40_000); // five 8-us transmissions
        assert_eq!(sent_by(&line), 5000, "the bucket's 5000 bytes at once");
        // By the sixth's turn at 40 us the bucket holds the 5 bytes 40 us of 1 Mbps bring: it
        // waits for 995 more, 7.96 ms, and goes at 8 ms exactly.
        line.run_until(7_999_999);
        assert_eq!(sent_by(&line), 5000, "the sixth waits for its tokens");
        line.drain();
        assert_eq!(sent_by(&line), 6000);
    }

    #[test]
    fn a_packet_larger_than_the_bucket_is_dropped_and_a_shaper_in_a_shaper_refused() {
        let mut line = Line::new(tbf("rate = \"1Mbps\"\nburst = 1500"), &LinkInfo { rate_bps: 1_000_000_000, n_flows: 1, mean_packet_size: 1000 }, 1);
        assert_eq!(line.arrive(0, 0, 1501), Verdict::Dropped(DropReason::Overflow));
        let e = read_table("rate = \"1Mbps\"\ninner = { discipline = \"tbf\", rate = \"1Mbps\" }", Params::read).unwrap_err();
        assert!(e.to_string().contains("inner: is a shaper too"), "{e}");
        let default = tbf("rate = \"95Mbps\"");
        assert_eq!(default.capacity, 11_875 * 8 * NS, "1 ms at 95 Mbps");
    }
}
