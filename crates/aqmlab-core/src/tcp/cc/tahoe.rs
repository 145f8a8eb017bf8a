//! TCP Tahoe: slow start, congestion avoidance and fast retransmit (the FQ paper's "JK").
//!
//! V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988, and 4.3BSD-Tahoe; as
//! simulated by Fall & Floyd, "Simulation-based Comparisons of Tahoe, Reno and SACK TCP", 1996.
//! The slow-start algorithm of [`super::slowstart`], plus: the third duplicate ACK is taken as
//! a loss without waiting for the timer. `ssthresh` becomes half the data outstanding (at least
//! 2 packets), the window 1 packet, and the sender goes back to the first unacknowledged
//! segment and slow-starts from there, resending what follows as the window reopens.
//! Demers, Keshav & Shenker's "JK" flow control is this, with `max_window = 5` and
//! `initial_ssthresh = 5`.
//!
//! Deviations and open choices: by default, going back N after a fast retransmit follows ns-2
//! and Fall & Floyd; `after_fast_retransmit = "resume"` does what 4.3BSD-Tahoe's tcp_input does
//! instead, resending the lost segment alone and going on from the old snd_nxt (the segments
//! beyond a second hole then wait for the timer). Duplicate ACKs are ignored until an ACK goes
//! beyond the data outstanding at the fast retransmit, so the duplicates that going back
//! provokes cannot trigger a second one (ns-2's `bug_fix_`; in 4.3BSD nothing is left in flight
//! to provoke them).

pub use super::slowstart::Params;
use super::slowstart::{FastRecovery, LossBased, Window};
use crate::conf::{choice_enum, Fields, Result};
use crate::tcp::EcnUse;
use super::{AckInfo, CcInfo, CcParams, Reaction};

pub const INFO: CcInfo = CcInfo {
    name: "tahoe",
    aliases: &["jk"],
    summary: "Tahoe: slow start, congestion avoidance, fast retransmit then slow start (the FQ paper's JK).",
    read: |f| read(f).map(CcParams::Tahoe),
    ecn: EcnUse::Optional,
    paces: false,
    sack: false,
};

choice_enum! {
    /// The `after_fast_retransmit` key.
    #[derive(Clone, Copy, PartialEq)]
    enum AfterFastRetransmit {
        GoBack = "go_back",
        Resume = "resume",
    }
}

/// The slow-start family's keys and Tahoe's own.
fn read(f: &mut Fields) -> Result<Params> {
    let mut p = Params::read(f, true)?;
    let after = f.choice(
        "after_fast_retransmit",
        AfterFastRetransmit::GoBack,
        "what follows a fast retransmit: go_back, resend from the lost segment on as the window reopens \
         (ns-2, Fall & Floyd); resume, the lost segment alone, then on from where sending stood (4.3BSD-Tahoe)",
    )?;
    p.resume_after_fast_retransmit = after == AfterFastRetransmit::Resume;
    Ok(p)
}

/// Tahoe's reaction to the threshold-th duplicate ACK.
#[derive(Clone, Copy, Debug)]
pub struct TahoeRecovery;

impl FastRecovery for TahoeRecovery {
    const GUARD_AFTER_RETRANSMIT: bool = true;
    fn enter(w: &mut Window, ssthresh: f64, _threshold: u32) -> (Reaction, bool) {
        w.ssthresh = ssthresh;
        w.cwnd = 1.0;
        (Reaction::GO_BACK, false)
    }
    fn ack_in_recovery(_w: &mut Window, _a: &AckInfo, _recover: u64, _first: bool) -> (Reaction, bool) {
        (Reaction::NONE, false)
    }
}

pub type Tahoe = LossBased<TahoeRecovery>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::rtt::RtoParams;

    fn params(resume_after_fast_retransmit: bool) -> Params {
        Params { resume_after_fast_retransmit, ..Params::rfc5681(16.0, Some(8.0), 3, RtoParams::JACOBSON) }
    }

    #[test]
    fn third_dup_ack_goes_back_to_one_packet_once() {
        let mut c = Tahoe::new(&params(false), 100);
        let dup = |n| AckInfo { dupacks: n, flight: 16, snd_max: 16000, ack: 1000, ..Default::default() };
        assert_eq!(c.on_dup_ack(&dup(1)), Reaction::NONE);
        assert_eq!(c.on_dup_ack(&dup(2)), Reaction::NONE);
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::GO_BACK);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 8.0));
        // Duplicates provoked by going back do not trigger another.
        assert_eq!(c.on_dup_ack(&AckInfo { ack: 5000, ..dup(3) }), Reaction::NONE);
        // Everything outstanding at the fast retransmit is acknowledged: still guarded, since
        // duplicates of segments resent when going back acknowledge exactly this far.
        c.on_ack(&AckInfo { ack: 16000, acked: 1, ..Default::default() });
        assert_eq!(c.cwnd(), 2.0, "slow start again");
        assert_eq!(c.on_dup_ack(&AckInfo { ack: 16000, ..dup(3) }), Reaction::NONE);
        c.on_ack(&AckInfo { ack: 17000, acked: 1, ..Default::default() });
        assert_eq!(c.on_dup_ack(&AckInfo { ack: 17000, snd_max: 20000, ..dup(3) }), Reaction::GO_BACK);
    }

    #[test]
    fn resume_resends_the_lost_segment_alone_with_the_same_window() {
        let mut c = Tahoe::new(&params(true), 100);
        let dup = |n| AckInfo { dupacks: n, flight: 16, snd_max: 16000, ack: 1000, ..Default::default() };
        c.on_dup_ack(&dup(1));
        c.on_dup_ack(&dup(2));
        assert_eq!(c.on_dup_ack(&dup(3)), Reaction::RETRANSMIT);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 8.0));
    }

    #[test]
    fn bsd_halves_the_window_on_a_fast_retransmit_not_the_flight() {
        // 4.3BSD-Tahoe's tcp_input: ssthresh = min(snd_wnd, snd_cwnd) / 2 in whole segments, at
        // least 2. A window of 16 with 6 packets outstanding leaves 8; half the flight leaves 3.
        let dup = |n| AckInfo { dupacks: n, flight: 6, snd_max: 16000, ack: 1000, ..Default::default() };
        let threshold = |half_window: bool| {
            let mut c = Tahoe::new(&Params { half_window_on_fast_retransmit: half_window, ..params(true) }, 100);
            for n in 1..=3 {
                c.on_dup_ack(&dup(n));
            }
            (c.cwnd(), c.ssthresh())
        };
        assert_eq!(threshold(true), (1.0, 8.0));
        assert_eq!(threshold(false), (1.0, 3.0));
    }

    #[test]
    fn the_key_reads_go_back_or_resume_and_refuses_anything_else() {
        let src = crate::conf::Source { path: "t.toml".into() };
        let parse = |text: &str| {
            let t = crate::conf::parse_toml(text, &src).unwrap();
            let mut f = Fields::new(&src, "flow.cc", &t, crate::conf::Origin::Line(1));
            read(&mut f)
        };
        assert!(!parse("").unwrap().resume_after_fast_retransmit);
        assert!(parse("after_fast_retransmit = \"resume\"").unwrap().resume_after_fast_retransmit);
        let e = parse("after_fast_retransmit = \"back\"").unwrap_err();
        assert!(e.message.contains("go_back") && e.message.contains("resume"), "{e}");
    }
}
