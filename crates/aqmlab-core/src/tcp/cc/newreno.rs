//! TCP NewReno: Reno whose fast recovery survives several losses in one window.
//!
//! T. Henderson, S. Floyd, A. Gurtov, Y. Nishida, RFC 6582 (2012), after Hoe 1996 and RFC 2582.
//! Entering fast recovery as Reno does, it also records `recover`, the highest byte sent.
//! During recovery an ACK that acknowledges new data but not all of it up to `recover` (a
//! partial ACK) shows that the next segment was lost too: retransmit it at once, deflate the
//! window by the amount acknowledged and add back one packet, and stay in recovery. An ACK
//! covering `recover` (a full ACK) ends recovery with the window at
//! `min(ssthresh, max(FlightSize, 1) + 1)` (RFC 6582's first option). Duplicate ACKs are not
//! taken as a new loss until an ACK covers more than `recover`.
//!
//! Deviations: none intended. The retransmission timer is restarted only on the first partial
//! ACK (RFC 6582's "impatient" variant, section 4).

use super::reno::halve_and_inflate;
pub use super::slowstart::Params;
use super::slowstart::{FastRecovery, LossBased, Window};
use crate::tcp::EcnUse;
use super::{AckInfo, CcInfo, CcParams, Reaction};

pub const INFO: CcInfo = CcInfo {
    name: "newreno",
    aliases: &[],
    summary: "NewReno (RFC 6582): Reno whose fast recovery retransmits on partial ACKs.",
    read: |f| Params::read(f, true).map(CcParams::NewReno),
    ecn: EcnUse::Optional,
    paces: false,
    sack: true,
};

/// NewReno's fast recovery.
#[derive(Clone, Copy, Debug)]
pub struct NewRenoRecovery;

impl FastRecovery for NewRenoRecovery {
    const GUARD_AFTER_RETRANSMIT: bool = true;
    fn enter(w: &mut Window, ssthresh: f64, threshold: u32) -> (Reaction, bool) {
        halve_and_inflate(w, ssthresh, threshold)
    }
    fn dup_in_recovery(w: &mut Window, _a: &AckInfo) -> Reaction {
        w.cwnd += 1.0;
        Reaction::NONE
    }
    fn ack_in_recovery(w: &mut Window, a: &AckInfo, recover: u64, first_partial: bool) -> (Reaction, bool) {
        if a.ack >= recover {
            let flight_after = a.flight.saturating_sub(a.acked);
            w.cwnd = w.ssthresh.min(flight_after.max(1) as f64 + 1.0);
            (Reaction::NONE, false)
        } else {
            w.cwnd = (w.cwnd - a.acked as f64 + 1.0).max(1.0);
            (Reaction { retransmit: true, go_back: false, keep_timer: !first_partial }, true)
        }
    }
}

pub type NewReno = LossBased<NewRenoRecovery>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::rtt::RtoParams;

    #[test]
    fn partial_acks_retransmit_and_stay_in_recovery_until_recover() {
        let p = Params::rfc5681(20.0, Some(10.0), 3, RtoParams::JACOBSON);
        let mut c = NewReno::new(&p, 100);
        let dup = |n| AckInfo { dupacks: n, flight: 20, snd_max: 20000, ack: 1000, ..Default::default() };
        for n in 1..3 {
            c.on_dup_ack(&dup(n));
        }
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::RETRANSMIT);
        assert_eq!(c.cwnd(), 13.0);
        for n in 4..=10 {
            c.on_dup_ack(&dup(n));
        }
        assert_eq!(c.cwnd(), 20.0);
        // Partial ACK of 5 segments: retransmit the next hole, deflate by 5, add 1.
        let r = c.on_ack(&AckInfo { ack: 6000, acked: 5, flight: 20, ..Default::default() });
        assert_eq!(r, Reaction::RETRANSMIT);
        assert_eq!(c.cwnd(), 16.0);
        assert!(c.in_recovery());
        let r = c.on_ack(&AckInfo { ack: 7000, acked: 1, flight: 15, ..Default::default() });
        assert_eq!(
            r,
            Reaction { retransmit: true, go_back: false, keep_timer: true },
            "impatient timer: later partial ACKs keep it"
        );
        // Full ACK.
        assert_eq!(c.on_ack(&AckInfo { ack: 20000, acked: 13, flight: 14, ..Default::default() }), Reaction::NONE);
        assert!(!c.in_recovery());
        assert_eq!(c.cwnd(), 2.0, "min(ssthresh, max(flight, 1) + 1) with nothing left in flight");
    }
}
