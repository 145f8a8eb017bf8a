//! TCP Reno: Tahoe plus fast recovery.
//!
//! V. Jacobson, 4.3BSD-Reno (1990); W. Stevens, RFC 2001; M. Allman, V. Paxson, E. Blanton,
//! RFC 5681 section 3.2. On the third duplicate ACK: `ssthresh` = half the data outstanding (at
//! least 2 packets), retransmit the first unacknowledged segment, and set the window to
//! `ssthresh + 3` (the three packets that have left the network). Each further duplicate ACK
//! inflates the window by one packet, so new data keeps flowing. The next ACK of new data ends
//! recovery: the window deflates to `ssthresh` and congestion avoidance goes on. Reno does not
//! return to slow start except after a timeout.
//!
//! Deviations: none intended. As in 4.3BSD-Reno, any ACK of new data ends recovery (a partial
//! ACK too; see NewReno), and a second loss in the same window can trigger a second fast
//! retransmit; after a timeout, duplicate ACKs are ignored until the data then outstanding is
//! acknowledged (ns-2's `bug_fix_`).

pub use super::slowstart::Params;
use super::slowstart::{FastRecovery, LossBased, Window};
use crate::tcp::EcnUse;
use super::{AckInfo, CcInfo, CcParams, Reaction};

pub const INFO: CcInfo = CcInfo {
    name: "reno",
    aliases: &[],
    summary: "Reno: Tahoe plus fast recovery (halve on three duplicate ACKs, no slow start).",
    read: |f| Params::read(f, true).map(CcParams::Reno),
    ecn: EcnUse::Optional,
    paces: false,
    sack: true,
};

/// Reno's fast recovery.
#[derive(Clone, Copy, Debug)]
pub struct RenoRecovery;

/// Halve and inflate: what Reno and NewReno do on entering fast recovery.
pub(super) fn halve_and_inflate(w: &mut Window, ssthresh: f64, threshold: u32) -> (Reaction, bool) {
    w.ssthresh = ssthresh;
    w.cwnd = w.ssthresh + threshold as f64;
    (Reaction::RETRANSMIT, true)
}

impl FastRecovery for RenoRecovery {
    const GUARD_AFTER_RETRANSMIT: bool = false;
    fn enter(w: &mut Window, ssthresh: f64, threshold: u32) -> (Reaction, bool) {
        halve_and_inflate(w, ssthresh, threshold)
    }
    fn dup_in_recovery(w: &mut Window, _a: &AckInfo) -> Reaction {
        w.cwnd += 1.0;
        Reaction::NONE
    }
    fn ack_in_recovery(w: &mut Window, _a: &AckInfo, _recover: u64, _first: bool) -> (Reaction, bool) {
        w.cwnd = w.ssthresh;
        (Reaction::NONE, false)
    }
}

pub type Reno = LossBased<RenoRecovery>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::rtt::RtoParams;

    #[test]
    fn halves_inflates_and_deflates_without_slow_start() {
        let p = Params::rfc5681(20.0, Some(10.0), 3, RtoParams::JACOBSON);
        let mut c = Reno::new(&p, 100);
        let dup = |n| AckInfo { dupacks: n, flight: 20, snd_max: 20000, ack: 1000, ..Default::default() };
        c.on_dup_ack(&dup(1));
        c.on_dup_ack(&dup(2));
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::RETRANSMIT);
        assert_eq!((c.cwnd(), c.ssthresh()), (13.0, 10.0));
        c.on_dup_ack(&dup(4));
        assert_eq!(c.cwnd(), 14.0);
        c.on_ack(&AckInfo { ack: 5000, acked: 4, ..Default::default() });
        assert_eq!(c.cwnd(), 10.0);
        c.on_ack(&AckInfo { ack: 6000, acked: 1, ..Default::default() });
        assert!((c.cwnd() - 10.1).abs() < 1e-9, "congestion avoidance, not slow start");
        // A second loss episode may follow at once (no guard after a fast retransmit).
        assert_eq!(c.on_dup_ack(&AckInfo { ack: 6000, ..dup(3) }), Reaction::RETRANSMIT);
    }
}
