//! Generic flow control: a fixed window and timeout-driven retransmission.
//!
//! A. Demers, S. Keshav, S. Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
//! SIGCOMM 1989, section 3 (after XNS SPP and pre-1988 TCP). Sliding-window flow control with
//! a fixed window (`max_window`, 5 in the paper), and a timeout per packet: a packet not
//! acknowledged within `beta x rtt` (beta = 2; rtt an exponentially averaged estimate whose
//! sample for a retransmitted packet runs from its first transmission) is retransmitted and
//! its timer set again. Nothing else reacts to congestion: duplicate ACKs are ignored and the
//! window never changes.
//!
//! Deviations: the paper leaves these open, and these are our choices: EWMA gain
//! 1/8, one timer per outstanding packet, only the timed-out packet retransmitted, cumulative
//! ACKs, no backoff (`backoff = true` adds one), no minimum and no maximum timeout (the paper's
//! is "beta rtt", bounded neither way; `max_rto` gives a ceiling), 3 s before the first sample,
//! one round-trip sample per ACK of new data, from the packet that caused it (`samples =
//! "per_packet"`: one for every packet the ACK covers, each from its first sending). The
//! paper's own numbers (its scenario 2) agree with the first three and with exact timers; they
//! do not settle the sampling.

use serde::Serialize;

use crate::tcp::EcnUse;
use super::{CcInfo, CcParams, CongestionControl};
use crate::conf::{Fields, Result};
use crate::tcp::rtt::RtoParams;

pub const INFO: CcInfo = CcInfo {
    name: "generic",
    aliases: &[],
    summary: "The FQ paper's generic flow control: fixed window (max_window), timeout = beta x rtt.",
    read: |f| Params::read(f).map(CcParams::Generic),
    ecn: EcnUse::Unsupported,
    paces: false,
    sack: false,
};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub rto: RtoParams,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        Ok(Params { rto: RtoParams::read(f, RtoParams::GENERIC)? })
    }
}

/// A fixed window.
#[derive(Clone, Debug)]
pub struct Generic {
    window: f64,
}

impl Generic {
    pub fn new(_p: &Params, max_window: u32) -> Self {
        Generic { window: max_window as f64 }
    }
}

impl CongestionControl for Generic {
    fn cwnd(&self) -> f64 {
        self.window
    }
}
