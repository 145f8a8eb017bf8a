//! Congestion control: how a window-based sender sizes its window and reacts to loss.
//!
//! A [`CongestionControl`] is a small state machine the sender consults (smoltcp's
//! `Controller` shape): it owns the congestion window (in packets, fractional allowed) and
//! answers each acknowledgement, duplicate acknowledgement and timeout with a [`Reaction`]:
//! what the sender should retransmit. The sender owns sequence numbers, timers and RTT
//! estimation; the controller owns only window arithmetic and recovery state.
//!
//! One file per algorithm, each with its paper or RFC and its deviations. Tahoe, Reno and
//! NewReno share slow start, congestion avoidance and the timeout reaction
//! ([`slowstart::LossBased`]); they differ only in their [`slowstart::FastRecovery`]
//! policy for duplicate ACKs.
//!
//! Adding one: a file with `INFO`, a `Params` (with an `rto` field) read through [`Fields`]
//! and a type with `new(&Params, max_window)`; then one line in `congestion_controls!` below.

use serde::Serialize;

use super::rtt::RtoParams;
use super::EcnUse;
use crate::units::{SimDuration, SimTime};

/// HyStart++ (RFC 9406), the slow start CUBIC may use; not a congestion control of its own.
pub mod hystart;
use crate::conf::{Fields, Result};

/// What the sender tells its controller about an acknowledgement. Counts are in segments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckInfo {
    pub now: SimTime,
    /// Cumulative acknowledgement (next byte expected).
    pub ack: u64,
    /// Bytes of data in a full segment.
    pub mss: u64,
    /// Segments newly acknowledged (0 on a duplicate ACK).
    pub acked: u32,
    /// Segments outstanding (sent, not acknowledged) just before this ACK: RFC 5681's FlightSize.
    pub flight: u32,
    /// Segments in [snd_una, snd_nxt) after this ACK: what the window is holding now.
    pub in_use: u32,
    /// Next byte to send and highest byte sent + 1.
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Duplicate ACKs in a row, this one included (0 on a new ACK).
    pub dupacks: u32,
    /// The receiver echoed a congestion bit (DECbit, ECN).
    pub ece: bool,
    /// A valid round-trip sample from this ACK (Karn's rule applied; exact clock).
    pub rtt: Option<SimDuration>,
    /// The sender's smoothed round-trip time after this ACK, whole ns (none before a first sample).
    pub srtt: Option<SimDuration>,
    /// Last transmission time of the first unacknowledged segment after this ACK, if any.
    pub una_sent_at: Option<SimTime>,
    /// How many times that segment has been sent.
    pub una_sends: u32,
    /// Segments delivered (cumulatively acknowledged) since the start, this ACK included.
    pub delivered: u64,
    /// The delivery-rate sample of this ACK, if it gives a valid one.
    pub rate: Option<RateSample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation): `delivered` segments
/// over `interval`, measured from a segment sent when `prior_delivered` had been delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    pub delivered: u64,
    pub interval: SimDuration,
    pub prior_delivered: u64,
    /// The sender had nothing more to send: the sample may be below the path's rate.
    pub app_limited: bool,
}

impl RateSample {
    /// Segments per second.
    pub fn rate(&self) -> f64 {
        self.delivered as f64 * 1e9 / self.interval.ns() as f64
    }
}

/// What the sender knows when its retransmission timer expires.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeoutInfo {
    pub now: SimTime,
    /// Segments outstanding.
    pub flight: u32,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// The sender's SACK loss recovery was under way (the window was reduced for this loss).
    pub in_sack_recovery: bool,
}

/// The controller's answer: what to (re)send beyond what the window allows anyway.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reaction {
    /// Resend the first unacknowledged segment now (fast retransmit).
    pub retransmit: bool,
    /// Go back: resend from the first unacknowledged segment as the window allows (Tahoe).
    pub go_back: bool,
    /// Do not restart the retransmission timer for this new ACK (RFC 6582's "impatient" timer).
    pub keep_timer: bool,
}

impl Reaction {
    pub const NONE: Reaction = Reaction { retransmit: false, go_back: false, keep_timer: false };
    pub const RETRANSMIT: Reaction = Reaction { retransmit: true, go_back: false, keep_timer: false };
    pub const GO_BACK: Reaction = Reaction { retransmit: false, go_back: true, keep_timer: false };
}

/// A congestion control algorithm. Defaults do nothing: a fixed window.
pub trait CongestionControl {
    /// Congestion window, packets.
    fn cwnd(&self) -> f64;
    /// Slow-start threshold, packets (infinite when there is none).
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    /// New data was acknowledged.
    fn on_ack(&mut self, _a: &AckInfo) -> Reaction {
        Reaction::NONE
    }
    /// A duplicate acknowledgement (with data outstanding).
    fn on_dup_ack(&mut self, _a: &AckInfo) -> Reaction {
        Reaction::NONE
    }
    /// The retransmission timer expired (the sender retransmits by itself).
    fn on_timeout(&mut self, _t: &TimeoutInfo) {}
    /// Whether a loss recovery is under way: an ECN echo is then not acted on (RFC 3168
    /// section 6.1.2: one reduction per window of data).
    fn in_recovery(&self) -> bool {
        false
    }
    /// Reduce the window for an ECN echo, without retransmitting. The sender calls it at most
    /// once per round trip, never during loss recovery, and only with ECN feedback on.
    fn on_ece(&mut self, _a: &AckInfo) {}
    /// SACK loss recovery (RFC 6675), which the sender runs itself, found a loss: reduce the
    /// window as for one (ssthresh and cwnd to the reduced window, RFC 6675 step 4.2). Until
    /// the recovery ends the sender reports ACKs with [`on_ack_in_recovery`](Self::on_ack_in_recovery)
    /// instead of [`on_ack`](Self::on_ack): the window does not grow during recovery. By
    /// default the reduction is the ECN one (RFC 3168: the same as for a loss).
    fn on_loss(&mut self, a: &AckInfo) {
        self.on_ece(a)
    }
    /// An ACK of new data during SACK loss recovery (the window is left alone).
    fn on_ack_in_recovery(&mut self, _a: &AckInfo) {}
    /// Quantities of its own worth tracing, beside the window and threshold.
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// The rate the sender paces at, bit/s, for a control that sets one (BBR).
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
}

/// A congestion control's entry in the catalogue.
pub struct CcInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub read: fn(&mut Fields) -> Result<CcParams>,
    /// What it does with ECN.
    pub ecn: EcnUse,
    /// It paces its sender itself (BBR), whatever `pacing` says.
    pub paces: bool,
    /// Its fast recovery may be replaced by SACK loss recovery (`sack = true`, RFC 6675).
    pub sack: bool,
}

/// Declares every congestion control once, as [`crate::qdisc`] does disciplines: those under
/// `inline` live inside the sender, those under `boxed` (Vegas's and DECbit's larger state) on
/// the heap, so that a NewReno sender stays small when 10000 of them share the caches.
macro_rules! congestion_controls {
    (
        inline: $( $ivariant:ident($imodule:ident :: $ity:ident) ),* ;
        boxed: $( $bvariant:ident($bmodule:ident :: $bty:ident) ),* $(,)?
    ) => {
        // The modules themselves: a new one is its file and its line in the list below, no more.
        $( pub mod $imodule; )*
        $( pub mod $bmodule; )*

        /// Every congestion control, in catalogue order.
        pub const REGISTRY: &[CcInfo] = &[ $( $imodule::INFO, )* $( $bmodule::INFO, )* ];

        /// Validated parameters of one congestion control.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcParams { $( $ivariant($imodule::Params), )* $( $bvariant($bmodule::Params), )* }

        impl CcParams {
            pub fn name(&self) -> &'static str {
                self.info().name
            }
            /// Its catalogue entry.
            pub fn info(&self) -> &'static CcInfo {
                match self {
                    $( CcParams::$ivariant(_) => &$imodule::INFO, )*
                    $( CcParams::$bvariant(_) => &$bmodule::INFO, )*
                }
            }
            /// Its timeout settings.
            pub fn rto(&self) -> RtoParams {
                match self {
                    $( CcParams::$ivariant(p) => p.rto, )*
                    $( CcParams::$bvariant(p) => p.rto, )*
                }
            }
            pub fn build(&self, max_window: u32) -> AnyCc {
                match self {
                    $( CcParams::$ivariant(p) => AnyCc::$ivariant($imodule::$ity::new(p, max_window)), )*
                    $( CcParams::$bvariant(p) => AnyCc::$bvariant(Box::new($bmodule::$bty::new(p, max_window))), )*
                }
            }
        }

        impl Serialize for CcParams {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Tagged<'a, P: Serialize> {
                    cc: &'static str,
                    #[serde(flatten)]
                    params: &'a P,
                }
                match self {
                    $( CcParams::$ivariant(p) => Tagged { cc: self.name(), params: p }.serialize(s), )*
                    $( CcParams::$bvariant(p) => Tagged { cc: self.name(), params: p }.serialize(s), )*
                }
            }
        }

        /// Static dispatch over every congestion control.
        pub enum AnyCc {
            $( $ivariant($imodule::$ity), )*
            $( $bvariant(Box<$bmodule::$bty>), )*
        }

        impl AnyCc {
            #[inline]
            pub fn inner(&self) -> &dyn CongestionControl {
                match self {
                    $( AnyCc::$ivariant(c) => c, )*
                    $( AnyCc::$bvariant(c) => c.as_ref(), )*
                }
            }
            #[inline]
            pub fn inner_mut(&mut self) -> &mut dyn CongestionControl {
                match self {
                    $( AnyCc::$ivariant(c) => c, )*
                    $( AnyCc::$bvariant(c) => c.as_mut(), )*
                }
            }
        }
    };
}

// One line per congestion control; keep one algorithm per file.
congestion_controls! {
    inline:
        Generic(generic::Generic),
        SlowStart(slowstart::SlowStart),
        Tahoe(tahoe::Tahoe),
        Reno(reno::Reno),
        NewReno(newreno::NewReno);
    boxed:
        Cubic(cubic::Cubic),
        Dctcp(dctcp::Dctcp),
        Bbr(bbr::Bbr),
        Vegas(vegas::Vegas),
        Decbit(decbit::Decbit),
        Scalable(scalable::Scalable),
}

/// Look a congestion control up by name or alias.
pub fn find(name: &str) -> Option<&'static CcInfo> {
    REGISTRY.iter().find(|c| c.name == name || c.aliases.contains(&name))
}

/// Names and aliases, for messages.
pub fn names() -> String {
    REGISTRY
        .iter()
        .map(
            |c| {
                if c.aliases.is_empty() {
                    c.name.to_string()
                } else {
                    format!("{} ({})", c.name, c.aliases.join(", "))
                }
            },
        )
        .collect::<Vec<_>>()
        .join(", ")
}

/// Half of `flight` in whole packets, at least 2: the new slow-start threshold after a loss
/// (RFC 5681 eq. 4; 4.3BSD rounds down to whole segments).
#[inline]
pub fn half_flight(flight: u32) -> f64 {
    ((flight / 2) as f64).max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jk_is_tahoe_and_every_name_is_unique() {
        assert_eq!(find("jk").unwrap().name, "tahoe");
        let mut all: Vec<&str> =
            REGISTRY.iter().flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied())).collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
