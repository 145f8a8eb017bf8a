//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00), the rate samples a
//! model-based control (BBR) reads: what each transmission records and the sample an ACK gives.

use super::super::cc::RateSample;
use super::Sender;
use crate::units::{SimDuration, SimTime};

/// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00): the sender counts
/// the segments delivered (cumulatively acknowledged) and when the count last moved; each
/// transmission snapshots both and the start of the current sending burst, so that the ACK of
/// a segment gives a rate sample over the longer of its send and ACK intervals.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Delivery {
    pub(super) delivered: u64,
    pub(super) delivered_time: SimTime,
    /// When the first segment of the current flight was sent.
    pub(super) first_sent_time: SimTime,
    /// The smallest round trip seen: rate samples over a shorter interval are discarded (a
    /// cumulative ACK that jumps after a repair would otherwise claim a rate the path never had).
    pub(super) min_rtt: SimDuration,
}

/// What a transmission records of [`Delivery`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Snapshot {
    pub(super) delivered: u64,
    pub(super) delivered_time: SimTime,
    pub(super) first_sent_time: SimTime,
}

impl Sender {
    /// Count `acked` segments delivered at `now` and take the rate sample of the last of them
    /// (the draft's P, the most recently sent segment this ACK covers).
    pub(super) fn rate_sample(&mut self, now: SimTime, acked: u32) -> Option<RateSample> {
        let i = acked.checked_sub(1)? as usize;
        let last = *self.segs.get(i)?;
        self.delivery.delivered += acked as u64;
        self.delivery.delivered_time = now;
        // The next burst is measured from this segment's transmission.
        self.delivery.first_sent_time = last.last_sent;
        if !super::reads_rate_samples(&self.cc) {
            return None; // no control reads it, and no snapshot was taken
        }
        let snap = self.extras()[i].snap;
        let send_elapsed = last.last_sent.saturating_since(snap.first_sent_time);
        let ack_elapsed = now.saturating_since(snap.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivery.delivered - snap.delivered;
        if interval == SimDuration(0) || interval < self.delivery.min_rtt {
            return None;
        }
        Some(RateSample {
            delivered,
            interval,
            prior_delivered: snap.delivered,
            app_limited: self.limit(now) != u64::MAX && self.snd_nxt >= self.limit(now),
        })
    }
}
