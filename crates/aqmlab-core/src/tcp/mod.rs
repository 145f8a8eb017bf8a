//! The TCP family: a window-based sender and a cumulative-ACK receiver, with pluggable
//! congestion control.
//!
//! - [`sender`]: byte sequence numbers cut into segments of `packet_size` bytes on the wire
//!   (`header` of them not data), a window of `min(cwnd, max_window)` whole packets, the
//!   retransmission timer(s), round-trip sampling, finite (`bytes`) or unending transfers, and
//!   the application (bulk data, or Telnet keystrokes);
//! - [`receiver`]: in-order delivery with an out-of-order buffer, cumulative ACKs of `ack_size`
//!   bytes, optional delayed ACKs, the congestion bit echoed;
//! - [`rtt`]: the generic and Jacobson/Karels estimators, Karn's rule, backoff, coarse ticks;
//! - [`cc`]: one congestion control per file, each a line of `congestion_controls!` there;
//! - [`source`]: where a sender's data comes from (bulk, or an application such as Telnet);
//! - [`telnet`]: the interactive source of the FQ paper.
//!
//! In a scenario, `kind = "tcp"` with `cc = "reno"` (and the cc's own keys in the same table),
//! or `kind = "telnet"` (the flow kinds are in [`crate::app`]). Every data packet of a flow is one segment; the sequence space counts
//! data bytes, so goodput is data bytes and throughput wire bytes. An ACK's `echo` carries the
//! `sent_at` of the data packet that caused it (the earliest one it acknowledges, for a delayed
//! ACK) and its `seq` that packet's sequence number; the ACK carries `RETX` when that packet was
//! a retransmission, so the sender can apply Karn's rule without ambiguity. A data packet's
//! `echo` carries the time its data was generated, for Telnet's delay (0 for bulk data).

use serde::Serialize;

use crate::agent::TimerKind;
use crate::conf::{choice_enum, Duration, Fields, Result};

pub mod cc;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod source;
pub mod telnet;

pub use cc::{AnyCc, CcParams, CongestionControl};
pub use receiver::Receiver;
pub use sender::Sender;

/// The timers of the TCP agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Timer {
    /// The retransmission timer (sender).
    Rto = 0,
    /// The application's next data (a Telnet sender's next keystroke).
    App = 1,
    /// The delayed-ACK timer (receiver).
    DelAck = 2,
    /// The pacing timer (paced sender): the next packet may leave.
    Pace = 3,
}

choice_enum! {
    /// The `delayed_ack_timer` key: when a lone segment's delayed ACK goes.
    #[derive(Clone, Copy, PartialEq)]
    enum DelackTimer {
        AfterSegment = "after_segment",
        Clocked = "clocked",
    }
}

impl Timer {
    pub const fn kind(self) -> TimerKind {
        TimerKind(self as u8)
    }

    /// The timer a fired kind names (one this module armed).
    pub fn of(kind: TimerKind) -> Option<Timer> {
        [Timer::Rto, Timer::App, Timer::DelAck, Timer::Pace].into_iter().find(|t| t.kind() == kind)
    }
}

/// Settings shared by every TCP flow, whatever its application.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Common {
    pub cc: CcParams,
    /// Size on the wire of a full data packet, bytes.
    pub packet_size: u32,
    /// Bytes of each data packet that are headers, not data.
    pub header: u32,
    pub ack_size: u32,
    /// Receiver window, packets: the window never exceeds it.
    pub max_window: u32,
    pub delayed_ack: bool,
    /// Longest an ACK is delayed, ns; with `delayed_ack_clocked`, the period of the clock.
    pub delayed_ack_timeout_ns: u64,
    /// A lone segment's ACK waits for the next tick of a free-running clock (4.3BSD's
    /// `tcp_fasttimo`), not a fixed time after the segment (`delayed_ack_timer = "clocked"`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub delayed_ack_clocked: bool,
    /// ECN (RFC 3168) asked for with `ecn = true`; DCTCP and DECbit use their own (see [`Common::feedback`]).
    pub ecn: bool,
    /// Pace data packets (`pacing = true`; BBR always paces).
    pub pacing: bool,
    /// SACK (`sack = true`): the receiver reports SACK blocks (RFC 2018) and the sender
    /// recovers from losses by RFC 6675 instead of its control's fast recovery.
    pub sack: bool,
    /// Open the connection with a three-way handshake (SYN, SYN-ACK) before the data.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub handshake: bool,
    /// Limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub limited_transmit: bool,
    /// Proportional rate reduction (RFC 6937) in SACK recovery.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prr: bool,
    /// In SACK recovery, a partial ACK also resends the first unacknowledged segment (RFC 6582's
    /// rule inside RFC 6675's recovery, as ns-3 does).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial_ack_retransmit: bool,
    /// In SACK recovery, a segment retransmitted once is not retransmitted again before a
    /// timeout, by this recovery or a later one (as ns-3 3.44's scoreboard).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub retransmit_once: bool,
}

/// How congestion marks travel back from the receiver to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Feedback {
    /// No marks: data packets are not ECN-capable.
    None,
    /// DECbit: an ACK carries ECE when a data packet it acknowledges carried the bit.
    CopyBit,
    /// RFC 3168: after a CE packet the receiver sets ECE on every ACK until a data packet with
    /// CWR arrives; the sender reduces at most once per round trip and then sets CWR.
    Classic,
    /// RFC 8257 section 3.2: ECE echoes CE packet by packet (a delayed ACK is sent at once
    /// when the CE state changes, so every ACK covers packets of one state only).
    PerPacket,
}

/// What a congestion control does with ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnUse {
    /// `ecn = true` is refused.
    Unsupported,
    /// `ecn = true` turns on RFC 3168 (ECT(0) data, ECE/CWR, one reduction per round trip).
    Optional,
    /// Always ECN-capable with this feedback, whatever `ecn` says (DECbit, DCTCP).
    Own(Feedback),
}

/// Defaults that differ between the flow kinds.
pub struct Defaults {
    pub cc: &'static str,
    pub packet_size: u32,
    pub header: u32,
    pub max_window: u32,
}

/// Refuse `key = true` for a control without a fast recovery of its own (what SACK replaces and
/// limited transmit feeds), naming the controls that have one.
fn only_with_fast_recovery(f: &Fields, key: &str, info: &cc::CcInfo, why: &str) -> Result<()> {
    if info.sack {
        return Ok(());
    }
    let allowed: Vec<&str> = cc::REGISTRY.iter().filter(|c| c.sack).map(|c| c.name).collect();
    Err(f.error(key, format!("cc '{}' {why}; {key} = true is allowed with: {}", info.name, allowed.join(", "))))
}

impl Common {
    /// Read the keys every TCP flow kind shares, and its congestion control's own.
    pub fn read(f: &mut Fields, d: &Defaults) -> Result<Self> {
        let cc_name: String = f.or(
            "cc",
            d.cc.to_string(),
            &format!("congestion control, one of: {} (each has its own keys: see congestion controls)", cc::names()),
        )?;
        let Some(info) = cc::find(&cc_name) else {
            let known = cc::REGISTRY.iter().flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()));
            let hint = crate::suggest::did_you_mean(&cc_name, known);
            return Err(
                f.error("cc", format!("unknown congestion control '{cc_name}'{hint} (allowed: {})", cc::names()))
            );
        };
        let packet_size: u32 = f.or("packet_size", d.packet_size, "size on the wire of a full data packet, bytes")?;
        let header: u32 =
            f.or("header", d.header, "bytes of each data packet that are headers (not counted as data or goodput)")?;
        f.ensure(
            packet_size > header && packet_size <= 1 << 20,
            "packet_size",
            format!("must exceed header ({header}) and be at most {} bytes", 1 << 20),
        )?;
        let ack_size: u32 = f.or("ack_size", 40u32, "size on the wire of an ACK, bytes")?;
        f.ensure(ack_size >= 1, "ack_size", "must be at least 1 byte")?;
        let max_window: u32 =
            f.or("max_window", d.max_window, "maximum (receiver) window, packets; the generic window")?;
        f.ensure(max_window >= 1, "max_window", "must be at least 1 packet")?;
        let delayed_ack: bool =
            f.or("delayed_ack", false, "acknowledge every second packet (or after delayed_ack_timeout)")?;
        let delack: Duration = f.or("delayed_ack_timeout", Duration(200_000_000), "longest an ACK is delayed")?;
        f.ensure(delack.0 > 0, "delayed_ack_timeout", "must be above 0")?;
        let delack_timer = f.choice(
            "delayed_ack_timer",
            DelackTimer::AfterSegment,
            "with delayed_ack: when a lone segment's ACK goes. after_segment: delayed_ack_timeout after the \
             segment (Linux, ns-3); clocked: at the next tick of a clock that ticks every delayed_ack_timeout, \
             its phase drawn per receiver, so the wait is uniform in (0, delayed_ack_timeout] (4.3BSD's 200 ms \
             tcp_fasttimo)",
        )?;
        let ecn: bool = f.or(
            "ecn",
            false,
            "ECN (RFC 3168): data packets ECT(0), the receiver echoes CE with ECE until CWR, the window \
             reduced at most once per round trip (reno, newreno, tahoe, slowstart, cubic; dctcp and \
             decbit are always ECN-capable)",
        )?;
        if ecn {
            match info.ecn {
                EcnUse::Optional => {}
                EcnUse::Unsupported => {
                    return Err(f.error(
                        "ecn",
                        format!(
                            "cc '{}' has no ECN reaction; ecn = true is allowed with: {}",
                            info.name,
                            cc::REGISTRY
                                .iter()
                                .filter(|c| c.ecn == EcnUse::Optional)
                                .map(|c| c.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ))
                }
                EcnUse::Own(_) => {
                    return Err(f.error(
                        "ecn",
                        format!("cc '{}' is always ECN-capable with its own feedback; leave ecn out", info.name),
                    ))
                }
            }
        }
        let pacing: bool = f.or(
            "pacing",
            false,
            "pace data packets at cwnd x packet size / srtt, times 2 in slow start and 1.2 after (Linux's rule), \
             instead of sending on each ACK (bbr paces at its own rate whatever this says)",
        )?;
        let sack: bool = f.or(
            "sack",
            false,
            "selective acknowledgements: the receiver reports up to 3 SACK blocks (RFC 2018) and the sender \
             repairs losses by RFC 6675's scoreboard, several per round trip (reno, newreno, cubic, dctcp)",
        )?;
        if sack {
            only_with_fast_recovery(f, "sack", info, "has no fast recovery for SACK to replace")?;
        }
        let limited_transmit: bool = f.or(
            "limited_transmit",
            false,
            "limited transmit (RFC 3042, as Linux and ns-3): send a new segment on each of the first two duplicate \
             ACKs, beyond the window, so that a small window still gets the duplicate ACKs of a fast retransmit \
             (reno, newreno, cubic, dctcp)",
        )?;
        if limited_transmit {
            only_with_fast_recovery(f, "limited_transmit", info, "has no fast retransmit of its own to feed")?;
        }
        let prr: bool = f.or(
            "prr",
            false,
            "proportional rate reduction (RFC 6937, Linux's and ns-3's default) in SACK recovery: send in \
             proportion to what is delivered, so the window comes down through the round trip instead of a pause \
             then one segment per ACK (needs sack = true)",
        )?;
        f.ensure(!prr || sack, "prr", "needs sack = true: it governs RFC 6675's SACK recovery")?;
        let partial_ack_retransmit: bool = f.or(
            "partial_ack_retransmit",
            false,
            "in SACK recovery, also resend the first unacknowledged segment on each partial ACK unless this recovery \
             resent it already (RFC 6582's NewReno rule inside RFC 6675's recovery, as ns-3 does; RFC 6675 alone \
             leaves a lost last segment to the timer) (needs sack = true)",
        )?;
        f.ensure(
            !partial_ack_retransmit || sack,
            "partial_ack_retransmit",
            "needs sack = true: it is a rule of RFC 6675's SACK recovery",
        )?;
        let retransmit_once: bool = f.or(
            "retransmit_once",
            false,
            "in SACK recovery, never resend a segment already retransmitted since the last timeout, in this recovery \
             or a later one (as ns-3 3.44's scoreboard; RFC 6675's HighRxt starts again with each recovery, so a new \
             recovery resends what the last one resent and lost); each recovery still begins by resending the first \
             unacknowledged segment (needs sack = true)",
        )?;
        f.ensure(
            !retransmit_once || sack,
            "retransmit_once",
            "needs sack = true: it is a rule of RFC 6675's SACK recovery",
        )?;
        let handshake: bool = f.or(
            "handshake",
            false,
            "open the connection with a three-way handshake: a SYN and its SYN-ACK (ack_size bytes each) before \
             the data, the SYN resent after the retransmission timeout; a completion time counts from the SYN",
        )?;
        // The cc's own keys are in this table too; in catalogue mode they are listed under the
        // congestion controls, not here.
        let cc = if f.is_catalogue() {
            let mut scratch = Vec::new();
            (info.read)(&mut Fields::catalogue(f.source(), &mut scratch))?
        } else {
            (info.read)(f)?
        };
        Ok(Common {
            cc,
            packet_size,
            header,
            ack_size,
            max_window,
            delayed_ack,
            delayed_ack_timeout_ns: delack.0,
            delayed_ack_clocked: delack_timer == DelackTimer::Clocked,
            ecn,
            pacing,
            sack,
            handshake,
            limited_transmit,
            prr,
            partial_ack_retransmit,
            retransmit_once,
        })
    }

    /// How marks are fed back on this flow.
    pub fn feedback(&self) -> Feedback {
        match self.cc.info().ecn {
            EcnUse::Own(fb) => fb,
            EcnUse::Optional if self.ecn => Feedback::Classic,
            EcnUse::Optional | EcnUse::Unsupported => Feedback::None,
        }
    }

    /// Whether new data is ECT(1) rather than ECT(0) (DCTCP's `ect1`, for L4S).
    pub fn sends_ect1(&self) -> bool {
        matches!(&self.cc, CcParams::Dctcp(p) if p.ect1)
    }

    /// Whether the flow's data packets are ECN-capable (gateways may mark them).
    pub fn ecn_capable(&self) -> bool {
        self.feedback() != Feedback::None
    }

    /// Data bytes in a full segment.
    pub fn mss(&self) -> u32 {
        self.packet_size - self.header
    }
}

#[cfg(test)]
pub(crate) mod harness;
