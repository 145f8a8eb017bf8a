//! The `[simulation]` section: duration, warmup, seed and the guards against runaway runs.

use super::budget;
use crate::conf::{Duration, Fields, Origin, Result};

/// Largest `max_packets`: packet ids are 32-bit.
const MAX_PACKETS_CAP: u64 = 1 << 31;

/// The keys of `[simulation]`.
pub(super) struct SimSettings {
    pub(super) duration: Duration,
    pub(super) warmup: Duration,
    pub(super) seed: u64,
    pub(super) name: Option<String>,
    pub(super) max_events: Option<u64>,
    pub(super) max_queue_pkts: u64,
    pub(super) max_packets: u64,
    pub(super) flow_state_limit: (u64, Origin),
    pub(super) max_event_rate: Option<u64>,
}

/// Read `[simulation]` (in catalogue mode: document it).
pub(super) fn read_simulation(f: &mut Fields) -> Result<SimSettings> {
    let duration: Duration = f.req("duration", Duration(0), "simulated time")?;
    f.ensure(duration.0 > 0, "duration", "must be above 0")?;
    let warmup: Duration = f.or("warmup", Duration(0), "statistics start here; they cover [warmup, duration)")?;
    f.ensure(
        warmup.0 < duration.0,
        "warmup",
        format!("must be shorter than duration ({})", crate::units::fmt_duration(duration.0)),
    )?;
    let seed = f.or("seed", crate::conf::Seed(1), "master random seed")?.0;
    let name: Option<String> = f.opt("name", "scenario name (default: the file name)")?;
    let max_events: Option<u64> = f.opt("max_events", "stop with an error after this many events")?;
    f.ensure(max_events != Some(0), "max_events", "must be at least 1 (leave it out for no limit)")?;
    let max_queue_pkts: u64 =
        f.or("max_queue_pkts", 1_000_000u64, "stop with an error when any queue holds more packets")?;
    f.ensure(max_queue_pkts >= 1, "max_queue_pkts", "must be at least 1")?;
    let max_packets: u64 = f.or(
        "max_packets",
        10_000_000u64,
        "stop with an error when more packets are alive at once (queued, in transmission or on the wire)",
    )?;
    f.ensure(
        (1..=MAX_PACKETS_CAP).contains(&max_packets),
        "max_packets",
        format!("must be from 1 to {MAX_PACKETS_CAP}"),
    )?;
    let flow_state_limit: u64 = f.or(
        "flow_state_limit",
        budget::DEFAULT_FLOW_STATE_ENTRIES,
        "refuse a scenario whose flow-queueing disciplines (fq, fq_bit, selective decbit, drr, sfq, fred, fq_codel, \
         fq_pie) would keep more per-flow (or per-bucket) entries than this, all link directions together \
         (about 128 bytes each)",
    )?;
    let max_event_rate: Option<u64> = f.opt(
        "max_event_rate",
        "stop with an error when the events and packets sent per simulated second, counted from the start, exceed \
         this (checked from 10^7 on; default: 1000 for every packet the link directions could carry at 40-byte \
         packets, plus 10^6 and the trace's samples per second)",
    )?;
    f.ensure(max_event_rate != Some(0), "max_event_rate", "must be at least 1 (leave it out for the default)")?;
    // Its line when written; otherwise none (the message then names the link, not [simulation]).
    let written = f.origin("flow_state_limit") != f.origin("");
    let flow_state_limit = (flow_state_limit, if written { f.origin("flow_state_limit") } else { Origin::Default });
    Ok(SimSettings {
        duration,
        warmup,
        seed,
        name,
        max_events,
        max_queue_pkts,
        max_packets,
        flow_state_limit,
        max_event_rate,
    })
}
