//! What each column of the results measures, in words a figure can show: a human name, a unit,
//! and a sentence. The tables are the results' (`flows`, `links`, `link_flows`, `workloads`,
//! `connections`) and the run's own scalars (`runs`). `aqmlab plot` labels its axes from here, the
//! scenario reference lists them, and a test fails when a column appears that is not listed.

use serde::Serialize;

/// One column of a results table.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ResultColumn {
    /// The column's name; `drops_by_reason.REASON` stands for one column per reason.
    pub name: &'static str,
    /// What a figure's axis calls it ("mean queueing delay").
    pub label: &'static str,
    /// `s`, `bit/s`, `bytes`, `packets`, `fraction`, ... (empty for a pure number).
    pub unit: &'static str,
    pub doc: &'static str,
}

const fn col(name: &'static str, label: &'static str, unit: &'static str, doc: &'static str) -> ResultColumn {
    ResultColumn { name, label, unit, doc }
}

/// The run's scalars (the sweep store's `runs` table).
pub const RUN: &[ResultColumn] = &[
    col("seed", "seed", "", "the master seed of the run"),
    col("sim_time_s", "simulated time", "s", "the end of the run"),
    col("measure_from_s", "start of the measurement window", "s", "the warmup: statistics count from here"),
    col("events", "events", "events", "events the simulation handled"),
    col("peak_pending_events", "largest event queue", "events", "the most events pending at once"),
    col("wall_s", "wall time", "s", "wall time from the end of the build to the results"),
    col("loop_wall_s", "wall time in the event loop", "s", "wall time in the event loop alone"),
    col("fairness.jain", "Jain's fairness index", "", "(sum x)^2 / (n sum x^2) over the flows' throughputs"),
    col("fairness.groups.GROUP", "Jain's fairness index within the group", "", "Jain's index over the group's flows"),
];

/// Per flow (`flows`).
pub const FLOW: &[ResultColumn] = &[
    col("sent_pkts", "packets sent", "packets", "packets the source sent in the window, retransmissions included"),
    col("sent_bytes", "bytes sent", "bytes", "bytes the source sent in the window"),
    col("delivered_pkts", "packets delivered", "packets", "data packets that reached the destination in the window"),
    col("delivered_bytes", "bytes delivered", "bytes", "bytes of the data packets delivered"),
    col("goodput_bytes", "goodput", "bytes", "new data delivered in order (datagrams: everything delivered)"),
    col("throughput_bps", "throughput", "bit/s", "bytes delivered over the window, times 8, retransmissions included"),
    col("goodput_bps", "goodput", "bit/s", "new data delivered in order over the window, times 8"),
    col("dropped_pkts", "data packets dropped", "packets", "the flow's data packets dropped anywhere"),
    col("drops_by_reason.REASON", "REASON drops", "packets", "the drops of one reason"),
    col("ack_drops", "ACKs dropped", "packets", "the flow's ACKs dropped anywhere"),
    col("marks", "packets marked", "packets", "the flow's packets marked (CE, DECbit) anywhere"),
    col("marks_by_reason.REASON", "REASON marks", "packets", "the marks of one reason"),
    col("retransmits", "retransmissions", "packets", "TCP retransmissions"),
    col("timeouts", "timeouts", "timeouts", "retransmission timer expiries"),
    col(
        "fast_retransmits",
        "fast retransmits",
        "recoveries",
        "recoveries started by duplicate ACKs (a fast retransmit each; not the packets resent after it)",
    ),
    col("mean_rtt_s", "mean round-trip time", "s", "mean of the sender's round-trip samples"),
    col(
        "mean_packet_rtt_s",
        "mean packet round trip",
        "s",
        "mean over the data packets acknowledged of the time from each one's first sending to the ACK covering it",
    ),
    col(
        "mean_qdelay_s",
        "mean queueing delay",
        "s",
        "mean over delivered packets of the time spent in queues on the path",
    ),
    col(
        "mean_delay_s",
        "mean one-way delay",
        "s",
        "mean over delivered packets of the time from source to destination",
    ),
    col(
        "mean_app_delay_s",
        "mean application delay",
        "s",
        "mean delay of an application's units (a Telnet's keystrokes)",
    ),
    col("sd_app_delay_s", "standard deviation of the application delay", "s", "as mean_app_delay_s"),
    col("completion_s", "completion time", "s", "when a finite transfer's last byte was acknowledged"),
    col(
        "total_sent_pkts",
        "packets sent in the run",
        "packets",
        "whole-run count: sent = delivered + dropped + in flight",
    ),
    col("total_delivered_pkts", "packets delivered in the run", "packets", "whole-run count"),
    col("total_dropped_pkts", "packets dropped in the run", "packets", "whole-run count"),
    col("in_flight_pkts", "packets in flight at the end", "packets", "data packets still in queues or on wires"),
    col("rtt_p50_s", "median round-trip time", "s", "of the flow's kept round-trip samples (probes, traced flows)"),
    col("rtt_p95_s", "95th-percentile round-trip time", "s", "as rtt_p50_s"),
    col("rtt_p99_s", "99th-percentile round-trip time", "s", "as rtt_p50_s"),
    col("rtt_max_s", "largest round-trip time", "s", "as rtt_p50_s"),
];

/// Per link direction (`links`).
pub const LINK: &[ResultColumn] = &[
    col("rate_bps", "link rate", "bit/s", "the link's rate"),
    col("arrivals", "arrivals", "packets", "packets offered to the queue in the window"),
    col("departures", "departures", "packets", "packets transmitted in the window"),
    col("dropped_pkts", "packets dropped", "packets", "packets the link dropped (queue, transmission, wire)"),
    col("drops_by_reason.REASON", "REASON drops", "packets", "the drops of one reason"),
    col("marks", "packets marked", "packets", "packets the queue marked"),
    col("marks_by_reason.REASON", "REASON marks", "packets", "the marks of one reason"),
    col(
        "mean_queue_pkts",
        "mean queue length",
        "packets",
        "packets waiting (not the one in transmission), time average",
    ),
    col("mean_queue_bytes", "mean queue length", "bytes", "bytes waiting, time average"),
    col("max_queue_pkts", "largest queue", "packets", "the most packets waiting at once"),
    col("queue_pkts_end", "queue at the end", "packets", "packets waiting at the end of the run"),
    col("mean_qdelay_s", "mean queueing delay", "s", "from arrival at the queue to the start of transmission"),
    col("utilization", "utilisation", "fraction", "the fraction of the window the transmitter was busy"),
    col("gauges.GAUGE", "time-average GAUGE", "", "time average of a traced discipline's gauge (series columns)"),
];

/// Per (link direction, flow crossing it) (`link_flows`).
pub const LINK_FLOW: &[ResultColumn] = &[
    col("arrivals", "arrivals", "packets", "the flow's packets offered to the queue"),
    col("departures", "departures", "packets", "the flow's packets transmitted"),
    col("drops", "packets dropped", "packets", "the flow's packets dropped at the link"),
    col("marks", "packets marked", "packets", "the flow's packets marked at the link"),
    col("mean_qdelay_s", "mean queueing delay", "s", "the flow's packets' mean wait in the queue"),
    col("sd_qdelay_s", "standard deviation of the queueing delay", "s", "of the flow's packets' waits"),
    col("overflow_arrivals", "arrivals at a full buffer", "packets", "the flow's arrivals that found the buffer full"),
];

/// Per workload and size bucket (`workloads`).
pub const WORKLOAD: &[ResultColumn] = &[
    col("arrivals_per_s", "arrival rate", "1/s", "connections opened per second"),
    col("mean_size_bytes", "mean transfer size", "bytes", "the size distribution's mean"),
    col("offered_bps", "offered load", "bit/s", "arrivals per second times the mean size, times 8"),
    col("opened", "connections opened", "connections", "connections opened in the window"),
    col("finished", "connections finished", "connections", "of those opened in the window, finished by the end"),
    col("unfinished", "connections unfinished", "connections", "of those opened in the window, not finished"),
    col("min_bytes", "bucket's smallest size", "bytes", "sizes in [min_bytes, max_bytes)"),
    col("max_bytes", "bucket's size limit", "bytes", "sizes in [min_bytes, max_bytes); none for the last"),
    col("flows", "connections", "connections", "connections of the bucket opened in the window"),
    col("fct_mean_s", "mean flow completion time", "s", "over the bucket's finished connections"),
    col("fct_p50_s", "median flow completion time", "s", "as fct_mean_s"),
    col("fct_p95_s", "95th-percentile flow completion time", "s", "as fct_mean_s"),
    col("fct_p99_s", "99th-percentile flow completion time", "s", "as fct_mean_s"),
    col("slowdown_mean", "mean slowdown", "", "completion time over the ideal (an empty network's)"),
    col("slowdown_p50", "median slowdown", "", "as slowdown_mean"),
    col("slowdown_p95", "95th-percentile slowdown", "", "as slowdown_mean"),
    col("slowdown_p99", "99th-percentile slowdown", "", "as slowdown_mean"),
];

/// Per connection of a workload (`connections`).
pub const CONNECTION: &[ResultColumn] = &[
    col("bytes", "transfer size", "bytes", "the connection's data bytes"),
    col("start_s", "opening time", "s", "when it opened"),
    col("finish_s", "finishing time", "s", "when its last byte was acknowledged (NaN: not by the end)"),
    col("fct_s", "flow completion time", "s", "finish_s - start_s"),
    col("ideal_fct_s", "ideal flow completion time", "s", "the completion time over an empty network"),
    col("slowdown", "slowdown", "", "fct_s over ideal_fct_s"),
    col("retransmits", "retransmissions", "packets", "TCP retransmissions"),
    col("timeouts", "timeouts", "timeouts", "retransmission timer expiries"),
    col("drops", "data packets dropped", "packets", "its data packets dropped"),
    col("marks", "packets marked", "packets", "its data packets marked"),
    col(
        "in_window",
        "opened in the measurement window",
        "",
        "true when it opened after the warmup: the connections the workload's statistics count",
    ),
];

/// The tables by name, as the sweep store names them.
pub const TABLES: &[(&str, &[ResultColumn])] = &[
    ("runs", RUN),
    ("flows", FLOW),
    ("links", LINK),
    ("link_flows", LINK_FLOW),
    ("workloads", WORKLOAD),
    ("connections", CONNECTION),
];

/// The entry for `column` of `table`, a placeholder (`drops_by_reason.REASON`) standing for any
/// last part.
pub fn find(table: &str, column: &str) -> Option<&'static ResultColumn> {
    let columns = TABLES.iter().find(|(name, _)| *name == table)?.1;
    columns.iter().find(|c| match c.name.rsplit_once('.') {
        Some((prefix, last)) if last.chars().all(|ch| ch.is_ascii_uppercase()) => {
            column.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.') && rest.len() > 1)
        }
        _ => c.name == column,
    })
}
