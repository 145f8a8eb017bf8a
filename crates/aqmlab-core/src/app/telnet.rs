//! `kind = "telnet"`: the interactive source of the FQ paper (Demers, Keshav & Shenker 1989,
//! section 3): keystrokes as a Poisson process, each one segment sent through a TCP window. The
//! keystroke process is [`crate::tcp::telnet`].

use serde::Serialize;

use super::{AnyAgent, FlowKind, FlowKindMeta, Transport, Wire};
use crate::agent::{FlowIds, Schedule};
use crate::conf::{Duration, Fields, Result};
use crate::rng::SimRng;
use crate::tcp::telnet::{Keystrokes, OnFullWindow};
use crate::tcp::{Common, Defaults, Receiver, Sender};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "telnet",
    summary: "Interactive source (the FQ paper's Telnet): Poisson keystrokes sent through a TCP window.",
};

/// `kind = "telnet"`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    #[serde(flatten)]
    pub common: Common,
    /// Mean time between keystrokes, ns.
    pub mean_interval_ns: u64,
    /// What becomes of a keystroke that finds the window full.
    pub on_full_window: OnFullWindow,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let common = Common::read(f, &Defaults { cc: "generic", packet_size: 40, header: 0, max_window: 5 })?;
        let iv: Duration = f.or(
            "mean_interval",
            Duration(5_000_000_000),
            "mean time between keystrokes (exponential: a Poisson process)",
        )?;
        f.ensure(iv.0 > 0, "mean_interval", "must be above 0")?;
        let on_full_window = f.choice(
            "on_full_window",
            OnFullWindow::Queue,
            "a keystroke that finds the window full (it cannot leave at once): queue, it waits in order \
             behind any others and leaves as the window opens; skip, it is never sent (a traced flow's \
             keystrokes_skipped counts it); hold_one, it waits if no other keystroke does, else it is skipped. The FQ paper \
             (Demers, Keshav & Shenker 1989) says only that Telnets \"generate 40 byte packets by a Poisson \
             process\" behind a window of 5, so this is an open choice",
        )?;
        Ok(Params { common, mean_interval_ns: iv.0, on_full_window })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        // The hosts' clocks draw from streams derived from the flow's, before the keystrokes use it.
        let clocks = rng.clone();
        let keys = Keystrokes::new(self.mean_interval_ns, self.on_full_window, rng);
        (
            AnyAgent::TcpSender(Sender::new(&self.common, None, Some(Box::new(keys)), ids, when, Some(&clocks))),
            AnyAgent::TcpReceiver(Receiver::new(&self.common, ids, true, Some(&clocks))),
        )
    }
    fn mean_packet_size(&self) -> f64 {
        self.common.packet_size as f64
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.common.packet_size as u64, Some(self.common.ack_size as u64))
    }
    /// One segment per mean interval.
    fn demand_bps(&self) -> f64 {
        self.common.packet_size as f64 * 8.0 / (self.mean_interval_ns as f64 * 1e-9)
    }
    fn max_window(&self) -> Option<u32> {
        Some(self.common.max_window)
    }
    fn transport(&self) -> Transport {
        Transport::Tcp
    }
    fn wire(&self) -> Wire {
        super::tcp_wire(&self.common, None)
    }
    fn ecn_capable(&self) -> bool {
        self.common.ecn_capable()
    }
}
